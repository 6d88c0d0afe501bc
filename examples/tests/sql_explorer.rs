//! The sql-explorer example's contract through the in-process client in both eras, against
//! a fresh SQLite file (made by the first-run path) in a temp dir, and against a real
//! PostgreSQL database per test: those tests are `#[ignore]`d, and run with
//! `--include-ignored` after eval "$(scripts/postgres.sh start)" (`scripts/test.sh` does),
//! which exports `SQL_EXPLORER_PG_URL` and the TLS files; without them they fail.
//!
//! Both locks are tested on their own: the statement check through the tools, and the
//! read-only connection by calling the database layer directly, past the check.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use ferromcp::Server;
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use ferromcp::types::CallToolResult;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

// The binary's source, compiled here as a module so the test serves the very same server.
#[allow(dead_code)]
#[path = "../src/bin/sql-explorer.rs"]
mod sql_explorer;

use sql_explorer::{Args, Database, Source};

/// A directory under the system's temp dir, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("sql-explorer-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn db_path(&self) -> PathBuf {
        self.0.join(sql_explorer::DEFAULT_SQLITE_FILE)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn args(source: Source, max_rows: usize, timeout: Duration) -> Args {
    Args::new(source, max_rows, timeout)
}

/// The SQLite database in `scratch`, created by the binary's own first-run path.
async fn sqlite_db(scratch: &Scratch, timeout: Duration) -> Database {
    let a = args(Source::Sqlite(scratch.db_path()), 100, timeout);
    sql_explorer::open(&a).await.unwrap()
}

fn eras() -> [ClientOptions; 2] {
    [ClientOptions::legacy(), ClientOptions::modern()]
}

async fn connect(server: &Server, options: ClientOptions) -> TestClient {
    TestClient::connect(server, options).await.unwrap()
}

fn text(r: &CallToolResult) -> &str {
    r.content[0].as_text().unwrap_or_default()
}

async fn ok(client: &TestClient, tool: &str, args: Value) -> CallToolResult {
    let r = client.call_tool(tool, args.clone()).await.unwrap();
    assert_eq!(r.is_error, None, "{tool} {args}: {}", text(&r));
    r
}

async fn refused(client: &TestClient, tool: &str, args: Value) -> String {
    let r = client.call_tool(tool, args.clone()).await.unwrap();
    assert_eq!(r.is_error, Some(true), "{tool} {args} is refused: {r:?}");
    assert!(r.structured_content.is_none());
    text(&r).to_owned()
}

/// `query` with `sql` and `params`: the structured result, checked against its text mirror.
async fn rows(client: &TestClient, sql: &str, params: Value) -> Value {
    let r = ok(client, "query", json!({"sql": sql, "params": params})).await;
    let structured = r.structured_content.clone().unwrap();
    let mirrored: Value = serde_json::from_str(text(&r)).unwrap();
    assert_eq!(mirrored, structured, "the text block mirrors the JSON");
    structured
}

fn rpc_code(e: TestClientError) -> i64 {
    match e {
        TestClientError::Rpc(e) => e.code.0,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn resource_json(r: &ferromcp::types::ReadResourceResult) -> Value {
    assert_eq!(r.contents.len(), 1);
    let contents = serde_json::to_value(&r.contents[0]).unwrap();
    assert_eq!(contents["mimeType"], "application/json");
    serde_json::from_str(contents["text"].as_str().unwrap()).unwrap()
}

async fn complete_table(client: &TestClient, prefix: &str) -> (Value, Value) {
    let template = client
        .request(
            "completion/complete",
            Some(json!({
                "ref": {"type": "ref/resource", "uri": "schema://tables/{table}"},
                "argument": {"name": "table", "value": prefix}
            })),
        )
        .await
        .unwrap();
    let prompt = client
        .complete_prompt_argument("analyze-table", "table", prefix)
        .await
        .unwrap();
    (
        template["completion"]["values"].clone(),
        serde_json::to_value(prompt).unwrap()["completion"]["values"].clone(),
    )
}

/// Statements the tools refuse before the database sees them, and what the refusal says.
const PARSER_REFUSALS: &[(&str, &str)] = &[
    ("DELETE FROM orders", "got DELETE"),
    ("UPDATE products SET price = 0", "got UPDATE"),
    ("INSERT INTO customers (id) VALUES (999)", "got INSERT"),
    ("DROP TABLE orders", "got DROP"),
    ("CREATE TABLE t (x INTEGER)", "got CREATE"),
    ("SELECT 1; DELETE FROM orders", "got 2 statements"),
    ("SELECT 1; SELECT 2", "got 2 statements"),
    ("SELEC id FROM orders", "does not parse"),
    ("", "got no statement"),
    (
        "WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d",
        "got DELETE (in WITH `d`)",
    ),
];

const ONLY: &str = "only a single SELECT/WITH query is allowed; ";

// --- SQLite -------------------------------------------------------------------------------

#[tokio::test]
async fn first_run_creates_the_sample_and_queries_leave_it_untouched() {
    let scratch = Scratch::new("first-run");
    let path = scratch.db_path();
    assert!(!path.exists());
    let db = sqlite_db(&scratch, Duration::from_secs(5)).await;
    assert!(path.exists(), "created on first run");
    let before = std::fs::read(&path).unwrap();
    // Nothing but the database file: the partial file was moved into place.
    let names: Vec<_> = std::fs::read_dir(&scratch.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, [sql_explorer::DEFAULT_SQLITE_FILE]);

    let server = sql_explorer::server(db.clone(), 100).await.unwrap();
    for options in eras() {
        let client = connect(&server, options).await;
        let counts = rows(
            &client,
            "SELECT (SELECT count(*) FROM customers), (SELECT count(*) FROM products), \
             (SELECT count(*) FROM orders), (SELECT count(*) FROM order_items) > 250",
            json!([]),
        )
        .await;
        assert_eq!(counts["rows"], json!([[60, 40, 250, 1]]));
        for (sql, _) in PARSER_REFUSALS {
            refused(&client, "query", json!({"sql": sql})).await;
        }
        ok(&client, "list_tables", json!({})).await;
        client
            .read_resource("schema://tables/orders")
            .await
            .unwrap();
    }
    for sql in [
        "DELETE FROM orders",
        "PRAGMA user_version = 3",
        "CREATE TABLE t (x)",
    ] {
        db.query(sql, &[], 10).await.unwrap_err();
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file is unchanged"
    );

    // A second start opens the file as it is.
    let again = sqlite_db(&scratch, Duration::from_secs(5)).await;
    drop(again);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// The `explore-database` skill: served in both eras, naming the tools and resources the
/// server has, and every query of its `references/QUERIES.md` runs on the sample shop.
#[tokio::test]
async fn the_skill_teaches_the_real_tools_and_its_queries_run() {
    let scratch = Scratch::new("skill");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 100)
        .await
        .unwrap();
    for options in eras() {
        let client = connect(&server, options).await;
        let list = client.request("skills/list", None).await.unwrap();
        let skill = &list["skills"][0];
        assert_eq!(skill["uri"], "skill://explore-database/SKILL.md");
        assert_eq!(skill["frontmatter"]["name"], "explore-database");
        let read = |uri: &'static str| {
            let client = &client;
            async move {
                let result = client.read_resource(uri).await.unwrap();
                let value = serde_json::to_value(result).unwrap();
                value["contents"][0]["text"].as_str().unwrap().to_owned()
            }
        };
        let body = read("skill://explore-database/SKILL.md").await;
        for tool in client.list_tools().await.unwrap() {
            assert!(body.contains(&format!("`{}`", tool.name)), "{}", tool.name);
        }
        assert!(body.contains("`schema://tables/{table}`"));
        let queries = read("skill://explore-database/references/QUERIES.md").await;
        let mut ran = 0;
        for block in queries.split("```sql\n").skip(1) {
            let sql = block.split("```").next().unwrap();
            let params = sql
                .lines()
                .find_map(|l| l.strip_prefix("-- params: "))
                .map_or(json!([]), |p| serde_json::from_str(p).unwrap());
            for statement in sql.split(";\n").map(str::trim).filter(|s| !s.is_empty()) {
                let statement: String = statement
                    .lines()
                    .filter(|l| !l.starts_with("--"))
                    .collect::<Vec<_>>()
                    .join("\n");
                rows(&client, statement.trim_end_matches(';'), params.clone()).await;
                ran += 1;
            }
        }
        assert!(ran >= 6, "{ran} queries");
    }
}

#[tokio::test]
async fn lists_tools_resources_templates_and_prompts() {
    let scratch = Scratch::new("lists");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 100)
        .await
        .unwrap();
    for options in eras() {
        let client = connect(&server, options).await;
        let tools = client.list_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["query", "explain", "list_tables"]);
        for tool in &tools {
            let a = tool.annotations.as_ref().unwrap();
            assert_eq!(a.read_only_hint, Some(true), "{}", tool.name);
            assert_eq!(a.open_world_hint, Some(false), "{}", tool.name);
            assert!(tool.description.as_deref().is_some_and(|d| !d.is_empty()));
        }
        let query = &tools[0];
        assert_eq!(query.input_schema["required"], json!(["sql"]));
        let props = query.input_schema["properties"].as_object().unwrap();
        assert_eq!(
            props.keys().collect::<Vec<_>>(),
            ["max_rows", "params", "sql"]
        );
        let output = query.output_schema.as_ref().unwrap();
        let mut fields: Vec<&String> = output["properties"].as_object().unwrap().keys().collect();
        fields.sort();
        assert_eq!(fields, ["columns", "row_count", "rows", "truncated"]);

        // The skill's SKILL.md and its files' template come from the Skills extension.
        let resources = client.list_resources().await.unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://explore-database/SKILL.md",
                sql_explorer::APP_URI,
                "schema://tables"
            ]
        );
        let templates = client.list_resource_templates().await.unwrap();
        let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
        assert_eq!(uris, ["skill://{+path}", "schema://tables/{table}"]);
        assert_eq!(templates[1].mime_type.as_deref(), Some("application/json"));

        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts.len(), 1);
        assert_eq!(prompts[0].name, "analyze-table");
        let arguments = serde_json::to_value(&prompts[0].arguments).unwrap();
        assert_eq!(arguments[0]["name"], "table");
        assert_eq!(arguments[0]["required"], true);
    }
}

/// A host that renders apps: it declares the extension with the app MIME type.
fn apps_host(options: ClientOptions) -> ClientOptions {
    let mut settings = serde_json::Map::new();
    settings.insert("mimeTypes".into(), json!([ferromcp::apps::MIME_TYPE]));
    options.with_extension_settings(ferromcp::apps::ID, settings)
}

/// The server's capabilities: from `initialize` (2025), else `server/discover` (2026).
async fn server_capabilities(client: &TestClient) -> Value {
    match client.initialize_result() {
        Some(init) => serde_json::to_value(&init.capabilities).unwrap(),
        None => client.request("server/discover", None).await.unwrap()["capabilities"].clone(),
    }
}

#[tokio::test]
async fn query_points_at_its_app_and_the_app_is_served() {
    let scratch = Scratch::new("app");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 100)
        .await
        .unwrap();
    for options in eras() {
        let host = connect(&server, apps_host(options)).await;
        let extensions = server_capabilities(&host).await["extensions"].clone();
        assert_eq!(extensions[ferromcp::apps::ID], json!({}));

        let tools = host.list_tools().await.unwrap();
        let meta = serde_json::to_value(tools[0].meta.as_ref().unwrap()).unwrap();
        assert_eq!(
            meta["ui"],
            json!({"resourceUri": "ui://sql-explorer/query.html"})
        );
        assert_eq!(meta["ui/resourceUri"], "ui://sql-explorer/query.html");
        for tool in &tools[1..] {
            assert!(tool.meta.as_ref().and_then(|m| m.get("ui")).is_none());
        }

        let listed = host.list_resources().await.unwrap();
        let app = listed
            .iter()
            .find(|r| r.uri == sql_explorer::APP_URI)
            .unwrap();
        assert_eq!(app.mime_type.as_deref(), Some("text/html;profile=mcp-app"));
        assert_eq!(app.title.as_deref(), Some("Query explorer"));
        let listed_meta = serde_json::to_value(app.meta.as_ref().unwrap()).unwrap();
        // No `csp`: the app reaches no origin, so the host's strictest policy applies.
        assert_eq!(listed_meta["ui"], json!({"prefersBorder": true}));

        let read = host.read_resource(sql_explorer::APP_URI).await.unwrap();
        assert_eq!(read.contents.len(), 1);
        let contents = serde_json::to_value(&read.contents[0]).unwrap();
        assert_eq!(contents["uri"], sql_explorer::APP_URI);
        assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
        assert_eq!(contents["_meta"]["ui"], json!({"prefersBorder": true}));
        let html = contents["text"].as_str().unwrap();
        assert_app_page(html);
    }
}

/// The page as served: the DOM contract's elements, and the official `App` class inlined
/// in place of its slot, so the page loads nothing.
fn assert_app_page(html: &str) {
    for element in [
        r#"<textarea id="sql""#,
        r#"<button id="run""#,
        r#"<table id="result">"#,
        r#"<svg id="chart" data-kind="none""#,
        r#"id="status""#,
    ] {
        assert!(html.contains(element), "the page has {element}");
    }
    assert!(
        !html.contains("data-inline=\"ext-apps\""),
        "the slot is filled"
    );
    assert!(
        html.contains("globalThis.ExtApps={"),
        "the App class is inlined"
    );
    assert!(html.contains(",App:"), "and exposed as ExtApps.App");
    assert!(html.contains("callServerTool({ name: \"query\""));
    for remote in ["src=\"http", "href=\"http", "@import", "fetch("] {
        assert!(!html.contains(remote), "the page loads nothing: {remote}");
    }
}

#[tokio::test]
async fn query_answers_text_with_or_without_apps_in_both_eras() {
    let scratch = Scratch::new("app-text");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 100)
        .await
        .unwrap();
    let sql =
        "SELECT category, count(*) AS products FROM products GROUP BY category ORDER BY category";
    let mut answers = Vec::new();
    for options in eras() {
        for options in [options.clone(), apps_host(options)] {
            let client = connect(&server, options).await;
            let r = ok(&client, "query", json!({"sql": sql})).await;
            // The text every client reads, and the structured rows the app renders.
            assert_eq!(r.content.len(), 1);
            let structured = r.structured_content.clone().unwrap();
            let mirrored: Value = serde_json::from_str(text(&r)).unwrap();
            assert_eq!(mirrored, structured);
            assert_eq!(structured["columns"], json!(["category", "products"]));
            assert_eq!(structured["rows"][0], json!(["books", 10]));
            assert_eq!(structured["row_count"], 4);
            answers.push(text(&r).to_owned());
        }
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");

    // A refused query is an isError result, the text the app's status line shows.
    let host = connect(&server, apps_host(ClientOptions::modern())).await;
    let why = refused(&host, "query", json!({"sql": "DELETE FROM orders"})).await;
    assert!(!why.is_empty());
}

#[tokio::test]
async fn query_binds_parameters_and_returns_rows_as_json() {
    let scratch = Scratch::new("params");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 100)
        .await
        .unwrap();
    // The expected rows, read with rusqlite directly.
    let conn = rusqlite::Connection::open(scratch.db_path()).unwrap();
    let mut stmt = conn
        .prepare("SELECT id, name, price FROM products WHERE category = 'books' AND price > 5 ORDER BY id")
        .unwrap();
    let expected: Vec<Value> = stmt
        .query_map([], |r| {
            Ok(json!([
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, f64>(2)?
            ]))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(expected.len() > 3, "the sample has books over 5");
    for options in eras() {
        let client = connect(&server, options).await;
        let result = rows(
            &client,
            "SELECT id, name, price FROM products WHERE category = ?1 AND price > ?2 ORDER BY id",
            json!(["books", 5]),
        )
        .await;
        assert_eq!(result["columns"], json!(["id", "name", "price"]));
        assert_eq!(result["rows"], Value::Array(expected.clone()));
        assert_eq!(result["row_count"], expected.len());
        assert_eq!(result["truncated"], false);

        // Every kind of scalar, and values that would be SQL if they were pasted in.
        let result = rows(
            &client,
            "SELECT ?1 IS NULL, ?2, ?3, ?4, ?5, typeof(?4)",
            json!([null, true, 1.5, "x'); DROP TABLE orders; --", -7]),
        )
        .await;
        assert_eq!(
            result["rows"],
            json!([[1, 1, 1.5, "x'); DROP TABLE orders; --", -7, "text"]])
        );
        let e = refused(
            &client,
            "query",
            json!({"sql": "SELECT ?1, ?2", "params": [1]}),
        )
        .await;
        assert_eq!(
            e,
            "the query has 2 parameter placeholder(s) but 1 parameter(s) were given"
        );
        let r = client
            .call_tool("query", json!({"sql": "SELECT ?1", "params": [[1, 2]]}))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(true), "arrays are not scalars");
    }
}

#[tokio::test]
async fn query_truncates_at_max_rows_and_says_so() {
    let scratch = Scratch::new("truncate");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 20)
        .await
        .unwrap();
    for options in eras() {
        let client = connect(&server, options).await;
        let ids = |r: &CallToolResult| -> Vec<i64> {
            let rows = r.structured_content.as_ref().unwrap()["rows"]
                .as_array()
                .unwrap()
                .clone();
            rows.iter().map(|row| row[0].as_i64().unwrap()).collect()
        };
        let sql = "SELECT id FROM orders ORDER BY id";
        let r = ok(&client, "query", json!({"sql": sql, "max_rows": 5})).await;
        assert_eq!(ids(&r), [1, 2, 3, 4, 5]);
        let s = r.structured_content.as_ref().unwrap();
        assert_eq!(
            (s["row_count"].clone(), s["truncated"].clone()),
            (json!(5), json!(true))
        );
        let note = r.content[1].as_text().unwrap();
        assert!(
            note.starts_with("Truncated: only the first 5 rows are shown"),
            "{note}"
        );
        assert!(note.contains("up to 20 rows with max_rows"), "{note}");

        // The server's --max-rows is the default and the ceiling.
        for max_rows in [None, Some(1000)] {
            let r = ok(&client, "query", json!({"sql": sql, "max_rows": max_rows})).await;
            assert_eq!(ids(&r), (1..=20).collect::<Vec<_>>());
            assert!(
                r.content[1]
                    .as_text()
                    .unwrap()
                    .starts_with("Truncated: only the first 20 rows")
            );
        }
        // Exactly as many rows as allowed is not truncated.
        let r = ok(
            &client,
            "query",
            json!({"sql": "SELECT id FROM orders LIMIT 5", "max_rows": 5}),
        )
        .await;
        assert_eq!(r.structured_content.unwrap()["truncated"], false);
        assert_eq!(r.content.len(), 1);
        let e = refused(&client, "query", json!({"sql": sql, "max_rows": 0})).await;
        assert_eq!(e, "max_rows must be at least 1");
    }
}

#[tokio::test]
async fn explain_shows_the_plan_and_refuses_the_same() {
    let scratch = Scratch::new("explain");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 100)
        .await
        .unwrap();
    for options in eras() {
        let client = connect(&server, options).await;
        let r = ok(
            &client,
            "explain",
            json!({"sql": "SELECT * FROM orders WHERE customer_id = 7"}),
        )
        .await;
        let plan = text(&r);
        assert!(plan.starts_with("QUERY PLAN\n"), "{plan}");
        assert!(plan.contains("USING INDEX orders_customer_id"), "{plan}");
        for (sql, says) in PARSER_REFUSALS {
            let e = refused(&client, "explain", json!({"sql": sql})).await;
            assert!(e.starts_with(ONLY) && e.contains(says), "{sql}: {e}");
        }
    }
}

#[tokio::test]
async fn schema_resources_describe_tables_and_refuse_unknown_ones() {
    let scratch = Scratch::new("schema");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 100)
        .await
        .unwrap();
    for (modern, options) in [false, true].into_iter().zip(eras()) {
        let client = connect(&server, options).await;
        let index = resource_json(&client.read_resource("schema://tables").await.unwrap());
        assert_eq!(
            index,
            json!({"tables": [
                {"name": "customers", "kind": "table", "columns": 5, "rows": 60},
                {"name": "order_items", "kind": "table", "columns": 4, "rows": index["tables"][1]["rows"]},
                {"name": "orders", "kind": "table", "columns": 4, "rows": 250},
                {"name": "products", "kind": "table", "columns": 5, "rows": 40},
            ]})
        );
        let listed = ok(&client, "list_tables", json!({})).await;
        assert_eq!(listed.structured_content.unwrap(), index);

        let orders = resource_json(
            &client
                .read_resource("schema://tables/orders")
                .await
                .unwrap(),
        );
        assert_eq!(orders["primary_key"], json!(["id"]));
        assert_eq!(
            orders["columns"][0],
            json!({"name": "id", "type": "INTEGER", "nullable": false, "default": null})
        );
        assert_eq!(
            orders["columns"][1],
            json!({"name": "customer_id", "type": "INTEGER", "nullable": false, "default": null})
        );
        assert_eq!(
            orders["foreign_keys"],
            json!([{"columns": ["customer_id"], "references_table": "customers", "references_columns": ["id"]}])
        );
        assert_eq!(
            orders["indexes"],
            json!([
                {"name": "orders_customer_id", "unique": false, "columns": ["customer_id"]},
                {"name": "orders_ordered_on", "unique": false, "columns": ["ordered_on"]},
            ])
        );
        let items = resource_json(
            &client
                .read_resource("schema://tables/order_items")
                .await
                .unwrap(),
        );
        assert_eq!(items["primary_key"], json!(["order_id", "product_id"]));
        assert_eq!(items["foreign_keys"].as_array().unwrap().len(), 2);

        for missing in ["nope", "orders\"; DROP TABLE orders; --", "sqlite_schema"] {
            let uri = format!("schema://tables/{missing}");
            let code = rpc_code(client.read_resource(&uri).await.unwrap_err());
            assert_eq!(code, if modern { -32602 } else { -32002 }, "{missing}");
        }
    }
}

#[tokio::test]
async fn completion_and_prompt_name_tables_from_the_catalog() {
    let scratch = Scratch::new("prompt");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 100)
        .await
        .unwrap();
    for options in eras() {
        let client = connect(&server, options).await;
        let (template, prompt) = complete_table(&client, "ord").await;
        assert_eq!(template, json!(["order_items", "orders"]));
        assert_eq!(prompt, template);
        let (all, _) = complete_table(&client, "").await;
        assert_eq!(
            all,
            json!(["customers", "order_items", "orders", "products"])
        );

        let got = client
            .get_prompt("analyze-table", json!({"table": "orders"}))
            .await
            .unwrap();
        let messages = serde_json::to_value(&got.messages).unwrap();
        assert_eq!(messages.as_array().unwrap().len(), 2);
        assert_eq!(messages[0]["role"], "user");
        assert_eq!(messages[0]["content"]["type"], "resource");
        assert_eq!(
            messages[0]["content"]["resource"]["uri"],
            "schema://tables/orders"
        );
        let schema: Value =
            serde_json::from_str(messages[0]["content"]["resource"]["text"].as_str().unwrap())
                .unwrap();
        assert_eq!(schema["name"], "orders");
        let ask = messages[1]["content"]["text"].as_str().unwrap();
        assert!(
            ask.contains("`orders`") && ask.contains("`query` tool"),
            "{ask}"
        );

        let e = client
            .get_prompt("analyze-table", json!({"table": "nope"}))
            .await
            .unwrap_err();
        assert_eq!(rpc_code(e), -32602);
    }
}

#[tokio::test]
async fn the_statement_check_refuses_everything_but_one_query() {
    let scratch = Scratch::new("refusals");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 100)
        .await
        .unwrap();
    let sqlite_only = [
        ("PRAGMA query_only = 0", "got PRAGMA"),
        ("ATTACH DATABASE 'other.sqlite' AS other", "got ATTACH"),
        ("VACUUM", ""),
    ];
    for options in eras() {
        let client = connect(&server, options).await;
        for (sql, says) in PARSER_REFUSALS.iter().chain(&sqlite_only) {
            let e = refused(&client, "query", json!({"sql": sql})).await;
            assert!(e.starts_with(ONLY), "{sql}: {e}");
            assert!(e.contains(says), "{sql}: {e}");
        }
        let counts = rows(&client, "SELECT count(*) FROM orders", json!([])).await;
        assert_eq!(counts["rows"], json!([[250]]));
    }
    assert!(!scratch.0.join("other.sqlite").exists());
}

#[tokio::test]
async fn sqlite_hostile_probes_are_refused_and_change_nothing() {
    let scratch = Scratch::new("sqlite-probes");
    let db = sqlite_db(&scratch, Duration::from_secs(5)).await;
    let before = std::fs::read(scratch.db_path()).unwrap();
    let other = scratch.0.join("other.sqlite");
    let attach = format!("ATTACH DATABASE '{}' AS other", other.display());
    let write = format!("SELECT writefile('{}', 'x')", other.display());
    let server = sql_explorer::server(db, 100).await.unwrap();
    for options in eras() {
        let client = connect(&server, options).await;
        for (sql, says) in [
            ("DELETE FROM orders", "got DELETE"),
            ("SELECT 1; DELETE FROM orders", "got 2 statements"),
            ("PRAGMA query_only = 0", "got PRAGMA"),
            ("PRAGMA writable_schema = 1", "got PRAGMA"),
            (attach.as_str(), "got ATTACH"),
            (
                "VACUUM INTO 'copy.sqlite'",
                "only a single SELECT/WITH query",
            ),
            ("CREATE TABLE t (x)", "got CREATE"),
            (
                "SELECT load_extension('/tmp/evil.so')",
                "`load_extension`: it loads native code",
            ),
            (
                "SELECT readfile('/etc/passwd')",
                "`readfile`: it reads or writes files",
            ),
            (write.as_str(), "`writefile`"),
            ("SELECT * FROM fsdir('/')", "`fsdir`"),
            (
                "SELECT id FROM orders ORDER BY CAST(readfile('/etc/passwd') AS int)",
                "`readfile`",
            ),
            (
                "WITH t AS (SELECT edit('x', 'vi') AS e) SELECT * FROM t",
                "`edit`",
            ),
            ("SELECT * FROM sqlite_dbpage('main')", "`sqlite_dbpage`"),
        ] {
            for tool in ["query", "explain"] {
                let e = refused(&client, tool, json!({"sql": sql})).await;
                assert!(e.contains(says), "{tool} {sql}: {e}");
            }
        }
        let r = rows(
            &client,
            "SELECT count(*), random() IS NOT NULL FROM orders",
            json!([]),
        )
        .await;
        assert_eq!(r["rows"], json!([[250, 1]]));
    }
    assert!(!other.exists(), "no file was created");
    assert!(!scratch.0.join("copy.sqlite").exists());
    assert_eq!(std::fs::read(scratch.db_path()).unwrap(), before);
}

/// Past the statement check, the connection itself refuses to write.
#[tokio::test]
async fn the_sqlite_connection_refuses_writes_on_its_own() {
    let scratch = Scratch::new("connection");
    let db = sqlite_db(&scratch, Duration::from_secs(5)).await;
    let before = std::fs::read(scratch.db_path()).unwrap();
    let attached = scratch.0.join("attached.sqlite");
    let attach = format!("ATTACH DATABASE '{}' AS other", attached.display());
    for sql in [
        "DELETE FROM orders",
        "INSERT INTO customers (id, name, email, country, created_on) VALUES (999, 'x', 'x', 'x', 'x')",
        "UPDATE products SET price = 1",
        "DROP TABLE order_items",
        "CREATE TABLE t (x)",
        "PRAGMA user_version = 3",
        attach.as_str(),
    ] {
        let e = db.query(sql, &[], 10).await.unwrap_err();
        assert!(
            e.0.contains("readonly database") || e.0.contains("unable to open database"),
            "{sql}: {e}"
        );
    }
    assert!(!attached.exists(), "ATTACH created no file");
    let e = db
        .query("SELECT 1; DELETE FROM orders", &[], 10)
        .await
        .unwrap_err();
    assert_eq!(e.0, "the SQL holds more than one statement");

    // Each of the two settings holds on its own: query_only is on, and with it turned off
    // the read-only open still refuses.
    let Database::Sqlite(sqlite) = &db else {
        unreachable!()
    };
    let r = db.query("PRAGMA query_only", &[], 10).await.unwrap();
    assert_eq!(r.rows, [[json!(1)]]);
    let conn = sqlite.connect().unwrap();
    assert_eq!(
        conn.query_row("PRAGMA query_only", [], |r| r.get::<_, i64>(0))
            .unwrap(),
        1
    );
    conn.pragma_update(None, "query_only", false).unwrap();
    let e = conn.execute("DELETE FROM orders", []).unwrap_err();
    assert!(e.to_string().contains("readonly database"), "{e}");
    drop(conn);

    let r = db
        .query("SELECT count(*) FROM orders", &[], 10)
        .await
        .unwrap();
    assert_eq!(r.rows, [[json!(250)]]);
    assert_eq!(
        std::fs::read(scratch.db_path()).unwrap(),
        before,
        "the file is unchanged"
    );
}

#[tokio::test]
async fn a_runaway_sqlite_query_is_interrupted_and_the_server_keeps_serving() {
    let scratch = Scratch::new("timeout");
    let server = sql_explorer::server(sqlite_db(&scratch, Duration::from_millis(300)).await, 100)
        .await
        .unwrap();
    for options in eras() {
        let client = connect(&server, options).await;
        let started = Instant::now();
        let runaway = json!({"sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"});
        let e = tokio::time::timeout(Duration::from_secs(30), refused(&client, "query", runaway))
            .await
            .expect("the statement timeout ends the query");
        assert_eq!(
            e,
            "the statement was cancelled after the statement timeout of 300 ms"
        );
        assert!(started.elapsed() < Duration::from_secs(30));
        let counts = rows(&client, "SELECT count(*) FROM customers", json!([])).await;
        assert_eq!(counts["rows"], json!([[60]]));
    }
}

#[test]
fn command_line() {
    use clap::Parser as _;
    let parse = |args: &[&str]| {
        Args::try_parse_from(std::iter::once("sql-explorer").chain(args.iter().copied()))
            .map_err(|e| e.to_string())
    };
    let default = parse(&[]).unwrap();
    assert_eq!(
        default.source(),
        Source::Sqlite(PathBuf::from("sql-explorer.sqlite"))
    );
    assert_eq!((default.common.http(), default.max_rows), (None, 100));
    assert_eq!(default.timeout(), Duration::from_secs(5));
    assert!(!default.allow_privileged_role);
    let parsed = parse(&[
        "--allow-privileged-role",
        "--database-url",
        "postgres://u@h/db",
        "--http",
        "127.0.0.1:0",
        "--max-rows",
        "7",
        "--statement-timeout-ms",
        "250",
    ])
    .unwrap();
    assert_eq!(
        parsed.source(),
        Source::Postgres("postgres://u@h/db".into())
    );
    assert_eq!(parsed.common.http(), Some("127.0.0.1:0"));
    assert!(parsed.allow_privileged_role);
    assert_eq!(
        (parsed.max_rows, parsed.timeout()),
        (7, Duration::from_millis(250))
    );
    for bad in [
        &["--database", "a", "--database-url", "b"][..],
        &["--database"],
        &["--max-rows", "0"],
        &["--max-rows", "x"],
        &["--statement-timeout-ms", "0"],
        &["shop.db"],
    ] {
        let e = parse(bad).unwrap_err();
        assert!(e.starts_with("error: "), "{bad:?}: {e}");
    }
    // Claude Desktop's snippet starts the same database, without its password.
    let postgres = parse(&["--database-url", "postgres://u:pw@h/db", "--max-rows", "7"]).unwrap();
    assert_eq!(
        postgres.stdio_args(),
        [
            "--database-url",
            "postgres://u:PASSWORD@h/db",
            "--max-rows",
            "7"
        ]
    );
}

/// The built binary over stdio, started in an empty directory: it creates
/// `sql-explorer.sqlite` there, and stdout carries nothing but protocol messages.
#[tokio::test]
async fn binary_creates_the_default_database_and_serves_stdio() {
    let scratch = Scratch::new("binary-stdio");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_sql-explorer"))
        .current_dir(&scratch.0)
        .env("RUST_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let messages = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query","arguments":{"sql":"SELECT name FROM customers WHERE id = ?","params":[1]}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"query","arguments":{"sql":"DELETE FROM orders"}}}"#,
    ];
    stdin
        .write_all((messages.join("\n") + "\n").as_bytes())
        .await
        .unwrap();
    drop(stdin);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let replies = tokio::time::timeout(Duration::from_secs(60), async {
        let mut replies = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            replies.push(serde_json::from_str::<Value>(&line).expect("stdout is JSON"));
        }
        replies
    })
    .await
    .unwrap();
    let reply = |id: i64| replies.iter().find(|r| r["id"] == id).unwrap()["result"].clone();
    assert_eq!(reply(2)["structuredContent"]["columns"], json!(["name"]));
    assert_eq!(reply(2)["structuredContent"]["row_count"], 1);
    assert_eq!(reply(3)["isError"], true);
    assert!(child.wait().await.unwrap().success());
    assert!(scratch.db_path().exists());
}

/// `--http 127.0.0.1:0`: stdout says where the server listens (the real port) and how to
/// connect each kind of client.
#[tokio::test]
async fn binary_prints_how_to_connect_over_http() {
    let scratch = Scratch::new("binary-http");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_sql-explorer"))
        .current_dir(&scratch.0)
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let printed = tokio::time::timeout(Duration::from_secs(60), async {
        let mut printed = String::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            let done = line.starts_with("  npx @modelcontextprotocol/inspector ");
            printed.push_str(&line);
            printed.push('\n');
            if done {
                break;
            }
        }
        printed
    })
    .await
    .unwrap();
    let url = printed
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("sql-explorer: MCP over Streamable HTTP at "))
        .unwrap()
        .to_owned();
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap()
        .parse()
        .unwrap();
    assert_ne!(port, 0);
    assert!(printed.contains(&format!(
        "claude mcp add --transport http sql-explorer {url}\n"
    )));
    assert!(printed.contains(&format!("npx @modelcontextprotocol/inspector {url}\n")));
    let vscode: Value = serde_json::from_str(
        printed
            .lines()
            .find(|l| l.trim_start().starts_with(r#"{"servers""#))
            .unwrap()
            .trim(),
    )
    .unwrap();
    assert_eq!(
        vscode,
        json!({"servers": {"sql-explorer": {"type": "http", "url": url}}})
    );
    // The Desktop snippet is JSON naming this binary and the database, both absolute.
    let start = printed.find("  {\n").unwrap();
    let end = start + printed[start..].find("\n  }\n").unwrap() + 4;
    let desktop: Value = serde_json::from_str(&printed[start..end]).unwrap();
    let entry = &desktop["mcpServers"]["sql-explorer"];
    let command = Path::new(entry["command"].as_str().unwrap());
    assert_eq!(
        command,
        Path::new(env!("CARGO_BIN_EXE_sql-explorer"))
            .canonicalize()
            .unwrap()
    );
    assert_eq!(
        entry["args"],
        json!([
            "--database",
            scratch
                .db_path()
                .canonicalize()
                .unwrap()
                .display()
                .to_string()
        ])
    );

    // And it serves there.
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut response)
        .await
        .unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("sql-explorer"), "{response}");
    child.kill().await.unwrap();
}

// --- PostgreSQL ---------------------------------------------------------------------------

/// The cluster's URL, `SQL_EXPLORER_PG_URL`, which `scripts/postgres.sh start` exports; the
/// tests that need it are `#[ignore]`d, so running one without it is a mistake to report.
fn pg_url() -> String {
    pg_env("SQL_EXPLORER_PG_URL")
}

/// The variable `name` of `scripts/postgres.sh start`, or a panic saying how to set it.
fn pg_env(name: &str) -> String {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v,
        _ => panic!("{name} is not set: eval \"$(scripts/postgres.sh start)\" first"),
    }
}

/// A database of its own for one test, with the sample loaded, dropped by [`PgDb::drop`].
struct PgDb {
    admin: tokio_postgres::Config,
    config: tokio_postgres::Config,
    name: String,
}

async fn pg_client(config: &tokio_postgres::Config) -> tokio_postgres::Client {
    let (client, connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
}

impl PgDb {
    async fn new(url: &str, test: &str) -> PgDb {
        let admin: tokio_postgres::Config = url.parse().unwrap();
        let name = format!("sqlx_{}_{test}", std::process::id());
        let client = pg_client(&admin).await;
        // One at a time: several statements in one message would be one transaction.
        for sql in [
            format!("DROP DATABASE IF EXISTS {name}"),
            format!("CREATE DATABASE {name}"),
        ] {
            client.batch_execute(&sql).await.unwrap();
        }
        let mut config = admin.clone();
        config.dbname(&name);
        let client = pg_client(&config).await;
        client
            .batch_execute(&sql_explorer::sample::script())
            .await
            .unwrap();
        client
            .batch_execute("CREATE SEQUENCE tickets; CREATE SCHEMA sales; CREATE TABLE sales.\"Targets\" (\"Year\" int PRIMARY KEY); ANALYZE")
            .await
            .unwrap();
        PgDb {
            admin,
            config,
            name,
        }
    }

    fn database(&self, timeout: Duration) -> Database {
        Database::Postgres(
            sql_explorer::postgres::Postgres::with_config(self.config.clone(), timeout).unwrap(),
        )
    }

    /// Row counts and the sequence's state, read on a connection of the test's own.
    async fn fingerprint(&self) -> Value {
        let client = pg_client(&self.config).await;
        let row = client
            .query_one(
                "SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM customers), \
                 (SELECT count(*) FROM order_items), (SELECT is_called FROM tickets), \
                 (SELECT count(*) FROM pg_class WHERE relname = 'copy')",
                &[],
            )
            .await
            .unwrap();
        json!([
            row.get::<_, i64>(0),
            row.get::<_, i64>(1),
            row.get::<_, i64>(2),
            row.get::<_, bool>(3),
            row.get::<_, i64>(4)
        ])
    }

    async fn drop(self) {
        let client = pg_client(&self.admin).await;
        client
            .batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .await
            .unwrap();
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL: eval \"$(scripts/postgres.sh start)\""]
async fn postgres_query_matches_sqlite_with_bound_parameters() {
    let url = pg_url();
    let pg = PgDb::new(&url, "query").await;
    let scratch = Scratch::new("pg-query");
    let lite = sql_explorer::server(sqlite_db(&scratch, Duration::from_secs(5)).await, 100)
        .await
        .unwrap();
    let server = sql_explorer::server(pg.database(Duration::from_secs(5)), 100)
        .await
        .unwrap();
    for options in eras() {
        let lite = connect(&lite, options.clone()).await;
        let client = connect(&server, options).await;
        // The same sample, so the same rows: numeric and date values included.
        for (pg_sql, lite_sql, params, lite_params) in [
            (
                "SELECT id, name, price FROM products WHERE category = $1 AND price > $2 ORDER BY id",
                "SELECT id, name, price FROM products WHERE category = ?1 AND price > ?2 ORDER BY id",
                json!(["books", 5]),
                json!(["books", 5]),
            ),
            (
                "SELECT o.id, c.name, o.ordered_on, o.status FROM orders o JOIN customers c ON c.id = o.customer_id \
                 WHERE o.ordered_on >= $1 AND o.status = ANY($2) ORDER BY o.id LIMIT 15",
                "SELECT o.id, c.name, o.ordered_on, o.status FROM orders o JOIN customers c ON c.id = o.customer_id \
                 WHERE o.ordered_on >= ?1 AND o.status IN ('shipped', 'pending') ORDER BY o.id LIMIT 15",
                json!(["2024-09-01", "{shipped,pending}"]),
                json!(["2024-09-01"]),
            ),
        ] {
            let expected = rows(&lite, lite_sql, lite_params).await;
            let got = rows(&client, pg_sql, params).await;
            assert_eq!(got["rows"], expected["rows"], "{pg_sql}");
            assert!(!got["rows"].as_array().unwrap().is_empty());
            assert_eq!(got["columns"], expected["columns"]);
        }

        // Parameters are converted to the types PostgreSQL inferred, and refused when they
        // do not fit.
        let typed = rows(
            &client,
            "SELECT $1::int2 AS a, $2::int8 AS a, $3::numeric, $4::bool, $5::jsonb, $6::text, $7::date, $8::float8, $9::int4 IS NULL",
            json!([12, 9_007_199_254_740_993_i64, "12345.678", true, r#"{"k": [1, 2]}"#, 42, "2024-02-29", 2, null]),
        )
        .await;
        assert_eq!(
            typed["columns"],
            json!([
                "a", "a", "numeric", "bool", "jsonb", "text", "date", "float8", "?column?"
            ])
        );
        assert_eq!(
            typed["rows"],
            json!([[12, 9_007_199_254_740_993_i64, 12345.678, true, {"k": [1, 2]}, "42", "2024-02-29", 2, true]])
        );
        for (sql, params, says) in [
            (
                "SELECT $1::int2",
                json!([70000]),
                "parameter $1 is int2: 70000 does not fit",
            ),
            (
                "SELECT $1::int4",
                json!([1.5]),
                "parameter $1 is int4: 1.5 does not fit",
            ),
            (
                "SELECT $1::bool",
                json!([1]),
                "parameter $1 is bool: 1 does not fit",
            ),
            (
                "SELECT $1::int4",
                json!(["abc"]),
                "invalid input syntax for type integer",
            ),
            (
                "SELECT $1::jsonb",
                json!(["{not json"]),
                "invalid input syntax for type json",
            ),
            ("SELECT $1, $2", json!([1]), "parameter placeholder"),
        ] {
            let e = refused(&client, "query", json!({"sql": sql, "params": params})).await;
            assert!(e.contains(says), "{sql} {params}: {e}");
        }

        // Values of any type come back through the server's to_json, duplicates and all.
        let r = rows(
            &client,
            "SELECT ARRAY[1, 2] AS arr, to_json(ROW(1, 'a')) AS rec, '\\x01ff'::bytea AS b, NULL::int AS n, \
             interval '1 day' AS i, 'NaN'::float8 AS nan, '{\"a\": null}'::json AS j",
            json!([]),
        )
        .await;
        assert_eq!(
            r["rows"],
            json!([[[1, 2], {"f1": 1, "f2": "a"}, "\\x01ff", null, "1 day", "NaN", {"a": null}]])
        );
        let whole = rows(&client, "SELECT o FROM orders o WHERE id = 1", json!([])).await;
        assert_eq!(
            whole["rows"][0][0]["id"], 1,
            "a table's row type is a named composite"
        );
        for sql in [
            "SELECT ROW(1, 'a')",
            "SELECT ARRAY[ROW(1)]",
            "SELECT s FROM (SELECT 1) s",
        ] {
            let e = refused(&client, "query", json!({"sql": sql})).await;
            assert!(e.contains("whose values cannot be returned"), "{sql}: {e}");
        }
        let empty = rows(&client, "SELECT id FROM orders WHERE false", json!([])).await;
        assert_eq!(
            empty,
            json!({"columns": ["id"], "rows": [], "row_count": 0, "truncated": false})
        );
    }
    pg.drop().await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL: eval \"$(scripts/postgres.sh start)\""]
async fn postgres_truncates_explains_and_describes_its_schema() {
    let url = pg_url();
    let pg = PgDb::new(&url, "schema").await;
    let server = sql_explorer::server(pg.database(Duration::from_secs(5)), 30)
        .await
        .unwrap();
    for (modern, options) in [false, true].into_iter().zip(eras()) {
        let client = connect(&server, options).await;
        let r = ok(
            &client,
            "query",
            json!({"sql": "SELECT id FROM orders ORDER BY id"}),
        )
        .await;
        let s = r.structured_content.unwrap();
        assert_eq!(
            (s["row_count"].clone(), s["truncated"].clone()),
            (json!(30), json!(true))
        );
        assert_eq!(s["rows"][29], json!([30]));
        assert!(
            r.content[1]
                .as_text()
                .unwrap()
                .starts_with("Truncated: only the first 30 rows")
        );

        let r = ok(
            &client,
            "explain",
            json!({"sql": "SELECT * FROM orders WHERE customer_id = 7"}),
        )
        .await;
        assert!(text(&r).contains("orders"), "{}", text(&r));
        assert!(text(&r).contains("customer_id = 7"), "{}", text(&r));

        let index = resource_json(&client.read_resource("schema://tables").await.unwrap());
        let names: Vec<&str> = index["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "customers",
                "order_items",
                "orders",
                "products",
                "sales.Targets"
            ]
        );
        assert_eq!(
            index["tables"][0],
            json!({"name": "customers", "kind": "table", "columns": 5, "rows": 60})
        );

        let orders = resource_json(
            &client
                .read_resource("schema://tables/orders")
                .await
                .unwrap(),
        );
        assert_eq!(orders["primary_key"], json!(["id"]));
        assert_eq!(orders["rows"], 250);
        assert_eq!(
            orders["columns"][2],
            json!({"name": "ordered_on", "type": "date", "nullable": false, "default": null})
        );
        assert_eq!(
            orders["foreign_keys"],
            json!([{"columns": ["customer_id"], "references_table": "customers", "references_columns": ["id"]}])
        );
        let index_names: Vec<&str> = orders["indexes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            index_names,
            ["orders_customer_id", "orders_ordered_on", "orders_pkey"]
        );
        let products = resource_json(
            &client
                .read_resource("schema://tables/products")
                .await
                .unwrap(),
        );
        assert_eq!(products["columns"][3]["type"], "numeric(10,2)");
        // Mixed-case names outside `public` are quoted where the SQL needs it.
        let targets = resource_json(
            &client
                .read_resource("schema://tables/sales.Targets")
                .await
                .unwrap(),
        );
        assert_eq!(
            (targets["rows"].clone(), targets["primary_key"].clone()),
            (json!(0), json!(["Year"]))
        );

        let code = rpc_code(
            client
                .read_resource("schema://tables/nope")
                .await
                .unwrap_err(),
        );
        assert_eq!(code, if modern { -32602 } else { -32002 });
        let (template, prompt) = complete_table(&client, "order").await;
        assert_eq!(template, json!(["order_items", "orders"]));
        assert_eq!(prompt, template);
        let got = client
            .get_prompt("analyze-table", json!({"table": "products"}))
            .await
            .unwrap();
        assert_eq!(got.messages.len(), 2);
    }
    pg.drop().await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL: eval \"$(scripts/postgres.sh start)\""]
async fn postgres_refuses_writes_in_the_parser_and_in_the_transaction() {
    let url = pg_url();
    let pg = PgDb::new(&url, "refusals").await;
    let before = pg.fingerprint().await;
    let db = pg.database(Duration::from_secs(5));
    let server = sql_explorer::server(db.clone(), 100).await.unwrap();
    for options in eras() {
        let client = connect(&server, options).await;
        for (sql, says) in PARSER_REFUSALS.iter().chain(&[
            ("SELECT * INTO copy FROM orders", "got SELECT INTO"),
            ("SELECT * FROM orders FOR UPDATE", "row-locking"),
            ("SET TRANSACTION READ WRITE", "got SET"),
            ("COMMIT", "got COMMIT"),
        ]) {
            let e = refused(&client, "query", json!({"sql": sql})).await;
            assert!(e.starts_with(ONLY) && e.contains(says), "{sql}: {e}");
        }
        // Queries that write without looking like it: the function policy refuses them.
        for (sql, says) in [
            (
                "SELECT nextval('tickets')",
                "`nextval`: it changes a sequence",
            ),
            (
                "SELECT setval('tickets', 100)",
                "`setval`: it changes a sequence",
            ),
            (
                "SELECT set_config('transaction_read_only', 'off', true)",
                "`set_config`: it changes server settings",
            ),
        ] {
            let e = refused(&client, "query", json!({"sql": sql})).await;
            assert!(e.contains(says), "{sql}: {e}");
        }
    }
    // Past the statement check: the transaction alone refuses every kind of write.
    for sql in [
        "SELECT nextval('tickets')",
        "SELECT setval('tickets', 100)",
        "SELECT set_config('transaction_read_only', 'off', true)",
    ] {
        let e = db.query(sql, &[], 10).await.unwrap_err();
        assert!(
            e.0.contains("SQLSTATE 25006") || e.0.contains("SQLSTATE 25001"),
            "{sql}: {e}"
        );
    }
    for sql in [
        "WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d",
        "DELETE FROM orders",
        "UPDATE products SET price = 1",
        "INSERT INTO customers VALUES (999, 'x', 'x', 'x', '2024-01-01')",
        "CREATE TABLE copy (x int)",
        "SELECT * INTO copy FROM orders",
        "DROP TABLE order_items",
        "SELECT * FROM orders FOR UPDATE",
    ] {
        let e = db.query(sql, &[], 10).await.unwrap_err();
        assert!(
            e.0.contains("read-only transaction") && e.0.contains("SQLSTATE 25006"),
            "{sql}: {e}"
        );
    }
    let Database::Postgres(postgres) = &db else {
        unreachable!()
    };
    let mut client = postgres.connect().await.unwrap();
    let txn = postgres.begin(&mut client).await.unwrap();
    let mode = txn
        .query_one("SHOW transaction_read_only", &[])
        .await
        .unwrap();
    assert_eq!(mode.get::<_, String>(0), "on");
    let timeout = txn.query_one("SHOW statement_timeout", &[]).await.unwrap();
    assert_eq!(timeout.get::<_, String>(0), "5s");
    drop(txn);
    assert_eq!(pg.fingerprint().await, before, "nothing changed");
    pg.drop().await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL: eval \"$(scripts/postgres.sh start)\""]
async fn postgres_statement_timeout_is_a_clean_tool_error() {
    let url = pg_url();
    let pg = PgDb::new(&url, "timeout").await;
    // Long enough that the transaction's own statements (START TRANSACTION, SET LOCAL,
    // the prepare) never meet it while the other tests load the same PostgreSQL; the query
    // below would run for hours.
    let server = sql_explorer::server(pg.database(Duration::from_millis(1_500)), 100)
        .await
        .unwrap();
    for options in eras() {
        let client = connect(&server, options).await;
        let started = Instant::now();
        // A long query made of harmless functions (pg_sleep itself is refused by name). The
        // set-returning function sits in the select list, where PostgreSQL streams its rows;
        // in FROM it would materialize them into a temporary file that grows until the
        // timeout (it once filled the CI machine's disk).
        let sleep =
            json!({"sql": "SELECT count(*) FROM (SELECT generate_series(1, 10000000000)) AS s"});
        let e = tokio::time::timeout(Duration::from_secs(20), refused(&client, "query", sleep))
            .await
            .expect("the statement timeout ends the query");
        assert!(
            e.contains("statement timeout") && e.contains("SQLSTATE 57014"),
            "{e}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        let counts = rows(&client, "SELECT count(*) FROM customers", json!([])).await;
        assert_eq!(counts["rows"], json!([[60]]));
    }
    pg.drop().await;
}

/// A role of its own for one test (roles belong to the cluster), dropped after the test's
/// database by [`PgRole::drop`].
struct PgRole {
    admin: tokio_postgres::Config,
    name: String,
}

impl PgRole {
    /// Creates the role with `sql`, in which `explorer` stands for its name, run statement by
    /// statement in the test's database as the superuser.
    async fn new(pg: &PgDb, suffix: &str, sql: &str) -> PgRole {
        let name = format!("{}_{suffix}", pg.name);
        let client = pg_client(&pg.config).await;
        client
            .batch_execute(&format!("DROP ROLE IF EXISTS {name}"))
            .await
            .unwrap();
        for statement in sql.replace("explorer", &name).split_inclusive(';') {
            client.batch_execute(statement).await.unwrap();
        }
        PgRole {
            admin: pg.admin.clone(),
            name,
        }
    }

    /// `pg`'s database, as this role.
    fn config(&self, pg: &PgDb) -> tokio_postgres::Config {
        let mut config = pg.config.clone();
        config.user(&self.name);
        config
    }

    async fn drop(self) {
        let client = pg_client(&self.admin).await;
        client
            .batch_execute(&format!("DROP ROLE IF EXISTS {}", self.name))
            .await
            .unwrap();
    }
}

fn postgres_at(config: tokio_postgres::Config) -> sql_explorer::postgres::Postgres {
    sql_explorer::postgres::Postgres::with_config(config, Duration::from_secs(5)).unwrap()
}

/// What the statement check must refuse on PostgreSQL, as a hostile model would try it, and
/// what the refusal says. `MARKER` stands for a file that a program run would create.
const PG_PROBES: &[(&str, &str)] = &[
    ("DELETE FROM orders", "got DELETE"),
    ("UPDATE products SET price = 0", "got UPDATE"),
    ("INSERT INTO customers (id) VALUES (999)", "got INSERT"),
    ("SELECT 1; DELETE FROM orders", "got 2 statements"),
    ("SET transaction_read_only = off", "got SET"),
    ("SET TRANSACTION READ WRITE", "got SET"),
    ("COMMIT; DELETE FROM orders", "got 2 statements"),
    ("COMMIT", "got COMMIT"),
    (
        "DO $$BEGIN DELETE FROM orders; END$$",
        "only a single SELECT/WITH query",
    ),
    ("PREPARE p AS DELETE FROM orders", "got PREPARE"),
    ("EXECUTE p", "got EXECUTE"),
    ("COPY (SELECT 1) TO PROGRAM 'touch MARKER'", "got COPY"),
    ("CREATE TABLE copy (x int)", "got CREATE"),
    ("ALTER TABLE orders ADD COLUMN x int", "got ALTER"),
    ("DROP TABLE order_items", "got DROP"),
    ("GRANT ALL ON orders TO PUBLIC", "got GRANT"),
    ("SELECT * INTO copy FROM orders", "got SELECT INTO"),
    ("SELECT * FROM orders FOR UPDATE", "row-locking"),
    (
        "WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d",
        "got DELETE",
    ),
    ("SELECT nextval('tickets')", "`nextval`"),
    ("SELECT setval('tickets', 100)", "`setval`"),
    ("SELECT bump()", "`bump`: it is volatile"),
    ("SELECT pg_sleep(120)", "`pg_sleep`: it sleeps"),
    (
        "SELECT set_config('transaction_read_only', 'off', false)",
        "`set_config`",
    ),
    (
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()",
        "`pg_terminate_backend`: it administers the server",
    ),
    (
        "SELECT count(*) FROM pg_stat_activity WHERE pg_cancel_backend(pid)",
        "`pg_cancel_backend`",
    ),
    (
        "SELECT pg_read_file('/etc/passwd')",
        "`pg_read_file`: it reads or lists files",
    ),
    (
        "SELECT PG_CATALOG.PG_READ_FILE('/etc/passwd')",
        "`pg_read_file`",
    ),
    (
        "WITH t AS (SELECT pg_read_binary_file('/etc/passwd') AS f) SELECT length(f) FROM t",
        "`pg_read_binary_file`",
    ),
    ("SELECT * FROM pg_ls_dir('.')", "`pg_ls_dir`"),
    (
        "SELECT lo_import('/etc/passwd')",
        "`lo_import`: it reads or writes large objects",
    ),
    (
        "SELECT id FROM orders ORDER BY lo_export(1, 'MARKER')",
        "`lo_export`",
    ),
    ("SELECT CAST(pg_reload_conf() AS text)", "`pg_reload_conf`"),
    (
        "SELECT pg_advisory_lock(1)",
        "`pg_advisory_lock`: it takes advisory locks",
    ),
    ("SELECT pg_notify('channel', 'message')", "`pg_notify`"),
    (
        "SELECT query_to_xml('SELECT pg_read_file(''/etc/passwd'')', true, false, '')",
        "`query_to_xml`: it runs SQL given as a string",
    ),
    (
        "SELECT txid_current()",
        "`txid_current`: it assigns a transaction ID",
    ),
    ("SELECT pg_current_xact_id()", "`pg_current_xact_id`"),
];

/// What must be unchanged after the probes: rows, the sequence, large objects, advisory
/// locks and the audit table a side-effecting function writes.
async fn pg_state(pg: &PgDb) -> Value {
    let client = pg_client(&pg.config).await;
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM pg_largeobject_metadata), \
                    (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'), \
                    (SELECT count(*) FROM audit), \
                    (SELECT last_value FROM tickets)",
            &[],
        )
        .await
        .unwrap();
    json!([
        pg.fingerprint().await,
        row.get::<_, i64>(0),
        row.get::<_, i64>(1),
        row.get::<_, i64>(2),
        row.get::<_, i64>(3)
    ])
}

/// Every probe refused, through both tools and both eras, with nothing changed: not the
/// data, not the sequence, no large object, no program run, no backend terminated.
async fn probe(pg: &PgDb, db: Database, marker: &Path) {
    // Backends of the test's own that a terminated backend would show up in.
    let mut bystanders = Vec::new();
    for _ in 0..2 {
        let client = pg_client(&pg.config).await;
        let pid: i32 = client
            .query_one("SELECT pg_backend_pid()", &[])
            .await
            .unwrap()
            .get(0);
        bystanders.push((client, pid));
    }
    let pids: Vec<i32> = bystanders.iter().map(|(_, pid)| *pid).collect();
    let alive = |pids: Vec<i32>| async move {
        let client = pg_client(&pg.config).await;
        let row = client
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)",
                &[&pids],
            )
            .await
            .unwrap();
        row.get::<_, i64>(0)
    };
    assert_eq!(alive(pids.clone()).await, 2);
    let before = pg_state(pg).await;
    let server = sql_explorer::server(db, 100).await.unwrap();
    let marker = marker.display().to_string();
    for options in eras() {
        let client = connect(&server, options).await;
        for (sql, says) in PG_PROBES {
            let sql = sql.replace("MARKER", &marker);
            for tool in ["query", "explain"] {
                let e = refused(&client, tool, json!({"sql": sql})).await;
                assert!(e.contains(says), "{tool} {sql}: {e}");
                assert!(!e.contains("  "), "{e}");
                assert!(
                    e.starts_with(ONLY) || e.starts_with("refused the function `"),
                    "{tool} {sql}: {e}"
                );
            }
        }
        // Still a useful explorer: reads, harmless volatile functions, the catalog.
        let r = rows(
            &client,
            "SELECT count(*), random() < 2, now() IS NOT NULL FROM orders",
            json!([]),
        )
        .await;
        assert_eq!(r["rows"], json!([[250, true, true]]));
    }
    assert_eq!(pg_state(pg).await, before, "nothing changed");
    assert_eq!(alive(pids).await, 2, "no backend was terminated");
    for (client, pid) in &bystanders {
        let row = client
            .query_one("SELECT pg_backend_pid()", &[])
            .await
            .unwrap();
        assert_eq!(row.get::<_, i32>(0), *pid);
    }
    assert!(!Path::new(&marker).exists(), "no program ran");
}

/// Sets up the side-effecting function the probes call.
async fn pg_bump(pg: &PgDb) {
    pg_client(&pg.config)
        .await
        .batch_execute(
            "CREATE TABLE audit (n int); \
             CREATE FUNCTION bump() RETURNS int LANGUAGE sql VOLATILE \
             AS 'INSERT INTO audit VALUES (1) RETURNING n'",
        )
        .await
        .unwrap();
}

#[tokio::test]
#[ignore = "needs PostgreSQL: eval \"$(scripts/postgres.sh start)\""]
async fn postgres_refuses_a_privileged_role_unless_allowed() {
    let url = pg_url();
    let pg = PgDb::new(&url, "privileged").await;
    // The superuser of the test cluster.
    let e = sql_explorer::open_postgres(postgres_at(pg.config.clone()), false)
        .await
        .unwrap_err();
    for says in [
        "refusing to serve PostgreSQL as a privileged role",
        "`postgres` is a superuser",
        "`postgres` is a member of pg_read_server_files",
        "`postgres` may write",
        "CREATE ROLE explorer LOGIN",
        &format!("GRANT CONNECT ON DATABASE \"{}\" TO explorer;", pg.name),
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO explorer;",
        "--allow-privileged-role",
    ] {
        assert!(e.0.contains(says), "{says}: {e}");
    }
    // The role the message describes may only read: it is served.
    let sql =
        e.0.lines()
            .filter(|l| l.starts_with("  ") && l.trim_end().ends_with(';'));
    let sql: String = sql.map(|l| format!("{}\n", l.trim())).collect();
    assert_eq!(sql.lines().count(), 5, "{e}");
    let reader = PgRole::new(&pg, "reader", &sql).await;
    let db = sql_explorer::open_postgres(postgres_at(reader.config(&pg)), false)
        .await
        .unwrap();
    let server = sql_explorer::server(db, 100).await.unwrap();
    let client = connect(&server, ClientOptions::modern()).await;
    let r = rows(&client, "SELECT count(*) FROM orders", json!([])).await;
    assert_eq!(r["rows"], json!([[250]]));

    // Less than a superuser is privileged too: one predefined role, or one writable table.
    let signaller = PgRole::new(
        &pg,
        "signal",
        &format!("{sql}GRANT pg_signal_backend TO explorer;"),
    )
    .await;
    let writer = PgRole::new(
        &pg,
        "writer",
        &format!("{sql}GRANT INSERT ON orders TO explorer;"),
    )
    .await;
    let sequence = PgRole::new(
        &pg,
        "sequence",
        &format!("{sql}GRANT USAGE ON tickets TO explorer;"),
    )
    .await;
    for (role, says) in [
        (&signaller, "is a member of pg_signal_backend".to_owned()),
        (&writer, "may write 1 relation(s): public.orders".to_owned()),
        (
            &sequence,
            "may write 1 relation(s): public.tickets".to_owned(),
        ),
    ] {
        let e = sql_explorer::open_postgres(postgres_at(role.config(&pg)), false)
            .await
            .unwrap_err();
        assert!(e.0.contains(&says), "{says}: {e}");
        assert!(!e.0.contains("superuser"), "{e}");
        sql_explorer::open_postgres(postgres_at(role.config(&pg)), true)
            .await
            .unwrap();
    }
    // The command line goes through the same check.
    let mut a = args(Source::Postgres(url.clone()), 100, Duration::from_secs(5));
    let e = sql_explorer::open(&a).await.unwrap_err();
    assert!(e.0.contains("--allow-privileged-role"), "{e}");
    a.allow_privileged_role = true;
    sql_explorer::open(&a).await.unwrap();
    pg.drop().await;
    for role in [reader, signaller, writer, sequence] {
        role.drop().await;
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL: eval \"$(scripts/postgres.sh start)\""]
async fn postgres_hostile_probes_are_refused_for_a_read_only_role_and_a_superuser() {
    let url = pg_url();
    let pg = PgDb::new(&url, "probes").await;
    pg_bump(&pg).await;
    let scratch = Scratch::new("pg-probes");
    let marker = scratch.0.join("program-ran");
    let reader = PgRole::new(
        &pg,
        "reader",
        "CREATE ROLE explorer LOGIN; GRANT USAGE ON SCHEMA public TO explorer; \
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO explorer; \
         GRANT EXECUTE ON FUNCTION bump() TO explorer;",
    )
    .await;
    let db = sql_explorer::open_postgres(postgres_at(reader.config(&pg)), false)
        .await
        .unwrap();
    probe(&pg, db, &marker).await;
    // The superuser, served because it was explicitly allowed.
    let db = sql_explorer::open_postgres(postgres_at(pg.config.clone()), true)
        .await
        .unwrap();
    probe(&pg, db, &marker).await;
    pg.drop().await;
    reader.drop().await;
}

/// The cluster's URL and the CA and unrelated CA of `scripts/postgres.sh`.
fn pg_tls() -> (String, String, String) {
    (
        pg_url(),
        pg_env("SQL_EXPLORER_PG_CA"),
        pg_env("SQL_EXPLORER_PG_OTHER_CA"),
    )
}

/// Whether a connection made by the explorer from `url` is encrypted, or why none was made.
async fn encrypted(url: &str) -> Result<bool, String> {
    let db = sql_explorer::postgres::Postgres::new(url, Duration::from_secs(5)).map_err(|e| e.0)?;
    let client = db.connect().await.map_err(|e| e.0)?;
    let row = client
        .query_one(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .await
        .unwrap();
    Ok(row.get(0))
}

#[tokio::test]
#[ignore = "needs PostgreSQL: eval \"$(scripts/postgres.sh start)\""]
async fn postgres_tls_follows_sslmode_and_checks_the_certificate() {
    let (url, ca, other_ca) = pg_tls();
    let config: tokio_postgres::Config = url.parse().unwrap();
    let port = config.get_ports()[0];
    // The same server under a name its certificate does not carry.
    let wrong_host =
        format!("postgres://postgres@wrong.invalid:{port}/postgres?hostaddr=127.0.0.1");
    let enc = |s: &str| {
        s.replace('%', "%25")
            .replace('&', "%26")
            .replace(' ', "%20")
    };
    let (ca, other_ca) = (enc(&ca), enc(&other_ca));
    for (url, expected) in [
        (format!("{url}?sslmode=disable"), Ok(false)),
        (url.clone(), Ok(true)),
        (format!("{url}?sslmode=prefer"), Ok(true)),
        (format!("{url}?sslmode=require"), Ok(true)),
        (format!("{wrong_host}&sslmode=require"), Ok(true)),
        (
            format!("{url}?sslmode=verify-ca&sslrootcert={ca}"),
            Ok(true),
        ),
        (
            format!("{url}?sslmode=verify-full&sslrootcert={ca}"),
            Ok(true),
        ),
        (
            format!(
                "host=127.0.0.1 port={port} user=postgres dbname=postgres sslmode=verify-full sslrootcert={ca}"
            ),
            Ok(true),
        ),
        // verify-ca does not look at the name; verify-full does.
        (
            format!("{wrong_host}&sslmode=verify-ca&sslrootcert={ca}"),
            Ok(true),
        ),
        (
            format!("{wrong_host}&sslmode=verify-full&sslrootcert={ca}"),
            Err("certificate not valid for name \"wrong.invalid\""),
        ),
        // A CA that did not sign the server's certificate, or the platform's roots.
        (
            format!("{url}?sslmode=verify-ca&sslrootcert={other_ca}"),
            Err("UnknownIssuer"),
        ),
        (
            format!("{url}?sslmode=verify-full&sslrootcert={other_ca}"),
            Err("UnknownIssuer"),
        ),
        (
            format!("{url}?sslmode=require&sslrootcert={other_ca}"),
            Err("UnknownIssuer"),
        ),
        (format!("{url}?sslmode=verify-full"), Err("UnknownIssuer")),
        (
            format!("{url}?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"),
            Err("sslrootcert /nonexistent/ca.pem"),
        ),
        (
            format!("{url}?sslmode=allow"),
            Err("sslmode `allow` is not supported"),
        ),
    ] {
        match (encrypted(&url).await, expected) {
            (Ok(got), Ok(want)) => assert_eq!(got, want, "{url}"),
            (Err(e), Err(says)) => assert!(e.contains(says), "{url}: {e}"),
            (got, want) => panic!("{url}: got {got:?}, expected {want:?}"),
        }
    }
    // The whole server over verify-full.
    let mut a = args(
        Source::Postgres(format!("{url}?sslmode=verify-full&sslrootcert={ca}")),
        100,
        Duration::from_secs(5),
    );
    a.allow_privileged_role = true;
    let db = sql_explorer::open(&a).await.unwrap();
    let server = sql_explorer::server(db, 100).await.unwrap();
    let client = connect(&server, ClientOptions::modern()).await;
    let r = rows(
        &client,
        "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
        json!([]),
    )
    .await;
    assert_eq!(r["rows"], json!([[true]]));
}
