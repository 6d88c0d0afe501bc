//! A legacy session's handshake (`initialize`), the 2026 era's `server/discover`, and the
//! notifications a client sends: the requests and messages about the connection itself
//! rather than about the server's tools, resources and prompts.

use std::sync::Arc;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{Params, RequestId};
use ferromcp_core::types::{DiscoverResult, InitializeRequestParams, InitializeResult};
use ferromcp_core::ProtocolVersion;
use serde::Deserialize;

use super::{Engine, Reply, Response, parse_params};
use crate::context::{Client, Context};
use crate::custom::Work;
use crate::hooks::{ClientView, Handshake, Hooks};
use crate::peer::session::{Connection, LegacySession, Negotiated};
use crate::principal::Principal;
use crate::request::Caller;

#[derive(Deserialize)]
struct CancelledParams {
    #[serde(rename = "requestId")]
    request_id: Option<RequestId>,
}

impl Engine {
    pub(crate) fn handle_notification(
        &self,
        conn: &Connection,
        method: &str,
        params: Option<&Params>,
    ) -> Option<Work> {
        match method {
            "notifications/cancelled" => {
                if let Ok(CancelledParams {
                    request_id: Some(id),
                }) = parse_params(params)
                    && conn.cancel(&id)
                {
                    tracing::debug!(%id, "request cancelled by the client");
                }
            }
            "notifications/initialized" => {
                return self.hook(conn, |hooks, ctx| hooks.on_initialized(ctx));
            }
            "notifications/roots/list_changed" => {
                return self.hook(conn, |hooks, ctx| hooks.on_roots_list_changed(ctx));
            }
            other => match self.config().custom.notification(other) {
                Some(handler) => return handler.call(params.map(Params::get)),
                None => tracing::debug!(method = other, "notification ignored"),
            },
        }
        None
    }

    /// The work of a notification hook, given a context of `conn`'s session (none before
    /// `initialize`, nor without hooks). The context serves no request: it has no id.
    fn hook(
        &self,
        conn: &Connection,
        run: impl FnOnce(&dyn Hooks, Context) -> Work,
    ) -> Option<Work> {
        let hooks = self.config().custom.hooks.as_deref()?;
        let session = conn.session()?;
        let negotiated = session.negotiated()?;
        let client = Client {
            version: negotiated.version,
            capabilities: negotiated.capabilities.clone(),
            info: negotiated.client_info.clone(),
            session: Some(session),
            caller: Caller::default(),
        };
        let ctx = Context::new(
            self.host(),
            None,
            client,
            None,
            conn.sink(),
            tokio_util::sync::CancellationToken::new(),
            None,
            None,
        );
        Some(run(hooks, ctx))
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
