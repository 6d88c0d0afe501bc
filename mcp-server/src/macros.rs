//! The attribute macros, re-exported from `ferromcp-macros` with their documentation.

/// Turns an `impl` block into an MCP server: its `#[tool]`, `#[resource]`, `#[prompt]` and
/// `#[completion]` methods become the server's primitives, checked at compile time.
///
/// `#[server(name = "...", version = "...", title = "...", instructions = "...", scopes = [...])]`:
/// every argument is optional; `name` and `version` default to your crate's `CARGO_PKG_NAME`
/// and `CARGO_PKG_VERSION`; `scopes` are the OAuth scopes an authenticated caller needs for
/// every item without scopes of its own
/// ([`Registry::set_default_scopes`](crate::registry::Registry::set_default_scopes)). The macro implements [`McpServer`](crate::McpServer), so
/// [`Server::new`](crate::Server::new) or [`Server::builder`](crate::Server::builder)
/// serve the type. Server capabilities follow from what is registered.
///
/// Inside the block, `#[tool]`, `#[resource]`, `#[prompt]` and `#[completion]` work with or
/// without an import (`use ferromcp::prelude::*`, `use ferromcp::tool`, or the path
/// `#[ferromcp::tool]` all do too). Methods without one stay ordinary methods. Each
/// annotated method may be sync or `async`, takes `&self` or `self: Arc<Self>`, and may carry
/// `#[cfg(...)]`: a method compiled out takes its registration with it.
///
/// # Parameters
///
/// A parameter is an **extractor**, filled from the request, or an **argument**: a tool
/// argument, a template variable or a prompt argument, named by the parameter. Extractors
/// are never part of a schema.
///
/// - In a `#[tool]`, the type decides, by its traits: a type implementing
///   [`FromContext`](crate::extract::FromContext) (`Context`, `State<T>`,
///   `CancellationToken`, your own) is an extractor, one implementing `Deserialize` and
///   `JsonSchema` an argument, so a type alias or a re-export behaves as the type it names.
///   A type that is neither is one compile error at the parameter. Beside an `#[args]`
///   struct, and with a destructuring pattern (`State(db): State<Db>`), a parameter is an
///   extractor.
/// - In a `#[resource]`, `#[prompt]` or `#[completion]`, a parameter whose type's last path
///   segment is `Context` or `State` is an extractor; mark any other extractor
///   `#[extract]`.
///
/// # Examples
///
/// ```
/// use ferromcp::prelude::*;
/// use ferromcp::testing::{ClientOptions, TestClient};
///
/// struct Calculator;
///
/// #[ferromcp::server(name = "calc", version = "1.0.0", instructions = "Adds numbers.")]
/// impl Calculator {
///     /// Adds two integers.
///     #[tool(read_only)]
///     fn add(&self, a: i64, b: i64) -> i64 {
///         a + b
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::new(Calculator).unwrap();
/// let client = TestClient::connect(&server, ClientOptions::modern()).await.unwrap();
/// let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
/// assert_eq!(result.content[0].as_text(), Some("5"));
/// # }
/// ```
///
/// A mistake is a compile error at the offending token, for example a duplicate name:
///
/// ```compile_fail
/// use ferromcp::prelude::*;
///
/// struct S;
///
/// #[ferromcp::server]
/// impl S {
///     /// One.
///     #[tool(name = "run")]
///     fn a(&self) -> String { String::new() }
///
///     /// Two.
///     #[tool(name = "run")] // error: another #[tool] in this impl block is already named `run`
///     fn b(&self) -> String { String::new() }
/// }
/// ```
///
/// or a typo in an attribute argument:
///
/// ```compile_fail
/// use ferromcp::prelude::*;
///
/// struct S;
///
/// #[ferromcp::server(nmae = "s")] // error: unknown #[server] argument `nmae`; did you mean `name`?
/// impl S {}
/// ```
///
/// Set `MCP_MACROS_DEBUG=1` (or the type's name, `MCP_MACROS_DEBUG=Calculator`) while
/// building to print the expansion to stderr; cargo does not track the variable, so touch
/// the file to rebuild it.
pub use ferromcp_macros::server;

/// Declares a tool: `#[tool(name, title, description, read_only, destructive, idempotent,
/// open_world, input_schema, output_schema, timeout_ms, meta, icons, task_support, scopes, ui,
/// visibility)]`, all optional.
///
/// - `name`: the tool's name (default: the method's), 1–128 of `A-Z a-z 0-9 _ . -`,
///   unique in the impl block.
/// - `description`: default, the first paragraph of the doc comment; one of the two is
///   required, since the model reads it to choose the tool.
/// - `read_only`, `destructive`, `idempotent`, `open_world`: annotation hints, written alone
///   (`true`) or as `key = false`.
/// - `input_schema = <expr>` / `output_schema = <expr>`: a `serde_json::Value` published
///   verbatim instead of the generated schema (say, a hand-written JSON Schema 2020-12 with
///   `$defs`, which the generated schemas inline).
/// - `timeout_ms = 5000`: this tool's call timeout. `meta = <expr>`: its `_meta` object;
///   `icons = <expr>`: a `Vec<Icon>`.
/// - `task_support = "optional"` (or `"required"`, `"forbidden"`, the default): whether a
///   call may (or must) run as a task, answered at once and collected later
///   (docs/tasks.md).
/// - `scopes = ["incidents:write"]`: OAuth scopes an authenticated caller needs to see and
///   call the tool ([`Registry::require_scopes`](crate::registry::Registry::require_scopes);
///   see the `auth` feature).
/// - `ui = "ui://orders/table.html"`: MCP Apps; the tool's `_meta.ui.resourceUri`, the
///   `ui://` resource a host renders beside its result (a compile error for another
///   scheme). `visibility = ["app"]` (`"model"`, `"app"`; default both): who may call it.
///   See [`apps`](crate::apps) and docs/apps.md.
///
/// Arguments are plain parameters: strings, every integer width, floats, `bool`,
/// `Option<T>` (optional), `Vec<T>`, maps with string keys, `serde_json::Value`, and any
/// type implementing `Deserialize + JsonSchema` (unit-only enums included). Each is
/// described by a `///` comment on the parameter, an entry of the doc's `# Arguments`
/// list, or `#[arg(description = "...")]`; `#[arg(rename = "...", default = <expr>)]`
/// renames it or makes it optional, and `#[arg(header = "Region")]` has a 2026 HTTP client
/// mirror it into an `Mcp-Param-Region` header (a string, integer or `bool` argument; see
/// the tools guide). One struct marked `#[args]` may instead stand for the whole input. The arguments are deserialized straight from the request into a hidden
/// struct that refuses unknown fields; a wrong argument is an `isError: true` result that
/// names it, so the model can correct itself.
///
/// The return type implements [`IntoToolResult`](crate::IntoToolResult): text, content
/// blocks, [`Json<T>`](crate::Json) (structured content; `outputSchema` from `T`), or
/// `Result<T, E: Display>` where an `Err` is an `isError: true` result.
///
/// # Examples
///
/// ```
/// use ferromcp::prelude::*;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Note { id: u64, title: String }
///
/// struct Notes;
///
/// #[ferromcp::server]
/// impl Notes {
///     /// Adds a note.
///     ///
///     /// # Arguments
///     /// * `title` - a short title
///     #[tool(idempotent, title = "Add note")]
///     async fn add_note(
///         &self,
///         title: String,
///         /// Labels to file the note under.
///         tags: Vec<String>,
///         #[arg(default = 1)] priority: u8,
///     ) -> Result<Json<Note>, ToolError> {
///         if title.is_empty() {
///             return Err(ToolError::new("the title cannot be empty"));
///         }
///         let _ = (tags, priority);
///         Ok(Json(Note { id: 1, title }))
///     }
/// }
///
/// let server = Server::new(Notes).unwrap();
/// assert_eq!(server.registry().tool_names(), ["add_note"]);
/// ```
///
/// Tool names are checked at compile time:
///
/// ```compile_fail
/// use ferromcp::prelude::*;
///
/// struct S;
///
/// #[ferromcp::server]
/// impl S {
///     /// Runs.
///     #[tool(name = "my tool")] // error: tool names may only contain A-Z a-z 0-9 _ . -
///     fn run(&self) -> String { String::new() }
/// }
/// ```
///
/// and so are parameter types:
///
/// ```compile_fail
/// use ferromcp::prelude::*;
///
/// struct S;
///
/// #[ferromcp::server]
/// impl S {
///     /// Echoes.
///     #[tool]
///     fn echo(&self, text: &str) -> String { text.to_owned() } // error: use an owned type
/// }
/// ```
pub use ferromcp_macros::tool;

/// Declares a resource: `#[resource(uri = "...", name, title, description, mime_type, scopes)]`.
///
/// A URI without `{variables}` is a static resource (`resources/list`); one with variables
/// is a template (`resources/templates/list`), parsed at compile time (RFC 6570). Every
/// variable must be a parameter and every argument parameter a variable; values are parsed
/// with `FromStr` (`String` as is, `Option<T>` when the variable may be absent), and a
/// value that does not parse is answered with -32602 naming the variable. `name` defaults
/// to the method's name and `description` to the doc comment's first paragraph. The return
/// type implements [`IntoReadResult`](crate::IntoReadResult). `scopes = ["notes:read"]`:
/// OAuth scopes an authenticated caller needs to see and read the resource (or the
/// template's resources).
///
/// # Examples
///
/// ```
/// use ferromcp::prelude::*;
///
/// struct Notes;
///
/// #[ferromcp::server]
/// impl Notes {
///     /// One note, as markdown.
///     #[resource(uri = "notes://{id}", mime_type = "text/markdown")]
///     async fn note(&self, id: u64) -> Result<String, ResourceError> {
///         if id == 0 { Err(ResourceError::NotFound) } else { Ok(format!("# Note {id}")) }
///     }
///
///     /// The list of notes.
///     #[resource(uri = "notes://index")]
///     fn index(&self) -> String {
///         "1, 2, 3".into()
///     }
/// }
/// # let _ = Server::new(Notes).unwrap();
/// ```
///
/// A template variable without a parameter is a compile error:
///
/// ```compile_fail
/// use ferromcp::prelude::*;
///
/// struct S;
///
/// #[ferromcp::server]
/// impl S {
///     #[resource(uri = "notes://{id}")] // error: variable `id` has no parameter
///     fn note(&self) -> String { String::new() }
/// }
/// ```
pub use ferromcp_macros::resource;

/// Declares a prompt: `#[prompt(name, title, description, scopes)]`.
///
/// Parameters are the prompt's arguments (values are strings, parsed with `FromStr`):
/// required unless `Option<T>` or given `#[arg(default = ...)]`, described like tool
/// arguments. The return type implements [`IntoPromptResult`](crate::IntoPromptResult).
/// `scopes = ["notes:write"]`: OAuth scopes an authenticated caller needs to see and get
/// the prompt.
///
/// # Examples
///
/// ```
/// use ferromcp::prelude::*;
///
/// struct Notes;
///
/// #[ferromcp::server]
/// impl Notes {
///     /// Reviews a note.
///     #[prompt]
///     fn review(&self, id: u64, style: Option<String>) -> Vec<PromptMessage> {
///         let style = style.unwrap_or_else(|| "concise".into());
///         vec![PromptMessage::user(TextContent::new(format!("Review note {id}, {style}.")))]
///     }
/// }
/// # let _ = Server::new(Notes).unwrap();
/// ```
///
/// ```compile_fail
/// use ferromcp::prelude::*;
///
/// struct S;
///
/// #[ferromcp::server]
/// impl S {
///     #[prompt] // error: #[prompt] `review` has no description
///     fn review(&self) -> String { String::new() }
/// }
/// ```
pub use ferromcp_macros::prompt;

/// Declares the completion of one prompt argument or template variable:
/// `#[completion(prompt = "name", argument = "arg")]` or
/// `#[completion(resource = "uri template", argument = "var")]`.
///
/// The method takes the partial value (`value: String`) and any extractors, and returns
/// something implementing [`IntoCompletion`](crate::IntoCompletion) (`Vec<String>`). The
/// prompt and its argument (or the template and its variable) must be declared in the same
/// impl block.
///
/// # Examples
///
/// ```
/// use ferromcp::prelude::*;
///
/// struct Notes;
///
/// #[ferromcp::server]
/// impl Notes {
///     /// Reviews a note.
///     #[prompt]
///     fn review(&self, style: String) -> String {
///         format!("Review it, {style}.")
///     }
///
///     #[completion(prompt = "review", argument = "style")]
///     fn complete_style(&self, value: String) -> Vec<String> {
///         ["concise", "thorough"].into_iter().filter(|s| s.starts_with(&value)).map(String::from).collect()
///     }
/// }
/// # let _ = Server::new(Notes).unwrap();
/// ```
///
/// ```compile_fail
/// use ferromcp::prelude::*;
///
/// struct S;
///
/// #[ferromcp::server]
/// impl S {
///     #[completion(prompt = "reveiw", argument = "style")] // error: no #[prompt] named "reveiw"
///     fn complete(&self, value: String) -> Vec<String> { vec![value] }
/// }
/// ```
pub use ferromcp_macros::completion;
