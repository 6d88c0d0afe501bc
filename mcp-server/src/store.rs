//! What every store has in common — the session store and notification bus of
//! [`http`](crate::http), the [`tasks`](crate::tasks) store: the future their operations
//! return and the error a backend answers with.

use std::error::Error;
use std::future::Future;
use std::pin::Pin;

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
