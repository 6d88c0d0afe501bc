//! The HTTP server that `serve_http` and `serve_http_on` run ([`ServeHttp`]): a hardened accept loop around the endpoint.
//!
//! - Connections are counted; at [`HttpOptions::max_connections`] the loop stops accepting
//!   until one closes (new ones wait in the kernel's listen backlog).
//! - Each connection has a watchdog: a client must send a request's headers within
//!   [`HttpOptions::header_read_timeout`] of its first byte (or of the connection's opening),
//!   and a connection with no request in progress is closed after
//!   [`HttpOptions::idle_timeout`]. A stalled client holds one socket for a bounded time.
//! - Shutdown stops accepting, ends the long-lived streams, lets requests in flight finish
//!   (up to [`HttpOptions::shutdown_timeout`]) and closes each connection after its
//!   current response.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use bytes::Bytes;
use http::Request;
use http_body::Frame;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::{Layer, Service};

use super::endpoint::Endpoint;
use super::layers::HostOriginLayer;
use super::options::HttpOptions;
use super::origin::HostPolicy;
use crate::engine::Engine;
use crate::server::Server;

/// Completes on Ctrl-C (SIGINT) or, on Unix, SIGTERM — what orchestrators send to stop a
/// process. The default shutdown signal of [`Server::serve_http`](crate::Server::serve_http)
/// and [`Server::serve_http_on`](crate::Server::serve_http_on).
///
/// # Examples
///
/// Stop on a signal or when the application says so:
///
/// ```no_run
/// # async fn run(server: ferromcp::Server, done: tokio::sync::oneshot::Receiver<()>) -> std::io::Result<()> {
/// use ferromcp::http::shutdown_signal;
///
/// server
///     .serve_http("127.0.0.1:8080")
///     .with_graceful_shutdown(async {
///         tokio::select! {
///             () = shutdown_signal() => {}
///             _ = done => {}
///         }
///     })
///     .await
/// # }
/// ```
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; stopping on Ctrl-C only");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The future of [`Server::serve_http`](crate::Server::serve_http) and
/// [`Server::serve_http_on`](crate::Server::serve_http_on), not started yet: set its
/// [`options`](Self::options) and [shutdown signal](Self::with_graceful_shutdown), then
/// `.await` it. It serves until the signal completes (by default SIGINT or SIGTERM, see
/// [`shutdown_signal`]), then shuts down gracefully and resolves.
///
/// # Errors
///
/// Binding the address failed, or the listener has no local address.
#[must_use = "a ServeHttp serves nothing until it is awaited"]
pub struct ServeHttp<'a> {
    server: &'a Server,
    listener: Listener<'a>,
    options: HttpOptions,
    shutdown: Option<Pin<Box<dyn Future<Output = ()> + Send + 'a>>>,
}

/// Where a [`ServeHttp`] listens: an address still to bind (and then to announce on
/// stderr), or a listener bound by the caller.
enum Listener<'a> {
    Bind(Pin<Box<dyn Future<Output = io::Result<TcpListener>> + Send + 'a>>),
    Bound(TcpListener),
}

impl std::fmt::Debug for ServeHttp<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeHttp")
            .field("server", self.server)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl<'a> ServeHttp<'a> {
    pub(crate) fn bind(
        server: &'a Server,
        bind: Pin<Box<dyn Future<Output = io::Result<TcpListener>> + Send + 'a>>,
    ) -> Self {
        Self::new(server, Listener::Bind(bind))
    }

    pub(crate) fn on(server: &'a Server, listener: TcpListener) -> Self {
        Self::new(server, Listener::Bound(listener))
    }

    fn new(server: &'a Server, listener: Listener<'a>) -> Self {
        ServeHttp {
            server,
            listener,
            options: HttpOptions::default(),
            shutdown: None,
        }
    }

    /// The endpoint's and the connections' settings (default: [`HttpOptions::default`]).
    pub fn options(mut self, options: HttpOptions) -> Self {
        self.options = options;
        self
    }

    /// Serves until `signal` completes, in place of SIGINT and SIGTERM, then shuts down
    /// gracefully.
    pub fn with_graceful_shutdown(mut self, signal: impl Future<Output = ()> + Send + 'a) -> Self {
        self.shutdown = Some(Box::pin(signal));
        self
    }
}

impl<'a> IntoFuture for ServeHttp<'a> {
    type Output = io::Result<()>;
    type IntoFuture = Pin<Box<dyn Future<Output = io::Result<()>> + Send + 'a>>;

    // Not generic: the transport's future is made and compiled in this crate, not in every
    // server's crate (see `Server::serve_stdio`).
    #[inline(never)]
    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let listener = match self.listener {
                Listener::Bind(bind) => {
                    let listener = bind.await?;
                    announce(&listener)?;
                    listener
                }
                Listener::Bound(listener) => listener,
            };
            let shutdown = self.shutdown.unwrap_or_else(|| Box::pin(shutdown_signal()));
            serve(self.server.engine(), listener, self.options, shutdown).await
        })
    }
}

/// The one plain line `serve_http` writes, for a newcomer who installed no `tracing`
/// subscriber (the `info` event that says the same is there for those who did).
fn announce(listener: &TcpListener) -> io::Result<()> {
    use std::io::Write as _;
    let local = listener.local_addr()?;
    // A closed stderr is no reason not to serve.
    let _ = writeln!(
        io::stderr().lock(),
        "MCP server listening on http://{local}/mcp"
    );
    Ok(())
}

/// Serves `engine`'s endpoint at `/mcp` on `listener` until `shutdown` completes.
pub(crate) async fn serve(
    engine: &Engine,
    listener: TcpListener,
    options: HttpOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let local = listener.local_addr()?;
    warn_if_exposed(local, &options);
    tracing::info!(url = %format!("http://{local}/mcp"), "serving MCP over Streamable HTTP");
    let streams = CancellationToken::new();
    let endpoint = Endpoint::new(engine, options.clone(), streams.clone());
    let tasks = endpoint.tasks();
    let acceptor = Acceptor {
        #[cfg(feature = "auth")]
        engine,
        options: &options,
        // The Host/Origin guard comes first, before authentication: a request from a
        // rebinding page or a foreign origin is refused before its token costs a validation.
        guard: endpoint.guard(),
        router: Router::new().nest_service("/mcp", endpoint.routes()),
        connections: TaskTracker::new(),
        closing: CancellationToken::new(),
    };
    acceptor.run(listener, shutdown).await;
    tracing::info!("shutting down: no new connections; finishing requests in flight");
    streams.cancel();
    acceptor.closing.cancel();
    let connections = acceptor.connections;
    connections.close();
    tasks.close();
    let drained = tokio::time::timeout(options.shutdown_timeout, async {
        // Running tool tasks are stopped: their records say `cancelled` (docs/tasks.md).
        engine.tasks().shutdown(options.shutdown_timeout).await;
        connections.wait().await;
        tasks.wait().await;
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            connections = connections.len(),
            tasks = tasks.len(),
            "shutdown deadline reached; dropping what is still running"
        );
    }
    Ok(())
}

/// The accept loop: a connection for each client, up to the cap, each with its watchdog.
struct Acceptor<'a> {
    /// For authentication's per-connection layer.
    #[cfg(feature = "auth")]
    engine: &'a Engine,
    options: &'a HttpOptions,
    guard: HostOriginLayer,
    router: Router,
    /// The connections' tasks.
    connections: TaskTracker,
    /// Closes every connection after its current response.
    closing: CancellationToken,
}

impl Acceptor<'_> {
    /// Accepts connections until `shutdown` completes; the listener is closed then.
    async fn run(&self, listener: TcpListener, shutdown: impl Future<Output = ()> + Send) {
        let guarded = self.guard.layer(self.router.clone());
        let slots = Arc::new(Semaphore::new(self.options.max_connections));
        let limits = Limits {
            header_read: self.options.header_read_timeout,
            idle: self.options.idle_timeout,
        };
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let slot = tokio::select! {
                biased;
                () = &mut shutdown => break,
                slot = slots.clone().acquire_owned() => match slot {
                    Ok(slot) => slot,
                    Err(_) => break,
                },
            };
            let accepted = tokio::select! {
                biased;
                () = &mut shutdown => break,
                accepted = listener.accept() => accepted,
            };
            let stream = match accepted {
                Ok((stream, _peer)) => stream,
                Err(e) => {
                    // Out of file descriptors (or a similar resource): back off, not spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            // Small writes (an SSE event, a JSON answer) go out at once, not after Nagle's
            // wait.
            let _ = stream.set_nodelay(true);
            let closing = self.closing.clone();
            // Authentication wraps each connection's router (it remembers the connection's
            // last token).
            #[cfg(feature = "auth")]
            if let Some(auth) = &self.options.auth {
                let app = self
                    .guard
                    .layer(auth.for_connection(self.router.clone(), self.engine));
                self.connections
                    .spawn(connection(stream, app, limits, closing, slot));
                continue;
            }
            self.connections
                .spawn(connection(stream, guarded.clone(), limits, closing, slot));
        }
    }
}

fn warn_if_exposed(local: SocketAddr, options: &HttpOptions) {
    if !local.ip().is_loopback() && matches!(options.hosts, HostPolicy::Loopback) {
        tracing::warn!(
            %local,
            "listening beyond loopback with the loopback-only Host policy: remote clients will get 403; set HttpOptions::allowed_hosts for a deployment"
        );
    }
    if !local.ip().is_loopback() && matches!(options.hosts, HostPolicy::Any) {
        tracing::warn!(%local, "listening beyond loopback with no Host allow-list: DNS rebinding protection is off");
    }
}

#[derive(Debug, Clone, Copy)]
struct Limits {
    header_read: Duration,
    idle: Duration,
}

/// What a connection is doing, for its watchdog: shared by the socket (bytes read), the
/// service (requests started) and the response bodies (requests ended).
struct Activity {
    opened: Instant,
    /// Requests whose response has not been sent whole.
    in_flight: AtomicUsize,
    /// Bytes of a new request arrived while no request was in progress.
    reading: AtomicBool,
    /// When the current phase (idle, or reading a request's head) began, in ms since `opened`.
    since_ms: AtomicU64,
    /// Whether any request has started on this connection.
    served: AtomicBool,
    changed: Notify,
}

impl Activity {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn bytes_read(&self) {
        if self.in_flight.load(Ordering::Acquire) == 0 && !self.reading.swap(true, Ordering::AcqRel)
        {
            self.since_ms.store(self.now_ms(), Ordering::Release);
            self.changed.notify_one();
        }
    }

    fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.reading.store(false, Ordering::Release);
        self.served.store(true, Ordering::Release);
        self.changed.notify_one();
    }

    fn request_ended(&self) {
        if self.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.since_ms.store(self.now_ms(), Ordering::Release);
            self.changed.notify_one();
        }
    }

    /// When the connection must be closed if nothing changes; `None` while a request runs.
    fn deadline(&self, limits: Limits) -> Option<Instant> {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return None;
        }
        let since = self.opened + Duration::from_millis(self.since_ms.load(Ordering::Acquire));
        // A fresh connection must send its first request's head in the header time.
        let heading = self.reading.load(Ordering::Acquire) || !self.served.load(Ordering::Acquire);
        Some(
            since
                + if heading {
                    limits.header_read
                } else {
                    limits.idle
                },
        )
    }
}

/// Ends a request's activity when dropped: with its response body, or with the service
/// future if the connection goes first.
struct RequestEnd(Arc<Activity>);

impl Drop for RequestEnd {
    fn drop(&mut self) {
        self.0.request_ended();
    }
}

/// A response body that ends its request's activity when it is finished or dropped.
struct Tracked {
    body: Body,
    _end: RequestEnd,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The socket, telling the watchdog when request bytes arrive.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.bytes_read();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Serves one HTTP/1.1 connection under its watchdog until it closes, times out, or (after
/// `closing`) finishes its current response.
async fn connection<S>(
    stream: TcpStream,
    app: S,
    limits: Limits,
    closing: CancellationToken,
    _slot: OwnedSemaphorePermit,
) where
    S: Service<Request<Body>, Response = axum::response::Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let activity = Arc::new(Activity {
        opened: Instant::now(),
        in_flight: AtomicUsize::new(0),
        reading: AtomicBool::new(false),
        since_ms: AtomicU64::new(0),
        served: AtomicBool::new(false),
        changed: Notify::new(),
    });
    let io = TokioIo::new(Watched {
        stream,
        activity: activity.clone(),
    });
    let watch = activity.clone();
    let service = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
        watch.request_started();
        let end = RequestEnd(watch.clone());
        let mut app = app.clone();
        let answer = app.call(request.map(Body::new));
        async move {
            let response = match answer.await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            Ok::<_, Infallible>(response.map(|body| Tracked { body, _end: end }))
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    let mut shutting_down = false;
    loop {
        let deadline = activity.deadline(limits);
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                return;
            }
            () = activity.changed.notified() => {}
            () = sleep_until(deadline) => {
                if activity.deadline(limits).is_some_and(|d| d <= Instant::now()) {
                    tracing::debug!("closing a connection that stalled or stayed idle");
                    return;
                }
            }
            () = closing.cancelled(), if !shutting_down => {
                shutting_down = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
