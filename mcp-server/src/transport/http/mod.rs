//! Streamable HTTP for both protocol eras, on axum (feature `http`).
//!
//! One endpoint serves every client: a POST whose body carries the 2026 per-request `_meta`
//! envelope is a stateless modern request (its metadata headers are checked against the
//! body); any other POST belongs to a legacy session, minted by `initialize` and named by
//! `Mcp-Session-Id` afterwards. GET opens a legacy session's stream for server-initiated
//! messages; DELETE ends a legacy session; both are 405 without a session.
//!
//! Safe by default: `Host`/`Origin` are checked against loopback before the body is read
//! (403), bodies are limited while they stream (413, 4 MiB by default), only
//! `application/json` is accepted (415), session ids are 256-bit random values, and idle
//! sessions expire.
//!
//! A response is JSON unless the request emits messages before its result (progress, logs,
//! a legacy elicitation) and the client accepts `text/event-stream`: then it is an SSE
//! stream of those messages ending with the result.

mod headers;
mod origin;
mod resume;
mod session;
mod sse;

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::routing::post;
use bytes::Bytes;
use http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE};
use http::{HeaderMap, HeaderValue, Request, StatusCode};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use mcp_core::ProtocolVersion;
use mcp_core::error::ErrorObject;
use mcp_core::jsonrpc::{self, EnvelopeError, Incoming, Message, RequestId, WireErrorResponse};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

pub use origin::{HostPolicy, OriginPolicy};
pub use session::{HttpSession, InMemorySessionStore, SessionStore};

use crate::engine::session::{Connection, ConnectionEra};
use crate::engine::sink::Sink;
use crate::engine::{self, Reply, Response, Status};
use crate::server::Server;
use sse::SseBody;

/// The header naming a legacy session.
pub const SESSION_HEADER: &str = "mcp-session-id";

/// The authenticated principal of a request, put in the request's extensions by an
/// authentication layer in front of the MCP endpoint. Legacy sessions are bound to it: the
/// session id presented by another principal is answered as an unknown session (404).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

/// Settings of the HTTP endpoint.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use mcp_server::http::{HostPolicy, HttpOptions};
///
/// let options = HttpOptions::default()
///     .allowed_hosts(HostPolicy::Allow(vec!["mcp.example.com".into()]))
///     .max_body_size(1 << 20)
///     .session_idle_timeout(Duration::from_secs(600));
/// # let _ = options;
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    hosts: HostPolicy,
    origins: OriginPolicy,
    max_body_size: usize,
    keep_alive: Duration,
    json_only: bool,
    sse_responses: bool,
    store: Option<Arc<dyn SessionStore>>,
    session_idle_timeout: Duration,
    max_sessions: usize,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("hosts", &self.hosts)
            .field("origins", &self.origins)
            .field("max_body_size", &self.max_body_size)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("max_sessions", &self.max_sessions)
            .finish_non_exhaustive()
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            hosts: HostPolicy::Loopback,
            origins: OriginPolicy::Loopback,
            max_body_size: 4 * 1024 * 1024,
            keep_alive: Duration::from_secs(15),
            json_only: false,
            sse_responses: false,
            store: None,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
        }
    }
}

impl HttpOptions {
    /// Which `Host` values are served (default: loopback only). Behind a reverse proxy,
    /// name the public host names the proxy forwards (or [`HostPolicy::Any`] when the proxy
    /// checks them).
    pub fn allowed_hosts(mut self, hosts: HostPolicy) -> Self {
        self.hosts = hosts;
        self
    }

    /// Which `Origin` values are served (default: loopback only; requests without `Origin`
    /// always pass).
    pub fn allowed_origins(mut self, origins: OriginPolicy) -> Self {
        self.origins = origins;
        self
    }

    /// The largest request body, in bytes (default 4 MiB); larger ones get 413.
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.max_body_size = bytes;
        self
    }

    /// How often an idle SSE stream carries a keep-alive comment (default 15 s).
    pub fn keep_alive(mut self, period: Duration) -> Self {
        self.keep_alive = period;
        self
    }

    /// Never answer with SSE, even when a request emits messages before its result (they are
    /// then dropped, or go to the legacy session's GET stream).
    pub fn json_only(mut self, json_only: bool) -> Self {
        self.json_only = json_only;
        self
    }

    /// Answer every request whose client accepts `text/event-stream` with an SSE stream, even
    /// when the result is its only message (default: plain JSON unless messages come first).
    /// For deployments that want one response shape; ignored when [`json_only`](Self::json_only)
    /// is set.
    pub fn sse_responses(mut self, always: bool) -> Self {
        self.sse_responses = always;
        self
    }

    /// How long a legacy session may go unused before it expires (default 30 min).
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// How many legacy sessions may be live (default 10,000); at the cap a new session
    /// evicts the least recently used one.
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.max_sessions = n;
        self
    }

    /// Where legacy sessions are kept (default: in memory, with the timeout and cap above).
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.store = Some(store);
        self
    }
}

struct HttpState {
    server: Server,
    guard: origin::Guard,
    options: HttpOptions,
    store: Arc<dyn SessionStore>,
    shutdown: CancellationToken,
    background: OnceLock<()>,
}

impl Server {
    /// The MCP endpoint as an axum [`Router`] serving `/mcp`, with default options.
    pub fn http_router(&self) -> Router {
        self.http_router_with(HttpOptions::default(), CancellationToken::new())
    }

    /// The MCP endpoint as an axum [`Router`] serving `/`, to mount with
    /// [`Router::nest`] at a path of your choice; `shutdown` ends long-lived streams.
    pub fn http_endpoint(&self, options: HttpOptions, shutdown: CancellationToken) -> Router {
        let store = options.store.clone().unwrap_or_else(|| {
            Arc::new(InMemorySessionStore::new(
                options.session_idle_timeout,
                options.max_sessions,
            ))
        });
        let state = Arc::new(HttpState {
            server: self.clone(),
            guard: origin::Guard {
                hosts: options.hosts.clone(),
                origins: options.origins.clone(),
            },
            options,
            store,
            shutdown,
            background: OnceLock::new(),
        });
        Router::new()
            .route("/", post(handle_post).get(handle_get).delete(handle_delete))
            .with_state(state)
    }

    /// [`http_endpoint`](Self::http_endpoint) mounted at `/mcp`.
    pub fn http_router_with(&self, options: HttpOptions, shutdown: CancellationToken) -> Router {
        Router::new().nest_service("/mcp", self.http_endpoint(options, shutdown))
    }

    /// Serves the endpoint at `http://ADDR/mcp` until Ctrl-C, then shuts down gracefully:
    /// stops accepting, lets requests in flight finish, ends long-lived streams.
    ///
    /// # Errors
    ///
    /// Binding or serving failed.
    pub async fn serve_http(&self, addr: impl tokio::net::ToSocketAddrs) -> std::io::Result<()> {
        self.serve_http_with(addr, HttpOptions::default(), async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
    }

    /// Serves the endpoint at `http://ADDR/mcp` with `options` until `shutdown` completes.
    ///
    /// # Errors
    ///
    /// Binding or serving failed.
    pub async fn serve_http_with(
        &self,
        addr: impl tokio::net::ToSocketAddrs,
        options: HttpOptions,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        warn_if_exposed(local, &options);
        tracing::info!(url = %format!("http://{local}/mcp"), "serving MCP over Streamable HTTP");
        let token = CancellationToken::new();
        let router = self.http_router_with(options, token.clone());
        let stop = token.clone();
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                stop.cancel();
            })
            .await
    }
}

fn warn_if_exposed(local: SocketAddr, options: &HttpOptions) {
    if !local.ip().is_loopback() && matches!(options.hosts, HostPolicy::Loopback) {
        tracing::warn!(
            %local,
            "listening beyond loopback with the loopback-only Host policy: remote clients will get 403; set HttpOptions::allowed_hosts for a deployment"
        );
    }
    if !local.ip().is_loopback() && matches!(options.hosts, HostPolicy::Any) {
        tracing::warn!(%local, "listening beyond loopback with no Host allow-list: DNS rebinding protection is off");
    }
}

fn json_response(status: StatusCode, json: String) -> axum::response::Response {
    let mut response = axum::response::Response::new(Body::from(json));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn error_response(
    status: StatusCode,
    id: Option<&RequestId>,
    error: &ErrorObject,
) -> axum::response::Response {
    let json = serde_json::to_string(&WireErrorResponse::new(id, error)).unwrap_or_default();
    json_response(status, json)
}

fn empty(status: StatusCode) -> axum::response::Response {
    let mut response = axum::response::Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

fn sse_response(body: SseBody) -> axum::response::Response {
    let mut response = axum::response::Response::new(Body::new(body));
    let h = response.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

fn accepts(headers: &HeaderMap, media: &str) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| {
            v.split(',').any(|item| {
                let item = item
                    .split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase();
                item == media
                    || item == "*/*"
                    || item
                        .strip_suffix("/*")
                        .is_some_and(|t| media.starts_with(t))
            })
        })
}

fn is_json_content_type(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

fn session_id(headers: &HeaderMap) -> Result<Option<&str>, ErrorObject> {
    headers::single(headers, SESSION_HEADER)
        .map_err(|_| ErrorObject::invalid_request("invalid Mcp-Session-Id header"))
}

impl HttpState {
    /// Starts, once, the tasks that forward registry changes to legacy sessions' GET streams
    /// and reap idle sessions.
    fn ensure_background(self: &Arc<Self>) {
        self.background.get_or_init(|| {
            let state = Arc::downgrade(self);
            let mut events = self.server.registry().subscribe();
            let period = (self.options.session_idle_timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(60));
            let shutdown = self.shutdown.clone();
            tokio::spawn(async move {
                let mut sweep = tokio::time::interval(period);
                loop {
                    tokio::select! {
                        () = shutdown.cancelled() => return,
                        _ = sweep.tick() => match state.upgrade() {
                            Some(state) => state.store.sweep(),
                            None => return,
                        },
                        event = events.recv() => {
                            let Some(state) = state.upgrade() else { return };
                            let event = match event {
                                Ok(e) => e,
                                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                            };
                            for session in state.store.sessions() {
                                let ConnectionEra::Legacy(legacy) = session.conn.era() else { continue };
                                if legacy.negotiated().is_none() {
                                    continue;
                                }
                                if let Some(message) = engine::legacy_notification(&legacy, &event) {
                                    session.conn.sink().send(message).await;
                                }
                            }
                        }
                    }
                }
            });
        });
    }

    fn principal(parts: &http::request::Parts) -> Option<String> {
        parts.extensions.get::<Principal>().map(|p| p.0.clone())
    }

    // The error is the finished HTTP response; these run once per request, off the hot path.
    #[allow(clippy::result_large_err)]
    /// The legacy session a request names: missing id 400, unknown (or another
    /// principal's) 404.
    fn session(
        &self,
        parts: &http::request::Parts,
        request: Option<&RequestId>,
    ) -> Result<Arc<HttpSession>, axum::response::Response> {
        let id = match session_id(&parts.headers) {
            Ok(Some(id)) => id,
            Ok(None) => {
                return Err(error_response(
                    StatusCode::BAD_REQUEST,
                    request,
                    &ErrorObject::invalid_request("Bad Request: Mcp-Session-Id header is required"),
                ));
            }
            Err(e) => return Err(error_response(StatusCode::BAD_REQUEST, request, &e)),
        };
        let not_found = || {
            error_response(
                StatusCode::NOT_FOUND,
                request,
                &ErrorObject::new(mcp_core::error::ErrorCode(-32001), "Session not found"),
            )
        };
        let Some(session) = self.store.get(id) else {
            return Err(not_found());
        };
        if session.principal() != Self::principal(parts).as_deref() {
            return Err(not_found());
        }
        Ok(session)
    }

    #[allow(clippy::result_large_err)]
    /// Validates a legacy request's `MCP-Protocol-Version` header: absent means 2025-03-26;
    /// otherwise it must be a supported legacy version.
    fn check_legacy_version(&self, headers: &HeaderMap) -> Result<(), axum::response::Response> {
        match headers::single(headers, headers::PROTOCOL_VERSION) {
            Ok(None) => Ok(()),
            Ok(Some(v)) => match v.parse::<ProtocolVersion>() {
                Ok(version) if self.server.config().versions.contains(&version) => Ok(()),
                _ => Err(error_response(
                    StatusCode::BAD_REQUEST,
                    None,
                    &ErrorObject::invalid_request(format!(
                        "Bad Request: unsupported MCP-Protocol-Version: {v}"
                    )),
                )),
            },
            Err(e) => Err(error_response(StatusCode::BAD_REQUEST, None, &e)),
        }
    }

    async fn post(self: Arc<Self>, request: Request<Body>) -> axum::response::Response {
        let (parts, body) = request.into_parts();
        if let Err(refusal) = self
            .guard
            .check(&parts.headers, parts.uri.authority().map(|a| a.as_str()))
        {
            tracing::warn!(%refusal, "request refused");
            return error_response(
                StatusCode::FORBIDDEN,
                None,
                &ErrorObject::new(mcp_core::error::ErrorCode(-32000), refusal.to_string()),
            );
        }
        if !is_json_content_type(&parts.headers) {
            return error_response(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                None,
                &ErrorObject::invalid_request(
                    "Unsupported Media Type: Content-Type must be application/json",
                ),
            );
        }
        if parts.headers.contains_key(ACCEPT)
            && !accepts(&parts.headers, "application/json")
            && !accepts(&parts.headers, "text/event-stream")
        {
            return error_response(
                StatusCode::NOT_ACCEPTABLE,
                None,
                &ErrorObject::invalid_request(
                    "Not Acceptable: accept application/json or text/event-stream",
                ),
            );
        }
        let max = self.options.max_body_size;
        let declared = parts
            .headers
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        let too_large = || {
            let mut r = error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                &ErrorObject::invalid_request(format!(
                    "Payload Too Large: the limit is {max} bytes"
                )),
            );
            r.headers_mut()
                .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
            r
        };
        if declared.is_some_and(|n| n > max as u64) {
            return too_large();
        }
        let bytes: Bytes = match Limited::new(body, max).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) if e.is::<LengthLimitError>() => return too_large(),
            Err(e) => {
                return error_response(
                    StatusCode::BAD_REQUEST,
                    None,
                    &ErrorObject::parse_error(format!("the request body could not be read: {e}")),
                );
            }
        };
        match jsonrpc::parse(&bytes) {
            Err(e) => envelope_error(&e),
            Ok(Incoming::Single(Message::Request(request))) => self.request(parts, request).await,
            Ok(Incoming::Single(other)) => self.absorb(parts, other).await,
            Ok(Incoming::Batch(items)) => self.batch(parts, items).await,
        }
    }

    async fn request(
        self: Arc<Self>,
        parts: http::request::Parts,
        request: jsonrpc::Request,
    ) -> axum::response::Response {
        let meta = match engine::probe_meta(request.params.as_deref()) {
            Ok(meta) => meta,
            Err(e) => return error_response(StatusCode::BAD_REQUEST, Some(&request.id), &e),
        };
        // The envelope decides the era; a request announcing a modern version in its
        // `MCP-Protocol-Version` header but missing the envelope is a modern request with a
        // bad envelope (400, -32602), not a legacy one.
        let header_modern = headers::single(&parts.headers, headers::PROTOCOL_VERSION)
            .ok()
            .flatten()
            .and_then(|v| v.parse::<ProtocolVersion>().ok())
            .is_some_and(|v| v.era() == mcp_core::Era::Modern);
        if engine::is_modern(meta.as_ref()) || header_modern {
            let body_version = meta.as_ref().and_then(|m| m.protocol_version.as_deref());
            let tool_schema = (request.method == "tools/call")
                .then(|| tool_name(request.params.as_deref()))
                .flatten()
                .and_then(|name| self.server.registry().tool(&name))
                .map(|t| t.tool.input_schema.clone());
            // Without a body version, the envelope check below answers (-32602).
            if let Some(version) = body_version
                && let Err(e) = headers::validate(
                    &parts.headers,
                    &request.method,
                    request.params.as_deref(),
                    version,
                    tool_schema.as_ref(),
                )
            {
                return error_response(StatusCode::BAD_REQUEST, Some(&request.id), &e);
            }
            let conn = Arc::new(Connection::new(
                Sink::Discard,
                self.server.config().client_request_timeout,
            ));
            conn.decide(true);
            return self
                .dispatch(&parts.headers, conn, request, true, None)
                .await;
        }
        if request.method == "initialize" {
            // A session id sent with `initialize` is ignored: ids are only ever minted here.
            self.ensure_background();
            let conn = Arc::new(Connection::new(
                Sink::Discard,
                self.server.config().client_request_timeout,
            ));
            conn.decide(false);
            let session = Arc::new(HttpSession::new(conn.clone(), Self::principal(&parts)));
            let mut response = self
                .dispatch(&parts.headers, conn.clone(), request, false, None)
                .await;
            if conn.session().is_some_and(|s| s.negotiated().is_some()) {
                if let Ok(value) = HeaderValue::from_str(session.id()) {
                    response.headers_mut().insert(SESSION_HEADER, value);
                }
                self.store.insert(session);
            }
            return response;
        }
        let session = match self.session(&parts, Some(&request.id)) {
            Ok(s) => s,
            Err(r) => return r,
        };
        if let Err(r) = self.check_legacy_version(&parts.headers) {
            return r;
        }
        let conn = session.conn.clone();
        self.dispatch(&parts.headers, conn, request, false, Some(session))
            .await
    }

    /// Runs a request and answers with JSON, or with SSE when messages come before its
    /// result and the client accepts SSE.
    async fn dispatch(
        self: &Arc<Self>,
        headers: &HeaderMap,
        conn: Arc<Connection>,
        request: jsonrpc::Request,
        modern: bool,
        session: Option<Arc<HttpSession>>,
    ) -> axum::response::Response {
        let id = request.id.clone();
        let Some(cancel) = conn.begin(&id) else {
            return error_response(
                StatusCode::CONFLICT,
                Some(&id),
                &ErrorObject::invalid_request(format!(
                    "request id {id} is already in flight in this session"
                )),
            );
        };
        let sse = !self.options.json_only && accepts(headers, "text/event-stream");
        let (tx, mut notes) = mpsc::channel::<String>(64);
        let (last_tx, mut last) = oneshot::channel::<Response>();
        // A legacy session's SSE streams are resumable, and the handler may close them early.
        let resumable = session.filter(|_| sse && !modern);
        let close = CancellationToken::new();
        let sink = if resumable.is_some() {
            Sink::Closable(tx.clone(), close.clone())
        } else if sse {
            Sink::Channel(tx.clone())
        } else if modern {
            Sink::Discard
        } else {
            conn.sink()
        };
        let server = self.server.clone();
        let shutdown = self.shutdown.clone();
        let task_cancel = cancel.clone();
        // Boxed once: the request's future is several KB. A request that completes without
        // waiting is answered from this task; one that waits goes on as its own task
        // (polled again there with its own waker), so it outlives a dropped connection.
        let mut task = Box::pin(async move {
            let reply = server
                .handle_registered(&conn, request, sink, task_cancel.clone())
                .await;
            match reply {
                Reply::Response(r) => {
                    let _ = last_tx.send(r);
                }
                Reply::Silent => {}
                Reply::Listen(listen) => {
                    if let Some(json) = listen.run(Sink::Channel(tx), task_cancel, shutdown).await {
                        let _ = last_tx.send(Response {
                            json,
                            status: Status::Ok,
                        });
                    }
                }
            }
        });
        let finished =
            std::future::poll_fn(|cx| std::task::Poll::Ready(task.as_mut().poll(cx).is_ready()))
                .await;
        if !finished {
            tokio::spawn(task);
        }
        if let Some(session) = resumable {
            // Legacy era: a dropped connection is not a cancellation (the client cancels with
            // `notifications/cancelled`); the stream can be resumed with `Last-Event-ID`.
            tokio::select! {
                biased;
                Some(first) = notes.recv() => {
                    return self.resumable_stream(session, Some(first), notes, last, close);
                }
                () = close.cancelled() => {
                    return self.resumable_stream(session, None, notes, last, close);
                }
                result = &mut last => {
                    let mut queued = Vec::new();
                    while let Ok(note) = notes.try_recv() {
                        queued.push(note);
                    }
                    return match result {
                        Ok(response) if queued.is_empty() && !self.options.sse_responses => {
                            json_response(StatusCode::OK, response.json)
                        }
                        Ok(response) => {
                            queued.push(response.json);
                            sse_response(SseBody::new(queued, None, None, None, None))
                        }
                        Err(_) => empty(StatusCode::NO_CONTENT),
                    };
                }
            }
        }
        // The request is cancelled if this future is dropped (the client went away) before
        // the answer is complete.
        let guard = cancel.drop_guard();
        tokio::select! {
            biased;
            Some(first) = notes.recv() => {
                let body = SseBody::new(
                    vec![first],
                    Some(notes),
                    Some(last),
                    Some(self.options.keep_alive),
                    Some(guard),
                );
                sse_response(body)
            }
            result = &mut last => {
                let _ = guard.disarm();
                let mut queued = Vec::new();
                while let Ok(note) = notes.try_recv() {
                    queued.push(note);
                }
                match result {
                    // Errors keep their HTTP status: only a 200 answer becomes a stream.
                    Ok(response)
                        if queued.is_empty()
                            && !(sse
                                && self.options.sse_responses
                                && matches!(response.status, Status::Ok)) =>
                    {
                        let status = if modern { status_code(response.status) } else { StatusCode::OK };
                        json_response(status, response.json)
                    }
                    Ok(response) => {
                        queued.push(response.json);
                        sse_response(SseBody::new(queued, None, None, None, None))
                    }
                    // Cancelled: nothing is sent for it.
                    Err(_) => empty(StatusCode::NO_CONTENT),
                }
            }
        }
    }

    /// Streams a legacy request's messages as a resumable SSE stream: each event has an id,
    /// is kept in the session's event log, and reaches whichever connection follows the
    /// stream — this response, or a later GET with `Last-Event-ID`.
    fn resumable_stream(
        &self,
        session: Arc<HttpSession>,
        first: Option<String>,
        mut notes: mpsc::Receiver<String>,
        last: oneshot::Receiver<Response>,
        close: CancellationToken,
    ) -> axum::response::Response {
        let (stream, feed) = session.events.open();
        if session.primes_streams() {
            session
                .events
                .send_unlogged(stream, session.events.priming(stream));
        }
        if let Some(first) = first {
            session.events.push(stream, &first);
        }
        tokio::spawn(async move {
            let mut closed = false;
            loop {
                tokio::select! {
                    note = notes.recv() => match note {
                        Some(note) => session.events.push(stream, &note),
                        None => break,
                    },
                    () = close.cancelled(), if !closed => {
                        closed = true;
                        session.events.detach(stream);
                    }
                }
            }
            if let Ok(response) = last.await {
                session.events.push(stream, &response.json);
            }
            session.events.finish(stream);
        });
        sse_response(SseBody::frames(feed, Some(self.options.keep_alive)))
    }

    /// A notification or a client's response: handed to the engine, answered 202.
    async fn absorb(
        self: Arc<Self>,
        parts: http::request::Parts,
        message: Message,
    ) -> axum::response::Response {
        let carries_modern_meta = match &message {
            Message::Notification(n) => {
                engine::probe_meta(n.params.as_deref()).is_ok_and(|m| engine::is_modern(m.as_ref()))
            }
            _ => false,
        };
        if carries_modern_meta || session_id(&parts.headers).ok().flatten().is_none() {
            // The modern era defines no client notifications over HTTP (cancellation is a
            // closed stream); accept and ignore them, as the transport requires.
            return if matches!(message, Message::Notification(_)) {
                empty(StatusCode::ACCEPTED)
            } else {
                error_response(
                    StatusCode::BAD_REQUEST,
                    None,
                    &ErrorObject::invalid_request("Bad Request: Mcp-Session-Id header is required"),
                )
            };
        }
        let session = match self.session(&parts, None) {
            Ok(s) => s,
            Err(r) => return r,
        };
        let conn = session.conn.clone();
        let _ = self
            .server
            .handle_message(&conn, message, conn.sink())
            .await;
        empty(StatusCode::ACCEPTED)
    }

    /// A batch: only for legacy sessions speaking 2025-03-26.
    async fn batch(
        self: Arc<Self>,
        parts: http::request::Parts,
        items: Vec<Result<Message, EnvelopeError>>,
    ) -> axum::response::Response {
        let refuse = || {
            error_response(
                StatusCode::BAD_REQUEST,
                None,
                &ErrorObject::invalid_request(
                    "batches are only part of protocol revision 2025-03-26, 100 messages at most",
                ),
            )
        };
        if session_id(&parts.headers).ok().flatten().is_none() {
            return refuse();
        }
        let session = match self.session(&parts, None) {
            Ok(s) => s,
            Err(r) => return r,
        };
        let allowed = session
            .conn
            .session()
            .and_then(|s| s.negotiated())
            .is_some_and(|n| n.version.allows_batches());
        if !allowed || items.len() > crate::transport::stdio::MAX_BATCH {
            return refuse();
        }
        let conn = session.conn.clone();
        let responses = self.server.handle_batch(&conn, items, conn.sink()).await;
        if responses.is_empty() {
            empty(StatusCode::ACCEPTED)
        } else {
            json_response(StatusCode::OK, format!("[{}]", responses.join(",")))
        }
    }

    async fn get(self: Arc<Self>, request: Request<Body>) -> axum::response::Response {
        let (parts, _) = request.into_parts();
        if let Err(refusal) = self
            .guard
            .check(&parts.headers, parts.uri.authority().map(|a| a.as_str()))
        {
            return error_response(
                StatusCode::FORBIDDEN,
                None,
                &ErrorObject::new(mcp_core::error::ErrorCode(-32000), refusal.to_string()),
            );
        }
        if session_id(&parts.headers).ok().flatten().is_none() {
            return method_not_allowed();
        }
        let session = match self.session(&parts, None) {
            Ok(s) => s,
            Err(r) => return r,
        };
        if !accepts(&parts.headers, "text/event-stream") {
            return error_response(
                StatusCode::NOT_ACCEPTABLE,
                None,
                &ErrorObject::invalid_request(
                    "Not Acceptable: the GET stream is text/event-stream",
                ),
            );
        }
        let keep_alive = Some(self.options.keep_alive);
        // Resumption: the missed events of the stream the id names, then the rest of it.
        if let Some(last) = parts.headers.get("last-event-id") {
            let resumed = last
                .to_str()
                .map_err(|_| resume::MalformedEventId)
                .and_then(|id| session.events.resume(id));
            match resumed {
                Ok(Some(feed)) => return sse_response(SseBody::frames(feed, keep_alive)),
                // Another session's id, or a stream long gone: nothing to replay here.
                Ok(None) => {}
                Err(resume::MalformedEventId) => {
                    return error_response(
                        StatusCode::BAD_REQUEST,
                        None,
                        &ErrorObject::invalid_request("Bad Request: malformed Last-Event-ID"),
                    );
                }
            }
        }
        let (stream, feed) = session.events.open();
        if session.primes_streams() {
            session
                .events
                .send_unlogged(stream, session.events.priming(stream));
        }
        let (tx, mut rx) = mpsc::channel::<String>(256);
        // A new stream replaces the previous one, which then ends.
        *match session.conn.sink.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        } = Sink::Channel(tx);
        let forwarded = session.clone();
        tokio::spawn(async move {
            while let Some(message) = rx.recv().await {
                forwarded.events.push(stream, &message);
            }
            forwarded.events.finish(stream);
        });
        sse_response(SseBody::frames(feed, keep_alive))
    }

    async fn delete(self: Arc<Self>, request: Request<Body>) -> axum::response::Response {
        let (parts, _) = request.into_parts();
        if let Err(refusal) = self
            .guard
            .check(&parts.headers, parts.uri.authority().map(|a| a.as_str()))
        {
            return error_response(
                StatusCode::FORBIDDEN,
                None,
                &ErrorObject::new(mcp_core::error::ErrorCode(-32000), refusal.to_string()),
            );
        }
        if session_id(&parts.headers).ok().flatten().is_none() {
            return method_not_allowed();
        }
        let session = match self.session(&parts, None) {
            Ok(s) => s,
            Err(r) => return r,
        };
        if let Some(session) = self.store.remove(session.id()) {
            session.end();
        }
        empty(StatusCode::OK)
    }
}

fn method_not_allowed() -> axum::response::Response {
    let mut r = error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        &ErrorObject::new(mcp_core::error::ErrorCode(-32000), "Method not allowed."),
    );
    r.headers_mut()
        .insert(http::header::ALLOW, HeaderValue::from_static("POST"));
    r
}

fn status_code(status: Status) -> StatusCode {
    match status {
        Status::Ok => StatusCode::OK,
        Status::BadRequest => StatusCode::BAD_REQUEST,
        Status::NotFound => StatusCode::NOT_FOUND,
    }
}

fn envelope_error(e: &EnvelopeError) -> axum::response::Response {
    error_response(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.to_error_object())
}

fn tool_name(params: Option<&serde_json::value::RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Name {
        name: String,
    }
    params
        .and_then(|p| serde_json::from_str::<Name>(p.get()).ok())
        .map(|n| n.name)
}

async fn handle_post(
    State(state): State<Arc<HttpState>>,
    request: Request<Body>,
) -> axum::response::Response {
    state.post(request).await
}

async fn handle_get(
    State(state): State<Arc<HttpState>>,
    request: Request<Body>,
) -> axum::response::Response {
    state.get(request).await
}

async fn handle_delete(
    State(state): State<Arc<HttpState>>,
    request: Request<Body>,
) -> axum::response::Response {
    state.delete(request).await
}
