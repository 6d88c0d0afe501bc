//! Scale-out for [`run`](crate::run()): with `--redis URL` (or `FERROMCP_REDIS_URL`),
//! replicas share legacy sessions, stream events, change notifications and tasks through
//! the stores that the runner's [`shared_stores`](super::Runner::shared_stores) hook
//! connects (`ferromcp_redis::connect`).

use std::pin::Pin;

use super::{BoxError, RunError};
use crate::ServerBuilder;
use crate::http::HttpOptions;
use crate::store::SharedStores;

/// `--redis URL`.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct RedisArgs {
    /// Share legacy sessions, change notifications and tasks with other replicas through
    /// this Redis (redis://HOST:PORT; default: $FERROMCP_REDIS_URL)
    #[arg(long, value_name = "URL", requires = "http")]
    redis: Option<String>,
}

/// Connects the shared stores at a URL, once serving starts.
pub(super) type Connect =
    Box<dyn FnOnce(String) -> Pin<Box<dyn Future<Output = Result<SharedStores, BoxError>>>>>;

/// The stores the replicas share, connected.
#[derive(Debug, Clone, Default)]
pub(super) struct Shared {
    stores: Option<SharedStores>,
}

impl RedisArgs {
    /// The URL of `--redis`, else of `FERROMCP_REDIS_URL` when serving HTTP.
    pub(super) fn url(&self, http: bool) -> Result<Option<String>, RunError> {
        match &self.redis {
            Some(url) => Ok(Some(url.clone())),
            None if http => Ok(crate::env::redis_url()?),
            None => Ok(None),
        }
    }
}

/// The stores at `url` (none without one), connected by `connect`.
pub(super) async fn connect(
    url: Option<String>,
    connect: Option<Connect>,
) -> Result<Shared, RunError> {
    let Some(url) = url else {
        return Ok(Shared::default());
    };
    let Some(connect) = connect else {
        return Err(RunError::NoSharedStores);
    };
    let stores = connect(url.clone())
        .await
        .map_err(|source| RunError::Redis { url, source })?;
    Ok(Shared {
        stores: Some(stores),
    })
}

impl Shared {
    /// `builder` keeping its tasks in the shared store.
    pub(super) fn apply<H>(&self, builder: ServerBuilder<H>) -> ServerBuilder<H> {
        match &self.stores {
            Some(stores) => builder.task_store(stores.tasks.clone()),
            None => builder,
        }
    }

    /// `options` sharing legacy sessions, stream events and change notifications.
    pub(super) fn http(&self, options: HttpOptions) -> HttpOptions {
        match &self.stores {
            Some(stores) => options
                .session_store(stores.sessions.clone())
                .event_store(stores.events.clone())
                .notification_bus(stores.bus.clone()),
            None => options,
        }
    }
}
