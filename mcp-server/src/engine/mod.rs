//! The protocol engine: one registry, two front doors.
//!
//! Every request is classified by its envelope before its method is looked at: a request
//! whose `_meta` carries `io.modelcontextprotocol/protocolVersion` is modern (2026-07-28:
//! stateless, validated per request); anything else belongs to a legacy session (2025
//! revisions: `initialize` first). Both eras then share the handlers of the common methods;
//! only the wrapping of results and errors differs.

pub(crate) mod batch;
pub(crate) mod guard;
pub(crate) mod listen;
pub(crate) mod outbound;
pub(crate) mod seal;
pub(crate) mod session;
pub(crate) mod sink;
pub(crate) mod span;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mcp_core::error::{ErrorCode, ErrorObject};
use mcp_core::jsonrpc::{
    Message, Request, RequestId, WireErrorResponse, WireNotification, WireResponse,
};
use mcp_core::types::{
    CallToolResult, CompleteRequestParams, CompleteResult, CompletionReference, DiscoverResult,
    EmptyResult, GetPromptResult, InitializeRequestParams, InitializeResult, InputRequiredResult,
    LoggingLevel, PromptsCapability, ReadResourceResult, RequestMetaObject, ResourcesCapability,
    ResultMetaObject, ServerCapabilities, SubscriptionsListenRequestParams, ToolsCapability,
    WireResult,
};
use mcp_core::{Era, ProtocolVersion};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tracing::Instrument as _;

use crate::context::{Context, Mrtr, Override, RequestCtx};
use crate::registry::{CompletionTarget, ListKind, RegistryEvent};
use crate::result::HandlerError;
use crate::server::Server;
use guard::{Driven, drive};
use listen::Listen;
use session::{Connection, ConnectionEra, LegacySession, Negotiated};
use sink::Sink;

/// What the transport does with one request.
#[derive(Debug)]
pub(crate) enum Reply {
    /// Send this response.
    Response(Response),
    /// The request was cancelled: send nothing.
    Silent,
    /// `subscriptions/listen` was accepted: stream its notifications.
    Listen(Listen),
}

/// A serialized JSON-RPC response.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) json: String,
    /// How a modern-era HTTP response carries it (legacy-era JSON-RPC errors are always 200).
    pub(crate) status: Status,
    /// The JSON-RPC error code, for an error response.
    pub(crate) error: Option<ErrorCode>,
}

/// The HTTP status class of a modern-era response: the one place that maps JSON-RPC errors
/// to statuses (spec 2026-07-28, Streamable HTTP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// 200: a result, or an error about the method's own work (unknown tool, resource not
    /// found, invalid arguments).
    Ok,
    /// 400: the request itself is unusable — malformed, a bad per-request envelope, an
    /// unsupported protocol version, a header mismatch, a missing client capability.
    BadRequest,
    /// 404: the method does not exist in this era.
    NotFound,
}

impl Status {
    pub(crate) fn of(code: ErrorCode) -> Status {
        match code {
            ErrorCode::METHOD_NOT_FOUND => Status::NotFound,
            ErrorCode::PARSE_ERROR
            | ErrorCode::INVALID_REQUEST
            | ErrorCode::HEADER_MISMATCH
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => Status::BadRequest,
            _ => Status::Ok,
        }
    }
}

impl Response {
    pub(crate) fn error(id: Option<&RequestId>, error: &ErrorObject) -> Response {
        let json = serde_json::to_string(&WireErrorResponse::new(id, error)).unwrap_or_else(|_| {
            // An error object always serializes; this is the shape it would have had.
            format!(
                r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":{},"message":"internal error"}}}}"#,
                ErrorCode::INTERNAL_ERROR.0
            )
        });
        Response {
            json,
            status: Status::of(error.code),
            error: Some(error.code),
        }
    }

    fn with_status(mut self, status: Status) -> Response {
        self.status = status;
        self
    }
}

/// The error for a request whose id is already in flight on its connection (ids must be
/// unique among a client's outstanding requests).
pub(crate) fn duplicate_id(id: &RequestId) -> ErrorObject {
    ErrorObject::invalid_request(format!("request id {id} is already in flight"))
}

/// The parsed `_meta` of a request's params, read before dispatch.
#[derive(Deserialize, Default)]
struct MetaProbe {
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMetaObject>,
}

/// Reads the `_meta` of `params`. Params that are not an object have no `_meta` (the method
/// handler rejects them if it needs an object).
pub(crate) fn probe_meta(
    params: Option<&RawValue>,
) -> Result<Option<RequestMetaObject>, ErrorObject> {
    match params {
        Some(p) if p.get().starts_with('{') => serde_json::from_str::<MetaProbe>(p.get())
            .map(|p| p.meta)
            .map_err(|e| ErrorObject::invalid_params(format!("invalid `_meta`: {e}"))),
        _ => Ok(None),
    }
}

/// Whether a request's envelope makes it a modern-era request.
pub(crate) fn is_modern(meta: Option<&RequestMetaObject>) -> bool {
    meta.is_some_and(|m| m.protocol_version.is_some())
}

fn parse_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, ErrorObject> {
    parse_params_borrowed(params)
}

fn parse_params_borrowed<'a, T: Deserialize<'a>>(
    params: Option<&'a RawValue>,
) -> Result<T, ErrorObject> {
    let text = params.map_or("{}", RawValue::get);
    if !text.starts_with('{') {
        return Err(ErrorObject::invalid_params("`params` must be an object"));
    }
    serde_json::from_str(text)
        .map_err(|e| ErrorObject::invalid_params(format!("invalid params: {e}")))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Results that carry a `_meta` the engine fills (2026 `serverInfo`).
trait WithMeta: WireResult + serde::Serialize {
    fn meta_mut(&mut self) -> &mut Option<ResultMetaObject>;
}

macro_rules! with_meta {
    ($($ty:ty),*) => {$(
        impl WithMeta for $ty {
            fn meta_mut(&mut self) -> &mut Option<ResultMetaObject> {
                &mut self.meta
            }
        }
    )*};
}
with_meta!(
    CallToolResult,
    ReadResourceResult,
    GetPromptResult,
    CompleteResult,
    DiscoverResult,
    EmptyResult,
    InputRequiredResult,
    InitializeResult
);

/// The era-specific facts a common method needs.
#[derive(Clone)]
struct Scope {
    version: ProtocolVersion,
    session: Option<Arc<LegacySession>>,
    capabilities: Arc<mcp_core::types::ClientCapabilities>,
    client_info: Option<Arc<mcp_core::types::Implementation>>,
    meta: Option<RequestMetaObject>,
}

/// The params of `tools/call`, `prompts/get` and `resources/read` that drive multi
/// round-trip requests.
#[derive(Deserialize, Default)]
struct MrtrParams {
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<BTreeMap<String, Value>>,
    #[serde(rename = "requestState", default)]
    request_state: Option<String>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(flatten)]
    mrtr: MrtrParams,
}

#[derive(Deserialize)]
struct ReadParams {
    uri: String,
    #[serde(flatten)]
    mrtr: MrtrParams,
}

#[derive(Deserialize)]
struct GetPromptParams {
    name: String,
    #[serde(default)]
    arguments: Option<BTreeMap<String, String>>,
    #[serde(flatten)]
    mrtr: MrtrParams,
}

#[derive(Deserialize)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
}

#[derive(Deserialize)]
struct SetLevelParams {
    level: LoggingLevel,
}

#[derive(Deserialize)]
struct CancelledParams {
    #[serde(rename = "requestId")]
    request_id: Option<RequestId>,
}

impl Server {
    /// The capabilities this server declares, from what its registry offers.
    pub(crate) fn capabilities(&self) -> ServerCapabilities {
        let offers = self.registry().offers();
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
            ..Default::default()
        }
    }

    fn result_meta(&self) -> ResultMetaObject {
        ResultMetaObject {
            server_info: Some(self.config().info.clone()),
            ..Default::default()
        }
    }

    /// Serializes a result for `version`: era fields set or stripped, 2026 `serverInfo`
    /// attached, and the response size capped.
    fn respond<R: WithMeta>(
        &self,
        id: &RequestId,
        version: ProtocolVersion,
        mut result: R,
    ) -> Response {
        if version.era() == Era::Modern {
            *result.meta_mut() = Some(self.result_meta());
        }
        result.prepare_for(version);
        self.respond_raw(id, &result)
    }

    fn respond_raw<R: serde::Serialize + ?Sized>(&self, id: &RequestId, result: &R) -> Response {
        match serde_json::to_string(&WireResponse::new(id, result)) {
            Ok(json) if json.len() <= self.config().max_response_size => Response {
                json,
                status: Status::Ok,
                error: None,
            },
            Ok(json) => {
                tracing::warn!(size = json.len(), "response too large");
                Response::error(Some(id), &ErrorObject::internal_error("response too large"))
            }
            Err(e) => Response::error(
                Some(id),
                &ErrorObject::internal_error(format!("result does not serialize: {e}")),
            ),
        }
    }

    /// Handles one message from a connection: requests get a reply; notifications and the
    /// client's responses are absorbed.
    pub(crate) async fn handle_message(
        &self,
        conn: &Arc<Connection>,
        message: Message,
        sink: Sink,
    ) -> Option<Reply> {
        match message {
            Message::Request(req) => Some(self.handle_request(conn, req, sink).await),
            Message::Notification(n) => {
                self.handle_notification(conn, &n.method, n.params.as_deref());
                None
            }
            Message::Response(r) => {
                let result = serde_json::from_str(r.result.get()).unwrap_or(Value::Null);
                self.handle_client_response(conn, &r.id, Ok(result));
                None
            }
            Message::Error(e) => {
                match &e.id {
                    Some(id) => self.handle_client_response(conn, id, Err(e.error)),
                    None => tracing::warn!(error = %e.error, "the client reported an error"),
                }
                None
            }
        }
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

    pub(crate) fn handle_notification(
        &self,
        conn: &Connection,
        method: &str,
        params: Option<&RawValue>,
    ) {
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
            "notifications/initialized" | "notifications/roots/list_changed" => {}
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }

    /// Handles one request of a connection, registering it as in flight for its duration.
    pub(crate) async fn handle_request(
        &self,
        conn: &Arc<Connection>,
        req: Request,
        sink: Sink,
    ) -> Reply {
        let Some(cancel) = conn.begin(&req.id) else {
            return Reply::Response(Response::error(Some(&req.id), &duplicate_id(&req.id)));
        };
        self.handle_registered(conn, req, sink, cancel).await
    }

    /// Handles one request already registered with [`Connection::begin`] (so that a
    /// cancellation arriving before the request starts running still reaches it).
    pub(crate) async fn handle_registered(
        &self,
        conn: &Arc<Connection>,
        req: Request,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Reply {
        let span = span::request(&req);
        // Wrapping the future moves it: only when someone listens.
        let reply = if span.is_disabled() {
            self.route(conn, &req, sink, cancel).await
        } else {
            self.route(conn, &req, sink, cancel)
                .instrument(span.clone())
                .await
        };
        conn.end(&req.id);
        span::record_outcome(&span, &reply);
        reply
    }

    /// Decides the request's era (fixing the connection's on its first request) and hands it
    /// to that era's front door.
    async fn route(
        &self,
        conn: &Arc<Connection>,
        req: &Request,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Reply {
        let meta = match probe_meta(req.params.as_deref()) {
            Ok(meta) => meta,
            Err(e) => return Reply::Response(Response::error(Some(&req.id), &e)),
        };
        let era = match conn.era() {
            ConnectionEra::Undecided => {
                let modern = is_modern(meta.as_ref());
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
                self.legacy_request(conn, &session, req, meta, sink, cancel)
                    .await
            }
            ConnectionEra::Modern | ConnectionEra::Undecided => {
                self.modern_request(req, meta, sink, cancel).await
            }
        }
    }

    async fn legacy_request(
        &self,
        conn: &Arc<Connection>,
        session: &Arc<LegacySession>,
        req: &Request,
        meta: Option<RequestMetaObject>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Reply {
        let id = &req.id;
        let params = req.params.as_deref();
        let err = |e: ErrorObject| Reply::Response(Response::error(Some(id), &e));
        match req.method.as_str() {
            "initialize" => return self.initialize(session, id, params),
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
                let _ = conn;
                let scope = Scope {
                    version,
                    session: Some(session.clone()),
                    capabilities: negotiated.capabilities.clone(),
                    client_info: negotiated.client_info.clone(),
                    meta,
                };
                self.common_request(req, scope, sink, cancel).await
            }
        }
    }

    fn initialize(
        &self,
        session: &LegacySession,
        id: &RequestId,
        params: Option<&RawValue>,
    ) -> Reply {
        let p: InitializeRequestParams = match parse_params(params) {
            Ok(p) => p,
            Err(e) => return Reply::Response(Response::error(Some(id), &e)),
        };
        let version =
            ProtocolVersion::negotiate_legacy_among(&p.protocol_version, &self.config().versions);
        let negotiated = Negotiated {
            version,
            capabilities: Arc::new(p.capabilities),
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
            self.capabilities(),
            self.config().info.clone(),
        );
        result.instructions = self.config().instructions.clone();
        Reply::Response(self.respond(id, version, result))
    }

    async fn modern_request(
        &self,
        req: &Request,
        meta: Option<RequestMetaObject>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Reply {
        let id = &req.id;
        let envelope =
            match RequestMetaObject::modern_envelope(meta.as_ref(), &self.config().versions) {
                Ok(env) => (
                    env.protocol_version,
                    env.client_capabilities.clone(),
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
        match req.method.as_str() {
            "server/discover" => {
                let mut result = DiscoverResult {
                    supported_versions: self
                        .config()
                        .versions
                        .iter()
                        .filter(|v| v.era() == Era::Modern)
                        .map(|v| v.as_str().to_owned())
                        .collect(),
                    capabilities: self.capabilities(),
                    instructions: self.config().instructions.clone(),
                    ..Default::default()
                };
                mcp_core::types::Cacheable::set_cache_hints(
                    &mut result,
                    self.config().discover_cache,
                );
                Reply::Response(self.respond(id, version, result))
            }
            "subscriptions/listen" => {
                match parse_params::<SubscriptionsListenRequestParams>(req.params.as_deref()) {
                    Ok(p) => Reply::Listen(Listen::new(self, id.clone(), p.notifications)),
                    Err(e) => Reply::Response(Response::error(Some(id), &e)),
                }
            }
            _ => {
                let scope = Scope {
                    version,
                    session: None,
                    capabilities: Arc::new(capabilities),
                    client_info: client_info.map(Arc::new),
                    meta,
                };
                self.common_request(req, scope, sink, cancel).await
            }
        }
    }

    /// The methods both eras share.
    async fn common_request(
        &self,
        req: &Request,
        scope: Scope,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Reply {
        let id = &req.id;
        let params = req.params.as_deref();
        let version = scope.version;
        span::record_version(version.as_str());
        // The methods below answer their own protocol errors through `?`.
        let fail = |e: ErrorObject| Reply::Response(Response::error(Some(id), &e));
        let list = |kind: ListKind| -> Reply {
            let cursor = match parse_params::<ListParams>(params) {
                Ok(p) => p.cursor,
                Err(e) => return Reply::Response(Response::error(Some(id), &e)),
            };
            let meta = (version.era() == Era::Modern).then(|| self.result_meta());
            match self.registry().page(
                kind,
                version,
                cursor.as_deref(),
                meta.as_ref(),
                self.config().list_cache,
            ) {
                Ok(page) => Reply::Response(self.respond_raw(id, &*page)),
                Err(e) => Reply::Response(Response::error(Some(id), &e)),
            }
        };
        match req.method.as_str() {
            "tools/list" => list(ListKind::Tools),
            "resources/list" => list(ListKind::Resources),
            "resources/templates/list" => list(ListKind::ResourceTemplates),
            "prompts/list" => list(ListKind::Prompts),
            "tools/call" => self
                .call_tool(req, scope, sink, cancel)
                .await
                .unwrap_or_else(fail),
            "resources/read" => self
                .read_resource(req, scope, sink, cancel)
                .await
                .unwrap_or_else(fail),
            "prompts/get" => self
                .get_prompt(req, scope, sink, cancel)
                .await
                .unwrap_or_else(fail),
            "completion/complete" => self
                .complete(req, scope, sink, cancel)
                .await
                .unwrap_or_else(fail),
            other => Reply::Response(Response::error(
                Some(id),
                &ErrorObject::method_not_found(other),
            )),
        }
    }

    /// Builds the request's context; for the modern era, opens `requestState` and merges the
    /// client's answers.
    fn context(
        &self,
        id: &RequestId,
        scope: &Scope,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
        mrtr: Option<(&MrtrParams, &str, &str)>,
    ) -> Result<Context, ErrorObject> {
        let modern = scope.version.era() == Era::Modern;
        let mrtr_state = match mrtr {
            Some((p, method, name)) if modern => {
                let mut state = Mrtr::default();
                if let Some(sealed) = &p.request_state {
                    let opened = self
                        .inner
                        .sealer
                        .open(sealed, &self.config().info.name, method, name)
                        .ok_or_else(|| {
                            ErrorObject::invalid_params("Invalid or expired requestState")
                        })?;
                    state.responses = opened.r;
                    state.user_state = opened.s;
                }
                if let Some(answers) = &p.input_responses {
                    state
                        .responses
                        .extend(answers.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                Some(Mutex::new(state))
            }
            _ => None,
        };
        let meta = scope.meta.as_ref();
        Ok(Context {
            inner: Arc::new(RequestCtx {
                id: id.clone(),
                version: scope.version,
                client_capabilities: scope.capabilities.clone(),
                client_info: scope.client_info.clone(),
                progress_token: meta.and_then(|m| m.progress_token.clone()),
                log_level: if modern {
                    meta.and_then(|m| m.log_level)
                } else {
                    None
                },
                cancel,
                sink,
                session: scope.session.clone(),
                server: self.clone(),
                last_progress: Mutex::new(None),
                mrtr: mrtr_state,
                outcome: Mutex::new(None),
            }),
        })
    }

    /// Turns a driven handler into a reply: the context's override first (a missing client
    /// capability, input required), then the handler's own outcome.
    fn finish<R: WithMeta>(
        &self,
        ctx: &Context,
        driven: Driven<Result<R, HandlerError>>,
        what: &str,
        mrtr_target: Option<(&str, &str)>,
        not_found_uri: Option<&str>,
    ) -> Reply {
        let id = ctx.request_id();
        let version = ctx.protocol_version();
        if let Some(Override::Error(e)) = ctx.take_override() {
            return Reply::Response(Response::error(Some(id), &e));
        }
        match driven {
            Driven::Done(Ok(result)) => Reply::Response(self.respond(id, version, result)),
            Driven::Done(Err(HandlerError::Rpc(e))) => {
                Reply::Response(Response::error(Some(id), &e))
            }
            Driven::Done(Err(HandlerError::ResourceNotFound)) => Reply::Response(Response::error(
                Some(id),
                &ErrorObject::resource_not_found(not_found_uri.unwrap_or_default(), version.era()),
            )),
            Driven::Panicked => {
                tracing::error!(%id, what, "handler panicked");
                Reply::Response(Response::error(
                    Some(id),
                    &ErrorObject::internal_error(format!("the {what} handler panicked")),
                ))
            }
            Driven::TimedOut => Reply::Response(Response::error(
                Some(id),
                &ErrorObject::internal_error(format!("the {what} handler did not finish in time")),
            )),
            Driven::Cancelled => Reply::Silent,
            Driven::InputRequired => self.input_required(ctx, mrtr_target),
        }
    }

    fn input_required(&self, ctx: &Context, target: Option<(&str, &str)>) -> Reply {
        let id = ctx.request_id();
        let Some(mrtr) = &ctx.inner.mrtr else {
            return Reply::Response(Response::error(
                Some(id),
                &ErrorObject::internal_error("input required outside a modern request"),
            ));
        };
        let (method, name) = target.unwrap_or_default();
        let state = std::mem::take(&mut *lock(mrtr));
        let sealed = self.inner.sealer.seal(
            &self.config().info.name,
            method,
            name,
            state.responses,
            state.user_state,
        );
        let mut result = InputRequiredResult::new();
        result.input_requests = Some(state.pending);
        result.request_state = sealed;
        Reply::Response(self.respond(id, ctx.protocol_version(), result))
    }

    async fn call_tool(
        &self,
        req: &Request,
        scope: Scope,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<Reply, ErrorObject> {
        let id = &req.id;
        let p: CallParams<'_> = parse_params_borrowed(req.params.as_deref())?;
        if let Some(args) = p.arguments
            && !args.get().starts_with('{')
        {
            return Err(ErrorObject::invalid_params("`arguments` must be an object"));
        }
        let Some(tool) = self.registry().tool(&p.name) else {
            return Err(ErrorObject::invalid_params(format!(
                "unknown tool: {}",
                p.name
            )));
        };
        let ctx = self.context(
            id,
            &scope,
            sink,
            cancel,
            Some((&p.mrtr, "tools/call", &p.name)),
        )?;
        let timeout = tool.timeout.unwrap_or(self.config().tool_timeout);
        let handler = tool.handler.clone();
        let arguments = p.arguments;
        let call_ctx = ctx.clone();
        let driven = drive(&ctx, ("tool", &p.name), timeout, move || {
            handler.call(arguments, call_ctx)
        })
        .await;
        if matches!(driven, Driven::TimedOut) {
            ctx.cancellation_token().cancel();
            if ctx.take_override().is_none() {
                return Ok(Reply::Response(self.respond(
                    id,
                    scope.version,
                    CallToolResult::error(format!(
                        "the tool `{}` did not finish within {} s",
                        p.name,
                        timeout.as_secs_f64()
                    )),
                )));
            }
        }
        Ok(self.finish(&ctx, driven, "tool", Some(("tools/call", &p.name)), None))
    }

    async fn read_resource(
        &self,
        req: &Request,
        scope: Scope,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<Reply, ErrorObject> {
        let id = &req.id;
        let p: ReadParams = parse_params(req.params.as_deref())?;
        if p.uri.len() > mcp_core::uri_template::MAX_URI_LEN {
            return Err(ErrorObject::invalid_params("the URI is too long"));
        }
        let Some((handler, vars, _mime)) = self.registry().resource(&p.uri) else {
            return Err(ErrorObject::resource_not_found(&p.uri, scope.version.era()));
        };
        let ctx = self.context(
            id,
            &scope,
            sink,
            cancel,
            Some((&p.mrtr, "resources/read", &p.uri)),
        )?;
        let uri = p.uri.clone();
        let call_ctx = ctx.clone();
        let driven = drive(
            &ctx,
            ("resource", &p.uri),
            self.config().tool_timeout,
            move || handler.read(&uri, &vars, call_ctx),
        )
        .await;
        let driven = match driven {
            Driven::Done(Ok(mut r)) => {
                if ctx.protocol_version().era() == Era::Modern {
                    mcp_core::types::Cacheable::set_cache_hints(&mut r, self.config().read_cache);
                }
                Driven::Done(Ok(r))
            }
            other => other,
        };
        Ok(self.finish(
            &ctx,
            driven,
            "resource",
            Some(("resources/read", &p.uri)),
            Some(&p.uri),
        ))
    }

    async fn get_prompt(
        &self,
        req: &Request,
        scope: Scope,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<Reply, ErrorObject> {
        let id = &req.id;
        let p: GetPromptParams = parse_params(req.params.as_deref())?;
        let Some(prompt) = self.registry().prompt(&p.name) else {
            return Err(ErrorObject::invalid_params(format!(
                "unknown prompt: {}",
                p.name
            )));
        };
        let arguments = p.arguments.clone().unwrap_or_default();
        for arg in prompt.prompt.arguments.iter().flatten() {
            if arg.required == Some(true) && !arguments.contains_key(&arg.name) {
                return Err(ErrorObject::invalid_params(format!(
                    "missing required argument `{}`",
                    arg.name
                )));
            }
        }
        let ctx = self.context(
            id,
            &scope,
            sink,
            cancel,
            Some((&p.mrtr, "prompts/get", &p.name)),
        )?;
        let handler = prompt.handler.clone();
        let call_ctx = ctx.clone();
        let driven = drive(
            &ctx,
            ("prompt", &p.name),
            self.config().tool_timeout,
            move || handler.get(&arguments, call_ctx),
        )
        .await;
        Ok(self.finish(&ctx, driven, "prompt", Some(("prompts/get", &p.name)), None))
    }

    async fn complete(
        &self,
        req: &Request,
        scope: Scope,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<Reply, ErrorObject> {
        let id = &req.id;
        let p: CompleteRequestParams = parse_params(req.params.as_deref())?;
        let target = match &p.r#ref {
            CompletionReference::Prompt(r) => {
                if self.registry().prompt(&r.name).is_none() {
                    return Err(ErrorObject::invalid_params(format!(
                        "unknown prompt: {}",
                        r.name
                    )));
                }
                CompletionTarget::Prompt(r.name.clone())
            }
            CompletionReference::ResourceTemplate(r) => {
                CompletionTarget::ResourceTemplate(r.uri.clone())
            }
        };
        let Some(handler) = self.registry().completion(&target, &p.argument.name) else {
            return Ok(Reply::Response(self.respond(
                id,
                scope.version,
                CompleteResult::new(Vec::new()),
            )));
        };
        let ctx = self.context(id, &scope, sink, cancel, None)?;
        let context_args = p.context.and_then(|c| c.arguments).unwrap_or_default();
        let value = p.argument.value.clone();
        let call_ctx = ctx.clone();
        let driven = drive(
            &ctx,
            ("completion of", &p.argument.name),
            self.config().tool_timeout,
            move || {
                let fut = handler.complete(&value, &context_args, call_ctx);
                Box::pin(async move { Ok::<_, HandlerError>(CompleteResult::new(fut.await)) })
            },
        )
        .await;
        Ok(self.finish(&ctx, driven, "completion", None, None))
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
    serde_json::to_string(&WireNotification::new(method, params.as_ref())).ok()
}
