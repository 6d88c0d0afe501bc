//! An in-process client for testing servers with `cargo test`: no process, no socket.
//!
//! [`TestClient`] speaks to a [`Server`] through the real stdio transport over an in-memory
//! pipe, in either era. In the legacy era it performs the `initialize` handshake and answers
//! the server's elicitation, sampling and roots requests with the closures you give it; in
//! the modern era it sends the per-request `_meta` envelope and, like a real 2026 client,
//! answers `input_required` results with the same closures and calls again.
//! [`ClientOptions::with_principal`] makes it act as an authenticated caller.
//!
//! With the `http` feature, `HttpTestClient` drives the server's HTTP router in process
//! (status codes, headers, an authentication layer's challenges), and its
//! `connect` gives a `TestClient` over it.
//!
//! # Examples
//!
//! ```
//! use ferromcp::ServerBuilder;
//! use ferromcp::registry::tool_fn;
//! use ferromcp::testing::{ClientOptions, TestClient};
//! use ferromcp::types::Tool;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = ServerBuilder::new("demo", "1.0.0").build();
//! let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
//! server.registry().add_tool(Tool::new("hi", schema), tool_fn(|_: serde_json::Value, _| async { "hello" }), None).unwrap();
//!
//! for options in [ClientOptions::legacy(), ClientOptions::modern()] {
//!     let client = TestClient::connect(&server, options).await.unwrap();
//!     let result = client.call_tool("hi", serde_json::json!({})).await.unwrap();
//!     assert_eq!(result.content[0].as_text(), Some("hello"));
//! }
//! # }
//! ```

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{
    self, Incoming, Message, RequestId, WireErrorResponse, WireRequest, WireResponse,
};
use ferromcp_core::types::{
    CallToolResult, ClientCapabilities, CompleteResult, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, GetPromptResult, Implementation,
    InitializeResult, InputRequest, InputRequiredResult, ListRootsResult,
    ProgressNotificationParams, Prompt, ReadResourceResult, Resource, ResourceTemplate, Root,
    ServerNotification, Tool,
};
use ferromcp_core::{Era, ProtocolVersion};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use crate::principal::Principal;
use crate::server::Server;
use crate::sync::lock;

mod calls;
#[cfg(feature = "conformance")]
mod conformance;
#[cfg(feature = "http")]
mod http;
mod options;
#[cfg(feature = "conformance")]
#[cfg_attr(docsrs, doc(cfg(feature = "conformance")))]
pub use conformance::{SchemaValidator, assert_conformant, check_conformance, official_schema};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use http::{HttpResponse, HttpTestClient};
pub use options::ClientOptions;

/// A failed client call.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TestClientError {
    /// The server answered with a JSON-RPC error.
    #[error("{0}")]
    Rpc(ErrorObject),
    /// The server's answer did not have the expected shape.
    #[error("unexpected answer: {0}")]
    Unexpected(String),
    /// The server went away.
    #[error("the server closed the connection")]
    Closed,
    /// Over HTTP: the server answered with this status and no JSON-RPC message (a `401`
    /// from an authentication layer, say); the raw answer is
    /// [`HttpTestClient::send_request`]'s.
    #[error("http status {status}")]
    Http {
        /// The status code.
        status: u16,
    },
}

type Pending = Arc<Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>>;

/// A client connected to a [`Server`] in memory. See the [module docs](self).
pub struct TestClient {
    options: ClientOptions,
    link: Link,
    notifications: Arc<Mutex<Vec<Value>>>,
    next_id: AtomicI64,
    initialize: Option<InitializeResult>,
}

/// How requests reach the server.
enum Link {
    /// The stdio transport over an in-memory pipe: lines out, answers matched by id.
    Pipe {
        out: mpsc::Sender<String>,
        pending: Pending,
    },
    /// The HTTP router, called in process.
    #[cfg(feature = "http")]
    Http(Box<HttpTestClient>),
}

/// Writes each queued line, newline-terminated, until the queue or the pipe closes.
async fn write_lines(
    mut pipe: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    mut lines: mpsc::Receiver<String>,
) {
    while let Some(line) = lines.recv().await {
        if pipe.write_all(line.as_bytes()).await.is_err() || pipe.write_all(b"\n").await.is_err() {
            break;
        }
    }
    let _ = pipe.shutdown().await;
}

/// Reads the server's lines: answers complete pending calls, notifications are kept, and the
/// server's own requests are answered from `options`. Pending calls fail when the pipe ends.
async fn read_lines(
    pipe: tokio::io::ReadHalf<tokio::io::DuplexStream>,
    pending: Pending,
    notifications: Arc<Mutex<Vec<Value>>>,
    out: mpsc::Sender<String>,
    options: ClientOptions,
) {
    let mut lines = BufReader::new(pipe).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        match jsonrpc::parse(line.as_bytes()) {
            Ok(Incoming::Single(Message::Response(r))) => {
                let value = serde_json::from_str(r.result.get()).unwrap_or(Value::Null);
                if let Some(tx) = lock(&pending).remove(&r.id) {
                    let _ = tx.send(Ok(value));
                }
            }
            Ok(Incoming::Single(Message::Error(e))) => {
                if let Some(tx) = e.id.as_ref().and_then(|id| lock(&pending).remove(id)) {
                    let _ = tx.send(Err(e.error));
                }
            }
            Ok(Incoming::Single(Message::Notification(n))) => {
                let params = n
                    .params
                    .map(|p| serde_json::from_str(p.get()).unwrap_or(Value::Null));
                lock(&notifications).push(json!({"method": n.method, "params": params}));
            }
            Ok(Incoming::Single(Message::Request(req))) => {
                let params = req
                    .params
                    .map(|p| serde_json::from_str(p.get()).unwrap_or(Value::Null));
                let answer = options.answer(&req.method, params.unwrap_or(Value::Null));
                let text = match answer {
                    Ok(v) => serde_json::to_string(&WireResponse::new(&req.id, &v)),
                    Err(e) => serde_json::to_string(&WireErrorResponse::new(Some(&req.id), &e)),
                };
                if let Ok(text) = text {
                    let _ = out.send(text).await;
                }
            }
            _ => {}
        }
    }
    lock(&pending).clear();
}

impl std::fmt::Debug for TestClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestClient")
            .field("options", &self.options)
            .field("over_http", &!matches!(self.link, Link::Pipe { .. }))
            .finish_non_exhaustive()
    }
}

impl TestClient {
    /// Connects to `server` (legacy era: and initializes).
    ///
    /// # Errors
    ///
    /// The `initialize` handshake failed.
    pub async fn connect(
        server: &Server,
        options: ClientOptions,
    ) -> Result<TestClient, TestClientError> {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        let engine = server.engine().clone();
        let principal = options.principal.clone().map(Arc::new);
        tokio::spawn(async move {
            crate::transport::stdio::serve_io_as(&engine, server_read, server_write, principal)
                .await
        });

        let (client_read, client_write) = tokio::io::split(client_io);
        let (out, out_rx) = mpsc::channel::<String>(1024);
        tokio::spawn(write_lines(client_write, out_rx));
        let pending: Pending = Arc::default();
        let notifications: Arc<Mutex<Vec<Value>>> = Arc::default();
        tokio::spawn(read_lines(
            client_read,
            pending.clone(),
            notifications.clone(),
            out.clone(),
            options.clone(),
        ));

        TestClient::start(options, Link::Pipe { out, pending }, notifications).await
    }

    /// A client on `link`, initialized in the legacy era.
    async fn start(
        options: ClientOptions,
        link: Link,
        notifications: Arc<Mutex<Vec<Value>>>,
    ) -> Result<TestClient, TestClientError> {
        let mut client = TestClient {
            options,
            link,
            notifications,
            next_id: AtomicI64::new(1),
            initialize: None,
        };
        if client.options.version.era() == Era::Legacy {
            let params = client.options.initialize_params();
            let result: InitializeResult = client.typed("initialize", Some(params)).await?;
            client.notify("notifications/initialized", None).await;
            client.initialize = Some(result);
        }
        Ok(client)
    }

    /// The server's answer to `initialize` (legacy era).
    pub fn initialize_result(&self) -> Option<&InitializeResult> {
        self.initialize.as_ref()
    }

    /// The notifications received so far, as `{"method": …, "params": …}`, in the order
    /// they came, untyped; [`take_notifications`](Self::take_notifications) removes them
    /// from here and types them.
    pub fn notifications(&self) -> Vec<Value> {
        lock(&self.notifications).clone()
    }

    /// Removes and returns the notifications received so far, typed, in the order they came;
    /// the next call returns only what arrived since. A notification of a method no revision
    /// defines is left out.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::prelude::*;
    /// use ferromcp::testing::{ClientOptions, TestClient};
    /// use ferromcp::types::{LoggingLevel, ServerNotification};
    ///
    /// struct Chatty;
    ///
    /// #[ferromcp::server]
    /// impl Chatty {
    ///     /// Logs, then answers.
    ///     #[tool]
    ///     async fn hello(&self, ctx: Context) -> String {
    ///         ctx.info("saying hello").await;
    ///         "hello".to_owned()
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::new(Chatty).unwrap();
    /// let options = ClientOptions::modern().with_log_level(LoggingLevel::Info);
    /// let client = TestClient::connect(&server, options).await.unwrap();
    /// client.call_tool("hello", serde_json::json!({})).await.unwrap();
    /// let notifications = client.take_notifications();
    /// assert!(matches!(&notifications[..], [ServerNotification::LoggingMessage(_)]));
    /// assert!(client.take_notifications().is_empty());
    /// # }
    /// ```
    pub fn take_notifications(&self) -> Vec<ServerNotification> {
        std::mem::take(&mut *lock(&self.notifications))
            .into_iter()
            .filter_map(typed_notification)
            .collect()
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) {
        let msg = jsonrpc::WireNotification::new(method, params.as_ref());
        match &self.link {
            Link::Pipe { out, .. } => {
                if let Ok(text) = serde_json::to_string(&msg) {
                    let _ = out.send(text).await;
                }
            }
            #[cfg(feature = "http")]
            Link::Http(http) => {
                if let Ok(message) = serde_json::to_value(&msg) {
                    http.post(&message).await;
                }
            }
        }
    }

    /// Sends a request as is (modern era: with the `_meta` envelope added) and returns the
    /// raw result; one round only.
    ///
    /// # Errors
    ///
    /// The server answered with an error, or went away.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, TestClientError> {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        self.request_with_id(id, method, params).await
    }

    /// [`request`](Self::request) with a chosen id (to cancel it later, say).
    ///
    /// # Errors
    ///
    /// As [`request`](Self::request).
    pub async fn request_with_id(
        &self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, TestClientError> {
        let params = self.options.envelope(params);
        let (out, pending) = match &self.link {
            Link::Pipe { out, pending } => (out, pending),
            #[cfg(feature = "http")]
            Link::Http(http) => {
                return http.exchange(id, method, params, &self.notifications).await;
            }
        };
        let (tx, rx) = oneshot::channel();
        lock(pending).insert(id.clone(), tx);
        let text = serde_json::to_string(&WireRequest::new(id, method, params.as_ref()))
            .map_err(|e| TestClientError::Unexpected(e.to_string()))?;
        out.send(text).await.map_err(|_| TestClientError::Closed)?;
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(TestClientError::Rpc(e)),
            Err(_) => Err(TestClientError::Closed),
        }
    }

    /// Sends a request and, in the modern era, answers `input_required` results with the
    /// configured closures and calls again, as a 2026 client does.
    ///
    /// # Errors
    ///
    /// The server answered with an error, a round limit was passed, or the server went away.
    pub async fn request_mrtr(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value, TestClientError> {
        let mut params = params;
        for _ in 0..self.options.max_rounds {
            let result = self.request(method, Some(params.clone())).await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            let irr: InputRequiredResult = serde_json::from_value(result)
                .map_err(|e| TestClientError::Unexpected(e.to_string()))?;
            let mut responses = BTreeMap::new();
            for (key, request) in irr.input_requests.unwrap_or_default() {
                let (method, params) = match &request {
                    InputRequest::CreateMessage(r) => {
                        ("sampling/createMessage", serde_json::to_value(&r.params))
                    }
                    InputRequest::Elicit(r) => {
                        ("elicitation/create", serde_json::to_value(&r.params))
                    }
                    InputRequest::ListRoots(_) => ("roots/list", Ok(json!({}))),
                };
                let params = params.map_err(|e| TestClientError::Unexpected(e.to_string()))?;
                let answer = self
                    .options
                    .answer(method, params)
                    .map_err(TestClientError::Rpc)?;
                responses.insert(key, answer);
            }
            params["inputResponses"] = serde_json::to_value(responses).unwrap_or_default();
            match irr.request_state {
                Some(state) => params["requestState"] = Value::String(state),
                None => {
                    if let Value::Object(map) = &mut params {
                        map.remove("requestState");
                    }
                }
            }
        }
        Err(TestClientError::Unexpected(
            "too many input_required rounds".into(),
        ))
    }
}

/// A stored `{"method": …, "params": …}` as the typed notification of its method.
fn typed_notification(stored: Value) -> Option<ServerNotification> {
    let mut message = json!({"jsonrpc": "2.0", "method": stored["method"]});
    if !stored["params"].is_null() {
        message["params"] = stored["params"].clone();
    }
    serde_json::from_value(message).ok()
}
