//! Where outgoing messages of a request or a connection go.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::sync::lock;

/// A destination for serialized JSON-RPC messages: a transport's writer (stdio), a
/// request's SSE stream, a session's GET stream — or nowhere, when the transport cannot carry
/// messages besides the response (an HTTP JSON response).
#[derive(Debug, Clone)]
pub(crate) enum Sink {
    Channel(mpsc::Sender<String>),
    /// A legacy HTTP response stream that the handler may close before its result
    /// (SSE polling, SEP-1699): the client reconnects and resumes it.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Closable(mpsc::Sender<String>, CancellationToken),
    Discard,
    /// A 2025-11-25 task's messages, sent after the request that started it was answered.
    Routed(Arc<Route>),
}

impl Sink {
    /// Sends one message, waiting while the destination is full (backpressure). A closed
    /// destination drops the message: the peer is gone.
    pub(crate) async fn send(&self, message: String) {
        match self {
            Sink::Channel(tx) | Sink::Closable(tx, _) => {
                let _ = tx.send(message).await;
            }
            Sink::Routed(route) => {
                if let Some((Sink::Channel(tx) | Sink::Closable(tx, _), messages)) =
                    route.deliver(message)
                {
                    for message in messages {
                        let _ = tx.send(message).await;
                    }
                }
            }
            Sink::Discard => {}
        }
    }

    /// Sends one message if the destination has room now; otherwise drops it.
    pub(crate) fn try_send(&self, message: String) {
        match self {
            Sink::Channel(tx) | Sink::Closable(tx, _) => {
                let _ = tx.try_send(message);
            }
            Sink::Routed(route) => {
                if let Some((Sink::Channel(tx) | Sink::Closable(tx, _), messages)) =
                    route.deliver(message)
                {
                    for message in messages {
                        let _ = tx.try_send(message);
                    }
                }
            }
            Sink::Discard => {}
        }
    }

    /// Closes the transport stream now, if it can be closed early and resumed.
    pub(crate) fn close_stream(&self) {
        if let Sink::Closable(_, close) = self {
            close.cancel();
        }
    }

    /// Whether messages sent here can reach the peer.
    pub(crate) fn is_connected(&self) -> bool {
        match self {
            Sink::Channel(tx) | Sink::Closable(tx, _) => !tx.is_closed(),
            // A route holds its messages until a stream opens.
            Sink::Routed(_) => true,
            Sink::Discard => false,
        }
    }
}

/// Messages a route holds while no stream is open; past this the oldest are dropped.
const HELD_MAX: usize = 64;

/// Where a 2025-11-25 task's messages go once the request that started it has been
/// answered: to the stream of a `tasks/result` request waiting for the task, if one is
/// open; else to the connection's stream of the moment (stdout, or an HTTP session's GET
/// stream). While neither is open they are held, and the next `tasks/result` (or message
/// sent with a stream open) delivers them first — so an elicitation a task makes while the
/// client only polls reaches the client when it calls `tasks/result`, as the revision asks.
#[derive(Debug)]
pub(crate) struct Route {
    /// The connection's stream, which a new GET stream replaces.
    conn: Arc<Mutex<Sink>>,
    /// Streams of `tasks/result` requests waiting for the task.
    waiting: Mutex<Vec<Sink>>,
    held: Mutex<VecDeque<String>>,
}

impl Route {
    pub(crate) fn new(conn: Arc<Mutex<Sink>>) -> Route {
        Route {
            conn,
            waiting: Mutex::new(Vec::new()),
            held: Mutex::new(VecDeque::new()),
        }
    }

    /// The open stream to send on now, if any.
    fn target(&self) -> Option<Sink> {
        let mut waiting = lock(&self.waiting);
        waiting.retain(Sink::is_connected);
        if let Some(sink) = waiting.last() {
            return Some(sink.clone());
        }
        let conn = lock(&self.conn).clone();
        conn.is_connected().then_some(conn)
    }

    fn hold(&self, message: String) {
        let mut held = lock(&self.held);
        if held.len() == HELD_MAX {
            held.pop_front();
        }
        held.push_back(message);
    }

    /// Where `message` goes now, with the held messages before it; `None` when it is held.
    fn deliver(&self, message: String) -> Option<(Sink, Vec<String>)> {
        match self.target() {
            Some(sink) => {
                let mut messages: Vec<String> = std::mem::take(&mut *lock(&self.held)).into();
                messages.push(message);
                Some((sink, messages))
            }
            None => {
                self.hold(message);
                None
            }
        }
    }

    /// A `tasks/result` request waits for the task on `sink`: the held messages go there
    /// now, and the task's next ones too while it stays open.
    pub(crate) async fn attach(&self, sink: Sink) {
        if !sink.is_connected() || matches!(sink, Sink::Routed(_)) {
            return;
        }
        let held = std::mem::take(&mut *lock(&self.held));
        for message in held {
            sink.send(message).await;
        }
        lock(&self.waiting).push(sink);
    }
}
