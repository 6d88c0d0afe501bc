//! Resumable SSE streams of a legacy session (2025-03-26 to 2025-11-25): every event of a
//! session's streams gets an id that names the session, the stream and the event's place in
//! it, and the last events of each stream are kept, so a client that lost its connection
//! (or whose stream the server closed on purpose, SEP-1699 polling) reconnects with GET and
//! `Last-Event-ID` and receives exactly the events of *that* stream it missed, then the rest
//! of the stream as it happens.
//!
//! Bounded: at most [`MAX_EVENTS`] events per stream and [`MAX_STREAMS`] streams per session
//! are kept; a client slower than [`LIVE_CAPACITY`] buffered events is detached from its
//! stream (it can resume). Event ids carry a random tag of the session's log on this
//! instance, so an id from another session never replays anything here.
//!
//! With an event store ([`SharedEvents`]), each event is also written to the store
//! before it is sent, under a key made of the session id, the tag and the stream: a client
//! whose reconnection reaches another instance gets the missed events from there (see
//! `Endpoint::get`).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use tokio::sync::mpsc;

use crate::store::{EventStore, MAX_STORED_EVENTS, StreamKind, StreamWrite};
use crate::sync::lock;

/// Events kept per stream for replay.
pub(crate) const MAX_EVENTS: usize = MAX_STORED_EVENTS;
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
    /// Its kind while the shared store holds it whole; `None`: kept here only (no store,
    /// or a write to it failed: later events are not written, so that another instance
    /// never replays a stream with a hole in it, and a store that is down costs one
    /// timeout per stream, not one per event).
    stored: Option<StreamKind>,
}

/// A `Last-Event-ID` that is not one of ours at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MalformedEventId;

/// An event id's parts: the tag of the log that made it, the stream, the event's number.
pub(crate) fn parse_event_id(id: &str) -> Result<(&str, u64, u64), MalformedEventId> {
    let mut parts = id.trim().splitn(3, '.');
    let (Some(tag), Some(stream), Some(seq)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(MalformedEventId);
    };
    match (stream.parse::<u64>(), seq.parse::<u64>()) {
        (Ok(stream), Ok(seq)) => Ok((tag, stream, seq)),
        _ => Err(MalformedEventId),
    }
}

/// The shared store's key of a session's stream: the session id scopes it, so an event id
/// presented in another session names nothing.
pub(crate) fn stream_key(session: &str, tag: &str, stream: u64) -> String {
    format!("{session}:ev:{tag}:{stream}")
}

/// Where a session's events are written besides this instance's memory.
pub(crate) struct SharedEvents {
    pub(crate) store: Arc<dyn EventStore>,
    pub(crate) session: String,
    /// How long a stream is kept after its last write (the session's idle timeout).
    pub(crate) ttl: Duration,
}

impl SharedEvents {
    /// Writes to the store; false (logged) when it failed.
    async fn write(&self, tag: &str, stream: u64, write: StreamWrite) -> bool {
        let key = stream_key(&self.session, tag, stream);
        match self.store.write_stream(&key, write, self.ttl).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, "an SSE stream could not be written to the shared store; it can be resumed on this instance only");
                false
            }
        }
    }
}

/// The event log of one session.
pub(crate) struct EventLog {
    tag: String,
    next_stream: AtomicU64,
    streams: Mutex<HashMap<u64, Stream>>,
    shared: Option<SharedEvents>,
}

impl std::fmt::Debug for EventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLog").finish_non_exhaustive()
    }
}

impl EventLog {
    /// A log kept in this instance's memory only.
    #[cfg_attr(not(any(test, feature = "fuzzing")), allow(dead_code))]
    pub(crate) fn new() -> EventLog {
        EventLog::with_shared(None)
    }

    /// A log that also writes its events to `shared`, when given.
    pub(crate) fn with_shared(shared: Option<SharedEvents>) -> EventLog {
        let mut bytes = [0u8; 9];
        if getrandom::fill(&mut bytes).is_err() {
            tracing::warn!("the OS random number generator failed; event id tags are predictable");
        }
        EventLog {
            tag: base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes),
            next_stream: AtomicU64::new(1),
            streams: Mutex::new(HashMap::new()),
            shared,
        }
    }

    /// The shared store the log writes to, if any.
    pub(crate) fn shared(&self) -> Option<&SharedEvents> {
        self.shared.as_ref()
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
    /// With a shared store, [`opened`](Self::opened) must be awaited before its first event.
    pub(crate) fn open(&self) -> (u64, mpsc::Receiver<Bytes>) {
        self.open_with_room(0)
    }

    /// [`open`](Self::open), with room in the client's feed for `extra` frames sent ahead
    /// of the stream's own (the events replayed from another instance's stream).
    pub(crate) fn open_with_room(&self, extra: usize) -> (u64, mpsc::Receiver<Bytes>) {
        let number = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel(LIVE_CAPACITY + extra);
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
                stored: None,
            },
        );
        (number, rx)
    }

    /// Records the opening of `stream` in the shared store, if any, so that another instance
    /// knows it (and what kind it is) from then on: before the stream's priming event and
    /// first message are sent.
    pub(crate) async fn opened(&self, stream: u64, kind: StreamKind) {
        if let Some(shared) = &self.shared {
            let write = StreamWrite {
                opened: Some(kind),
                ..StreamWrite::default()
            };
            if shared.write(&self.tag, stream, write).await
                && let Some(s) = lock(&self.streams).get_mut(&stream)
            {
                s.stored = Some(kind);
            }
        }
    }

    /// Writes to the store for a stream it holds whole; on failure the stream is kept here
    /// only from then on.
    async fn write_stored(&self, stream: u64, kind: StreamKind, mut write: StreamWrite) {
        let Some(shared) = &self.shared else {
            return;
        };
        // Every write names the kind: a stream whose key expired while it was quiet (the
        // session's idle timeout) is made again rather than lost.
        write.opened = Some(kind);
        if !shared.write(&self.tag, stream, write).await
            && let Some(s) = lock(&self.streams).get_mut(&stream)
        {
            s.stored = None;
        }
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

    /// Appends a message to the stream and sends it to the connected client, if any; with a
    /// shared store, writes it there first. One task pushes to a stream, in order.
    pub(crate) async fn push(&self, stream: u64, json: &str) {
        let (seq, frame, kind) = {
            let mut streams = lock(&self.streams);
            let Some(s) = streams.get_mut(&stream) else {
                return;
            };
            let Some(kind) = s.stored else {
                drop(streams);
                return self.push_local(stream, json);
            };
            let seq = s.next_seq;
            s.next_seq += 1;
            (seq, self.frame(stream, seq, json), kind)
        };
        let text = String::from_utf8_lossy(&frame).into_owned();
        let write = StreamWrite {
            event: Some((seq, text)),
            ..StreamWrite::default()
        };
        self.write_stored(stream, kind, write).await;
        // Kept and sent only now: a reconnection here in the meantime replays the events
        // before this one and then receives this one live, once.
        let mut streams = lock(&self.streams);
        if let Some(s) = streams.get_mut(&stream) {
            Self::keep(s, seq, frame);
        }
    }

    /// [`push`](Self::push) for a log without a shared store.
    pub(crate) fn push_local(&self, stream: u64, json: &str) {
        let mut streams = lock(&self.streams);
        let Some(s) = streams.get_mut(&stream) else {
            return;
        };
        let seq = s.next_seq;
        s.next_seq += 1;
        let frame = self.frame(stream, seq, json);
        Self::keep(s, seq, frame);
    }

    fn keep(s: &mut Stream, seq: u64, frame: Bytes) {
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
    pub(crate) async fn finish(&self, stream: u64) {
        let stored = lock(&self.streams).get_mut(&stream).and_then(|s| {
            s.finished = true;
            s.live = None;
            s.stored
        });
        if let Some(kind) = stored {
            let write = StreamWrite {
                finished: true,
                ..StreamWrite::default()
            };
            self.write_stored(stream, kind, write).await;
        }
    }

    /// Resumes after `last_event_id`: `Ok(Some(feed))` with the missed events of that stream
    /// replayed and, if the stream is still open, the rest to come; `Ok(None)` when the id is
    /// well-formed but names no stream of this session (another session's, or forgotten).
    pub(crate) fn resume(
        &self,
        last_event_id: &str,
    ) -> Result<Option<mpsc::Receiver<Bytes>>, MalformedEventId> {
        let (tag, stream, seq) = parse_event_id(last_event_id)?;
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

    #[tokio::test]
    async fn a_reconnect_replays_only_the_missed_events_of_that_stream() {
        let log = EventLog::new();
        let (a, mut live_a) = log.open();
        let (b, _live_b) = log.open();
        log.push(a, r#"{"n":1}"#).await;
        log.push(b, r#"{"other":1}"#).await;
        log.detach(a);
        log.push(a, r#"{"n":2}"#).await;
        log.push(a, r#"{"n":3}"#).await;
        let seen = drain(&mut live_a);
        assert_eq!(seen.len(), 1);
        let mut resumed = log.resume(id_of(&seen[0])).unwrap().unwrap();
        let replayed = drain(&mut resumed);
        assert_eq!(replayed.len(), 2);
        assert!(replayed[0].contains(r#"{"n":2}"#) && replayed[1].contains(r#"{"n":3}"#));
        log.push(a, r#"{"n":4}"#).await;
        assert!(drain(&mut resumed)[0].contains(r#"{"n":4}"#), "then live");
        log.finish(a).await;
        assert!(
            resumed.recv().await.is_none(),
            "the connection ends with the stream"
        );
    }

    #[tokio::test]
    async fn foreign_and_garbage_ids_replay_nothing() {
        let (one, two) = (EventLog::new(), EventLog::new());
        let (s, _) = one.open();
        one.push(s, "{}").await;
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

    #[tokio::test]
    async fn memory_is_bounded() {
        let log = EventLog::new();
        let (s, _live) = log.open();
        for i in 0..(MAX_EVENTS * 3) {
            log.push(s, &format!("{{\"i\":{i}}}")).await;
        }
        let mut resumed = log.resume(&format!("{}.{s}.0", log.tag)).unwrap().unwrap();
        assert_eq!(drain(&mut resumed).len(), MAX_EVENTS);
        for _ in 0..(MAX_STREAMS * 2) {
            let (n, _) = log.open();
            log.finish(n).await;
        }
        assert!(log.len() <= MAX_STREAMS);
    }
}
