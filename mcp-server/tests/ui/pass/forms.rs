//! Every form the macros accept, under `#![deny(warnings)]`: generated code must not warn.
#![deny(warnings, unused_qualifications, unreachable_pub)]

use std::sync::Arc;

use mcp_server::extract::{FromContext, State};
use mcp_server::{Context, Json, Server, ToolError};

struct Config {
    greeting: &'static str,
}

struct Caller(String);

impl FromContext for Caller {
    fn from_context(ctx: &Context) -> Result<Self, mcp_server::error::ErrorObject> {
        Ok(Caller(ctx.client_info().map_or_else(String::new, |i| i.name.clone())))
    }
}

struct Forms;

// Paths instead of the prelude: `#[mcp_server::tool]` and friends are recognised too.
#[mcp_server::server]
impl Forms {
    /// Sync, `&self`, extractors first and last.
    #[mcp_server::tool]
    fn greet(&self, config: State<Config>, name: String, #[extract] caller: Caller) -> String {
        format!("{} {name} ({})", config.greeting, caller.0)
    }

    /// Async with `Arc<Self>` and a structured result.
    #[mcp_server::tool(title = "Size", read_only, destructive = false, idempotent, open_world = false)]
    async fn size(self: Arc<Self>, text: String) -> Result<Json<usize>, ToolError> {
        Ok(Json(text.len()))
    }

    /// Nothing to return.
    #[mcp_server::tool(description = "Does nothing.")]
    async fn noop(&self) {}

    /// A static resource.
    #[mcp_server::resource(uri = "forms://about", mime_type = "text/plain")]
    async fn about(&self, _ctx: Context) -> &'static str {
        "forms"
    }

    /// A prompt.
    #[mcp_server::prompt]
    async fn ask(&self, topic: String, times: Option<u8>) -> String {
        format!("{topic} x{}", times.unwrap_or(1))
    }

    #[mcp_server::completion(prompt = "ask", argument = "topic")]
    async fn complete_topic(&self, value: String, _ctx: Context) -> Vec<&'static str> {
        if value.is_empty() { vec!["rust"] } else { vec![] }
    }

    fn ordinary(&self) -> u8 {
        7
    }
}

fn main() {
    let server: Server = Server::with_handler(Forms)
        .state(Config { greeting: "hi" })
        .build()
        .unwrap();
    assert_eq!(server.registry().tool_names(), ["greet", "size", "noop"]);
    assert_eq!(Forms.ordinary(), 7);
}
