//! Helpers shared by the examples' in-process tests.

use ferromcp::testing::{ClientOptions, TestClientError};

/// A client of each era, and whether it is the modern one.
pub fn eras() -> [(ClientOptions, bool); 2] {
    [
        (ClientOptions::legacy(), false),
        (ClientOptions::modern(), true),
    ]
}

/// The JSON-RPC error code of a failed request.
pub fn rpc_code(e: TestClientError) -> i64 {
    match e {
        TestClientError::Rpc(e) => e.code.0,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}
