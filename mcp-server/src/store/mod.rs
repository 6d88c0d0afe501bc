//! The stores a server keeps its state in, and what they have in common. A leaf of the
//! crate: no transport, no HTTP types, so that a store can be written (as `ferromcp-redis`
//! writes its Redis ones) against this module alone.
//!
//! | trait | what it keeps | in this process |
//! | --- | --- | --- |
//! | [`SessionStore`] | legacy HTTP sessions shared by several instances | [`MemorySessionStore`] |
//! | [`EventStore`] | the events of legacy SSE streams, so any instance resumes them | [`MemoryEventStore`] |
//! | [`TaskStore`] | tasks, so any instance answers `tasks/*` | [`MemoryTaskStore`] |
//! | [`NotificationBus`] | change notifications between instances | (none: one process has no one to tell) |
//!
//! Every operation returns a [`StoreFuture`] and fails with a [`StoreError`] (tasks: a
//! [`TaskStoreError`], which wraps it).

use std::error::Error;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

mod bus;
mod event;
mod session;
mod task;

pub use bus::NotificationBus;
pub use event::{
    ENDED_STREAM_KEPT, EventStore, MAX_STORED_EVENTS, MemoryEventStore, StoredStream, StreamKind,
    StreamWrite,
};
pub use session::{MemorySessionStore, SessionStore};
pub use task::{MemoryTaskStore, TaskOutcome, TaskPage, TaskRecord, TaskStore, TaskStoreError};

/// The future a store operation returns: boxed, so that the store traits stay object safe.
///
/// # Examples
///
/// ```
/// use ferromcp::store::{StoreError, StoreFuture};
///
/// fn ping<'a>() -> StoreFuture<'a, ()> {
///     Box::pin(async { Ok::<(), StoreError>(()) })
/// }
/// # drop(ping());
/// ```
pub type StoreFuture<'a, T, E = StoreError> =
    Pin<Box<dyn Future<Output = Result<T, E>> + Send + 'a>>;

/// A store could not be reached or answered wrongly. Over HTTP, the requests that need the
/// session store are then answered `503 Service Unavailable` with `Retry-After`.
///
/// # Examples
///
/// ```
/// use ferromcp::store::StoreError;
///
/// let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
/// let error = StoreError::backend(refused);
/// assert!(matches!(error, StoreError::Backend(_)));
/// assert!(std::error::Error::source(&error).is_some());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store did not answer in time.
    #[error("the store did not answer in time")]
    Timeout,
    /// The store refuses requests for now (a store that is switched off, or draining).
    #[error("the store is unavailable")]
    Unavailable,
    /// A stored record does not read back (written by another version, or damaged).
    #[error("a stored record is malformed")]
    Malformed(#[source] Box<dyn Error + Send + Sync>),
    /// The store's client or server failed.
    #[error("the store's backend failed")]
    Backend(#[source] Box<dyn Error + Send + Sync>),
}

impl StoreError {
    /// A failure of the store's client or server, with its cause.
    pub fn backend(cause: impl Into<Box<dyn Error + Send + Sync>>) -> StoreError {
        StoreError::Backend(cause.into())
    }

    /// A stored record that does not read back, with what is wrong with it.
    pub fn malformed(cause: impl Into<Box<dyn Error + Send + Sync>>) -> StoreError {
        StoreError::Malformed(cause.into())
    }
}

/// The stores that the instances of a server share (one of each trait above), as a
/// backend connects them: what `ferromcp_redis::connect` returns, and what a server started
/// by `ferromcp::run` with `--redis URL` uses when its runner was given such a `connect`
/// (`Runner::shared_stores`).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use ferromcp::store::{
///     MemoryEventStore, MemorySessionStore, MemoryTaskStore, NotificationBus, SharedStores,
///     StoreFuture,
/// };
///
/// /// A bus with no one to tell.
/// struct Alone;
///
/// impl NotificationBus for Alone {
///     fn publish<'a>(&'a self, _: String) -> StoreFuture<'a, ()> {
///         Box::pin(async { Ok(()) })
///     }
///     fn subscribe<'a>(
///         &'a self,
///         messages: tokio::sync::mpsc::Sender<String>,
///     ) -> StoreFuture<'a, ()> {
///         Box::pin(async move { Ok(messages.closed().await) })
///     }
/// }
///
/// let stores = SharedStores::new(
///     Arc::new(MemorySessionStore::new()),
///     Arc::new(MemoryEventStore::new()),
///     Arc::new(Alone),
///     Arc::new(MemoryTaskStore::new(1_000)),
/// );
/// # let _ = stores;
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct SharedStores {
    /// Where legacy sessions are kept.
    pub sessions: Arc<dyn SessionStore>,
    /// Where the events of legacy SSE streams are kept.
    pub events: Arc<dyn EventStore>,
    /// Where change notifications are published.
    pub bus: Arc<dyn NotificationBus>,
    /// Where tasks are kept (a [`TaskStore`] itself: `Arc<dyn TaskStore>` is one).
    pub tasks: Arc<dyn TaskStore>,
}

impl SharedStores {
    /// The four stores, one of each kind.
    pub fn new(
        sessions: Arc<dyn SessionStore>,
        events: Arc<dyn EventStore>,
        bus: Arc<dyn NotificationBus>,
        tasks: Arc<dyn TaskStore>,
    ) -> SharedStores {
        SharedStores {
            sessions,
            events,
            bus,
            tasks,
        }
    }
}

impl std::fmt::Debug for SharedStores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStores").finish_non_exhaustive()
    }
}

/// The switch of a memory store that simulates an outage.
#[derive(Debug, Default)]
struct Outage(AtomicBool);

impl Outage {
    fn set_available(&self, available: bool) {
        self.0.store(!available, Ordering::Relaxed);
    }

    fn check(&self) -> Result<(), StoreError> {
        if self.0.load(Ordering::Relaxed) {
            Err(StoreError::Unavailable)
        } else {
            Ok(())
        }
    }
}
