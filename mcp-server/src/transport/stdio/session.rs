//! The session loop: one connection's lines read, handled and answered in order.

use std::ops::ControlFlow;
use std::sync::Arc;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{EnvelopeError, Message, Request};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::lines::{Line, LineReader};
use super::output::Output;
use crate::custom::NoticeLimit;
use crate::engine::{self, Arrival, Engine, Envelope, Handled, Reply, Response};
use crate::peer::session::Connection;
use crate::peer::sink::Sink;
use crate::principal::Principal;
use crate::request::Caller;

/// Messages waiting for the writer; beyond this, senders wait.
const OUTBOUND_CAPACITY: usize = 1024;

/// One stdio connection being served: what the reading loop and its handlers share.
struct Session<'e, W> {
    engine: &'e Engine,
    conn: Arc<Connection>,
    sink: Sink,
    /// Who every request is from (no HTTP request over a pipe).
    caller: Caller,
    /// The in-flight limit: a request holds a permit until its response is handed over.
    limit: Arc<Semaphore>,
    /// The bound on notification handlers running at once (`max_in_flight` too).
    notices: NoticeLimit,
    tasks: JoinSet<()>,
    /// Cancelled at end of input: listen streams and the change forwarder stop.
    done: CancellationToken,
    out: Output<W>,
    /// The outbound queue the sink feeds.
    rx: mpsc::Receiver<String>,
}

/// Serves one connection: reads `input` until it ends, then lets what is in flight finish
/// and writes every response before returning.
pub(super) async fn serve_in_session<R, W>(
    engine: &Engine,
    input: R,
    output: W,
    principal: Option<Arc<Principal>>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<String>(OUTBOUND_CAPACITY);
    let sink = Sink::Channel(tx);
    let conn = engine.pipe(sink.clone());
    let done = CancellationToken::new();
    let forwarder = tokio::spawn(forward_changes(engine.clone(), conn.clone(), done.clone()));
    let mut session = Session {
        engine,
        conn,
        sink,
        caller: Caller::principal(principal),
        limit: Arc::new(Semaphore::new(engine.config().max_in_flight)),
        notices: NoticeLimit::new(engine.config().max_in_flight),
        tasks: JoinSet::new(),
        done,
        out: Output::new(output),
        rx,
    };
    let mut reader = LineReader::new(input, 64 * 1024, engine.config().max_message_size);
    let read_result = session.read_all(&mut reader).await;
    let written = session.finish(forwarder).await;
    read_result.and(written)
}

impl<W: AsyncWrite + Unpin> Session<'_, W> {
    /// Reads and handles lines until the input ends, a write fails or the server stops
    /// taking requests.
    async fn read_all<R: AsyncRead + Unpin>(
        &mut self,
        reader: &mut LineReader<R>,
    ) -> std::io::Result<()> {
        loop {
            while self.tasks.try_join_next().is_some() {}
            // What the tasks queued goes out first; the buffer is flushed only when no
            // further line is already waiting, so a burst of requests costs one write.
            self.out.drain(&mut self.rx).await;
            if !reader.line_ready() {
                self.out.flush().await;
            }
            if self.out.failed() {
                return Ok(());
            }
            let next = tokio::select! {
                biased;
                Some(message) = self.rx.recv() => {
                    self.out.write(&message).await;
                    continue;
                }
                next = reader.next() => next,
            };
            match next? {
                Line::Text(line) => {
                    if self.line(line).await.is_break() {
                        return Ok(());
                    }
                }
                Line::TooLong => {
                    let e = ErrorObject::invalid_request(format!(
                        "message larger than {} bytes",
                        self.engine.config().max_message_size
                    ));
                    self.out.write(&Response::error(None, &e).json).await;
                }
                Line::Eof => return Ok(()),
            }
        }
    }

    /// Handles one line; `Break` when no more requests can be taken.
    #[inline]
    async fn line(&mut self, line: Vec<u8>) -> ControlFlow<()> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return ControlFlow::Continue(());
        }
        match self.engine.handle(line, Arrival::Pipe) {
            Handled::Refused(refusal) => self.out.write(&refusal.json).await,
            Handled::Request {
                request, envelope, ..
            } => return self.request(request, envelope).await,
            Handled::Absorb(message) => {
                let work = self.engine.absorb(&self.conn, message, self.caller.clone());
                if let Some(work) = work.and_then(|w| self.notices.admit(w)) {
                    self.tasks.spawn(work);
                }
            }
            Handled::Accepted => {}
            Handled::Run(work) => {
                if let Some(work) = self.notices.admit(work) {
                    self.tasks.spawn(work);
                }
            }
            Handled::Batch { items, .. } => return self.batch(items).await,
        }
        ControlFlow::Continue(())
    }

    /// Runs a request: answered on the spot when its handler completes without waiting,
    /// else as a task of its own.
    #[inline]
    async fn request(&mut self, req: Request, envelope: Option<Envelope>) -> ControlFlow<()> {
        let cancel = match Engine::admit(&self.conn, &req.id) {
            Ok(cancel) => cancel,
            Err(duplicate) => {
                self.out.write(&duplicate.json).await;
                return ControlFlow::Continue(());
            }
        };
        // Backpressure: no permit, no more reading.
        let Ok(permit) = self
            .out
            .while_draining(&mut self.rx, self.limit.clone().acquire_owned())
            .await
        else {
            return ControlFlow::Break(());
        };
        let (engine, task_conn, task_sink) =
            (self.engine.clone(), self.conn.clone(), self.sink.clone());
        // Boxed once (the future is several KB), made in its box (`Box::write` into an
        // uninitialized one: `Box::pin(future)` makes it on the stack and copies it over).
        let future = Box::into_pin(Box::write(
            Box::new_uninit(),
            Engine::handle_registered(
                engine,
                task_conn,
                req,
                envelope,
                task_sink,
                cancel,
                self.caller.clone(),
            ),
        ));
        let (conn, sink, done) = (self.conn.clone(), self.sink.clone(), self.done.clone());
        match engine::poll_once(future).await {
            Ok(Reply::Response(r)) => {
                // Whatever the handler sent before its result goes first.
                self.out.drain(&mut self.rx).await;
                self.out.write(&r.json).await;
                drop(permit);
            }
            Ok(Reply::Silent) => drop(permit),
            Ok(listen @ Reply::Listen(_)) => {
                drop(permit);
                self.tasks
                    .spawn(async move { deliver(&conn, listen, &sink, &done).await });
            }
            Err(future) => {
                self.tasks.spawn(async move {
                    let reply = future.await;
                    // The permit is held until the response is handed to the writer, so a
                    // slow reader of our output slows the reading of our input too; only a
                    // listen stream, which lasts, gives it back first.
                    if matches!(reply, Reply::Listen(_)) {
                        drop(permit);
                    }
                    deliver(&conn, reply, &sink, &done).await;
                });
            }
        }
        ControlFlow::Continue(())
    }

    /// Runs a batch as a task of its own, under one permit.
    async fn batch(&mut self, items: Vec<Result<Message, EnvelopeError>>) -> ControlFlow<()> {
        let Ok(permit) = self
            .out
            .while_draining(&mut self.rx, self.limit.clone().acquire_owned())
            .await
        else {
            return ControlFlow::Break(());
        };
        let (engine, conn, sink) = (self.engine.clone(), self.conn.clone(), self.sink.clone());
        let (caller, notices) = (self.caller.clone(), self.notices.clone());
        self.tasks.spawn(async move {
            // The notifications' handlers each run on a task of their own, tracked by this
            // one, and go on after the answer.
            let mut handlers = JoinSet::new();
            let answered = engine
                .handle_batch(&conn, items, sink.clone(), caller, |w| {
                    if let Some(w) = notices.admit(w) {
                        handlers.spawn(w);
                    }
                })
                .await;
            match answered.map(engine::batch::Answered::into_body) {
                Ok(Some(body)) => sink.send(body).await,
                Ok(None) => {}
                Err(e) => sink.send(Response::error(None, &e).json).await,
            }
            drop(permit);
            while handlers.join_next().await.is_some() {}
        });
        ControlFlow::Continue(())
    }

    /// End of input: nothing more will be answered by the client, but what is in flight
    /// finishes and is written. The first write error, if any.
    async fn finish(mut self, forwarder: tokio::task::JoinHandle<()>) -> std::io::Result<()> {
        self.conn.input_closed();
        self.done.cancel();
        let tasks = &mut self.tasks;
        self.out
            .while_draining(&mut self.rx, async {
                while tasks.join_next().await.is_some() {}
                let _ = forwarder.await;
            })
            .await;
        self.conn.set_sink(Sink::Discard);
        let Session {
            sink,
            conn,
            mut out,
            mut rx,
            ..
        } = self;
        drop(sink);
        drop(conn);
        // Every sender is gone: the queue ends once it is empty.
        while let Some(message) = rx.recv().await {
            out.write(&message).await;
        }
        out.finish().await
    }
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
        if let Some(message) = Engine::change_for(&conn, &event) {
            conn.sink().send(message).await;
        }
    }
}

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
        let reply = engine
            .handle_request(&conn, req, Sink::Discard, crate::request::Caller::default())
            .await;
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
