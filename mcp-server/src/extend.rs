//! The builder's setters for what extends the protocol: custom methods and notifications,
//! extensions, and lifecycle hooks.

use std::sync::Arc;

use crate::custom::{Method, MethodError, Notification};
use crate::extension::{Extension, ExtensionError};
use crate::hooks::{ClientView, Hooks};
use crate::registry::Listed;
use crate::server::ServerBuilder;

impl<H> ServerBuilder<H> {
    /// Answers the custom request method `name` with `method` (made by
    /// [`method_fn`](crate::custom::method_fn)), in both eras, over every transport.
    ///
    /// # Errors
    ///
    /// [`MethodError::Reserved`] for a method of a protocol revision or an `rpc.` name,
    /// [`MethodError::Duplicate`] for a name already taken.
    pub fn method(mut self, name: impl Into<String>, method: Method) -> Result<Self, MethodError> {
        self.config.custom.add_method(name.into(), method)?;
        Ok(self)
    }

    /// Hands the custom notification `name` to `notification` (made by
    /// [`notification_fn`](crate::custom::notification_fn)), run on a task of its own.
    ///
    /// # Errors
    ///
    /// As [`method`](Self::method).
    pub fn notification(
        mut self,
        name: impl Into<String>,
        notification: Notification,
    ) -> Result<Self, MethodError> {
        self.config
            .custom
            .add_notification(name.into(), notification)?;
        Ok(self)
    }

    /// Installs `extension`: declares it in the capabilities
    /// (`capabilities.extensions[id]`, with its [`settings`](Extension::settings)) and adds
    /// its methods, notifications and registry items ([`Extension::install`]). See
    /// [`extension`](crate::extension) and docs/extensions.md.
    ///
    /// # Errors
    ///
    /// [`ExtensionError::InvalidId`] for an identifier that is not `vendor-prefix/name`,
    /// [`ExtensionError::Duplicate`] for one installed already,
    /// [`ExtensionError::Reserved`] for `io.modelcontextprotocol/tasks`, and whatever the
    /// extension's install step refuses (a method or a tool name taken, say).
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::extension::{Extension, ExtensionError};
    /// use ferromcp::ServerBuilder;
    ///
    /// struct Marker;
    ///
    /// impl Extension for Marker {
    ///     fn id(&self) -> &str {
    ///         "com.example/marker"
    ///     }
    /// }
    ///
    /// let builder = ServerBuilder::new("demo", "1.0.0").extension(Marker)?;
    /// assert!(matches!(builder.extension(Marker), Err(ExtensionError::Duplicate(_))));
    /// # Ok::<(), ExtensionError>(())
    /// ```
    pub fn extension(mut self, extension: impl Extension) -> Result<Self, ExtensionError> {
        self.config
            .extensions
            .install(extension, &mut self.config.custom, &self.registry)?;
        Ok(self)
    }

    /// Runs `hooks` at the points of the lifecycle it implements (replacing hooks set
    /// before).
    pub fn hooks(mut self, hooks: impl Hooks) -> Self {
        self.config.custom.hooks = Some(Arc::new(hooks));
        self
    }

    /// Shows each request only the tools, resources, templates and prompts `predicate`
    /// keeps for its client (its `clientInfo`, revision, capabilities and authenticated
    /// principal), on top of the scopes an item needs (replacing a predicate set before).
    ///
    /// A hidden item is hidden from calls as well: `tools/call` and `prompts/get` answer
    /// as for an unknown name, `resources/read` as for an unknown URI. Pages are cached per
    /// set of items shown, so callers who see the same items share them. Keep the
    /// predicate cheap and pure: it runs for every item on each list request, and once on
    /// each call.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::registry::Listed;
    /// use ferromcp::ServerBuilder;
    ///
    /// // The `debug_` tools only for the Inspector.
    /// let server = ServerBuilder::new("demo", "1.0.0")
    ///     .visible_if(|item, client| match item {
    ///         Listed::Tool(tool) if tool.name.starts_with("debug_") => {
    ///             client.info.is_some_and(|i| i.name == "inspector")
    ///         }
    ///         _ => true,
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn visible_if(
        mut self,
        predicate: impl Fn(Listed<'_>, &ClientView<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.config.custom.visible = Some(Arc::new(predicate));
        self
    }
}
