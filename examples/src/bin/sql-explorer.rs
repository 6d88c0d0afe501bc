//! `sql-explorer`: a read-only SQL database as MCP tools, resources and a prompt.
//!
//! ```sh
//! cargo run -p mcp-examples --bin sql-explorer                          # stdio, ./sql-explorer.sqlite
//! cargo run -p mcp-examples --bin sql-explorer -- --database shop.db    # another SQLite file
//! cargo run -p mcp-examples --bin sql-explorer -- --http 127.0.0.1:8080 # Streamable HTTP
//! cargo run -p mcp-examples --bin sql-explorer -- --database-url postgres://explorer@localhost/shop
//! ```
//!
//! Options: `--database PATH` (SQLite; default `sql-explorer.sqlite` in the current
//! directory) or `--database-url URL` (PostgreSQL); `--http ADDR` serves
//! `http://ADDR/mcp` and prints how to connect clients to it, otherwise stdio;
//! `--max-rows N` (default 100) caps the rows a query returns; `--statement-timeout-ms MS`
//! (default 5000) cancels longer statements; `--allow-privileged-role` serves PostgreSQL as a
//! role that may do more than read (refused by default).
//!
//! A SQLite file that does not exist is created on first run with a sample shop
//! (customers, products, orders, order_items), then opened read-only like any other.
//!
//! Tools: `query` (structured rows, with bound parameters), `explain` and `list_tables`.
//! App (`io.modelcontextprotocol/ui`): `query` shows its result in `ui://sql-explorer/query.html`
//! (examples/apps/sql-explorer), a sortable table and a chart where the user edits the SQL
//! and runs it again through the host; clients without apps get the same text as before.
//! Resources: `schema://tables` and `schema://tables/{table}` (JSON). Prompt:
//! `analyze-table`. Skill (`io.modelcontextprotocol/skills`): `explore-database`, how to
//! explore a database with these tools. Three walls stand between a model and side effects: the statement check
//! (one `SELECT`/`WITH` query, parsed, with a function policy over every call in its tree:
//! file, large-object, server-admin, lock, sleep and similar functions refused by name, and
//! in PostgreSQL every volatile function but a few harmless ones); a read-only connection
//! (SQLite opened read-only with `query_only`; PostgreSQL `READ ONLY` transactions); and the
//! statement timeout with the row cap.
//!
//! PostgreSQL: the server refuses to start as a privileged role (a superuser, a member of
//! `pg_read_server_files`, `pg_write_server_files`, `pg_execute_server_program`,
//! `pg_signal_backend` or `pg_write_all_data`, or a role that may write a table or a
//! sequence) and says how to create one that may only read. TLS follows `sslmode`
//! (`disable`, `prefer` — the default —, `require`, `verify-ca`, `verify-full`) and
//! `sslrootcert` in the URL, as libpq does, with rustls and the platform's roots. A password
//! in `--database-url` is visible to other local users in the process list.

use std::time::Duration;

use ferromcp::apps::{Apps, UiResource};
use ferromcp::prelude::*;
use ferromcp::skills::{Skill, Skills, SkillsError};
use ferromcp::types::{EmbeddedResource, TextResourceContents};
use serde_json::Value;

#[path = "sql-explorer/check.rs"]
pub mod check;
#[path = "sql-explorer/cli.rs"]
mod cli;
#[path = "sql-explorer/database.rs"]
mod database;
#[path = "../../apps/page.rs"]
mod page;
#[path = "sql-explorer/postgres.rs"]
pub mod postgres;
#[path = "sql-explorer/sample.rs"]
pub mod sample;
#[path = "sql-explorer/sqlite.rs"]
pub mod sqlite;
#[path = "sql-explorer/tls.rs"]
pub mod tls;

use check::Policy;
pub use cli::{Args, Source, open, open_postgres};
use database::hex_bytes;
pub use database::{
    Column, Database, DbError, ForeignKey, Index, QueryResult, Scalar, TableIndex, TableInfo,
    TableSummary, quote_ident,
};
use ferromcp::run::Runner;

/// Rows per query unless `--max-rows` says otherwise.
pub const DEFAULT_MAX_ROWS: usize = 100;
/// `--max-rows` may not exceed this.
const MAX_ROWS_LIMIT: usize = 10_000;
/// The statement timeout unless `--statement-timeout-ms` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// The SQLite file used when no `--database*` option is given.
pub const DEFAULT_SQLITE_FILE: &str = "sql-explorer.sqlite";

/// The server: a database, the statement check's policy and the row cap.
pub struct SqlExplorer {
    db: Database,
    policy: Policy,
    max_rows: usize,
}

/// A server for `db` whose queries return at most `max_rows` rows, with the function
/// policy read from the database's catalog now.
///
/// # Errors
///
/// Reading the catalog failed, or registration failed (a bug in this example).
pub async fn server(db: Database, max_rows: usize) -> Result<Server, String> {
    let handler = handler(db, max_rows).await.map_err(|e| e.0)?;
    let skills = skills().map_err(|e| e.to_string())?;
    Server::builder(handler)
        .extension(skills)
        .map_err(|e| e.to_string())?
        .extension(apps()?)
        .map_err(|e| e.to_string())?
        .build()
        .map_err(|e| e.to_string())
}

/// The skill the server ships (`io.modelcontextprotocol/skills`): how to explore a database
/// with its tools, compiled into the binary from `examples/skills/sql-explorer`.
///
/// # Errors
///
/// The skill's files break a rule (they are checked by the tests).
pub fn skills() -> Result<Skills, SkillsError> {
    let explore = Skill::new(
        "explore-database",
        include_str!("../../skills/sql-explorer/explore-database/SKILL.md"),
    )?
    .file(
        "references/QUERIES.md",
        include_str!("../../skills/sql-explorer/explore-database/references/QUERIES.md"),
    )?;
    Skills::new([explore])
}

/// The URI of the app the `query` tool shows its result in.
pub const APP_URI: &str = "ui://sql-explorer/query.html";

/// The app (`io.modelcontextprotocol/ui`): `ui://sql-explorer/query.html`, the page in
/// `examples/apps/sql-explorer/query.html` with the official `App` class inlined. It reaches
/// no origin, so its `_meta.ui` has no `csp` and the host's strictest policy applies.
///
/// # Errors
///
/// The page or the vendored bundle lost its slot or its exports (checked by the tests).
pub fn apps() -> Result<Apps, String> {
    let html = page::with_app_class(include_str!("../../apps/sql-explorer/query.html"))?;
    let query = UiResource::html(APP_URI, html)
        .name("query-explorer")
        .title("Query explorer")
        .description(
            "The result of `query` as a sortable table and a chart; edit the SQL and run it again.",
        )
        .prefers_border(true);
    Ok(Apps::new().resource(query))
}

/// The server's handler for `db`, with the function policy read from the catalog now.
///
/// # Errors
///
/// Reading the catalog failed.
pub async fn handler(db: Database, max_rows: usize) -> Result<SqlExplorer, DbError> {
    let policy = db.policy().await?;
    Ok(SqlExplorer {
        db,
        policy,
        max_rows,
    })
}

fn query_output_schema() -> Value {
    Value::Object(ferromcp::schema::output_schema_for::<QueryResult>())
}

#[ferromcp::server(
    name = "sql-explorer",
    version = "1.0.0",
    title = "SQL explorer",
    instructions = "A read-only SQL database. Read schema://tables (or call list_tables) and schema://tables/{table} to learn the schema, then use `query` with one SELECT or WITH query per call, binding values as params rather than writing them into the SQL. Nothing can be written."
)]
impl SqlExplorer {
    /// Runs one read-only SQL query (a single SELECT or WITH … SELECT) and returns its
    /// columns and rows. Bind values with placeholders (`?` or `?1` in SQLite, `$1` in
    /// PostgreSQL) and `params`. At most `max_rows` rows come back; `truncated` says whether
    /// there were more.
    ///
    /// # Arguments
    /// * `sql` - one SELECT or WITH query
    /// * `params` - values for the placeholders, in order: strings, numbers, booleans or null (for a PostgreSQL json/jsonb placeholder, a string is the JSON text)
    /// * `max_rows` - at most this many rows (default and ceiling: the server's --max-rows)
    #[tool(
        title = "Run a read-only SQL query",
        read_only,
        idempotent,
        open_world = false,
        output_schema = query_output_schema(),
        scopes = ["sql:query"],
        ui = "ui://sql-explorer/query.html"
    )]
    async fn query(
        &self,
        sql: String,
        params: Option<Vec<Scalar>>,
        max_rows: Option<usize>,
    ) -> Result<CallToolResult, String> {
        check::check(&sql, &self.policy)?;
        let cap = match max_rows {
            Some(0) => return Err("max_rows must be at least 1".to_owned()),
            Some(n) => n.min(self.max_rows),
            None => self.max_rows,
        };
        let result = self
            .db
            .query(&sql, &params.unwrap_or_default(), cap)
            .await
            .map_err(|e| e.0)?;
        let value = serde_json::to_value(&result).map_err(|e| e.to_string())?;
        let mut reply = CallToolResult::structured(value);
        if result.truncated {
            reply.content.push(ContentBlock::text(format!(
                "Truncated: only the first {cap} rows are shown; the query returned more. \
                 Narrow it (WHERE, LIMIT, aggregates){}.",
                if cap < self.max_rows {
                    format!(" or ask for up to {} rows with max_rows", self.max_rows)
                } else {
                    String::new()
                }
            )));
        }
        Ok(reply)
    }

    /// Shows how the database would run one read-only query, without running it (SQLite:
    /// EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN).
    ///
    /// # Arguments
    /// * `sql` - one SELECT or WITH query
    #[tool(
        title = "Explain a query plan",
        read_only,
        idempotent,
        open_world = false
    )]
    async fn explain(&self, sql: String) -> Result<String, String> {
        check::check(&sql, &self.policy)?;
        self.db.explain(&sql).await.map_err(|e| e.0)
    }

    /// Lists the tables and views with their column and row counts.
    #[tool(title = "List tables", read_only, idempotent, open_world = false)]
    async fn list_tables(&self) -> Result<Json<TableIndex>, DbError> {
        Ok(Json(TableIndex {
            tables: self.db.tables().await?,
        }))
    }

    /// The tables and views, with their column and row counts.
    #[resource(
        uri = "schema://tables",
        title = "Tables",
        mime_type = "application/json"
    )]
    async fn tables(&self) -> Result<Json<TableIndex>, DbError> {
        Ok(Json(TableIndex {
            tables: self.db.tables().await?,
        }))
    }

    /// One table: columns with types and nullability, primary key, foreign keys, indexes.
    #[resource(
        uri = "schema://tables/{table}",
        title = "Table schema",
        mime_type = "application/json"
    )]
    async fn table(&self, table: String) -> Result<Json<TableInfo>, ResourceError> {
        match self.db.table(&table).await? {
            Some(info) => Ok(Json(info)),
            None => Err(ResourceError::NotFound),
        }
    }

    #[completion(resource = "schema://tables/{table}", argument = "table")]
    async fn complete_table(&self, value: String) -> Result<Vec<String>, DbError> {
        self.table_names_starting(&value).await
    }

    /// Asks for a study of one table: its schema, then a few queries about its data.
    ///
    /// # Arguments
    /// * `table` - the table to analyze
    #[prompt(name = "analyze-table", title = "Analyze a table")]
    async fn analyze_table(&self, table: String) -> Result<Vec<PromptMessage>, PromptError> {
        let info = self
            .db
            .table(&table)
            .await
            .map_err(PromptError::internal)?
            .ok_or_else(|| {
                PromptError::invalid_argument(format!(
                    "no table named `{table}`; schema://tables lists them"
                ))
            })?;
        let uri = format!("schema://tables/{table}");
        let json = serde_json::to_string_pretty(&info).map_err(PromptError::internal)?;
        let mut schema = TextResourceContents::new(&uri, json);
        schema.mime_type = Some("application/json".to_owned());
        Ok(vec![
            PromptMessage::user(EmbeddedResource::new(schema)),
            PromptMessage::user(TextContent::new(format!(
                "Above is the schema of the table `{table}` (also at {uri}). Study it, then use \
                 the `query` tool to run a few read-only queries that show what the data holds: \
                 how many rows; NULLs and distinct values per column; the range of numeric and \
                 date columns; the most common values of low-cardinality columns; and, along \
                 its foreign keys, whether every reference has a match. Use `explain` before a \
                 query that may be slow, bind values with `params`, and keep each result \
                 small. Then summarize what the table is for, what its data looks like, and \
                 anything surprising (duplicates, orphans, outliers, suspicious NULLs)."
            ))),
        ])
    }

    #[completion(prompt = "analyze-table", argument = "table")]
    async fn complete_prompt_table(&self, value: String) -> Result<Vec<String>, DbError> {
        self.table_names_starting(&value).await
    }
}

impl SqlExplorer {
    async fn table_names_starting(&self, prefix: &str) -> Result<Vec<String>, DbError> {
        let mut names = self.db.table_names().await?;
        names.retain(|n| n.starts_with(prefix));
        Ok(names)
    }
}

fn main() {
    let args: Args = ferromcp::run::parse();
    Runner::new(args.common.clone())
        .stdio_args(args.stdio_args())
        .auth_config(|auth| {
            auth.scopes_supported(["sql:query"])
                .resource_name("SQL explorer")
        })
        .serve_with(async move |setup| {
            let db = open(&args).await?;
            let handler = handler(db, args.max_rows).await?;
            Ok(setup
                .builder(handler)?
                .extension(skills()?)?
                .extension(apps()?)?
                .build()?)
        })
}
