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
    ///
    /// On a multi-thread runtime the serving runs as a task of its own, on the runtime's
    /// workers, and the returned future waits for it (dropping the future aborts it): the
    /// future given to `Runtime::block_on`, as `#[tokio::main]` does, runs on the calling
    /// thread, which is not a worker, so each message read would otherwise cost a wake-up
    /// from the worker that saw stdin become readable to that thread.
    pub fn serve_stdio(&self) -> impl Future<Output = std::io::Result<()>> + Send + '_ {
        // A type of this crate, not an `async fn`: an `async` body is compiled in the crate
        // that polls it, and would have every server crate compile the transport and the
        // engine again.
        StdioServing::Start(self.clone())
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

/// The future `serve_stdio` returns. Where it serves is decided at its first poll, by the
/// runtime polling it: on a worker of its own when the runtime has workers, else right here.
enum StdioServing {
    Start(Server),
    Here(Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>),
    OnWorker(AbortOnDrop<std::io::Result<()>>),
}

impl Future for StdioServing {
    type Output = std::io::Result<()>;

    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        use std::task::Poll;
        use tokio::runtime::{Handle, RuntimeFlavor};
        use tracing::Instrument;

        match &mut *self {
            StdioServing::Here(serving) => serving.as_mut().poll(cx),
            StdioServing::OnWorker(task) => match Pin::new(&mut task.0).poll(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Ok(served)) => Poll::Ready(served),
                Poll::Ready(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                // Cancelled: the runtime is shutting down.
                Poll::Ready(Err(e)) => Poll::Ready(Err(std::io::Error::other(e))),
            },
            StdioServing::Start(server) => {
                let serving = Box::pin(crate::transport::stdio::serve_stdio(
                    server.engine().clone(),
                ));
                let workers = Handle::try_current()
                    .is_ok_and(|h| h.runtime_flavor() != RuntimeFlavor::CurrentThread);
                *self = if workers {
                    // In the caller's span, as it would be if polled here.
                    StdioServing::OnWorker(AbortOnDrop(tokio::spawn(serving.in_current_span())))
                } else {
                    StdioServing::Here(serving)
                };
                self.poll(cx)
            }
        }
    }
}

/// Aborts the task when dropped: a dropped serving future stops the serving, as it would
/// if the serving ran in the future itself.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Streamable HTTP (feature `http`).
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
impl Server {
    /// Serves `http://ADDR/mcp` until SIGINT (Ctrl-C) or SIGTERM, then shuts down
    /// gracefully: stops accepting, ends long-lived streams, lets requests in flight finish
    /// (up to [`HttpOptions::shutdown_timeout`](crate::http::HttpOptions::shutdown_timeout)).
    /// Set [`options`](crate::http::ServeHttp::options) and another
    /// [shutdown signal](crate::http::ServeHttp::with_graceful_shutdown) on what it returns
    /// before awaiting it.
    ///
    /// Once listening, it writes one line to stderr, whatever the logging setup, so that
    /// whoever started the server sees where it is:
    /// `MCP server listening on http://127.0.0.1:8080/mcp` (port 0 shows the port chosen).
    ///
    /// # Errors
    ///
    /// Binding the address failed.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(server: ferromcp::Server) -> std::io::Result<()> {
    /// use ferromcp::http::HttpOptions;
    ///
    /// server
    ///     .serve_http("127.0.0.1:8080")
    ///     .options(HttpOptions::default().max_sessions(100))
    ///     .await
    /// # }
    /// ```
    pub fn serve_http<'a, A>(&'a self, addr: A) -> crate::http::ServeHttp<'a>
    where
        A: tokio::net::ToSocketAddrs + Send + 'a,
    {
        crate::http::ServeHttp::bind(self, Box::pin(tokio::net::TcpListener::bind(addr)))
    }

    /// Serves `/mcp` on a listener you bound (to learn its port first, or to pass one from a
    /// socket-activation manager), as [`serve_http`](Self::serve_http) does, except that
    /// nothing is written to stderr: you know the address, and say it your way.
    ///
    /// # Errors
    ///
    /// The listener has no local address.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(server: ferromcp::Server) -> std::io::Result<()> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let port = listener.local_addr()?.port();
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// # drop((stop, port));
    /// server
    ///     .serve_http_on(listener)
    ///     .with_graceful_shutdown(async {
    ///         let _ = stopped.await;
    ///     })
    ///     .await
    /// # }
    /// ```
    pub fn serve_http_on(&self, listener: tokio::net::TcpListener) -> crate::http::ServeHttp<'_> {
        crate::http::ServeHttp::on(self, listener)
    }

    /// The MCP endpoint as an axum [`Router`](axum::Router) serving `/`, to nest at a path
    /// of your choice with `Router::nest_service`, behind the same checks as
    /// [`serve_http`](Self::serve_http) ([`HostOriginLayer`](crate::http::HostOriginLayer),
    /// [`BodyLimitLayer`](crate::http::BodyLimitLayer),
    /// [`MediaTypeLayer`](crate::http::MediaTypeLayer)). Cancelling `shutdown` ends its
    /// long-lived streams. Connection limits and timeouts are then your server's to set.
    ///
    /// # Examples
    ///
    /// ```
    /// # fn app(server: ferromcp::Server) -> axum::Router {
    /// use ferromcp::CancellationToken;
    /// use ferromcp::http::HttpOptions;
    ///
    /// let shutdown = CancellationToken::new();
    /// axum::Router::new().nest_service("/mcp", server.http_router(HttpOptions::default(), shutdown))
    /// # }
    /// ```
    pub fn http_router(
        &self,
        options: crate::http::HttpOptions,
        shutdown: crate::CancellationToken,
    ) -> axum::Router {
        crate::transport::http::Endpoint::new(self.engine(), options, shutdown).router()
    }
}

/// `serve_stdio` in a child process (this test binary run again, stdin and stdout piped), on
/// the runtime flavor the test names.
#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    use crate::registry::tool_fn;
    use crate::types::Tool;
    use crate::{Server, ServerBuilder};

    const CHILD: &str = "MCP_SERVE_STDIO_CHILD";
    /// The name of a multi-thread runtime's workers here.
    const WORKER: &str = "test-runtime-worker";

    /// A server whose tool `thread` answers with the name of the thread that ran it.
    fn server() -> Server {
        let server = ServerBuilder::new("threads", "1.0.0").build();
        let schema = serde_json::json!({"type": "object"});
        server
            .registry()
            .add_tool(
                Tool::new("thread", schema.as_object().unwrap().clone()),
                tool_fn(|_: serde_json::Value, _ctx| async {
                    std::thread::current()
                        .name()
                        .unwrap_or("unnamed")
                        .to_owned()
                }),
                None,
            )
            .unwrap();
        server
    }

    fn runtime(flavor: &str) -> tokio::runtime::Runtime {
        match flavor {
            "current" => tokio::runtime::Builder::new_current_thread(),
            _ => {
                let mut builder = tokio::runtime::Builder::new_multi_thread();
                builder.thread_name(WORKER);
                builder
            }
        }
        .enable_all()
        .build()
        .unwrap()
    }

    fn child(test: &str, flavor: &str) -> Child {
        Command::new(std::env::current_exe().unwrap())
            .args(["--exact", test, "--test-threads=1", "--quiet"])
            .env(CHILD, flavor)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap()
    }

    /// Whether this process's stdin is in non-blocking mode (the transport's while it serves).
    fn stdin_nonblocking() -> bool {
        let info = std::fs::read_to_string("/proc/self/fdinfo/0").unwrap();
        let flags = info.lines().find_map(|l| l.strip_prefix("flags:")).unwrap();
        u32::from_str_radix(flags.trim(), 8).unwrap() & 0o4000 != 0
    }

    /// Given to `block_on`, as `#[tokio::main]` does, the serving runs on a worker of a
    /// multi-thread runtime, not on the thread that called `block_on`; on a current-thread
    /// runtime, on that thread.
    #[test]
    fn stdio_is_served_on_the_workers_of_a_multi_thread_runtime() {
        const TEST: &str = "serve::tests::stdio_is_served_on_the_workers_of_a_multi_thread_runtime";
        if let Ok(flavor) = std::env::var(CHILD) {
            runtime(&flavor).block_on(server().serve_stdio()).unwrap();
            return;
        }
        for flavor in ["multi", "current"] {
            let mut child = child(TEST, flavor);
            let mut input = child.stdin.take().unwrap();
            let mut output = BufReader::new(child.stdout.take().unwrap());
            for line in [
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"thread"}}"#,
            ] {
                writeln!(input, "{line}").unwrap();
            }
            let mut answer = serde_json::Value::Null;
            while answer["id"] != 2 {
                let mut line = String::new();
                assert!(
                    output.read_line(&mut line).unwrap() > 0,
                    "no answer to the call"
                );
                // The test harness in the child writes its own lines to stdout too.
                if line.starts_with('{') {
                    answer = serde_json::from_str(&line).unwrap();
                }
            }
            drop(input);
            assert!(child.wait().unwrap().success());
            let thread = answer["result"]["content"][0]["text"].as_str().unwrap();
            if flavor == "multi" {
                assert_eq!(thread, WORKER, "{answer}");
            } else {
                assert_ne!(thread, WORKER, "{answer}");
            }
        }
    }

    /// Dropping the future `serve_stdio` returned stops the serving on the workers too: the
    /// task lets go of stdin, which is back in blocking mode.
    #[test]
    fn dropping_the_stdio_future_stops_the_serving() {
        const TEST: &str = "serve::tests::dropping_the_stdio_future_stops_the_serving";
        if std::env::var_os(CHILD).is_some() {
            runtime("multi").block_on(async {
                let server = server();
                let mut serving = Box::pin(server.serve_stdio());
                let deadline = Instant::now() + Duration::from_secs(10);
                while !stdin_nonblocking() {
                    assert!(Instant::now() < deadline, "stdin was never taken");
                    tokio::select! {
                        served = &mut serving => panic!("the serving ended: {served:?}"),
                        () = tokio::time::sleep(Duration::from_millis(5)) => {}
                    }
                }
                drop(serving);
                while stdin_nonblocking() {
                    assert!(Instant::now() < deadline, "the serving goes on, stdin held");
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            });
            return;
        }
        let mut child = child(TEST, "multi");
        // stdin stays open until the child is done: only the drop can end its serving.
        let input = child.stdin.take().unwrap();
        assert!(child.wait().unwrap().success());
        drop(input);
    }
}
