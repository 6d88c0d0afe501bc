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

/// JSON equality that keeps the form of numbers: `18` and `18.0` differ, as they do on the
/// wire (a schema's `"minimum": 18` must come back as written).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    a == b
}
