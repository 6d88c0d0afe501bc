//! What the fuzz targets in `fuzz/` found (docs/fuzzing.md), kept as ordinary tests so the
//! fixes stay fixed without libFuzzer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ferromcp::prelude::*;
use ferromcp::testing::{ClientOptions, TestClient};
use serde_json::json;

struct Numbers;

#[ferromcp::server(name = "numbers")]
impl Numbers {
    /// Returns the number it was given, as text with every digit Rust needs to tell it apart.
    #[tool]
    fn exact(&self, x: f64) -> String {
        format!("{x:?}")
    }
}

/// fuzz/tool_arguments: serde_json's default float parser may be one ULP off, so a tool saw
/// another number than the client wrote (`float_roundtrip` is now on).
#[tokio::test]
async fn a_float_argument_reaches_the_tool_exactly() {
    let server = Server::new(Numbers).unwrap();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = TestClient::connect(&server, options).await.unwrap();
        for x in [1.9465437354380126, 1.111976714075866e-308, 0.1, 5e-324] {
            let result = client.call_tool("exact", json!({"x": x})).await.unwrap();
            assert_eq!(result.content[0].as_text(), Some(format!("{x:?}").as_str()));
        }
    }
}

/// fuzz/http_headers: an `Mcp-Param-*` header holding a float, compared with the body value
/// that serde_json read one ULP off, was refused (400, -32020) from a conforming client.
/// Since then the transport's rules allow annotations on `integer` parameters only, not
/// `number` ones, and the registry refuses the rest; integers are compared numerically, as
/// floats were, the largest a JavaScript client holds exactly included.
#[cfg(feature = "http")]
#[tokio::test]
async fn an_integer_mirrored_into_a_header_matches_its_body_value() {
    use axum::body::Body;
    use ferromcp::CancellationToken;
    use ferromcp::http::HttpOptions;
    use ferromcp::registry::tool_fn;
    use ferromcp::types::Tool;
    use http::{Request, StatusCode};
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    const V: &str = "2026-07-28";
    let server = ServerBuilder::new("headers", "1.0.0").build();
    let schema = |kind: &str| {
        json!({"type": "object", "properties": {"x": {"type": kind, "x-mcp-header": "X"}}})
            .as_object()
            .cloned()
            .unwrap()
    };
    let refused = server.registry().add_tool(
        Tool::new("scale", schema("number")),
        tool_fn(|_: serde_json::Value, _| async { "ok" }),
        None,
    );
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.to_string().contains("not of type")),
        "{refused:?}"
    );
    server
        .registry()
        .add_tool(
            Tool::new("scale", schema("integer")),
            tool_fn(|_: serde_json::Value, _| async { "ok" }),
            None,
        )
        .unwrap();
    let router = axum::Router::new().nest_service(
        "/mcp",
        server.http_router(HttpOptions::default(), CancellationToken::new()),
    );
    for x in ["9007199254740991", "-9007199254740991", "0", "42"] {
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {
                "name": "scale",
                "arguments": {"x": x.parse::<i64>().unwrap()},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": V,
                    "io.modelcontextprotocol/clientCapabilities": {}
                }
            }
        })
        .to_string();
        let request = Request::post("/mcp")
            .header("host", "127.0.0.1:3000")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", V)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "scale")
            .header("mcp-param-x", x)
            .body(Body::from(body))
            .unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(
            status,
            StatusCode::OK,
            "{x}: {}",
            String::from_utf8_lossy(&bytes)
        );
    }
}
