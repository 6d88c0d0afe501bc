//! `showcase`: what the quickstart leaves out — a tool that asks the user a question
//! (elicitation), a resource template, and completion of its variable.
//!
//! ```sh
//! cargo run -p mcp-examples --bin showcase                            # stdio
//! cargo run -p mcp-examples --bin showcase -- --http 127.0.0.1:8080   # Streamable HTTP
//! ```

use mcp_server::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

// The form `greet` shows the user (a doc comment here would become the form's description).
#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name.
    name: String,
}

const NOTES: [(&str, &str); 3] = [
    ("welcome", "Welcome! A resource template serves this note."),
    ("ideas", "- elicitation\n- resource templates\n- completion"),
    ("todo", "- [x] stdio\n- [x] Streamable HTTP"),
];

/// The server: each annotated method below is one tool, resource template or completion.
pub struct Showcase;

#[mcp_server::server(
    name = "showcase",
    title = "Showcase",
    instructions = "Call greet to be greeted by name; read notes at showcase://notes/{id}."
)]
impl Showcase {
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

    /// A note by id (one of: welcome, ideas, todo).
    #[resource(
        uri = "showcase://notes/{id}",
        title = "Notes",
        mime_type = "text/markdown"
    )]
    fn notes(&self, id: String) -> Result<String, ResourceError> {
        match NOTES.iter().find(|(note, _)| *note == id) {
            Some((_, text)) => Ok(format!("# {id}\n\n{text}\n")),
            None => Err(ResourceError::NotFound),
        }
    }

    #[completion(resource = "showcase://notes/{id}", argument = "id")]
    fn complete_note_id(&self, value: String) -> Vec<&str> {
        let mut ids = NOTES.map(|(id, _)| id).to_vec();
        ids.retain(|id| id.starts_with(&value));
        ids
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // stdout carries the protocol over stdio: logs go to stderr (RUST_LOG filters them).
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .init();

    let server = Server::new(Showcase)?;
    match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => Ok(server.serve_stdio().await?),
        [flag, addr] if flag == "--http" => Ok(server.serve_http(addr.as_str()).await?),
        _ => Err("usage: showcase [--http 127.0.0.1:PORT]".into()),
    }
}
