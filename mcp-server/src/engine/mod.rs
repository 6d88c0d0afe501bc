//! The protocol engine: one registry, two front doors.
//!
//! Every request is classified by its envelope before its method is looked at: a request
//! whose `_meta` carries `io.modelcontextprotocol/protocolVersion` is modern (2026-07-28:
//! stateless, validated per request); anything else belongs to a legacy session (2025
//! revisions: `initialize` first). Both eras then share the handlers of the common methods;
//! only the wrapping of results and errors differs.

pub(crate) mod batch;
mod config;
mod custom;
mod envelope;
pub(crate) mod guard;
mod handle;
// Only HTTP carries metadata beside the message.
#[cfg(feature = "http")]
pub(crate) mod headers;
mod lifecycle;
pub(crate) mod listen;
mod methods;
mod mrtr;
mod outline;
mod reply;
pub(crate) mod seal;
pub(crate) mod span;
pub(crate) mod tasks;

use std::borrow::Borrow;
use std::sync::Arc;
use std::time::Instant;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{Message, Params, Request, RequestId, WireNotification};
use ferromcp_core::types::{
    EmptyResult, LoggingLevel, PromptsCapability, RequestMetaObject, ResourcesCapability,
    ServerCapabilities, SubscriptionsListenRequestParams, ToolsCapability,
};
use ferromcp_core::{Era, ProtocolVersion};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::{Client, Context, Mrtr, Override};
pub(crate) use crate::custom::Work;
use crate::observe::{InScope, RequestInfo, ResponseInfo};
use crate::peer::session::{Connection, ConnectionEra, LegacySession};
use crate::peer::sink::Sink;
use crate::registry::{CompletionTarget, ListKind, RegistryEvent};
use crate::request::Caller;
use crate::result::HandlerError;
use guard::{Driven, drive};
use listen::Listen;

pub(crate) use config::{Config, Engine, StateMap};
#[cfg(feature = "http")]
pub(crate) use envelope::Probe;
pub(crate) use envelope::{Envelope, is_modern};
#[cfg(feature = "http")]
pub(crate) use handle::On;
pub(crate) use handle::{Arrival, Handled, poll_once};
use mrtr::MrtrParams;
use reply::WithMeta;
pub(crate) use reply::{Reply, Response, Status, duplicate_id};

/// A request's id leaves the connection's in-flight set when its reply is made, except a
/// listen stream's: the stream goes on, and a `notifications/cancelled` naming it must still
/// find it, so the transport ends it when the stream ends.
fn end_unless_listening(conn: &Connection, id: &RequestId, reply: &Reply) {
    if !matches!(reply, Reply::Listen(_)) {
        conn.end(id);
    }
}

fn parse_params<T: DeserializeOwned>(params: Option<&Params>) -> Result<T, ErrorObject> {
    parse_params_borrowed(params)
}

fn parse_params_borrowed<'a, T: Deserialize<'a>>(
    params: Option<&'a Params>,
) -> Result<T, ErrorObject> {
    let text = params.map_or("{}", Params::get);
    if !text.starts_with('{') {
        return Err(ErrorObject::invalid_params("`params` must be an object"));
    }
    // A large text (a tool's arguments, mostly) is split by a scan, so that its large member
    // is not scanned again; serde_json reads a small one whole, which costs less than the
    // split, and any text the split cannot make.
    if text.len() >= SPLIT_PARAMS_FROM
        && let Some(read) = crate::member::read_object(text)
    {
        return read.map_err(|e| ErrorObject::invalid_params(format!("invalid params: {e}")));
    }
    serde_json::from_str(text)
        .map_err(|e| ErrorObject::invalid_params(format!("invalid params: {e}")))
}

/// From this size `params` are split rather than read whole (docs/benchmarks.md: below it
/// the split costs more than it saves).
const SPLIT_PARAMS_FROM: usize = 512;

/// The era-specific facts a common method needs.
#[derive(Clone)]
struct Scope<'m> {
    client: Client,
    meta: Option<&'m Arc<RequestMetaObject>>,
    /// Legacy era: the connection, where a task's messages go once its request is answered.
    conn: Option<&'m Connection>,
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
}

#[derive(Deserialize)]
struct SetLevelParams {
    level: LoggingLevel,
}

impl Engine {
    /// The capabilities this server declares to a client of `version`, from what its
    /// registry offers and the extensions installed.
    pub(crate) fn capabilities(&self, version: ProtocolVersion) -> ServerCapabilities {
        let offers = self.registry().offers();
        let (tasks, mut extensions) = if offers.tasks {
            tasks::capability(version.era())
        } else {
            (None, None)
        };
        self.config().extensions.declare(version, &mut extensions);
        ServerCapabilities {
            tools: offers.tools.then(|| ToolsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            resources: offers.resources.then(|| ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
                ..Default::default()
            }),
            prompts: offers.prompts.then(|| PromptsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            logging: Some(Default::default()),
            completions: (offers.completions || offers.prompts || offers.resources)
                .then(Default::default),
            tasks,
            extensions,
            ..Default::default()
        }
    }

    /// Takes a notification or a client's response (to a request of the server's) on
    /// `conn`, sent by `caller`; a request is left alone (it is run, not absorbed). Returns
    /// the work a notification's handler wants done, which the transport runs on a task of
    /// its own.
    #[must_use = "the transport runs the handler's work"]
    pub(crate) fn absorb(
        &self,
        conn: &Connection,
        message: Message,
        caller: Caller,
    ) -> Option<Work> {
        match message {
            Message::Request(_) => {}
            Message::Notification(n) => {
                return self.handle_notification(conn, &n.method, n.params.as_ref(), caller);
            }
            Message::Response(r) => {
                let result = serde_json::from_str(r.result.get()).unwrap_or(Value::Null);
                self.handle_client_response(conn, &r.id, Ok(result));
            }
            Message::Error(e) => match &e.id {
                Some(id) => self.handle_client_response(conn, id, Err(e.error)),
                // The client's text as a quoted, escaped string: a line break in it cannot
                // forge a log line of its own.
                None => tracing::warn!(
                    code = e.error.code.0,
                    message = ?e.error.message,
                    "the client reported an error"
                ),
            },
        }
        None
    }

    fn handle_client_response(
        &self,
        conn: &Connection,
        id: &RequestId,
        result: Result<Value, ErrorObject>,
    ) {
        let routed = conn.session().is_some_and(|s| s.complete(id, result));
        if !routed {
            tracing::debug!(%id, "response to no pending request; ignored");
        }
    }

    /// Handles one request of a connection, registering it as in flight for its duration.
    pub(crate) async fn handle_request(
        &self,
        conn: &Arc<Connection>,
        req: Request,
        sink: Sink,
        caller: Caller,
    ) -> Reply {
        let Some(cancel) = conn.begin(&req.id) else {
            return Reply::Response(Response::error(Some(&req.id), &duplicate_id(&req.id)));
        };
        Engine::handle_registered(self, conn, req, None, sink, cancel, caller).await
    }

    /// Handles one request already registered with [`Connection::begin`] (so that a
    /// cancellation arriving before the request starts running still reaches it), with its
    /// envelope if the transport has read it already.
    ///
    /// The envelope is read here, before the future is made, and borrowed from then on: the
    /// `_meta` object is large, and every copy of it in a future's state is moved with the
    /// future.
    ///
    /// The engine and the connection are borrowed, or owned (`Engine`, `Arc<Connection>`)
    /// by a transport that boxes the future as a task of its own: the future is then made in
    /// its box, where an `async` block around a borrowing call would be moved into it whole.
    #[inline]
    pub(crate) fn handle_registered<'a>(
        engine: impl Borrow<Engine> + Send + 'a,
        conn: impl Borrow<Arc<Connection>> + Send + 'a,
        req: Request,
        envelope: Option<Envelope>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
        caller: Caller,
    ) -> impl Future<Output = Reply> + 'a {
        let envelope = envelope.map_or_else(|| Envelope::read(&req), Ok);
        async move {
            let (this, conn) = (engine.borrow(), conn.borrow());
            let meta = envelope.as_ref().ok().and_then(Envelope::meta);
            let info = RequestInfo {
                req: &req,
                meta,
                conn,
            };
            let watch = this.config().observer.on_request(&info);
            // Wrapping the future moves it, and the clock costs two reads: only when someone
            // watches.
            if watch.is_off() {
                let reply = this
                    .route(conn, &req, &envelope, sink, cancel, caller)
                    .await;
                end_unless_listening(conn, &req.id, &reply);
                return reply;
            }
            let started = Instant::now();
            let reply = InScope {
                watch: &watch,
                future: this.route(conn, &req, &envelope, sink, cancel, caller),
            }
            .await;
            end_unless_listening(conn, &req.id, &reply);
            watch.end(&ResponseInfo {
                request: RequestInfo {
                    req: &req,
                    meta: envelope.as_ref().ok().and_then(Envelope::meta),
                    conn,
                },
                reply: &reply,
                duration: started.elapsed(),
            });
            reply
        }
    }

    /// Decides the request's era (fixing the connection's on its first request) and hands it
    /// to that era's front door.
    async fn route(
        &self,
        conn: &Arc<Connection>,
        req: &Request,
        envelope: &Result<Envelope, ErrorObject>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
        caller: Caller,
    ) -> Reply {
        let meta = match envelope {
            Ok(envelope) => envelope.shared_meta(),
            Err(e) => return Reply::Response(Response::error(Some(&req.id), e)),
        };
        let era = match conn.era() {
            ConnectionEra::Undecided => {
                let modern = is_modern(meta.map(Arc::as_ref));
                // A 2026 request the server refuses (a version it does not speak, an envelope
                // without its required members) decides nothing: a client that speaks both
                // eras falls back to `initialize` on the same connection.
                if modern
                    && let Err(e) = RequestMetaObject::modern_envelope(
                        meta.map(Arc::as_ref),
                        &self.config().versions,
                    )
                {
                    return Reply::Response(Response::error(Some(&req.id), &e));
                }
                // Nor does an `initialize` a 2026-only server refuses.
                if !modern
                    && req.method == "initialize"
                    && !self
                        .config()
                        .versions
                        .iter()
                        .any(|v| v.era() == Era::Legacy)
                {
                    #[derive(Deserialize)]
                    #[serde(rename_all = "camelCase")]
                    struct Asked {
                        #[serde(default)]
                        protocol_version: String,
                    }
                    let asked = parse_params::<Asked>(req.params.as_ref())
                        .map(|a| a.protocol_version)
                        .unwrap_or_default();
                    if let Some(refusal) = self.no_legacy_version(&asked) {
                        return Reply::Response(Response::error(Some(&req.id), &refusal));
                    }
                }
                if !modern && req.method != "initialize" && req.method != "ping" {
                    return Reply::Response(Response::error(
                        Some(&req.id),
                        &ErrorObject::invalid_request(
                            "the first request must be `initialize` (2025 revisions) or carry the 2026 per-request `_meta` envelope",
                        ),
                    ));
                }
                conn.decide(modern)
            }
            era => era,
        };
        match era {
            ConnectionEra::Legacy(session) => {
                self.legacy_request(conn, &session, req, meta, sink, cancel, caller)
                    .await
            }
            ConnectionEra::Modern | ConnectionEra::Undecided => {
                outline::outline(self.modern_request(req, meta, sink, cancel, caller)).await
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn legacy_request(
        &self,
        conn: &Arc<Connection>,
        session: &Arc<LegacySession>,
        req: &Request,
        meta: Option<&Arc<RequestMetaObject>>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
        caller: Caller,
    ) -> Reply {
        let id = &req.id;
        let params = req.params.as_ref();
        let err = |e: ErrorObject| Reply::Response(Response::error(Some(id), &e));
        match req.method.as_str() {
            "initialize" => {
                let reply = self.initialize(session, id, params, caller.principal.as_deref());
                if let (Reply::Response(Response { error: None, .. }), Some(negotiated)) =
                    (&reply, session.negotiated())
                {
                    session.observe(
                        &self.config().observer,
                        negotiated.version,
                        conn.transport(),
                    );
                }
                return reply;
            }
            "ping" => {
                let version = session
                    .negotiated()
                    .map_or(ProtocolVersion::LATEST_LEGACY, |n| n.version);
                return Reply::Response(self.respond(id, version, EmptyResult::default()));
            }
            _ => {}
        }
        let Some(negotiated) = session.negotiated() else {
            return err(ErrorObject::invalid_request(
                "the session is not initialized: send `initialize` first",
            ));
        };
        let version = negotiated.version;
        match req.method.as_str() {
            "logging/setLevel" => match parse_params::<SetLevelParams>(params) {
                Ok(p) => {
                    session.set_log_level(p.level);
                    Reply::Response(self.respond(id, version, EmptyResult::default()))
                }
                Err(e) => err(e),
            },
            "resources/subscribe" | "resources/unsubscribe" => {
                match parse_params::<UriParams>(params) {
                    Ok(p) => {
                        if req.method == "resources/subscribe" {
                            session.subscribe(&p.uri);
                        } else {
                            session.unsubscribe(&p.uri);
                        }
                        Reply::Response(self.respond(id, version, EmptyResult::default()))
                    }
                    Err(e) => err(e),
                }
            }
            _ => {
                let scope = Scope {
                    client: Client {
                        version,
                        capabilities: negotiated.capabilities.clone(),
                        info: negotiated.client_info.clone(),
                        session: Some(session.clone()),
                        caller,
                    },
                    meta,
                    conn: Some(conn),
                };
                outline::outline(self.common_request(req, scope, sink, cancel)).await
            }
        }
    }

    /// A server configured for the 2026 era only speaks no version `initialize` could agree
    /// on: it answers with the versions it speaks (-32022), rather than agreeing on one it
    /// was told not to.
    fn no_legacy_version(&self, requested: &str) -> Option<ErrorObject> {
        let versions = &self.config().versions;
        if versions.iter().any(|v| v.era() == Era::Legacy) {
            return None;
        }
        Some(ErrorObject::unsupported_protocol_version(
            requested, versions,
        ))
    }

    async fn modern_request(
        &self,
        req: &Request,
        meta: Option<&Arc<RequestMetaObject>>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
        caller: Caller,
    ) -> Reply {
        let id = &req.id;
        let envelope = match RequestMetaObject::modern_envelope(
            meta.map(Arc::as_ref),
            &self.config().versions,
        ) {
            // Shared with the request's context, not copied into it.
            Ok(env) => (
                env.protocol_version,
                Arc::clone(env.client_capabilities),
                env.client_info.cloned(),
            ),
            // A bad envelope makes the whole request unusable: 400, whatever the code.
            Err(e) => {
                return Reply::Response(
                    Response::error(Some(id), &e).with_status(Status::BadRequest),
                );
            }
        };
        let (version, capabilities, client_info) = envelope;
        let client = Client {
            version,
            capabilities,
            info: client_info,
            session: None,
            caller,
        };
        match req.method.as_str() {
            "server/discover" => self.discover(id, &methods::view(&client)),
            "subscriptions/listen" => {
                let listen =
                    match parse_params::<SubscriptionsListenRequestParams>(req.params.as_ref()) {
                        Ok(p) => {
                            Listen::new(self, id.clone(), p.notifications, &client, cancel).await
                        }
                        Err(e) => Err(e),
                    };
                match listen {
                    Ok(listen) => Reply::Listen(Box::new(listen)),
                    Err(e) => Reply::Response(Response::error(Some(id), &e)),
                }
            }
            _ => {
                let scope = Scope {
                    client,
                    meta,
                    conn: None,
                };
                outline::outline(self.common_request(req, scope, sink, cancel)).await
            }
        }
    }
}

/// The legacy-era notification for a registry change, if the session should get it: list
/// changes always, resource updates only for subscribed URIs.
pub(crate) fn legacy_notification(
    session: &LegacySession,
    event: &RegistryEvent,
) -> Option<String> {
    let (method, params) = match event {
        RegistryEvent::ToolsChanged => ("notifications/tools/list_changed", None),
        RegistryEvent::PromptsChanged => ("notifications/prompts/list_changed", None),
        RegistryEvent::ResourcesChanged => ("notifications/resources/list_changed", None),
        RegistryEvent::ResourceUpdated(uri) if session.is_subscribed(uri) => (
            "notifications/resources/updated",
            Some(serde_json::json!({ "uri": uri })),
        ),
        _ => return None,
    };
    ferromcp_core::jsonrpc::to_string(&WireNotification::new(method, params.as_ref())).ok()
}
