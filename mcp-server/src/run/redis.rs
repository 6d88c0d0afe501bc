//! Scale-out for [`run`](crate::run()): with feature `redis` and `--redis URL` (or
//! `FERROMCP_REDIS_URL`), replicas share legacy sessions, change notifications and tasks
//! through Redis; without the feature, nothing.

use super::RunError;
use crate::ServerBuilder;
use crate::http::HttpOptions;

/// `--redis URL`.
#[cfg(feature = "redis")]
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct RedisArgs {
    /// Share legacy sessions, change notifications and tasks with other replicas through
    /// this Redis (redis://HOST:PORT; default: $FERROMCP_REDIS_URL)
    #[arg(long, value_name = "URL", requires = "http")]
    redis: Option<String>,
}

/// No flags without feature `redis`.
#[cfg(not(feature = "redis"))]
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct RedisArgs {}

/// The Redis the replicas share, connected.
#[derive(Debug, Clone, Default)]
pub(super) struct Shared {
    #[cfg(feature = "redis")]
    redis: Option<(String, crate::http::RedisTaskStore)>,
}

impl RedisArgs {
    /// Connects to the Redis of `--redis`, else of `FERROMCP_REDIS_URL`, when serving HTTP.
    #[cfg(feature = "redis")]
    pub(super) async fn connect(&self, http: bool) -> Result<Shared, RunError> {
        let url = match &self.redis {
            Some(url) => url.clone(),
            None if http => match crate::env::redis_url()? {
                Some(url) => url,
                None => return Ok(Shared::default()),
            },
            None => return Ok(Shared::default()),
        };
        let tasks = crate::http::RedisTaskStore::connect(&url)
            .await
            .map_err(|e| redis_error(&url, e))?;
        Ok(Shared {
            redis: Some((url, tasks)),
        })
    }

    /// Nothing to connect without feature `redis`.
    #[cfg(not(feature = "redis"))]
    #[allow(clippy::unused_async)]
    pub(super) async fn connect(&self, _http: bool) -> Result<Shared, RunError> {
        Ok(Shared {})
    }
}

impl Shared {
    /// `builder` keeping its tasks in the shared Redis.
    pub(super) fn apply<H>(&self, builder: ServerBuilder<H>) -> ServerBuilder<H> {
        #[cfg(feature = "redis")]
        if let Some((_, tasks)) = &self.redis {
            return builder.task_store(tasks.clone());
        }
        builder
    }

    /// `options` sharing legacy sessions and change notifications through the Redis.
    #[cfg(feature = "redis")]
    pub(super) async fn http(&self, options: HttpOptions) -> Result<HttpOptions, RunError> {
        use std::sync::Arc;
        let Some((url, _)) = &self.redis else {
            return Ok(options);
        };
        let sessions = crate::http::RedisSessionStore::connect(url)
            .await
            .map_err(|e| redis_error(url, e))?;
        let bus = crate::http::RedisNotificationBus::connect(url)
            .await
            .map_err(|e| redis_error(url, e))?;
        Ok(options
            .session_store(Arc::new(sessions.clone()))
            .event_store(Arc::new(sessions))
            .notification_bus(Arc::new(bus)))
    }

    /// Nothing shared without feature `redis`.
    #[cfg(not(feature = "redis"))]
    #[allow(clippy::unused_async)]
    pub(super) async fn http(&self, options: HttpOptions) -> Result<HttpOptions, RunError> {
        Ok(options)
    }
}

/// The Redis at `url` could not be reached.
#[cfg(feature = "redis")]
fn redis_error(url: &str, e: impl Into<super::BoxError>) -> RunError {
    RunError::Redis {
        url: url.to_owned(),
        source: e.into(),
    }
}
