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
            Sink::Routed(route) => route.send(message).await,
            Sink::Discard => {}
        }
    }

    /// Sends one message if the destination has room now; otherwise drops it (a route
    /// keeps it for later instead).
    pub(crate) fn try_send(&self, message: String) {
        match self {
            Sink::Channel(tx) | Sink::Closable(tx, _) => {
                let _ = tx.try_send(message);
            }
            Sink::Routed(route) => route.try_send(message),
            Sink::Discard => {}
        }
    }

    /// The channel behind a stream (not behind a route, nor nowhere).
    fn sender(&self) -> Option<&mpsc::Sender<String>> {
        match self {
            Sink::Channel(tx) | Sink::Closable(tx, _) => Some(tx),
            Sink::Routed(_) | Sink::Discard => None,
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

/// Messages a route holds while no stream is open; past this, the oldest notification
/// (else the oldest message) makes room.
const HELD_MAX: usize = 256;

/// Where a 2025-11-25 task's messages go once the request that started it has been
/// answered: to the stream of a `tasks/result` request waiting for the task, if one is
/// open; else to the connection's stream of the moment (stdout, or an HTTP session's GET
/// stream). While neither is open they are held, and the next `tasks/result` (or message
/// sent with a stream open) delivers them first — so an elicitation a task makes while the
/// client only polls reaches the client when it calls `tasks/result`, as the revision asks.
/// A message a stream did not take (closed, or full for `try_send`) is held again.
#[derive(Debug)]
pub(crate) struct Route {
    /// The connection's stream, which a new GET stream replaces.
    conn: Arc<Mutex<Sink>>,
    /// Under one lock, so that a message is never held while a stream it could take is
    /// being attached.
    state: Mutex<RouteState>,
}

#[derive(Debug, Default)]
struct RouteState {
    /// Streams of `tasks/result` requests waiting for the task.
    waiting: Vec<Sink>,
    held: VecDeque<String>,
}

impl RouteState {
    fn hold(&mut self, message: String) {
        self.held.push_back(message);
        self.trim();
    }

    /// Back to at most [`HELD_MAX`] held messages: the oldest notifications go first (a
    /// request for input is worth more than a status or progress notification).
    fn trim(&mut self) {
        let notification = |m: &String| m.starts_with(r#"{"jsonrpc":"2.0","method":"#);
        while self.held.len() > HELD_MAX {
            match self.held.iter().position(notification) {
                Some(i) => {
                    self.held.remove(i);
                }
                None => {
                    self.held.pop_front();
                }
            }
        }
    }
}

impl Route {
    pub(crate) fn new(conn: Arc<Mutex<Sink>>) -> Route {
        Route {
            conn,
            state: Mutex::new(RouteState::default()),
        }
    }

    /// The stream to send on now, with the held messages and then `message`; `None` when
    /// no stream is open (then `message` is held).
    fn deliver(&self, message: String) -> Option<(mpsc::Sender<String>, Vec<String>)> {
        let mut state = lock(&self.state);
        state.waiting.retain(Sink::is_connected);
        let target = match state.waiting.last().and_then(Sink::sender) {
            Some(tx) => Some(tx.clone()),
            None => {
                let conn = lock(&self.conn);
                conn.sender().filter(|tx| !tx.is_closed()).cloned()
            }
        };
        match target {
            Some(tx) => {
                let mut messages: Vec<String> = state.held.drain(..).collect();
                messages.push(message);
                Some((tx, messages))
            }
            None => {
                state.hold(message);
                None
            }
        }
    }

    /// Holds again, first in line and in order, what a stream did not take.
    fn hold_again(&self, unsent: Vec<String>) {
        if unsent.is_empty() {
            return;
        }
        let mut state = lock(&self.state);
        for message in unsent.into_iter().rev() {
            state.held.push_front(message);
        }
        state.trim();
    }

    async fn send(&self, message: String) {
        let Some((tx, messages)) = self.deliver(message) else {
            return;
        };
        let mut unsent = Vec::new();
        for message in messages {
            if let Err(mpsc::error::SendError(message)) = tx.send(message).await {
                unsent.push(message);
            }
        }
        self.hold_again(unsent);
    }

    fn try_send(&self, message: String) {
        let Some((tx, messages)) = self.deliver(message) else {
            return;
        };
        let mut unsent = Vec::new();
        for message in messages {
            match tx.try_send(message) {
                Ok(()) => {}
                Err(
                    mpsc::error::TrySendError::Full(message)
                    | mpsc::error::TrySendError::Closed(message),
                ) => unsent.push(message),
            }
        }
        self.hold_again(unsent);
    }

    /// A `tasks/result` request waits for the task on `sink`: from now on the task's
    /// messages go there, the held ones first.
    pub(crate) async fn attach(&self, sink: Sink) {
        let Some(tx) = sink.sender().filter(|tx| !tx.is_closed()).cloned() else {
            return;
        };
        let held: Vec<String> = {
            let mut state = lock(&self.state);
            state.waiting.push(sink);
            state.held.drain(..).collect()
        };
        let mut unsent = Vec::new();
        for message in held {
            if let Err(mpsc::error::SendError(message)) = tx.send(message).await {
                unsent.push(message);
            }
        }
        self.hold_again(unsent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(n: usize) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":"r{n}","method":"elicitation/create"}}"#)
    }

    fn notification(n: usize) -> String {
        format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"n":{n}}}}}"#)
    }

    #[tokio::test]
    async fn a_route_holds_until_a_stream_opens_and_drops_notifications_first() {
        let route = Route::new(Arc::new(Mutex::new(Sink::Discard)));
        route.send(request(0)).await;
        for n in 0..HELD_MAX + 10 {
            route.try_send(notification(n));
        }
        let (tx, mut rx) = mpsc::channel(1_000);
        route.attach(Sink::Channel(tx)).await;
        let mut got = Vec::new();
        while let Ok(m) = rx.try_recv() {
            got.push(m);
        }
        assert_eq!(got.len(), HELD_MAX);
        assert_eq!(got[0], request(0), "the request outlived the notifications");
        assert_eq!(
            got[1],
            notification(11),
            "the oldest notifications made room"
        );
        // Attached: the next message goes straight there.
        route.send(request(1)).await;
        assert_eq!(rx.try_recv().ok(), Some(request(1)));
    }

    #[tokio::test]
    async fn what_a_full_or_closed_stream_does_not_take_is_held_again() {
        let (tx, mut rx) = mpsc::channel(1);
        let route = Route::new(Arc::new(Mutex::new(Sink::Channel(tx))));
        route.try_send(request(0));
        route.try_send(request(1));
        assert_eq!(rx.try_recv().ok(), Some(request(0)));
        assert!(rx.try_recv().is_err(), "the second did not fit");
        // The next message delivers the held one first.
        route.try_send(request(2));
        assert_eq!(rx.try_recv().ok(), Some(request(1)));
        drop(rx);
        route.send(request(3)).await;
        let (tx, mut rx) = mpsc::channel(10);
        route.attach(Sink::Channel(tx)).await;
        assert_eq!(rx.try_recv().ok(), Some(request(2)));
        assert_eq!(rx.try_recv().ok(), Some(request(3)));
    }
}
