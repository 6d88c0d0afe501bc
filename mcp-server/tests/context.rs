//! What a request's `Context` may send once the request has been answered: nothing (over
//! stdio and over legacy HTTP, where a clone's messages would otherwise reach the session's
//! stream), except from a task, whose request lasts until the task ends.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support {
    #[cfg(feature = "http")]
    pub mod http;
    pub mod log;
}

use std::sync::Arc;

use ferromcp::registry::tool_fn;
use ferromcp::types::{Tool, ToolExecution, ToolTaskSupport};
use ferromcp::{Context, Server, ServerBuilder};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::sync::Notify;

fn tool(name: &str, support: Option<ToolTaskSupport>) -> Tool {
    let mut t = Tool::new(
        name,
        json!({"type": "object"}).as_object().cloned().unwrap(),
    );
    t.execution = support.map(|s| ToolExecution {
        task_support: Some(s),
        ..Default::default()
    });
    t
}

/// The handshake between a test and a handler's work: `read` is rung once the test has
/// read the call's response, `sent` once the work has tried to send.
#[derive(Clone, Default)]
struct Handshake {
    read: Arc<Notify>,
    sent: Arc<Notify>,
    /// What the clone's request to the client (`roots/list`) came to.
    asked: Arc<std::sync::Mutex<Option<String>>>,
}

/// `late` answers at once and leaves a clone of its context behind, which reports progress,
/// logs and asks for the client's roots once the test has read the answer; `task` (a task when asked) reports while it
/// runs, after its request was answered with the task; `meta` echoes the request's
/// `_meta`; `marker` logs "marker".
fn server(handshake: &Handshake) -> Server {
    // Without the gate, the clone's `roots/list` would wait for an answer the test never
    // sends: a short wait makes such a failure quick (the passing test never waits).
    let server = ServerBuilder::new("late", "1.0.0")
        .client_request_timeout(std::time::Duration::from_secs(2))
        .build();
    let r = server.registry();
    let hs = handshake.clone();
    r.add_tool(
        tool("late", None),
        tool_fn(move |_: Value, ctx: Context| {
            let hs = hs.clone();
            async move {
                let late = ctx.clone();
                tokio::spawn(async move {
                    hs.read.notified().await;
                    late.progress(1.0, None, Some("late")).await;
                    late.info("late").await;
                    let asked = late.roots().await;
                    *hs.asked.lock().unwrap() = Some(format!("{asked:?}"));
                    hs.sent.notify_one();
                });
                "answered"
            }
        }),
        None,
    )
    .unwrap();
    let hs = handshake.clone();
    r.add_tool(
        tool("task", Some(ToolTaskSupport::Optional)),
        tool_fn(move |_: Value, ctx: Context| {
            let hs = hs.clone();
            async move {
                hs.read.notified().await;
                ctx.progress(1.0, None, Some("running")).await;
                ctx.info("running").await;
                "finished"
            }
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("meta", None),
        tool_fn(|_: Value, ctx: Context| async move {
            let meta = ctx.meta().expect("the request has a _meta");
            json!({
                "custom": meta.extra.get("example.com/key"),
                "progressToken": meta.progress_token,
                "version": meta.protocol_version,
            })
            .to_string()
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("marker", None),
        tool_fn(|_: Value, ctx: Context| async move {
            ctx.info("marker").await;
            "marked"
        }),
        None,
    )
    .unwrap();
    server
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

type Lines = tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>;
type Input = tokio::io::WriteHalf<tokio::io::DuplexStream>;
type Served = tokio::task::JoinHandle<std::io::Result<()>>;

/// The server over a stdio pipe, initialized, after `call` was sent: the server's output,
/// the client's input, and the serving task.
async fn stdio_call(handshake: &Handshake, call: Value) -> (Lines, Input, Served) {
    let server = server(handshake);
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_io);
    let served = tokio::spawn(async move { server.serve_io(r, w).await });
    let (cr, mut cw) = tokio::io::split(client_io);
    let mut lines = tokio::io::BufReader::new(cr).lines();
    cw.write_all(INIT.as_bytes()).await.unwrap();
    let init = next_json(&mut lines).await;
    assert_eq!(init["id"], 0, "{init}");
    cw.write_all(format!("{call}\n").as_bytes()).await.unwrap();
    (lines, cw, served)
}

/// Calls `late` over a stdio pipe, reads its response, lets the clone report, and returns
/// every line the server wrote after the response, until the client's end of input.
async fn stdio_after_late_call(handshake: &Handshake) -> Vec<Value> {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "late", "_meta": {"progressToken": "p"}}});
    let (mut lines, mut cw, served) = stdio_call(handshake, call).await;
    let answer = next_json(&mut lines).await;
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "answered");
    handshake.read.notify_one();
    handshake.sent.notified().await;
    // What the clone sent is queued by now: it comes before the end of the output.
    cw.shutdown().await.unwrap();
    let mut after = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        after.push(serde_json::from_str(&line).unwrap());
    }
    served.await.unwrap().unwrap();
    after
}

/// The next line the server wrote, as JSON.
async fn next_json<R: tokio::io::AsyncBufRead + Unpin>(lines: &mut tokio::io::Lines<R>) -> Value {
    serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap()
}

#[tokio::test]
async fn over_stdio_no_line_follows_the_response() {
    // Every test that drops a message logs at DEBUG: `tracing` caches whether anyone wants
    // an event when a thread first reaches it, and a thread without a subscriber would
    // otherwise switch it off for the test that reads it.
    let (_log, _guard) = support::log::capture();
    let handshake = Handshake::default();
    let after = stdio_after_late_call(&handshake).await;
    assert!(after.is_empty(), "sent after the response: {after:?}");
    let asked = handshake.asked.lock().unwrap().clone();
    assert_eq!(asked.as_deref(), Some("Err(Ended)"));
}

#[tokio::test]
async fn what_a_finished_request_drops_is_counted_in_a_debug_event() {
    let (log, _guard) = support::log::capture();
    let after = stdio_after_late_call(&Handshake::default()).await;
    assert!(after.is_empty(), "sent after the response: {after:?}");
    let text = log.text();
    let dropped: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("ferromcp::context") && l.contains("request ended"))
        .collect();
    assert_eq!(dropped.len(), 3, "{text}");
    assert!(
        dropped[0].contains("notifications/progress") && dropped[0].contains("dropped=1"),
        "{text}"
    );
    assert!(
        dropped[1].contains("notifications/message") && dropped[1].contains("dropped=2"),
        "{text}"
    );
    assert!(
        dropped[2].contains("roots/list") && dropped[2].contains("dropped=3"),
        "{text}"
    );
}

/// A 2025-11-25 task's request is answered with the task at once; its progress and logs
/// go on until its handler ends.
#[tokio::test]
async fn a_task_keeps_reporting_until_it_ends() {
    let handshake = Handshake::default();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "task", "task": {}, "_meta": {"progressToken": "p"}}});
    let (mut lines, mut cw, served) = stdio_call(&handshake, call).await;
    let answer = next_json(&mut lines).await;
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(answer["result"]["task"]["taskId"].is_string(), "{answer}");
    handshake.read.notify_one();
    let mut seen = Vec::new();
    loop {
        let message = next_json(&mut lines).await;
        let ended = message["method"] == "notifications/tasks/status"
            && message["params"]["status"] == "completed";
        seen.push(message);
        if ended {
            break;
        }
    }
    let methods: Vec<&Value> = seen.iter().map(|m| &m["method"]).collect();
    let progress = seen
        .iter()
        .position(|m| m["method"] == "notifications/progress")
        .unwrap_or_else(|| panic!("no progress from the task: {methods:?}"));
    assert_eq!(seen[progress]["params"]["message"], "running");
    assert!(
        seen.iter()
            .any(|m| m["method"] == "notifications/message" && m["params"]["data"] == "running"),
        "no log from the task: {methods:?}"
    );
    cw.shutdown().await.unwrap();
    while lines.next_line().await.unwrap().is_some() {}
    served.await.unwrap().unwrap();
}

/// Legacy Streamable HTTP, JSON answers: a request's messages go to the session's GET
/// stream, and a clone's after the answer do not.
#[cfg(feature = "http")]
#[tokio::test]
async fn over_legacy_http_nothing_reaches_the_get_stream_after_the_answer() {
    use axum::body::Body;
    use ferromcp::http::HttpOptions;
    use http_body_util::BodyExt;
    use support::http::{initialize, json as parse, legacy, messages, router, send};
    use tower::ServiceExt;

    let (_log, _guard) = support::log::capture();
    let handshake = Handshake::default();
    let router = router(&server(&handshake), HttpOptions::default().json_only(true));
    let session = initialize(&router).await;
    let get = http::Request::get("/mcp")
        .header("host", "localhost")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .body(Body::empty())
        .unwrap();
    let stream = router.clone().oneshot(get).await.unwrap();
    assert_eq!(stream.status(), http::StatusCode::OK);
    let mut stream = stream.into_body();

    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"late","_meta":{"progressToken":"p"}}}"#;
    let (_, _, body) = send(&router, legacy(&session, call)).await;
    assert_eq!(parse(&body)["result"]["content"][0]["text"], "answered");
    handshake.read.notify_one();
    handshake.sent.notified().await;
    // The stream carries a later request's log; what the clone sent would come before it.
    let marker = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"marker"}}"#;
    let (_, _, body) = send(&router, legacy(&session, marker)).await;
    assert_eq!(parse(&body)["result"]["content"][0]["text"], "marked");
    let mut text = String::new();
    while !text.contains("marker") {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(30), stream.frame())
            .await
            .expect("the marker never came")
            .unwrap()
            .unwrap();
        if let Ok(data) = frame.into_data() {
            text.push_str(std::str::from_utf8(&data).unwrap());
        }
    }
    let data: Vec<Value> = messages(&text)
        .into_iter()
        .map(|m| m["params"]["data"].clone())
        .collect();
    assert_eq!(data, [json!("marker")], "{text}");
}

/// A handler reads the request's whole `_meta`: a key of the client's own, the progress
/// token and, in 2026, the envelope's keys.
#[tokio::test]
async fn a_handler_reads_the_requests_meta_in_both_eras() {
    use ferromcp::testing::{ClientOptions, TestClient};
    let server = server(&Handshake::default());
    for (options, version) in [
        (ClientOptions::legacy(), Value::Null),
        (ClientOptions::modern(), json!("2026-07-28")),
    ] {
        let client = TestClient::connect(&server, options).await.unwrap();
        let params = json!({"name": "meta", "arguments": {},
            "_meta": {"example.com/key": {"k": 1}, "progressToken": 7}});
        let result = client.request("tools/call", Some(params)).await.unwrap();
        let text = result["content"][0]["text"].as_str().unwrap();
        let echoed: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            echoed,
            json!({"custom": {"k": 1}, "progressToken": 7, "version": version})
        );
    }
}

/// The same `_meta`, taken as a parameter of a `#[tool]`.
#[tokio::test]
async fn a_tool_takes_the_requests_meta_as_a_parameter() {
    use ferromcp::testing::{ClientOptions, TestClient};
    use ferromcp::types::RequestMetaObject;

    struct Echo;

    #[ferromcp::server]
    impl Echo {
        /// Echoes a key of the request's `_meta`.
        #[tool]
        fn echo_meta(&self, meta: RequestMetaObject) -> String {
            meta.extra
                .get("example.com/key")
                .map_or_else(|| "absent".to_owned(), Value::to_string)
        }
    }

    let server = ferromcp::Server::new(Echo).unwrap();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = TestClient::connect(&server, options).await.unwrap();
        let params = json!({"name": "echo_meta", "arguments": {},
            "_meta": {"example.com/key": "v"}});
        let result = client.request("tools/call", Some(params)).await.unwrap();
        assert_eq!(result["content"][0]["text"], "\"v\"", "{result}");
        let result = client
            .request(
                "tools/call",
                Some(json!({"name": "echo_meta", "arguments": {}})),
            )
            .await
            .unwrap();
        assert_eq!(result["content"][0]["text"], "absent", "{result}");
    }
}
