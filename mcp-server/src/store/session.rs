//! [`SessionStore`]: legacy HTTP sessions shared by the instances of a server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::{Outage, StoreFuture};
use crate::sync::lock;

/// Where legacy sessions are shared between the instances of a server: a key-value store
/// with expiry, keyed by session id. The values are opaque to the store (a small JSON
/// record: the negotiated version, the client's capabilities and info, the log level, the
/// resource subscriptions, and a digest of the principal the session is bound to).
///
/// Every operation must finish in bounded time: an implementation puts a timeout on its
/// round trips and answers [`StoreError`](super::StoreError) rather than wait for a store
/// that is down.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use ferromcp::store::{MemorySessionStore, SessionStore};
///
/// # tokio_test();
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn tokio_test() {
/// let store = MemorySessionStore::new();
/// let ttl = Duration::from_secs(60);
/// store.save("s1", "{}".into(), ttl).await.unwrap();
/// assert_eq!(store.load("s1", ttl).await.unwrap().as_deref(), Some("{}"));
/// store.remove("s1").await.unwrap();
/// assert_eq!(store.load("s1", ttl).await.unwrap(), None);
/// # }
/// ```
pub trait SessionStore: Send + Sync + 'static {
    /// The record saved under `id`, its time to live reset to `ttl`; `None` if there is
    /// none (never saved, expired or removed).
    fn load<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, Option<String>>;
    /// Saves `record` under `id`, to expire after `ttl` unless loaded again.
    fn save<'a>(&'a self, id: &'a str, record: String, ttl: Duration) -> StoreFuture<'a, ()>;
    /// Removes the record saved under `id`, if any.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;
}

/// A [`SessionStore`] in this process's memory: for tests, and for several endpoints
/// of one process (a real deployment shares a store between processes, such as
/// `ferromcp_redis::RedisSessionStore`). Clones share their records; [`set_available`]
/// simulates an outage. Time to live is counted on tokio's clock (a test's paused runtime
/// moves it).
///
/// [`set_available`]: MemorySessionStore::set_available
#[derive(Debug, Clone, Default)]
pub struct MemorySessionStore {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    records: Mutex<HashMap<String, (String, Instant)>>,
    outage: Outage,
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// While `false`, every operation fails as if the store could not be reached.
    pub fn set_available(&self, available: bool) {
        self.inner.outage.set_available(available);
    }

    /// How many unexpired records the store holds.
    pub fn len(&self) -> usize {
        let now = Instant::now();
        lock(&self.inner.records)
            .values()
            .filter(|(_, deadline)| *deadline > now)
            .count()
    }

    /// Whether the store holds no unexpired record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl SessionStore for MemorySessionStore {
    fn load<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, Option<String>> {
        Box::pin(async move {
            self.inner.outage.check()?;
            let now = Instant::now();
            let mut records = lock(&self.inner.records);
            match records.get_mut(id) {
                Some((record, deadline)) if *deadline > now => {
                    *deadline = now + ttl;
                    Ok(Some(record.clone()))
                }
                Some(_) => {
                    records.remove(id);
                    Ok(None)
                }
                None => Ok(None),
            }
        })
    }

    fn save<'a>(&'a self, id: &'a str, record: String, ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.inner.outage.check()?;
            lock(&self.inner.records).insert(id.to_owned(), (record, Instant::now() + ttl));
            Ok(())
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.inner.outage.check()?;
            lock(&self.inner.records).remove(id);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreError;

    #[tokio::test(start_paused = true)]
    async fn records_expire_unless_loaded_and_outages_fail() {
        let store = MemorySessionStore::new();
        let ttl = Duration::from_secs(10);
        store.save("a", "r".into(), ttl).await.unwrap();
        tokio::time::advance(Duration::from_secs(9)).await;
        assert!(
            store.load("a", ttl).await.unwrap().is_some(),
            "a load renews"
        );
        tokio::time::advance(Duration::from_secs(9)).await;
        assert_eq!(store.len(), 1);
        tokio::time::advance(Duration::from_secs(2)).await;
        assert_eq!(store.load("a", ttl).await.unwrap(), None);
        store.set_available(false);
        assert!(matches!(
            store.save("b", "r".into(), ttl).await,
            Err(StoreError::Unavailable)
        ));
    }
}
