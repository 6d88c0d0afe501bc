//! Procedural macros of the MCP server SDK.
//!
//! Use them through `mcp-server`, which re-exports them; generated code refers to the
//! runtime only through `::mcp_server::__private` paths. The attribute macros (`#[server]`,
//! `#[tool]`, `#[resource]`, `#[prompt]`, `#[completion]`) land with the macros work; this
//! crate currently exports nothing.
