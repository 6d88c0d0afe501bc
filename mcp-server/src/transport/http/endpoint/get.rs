//! GET: a legacy session's stream of server-initiated messages, or the rest of a stream
//! named by `Last-Event-ID` (from this instance's log, or from the event store).

use std::sync::Arc;

use axum::body::Body;
use axum::response::Response;
use http::{Request, StatusCode};
use tokio::sync::mpsc;

use super::handover::Elsewhere;
use super::{Endpoint, session_id};
use crate::peer::sink::Sink;
use crate::store::StreamKind;
use crate::transport::http::layers::accepts;
use crate::transport::http::reply;
use crate::transport::http::resume;
use crate::transport::http::session::HttpSession;
use crate::transport::http::sse::SseBody;

impl Endpoint {
    /// The session of a GET or DELETE: without a session id these methods are not allowed.
    #[allow(clippy::result_large_err)]
    pub(super) async fn stream_session(
        self: &Arc<Self>,
        parts: &http::request::Parts,
    ) -> Result<Arc<HttpSession>, Response> {
        // Without one they are not allowed; a malformed one is a bad request (`session`).
        if matches!(session_id(&parts.headers), Ok(None)) {
            return Err(reply::method_not_allowed());
        }
        self.session(parts, None).await
    }

    /// GET: a legacy session's stream of server-initiated messages, or the rest of a stream
    /// named by `Last-Event-ID`.
    pub(crate) async fn get(self: Arc<Self>, request: Request<Body>) -> Response {
        let (parts, _) = request.into_parts();
        let session = match self.stream_session(&parts).await {
            Ok(s) => s,
            Err(r) => return r,
        };
        if !accepts(&parts.headers, "text/event-stream") {
            return reply::error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                &ferromcp_core::error::ErrorObject::invalid_request(
                    "Not Acceptable: the GET stream is text/event-stream",
                ),
            );
        }
        let keep_alive = Some(self.options.keep_alive);
        // Resumption: the missed events of the stream the id names, then the rest of it.
        let mut replayed = Vec::new();
        if let Some(last) = parts.headers.get("last-event-id") {
            let Ok(last) = last.to_str() else {
                return reply::bad_request(None, "Bad Request: malformed Last-Event-ID");
            };
            match session.events.resume(last) {
                Ok(Some(feed)) => return reply::sse(SseBody::frames(feed, keep_alive)),
                // Not a stream of this instance: perhaps one of another's (shared store).
                Ok(None) => match self.resume_elsewhere(&session, last).await {
                    Ok(Elsewhere::Followed(response)) => return response,
                    Ok(Elsewhere::Standalone(frames)) => replayed = frames,
                    // Another session's id, or a stream long gone: nothing to replay.
                    Ok(Elsewhere::Unknown) => {}
                    Err(response) => return response,
                },
                Err(resume::MalformedEventId) => {
                    return reply::bad_request(None, "Bad Request: malformed Last-Event-ID");
                }
            }
        }
        let (stream, feed) = session.events.open_with_room(replayed.len());
        for frame in replayed {
            session.events.send_unlogged(stream, frame);
        }
        let (tx, mut rx) = mpsc::channel::<String>(256);
        // A new stream replaces the previous one, which then ends.
        session.conn.set_sink(Sink::Channel(tx));
        let forwarded = session.clone();
        let shutdown = self.shutdown.clone();
        self.tasks.spawn(async move {
            // Known to the shared store (if any) before the client can name it.
            forwarded
                .events
                .opened(stream, StreamKind::Standalone)
                .await;
            if forwarded.primes_streams() {
                forwarded
                    .events
                    .send_unlogged(stream, forwarded.events.priming(stream));
            }
            loop {
                tokio::select! {
                    message = rx.recv() => match message {
                        Some(message) => forwarded.events.push(stream, &message).await,
                        None => break,
                    },
                    () = shutdown.cancelled() => break,
                }
            }
            forwarded.events.finish(stream).await;
        });
        reply::sse(SseBody::frames(feed, keep_alive))
    }
}
