//! Procedural macros of the MCP server SDK.
//!
//! Use them through `ferromcp`, which re-exports them with their full documentation
//! (`ferromcp::server`, `ferromcp::tool`, …); generated code reaches the runtime only
//! through `::ferromcp::__private` paths, so the two crates are released together.
//!
//! `#[server]` does all the work: on an `impl` block it reads the `#[tool]`, `#[resource]`,
//! `#[prompt]` and `#[completion]` methods (parse → typed model → validate → expand) and
//! implements `ferromcp::McpServer`. The method attributes are only markers for it; on
//! their own they report where they belong. Set `MCP_MACROS_DEBUG=1` (or the type's name)
//! to print each expansion to stderr.

#![warn(unreachable_pub, missing_debug_implementations)]

mod attrs;
mod diag;
mod docs;
mod expand;
mod model;
mod parse;
mod server;
mod types;
mod uri_template;
mod validate;

use proc_macro::TokenStream;

/// Turns an `impl` block into an MCP server. See `ferromcp::server`.
#[proc_macro_attribute]
pub fn server(args: TokenStream, input: TokenStream) -> TokenStream {
    server::expand(args.into(), input.into()).into()
}

/// Marks a method of a `#[server]` impl block as a tool. See `ferromcp::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    server::misplaced("tool", args.into(), input.into()).into()
}

/// Marks a method of a `#[server]` impl block as a resource. See `ferromcp::resource`.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    server::misplaced("resource", args.into(), input.into()).into()
}

/// Marks a method of a `#[server]` impl block as a prompt. See `ferromcp::prompt`.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    server::misplaced("prompt", args.into(), input.into()).into()
}

/// Marks a method of a `#[server]` impl block as a completion. See
/// `ferromcp::completion`.
#[proc_macro_attribute]
pub fn completion(args: TokenStream, input: TokenStream) -> TokenStream {
    server::misplaced("completion", args.into(), input.into()).into()
}
