//! What the client declared for an extension (`capabilities.extensions[id]`), for hooks and
//! handlers.

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{ClientCapabilities, JSONObject};

use crate::context::Context;
use crate::hooks::ClientView;

/// The settings `capabilities` declare for extension `id`, if a client of `version` can
/// have declared it (2024-11-05 has no extensions).
fn declared<'a>(
    capabilities: &'a ClientCapabilities,
    version: ProtocolVersion,
    id: &str,
) -> Option<&'a JSONObject> {
    if version.omits_later_members() {
        return None;
    }
    capabilities.extensions.as_ref()?.get(id)
}

impl<'a> ClientView<'a> {
    /// The settings the client declared for extension `id` (`capabilities.extensions[id]`),
    /// or `None` when it did not declare it. (Settings that are not a JSON object never get
    /// here: the handshake that carries them is refused with -32602.)
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::hooks::{ClientView, Handshake, Hooks};
    ///
    /// struct Hint;
    ///
    /// impl Hooks for Hint {
    ///     fn on_initialize(&self, client: &ClientView<'_>, answer: &mut Handshake<'_>) {
    ///         if client.extension("com.example/echo").is_none() {
    ///             *answer.instructions = Some("`com.example/echo` is not available.".into());
    ///         }
    ///     }
    /// }
    /// ```
    pub fn extension(&self, id: &str) -> Option<&'a JSONObject> {
        declared(self.capabilities, self.version, id)
    }
}

impl Context {
    /// The settings the client declared for extension `id` (`capabilities.extensions[id]`:
    /// for this request in 2026-07-28, for the session in the 2025 revisions), or `None`
    /// when it did not declare it — then a handler answers as it would without the
    /// extension. Settings that are not a JSON object never get here: the handshake (2025)
    /// or request (2026) that carries them is refused with -32602 naming the extension, and
    /// nothing else of the session or server is affected.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::Context;
    ///
    /// fn wants_markdown(ctx: &Context) -> bool {
    ///     ctx.client_extension("com.example/render")
    ///         .and_then(|settings| settings.get("markdown"))
    ///         .and_then(|m| m.as_bool())
    ///         .unwrap_or(false)
    /// }
    /// ```
    pub fn client_extension(&self, id: &str) -> Option<&JSONObject> {
        declared(self.client_capabilities(), self.protocol_version(), id)
    }

    /// Whether the client declared extension `id` ([`client_extension`] is `Some`).
    ///
    /// [`client_extension`]: Context::client_extension
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::Context;
    ///
    /// fn answer(ctx: &Context) -> &'static str {
    ///     if ctx.client_supports("com.example/ui") { "see the panel" } else { "plain text" }
    /// }
    /// ```
    pub fn client_supports(&self, id: &str) -> bool {
        self.client_extension(id).is_some()
    }
}
