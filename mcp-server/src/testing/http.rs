//! The test client over Streamable HTTP, in process: requests go to an axum `Router` (the
//! server's, with whatever layers are in front of it) as a socket would bring them, and
//! answers come back whole, with their status and headers.

use std::convert::Infallible;

use ::http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use ::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode};
use axum::body::Body;
use bytes::Bytes;
use http_body_util::BodyExt;
use tower::Service;

use super::*;
use crate::transport::http::SESSION_HEADER;

mod mirror;

/// A client of a server's HTTP router, called in process (no socket): raw requests with
/// their status codes and headers — the `401` and `403` challenges of an authentication
/// layer, the `Mcp-Session-Id` of a legacy session — and, through
/// [`connect`](Self::connect), the typed calls of a [`TestClient`].
///
/// It speaks either era as its [`ClientOptions`] say: in the legacy era it keeps the
/// session id the server hands out on `initialize` and sends it, with `MCP-Protocol-Version`,
/// on every later request; in the modern era every request carries the `_meta` envelope and
/// the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, and a `tools/call` the
/// `Mcp-Param-*` headers of the arguments its tool's input schema marks with `x-mcp-header`
/// (the client lists the tools the first time it calls one it has not seen). A
/// [`with_principal`](ClientOptions::with_principal) caller is put in each request's
/// extensions, as an authentication layer would.
///
/// # Examples
///
/// ```
/// use ferromcp::prelude::*;
/// use ferromcp::http::HttpOptions;
/// use ferromcp::testing::{ClientOptions, HttpTestClient};
///
/// struct Hello;
///
/// #[ferromcp::server]
/// impl Hello {
///     /// Says hello.
///     #[tool]
///     fn hello(&self) -> String {
///         "hello".to_owned()
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let endpoint = Server::new(Hello)
///     .unwrap()
///     .http_router(HttpOptions::default(), ferromcp::CancellationToken::new());
/// let router = axum::Router::new().nest_service("/mcp", endpoint);
/// for options in [ClientOptions::legacy(), ClientOptions::modern()] {
///     let http = HttpTestClient::new(router.clone(), options);
///     // Typed (a legacy client initializes here).
///     let client = http.connect().await.unwrap();
///     let result = client.call_tool("hello", serde_json::json!({})).await.unwrap();
///     assert_eq!(result.content[0].as_text(), Some("hello"));
///     // Raw, on the same session: the status, the headers, the body.
///     let response = http.send_request("tools/list", None).await;
///     assert_eq!(response.status(), 200);
///     assert_eq!(response.message()["result"]["tools"][0]["name"], "hello");
/// }
/// # }
/// ```
#[derive(Clone)]
pub struct HttpTestClient {
    router: axum::Router,
    options: ClientOptions,
    path: Arc<str>,
    host: Arc<str>,
    bearer: Option<Arc<str>>,
    /// The legacy session, shared by the copies [`with_bearer`](Self::with_bearer) makes.
    session: Arc<Mutex<Option<HeaderValue>>>,
    next_id: Arc<AtomicI64>,
    /// The `x-mcp-header` annotations of the tools listed so far.
    mirrors: mirror::Mirrors,
    /// Headers the caller set, sent in place of the client's own.
    explicit: Arc<HeaderMap>,
}

impl std::fmt::Debug for HttpTestClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTestClient")
            .field("options", &self.options)
            .field("path", &self.path)
            .field("host", &self.host)
            .field("bearer", &self.bearer.is_some())
            .finish_non_exhaustive()
    }
}

impl HttpTestClient {
    /// A client of `router`'s endpoint at `/mcp`, sending `Host: localhost`. Nothing is
    /// sent yet: a legacy client has no session until it initializes (with
    /// [`connect`](Self::connect) or [`send_initialize`](Self::send_initialize)).
    pub fn new(router: axum::Router, options: ClientOptions) -> HttpTestClient {
        HttpTestClient {
            router,
            options,
            path: Arc::from("/mcp"),
            host: Arc::from("localhost"),
            bearer: None,
            session: Arc::default(),
            next_id: Arc::new(AtomicI64::new(1)),
            mirrors: Arc::default(),
            explicit: Arc::default(),
        }
    }

    /// Posts to this path instead of `/mcp`.
    #[must_use]
    pub fn with_path(mut self, path: &str) -> HttpTestClient {
        self.path = Arc::from(path);
        self
    }

    /// Sends this `Host` instead of `localhost`.
    #[must_use]
    pub fn with_host(mut self, host: &str) -> HttpTestClient {
        self.host = Arc::from(host);
        self
    }

    /// A copy of this client that sends `Authorization: Bearer <token>`, on the same legacy
    /// session (a step-up, or another caller replaying the session id).
    #[must_use]
    pub fn with_bearer(&self, token: &str) -> HttpTestClient {
        HttpTestClient {
            bearer: Some(Arc::from(token)),
            ..self.clone()
        }
    }

    /// A copy of this client, on the same legacy session, that sends `name: value` on every
    /// `POST` in place of any value of `name` it would send itself (a contradicting
    /// `Mcp-Param-*` or `Mcp-Name` header, say).
    ///
    /// # Examples
    ///
    /// ```
    /// # use ferromcp::testing::{ClientOptions, HttpTestClient};
    /// use http::{HeaderName, HeaderValue};
    /// # let client = HttpTestClient::new(axum::Router::new(), ClientOptions::modern());
    /// let wrong = client.with_header(
    ///     HeaderName::from_static("mcp-param-region"),
    ///     HeaderValue::from_static("elsewhere"),
    /// );
    /// # let _ = wrong;
    /// ```
    #[must_use]
    pub fn with_header(&self, name: HeaderName, value: HeaderValue) -> HttpTestClient {
        let mut explicit = HeaderMap::clone(&self.explicit);
        explicit.insert(name, value);
        HttpTestClient {
            explicit: Arc::new(explicit),
            ..self.clone()
        }
    }

    /// The legacy session's id, once the server has given one.
    pub fn session_id(&self) -> Option<String> {
        lock(&self.session)
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }

    /// Initializes (legacy era) and returns a [`TestClient`] with every typed call, on this
    /// client's session and token.
    ///
    /// # Errors
    ///
    /// The `initialize` handshake failed.
    pub async fn connect(&self) -> Result<TestClient, TestClientError> {
        let options = self.options.clone();
        TestClient::start(options, Link::Http(Box::new(self.clone())), Arc::default()).await
    }

    /// Sends `request` to the router as it is and reads the whole answer; a body that fails
    /// midway is read as far as it went.
    pub async fn send(&self, request: Request<Body>) -> HttpResponse {
        let (parts, mut body) = self.call(request).await.into_parts();
        let mut read = Vec::new();
        while let Some(Ok(frame)) = body.frame().await {
            if let Ok(data) = frame.into_data() {
                read.extend_from_slice(&data);
            }
        }
        HttpResponse {
            status: parts.status,
            headers: parts.headers,
            body: Bytes::from(read),
        }
    }

    /// A `GET` of `path` (the protected-resource metadata, say), with this client's `Host`
    /// and token.
    pub async fn get(&self, path: &str) -> HttpResponse {
        let request = self.builder(Method::GET, path).body(Body::empty());
        self.send(request.unwrap_or_default()).await
    }

    /// A `POST` to the endpoint with this client's headers: `Host`, `Content-Type`, `Accept`,
    /// the token, the session id and protocol version once known, and those set with
    /// [`with_header`](Self::with_header). Add or replace headers, then set the body.
    pub fn post_builder(&self) -> ::http::request::Builder {
        let mut b = self
            .builder(Method::POST, &self.path)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        let session = lock(&self.session).clone();
        // A legacy client names its version once initialized, a modern one always.
        if session.is_some() || self.options.version.era() != Era::Legacy {
            b = b.header("mcp-protocol-version", self.options.version.as_str());
        }
        if let Some(session) = session {
            b = b.header(SESSION_HEADER, session);
        }
        if let Some(principal) = &self.options.principal {
            b = b.extension(principal.clone());
        }
        self.overlay(b)
    }

    /// `b` with the headers set by [`with_header`](Self::with_header) in place of its own.
    fn overlay(&self, mut b: ::http::request::Builder) -> ::http::request::Builder {
        if let Some(headers) = b.headers_mut() {
            for (name, value) in self.explicit.iter() {
                headers.insert(name, value.clone());
            }
        }
        b
    }

    /// Posts `message` (sent as it is, headers added as [`post_builder`](Self::post_builder)
    /// says, `Mcp-Method`, `Mcp-Name` and a `tools/call`'s `Mcp-Param-*` taken from it in the
    /// modern era) and reads the whole answer. A session id in the answer is kept.
    pub async fn post(&self, message: &Value) -> HttpResponse {
        let params = self.param_headers(message).await;
        let request = self.request_for(message, params);
        let response = self.send(request).await;
        self.keep_session(&response.headers);
        response
    }

    /// Sends the request `method` with `params` (a fresh id; in the modern era the `_meta`
    /// envelope added) and reads the whole answer. For the answer to a call during which the
    /// server asks the client something, use [`connect`](Self::connect)'s typed calls.
    pub async fn send_request(&self, method: &str, params: Option<Value>) -> HttpResponse {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.post(&self.message(&RequestId::Number(id), method, params))
            .await
    }

    /// Sends `initialize` (the session id in the answer is kept) and, when it succeeds,
    /// `notifications/initialized`; returns the answer to `initialize`.
    pub async fn send_initialize(&self) -> HttpResponse {
        let params = self.options.initialize_params();
        let response = self.send_request("initialize", Some(params)).await;
        if response.status().is_success() {
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            self.post(&initialized).await;
        }
        response
    }

    /// The router's answer to `request` (`tower::ServiceExt::oneshot`, without the `util`
    /// feature).
    async fn call(&self, request: Request<Body>) -> axum::response::Response {
        let mut router = self.router.clone();
        let ready: Result<(), Infallible> =
            std::future::poll_fn(|cx| Service::<Request<Body>>::poll_ready(&mut router, cx)).await;
        let answer = match ready {
            Ok(()) => router.call(request).await,
            Err(never) => match never {},
        };
        match answer {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }

    fn builder(&self, method: Method, path: &str) -> ::http::request::Builder {
        let mut b = Request::builder()
            .method(method)
            .uri(path)
            .header(::http::header::HOST, &*self.host);
        if let Some(token) = &self.bearer {
            b = b.header(AUTHORIZATION, format!("Bearer {token}"));
        }
        b
    }

    fn message(&self, id: &RequestId, method: &str, params: Option<Value>) -> Value {
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = self.options.envelope(params) {
            message["params"] = params;
        }
        message
    }

    /// The `POST` of `message`, with the modern era's routing headers and `params` (its
    /// `Mcp-Param-*` headers).
    fn request_for(
        &self,
        message: &Value,
        params: Vec<(HeaderName, HeaderValue)>,
    ) -> Request<Body> {
        let mut b = self.post_builder();
        if self.options.version.era() != Era::Legacy
            && let Some(method) = message["method"].as_str()
        {
            b = b.header("mcp-method", method);
            if let Some(name) = routed_name(method, &message["params"]) {
                b = b.header("mcp-name", name);
            }
            for (name, value) in params {
                b = b.header(name, value);
            }
        }
        self.overlay(b)
            .body(Body::from(message.to_string()))
            .unwrap_or_default()
    }

    fn keep_session(&self, headers: &HeaderMap) {
        if let Some(id) = headers.get(SESSION_HEADER) {
            *lock(&self.session) = Some(id.clone());
        }
    }

    /// Sends a request and reads its answer as it streams: notifications are stored in
    /// `notifications`, the server's requests are answered with the options' closures (each
    /// answer posted back), and the response ends it.
    pub(super) async fn exchange(
        &self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
        notifications: &Mutex<Vec<Value>>,
    ) -> Result<Value, TestClientError> {
        let message = self.message(&id, method, params);
        let mirrored = self.param_headers(&message).await;
        let response = self.call(self.request_for(&message, mirrored)).await;
        self.keep_session(response.headers());
        let status = response.status();
        let streamed = response
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let mut body = response.into_body();
        if !streamed {
            let bytes = body
                .collect()
                .await
                .map_err(|e| TestClientError::Unexpected(e.to_string()))?
                .to_bytes();
            return match serde_json::from_slice::<Value>(&bytes) {
                Ok(message) => answer_of(message),
                Err(_) => Err(TestClientError::Http {
                    status: status.as_u16(),
                }),
            };
        }
        let mut buffer = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| TestClientError::Unexpected(e.to_string()))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            buffer.extend_from_slice(&data);
            while let Some(event) = next_event(&mut buffer) {
                for message in sse_messages(&event) {
                    if let Some(answer) = self.on_message(message, notifications).await {
                        return answer;
                    }
                }
            }
        }
        Err(TestClientError::Closed)
    }

    /// One message of a response stream: `Some` when it is the response.
    async fn on_message(
        &self,
        message: Value,
        notifications: &Mutex<Vec<Value>>,
    ) -> Option<Result<Value, TestClientError>> {
        let Some(method) = message["method"].as_str() else {
            return Some(answer_of(message));
        };
        let params = message.get("params").cloned();
        match message.get("id") {
            None => lock(notifications).push(json!({"method": method, "params": params})),
            Some(id) => {
                let reply = match self.options.answer(method, params.unwrap_or(Value::Null)) {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                };
                self.post(&reply).await;
            }
        }
        None
    }
}

/// The result of a JSON-RPC response, or its error.
fn answer_of(message: Value) -> Result<Value, TestClientError> {
    if let Some(error) = message.get("error") {
        return Err(match serde_json::from_value(error.clone()) {
            Ok(error) => TestClientError::Rpc(error),
            Err(e) => TestClientError::Unexpected(e.to_string()),
        });
    }
    match message.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(TestClientError::Unexpected(message.to_string())),
    }
}

/// What a 2026 request's `Mcp-Name` carries for `method`: the member its params route by,
/// Base64-wrapped when it is not plain visible ASCII.
fn routed_name(method: &str, params: &Value) -> Option<HeaderValue> {
    let member = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    mirror::encode(params[member].as_str()?)
}

/// Takes the first complete server-sent event (up to a blank line) off `buffer`.
fn next_event(buffer: &mut Vec<u8>) -> Option<String> {
    let at = buffer.windows(2).position(|w| w == b"\n\n")?;
    let event = String::from_utf8_lossy(&buffer[..at]).into_owned();
    buffer.drain(..at + 2);
    Some(event)
}

/// The JSON messages in the `data:` fields of a server-sent event (one per event here;
/// several `data:` lines are joined as the SSE format says).
fn sse_messages(event: &str) -> Vec<Value> {
    let data: Vec<&str> = event
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d))
        .collect();
    if data.is_empty() {
        return Vec::new();
    }
    serde_json::from_str(&data.join("\n")).map_or_else(|_| Vec::new(), |v| vec![v])
}

/// An answer of the HTTP router, read whole.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl HttpResponse {
    /// The status code.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The header `name`, when present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `WWW-Authenticate` challenge, or `""` when there is none.
    pub fn challenge(&self) -> &str {
        self.headers
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    /// The body's bytes.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The JSON-RPC messages in the body: the JSON body, or each event's of an SSE stream,
    /// in order.
    pub fn messages(&self) -> Vec<Value> {
        if let Ok(value) = serde_json::from_slice::<Value>(&self.body) {
            return vec![value];
        }
        let mut buffer = self.body.to_vec();
        buffer.extend_from_slice(b"\n\n");
        std::iter::from_fn(|| next_event(&mut buffer))
            .flat_map(|event| sse_messages(&event))
            .collect()
    }

    /// The JSON-RPC response in the body (the last message with an id and a result or an
    /// error), or `Value::Null`.
    pub fn message(&self) -> Value {
        self.messages()
            .into_iter()
            .rev()
            .find(|m| m.get("id").is_some() && m.get("method").is_none())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use http_body::Frame;

    use super::*;

    /// A body that sends its chunks, then fails.
    struct Broken(VecDeque<Bytes>);

    impl http_body::Body for Broken {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
            Poll::Ready(Some(match self.0.pop_front() {
                Some(chunk) => Ok(Frame::data(chunk)),
                None => Err(std::io::Error::other("the connection broke")),
            }))
        }
    }

    #[tokio::test]
    async fn a_body_that_fails_midway_is_read_as_far_as_it_went() {
        let router = axum::Router::new().route(
            "/broken",
            axum::routing::get(|| async {
                let chunks = [Bytes::from("data: one\n\n"), Bytes::from("data: two\n\n")];
                Body::new(Broken(chunks.into()))
            }),
        );
        let client = HttpTestClient::new(router, ClientOptions::legacy());
        let response = client.get("/broken").await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.text(), "data: one\n\ndata: two\n\n");
    }
}
