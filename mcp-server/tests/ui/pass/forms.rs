//! Every form the macros accept, under `#![deny(warnings)]`: generated code must not warn.
#![deny(warnings, unused_qualifications, unreachable_pub)]
// A test program (harness = false): an unwrap that fails is the test failing; clippy's
// allow-unwrap-in-tests does not reach a target without the test harness.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use ferromcp::extract::{FromContext, State};
use ferromcp::{Context, Json, Server, ToolError};

struct Config {
    greeting: &'static str,
}

struct Caller(String);

impl FromContext for Caller {
    fn from_context(ctx: &Context) -> Result<Self, ferromcp::error::ErrorObject> {
        Ok(Caller(
            ctx.client_info()
                .map_or_else(String::new, |i| i.name.clone()),
        ))
    }
}

struct Forms;

// Paths instead of the prelude: `#[ferromcp::tool]` and friends are recognised too.
#[ferromcp::server]
impl Forms {
    /// Sync, `&self`, extractors first and last.
    #[ferromcp::tool]
    fn greet(&self, config: State<Config>, name: String, #[extract] caller: Caller) -> String {
        format!("{} {name} ({})", config.greeting, caller.0)
    }

    /// Async with `Arc<Self>` and a structured result.
    #[ferromcp::tool(
        title = "Size",
        read_only,
        destructive = false,
        idempotent,
        open_world = false
    )]
    async fn size(self: Arc<Self>, text: String) -> Result<Json<usize>, ToolError> {
        Ok(Json(text.len()))
    }

    /// Nothing to return.
    #[ferromcp::tool(description = "Does nothing.")]
    async fn noop(&self) {}

    /// A static resource.
    #[ferromcp::resource(uri = "forms://about", mime_type = "text/plain")]
    async fn about(&self, _ctx: Context) -> &'static str {
        "forms"
    }

    /// A prompt.
    #[ferromcp::prompt]
    async fn ask(&self, topic: String, times: Option<u8>) -> String {
        format!("{topic} x{}", times.unwrap_or(1))
    }

    #[ferromcp::completion(prompt = "ask", argument = "topic")]
    async fn complete_topic(&self, value: String, _ctx: Context) -> Vec<&'static str> {
        if value.is_empty() {
            vec!["rust"]
        } else {
            vec![]
        }
    }

    fn ordinary(&self) -> u8 {
        7
    }
}

fn main() {
    let server: Server = Server::builder(Forms)
        .state(Config { greeting: "hi" })
        .build()
        .unwrap();
    assert_eq!(server.registry().tool_names(), ["greet", "size", "noop"]);
    assert_eq!(Forms.ordinary(), 7);
}
