//! Streamable HTTP: each message is a POST; a request's answer comes back as one JSON body
//! or as an SSE stream (resumed with `Last-Event-ID` when it breaks before the answer). The
//! 2025 revisions add a session (`Mcp-Session-Id`, a GET stream for what the server sends
//! unasked, DELETE on close) and `MCP-Protocol-Version`; 2026-07-28 is stateless and every
//! request names its method (and its tool, prompt or resource) in headers.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use ferromcp_core::ProtocolVersion;
use futures_util::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use sse_stream::SseStream;
use tokio::sync::mpsc;

use super::Inbound;
use crate::error::{Error, Result};
use crate::sync::lock;

const SESSION: &str = "mcp-session-id";
const VERSION: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
/// How often a broken SSE answer is resumed before the request fails.
const RESUME_ATTEMPTS: u32 = 5;

/// A Streamable HTTP server: its URL, and the headers every request carries (a bearer
/// token, custom headers).
///
/// # Examples
///
/// ```
/// use ferromcp_client::HttpTransport;
///
/// let server = HttpTransport::new("http://127.0.0.1:8080/mcp")
///     .bearer_token("secret")
///     .header("X-Tenant", "acme");
/// assert_eq!(server.url(), "http://127.0.0.1:8080/mcp");
/// ```
#[derive(Debug, Clone)]
pub struct HttpTransport {
    url: String,
    headers: Vec<(String, String)>,
    bearer: Option<String>,
}

impl HttpTransport {
    /// The server's MCP endpoint, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn new(url: impl Into<String>) -> Self {
        HttpTransport {
            url: url.into(),
            headers: Vec::new(),
            bearer: None,
        }
    }

    /// The endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Adds a header to every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sends `Authorization: Bearer TOKEN` with every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    fn header_map(&self) -> Result<HeaderMap> {
        let mut map = HeaderMap::new();
        let bad = |what: &str, e: &dyn std::fmt::Display| {
            Error::Connection(format!("invalid header {what}: {e}"))
        };
        for (k, v) in &self.headers {
            let name = HeaderName::try_from(k.as_str()).map_err(|e| bad(k, &e))?;
            let value = HeaderValue::try_from(v.as_str()).map_err(|e| bad(k, &e))?;
            map.append(name, value);
        }
        if let Some(token) = &self.bearer {
            let value = HeaderValue::try_from(format!("Bearer {token}"))
                .map_err(|e| bad("Authorization", &e))?;
            map.insert(reqwest::header::AUTHORIZATION, value);
        }
        Ok(map)
    }
}

/// The connection's HTTP state, shared by the sink and the tasks reading answers.
#[derive(Debug)]
pub(crate) struct HttpSink {
    http: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    session: Mutex<Option<String>>,
    version: Mutex<Option<ProtocolVersion>>,
    inbound: mpsc::Sender<Inbound>,
    max_message: usize,
}

/// Connects (nothing is sent yet): the sink and what the server sends.
pub(crate) fn open(
    target: &HttpTransport,
    max_message: usize,
) -> Result<(Arc<HttpSink>, mpsc::Receiver<Inbound>)> {
    let url = reqwest::Url::parse(&target.url)
        .map_err(|e| Error::Connection(format!("invalid URL {}: {e}", target.url)))?;
    let http = reqwest::Client::builder()
        .build()
        .map_err(|e| Error::Connection(format!("http client: {e}")))?;
    let (tx, rx) = mpsc::channel(64);
    let sink = HttpSink {
        http,
        url,
        headers: target.header_map()?,
        session: Mutex::default(),
        version: Mutex::default(),
        inbound: tx,
        max_message,
    };
    Ok((Arc::new(sink), rx))
}

/// A header value as 2026 wants it: as is when visible ASCII, else `=?base64?…?=`.
fn header_value(v: &str) -> Option<HeaderValue> {
    if v.bytes().all(|b| (0x20..0x7f).contains(&b)) && v.trim() == v {
        HeaderValue::try_from(v).ok()
    } else {
        let enc = base64::engine::general_purpose::STANDARD.encode(v);
        HeaderValue::try_from(format!("=?base64?{enc}?=")).ok()
    }
}

/// The 2026 routing headers of a request: `Mcp-Method`, and `Mcp-Name` where the method
/// is routed by a name, a URI or a task id.
fn routing_headers(msg: &Value, headers: &mut HeaderMap) {
    let Some(method) = msg.get("method").and_then(Value::as_str) else {
        return;
    };
    if let Some(v) = header_value(method) {
        headers.insert("mcp-method", v);
    }
    let member = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return,
    };
    let name = msg
        .get("params")
        .and_then(|p| p.get(member))
        .and_then(Value::as_str);
    if let Some(v) = name.and_then(header_value) {
        headers.insert("mcp-name", v);
    }
}

impl HttpSink {
    pub(crate) fn set_version(&self, v: Option<ProtocolVersion>) {
        *lock(&self.version) = v;
    }

    fn request_headers(&self) -> HeaderMap {
        let mut h = self.headers.clone();
        if let Some(v) = *lock(&self.version) {
            h.insert(VERSION, HeaderValue::from_static(v.as_str()));
        }
        if let Some(s) = lock(&self.session).as_deref().and_then(header_value) {
            h.insert(SESSION, s);
        }
        h
    }

    fn is_modern(&self) -> bool {
        lock(&self.version).is_some_and(|v| v.era() == ferromcp_core::Era::Modern)
    }

    /// POSTs one message; its answer (if any) is delivered to the dispatcher.
    pub(crate) async fn send(self: &Arc<Self>, msg: Value) -> Result<()> {
        let mut headers = self.request_headers();
        if self.is_modern() {
            routing_headers(&msg, &mut headers);
        }
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let response = self
            .http
            .post(self.url.clone())
            .headers(headers)
            .body(msg.to_string())
            .send()
            .await
            .map_err(|e| Error::Connection(format!("POST {}: {e}", self.url)))?;
        if let Some(s) = response
            .headers()
            .get(SESSION)
            .and_then(|v| v.to_str().ok())
        {
            let mut session = lock(&self.session);
            if session.is_none() {
                *session = Some(s.to_owned());
            }
        }
        let request_id = msg.get("method").and(msg.get("id")).cloned();
        self.read_answer(response, request_id).await
    }

    async fn read_answer(
        self: &Arc<Self>,
        response: reqwest::Response,
        request_id: Option<Value>,
    ) -> Result<()> {
        let status = response.status();
        let kind = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if status.is_success() && kind.starts_with("text/event-stream") {
            let sink = self.clone();
            tokio::spawn(async move { sink.read_stream(response, request_id).await });
            return Ok(());
        }
        if status.as_u16() == 202 || status.as_u16() == 204 {
            return Ok(());
        }
        let body = self.read_body(response).await?;
        // A JSON-RPC answer, even with an error status (a 2026 server refuses a request
        // with 400 and the error in the body): the request gets the server's error.
        if kind.starts_with("application/json")
            && let Ok(msg) = serde_json::from_slice::<Value>(&body)
        {
            if status.is_success() {
                return self.deliver(msg).await;
            }
            // An error status with a JSON-RPC error (a 2026 server refusing a request, a
            // legacy one without a session): the request's own failure, whatever its `id`
            // (often null).
            if let Some(Ok(error)) = msg.get("error").cloned().map(serde_json::from_value) {
                return Err(Error::Protocol(error));
            }
        }
        if status.is_success() {
            return Err(Error::InvalidMessage(format!(
                "a {status} answer of type {kind:?}"
            )));
        }
        let text = String::from_utf8_lossy(&body[..body.len().min(500)]).into_owned();
        Err(Error::Http {
            status: status.as_u16(),
            body: text,
        })
    }

    /// The body, at most the message limit.
    async fn read_body(&self, response: reqwest::Response) -> Result<Vec<u8>> {
        let mut body = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| Error::Connection(format!("reading the answer: {e}")))?;
            if body.len() + chunk.len() > self.max_message {
                return Err(Error::InvalidMessage(format!(
                    "a message longer than the limit of {} bytes",
                    self.max_message
                )));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    async fn deliver(&self, msg: Value) -> Result<()> {
        self.inbound
            .send(Inbound::Message(msg))
            .await
            .map_err(|_| Error::Connection("the client is closed".into()))
    }

    /// Reads an SSE answer; when it ends before the answer to `request_id` came, resumes
    /// it with a GET carrying `Last-Event-ID` (if the server gave event ids).
    async fn read_stream(self: Arc<Self>, response: reqwest::Response, request_id: Option<Value>) {
        let mut response = response;
        let mut attempts = 0;
        loop {
            let (answered, last_id, retry) = self.pump(response, request_id.as_ref()).await;
            let Some(last_id) = last_id.filter(|_| !answered && request_id.is_some()) else {
                return;
            };
            attempts += 1;
            if attempts > RESUME_ATTEMPTS {
                return;
            }
            tokio::time::sleep(retry.unwrap_or(Duration::from_millis(100))).await;
            match self.resume(&last_id).await {
                Some(r) => response = r,
                None => return,
            }
        }
    }

    /// Delivers the events of one SSE body: whether the request's answer was among them,
    /// the last event id, and the server's `retry`.
    async fn pump(
        &self,
        response: reqwest::Response,
        request_id: Option<&Value>,
    ) -> (bool, Option<String>, Option<Duration>) {
        let mut events = SseStream::from_bytes_stream(response.bytes_stream());
        let (mut answered, mut last_id, mut retry) = (false, None, None);
        while let Some(Ok(event)) = events.next().await {
            if let Some(id) = event.id {
                last_id = Some(id);
            }
            if let Some(ms) = event.retry {
                retry = Some(Duration::from_millis(ms));
            }
            let Some(data) = event.data.filter(|d| !d.trim().is_empty()) else {
                continue;
            };
            let Ok(msg) = serde_json::from_str::<Value>(&data) else {
                tracing::warn!(data = %data, "an SSE event that is not JSON; ignored");
                continue;
            };
            if request_id.is_some() && msg.get("method").is_none() && msg.get("id") == request_id {
                answered = true;
            }
            if self.deliver(msg).await.is_err() {
                return (true, None, None);
            }
        }
        (answered, last_id, retry)
    }

    async fn resume(&self, last_id: &str) -> Option<reqwest::Response> {
        let mut headers = self.request_headers();
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        headers.insert(LAST_EVENT_ID, header_value(last_id)?);
        let r = self
            .http
            .get(self.url.clone())
            .headers(headers)
            .send()
            .await
            .ok()?;
        r.status().is_success().then_some(r)
    }

    /// Legacy: opens the GET stream of what the server sends unasked (notifications,
    /// requests), if the server offers one; read until it ends.
    pub(crate) fn listen(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        let sink = self.clone();
        tokio::spawn(async move {
            let mut headers = sink.request_headers();
            headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
            let r = sink
                .http
                .get(sink.url.clone())
                .headers(headers)
                .send()
                .await;
            match r {
                Ok(r) if r.status().is_success() => {
                    sink.pump(r, None).await;
                }
                Ok(r) => tracing::debug!(status = %r.status(), "no GET stream"),
                Err(e) => tracing::debug!(error = %e, "no GET stream"),
            }
        })
    }

    /// Legacy: ends the session with DELETE (a server that does not allow it says 405).
    pub(crate) async fn delete_session(&self) {
        if lock(&self.session).is_none() {
            return;
        }
        let headers = self.request_headers();
        let r = self.http.delete(self.url.clone()).headers(headers);
        let _ = tokio::time::timeout(Duration::from_secs(2), r.send()).await;
    }
}

/// The HTTP connection's lifetime: the GET stream's task, and the session to end.
#[derive(Debug)]
pub(crate) struct HttpGuard {
    pub(crate) sink: Arc<HttpSink>,
    pub(crate) listener: Option<tokio::task::JoinHandle<()>>,
}

impl HttpGuard {
    /// Stops listening and ends the session.
    pub(crate) async fn close(&mut self) {
        if let Some(l) = self.listener.take() {
            l.abort();
        }
        self.sink.delete_session().await;
        lock(&self.sink.session).take();
    }
}

impl Drop for HttpGuard {
    fn drop(&mut self) {
        if let Some(l) = self.listener.take() {
            l.abort();
        }
        if lock(&self.sink.session).is_none() {
            return;
        }
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let sink = self.sink.clone();
            rt.spawn(async move { sink.delete_session().await });
        }
    }
}
