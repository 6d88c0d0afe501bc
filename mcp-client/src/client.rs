//! [`Client`]: a connection to one server, and its typed calls.

use std::sync::Arc;
use std::time::Duration;

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{Implementation, InputRequiredResult, JSONObject, ServerCapabilities};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::{Error, Result};
use crate::events::Events;
use crate::handshake::{ServerSession, negotiate};
use crate::options::ClientOptions;
use crate::peer::{ProgressFn, Shared, dispatch};
use crate::transport::http::{self, HttpGuard, HttpTransport};
use crate::transport::stdio::{self, StdioCommand, StdioGuard};
use crate::transport::{Inbound, Sink};

/// How many `input_required` rounds one 2026 request may take before the client gives up.
const MAX_INPUT_ROUNDS: usize = 16;

/// What keeps the transport alive; dropped with the last handle of the client.
#[derive(Debug)]
pub(crate) enum Guard {
    Stdio(StdioGuard),
    Http(HttpGuard),
}

#[derive(Debug)]
struct Inner {
    shared: Arc<Shared>,
    session: ServerSession,
    timeout: Duration,
    guard: tokio::sync::Mutex<Option<Guard>>,
    dispatch: JoinHandle<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.dispatch.abort();
    }
}

/// A connection to one MCP server, after the handshake.
///
/// Cheap to clone (the clones share the connection); requests may run concurrently. The
/// connection ends with [`close`](Self::close) or when the last clone is dropped: a stdio
/// server is then killed and reaped.
///
/// # Examples
///
/// ```no_run
/// use ferromcp_client::{Client, ClientOptions, StdioCommand};
///
/// # async fn run() -> Result<(), ferromcp_client::Error> {
/// let client = Client::connect_stdio(StdioCommand::new("my-server"), ClientOptions::new()).await?;
/// for tool in client.list_tools().await? {
///     println!("{}", tool.name);
/// }
/// let result = client.call_tool("add", serde_json::json!({"a": 1, "b": 2})).await?;
/// assert!(!result.is_error());
/// client.close().await;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl Client {
    /// Starts `command` and connects to it over stdio, then runs the handshake.
    pub async fn connect_stdio(command: StdioCommand, options: ClientOptions) -> Result<Client> {
        let (sink, inbound, guard) = stdio::spawn(&command, options.max_message_size)?;
        Self::start(sink, inbound, Guard::Stdio(guard), options).await
    }

    /// Connects to a Streamable HTTP endpoint and runs the handshake; in the legacy era
    /// the session's GET stream is opened for what the server sends unasked.
    pub async fn connect_http(server: HttpTransport, options: ClientOptions) -> Result<Client> {
        let (sink, inbound) = http::open(&server, options.max_message_size)?;
        let guard = Guard::Http(HttpGuard {
            sink: sink.clone(),
            listener: None,
        });
        let client = Self::start(Sink::Http(sink.clone()), inbound, guard, options).await?;
        if client.protocol_version().era() == ferromcp_core::Era::Legacy
            && let Some(Guard::Http(g)) = client.inner.guard.lock().await.as_mut()
        {
            g.listener = Some(sink.listen());
        }
        Ok(client)
    }

    pub(crate) async fn start(
        sink: Sink,
        inbound: mpsc::Receiver<Inbound>,
        guard: Guard,
        options: ClientOptions,
    ) -> Result<Client> {
        let shared = Shared::new(sink, options.event_capacity, options.handler.clone());
        let dispatch = tokio::spawn(dispatch(shared.clone(), inbound));
        let mut inner = Inner {
            shared,
            session: ServerSession {
                version: ProtocolVersion::LATEST,
                info: None,
                capabilities: ServerCapabilities::default(),
                instructions: None,
            },
            timeout: options.request_timeout,
            guard: tokio::sync::Mutex::new(Some(guard)),
            dispatch,
        };
        inner.session = negotiate(&inner.shared, &options).await?;
        Ok(Client {
            inner: Arc::new(inner),
        })
    }

    /// The protocol revision in force.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.session.version
    }

    /// How the server named itself (always known in the legacy era; in 2026 when its
    /// `server/discover` result carries it).
    pub fn server_info(&self) -> Option<&Implementation> {
        self.inner.session.info.as_ref()
    }

    /// The server's capabilities.
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        &self.inner.session.capabilities
    }

    /// The server's advice on how to use it, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.inner.session.instructions.as_deref()
    }

    /// The request timeout of this client.
    pub fn request_timeout(&self) -> Duration {
        self.inner.timeout
    }

    /// Whether the connection is closed (every further request fails).
    pub fn is_closed(&self) -> bool {
        self.inner.shared.is_closed()
    }

    /// The client's events (notifications, the connection closing) from now on; see
    /// [`Events`] for how a flood is bounded.
    pub fn events(&self) -> Events {
        Events::new(self.inner.shared.subscribe())
    }

    /// Ends the connection: a stdio server's input is closed, it is given two seconds to
    /// exit, then killed, and reaped. Pending requests fail.
    pub async fn close(&self) {
        let guard = self.inner.guard.lock().await.take();
        match guard {
            Some(Guard::Stdio(mut g)) => g.close(Duration::from_secs(2)).await,
            Some(Guard::Http(mut g)) => g.close().await,
            None => {}
        }
        self.inner
            .shared
            .close(Error::Connection("the client closed the connection".into()));
    }

    /// Sends any request and returns its raw result, following 2026 `input_required`
    /// rounds through the [`ClientHandler`](crate::ClientHandler).
    pub async fn request_value(&self, method: &str, params: Option<Value>) -> Result<Value> {
        self.request_with(method, params, self.inner.timeout, None)
            .await
    }

    pub(crate) async fn request_with(
        &self,
        method: &str,
        mut params: Option<Value>,
        timeout: Duration,
        progress: Option<ProgressFn>,
    ) -> Result<Value> {
        let shared = &self.inner.shared;
        for _ in 0..MAX_INPUT_ROUNDS {
            let result = shared
                .request(method, params.clone(), timeout, progress.clone())
                .await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            let asked: InputRequiredResult = serde_json::from_value(result)
                .map_err(|e| Error::InvalidMessage(format!("input_required result: {e}")))?;
            let answers = shared
                .server_requests
                .inputs(asked.input_requests.unwrap_or_default())
                .await
                .map_err(|e| {
                    Error::Unsupported(format!(
                        "the server asks for input the client does not give: {}",
                        e.message
                    ))
                })?;
            let p = params.get_or_insert_with(|| json!({}));
            if let Value::Object(p) = p {
                p.insert("inputResponses".into(), json!(answers));
                match asked.request_state {
                    Some(s) => p.insert("requestState".into(), json!(s)),
                    None => p.remove("requestState"),
                };
            }
        }
        Err(Error::InvalidMessage(format!(
            "{method}: more than {MAX_INPUT_ROUNDS} input_required rounds"
        )))
    }

    /// Sends a request and reads its result as `T`.
    pub(crate) async fn call<T: DeserializeOwned>(&self, method: &str, params: Value) -> Result<T> {
        let v = self.request_value(method, Some(params)).await?;
        parse(method, v)
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<()> {
        let params = self.inner.shared.with_envelope(params);
        self.inner.shared.notify(method, params).await
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.inner.shared
    }
}

/// Reads a result as `T`, or says which method's result was malformed.
pub(crate) fn parse<T: DeserializeOwned>(method: &str, v: Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| Error::InvalidMessage(format!("{method} result: {e}")))
}

/// Tool arguments as an object: `null` is no arguments, an object is itself.
pub(crate) fn arguments(args: Value) -> Result<Option<JSONObject>> {
    match args {
        Value::Null => Ok(None),
        Value::Object(m) => Ok(Some(m)),
        other => Err(Error::Unsupported(format!(
            "tool arguments must be a JSON object, not {other}"
        ))),
    }
}
