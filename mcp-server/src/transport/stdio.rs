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

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{self, EnvelopeError, Incoming, Message, WireErrorResponse};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use crate::engine::Engine;
use crate::engine::{self, Reply, Response};
use crate::peer::session::{Connection, ConnectionEra, Transport};
use crate::peer::sink::Sink;
use crate::principal::Principal;

/// Messages waiting for the writer; beyond this, senders wait.
const OUTBOUND_CAPACITY: usize = 1024;

/// One line read from the input.
pub(crate) enum Line {
    Text(Vec<u8>),
    TooLong,
    Eof,
}

/// Reads `\n`-terminated lines of at most `max` bytes; a longer line is consumed up to its
/// newline without being kept. Cancel-safe: what was read stays in the reader between calls.
///
/// Reads go straight into the buffer a long line is handed out in. A line of at least a
/// quarter of a read that starts the buffer, and is no shorter than what was read after
/// it, takes the buffer with it (what follows is copied to a new one); any other line is
/// copied out. A line that goes on past what was read is moved to the front of the buffer
/// first, so a large message is copied at most for the part of it that shared a read with
/// the lines before it.
pub(crate) struct LineReader<R> {
    inner: R,
    /// What was read and not yet handed out is `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    /// `buf[start..start + searched]` has no newline.
    searched: usize,
    /// The room given to a read (the transport's is 64 KiB).
    read_size: usize,
    max: usize,
    /// Reading past the rest of a line longer than `max`.
    skipping: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(inner: R, read_size: usize, max: usize) -> Self {
        LineReader {
            inner,
            buf: Vec::new(),
            start: 0,
            searched: 0,
            read_size: read_size.max(1),
            max,
            skipping: false,
        }
    }

    pub(crate) async fn next(&mut self) -> std::io::Result<Line> {
        loop {
            if let Some(line) = self.take_line() {
                return Ok(line);
            }
            if self.skipping || self.buf.len() - self.start > self.max {
                // Longer than the limit: what was read of it is dropped as it comes.
                self.skipping = true;
                self.buf.truncate(self.start);
                self.searched = 0;
            }
            self.make_room();
            if self.inner.read_buf(&mut self.buf).await? == 0 {
                return Ok(self.at_end());
            }
        }
    }

    /// The next whole line already read, if there is one.
    fn take_line(&mut self) -> Option<Line> {
        let from = self.start + self.searched;
        let unsearched = self.buf.get(from..).unwrap_or_default();
        if unsearched.is_empty() {
            return None;
        }
        let Some(at) = ferromcp_core::bytes::find(b'\n', unsearched) else {
            self.searched = self.buf.len() - self.start;
            return None;
        };
        let end = from + at;
        self.searched = 0;
        let too_long = std::mem::take(&mut self.skipping) || end - self.start > self.max;
        if too_long {
            self.start = end + 1;
            return Some(Line::TooLong);
        }
        let after = self.buf.len() - (end + 1);
        let length = end - self.start;
        if self.start == 0 && length >= after && length >= self.read_size / 4 {
            // The buffer goes with the line; what was read after it moves to a new one, with
            // room for a line half as long again (so a client that sends large messages
            // has each read into a buffer that holds it whole).
            let room = (length + length / 2).max(self.read_size).max(after);
            let mut rest = Vec::with_capacity(room);
            rest.extend_from_slice(self.buf.get(end + 1..).unwrap_or_default());
            self.buf.truncate(end);
            let mut line = std::mem::replace(&mut self.buf, rest);
            if line.capacity() / 2 > line.len() {
                // Grown for a longer line before: what it does not use goes back (in place).
                line.shrink_to_fit();
            }
            return Some(Line::Text(line));
        }
        let line = self.buf.get(self.start..end).unwrap_or_default().to_vec();
        self.start = end + 1;
        Some(Line::Text(line))
    }

    /// Room for the next read after what is buffered: the line under way moved to the
    /// front, and, when less than half a read is left, as much room again as it has taken
    /// (at least a read).
    fn make_room(&mut self) {
        if self.start == self.buf.len() {
            self.buf.clear();
        } else if self.start > 0 {
            self.buf.drain(..self.start);
        }
        self.start = 0;
        let partial = self.buf.len();
        if self.buf.capacity() - partial < (self.read_size / 2).max(1) {
            self.buf
                .reserve(partial.min(self.max.saturating_add(1)).max(self.read_size));
        }
    }

    /// What end of input leaves: a line without its newline, or nothing.
    fn at_end(&mut self) -> Line {
        if std::mem::take(&mut self.skipping) {
            self.buf.clear();
            self.start = 0;
            return Line::TooLong;
        }
        if self.start == self.buf.len() {
            return Line::Eof;
        }
        let line = match self.start {
            0 => std::mem::take(&mut self.buf),
            start => self.buf.get(start..).unwrap_or_default().to_vec(),
        };
        self.buf.clear();
        self.start = 0;
        self.searched = 0;
        Line::Text(line)
    }

    /// Whether a whole line is already buffered (so reading it will not wait).
    fn line_ready(&self) -> bool {
        let from = self.start + self.searched;
        let unsearched = self.buf.get(from..).unwrap_or_default();
        !unsearched.is_empty() && ferromcp_core::bytes::find(b'\n', unsearched).is_some()
    }
}

fn envelope_error(e: &EnvelopeError) -> String {
    let error = e.to_error_object();
    ferromcp_core::jsonrpc::to_string(&WireErrorResponse::new(e.id.as_ref(), &error))
        .unwrap_or_default()
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

/// Serves `server` over the process's stdin and stdout until stdin closes. The engine is
/// owned (a clone), so the future can be spawned or boxed without a wrapper.
pub(crate) async fn serve_stdio(engine: Engine) -> std::io::Result<()> {
    let engine = &engine;
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
    serve_io_as(engine, input, output, None).await
}

/// [`serve_io`] with every request made by `principal`, as if an authentication layer had
/// vouched for it (the test client's `with_principal`).
pub(crate) async fn serve_io_as<R, W>(
    engine: &Engine,
    input: R,
    output: W,
    principal: Option<Arc<Principal>>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // The process's one session: every request span is its child.
    let span = tracing::info_span!("mcp.session", network.transport = "pipe");
    serve_in_session(engine, input, output, principal)
        .instrument(span)
        .await
}

async fn serve_in_session<R, W>(
    engine: &Engine,
    input: R,
    output: W,
    principal: Option<Arc<Principal>>,
) -> std::io::Result<()>
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
    let mut reader = LineReader::new(input, 64 * 1024, engine.config().max_message_size);

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
                    &ferromcp_core::jsonrpc::to_string(&WireErrorResponse::new(None, &e))
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
                        engine,
                        task_conn,
                        req,
                        None,
                        task_sink,
                        cancel,
                        principal.clone(),
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
                let principal = principal.clone();
                tasks.spawn(async move {
                    match engine
                        .handle_batch(&conn, items, sink.clone(), principal)
                        .await
                    {
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
            // Still in flight (the engine kept it so): a cancellation read meanwhile has
            // already reached the stream's token.
            let id = listen.id.clone();
            let stop = CancellationToken::new();
            let ended = tokio::select! {
                r = listen.run(sink.clone(), stop.clone()) => r,
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

    /// The capacity asked of the kernel for the stdio pipes (Linux), then a smaller one:
    /// room for a message of a couple of hundred kilobytes to cross in one write and one
    /// read, where the default 64 KiB takes several of each, with a wake-up each on both
    /// sides. Not more: the kernel charges a pipe's capacity (not its use) to the user's
    /// pipe quota (`/proc/sys/fs/pipe-user-pages-soft`, 64 MiB by default), past which every
    /// new pipe the user makes gets 8 KiB, and an IDE may start dozens of servers. 256 KiB
    /// is 48 pages more a pipe than the default; 1 MiB would be 240. The kernel takes the
    /// memory itself as data is written, not up front.
    #[cfg(target_os = "linux")]
    pub(super) const PIPE_SIZES: [usize; 2] = [256 << 10, 128 << 10];

    /// Enlarges a pipe as far as the kernel allows, if it is smaller; a refusal (the
    /// user's pipe memory quota, a lower system limit) leaves it as it was.
    fn enlarge(fd: std::os::fd::BorrowedFd<'_>) {
        #[cfg(target_os = "linux")]
        {
            let Ok(now) = rustix::pipe::fcntl_getpipe_size(fd) else {
                return;
            };
            for size in PIPE_SIZES {
                if now >= size || rustix::pipe::fcntl_setpipe_size(fd, size).is_ok() {
                    return;
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = fd;
    }

    /// stdin as a reactor-driven pipe; `None` when it is not a pipe.
    pub(super) fn stdin() -> Option<In> {
        let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
        let receiver = pipe::Receiver::from_owned_fd(fd).ok()?;
        enlarge(receiver.as_fd());
        Some(In(Some(receiver)))
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
        let sender = pipe::Sender::from_owned_fd(fd).ok()?;
        enlarge(sender.as_fd());
        Some(Out(Some(sender)))
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

/// A listen stream's id stays in flight between the engine's reply and the stream's run, so a
/// `notifications/cancelled` read in between (the two written at once) ends the stream.
#[cfg(test)]
mod listen_tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::sync::Arc;
    use std::time::Duration;

    use ferromcp_core::jsonrpc::{self, Incoming, Message};
    use tokio_util::sync::CancellationToken;

    use crate::engine::Reply;
    use crate::peer::session::{Connection, Transport};
    use crate::peer::sink::Sink;

    #[tokio::test]
    async fn a_cancellation_read_right_after_a_listen_request_ends_its_stream() {
        let server = crate::ServerBuilder::new("listen", "1.0.0").build();
        let engine = server.engine();
        let conn = Arc::new(Connection::new(
            Sink::Discard,
            Duration::from_secs(5),
            Transport::Pipe,
        ));
        let line = br#"{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let Ok(Incoming::Single(Message::Request(req))) = jsonrpc::parse_owned(line.to_vec())
        else {
            panic!("a request")
        };
        let id = req.id.clone();
        let reply = engine.handle_request(&conn, req, Sink::Discard, None).await;
        let Reply::Listen(listen) = reply else {
            panic!("a listen stream")
        };
        // The reader takes the cancellation before the stream starts running.
        assert!(conn.cancel(&id), "the listen request is still in flight");
        let ended = tokio::time::timeout(
            Duration::from_secs(10),
            super::deliver(
                &conn,
                Reply::Listen(listen),
                &Sink::Discard,
                &CancellationToken::new(),
            ),
        )
        .await;
        assert!(ended.is_ok(), "the cancelled stream ended by itself");
        assert!(!conn.cancel(&id), "and left the in-flight set");
    }
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::io::{AsyncRead, ReadBuf};

    use super::{Line, LineReader};

    /// Hands `data` out in reads of the given sizes (then what is left), noting where each
    /// read put its bytes.
    struct Reads {
        data: Vec<u8>,
        at: usize,
        pieces: Vec<usize>,
        /// (first byte's offset in `data`, its address, length) of each read.
        placed: Vec<(usize, usize, usize)>,
    }

    impl Reads {
        fn new(data: Vec<u8>, pieces: Vec<usize>) -> Self {
            Reads {
                data,
                at: 0,
                pieces,
                placed: Vec::new(),
            }
        }

        /// Where the read that carried byte `offset` of the data put it.
        fn address_of(&self, offset: usize) -> usize {
            let (from, address, _) = self
                .placed
                .iter()
                .copied()
                .find(|&(from, _, n)| (from..from + n).contains(&offset))
                .unwrap();
            address + (offset - from)
        }
    }

    impl AsyncRead for Reads {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            let piece = self.pieces.get(self.placed.len()).copied();
            let left = self.data.len() - self.at;
            let n = piece.unwrap_or(left).min(left).min(buf.remaining());
            let place = buf.initialize_unfilled_to(n);
            place.copy_from_slice(&self.data[self.at..self.at + n]);
            let address = place.as_ptr() as usize;
            buf.advance(n);
            let at = self.at;
            self.placed.push((at, address, n));
            self.at += n;
            Poll::Ready(Ok(()))
        }
    }

    fn text(line: Line) -> Vec<u8> {
        match line {
            Line::Text(text) => text,
            Line::TooLong => panic!("too long"),
            Line::Eof => panic!("end of input"),
        }
    }

    const READ: usize = 64 * 1024;

    #[tokio::test]
    async fn long_lines_are_handed_out_where_they_were_read() {
        let (first, second) = (vec![b'x'; 100_000], vec![b'y'; 90_000]);
        let mut data = first.clone();
        data.push(b'\n');
        data.extend_from_slice(&second);
        data.extend_from_slice(b"\nshort\n");
        // As a pipe delivers them: 64 KiB, then the rest of each line.
        let pieces = vec![READ, 100_001 - READ, READ, 90_001 - READ];
        let mut reader = LineReader::new(Reads::new(data, pieces), READ, 1 << 20);

        // The first outgrows the first read's buffer (which may move it once, as the
        // buffer grows); from its second read on it is where the reads put it.
        let line = text(reader.next().await.unwrap());
        assert_eq!(line, first);
        let end = line.as_ptr() as usize + line.len() - 1;
        assert_eq!(end, reader.inner.address_of(99_999));
        // The second is read into a buffer that holds it whole: not moved at all.
        let line = text(reader.next().await.unwrap());
        assert_eq!(line, second);
        assert_eq!(line.as_ptr() as usize, reader.inner.address_of(100_001));
        let end = line.as_ptr() as usize + line.len() - 1;
        assert_eq!(end, reader.inner.address_of(190_000));
        // A short line is copied out, and the reader keeps its buffer.
        let line = text(reader.next().await.unwrap());
        assert_eq!(line, b"short");
        assert_ne!(line.as_ptr() as usize, reader.inner.address_of(190_002));
        assert!(matches!(reader.next().await.unwrap(), Line::Eof));
    }

    #[tokio::test]
    async fn lines_of_many_reads_are_read_in_place_once_the_buffer_has_grown() {
        const PIECE: usize = 16 * 1024;
        let long = vec![b'z'; 200_000];
        let mut data = Vec::new();
        let mut pieces = Vec::new();
        for _ in 0..3 {
            data.extend_from_slice(&long);
            data.push(b'\n');
            pieces.extend(std::iter::repeat_n(PIECE, 200_001 / PIECE));
            pieces.push(200_001 % PIECE);
        }
        let mut reader = LineReader::new(Reads::new(data, pieces), PIECE, 1 << 20);
        for n in 0..3 {
            let line = text(reader.next().await.unwrap());
            assert_eq!(line, long);
            if n > 0 {
                // Read whole into the buffer the line before left: never grown, never moved.
                let first = n * 200_001;
                assert_eq!(line.as_ptr() as usize, reader.inner.address_of(first));
            }
        }
        assert!(matches!(reader.next().await.unwrap(), Line::Eof));
    }

    #[tokio::test]
    async fn a_long_line_after_short_ones_is_handed_out_where_its_last_read_put_it() {
        let long = vec![b'y'; 50_000];
        let mut data = b"a\nbb\n".to_vec();
        data.extend_from_slice(&long);
        data.extend_from_slice(b"\nc");
        let mut reader = LineReader::new(Reads::new(data, Vec::new()), 16 * 1024, 1 << 20);
        assert_eq!(text(reader.next().await.unwrap()), b"a");
        assert_eq!(text(reader.next().await.unwrap()), b"bb");
        let line = text(reader.next().await.unwrap());
        assert_eq!(line, long);
        let end = line.as_ptr() as usize + line.len() - 1;
        assert_eq!(end, reader.inner.address_of(5 + 50_000 - 1));
        // The last line has no newline.
        assert_eq!(text(reader.next().await.unwrap()), b"c");
        assert!(matches!(reader.next().await.unwrap(), Line::Eof));
    }
}

#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used)]
mod pipe_tests {
    use std::os::fd::AsFd;
    use std::process::{Command, Stdio};

    /// What this system lets an unprivileged process give a pipe, up to the size asked.
    fn expected() -> usize {
        let max: usize = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        super::pipes::PIPE_SIZES
            .into_iter()
            .find(|&size| size <= max)
            .unwrap_or(64 * 1024)
    }

    /// A child process takes its stdin and stdout as the transport does; the pipes it was
    /// given (whose other ends this process holds) are enlarged, from the default 64 KiB.
    #[test]
    fn the_stdio_pipes_are_enlarged() {
        if std::env::var_os("MCP_PIPES_CHILD").is_some() {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let taken = runtime.block_on(async {
                super::pipes::stdin().is_some() && super::pipes::stdout().is_some()
            });
            assert!(taken, "stdin and stdout are pipes here");
            return;
        }
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "transport::stdio::pipe_tests::the_stdio_pipes_are_enlarged",
                "--test-threads=1",
                "--quiet",
            ])
            .env("MCP_PIPES_CHILD", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = child.stdout.take().unwrap();
        let before = rustix::pipe::fcntl_getpipe_size(input.as_fd()).unwrap();
        let status = child.wait().unwrap();
        assert!(status.success());
        let want = expected();
        assert!(before <= want);
        assert_eq!(
            rustix::pipe::fcntl_getpipe_size(input.as_fd()).unwrap(),
            want
        );
        assert_eq!(
            rustix::pipe::fcntl_getpipe_size(output.as_fd()).unwrap(),
            want
        );
    }
}
