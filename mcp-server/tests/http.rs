//! Streamable HTTP through the axum router (no socket): both eras, sessions, the security
//! defaults and the attacks they stop.

#![cfg(feature = "http")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support {
    pub mod http;
}

use std::time::Duration;

use axum::body::Body;
use ferromcp::Principal;
use ferromcp::http::HttpOptions;
use ferromcp::registry::tool_fn;
use ferromcp::types::{CreateMessageRequestParams, SamplingMessage, Tool};
use ferromcp::{Context, Server, ServerBuilder};
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use support::http::{
    INIT, V, events, initialize, initialize_at, json, legacy, messages, modern_meta,
    modern_request, post, router, send,
};

fn server() -> Server {
    let server = ServerBuilder::new("http-test", "1.0.0").build();
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    let r = server.registry();
    r.add_tool(
        Tool::new("hi", schema.clone()),
        tool_fn(|_: Value, _| async { "hello" }),
        None,
    )
    .unwrap();
    r.add_tool(
        Tool::new("progress", schema.clone()),
        tool_fn(|_: Value, ctx: Context| async move {
            ctx.progress(1.0, Some(2.0), None).await;
            ctx.progress(2.0, Some(2.0), None).await;
            "done"
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        Tool::new("needs_sampling", schema.clone()),
        tool_fn(|_: Value, ctx: Context| async move {
            let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("x")], 5);
            ctx.sample(params)
                .await
                .map(|_| "sampled")
                .map_err(|e| e.to_string())
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        Tool::new("polling", schema.clone()),
        tool_fn(|_: Value, ctx: Context| async move {
            ctx.progress(1.0, None, Some("started")).await;
            ctx.close_sse_stream();
            tokio::time::sleep(Duration::from_millis(50)).await;
            "resumed"
        }),
        None,
    )
    .unwrap();
    let mut mirrored = Tool::new(
        "query",
        json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}})
            .as_object()
            .cloned()
            .unwrap(),
    );
    mirrored.description = Some("A tool with a mirrored parameter.".into());
    r.add_tool(
        mirrored,
        tool_fn(|a: Value, _| async move { a["region"].as_str().unwrap_or("").to_owned() }),
        None,
    )
    .unwrap();
    server
}

fn modern_body(method: &str, params: Value) -> String {
    let mut params = params;
    params["_meta"] = modern_meta();
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()
}

fn modern(method: &str, name: Option<&str>, params: Value) -> Request<Body> {
    modern_request(method, name, modern_body(method, params))
}

#[tokio::test]
async fn hostile_hosts_and_origins_are_refused_before_the_body_is_read() {
    let router = router(&server(), HttpOptions::default());
    for (host, origin) in [
        ("evil.example.com", None),
        ("localhost.evil.com:3000", None),
        ("127.0.0.1:3000", Some("http://evil.example")),
        ("127.0.0.1:3000", Some("null")),
        ("127.0.0.1:3000", Some("http://user@localhost")),
    ] {
        let mut b = Request::post("/mcp")
            .header("host", host)
            .header("content-type", "application/json");
        if let Some(o) = origin {
            b = b.header("origin", o);
        }
        // A body that would fail to parse: the refusal must come first.
        let (status, _, body) = send(&router, b.body(Body::from("not json")).unwrap()).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{host} {origin:?}");
        assert_eq!(json(&body)["id"], Value::Null);
    }
    for origin in [None, Some("http://localhost:5173")] {
        let mut b = post();
        if let Some(o) = origin {
            b = b.header("origin", o);
        }
        let (status, _, _) = send(&router, b.body(Body::from(INIT)).unwrap()).await;
        assert_eq!(status, StatusCode::OK, "{origin:?}");
    }
}

#[tokio::test]
async fn media_types_and_body_limits() {
    let router = router(&server(), HttpOptions::default().max_body_size(1024));
    let req = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "text/plain")
        .body(Body::from(INIT))
        .unwrap();
    assert_eq!(
        send(&router, req).await.0,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    let req = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json; charset=utf-8")
        .body(Body::from(INIT))
        .unwrap();
    assert_eq!(send(&router, req).await.0, StatusCode::OK);
    let req = post()
        .header("accept", "text/html")
        .body(Body::from(INIT))
        .unwrap();
    let req = {
        let (mut parts, body) = req.into_parts();
        parts.headers.insert("accept", "text/html".parse().unwrap());
        Request::from_parts(parts, body)
    };
    assert_eq!(send(&router, req).await.0, StatusCode::NOT_ACCEPTABLE);

    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"p":"{}"}}}}"#,
        "x".repeat(1024)
    );
    // Declared too large.
    let req = post()
        .header("content-length", big.len())
        .body(Body::from(big.clone()))
        .unwrap();
    assert_eq!(send(&router, req).await.0, StatusCode::PAYLOAD_TOO_LARGE);
    // Streamed (chunked) with no length.
    let chunks = big
        .as_bytes()
        .chunks(100)
        .map(bytes::Bytes::copy_from_slice)
        .collect();
    let req = post().body(Body::new(Chunks(chunks))).unwrap();
    assert_eq!(send(&router, req).await.0, StatusCode::PAYLOAD_TOO_LARGE);
    // A lying Content-Length.
    let req = post()
        .header("content-length", "10")
        .body(Body::from(big.clone()))
        .unwrap();
    assert_eq!(send(&router, req).await.0, StatusCode::PAYLOAD_TOO_LARGE);
}

/// A body delivered in chunks with no length: what a chunked upload looks like.
struct Chunks(std::collections::VecDeque<bytes::Bytes>);

impl http_body::Body for Chunks {
    type Data = bytes::Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, std::io::Error>>> {
        std::task::Poll::Ready(self.0.pop_front().map(|b| Ok(http_body::Frame::data(b))))
    }
}

#[tokio::test]
async fn legacy_sessions_are_minted_required_and_ended() {
    let router = router(&server(), HttpOptions::default());
    let id = initialize(&router).await;
    assert!(id.len() >= 32 && id.bytes().all(|b| (0x21..=0x7e).contains(&b)));

    // An attacker-chosen id sent with initialize is never adopted.
    let req = post()
        .header("mcp-session-id", "chosen-by-attacker")
        .body(Body::from(INIT))
        .unwrap();
    let (_, headers, _) = send(&router, req).await;
    let minted = headers.get("mcp-session-id").unwrap().to_str().unwrap();
    assert_ne!(minted, "chosen-by-attacker");
    assert_ne!(minted, id);

    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (status, _, body) = send(&router, legacy(&id, list)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json(&body)["result"]["tools"].as_array().unwrap().len(), 5);

    let (status, _, _) = send(&router, post().body(Body::from(list)).unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "no session id");
    for bad in ["unknown", &"a".repeat(10_000)] {
        let (status, _, _) = send(&router, legacy(bad, list)).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
    let non_ascii = post()
        .header(
            "mcp-session-id",
            http::HeaderValue::from_bytes(b"caf\xe9").unwrap(),
        )
        .body(Body::from(list))
        .unwrap();
    assert_eq!(send(&router, non_ascii).await.0, StatusCode::BAD_REQUEST);

    let bad_version = post()
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "1999-01-01")
        .body(Body::from(list))
        .unwrap();
    assert_eq!(send(&router, bad_version).await.0, StatusCode::BAD_REQUEST);
    let no_version = post()
        .header("mcp-session-id", &id)
        .body(Body::from(list))
        .unwrap();
    assert_eq!(
        send(&router, no_version).await.0,
        StatusCode::OK,
        "absent means 2025-03-26"
    );

    let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let (status, _, body) = send(&router, legacy(&id, note)).await;
    assert_eq!((status, body.as_str()), (StatusCode::ACCEPTED, ""));

    let delete = Request::delete("/mcp")
        .header("host", "localhost")
        .header("mcp-session-id", &id)
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&router, delete).await.0, StatusCode::OK);
    assert_eq!(
        send(&router, legacy(&id, list)).await.0,
        StatusCode::NOT_FOUND,
        "ended sessions are unknown"
    );

    for method in [http::Method::GET, http::Method::DELETE] {
        let req = Request::builder()
            .method(method)
            .uri("/mcp")
            .header("host", "localhost")
            .body(Body::empty())
            .unwrap();
        assert_eq!(send(&router, req).await.0, StatusCode::METHOD_NOT_ALLOWED);
    }
}

#[tokio::test]
async fn sessions_are_bound_to_their_principal() {
    let router = router(&server(), HttpOptions::default());
    let mut req = post().body(Body::from(INIT)).unwrap();
    req.extensions_mut().insert(Principal::new("alice"));
    let (_, headers, _) = send(&router, req).await;
    let id = headers
        .get("mcp-session-id")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let mut as_bob = legacy(&id, list);
    as_bob.extensions_mut().insert(Principal::new("bob"));
    assert_eq!(send(&router, as_bob).await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        send(&router, legacy(&id, list)).await.0,
        StatusCode::NOT_FOUND,
        "anonymous is another principal"
    );
    let mut as_alice = legacy(&id, list);
    as_alice.extensions_mut().insert(Principal::new("alice"));
    assert_eq!(send(&router, as_alice).await.0, StatusCode::OK);
}

#[tokio::test]
async fn the_session_cap_holds_under_twenty_thousand_initializes() {
    let router = router(&server(), HttpOptions::default().max_sessions(500));
    let first = initialize(&router).await;
    let mut last = String::new();
    for _ in 0..20_000 {
        last = initialize(&router).await;
    }
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    assert_eq!(
        send(&router, legacy(&first, list)).await.0,
        StatusCode::NOT_FOUND,
        "the oldest was evicted"
    );
    assert_eq!(send(&router, legacy(&last, list)).await.0, StatusCode::OK);
}

#[tokio::test]
async fn modern_requests_check_headers_envelope_and_methods() {
    let router = router(&server(), HttpOptions::default());
    let (status, headers, body) = send(&router, modern("server/discover", None, json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(headers.get("content-type").unwrap(), "application/json");
    assert!(
        headers.get("mcp-session-id").is_none(),
        "the modern era has no sessions"
    );
    assert_eq!(json(&body)["result"]["resultType"], "complete");

    let call = modern("tools/call", Some("hi"), json!({"name": "hi"}));
    let (status, _, body) = send(&router, call).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json(&body)["result"]["content"][0]["text"], "hello");

    // Header problems: 400 / -32020.
    let body = modern_body("tools/call", json!({"name": "hi"}));
    for req in [
        post()
            .header("mcp-protocol-version", V)
            .header("mcp-name", "hi"),
        post()
            .header("mcp-protocol-version", V)
            .header("mcp-method", "tools/list")
            .header("mcp-name", "hi"),
        post()
            .header("mcp-protocol-version", V)
            .header("mcp-method", "tools/call"),
        post()
            .header("mcp-protocol-version", V)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "other"),
        post()
            .header("mcp-method", "tools/call")
            .header("mcp-name", "hi"),
    ] {
        let (status, _, out) = send(&router, req.body(Body::from(body.clone())).unwrap()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{out}");
        assert_eq!(json(&out)["error"]["code"], -32020);
        assert_eq!(json(&out)["id"], 1);
    }
    // Mirrored tool parameters.
    let body = modern_body(
        "tools/call",
        json!({"name": "query", "arguments": {"region": "us-west1"}}),
    );
    let base = || {
        post()
            .header("mcp-protocol-version", V)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "query")
    };
    let (status, _, _) = send(
        &router,
        base()
            .header("mcp-param-region", "us-west1")
            .body(Body::from(body.clone()))
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    for req in [base(), base().header("mcp-param-region", "eu-west1")] {
        let (status, _, out) = send(&router, req.body(Body::from(body.clone())).unwrap()).await;
        assert_eq!(
            (status, json(&out)["error"]["code"].clone()),
            (StatusCode::BAD_REQUEST, json!(-32020))
        );
    }

    // Unknown and removed methods: 404 / -32601, even `initialize` with the envelope.
    for method in [
        "no/such",
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
    ] {
        let (status, _, out) = send(&router, modern(method, None, json!({}))).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method}");
        assert_eq!(json(&out)["error"]["code"], -32601);
        assert_eq!(json(&out)["id"], 1);
    }

    // The 2026 headers with no envelope, or an envelope without its version: the request is
    // modern by its headers, so the missing envelope is -32602 (400), not a legacy request
    // without a session.
    for params in [
        json!({}),
        json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": params})
            .to_string();
        let req = post()
            .header("mcp-protocol-version", V)
            .header("mcp-method", "tools/list")
            .body(Body::from(body.clone()))
            .unwrap();
        let (status, _, out) = send(&router, req).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{out}");
        assert_eq!(json(&out)["error"]["code"], -32602, "{out}");
        assert_eq!(json(&out)["id"], 8);
    }

    // Unsupported version: 400 / -32022 with the supported list.
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "1900-01-01",
        "io.modelcontextprotocol/clientCapabilities": {}
    }}})
    .to_string();
    let req = post()
        .header("mcp-protocol-version", "1900-01-01")
        .header("mcp-method", "tools/list")
        .body(Body::from(body.clone()))
        .unwrap();
    let (status, _, out) = send(&router, req).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json(&out)["error"]["code"], -32022);
    // Every version the server speaks, newest first: a 2025 client falls back to one.
    assert_eq!(
        json(&out)["error"]["data"]["supported"],
        json!([V, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
    );

    // Missing client capability: 400 / -32021.
    let (status, _, out) = send(
        &router,
        modern(
            "tools/call",
            Some("needs_sampling"),
            json!({"name": "needs_sampling"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{out}");
    assert_eq!(json(&out)["error"]["code"], -32021);

    // Resource not found is the method's answer: 200 / -32602 with data.uri.
    let (status, _, out) = send(
        &router,
        modern(
            "resources/read",
            Some("test://nope"),
            json!({"uri": "test://nope"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json(&out)["error"]["code"], -32602);
    assert_eq!(json(&out)["error"]["data"]["uri"], "test://nope");

    // Batches do not exist in the modern era.
    let batch = format!("[{}]", modern_body("tools/list", json!({})));
    let (status, _, out) = send(&router, post().body(Body::from(batch.clone())).unwrap()).await;
    assert_eq!(
        (status, json(&out)["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32600))
    );

    // Garbage: 400 / -32700.
    let (status, _, out) = send(&router, post().body(Body::from("{")).unwrap()).await;
    assert_eq!(
        (status, json(&out)["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32700))
    );
}

#[tokio::test]
async fn messages_before_the_result_make_an_sse_stream() {
    let router = router(&server(), HttpOptions::default());
    let mut params = json!({"name": "progress"});
    params["_meta"] = json!({"progressToken": "t1"});
    let body = modern_body("tools/call", params);
    let body = {
        let mut v = json(&body);
        v["params"]["_meta"]["progressToken"] = json!("t1");
        v.to_string()
    };
    let req = post()
        .header("mcp-protocol-version", V)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "progress")
        .body(Body::from(body.clone()))
        .unwrap();
    let (status, headers, out) = send(&router, req).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers.get("content-type").unwrap(), "text/event-stream");
    assert_eq!(headers.get("x-accel-buffering").unwrap(), "no");
    let events: Vec<Value> = out
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(json)
        .collect();
    assert_eq!(events.len(), 3, "{out}");
    assert_eq!(events[0]["method"], "notifications/progress");
    assert_eq!(events[1]["params"]["progress"], 2);
    assert_eq!(events[2]["result"]["content"][0]["text"], "done");

    // A client accepting only JSON gets JSON (the notifications cannot be carried).
    let req = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-protocol-version", V)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "progress")
        .body(Body::from(body))
        .unwrap();
    let (status, headers, out) = send(&router, req).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers.get("content-type").unwrap(), "application/json");
    assert_eq!(json(&out)["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn sse_responses_stream_every_answer_but_errors_keep_their_status() {
    let router = router(&server(), HttpOptions::default().sse_responses(true));
    let only_result = |out: &str| -> Vec<Value> {
        out.lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter(|d| !d.is_empty())
            .map(json)
            .collect()
    };
    // Modern era: a plain result comes as a one-event stream.
    let (status, headers, out) = send(
        &router,
        modern("tools/call", Some("hi"), json!({"name": "hi"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers.get("content-type").unwrap(), "text/event-stream");
    let events = only_result(&out);
    assert_eq!(events.len(), 1, "{out}");
    assert_eq!(events[0]["result"]["content"][0]["text"], "hello");
    // An error with its own HTTP status stays JSON with that status.
    let (status, headers, out) = send(&router, modern("no/such", None, json!({}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{out}");
    assert_eq!(headers.get("content-type").unwrap(), "application/json");
    // Legacy era, in a session: `initialize` is streamed too.
    let (status, headers, out) = send(&router, post().body(Body::from(INIT)).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers.get("content-type").unwrap(), "text/event-stream");
    assert_eq!(
        only_result(&out)[0]["result"]["protocolVersion"],
        "2025-11-25"
    );
    let session = headers
        .get("mcp-session-id")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hi"}}"#;
    let (status, headers, out) = send(&router, legacy(&session, call)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers.get("content-type").unwrap(), "text/event-stream");
    let events = only_result(&out);
    assert_eq!(events.len(), 1, "{out}");
    assert_eq!(events[0]["id"], 2);
    // A session's stream: primed, and every event has an id to resume from.
    let with_ids = self::events(&out);
    assert!(with_ids.len() >= 2, "{out}");
    assert!(with_ids.iter().all(|(id, _)| id.is_some()), "{out}");
    assert_eq!(with_ids[0].1, None, "the priming event comes first: {out}");
    // Without the option the same call is plain JSON.
    let router = default_router();
    let session = initialize(&router).await;
    let (_, headers, out) = send(&router, legacy(&session, call)).await;
    assert_eq!(headers.get("content-type").unwrap(), "application/json");
    assert_eq!(json(&out)["result"]["content"][0]["text"], "hello");
}

fn default_router() -> axum::Router {
    router(&server(), HttpOptions::default())
}

#[tokio::test]
async fn listen_streams_acknowledge_then_deliver_tagged_notifications() {
    let server = server();
    let router = router(
        &server,
        HttpOptions::default().keep_alive(Duration::from_secs(3600)),
    );
    let body = json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true, "promptsListChanged": true},
        "_meta": {"io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {}}
    }})
    .to_string();
    let req = post()
        .header("mcp-protocol-version", V)
        .header("mcp-method", "subscriptions/listen")
        .body(Body::from(body.clone()))
        .unwrap();
    let response = router.clone().oneshot(req).await.unwrap();
    assert_eq!(
        response.headers().get("content-type").unwrap(),
        "text/event-stream"
    );
    let mut body = response.into_body();
    let mut next_event = async || -> Value {
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(10), body.frame())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            if let Ok(data) = frame.into_data() {
                let text = String::from_utf8(data.to_vec()).unwrap();
                if let Some(line) = text.lines().find_map(|l| l.strip_prefix("data: ")) {
                    return json(line);
                }
            }
        }
    };
    let ack = next_event().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true}),
        "no prompts here: not acknowledged"
    );

    server.registry().disable_tool("hi");
    let changed = next_event().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
}

/// A request to `session` with these headers besides the session id.
fn to_session(
    method: http::Method,
    session: &str,
    extra: &[(&str, &str)],
    body: &str,
) -> Request<Body> {
    let mut b = post().method(method).header("mcp-session-id", session);
    for (name, value) in extra {
        b = b.header(*name, *value);
    }
    b.body(Body::from(body.to_owned())).unwrap()
}

#[tokio::test]
async fn every_message_to_a_session_has_its_protocol_version_and_session_id_checked() {
    let router = router(&server(), HttpOptions::default());
    let id = initialize(&router).await;
    let bad = [("mcp-protocol-version", "1999-01-01")];
    let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let reply = r#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#;
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

    // A request's refusal names it.
    let (status, _, body) = send(&router, to_session(http::Method::POST, &id, &bad, list)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json(&body)["id"], 2, "{body}");
    assert_eq!(json(&body)["error"]["code"], -32600, "{body}");
    // Notifications, responses, GET and DELETE are refused alike.
    for (method, body) in [
        (http::Method::POST, note),
        (http::Method::POST, reply),
        (http::Method::GET, ""),
        (http::Method::DELETE, ""),
    ] {
        let what = format!("{method} {body}");
        let (status, _, answer) = send(&router, to_session(method, &id, &bad, body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {answer}");
        assert_eq!(json(&answer)["error"]["code"], -32600, "{what}: {answer}");
    }
    // The refused DELETE ended nothing.
    let (status, _, body) = send(&router, legacy(&id, list)).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // A repeated session id is malformed (400), not missing (GET, DELETE: 405; a
    // notification: 202).
    for (method, body) in [
        (http::Method::POST, note),
        (http::Method::GET, ""),
        (http::Method::DELETE, ""),
    ] {
        let req = post()
            .method(method.clone())
            .header("mcp-session-id", &id)
            .header("mcp-session-id", &id)
            .body(Body::from(body))
            .unwrap();
        let (status, _, answer) = send(&router, req).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{method}: {answer}");
    }
}

#[tokio::test]
async fn before_2025_11_25_a_response_stream_stays_open_until_its_answer() {
    let router = router(&server(), HttpOptions::default());
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"polling","_meta":{"progressToken":"p"}}}"#;
    for version in ["2025-06-18", "2025-03-26"] {
        let session = initialize_at(&router, version).await;
        let req = to_session(
            http::Method::POST,
            &session,
            &[("mcp-protocol-version", version)],
            call,
        );
        let (status, headers, body) = send(&router, req).await;
        assert_eq!(status, StatusCode::OK, "{version}: {body}");
        assert_eq!(headers["content-type"], "text/event-stream", "{version}");
        // The handler's close_sse_stream was a no-op: the progress and the answer came on
        // this stream, and nothing primed it for a resumption.
        let messages = messages(&body);
        assert_eq!(messages.len(), 2, "{version}: {body}");
        assert_eq!(messages[0]["method"], "notifications/progress", "{version}");
        assert_eq!(messages[1]["id"], 7, "{version}");
        assert_eq!(
            messages[1]["result"]["content"][0]["text"], "resumed",
            "{version}"
        );
    }
}

#[tokio::test]
async fn a_cancelled_request_is_answered_with_a_stream_that_ends_empty() {
    let server = ServerBuilder::new("cancel-test", "1.0.0").build();
    let started = std::sync::Arc::new(tokio::sync::Notify::new());
    let signal = started.clone();
    server
        .registry()
        .add_tool(
            Tool::new(
                "wait",
                json!({"type": "object"}).as_object().cloned().unwrap(),
            ),
            tool_fn(move |_: Value, _| {
                let signal = signal.clone();
                async move {
                    signal.notify_one();
                    std::future::pending::<&str>().await
                }
            }),
            None,
        )
        .unwrap();
    for sse_responses in [false, true] {
        let router = router(&server, HttpOptions::default().sse_responses(sse_responses));
        let session = initialize(&router).await;
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait"}}"#;
        let waiting = tokio::spawn(send_owned(router.clone(), legacy(&session, call)));
        started.notified().await;
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
        assert_eq!(
            send(&router, legacy(&session, cancel)).await.0,
            StatusCode::ACCEPTED
        );
        let (status, headers, body) = waiting.await.unwrap();
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(headers["content-type"], "text/event-stream");
        assert!(messages(&body).is_empty(), "nothing is sent for it: {body}");
    }
}

async fn send_owned(
    router: axum::Router,
    req: Request<Body>,
) -> (StatusCode, http::HeaderMap, String) {
    send(&router, req).await
}

/// A 2025-03-26 batch's requests run at once: each takes a place of the in-flight limits,
/// the session's and the endpoint's, as it would sent alone.
#[tokio::test]
async fn a_batchs_requests_count_against_the_in_flight_limits() {
    let server = ServerBuilder::new("batch-test", "1.0.0")
        .max_in_flight(4)
        .build();
    server
        .registry()
        .add_tool(
            Tool::new(
                "hi",
                json!({"type": "object"}).as_object().cloned().unwrap(),
            ),
            tool_fn(|_: Value, _| async { "hello" }),
            None,
        )
        .unwrap();
    let batch_of = |n: usize| {
        let calls: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"hi"}}}}"#
                )
            })
            .collect();
        format!("[{}]", calls.join(","))
    };
    let v = [("mcp-protocol-version", "2025-03-26")];
    for (endpoint_limit, n, status) in [
        // Within both limits: every answer comes back.
        (1024, 4, StatusCode::OK),
        // More than a session may ever run at once: refused whole, for good.
        (1024, 5, StatusCode::BAD_REQUEST),
        // More than the endpoint has room for: refused whole, to retry.
        (3, 4, StatusCode::SERVICE_UNAVAILABLE),
        (3, 3, StatusCode::OK),
    ] {
        let router = router(
            &server,
            HttpOptions::default().max_in_flight(endpoint_limit),
        );
        let session = initialize_at(&router, "2025-03-26").await;
        let body = batch_of(n);
        let (got, _, answer) =
            send(&router, to_session(http::Method::POST, &session, &v, &body)).await;
        assert_eq!(got, status, "{endpoint_limit} {n}: {answer}");
        if status == StatusCode::OK {
            let answers = json(&answer);
            assert_eq!(answers.as_array().unwrap().len(), n, "{answer}");
        } else if status == StatusCode::BAD_REQUEST {
            assert_eq!(json(&answer)["error"]["code"], -32600, "{answer}");
        } else {
            assert!(json(&answer)["error"]["message"].is_string(), "{answer}");
        }
    }
}

async fn get_stream(
    router: &axum::Router,
    session: &str,
    last_event_id: Option<&str>,
) -> axum::response::Response {
    let mut b = Request::get("/mcp")
        .header("host", "localhost")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session);
    if let Some(id) = last_event_id {
        b = b.header("last-event-id", id);
    }
    router
        .clone()
        .oneshot(b.body(Body::empty()).unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn legacy_streams_resume_with_last_event_id() {
    let router = router(&server(), HttpOptions::default());
    let session = initialize(&router).await;
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"polling","_meta":{"progressToken":"p"}}}"#;
    let (status, headers, body) = send(&router, legacy(&session, call)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers.get("content-type").unwrap(), "text/event-stream");
    let first = events(&body);
    // The priming event (an id, a retry delay, no data), then the progress; the server closed
    // the stream before the result.
    assert!(body.contains("retry: 3000"), "{body}");
    assert_eq!(first[0].1, None);
    assert_eq!(
        first[1].1.as_ref().unwrap()["method"],
        "notifications/progress"
    );
    assert!(
        first
            .iter()
            .all(|(_, d)| d.as_ref().is_none_or(|d| d.get("result").is_none())),
        "{body}"
    );
    let last_seen = first.last().unwrap().0.clone().unwrap();

    // Garbage ids are refused; another session's ids replay nothing.
    let response = get_stream(&router, &session, Some("garbage")).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let other = initialize(&router).await;
    let response = get_stream(&router, &other, Some(&last_seen)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut foreign = response.into_body();
    let frame = tokio::time::timeout(Duration::from_secs(5), foreign.frame())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let text = String::from_utf8(frame.into_data().unwrap().to_vec()).unwrap();
    assert!(
        !text.contains("resumed") && !text.contains("progress"),
        "{text}"
    );
    drop(foreign);

    // The right session and id: exactly the missed result, then the stream ends.
    let response = get_stream(&router, &session, Some(&last_seen)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = tokio::time::timeout(Duration::from_secs(10), response.into_body().collect())
        .await
        .unwrap()
        .unwrap()
        .to_bytes();
    let resumed = events(std::str::from_utf8(&bytes).unwrap());
    assert_eq!(resumed.len(), 1, "{resumed:?}");
    let result = resumed[0].1.as_ref().unwrap();
    assert_eq!(result["id"], 7);
    assert_eq!(result["result"]["content"][0]["text"], "resumed");
}

#[tokio::test]
async fn a_get_stream_ends_when_its_session_expires() {
    let router = router(
        &server(),
        HttpOptions::default().session_idle_timeout(Duration::from_secs(60)),
    );
    let session = initialize(&router).await;
    let response = get_stream(&router, &session, None).await;
    assert_eq!(response.status(), StatusCode::OK);
    // The stream ends by itself once the session has been idle too long and is reaped.
    // Paused, the clock jumps to the next timer whenever every task waits.
    tokio::time::pause();
    let ended =
        tokio::time::timeout(Duration::from_secs(3600), response.into_body().collect()).await;
    assert!(ended.is_ok(), "the GET stream outlived its session");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (status, _, body) = send(&router, legacy(&session, list)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(json(&body)["id"], 2, "the request id is echoed");
}

/// A server whose one tool runs as a task and finishes after its request was answered.
fn task_router() -> axum::Router {
    let server = ServerBuilder::new("http-tasks", "1.0.0").build();
    let mut tool = Tool::new(
        "late",
        json!({"type": "object"}).as_object().cloned().unwrap(),
    );
    tool.execution = Some(ferromcp::types::ToolExecution {
        task_support: Some(ferromcp::types::ToolTaskSupport::Optional),
        ..Default::default()
    });
    server
        .registry()
        .add_tool(
            tool,
            tool_fn(|_: Value, _| async {
                tokio::time::sleep(Duration::from_millis(50)).await;
                "late"
            }),
            None,
        )
        .unwrap();
    router(&server, HttpOptions::default())
}

/// On a paused clock, `late`'s sleep ends only once every task waits: after the call's answer.
#[tokio::test(start_paused = true)]
async fn tasks_outlive_the_http_request_that_started_them() {
    // 2025-11-25: the call's response carries the task; tasks/result, in a request of its
    // own, waits for the end; another session does not see the task.
    let router = task_router();
    let session = initialize(&router).await;
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"late","arguments":{},"task":{"ttl":60000}}}"#;
    let (status, _, body) = send(&router, legacy(&session, call)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let task = json(&body)["result"]["task"].clone();
    assert_eq!(task["status"], "working");
    let id = task["taskId"].as_str().unwrap().to_owned();
    let result =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/result", "params": {"taskId": id}})
            .to_string();
    let (_, _, body) = send(&router, legacy(&session, &result)).await;
    // The task's status notifications come on the same stream, before the result.
    let answer = messages(&body)
        .into_iter()
        .find(|m| m["id"] == 3)
        .unwrap_or_else(|| panic!("no answer: {body}"));
    assert_eq!(answer["result"]["content"][0]["text"], "late", "{body}");
    let other = initialize(&router).await;
    let get = json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": {"taskId": id}})
        .to_string();
    let (_, _, body) = send(&router, legacy(&other, &get)).await;
    assert_eq!(json(&body)["error"]["code"], -32602, "{body}");

    // 2026-07-28: the task is stored before the answer; tasks/get names it in Mcp-Name.
    let modern_call = |method: &str, params: Value| {
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": {
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            }
        });
        json!({"jsonrpc": "2.0", "id": 5, "method": method, "params": params}).to_string()
    };
    let body = modern_call("tools/call", json!({"name": "late", "arguments": {}}));
    let (status, _, body) = send(&router, modern_request("tools/call", Some("late"), body)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let created = json(&body)["result"].clone();
    assert_eq!(created["resultType"], "task", "{body}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    let get = modern_call("tasks/get", json!({"taskId": id}));
    let (status, _, body) = send(&router, modern_request("tasks/get", None, get.clone())).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "Mcp-Name is required: {body}"
    );
    assert_eq!(json(&body)["error"]["code"], -32020);
    let mut finished = Value::Null;
    for _ in 0..500 {
        let (_, _, body) = send(&router, modern_request("tasks/get", Some(&id), get.clone())).await;
        finished = json(&body)["result"].clone();
        if finished["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        finished["result"]["content"][0]["text"], "late",
        "{finished}"
    );
}

#[tokio::test]
async fn a_legacy_task_asks_for_input_on_the_tasks_result_stream() {
    // 2025-11-25, no GET stream: the task's elicitation waits until the client calls
    // `tasks/result`, arrives on that stream tied to the task, and the answer posted to the
    // session lets the task finish on the same stream.
    let server = ServerBuilder::new("http-task-input", "1.0.0").build();
    let mut tool = Tool::new(
        "confirm",
        json!({"type": "object"}).as_object().cloned().unwrap(),
    );
    tool.execution = Some(ferromcp::types::ToolExecution {
        task_support: Some(ferromcp::types::ToolTaskSupport::Required),
        ..Default::default()
    });
    server
        .registry()
        .add_tool(
            tool,
            tool_fn(|_: Value, ctx: Context| async move {
                let schema = serde_json::from_value(json!({
                    "type": "object",
                    "properties": {"ok": {"type": "boolean"}},
                    "required": ["ok"]
                }))
                .unwrap();
                let params = ferromcp::types::ElicitRequestFormParams::new("Sure?", schema);
                match ctx.elicit_form(params).await {
                    Ok(answer) => format!("answer: {:?}", answer.action),
                    Err(e) => format!("no answer: {e}"),
                }
            }),
            None,
        )
        .unwrap();
    let router = router(&server, HttpOptions::default());
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"t","version":"1"}}}"#;
    let (_, headers, _) = send(&router, post().body(Body::from(init)).unwrap()).await;
    let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{},"task":{"ttl":60000}}}"#;
    let (_, _, body) = send(&router, legacy(&session, call)).await;
    let id = json(&body)["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"))
        .to_owned();
    let get = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": id}})
        .to_string();
    let mut status = Value::Null;
    for _ in 0..500 {
        let (_, _, body) = send(&router, legacy(&session, &get)).await;
        status = json(&body)["result"]["status"].clone();
        if status == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, "input_required");

    let result =
        json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/result", "params": {"taskId": id}})
            .to_string();
    let response = router
        .clone()
        .oneshot(legacy(&session, &result))
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut stream = response.into_body();
    let mut seen = String::new();
    let mut next_message = async || -> Value {
        loop {
            // One whole event at a time; the priming event has no data.
            if let Some(end) = seen.find("\n\n") {
                let event: String = seen.drain(..end + 2).collect();
                if let Some((_, Some(message))) = events(&event).into_iter().next() {
                    return message;
                }
                continue;
            }
            let frame = tokio::time::timeout(Duration::from_secs(10), stream.frame())
                .await
                .expect("the tasks/result stream stalled")
                .expect("the tasks/result stream ended")
                .unwrap();
            if let Ok(data) = frame.into_data() {
                seen.push_str(std::str::from_utf8(&data).unwrap());
            }
        }
    };
    let ask = next_message().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(
        ask["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {
        "action": "accept", "content": {"ok": true}
    }})
    .to_string();
    let (status, _, body) = send(&router, legacy(&session, &answer)).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let done = loop {
        let message = next_message().await;
        if message.get("id").is_some() {
            break message;
        }
        // Status notifications may come first.
        assert_eq!(message["method"], "notifications/tasks/status", "{message}");
    };
    assert_eq!(done["id"], 4);
    assert_eq!(
        done["result"]["content"][0]["text"], "answer: Accept",
        "{done}"
    );
    assert_eq!(
        done["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
}

/// The test client's typed calls over the router, in process: a legacy call during which the
/// server asks for sampling on the response stream (answered with a POST on the session), a
/// modern one answered through `input_required`, and progress, in both eras.
#[tokio::test]
async fn the_test_client_drives_the_router_in_either_era() {
    use ferromcp::testing::{ClientOptions, HttpTestClient};
    use ferromcp::types::CreateMessageResult;
    let router = router(&server(), HttpOptions::default());
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let options = options.with_sampling(|_| {
            serde_json::from_value::<CreateMessageResult>(json!({
                "role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"
            }))
            .unwrap()
        });
        let http = HttpTestClient::new(router.clone(), options).with_host("127.0.0.1:3000");
        let client = http.connect().await.unwrap();
        let legacy = client.initialize_result().is_some();
        assert_eq!(legacy, http.session_id().is_some());
        let result = client.call_tool("needs_sampling", json!({})).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("sampled"));
        let (result, progress) = client
            .call_tool_with_progress("progress", json!({}))
            .await
            .unwrap();
        assert_eq!(result.content[0].as_text(), Some("done"));
        let steps: Vec<f64> = progress.iter().map(|p| p.progress).collect();
        assert_eq!(steps, [1.0, 2.0], "legacy: {legacy}");
        let tools = client.list_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "query"));
    }
}

/// A 2026 client mirrors the arguments a tool's input schema marks with `x-mcp-header` into
/// `Mcp-Param-*` headers, so the test client's calls of such a tool succeed in the modern
/// era, whatever the value; a contradicting header set by the caller is sent instead, and
/// refused.
#[tokio::test]
async fn the_test_client_mirrors_annotated_arguments_into_headers() {
    use ferromcp::testing::{ClientOptions, HttpTestClient, TestClientError};
    use http::{HeaderName, HeaderValue};
    let server = server();
    let schema = json!({"type": "object", "properties": {
        "shard": {"type": "integer", "x-mcp-header": "Shard"},
        "options": {"type": "object", "properties": {
            "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}
        }}
    }});
    server
        .registry()
        .add_tool(
            Tool::new("routed", schema.as_object().cloned().unwrap()),
            tool_fn(|a: Value, _| async move { a.to_string() }),
            None,
        )
        .unwrap();
    let router = router(&server, HttpOptions::default());
    let http = HttpTestClient::new(router, ClientOptions::modern()).with_host("127.0.0.1:3000");
    let client = http.connect().await.unwrap();
    for region in ["us-west1", "Zürich", " padded ", "=?base64?x?="] {
        let result = client
            .call_tool("query", json!({"region": region}))
            .await
            .unwrap();
        assert_eq!(result.content[0].as_text(), Some(region));
    }
    let arguments = json!({"shard": 7, "options": {"dry": true}});
    let result = client.call_tool("routed", arguments.clone()).await.unwrap();
    assert_eq!(
        result.content[0].as_text(),
        Some(arguments.to_string().as_str())
    );
    // An absent argument has no header.
    client.call_tool("query", json!({})).await.unwrap();

    let wrong = http.with_header(
        HeaderName::from_static("mcp-param-region"),
        HeaderValue::from_static("eu-west1"),
    );
    let refused = wrong
        .connect()
        .await
        .unwrap()
        .call_tool("query", json!({"region": "us-west1"}))
        .await;
    match refused {
        Err(TestClientError::Rpc(e)) => assert_eq!(e.code.0, -32020, "{e}"),
        other => panic!("expected -32020, got {other:?}"),
    }
    let params = json!({"name": "query", "arguments": {"region": "us-west1"}});
    let response = wrong.send_request("tools/call", Some(params)).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(response.message()["error"]["code"], -32020);
}
