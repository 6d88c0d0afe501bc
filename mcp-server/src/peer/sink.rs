//! Where outgoing messages of a request or a connection go.

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

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
}

impl Sink {
    /// Sends one message, waiting while the destination is full (backpressure). A closed
    /// destination drops the message: the peer is gone.
    pub(crate) async fn send(&self, message: String) {
        if let Sink::Channel(tx) | Sink::Closable(tx, _) = self {
            let _ = tx.send(message).await;
        }
    }

    /// Sends one message if the destination has room now; otherwise drops it.
    pub(crate) fn try_send(&self, message: String) {
        if let Sink::Channel(tx) | Sink::Closable(tx, _) = self {
            let _ = tx.try_send(message);
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
            Sink::Discard => false,
        }
    }
}
