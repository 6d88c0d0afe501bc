//! [`RedisSessionStore`]: legacy HTTP sessions in Redis.

use std::time::Duration;

use ferromcp::store::{SessionStore, StoreError, StoreFuture};

use crate::ConnectError;
use crate::conn::{Conn, keyed_store, millis};

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
/// use ferromcp::http::HttpOptions;
/// use ferromcp_redis::RedisSessionStore;
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
    conn: Conn,
    prefix: String,
}

keyed_store!(RedisSessionStore, "mcp:session:");

impl RedisSessionStore {
    /// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]`).
    ///
    /// # Errors
    ///
    /// The URL is malformed, or Redis could not be reached within the timeout.
    pub async fn connect(url: &str) -> Result<RedisSessionStore, ConnectError> {
        Ok(RedisSessionStore::on(Conn::open(url).await?))
    }

    /// The store on `conn`.
    pub(crate) fn on(conn: Conn) -> RedisSessionStore {
        RedisSessionStore {
            conn,
            prefix: "mcp:session:".into(),
        }
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    async fn run<T: redis::FromRedisValue>(&self, cmd: redis::Cmd) -> Result<T, StoreError> {
        self.conn.run(cmd).await
    }
}

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
