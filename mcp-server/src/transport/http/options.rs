//! [`HttpOptions`]: the endpoint's security checks, limits and timeouts.

use std::sync::Arc;
use std::time::Duration;

use super::origin::{HostPolicy, OriginPolicy};
use super::session::LiveSessionStore;
use crate::store::{EventStore, NotificationBus, SessionStore};

/// Settings of the HTTP endpoint and of the server that [`Server::serve_http`]
/// runs. Every default is safe for a server reachable by untrusted clients.
///
/// [`Server::serve_http`]: crate::Server::serve_http
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use ferromcp::http::{HostPolicy, HttpOptions};
///
/// let options = HttpOptions::default()
///     .allowed_hosts(HostPolicy::Allow(vec!["mcp.example.com".into()]))
///     .max_body_size(1 << 20)
///     .header_read_timeout(Duration::from_secs(5))
///     .max_connections(2_000)
///     .session_idle_timeout(Duration::from_secs(600));
/// # let _ = options;
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    pub(crate) hosts: HostPolicy,
    pub(crate) origins: OriginPolicy,
    pub(crate) max_body_size: usize,
    pub(crate) keep_alive: Duration,
    pub(crate) json_only: bool,
    pub(crate) sse_responses: bool,
    pub(crate) store: Option<Arc<dyn LiveSessionStore>>,
    pub(crate) shared: Option<Arc<dyn SessionStore>>,
    pub(crate) events: Option<Arc<dyn EventStore>>,
    pub(crate) bus: Option<Arc<dyn NotificationBus>>,
    pub(crate) shared_recheck: Duration,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) max_in_flight: usize,
    pub(crate) shutdown_timeout: Duration,
    #[cfg(feature = "auth")]
    pub(crate) auth: Option<crate::auth::AuthLayer>,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("hosts", &self.hosts)
            .field("origins", &self.origins)
            .field("max_body_size", &self.max_body_size)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("max_sessions", &self.max_sessions)
            .field("shared_sessions", &self.shared.is_some())
            .field("event_store", &self.events.is_some())
            .field("shared_session_recheck", &self.shared_recheck)
            .field("notification_bus", &self.bus.is_some())
            .field("header_read_timeout", &self.header_read_timeout)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_connections", &self.max_connections)
            .field("max_in_flight", &self.max_in_flight)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .finish_non_exhaustive()
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            hosts: HostPolicy::Loopback,
            origins: OriginPolicy::Loopback,
            max_body_size: 4 * 1024 * 1024,
            keep_alive: Duration::from_secs(15),
            json_only: false,
            sse_responses: false,
            store: None,
            shared: None,
            events: None,
            bus: None,
            shared_recheck: Duration::from_secs(1),
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: 10_000,
            max_in_flight: 1_024,
            shutdown_timeout: Duration::from_secs(20),
            #[cfg(feature = "auth")]
            auth: None,
        }
    }
}

impl HttpOptions {
    /// Which `Host` values are served (default: loopback only). Behind a reverse proxy,
    /// name the public host names the proxy forwards (or [`HostPolicy::Any`] when the proxy
    /// checks them).
    pub fn allowed_hosts(mut self, hosts: HostPolicy) -> Self {
        self.hosts = hosts;
        self
    }

    /// Which `Origin` values are served (default: loopback only; requests without `Origin`
    /// always pass).
    pub fn allowed_origins(mut self, origins: OriginPolicy) -> Self {
        self.origins = origins;
        self
    }

    /// The largest request body, in bytes (default 4 MiB); larger ones get 413.
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.max_body_size = bytes;
        self
    }

    /// How often an idle SSE stream carries a keep-alive comment (default 15 s).
    pub fn keep_alive(mut self, period: Duration) -> Self {
        self.keep_alive = period;
        self
    }

    /// Never answer with SSE, even when a request emits messages before its result (they are
    /// then dropped, or go to the legacy session's GET stream).
    pub fn json_only(mut self, json_only: bool) -> Self {
        self.json_only = json_only;
        self
    }

    /// Answer every request whose client accepts `text/event-stream` with an SSE stream, even
    /// when the result is its only message (default: plain JSON unless messages come first).
    /// For deployments that want one response shape; ignored when [`json_only`](Self::json_only)
    /// is set.
    pub fn sse_responses(mut self, always: bool) -> Self {
        self.sse_responses = always;
        self
    }

    /// How long a legacy session may go unused before it expires (default 30 min).
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// How many legacy sessions may be live (default 10,000); at the cap a new session
    /// evicts the least recently used one.
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.max_sessions = n;
        self
    }

    /// Where legacy sessions are kept (default: in memory, with the timeout and cap above).
    pub fn live_sessions(mut self, store: Arc<dyn LiveSessionStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Shares legacy sessions with the other instances behind a load balancer (default:
    /// none, each instance knows only the sessions it minted). A session is written to
    /// `store` when it changes (initialize, log level, subscriptions) and removed on
    /// DELETE; an instance that gets a request for a session it does not hold restores it
    /// from there, bound to the same principal. When the store cannot be reached, the
    /// requests that need it are answered 503 with `Retry-After`. The store's records
    /// expire after [`session_idle_timeout`](Self::session_idle_timeout) unused.
    ///
    /// The crate `ferromcp-redis`'s `RedisSessionStore` keeps them in Redis.
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.shared = Some(store);
        self
    }

    /// Writes the events of legacy SSE streams to `store` before they are sent (default:
    /// none, a stream is resumable on the instance that holds it only), so that a client
    /// whose reconnection (`Last-Event-ID`) reaches another instance behind the load
    /// balancer gets the events it missed from there. Streams expire after
    /// [`session_idle_timeout`](Self::session_idle_timeout) without writes. Use it with
    /// [`session_store`](Self::session_store): the other instance must know the session.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use ferromcp::http::HttpOptions;
    /// use ferromcp::store::{MemoryEventStore, MemorySessionStore};
    ///
    /// // Two endpoints of one process sharing sessions and streams.
    /// let options = HttpOptions::default()
    ///     .session_store(Arc::new(MemorySessionStore::new()))
    ///     .event_store(Arc::new(MemoryEventStore::new()));
    /// # let _ = options;
    /// ```
    #[must_use]
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.events = Some(store);
        self
    }

    /// Shares change notifications with the other instances of this server through `bus`
    /// (such as the crate `ferromcp-redis`'s `RedisNotificationBus`):
    /// `list_changed` and `resources/updated` announced by any instance's registry reach
    /// the legacy sessions and `subscriptions/listen` streams every instance holds. Delivery
    /// is at most once (a message published while an instance reconnects is not seen
    /// there); both notifications are hints to re-read.
    #[must_use]
    pub fn notification_bus(mut self, bus: Arc<dyn NotificationBus>) -> Self {
        self.bus = Some(bus);
        self
    }

    /// How stale an instance's copy of a shared session may be (default 1 s): a session
    /// held here is served from memory, with no round trip to the shared store, until its
    /// last read or write of the store is this old; the next request then re-reads it
    /// (and so refreshes its expiry). What another instance changed or deleted is seen
    /// here within this bound. `Duration::ZERO` re-reads on every request.
    pub fn shared_session_recheck(mut self, window: Duration) -> Self {
        self.shared_recheck = window;
        self
    }

    /// How long a client has to send a request's headers, counted from the first byte of
    /// the request (or from the connection's opening, for its first request); a client that
    /// stalls is disconnected (default 10 s). Applies to the server that
    /// [`serve_http`](crate::Server::serve_http) runs.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How long a client has to send a request's whole body once its headers are in
    /// (default 30 s); a client that stalls gets `408 Request Timeout`.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// How long a keep-alive connection may wait, with no request in progress, for the
    /// next request before it is closed (default 60 s). Applies to the server that
    /// [`serve_http`](crate::Server::serve_http) runs.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How many connections may be open at once (default 10,000). At the cap the server
    /// stops accepting: new connections wait in the operating system's listen backlog until
    /// one closes (and are refused by the OS once the backlog is full). Keep it below the
    /// process's file-descriptor limit.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// How many requests the endpoint runs at once, across all clients (default 1,024).
    /// Beyond it a request is answered at once with `503 Service Unavailable` and
    /// `Retry-After: 1`, before its body is read; long-lived streams (a legacy session's
    /// GET stream, `subscriptions/listen`) do not count once open. Each legacy session is
    /// further held to [`ServerBuilder::max_in_flight`](crate::ServerBuilder::max_in_flight),
    /// with the same answer. It also bounds the custom notification handlers the endpoint
    /// runs at once for 2026 clients, which have no session: a notification beyond it is
    /// dropped (logged at warn). A legacy session's notification and hook handlers are
    /// bounded per session instead, by `ServerBuilder::max_in_flight`, so that one
    /// session's flood takes no place of another's.
    pub fn max_in_flight(mut self, n: usize) -> Self {
        self.max_in_flight = n.max(1);
        self
    }

    /// How long a graceful shutdown waits for requests in flight to finish (default 20 s,
    /// inside the 30 s most orchestrators allow between SIGTERM and SIGKILL).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// Protects the endpoint that [`serve_http`](crate::Server::serve_http) runs
    /// with bearer tokens (feature `auth`): `layer` serves the protected-resource metadata
    /// beside `/mcp` and checks every request before the endpoint sees it.
    #[cfg(feature = "auth")]
    pub fn auth(mut self, layer: crate::auth::AuthLayer) -> Self {
        self.auth = Some(layer);
        self
    }
}
