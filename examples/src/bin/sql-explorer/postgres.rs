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
//! Values: the user's statement runs exactly as written (it is not wrapped in anything, so
//! PostgreSQL's own checks apply to it as the user wrote it), through a portal that fetches
//! at most `max_rows + 1` rows. Rather than decoding every PostgreSQL type by hand, the
//! rows' binary values are sent back, typed as they came, to `SELECT to_json($1)::text, …`
//! in the same transaction: the server renders each value the way it renders JSON (numbers,
//! strings for dates and times, arrays, named composite types), for any type with a binary
//! form, in one round trip per ~1600 values. The price: anonymous records (`ROW(…)`) have
//! no binary input, so such a column is refused with a message saying how to convert it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use serde_json::Value;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Client, Config, Row, Transaction};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::check::Volatility;
use super::tls::{self, Tls};
use super::{
    Column, DbError, ForeignKey, Index, QueryResult, Scalar, TableInfo, TableSummary, quote_ident,
};

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

/// PostgreSQL allows at most 1664 entries in a select list.
const MAX_SELECT_LIST: usize = 1600;

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

    /// The tables, views and materialized views the role may read, outside the system
    /// schemas, with their column counts and exact row counts.
    ///
    /// # Errors
    ///
    /// Reading the catalog failed, or a count ran past the statement timeout.
    pub async fn tables(&self) -> Result<Vec<TableSummary>, DbError> {
        let mut client = self.connect().await?;
        let txn = self.begin(&mut client).await?;
        let mut tables = Vec::new();
        for entry in catalog(&txn).await? {
            tables.push(TableSummary {
                rows: row_count(&txn, &entry).await?,
                name: entry.name,
                kind: entry.kind,
                columns: entry.columns,
            });
        }
        Ok(tables)
    }

    /// The names of the tables and views.
    ///
    /// # Errors
    ///
    /// Reading the catalog failed.
    pub async fn table_names(&self) -> Result<Vec<String>, DbError> {
        let mut client = self.connect().await?;
        let txn = self.begin(&mut client).await?;
        Ok(catalog(&txn).await?.into_iter().map(|e| e.name).collect())
    }

    /// One table's columns, keys and indexes; `None` if the catalog has no such table.
    ///
    /// # Errors
    ///
    /// Reading the catalog failed.
    pub async fn table(&self, name: &str) -> Result<Option<TableInfo>, DbError> {
        let mut client = self.connect().await?;
        let txn = self.begin(&mut client).await?;
        // Only a name the catalog lists goes any further; the table is then named by oid.
        let Some(entry) = catalog(&txn).await?.into_iter().find(|e| e.name == name) else {
            return Ok(None);
        };
        let columns = txn
            .query(
                "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
                        pg_get_expr(d.adbin, d.adrelid)
                   FROM pg_attribute a
                   LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                  WHERE a.attrelid = $1::int8::oid AND a.attnum > 0 AND NOT a.attisdropped
                  ORDER BY a.attnum",
                &[&entry.oid],
            )
            .await
            .map_err(pg_error)?
            .iter()
            .map(|r| {
                Ok(Column {
                    name: r.try_get(0)?,
                    data_type: r.try_get(1)?,
                    nullable: r.try_get(2)?,
                    default: r.try_get(3)?,
                })
            })
            .collect::<Result<Vec<_>, tokio_postgres::Error>>()
            .map_err(pg_error)?;
        let constraints = txn
            .query(
                "SELECT c.contype::text,
                        ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
                                JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n
                               ORDER BY k.i),
                        CASE WHEN c.contype = 'f' THEN c.confrelid::regclass::text END,
                        ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
                                JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n
                               ORDER BY k.i)
                   FROM pg_constraint c
                  WHERE c.conrelid = $1::int8::oid AND c.contype IN ('p', 'f')
                  ORDER BY c.conname",
                &[&entry.oid],
            )
            .await
            .map_err(pg_error)?;
        let mut primary_key = Vec::new();
        let mut foreign_keys = Vec::new();
        for row in constraints {
            let kind: String = row.try_get(0).map_err(pg_error)?;
            let columns: Vec<String> = row.try_get(1).map_err(pg_error)?;
            if kind == "p" {
                primary_key = columns;
            } else {
                foreign_keys.push(ForeignKey {
                    columns,
                    references_table: row.try_get(2).map_err(pg_error)?,
                    references_columns: row.try_get(3).map_err(pg_error)?,
                });
            }
        }
        let indexes = txn
            .query(
                "SELECT i.relname::text, x.indisunique,
                        ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true)
                                FROM generate_series(1, x.indnkeyatts) k ORDER BY k)
                   FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                  WHERE x.indrelid = $1::int8::oid
                  ORDER BY i.relname",
                &[&entry.oid],
            )
            .await
            .map_err(pg_error)?
            .iter()
            .map(|r| {
                Ok(Index {
                    name: r.try_get(0)?,
                    unique: r.try_get(1)?,
                    columns: r.try_get(2)?,
                })
            })
            .collect::<Result<Vec<_>, tokio_postgres::Error>>()
            .map_err(pg_error)?;
        Ok(Some(TableInfo {
            rows: row_count(&txn, &entry).await?,
            name: entry.name,
            kind: entry.kind,
            columns,
            primary_key,
            foreign_keys,
            indexes,
        }))
    }
}

/// A relation as the catalog lists it.
struct Entry {
    oid: i64,
    schema: String,
    relation: String,
    /// `orders` in `public`, `sales.orders` elsewhere.
    name: String,
    kind: String,
    columns: usize,
}

async fn catalog(txn: &Transaction<'_>) -> Result<Vec<Entry>, DbError> {
    let rows = txn
        .query(
            "SELECT c.oid::int8, n.nspname::text, c.relname::text,
                    CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
                                   WHEN 'f' THEN 'foreign table' ELSE 'table' END,
                    (SELECT count(*) FROM pg_attribute a
                      WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
                AND n.nspname NOT IN ('pg_catalog', 'information_schema')
                AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'
                AND has_table_privilege(c.oid, 'SELECT')
              ORDER BY n.nspname <> 'public', n.nspname, c.relname",
            &[],
        )
        .await
        .map_err(pg_error)?;
    rows.iter()
        .map(|r| {
            let (schema, relation): (String, String) = (r.try_get(1)?, r.try_get(2)?);
            Ok(Entry {
                oid: r.try_get(0)?,
                name: if schema == "public" {
                    relation.clone()
                } else {
                    format!("{schema}.{relation}")
                },
                schema,
                relation,
                kind: r.try_get(3)?,
                columns: usize::try_from(r.try_get::<_, i64>(4)?).unwrap_or_default(),
            })
        })
        .collect::<Result<_, tokio_postgres::Error>>()
        .map_err(pg_error)
}

async fn row_count(txn: &Transaction<'_>, entry: &Entry) -> Result<i64, DbError> {
    // Both names come from the catalog, quoted as identifiers.
    let sql = format!(
        "SELECT count(*) FROM {}.{}",
        quote_ident(&entry.schema),
        quote_ident(&entry.relation)
    );
    let row = txn.query_one(&sql, &[]).await.map_err(pg_error)?;
    row.try_get(0).map_err(pg_error)
}

/// Refuses, before running anything, a column whose values cannot be sent back to
/// `to_json`: the server has no binary input for anonymous records (`ROW(…)`, the whole row
/// of a subquery).
fn unshowable_column(columns: &[tokio_postgres::Column]) -> Result<(), DbError> {
    for (i, column) in columns.iter().enumerate() {
        let ty = column.type_();
        if *ty == Type::RECORD || *ty == Type::RECORD_ARRAY {
            return Err(DbError(format!(
                "column {} (`{}`) is of type {ty}, whose values cannot be returned; select its \
                 fields, or convert it (to_json(…) or ::text)",
                i + 1,
                column.name()
            )));
        }
    }
    Ok(())
}

/// A parameter sent in text format: the server parses it with the input function of the
/// type it inferred for the placeholder (numeric, date, uuid, an enum, …), after the checks
/// below have refused what cannot fit.
#[derive(Debug)]
struct TextParam(String);

impl ToSql for TextParam {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(self.0.as_bytes());
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    fn encode_format(&self, _: &Type) -> tokio_postgres::types::Format {
        tokio_postgres::types::Format::Text
    }

    to_sql_checked!();
}

/// `value` for placeholder `$index` of type `ty`, or why it does not fit.
fn text_param(index: usize, ty: &Type, value: &Scalar) -> Result<Option<TextParam>, DbError> {
    let integer = |min: i64, max: i64| match value {
        Scalar::Int(n) if (min..=max).contains(n) => Ok(n.to_string()),
        Scalar::Float(f) if f.fract() == 0.0 && *f >= min as f64 && *f <= max as f64 => {
            Ok(format!("{f:.0}"))
        }
        Scalar::Int(_) | Scalar::Float(_) => Err(format!(
            "{} does not fit (it takes integers from {min} to {max})",
            value.to_json()
        )),
        other => Err(format!("expected an integer, got {}", other.to_json())),
    };
    let numeric = [Type::FLOAT4, Type::FLOAT8, Type::NUMERIC];
    let json = [Type::JSON, Type::JSONB];
    let textual = [Type::TEXT, Type::VARCHAR, Type::BPCHAR, Type::NAME];
    let text = match value {
        Scalar::Null => return Ok(None),
        // Text goes to the type's own input function, which says what is wrong with it; for
        // json/jsonb it is the JSON text itself.
        Scalar::Text(s) => Ok(s.clone()),
        _ if *ty == Type::INT2 => integer(i16::MIN.into(), i16::MAX.into()),
        _ if *ty == Type::INT4 => integer(i32::MIN.into(), i32::MAX.into()),
        _ if *ty == Type::INT8 => integer(i64::MIN, i64::MAX),
        Scalar::Int(n) if numeric.contains(ty) => Ok(n.to_string()),
        Scalar::Float(f) if numeric.contains(ty) => Ok(f.to_string()),
        Scalar::Bool(b) if *ty == Type::BOOL || textual.contains(ty) => Ok(b.to_string()),
        // Other scalars are bound as JSON values.
        other if json.contains(ty) => Ok(other.to_json().to_string()),
        other if textual.contains(ty) => Ok(other.to_json().to_string()),
        other => Err(format!(
            "{} does not fit; pass a string in the type's text form",
            other.to_json()
        )),
    };
    text.map(|t| Some(TextParam(t)))
        .map_err(|why| DbError(format!("parameter ${index} is {ty}: {why}")))
}

/// A value exactly as the server sent it (binary format), to send back unchanged.
#[derive(Debug)]
struct Raw<'a>(&'a [u8]);

impl<'a> FromSql<'a> for Raw<'a> {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(raw))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

impl ToSql for Raw<'_> {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(self.0);
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// The rows' values as JSON, rendered by the server's `to_json` (see the module docs).
async fn to_json(
    txn: &Transaction<'_>,
    types: &[Type],
    rows: &[Row],
) -> Result<Vec<Vec<Value>>, DbError> {
    let width = types.len();
    if width == 0 {
        return Ok(vec![Vec::new(); rows.len()]);
    }
    let mut out = Vec::with_capacity(rows.len());
    for chunk in rows.chunks((MAX_SELECT_LIST / width).max(1)) {
        let n = chunk.len() * width;
        let list: Vec<String> = (1..=n).map(|i| format!("to_json(${i})::text")).collect();
        let param_types: Vec<Type> = types.iter().cycle().take(n).cloned().collect();
        let stmt = txn
            .prepare_typed(&format!("SELECT {}", list.join(", ")), &param_types)
            .await
            .map_err(pg_error)?;
        let raws = chunk
            .iter()
            .flat_map(|row| (0..width).map(move |i| row.try_get::<_, Option<Raw<'_>>>(i)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(pg_error)?;
        let refs: Vec<&(dyn ToSql + Sync)> =
            raws.iter().map(|r| r as &(dyn ToSql + Sync)).collect();
        let rendered = txn.query_one(&stmt, &refs).await.map_err(pg_error)?;
        for r in 0..chunk.len() {
            let row = (0..width)
                .map(|c| {
                    let text: Option<String> = rendered.try_get(r * width + c).map_err(pg_error)?;
                    text.map_or(Ok(Value::Null), |t| {
                        serde_json::from_str(&t)
                            .map_err(|e| DbError(format!("to_json gave invalid JSON: {e}")))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            out.push(row);
        }
    }
    Ok(out)
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
