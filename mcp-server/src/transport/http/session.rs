//! Legacy-era HTTP sessions (`Mcp-Session-Id`): unguessable ids, an idle timeout, a cap on
//! live sessions, and binding to the authenticated principal.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

// tokio's clock, so tests can move it (a paused runtime) instead of sleeping.
use tokio::time::Instant;

use base64::Engine as _;

use super::resume::{EventLog, SharedEvents};
use crate::custom::NoticeLimit;
use crate::peer::session::Connection;
use crate::peer::sink::Sink;
use crate::principal::Principal;
use crate::store::EventStore;
use crate::sync::lock;

/// One live legacy session.
pub struct HttpSession {
    id: String,
    pub(crate) conn: Arc<Connection>,
    principal: Option<Arc<Principal>>,
    last_seen: Mutex<Instant>,
    pub(crate) events: EventLog,
    /// The session's span (`mcp.session.id`): the parent of its requests' spans.
    pub(crate) span: tracing::Span,
    /// Its standing with the shared session store, when there is one.
    pub(crate) shared: SharedMark,
    /// The bound on its notification handlers running at once, made at its first
    /// notification: a session's flood takes no place of another's.
    notices: OnceLock<NoticeLimit>,
}

impl std::fmt::Debug for HttpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSession")
            .field(
                "subject",
                &self.principal.as_deref().map(Principal::subject),
            )
            .finish_non_exhaustive()
    }
}

/// An event store and the time its stream events live (the session idle timeout).
pub(crate) type SharedStreams = Option<(Arc<dyn EventStore>, Duration)>;

impl HttpSession {
    pub(crate) fn new(
        conn: Arc<Connection>,
        principal: Option<Arc<Principal>>,
        shared: SharedStreams,
    ) -> HttpSession {
        HttpSession::restored(new_session_id(), conn, principal, shared)
    }

    /// A session minted elsewhere (by another instance sharing the session store).
    pub(crate) fn restored(
        id: String,
        conn: Arc<Connection>,
        principal: Option<Arc<Principal>>,
        shared: SharedStreams,
    ) -> HttpSession {
        conn.set_session_id(&id);
        let events = EventLog::with_shared(shared.map(|(store, ttl)| SharedEvents {
            store,
            session: id.clone(),
            ttl,
        }));
        HttpSession {
            span: tracing::info_span!("mcp.session", mcp.session.id = %id, network.transport = "tcp"),
            id,
            conn,
            principal,
            last_seen: Mutex::new(Instant::now()),
            events,
            shared: SharedMark::default(),
            notices: OnceLock::new(),
        }
    }

    /// The bound on this session's notification handlers: `max` at once (the first call's).
    pub(crate) fn notices(&self, max: usize) -> &NoticeLimit {
        self.notices.get_or_init(|| NoticeLimit::new(max))
    }

    /// The session id (`Mcp-Session-Id`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The principal the session belongs to, when authentication is on.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_deref()
    }

    /// When the client last used the session.
    pub fn last_seen(&self) -> Instant {
        *lock(&self.last_seen)
    }

    /// Whether this session's SSE streams start with a priming event (an id and a retry
    /// delay, before any message): for clients of 2025-11-25 and later.
    pub(crate) fn primes_streams(&self) -> bool {
        self.conn
            .session()
            .and_then(|s| s.negotiated())
            .is_some_and(|n| n.version >= ferromcp_core::ProtocolVersion::V2025_11_25)
    }

    pub(crate) fn touch(&self) {
        *lock(&self.last_seen) = Instant::now();
    }

    /// Ends the session: requests in flight are cancelled, its streams close.
    pub(crate) fn end(&self) {
        self.conn.abort();
        self.conn.set_sink(Sink::Discard);
    }
}

/// A session's standing with the shared store.
#[derive(Debug, Default)]
pub(crate) struct SharedMark {
    /// When the shared record was last read or written; `None`: read it before trusting
    /// the local copy.
    pub(crate) checked: Mutex<Option<Instant>>,
    /// The session's revision the shared record holds.
    pub(crate) saved: AtomicU64,
}

impl SharedMark {
    pub(crate) fn fresh(&self, window: Duration) -> bool {
        lock(&self.checked).is_some_and(|at| at.elapsed() < window)
    }

    pub(crate) fn checked_now(&self) {
        *lock(&self.checked) = Some(Instant::now());
    }

    pub(crate) fn forget(&self) {
        *lock(&self.checked) = None;
    }
}

/// 256 bits from the OS CSPRNG, base64url: visible ASCII only, never guessable.
fn new_session_id() -> String {
    let mut bytes = [0u8; 32];
    if getrandom::fill(&mut bytes).is_err() {
        // Without OS randomness a session id could be guessed; refuse to pretend otherwise.
        tracing::error!("the OS random number generator failed; session ids are weak");
        let seed = format!("{:?}{:p}", Instant::now(), &bytes);
        bytes.copy_from_slice(&<sha2::Sha256 as sha2::Digest>::digest(seed.as_bytes()));
    }
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Where live sessions are kept. The in-memory store is the default; a shared store lets
/// several instances behind a load balancer recognize each other's sessions.
pub trait LiveSessionStore: Send + Sync + 'static {
    /// Keeps a new session; may end and drop another to respect a cap.
    fn insert(&self, session: Arc<HttpSession>);
    /// The live session with this id; an expired one is ended, dropped and not returned.
    fn get(&self, id: &str) -> Option<Arc<HttpSession>>;
    /// Drops the session with this id, returning it.
    fn remove(&self, id: &str) -> Option<Arc<HttpSession>>;
    /// Every live session.
    fn sessions(&self) -> Vec<Arc<HttpSession>>;
    /// Ends and drops every session idle for longer than the idle timeout.
    fn sweep(&self);
}

/// Sessions in this process's memory, with an idle timeout and a cap: at the cap, a new
/// session evicts the one used least recently (which then gets 404 on its next request).
#[derive(Debug)]
pub struct MemoryLiveSessionStore {
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    idle_timeout: Duration,
    max_sessions: usize,
}

impl MemoryLiveSessionStore {
    /// A store whose sessions expire after `idle_timeout` unused, holding at most
    /// `max_sessions`.
    pub fn new(idle_timeout: Duration, max_sessions: usize) -> Self {
        MemoryLiveSessionStore {
            sessions: Mutex::new(HashMap::new()),
            idle_timeout,
            max_sessions: max_sessions.max(1),
        }
    }

    /// How many sessions are live.
    pub fn len(&self) -> usize {
        lock(&self.sessions).len()
    }

    /// Whether no session is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl LiveSessionStore for MemoryLiveSessionStore {
    fn insert(&self, session: Arc<HttpSession>) {
        let mut map = lock(&self.sessions);
        while map.len() >= self.max_sessions {
            let oldest = map
                .iter()
                .min_by_key(|(_, s)| s.last_seen())
                .map(|(id, _)| id.clone());
            match oldest.and_then(|id| map.remove(&id)) {
                Some(evicted) => {
                    tracing::info!("session cap reached; evicting the least recently used session");
                    evicted.end();
                }
                None => break,
            }
        }
        map.insert(session.id().to_owned(), session);
    }

    fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        let mut map = lock(&self.sessions);
        let session = map.get(id)?.clone();
        if session.last_seen().elapsed() > self.idle_timeout {
            map.remove(id);
            drop(map);
            session.end();
            return None;
        }
        session.touch();
        Some(session)
    }

    fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        lock(&self.sessions).remove(id)
    }

    fn sessions(&self) -> Vec<Arc<HttpSession>> {
        lock(&self.sessions).values().cloned().collect()
    }

    fn sweep(&self) {
        let expired: Vec<Arc<HttpSession>> = {
            let mut map = lock(&self.sessions);
            let ids: Vec<String> = map
                .iter()
                .filter(|(_, s)| s.last_seen().elapsed() > self.idle_timeout)
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| map.remove(id)).collect()
        };
        for session in expired {
            session.end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peer::session::Transport;

    fn session() -> Arc<HttpSession> {
        Arc::new(HttpSession::new(
            Arc::new(Connection::new(
                Sink::Discard,
                Duration::from_secs(1),
                Transport::Tcp,
            )),
            None,
            None,
        ))
    }

    #[test]
    fn ids_are_long_visible_ascii_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..10_000 {
            let id = new_session_id();
            assert_eq!(id.len(), 43);
            assert!(id.bytes().all(|b| (0x21..=0x7e).contains(&b)));
            assert!(seen.insert(id));
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_cap_evicts_the_least_recently_used() {
        let store = MemoryLiveSessionStore::new(Duration::from_secs(60), 2);
        let a = session();
        store.insert(a.clone());
        tokio::time::advance(Duration::from_secs(1)).await;
        let b = session();
        store.insert(b.clone());
        tokio::time::advance(Duration::from_secs(1)).await;
        let c = session();
        assert!(store.get(a.id()).is_some(), "touching a makes b the oldest");
        store.insert(c.clone());
        assert_eq!(store.len(), 2);
        assert!(store.get(b.id()).is_none());
        assert!(store.get(a.id()).is_some() && store.get(c.id()).is_some());
    }

    #[tokio::test(start_paused = true)]
    async fn idle_sessions_expire() {
        let store = MemoryLiveSessionStore::new(Duration::from_secs(60), 10);
        let a = session();
        store.insert(a.clone());
        tokio::time::advance(Duration::from_secs(59)).await;
        assert!(
            store.get(a.id()).is_some(),
            "used within the timeout: kept, and touched"
        );
        tokio::time::advance(Duration::from_secs(61)).await;
        assert!(store.get(a.id()).is_none(), "idle past the timeout: gone");
        let b = session();
        store.insert(b);
        tokio::time::advance(Duration::from_secs(30)).await;
        store.sweep();
        assert_eq!(store.len(), 1, "not idle long enough to be swept");
        tokio::time::advance(Duration::from_secs(31)).await;
        store.sweep();
        assert!(store.is_empty());
    }
}
