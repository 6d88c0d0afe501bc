//! The data the server returns (query results, the schema's tables, columns and keys),
//! the failure type, and [`Database`], which sends each call to SQLite or PostgreSQL.

use std::time::Duration;

use ferromcp::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::check::Policy;
use super::postgres::Postgres;
use super::sqlite::Sqlite;

/// A database failure, worded for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError(pub String);

impl DbError {
    pub(super) fn parameter_count(expected: usize, given: usize) -> DbError {
        DbError(format!(
            "the query has {expected} parameter placeholder(s) but {given} parameter(s) were given"
        ))
    }

    pub(super) fn timeout(timeout: Duration) -> DbError {
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

impl std::error::Error for DbError {}

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
    pub(super) fn to_json(&self) -> Value {
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
    pub(super) fn new(columns: Vec<String>, rows: Vec<Vec<Value>>, truncated: bool) -> QueryResult {
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
pub(super) fn hex_bytes(bytes: &[u8]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_as_identifiers() {
        assert_eq!(quote_ident("orders"), "\"orders\"");
        assert_eq!(
            quote_ident("a\"; DROP TABLE x; --"),
            "\"a\"\"; DROP TABLE x; --\""
        );
    }
}
