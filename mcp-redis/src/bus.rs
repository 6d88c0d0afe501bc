//! [`RedisNotificationBus`]: change notifications between instances on Redis pub/sub.

use std::time::Duration;

use ferromcp::store::{NotificationBus, StoreError, StoreFuture};
use futures_util::StreamExt as _;
use tokio::sync::mpsc;

use crate::ConnectError;
use crate::conn::Conn;

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
/// use ferromcp::http::HttpOptions;
/// use ferromcp_redis::{RedisNotificationBus, RedisSessionStore};
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
    conn: Conn,
    channel: String,
}

impl std::fmt::Debug for RedisNotificationBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisNotificationBus")
            .field("channel", &self.channel)
            .field("timeout", &self.conn.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisNotificationBus {
    /// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]`).
    ///
    /// # Errors
    ///
    /// The URL is malformed, or Redis could not be reached within the timeout.
    pub async fn connect(url: &str) -> Result<RedisNotificationBus, ConnectError> {
        Ok(RedisNotificationBus::on(Conn::open(url).await?))
    }

    /// The bus on `conn`.
    pub(crate) fn on(conn: Conn) -> RedisNotificationBus {
        RedisNotificationBus {
            conn,
            channel: "mcp:events".into(),
        }
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
        self.conn.timeout = timeout;
        self
    }

    /// Receives until the connection drops (`Ok(true)`) or `messages` closes (`Ok(false)`).
    async fn listen(&self, messages: &mpsc::Sender<String>) -> Result<bool, StoreError> {
        let mut pubsub = tokio::time::timeout(self.conn.timeout, async {
            let mut pubsub = self.conn.client.get_async_pubsub().await?;
            pubsub.subscribe(&self.channel).await?;
            Ok::<_, redis::RedisError>(pubsub)
        })
        .await
        .map_err(|_| StoreError::Timeout)?
        .map_err(StoreError::backend)?;
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
            self.conn.run::<()>(cmd).await
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
