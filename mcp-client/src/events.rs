//! What the server tells the client unasked, as a bounded stream: [`Events`].

use ferromcp_core::types::ServerNotification;
use tokio::sync::broadcast;

/// Something that happened on the connection.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Event {
    /// A notification from the server: progress, a log message, a list that changed, a
    /// resource that was updated, a task's status…
    Notification(Box<ServerNotification>),
    /// The connection closed; every pending request failed with this reason.
    Closed {
        /// Why.
        reason: String,
    },
}

/// The client's events, in order, from the moment [`Client::events`](crate::Client::events)
/// was called.
///
/// The stream is bounded ([`ClientOptions::event_capacity`](crate::ClientOptions::event_capacity),
/// 1024 by default): a reader that falls behind a flood of notifications loses the *oldest*
/// ones, never grows memory; [`dropped`](Self::dropped) counts what it lost. Each reader has
/// its own position; one that lags does not slow the connection or other readers.
#[derive(Debug)]
pub struct Events {
    rx: broadcast::Receiver<Event>,
    dropped: u64,
}

impl Events {
    pub(crate) fn new(rx: broadcast::Receiver<Event>) -> Self {
        Events { rx, dropped: 0 }
    }

    /// The next event; `None` once the client is gone and every event was read.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            match self.rx.recv().await {
                Ok(e) => return Some(e),
                Err(broadcast::error::RecvError::Lagged(n)) => self.dropped += n,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// The next event if one is waiting, without waiting.
    pub fn try_next(&mut self) -> Option<Event> {
        loop {
            match self.rx.try_recv() {
                Ok(e) => return Some(e),
                Err(broadcast::error::TryRecvError::Lagged(n)) => self.dropped += n,
                Err(_) => return None,
            }
        }
    }

    /// How many events this reader lost because it fell behind (the oldest are dropped).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}
