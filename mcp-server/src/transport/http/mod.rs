//! Streamable HTTP for both protocol eras, on axum (feature `http`).
//!
//! One endpoint serves every client: a POST whose body carries the 2026 per-request `_meta`
//! envelope is a stateless modern request (its metadata headers are checked against the
//! body); any other POST belongs to a legacy session, minted by `initialize` and named by
//! `Mcp-Session-Id` afterwards. GET opens a legacy session's stream for server-initiated
//! messages; DELETE ends a legacy session; both are 405 without a session.
//!
//! Safe by default: `Host`/`Origin` are checked against loopback before the body is read
//! (403), bodies are limited while they stream (413, 4 MiB by default), only
//! `application/json` is accepted (415), session ids are 256-bit random values, and idle
//! sessions expire. The server that `serve_http*` runs bounds connections, the time to send
//! a request and idle keep-alive, and shuts down gracefully on SIGINT and SIGTERM.
//!
//! A response is JSON unless the request emits messages before its result (progress, logs,
//! a legacy elicitation) and the client accepts `text/event-stream`: then it is an SSE
//! stream of those messages ending with the result.
//!
//! The modules are layered, each depending only on those before it: the stores
//! ([`crate::store`]); sessions and their events ([`session`], [`resume`], [`sse`],
//! [`reply`], and [`bus`], which relays changes between instances); [`options`] (settings);
//! [`layers`] (the checks before the body is read); [`endpoint`] (session lookup, POST,
//! GET, DELETE); [`router`] and [`serve`] (listener, connection watchdog, shutdown).

mod bus;
pub(crate) mod endpoint;
mod layers;
mod options;
mod origin;
mod reply;
pub(crate) mod resume;
mod router;
mod serve;
mod session;
mod sse;

pub use layers::{BodyLimitLayer, HostOriginLayer, MediaTypeLayer};
pub use options::HttpOptions;
pub use origin::{HostPolicy, OriginPolicy};
pub use serve::{ServeHttp, shutdown_signal};
pub use session::{HttpSession, LiveSessionStore, MemoryLiveSessionStore};

pub(crate) use endpoint::Endpoint;

/// The header naming a legacy session.
pub const SESSION_HEADER: &str = "mcp-session-id";

pub(crate) use crate::principal::Principal;
