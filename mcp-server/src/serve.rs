//! Serving a [`Server`]: the entry points of the transports. They live apart from the
//! `Server` type so that the transports, which use the type, are not also its dependency.

use std::pin::Pin;

use crate::server::Server;

/// stdio.
impl Server {
    /// Serves this server over the process's stdin and stdout until stdin closes; every
    /// response is written before it returns.
    ///
    /// # Errors
    ///
    /// Reading stdin or writing stdout failed.
    #[inline(never)]
    pub fn serve_stdio(&self) -> impl Future<Output = std::io::Result<()>> + Send + '_ {
        // Boxed here, in a function that is not generic, so the transport and the engine
        // are compiled once, in this crate. An `async fn` would have the crate that awaits
        // it compile them again: an `async` body is compiled where its future is polled.
        let serving: Pin<Box<dyn Future<Output = std::io::Result<()>> + Send + '_>> =
            Box::pin(crate::transport::stdio::serve_stdio(self.engine()));
        serving
    }

    /// Serves this server over any byte streams with stdio framing (one JSON message per
    /// line) until `input` ends; every response is written before it returns.
    ///
    /// # Errors
    ///
    /// Reading `input` or writing `output` failed.
    pub async fn serve_io<R, W>(&self, input: R, output: W) -> std::io::Result<()>
    where
        R: tokio::io::AsyncRead + Unpin,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        crate::transport::stdio::serve_io(self.engine(), input, output).await
    }
}

/// Streamable HTTP (feature `http`).
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
impl Server {
    /// Serves `http://ADDR/mcp` with default [`HttpOptions`](crate::http::HttpOptions) until
    /// SIGINT (Ctrl-C) or SIGTERM, then shuts down gracefully: stops accepting, ends
    /// long-lived streams, lets requests in flight finish (up to 20 s).
    ///
    /// Once listening, it writes one line to stderr, whatever the logging setup, so that
    /// whoever started the server sees where it is:
    /// `MCP server listening on http://127.0.0.1:8080/mcp` (port 0 shows the port chosen).
    ///
    /// # Errors
    ///
    /// Binding the address failed.
    pub async fn serve_http(&self, addr: impl tokio::net::ToSocketAddrs) -> std::io::Result<()> {
        self.serve_http_with(
            addr,
            crate::http::HttpOptions::default(),
            crate::http::shutdown_signal(),
        )
        .await
    }

    /// Serves `http://ADDR/mcp` with `options` until `shutdown` completes, then shuts down
    /// gracefully as [`serve_http`](Self::serve_http) does, and announces its URL on stderr
    /// as it does.
    ///
    /// # Errors
    ///
    /// Binding the address failed.
    pub async fn serve_http_with(
        &self,
        addr: impl tokio::net::ToSocketAddrs,
        options: crate::http::HttpOptions,
        shutdown: impl Future<Output = ()> + Send,
    ) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        announce(&listener)?;
        self.serve_http_on(listener, options, shutdown).await
    }

    /// Serves `/mcp` on a listener you bound (to learn its port first, or to pass one from a
    /// socket-activation manager), as [`serve_http_with`](Self::serve_http_with) does, except
    /// that nothing is written to stderr: you know the address, and say it your way.
    ///
    /// # Errors
    ///
    /// The listener has no local address.
    pub fn serve_http_on<'a>(
        &'a self,
        listener: tokio::net::TcpListener,
        options: crate::http::HttpOptions,
        shutdown: impl Future<Output = ()> + Send + 'a,
    ) -> impl Future<Output = std::io::Result<()>> + Send + 'a {
        self.serve_http_boxed(listener, options, Box::pin(shutdown))
    }

    /// The transport's future, made and boxed in this crate (see `serve_stdio`).
    #[inline(never)]
    fn serve_http_boxed<'a>(
        &'a self,
        listener: tokio::net::TcpListener,
        options: crate::http::HttpOptions,
        shutdown: Pin<Box<dyn Future<Output = ()> + Send + 'a>>,
    ) -> Pin<Box<dyn Future<Output = std::io::Result<()>> + Send + 'a>> {
        Box::pin(crate::transport::http::serve(
            self.engine(),
            listener,
            options,
            shutdown,
        ))
    }

    /// The MCP endpoint as an axum [`Router`](axum::Router) serving `/`, to mount with
    /// `Router::nest_service` at a path of your choice, behind the same checks as
    /// [`serve_http`](Self::serve_http) ([`HostOriginLayer`](crate::http::HostOriginLayer),
    /// [`BodyLimitLayer`](crate::http::BodyLimitLayer),
    /// [`MediaTypeLayer`](crate::http::MediaTypeLayer)). Cancelling `shutdown` ends its
    /// long-lived streams. Connection limits and timeouts are then your server's to set.
    pub fn http_endpoint(
        &self,
        options: crate::http::HttpOptions,
        shutdown: crate::CancellationToken,
    ) -> axum::Router {
        crate::transport::http::Endpoint::new(self.engine(), options, shutdown).router()
    }

    /// [`http_endpoint`](Self::http_endpoint) mounted at `/mcp`.
    pub fn http_router(
        &self,
        options: crate::http::HttpOptions,
        shutdown: crate::CancellationToken,
    ) -> axum::Router {
        axum::Router::new().nest_service("/mcp", self.http_endpoint(options, shutdown))
    }
}

/// The one plain line `serve_http` writes, for a newcomer who installed no `tracing`
/// subscriber (the `info` event that says the same is there for those who did).
#[cfg(feature = "http")]
fn announce(listener: &tokio::net::TcpListener) -> std::io::Result<()> {
    use std::io::Write as _;
    let local = listener.local_addr()?;
    // A closed stderr is no reason not to serve.
    let _ = writeln!(
        std::io::stderr().lock(),
        "MCP server listening on http://{local}/mcp"
    );
    Ok(())
}
