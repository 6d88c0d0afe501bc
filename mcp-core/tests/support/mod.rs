//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// The official spec folder: the repository's bundled copy of the schemas sits in
/// `mcp-core/spec`; the examples live only in the shared spec folder beside the checkout.
pub fn spec_dir() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = manifest.join("../../shared/spec");
    assert!(
        shared.is_dir(),
        "the official spec folder is expected at {} (shared/ beside the checkout)",
        shared.display()
    );
    shared
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
