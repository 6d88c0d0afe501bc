//! What a handler learns about its request beyond the arguments: the HTTP request it came
//! in, and its legacy session's state.

#![cfg(all(feature = "http", feature = "testing"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support {
    pub mod http;
}

use std::sync::Arc;
use std::time::Duration;

use ferromcp::extract::HttpRequest;
use ferromcp::http::HttpOptions;
use ferromcp::prelude::*;
use ferromcp::session::{SessionData, SessionError};
use ferromcp::store::MemorySessionStore;
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use http_body_util::BodyExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tower::ServiceExt;

use support::http::{
    initialize, json, legacy, messages, modern_meta, modern_request, router, send,
};

struct Tenants;

#[ferromcp::server]
impl Tenants {
    /// The tenant the request names in its `x-tenant` header.
    #[tool]
    fn tenant(&self, request: HttpRequest) -> String {
        let tenant = request
            .headers()
            .get("x-tenant")
            .and_then(|v| v.to_str().ok());
        format!(
            "{} {} {}",
            request.method(),
            request.uri().path(),
            tenant.unwrap_or("none")
        )
    }

    /// The request's `Authorization` header, if a handler can see it.
    #[tool]
    fn authorization(&self, request: HttpRequest) -> String {
        let seen = request.headers().get("authorization");
        format!(
            "{:?} {:?}",
            seen,
            request
                .extensions()
                .get::<ferromcp::Principal>()
                .map(|p| p.subject().to_owned())
        )
    }

    /// Whether the context has an HTTP request.
    #[tool]
    fn over_http(&self, ctx: Context) -> String {
        ctx.http_request().is_some().to_string()
    }
}

fn call(id: u32, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
    .to_string()
}

/// `call` with a progress token, so that progress messages are sent.
fn with_progress(call: String) -> String {
    let mut call: Value = serde_json::from_str(&call).unwrap();
    call["params"]["_meta"] = json!({"progressToken": "p"});
    call.to_string()
}

fn text(body: &str) -> String {
    let v = messages(body)
        .pop()
        .unwrap_or_else(|| panic!("no message: {body}"));
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {v}"))
        .to_owned()
}

#[tokio::test]
async fn a_tool_reads_a_header_of_its_http_request() {
    let server = Server::builder(Tenants).build().unwrap();
    let router = router(&server, HttpOptions::default());
    let session = initialize(&router).await;
    let mut req = legacy(&session, &call(2, "tenant", json!({})));
    req.headers_mut()
        .insert("x-tenant", "acme".parse().unwrap());
    let (_, _, body) = send(&router, req).await;
    // Nested at /mcp: the endpoint sees the path that remains.
    assert_eq!(text(&body), "POST / acme");
    let (_, _, body) = send(&router, legacy(&session, &call(3, "over_http", json!({})))).await;
    assert_eq!(text(&body), "true");
}

#[tokio::test]
async fn over_stdio_there_is_no_http_request() {
    let server = Server::builder(Tenants).build().unwrap();
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    match client.call_tool("tenant", json!({})).await {
        Err(TestClientError::Rpc(e)) => {
            assert_eq!(e.code.0, -32600);
            assert!(
                e.message.contains("did not come over HTTP"),
                "{}",
                e.message
            );
        }
        other => panic!("expected -32600, got {other:?}"),
    }
    let result = client.call_tool("over_http", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("false"));
}

/// The protected resource: the endpoint.
#[cfg(feature = "auth")]
const RESOURCE: &str = "http://127.0.0.1:3000/mcp";

/// Accepts one token, for alice.
#[cfg(feature = "auth")]
struct OneToken;

#[cfg(feature = "auth")]
impl ferromcp::auth::TokenValidator for OneToken {
    fn validate<'a>(&'a self, token: &'a str) -> ferromcp::auth::ValidateFuture<'a> {
        let ok = token == "secret-token";
        Box::pin(async move {
            if ok {
                Ok(ferromcp::Principal::new("alice")
                    .with_issuer("https://as.example.com")
                    .with_audiences([RESOURCE])
                    .with_expiry(std::time::SystemTime::now() + Duration::from_secs(3600)))
            } else {
                Err(ferromcp::auth::TokenError::Invalid("unknown token".into()))
            }
        })
    }
}

#[cfg(feature = "auth")]
#[tokio::test]
async fn behind_the_auth_layer_the_token_never_reaches_a_handler() {
    use ferromcp::auth::{AuthConfig, AuthLayer};
    let server = Server::builder(Tenants).build().unwrap();
    let app = router(&server, HttpOptions::default()).layer(AuthLayer::new(
        AuthConfig::new(RESOURCE, "https://as.example.com").unwrap(),
        OneToken,
    ));
    let bearer = |mut req: http::Request<axum::body::Body>| {
        req.headers_mut()
            .insert("authorization", "Bearer secret-token".parse().unwrap());
        req
    };
    let (status, headers, body) = send(
        &app,
        bearer(
            support::http::post()
                .body(support::http::INIT.into())
                .unwrap(),
        ),
    )
    .await;
    assert_eq!(status, http::StatusCode::OK, "{body}");
    let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let req = bearer(legacy(&session, &call(2, "authorization", json!({}))));
    let (_, _, body) = send(&app, req).await;
    assert_eq!(text(&body), "None Some(\"alice\")");
}

/// rmcp's counter, per session.
#[derive(Clone, Default, Serialize, Deserialize)]
struct Counter {
    count: u64,
}

impl SessionData for Counter {
    const KEY: &'static str = "counter";
}

/// Anything, as large as asked.
#[derive(Clone, Default, Serialize, Deserialize)]
struct Blob(String);

impl SessionData for Blob {
    const KEY: &'static str = "blob";
}

struct Counting;

#[ferromcp::server]
impl Counting {
    /// Adds one to this session's count.
    #[tool]
    fn increment(&self, counter: SessionState<Counter>) -> Result<String, SessionError> {
        counter.update(|c| {
            c.count += 1;
            c.count.to_string()
        })
    }

    /// Adds one after a progress message, once the test says so: the change is made while
    /// the answer streams.
    #[tool]
    async fn increment_later(
        &self,
        ctx: Context,
        State(go): State<Notify>,
        counter: SessionState<Counter>,
    ) -> Result<String, SessionError> {
        ctx.progress(1.0, None, Some("started")).await;
        go.notified().await;
        counter.update(|c| {
            c.count += 1;
            c.count.to_string()
        })
    }

    /// This session's count.
    #[tool]
    fn get_value(&self, counter: SessionState<Counter>) -> String {
        counter.get().count.to_string()
    }

    /// Keeps `size` bytes in the session.
    #[tool]
    fn keep(&self, blob: SessionState<Blob>, size: usize) -> Result<String, SessionError> {
        blob.update(|b| b.0 = "x".repeat(size))
            .map(|()| "kept".to_owned())
    }

    /// The session's id.
    #[tool]
    fn session_id(&self, session: Session) -> String {
        session.id().unwrap_or("none").to_owned()
    }
}

fn counting() -> Server {
    Server::builder(Counting)
        .state(Notify::new())
        .build()
        .unwrap()
}

/// Calls `tool` in `session`: the text of its result.
async fn call_in(router: &axum::Router, session: &str, tool: &str, arguments: Value) -> String {
    let (_, _, body) = send(router, legacy(session, &call(2, tool, arguments))).await;
    text(&body)
}

#[tokio::test]
async fn each_session_over_http_keeps_its_own_count() {
    let router = router(&counting(), HttpOptions::default());
    let a = initialize(&router).await;
    assert_eq!(call_in(&router, &a, "increment", json!({})).await, "1");
    assert_eq!(call_in(&router, &a, "increment", json!({})).await, "2");
    let b = initialize(&router).await;
    assert_eq!(call_in(&router, &b, "get_value", json!({})).await, "0");
    assert_eq!(call_in(&router, &a, "get_value", json!({})).await, "2");
    assert_eq!(call_in(&router, &b, "session_id", json!({})).await, b);
}

#[tokio::test]
async fn over_stdio_the_pipe_is_the_session() {
    let server = counting();
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    client.call_tool("increment", json!({})).await.unwrap();
    let result = client.call_tool("get_value", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("1"));
    let result = client.call_tool("session_id", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("none"));
}

#[tokio::test]
async fn a_change_past_the_limit_is_refused_and_the_state_stays() {
    let router = router(&counting(), HttpOptions::default());
    let a = initialize(&router).await;
    assert_eq!(
        call_in(&router, &a, "keep", json!({"size": 10})).await,
        "kept"
    );
    let (_, _, body) = send(
        &router,
        legacy(&a, &call(2, "keep", json!({"size": 64 * 1024}))),
    )
    .await;
    let answer = messages(&body).pop().unwrap();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(text(&body).contains("65536 bytes"), "{body}");
    // The count, another type, is still there to change.
    assert_eq!(call_in(&router, &a, "increment", json!({})).await, "1");
    assert_eq!(
        call_in(&router, &a, "keep", json!({"size": 20})).await,
        "kept"
    );
}

#[tokio::test]
async fn in_the_stateless_era_session_state_is_refused_with_a_pointer_to_the_docs() {
    let router = router(&counting(), HttpOptions::default());
    let mut params = json!({"name": "get_value", "arguments": {}});
    params["_meta"] = modern_meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let req = modern_request("tools/call", Some("get_value"), body.to_string());
    let (_, _, body) = send(&router, req).await;
    let answer = json(&body);
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("docs/state.md"),
        "{answer}"
    );
}

/// Two instances sharing one session store, each re-reading a session on every request.
fn replicas() -> (Server, axum::Router, axum::Router) {
    let store = Arc::new(MemorySessionStore::new());
    let options = || {
        HttpOptions::default()
            .session_store(store.clone())
            .shared_session_recheck(Duration::ZERO)
    };
    let a = counting();
    let ra = router(&a, options());
    (a, ra, router(&counting(), options()))
}

#[tokio::test]
async fn a_sessions_state_moves_with_it_between_instances() {
    let (_server, a, b) = replicas();
    let id = initialize(&a).await;
    assert_eq!(call_in(&a, &id, "increment", json!({})).await, "1");
    assert_eq!(call_in(&b, &id, "get_value", json!({})).await, "1");
    assert_eq!(call_in(&b, &id, "increment", json!({})).await, "2");
    assert_eq!(call_in(&a, &id, "get_value", json!({})).await, "2");
}

#[tokio::test]
async fn a_change_made_while_the_answer_streams_reaches_the_other_instance() {
    let (server, a, b) = replicas();
    let id = initialize(&a).await;
    // The answer is a stream from its progress message on; the count changes after that.
    let response = a
        .clone()
        .oneshot(legacy(
            &id,
            &with_progress(call(2, "increment_later", json!({}))),
        ))
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    server.state::<Notify>().unwrap().notify_one();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(text(std::str::from_utf8(&body).unwrap()), "1");
    assert_eq!(call_in(&b, &id, "get_value", json!({})).await, "1");
}
