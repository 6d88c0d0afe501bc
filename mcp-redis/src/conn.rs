//! The connection every store of this crate talks to Redis through.

use std::time::Duration;

use ferromcp::store::StoreError;
use redis::ScriptInvocation;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use crate::ConnectError;

/// How long an operation may take by default.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(1);

/// One multiplexed connection that reconnects by itself, each operation bounded by a
/// timeout. Clones share the connection.
#[derive(Clone)]
pub(crate) struct Conn {
    pub(crate) client: redis::Client,
    conn: ConnectionManager,
    pub(crate) timeout: Duration,
}

impl Conn {
    /// Connects to the Redis at `url`, within twice [`TIMEOUT`].
    pub(crate) async fn open(url: &str) -> Result<Conn, ConnectError> {
        let client = redis::Client::open(url).map_err(ConnectError::Url)?;
        // Reconnection is retried a few times quickly; past that the operation fails (503)
        // and the next one tries again.
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(2)
            .set_min_delay(Duration::from_millis(20))
            .set_max_delay(Duration::from_millis(200));
        let conn = tokio::time::timeout(
            TIMEOUT * 2,
            ConnectionManager::new_with_config(client.clone(), config),
        )
        .await
        .map_err(|_| ConnectError::Timeout(TIMEOUT * 2))?
        .map_err(ConnectError::Connect)?;
        Ok(Conn {
            client,
            conn,
            timeout: TIMEOUT,
        })
    }

    /// Runs `cmd`.
    pub(crate) async fn run<T: redis::FromRedisValue>(
        &self,
        cmd: redis::Cmd,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn.clone();
        let attempt = async {
            match cmd.query_async::<T>(&mut conn).await {
                // A connection that failed earlier answers with its old error once, and the
                // manager starts reconnecting: try once more, on the new connection.
                Err(e) if retry(&e) => cmd.query_async::<T>(&mut conn).await,
                done => done,
            }
        };
        self.bounded(attempt).await
    }

    /// Runs a Lua script by its SHA-1 (`EVALSHA`); Redis is sent the script itself only
    /// when it does not have it (after a restart or `SCRIPT FLUSH`), as [`run`](Self::run)
    /// otherwise.
    pub(crate) async fn eval<T: redis::FromRedisValue>(
        &self,
        script: &ScriptInvocation<'_>,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn.clone();
        let attempt = async {
            match script.invoke_async::<T>(&mut conn).await {
                Err(e) if retry(&e) => script.invoke_async::<T>(&mut conn).await,
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
            Ok(Err(e)) => Err(StoreError::backend(e)),
            Err(_) => Err(StoreError::Timeout),
        }
    }
}

/// Whether a failed operation is tried once more (on the reconnected connection).
fn retry(e: &redis::RedisError) -> bool {
    e.is_io_error() || e.is_unrecoverable_error()
}

/// Milliseconds for `PX`, at least 1.
pub(crate) fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// `Debug` (the prefix and the timeout) and the `with_prefix` and `with_timeout` builders of
/// a store with fields `conn` and `prefix`, whose keys start with `$default` by default.
macro_rules! keyed_store {
    ($store:ident, $default:literal) => {
        impl std::fmt::Debug for $store {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($store))
                    .field("prefix", &self.prefix)
                    .field("timeout", &self.conn.timeout)
                    .finish_non_exhaustive()
            }
        }

        impl $store {
            #[doc = concat!("Prefixes every key with `prefix` instead of `", $default, "` (several")]
            /// servers on one Redis).
            #[must_use]
            pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
                self.prefix = prefix.into();
                self
            }

            /// Fails an operation that takes longer than `timeout` (default 1 s).
            #[must_use]
            pub fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
                self.conn.timeout = timeout;
                self
            }
        }
    };
}

pub(crate) use keyed_store;
