//! A legacy session's handshake (`initialize`), the 2026 era's `server/discover`, and the
//! notifications a client sends: the requests and messages about the connection itself
//! rather than about the server's tools, resources and prompts.

use std::sync::Arc;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{Params, RequestId};
use ferromcp_core::types::{
    DiscoverResult, InitializeRequestParams, InitializeResult, RequestMetaObject,
};
use ferromcp_core::{Era, ProtocolVersion};
use serde::Deserialize;

use super::{Engine, Reply, Response, parse_params};
use crate::context::{Client, Context};
use crate::custom::Work;
use crate::hooks::{ClientView, Handshake, Hooks};
use crate::peer::session::{Connection, ConnectionEra, LegacySession, Negotiated};
use crate::peer::sink::Sink;
use crate::principal::Principal;
use crate::request::Caller;

#[derive(Deserialize)]
struct CancelledParams {
    #[serde(rename = "requestId")]
    request_id: Option<RequestId>,
    #[serde(default)]
    reason: Option<String>,
}

impl Engine {
    pub(crate) fn handle_notification(
        &self,
        conn: &Connection,
        method: &str,
        params: Option<&Params>,
        caller: Caller,
    ) -> Option<Work> {
        match method {
            "notifications/cancelled" => self.cancelled(conn, params, caller),
            "notifications/initialized" => {
                self.hook(conn, caller, |hooks, ctx| hooks.on_initialized(ctx))
            }
            "notifications/roots/list_changed" => {
                self.hook(conn, caller, |hooks, ctx| hooks.on_roots_list_changed(ctx))
            }
            other => self.custom_notification(Some(conn), other, params, caller),
        }
    }

    /// `notifications/cancelled`: cancels the request it names, if it is in flight on
    /// `conn`, then hands it to [`Hooks::on_cancelled`].
    fn cancelled(
        &self,
        conn: &Connection,
        params: Option<&Params>,
        caller: Caller,
    ) -> Option<Work> {
        let CancelledParams {
            request_id: Some(id),
            reason,
        } = parse_params(params).ok()?
        else {
            return None;
        };
        if !conn.cancel(&id) {
            return None;
        }
        tracing::debug!(%id, "request cancelled by the client");
        let hooks = self.config().custom.hooks.as_deref()?;
        let ctx = self.notice_context(Some(conn), params, caller)?;
        Some(hooks.on_cancelled(ctx, id, reason))
    }

    /// The work of the custom notification `method`'s handler, if one is registered and the
    /// notification has a context ([`notice_context`](Self::notice_context)).
    pub(super) fn custom_notification(
        &self,
        conn: Option<&Connection>,
        method: &str,
        params: Option<&Params>,
        caller: Caller,
    ) -> Option<Work> {
        let Some(handler) = self.config().custom.notification(method) else {
            tracing::debug!(method, "notification ignored");
            return None;
        };
        let Some(ctx) = self.notice_context(conn, params, caller) else {
            tracing::debug!(method, "custom notification before `initialize`; ignored");
            return None;
        };
        handler.call(params.map(Params::get), &ctx)
    }

    /// The work of a notification hook, given a context of `conn`'s session (none before
    /// `initialize`, nor without hooks).
    fn hook(
        &self,
        conn: &Connection,
        caller: Caller,
        run: impl FnOnce(&dyn Hooks, Context) -> Work,
    ) -> Option<Work> {
        let hooks = self.config().custom.hooks.as_deref()?;
        conn.session()?;
        Some(run(hooks, self.notice_context(Some(conn), None, caller)?))
    }

    /// The context of a notification from `caller`, which serves no request (it has no id
    /// and is never cancelled). On a 2025 session's connection, the session's once it is
    /// initialized (`None` before). On a 2026-07-28 connection, or for a 2026 notification
    /// over HTTP (`conn` being `None`), the client its `_meta` describes
    /// ([`stateless_client`]). `None` on a connection whose era is undecided (a pipe before
    /// its first request): its client is not known yet.
    fn notice_context(
        &self,
        conn: Option<&Connection>,
        params: Option<&Params>,
        caller: Caller,
    ) -> Option<Context> {
        if conn.is_some_and(|c| matches!(c.era(), ConnectionEra::Undecided)) {
            return None;
        }
        let (client, meta) = match conn.and_then(Connection::session) {
            Some(session) => {
                let negotiated = session.negotiated()?;
                let client = Client {
                    version: negotiated.version,
                    capabilities: negotiated.capabilities.clone(),
                    info: negotiated.client_info.clone(),
                    session: Some(session),
                    caller,
                };
                (client, None)
            }
            None => {
                let meta = super::envelope::Probe::read(params).ok()?.meta;
                let client = stateless_client(meta.as_ref(), &self.config().versions, caller)?;
                (client, meta.map(Arc::new))
            }
        };
        Some(Context::new(
            self.host(),
            None,
            client,
            meta.as_ref(),
            conn.map_or(Sink::Discard, Connection::sink),
            tokio_util::sync::CancellationToken::new(),
            None,
            None,
        ))
    }

    pub(super) fn initialize(
        &self,
        session: &LegacySession,
        id: &RequestId,
        params: Option<&Params>,
        principal: Option<&Principal>,
    ) -> Reply {
        let p: InitializeRequestParams = match parse_params(params) {
            Ok(p) => p,
            Err(e) => return Reply::Response(Response::error(Some(id), &e)),
        };
        if let Some(refusal) = self.no_legacy_version(&p.protocol_version) {
            return Reply::Response(Response::error(Some(id), &refusal));
        }
        let version =
            ProtocolVersion::negotiate_legacy_among(&p.protocol_version, &self.config().versions);
        let mut capabilities = p.capabilities;
        capabilities.restrict_to(version);
        let negotiated = Negotiated {
            version,
            capabilities: Arc::new(capabilities),
            client_info: Some(Arc::new(p.client_info)),
        };
        if !session.initialize(negotiated) {
            return Reply::Response(Response::error(
                Some(id),
                &ErrorObject::invalid_request("the session is already initialized"),
            ));
        }
        let mut result = InitializeResult::new(
            version.as_str(),
            self.capabilities(version),
            self.config().info.clone(),
        );
        result.instructions = self.config().instructions.clone();
        if let Some(hooks) = &self.config().custom.hooks
            && let Some(negotiated) = session.negotiated()
        {
            let client = ClientView {
                info: negotiated.client_info.as_deref(),
                version,
                capabilities: &negotiated.capabilities,
                principal,
            };
            hooks.on_initialize(
                &client,
                &mut Handshake {
                    instructions: &mut result.instructions,
                    experimental: &mut result.capabilities.experimental,
                    extra: &mut result.capabilities.extra,
                    server_info: Some(&mut result.server_info),
                },
            );
        }
        Reply::Response(self.respond(id, version, result))
    }

    /// `server/discover`: the versions, capabilities and instructions of the server.
    pub(super) fn discover(&self, id: &RequestId, client: &ClientView<'_>) -> Reply {
        let version = client.version;
        // Every version the server speaks, newest first, as -32022 lists them: a
        // client that speaks both eras may choose a 2025 one (by `initialize`).
        let mut result = DiscoverResult {
            supported_versions: self
                .config()
                .versions
                .iter()
                .map(|v| v.as_str().to_owned())
                .collect(),
            capabilities: self.capabilities(version),
            instructions: self.config().instructions.clone(),
            ..Default::default()
        };
        if let Some(hooks) = &self.config().custom.hooks {
            hooks.on_initialize(
                client,
                &mut Handshake {
                    instructions: &mut result.instructions,
                    experimental: &mut result.capabilities.experimental,
                    extra: &mut result.capabilities.extra,
                    server_info: None,
                },
            );
        }
        ferromcp_core::types::Cacheable::set_cache_hints(&mut result, self.config().discover_cache);
        Reply::Response(self.respond(id, version, result))
    }
}

/// The client a 2026-07-28 notification's `_meta` describes, as far as it does: a version
/// the server does not speak is read as the newest 2026 one of `versions` (`None` when it
/// speaks none), and absent capabilities as none.
fn stateless_client(
    meta: Option<&RequestMetaObject>,
    versions: &[ProtocolVersion],
    caller: Caller,
) -> Option<Client> {
    let modern = |v: &ProtocolVersion| v.era() == Era::Modern;
    let asked = meta.and_then(|m| m.protocol_version.as_deref());
    let version = asked
        .and_then(|v| v.parse::<ProtocolVersion>().ok())
        .filter(|v| modern(v) && versions.contains(v))
        .or_else(|| versions.iter().copied().filter(modern).max())?;
    Some(Client {
        version,
        capabilities: meta
            .and_then(|m| m.client_capabilities.clone())
            .unwrap_or_default(),
        info: meta.and_then(|m| m.client_info.clone()),
        session: None,
        caller,
    })
}
