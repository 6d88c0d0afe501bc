//! A user crate with no serde / schemars dependency and its own modules named like the
//! crates generated code could reach for: the expansion must only use absolute
//! `::ferromcp::__private` paths.
#![deny(warnings)]
// A test program (harness = false): an unwrap that fails is the test failing; clippy's
// allow-unwrap-in-tests does not reach a target without the test harness.
#![allow(clippy::unwrap_used)]

mod serde {}
mod schemars {}
mod std {}
mod core {}
mod alloc {}
mod ferromcp_core {}

use ::std::collections::HashMap;
use ::std::sync::Arc;

use ferromcp::prelude::*;

struct Result;
struct Option;
struct Vec;
struct String;
struct Box;

/// Argument types may be aliases.
type Tags = ::std::vec::Vec<::std::string::String>;

struct Hygienic;

#[ferromcp::server(name = "hygienic", version = "0.0.1")]
impl Hygienic {
    /// Echoes a string.
    #[tool]
    fn echo(
        &self,
        text: ::std::string::String,
        tags: Tags,
        counts: HashMap<::std::string::String, u32>,
        limit: ::std::option::Option<u8>,
    ) -> ::std::string::String {
        ::std::format!("{text} {} {} {limit:?}", tags.len(), counts.len())
    }

    /// Counts, asynchronously, with the context.
    #[tool(read_only, timeout_ms = 1000)]
    async fn count(self: Arc<Self>, ctx: Context) -> Json<u32> {
        let _ = ctx.is_cancelled();
        Json(1)
    }

    /// One item.
    #[resource(uri = "items://{id}{?verbose}")]
    fn item(&self, id: u64, verbose: ::std::option::Option<bool>) -> ::std::string::String {
        ::std::format!("{id} {verbose:?}")
    }

    /// Reviews.
    #[prompt]
    fn review(&self, #[arg(default = 1)] depth: u8) -> ::std::string::String {
        ::std::format!("depth {depth}")
    }

    #[completion(resource = "items://{id}{?verbose}", argument = "id")]
    fn complete_id(&self, value: ::std::string::String) -> ::std::vec::Vec<::std::string::String> {
        ::std::vec![value]
    }
}

fn main() {
    let _ = (Result, Option, Vec, String, Box);
    let server = Server::new(Hygienic).unwrap();
    ::std::assert_eq!(server.registry().tool_names(), ["echo", "count"]);
    ::std::assert_eq!(server.info().name, "hygienic");
}
