//! Legacy sessions shared by several instances behind a load balancer: what a session needs
//! to continue on another instance is written to a [`SessionStore`] (Redis, with the
//! `redis` feature), and an instance that gets a request for a session it does not hold
//! restores it from there, without a new `initialize`.
//!
//! The hot path stays local: an instance that holds a session serves it from memory, and
//! writes it through only when it changed (initialize, log level, subscriptions). It
//! re-reads the shared record (which also refreshes its time to live) at most once per
//! [`HttpOptions::shared_session_recheck`](super::HttpOptions::shared_session_recheck), so
//! what another instance changed or deleted is seen here within that bound.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::response::Response;
use ferromcp_core::ProtocolVersion;
use ferromcp_core::jsonrpc::RequestId;
use ferromcp_core::types::{ClientCapabilities, Implementation};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::Principal;
use super::reply;
use super::service::Endpoint;
use super::session::{HttpSession, SharedStreams};
use crate::engine::seal::caller_binding;
use crate::peer::session::{Connection, LegacySession, Negotiated, Transport};
use crate::peer::sink::Sink;
use crate::store::{StoreError, StoreFuture};
use crate::sync::lock;

/// Where legacy sessions are shared between the instances of a server: a key-value store
/// with expiry, keyed by session id. The values are opaque to the store (a small JSON
/// record: the negotiated version, the client's capabilities and info, the log level, the
/// resource subscriptions, and a digest of the principal the session is bound to).
///
/// Every operation must finish in bounded time: an implementation puts a timeout on its
/// round trips and answers [`StoreError`] rather than wait for a store that is down.
pub trait SessionStore: Send + Sync + 'static {
    /// The record saved under `id`, its time to live reset to `ttl`; `None` if there is
    /// none (never saved, expired or removed).
    fn load<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, Option<String>>;
    /// Saves `record` under `id`, to expire after `ttl` unless loaded again.
    fn save<'a>(&'a self, id: &'a str, record: String, ttl: Duration) -> StoreFuture<'a, ()>;
    /// Removes the record saved under `id`, if any.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;

    /// Applies `write` to the stored SSE stream `stream` (a key the SDK makes from the
    /// session id and the stream's own id), to expire after `ttl` without writes. Events are
    /// written here before they are sent, so that a client can resume the stream on any
    /// instance. A store without it (this default) keeps streams resumable on the instance
    /// that holds them only.
    fn write_stream<'a>(
        &'a self,
        stream: &'a str,
        write: StreamWrite,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        let _ = (stream, write, ttl);
        Box::pin(async { Ok(()) })
    }

    /// The stored stream `stream` with its events after sequence number `after`, oldest
    /// first; `None` when there is no such stream (never written, expired, or the store
    /// keeps no streams).
    fn read_stream<'a>(
        &'a self,
        stream: &'a str,
        after: u64,
    ) -> StoreFuture<'a, Option<StoredStream>> {
        let _ = (stream, after);
        Box::pin(async { Ok(None) })
    }
}

/// Which kind of SSE stream a stored stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// A session's GET stream of server-initiated messages: resumed elsewhere, it goes on
    /// as that instance's stream.
    Standalone,
    /// The stream answering one POST: resumed elsewhere, it is followed until it ends.
    Response,
}

impl StreamKind {
    /// The marker a store may keep for the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamKind::Standalone => "@standalone",
            StreamKind::Response => "@response",
        }
    }

    /// The kind a marker names.
    pub fn parse(marker: &str) -> Option<StreamKind> {
        match marker {
            "@standalone" => Some(StreamKind::Standalone),
            "@response" => Some(StreamKind::Response),
            _ => None,
        }
    }
}

/// One write to a stored stream, applied in this order: the stream is opened, an event is
/// appended, the stream is finished.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct StreamWrite {
    /// The stream starts here, of this kind.
    pub opened: Option<StreamKind>,
    /// An event: its sequence number (from 1, increasing) and its SSE frame.
    pub event: Option<(u64, String)>,
    /// The stream has ended: no event follows.
    pub finished: bool,
}

/// A stream as a store keeps it: at most [`MAX_STORED_EVENTS`] of its latest events.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredStream {
    /// What kind of stream it is.
    pub kind: StreamKind,
    /// Events (sequence number, SSE frame), oldest first.
    pub events: Vec<(u64, String)>,
    /// Whether the stream has ended.
    pub finished: bool,
}

impl StoredStream {
    /// A stored stream.
    pub fn new(kind: StreamKind, events: Vec<(u64, String)>, finished: bool) -> StoredStream {
        StoredStream {
            kind,
            events,
            finished,
        }
    }
}

/// The most events a store keeps of one stream (the oldest go first), as an instance keeps
/// in memory.
pub const MAX_STORED_EVENTS: usize = super::resume::MAX_EVENTS;

/// How long a store keeps a stream once it has ended (at most): long enough for a client
/// to reconnect for its last events, short enough that finished response streams do not
/// pile up for the session's whole idle timeout.
pub const ENDED_STREAM_KEPT: Duration = Duration::from_secs(300);

/// A [`SessionStore`] in this process's memory: for tests, and for several endpoints
/// of one process (a real deployment shares a store between processes, such as
/// `RedisSessionStore`). Clones share their records; [`set_available`] simulates an outage.
///
/// [`set_available`]: MemorySessionStore::set_available
#[derive(Debug, Clone, Default)]
pub struct MemorySessionStore {
    inner: Arc<MemoryInner>,
}

#[derive(Debug, Default)]
struct MemoryInner {
    records: Mutex<HashMap<String, (String, Instant)>>,
    streams: Mutex<HashMap<String, (StoredStream, Instant)>>,
    unavailable: std::sync::atomic::AtomicBool,
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// While `false`, every operation fails as if the store could not be reached.
    pub fn set_available(&self, available: bool) {
        self.inner.unavailable.store(!available, Ordering::Relaxed);
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

    fn check(&self) -> Result<(), StoreError> {
        if self.inner.unavailable.load(Ordering::Relaxed) {
            Err(StoreError::Unavailable)
        } else {
            Ok(())
        }
    }
}

impl SessionStore for MemorySessionStore {
    fn load<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, Option<String>> {
        Box::pin(async move {
            self.check()?;
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
            self.check()?;
            lock(&self.inner.records).insert(id.to_owned(), (record, Instant::now() + ttl));
            Ok(())
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.check()?;
            lock(&self.inner.records).remove(id);
            Ok(())
        })
    }

    fn write_stream<'a>(
        &'a self,
        stream: &'a str,
        write: StreamWrite,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.check()?;
            let now = Instant::now();
            let mut streams = lock(&self.inner.streams);
            streams.retain(|_, (_, deadline)| *deadline > now);
            let entry = match (streams.get_mut(stream), write.opened) {
                (Some(entry), _) => entry,
                (None, Some(kind)) => streams
                    .entry(stream.to_owned())
                    .or_insert((StoredStream::new(kind, Vec::new(), false), now)),
                // Never opened, or expired: like Redis, the write makes no stream.
                (None, None) => return Ok(()),
            };
            if let Some(event) = write.event {
                entry.0.events.push(event);
                let extra = entry.0.events.len().saturating_sub(MAX_STORED_EVENTS);
                entry.0.events.drain(..extra);
            }
            entry.0.finished |= write.finished;
            entry.1 = now
                + if write.finished {
                    ttl.min(ENDED_STREAM_KEPT)
                } else {
                    ttl
                };
            Ok(())
        })
    }

    fn read_stream<'a>(
        &'a self,
        stream: &'a str,
        after: u64,
    ) -> StoreFuture<'a, Option<StoredStream>> {
        Box::pin(async move {
            self.check()?;
            let now = Instant::now();
            let streams = lock(&self.inner.streams);
            Ok(streams
                .get(stream)
                .filter(|(_, deadline)| *deadline > now)
                .map(|(s, _)| {
                    let events = s.events.iter().filter(|(n, _)| *n > after).cloned();
                    StoredStream::new(s.kind, events.collect(), s.finished)
                }))
        })
    }
}

/// What a shared store keeps of a legacy session.
#[derive(Debug, Serialize, Deserialize)]
struct SessionRecord {
    /// The negotiated protocol version.
    v: ProtocolVersion,
    /// The client's capabilities.
    caps: ClientCapabilities,
    /// The client's `clientInfo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    info: Option<Implementation>,
    /// The log level: 0 never set, otherwise level index + 1.
    #[serde(default)]
    log: u8,
    /// The resource subscriptions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    subs: Vec<String>,
    /// The principal it is bound to: SHA-256 of issuer and subject (never the names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
}

impl SessionRecord {
    fn of(legacy: &LegacySession, owner: Option<&Principal>) -> Option<SessionRecord> {
        let negotiated = legacy.negotiated()?;
        Some(SessionRecord {
            v: negotiated.version,
            caps: (*negotiated.capabilities).clone(),
            info: negotiated.client_info.as_deref().cloned(),
            log: legacy.log_level_raw(),
            subs: legacy.subscriptions(),
            owner: caller_binding(owner),
        })
    }
}

/// A session's standing with the shared store.
#[derive(Debug, Default)]
pub(crate) struct SharedMark {
    /// When the shared record was last read or written; `None`: read it before trusting
    /// the local copy.
    checked: Mutex<Option<Instant>>,
    /// The session's revision the shared record holds.
    saved: AtomicU64,
}

impl SharedMark {
    fn fresh(&self, window: Duration) -> bool {
        lock(&self.checked).is_some_and(|at| at.elapsed() < window)
    }

    fn checked_now(&self) {
        *lock(&self.checked) = Some(Instant::now());
    }

    fn forget(&self) {
        *lock(&self.checked) = None;
    }
}

/// `503` with `Retry-After`: the shared store is down.
fn unavailable(request: Option<&RequestId>, error: &StoreError) -> Response {
    tracing::warn!(%error, "a legacy request needs the shared session store, which failed");
    reply::busy(request, "the session store is unreachable; retry shortly")
}

impl Endpoint {
    fn shared_ttl(&self) -> Duration {
        self.options.session_idle_timeout
    }

    /// Where a new or restored session writes its stream events: the shared store, if any.
    pub(crate) fn shared_streams(&self) -> SharedStreams {
        self.options
            .shared
            .clone()
            .map(|store| (store, self.shared_ttl()))
    }

    /// The shared record of session `id` (its expiry reset); an unreadable one counts as
    /// none.
    #[allow(clippy::result_large_err)]
    async fn load_record(
        &self,
        shared: &dyn SessionStore,
        id: &str,
        request: Option<&RequestId>,
    ) -> Result<Option<SessionRecord>, Response> {
        match shared.load(id, self.shared_ttl()).await {
            Ok(Some(text)) => Ok(serde_json::from_str::<SessionRecord>(&text).ok()),
            Ok(None) => Ok(None),
            Err(e) => Err(unavailable(request, &e)),
        }
    }

    /// Checks a session this instance holds against the shared store, when its last check
    /// is older than the recheck window: another instance may have changed or ended it.
    #[allow(clippy::result_large_err)]
    pub(crate) async fn recheck(
        &self,
        shared: &dyn SessionStore,
        session: Arc<HttpSession>,
        request: Option<&RequestId>,
    ) -> Result<Arc<HttpSession>, Response> {
        if session.shared.fresh(self.options.shared_recheck) {
            return Ok(session);
        }
        let Some(record) = self.load_record(shared, session.id(), request).await? else {
            // Deleted or expired elsewhere.
            if let Some(gone) = self.store.remove(session.id()) {
                gone.end();
            }
            return Err(reply::session_not_found(request));
        };
        if let Some(legacy) = session.conn.session() {
            legacy.adopt(record.log, record.subs);
            session
                .shared
                .saved
                .store(legacy.revision(), Ordering::Release);
        }
        session.shared.checked_now();
        Ok(session)
    }

    /// The session `id` from the shared store, bound to the caller, now held here too.
    #[allow(clippy::result_large_err)]
    pub(crate) async fn restore(
        self: &Arc<Self>,
        shared: &dyn SessionStore,
        id: &str,
        caller: Option<&Principal>,
        request: Option<&RequestId>,
    ) -> Result<Arc<HttpSession>, Response> {
        let record = self.load_record(shared, id, request).await?;
        // Another principal's session is answered as an unknown one.
        let Some(record) = record.filter(|r| r.owner == caller_binding(caller)) else {
            return Err(reply::session_not_found(request));
        };
        // A concurrent request may have restored it meanwhile.
        if let Some(held) = self.store.get(id) {
            return Ok(held);
        }
        self.ensure_background();
        let conn = Arc::new(Connection::new(
            Sink::Discard,
            self.engine.config().client_request_timeout,
            Transport::Tcp,
        ));
        conn.decide(false);
        let Some(legacy) = conn.session() else {
            return Err(reply::session_not_found(request));
        };
        legacy.initialize(Negotiated {
            version: record.v,
            capabilities: Arc::new(record.caps),
            client_info: record.info.map(Arc::new),
        });
        #[cfg(feature = "otel")]
        if let Some(telemetry) = &self.engine.config().telemetry {
            // Held here from now on: it counts here, and its time here is recorded when it
            // ends here.
            legacy.set_telemetry(telemetry.session(record.v.as_str(), "tcp"));
        }
        legacy.adopt(record.log, record.subs);
        let session = Arc::new(HttpSession::restored(
            id.to_owned(),
            conn,
            caller.cloned().map(Arc::new),
            self.shared_streams(),
        ));
        session
            .shared
            .saved
            .store(legacy.revision(), Ordering::Release);
        session.shared.checked_now();
        self.store.insert(session.clone());
        Ok(session)
    }

    /// Writes a session through to the shared store if it changed since it was last
    /// written. On failure the session must be re-read before it is trusted again.
    pub(crate) async fn write_through(&self, session: &HttpSession) -> Result<(), StoreError> {
        let Some(shared) = self.options.shared.as_deref() else {
            return Ok(());
        };
        let Some(legacy) = session.conn.session() else {
            return Ok(());
        };
        let revision = legacy.revision();
        if revision == session.shared.saved.load(Ordering::Acquire) {
            return Ok(());
        }
        let Some(record) = SessionRecord::of(&legacy, session.principal()) else {
            return Ok(());
        };
        let text = serde_json::to_string(&record).map_err(StoreError::malformed)?;
        match shared.save(session.id(), text, self.shared_ttl()).await {
            Ok(()) => {
                session.shared.saved.store(revision, Ordering::Release);
                session.shared.checked_now();
                Ok(())
            }
            Err(e) => {
                session.shared.forget();
                Err(e)
            }
        }
    }

    /// [`write_through`](Self::write_through) for a request's answer: a failure replaces
    /// the answer with 503 (the client retries; the change is re-applied then).
    pub(crate) async fn persist(
        &self,
        session: &HttpSession,
        request: Option<&RequestId>,
        response: Response,
    ) -> Response {
        match self.write_through(session).await {
            Ok(()) => response,
            Err(e) => unavailable(request, &e),
        }
    }

    /// DELETE with a shared store: the shared record goes first, so no instance restores
    /// the session afterwards.
    pub(crate) async fn remove_shared(&self, id: &str) -> Result<(), Response> {
        match self.options.shared.as_deref() {
            Some(shared) => shared.remove(id).await.map_err(|e| unavailable(None, &e)),
            None => Ok(()),
        }
    }
}
