//! Every message and structure of the MCP schemas, named exactly as in the schema.
//!
//! One type serves all four revisions: it holds the union of the fields the revisions
//! define, and the differences are explicit:
//!
//! - fields that only the 2026-07-28 revision has on results (`resultType`, `ttlMs`,
//!   `cacheScope`) are set or stripped by [`WireResult::prepare_for`] for the revision in
//!   force, so a result is never sent with another era's fields;
//! - a result that may come back as an [`InputRequiredResult`] (2026 multi round-trip
//!   requests) is a [`MrtrResult`];
//! - error codes that changed between eras (resource not found) are built by
//!   [`ErrorObject::resource_not_found`](crate::error::ErrorObject::resource_not_found);
//! - the 2026 per-request `_meta` envelope is [`RequestMetaObject`], and its validation lives
//!   in [`RequestMetaObject::modern_envelope`].
//!
//! Unknown members survive a round trip: every object type keeps them in an `extra` map, and
//! `_meta` is kept whole.
//!
//! Request, notification and response types carry their JSON-RPC envelope (`jsonrpc`,
//! `id`, `method`) as the 2025-11-25 and 2026-07-28 schemas define them; the `method` is
//! checked on deserialization and written on serialization, and is available as
//! [`McpRequest::METHOD`] / [`McpNotification::METHOD`].
//!
//! # Examples
//!
//! ```
//! use ferromcp_core::types::{CallToolRequest, McpRequest};
//!
//! let req: CallToolRequest = serde_json::from_str(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}"#,
//! ).unwrap();
//! assert_eq!(req.params.name, "add");
//! assert_eq!(CallToolRequest::METHOD, "tools/call");
//! ```

#[macro_use]
mod macros;

mod base;
mod completion;
mod content;
mod discover;
mod elicitation;
pub(crate) mod error_data;
mod errors;
mod lifecycle;
mod logging;
mod messages;
mod meta;
mod mrtr;
mod notifications;
mod omit;
mod prompts;
mod resources;
mod roots;
mod sampling;
mod subscriptions;
mod tasks;
mod tasks_extension;
mod tools;
pub(crate) mod wire;

pub use base::*;
pub use completion::*;
pub use content::*;
pub use discover::*;
pub use elicitation::*;
pub use errors::*;
pub use lifecycle::*;
pub use logging::*;
pub use messages::*;
pub use meta::*;
pub use mrtr::*;
pub use notifications::*;
pub use prompts::*;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use subscriptions::*;
pub use tasks::*;
pub use tasks_extension::*;
pub use tools::*;

use crate::ProtocolVersion;

/// A typed request: its method name, params type and result type.
pub trait McpRequest {
    /// The JSON-RPC method, e.g. `tools/call`.
    const METHOD: &'static str;
    /// The type of the `params` member.
    type Params;
    /// The type of a successful `result`.
    type Result;
}

/// A typed notification: its method name and params type.
pub trait McpNotification {
    /// The JSON-RPC method, e.g. `notifications/progress`.
    const METHOD: &'static str;
    /// The type of the `params` member.
    type Params;
}

/// A result a server sends, adapted to the wire form of one protocol revision.
pub trait WireResult {
    /// Sets the fields the revision requires and removes those it does not have:
    /// in the modern era `resultType` (default `"complete"`) and, on cacheable results,
    /// `ttlMs`/`cacheScope` (default [`CacheHints::default`]) unless already set; in the
    /// legacy era all of them are removed.
    fn prepare_for(&mut self, version: ProtocolVersion);
}

/// A 2026 result that carries client-side caching hints (`ttlMs`, `cacheScope`).
pub trait Cacheable: WireResult {
    /// Sets the caching hints.
    fn set_cache_hints(&mut self, hints: CacheHints);
}
