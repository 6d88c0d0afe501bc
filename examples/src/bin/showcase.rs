//! `showcase`: what the quickstart leaves out — a tool that asks the user a question
//! (elicitation), a long tool call that runs as a task with progress, a resource template,
//! and completion of its variable, and a small app (MCP Apps) beside the report: its sections
//! as tiles, and a control to compile it again through the host.
//!
//! ```sh
//! cargo run -p mcp-examples --bin showcase                            # stdio
//! cargo run -p mcp-examples --bin showcase -- --http 127.0.0.1:8080   # Streamable HTTP
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 cargo run -p mcp-examples --bin showcase
//! ```
//!
//! With `OTEL_EXPORTER_OTLP_ENDPOINT` set, spans and metrics are exported over OTLP
//! (`ferromcp-otel`, one line in `main`).

use ferromcp::apps::{Apps, UiResource};
use ferromcp::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

#[path = "../../apps/page.rs"]
mod page;

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

#[ferromcp::server(
    name = "showcase",
    title = "Showcase",
    instructions = "Call greet to be greeted by name; call report for a long-running report \
                    (a task); read notes at showcase://notes/{id}."
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

    /// Compiles a report, one section every 200 ms, reporting progress. Clients that take
    /// tasks get a task at once and collect the report later; hosts that render apps show
    /// its sections beside the result.
    ///
    /// # Arguments
    /// * `sections` - how many sections (default 10, at most 100)
    #[tool(
        title = "Compile a report",
        read_only,
        task_support = "optional",
        ui = "ui://showcase/report.html"
    )]
    async fn report(&self, sections: Option<u32>, ctx: Context) -> String {
        let sections = sections.unwrap_or(10).clamp(1, 100);
        for done in 1..=sections {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            let message = format!("section {done} of {sections}");
            ctx.progress(f64::from(done), Some(f64::from(sections)), Some(&message))
                .await;
        }
        format!("The report: {sections} sections, all good.")
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

/// The app (`io.modelcontextprotocol/ui`) the `report` tool points at: the page in
/// `examples/apps/showcase/report.html` with the official `App` class inlined.
///
/// # Errors
///
/// The page or the vendored bundle lost its slot or its exports (checked by the tests).
pub fn apps() -> Result<Apps, String> {
    let html = page::with_app_class(include_str!("../../apps/showcase/report.html"))?;
    let report = UiResource::html("ui://showcase/report.html", html)
        .name("report")
        .title("Report")
        .description("The report's sections as tiles; compile it again with more or fewer.");
    Ok(Apps::new().resource(report))
}

/// The server, with its app.
///
/// # Errors
///
/// See [`apps`].
pub fn server() -> Result<Server, String> {
    let builder = Server::builder(Showcase)
        .extension(apps()?)
        .map_err(|e| e.to_string())?;
    builder.build().map_err(|e| e.to_string())
}

fn main() {
    // `ferromcp::run(Showcase)` with the app, and OpenTelemetry as the `OTEL_*` variables
    // configure it.
    ferromcp::run::Runner::for_server::<Showcase>()
        .observer_from(ferromcp_otel::Otel::from_env)
        .serve_with(async |setup| Ok(setup.builder(Showcase)?.extension(apps()?)?.build()?))
}
