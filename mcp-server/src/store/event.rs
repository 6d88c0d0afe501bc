//! [`EventStore`]: the events of legacy SSE streams, kept so that a client resumes a stream
//! on any instance of a server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::{Outage, StoreFuture};
use crate::sync::lock;

/// Where the events of legacy SSE streams are kept for the instances of a server: each
/// event is written here before it is sent, so that a client whose reconnection
/// (`Last-Event-ID`) reaches another instance gets the events it missed from there.
///
/// A stream is named by a key the SDK makes from the session id and the stream's own id.
/// Every operation must finish in bounded time, as for
/// [`SessionStore`](super::SessionStore).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use ferromcp::store::{EventStore, MemoryEventStore, StreamKind, StreamWrite};
///
/// # tokio_test();
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn tokio_test() {
/// let store = MemoryEventStore::new();
/// let ttl = Duration::from_secs(60);
/// let mut write = StreamWrite::default();
/// write.opened = Some(StreamKind::Response);
/// write.event = Some((1, "data: {}\n\n".into()));
/// store.write_stream("s1:ev:t:1", write, ttl).await.unwrap();
/// let stream = store.read_stream("s1:ev:t:1", 0).await.unwrap().unwrap();
/// assert_eq!(stream.events.len(), 1);
/// assert!(!stream.finished);
/// # }
/// ```
pub trait EventStore: Send + Sync + 'static {
    /// Applies `write` to the stored stream `stream`, to expire after `ttl` without
    /// writes (at most [`ENDED_STREAM_KEPT`] once it has ended). A write to a stream that
    /// was never opened, or has expired, makes no stream. At most [`MAX_STORED_EVENTS`] of
    /// its latest events are kept.
    fn write_stream<'a>(
        &'a self,
        stream: &'a str,
        write: StreamWrite,
        ttl: Duration,
    ) -> StoreFuture<'a, ()>;

    /// The stored stream `stream` with its events after sequence number `after`, oldest
    /// first; `None` when there is no such stream (never written, or expired).
    fn read_stream<'a>(
        &'a self,
        stream: &'a str,
        after: u64,
    ) -> StoreFuture<'a, Option<StoredStream>>;
}

/// Which kind of SSE stream a stored stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// A session's GET stream of server-initiated messages: resumed elsewhere, it goes on
    /// as that instance's stream.
    Standalone,
    /// The stream answering one POST: resumed elsewhere, it is followed until it ends.
    Response,
}

impl StreamKind {
    /// The marker a store may keep for the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamKind::Standalone => "@standalone",
            StreamKind::Response => "@response",
        }
    }

    /// The kind a marker names.
    pub fn parse(marker: &str) -> Option<StreamKind> {
        match marker {
            "@standalone" => Some(StreamKind::Standalone),
            "@response" => Some(StreamKind::Response),
            _ => None,
        }
    }
}

/// One write to a stored stream, applied in this order: the stream is opened, an event is
/// appended, the stream is finished.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct StreamWrite {
    /// The stream starts here, of this kind.
    pub opened: Option<StreamKind>,
    /// An event: its sequence number (from 1, increasing) and its SSE frame.
    pub event: Option<(u64, String)>,
    /// The stream has ended: no event follows.
    pub finished: bool,
}

/// A stream as a store keeps it: at most [`MAX_STORED_EVENTS`] of its latest events.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredStream {
    /// What kind of stream it is.
    pub kind: StreamKind,
    /// Events (sequence number, SSE frame), oldest first.
    pub events: Vec<(u64, String)>,
    /// Whether the stream has ended.
    pub finished: bool,
}

impl StoredStream {
    /// A stored stream.
    pub fn new(kind: StreamKind, events: Vec<(u64, String)>, finished: bool) -> StoredStream {
        StoredStream {
            kind,
            events,
            finished,
        }
    }
}

/// The most events a store keeps of one stream (the oldest go first), as an instance keeps
/// in memory.
pub const MAX_STORED_EVENTS: usize = 256;

/// How long a store keeps a stream once it has ended (at most): long enough for a client
/// to reconnect for its last events, short enough that finished response streams do not
/// pile up for the session's whole idle timeout.
pub const ENDED_STREAM_KEPT: Duration = Duration::from_secs(300);

/// An [`EventStore`] in this process's memory: for tests, and for several endpoints of one
/// process. Clones share their streams; [`set_available`] simulates an outage. Time to
/// live is counted on tokio's clock.
///
/// [`set_available`]: MemoryEventStore::set_available
#[derive(Debug, Clone, Default)]
pub struct MemoryEventStore {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    streams: Mutex<HashMap<String, (StoredStream, Instant)>>,
    outage: Outage,
}

impl MemoryEventStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// While `false`, every operation fails as if the store could not be reached.
    pub fn set_available(&self, available: bool) {
        self.inner.outage.set_available(available);
    }
}

impl EventStore for MemoryEventStore {
    fn write_stream<'a>(
        &'a self,
        stream: &'a str,
        write: StreamWrite,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.inner.outage.check()?;
            let now = Instant::now();
            let mut streams = lock(&self.inner.streams);
            streams.retain(|_, (_, deadline)| *deadline > now);
            let entry = match (streams.get_mut(stream), write.opened) {
                (Some(entry), _) => entry,
                (None, Some(kind)) => streams
                    .entry(stream.to_owned())
                    .or_insert((StoredStream::new(kind, Vec::new(), false), now)),
                // Never opened, or expired: the write makes no stream.
                (None, None) => return Ok(()),
            };
            if let Some(event) = write.event {
                entry.0.events.push(event);
                let extra = entry.0.events.len().saturating_sub(MAX_STORED_EVENTS);
                entry.0.events.drain(..extra);
            }
            entry.0.finished |= write.finished;
            entry.1 = now
                + if write.finished {
                    ttl.min(ENDED_STREAM_KEPT)
                } else {
                    ttl
                };
            Ok(())
        })
    }

    fn read_stream<'a>(
        &'a self,
        stream: &'a str,
        after: u64,
    ) -> StoreFuture<'a, Option<StoredStream>> {
        Box::pin(async move {
            self.inner.outage.check()?;
            let now = Instant::now();
            let streams = lock(&self.inner.streams);
            Ok(streams
                .get(stream)
                .filter(|(_, deadline)| *deadline > now)
                .map(|(s, _)| {
                    let events = s.events.iter().filter(|(n, _)| *n > after).cloned();
                    StoredStream::new(s.kind, events.collect(), s.finished)
                }))
        })
    }
}
