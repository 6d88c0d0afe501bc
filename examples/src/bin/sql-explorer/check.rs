//! The statement check that runs before anything reaches the database: exactly one
//! statement, and a query (`SELECT`, `VALUES`, `WITH … SELECT`) that neither writes through
//! a data-modifying `WITH`, nor creates a table (`SELECT … INTO`), nor locks rows
//! (`FOR UPDATE`).
//!
//! This is the first of two locks: the connection itself is read-only (a read-only SQLite
//! open, a `READ ONLY` PostgreSQL transaction), so a statement that a parser cannot judge
//! (`SELECT nextval('s')`, a function that writes) is still refused by the database.

use sqlparser::ast::{Query, SetExpr, Statement};
use sqlparser::dialect::{Dialect, PostgreSqlDialect, SQLiteDialect};
use sqlparser::parser::Parser;

/// The SQL dialect to parse with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialects {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

const ONLY: &str = "only a single SELECT/WITH query is allowed";

/// Accepts `sql` if it is exactly one read-only query in `dialect`; otherwise says why not.
///
/// # Errors
///
/// The reason for the refusal, starting with "only a single SELECT/WITH query is allowed".
pub fn check(sql: &str, dialect: Dialects) -> Result<(), String> {
    let parsed = match dialect {
        Dialects::Sqlite => parse(&SQLiteDialect {}, sql),
        Dialects::Postgres => parse(&PostgreSqlDialect {}, sql),
    };
    let statements = parsed.map_err(|e| format!("{ONLY}; the SQL does not parse: {e}"))?;
    match statements.as_slice() {
        [] => Err(format!("{ONLY}; got no statement")),
        [Statement::Query(query)] => check_query(query),
        [other] => Err(format!("{ONLY}; got {}", leading_keyword(other))),
        many => Err(format!("{ONLY}; got {} statements", many.len())),
    }
}

fn parse(
    dialect: &dyn Dialect,
    sql: &str,
) -> Result<Vec<Statement>, sqlparser::parser::ParserError> {
    // The parser's default recursion limit (50) bounds how deep the tree can be, so neither
    // parsing nor dropping a hostile, deeply nested statement can overflow the stack.
    Parser::parse_sql(dialect, sql)
}

/// PostgreSQL allows data-modifying `WITH` only at the top level of a statement, so the
/// top-level `WITH` list and body are the places to look; the read-only transaction backs
/// this up everywhere else.
fn check_query(query: &Query) -> Result<(), String> {
    if !query.locks.is_empty() {
        return Err(format!(
            "{ONLY}; got a row-locking query (FOR UPDATE/SHARE)"
        ));
    }
    if let Some(with) = &query.with {
        for cte in &with.cte_tables {
            check_query(&cte.query).map_err(|e| format!("{e} (in WITH `{}`)", cte.alias.name))?;
        }
    }
    check_body(&query.body)
}

fn check_body(body: &SetExpr) -> Result<(), String> {
    match body {
        SetExpr::Select(select) if select.into.is_some() => {
            Err(format!("{ONLY}; got SELECT INTO (it creates a table)"))
        }
        SetExpr::Select(_) | SetExpr::Values(_) | SetExpr::Table(_) => Ok(()),
        SetExpr::Query(query) => check_query(query),
        SetExpr::SetOperation { left, right, .. } => {
            check_body(left)?;
            check_body(right)
        }
        SetExpr::Insert(s) | SetExpr::Update(s) | SetExpr::Delete(s) | SetExpr::Merge(s) => {
            Err(format!("{ONLY}; got {}", leading_keyword(s)))
        }
    }
}

/// The statement's first keyword, `DELETE` for `DELETE FROM t`, as the refusal names it.
fn leading_keyword(statement: &Statement) -> String {
    let text = statement.to_string();
    let word: String = text
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic() || *c == '_')
        .collect();
    if word.is_empty() {
        "a statement that is not a query".to_owned()
    } else {
        word.to_ascii_uppercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_queries() {
        for sql in [
            "SELECT 1",
            "select * from orders where id = 1;",
            "WITH t AS (SELECT 1 AS x) SELECT x FROM t UNION ALL SELECT 2",
            "VALUES (1, 2)",
            "SELECT 1 -- a comment; DELETE FROM orders",
        ] {
            assert_eq!(check(sql, Dialects::Sqlite), Ok(()), "{sql}");
            assert_eq!(check(sql, Dialects::Postgres), Ok(()), "{sql}");
        }
        assert_eq!(check("SELECT $1::int, now()", Dialects::Postgres), Ok(()));
        assert_eq!(check("SELECT ?1, ?, :name, $x", Dialects::Sqlite), Ok(()));
    }

    #[test]
    fn refuses_everything_else() {
        for (sql, says) in [
            ("DELETE FROM orders", "got DELETE"),
            ("UPDATE orders SET id = 1", "got UPDATE"),
            ("INSERT INTO orders VALUES (1)", "got INSERT"),
            ("DROP TABLE orders", "got DROP"),
            ("CREATE TABLE t (x int)", "got CREATE"),
            ("SELECT 1; SELECT 2", "got 2 statements"),
            ("SELECT 1; DELETE FROM orders", "got 2 statements"),
            ("", "got no statement"),
            ("SELEC 1", "does not parse"),
            (
                "WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d",
                "got DELETE (in WITH `d`)",
            ),
            ("WITH a AS (SELECT 1) DELETE FROM orders", "got DELETE"),
            ("SELECT * INTO copy FROM orders", "got SELECT INTO"),
            ("SELECT * FROM orders FOR UPDATE", "row-locking"),
        ] {
            let e = check(sql, Dialects::Postgres).unwrap_err();
            assert!(e.starts_with(ONLY), "{sql}: {e}");
            assert!(e.contains(says), "{sql}: {e}");
        }
        for (sql, says) in [
            ("PRAGMA query_only = 0", "got PRAGMA"),
            ("ATTACH DATABASE 'x.db' AS x", "got ATTACH"),
        ] {
            let e = check(sql, Dialects::Sqlite).unwrap_err();
            assert!(e.contains(says), "{sql}: {e}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let sql = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
        let e = check(&sql, Dialects::Postgres).unwrap_err();
        assert!(e.contains("recursion limit"), "{e}");
    }
}
