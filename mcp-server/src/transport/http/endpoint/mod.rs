//! The endpoint: its state, the legacy session lookup, and the tasks it runs besides
//! requests; its methods, one module each: [`post`], [`get`] (with [`handover`], a stream
//! resumed from another instance) and [`delete`]; [`lookup`] restores and rechecks
//! sessions shared through a session store. The router (`super::router`) puts them behind
//! the checks.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

mod delete;
mod get;
mod handover;
mod lookup;
mod post;

use axum::response::Response;
use ferromcp_core::jsonrpc::RequestId;
use http::{HeaderValue, StatusCode};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::options::HttpOptions;
use super::reply;
use super::session::{HttpSession, LiveSessionStore, MemoryLiveSessionStore};
use super::{Principal, SESSION_HEADER};
use crate::custom::{NoticeLimit, Work};
use crate::engine::Engine;
use crate::engine::headers::Headers;
use ferromcp_core::error::ErrorObject;

/// The endpoint's shared state.
pub(crate) struct Endpoint {
    pub(crate) engine: Engine,
    pub(crate) options: HttpOptions,
    pub(crate) store: Arc<dyn LiveSessionStore>,
    /// Ends the long-lived streams (GET, `subscriptions/listen`) at shutdown.
    pub(crate) shutdown: CancellationToken,
    /// Every task the endpoint spawns: requests that outlive their connection, stream
    /// forwarders, the background sweep. Shutdown waits for them.
    pub(crate) tasks: TaskTracker,
    /// Requests running now, across all clients.
    pub(crate) in_flight: Arc<Semaphore>,
    /// Handlers of notifications outside sessions (2026) running now, across all clients:
    /// as many as requests.
    notices: NoticeLimit,
    background: OnceLock<()>,
    bus: OnceLock<()>,
}

impl Endpoint {
    pub(crate) fn new(
        engine: &Engine,
        options: HttpOptions,
        shutdown: CancellationToken,
    ) -> Arc<Endpoint> {
        let store = options.store.clone().unwrap_or_else(|| {
            Arc::new(MemoryLiveSessionStore::new(
                options.session_idle_timeout,
                options.max_sessions,
            ))
        });
        Arc::new(Endpoint {
            engine: engine.clone(),
            in_flight: Arc::new(Semaphore::new(options.max_in_flight)),
            notices: NoticeLimit::new(options.max_in_flight),
            options,
            store,
            shutdown,
            tasks: TaskTracker::new(),
            background: OnceLock::new(),
            bus: OnceLock::new(),
        })
    }

    pub(crate) fn tasks(&self) -> TaskTracker {
        self.tasks.clone()
    }

    /// Runs the work of a notification that belongs to no session (2026) on a task of the
    /// endpoint's, if one of the endpoint's places is free ([`NoticeLimit`]); else it is
    /// dropped.
    pub(crate) fn run_notice(&self, work: Work) {
        if let Some(work) = self.notices.admit(work) {
            self.tasks.spawn(work);
        }
    }

    /// Runs the work of a legacy session's notification on a task of the endpoint's, if
    /// one of the session's own places is free (`ServerBuilder::max_in_flight` of them);
    /// else it is dropped. Sessions do not share places: one's flood starves no other.
    pub(crate) fn run_session_notice(&self, session: &HttpSession, work: Work) {
        let limit = session.notices(self.engine.config().max_in_flight);
        if let Some(work) = limit.admit(work) {
            self.tasks.spawn(work);
        }
    }

    /// Starts, once, the exchange of registry changes with the other instances, if there
    /// is a notification bus (when the router is made, or at the first request when it was
    /// made outside a runtime).
    pub(crate) fn ensure_bus(self: &Arc<Self>) {
        let Some(bus) = &self.options.bus else { return };
        self.bus.get_or_init(|| {
            let run = crate::transport::http::bus::run(
                bus.clone(),
                self.engine.clone(),
                self.store.clone(),
                self.shutdown.clone(),
            );
            self.tasks.spawn(run);
        });
    }

    /// Starts, once, the task that forwards registry changes to legacy sessions' GET streams
    /// and reaps idle sessions.
    pub(crate) fn ensure_background(self: &Arc<Self>) {
        self.background.get_or_init(|| {
            let state = Arc::downgrade(self);
            let mut events = self.engine.registry().subscribe();
            let period = (self.options.session_idle_timeout / 4)
                .clamp(Duration::from_millis(10), Duration::from_secs(60));
            let shutdown = self.shutdown.clone();
            self.tasks.spawn(async move {
                let mut sweep = tokio::time::interval(period);
                loop {
                    tokio::select! {
                        () = shutdown.cancelled() => return,
                        _ = sweep.tick() => match state.upgrade() {
                            Some(state) => state.store.sweep(),
                            None => return,
                        },
                        event = events.recv() => {
                            let Some(state) = state.upgrade() else { return };
                            let event = match event {
                                Ok(e) => e,
                                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                            };
                            for session in state.store.sessions() {
                                if let Some(message) = Engine::change_for(&session.conn, &event) {
                                    // Never waits: one session whose stream is 256 messages
                                    // behind must not hold up every other (and the sweep);
                                    // these notifications are hints to re-read.
                                    session.conn.sink().try_send(message);
                                }
                            }
                        }
                    }
                }
            });
        });
    }

    pub(crate) fn principal(parts: &http::request::Parts) -> Option<Arc<Principal>> {
        parts.extensions.get::<Principal>().cloned().map(Arc::new)
    }

    /// The legacy session a request names: missing id 400, unknown (or another
    /// principal's) 404; with a shared session store, one held elsewhere is restored, and
    /// a store that cannot be reached when it is needed gives 503. Every message to a
    /// session comes through here (requests, notifications, responses, batches, GET and
    /// DELETE), so here too an unsupported `MCP-Protocol-Version` gets its 400, which the
    /// transport requires of every request that carries one.
    // The error is the finished HTTP response; this runs once per request, off the hot path.
    #[allow(clippy::result_large_err)]
    pub(crate) async fn session(
        self: &Arc<Self>,
        parts: &http::request::Parts,
        request: Option<&RequestId>,
    ) -> Result<Arc<HttpSession>, Response> {
        let id = match session_id(&parts.headers) {
            Ok(Some(id)) => id,
            Ok(None) => return Err(reply::session_required(request)),
            Err(()) => return Err(reply::bad_request(request, "invalid Mcp-Session-Id header")),
        };
        if let Err(e) = self.engine.check_legacy_version(&parts.headers) {
            return Err(reply::error(StatusCode::BAD_REQUEST, request, &e));
        }
        let caller = parts.extensions.get::<Principal>();
        let Some(session) = self.store.get(id) else {
            return match self.options.shared.as_deref() {
                Some(shared) => self.restore(shared, id, caller, request).await,
                None => Err(reply::session_not_found(request)),
            };
        };
        let same = match (session.principal(), caller) {
            (None, None) => true,
            (Some(owner), Some(caller)) => owner.is_same_as(caller),
            _ => false,
        };
        if !same {
            return Err(reply::session_not_found(request));
        }
        match self.options.shared.as_deref() {
            Some(shared) => self.recheck(shared, session, request).await,
            None => Ok(session),
        }
    }
}

/// The engine reads the era rules' headers through this: one value, visible ASCII, trimmed.
impl Headers for http::HeaderMap {
    fn single(&self, name: &str) -> Result<Option<&str>, ErrorObject> {
        let mut values = self.get_all(name).iter();
        let Some(first) = values.next() else {
            return Ok(None);
        };
        if values.next().is_some() {
            return Err(ErrorObject::header_mismatch(format_args!(
                "{name} is repeated"
            )));
        }
        let text = first.to_str().map_err(|_| {
            ErrorObject::header_mismatch(format_args!("{name} has invalid characters"))
        })?;
        Ok(Some(text.trim_matches([' ', '\t'])))
    }
}

/// The `Mcp-Session-Id` of a request, if it has exactly one well-formed value.
pub(crate) fn session_id(headers: &http::HeaderMap) -> Result<Option<&str>, ()> {
    headers.single(SESSION_HEADER).map_err(|_| ())
}

/// Puts a freshly minted session id on `initialize`'s answer.
pub(crate) fn set_session_header(response: &mut Response, session: &HttpSession) {
    if let Ok(value) = HeaderValue::from_str(session.id()) {
        response.headers_mut().insert(SESSION_HEADER, value);
    }
}
