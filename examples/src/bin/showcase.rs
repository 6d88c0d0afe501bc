//! `quickstart`: the smallest honest MCP server.
//!
//! ```sh
//! cargo run -p mcp-examples --bin quickstart                            # stdio
//! cargo run -p mcp-examples --bin quickstart -- --http 127.0.0.1:8080   # Streamable HTTP
//! ```

use mcp_server::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Summary statistics of a list of numbers.
#[derive(Serialize, JsonSchema)]
struct Stats {
    /// How many numbers there are.
    count: usize,
    /// Their arithmetic mean.
    mean: f64,
    /// The smallest.
    min: f64,
    /// The largest.
    max: f64,
}

// The form `greet` shows the user (a doc comment here would become the form's description).
#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name.
    name: String,
}

const NOTES: [(&str, &str); 3] = [
    ("welcome", "Welcome! A resource template serves this note."),
    ("ideas", "- structured output\n- elicitation\n- prompts"),
    ("todo", "- [x] stdio\n- [ ] Streamable HTTP"),
];

/// The server: each annotated method below is one tool, resource, prompt or completion.
pub struct Quickstart;

#[mcp_server::server(
    name = "quickstart",
    title = "Quickstart",
    instructions = "Small demo tools: add, echo, stats and greet."
)]
impl Quickstart {
    /// Adds two integers and returns their sum.
    ///
    /// # Arguments
    /// * `a` - The first number.
    /// * `b` - The second number.
    #[tool(title = "Add two integers", read_only, idempotent, open_world = false)]
    fn add(&self, a: i64, b: i64) -> Result<String, &'static str> {
        match a.checked_add(b) {
            Some(sum) => Ok(sum.to_string()),
            None => Err("The sum does not fit in a 64-bit integer."),
        }
    }

    /// Returns the given text unchanged.
    ///
    /// # Arguments
    /// * `text` - The text to send back.
    #[tool(title = "Echo", read_only, idempotent, open_world = false)]
    fn echo(&self, text: String) -> String {
        text
    }

    /// Counts a list of numbers and gives their mean, minimum and maximum.
    ///
    /// # Arguments
    /// * `numbers` - The numbers to summarize (at least one).
    #[tool(
        title = "Summary statistics",
        read_only,
        idempotent,
        open_world = false
    )]
    fn stats(&self, numbers: Vec<f64>) -> Result<Json<Stats>, &'static str> {
        if numbers.is_empty() {
            return Err("`numbers` must hold at least one number.");
        }
        Ok(Json(Stats {
            count: numbers.len(),
            mean: numbers.iter().sum::<f64>() / numbers.len() as f64,
            min: numbers.iter().copied().fold(f64::INFINITY, f64::min),
            max: numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }))
    }

    /// Asks the user for their name, then greets them by it.
    #[tool(
        title = "Greet the user",
        read_only,
        idempotent = false,
        open_world = false
    )]
    async fn greet(&self, ctx: Context) -> Result<String, String> {
        match ctx.elicit::<Name>("What is your name?").await {
            Ok(Elicitation::Accept(Name { name })) => Ok(format!("Hello, {name}!")),
            Ok(Elicitation::Decline) => Err("The user declined to give their name.".into()),
            Ok(Elicitation::Cancel) => Err("The user dismissed the question.".into()),
            Err(e) => Err(format!("Could not ask the user for their name: {e}.")),
        }
    }

    /// What this server offers.
    #[resource(
        uri = "quickstart://readme",
        title = "Quickstart README",
        mime_type = "text/markdown"
    )]
    fn readme(&self) -> &'static str {
        "# quickstart\n\nAn example MCP server built with the Rust `mcp-server` SDK: the tools \
         `add`, `echo`, `stats` and `greet`, notes at `quickstart://notes/{id}` and the \
         `code_review` prompt.\n"
    }

    /// A note by id (one of: welcome, ideas, todo).
    #[resource(
        uri = "quickstart://notes/{id}",
        title = "Notes",
        mime_type = "text/markdown"
    )]
    fn notes(&self, id: String) -> Result<String, ResourceError> {
        match NOTES.iter().find(|(note, _)| *note == id) {
            Some((_, text)) => Ok(format!("# {id}\n\n{text}\n")),
            None => Err(ResourceError::NotFound),
        }
    }

    #[completion(resource = "quickstart://notes/{id}", argument = "id")]
    fn complete_note_id(&self, value: String) -> Vec<&str> {
        let mut ids = NOTES.map(|(id, _)| id).to_vec();
        ids.retain(|id| id.starts_with(&value));
        ids
    }

    /// Asks for a careful review of a piece of code.
    ///
    /// # Arguments
    /// * `code` - The code to review.
    #[prompt(title = "Code review")]
    fn code_review(&self, code: String) -> String {
        format!(
            "Please review this code. List bugs first, then unclear names and missing tests.\
             \n\n```\n{code}\n```"
        )
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // stdout carries the protocol, so logs go to stderr (`RUST_LOG` filters them).
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .init();

    let server = Server::new(Quickstart)?;
    match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => {
            tracing::info!("quickstart serving on stdio");
            Ok(server.serve_stdio().await?)
        }
        [flag, addr] if flag == "--http" => Ok(server.serve_http(addr.as_str()).await?),
        _ => Err("usage: quickstart [--http 127.0.0.1:PORT]".into()),
    }
}
