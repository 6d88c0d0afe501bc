//! [`RedisEventStore`]: the events of legacy SSE streams in Redis.

use std::sync::LazyLock;
use std::time::Duration;

use ferromcp::store::{
    ENDED_STREAM_KEPT, EventStore, MAX_STORED_EVENTS, StoreError, StoreFuture, StoredStream,
    StreamKind, StreamWrite,
};
use redis::Script;

use crate::ConnectError;
use crate::conn::{Conn, keyed_store, millis};

/// One write to a stored SSE stream, a sorted set scored by event number: the kind marker at
/// -1, the end marker at -2, events from 1. A stream that was never opened (or expired)
/// is not made by a later write. Events more than `ARGV[6]` behind the newest are dropped.
/// KEYS[1]: the stream; ARGV: kind marker or '', event number, frame or '', '1' when
/// finished, time to live (ms), events kept, time to live once finished (ms).
static WRITE_STREAM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if ARGV[1] ~= '' then
  redis.call('ZADD', KEYS[1], -1, ARGV[1])
elseif redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  local oldest = tonumber(ARGV[2]) - tonumber(ARGV[6])
  if oldest >= 1 then
    redis.call('ZREMRANGEBYSCORE', KEYS[1], 1, oldest)
  end
end
if ARGV[4] == '1' then
  redis.call('ZADD', KEYS[1], -2, '@end')
  redis.call('PEXPIRE', KEYS[1], math.min(tonumber(ARGV[5]), tonumber(ARGV[7])))
else
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
return 1
",
    )
});

/// A stored stream's markers and its events after `ARGV[1]` (with their numbers), or nil.
static READ_STREAM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local markers = redis.call('ZRANGEBYSCORE', KEYS[1], -2, -1)
if #markers == 0 then
  return false
end
return {markers, redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES')}
",
    )
});

/// An [`EventStore`] in Redis: one sorted set per stream (`mcp:stream:<id>` by default),
/// scored by event number, holding the latest [`MAX_STORED_EVENTS`] events; it expires
/// after the time to live of its last write ([`ENDED_STREAM_KEPT`] at most once the stream
/// has ended). Each write and each read is one Lua script.
///
/// Every operation is bounded by a timeout (1 s by default).
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use ferromcp::http::HttpOptions;
/// use ferromcp_redis::{RedisEventStore, RedisSessionStore};
///
/// # async fn run(server: ferromcp::Server) -> Result<(), Box<dyn std::error::Error>> {
/// let url = "redis://10.0.0.5:6379";
/// let options = HttpOptions::default()
///     .session_store(Arc::new(RedisSessionStore::connect(url).await?))
///     .event_store(Arc::new(RedisEventStore::connect(url).await?));
/// server.serve_http("0.0.0.0:8080").options(options).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisEventStore {
    conn: Conn,
    prefix: String,
}

keyed_store!(RedisEventStore, "mcp:stream:");

impl RedisEventStore {
    /// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]`).
    ///
    /// # Errors
    ///
    /// The URL is malformed, or Redis could not be reached within the timeout.
    pub async fn connect(url: &str) -> Result<RedisEventStore, ConnectError> {
        Ok(RedisEventStore::on(Conn::open(url).await?))
    }

    /// The store on `conn`.
    pub(crate) fn on(conn: Conn) -> RedisEventStore {
        RedisEventStore {
            conn,
            prefix: "mcp:stream:".into(),
        }
    }

    fn key(&self, stream: &str) -> String {
        format!("{}{stream}", self.prefix)
    }
}

impl EventStore for RedisEventStore {
    fn write_stream<'a>(
        &'a self,
        stream: &'a str,
        write: StreamWrite,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (seq, frame) = write.event.unwrap_or_default();
            let mut script = WRITE_STREAM.prepare_invoke();
            script
                .key(self.key(stream))
                .arg(write.opened.map_or("", StreamKind::as_str))
                .arg(seq)
                .arg(frame)
                .arg(if write.finished { "1" } else { "0" })
                .arg(millis(ttl))
                .arg(MAX_STORED_EVENTS)
                .arg(millis(ENDED_STREAM_KEPT));
            self.conn.eval::<i64>(&script).await.map(drop)
        })
    }

    fn read_stream<'a>(
        &'a self,
        stream: &'a str,
        after: u64,
    ) -> StoreFuture<'a, Option<StoredStream>> {
        Box::pin(async move {
            let mut script = READ_STREAM.prepare_invoke();
            script.key(self.key(stream)).arg(after);
            let read = self
                .conn
                .eval::<Option<(Vec<String>, Vec<String>)>>(&script);
            let Some((markers, flat)) = read.await? else {
                return Ok(None);
            };
            parse_stream(stream, &markers, &flat).map(Some)
        })
    }
}

/// The stream `stream` from its markers and its events' frames and numbers, in pairs.
fn parse_stream(
    stream: &str,
    markers: &[String],
    flat: &[String],
) -> Result<StoredStream, StoreError> {
    let Some(kind) = markers.iter().find_map(|m| StreamKind::parse(m)) else {
        return Err(StoreError::malformed(format!(
            "stream {stream} has no kind"
        )));
    };
    let finished = markers.iter().any(|m| m == "@end");
    let mut events = Vec::with_capacity(flat.len() / 2);
    for pair in flat.chunks_exact(2) {
        let n = pair[1].parse::<u64>().map_err(|_| {
            StoreError::malformed(format!("stream {stream}: event number {:?}", pair[1]))
        })?;
        events.push((n, pair[0].clone()));
    }
    Ok(StoredStream::new(kind, events, finished))
}
