//! The statement check that runs before anything reaches the database: exactly one
//! statement, and a query (`SELECT`, `VALUES`, `WITH … SELECT`) that neither writes through
//! a data-modifying `WITH`, nor creates a table (`SELECT … INTO`), nor locks rows
//! (`FOR UPDATE`); then the function policy, on every function the parsed tree calls
//! (select list, `WHERE`, `ORDER BY`, casts, `FROM` functions, CTEs and subqueries alike).
//!
//! The function policy exists because a read-only transaction does not stop everything:
//! `pg_terminate_backend`, `pg_read_file` or `lo_import` run in one, and a privileged role
//! may call them. So functions are judged by name on the parsed statement, not by keyword on
//! its text (`pg_catalog.PG_READ_FILE`, a quoted name or a call nested in a cast all name
//! the same function): a deny-list of functions that reach outside the query (files, large
//! objects, other backends, the server's configuration, other databases, locks that outlive
//! the query, notifications, sleeps, SQL run from a string) refused whatever their
//! volatility, and, in PostgreSQL, every volatile function refused unless on a short list
//! of harmless ones. Volatility comes from `pg_proc`, read once at start-up.
//!
//! This is the first of three walls: the connection itself is read-only (a read-only SQLite
//! open, a `READ ONLY` PostgreSQL transaction), and the statement timeout and row cap bound
//! what a query may cost.

use std::collections::HashMap;
use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, FunctionArguments, ObjectName, ObjectNamePart, Query, SetExpr, Statement, TableFactor,
    Visit, Visitor,
};
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

/// How volatile PostgreSQL says a function is (`pg_proc.provolatile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Volatility {
    /// `i`: same arguments, same result, no side effects.
    Immutable,
    /// `s`: no side effects; the result may change between statements.
    Stable,
    /// `v`: may have side effects.
    Volatile,
}

impl Volatility {
    /// From `pg_proc.provolatile`; anything unknown counts as volatile.
    pub fn from_code(code: &str) -> Volatility {
        match code {
            "i" => Volatility::Immutable,
            "s" => Volatility::Stable,
            _ => Volatility::Volatile,
        }
    }
}

/// What the check accepts: the dialect, and for PostgreSQL the functions the catalog knows.
#[derive(Debug, Clone)]
pub struct Policy {
    dialect: Dialects,
    /// PostgreSQL: each function name in `pg_proc`, with the most volatile of its overloads.
    volatility: HashMap<String, Volatility>,
}

impl Policy {
    /// The policy for SQLite: the deny-list of functions.
    pub fn sqlite() -> Policy {
        Policy {
            dialect: Dialects::Sqlite,
            volatility: HashMap::new(),
        }
    }

    /// The policy for PostgreSQL, given each function name in `pg_proc` and the most
    /// volatile of its overloads.
    pub fn postgres(volatility: HashMap<String, Volatility>) -> Policy {
        Policy {
            dialect: Dialects::Postgres,
            volatility,
        }
    }

    /// Its dialect.
    pub fn dialect(&self) -> Dialects {
        self.dialect
    }
}

/// Volatile PostgreSQL functions that are harmless to call: they only make up values.
pub const ALLOWED_VOLATILE: &[&str] = &[
    "random",
    "random_normal",
    "gen_random_uuid",
    "uuidv4",
    "uuidv7",
    "clock_timestamp",
    "timeofday",
];

/// PostgreSQL functions refused whatever their volatility: a name (or, ending in `*`, a
/// prefix) and why.
const PG_DENIED: &[(&[&str], &str)] = &[
    (
        &[
            "pg_read_file",
            "pg_read_binary_file",
            "pg_ls_*",
            "pg_stat_file",
            "pg_file_*",
            "pg_logdir_ls",
            "pg_current_logfile",
        ],
        "it reads or lists files on the database server",
    ),
    (
        &["lo_*", "loread", "lowrite"],
        "it reads or writes large objects, which import and export server files",
    ),
    (
        &[
            "pg_terminate_backend",
            "pg_cancel_backend",
            "pg_signal_backend",
            "pg_reload_conf",
            "pg_rotate_logfile",
            "pg_promote",
            "pg_switch_wal",
            "pg_create_*",
            "pg_drop_replication_slot",
            "pg_copy_*",
            "pg_replication_*",
            "pg_logical_*",
            "pg_sync_replication_slots",
            "pg_backup_*",
            "pg_start_backup",
            "pg_stop_backup",
            "pg_wal_replay_*",
            "pg_log_backend_memory_contexts",
            "pg_stat_reset*",
            "pg_stat_statements_reset",
            "pg_import_system_collations",
            "pg_export_snapshot",
            "pg_restore_*",
            "pg_clear_*",
            "pg_set_*",
        ],
        "it administers the server (other backends, configuration, WAL, replication, statistics)",
    ),
    (
        &["dblink*"],
        "it connects to another database, outside this read-only transaction",
    ),
    (
        &["pg_advisory_*", "pg_try_advisory_*"],
        "it takes advisory locks, which can outlive the query",
    ),
    (&["set_config"], "it changes server settings"),
    (&["pg_notify"], "it sends a notification to other sessions"),
    (&["pg_sleep*"], "it sleeps, holding a connection"),
    (
        &["query_to_xml*", "cursor_to_xml*", "ts_stat"],
        "it runs SQL given as a string, which the statement check cannot see",
    ),
    (&["nextval", "setval"], "it changes a sequence"),
    (
        &["txid_current", "pg_current_xact_id"],
        "it assigns a transaction ID, a write that a read-only transaction allows",
    ),
];

/// SQLite functions refused: a name (or, ending in `*`, a prefix) and why.
const SQLITE_DENIED: &[(&[&str], &str)] = &[
    (&["load_extension"], "it loads native code into the server"),
    (
        &[
            "readfile",
            "writefile",
            "edit",
            "fsdir",
            "zipfile*",
            "sqlar_*",
        ],
        "it reads or writes files",
    ),
    (
        &[
            "sqlite_dbpage",
            "sqlite_dbdata",
            "sqlite_dbptr",
            "fts3_tokenizer",
        ],
        "it reaches below SQL, into pages or native pointers",
    ),
];

/// Names PostgreSQL parses as functions that are SQL syntax rather than `pg_proc` entries.
const PG_SYNTAX: &[&str] = &[
    "coalesce",
    "nullif",
    "greatest",
    "least",
    "row",
    "grouping",
    "current_date",
    "current_time",
    "current_timestamp",
    "localtime",
    "localtimestamp",
    "current_user",
    "current_role",
    "current_catalog",
    "current_schema",
    "session_user",
    "system_user",
    "user",
    "xmlelement",
    "xmlforest",
    "xmlconcat",
    "xmlpi",
    "xmlroot",
    "xmlparse",
    "xmlserialize",
    "xmlexists",
    "json_object",
    "json_array",
    "json_objectagg",
    "json_arrayagg",
    "json_scalar",
    "json_serialize",
    "json_query",
    "json_value",
    "json_exists",
];

fn denied(list: &[(&[&str], &'static str)], name: &str) -> Option<&'static str> {
    list.iter().find_map(|(names, why)| {
        names
            .iter()
            .any(|pattern| match pattern.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => name == *pattern,
            })
            .then_some(*why)
    })
}

impl Policy {
    /// Refuses a call of the function `name` (the last part of a possibly qualified name).
    fn function(&self, name: &ObjectName) -> Result<(), String> {
        let Some(last) = name.0.last() else {
            return Err("refused a function call without a name".to_owned());
        };
        let ObjectNamePart::Identifier(ident) = last else {
            return Err(format!(
                "refused the function call `{name}`: computed names are not allowed"
            ));
        };
        // Compared in lowercase: a quoted `"PG_READ_FILE"` is another function in PostgreSQL,
        // so this only ever refuses more.
        let lower = ident.value.to_lowercase();
        let list = match self.dialect {
            Dialects::Sqlite => SQLITE_DENIED,
            Dialects::Postgres => PG_DENIED,
        };
        if let Some(why) = denied(list, &lower) {
            return Err(format!("refused the function `{lower}`: {why}"));
        }
        if self.dialect == Dialects::Sqlite {
            return Ok(());
        }
        // The name as PostgreSQL resolves it: folded to lowercase unless quoted.
        let key = if ident.quote_style.is_some() {
            ident.value.clone()
        } else {
            lower.clone()
        };
        match self.volatility.get(&key) {
            Some(Volatility::Volatile) if !ALLOWED_VOLATILE.contains(&key.as_str()) => {
                Err(format!(
                    "refused the function `{key}`: it is volatile (pg_proc), so it may change \
                     the database or the session; of the volatile functions only {} are allowed",
                    ALLOWED_VOLATILE.join(", ")
                ))
            }
            Some(_) => Ok(()),
            None if ident.quote_style.is_none() && PG_SYNTAX.contains(&key.as_str()) => Ok(()),
            None => Err(format!(
                "refused the function `{key}`: it is not in the catalog (pg_proc) as read when \
                 the server started, so its volatility is unknown"
            )),
        }
    }
}

/// Walks the whole tree, stopping at the first refused function.
struct Functions<'p>(&'p Policy);

impl Visitor for Functions<'_> {
    type Break = String;

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<String> {
        if let Expr::Function(f) = expr {
            if let Err(e) = self.0.function(&f.name) {
                return ControlFlow::Break(e);
            }
            // `f(a)(b)`: ClickHouse's parametric functions; nothing PostgreSQL or SQLite has.
            if !matches!(f.parameters, FunctionArguments::None) {
                return ControlFlow::Break(format!("refused `{}`: unsupported syntax", f.name));
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<String> {
        let called = match factor {
            // `FROM f(…)`: a set-returning function.
            TableFactor::Table {
                name,
                args: Some(_),
                ..
            }
            | TableFactor::Function { name, .. } => Some(name),
            _ => None,
        };
        match called.map(|name| self.0.function(name)) {
            Some(Err(e)) => ControlFlow::Break(e),
            _ => ControlFlow::Continue(()),
        }
    }
}

/// Accepts `sql` if it is exactly one read-only query that calls no refused function;
/// otherwise says why not.
///
/// # Errors
///
/// The reason for the refusal: starting with "only a single SELECT/WITH query is allowed"
/// for a statement that is not one query, with "refused the function `name`" for a function.
pub fn check(sql: &str, policy: &Policy) -> Result<(), String> {
    let parsed = match policy.dialect {
        Dialects::Sqlite => parse(&SQLiteDialect {}, sql),
        Dialects::Postgres => parse(&PostgreSqlDialect {}, sql),
    };
    let statements = parsed.map_err(|e| format!("{ONLY}; the SQL does not parse: {e}"))?;
    let query = match statements.as_slice() {
        [] => return Err(format!("{ONLY}; got no statement")),
        [Statement::Query(query)] => query,
        [other] => return Err(format!("{ONLY}; got {}", leading_keyword(other))),
        many => return Err(format!("{ONLY}; got {} statements", many.len())),
    };
    check_query(query)?;
    match query.visit(&mut Functions(policy)) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
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

    fn pg() -> Policy {
        let mut volatility = HashMap::new();
        for (name, v) in [
            ("now", Volatility::Stable),
            ("lower", Volatility::Immutable),
            ("count", Volatility::Immutable),
            ("sum", Volatility::Immutable),
            ("random", Volatility::Volatile),
            ("nextval", Volatility::Volatile),
            ("pg_read_file", Volatility::Volatile),
            ("pg_terminate_backend", Volatility::Volatile),
            ("lo_import", Volatility::Volatile),
            ("txid_current", Volatility::Volatile),
            ("query_to_xml", Volatility::Stable),
            ("generate_series", Volatility::Immutable),
            ("Odd", Volatility::Volatile),
        ] {
            volatility.insert(name.to_owned(), v);
        }
        Policy::postgres(volatility)
    }

    fn check_pg(sql: &str) -> Result<(), String> {
        check(sql, &pg())
    }

    fn check_lite(sql: &str) -> Result<(), String> {
        check(sql, &Policy::sqlite())
    }

    #[test]
    fn functions_are_judged_wherever_they_are_called() {
        for sql in [
            "SELECT now(), lower('A'), count(*), random() FROM orders",
            "SELECT * FROM generate_series(1, 3)",
            "SELECT coalesce(NULL, 1), CURRENT_TIMESTAMP, greatest(1, 2)",
            "SELECT 'pg_sleep(1)' FROM orders WHERE note LIKE '%pg_read_file%'",
        ] {
            assert_eq!(check_pg(sql), Ok(()), "{sql}");
        }
        for (sql, says) in [
            (
                "SELECT pg_read_file('/etc/passwd')",
                "`pg_read_file`: it reads",
            ),
            (
                "SELECT PG_CATALOG.PG_READ_FILE('/etc/passwd')",
                "`pg_read_file`",
            ),
            ("SELECT pg_read_file/**/('/etc/passwd')", "`pg_read_file`"),
            ("SELECT \"pg_read_file\"('/etc/passwd')", "`pg_read_file`"),
            ("SELECT CAST(pg_read_file('x') AS int)", "`pg_read_file`"),
            ("SELECT pg_read_file('x')::int", "`pg_read_file`"),
            ("SELECT * FROM pg_read_file('x')", "`pg_read_file`"),
            ("SELECT * FROM LATERAL pg_ls_dir('.') d", "`pg_ls_dir`"),
            ("SELECT 1 ORDER BY pg_sleep(1)", "`pg_sleep`: it sleeps"),
            (
                "SELECT 1 WHERE EXISTS (SELECT lo_import('/etc/passwd'))",
                "`lo_import`",
            ),
            (
                "WITH t AS (SELECT pg_terminate_backend(1)) SELECT * FROM t",
                "`pg_terminate_backend`",
            ),
            (
                "SELECT count(*) FILTER (WHERE pg_advisory_lock(1) IS NULL) FROM orders",
                "advisory",
            ),
            (
                "SELECT sum(x) OVER (ORDER BY set_config('a.b', 'c', false)) FROM t",
                "`set_config`",
            ),
            (
                "SELECT query_to_xml('select 1', true, false, '')",
                "runs SQL given as a string",
            ),
            ("SELECT dblink('x', 'y')", "`dblink`"),
            ("SELECT nextval('s')", "`nextval`"),
            ("SELECT txid_current()", "`txid_current`: it assigns"),
            ("SELECT \"Odd\"()", "`Odd`: it is volatile"),
            (
                "SELECT my_new_function()",
                "`my_new_function`: it is not in the catalog",
            ),
            (
                "SELECT (SELECT count(x) FROM (SELECT pg_notify('c', 'm') AS x) s)",
                "`pg_notify`",
            ),
        ] {
            let e = check_pg(sql).unwrap_err();
            assert!(e.starts_with("refused the function"), "{sql}: {e}");
            assert!(e.contains(says), "{sql}: {e}");
        }
        assert_eq!(
            check_lite("SELECT random(), upper('a'), date('now')"),
            Ok(())
        );
        for (sql, says) in [
            ("SELECT load_extension('evil')", "`load_extension`"),
            ("SELECT readfile('/etc/passwd')", "`readfile`"),
            ("SELECT 1 ORDER BY writefile('x', 'y')", "`writefile`"),
            ("SELECT * FROM fsdir('/')", "`fsdir`"),
        ] {
            let e = check_lite(sql).unwrap_err();
            assert!(e.contains(says), "{sql}: {e}");
        }
    }

    #[test]
    fn accepts_queries() {
        for sql in [
            "SELECT 1",
            "select * from orders where id = 1;",
            "WITH t AS (SELECT 1 AS x) SELECT x FROM t UNION ALL SELECT 2",
            "VALUES (1, 2)",
            "SELECT 1 -- a comment; DELETE FROM orders",
        ] {
            assert_eq!(check_lite(sql), Ok(()), "{sql}");
            assert_eq!(check_pg(sql), Ok(()), "{sql}");
        }
        assert_eq!(check_pg("SELECT $1::int, now()"), Ok(()));
        assert_eq!(check_lite("SELECT ?1, ?, :name, $x"), Ok(()));
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
            let e = check_pg(sql).unwrap_err();
            assert!(e.starts_with(ONLY), "{sql}: {e}");
            assert!(e.contains(says), "{sql}: {e}");
        }
        for (sql, says) in [
            ("PRAGMA query_only = 0", "got PRAGMA"),
            ("ATTACH DATABASE 'x.db' AS x", "got ATTACH"),
        ] {
            let e = check_lite(sql).unwrap_err();
            assert!(e.contains(says), "{sql}: {e}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let sql = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
        let e = check_pg(&sql).unwrap_err();
        assert!(e.contains("recursion limit"), "{e}");
    }
}
