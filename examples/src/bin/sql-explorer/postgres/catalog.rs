//! What the catalog says about the tables: the index of relations the role may read, and
//! one table's columns, keys and indexes.

use tokio_postgres::Transaction;

use super::super::{Column, DbError, ForeignKey, Index, TableInfo, TableSummary, quote_ident};
use super::{Postgres, pg_error};

impl Postgres {
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
