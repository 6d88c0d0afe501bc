//! Parameters and values of the PostgreSQL backend.
//!
//! Values: the user's statement runs exactly as written (it is not wrapped in anything, so
//! PostgreSQL's own checks apply to it as the user wrote it), through a portal that fetches
//! at most `max_rows + 1` rows. Rather than decoding every PostgreSQL type by hand, the
//! rows' binary values are sent back, typed as they came, to `SELECT to_json($1)::text, …`
//! in the same transaction: the server renders each value the way it renders JSON (numbers,
//! strings for dates and times, arrays, named composite types), for any type with a binary
//! form, in one round trip per ~1600 values. The price: anonymous records (`ROW(…)`) have
//! no binary input, so such a column is refused with a message saying how to convert it.

use bytes::BytesMut;
use serde_json::Value;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Row, Transaction};

use super::super::{DbError, Scalar};
use super::pg_error;

/// PostgreSQL allows at most 1664 entries in a select list.
const MAX_SELECT_LIST: usize = 1600;

/// Refuses, before running anything, a column whose values cannot be sent back to
/// `to_json`: the server has no binary input for anonymous records (`ROW(…)`, the whole row
/// of a subquery).
pub(super) fn unshowable_column(columns: &[tokio_postgres::Column]) -> Result<(), DbError> {
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
pub(super) struct TextParam(String);

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
pub(super) fn text_param(
    index: usize,
    ty: &Type,
    value: &Scalar,
) -> Result<Option<TextParam>, DbError> {
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
pub(super) async fn to_json(
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
