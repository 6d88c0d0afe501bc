//! The command line and start-up: the arguments, and opening the database they name
//! (refusing a privileged PostgreSQL role).

use std::path::PathBuf;
use std::time::Duration;

use ferromcp::run::CommonArgs;

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

/// A read-only SQL database (SQLite or PostgreSQL) as an MCP server.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "sql-explorer", version)]
pub struct Args {
    /// The flags every server takes (`--http`, …).
    #[command(flatten)]
    pub common: CommonArgs,
    /// The SQLite file, created with a sample shop if missing [default: sql-explorer.sqlite]
    #[arg(long, value_name = "PATH", conflicts_with = "database_url")]
    database: Option<PathBuf>,
    /// A PostgreSQL connection string (postgres://USER@HOST/DB)
    #[arg(long, value_name = "URL")]
    database_url: Option<String>,
    /// The most rows a query returns (1 to 10000)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_ROWS, value_parser = max_rows)]
    pub max_rows: usize,
    /// Statements running longer are cancelled
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_TIMEOUT.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    statement_timeout_ms: u64,
    /// Serve PostgreSQL even as a role that may do more than read
    #[arg(long)]
    pub allow_privileged_role: bool,
}

/// `--max-rows`: 1 to [`MAX_ROWS_LIMIT`].
fn max_rows(text: &str) -> Result<usize, String> {
    text.parse()
        .ok()
        .filter(|n| (1..=MAX_ROWS_LIMIT).contains(n))
        .ok_or_else(|| format!("takes 1 to {MAX_ROWS_LIMIT}"))
}

impl Args {
    /// The settings of a command line naming `source`, with these limits.
    pub fn new(source: Source, max_rows: usize, timeout: Duration) -> Args {
        let (database, database_url) = match source {
            Source::Sqlite(path) => (Some(path), None),
            Source::Postgres(url) => (None, Some(url)),
        };
        Args {
            common: CommonArgs::default(),
            database,
            database_url,
            max_rows,
            statement_timeout_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            allow_privileged_role: false,
        }
    }

    /// Where the data is: `--database-url`, else `--database` or its default.
    pub fn source(&self) -> Source {
        match (&self.database_url, &self.database) {
            (Some(url), _) => Source::Postgres(url.clone()),
            (None, Some(path)) => Source::Sqlite(path.clone()),
            (None, None) => Source::Sqlite(PathBuf::from(DEFAULT_SQLITE_FILE)),
        }
    }

    /// `--statement-timeout-ms`.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.statement_timeout_ms)
    }

    /// The arguments Claude Desktop starts this server with over stdio: the same database
    /// (absolute, without a password) and row cap.
    pub fn stdio_args(&self) -> Vec<String> {
        let mut args = match self.source() {
            Source::Sqlite(path) => vec![
                "--database".to_owned(),
                std::path::absolute(&path)
                    .unwrap_or(path)
                    .display()
                    .to_string(),
            ],
            Source::Postgres(url) => vec!["--database-url".to_owned(), without_password(&url)],
        };
        if self.max_rows != DEFAULT_MAX_ROWS {
            args.extend(["--max-rows".to_owned(), self.max_rows.to_string()]);
        }
        args
    }
}

/// Opens the database `args` names (creating the SQLite sample if needed).
///
/// # Errors
///
/// The database cannot be opened or reached.
pub async fn open(args: &Args) -> Result<Database, DbError> {
    match args.source() {
        Source::Sqlite(path) => {
            let (db, created) = Sqlite::open_or_create(path.clone(), args.timeout()).await?;
            if created {
                tracing::info!(path = %path.display(), "created the sample database");
            }
            tracing::info!(database = %path.display(), "sql-explorer serving SQLite, read-only");
            Ok(Database::Sqlite(db))
        }
        Source::Postgres(url) => {
            let db = Postgres::new(&url, args.timeout())?;
            let db = open_postgres(db, args.allow_privileged_role).await?;
            tracing::info!("sql-explorer serving PostgreSQL, read-only");
            Ok(db)
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

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}\n"))
        .collect::<String>()
        .trim_end()
        .to_owned()
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
