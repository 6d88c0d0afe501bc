//! Per-connection state: the era a connection speaks, the requests in flight (for
//! cancellation), and for the legacy era the session — negotiated version, client
//! capabilities, log level, resource subscriptions, and the server-to-client requests
//! awaiting an answer.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferromcp_core::ProtocolVersion;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{RequestId, WireRequest};
use ferromcp_core::types::{ClientCapabilities, Implementation, LoggingLevel};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::data::SessionSlots;
use super::outbound::OutboundError;
use super::sink::Sink;
use crate::observe::{
    ClientOutcome, ClientRequestInfo, ConnectionFacts, Guard, Observer, SessionInfo,
};
use crate::sync::lock;
use foldhash::fast::RandomState as MapHasher;

/// What a legacy client told us in `initialize`.
#[derive(Debug, Clone)]
pub(crate) struct Negotiated {
    pub(crate) version: ProtocolVersion,
    pub(crate) capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
}

/// A legacy-era session.
#[derive(Debug)]
pub(crate) struct LegacySession {
    negotiated: Mutex<Option<Negotiated>>,
    /// The negotiated revision's place in [`ProtocolVersion::ALL`] plus one, 0 before
    /// `initialize`: what the observer reads on every request, without the lock.
    version: AtomicU8,
    /// 0: `logging/setLevel` never called (everything is sent); otherwise level index + 1.
    log_level: AtomicU8,
    subscriptions: Mutex<HashSet<String>>,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>,
    next_id: AtomicI64,
    closed: CancellationToken,
    request_timeout: Duration,
    /// Unique in the process: the owner of the session's tasks, unless it has an HTTP
    /// session id (`owner`).
    key: u64,
    /// The HTTP session id, the same on every instance that serves the session: the owner
    /// of its tasks in a store those instances share.
    owner: std::sync::OnceLock<String>,
    /// Bumped by every change a shared session store must see (initialize, log level,
    /// subscriptions): the HTTP layer writes the session through when it moved.
    revision: AtomicU64,
    /// What the session reports to, once it is initialized.
    observed: std::sync::OnceLock<Observed>,
    /// The server's own per-session values (`SessionState`).
    data: SessionSlots,
}

/// A session's observer, the transport it is reached by, and the observer's guard, held
/// while the session lives.
struct Observed {
    observer: Arc<dyn Observer>,
    transport: Transport,
    _guard: Option<Guard>,
}

impl std::fmt::Debug for Observed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observed")
            .field("transport", &self.transport)
            .finish_non_exhaustive()
    }
}

impl LegacySession {
    pub(crate) fn new(request_timeout: Duration) -> LegacySession {
        static NEXT_KEY: AtomicU64 = AtomicU64::new(0);
        LegacySession {
            key: NEXT_KEY.fetch_add(1, Ordering::Relaxed),
            owner: std::sync::OnceLock::new(),
            negotiated: Mutex::new(None),
            version: AtomicU8::new(0),
            log_level: AtomicU8::new(0),
            subscriptions: Mutex::new(HashSet::new()),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(0),
            closed: CancellationToken::new(),
            request_timeout,
            revision: AtomicU64::new(0),
            observed: std::sync::OnceLock::new(),
            data: SessionSlots::default(),
        }
    }

    /// Reports the session, once it is initialized, to `observer`, which then hears of
    /// the requests it sends the client.
    pub(crate) fn observe(
        &self,
        observer: &Arc<dyn Observer>,
        version: ProtocolVersion,
        transport: Transport,
    ) {
        let _ = self.observed.get_or_init(|| Observed {
            _guard: observer.on_session(&SessionInfo { version, transport }),
            observer: observer.clone(),
            transport,
        });
    }

    // HTTP only (shared session stores).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    /// How many times the session's shareable state changed.
    pub(crate) fn revision(&self) -> u64 {
        self.revision.load(Ordering::Acquire)
    }

    /// Records a change a shared session store must see.
    pub(crate) fn changed(&self) {
        self.revision.fetch_add(1, Ordering::AcqRel);
    }

    /// The server's own per-session values.
    pub(crate) fn data(&self) -> &SessionSlots {
        &self.data
    }

    /// The HTTP session id, where the session has one.
    pub(crate) fn http_id(&self) -> Option<&str> {
        self.owner.get().map(String::as_str)
    }

    // HTTP only (shared session stores).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    /// The log level as stored: 0 for never set, otherwise level index + 1.
    pub(crate) fn log_level_raw(&self) -> u8 {
        self.log_level.load(Ordering::Relaxed)
    }

    // HTTP only (shared session stores).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    /// The resource subscriptions, sorted.
    pub(crate) fn subscriptions(&self) -> Vec<String> {
        let mut uris: Vec<String> = lock(&self.subscriptions).iter().cloned().collect();
        uris.sort_unstable();
        uris
    }

    // HTTP only (shared session stores).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    /// Takes the log level and subscriptions another instance recorded (not a change to
    /// write back).
    pub(crate) fn adopt(&self, log_level_raw: u8, subscriptions: Vec<String>) {
        let raw = if usize::from(log_level_raw) <= LoggingLevel::ALL.len() {
            log_level_raw
        } else {
            0
        };
        self.log_level.store(raw, Ordering::Relaxed);
        *lock(&self.subscriptions) = subscriptions.into_iter().collect();
    }

    /// Who the session's tasks belong to: no other session sees them.
    /// Who the session's tasks belong to: its HTTP session id where it has one (so every
    /// instance serving the session agrees), else its key in this process, tagged with the
    /// process's own random tag (so no two processes sharing a task store agree).
    pub(crate) fn task_owner(&self) -> String {
        if let Some(id) = self.owner.get() {
            return format!("session {id}");
        }
        static PROCESS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        let process = PROCESS.get_or_init(|| {
            let mut bytes = [0u8; 8];
            if getrandom::fill(&mut bytes).is_err() {
                tracing::warn!(
                    "the OS random number generator failed; task owners are per process only"
                );
            }
            bytes.iter().map(|b| format!("{b:02x}")).collect()
        });
        format!("session {process}-{}", self.key)
    }

    pub(crate) fn negotiated(&self) -> Option<Negotiated> {
        lock(&self.negotiated).clone()
    }

    /// The negotiated revision, without the lock or cloning the rest.
    pub(crate) fn negotiated_version(&self) -> Option<ProtocolVersion> {
        let at = usize::from(self.version.load(Ordering::Acquire));
        at.checked_sub(1)
            .and_then(|i| ProtocolVersion::ALL.get(i).copied())
    }

    /// Records the outcome of `initialize`; false if the session was already initialized.
    pub(crate) fn initialize(&self, negotiated: Negotiated) -> bool {
        let mut slot = lock(&self.negotiated);
        if slot.is_some() {
            return false;
        }
        if let Some(at) = ProtocolVersion::ALL
            .iter()
            .position(|v| *v == negotiated.version)
        {
            self.version
                .store(u8::try_from(at + 1).unwrap_or(0), Ordering::Release);
        }
        *slot = Some(negotiated);
        self.changed();
        true
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        let index = LoggingLevel::ALL
            .iter()
            .position(|l| *l == level)
            .unwrap_or(0);
        self.log_level
            .store(u8::try_from(index + 1).unwrap_or(1), Ordering::Relaxed);
        self.changed();
    }

    pub(crate) fn log_enabled(&self, level: LoggingLevel) -> bool {
        match self.log_level.load(Ordering::Relaxed) {
            0 => true,
            n => LoggingLevel::ALL
                .get(usize::from(n - 1))
                .is_none_or(|min| level >= *min),
        }
    }

    pub(crate) fn subscribe(&self, uri: &str) {
        if lock(&self.subscriptions).insert(uri.to_owned()) {
            self.changed();
        }
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        if lock(&self.subscriptions).remove(uri) {
            self.changed();
        }
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Sends a request to the client over `sink` and waits for its answer, the request's
    /// cancellation, the session's end, or the timeout.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Value,
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Result<Value, OutboundError> {
        if !sink.is_connected() {
            return Err(OutboundError::Disconnected);
        }
        let id = RequestId::String(format!(
            "ferromcp-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed)
        ));
        // An observed request may carry its own trace context; otherwise, inside a traced
        // request, it carries that request's.
        let observed = self.observed.get();
        let outgoing = observed.and_then(|o| {
            o.observer.on_client_request(&ClientRequestInfo {
                method,
                id: &id,
                session_id: self.owner.get().map(String::as_str),
                version: self.negotiated_version(),
                transport: o.transport,
            })
        });
        let meta = match &outgoing {
            Some(outgoing) => outgoing.meta(),
            None => None,
        }
        .or_else(|| observed.and_then(|o| o.observer.message_meta()));
        let params = match meta {
            Some(meta) => {
                let mut params = params;
                crate::observe::add_meta(&mut params, meta);
                params
            }
            None => params,
        };
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let text =
            ferromcp_core::jsonrpc::to_string(&WireRequest::new(id.clone(), method, Some(&params)))
                .map_err(OutboundError::InvalidResponse)?;
        sink.send(text).await;
        // If this future is dropped (the handler was cancelled) or gives up waiting, the
        // client is told to stop working on the request.
        let mut guard = Abandon {
            session: self,
            id: id.clone(),
            sink: sink.clone(),
            answered: false,
        };
        let outcome = tokio::select! {
            r = rx => match r {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(e)) => Err(OutboundError::Client(e)),
                Err(_) => Err(OutboundError::Disconnected),
            },
            () = cancel.cancelled() => Err(OutboundError::Disconnected),
            () = self.closed.cancelled() => Err(OutboundError::Disconnected),
            () = tokio::time::sleep(self.request_timeout) => Err(OutboundError::Timeout),
        };
        guard.answered = !matches!(outcome, Err(OutboundError::Timeout)) && !cancel.is_cancelled();
        drop(guard);
        if let Some(outgoing) = outgoing {
            outgoing.on_response(match &outcome {
                Ok(_) => ClientOutcome::Ok,
                Err(OutboundError::Client(e)) => ClientOutcome::Error(e.code.0, &e.message),
                Err(OutboundError::Timeout) => ClientOutcome::Timeout,
                Err(OutboundError::Disconnected | OutboundError::InvalidResponse(_)) => {
                    ClientOutcome::Abandoned
                }
            });
        }
        outcome
    }

    /// Routes a client's response to the request waiting for it; false if none is.
    pub(crate) fn complete(&self, id: &RequestId, result: Result<Value, ErrorObject>) -> bool {
        match lock(&self.pending).remove(id) {
            Some(tx) => tx.send(result).is_ok(),
            None => false,
        }
    }

    /// Ends the session: every request waiting for the client fails.
    pub(crate) fn close(&self) {
        self.closed.cancel();
        lock(&self.pending).clear();
    }
}

/// A server-to-client request in flight: when it is abandoned (its handler was cancelled or
/// timed out waiting), `notifications/cancelled` tells the client so.
struct Abandon<'a> {
    session: &'a LegacySession,
    id: RequestId,
    sink: Sink,
    answered: bool,
}

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        lock(&self.session.pending).remove(&self.id);
        if self.answered || self.session.closed.is_cancelled() {
            return;
        }
        let params = serde_json::json!({"requestId": self.id, "reason": "the server no longer needs the answer"});
        let Ok(text) =
            ferromcp_core::jsonrpc::to_string(&ferromcp_core::jsonrpc::WireNotification::new(
                "notifications/cancelled",
                Some(&params),
            ))
        else {
            return;
        };
        // Nothing is spawned from a destructor: if the destination is full, the client's
        // own timeout covers the lost notice.
        self.sink.try_send(text);
    }
}

/// The era of a connection, decided by its opening exchange.
#[derive(Debug, Clone)]
pub(crate) enum ConnectionEra {
    Undecided,
    Legacy(Arc<LegacySession>),
    Modern,
}

/// One client connection: a stdio process, or an HTTP legacy session.
#[derive(Debug)]
pub(crate) struct Connection {
    era: Mutex<ConnectionEra>,
    in_flight: Mutex<HashMap<RequestId, CancellationToken, MapHasher>>,
    /// Where messages not tied to a request go (list changes, resource updates); shared with
    /// the routes of the connection's tasks.
    sink: Arc<Mutex<Sink>>,
    request_timeout: Duration,
    transport: Transport,
    /// HTTP legacy sessions: the `Mcp-Session-Id`.
    session_id: std::sync::OnceLock<String>,
    /// The legacy session, once [`decide`](Self::decide) made one: what the observer reads
    /// on every request without the era's lock.
    legacy: std::sync::OnceLock<Arc<LegacySession>>,
}

pub(crate) use crate::observe::Transport;

/// What a request's observers read of its connection.
impl ConnectionFacts for Connection {
    fn session_id(&self) -> Option<&str> {
        Connection::session_id(self)
    }

    fn transport(&self) -> Transport {
        Connection::transport(self)
    }

    fn legacy_version(&self) -> Option<Option<ProtocolVersion>> {
        Connection::legacy_version(self)
    }
}

impl Connection {
    pub(crate) fn new(sink: Sink, request_timeout: Duration, transport: Transport) -> Connection {
        Connection {
            era: Mutex::new(ConnectionEra::Undecided),
            in_flight: Mutex::new(HashMap::default()),
            sink: Arc::new(Mutex::new(sink)),
            request_timeout,
            transport,
            session_id: std::sync::OnceLock::new(),
            legacy: std::sync::OnceLock::new(),
        }
    }

    pub(crate) fn transport(&self) -> Transport {
        self.transport
    }

    pub(crate) fn session_id(&self) -> Option<&str> {
        self.session_id.get().map(String::as_str)
    }

    // HTTP only.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    /// Names the connection's HTTP session, once its id is minted.
    pub(crate) fn set_session_id(&self, id: &str) {
        let _ = self.session_id.set(id.to_owned());
        if let ConnectionEra::Legacy(session) = &*lock(&self.era) {
            let _ = session.owner.set(id.to_owned());
        }
    }

    // HTTP only.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    /// The connection of one stateless (2026-07-28) HTTP request: modern from the start, with
    /// nowhere to send messages besides the response.
    pub(crate) fn stateless(request_timeout: Duration) -> Connection {
        let conn = Connection::new(Sink::Discard, request_timeout, Transport::Tcp);
        *lock(&conn.era) = ConnectionEra::Modern;
        conn
    }

    pub(crate) fn era(&self) -> ConnectionEra {
        lock(&self.era).clone()
    }

    /// The revision a legacy session negotiated (`Some(None)` before `initialize`); `None`
    /// when the connection is not a legacy session. No lock is taken and nothing is cloned.
    pub(crate) fn legacy_version(&self) -> Option<Option<ProtocolVersion>> {
        self.legacy
            .get()
            .map(|session| session.negotiated_version())
    }

    /// Fixes the era on the first request that decides it; returns the era in force.
    pub(crate) fn decide(&self, modern: bool) -> ConnectionEra {
        let mut era = lock(&self.era);
        if matches!(*era, ConnectionEra::Undecided) {
            *era = if modern {
                ConnectionEra::Modern
            } else {
                let session = LegacySession::new(self.request_timeout);
                if let Some(id) = self.session_id.get() {
                    let _ = session.owner.set(id.clone());
                }
                let session = Arc::new(session);
                let _ = self.legacy.set(session.clone());
                ConnectionEra::Legacy(session)
            };
        }
        era.clone()
    }

    pub(crate) fn session(&self) -> Option<Arc<LegacySession>> {
        match &*lock(&self.era) {
            ConnectionEra::Legacy(s) => Some(s.clone()),
            _ => None,
        }
    }

    pub(crate) fn sink(&self) -> Sink {
        lock(&self.sink).clone()
    }

    /// Where a 2025-11-25 task started on this connection sends its messages (see
    /// [`Route`](super::sink::Route)).
    pub(crate) fn task_route(&self) -> Sink {
        Sink::Routed(Arc::new(super::sink::Route::new(self.sink.clone())))
    }

    /// Where messages not tied to a request go from now on (a new GET stream replaces the
    /// previous one, which then ends).
    pub(crate) fn set_sink(&self, sink: Sink) {
        *lock(&self.sink) = sink;
    }

    // HTTP only.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    /// How many requests are in flight.
    pub(crate) fn in_flight_len(&self) -> usize {
        lock(&self.in_flight).len()
    }

    /// Registers a request in flight; `None` if a request with this id is already in flight
    /// (ids must be unique among a client's outstanding requests).
    pub(crate) fn begin(&self, id: &RequestId) -> Option<CancellationToken> {
        match lock(&self.in_flight).entry(id.clone()) {
            Entry::Occupied(_) => None,
            Entry::Vacant(slot) => Some(slot.insert(CancellationToken::new()).clone()),
        }
    }

    pub(crate) fn end(&self, id: &RequestId) {
        lock(&self.in_flight).remove(id);
    }

    /// Cancels the request in flight with this id; false if there is none.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        match lock(&self.in_flight).get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    // HTTP only.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    /// The connection is gone: cancel everything in flight and fail pending client requests.
    pub(crate) fn abort(&self) {
        for token in lock(&self.in_flight).values() {
            token.cancel();
        }
        self.input_closed();
    }

    /// No more input will come from the client: requests waiting for a client answer fail,
    /// requests in flight run to completion.
    pub(crate) fn input_closed(&self) {
        if let Some(session) = self.session() {
            session.close();
        }
    }
}
