//! `quickstart`: the smallest honest MCP server.
//!
//! Tools `add`, `echo`, `stats` (structured output) and `greet` (asks the user for their
//! name), the resource `quickstart://readme`, the resource template
//! `quickstart://notes/{id}` and the prompt `code_review`.
//!
//! ```sh
//! cargo run -p mcp-examples --bin quickstart                            # stdio
//! cargo run -p mcp-examples --bin quickstart -- --http 127.0.0.1:8080   # Streamable HTTP
//! ```
//!
//! Logs go to stderr (`RUST_LOG` filters them); stdout carries nothing but the protocol.

use std::collections::BTreeMap;
use std::process::ExitCode;

use mcp_server::registry::{
    CompletionTarget, RegistryError, completion_fn, prompt_fn, resource_fn, tool_fn,
};
use mcp_server::schema::{input_schema_for, output_schema_for};
use mcp_server::types::{
    JSONObject, Prompt, PromptArgument, PromptMessage, Resource, ResourceTemplate, TextContent,
    Tool, ToolAnnotations,
};
use mcp_server::{Context, ContextError, Elicitation, Json, PromptError, ResourceError, Server};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddArgs {
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StatsArgs {
    /// The numbers to summarize (at least one).
    numbers: Vec<f64>,
}

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

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

// The form `greet` shows the user (a doc comment here would become the form's description).
#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name.
    name: String,
}

const README: &str = "# quickstart\n\n\
An example MCP server built with the Rust `mcp-server` SDK.\n\n\
- `add(a, b)`: the sum of two integers\n\
- `echo(text)`: the text, unchanged\n\
- `stats(numbers)`: count, mean, min and max, as structured content\n\
- `greet()`: asks for your name, then says hello\n\n\
Notes live at `quickstart://notes/{id}`; the `code_review` prompt asks for a review.\n";

const NOTES: [(&str, &str); 3] = [
    (
        "welcome",
        "Welcome! This note is served by a resource template.",
    ),
    ("ideas", "- structured output\n- elicitation\n- prompts"),
    ("todo", "- [x] stdio\n- [ ] Streamable HTTP"),
];

/// A read-only, closed-world tool.
fn tool(
    name: &str,
    title: &str,
    description: &str,
    idempotent: bool,
    input_schema: JSONObject,
) -> Tool {
    let mut tool = Tool::new(name, input_schema);
    tool.title = Some(title.into());
    tool.description = Some(description.into());
    tool.annotations = Some(ToolAnnotations {
        read_only_hint: Some(true),
        idempotent_hint: Some(idempotent),
        open_world_hint: Some(false),
        ..ToolAnnotations::default()
    });
    tool
}

async fn greet(ctx: Context) -> Result<String, String> {
    match ctx.elicit::<Name>("What is your name?").await {
        Ok(Elicitation::Accept(Name { name })) => Ok(format!("Hello, {name}!")),
        Ok(Elicitation::Decline) => Err("The user declined to give their name.".into()),
        Ok(Elicitation::Cancel) => Err("The user dismissed the question.".into()),
        Err(ContextError::CapabilityMissing(_)) => Err(
            "This client cannot ask the user for input (it does not support elicitation), \
             so greet cannot learn the user's name."
                .into(),
        ),
        Err(e) => Err(format!("Could not ask the user for their name: {e}")),
    }
}

fn stats(numbers: &[f64]) -> Result<Json<Stats>, String> {
    if numbers.is_empty() {
        return Err("`numbers` must hold at least one number.".into());
    }
    let count = numbers.len();
    let min = numbers.iter().copied().fold(f64::INFINITY, f64::min);
    let max = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = numbers.iter().sum::<f64>() / count as f64;
    Ok(Json(Stats {
        count,
        mean,
        min,
        max,
    }))
}

/// The quickstart server, ready to serve.
pub(crate) fn server() -> Result<Server, RegistryError> {
    let server = Server::builder("quickstart", env!("CARGO_PKG_VERSION"))
        .title("Quickstart")
        .instructions("Small demo tools: add, echo, stats and greet.")
        .build();
    let registry = server.registry();

    registry.add_tool(
        tool(
            "add",
            "Add two integers",
            "Adds two integers and returns their sum.",
            true,
            input_schema_for::<AddArgs>(),
        ),
        tool_fn(|args: AddArgs, _ctx| async move {
            args.a
                .checked_add(args.b)
                .map(|sum| sum.to_string())
                .ok_or("The sum does not fit in a 64-bit integer.")
        }),
        None,
    )?;

    registry.add_tool(
        tool(
            "echo",
            "Echo",
            "Returns the given text unchanged.",
            true,
            input_schema_for::<EchoArgs>(),
        ),
        tool_fn(|args: EchoArgs, _ctx| async move { args.text }),
        None,
    )?;

    let mut stats_tool = tool(
        "stats",
        "Summary statistics",
        "Counts a list of numbers and gives their mean, minimum and maximum.",
        true,
        input_schema_for::<StatsArgs>(),
    );
    stats_tool.output_schema = Some(output_schema_for::<Stats>());
    registry.add_tool(
        stats_tool,
        tool_fn(|args: StatsArgs, _ctx| async move { stats(&args.numbers) }),
        None,
    )?;

    registry.add_tool(
        tool(
            "greet",
            "Greet the user",
            "Asks the user for their name, then greets them by it.",
            false,
            input_schema_for::<NoArgs>(),
        ),
        tool_fn(|_: NoArgs, ctx| greet(ctx)),
        None,
    )?;

    let mut readme = Resource::new("quickstart://readme", "readme");
    readme.title = Some("Quickstart README".into());
    readme.description = Some("What this server offers.".into());
    readme.mime_type = Some("text/markdown".into());
    registry.add_resource(
        readme,
        resource_fn(Some("text/markdown"), |_, _, _| async { README }),
    )?;

    let mut notes = ResourceTemplate::new("quickstart://notes/{id}", "notes");
    notes.title = Some("Notes".into());
    notes.description = Some(format!(
        "A note by id (one of: {}).",
        NOTES.map(|(id, _)| id).join(", ")
    ));
    notes.mime_type = Some("text/markdown".into());
    registry.add_resource_template(
        notes,
        resource_fn(Some("text/markdown"), |_, vars, _| async move {
            let id = vars.get_str("id").unwrap_or_default();
            NOTES
                .iter()
                .find(|(note, _)| *note == id)
                .map(|(_, text)| format!("# {id}\n\n{text}\n"))
                .ok_or(ResourceError::NotFound)
        }),
    )?;
    registry.add_completion(
        CompletionTarget::ResourceTemplate("quickstart://notes/{id}".into()),
        "id",
        completion_fn(|prefix: String, _, _| async move {
            NOTES
                .iter()
                .map(|(id, _)| *id)
                .filter(|id| id.starts_with(&prefix))
                .collect::<Vec<_>>()
        }),
    );

    let mut review = Prompt::new("code_review");
    review.title = Some("Code review".into());
    review.description = Some("Asks for a careful review of a piece of code.".into());
    review.arguments = Some(vec![PromptArgument {
        description: Some("The code to review.".into()),
        ..PromptArgument::new("code", true)
    }]);
    registry.add_prompt(
        review,
        prompt_fn(|args: BTreeMap<String, String>, _| async move {
            let code = args
                .get("code")
                .ok_or_else(|| PromptError::invalid_argument("missing required argument `code`"))?;
            Ok::<_, PromptError>(PromptMessage::user(TextContent::new(format!(
                "Please review this code. List bugs first, then unclear names and missing \
                 tests.\n\n```\n{code}\n```"
            ))))
        }),
    )?;

    Ok(server)
}

/// How the binary was asked to serve.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Stdio,
    Http(String),
}

const USAGE: &str = "usage: quickstart [--http 127.0.0.1:PORT]";

pub(crate) fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Mode, String> {
    match (args.next().as_deref(), args.next(), args.next()) {
        (None, _, _) => Ok(Mode::Stdio),
        (Some("--http"), Some(addr), None) => Ok(Mode::Http(addr)),
        (Some("--http"), None, _) => Err("--http needs an address, e.g. 127.0.0.1:8080".into()),
        (Some(other), _, _) => Err(format!("unexpected argument `{other}`")),
    }
}

/// A command-line failure, told to the person who ran the binary.
#[allow(clippy::print_stderr)]
fn fail(message: &str) -> ExitCode {
    eprintln!("quickstart: {message}\n{USAGE}");
    ExitCode::from(2)
}

#[tokio::main]
async fn main() -> ExitCode {
    let mode = match parse_args(std::env::args().skip(1)) {
        Ok(mode) => mode,
        Err(message) => return fail(&message),
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let server = match server() {
        Ok(server) => server,
        Err(e) => {
            tracing::error!(error = %e, "the server could not be built");
            return ExitCode::FAILURE;
        }
    };
    match mode {
        Mode::Stdio => {
            tracing::info!("quickstart serving on stdio");
            match server.serve_stdio().await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    tracing::error!(error = %e, "stdio failed");
                    ExitCode::FAILURE
                }
            }
        }
        Mode::Http(addr) => match server.serve_http(addr.as_str()).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                tracing::error!(error = %e, %addr, "HTTP failed");
                ExitCode::FAILURE
            }
        },
    }
}
