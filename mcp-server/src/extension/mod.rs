//! Protocol extensions: an [`Extension`] declares its identifier and settings in the
//! server's capabilities (`capabilities.extensions`), and contributes custom methods,
//! notifications, tools, resources, templates and prompts through the same builder and
//! registry as everything else — no second request path.
//!
//! Install one with [`ServerBuilder::extension`](crate::ServerBuilder::extension). A
//! handler asks what the client declared for it with
//! [`Context::client_extension`](crate::Context::client_extension) (or
//! [`ClientView::extension`](crate::hooks::ClientView::extension) in a hook) and degrades
//! gracefully when the client did not. See docs/extensions.md.
//!
//! # Examples
//!
//! ```
//! use std::sync::Arc;
//!
//! use ferromcp::custom::method_fn;
//! use ferromcp::error::ErrorObject;
//! use ferromcp::extension::{Extension, ExtensionError, Install};
//! use ferromcp::ServerBuilder;
//!
//! /// `com.example/echo`: one custom method that echoes its params.
//! struct Echo;
//!
//! impl Extension for Echo {
//!     fn id(&self) -> &str {
//!         "com.example/echo"
//!     }
//!
//!     fn install(self: Arc<Self>, install: &mut Install<'_>) -> Result<(), ExtensionError> {
//!         install.method(
//!             "com.example/echo",
//!             method_fn(|p: serde_json::Value, _ctx: ferromcp::Context| async move {
//!                 Ok::<_, ErrorObject>(p)
//!             }),
//!         )?;
//!         Ok(())
//!     }
//! }
//!
//! let server = ServerBuilder::new("demo", "1.0.0").extension(Echo)?.build();
//! # let _ = server;
//! # Ok::<(), ExtensionError>(())
//! ```

mod client;
mod id;

use std::sync::Arc;

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{CapabilityMap, JSONObject, TASKS_EXTENSION};

use crate::custom::{Custom, Method, MethodError, Notification};
use crate::registry::{Registry, RegistryError};

pub use id::is_valid_id;

/// A protocol extension: an identifier, the settings the server declares for it, and what
/// it adds to the server when installed.
///
/// Only [`id`](Extension::id) is required: an extension that adds nothing declares itself
/// with empty settings (`{}`), which says "supported, no settings".
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
///
/// use ferromcp::ProtocolVersion;
/// use ferromcp::extension::{Extension, ExtensionError, Install};
/// use ferromcp::registry::tool_fn;
/// use ferromcp::types::{JSONObject, Tool};
/// use ferromcp::{Context, ServerBuilder};
///
/// /// `com.example/shout`: a tool that shouts louder for clients that declared the
/// /// extension.
/// struct Shout {
///     volume: u8,
/// }
///
/// impl Extension for Shout {
///     fn id(&self) -> &str {
///         "com.example/shout"
///     }
///
///     fn settings(&self, _version: ProtocolVersion) -> Option<JSONObject> {
///         let mut settings = JSONObject::new();
///         settings.insert("volume".into(), self.volume.into());
///         Some(settings)
///     }
///
///     fn install(self: Arc<Self>, install: &mut Install<'_>) -> Result<(), ExtensionError> {
///         let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap_or_default();
///         install.registry().add_tool(
///             Tool::new("shout", schema),
///             tool_fn(|_: serde_json::Value, ctx: Context| async move {
///                 if ctx.client_supports("com.example/shout") { "HELLO!" } else { "hello" }
///             }),
///             None,
///         )?;
///         Ok(())
///     }
/// }
///
/// let server = ServerBuilder::new("demo", "1.0.0").extension(Shout { volume: 11 })?.build();
/// assert_eq!(server.registry().tool_names(), ["shout"]);
/// # Ok::<(), ExtensionError>(())
/// ```
pub trait Extension: Send + Sync + 'static {
    /// The identifier, `vendor-prefix/name` with a reverse-DNS prefix
    /// (`com.example/echo`); the key of the extension in `capabilities.extensions`.
    /// Checked by [`ServerBuilder::extension`](crate::ServerBuilder::extension)
    /// ([`is_valid_id`]).
    fn id(&self) -> &str;

    /// The settings the server declares under `capabilities.extensions[id]` to a client of
    /// `version` (`initialize` in the 2025 revisions, `server/discover` in 2026-07-28), or
    /// `None` not to declare the extension to such a client. Default: `{}`, supported with
    /// no settings. Not asked for 2024-11-05, a revision that has no extensions.
    fn settings(&self, version: ProtocolVersion) -> Option<JSONObject> {
        let _ = version;
        Some(JSONObject::new())
    }

    /// Adds the extension's methods, notifications and registry items, once, when the
    /// extension is installed. Default: nothing.
    ///
    /// # Errors
    ///
    /// A method, notification or registry item the server refuses (reserved or taken
    /// name, invalid descriptor), or [`ExtensionError::Failed`] for a failure of the
    /// extension's own.
    fn install(self: Arc<Self>, install: &mut Install<'_>) -> Result<(), ExtensionError> {
        let _ = install;
        Ok(())
    }

    /// Checks the finished registry, once [`ServerBuilder::build`](crate::ServerBuilder::build)
    /// has registered every item (the `#[server]` type's, those it includes, every
    /// extension's): a reference one item makes to another that is missing, say. Default:
    /// nothing to check.
    ///
    /// # Errors
    ///
    /// What is wrong, usually as [`ExtensionError::Failed`]; `build` reports it as
    /// [`RegistryError::Extension`].
    fn check(&self, registry: &Registry) -> Result<(), ExtensionError> {
        let _ = registry;
        Ok(())
    }
}

/// What an [`Extension`] installs into: the server's custom methods and notifications, and
/// its [`Registry`] (tools, resources, templates, prompts, completions).
pub struct Install<'a> {
    id: &'a str,
    custom: &'a mut Custom,
    registry: &'a Registry,
}

impl std::fmt::Debug for Install<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Install")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Install<'_> {
    /// The identifier of the extension being installed.
    pub fn id(&self) -> &str {
        self.id
    }

    /// Answers the custom request method `name` with `method`, as
    /// [`ServerBuilder::method`](crate::ServerBuilder::method) does.
    ///
    /// # Errors
    ///
    /// [`MethodError::Reserved`] for a protocol method or an `rpc.` name,
    /// [`MethodError::Duplicate`] for a name already taken (by the server or another
    /// extension).
    pub fn method(
        &mut self,
        name: impl Into<String>,
        method: Method,
    ) -> Result<&mut Self, MethodError> {
        self.custom.add_method(name.into(), method)?;
        Ok(self)
    }

    /// Hands the custom notification `name` to `notification`, as
    /// [`ServerBuilder::notification`](crate::ServerBuilder::notification) does.
    ///
    /// # Errors
    ///
    /// As [`method`](Self::method).
    pub fn notification(
        &mut self,
        name: impl Into<String>,
        notification: Notification,
    ) -> Result<&mut Self, MethodError> {
        self.custom.add_notification(name.into(), notification)?;
        Ok(self)
    }

    /// The server's registry: add tools, resources, templates, prompts and completions
    /// (with their `_meta`) here. They are listed before the `#[server]` type's own and
    /// those it includes, in the order extensions are installed.
    pub fn registry(&self) -> &Registry {
        self.registry
    }
}

/// Why an extension was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExtensionError {
    /// The identifier is not `vendor-prefix/name` with a reverse-DNS prefix
    /// ([`is_valid_id`]).
    #[error(
        "`{0}` is not an extension identifier: expected `vendor-prefix/name` with a reverse-DNS prefix, such as `com.example/echo`"
    )]
    InvalidId(String),
    /// An extension with this identifier is already installed.
    #[error("an extension `{0}` is already installed")]
    Duplicate(String),
    /// The server declares this extension itself (`io.modelcontextprotocol/tasks`, from its
    /// tools' task support).
    #[error("`{0}` is declared by the server itself")]
    Reserved(String),
    /// A custom method or notification of the extension was refused.
    #[error(transparent)]
    Method(#[from] MethodError),
    /// A tool, resource, template or prompt of the extension was refused.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The extension failed for a reason of its own (a folder it serves cannot be read,
    /// say).
    #[error("the extension could not be installed")]
    Failed(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// The extensions installed on a server, in order, kept in its configuration.
#[derive(Clone, Default)]
pub(crate) struct Extensions {
    installed: Vec<Arc<dyn Extension>>,
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.installed.iter().map(|e| e.id()))
            .finish()
    }
}

impl Extensions {
    /// Checks `extension`'s identifier and installs it into `custom` and `registry`.
    pub(crate) fn install<E: Extension>(
        &mut self,
        extension: E,
        custom: &mut Custom,
        registry: &Registry,
    ) -> Result<(), ExtensionError> {
        let id = extension.id().to_owned();
        if !is_valid_id(&id) {
            return Err(ExtensionError::InvalidId(id));
        }
        if id == TASKS_EXTENSION {
            return Err(ExtensionError::Reserved(id));
        }
        if self.installed.iter().any(|e| e.id() == id) {
            return Err(ExtensionError::Duplicate(id));
        }
        let extension = Arc::new(extension);
        extension.clone().install(&mut Install {
            id: &id,
            custom,
            registry,
        })?;
        self.installed.push(extension);
        Ok(())
    }

    /// Runs every installed extension's [`Extension::check`] on the finished `registry`.
    pub(crate) fn check(&self, registry: &Registry) -> Result<(), RegistryError> {
        for extension in &self.installed {
            extension
                .check(registry)
                .map_err(|error| RegistryError::Extension {
                    id: extension.id().to_owned(),
                    message: match error {
                        ExtensionError::Failed(source) => source.to_string(),
                        other => other.to_string(),
                    },
                })?;
        }
        Ok(())
    }

    /// Adds to `declared` (`capabilities.extensions`) the settings of every installed
    /// extension for a client of `version`; nothing for a revision without extensions.
    pub(crate) fn declare(&self, version: ProtocolVersion, declared: &mut Option<CapabilityMap>) {
        if version.omits_later_members() {
            return;
        }
        for extension in &self.installed {
            if let Some(settings) = extension.settings(version) {
                declared
                    .get_or_insert_with(Default::default)
                    .insert(extension.id().to_owned(), settings);
            }
        }
    }
}
