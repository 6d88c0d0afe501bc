//! The connection's core, whatever the transport: ids, the table of pending requests, the
//! dispatch of what the server sends (responses, notifications, requests), timeouts and
//! cancellation.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::types::{ProgressNotificationParams, ServerNotification};
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::error::{Error, Result};
use crate::events::Event;
use crate::handler::ServerRequests;
use crate::sync::lock;
use crate::transport::{Inbound, Sink};

type Waiter = oneshot::Sender<Result<Value>>;

/// Called with each `notifications/progress` about one request, on the dispatch task (so a
/// flood of progress is handled as it comes, never queued).
pub(crate) type ProgressFn = Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;

/// Shared by the client's handles and the dispatch task.
pub(crate) struct Shared {
    pending: Mutex<HashMap<String, Waiter>>,
    progress: Mutex<HashMap<String, ProgressFn>>,
    next_id: AtomicI64,
    closed: Mutex<Option<String>>,
    events: broadcast::Sender<Event>,
    pub(crate) sink: Sink,
    /// 2026: the `_meta` every request carries (version, capabilities, client info, log level).
    envelope: Mutex<Option<Map<String, Value>>>,
    pub(crate) server_requests: ServerRequests,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("pending", &lock(&self.pending).len())
            .field("closed", &*lock(&self.closed))
            .finish_non_exhaustive()
    }
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

impl Shared {
    pub(crate) fn new(sink: Sink, capacity: usize, server_requests: ServerRequests) -> Arc<Self> {
        let (events, _) = broadcast::channel(capacity.max(1));
        Arc::new(Shared {
            pending: Mutex::default(),
            progress: Mutex::default(),
            next_id: AtomicI64::new(0),
            closed: Mutex::default(),
            events,
            sink,
            envelope: Mutex::default(),
            server_requests,
        })
    }

    /// Sets the 2026 per-request `_meta` (or `None` in the legacy era).
    pub(crate) fn set_envelope(&self, envelope: Option<Map<String, Value>>) {
        *lock(&self.envelope) = envelope;
    }

    /// Sets one key of the 2026 envelope (the log level).
    pub(crate) fn set_envelope_key(&self, key: &str, value: Value) {
        if let Some(env) = lock(&self.envelope).as_mut() {
            env.insert(key.to_owned(), value);
        }
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    pub(crate) fn emit(&self, event: Event) {
        // No receiver is not an error: nobody listens.
        let _ = self.events.send(event);
    }

    /// `params` with the 2026 envelope merged into its `_meta` (kept as is in the legacy era).
    pub(crate) fn with_envelope(&self, params: Option<Value>) -> Option<Value> {
        let env = lock(&self.envelope).clone();
        let Some(env) = env else { return params };
        let mut params = match params {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            for (k, v) in env {
                meta.entry(k).or_insert(v);
            }
        }
        Some(Value::Object(params))
    }

    fn closed_error(&self) -> Option<Error> {
        lock(&self.closed).clone().map(Error::Connection)
    }

    /// Sends a request and waits for its result, at most `timeout`.
    pub(crate) async fn request(
        self: &Arc<Self>,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        progress: Option<ProgressFn>,
    ) -> Result<Value> {
        if let Some(e) = self.closed_error() {
            return Err(e);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id_value = json!(id);
        let key = id_key(&id_value);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(key.clone(), tx);
        let mut params = self.with_envelope(params);
        if let Some(progress) = progress {
            let meta = params
                .get_or_insert_with(|| json!({}))
                .as_object_mut()
                .map(|p| p.entry("_meta").or_insert_with(|| json!({})));
            if let Some(Value::Object(meta)) = meta {
                meta.insert("progressToken".into(), id_value.clone());
            }
            lock(&self.progress).insert(key.clone(), progress);
        }
        let mut guard = PendingGuard {
            shared: self.clone(),
            key,
            id: id_value.clone(),
            done: false,
        };
        let mut msg = json!({"jsonrpc": "2.0", "id": id_value, "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        let exchange = async {
            self.sink.send(msg).await?;
            match rx.await {
                Ok(r) => r,
                Err(_) => Err(self
                    .closed_error()
                    .unwrap_or_else(|| Error::Connection("the connection closed".into()))),
            }
        };
        let out = match tokio::time::timeout(timeout, exchange).await {
            Ok(r) => r,
            Err(_) => Err(Error::Timeout(timeout)),
        };
        // A request that failed at the transport or got its answer needs no cancellation.
        guard.done = !matches!(out, Err(Error::Timeout(_)));
        out
    }

    /// Sends a notification.
    pub(crate) async fn notify(&self, method: &str, params: Option<Value>) -> Result<()> {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.sink.send(msg).await
    }

    /// Fails every pending request and marks the connection closed.
    pub(crate) fn close(&self, error: Error) {
        {
            let mut closed = lock(&self.closed);
            if closed.is_some() {
                return;
            }
            *closed = Some(error.to_string());
        }
        let waiters: Vec<Waiter> = lock(&self.pending).drain().map(|(_, w)| w).collect();
        for w in waiters {
            let _ = w.send(Err(error.duplicate()));
        }
        lock(&self.progress).clear();
        self.emit(Event::Closed {
            reason: error.to_string(),
        });
    }

    /// Whether the connection is closed.
    pub(crate) fn is_closed(&self) -> bool {
        lock(&self.closed).is_some()
    }

    fn on_response(&self, msg: &Map<String, Value>) {
        let Some(id) = msg.get("id") else { return };
        let key = id_key(id);
        let Some(waiter) = lock(&self.pending).remove(&key) else {
            tracing::debug!(%id, "response to no pending request (late or cancelled)");
            return;
        };
        lock(&self.progress).remove(&key);
        let out = if let Some(result) = msg.get("result") {
            Ok(result.clone())
        } else if let Some(error) = msg.get("error") {
            match serde_json::from_value::<ErrorObject>(error.clone()) {
                Ok(e) => Err(Error::Protocol(e)),
                Err(e) => Err(Error::InvalidMessage(format!(
                    "malformed error object: {e}"
                ))),
            }
        } else {
            Err(Error::InvalidMessage(
                "a response with neither result nor error".into(),
            ))
        };
        let _ = waiter.send(out);
    }

    fn on_notification(&self, msg: Value) {
        if msg.get("method").and_then(Value::as_str) == Some("notifications/progress") {
            let token = msg.pointer("/params/progressToken").map(id_key);
            let callback = token.and_then(|t| lock(&self.progress).get(&t).cloned());
            let params = msg.get("params").cloned().map(serde_json::from_value);
            if let (Some(f), Some(Ok(params))) = (callback, params) {
                f(params);
            }
        }
        match serde_json::from_value::<ServerNotification>(msg) {
            Ok(n) => self.emit(Event::Notification(Box::new(n))),
            Err(e) => tracing::debug!(error = %e, "notification not understood; ignored"),
        }
    }

    /// Routes one message from the server.
    pub(crate) fn on_message(self: &Arc<Self>, msg: Value) {
        match msg {
            Value::Array(batch) => {
                for m in batch {
                    self.on_message(m);
                }
            }
            Value::Object(ref m) if m.contains_key("method") => {
                if m.contains_key("id") {
                    let shared = self.clone();
                    tokio::spawn(async move {
                        let response = shared.server_requests.respond(msg).await;
                        if let Err(e) = shared.sink.send(response).await {
                            tracing::debug!(error = %e, "could not answer the server's request");
                        }
                    });
                } else {
                    self.on_notification(msg);
                }
            }
            Value::Object(ref m) if m.contains_key("id") => self.on_response(m),
            other => tracing::warn!(message = %other, "not a JSON-RPC message; ignored"),
        }
    }
}

/// Removes a request that ended without its answer (timed out, or its future dropped) and
/// tells the server with `notifications/cancelled` (both eras have it).
struct PendingGuard {
    shared: Arc<Shared>,
    key: String,
    id: Value,
    done: bool,
}

impl Drop for PendingGuard {
    fn drop(&mut self) {
        let was_pending = lock(&self.shared.pending).remove(&self.key).is_some();
        lock(&self.shared.progress).remove(&self.key);
        if self.done || !was_pending || self.shared.is_closed() {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let shared = self.shared.clone();
        let params = shared.with_envelope(Some(
            json!({"requestId": self.id, "reason": "cancelled by the client"}),
        ));
        rt.spawn(async move {
            let _ = shared.notify("notifications/cancelled", params).await;
        });
    }
}

/// Reads what the transport delivers until the connection closes.
pub(crate) async fn dispatch(shared: Arc<Shared>, mut inbound: mpsc::Receiver<Inbound>) {
    while let Some(item) = inbound.recv().await {
        match item {
            Inbound::Message(m) => shared.on_message(m),
            Inbound::Closed(e) => {
                shared.close(e);
                return;
            }
        }
    }
    shared.close(Error::Connection("the connection closed".into()));
}
