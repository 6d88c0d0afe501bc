//! Resumable SSE streams of a legacy session (2025-03-26 to 2025-11-25): every event of a
//! session's streams gets an id that names the session, the stream and the event's place in
//! it, and the last events of each stream are kept, so a client that lost its connection
//! (or whose stream the server closed on purpose, SEP-1699 polling) reconnects with GET and
//! `Last-Event-ID` and receives exactly the events of *that* stream it missed, then the rest
//! of the stream as it happens.
//!
//! Bounded: at most [`MAX_EVENTS`] events per stream and [`MAX_STREAMS`] streams per session
//! are kept; a client slower than [`LIVE_CAPACITY`] buffered events is detached from its
//! stream (it can resume). Event ids carry a random tag of the session, so an id from
//! another session never replays anything here.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use bytes::Bytes;
use tokio::sync::mpsc;

use crate::sync::lock;

/// Events kept per stream for replay.
pub(crate) const MAX_EVENTS: usize = 256;
/// Streams kept per session; the oldest finished ones go first.
pub(crate) const MAX_STREAMS: usize = 32;
/// Events buffered for a connected client before it is detached as too slow.
pub(crate) const LIVE_CAPACITY: usize = 256;
/// The reconnection delay suggested to clients, in milliseconds.
pub(crate) const RETRY_MS: u64 = 3000;

struct Stream {
    next_seq: u64,
    events: VecDeque<(u64, Bytes)>,
    live: Option<mpsc::Sender<Bytes>>,
    finished: bool,
    opened: u64,
}

/// A `Last-Event-ID` that is not one of ours at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MalformedEventId;

/// The event log of one session.
pub(crate) struct EventLog {
    tag: String,
    next_stream: AtomicU64,
    streams: Mutex<HashMap<u64, Stream>>,
}

impl std::fmt::Debug for EventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLog").finish_non_exhaustive()
    }
}

impl EventLog {
    pub(crate) fn new() -> EventLog {
        let mut bytes = [0u8; 9];
        if getrandom::fill(&mut bytes).is_err() {
            tracing::warn!("the OS random number generator failed; event id tags are predictable");
        }
        EventLog {
            tag: base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes),
            next_stream: AtomicU64::new(1),
            streams: Mutex::new(HashMap::new()),
        }
    }

    fn id(&self, stream: u64, seq: u64) -> String {
        format!("{}.{stream}.{seq}", self.tag)
    }

    fn frame(&self, stream: u64, seq: u64, json: &str) -> Bytes {
        let mut out = Vec::with_capacity(json.len() + 64);
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(self.id(stream, seq).as_bytes());
        out.extend_from_slice(b"\nevent: message\ndata: ");
        out.extend_from_slice(json.as_bytes());
        out.extend_from_slice(b"\n\n");
        Bytes::from(out)
    }

    /// Opens a new stream with a connected client; returns its number and the client's feed.
    pub(crate) fn open(&self) -> (u64, mpsc::Receiver<Bytes>) {
        let number = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel(LIVE_CAPACITY);
        let mut streams = lock(&self.streams);
        while streams.len() >= MAX_STREAMS {
            // The oldest stream, finished ones first, makes room.
            let victim = streams
                .iter()
                .min_by_key(|(_, s)| (!s.finished, s.opened))
                .map(|(n, _)| *n);
            match victim {
                Some(n) => {
                    streams.remove(&n);
                }
                None => break,
            }
        }
        streams.insert(
            number,
            Stream {
                next_seq: 1,
                events: VecDeque::new(),
                live: Some(tx),
                finished: false,
                opened: number,
            },
        );
        (number, rx)
    }

    /// The priming event of a stream: an id and a reconnection delay, no data, so a client
    /// can resume a stream before its first message (2025-11-25).
    pub(crate) fn priming(&self, stream: u64) -> Bytes {
        Bytes::from(format!(
            "id: {}\nretry: {RETRY_MS}\ndata: \n\n",
            self.id(stream, 0)
        ))
    }

    /// Sends bytes to the stream's connected client, if any, without logging them.
    pub(crate) fn send_unlogged(&self, stream: u64, bytes: Bytes) {
        let mut streams = lock(&self.streams);
        if let Some(s) = streams.get_mut(&stream) {
            Self::deliver(s, bytes);
        }
    }

    fn deliver(s: &mut Stream, bytes: Bytes) {
        if let Some(live) = &s.live
            && live.try_send(bytes).is_err()
        {
            // Gone, or too slow: it can come back with Last-Event-ID.
            s.live = None;
        }
    }

    /// Appends a message to the stream and sends it to the connected client, if any.
    pub(crate) fn push(&self, stream: u64, json: &str) {
        let mut streams = lock(&self.streams);
        let Some(s) = streams.get_mut(&stream) else {
            return;
        };
        let seq = s.next_seq;
        s.next_seq += 1;
        let frame = self.frame(stream, seq, json);
        s.events.push_back((seq, frame.clone()));
        while s.events.len() > MAX_EVENTS {
            s.events.pop_front();
        }
        Self::deliver(s, frame);
    }

    /// Disconnects the stream's client (the server closes the stream on purpose); later
    /// messages are kept for when it reconnects.
    pub(crate) fn detach(&self, stream: u64) {
        if let Some(s) = lock(&self.streams).get_mut(&stream) {
            s.live = None;
        }
    }

    /// The stream has ended: its client's connection closes after the last event.
    pub(crate) fn finish(&self, stream: u64) {
        if let Some(s) = lock(&self.streams).get_mut(&stream) {
            s.finished = true;
            s.live = None;
        }
    }

    /// Resumes after `last_event_id`: `Ok(Some(feed))` with the missed events of that stream
    /// replayed and, if the stream is still open, the rest to come; `Ok(None)` when the id is
    /// well-formed but names no stream of this session (another session's, or forgotten).
    pub(crate) fn resume(
        &self,
        last_event_id: &str,
    ) -> Result<Option<mpsc::Receiver<Bytes>>, MalformedEventId> {
        let mut parts = last_event_id.trim().splitn(3, '.');
        let (Some(tag), Some(stream), Some(seq)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(MalformedEventId);
        };
        let (Ok(stream), Ok(seq)) = (stream.parse::<u64>(), seq.parse::<u64>()) else {
            return Err(MalformedEventId);
        };
        if tag != self.tag {
            return Ok(None);
        }
        let mut streams = lock(&self.streams);
        let Some(s) = streams.get_mut(&stream) else {
            return Ok(None);
        };
        let missed: Vec<Bytes> = s
            .events
            .iter()
            .filter(|(n, _)| *n > seq)
            .map(|(_, b)| b.clone())
            .collect();
        let (tx, rx) = mpsc::channel(LIVE_CAPACITY.max(missed.len() + 1));
        for frame in missed {
            let _ = tx.try_send(frame);
        }
        // A newer connection replaces an older one: each event goes to one connection.
        s.live = if s.finished { None } else { Some(tx) };
        Ok(Some(rx))
    }

    /// How many streams are kept (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        lock(&self.streams).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(rx: &mut mpsc::Receiver<Bytes>) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(b) = rx.try_recv() {
            out.push(String::from_utf8(b.to_vec()).unwrap());
        }
        out
    }

    fn id_of(frame: &str) -> &str {
        frame.lines().next().unwrap().strip_prefix("id: ").unwrap()
    }

    #[test]
    fn a_reconnect_replays_only_the_missed_events_of_that_stream() {
        let log = EventLog::new();
        let (a, mut live_a) = log.open();
        let (b, _live_b) = log.open();
        log.push(a, r#"{"n":1}"#);
        log.push(b, r#"{"other":1}"#);
        log.detach(a);
        log.push(a, r#"{"n":2}"#);
        log.push(a, r#"{"n":3}"#);
        let seen = drain(&mut live_a);
        assert_eq!(seen.len(), 1);
        let mut resumed = log.resume(id_of(&seen[0])).unwrap().unwrap();
        let replayed = drain(&mut resumed);
        assert_eq!(replayed.len(), 2);
        assert!(replayed[0].contains(r#"{"n":2}"#) && replayed[1].contains(r#"{"n":3}"#));
        log.push(a, r#"{"n":4}"#);
        assert!(drain(&mut resumed)[0].contains(r#"{"n":4}"#), "then live");
        log.finish(a);
        assert!(
            resumed.blocking_recv().is_none(),
            "the connection ends with the stream"
        );
    }

    #[test]
    fn foreign_and_garbage_ids_replay_nothing() {
        let (one, two) = (EventLog::new(), EventLog::new());
        let (s, _) = one.open();
        one.push(s, "{}");
        let foreign = format!("{}.{s}.0", one.tag);
        assert!(two.resume(&foreign).unwrap().is_none());
        for bad in ["", "garbage", "a.b.c", "x.1", "x.1.2.3.4.x", "tag.-1.0"] {
            assert_eq!(one.resume(bad).err(), Some(MalformedEventId), "{bad}");
        }
        assert!(
            one.resume(&format!("{}.999.0", one.tag)).unwrap().is_none(),
            "unknown stream"
        );
    }

    #[test]
    fn memory_is_bounded() {
        let log = EventLog::new();
        let (s, _live) = log.open();
        for i in 0..(MAX_EVENTS * 3) {
            log.push(s, &format!("{{\"i\":{i}}}"));
        }
        let mut resumed = log.resume(&format!("{}.{s}.0", log.tag)).unwrap().unwrap();
        assert_eq!(drain(&mut resumed).len(), MAX_EVENTS);
        for _ in 0..(MAX_STREAMS * 2) {
            let (n, _) = log.open();
            log.finish(n);
        }
        assert!(log.len() <= MAX_STREAMS);
    }
}
