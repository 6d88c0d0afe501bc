//! The PostgreSQL backend (`tokio-postgres`, with TLS as `sslmode` says: see the `tls`
//! module).
//!
//! Every call opens its own connection and runs in `START TRANSACTION READ ONLY` with
//! `SET LOCAL statement_timeout`, then rolls back. One connection per call rather than a
//! pool: a query can leave session state that `ROLLBACK` does not undo (a session-level
//! advisory lock from `pg_advisory_lock`, for one), and a fresh connection guarantees no
//! call sees another's. The handshake costs a few milliseconds, small next to a model's
//! round trip.
//!
//! The catalog (tables, columns, keys, indexes) is read in `catalog`; parameters are bound
//! and result values rendered as JSON in `values`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Config, Transaction};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::check::Volatility;
use super::tls::{self, Tls};
use super::{DbError, QueryResult, Scalar, quote_ident};

#[path = "postgres/catalog.rs"]
mod catalog;
#[path = "postgres/values.rs"]
mod values;

use values::{text_param, to_json, unshowable_column};

/// What a role may do beyond reading, as [`Postgres::privileges`] found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Privileges {
    /// The role connected as.
    pub role: String,
    /// The database connected to.
    pub database: String,
    /// Whether it is a superuser.
    pub superuser: bool,
    /// The predefined roles it is a member of that reach beyond reading
    /// (`pg_read_server_files`, `pg_write_server_files`, `pg_execute_server_program`,
    /// `pg_signal_backend`, `pg_write_all_data`).
    pub roles: Vec<String>,
    /// The tables, views and sequences it may change.
    pub writable: Vec<String>,
}

impl Privileges {
    /// Why the role is privileged, one reason a line; empty if it may only read.
    pub fn reasons(&self) -> Vec<String> {
        let mut reasons = Vec::new();
        if self.superuser {
            reasons.push(format!("`{}` is a superuser", self.role));
        }
        for role in &self.roles {
            reasons.push(format!("`{}` is a member of {role}", self.role));
        }
        if !self.writable.is_empty() {
            let shown: Vec<&str> = self.writable.iter().take(5).map(String::as_str).collect();
            let more = self.writable.len() - shown.len();
            reasons.push(format!(
                "`{}` may write {} relation(s): {}{}",
                self.role,
                self.writable.len(),
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
        reasons
    }

    /// The SQL that creates a role that may only read this database's `public` schema.
    pub fn read_only_role_sql(&self) -> String {
        let database = quote_ident(&self.database);
        format!(
            "CREATE ROLE explorer LOGIN PASSWORD 'choose-a-password';\n\
             GRANT CONNECT ON DATABASE {database} TO explorer;\n\
             GRANT USAGE ON SCHEMA public TO explorer;\n\
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO explorer;\n\
             ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO explorer;"
        )
    }
}

/// A PostgreSQL database reached through a connection string.
#[derive(Debug, Clone)]
pub struct Postgres {
    config: Arc<Config>,
    tls: Connector,
    timeout: Duration,
}

/// The rustls connector, and the mode it was made for (all `Debug` shows).
#[derive(Clone)]
struct Connector(MakeRustlsConnect, tls::SslMode);

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Connector({:?})", self.1)
    }
}

impl Postgres {
    /// A database at `url` (`postgres://user@host:port/db` or `host=… dbname=…`, with
    /// `sslmode` and `sslrootcert` as in libpq); statements running longer than `timeout`
    /// are cancelled by the server.
    ///
    /// # Errors
    ///
    /// The connection string does not parse, or its TLS settings cannot be met
    /// (`sslrootcert` unreadable, an unknown `sslmode`).
    pub fn new(url: &str, timeout: Duration) -> Result<Postgres, DbError> {
        let invalid = |e: String| DbError(format!("invalid --database-url: {e}"));
        let (rest, tls) = tls::split(url).map_err(invalid)?;
        let config: Config = rest.parse().map_err(|e| invalid(format!("{e}")))?;
        Postgres::with_tls(config, &tls, timeout)
    }

    /// A database reached with `config`, TLS as its `ssl_mode` says (certificates are not
    /// checked: `prefer` and `require` as in libpq).
    ///
    /// # Errors
    ///
    /// The TLS configuration could not be built.
    pub fn with_config(config: Config, timeout: Duration) -> Result<Postgres, DbError> {
        let mode = match config.get_ssl_mode() {
            tokio_postgres::config::SslMode::Disable => tls::SslMode::Disable,
            tokio_postgres::config::SslMode::Require => tls::SslMode::Require,
            _ => tls::SslMode::Prefer,
        };
        let tls = Tls {
            mode,
            root_cert: None,
        };
        Postgres::with_tls(config, &tls, timeout)
    }

    /// A database reached with `config` and `tls` (which overrides its `ssl_mode`).
    ///
    /// # Errors
    ///
    /// `sslrootcert` cannot be read, or the platform has no roots.
    pub fn with_tls(mut config: Config, tls: &Tls, timeout: Duration) -> Result<Postgres, DbError> {
        config.ssl_mode(tls.pg_mode());
        let connector = tls.connector().map_err(DbError)?;
        Ok(Postgres::build(
            config,
            Connector(connector, tls.mode),
            timeout,
        ))
    }

    fn build(mut config: Config, tls: Connector, timeout: Duration) -> Postgres {
        if config.get_application_name().is_none() {
            config.application_name("sql-explorer");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        Postgres {
            config: Arc::new(config),
            tls,
            timeout,
        }
    }

    /// Connects once and says what the role may do beyond reading: an empty list for a
    /// role that may only read.
    ///
    /// # Errors
    ///
    /// The server cannot be reached or refuses the login.
    pub async fn privileges(&self) -> Result<Privileges, DbError> {
        let mut client = self.connect().await?;
        let txn = self.begin(&mut client).await?;
        // Writable relations: any table, view or sequence the role may change, whoever
        // granted it (ownership, a grant, pg_write_all_data).
        let row = txn
            .query_one(
                "SELECT current_user::text, current_database()::text,
                        (SELECT rolsuper FROM pg_roles WHERE rolname = current_user),
                        ARRAY(SELECT rolname::text FROM pg_roles
                               WHERE rolname IN ('pg_read_server_files', 'pg_write_server_files',
                                                 'pg_execute_server_program', 'pg_signal_backend',
                                                 'pg_write_all_data')
                                 AND pg_has_role(current_user, oid, 'MEMBER')
                               ORDER BY rolname),
                        ARRAY(SELECT format('%I.%I', n.nspname, c.relname)
                                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                               WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
                                 AND n.nspname NOT LIKE 'pg\\_toast%'
                                 AND n.nspname NOT LIKE 'pg\\_temp%'
                                 AND CASE WHEN c.relkind = 'S'
                                          THEN has_sequence_privilege(c.oid, 'USAGE, UPDATE')
                                          WHEN c.relkind IN ('r', 'p', 'v', 'm', 'f')
                                          THEN has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')
                                            OR has_any_column_privilege(c.oid, 'INSERT, UPDATE')
                                          ELSE false END
                               ORDER BY 1)",
                &[],
            )
            .await
            .map_err(pg_error)?;
        Ok(Privileges {
            role: row.try_get(0).map_err(pg_error)?,
            database: row.try_get(1).map_err(pg_error)?,
            superuser: row.try_get::<_, Option<bool>>(2).map_err(pg_error)? == Some(true),
            roles: row.try_get(3).map_err(pg_error)?,
            writable: row.try_get(4).map_err(pg_error)?,
        })
    }

    /// Every function name in `pg_proc`, with the most volatile of its overloads: read once
    /// at start-up for the function policy.
    ///
    /// # Errors
    ///
    /// The server cannot be reached or the catalog read failed.
    pub async fn functions(&self) -> Result<HashMap<String, Volatility>, DbError> {
        let mut client = self.connect().await?;
        let txn = self.begin(&mut client).await?;
        let rows = txn
            .query(
                "SELECT proname::text, max(provolatile::text) FROM pg_proc GROUP BY proname",
                &[],
            )
            .await
            .map_err(pg_error)?;
        rows.iter()
            .map(|r| {
                let name: String = r.try_get(0)?;
                let code: String = r.try_get(1)?;
                Ok((name, Volatility::from_code(&code)))
            })
            .collect::<Result<_, tokio_postgres::Error>>()
            .map_err(pg_error)
    }

    /// A new connection, its I/O driven by a task that ends when the client is dropped.
    ///
    /// # Errors
    ///
    /// The server cannot be reached or refuses the login.
    pub async fn connect(&self) -> Result<Client, DbError> {
        let (client, connection) = self
            .config
            .connect(self.tls.0.clone())
            .await
            .map_err(pg_error)?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "postgres connection ended with an error");
            }
        });
        Ok(client)
    }

    /// The transaction every call runs in: `READ ONLY`, with the statement timeout. Never
    /// committed: dropping it (or [`Transaction::rollback`]) rolls back.
    ///
    /// # Errors
    ///
    /// The server refused to start it.
    pub async fn begin<'c>(&self, client: &'c mut Client) -> Result<Transaction<'c>, DbError> {
        let txn = client
            .build_transaction()
            .read_only(true)
            .start()
            .await
            .map_err(pg_error)?;
        // An integer of ours, not user input.
        let ms = self.timeout.as_millis().max(1);
        txn.batch_execute(&format!("SET LOCAL statement_timeout = {ms}"))
            .await
            .map_err(pg_error)?;
        Ok(txn)
    }

    /// Runs `sql` as it is, bound to `params`, returning at most `max_rows` rows. No
    /// statement check happens here: the `READ ONLY` transaction is what refuses writes at
    /// this level.
    ///
    /// # Errors
    ///
    /// PostgreSQL refused or failed the statement, or a parameter does not fit its type.
    pub async fn query(
        &self,
        sql: &str,
        params: &[Scalar],
        max_rows: usize,
    ) -> Result<QueryResult, DbError> {
        let mut client = self.connect().await?;
        let txn = self.begin(&mut client).await?;
        let stmt = txn.prepare(sql).await.map_err(pg_error)?;
        unshowable_column(stmt.columns())?;
        if stmt.params().len() != params.len() {
            return Err(DbError::parameter_count(stmt.params().len(), params.len()));
        }
        let bound = stmt
            .params()
            .iter()
            .zip(params)
            .enumerate()
            .map(|(i, (ty, p))| text_param(i + 1, ty, p))
            .collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<&(dyn ToSql + Sync)> =
            bound.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        let portal = txn.bind(&stmt, &refs).await.map_err(pg_error)?;
        let fetch = i32::try_from(max_rows.saturating_add(1)).unwrap_or(i32::MAX);
        let mut rows = txn.query_portal(&portal, fetch).await.map_err(pg_error)?;
        let truncated = rows.len() > max_rows;
        rows.truncate(max_rows);
        let types: Vec<Type> = stmt.columns().iter().map(|c| c.type_().clone()).collect();
        let values = to_json(&txn, &types, &rows).await?;
        let columns = stmt.columns().iter().map(|c| c.name().to_owned()).collect();
        Ok(QueryResult::new(columns, values, truncated))
    }

    /// PostgreSQL's plan for `sql` (`EXPLAIN`, text format; not executed).
    ///
    /// # Errors
    ///
    /// PostgreSQL refused the statement.
    pub async fn explain(&self, sql: &str) -> Result<String, DbError> {
        let mut client = self.connect().await?;
        let txn = self.begin(&mut client).await?;
        // With the option list written out, the user's text cannot be read as options.
        let rows = txn
            .query(&format!("EXPLAIN (FORMAT TEXT) {sql}"), &[])
            .await
            .map_err(pg_error)?;
        let lines = rows
            .iter()
            .map(|r| r.try_get::<_, String>(0))
            .collect::<Result<Vec<_>, _>>()
            .map_err(pg_error)?;
        Ok(lines.join("\n"))
    }
}

/// The server's message, SQLSTATE, detail and hint, or the client's error with its cause.
fn pg_error(e: tokio_postgres::Error) -> DbError {
    if let Some(db) = e.as_db_error() {
        let mut message = format!(
            "{}: {} (SQLSTATE {})",
            db.severity(),
            db.message(),
            db.code().code()
        );
        if let Some(detail) = db.detail() {
            message.push_str(&format!("; detail: {detail}"));
        }
        if let Some(hint) = db.hint() {
            message.push_str(&format!("; hint: {hint}"));
        }
        return DbError(message);
    }
    match std::error::Error::source(&e) {
        Some(source) => DbError(format!("{e}: {source}")),
        None => DbError(e.to_string()),
    }
}
