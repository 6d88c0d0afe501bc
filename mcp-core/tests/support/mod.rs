//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// The official schemas and 2026-07-28 examples, vendored at the workspace root (`spec/`,
/// see its README for the source revision and license).
pub fn spec_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec");
    assert!(
        dir.is_dir(),
        "the vendored spec folder is expected at {}",
        dir.display()
    );
    dir
}

/// JSON equality where numbers compare by value (`50` equals `50.0`), as JSON has one number
/// type.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}
