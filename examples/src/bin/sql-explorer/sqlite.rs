//! The SQLite backend: a file created with the sample data on first run, then opened
//! read-only for every call, on tokio's blocking pool.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::{
    Column, DbError, ForeignKey, Index, QueryResult, Scalar, TableInfo, TableSummary, quote_ident,
    sample,
};

/// A SQLite database file, opened anew (read-only) for each call: opening is cheap, and no
/// state a call leaves on its connection can reach the next one.
#[derive(Debug, Clone)]
pub struct Sqlite {
    path: PathBuf,
    timeout: Duration,
}

impl Sqlite {
    /// The database at `path`, created with the sample data if there is no file there yet.
    /// Statements running longer than `timeout` are interrupted. Returns whether the file
    /// was created.
    ///
    /// # Errors
    ///
    /// The file could not be created, or is not a SQLite database that opens read-only.
    pub async fn open_or_create(
        path: PathBuf,
        timeout: Duration,
    ) -> Result<(Sqlite, bool), DbError> {
        let db = Sqlite { path, timeout };
        let probe = db.clone();
        let created = blocking(move || {
            let created = if probe.path.exists() {
                false
            } else {
                create(&probe.path)?;
                true
            };
            // Fails now, rather than on the first call, if the file is no database.
            let conn = probe.connect()?;
            conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))
                .map_err(|e| DbError(format!("{}: {e}", probe.path.display())))?;
            Ok(created)
        })
        .await?;
        Ok((db, created))
    }

    /// The file this serves.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A read-only connection: opened with `SQLITE_OPEN_READ_ONLY`, with `query_only` on,
    /// `ATTACH` unable to create or write files, and SQLite's defensive mode.
    pub fn connect(&self) -> Result<Connection, DbError> {
        let error = |e: rusqlite::Error| DbError(format!("{}: {e}", self.path.display()));
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(error)?;
        for (setting, on) in [
            (DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true),
            (DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false),
            (DbConfig::SQLITE_DBCONFIG_ENABLE_ATTACH_CREATE, false),
            (DbConfig::SQLITE_DBCONFIG_ENABLE_ATTACH_WRITE, false),
        ] {
            conn.set_db_config(setting, on).map_err(error)?;
        }
        conn.pragma_update(None, "query_only", true)
            .map_err(error)?;
        Ok(conn)
    }

    /// Runs `work` on a fresh read-only connection on the blocking pool, interrupting it
    /// once the statement timeout has passed.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, DbError> + Send + 'static,
    ) -> Result<T, DbError> {
        let db = self.clone();
        let (handle_tx, handle_rx) = tokio::sync::oneshot::channel();
        let mut task = tokio::task::spawn_blocking(move || {
            let conn = db.connect()?;
            let _ = handle_tx.send(conn.get_interrupt_handle());
            work(&conn)
        });
        let timeout = self.timeout;
        let interrupt = async move {
            match handle_rx.await {
                Ok(handle) => {
                    tokio::time::sleep(timeout).await;
                    handle.interrupt();
                }
                // The connection never opened: the task ends with that error.
                Err(_) => std::future::pending().await,
            }
        };
        let joined = tokio::select! {
            joined = &mut task => joined,
            () = interrupt => task.await,
        };
        let result = joined.map_err(|e| DbError(format!("the database task failed: {e}")))?;
        result.map_err(|e| {
            if e.0 == INTERRUPTED {
                DbError::timeout(timeout)
            } else {
                e
            }
        })
    }

    /// Runs `sql` as it is, bound to `params`, returning at most `max_rows` rows. No
    /// statement check happens here: the connection's read-only settings are what refuse
    /// writes at this level.
    ///
    /// # Errors
    ///
    /// SQLite refused or failed the statement, or the parameters do not match it.
    pub async fn query(
        &self,
        sql: &str,
        params: &[Scalar],
        max_rows: usize,
    ) -> Result<QueryResult, DbError> {
        let (sql, params) = (sql.to_owned(), params.to_vec());
        self.run(move |conn| {
            let mut stmt = conn.prepare(&sql).map_err(sql_error)?;
            let expected = stmt.parameter_count();
            if expected != params.len() {
                return Err(DbError::parameter_count(expected, params.len()));
            }
            for (i, param) in params.iter().enumerate() {
                let bound = match param {
                    Scalar::Null => stmt.raw_bind_parameter(i + 1, rusqlite::types::Null),
                    Scalar::Bool(b) => stmt.raw_bind_parameter(i + 1, b),
                    Scalar::Int(n) => stmt.raw_bind_parameter(i + 1, n),
                    Scalar::Float(f) => stmt.raw_bind_parameter(i + 1, f),
                    Scalar::Text(s) => stmt.raw_bind_parameter(i + 1, s),
                };
                bound.map_err(sql_error)?;
            }
            let columns: Vec<String> = stmt.column_names().map(str::to_owned).collect();
            let mut rows = stmt.raw_query();
            let mut out = Vec::new();
            let mut truncated = false;
            while let Some(row) = rows.next().map_err(sql_error)? {
                if out.len() == max_rows {
                    truncated = true;
                    break;
                }
                let values = (0..columns.len())
                    .map(|i| row.get_ref(i).map(json).map_err(sql_error))
                    .collect::<Result<Vec<_>, _>>()?;
                out.push(values);
            }
            Ok(QueryResult::new(columns, out, truncated))
        })
        .await
    }

    /// SQLite's `EXPLAIN QUERY PLAN` of `sql`, as an indented tree.
    ///
    /// # Errors
    ///
    /// SQLite refused the statement.
    pub async fn explain(&self, sql: &str) -> Result<String, DbError> {
        let sql = format!("EXPLAIN QUERY PLAN {sql}");
        self.run(move |conn| {
            let mut stmt = conn.prepare(&sql).map_err(sql_error)?;
            let steps = stmt
                .query_map([], |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, i64>(1)?,
                        row.get::<_, String>(3)?,
                    ))
                })
                .map_err(sql_error)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(sql_error)?;
            let mut depths: Vec<(i64, usize)> = Vec::new();
            let mut plan = String::from("QUERY PLAN\n");
            for (id, parent, detail) in steps {
                let depth = depths
                    .iter()
                    .find(|(i, _)| *i == parent)
                    .map_or(0, |(_, d)| d + 1);
                depths.push((id, depth));
                plan.push_str(&format!("{}- {detail}\n", "  ".repeat(depth + 1)));
            }
            Ok(plan)
        })
        .await
    }

    /// The tables and views, with their column and row counts.
    ///
    /// # Errors
    ///
    /// Reading the catalog failed.
    pub async fn tables(&self) -> Result<Vec<TableSummary>, DbError> {
        self.run(|conn| {
            catalog(conn)?
                .into_iter()
                .map(|(name, kind)| {
                    Ok(TableSummary {
                        columns: columns(conn, &name)?.len(),
                        rows: row_count(conn, &name)?,
                        name,
                        kind,
                    })
                })
                .collect()
        })
        .await
    }

    /// The names of the tables and views.
    ///
    /// # Errors
    ///
    /// Reading the catalog failed.
    pub async fn table_names(&self) -> Result<Vec<String>, DbError> {
        self.run(|conn| Ok(catalog(conn)?.into_iter().map(|(name, _)| name).collect()))
            .await
    }

    /// One table's columns, keys and indexes; `None` if the catalog has no such table.
    ///
    /// # Errors
    ///
    /// Reading the catalog failed.
    pub async fn table(&self, name: &str) -> Result<Option<TableInfo>, DbError> {
        let name = name.to_owned();
        self.run(move |conn| {
            // Only a name the catalog lists goes any further.
            let Some((name, kind)) = catalog(conn)?.into_iter().find(|(n, _)| *n == name) else {
                return Ok(None);
            };
            let columns = columns(conn, &name)?;
            let mut primary_key: Vec<(i64, String)> = columns
                .iter()
                .filter(|(_, pk)| *pk > 0)
                .map(|(c, pk)| (*pk, c.name.clone()))
                .collect();
            primary_key.sort();
            Ok(Some(TableInfo {
                rows: row_count(conn, &name)?,
                primary_key: primary_key.into_iter().map(|(_, c)| c).collect(),
                foreign_keys: foreign_keys(conn, &name)?,
                indexes: indexes(conn, &name)?,
                columns: columns.into_iter().map(|(c, _)| c).collect(),
                name,
                kind,
            }))
        })
        .await
    }
}

/// Creates the sample database next to `path` and moves it into place, so that an
/// interrupted first run leaves no half-filled file behind.
fn create(path: &Path) -> Result<(), DbError> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".partial-{}", std::process::id()));
    let partial = PathBuf::from(partial);
    let error = |e: &dyn std::fmt::Display| DbError(format!("creating {}: {e}", path.display()));
    let _ = std::fs::remove_file(&partial);
    let written = Connection::open(&partial)
        .map_err(|e| error(&e))
        .and_then(|mut conn| {
            let tx = conn.transaction().map_err(|e| error(&e))?;
            tx.execute_batch(&sample::script()).map_err(|e| error(&e))?;
            tx.commit().map_err(|e| error(&e))
        });
    let moved = written.and_then(|()| std::fs::rename(&partial, path).map_err(|e| error(&e)));
    if moved.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    moved
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, DbError> + Send + 'static,
) -> Result<T, DbError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| DbError(format!("the database task failed: {e}")))?
}

/// What [`sql_error`] says for an interrupted statement; [`Sqlite::run`] replaces it.
const INTERRUPTED: &str = "interrupted";

fn sql_error(e: rusqlite::Error) -> DbError {
    match e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            DbError(INTERRUPTED.to_owned())
        }
        rusqlite::Error::MultipleStatement => {
            DbError("the SQL holds more than one statement".to_owned())
        }
        e => DbError(e.to_string()),
    }
}

fn json(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => n.into(),
        // SQLite stores no NaN; infinities have no JSON number, so they become text.
        ValueRef::Real(f) => {
            serde_json::Number::from_f64(f).map_or_else(|| f.to_string().into(), Value::Number)
        }
        ValueRef::Text(bytes) => String::from_utf8_lossy(bytes).into_owned().into(),
        ValueRef::Blob(bytes) => super::hex_bytes(bytes).into(),
    }
}

/// `(name, kind)` of every table and view, sorted by name.
fn catalog(conn: &Connection) -> Result<Vec<(String, String)>, DbError> {
    let mut stmt = conn
        .prepare(
            "SELECT name, type FROM sqlite_schema \
             WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
             ORDER BY name",
        )
        .map_err(sql_error)?;
    let rows = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .map_err(sql_error)?;
    rows.collect::<Result<_, _>>().map_err(sql_error)
}

/// The columns, each with its position in the primary key (0 if not in it).
fn columns(conn: &Connection, table: &str) -> Result<Vec<(Column, i64)>, DbError> {
    let mut stmt = conn
        .prepare(r#"SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?1)"#)
        .map_err(sql_error)?;
    let rows = stmt
        .query_map([table], |row| {
            let (data_type, pk): (String, i64) = (row.get(1)?, row.get(4)?);
            Ok((
                data_type,
                pk,
                row.get::<_, bool>(2)?,
                Column {
                    name: row.get(0)?,
                    data_type: String::new(),
                    nullable: true,
                    default: row.get(3)?,
                },
            ))
        })
        .map_err(sql_error)?;
    let rows: Vec<_> = rows.collect::<Result<_, _>>().map_err(sql_error)?;
    // A lone INTEGER PRIMARY KEY is the rowid, which is never NULL; other primary key
    // columns may hold NULL in SQLite unless declared NOT NULL.
    let single_pk = rows.iter().filter(|(_, pk, ..)| *pk > 0).count() == 1;
    Ok(rows
        .into_iter()
        .map(|(data_type, pk, not_null, mut column)| {
            let rowid = single_pk && pk > 0 && data_type.eq_ignore_ascii_case("INTEGER");
            column.nullable = !not_null && !rowid;
            column.data_type = data_type;
            (column, pk)
        })
        .collect())
}

fn row_count(conn: &Connection, table: &str) -> Result<i64, DbError> {
    // `table` comes from the catalog, and is quoted as an identifier.
    conn.query_row(
        &format!("SELECT count(*) FROM {}", quote_ident(table)),
        [],
        |row| row.get(0),
    )
    .map_err(sql_error)
}

fn foreign_keys(conn: &Connection, table: &str) -> Result<Vec<ForeignKey>, DbError> {
    let mut stmt = conn
        .prepare(
            r#"SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(?1) ORDER BY id, seq"#,
        )
        .map_err(sql_error)?;
    let rows = stmt
        .query_map([table], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, Option<String>>(3)?,
            ))
        })
        .map_err(sql_error)?;
    let mut keys: Vec<(i64, ForeignKey)> = Vec::new();
    for row in rows {
        let (id, target, from, to) = row.map_err(sql_error)?;
        if keys.last().is_none_or(|(last, _)| *last != id) {
            keys.push((
                id,
                ForeignKey {
                    columns: Vec::new(),
                    references_table: target,
                    references_columns: Vec::new(),
                },
            ));
        }
        if let Some((_, key)) = keys.last_mut() {
            key.columns.push(from);
            // No target column means the referenced table's primary key.
            key.references_columns.push(to.unwrap_or_default());
        }
    }
    Ok(keys.into_iter().map(|(_, k)| k).collect())
}

fn indexes(conn: &Connection, table: &str) -> Result<Vec<Index>, DbError> {
    let mut stmt = conn
        .prepare(r#"SELECT name, "unique" FROM pragma_index_list(?1) ORDER BY name"#)
        .map_err(sql_error)?;
    let list: Vec<(String, bool)> = stmt
        .query_map([table], |row| Ok((row.get(0)?, row.get(1)?)))
        .map_err(sql_error)?
        .collect::<Result<_, _>>()
        .map_err(sql_error)?;
    let mut columns = conn
        .prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")
        .map_err(sql_error)?;
    list.into_iter()
        .map(|(name, unique)| {
            let cols = columns
                .query_map([&name], |row| row.get::<_, Option<String>>(0))
                .map_err(sql_error)?
                // An expression column has no name.
                .map(|c| c.map(|c| c.unwrap_or_else(|| "(expression)".to_owned())))
                .collect::<Result<_, _>>()
                .map_err(sql_error)?;
            Ok(Index {
                name,
                unique,
                columns: cols,
            })
        })
        .collect()
}
