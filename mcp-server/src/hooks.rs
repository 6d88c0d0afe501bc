//! [`Hooks`]: code a server runs at points of the protocol's lifecycle rather than for a
//! method — today the handshake's answer ([`Hooks::on_initialize`]), per client.
//!
//! Set them with [`ServerBuilder::hooks`](crate::ServerBuilder::hooks); see docs/hooks.md.

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{CapabilityMap, ClientCapabilities, Implementation, JSONObject};

/// Code the server runs at points of the lifecycle. Every method has a default that does
/// nothing: implement those you need.
///
/// # Examples
///
/// ```
/// use ferromcp::hooks::{ClientView, Handshake, Hooks};
/// use ferromcp::ServerBuilder;
///
/// struct Greeter;
///
/// impl Hooks for Greeter {
///     fn on_initialize(&self, client: &ClientView<'_>, answer: &mut Handshake<'_>) {
///         if client.info.is_some_and(|i| i.name == "inspector") {
///             *answer.instructions = Some("Start with the `help` tool.".into());
///         }
///     }
/// }
///
/// let server = ServerBuilder::new("demo", "1.0.0").hooks(Greeter).build();
/// # let _ = server;
/// ```
pub trait Hooks: Send + Sync + 'static {
    /// Adjusts the server's self-description for `client`, before it is sent: the answer to
    /// `initialize` (2025 revisions) and to `server/discover` (2026-07-28). The protocol
    /// version is not the hook's to change.
    fn on_initialize(&self, client: &ClientView<'_>, answer: &mut Handshake<'_>) {
        let _ = (client, answer);
    }
}

/// What a hook knows of the client.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ClientView<'a> {
    /// The client's self-description (`clientInfo`), if it sent one.
    pub info: Option<&'a Implementation>,
    /// The protocol version of the exchange: the one `initialize` agreed on, or the 2026
    /// request's.
    pub version: ProtocolVersion,
    /// The capabilities the client declared.
    pub capabilities: &'a ClientCapabilities,
}

/// The parts of the server's self-description a hook may change.
#[derive(Debug)]
#[non_exhaustive]
pub struct Handshake<'a> {
    /// The instructions for the client's model.
    pub instructions: &'a mut Option<String>,
    /// The capabilities' `experimental` map.
    pub experimental: &'a mut Option<CapabilityMap>,
    /// Capability members the protocol does not define.
    pub extra: &'a mut JSONObject,
    /// The server's self-description (`serverInfo`): `initialize` only; a 2026 result
    /// carries the server's own in its `_meta`.
    pub server_info: Option<&'a mut Implementation>,
}
