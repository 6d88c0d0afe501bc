//! The macros end to end: a `#[server]` with every supported kind of parameter, resources,
//! prompts and completions, driven through the in-process client in both eras. The exact
//! lists are checked in (`tests/snapshots/*.json`; `UPDATE_SNAPSHOTS=1` rewrites them) and
//! validated against the official schemas of 2025-11-25 and 2026-07-28.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ferromcp::ProtocolVersion;
use ferromcp::prelude::*;
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Address {
    /// The city.
    city: String,
    zip: Option<String>,
}

/// How urgent a note is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    Normal,
    High,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Words to look for.
    query: String,
    /// At most this many results.
    limit: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Note {
    id: u64,
    title: String,
    tags: Vec<String>,
    priority: Priority,
    body: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Totals {
    items: usize,
    sum: u64,
    extra_kind: String,
}

/// Shared state, registered with `ServerBuilder::state`.
struct Db {
    titles: Vec<&'static str>,
}

/// Never registered: taking it is an internal error.
struct Unregistered;

struct Notes {
    calls: AtomicUsize,
}

fn raw_input_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"point": {"$ref": "#/$defs/point"}},
        "required": ["point"],
        "$defs": {
            "point": {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x", "y"]
            }
        }
    })
}

#[ferromcp::server(
    name = "notes",
    version = "1.2.3",
    title = "Notes",
    instructions = "Search before reading."
)]
impl Notes {
    /// Adds a note to the store.
    ///
    /// It is stored in memory only.
    ///
    /// # Arguments
    /// * `title` - a short title
    /// * `tags` - labels to file the note under
    #[tool(idempotent, title = "Add note")]
    async fn add_note(
        &self,
        State(db): State<Db>,
        title: String,
        tags: Vec<String>,
        /// How urgent the note is.
        #[arg(default = Priority::Normal)]
        priority: Priority,
        body: Option<String>,
    ) -> Result<Json<Note>, ToolError> {
        if title.is_empty() {
            return Err(ToolError::new("the title cannot be empty"));
        }
        Ok(Json(Note {
            id: db.titles.len() as u64 + 1,
            title,
            tags,
            priority,
            body,
        }))
    }

    /// Adds integers of every width.
    #[tool(read_only)]
    #[allow(clippy::too_many_arguments)]
    fn integers(
        &self,
        a: i8,
        b: i16,
        c: i32,
        d: i64,
        e: u8,
        f: u16,
        g: u32,
        h: u64,
        i: isize,
        j: usize,
        k: i128,
        l: u128,
    ) -> String {
        let signed = i128::from(a) + i128::from(b) + i128::from(c) + i128::from(d) + i as i128 + k;
        let unsigned =
            u128::from(e) + u128::from(f) + u128::from(g) + u128::from(h) + j as u128 + l;
        format!("{signed} {unsigned}")
    }

    /// Scales a number.
    #[tool(read_only, open_world = false)]
    fn scale(&self, x: f32, factor: f64, negate: bool) -> String {
        let v = f64::from(x) * factor;
        (if negate { -v } else { v }).to_string()
    }

    /// Sums counts by name.
    #[tool]
    fn totals(
        &self,
        items: Vec<String>,
        counts: HashMap<String, u32>,
        extra: Value,
    ) -> Json<Totals> {
        Json(Totals {
            items: items.len(),
            sum: counts.values().map(|&c| u64::from(c)).sum(),
            extra_kind: match extra {
                Value::Object(_) => "object",
                Value::Array(_) => "array",
                _ => "scalar",
            }
            .into(),
        })
    }

    /// Ships a parcel.
    #[tool(destructive = false)]
    fn ship(&self, address: Address, priority: Priority) -> String {
        format!("{} ({:?}) {:?}", address.city, address.zip, priority)
    }

    /// Searches the notes.
    #[tool(name = "notes.search")]
    fn search(&self, #[args] args: SearchArgs, State(db): State<Db>) -> Vec<TextContent> {
        db.titles
            .iter()
            .filter(|t| t.contains(&args.query))
            .take(args.limit.unwrap_or(u32::MAX) as usize)
            .map(|t| TextContent::new(*t))
            .collect()
    }

    /// Describes a thing by kind.
    #[tool(timeout_ms = 5000)]
    fn describe(
        &self,
        #[arg(rename = "type", description = "The kind of thing.")] kind: String,
        r#ref: Option<String>,
    ) -> String {
        format!("{kind}:{}", r#ref.unwrap_or_default())
    }

    /// Always fails.
    #[tool]
    async fn fail(&self, reason: String) -> Result<String, ToolError> {
        Err(ToolError::new(format!("failed: {reason}")))
    }

    /// Counts its calls.
    #[tool]
    async fn count(self: Arc<Self>, ctx: Context) -> String {
        ctx.info("counting").await;
        (self.calls.fetch_add(1, Ordering::SeqCst) + 1).to_string()
    }

    /// Takes a point, with a hand-written schema.
    #[tool(
        input_schema = raw_input_schema(),
        output_schema = json!({"type": "object", "properties": {"norm": {"type": "number"}}}),
        meta = json!({"example.com/owner": "geometry"})
    )]
    fn norm(&self, #[args] input: Value) -> Json<Value> {
        let x = input["point"]["x"].as_f64().unwrap_or(0.0);
        let y = input["point"]["y"].as_f64().unwrap_or(0.0);
        Json(json!({"norm": (x * x + y * y).sqrt()}))
    }

    /// Needs state nobody registered.
    #[tool]
    fn orphan(&self, _state: State<Unregistered>) -> &'static str {
        "unreachable"
    }

    /// The index of all notes.
    #[resource(uri = "notes://index", name = "index", mime_type = "text/plain")]
    fn index(&self, State(db): State<Db>) -> String {
        db.titles.join("\n")
    }

    /// One note, as markdown.
    #[resource(uri = "notes://{id}", mime_type = "text/markdown", title = "Note")]
    async fn note(&self, id: u64, State(db): State<Db>) -> Result<String, ResourceError> {
        let index = usize::try_from(id).map_err(ResourceError::invalid_params)?;
        match db.titles.get(index.wrapping_sub(1)) {
            Some(title) => Ok(format!("# {title}")),
            None => Err(ResourceError::NotFound),
        }
    }

    /// Search results as JSON.
    #[resource(uri = "notes://search{?q,limit}")]
    fn found(&self, q: Option<String>, limit: Option<usize>) -> Json<Vec<String>> {
        let q = q.unwrap_or_default();
        Json(vec![q; limit.unwrap_or(1)])
    }

    /// Reviews a note.
    #[prompt(title = "Review")]
    async fn review(
        &self,
        /// The note to review.
        id: u64,
        style: Option<String>,
    ) -> Result<Vec<PromptMessage>, PromptError> {
        if id == 0 {
            return Err(PromptError::invalid_argument("notes start at 1"));
        }
        let style = style.unwrap_or_else(|| "concise".into());
        Ok(vec![PromptMessage::user(TextContent::new(format!(
            "Review note {id} in a {style} style."
        )))])
    }

    /// Summarizes the notes.
    #[prompt(name = "summary")]
    fn summarize(&self, #[arg(default = 3)] sentences: u32, ctx: Context) -> String {
        format!("Summarize in {sentences} sentences ({:?}).", ctx.era())
    }

    #[completion(prompt = "review", argument = "style")]
    async fn complete_style(&self, value: String) -> Vec<String> {
        ["concise", "critical", "thorough"]
            .into_iter()
            .filter(|s| s.starts_with(&value))
            .map(String::from)
            .collect()
    }

    #[completion(resource = "notes://{id}", argument = "id")]
    fn complete_id(&self, value: String, State(db): State<Db>) -> Vec<String> {
        (1..=db.titles.len())
            .map(|i| i.to_string())
            .filter(|i| i.starts_with(&value))
            .collect()
    }

    /// Not annotated: an ordinary method, left alone.
    fn helper(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

fn server() -> Server {
    Server::builder(Notes {
        calls: AtomicUsize::new(0),
    })
    .state(Db {
        titles: vec!["groceries", "taxes", "garden plans"],
    })
    .build()
    .unwrap()
}

async fn clients(server: &Server) -> Vec<TestClient> {
    let mut out = Vec::new();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        out.push(TestClient::connect(server, options).await.unwrap());
    }
    out
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compares `value` with the checked-in snapshot, or rewrites it with `UPDATE_SNAPSHOTS=1`.
fn snapshot(name: &str, value: &Value) {
    let path = manifest()
        .join("tests/snapshots")
        .join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(value).unwrap() + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_SNAPSHOTS=1 to create it)",
            path.display()
        )
    });
    assert_eq!(
        text,
        expected,
        "{name} differs from {} (run with UPDATE_SNAPSHOTS=1 to accept)",
        path.display()
    );
}

/// Errors of `instance` against the definition `def` of the official schema of `version`.
fn schema_errors(version: ProtocolVersion, def: &str, instance: &Value) -> Vec<String> {
    let path = manifest()
        .join("spec")
        .join(version.as_str())
        .join("schema.json");
    let root: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("official schema")).unwrap();
    let key = if root.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    let schema = json!({
        "$schema": root["$schema"],
        "$ref": format!("#/{key}/{def}"),
        key: root[key],
    });
    let validator = jsonschema::validator_for(&schema).expect("official schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect()
}

#[tokio::test]
async fn lists_match_snapshots_and_the_official_schemas() {
    let server = server();
    let lists = [
        ("tools/list", "tools", "ListToolsResult"),
        ("prompts/list", "prompts", "ListPromptsResult"),
        ("resources/list", "resources", "ListResourcesResult"),
        (
            "resources/templates/list",
            "resourceTemplates",
            "ListResourceTemplatesResult",
        ),
    ];
    for client in clients(&server).await {
        let version = if client.initialize_result().is_some() {
            ProtocolVersion::V2025_11_25
        } else {
            ProtocolVersion::V2026_07_28
        };
        for (method, key, def) in lists {
            let result = client.request(method, None).await.unwrap();
            let errors = schema_errors(version, def, &result);
            assert!(errors.is_empty(), "{method} ({version:?}): {errors:#?}");
            assert!(result.get("nextCursor").is_none(), "one page");
            snapshot(&method.replace('/', "_"), &result[key]);
        }
    }
}

#[tokio::test]
async fn server_identity_and_capabilities_come_from_the_macro() {
    let server = server();
    assert_eq!(server.info().name, "notes");
    assert_eq!(server.info().version, "1.2.3");
    assert_eq!(server.info().title.as_deref(), Some("Notes"));
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let init = client.initialize_result().unwrap();
    assert_eq!(init.instructions.as_deref(), Some("Search before reading."));
    let caps = serde_json::to_value(&init.capabilities).unwrap();
    for cap in ["tools", "resources", "prompts", "completions"] {
        assert!(caps[cap].is_object(), "{cap} missing from {caps}");
    }
    // The impl block is still an ordinary impl block.
    let notes = Notes {
        calls: AtomicUsize::new(0),
    };
    assert_eq!(notes.helper(), 0);
    assert_eq!(notes.scale(2.0, 1.5, true), "-3");
}

#[tokio::test]
async fn tools_are_called_with_typed_arguments() {
    let server = server();
    for client in clients(&server).await {
        let r = client
            .call_tool("add_note", json!({"title": "milk", "tags": ["food"]}))
            .await
            .unwrap();
        assert_eq!(r.is_error, None);
        let expected =
            json!({"id": 4, "title": "milk", "tags": ["food"], "priority": "normal", "body": null});
        assert_eq!(r.structured_content, Some(expected.clone()));
        assert_eq!(
            serde_json::from_str::<Value>(r.content[0].as_text().unwrap()).unwrap(),
            expected
        );
        let r = client
            .call_tool(
                "add_note",
                json!({"title": "x", "tags": [], "priority": "high", "body": "b"}),
            )
            .await
            .unwrap();
        assert_eq!(r.structured_content.unwrap()["priority"], "high");

        let r = client
            .call_tool(
                "integers",
                json!({"a": -128, "b": -1, "c": 1, "d": 10, "e": 255, "f": 1, "g": 1, "h": 1, "i": -2, "j": 3, "k": -1, "l": 1}),
            )
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("-121 262"));

        let r = client
            .call_tool("scale", json!({"x": 1.5, "factor": 2, "negate": false}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("3"));

        let r = client
            .call_tool(
                "totals",
                json!({"items": ["a", "b"], "counts": {"x": 2, "y": 3}, "extra": [1]}),
            )
            .await
            .unwrap();
        assert_eq!(
            r.structured_content,
            Some(json!({"items": 2, "sum": 5, "extra_kind": "array"}))
        );

        let r = client
            .call_tool(
                "ship",
                json!({"address": {"city": "Oslo"}, "priority": "low"}),
            )
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("Oslo (None) Low"));

        let r = client
            .call_tool("notes.search", json!({"query": "a", "limit": 2}))
            .await
            .unwrap();
        let texts: Vec<_> = r.content.iter().filter_map(|c| c.as_text()).collect();
        assert_eq!(texts, ["taxes", "garden plans"]);

        let r = client
            .call_tool("describe", json!({"type": "fruit", "ref": "apple"}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("fruit:apple"));

        let r = client
            .call_tool("norm", json!({"point": {"x": 3, "y": 4}}))
            .await
            .unwrap();
        assert_eq!(r.structured_content, Some(json!({"norm": 5.0})));
    }
}

#[tokio::test]
async fn sync_async_and_arc_receivers_all_run() {
    let server = server();
    let client = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    for expected in ["1", "2", "3"] {
        let r = client.call_tool("count", json!({})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some(expected));
    }
    // No `arguments` at all is an empty object.
    let r = client
        .request("tools/call", Some(json!({"name": "count"})))
        .await
        .unwrap();
    assert_eq!(r["content"][0]["text"], "4");
}

#[tokio::test]
async fn argument_errors_are_tool_results_naming_the_argument() {
    let server = server();
    for client in clients(&server).await {
        let cases = [
            ("add_note", json!({"tags": []}), "missing field `title`"),
            (
                "add_note",
                json!({"title": "t", "tags": "food"}),
                "invalid argument `tags`: invalid type: string \"food\", expected a sequence",
            ),
            (
                "add_note",
                json!({"title": "t", "tags": [], "priority": "urgent"}),
                "invalid argument `priority`: unknown variant `urgent`",
            ),
            (
                "integers",
                json!({"a": 128, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0, "g": 0, "h": 0, "i": 0, "j": 0, "k": 0, "l": 0}),
                "invalid argument `a`: invalid value: integer `128`, expected i8",
            ),
            (
                "scale",
                json!({"x": 1, "factor": 1, "negate": false, "extra": 1}),
                "unknown field `extra`",
            ),
            (
                "ship",
                json!({"address": {"town": "Oslo"}, "priority": "low"}),
                "invalid argument `address`: unknown field `town`",
            ),
            ("describe", json!({"kind": "fruit"}), "unknown field `kind`"),
        ];
        for (tool, args, message) in cases {
            let r = client.call_tool(tool, args).await.unwrap();
            assert_eq!(r.is_error, Some(true), "{tool}");
            let text = r.content[0].as_text().unwrap();
            assert!(text.contains(message), "{tool}: {text:?} lacks {message:?}");
        }
        let r = client
            .call_tool("fail", json!({"reason": "no"}))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.content[0].as_text(), Some("failed: no"));
    }
}

#[tokio::test]
async fn a_missing_state_is_an_internal_error_naming_the_type() {
    let server = server();
    for client in clients(&server).await {
        let err = client.call_tool("orphan", json!({})).await.unwrap_err();
        let TestClientError::Rpc(e) = err else {
            panic!("{err:?}")
        };
        assert_eq!(e.code, ferromcp::error::ErrorCode::INTERNAL_ERROR);
        assert!(e.message.contains("Unregistered"), "{}", e.message);
    }
}

#[tokio::test]
async fn resources_read_static_and_templated() {
    let server = server();
    for client in clients(&server).await {
        let r = client.read_resource("notes://index").await.unwrap();
        let v = serde_json::to_value(&r.contents[0]).unwrap();
        assert_eq!(v["text"], "groceries\ntaxes\ngarden plans");
        assert_eq!(v["mimeType"], "text/plain");

        let r = client.read_resource("notes://2").await.unwrap();
        let v = serde_json::to_value(&r.contents[0]).unwrap();
        assert_eq!(v["text"], "# taxes");
        assert_eq!(v["mimeType"], "text/markdown");
        assert_eq!(v["uri"], "notes://2");

        let r = client
            .read_resource("notes://search?q=tax&limit=2")
            .await
            .unwrap();
        let v = serde_json::to_value(&r.contents[0]).unwrap();
        assert_eq!(v["text"], r#"["tax","tax"]"#);
        assert_eq!(v["mimeType"], "application/json");

        // A variable that does not parse is -32602 naming it.
        let TestClientError::Rpc(e) = client.read_resource("notes://two").await.unwrap_err() else {
            panic!()
        };
        assert_eq!(e.code, ferromcp::error::ErrorCode::INVALID_PARAMS);
        assert!(e.message.contains("`id`"), "{}", e.message);
        let TestClientError::Rpc(e) = client
            .read_resource("notes://search?limit=many")
            .await
            .unwrap_err()
        else {
            panic!()
        };
        assert!(e.message.contains("`limit`"), "{}", e.message);

        // The handler's own not-found.
        assert!(client.read_resource("notes://9").await.is_err());
    }
}

struct Files;

#[ferromcp::server(name = "files")]
impl Files {
    /// A file under the server's directory.
    #[resource(uri = "files:///{path}")]
    fn file(&self, path: String) -> String {
        format!("read {path}")
    }

    /// A file's change over a range of revisions.
    #[resource(uri = "git://diff/{range}/{file}")]
    fn diff(&self, #[arg(unchecked_path)] range: String, file: String) -> String {
        format!("{range} of {file}")
    }
}

/// Template variables are checked as paths before the handler runs, unless exempted.
#[tokio::test]
async fn template_variables_are_checked_as_paths_unless_exempted() {
    let server = Server::new(Files).unwrap();
    for client in clients(&server).await {
        let text =
            |r: ReadResourceResult| serde_json::to_value(&r.contents[0]).unwrap()["text"].clone();
        let r = client
            .read_resource("files:///notes%2Fday.md")
            .await
            .unwrap();
        assert_eq!(text(r), "read notes/day.md");
        for (uri, name) in [
            ("files:///..%2F..%2Fetc%2Fpasswd", "`path`"),
            ("files:///%2Fetc%2Fpasswd", "`path`"),
            ("git://diff/HEAD~3..HEAD/..%2Fsecret", "`file`"),
        ] {
            let TestClientError::Rpc(e) = client.read_resource(uri).await.unwrap_err() else {
                panic!("{uri}")
            };
            assert_eq!(e.code, ferromcp::error::ErrorCode::INVALID_PARAMS, "{uri}");
            assert!(e.message.contains(name), "{uri}: {}", e.message);
        }
        // `range` is exempt: its value reaches the handler as sent.
        let r = client
            .read_resource("git://diff/..%2F..%2Fmain/src%2Flib.rs")
            .await
            .unwrap();
        assert_eq!(text(r), "../../main of src/lib.rs");
    }
}

#[tokio::test]
async fn prompts_take_string_and_parsed_arguments() {
    let server = server();
    for client in clients(&server).await {
        let r = client
            .get_prompt("review", json!({"id": "2", "style": "thorough"}))
            .await
            .unwrap();
        let v = serde_json::to_value(&r.messages[0]).unwrap();
        assert_eq!(v["content"]["text"], "Review note 2 in a thorough style.");
        let r = client
            .get_prompt("review", json!({"id": "1"}))
            .await
            .unwrap();
        let v = serde_json::to_value(&r.messages[0]).unwrap();
        assert_eq!(v["content"]["text"], "Review note 1 in a concise style.");

        let r = client.get_prompt("summary", json!({})).await.unwrap();
        let v = serde_json::to_value(&r.messages[0]).unwrap();
        assert!(
            v["content"]["text"]
                .as_str()
                .unwrap()
                .starts_with("Summarize in 3 sentences")
        );

        for (args, needle) in [
            (json!({}), "`id`"),
            (json!({"id": "x"}), "`id`"),
            (json!({"id": "0"}), "notes start at 1"),
        ] {
            let TestClientError::Rpc(e) = client.get_prompt("review", args).await.unwrap_err()
            else {
                panic!()
            };
            assert_eq!(e.code, ferromcp::error::ErrorCode::INVALID_PARAMS);
            assert!(e.message.contains(needle), "{}", e.message);
        }
    }
}

/// Prompts whose errors are any `Display` type, as tools' are.
struct Drafts;

#[ferromcp::server(name = "drafts")]
impl Drafts {
    /// Drafts a message from a template.
    #[prompt]
    fn draft(&self, template: String) -> Result<String, std::io::Error> {
        if template == "missing" {
            return Err(std::io::Error::other("no template named `missing`"));
        }
        Ok(format!("Draft from {template}."))
    }

    /// Refuses with a typed error, which keeps its code.
    #[prompt]
    fn strict(&self) -> Result<String, PromptError> {
        Err(PromptError::invalid_argument("never"))
    }
}

#[tokio::test]
async fn prompts_return_any_displayable_error() {
    let server = Server::new(Drafts).unwrap();
    for client in clients(&server).await {
        let r = client
            .get_prompt("draft", json!({"template": "memo"}))
            .await
            .unwrap();
        let v = serde_json::to_value(&r.messages[0]).unwrap();
        assert_eq!(v["content"]["text"], "Draft from memo.");
        let args = json!({"template": "missing"});
        let TestClientError::Rpc(e) = client.get_prompt("draft", args).await.unwrap_err() else {
            panic!()
        };
        assert_eq!(e.code, ferromcp::error::ErrorCode::INTERNAL_ERROR);
        assert_eq!(e.message, "no template named `missing`");
        let TestClientError::Rpc(e) = client.get_prompt("strict", json!({})).await.unwrap_err()
        else {
            panic!()
        };
        assert_eq!(e.code, ferromcp::error::ErrorCode::INVALID_PARAMS);
    }
}

/// Tools that fail: with a protocol error on purpose, or with any other error.
struct Refusals;

#[ferromcp::server(name = "refusals")]
impl Refusals {
    /// Refuses its arguments with a JSON-RPC error.
    #[tool]
    fn refuse(&self) -> Result<String, ferromcp::error::ErrorObject> {
        Err(ferromcp::error::ErrorObject::invalid_params("no such city")
            .with_data(json!({"city": "Atlantis"})))
    }

    /// Fails with an I/O error, which the model reads.
    #[tool]
    fn unreadable(&self) -> Result<String, std::io::Error> {
        Err(std::io::Error::other("disk on fire"))
    }
}

#[tokio::test]
async fn a_tool_returning_an_error_object_answers_with_that_json_rpc_error() {
    let server = Server::new(Refusals).unwrap();
    for client in clients(&server).await {
        let raw = json!({"name": "refuse", "arguments": {}});
        let TestClientError::Rpc(e) = client.request("tools/call", Some(raw)).await.unwrap_err()
        else {
            panic!()
        };
        assert_eq!(e.code, ferromcp::error::ErrorCode::INVALID_PARAMS);
        assert_eq!(e.message, "no such city");
        assert_eq!(e.data, Some(json!({"city": "Atlantis"})));

        let r = client.call_tool("unreadable", json!({})).await.unwrap();
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.content[0].as_text(), Some("disk on fire"));
    }
}

#[tokio::test]
async fn completions_answer_for_prompts_and_templates() {
    let server = server();
    assert_eq!(server.registry().completion_targets().len(), 2);
    for client in clients(&server).await {
        let r = client
            .complete_prompt_argument("review", "style", "c")
            .await
            .unwrap();
        assert_eq!(r.completion.values, ["concise", "critical"]);
        let r = client
            .complete_resource_argument("notes://{id}", "id", "")
            .await
            .unwrap();
        assert_eq!(r.completion.values, ["1", "2", "3"]);
    }
}

/// Arguments a 2026 HTTP client mirrors into `Mcp-Param-*` headers.
struct Routed;

#[derive(Deserialize, JsonSchema)]
struct Move {
    #[schemars(extend("x-mcp-header" = "Tenant"))]
    tenant: String,
    to: String,
}

#[ferromcp::server(name = "routed", version = "1.0.0")]
impl Routed {
    /// Runs a query in a region.
    #[tool]
    fn run_query(
        &self,
        #[arg(header = "Region")] region: String,
        #[arg(header = "Shard")] shard: Option<i64>,
        #[arg(header = "Dry-Run")] dry_run: bool,
        query: String,
    ) -> String {
        format!("{region}/{shard:?}/{dry_run}: {query}")
    }

    /// Moves a tenant.
    #[tool]
    fn move_tenant(&self, #[args] m: Move) -> String {
        format!("{} -> {}", m.tenant, m.to)
    }
}

/// An argument of a type the transport's rules do not allow in a header.
struct Scored;

#[ferromcp::server(name = "scored", version = "1.0.0")]
impl Scored {
    /// Scores.
    #[tool]
    fn score(&self, #[arg(header = "Score")] score: f64) -> String {
        score.to_string()
    }
}

#[tokio::test]
async fn arguments_marked_with_a_header_are_annotated_in_the_input_schema() {
    let server = Server::new(Routed).unwrap();
    let client = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let tools = client.list_tools().await.unwrap();
    let by_name = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        serde_json::to_value(&tool.input_schema).unwrap()
    };
    // In an `#[args]` struct, through schemars' own attribute.
    assert_eq!(
        by_name("move_tenant")["properties"]["tenant"]["x-mcp-header"],
        "Tenant"
    );
    let schema = by_name("run_query");
    let props = &schema["properties"];
    assert_eq!(props["region"]["x-mcp-header"], "Region");
    assert_eq!(props["region"]["type"], "string");
    // An optional argument is of its inner type, and stays optional.
    assert_eq!(props["shard"]["x-mcp-header"], "Shard");
    assert_eq!(props["shard"]["type"], "integer");
    assert!(props["shard"].get("anyOf").is_none(), "{schema}");
    assert_eq!(props["dry_run"]["x-mcp-header"], "Dry-Run");
    assert_eq!(props["dry_run"]["type"], "boolean");
    assert!(props["query"].get("x-mcp-header").is_none());
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, ["region", "dry_run", "query"]);
    // Without the optional argument, and with `null` for it: no value either way.
    for shard in [json!(null), json!(7)] {
        let result = client
            .call_tool(
                "run_query",
                json!({"region": "eu", "shard": shard, "dry_run": true, "query": "q"}),
            )
            .await
            .unwrap();
        let expected = if shard.is_null() { "None" } else { "Some(7)" };
        assert_eq!(
            result.content[0].as_text(),
            Some(format!("eu/{expected}/true: q").as_str())
        );
    }
}

#[test]
fn a_header_on_an_argument_of_another_type_is_refused_when_the_server_is_built() {
    let Err(e) = Server::new(Scored) else {
        panic!("a `number` argument mirrored into a header was registered");
    };
    let message = e.to_string();
    assert!(
        message.contains("score") && message.contains("not of type"),
        "{message}"
    );
}

/// Every kind of item with `_meta` from its attribute.
struct Annotated;

#[ferromcp::server(name = "annotated")]
impl Annotated {
    /// The readme.
    #[resource(uri = "docs://readme", meta = json!({"example.com/audience": "humans"}))]
    fn readme(&self) -> String {
        "read me".into()
    }

    /// One page.
    #[resource(uri = "docs://pages/{n}", meta = json!({"example.com/pages": 12}))]
    fn page(&self, n: u32) -> String {
        n.to_string()
    }

    /// Greets.
    #[prompt(meta = json!({"k": 1}))]
    fn greet(&self, name: String) -> String {
        format!("Hello {name}")
    }
}

#[tokio::test]
async fn meta_from_the_attributes_is_listed_for_resources_templates_and_prompts() {
    let server = Server::new(Annotated).unwrap();
    for client in clients(&server).await {
        let resources = client.list_resources().await.unwrap();
        let meta = resources[0].meta.as_ref().unwrap();
        assert_eq!(meta.get("example.com/audience"), Some(&json!("humans")));
        let templates = client.list_resource_templates().await.unwrap();
        let meta = templates[0].meta.as_ref().unwrap();
        assert_eq!(meta.get("example.com/pages"), Some(&json!(12)));
        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts[0].meta.as_ref().unwrap().get("k"), Some(&json!(1)));
    }
}

/// `_meta` that is not an object.
struct BadMeta;

#[ferromcp::server(name = "bad-meta")]
impl BadMeta {
    /// Greets.
    #[prompt(meta = json!(3))]
    fn greet(&self) -> String {
        "Hello".into()
    }
}

#[test]
fn a_meta_that_is_not_an_object_is_refused_when_the_server_is_built() {
    let err = Server::new(BadMeta).unwrap_err();
    assert!(
        matches!(&err, ferromcp::registry::RegistryError::InvalidDescriptor { name, what: "meta", .. } if name == "greet"),
        "{err:?}"
    );
}

/// The greeting both composed types read.
struct Greeting(&'static str);

struct Front;

#[ferromcp::server(name = "front", version = "2.0.0")]
impl Front {
    /// Greets.
    #[tool]
    fn hello(&self, State(greeting): State<Greeting>, name: String) -> String {
        format!("{}, {name}", greeting.0)
    }
}

struct Back {
    farewell: &'static str,
}

#[ferromcp::server(name = "back", instructions = "ignored", scopes = ["back:use"])]
impl Back {
    /// Says goodbye.
    #[tool]
    fn bye(&self, State(greeting): State<Greeting>, name: String) -> String {
        format!("{} and {}, {name}", greeting.0, self.farewell)
    }

    /// The farewell.
    #[resource(uri = "back://farewell")]
    fn farewell(&self) -> String {
        self.farewell.into()
    }
}

#[tokio::test]
async fn included_types_share_the_state_and_keep_their_own_instance() {
    let server = Server::builder(Front)
        .include(Back {
            farewell: "goodbye",
        })
        .state(Greeting("Hi"))
        .build()
        .unwrap();
    assert_eq!(server.info().name, "front");
    assert_eq!(server.registry().tool_names(), ["hello", "bye"]);
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    assert_eq!(client.initialize_result().unwrap().instructions, None);
    let r = client
        .call_tool("hello", json!({"name": "Ann"}))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("Hi, Ann"));
    let r = client
        .call_tool("bye", json!({"name": "Ann"}))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("Hi and goodbye, Ann"));

    // The included type's scopes are its items' only: a caller without them sees `hello`.
    let who = ferromcp::Principal::new("ann").with_scopes(["other"]);
    let client = TestClient::connect(&server, ClientOptions::legacy().with_principal(who))
        .await
        .unwrap();
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["hello"]);
    assert!(client.list_resources().await.unwrap().is_empty());
}

#[test]
fn a_name_taken_by_two_included_types_fails_the_build() {
    let err = Server::builder(Front).include(Front).build().unwrap_err();
    assert_eq!(
        err,
        ferromcp::registry::RegistryError::DuplicateTool("hello".into())
    );
}

/// A type in two blocks, both with a tool named `list`.
struct Split;

#[ferromcp::server(part = extra)]
impl Split {
    /// Lists again.
    #[tool(name = "list")]
    fn list_again(&self) -> String {
        "again".into()
    }
}

#[ferromcp::server(name = "split", parts(extra))]
impl Split {
    /// Lists.
    #[tool]
    fn list(&self) -> String {
        "list".into()
    }
}

#[test]
fn a_name_taken_in_two_blocks_of_one_type_fails_the_build() {
    let err = Server::new(Split).unwrap_err();
    assert_eq!(
        err,
        ferromcp::registry::RegistryError::DuplicateTool("list".into())
    );
}
