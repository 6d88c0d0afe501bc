//! The Model Context Protocol as typed data.
//!
//! `ferromcp-core` holds the protocol and nothing else: no I/O, no async runtime. The server
//! runtime (`ferromcp`) and its macros are built on it; you can also use it directly to
//! write a client, a gateway or a test.
//!
//! # A short tour
//!
//! - [`jsonrpc`]: the JSON-RPC 2.0 envelope. [`jsonrpc::parse`] reads a transport message
//!   once, classifies it (request, notification, response, error, batch), and keeps
//!   `params`/`result` as raw JSON so they can be deserialized straight into typed structs.
//! - [`types`]: every definition of the official schemas of the four revisions, named as in
//!   the schema (`types::CallToolRequest`, `types::DiscoverResult`, …).
//! - [`ProtocolVersion`] and [`Era`]: the revisions, their eras and legacy version
//!   negotiation.
//! - [`error`]: the error codes of both eras with their typed `data` payloads.
//! - [`uri_template`]: RFC 6570 URI templates as MCP resource templates use them: parse,
//!   expand, and match in linear time.
//!
//! # Examples
//!
//! ```
//! use ferromcp_core::jsonrpc::{parse, Incoming, Message};
//! use ferromcp_core::types::{CallToolRequestParams, CallToolResult, ContentBlock, TextContent, WireResult};
//! use ferromcp_core::ProtocolVersion;
//!
//! let bytes = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
//! let Ok(Incoming::Single(Message::Request(req))) = parse(bytes) else { unreachable!() };
//! let params: CallToolRequestParams = serde_json::from_str(req.params.unwrap().get()).unwrap();
//! assert_eq!(params.name, "echo");
//!
//! let mut result = CallToolResult::text("hi");
//! result.prepare_for(ProtocolVersion::V2026_07_28);
//! assert_eq!(
//!     serde_json::to_value(&result).unwrap(),
//!     serde_json::json!({"content": [{"type": "text", "text": "hi"}], "resultType": "complete"})
//! );
//! ```

#![warn(unreachable_pub, missing_debug_implementations)]

/// The crate's README, compiled as a doctest so its example cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}

#[doc(hidden)]
pub mod bytes;
pub mod error;
pub mod jsonrpc;
mod rpc_error;
pub mod types;
pub mod uri_template;
mod version;

pub use version::{Era, ProtocolVersion, UnknownProtocolVersion};
