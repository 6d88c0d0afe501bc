//! The stdio transport: one compact JSON message per line on stdin and stdout, nothing else
//! on stdout.
//!
//! - Lines longer than the server's message limit are skipped up to the next newline and
//!   answered with -32600; lines that are not JSON get -32700; the server goes on.
//! - A request whose handler completes without waiting is answered before the next line is
//!   read; one that waits becomes its own task.
//! - Requests run concurrently up to the server's in-flight limit; at the limit the reader
//!   stops reading (backpressure), so memory stays bounded however fast the client writes.
//! - On end of input, requests in flight finish and every response is written before
//!   `serve_stdio` returns.

use std::sync::Arc;

use mcp_core::error::ErrorObject;
use mcp_core::jsonrpc::{self, EnvelopeError, Incoming, Message, WireErrorResponse};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use crate::engine::Engine;
use crate::engine::{self, Reply, Response};
use crate::peer::session::{Connection, ConnectionEra, Transport};
use crate::peer::sink::Sink;

/// Messages waiting for the writer; beyond this, senders wait.
const OUTBOUND_CAPACITY: usize = 1024;

/// One line read from the input.
pub(crate) enum Line {
    Text(Vec<u8>),
    TooLong,
    Eof,
}

/// Reads `\n`-terminated lines of at most `max` bytes; a longer line is consumed up to its
/// newline without being kept. Cancel-safe: a partial line (or the skipping of a long one)
/// carries over to the next call.
pub(crate) struct LineReader<R> {
    pub(crate) inner: BufReader<R>,
    pub(crate) buf: Vec<u8>,
    pub(crate) max: usize,
    pub(crate) skipping: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) async fn next(&mut self) -> std::io::Result<Line> {
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                if std::mem::take(&mut self.skipping) {
                    return Ok(Line::TooLong);
                }
                if self.buf.is_empty() {
                    return Ok(Line::Eof);
                }
                return Ok(Line::Text(std::mem::take(&mut self.buf)));
            }
            let (chunk, found) = match memchr::memchr(b'\n', available) {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if !self.skipping {
                if self.buf.len() + chunk.len() > self.max {
                    self.skipping = true;
                    self.buf = Vec::new();
                } else {
                    if found.is_none() {
                        // The line goes on past what is buffered: room for as much again,
                        // so a line of one to two buffers is read into one allocation.
                        let after = self.buf.len() + chunk.len();
                        self.buf.reserve((2 * after).min(self.max) - self.buf.len());
                    }
                    self.buf.extend_from_slice(chunk);
                }
            }
            let used = found.unwrap_or(available.len());
            self.inner.consume(used);
            if found.is_some() {
                if std::mem::take(&mut self.skipping) {
                    return Ok(Line::TooLong);
                }
                return Ok(Line::Text(std::mem::take(&mut self.buf)));
            }
        }
    }

    /// Whether a whole line is already buffered (so reading it will not wait).
    fn line_ready(&self) -> bool {
        memchr::memchr(b'\n', self.inner.buffer()).is_some()
    }
}

fn envelope_error(e: &EnvelopeError) -> String {
    let error = e.to_error_object();
    mcp_core::jsonrpc::to_string(&WireErrorResponse::new(e.id.as_ref(), &error)).unwrap_or_default()
}

/// The output side, written by the serving loop itself: responses of requests answered on
/// the spot go straight in, and messages from requests running as tasks (and notifications)
/// come through the outbound queue. A write error ends the serving; later writes are dropped.
struct Output<W> {
    writer: tokio::io::BufWriter<W>,
    error: Option<std::io::Error>,
    dirty: bool,
}

impl<W: AsyncWrite + Unpin> Output<W> {
    async fn write(&mut self, message: &str) {
        if self.error.is_some() {
            return;
        }
        let written = async {
            self.writer.write_all(message.as_bytes()).await?;
            self.writer.write_all(b"\n").await
        }
        .await;
        self.dirty = true;
        if let Err(e) = written {
            self.error = Some(e);
        }
    }

    /// Writes whatever the queue holds now (in order), without waiting for more.
    async fn drain(&mut self, rx: &mut mpsc::Receiver<String>) {
        while let Ok(message) = rx.try_recv() {
            self.write(&message).await;
        }
    }

    async fn flush(&mut self) {
        if !self.dirty || self.error.is_some() {
            return;
        }
        self.dirty = false;
        if let Err(e) = self.writer.flush().await {
            self.error = Some(e);
        }
    }

    /// Runs `work` while writing what the queue receives meanwhile, so a task that waits on
    /// a full queue can always finish.
    async fn while_draining<F: std::future::Future>(
        &mut self,
        rx: &mut mpsc::Receiver<String>,
        work: F,
    ) -> F::Output {
        let mut work = std::pin::pin!(work);
        loop {
            tokio::select! {
                biased;
                out = &mut work => return out,
                Some(message) = rx.recv() => {
                    self.write(&message).await;
                    self.drain(rx).await;
                    self.flush().await;
                }
            }
        }
    }
}

/// Serves `server` over the process's stdin and stdout until stdin closes.
pub(crate) async fn serve_stdio(engine: &Engine) -> std::io::Result<()> {
    super::heap::keep_freed_buffers(engine.config().max_message_size);
    #[cfg(unix)]
    {
        let input: Box<dyn AsyncRead + Unpin + Send> = match pipes::stdin() {
            Some(pipe) => Box::new(pipe),
            None => Box::new(tokio::io::stdin()),
        };
        let output: Box<dyn AsyncWrite + Unpin + Send> = match pipes::stdout() {
            Some(pipe) => Box::new(pipe),
            None => Box::new(tokio::io::stdout()),
        };
        serve_io(engine, input, output).await
    }
    #[cfg(not(unix))]
    {
        serve_io(engine, tokio::io::stdin(), tokio::io::stdout()).await
    }
}

/// Serves `server` over any byte streams with stdio framing (one JSON message per line)
/// until `input` ends; every response is written before it returns.
pub(crate) async fn serve_io<R, W>(engine: &Engine, input: R, output: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // The process's one session: every request span is its child.
    let span = tracing::info_span!("mcp.session", network.transport = "pipe");
    serve_in_session(engine, input, output)
        .instrument(span)
        .await
}

async fn serve_in_session<R, W>(engine: &Engine, input: R, output: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::channel::<String>(OUTBOUND_CAPACITY);
    let mut out = Output {
        writer: tokio::io::BufWriter::with_capacity(64 * 1024, output),
        error: None,
        dirty: false,
    };
    let sink = Sink::Channel(tx);
    let conn = Arc::new(Connection::new(
        sink.clone(),
        engine.config().client_request_timeout,
        Transport::Pipe,
    ));
    let done = CancellationToken::new();
    let forwarder = tokio::spawn(forward_changes(engine.clone(), conn.clone(), done.clone()));

    let limit = Arc::new(Semaphore::new(engine.config().max_in_flight));
    let mut tasks = JoinSet::new();
    let mut reader = LineReader {
        inner: BufReader::with_capacity(64 * 1024, input),
        buf: Vec::new(),
        max: engine.config().max_message_size,
        skipping: false,
    };

    let read_result = loop {
        while tasks.try_join_next().is_some() {}
        // What the tasks queued goes out first; the buffer is flushed only when no
        // further line is already waiting, so a burst of requests costs one write.
        out.drain(&mut rx).await;
        if !reader.line_ready() {
            out.flush().await;
        }
        if out.error.is_some() {
            break Ok(());
        }
        let next = tokio::select! {
            biased;
            Some(message) = rx.recv() => {
                out.write(&message).await;
                continue;
            }
            next = reader.next() => next,
        };
        let line = match next {
            Ok(Line::Text(line)) => line,
            Ok(Line::TooLong) => {
                let e = ErrorObject::invalid_request(format!(
                    "message larger than {} bytes",
                    engine.config().max_message_size
                ));
                out.write(
                    &mcp_core::jsonrpc::to_string(&WireErrorResponse::new(None, &e))
                        .unwrap_or_default(),
                )
                .await;
                continue;
            }
            Ok(Line::Eof) => break Ok(()),
            Err(e) => break Err(e),
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match jsonrpc::parse_owned(line) {
            Err(e) => out.write(&envelope_error(&e)).await,
            Ok(Incoming::Single(Message::Request(req))) => {
                // Registered before it runs, so a cancellation read next finds it.
                let Some(cancel) = conn.begin(&req.id) else {
                    out.write(&Response::error(Some(&req.id), &engine::duplicate_id(&req.id)).json)
                        .await;
                    continue;
                };
                // Backpressure: no permit, no more reading.
                let Ok(permit) = out
                    .while_draining(&mut rx, limit.clone().acquire_owned())
                    .await
                else {
                    break Ok(());
                };
                let (engine, task_conn, task_sink) = (engine.clone(), conn.clone(), sink.clone());
                // Boxed once (the future is several KB) and polled once here: a request
                // that completes without waiting (most tool calls) is answered on the
                // spot; one that waits goes on as its own task, polled again there with
                // its own waker. Made in its box (`Box::write` into an uninitialized one):
                // `Box::pin(future)` makes it on the stack and copies it over, whole.
                let mut fut = Box::into_pin(Box::write(
                    Box::new_uninit(),
                    Engine::handle_registered(
                        engine, task_conn, req, None, task_sink, cancel, None,
                    ),
                ));
                let polled =
                    std::future::poll_fn(|cx| std::task::Poll::Ready(fut.as_mut().poll(cx))).await;
                match polled {
                    std::task::Poll::Ready(Reply::Response(r)) => {
                        // Whatever the handler sent before its result goes first.
                        out.drain(&mut rx).await;
                        out.write(&r.json).await;
                        drop(permit);
                    }
                    std::task::Poll::Ready(Reply::Silent) => drop(permit),
                    std::task::Poll::Ready(listen @ Reply::Listen(_)) => {
                        drop(permit);
                        let (conn, sink, done) = (conn.clone(), sink.clone(), done.clone());
                        tasks.spawn(async move { deliver(&conn, listen, &sink, &done).await });
                    }
                    std::task::Poll::Pending => {
                        let (conn, sink, done) = (conn.clone(), sink.clone(), done.clone());
                        tasks.spawn(async move {
                            let reply = fut.await;
                            // The permit is held until the response is handed to the
                            // writer, so a slow reader of our output slows the reading of
                            // our input too; only a listen stream, which lasts, gives it
                            // back first.
                            if matches!(reply, Reply::Listen(_)) {
                                drop(permit);
                            }
                            deliver(&conn, reply, &sink, &done).await;
                        });
                    }
                }
            }
            Ok(Incoming::Single(other)) => {
                let reply = out
                    .while_draining(&mut rx, engine.handle_message(&conn, other, sink.clone()))
                    .await;
                if let Some(Reply::Response(r)) = reply {
                    out.drain(&mut rx).await;
                    out.write(&r.json).await;
                }
            }
            Ok(Incoming::Batch(items)) => {
                let Ok(permit) = out
                    .while_draining(&mut rx, limit.clone().acquire_owned())
                    .await
                else {
                    break Ok(());
                };
                let (engine, conn, sink) = (engine.clone(), conn.clone(), sink.clone());
                tasks.spawn(async move {
                    match engine.handle_batch(&conn, items, sink.clone(), None).await {
                        Ok(responses) if responses.is_empty() => {}
                        Ok(responses) => sink.send(format!("[{}]", responses.join(","))).await,
                        Err(e) => sink.send(Response::error(None, &e).json).await,
                    }
                    drop(permit);
                });
            }
        }
    };

    // End of input: nothing more will be answered by the client, but what is in flight
    // finishes and is written.
    conn.input_closed();
    done.cancel();
    out.while_draining(&mut rx, async {
        while tasks.join_next().await.is_some() {}
        let _ = forwarder.await;
    })
    .await;
    conn.set_sink(Sink::Discard);
    drop(sink);
    drop(conn);
    // Every sender is gone: the queue ends once it is empty.
    while let Some(message) = rx.recv().await {
        out.write(&message).await;
    }
    out.flush().await;
    let written = match out.error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    };
    read_result.and(written)
}

/// Sends a request's reply; a `subscriptions/listen` reply streams until the client cancels
/// it or the input ends.
async fn deliver(conn: &Arc<Connection>, reply: Reply, sink: &Sink, done: &CancellationToken) {
    match reply {
        Reply::Response(r) => sink.send(r.json).await,
        Reply::Silent => {}
        Reply::Listen(listen) => {
            let id = listen.id.clone();
            let Some(cancel) = conn.begin(&id) else {
                return;
            };
            let stop = CancellationToken::new();
            let ended = tokio::select! {
                r = listen.run(sink.clone(), cancel, stop.clone()) => r,
                () = done.cancelled() => None,
            };
            conn.end(&id);
            if let Some(result) = ended {
                sink.send(result).await;
            }
        }
    }
}

/// Sends a legacy session its change notifications: list changes, and updates of the
/// resources it subscribed to.
async fn forward_changes(engine: Engine, conn: Arc<Connection>, done: CancellationToken) {
    let mut events = engine.registry().subscribe();
    loop {
        let event = tokio::select! {
            () = done.cancelled() => return,
            e = events.recv() => match e {
                Ok(e) => e,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            },
        };
        let ConnectionEra::Legacy(session) = conn.era() else {
            continue;
        };
        if session.negotiated().is_none() {
            continue;
        }
        if let Some(message) = crate::engine::legacy_notification(&session, &event) {
            conn.sink().send(message).await;
        }
    }
}

/// stdin and stdout as pipes driven by the reactor, when they are pipes (as they are when a
/// client spawns the server). tokio's own `stdin()`/`stdout()` work on anything, but hand
/// every read and write to a blocking thread; with pipes the reads and writes are
/// non-blocking and woken by epoll, which costs a fraction of the CPU per message.
///
/// The pipe ends are duplicates of fds 0 and 1, put in non-blocking mode for the serving and
/// back in blocking mode when dropped, so the process's stdin/stdout behave as before
/// afterwards.
#[cfg(unix)]
mod pipes {
    use std::io;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::MetadataExt;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
    use tokio::net::unix::pipe;

    fn gone() -> io::Error {
        io::Error::other("the pipe was already released")
    }

    /// Which pipe (device, inode) an fd is, if it is one.
    fn identity(fd: &OwnedFd) -> Option<(u64, u64)> {
        let meta = std::fs::File::from(fd.try_clone().ok()?).metadata().ok()?;
        Some((meta.dev(), meta.ino()))
    }

    /// stdin as a reactor-driven pipe; `None` when it is not a pipe.
    pub(super) fn stdin() -> Option<In> {
        let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
        pipe::Receiver::from_owned_fd(fd).ok().map(|r| In(Some(r)))
    }

    /// stdout as a reactor-driven pipe; `None` when it is not a pipe, or when stderr is the
    /// same pipe (non-blocking mode would then reach the log writes too).
    pub(super) fn stdout() -> Option<Out> {
        let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
        let err = io::stderr().as_fd().try_clone_to_owned().ok();
        let err = err.as_ref().and_then(identity);
        if err.is_some() && identity(&fd) == err {
            return None;
        }
        pipe::Sender::from_owned_fd(fd).ok().map(|w| Out(Some(w)))
    }

    /// The read end; blocking again once dropped.
    pub(super) struct In(Option<pipe::Receiver>);

    impl AsyncRead for In {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            match self.0.as_mut() {
                Some(r) => Pin::new(r).poll_read(cx, buf),
                None => Poll::Ready(Err(gone())),
            }
        }
    }

    impl Drop for In {
        fn drop(&mut self) {
            if let Some(r) = self.0.take() {
                let _ = r.into_blocking_fd();
            }
        }
    }

    /// The write end; blocking again once dropped.
    pub(super) struct Out(Option<pipe::Sender>);

    impl AsyncWrite for Out {
        fn poll_write(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            match self.0.as_mut() {
                Some(w) => Pin::new(w).poll_write(cx, buf),
                None => Poll::Ready(Err(gone())),
            }
        }

        fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            match self.0.as_mut() {
                Some(w) => Pin::new(w).poll_flush(cx),
                None => Poll::Ready(Ok(())),
            }
        }

        fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            match self.0.as_mut() {
                Some(w) => Pin::new(w).poll_shutdown(cx),
                None => Poll::Ready(Ok(())),
            }
        }
    }

    impl Drop for Out {
        fn drop(&mut self) {
            if let Some(w) = self.0.take() {
                let _ = w.into_blocking_fd();
            }
        }
    }
}
