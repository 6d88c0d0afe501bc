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
//! Resources: `schema://tables` and `schema://tables/{table}` (JSON). Prompt:
//! `analyze-table`. Three walls stand between a model and side effects: the statement check
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

// The HTTP mode prints how to connect on stdout, which then carries no protocol; a
// command-line usage message belongs on stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use mcp_server::prelude::*;
use mcp_server::types::{EmbeddedResource, TextResourceContents};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[path = "sql-explorer/check.rs"]
pub mod check;
#[path = "sql-explorer/postgres.rs"]
pub mod postgres;
#[path = "sql-explorer/sample.rs"]
pub mod sample;
#[path = "sql-explorer/sqlite.rs"]
pub mod sqlite;
#[path = "sql-explorer/tls.rs"]
pub mod tls;

use check::Policy;
use postgres::Postgres;
use sqlite::Sqlite;

/// Rows per query unless `--max-rows` says otherwise.
pub const DEFAULT_MAX_ROWS: usize = 100;
/// `--max-rows` may not exceed this.
const MAX_ROWS_LIMIT: usize = 10_000;
/// The statement timeout unless `--statement-timeout-ms` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// The SQLite file used when no `--database*` option is given.
pub const DEFAULT_SQLITE_FILE: &str = "sql-explorer.sqlite";

/// A database failure, worded for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError(pub String);

impl DbError {
    fn parameter_count(expected: usize, given: usize) -> DbError {
        DbError(format!(
            "the query has {expected} parameter placeholder(s) but {given} parameter(s) were given"
        ))
    }

    fn timeout(timeout: Duration) -> DbError {
        DbError(format!(
            "the statement was cancelled after the statement timeout of {} ms",
            timeout.as_millis()
        ))
    }
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<DbError> for ResourceError {
    fn from(e: DbError) -> Self {
        ResourceError::Internal(e.0)
    }
}

/// One bound parameter: a JSON scalar.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Scalar {
    /// SQL NULL.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// Any other number.
    Float(f64),
    /// A string.
    Text(String),
}

impl Scalar {
    fn to_json(&self) -> Value {
        match self {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => (*b).into(),
            Scalar::Int(n) => (*n).into(),
            Scalar::Float(f) => (*f).into(),
            Scalar::Text(s) => s.as_str().into(),
        }
    }
}

/// What a query returned.
#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryResult {
    /// The column names, in order.
    pub columns: Vec<String>,
    /// The rows, each an array of values in column order.
    pub rows: Vec<Vec<Value>>,
    /// How many rows are in `rows`.
    pub row_count: usize,
    /// Whether the query had more rows than were returned.
    pub truncated: bool,
}

impl QueryResult {
    fn new(columns: Vec<String>, rows: Vec<Vec<Value>>, truncated: bool) -> QueryResult {
        QueryResult {
            columns,
            row_count: rows.len(),
            rows,
            truncated,
        }
    }
}

/// A table or view in the index.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TableSummary {
    /// The name to use in `schema://tables/{table}` (`schema.table` outside PostgreSQL's
    /// `public`).
    pub name: String,
    /// `table`, `view`, …
    pub kind: String,
    /// How many columns it has.
    pub columns: usize,
    /// How many rows it has.
    pub rows: i64,
}

/// The tables and views.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TableIndex {
    /// Sorted by name.
    pub tables: Vec<TableSummary>,
}

/// A column of a table.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its declared type.
    #[serde(rename = "type")]
    pub data_type: String,
    /// Whether it may hold NULL.
    pub nullable: bool,
    /// Its default expression, if any.
    pub default: Option<String>,
}

/// A foreign key.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ForeignKey {
    /// The referencing columns.
    pub columns: Vec<String>,
    /// The referenced table.
    pub references_table: String,
    /// The referenced columns.
    pub references_columns: Vec<String>,
}

/// An index.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Index {
    /// Its name.
    pub name: String,
    /// Whether it enforces uniqueness.
    pub unique: bool,
    /// The indexed columns (or expressions), in order.
    pub columns: Vec<String>,
}

/// One table's structure.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TableInfo {
    /// Its name.
    pub name: String,
    /// `table`, `view`, …
    pub kind: String,
    /// How many rows it has.
    pub rows: i64,
    /// Its columns, in order.
    pub columns: Vec<Column>,
    /// The primary key's columns (empty if none).
    pub primary_key: Vec<String>,
    /// Its foreign keys.
    pub foreign_keys: Vec<ForeignKey>,
    /// Its indexes.
    pub indexes: Vec<Index>,
}

/// `name` quoted as an SQL identifier (both dialects): `a"b` → `"a""b"`.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Bytes as PostgreSQL writes `bytea` in JSON: `\x` and lowercase hex.
fn hex_bytes(bytes: &[u8]) -> String {
    let mut s = String::from("\\x");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The database behind the server. Its methods run SQL without the statement check: the
/// server checks first, and the tests call these directly to show what the connection
/// alone refuses.
#[derive(Debug, Clone)]
pub enum Database {
    /// A SQLite file.
    Sqlite(Sqlite),
    /// A PostgreSQL server.
    Postgres(Postgres),
}

impl Database {
    /// The statement check's policy: for PostgreSQL, with the functions' volatility read
    /// from `pg_proc` now.
    ///
    /// # Errors
    ///
    /// Reading the catalog failed.
    pub async fn policy(&self) -> Result<Policy, DbError> {
        match self {
            Database::Sqlite(_) => Ok(Policy::sqlite()),
            Database::Postgres(db) => Ok(Policy::postgres(db.functions().await?)),
        }
    }

    /// Runs `sql` with `params`, returning at most `max_rows` rows.
    ///
    /// # Errors
    ///
    /// The database refused or failed the statement.
    pub async fn query(
        &self,
        sql: &str,
        params: &[Scalar],
        max_rows: usize,
    ) -> Result<QueryResult, DbError> {
        match self {
            Database::Sqlite(db) => db.query(sql, params, max_rows).await,
            Database::Postgres(db) => db.query(sql, params, max_rows).await,
        }
    }

    /// The plan of `sql`.
    ///
    /// # Errors
    ///
    /// The database refused the statement.
    pub async fn explain(&self, sql: &str) -> Result<String, DbError> {
        match self {
            Database::Sqlite(db) => db.explain(sql).await,
            Database::Postgres(db) => db.explain(sql).await,
        }
    }

    /// The tables and views with their sizes.
    ///
    /// # Errors
    ///
    /// Reading the catalog failed.
    pub async fn tables(&self) -> Result<Vec<TableSummary>, DbError> {
        match self {
            Database::Sqlite(db) => db.tables().await,
            Database::Postgres(db) => db.tables().await,
        }
    }

    /// The names of the tables and views.
    ///
    /// # Errors
    ///
    /// Reading the catalog failed.
    pub async fn table_names(&self) -> Result<Vec<String>, DbError> {
        match self {
            Database::Sqlite(db) => db.table_names().await,
            Database::Postgres(db) => db.table_names().await,
        }
    }

    /// One table's structure, `None` if there is no such table.
    ///
    /// # Errors
    ///
    /// Reading the catalog failed.
    pub async fn table(&self, name: &str) -> Result<Option<TableInfo>, DbError> {
        match self {
            Database::Sqlite(db) => db.table(name).await,
            Database::Postgres(db) => db.table(name).await,
        }
    }
}

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
    let policy = db.policy().await.map_err(|e| e.0)?;
    Server::new(SqlExplorer {
        db,
        policy,
        max_rows,
    })
    .map_err(|e| e.to_string())
}

fn query_output_schema() -> Value {
    Value::Object(mcp_server::schema::output_schema_for::<QueryResult>())
}

#[mcp_server::server(
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
        output_schema = query_output_schema()
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

/// Where the data is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A SQLite file (created with the sample data if missing).
    Sqlite(PathBuf),
    /// A PostgreSQL connection string.
    Postgres(String),
}

/// The command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    /// `--database PATH` or `--database-url URL`.
    pub source: Source,
    /// `--http ADDR`; stdio without it.
    pub http: Option<String>,
    /// `--max-rows N`.
    pub max_rows: usize,
    /// `--statement-timeout-ms MS`.
    pub timeout: Duration,
    /// `--allow-privileged-role`: serve PostgreSQL even as a role that may do more than
    /// read.
    pub allow_privileged_role: bool,
}

const USAGE: &str = "usage: sql-explorer [--database PATH | --database-url postgres://...] \
                     [--http 127.0.0.1:PORT] [--max-rows N] [--statement-timeout-ms MS] \
                     [--allow-privileged-role]";

/// Parses the command line (without the program name).
///
/// # Errors
///
/// What is wrong, then the usage line.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let usage = |why: &str| format!("sql-explorer: {why}\n{USAGE}");
    let mut source = None;
    let mut http = None;
    let mut max_rows = DEFAULT_MAX_ROWS;
    let mut timeout = DEFAULT_TIMEOUT;
    let mut allow_privileged_role = false;
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| usage(&format!("{flag} needs a value")))
        };
        match flag.as_str() {
            "--database" | "--database-url" if source.is_some() => {
                return Err(usage("give one of --database and --database-url"));
            }
            "--database" => source = Some(Source::Sqlite(PathBuf::from(value()?))),
            "--database-url" => source = Some(Source::Postgres(value()?)),
            "--http" => http = Some(value()?),
            "--max-rows" => {
                max_rows = value()?
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_ROWS_LIMIT).contains(n))
                    .ok_or_else(|| usage(&format!("--max-rows takes 1 to {MAX_ROWS_LIMIT}")))?;
            }
            "--statement-timeout-ms" => {
                let ms: u64 = value()?
                    .parse()
                    .ok()
                    .filter(|ms| *ms > 0)
                    .ok_or_else(|| usage("--statement-timeout-ms takes a positive integer"))?;
                timeout = Duration::from_millis(ms);
            }
            "--allow-privileged-role" => allow_privileged_role = true,
            other => return Err(usage(&format!("unknown argument `{other}`"))),
        }
    }
    Ok(Args {
        source: source.unwrap_or_else(|| Source::Sqlite(PathBuf::from(DEFAULT_SQLITE_FILE))),
        http,
        max_rows,
        timeout,
        allow_privileged_role,
    })
}

/// Opens the database `args` names (creating the SQLite sample if needed).
///
/// # Errors
///
/// The database cannot be opened or reached.
pub async fn open(args: &Args) -> Result<Database, DbError> {
    match &args.source {
        Source::Sqlite(path) => {
            let (db, created) = Sqlite::open_or_create(path.clone(), args.timeout).await?;
            if created {
                tracing::info!(path = %path.display(), "created the sample database");
            }
            Ok(Database::Sqlite(db))
        }
        Source::Postgres(url) => {
            let db = Postgres::new(url, args.timeout)?;
            open_postgres(db, args.allow_privileged_role).await
        }
    }
}

/// Checks the role `db` connects as: a role that may do more than read is refused unless
/// `allow_privileged_role`, and then served with a warning (the function policy, the
/// read-only transaction and the timeout still hold).
///
/// # Errors
///
/// The server cannot be reached, or the role is privileged and that is not allowed: the
/// message says why and how to create a role that may only read.
pub async fn open_postgres(db: Postgres, allow_privileged_role: bool) -> Result<Database, DbError> {
    let privileges = db.privileges().await?;
    let reasons = privileges.reasons();
    if reasons.is_empty() {
        return Ok(Database::Postgres(db));
    }
    if allow_privileged_role {
        tracing::warn!(
            reasons = %reasons.join("; "),
            "serving a privileged role (--allow-privileged-role): the function policy, the \
             read-only transaction and the statement timeout still hold, but connect as a role \
             that may only read"
        );
        return Ok(Database::Postgres(db));
    }
    Err(DbError(format!(
        "refusing to serve PostgreSQL as a privileged role:\n  - {}\n\
         A model reading this database may follow instructions hidden in its data; as this role \
         a read-only transaction does not stop it from reading server files, importing them as \
         large objects, signalling other backends or changing what it can write. Connect as a \
         role that may only read; as an administrator, run:\n\n{}\n\n\
         then connect as explorer (postgres://explorer:…@host/{}). To serve this role anyway, \
         pass --allow-privileged-role.",
        reasons.join("\n  - "),
        indent(&privileges.read_only_role_sql()),
        privileges.database
    )))
}

/// `url` with its password, if any, replaced by `PASSWORD`.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            format!("{scheme}://{user}:PASSWORD@{host}{path}")
        }
        _ => url.to_owned(),
    }
}

/// What to tell a user about connecting clients to `url`.
fn connect_help(url: &str, args: &Args) -> String {
    let program = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .map_or_else(|| "sql-explorer".to_owned(), |p| p.display().to_string());
    let mut stdio_args = match &args.source {
        Source::Sqlite(path) => vec![
            "--database".to_owned(),
            std::path::absolute(path)
                .unwrap_or_else(|_| path.clone())
                .display()
                .to_string(),
        ],
        Source::Postgres(db_url) => vec!["--database-url".to_owned(), without_password(db_url)],
    };
    if args.max_rows != DEFAULT_MAX_ROWS {
        stdio_args.extend(["--max-rows".to_owned(), args.max_rows.to_string()]);
    }
    let desktop = serde_json::json!({
        "mcpServers": {"sql-explorer": {"command": program, "args": stdio_args}}
    });
    let vscode = serde_json::json!({"servers": {"sql-explorer": {"type": "http", "url": url}}});
    format!(
        "sql-explorer: MCP over Streamable HTTP at {url}\n\
         \n\
         Claude Code:\n  claude mcp add --transport http sql-explorer {url}\n\
         \n\
         Claude Desktop starts its servers over stdio; in claude_desktop_config.json:\n{}\n\
         (clients that take a URL use {url})\n\
         \n\
         VS Code, .vscode/mcp.json:\n  {}\n\
         \n\
         MCP Inspector:\n  npx @modelcontextprotocol/inspector {url}\n",
        indent(&serde_json::to_string_pretty(&desktop).unwrap_or_default()),
        vscode
    )
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}\n"))
        .collect::<String>()
        .trim_end()
        .to_owned()
}

/// Serves `server` at `http://ADDR/mcp` until SIGINT or SIGTERM, after printing how to connect.
async fn serve_http(server: &Server, addr: &str, args: &Args) -> std::io::Result<()> {
    // Bound here rather than by `Server::serve_http` so that the printed URL carries the
    // real port, `--http 127.0.0.1:0` included.
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let url = format!("http://{local}/mcp");
    println!("{}", connect_help(&url, args));
    server
        .serve_http_on(
            listener,
            mcp_server::http::HttpOptions::default(),
            mcp_server::http::shutdown_signal(),
        )
        .await
}

#[tokio::main]
async fn main() -> ExitCode {
    // stdout carries the protocol over stdio, so logs go to stderr (`RUST_LOG` filters them).
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .init();
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(usage) => {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    };
    let db = match open(&args).await {
        Ok(db) => db,
        Err(e) => {
            eprintln!("sql-explorer: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Database::Sqlite(sqlite) = &db {
        tracing::info!(database = %sqlite.path().display(), "sql-explorer serving SQLite, read-only");
    } else {
        tracing::info!("sql-explorer serving PostgreSQL, read-only");
    }
    let server = match server(db, args.max_rows).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("sql-explorer: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = match &args.http {
        Some(addr) => serve_http(&server, addr, &args).await,
        None => server.serve_stdio().await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sql-explorer: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_printed() {
        assert_eq!(
            without_password("postgres://bob:s3cret@db:5432/shop?sslmode=disable"),
            "postgres://bob:PASSWORD@db:5432/shop?sslmode=disable"
        );
        assert_eq!(
            without_password("postgres://bob@db/shop"),
            "postgres://bob@db/shop"
        );
        assert_eq!(without_password("host=db user=bob"), "host=db user=bob");
    }

    #[test]
    fn names_are_quoted_as_identifiers() {
        assert_eq!(quote_ident("orders"), "\"orders\"");
        assert_eq!(
            quote_ident("a\"; DROP TABLE x; --"),
            "\"a\"\"; DROP TABLE x; --\""
        );
    }
}
