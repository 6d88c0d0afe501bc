//! Server-Sent Events response bodies: a request's notifications then its final response,
//! or a long-lived stream (a legacy session's GET stream, a 2026 `subscriptions/listen`),
//! with keep-alive comments while idle. Dropping the body — the client went away — cancels
//! what it was streaming.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future as _;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::Frame;
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Interval, MissedTickBehavior};
use tokio_util::sync::DropGuard;

use crate::engine::Response;

/// One SSE event carrying a JSON-RPC message.
pub(crate) fn event(json: &str) -> Bytes {
    let mut out = Vec::with_capacity(json.len() + 16);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(json.as_bytes());
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

pub(crate) struct SseBody {
    queued: VecDeque<Bytes>,
    frames: Option<mpsc::Receiver<Bytes>>,
    notes: Option<mpsc::Receiver<String>>,
    last: Option<oneshot::Receiver<Response>>,
    keep_alive: Option<Interval>,
    _cancel_on_drop: Option<DropGuard>,
}

impl SseBody {
    /// A body that sends `queued`, then every message of `notes` until it closes, then `last`.
    pub(crate) fn new(
        queued: Vec<String>,
        notes: Option<mpsc::Receiver<String>>,
        last: Option<oneshot::Receiver<Response>>,
        keep_alive: Option<Duration>,
        cancel_on_drop: Option<DropGuard>,
    ) -> SseBody {
        let keep_alive = keep_alive.map(|period| {
            let mut i = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            i.set_missed_tick_behavior(MissedTickBehavior::Delay);
            i
        });
        SseBody {
            queued: queued.iter().map(|m| event(m)).collect(),
            frames: None,
            notes,
            last,
            keep_alive,
            _cancel_on_drop: cancel_on_drop,
        }
    }
}

impl SseBody {
    /// A body that sends frames already formatted (with their event ids) until `frames`
    /// closes: a resumable legacy stream.
    pub(crate) fn frames(frames: mpsc::Receiver<Bytes>, keep_alive: Option<Duration>) -> SseBody {
        let mut body = SseBody::new(Vec::new(), None, None, keep_alive, None);
        body.frames = Some(frames);
        body
    }
}

impl http_body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        if let Some(bytes) = this.queued.pop_front() {
            return Poll::Ready(Some(Ok(Frame::data(bytes))));
        }
        if let Some(frames) = &mut this.frames {
            return match frames.poll_recv(cx) {
                Poll::Ready(Some(bytes)) => {
                    if let Some(k) = &mut this.keep_alive {
                        k.reset();
                    }
                    Poll::Ready(Some(Ok(Frame::data(bytes))))
                }
                Poll::Ready(None) => Poll::Ready(None),
                Poll::Pending => {
                    if let Some(k) = &mut this.keep_alive
                        && k.poll_tick(cx).is_ready()
                    {
                        return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(KEEP_ALIVE)))));
                    }
                    Poll::Pending
                }
            };
        }
        if let Some(notes) = &mut this.notes {
            match notes.poll_recv(cx) {
                Poll::Ready(Some(message)) => {
                    if let Some(k) = &mut this.keep_alive {
                        k.reset();
                    }
                    return Poll::Ready(Some(Ok(Frame::data(event(&message)))));
                }
                Poll::Ready(None) => this.notes = None,
                Poll::Pending => {}
            }
        }
        if this.notes.is_none() {
            match &mut this.last {
                Some(last) => match Pin::new(last).poll(cx) {
                    Poll::Ready(Ok(response)) => {
                        this.last = None;
                        return Poll::Ready(Some(Ok(Frame::data(event(&response.json)))));
                    }
                    Poll::Ready(Err(_)) => {
                        this.last = None;
                        return Poll::Ready(None);
                    }
                    Poll::Pending => {}
                },
                None => return Poll::Ready(None),
            }
        }
        if let Some(k) = &mut this.keep_alive
            && k.poll_tick(cx).is_ready()
        {
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(KEEP_ALIVE)))));
        }
        Poll::Pending
    }
}
