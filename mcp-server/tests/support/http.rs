//! Raw requests to a server's HTTP router, in process, for the tests that check the transport
//! itself: hostile headers, malformed bodies, the exact status and headers of each answer.
//! Tests of what a server does over HTTP use `ferromcp::testing::HttpTestClient` instead.

// Each test target uses the part it needs.
#![allow(dead_code)]

use axum::body::Body;
use ferromcp::Server;
use ferromcp::http::HttpOptions;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

/// The 2026 revision, which the modern requests here name.
pub const V: &str = "2026-07-28";
/// The legacy revision of [`INIT`] and [`legacy`].
pub const LEGACY: &str = "2025-11-25";

/// A legacy `initialize` (2025-11-25, no capabilities), id 1.
pub const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// `server`'s endpoint at `/mcp`.
pub fn router(server: &Server, options: HttpOptions) -> axum::Router {
    axum::Router::new().nest_service(
        "/mcp",
        server.http_router(options, CancellationToken::new()),
    )
}

/// A POST to `/mcp` with a loopback `Host` and the media types a client sends.
pub fn post() -> http::request::Builder {
    Request::post("/mcp")
        .header("host", "127.0.0.1:3000")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
}

/// The `_meta` every 2026 request carries: its revision and (no) client capabilities.
pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A 2026 request with this body, and the headers that mirror it (`Mcp-Name` when given).
pub fn modern_request(method: &str, name: Option<&str>, body: String) -> Request<Body> {
    let mut b = post()
        .header("mcp-protocol-version", V)
        .header("mcp-method", method);
    if let Some(name) = name {
        b = b.header("mcp-name", name);
    }
    b.body(Body::from(body)).unwrap()
}

/// A message to the legacy `session`, with its protocol version.
pub fn legacy(session: &str, body: &str) -> Request<Body> {
    post()
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", LEGACY)
        .body(Body::from(body.to_owned()))
        .unwrap()
}

/// The router's answer to `req`: its status, headers and whole body (which must end cleanly
/// and be UTF-8).
pub async fn send(router: &axum::Router, req: Request<Body>) -> (StatusCode, HeaderMap, String) {
    let response = router.clone().oneshot(req).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, headers, String::from_utf8(bytes.to_vec()).unwrap())
}

/// `body` as JSON, or a failure that shows it.
pub fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// [`INIT`] sent at `version` (no `notifications/initialized` after it), and the session id
/// it minted; fails unless the server agreed to `version`.
pub async fn initialize_at(router: &axum::Router, version: &str) -> String {
    let init = INIT.replace(LEGACY, version);
    let (status, headers, body) = send(router, post().body(Body::from(init)).unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(messages(&body)[0]["result"]["protocolVersion"], version);
    headers["mcp-session-id"].to_str().unwrap().to_owned()
}

/// [`initialize_at`] the legacy revision.
pub async fn initialize(router: &axum::Router) -> String {
    initialize_at(router, LEGACY).await
}

/// The events of an SSE body, keep-alive comments left out: each one's `id:` and `data:`.
pub fn events(body: &str) -> Vec<(Option<String>, Option<Value>)> {
    body.split("\n\n")
        .filter(|e| !e.trim().is_empty() && !e.starts_with(':'))
        .map(|e| {
            let id = e
                .lines()
                .find_map(|l| l.strip_prefix("id: "))
                .map(str::to_owned);
            let data = e
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .filter(|d| !d.is_empty())
                .map(json);
            (id, data)
        })
        .collect()
}

/// The JSON-RPC messages of a response body, JSON or SSE.
pub fn messages(body: &str) -> Vec<Value> {
    if body.starts_with('{') {
        return vec![json(body)];
    }
    events(body)
        .into_iter()
        .filter_map(|(_, data)| data)
        .collect()
}
