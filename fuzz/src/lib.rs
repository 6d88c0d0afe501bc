//! What several fuzz targets share: JSON values built from fuzzer bytes, and a runtime to
//! drive async code to completion.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Number, Value};

/// A JSON value from `u`, nested at most `depth` levels, with the scalars a parser finds
/// hardest: large and negative integers, finite floats, and strings with escapes and
/// non-ASCII characters.
pub fn json_value(u: &mut Unstructured<'_>, depth: usize) -> Result<Value> {
    let kinds = if depth == 0 { 6 } else { 8 };
    Ok(match u.int_in_range(0..=kinds - 1)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => Value::from(u.arbitrary::<u64>()?),
        4 => Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        5 => Value::String(u.arbitrary()?),
        6 => {
            let n = u.int_in_range(0..=4)?;
            Value::Array(
                (0..n)
                    .map(|_| json_value(u, depth - 1))
                    .collect::<Result<_>>()?,
            )
        }
        _ => {
            let n = u.int_in_range(0..=4)?;
            let mut map = Map::new();
            for _ in 0..n {
                map.insert(u.arbitrary()?, json_value(u, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

/// Runs `future` to completion on this thread's runtime (one per fuzzing process: building
/// a runtime per input would dominate the time spent).
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a current-thread runtime");
    }
    RUNTIME.with(|rt| rt.block_on(future))
}
