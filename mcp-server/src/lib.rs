//! Write [Model Context Protocol](https://modelcontextprotocol.io) servers in Rust.
//!
//! A server is a registry of tools, resources, prompts and completions, served to every
//! client era in use: the 2025 revisions (an `initialize` handshake and sessions) and the
//! stateless 2026-07-28 revision, from one registry, over stdio or Streamable HTTP.
//!
//! # A server in a few lines
//!
//! ```no_run
//! use ferromcp::prelude::*;
//!
//! struct Echo;
//!
//! #[ferromcp::server(name = "echo")]
//! impl Echo {
//!     /// Returns its input.
//!     #[tool(read_only)]
//!     fn echo(&self, text: String) -> String {
//!         text
//!     }
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     Server::new(Echo)?.serve_stdio().await?;
//!     Ok(())
//! }
//! ```
//!
//! The macros derive the tool's input schema from the signature and its description from
//! the doc comment, and check both at compile time; [`registry`] builds the same by hand.
//!
//! # The pieces
//!
//! - [`Server`] / [`ServerBuilder`]: identity, limits, timeouts, shared state.
//! - [`registry`]: what the server offers; change it at run time and clients are told.
//! - [`Context`]: progress, logging, cancellation, and elicitation / sampling / roots with
//!   one API for both eras.
//! - [`IntoToolResult`], [`IntoReadResult`], [`IntoPromptResult`], [`Json`]: what handlers
//!   may return.
//! - `testing` (feature `testing`, for `[dev-dependencies]`): an in-process client for
//!   `cargo test`.
//! - `auth` (feature `auth`): an OAuth 2.1 resource server in front of the HTTP endpoint,
//!   and the caller's [`Principal`].
//! - The protocol model is re-exported from `ferromcp-core`: [`types`], [`jsonrpc`], [`error`].
//!
//! # Features
//!
//! | feature | adds |
//! |---|---|
//! | `run` (default) | `ferromcp::run` and the `run` module: `fn main() { ferromcp::run(MyServer) }` serves stdio or, with `--http`, Streamable HTTP, per the command line (clap) and the environment, logging to stderr (implies `http`) |
//! | `http` | `Server::serve_http`, `Server::serve_http_on`, `Server::http_router`, the `http` module (Streamable HTTP on axum) |
//! | `auth` | the `auth` module: an OAuth 2.1 resource server (protected-resource metadata, bearer tokens checked by JWT/JWKS or introspection, scopes with step-up) as a tower layer (implies `http`) |
//! | `testing` | the `testing` module: an in-process test client (for `[dev-dependencies]`) |
//! | `conformance` | `testing::assert_conformant` and the official schemas of every revision, to check a server's lists and handshakes in tests (implies `testing`) |
//! | `skills` | the `skills` module: the `io.modelcontextprotocol/skills` extension (SEP-2640), serving Agent Skills from a folder or from code |
//!
//! Only `run` is on by default; each only adds items.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(unreachable_pub, missing_debug_implementations)]

pub mod apps;
#[cfg(feature = "auth")]
pub mod auth;
mod context;
pub mod custom;
mod engine;
pub mod env;
mod extend;
pub mod extension;
pub mod extract;
pub mod hooks;
mod macros;
mod member;
mod meta;
pub mod observe;
/// Reached only through `__private`, by generated code.
#[doc(hidden)]
mod params;
mod peer;
mod principal;
pub mod registry;
mod request;
mod result;
#[cfg(feature = "run")]
#[cfg_attr(docsrs, doc(cfg(feature = "run")))]
pub mod run;
mod scan;
pub mod schema;
mod serve;
mod server;
pub mod session;
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub mod skills;
pub mod store;
mod sync;
#[cfg(feature = "testing")]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing;
mod transport;

/// What `#[server]`-generated code uses; not public API.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// Internal parsers for the fuzz targets in `fuzz/` (feature `fuzzing`); not public API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod __fuzz;

/// Streamable HTTP for both protocol eras (feature `http`); see [`Server::serve_http`],
/// [`Server::serve_http_on`] and [`Server::http_router`].
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http {
    pub use crate::transport::http::{
        BodyLimitLayer, HostOriginLayer, HostPolicy, HttpOptions, HttpSession, LiveSessionStore,
        MediaTypeLayer, MemoryLiveSessionStore, OriginPolicy, SESSION_HEADER, ServeHttp,
        shutdown_signal,
    };
}

/// The guide's pages, compiled and run as doctests so their code cannot rot.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../README.md")]
    mod crate_readme {}
    // The README's server ends in `ferromcp::run`.
    #[cfg(feature = "run")]
    #[doc = include_str!("../../README.md")]
    mod readme {}
    #[doc = include_str!("../../docs/README.md")]
    mod guide_contents {}
    #[cfg(feature = "http")]
    #[doc = include_str!("../../docs/getting-started.md")]
    mod getting_started {}
    #[doc = include_str!("../../docs/tools.md")]
    mod tools {}
    #[doc = include_str!("../../docs/resources.md")]
    mod resources {}
    #[doc = include_str!("../../docs/prompts.md")]
    mod prompts {}
    #[doc = include_str!("../../docs/state.md")]
    mod state {}
    #[cfg(feature = "auth")]
    #[doc = include_str!("../../docs/authorization.md")]
    mod authorization {}
    #[doc = include_str!("../../docs/eras.md")]
    mod eras {}
    #[doc = include_str!("../../docs/context.md")]
    mod context {}
    #[doc = include_str!("../../docs/tasks.md")]
    mod tasks {}
    #[doc = include_str!("../../docs/hooks.md")]
    mod hooks {}
    #[doc = include_str!("../../docs/extensions.md")]
    mod extensions {}
    #[doc = include_str!("../../docs/apps.md")]
    mod apps {}
    #[cfg(feature = "skills")]
    #[doc = include_str!("../../docs/skills.md")]
    mod skills {}
    // Its HTTP example puts an `AuthLayer` in front of the router.
    #[cfg(feature = "auth")]
    #[doc = include_str!("../../docs/testing.md")]
    mod testing {}
    #[doc = include_str!("../../docs/stdio.md")]
    mod stdio {}
    #[doc = include_str!("../../docs/conformance.md")]
    mod conformance {}
    #[cfg(feature = "http")]
    #[doc = include_str!("../../docs/http.md")]
    mod http {}
    // Its ports run over HTTP too.
    #[cfg(feature = "http")]
    #[doc = include_str!("../../docs/migrating-from-rmcp.md")]
    mod migrating_from_rmcp {}
}

pub use context::{Context, ContextError, Elicitation, InputRequestBuilder};
pub use ferromcp_core::{Era, ProtocolVersion, error, jsonrpc, types, uri_template};
pub use macros::{completion, prompt, resource, server, tool};
pub use principal::Principal;
pub use result::{
    HandlerError, IntoCompletion, IntoPromptResult, IntoReadResult, IntoToolResult, Json,
    PromptError, ResourceError, ToolError,
};
#[cfg(feature = "run")]
#[cfg_attr(docsrs, doc(cfg(feature = "run")))]
pub use run::run;
pub use server::{KeyError, McpServer, Server, ServerBuilder};

/// Tasks: where a server keeps tool calls that outlive their request (see docs/tasks.md).
///
/// The server runs tasks itself; a [`TaskStore`](tasks::TaskStore) only remembers them.
/// [`MemoryTaskStore`](tasks::MemoryTaskStore) is the default; set another with
/// [`ServerBuilder::task_store`].
pub mod tasks {
    pub use crate::engine::tasks::{
        MemoryTaskStore, TaskOutcome, TaskPage, TaskRecord, TaskStore, TaskStoreError,
    };
}
/// The cancellation token of a request ([`Context::cancellation_token`]) and of an HTTP
/// endpoint's streams ([`Server::http_router`]), re-exported from `tokio-util`.
pub use tokio_util::sync::CancellationToken;

/// The items most servers use.
pub mod prelude {
    pub use crate::context::{Context, ContextError, Elicitation};
    pub use crate::extract::{FromContext, State};
    pub use crate::macros::{completion, prompt, resource, server, tool};
    pub use crate::result::{Json, PromptError, ResourceError, ToolError};
    pub use crate::server::{McpServer, Server, ServerBuilder};
    pub use crate::session::{Session, SessionState};
    pub use ferromcp_core::types::{
        CallToolResult, ContentBlock, GetPromptResult, ImageContent, LoggingLevel, PromptMessage,
        ReadResourceResult, Role, TextContent,
    };
}
