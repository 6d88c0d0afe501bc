//! POST: one JSON-RPC message (or a 2025-03-26 batch) in, its answer out — JSON, or an SSE
//! stream when messages come before the result and the client reads SSE.

use std::sync::Arc;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{self, EnvelopeError, Message};
use http::{Request, StatusCode};
use http_body_util::{BodyExt, LengthLimitError};
use tokio::sync::{OwnedSemaphorePermit, mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use super::{Endpoint, session_id, set_session_header};
use crate::engine::{
    self, Arrival, Engine, Envelope, Handled, On, Reply, Response as EngineResponse, Status,
};
use crate::peer::session::Connection;
use crate::peer::sink::Sink;
use crate::request::{Caller, HttpRequest};
use crate::store::StreamKind;
use crate::transport::http::layers::{BodyLimit, accepts};
use crate::transport::http::reply;
use crate::transport::http::session::HttpSession;
use crate::transport::http::sse::SseBody;

impl Endpoint {
    pub(crate) async fn post(self: Arc<Self>, request: Request<Body>) -> Response {
        // At the limit, refuse before reading the body: the cheapest answer there is.
        let Ok(permit) = self.in_flight.clone().try_acquire_owned() else {
            return reply::busy(None, "too many requests in flight; retry shortly");
        };
        let (parts, body) = request.into_parts();
        let max = parts
            .extensions
            .get::<BodyLimit>()
            .map_or(self.options.max_body_size, |l| l.0);
        let collected = tokio::time::timeout(self.options.body_read_timeout, body.collect()).await;
        let bytes: Bytes = match collected {
            Err(_elapsed) => return reply::body_timeout(),
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(e)) if is_too_large(&e) => return reply::too_large(max),
            Ok(Err(e)) => {
                return reply::error(
                    StatusCode::BAD_REQUEST,
                    None,
                    &ErrorObject::parse_error(format!("the request body could not be read: {e}")),
                );
            }
        };
        // The body is this message's alone: the message keeps it, so a large `params` is not
        // copied out of it (`Vec::from` takes the buffer over when nothing else holds it).
        // Shared by the requests of this POST (a batch's), carried to their handlers.
        let parts = Arc::new(parts);
        let arrival = Arrival::Http {
            headers: &parts.headers,
            names_session: !matches!(session_id(&parts.headers), Ok(None)),
            caller: &Self::caller(&parts),
        };
        let handled = self.engine.handle(Vec::from(bytes), arrival);
        match handled {
            Handled::Refused(refusal) => reply::json(StatusCode::BAD_REQUEST, refusal.json),
            Handled::Request {
                request,
                envelope,
                on,
            } => self.request(parts, request, envelope, on, permit).await,
            Handled::Absorb(message) => self.absorb(parts, message).await,
            Handled::Accepted => reply::empty(StatusCode::ACCEPTED),
            Handled::Run(work) => {
                self.run_notice(work);
                reply::empty(StatusCode::ACCEPTED)
            }
            Handled::Batch { items, requests } => self.batch(parts, items, requests, permit).await,
        }
    }

    /// Runs a request on the connection the engine named: one of its own, a new session,
    /// or the session the request names.
    async fn request(
        self: Arc<Self>,
        parts: Arc<http::request::Parts>,
        request: jsonrpc::Request,
        envelope: Option<Envelope>,
        on: On,
        permit: OwnedSemaphorePermit,
    ) -> Response {
        match (on, self.engine.mint(on)) {
            (On::NewSession, Some(conn)) => {
                return self
                    .initialize(&parts, conn, request, envelope, permit)
                    .await;
            }
            (_, Some(conn)) => {
                return self
                    .dispatch(&parts, conn, request, envelope, None, permit)
                    .await;
            }
            (_, None) => {}
        }
        let session = match self.session(&parts, Some(&request.id)).await {
            Ok(s) => s,
            Err(r) => return r,
        };
        if session.conn.in_flight_len() >= self.engine.config().max_in_flight {
            return reply::busy(
                Some(&request.id),
                "this session has too many requests in flight; retry shortly",
            );
        }
        let conn = session.conn.clone();
        if self.options.shared.is_none() {
            return self
                .dispatch(&parts, conn, request, envelope, Some(session), permit)
                .await;
        }
        // A shared session is written through when the request changed it.
        let id = request.id.clone();
        let response = self
            .dispatch(
                &parts,
                conn,
                request,
                envelope,
                Some(session.clone()),
                permit,
            )
            .await;
        self.persist(&session, Some(&id), response).await
    }

    /// `initialize`: a new legacy session, kept (and written to the session store, if any)
    /// once the handshake succeeded. A session id sent with it is ignored: ids are only
    /// ever minted here.
    async fn initialize(
        self: &Arc<Self>,
        parts: &Arc<http::request::Parts>,
        conn: Arc<Connection>,
        request: jsonrpc::Request,
        envelope: Option<Envelope>,
        permit: OwnedSemaphorePermit,
    ) -> Response {
        self.ensure_background();
        let id = request.id.clone();
        let session = Arc::new(HttpSession::new(
            conn.clone(),
            Self::principal(parts),
            self.shared_streams(),
        ));
        let mut response = self
            .dispatch(parts, conn.clone(), request, envelope, None, permit)
            .await;
        if Engine::opened(&conn) {
            // With a shared store, a session it does not know is no session at all.
            if let Err(e) = self.write_through(&session).await {
                tracing::warn!(error = %e, "initialize: the shared session store failed");
                session.end();
                return reply::busy(Some(&id), "the session store is unreachable; retry shortly");
            }
            set_session_header(&mut response, &session);
            self.store.insert(session);
        }
        response
    }

    /// Runs a request and answers with JSON, or with SSE when messages come before its
    /// result and the client accepts SSE.
    async fn dispatch(
        self: &Arc<Self>,
        parts: &Arc<http::request::Parts>,
        conn: Arc<Connection>,
        request: jsonrpc::Request,
        envelope: Option<Envelope>,
        session: Option<Arc<HttpSession>>,
        permit: OwnedSemaphorePermit,
    ) -> Response {
        let id = request.id.clone();
        let cancel = match Engine::admit(&conn, &id) {
            Ok(cancel) => cancel,
            Err(duplicate) => return reply::json(StatusCode::CONFLICT, duplicate.json),
        };
        let modern = envelope.as_ref().is_some_and(Envelope::is_modern);
        let sse = !self.options.json_only && accepts(&parts.headers, "text/event-stream");
        let (tx, notes) = mpsc::channel::<String>(64);
        let (last_tx, last) = oneshot::channel::<EngineResponse>();
        // A legacy session's SSE streams are resumable, and the handler may close them early.
        // A legacy session's requests are children of its span.
        let parent = session.as_ref().map(|s| s.span.clone());
        // A shared session is written through when its handler is done, before its answer
        // goes out, also when that answer streams.
        let shared = session
            .as_ref()
            .filter(|_| self.options.shared.is_some())
            .map(|s| (self.clone(), s.clone()));
        let resumable = session.filter(|_| sse && !modern);
        let close = CancellationToken::new();
        let sink = match &resumable {
            // Closing a response stream before its answer, for the client to resume it, is
            // 2025-11-25's (with the priming event that gives the client an id to resume
            // from); before it the stream must stay open until the answer is sent.
            Some(session) if session.primes_streams() => Sink::Closable(tx.clone(), close.clone()),
            Some(_) => Sink::Channel(tx.clone()),
            None if sse => Sink::Channel(tx.clone()),
            None if modern => Sink::Discard,
            None => conn.sink(),
        };
        self.run(Handling {
            conn,
            request,
            envelope,
            sink,
            cancel: cancel.clone(),
            caller: Self::caller(parts),
            parent,
            shared,
            permit,
            stream: tx,
            last: last_tx,
        })
        .await;
        let answer = Answer {
            notes,
            last,
            sse,
            modern,
        };
        match resumable {
            Some(session) => self.answer_resumable(session, answer, close).await,
            None => self.answer(answer, cancel).await,
        }
    }

    /// Runs a request in the engine.
    async fn run(&self, handling: Handling) {
        let Handling {
            conn,
            request,
            envelope,
            sink,
            cancel: task_cancel,
            caller,
            parent,
            shared,
            permit,
            stream: tx,
            last: last_tx,
        } = handling;
        let id = request.id.clone();
        let engine = self.engine.clone();
        let shutdown = self.shutdown.clone();
        // Boxed once: the request's future is several KB. A request that completes without
        // waiting is answered from this task; one that waits goes on as its own (tracked)
        // task, polled again there with its own waker, so it outlives a dropped connection.
        // The in-flight permit goes with it. Made in its box, not copied there from the stack
        // as `Box::pin` would.
        let task = Box::into_pin(Box::write(Box::new_uninit(), async move {
            let handled = Engine::handle_registered(
                &engine,
                &conn,
                request,
                envelope,
                sink,
                task_cancel,
                caller,
            );
            let reply = match parent {
                Some(span) => handled.instrument(span).await,
                None => handled.await,
            };
            if let Some((endpoint, session)) = shared {
                // Failing, the session is re-read before it is trusted again.
                if let Err(e) = endpoint.write_through(&session).await {
                    tracing::warn!(error = %e, "the shared session store failed after a request");
                }
            }
            match reply {
                Reply::Response(r) => {
                    drop(permit);
                    let _ = last_tx.send(r);
                }
                Reply::Silent => drop(permit),
                Reply::Listen(listen) => {
                    // A listen stream lasts: it does not hold a request slot.
                    drop(permit);
                    let listened = listen.run(Sink::Channel(tx), shutdown).await;
                    conn.end(&id);
                    if let Some(json) = listened {
                        let _ = last_tx.send(EngineResponse {
                            json,
                            status: Status::Ok,
                            error: None,
                            tool_error: false,
                        });
                    }
                }
            }
        }));
        if let Err(task) = engine::poll_once(task).await {
            self.tasks.spawn(task);
        }
    }

    /// The answer to a legacy session's request read as SSE: a resumable stream when
    /// messages come first (or every answer is streamed), JSON otherwise. A dropped
    /// connection is not a cancellation (the client cancels with
    /// `notifications/cancelled`); the stream can be resumed with `Last-Event-ID`.
    async fn answer_resumable(
        &self,
        session: Arc<HttpSession>,
        answer: Answer,
        close: CancellationToken,
    ) -> Response {
        let Answer {
            mut notes,
            mut last,
            ..
        } = answer;
        tokio::select! {
            biased;
            Some(first) = notes.recv() => {
                self.resumable_stream(session, Some(first), notes, last, close)
            }
            () = close.cancelled() => {
                self.resumable_stream(session, None, notes, last, close)
            }
            result = &mut last => {
                let queued = drain(&mut notes);
                match result {
                    // A step-up challenge is never streamed: its status is the message.
                    Ok(response)
                        if queued.is_empty()
                            && (!self.options.sse_responses
                                || matches!(response.status, Status::InsufficientScope(_))) =>
                    {
                        reply::engine(response, false)
                    }
                    // Streamed all the same (messages came before it, or every answer
                    // is streamed): through the session's event log, so its events have
                    // ids and the stream can be resumed, as any other of the session's.
                    Ok(response) => {
                        let (feed, notes) = mpsc::channel(queued.len().max(1));
                        for note in queued {
                            let _ = feed.try_send(note);
                        }
                        drop(feed);
                        let (last_tx, last) = oneshot::channel();
                        let _ = last_tx.send(response);
                        self.resumable_stream(session, None, notes, last, close)
                    }
                    // Cancelled: nothing is sent for it, on a stream that ends (a
                    // request is answered with a JSON or an event-stream body).
                    Err(_) => reply::sse(SseBody::new(Vec::new(), None, None, None, None)),
                }
            }
        }
    }

    /// The answer to any other request: JSON, or SSE when messages come before the result
    /// and the client reads SSE.
    async fn answer(&self, answer: Answer, cancel: CancellationToken) -> Response {
        let Answer {
            mut notes,
            mut last,
            sse,
            modern,
        } = answer;
        // The request is cancelled if this future is dropped (the client went away) before
        // the answer is complete.
        let guard = cancel.drop_guard();
        tokio::select! {
            biased;
            Some(first) = notes.recv() => {
                let body = SseBody::new(
                    vec![first],
                    Some(notes),
                    Some(last),
                    Some(self.options.keep_alive),
                    Some(guard),
                );
                reply::sse(body)
            }
            result = &mut last => {
                let _ = guard.disarm();
                let mut queued = drain(&mut notes);
                match result {
                    // Errors keep their HTTP status: only a 200 answer becomes a stream.
                    Ok(response)
                        if queued.is_empty()
                            && !(sse
                                && self.options.sse_responses
                                && matches!(response.status, Status::Ok)) =>
                    {
                        reply::engine(response, modern)
                    }
                    Ok(response) => {
                        queued.push(response.json);
                        reply::sse(SseBody::new(queued, None, None, None, None))
                    }
                    // Cancelled: nothing is sent for it, on a stream that ends when the
                    // client takes one (a request is answered with a JSON or an
                    // event-stream body); a client that takes only JSON gets no body.
                    Err(_) if sse => reply::sse(SseBody::new(Vec::new(), None, None, None, None)),
                    Err(_) => reply::empty(StatusCode::NO_CONTENT),
                }
            }
        }
    }

    /// Streams a legacy request's messages as a resumable SSE stream: each event has an id,
    /// is kept in the session's event log, and reaches whichever connection follows the
    /// stream — this response, or a later GET with `Last-Event-ID`.
    fn resumable_stream(
        &self,
        session: Arc<HttpSession>,
        first: Option<String>,
        mut notes: mpsc::Receiver<String>,
        last: oneshot::Receiver<EngineResponse>,
        close: CancellationToken,
    ) -> Response {
        let (stream, feed) = session.events.open();
        self.tasks.spawn(async move {
            // Known to the shared store (if any) before the client can name it.
            session.events.opened(stream, StreamKind::Response).await;
            if session.primes_streams() {
                session
                    .events
                    .send_unlogged(stream, session.events.priming(stream));
            }
            if let Some(first) = first {
                session.events.push(stream, &first).await;
            }
            let mut closed = false;
            loop {
                tokio::select! {
                    note = notes.recv() => match note {
                        Some(note) => session.events.push(stream, &note).await,
                        None => break,
                    },
                    () = close.cancelled(), if !closed => {
                        closed = true;
                        session.events.detach(stream);
                    }
                }
            }
            if let Ok(response) = last.await {
                session.events.push(stream, &response.json).await;
            }
            session.events.finish(stream).await;
        });
        reply::sse(SseBody::frames(feed, Some(self.options.keep_alive)))
    }

    /// A notification or a client's response of a session: handed to the engine, answered
    /// 202.
    async fn absorb(
        self: Arc<Self>,
        parts: Arc<http::request::Parts>,
        message: Message,
    ) -> Response {
        let session = match self.session(&parts, None).await {
            Ok(s) => s,
            Err(r) => return r,
        };
        if let Some(work) = self
            .engine
            .absorb(&session.conn, message, Self::caller(&parts))
        {
            self.run_session_notice(&session, work);
        }
        reply::empty(StatusCode::ACCEPTED)
    }

    /// A batch: only for legacy sessions whose revision allows them. Its requests run at
    /// once, so each takes a place of the in-flight limits, the endpoint's and the
    /// session's, as it would sent alone. The batch is refused whole: 400 when it holds more
    /// requests than a session may run, 503 (retry) when they lack room now.
    async fn batch(
        self: Arc<Self>,
        parts: Arc<http::request::Parts>,
        items: Vec<Result<Message, EnvelopeError>>,
        requests: usize,
        permit: OwnedSemaphorePermit,
    ) -> Response {
        let session = match self.session(&parts, None).await {
            Ok(s) => s,
            Err(r) => return r,
        };
        // A batch the session's revision does not allow is refused by the engine, whole.
        let allowed = engine::batch::allows_batches(&session.conn);
        let per_session = self.engine.config().max_in_flight;
        let mut places = None;
        if allowed && requests > 1 {
            if requests > per_session {
                return reply::bad_request(
                    None,
                    format!(
                        "a batch may hold at most {per_session} requests: they run at once, \
                         and a session runs at most {per_session}"
                    ),
                );
            }
            if session.conn.in_flight_len() + requests > per_session {
                return reply::busy(
                    None,
                    "this session has too many requests in flight for this batch; retry shortly",
                );
            }
            // The body's permit is the first request's place.
            let more = u32::try_from(requests - 1).unwrap_or(u32::MAX);
            match self.in_flight.clone().try_acquire_many_owned(more) {
                Ok(more) => places = Some(more),
                Err(_) => {
                    return reply::busy(
                        None,
                        "too many requests in flight for this batch; retry shortly",
                    );
                }
            }
        }
        let _held = (permit, places);
        let conn = session.conn.clone();
        let response = match self
            .engine
            .handle_batch(&conn, items, conn.sink(), Self::caller(&parts), |w| {
                self.run_session_notice(&session, w);
            })
            .await
        {
            Err(refusal) => reply::error(StatusCode::BAD_REQUEST, None, &refusal),
            Ok(answered) => match answered.into_body() {
                Some(body) => reply::json(StatusCode::OK, body),
                None => reply::empty(StatusCode::ACCEPTED),
            },
        };
        self.persist(&session, None, response).await
    }
}

impl Endpoint {
    /// Who sent the POST `parts` belongs to, and the request itself, for its handlers.
    fn caller(parts: &Arc<http::request::Parts>) -> Caller {
        Caller {
            principal: Self::principal(parts),
            http: Some(HttpRequest::new(parts.clone())),
        }
    }
}

/// A request on its way into the engine, and where its messages and answer go.
struct Handling {
    conn: Arc<Connection>,
    request: jsonrpc::Request,
    envelope: Option<Envelope>,
    sink: Sink,
    cancel: CancellationToken,
    caller: Caller,
    /// The span of the legacy session the request belongs to.
    parent: Option<tracing::Span>,
    /// With a shared session store: the endpoint and the session to write through once
    /// the handler is done.
    shared: Option<(Arc<Endpoint>, Arc<HttpSession>)>,
    permit: OwnedSemaphorePermit,
    /// Where a listen stream's messages go.
    stream: mpsc::Sender<String>,
    last: oneshot::Sender<EngineResponse>,
}

/// What a running request sends back: messages before its result, then the result.
struct Answer {
    notes: mpsc::Receiver<String>,
    last: oneshot::Receiver<EngineResponse>,
    /// The client reads SSE.
    sse: bool,
    modern: bool,
}

fn drain(notes: &mut mpsc::Receiver<String>) -> Vec<String> {
    let mut queued = Vec::new();
    while let Ok(note) = notes.try_recv() {
        queued.push(note);
    }
    queued
}

/// Whether reading the body failed because it outgrew the body limit.
fn is_too_large(e: &axum::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cause {
        if err.is::<LengthLimitError>() {
            return true;
        }
        cause = err.source();
    }
    false
}
