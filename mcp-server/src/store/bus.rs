//! [`NotificationBus`]: how the instances of a server tell each other what changed.

use tokio::sync::mpsc;

use super::StoreFuture;

/// Where the instances of a server tell each other what changed: what one instance's
/// registry announces (`list_changed`, `resources/updated`) and the changes of the tasks it
/// runs are published here, and every other instance announces them to the clients it
/// holds. The messages are opaque to the bus.
///
/// Every operation must finish in bounded time, and [`subscribe`](Self::subscribe)
/// reconnects by itself: a bus that is down costs notifications, never requests.
/// Delivery may be at most once.
pub trait NotificationBus: Send + Sync + 'static {
    /// Sends `message` to every instance subscribed (this one included).
    fn publish<'a>(&'a self, message: String) -> StoreFuture<'a, ()>;
    /// Hands every message published from now on to `messages`, reconnecting after
    /// failures, until `messages` is closed.
    fn subscribe<'a>(&'a self, messages: mpsc::Sender<String>) -> StoreFuture<'a, ()>;
}
