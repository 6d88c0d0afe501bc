//! Redis for the instances of a [ferromcp](https://docs.rs/ferromcp) server behind a load
//! balancer: each store of [`ferromcp::store`] on Redis, so that any instance serves a
//! request for state another one made.
//!
//! | type | implements | keeps |
//! | --- | --- | --- |
//! | [`RedisSessionStore`] | [`SessionStore`](ferromcp::store::SessionStore) | legacy HTTP sessions (`mcp:session:<id>`) |
//! | [`RedisEventStore`] | [`EventStore`](ferromcp::store::EventStore) | the events of legacy SSE streams, so another instance resumes them (`mcp:stream:<id>`) |
//! | [`RedisNotificationBus`] | [`NotificationBus`](ferromcp::store::NotificationBus) | change notifications between instances (channel `mcp:events`) |
//! | [`RedisTaskStore`] | [`TaskStore`](ferromcp::store::TaskStore) | tasks, so any instance answers `tasks/*` (`mcp:task:<id>`) |
//!
//! Each talks to Redis through one multiplexed connection that reconnects by itself, with
//! every operation bounded by a timeout (1 s by default), and runs its Lua scripts by their
//! SHA-1 (`redis::Script`, `EVALSHA`). [`connect`] opens one connection for all four and
//! returns them as [`SharedStores`]. Redis 6.2 or newer.
//!
//! This crate uses only the public [`ferromcp::store`] traits: another backend is written
//! the same way.
//!
//! # Examples
//!
//! With [`ferromcp::run`](fn@ferromcp::run), the program takes `--redis URL` (or
//! `FERROMCP_REDIS_URL`) beside `--http ADDR`:
//!
//! ```no_run
//! use ferromcp::prelude::*;
//! use ferromcp::run::Runner;
//!
//! struct Echo;
//!
//! #[ferromcp::server(name = "echo")]
//! impl Echo {
//!     /// Returns its input.
//!     #[tool]
//!     fn echo(&self, text: String) -> String {
//!         text
//!     }
//! }
//!
//! fn main() {
//!     // `echo --http 0.0.0.0:8080 --redis redis://10.0.0.5:6379` on each replica.
//!     Runner::for_server::<Echo>()
//!         .shared_stores(ferromcp_redis::connect)
//!         .serve(Echo)
//!     // or, the same: ferromcp_redis::run(Echo)
//! }
//! ```
//!
//! By hand:
//!
//! ```no_run
//! use ferromcp::http::HttpOptions;
//! use ferromcp::ServerBuilder;
//!
//! # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
//! let stores = ferromcp_redis::connect("redis://10.0.0.5:6379".into()).await?;
//! let server = ServerBuilder::new("reports", "1.0.0")
//!     .task_store(stores.tasks.clone())
//!     .build();
//! let options = HttpOptions::default()
//!     .session_store(stores.sessions.clone())
//!     .event_store(stores.events.clone())
//!     .notification_bus(stores.bus.clone());
//! server.serve_http("0.0.0.0:8080").options(options).await?;
//! # Ok(())
//! # }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]

mod bus;
mod conn;
mod event;
mod session;
mod task;

use std::sync::Arc;
use std::time::Duration;

use ferromcp::store::SharedStores;

pub use bus::RedisNotificationBus;
pub use event::RedisEventStore;
pub use session::RedisSessionStore;
pub use task::RedisTaskStore;

/// The guide's page on deploying (its Redis examples use this crate), compiled and run as
/// doctests so its code cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../docs/deploying.md")]
mod deploying {}

/// Why a store could not connect to Redis.
///
/// # Examples
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let error = ferromcp_redis::connect("http://not-redis".into()).await.unwrap_err();
/// assert!(matches!(error, ferromcp_redis::ConnectError::Url(_)));
/// # }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The URL is not a Redis URL (`redis://[user:password@]host:port[/db]`).
    #[error("not a redis url")]
    Url(#[source] redis::RedisError),
    /// Redis did not answer in this time.
    #[error("redis did not answer within {0:?}")]
    Timeout(Duration),
    /// Redis could not be reached, or refused the connection.
    #[error("cannot connect to redis")]
    Connect(#[source] redis::RedisError),
}

/// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]`) once, and
/// returns the four stores on that connection with their default keys: a
/// [`RedisSessionStore`], a [`RedisEventStore`], a [`RedisNotificationBus`] and a
/// [`RedisTaskStore`]. Its signature is what `ferromcp::run::Runner::shared_stores` takes.
///
/// # Errors
///
/// The URL is malformed, or Redis could not be reached within 2 s.
///
/// # Examples
///
/// See the [crate docs](crate).
pub async fn connect(url: String) -> Result<SharedStores, ConnectError> {
    let conn = conn::Conn::open(&url).await?;
    Ok(SharedStores::new(
        Arc::new(RedisSessionStore::on(conn.clone())),
        Arc::new(RedisEventStore::on(conn.clone())),
        Arc::new(RedisNotificationBus::on(conn.clone())),
        Arc::new(RedisTaskStore::on(conn)),
    ))
}

/// Serves `handler` as [`ferromcp::run`](fn@ferromcp::run) does, with `--redis URL` (or
/// `FERROMCP_REDIS_URL`) sharing its state through that Redis: `fn main() {
/// ferromcp_redis::run(MyServer) }` is a whole program for a replica (feature `run`, on by
/// default). The same as `Runner::for_server::<S>().shared_stores(connect).serve(handler)`.
///
/// # Examples
///
/// ```no_run
/// use ferromcp::prelude::*;
///
/// struct Echo;
///
/// #[ferromcp::server(name = "echo")]
/// impl Echo {
///     /// Returns its input.
///     #[tool]
///     fn echo(&self, text: String) -> String {
///         text
///     }
/// }
///
/// fn main() {
///     ferromcp_redis::run(Echo)
/// }
/// ```
#[cfg(feature = "run")]
#[cfg_attr(docsrs, doc(cfg(feature = "run")))]
pub fn run<S: ferromcp::McpServer>(handler: S) {
    ferromcp::run::Runner::for_server::<S>()
        .shared_stores(connect)
        .serve(handler)
}
