//! Where outgoing messages of a request or a connection go.

use tokio::sync::mpsc;

/// A destination for serialized JSON-RPC messages: a transport's writer (stdio), a
/// request's SSE stream, a session's GET stream — or nowhere, when the transport cannot carry
/// messages besides the response (an HTTP JSON response).
#[derive(Debug, Clone)]
pub(crate) enum Sink {
    Channel(mpsc::Sender<String>),
    Discard,
}

impl Sink {
    /// Sends one message, waiting while the destination is full (backpressure). A closed
    /// destination drops the message: the peer is gone.
    pub(crate) async fn send(&self, message: String) {
        if let Sink::Channel(tx) = self {
            let _ = tx.send(message).await;
        }
    }

    /// Whether messages sent here can reach the peer.
    pub(crate) fn is_connected(&self) -> bool {
        match self {
            Sink::Channel(tx) => !tx.is_closed(),
            Sink::Discard => false,
        }
    }
}
