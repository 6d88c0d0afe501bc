//! A legacy SSE stream resumed on an instance that did not open it: the client's
//! reconnection (GET with `Last-Event-ID`) reached another instance behind the load
//! balancer, or the instance that held the stream is gone. The shared session store has the
//! stream's events (written before they were sent, see [`resume`](crate::transport::http::resume)), so:
//!
//! - a **response stream** (the answer to one POST) is replayed from the event after the
//!   client's last one, then followed in the store until it ends. The instance answering the
//!   request writes the rest there; if nothing comes for [`FOLLOW_IDLE`] (that instance
//!   died with the request), the connection closes and the client may reconnect again;
//! - a **standalone stream** (the session's GET stream) is replayed, then goes on as this
//!   instance's GET stream of the session: what the session's server-initiated messages
//!   reach from now on.
//!
//! Each event reaches the client once: the replay starts after the client's last event, and
//! the follower asks only for events after the last one it passed on. Events are passed on
//! only without a hole: when the event after the client's last one is gone (trimmed, or a
//! write to the store failed), nothing is replayed, and a hole later on ends the connection
//! there.

use std::sync::Arc;
use std::time::Duration;

use axum::response::Response;
use bytes::Bytes;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::Endpoint;
use crate::store::{EventStore, StreamKind};
use crate::transport::http::reply;
use crate::transport::http::resume::{LIVE_CAPACITY, parse_event_id, stream_key};
use crate::transport::http::session::HttpSession;
use crate::transport::http::sse::SseBody;

/// How often a followed stream is read from the store.
pub(crate) const FOLLOW_POLL: Duration = Duration::from_millis(100);
/// How long a followed stream may bring nothing new before its connection closes.
pub(crate) const FOLLOW_IDLE: Duration = Duration::from_secs(30);

/// What the shared store makes of a `Last-Event-ID` this instance's log does not know.
pub(crate) enum Elsewhere {
    /// No such stream in the store either: a new stream starts.
    Unknown,
    /// Another instance's GET stream: these events first, then this instance's stream.
    Standalone(Vec<Bytes>),
    /// Another instance's response stream, replayed and followed.
    Followed(Response),
}

impl Endpoint {
    /// Looks for the stream `last_event_id` names in the shared store.
    #[allow(clippy::result_large_err)]
    pub(crate) async fn resume_elsewhere(
        &self,
        session: &HttpSession,
        last_event_id: &str,
    ) -> Result<Elsewhere, Response> {
        let Some(shared) = session.events.shared() else {
            return Ok(Elsewhere::Unknown);
        };
        let Ok((tag, stream, after)) = parse_event_id(last_event_id) else {
            return Ok(Elsewhere::Unknown);
        };
        let key = stream_key(&shared.session, tag, stream);
        let stored = match shared.store.read_stream(&key, after).await {
            Ok(Some(stored)) => stored,
            Ok(None) => return Ok(Elsewhere::Unknown),
            Err(error) => {
                tracing::warn!(%error, "resuming an SSE stream needs the shared store, which failed");
                return Err(reply::busy(
                    None,
                    "the session store is unreachable; retry shortly",
                ));
            }
        };
        let (events, whole) = contiguous(after, stored.events);
        if !whole && events.is_empty() {
            // The event after the client's last one is gone (trimmed, or never written):
            // nothing can be replayed exactly.
            return Ok(Elsewhere::Unknown);
        }
        let last = events.last().map_or(after, |(n, _)| *n);
        let frames: Vec<Bytes> = events
            .into_iter()
            .map(|(_, frame)| Bytes::from(frame))
            .collect();
        match stored.kind {
            StreamKind::Standalone => Ok(Elsewhere::Standalone(frames)),
            StreamKind::Response => {
                let (tx, rx) = mpsc::channel(LIVE_CAPACITY + frames.len());
                for frame in frames {
                    let _ = tx.try_send(frame);
                }
                // After a hole the stream is not followed: the connection ends at the hole.
                if whole && !stored.finished {
                    let store = shared.store.clone();
                    let shutdown = self.shutdown.clone();
                    self.tasks
                        .spawn(follow(store, key, last, tx, shutdown, FOLLOW_IDLE));
                }
                let body = SseBody::frames(rx, Some(self.options.keep_alive));
                Ok(Elsewhere::Followed(reply::sse(body)))
            }
        }
    }
}

/// Passes on the events another instance writes to stream `key` after event `after`, until
/// the stream ends or expires, the client goes, the server shuts down, or nothing new
/// arrives for `idle`.
async fn follow(
    store: Arc<dyn EventStore>,
    key: String,
    mut after: u64,
    tx: mpsc::Sender<Bytes>,
    shutdown: CancellationToken,
    idle: Duration,
) {
    let mut heard = Instant::now();
    loop {
        tokio::select! {
            () = tokio::time::sleep(FOLLOW_POLL) => {}
            () = tx.closed() => return,
            () = shutdown.cancelled() => return,
        }
        match store.read_stream(&key, after).await {
            Ok(Some(stored)) => {
                let (events, whole) = contiguous(after, stored.events);
                if !events.is_empty() {
                    heard = Instant::now();
                }
                for (n, frame) in events {
                    if tx.send(Bytes::from(frame)).await.is_err() {
                        return;
                    }
                    after = n;
                }
                // A hole (this follower fell more than the store keeps behind): end here.
                if stored.finished || !whole {
                    return;
                }
            }
            Ok(None) => return,
            // Tried again at the next poll; the idle bound ends a long outage.
            Err(error) => tracing::debug!(%error, "reading a followed SSE stream failed"),
        }
        if heard.elapsed() >= idle {
            return;
        }
    }
}

/// The events that follow `after` without a gap, and whether that is all of them.
fn contiguous(after: u64, events: Vec<(u64, String)>) -> (Vec<(u64, String)>, bool) {
    let mut kept = Vec::with_capacity(events.len());
    for (next, (n, frame)) in (after + 1..).zip(events) {
        if n != next {
            return (kept, false);
        }
        kept.push((n, frame));
    }
    (kept, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(numbers: &[u64]) -> Vec<(u64, String)> {
        numbers.iter().map(|n| (*n, format!("e{n}"))).collect()
    }

    #[test]
    fn only_events_without_a_hole_are_replayed() {
        let numbers = |(kept, whole): (Vec<(u64, String)>, bool)| {
            (kept.iter().map(|(n, _)| *n).collect::<Vec<_>>(), whole)
        };
        assert_eq!(
            numbers(contiguous(3, events(&[4, 5, 6]))),
            (vec![4, 5, 6], true)
        );
        assert_eq!(numbers(contiguous(3, events(&[]))), (vec![], true));
        assert_eq!(
            numbers(contiguous(0, events(&[1, 2, 4]))),
            (vec![1, 2], false)
        );
        assert_eq!(
            numbers(contiguous(3, events(&[6, 7]))),
            (vec![], false),
            "trimmed"
        );
    }
}
