//! A Model Context Protocol client: connect to a server over stdio or Streamable HTTP, in
//! either era (2026-07-28 `server/discover`, or the legacy `initialize` handshake), and call
//! it with typed requests.
//!
//! - [`Client::connect_http`] talks Streamable HTTP ([`HttpTransport`]: URL, bearer token,
//!   headers): 2026-07-28 stateless requests, or a 2025 session (`Mcp-Session-Id`,
//!   `MCP-Protocol-Version`, SSE answers resumed with `Last-Event-ID`, DELETE on close).
//! - [`Client::connect_stdio`] starts a server process ([`StdioCommand`]); its stderr goes
//!   to `tracing` (target `ferromcp_client::stderr`), and it is killed and reaped when the
//!   client is closed or dropped.
//! - The era is chosen automatically (2026-07-28 first, then `initialize`) or pinned with
//!   [`ClientOptions::protocol_version`].
//! - Typed calls: [`Client::list_tools`] (every page), [`Client::call_tool`],
//!   [`Client::read_resource`], [`Client::get_prompt`], [`Client::complete`],
//!   [`Client::set_log_level`], [`Client::ping`]; anything else with
//!   [`Client::request_value`].
//! - Notifications arrive on a bounded stream, [`Client::events`].
//! - The server's requests (sampling, roots, elicitation; 2026 input requests) are answered
//!   by a [`ClientHandler`].
//! - Failures are an [`Error`]: a connection failure, a JSON-RPC error of the server, a
//!   timeout or an invalid message. A tool that fails is *not* an error: its
//!   [`CallToolResult`](ferromcp_core::types::CallToolResult) has `is_error()` set.
//!
//! The protocol types are those of [`ferromcp_core`], re-exported as [`types`].
//!
//! # Examples
//!
//! ```no_run
//! use ferromcp_client::{Client, ClientOptions, StdioCommand};
//!
//! # async fn run() -> Result<(), ferromcp_client::Error> {
//! let server = StdioCommand::new("cargo").args(["run", "-q", "--bin", "quickstart"]);
//! let client = Client::connect_stdio(server, ClientOptions::new()).await?;
//! println!("speaking {}", client.protocol_version());
//! let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await?;
//! println!("{:?}", result.content);
//! client.close().await;
//! # Ok(())
//! # }
//! ```

#![warn(unreachable_pub, missing_debug_implementations)]

mod calls;
mod client;
mod error;
mod events;
mod handler;
mod handshake;
mod options;
mod peer;
mod sync;
mod tasks;
mod transport;

pub use calls::CallOptions;
pub use client::Client;
pub use error::{Error, Result};
pub use events::{Event, Events};
pub use ferromcp_core::{Era, ProtocolVersion};
pub use ferromcp_core::{error as rpc, types};
pub use handler::{BoxFuture, ClientHandler};
pub use options::ClientOptions;
pub use tasks::{TaskInfo, ToolRun};
pub use tokio_util::sync::CancellationToken;
pub use transport::http::HttpTransport;
pub use transport::stdio::StdioCommand;

/// The README and the guide's page, compiled as doctests so their code cannot rot.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../README.md")]
    mod readme {}
    #[doc = include_str!("../../docs/client.md")]
    mod client_page {}
}
