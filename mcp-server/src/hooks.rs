//! [`Hooks`]: code a server runs at points of the protocol's lifecycle rather than for a
//! method: the handshake's answer per client ([`Hooks::on_initialize`]), and the client's
//! `notifications/initialized`, `notifications/roots/list_changed` and
//! `notifications/cancelled`.
//!
//! Set them with [`ServerBuilder::hooks`](crate::ServerBuilder::hooks); see docs/hooks.md.

use std::future::Future;
use std::pin::Pin;

use ferromcp_core::ProtocolVersion;
use ferromcp_core::jsonrpc::RequestId;
use ferromcp_core::types::{CapabilityMap, ClientCapabilities, Implementation, JSONObject};

use crate::context::Context;
use crate::principal::Principal;

/// The work a hook returns: run on a task of its own, so the connection reads on meanwhile.
pub type HookFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

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

    /// The client of a 2025 session is ready (`notifications/initialized`). `ctx` is the
    /// session's: it may ask the client ([`Context::roots`], elicitation, sampling) and log.
    /// It serves no request: its [`request_id`](Context::request_id) is `None`.
    fn on_initialized(&self, ctx: Context) -> HookFuture {
        drop(ctx);
        Box::pin(async {})
    }

    /// The client of a 2025 session changed its roots
    /// (`notifications/roots/list_changed`); `ctx` as for
    /// [`on_initialized`](Self::on_initialized): `ctx.roots().await` asks for the new ones.
    fn on_roots_list_changed(&self, ctx: Context) -> HookFuture {
        drop(ctx);
        Box::pin(async {})
    }

    /// The client cancelled a request of its own that was still running
    /// (`notifications/cancelled`, over stdio or in a 2025 session; a 2026-07-28 request
    /// over HTTP is cancelled by closing its stream, which runs no hook). The engine has
    /// cancelled it already: its [`Context`] reads as cancelled and its handler stops at its
    /// next wait. `request_id` names it, `reason` is the client's, if it gave one; `ctx` is
    /// the notification's, as for [`on_initialized`](Self::on_initialized) (in the 2026
    /// era, the client its `_meta` describes).
    fn on_cancelled(
        &self,
        ctx: Context,
        request_id: RequestId,
        reason: Option<String>,
    ) -> HookFuture {
        drop((ctx, request_id, reason));
        Box::pin(async {})
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
    /// The authenticated caller, behind an auth layer.
    pub principal: Option<&'a Principal>,
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
