//! Redis for several instances of a server (feature `redis`): [`RedisSessionStore`] shares
//! legacy sessions, [`RedisNotificationBus`] change notifications and
//! [`RedisTaskStore`](super::RedisTaskStore) tasks.

use std::sync::LazyLock;
use std::time::Duration;

use futures_util::StreamExt as _;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Script, ScriptInvocation};
use tokio::sync::mpsc;

use crate::store::{
    ENDED_STREAM_KEPT, EventStore, MAX_STORED_EVENTS, NotificationBus, SessionStore, StoreError,
    StoreFuture, StoredStream, StreamKind, StreamWrite,
};

/// One multiplexed connection that reconnects by itself, each operation bounded by a
/// timeout.
#[derive(Clone)]
pub(super) struct Redis {
    client: redis::Client,
    conn: ConnectionManager,
    pub(super) timeout: Duration,
}

impl Redis {
    pub(super) async fn connect(url: &str) -> Result<Redis, StoreError> {
        let timeout = Duration::from_secs(1);
        let client = redis::Client::open(url).map_err(store_error)?;
        // Reconnection is retried a few times quickly; past that the operation fails (503)
        // and the next one tries again.
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(2)
            .set_min_delay(Duration::from_millis(20))
            .set_max_delay(Duration::from_millis(200));
        let conn = tokio::time::timeout(
            timeout * 2,
            ConnectionManager::new_with_config(client.clone(), config),
        )
        .await
        .map_err(|_| StoreError::Timeout)?
        .map_err(store_error)?;
        Ok(Redis {
            client,
            conn,
            timeout,
        })
    }

    pub(super) async fn run<T: redis::FromRedisValue>(
        &self,
        cmd: redis::Cmd,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn.clone();
        let attempt = async {
            match cmd.query_async::<T>(&mut conn).await {
                // A connection that failed earlier answers with its old error once, and the
                // manager starts reconnecting: try once more, on the new connection.
                Err(e) if e.is_io_error() || e.is_unrecoverable_error() => {
                    cmd.query_async::<T>(&mut conn).await
                }
                done => done,
            }
        };
        self.bounded(attempt).await
    }

    /// Runs a Lua script by its SHA-1 (`EVALSHA`); Redis is sent the script itself only
    /// when it does not have it (after a restart or `SCRIPT FLUSH`), as [`run`](Self::run)
    /// otherwise.
    pub(super) async fn eval<T: redis::FromRedisValue>(
        &self,
        script: &ScriptInvocation<'_>,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn.clone();
        let attempt = async {
            match script.invoke_async::<T>(&mut conn).await {
                Err(e) if e.is_io_error() || e.is_unrecoverable_error() => {
                    script.invoke_async::<T>(&mut conn).await
                }
                done => done,
            }
        };
        self.bounded(attempt).await
    }

    /// `attempt`, failed with [`StoreError::Timeout`] past the timeout.
    async fn bounded<T>(
        &self,
        attempt: impl Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(self.timeout, attempt).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(store_error(e)),
            Err(_) => Err(StoreError::Timeout),
        }
    }
}

/// A [`SessionStore`] in Redis: one key per session (`mcp:session:<id>` by default)
/// holding a small JSON record, with a time to live that each read resets (`GETEX … PX`).
///
/// One multiplexed connection serves every request and reconnects by itself after Redis
/// restarts. Every operation is bounded by a timeout (1 s by default): a Redis that is
/// down or stalled makes the requests that need it fail with 503 and `Retry-After`, never
/// wait.
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use ferromcp::http::{HttpOptions, RedisSessionStore};
///
/// # async fn run(server: ferromcp::Server) -> Result<(), Box<dyn std::error::Error>> {
/// let sessions = RedisSessionStore::connect("redis://10.0.0.5:6379").await?;
/// let options = HttpOptions::default().session_store(Arc::new(sessions));
/// server.serve_http("0.0.0.0:8080").options(options).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisSessionStore {
    redis: Redis,
    prefix: String,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("prefix", &self.prefix)
            .field("timeout", &self.redis.timeout)
            .finish_non_exhaustive()
    }
}

fn store_error(e: redis::RedisError) -> StoreError {
    StoreError::backend(e)
}

impl RedisSessionStore {
    /// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]`).
    ///
    /// # Errors
    ///
    /// The URL is malformed, or Redis could not be reached within the timeout.
    pub async fn connect(url: &str) -> Result<RedisSessionStore, StoreError> {
        Ok(RedisSessionStore {
            redis: Redis::connect(url).await?,
            prefix: "mcp:session:".into(),
        })
    }

    /// Prefixes every key with `prefix` instead of `mcp:session:` (several servers on one
    /// Redis).
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Fails an operation that takes longer than `timeout` (default 1 s).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.redis.timeout = timeout;
        self
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    async fn run<T: redis::FromRedisValue>(&self, cmd: redis::Cmd) -> Result<T, StoreError> {
        self.redis.run(cmd).await
    }
}

/// Milliseconds for `PX`, at least 1.
fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

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

impl SessionStore for RedisSessionStore {
    fn load<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, Option<String>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("GETEX");
            cmd.arg(self.key(id)).arg("PX").arg(millis(ttl));
            self.run(cmd).await
        })
    }

    fn save<'a>(&'a self, id: &'a str, record: String, ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut cmd = redis::cmd("SET");
            cmd.arg(self.key(id)).arg(record).arg("PX").arg(millis(ttl));
            self.run::<()>(cmd).await
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut cmd = redis::cmd("DEL");
            cmd.arg(self.key(id));
            self.run::<()>(cmd).await
        })
    }
}

impl EventStore for RedisSessionStore {
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
            self.redis.eval::<i64>(&script).await.map(drop)
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
            let Some((markers, flat)) = self
                .redis
                .eval::<Option<(Vec<String>, Vec<String>)>>(&script)
                .await?
            else {
                return Ok(None);
            };
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
            Ok(Some(StoredStream::new(kind, events, finished)))
        })
    }
}

/// A [`NotificationBus`] on Redis pub/sub: one channel (`mcp:events` by default) that
/// every instance publishes its registry's changes on and subscribes to.
///
/// Publishing goes through one multiplexed connection, bounded by a timeout (1 s by
/// default); the subscription has a connection of its own, reopened (after 100 ms, then
/// backing off to 5 s) whenever it drops.
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use ferromcp::http::{HttpOptions, RedisNotificationBus, RedisSessionStore};
///
/// # async fn run(server: ferromcp::Server) -> Result<(), Box<dyn std::error::Error>> {
/// let url = "redis://10.0.0.5:6379";
/// let options = HttpOptions::default()
///     .session_store(Arc::new(RedisSessionStore::connect(url).await?))
///     .notification_bus(Arc::new(RedisNotificationBus::connect(url).await?));
/// server.serve_http("0.0.0.0:8080").options(options).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisNotificationBus {
    redis: Redis,
    channel: String,
}

impl std::fmt::Debug for RedisNotificationBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisNotificationBus")
            .field("channel", &self.channel)
            .field("timeout", &self.redis.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisNotificationBus {
    /// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]`).
    ///
    /// # Errors
    ///
    /// The URL is malformed, or Redis could not be reached within the timeout.
    pub async fn connect(url: &str) -> Result<RedisNotificationBus, StoreError> {
        Ok(RedisNotificationBus {
            redis: Redis::connect(url).await?,
            channel: "mcp:events".into(),
        })
    }

    /// Uses the channel `channel` instead of `mcp:events` (several servers on one Redis:
    /// only the instances of one server share a channel).
    #[must_use]
    pub fn with_channel(mut self, channel: impl Into<String>) -> Self {
        self.channel = channel.into();
        self
    }

    /// Fails a publication that takes longer than `timeout` (default 1 s).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.redis.timeout = timeout;
        self
    }

    /// Receives until the connection drops (`Ok(true)`) or `messages` closes (`Ok(false)`).
    async fn listen(&self, messages: &mpsc::Sender<String>) -> Result<bool, StoreError> {
        let mut pubsub = tokio::time::timeout(self.redis.timeout, async {
            let mut pubsub = self.redis.client.get_async_pubsub().await?;
            pubsub.subscribe(&self.channel).await?;
            Ok::<_, redis::RedisError>(pubsub)
        })
        .await
        .map_err(|_| StoreError::Timeout)?
        .map_err(store_error)?;
        let mut stream = pubsub.on_message();
        loop {
            tokio::select! {
                () = messages.closed() => return Ok(false),
                message = stream.next() => {
                    let Some(message) = message else { return Ok(true) };
                    let Ok(text) = message.get_payload::<String>() else { continue };
                    if messages.send(text).await.is_err() {
                        return Ok(false);
                    }
                }
            }
        }
    }
}

impl NotificationBus for RedisNotificationBus {
    fn publish<'a>(&'a self, message: String) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut cmd = redis::cmd("PUBLISH");
            cmd.arg(&self.channel).arg(message);
            self.redis.run::<()>(cmd).await
        })
    }

    fn subscribe<'a>(&'a self, messages: mpsc::Sender<String>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut delay = Duration::from_millis(100);
            loop {
                match self.listen(&messages).await {
                    Ok(false) => return Ok(()),
                    Ok(true) => {
                        tracing::warn!(
                            "the notification bus's Redis subscription dropped; reconnecting"
                        );
                        delay = Duration::from_millis(100);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot subscribe to the notification bus")
                    }
                }
                tokio::select! {
                    () = messages.closed() => return Ok(()),
                    () = tokio::time::sleep(delay) => {}
                }
                delay = (delay * 2).min(Duration::from_secs(5));
            }
        })
    }
}
