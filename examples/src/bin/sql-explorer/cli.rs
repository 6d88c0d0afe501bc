//! The command line and start-up: parsing the arguments, opening the database they name
//! (refusing a privileged PostgreSQL role), and serving HTTP after printing how to connect
//! clients.

use std::path::PathBuf;
use std::time::Duration;

use ferromcp::prelude::*;

use super::postgres::Postgres;
use super::sqlite::Sqlite;
use super::{
    DEFAULT_MAX_ROWS, DEFAULT_SQLITE_FILE, DEFAULT_TIMEOUT, Database, DbError, MAX_ROWS_LIMIT,
};

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
    /// `--metrics ADDR`: Prometheus text at `http://ADDR/metrics`.
    pub metrics: Option<String>,
    /// `--max-rows N`.
    pub max_rows: usize,
    /// `--statement-timeout-ms MS`.
    pub timeout: Duration,
    /// `--allow-privileged-role`: serve PostgreSQL even as a role that may do more than
    /// read.
    pub allow_privileged_role: bool,
    /// `--auth-issuer URL`: over HTTP, every request needs a token from this OAuth
    /// authorization server (and `query` the scope `sql:query`).
    pub auth_issuer: Option<String>,
    /// `--auth-audience URL`: the canonical URI tokens must be issued for (default: the
    /// server's own `http://ADDR/mcp`).
    pub auth_audience: Option<String>,
}

const USAGE: &str = "usage: sql-explorer [--database PATH | --database-url postgres://...] \
                     [--http 127.0.0.1:PORT] [--metrics 127.0.0.1:PORT] [--max-rows N] [--statement-timeout-ms MS] \
                     [--allow-privileged-role] [--auth-issuer URL [--auth-audience URL]]";

/// Parses the command line (without the program name).
///
/// # Errors
///
/// What is wrong, then the usage line.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let usage = |why: &str| format!("sql-explorer: {why}\n{USAGE}");
    let mut source = None;
    let mut http = None;
    let mut metrics = None;
    let mut max_rows = DEFAULT_MAX_ROWS;
    let mut timeout = DEFAULT_TIMEOUT;
    let mut allow_privileged_role = false;
    let (mut auth_issuer, mut auth_audience) = (None, None);
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
            "--metrics" => metrics = Some(value()?),
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
            "--auth-issuer" => auth_issuer = Some(value()?),
            "--auth-audience" => auth_audience = Some(value()?),
            other => return Err(usage(&format!("unknown argument `{other}`"))),
        }
    }
    if auth_issuer.is_some() && http.is_none() {
        return Err(usage(
            "--auth-issuer protects the HTTP endpoint: give --http too",
        ));
    }
    if auth_audience.is_some() && auth_issuer.is_none() {
        return Err(usage("--auth-audience needs --auth-issuer"));
    }
    Ok(Args {
        source: source.unwrap_or_else(|| Source::Sqlite(PathBuf::from(DEFAULT_SQLITE_FILE))),
        http,
        metrics,
        max_rows,
        timeout,
        allow_privileged_role,
        auth_issuer,
        auth_audience,
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
pub(super) async fn serve_http(server: &Server, addr: &str, args: &Args) -> std::io::Result<()> {
    // Bound here rather than by `Server::serve_http` so that the printed URL carries the
    // real port, `--http 127.0.0.1:0` included.
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let url = format!("http://{local}/mcp");
    let mut options = ferromcp::http::HttpOptions::default();
    if let Some(issuer) = &args.auth_issuer {
        options = options.auth(auth_layer(
            issuer,
            args.auth_audience.as_deref().unwrap_or(&url),
        )?);
    }
    println!("{}", connect_help(&url, args));
    server
        .serve_http_on(listener).options(options)
        .await
}

/// Bearer tokens from `issuer`, issued for `audience`, checked against the issuer's keys;
/// `query` needs `sql:query` (the `#[tool]` says so).
///
/// # Errors
///
/// A URL is not https (or http on loopback).
pub fn auth_layer(issuer: &str, audience: &str) -> std::io::Result<ferromcp::auth::AuthLayer> {
    use ferromcp::auth::{AuthConfig, AuthLayer, JwtValidator};
    let invalid = |e: ferromcp::auth::AuthConfigError| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string())
    };
    let config = AuthConfig::new(audience, issuer)
        .map_err(invalid)?
        .scopes_supported(["sql:query"])
        .resource_name("SQL explorer");
    let validator = JwtValidator::new(issuer).map_err(invalid)?;
    Ok(AuthLayer::new(config, validator))
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
}
