//! A client of revision 2024-11-05, over stdio and Streamable HTTP: it is answered in its
//! revision, and what it is sent validates against that revision's official schema read
//! strictly (no member of a later revision).

#![cfg(all(feature = "http", feature = "conformance"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use axum::body::Body;
use ferromcp::http::HttpOptions;
use ferromcp::registry::tool_fn;
use ferromcp::testing::SchemaValidator;
use ferromcp::types::{CallToolResult, ContentBlock, Icon, Tool, ToolAnnotations};
use ferromcp::{Context, ContextError, ProtocolVersion, Server, ServerBuilder};
use http::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod support {
    pub mod http;
}

use support::http::{messages, post, router, send};

const OLD: &str = "2024-11-05";

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    #[allow(dead_code, reason = "only the schema is used")]
    name: String,
}

fn init(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": OLD, "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "old", "version": "1"}
    }})
}

fn call(id: u64, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": {}, "_meta": {"progressToken": "p"}}})
}

/// A tool using every later member (title, annotations, outputSchema, icons, _meta), one
/// with structured output, audio and a resource link, and one reporting progress with a
/// message.
fn server() -> Server {
    let server = ServerBuilder::new("old-clients", "1.0.0").build();
    let r = server.registry();
    let object = |v: Value| v.as_object().cloned().unwrap();
    let mut rich = Tool::new("rich", object(json!({"type": "object"})));
    rich.title = Some("Rich".into());
    rich.description = Some("Everything later revisions have.".into());
    rich.output_schema = Some(object(json!({"type": "object"})));
    rich.annotations = Some(ToolAnnotations {
        read_only_hint: Some(true),
        ..Default::default()
    });
    rich.icons = Some(vec![Icon {
        src: "https://example.com/i.png".into(),
        ..Default::default()
    }]);
    rich.meta = Some(serde_json::from_value(json!({"com.example/x": 1})).unwrap());
    r.add_tool(
        rich,
        tool_fn(|_: Value, _| async {
            let mut result = CallToolResult::new(vec![
                ContentBlock::text("t"),
                ContentBlock::audio("UklGRg==", "audio/wav"),
                ContentBlock::resource_link("file:///a.txt", "a.txt"),
            ]);
            result.structured_content = Some(json!({"t": 1}));
            result
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        Tool::new("progress", object(json!({"type": "object"}))),
        tool_fn(|_: Value, ctx: Context| async move {
            ctx.progress(1.0, Some(2.0), Some("half way")).await;
            "done"
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        Tool::new("ask", object(json!({"type": "object"}))),
        tool_fn(|_: Value, ctx: Context| async move {
            // The client declared elicitation, which its revision does not have.
            match ctx.elicit::<Name>("Name?").await {
                Err(ContextError::CapabilityMissing(_)) => "not asked",
                _ => "asked",
            }
        }),
        None,
    )
    .unwrap();
    server
}

/// Asserts `value` is a valid `definition` of 2024-11-05, read strictly.
fn assert_valid(definition: &str, value: &Value) {
    let errors = SchemaValidator::strict(ProtocolVersion::V2024_11_05).errors(definition, value);
    assert!(errors.is_empty(), "{definition}: {errors:?}\n{value}");
}

/// Checks the answers a 2024-11-05 client got, by id: 1 initialize, 2 tools/list, 3 the rich
/// call, 4 the progress call, 5 the call that may not elicit; `progress` is the progress notification's params.
fn check_answers(by_id: impl Fn(u64) -> Value, progress: &Value) {
    let init = by_id(1)["result"].clone();
    assert_eq!(init["protocolVersion"], OLD, "{init}");
    assert_valid("InitializeResult", &init);
    let list = by_id(2)["result"].clone();
    assert_valid("ListToolsResult", &list);
    assert_eq!(
        list["tools"][0],
        json!({"name": "rich", "description": "Everything later revisions have.",
            "inputSchema": {"type": "object"}})
    );
    let rich = by_id(3)["result"].clone();
    assert_valid("CallToolResult", &rich);
    assert_eq!(
        rich,
        json!({"content": [
            {"type": "text", "text": "t"},
            {"type": "text", "text": "[audio omitted: audio/wav]"},
            {"type": "text", "text": "a.txt: file:///a.txt"}
        ]})
    );
    assert_eq!(by_id(4)["result"]["content"][0]["text"], "done");
    assert_eq!(by_id(5)["result"]["content"][0]["text"], "not asked");
    assert_eq!(
        *progress,
        json!({"progressToken": "p", "progress": 1, "total": 2})
    );
}

#[tokio::test]
async fn a_2024_11_05_client_is_answered_in_its_revision_over_stdio() {
    let lines = [
        init(1),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        call(3, "rich"),
        call(4, "progress"),
        call(5, "ask"),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (client, io) = tokio::io::duplex(1 << 20);
    let (r, w) = tokio::io::split(io);
    let s = server();
    let served = tokio::spawn(async move { s.serve_io(r, w).await });
    let (mut from_server, mut to_server) = tokio::io::split(client);
    to_server.write_all(input.as_bytes()).await.unwrap();
    to_server.shutdown().await.unwrap();
    let mut output = String::new();
    from_server.read_to_string(&mut output).await.unwrap();
    served.await.unwrap().unwrap();
    let messages: Vec<Value> = output
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_id = |id: u64| {
        messages
            .iter()
            .find(|m| m["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no answer {id}: {messages:?}"))
    };
    let progress = messages
        .iter()
        .find(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"].clone())
        .unwrap_or_default();
    check_answers(by_id, &progress);
}

/// The router's answer to a POST of `body` (with these headers): status, messages, headers.
async fn exchange(
    router: &axum::Router,
    headers: &[(&str, &str)],
    body: &Value,
) -> (StatusCode, Vec<Value>, http::HeaderMap) {
    let mut req = post();
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let (status, headers, text) =
        send(router, req.body(Body::from(body.to_string())).unwrap()).await;
    (status, messages(&text), headers)
}

#[tokio::test]
async fn a_2024_11_05_client_is_answered_in_its_revision_over_streamable_http() {
    let router = router(&server(), HttpOptions::default());
    let (status, init, headers) = exchange(&router, &[], &init(1)).await;
    assert_eq!(status, StatusCode::OK, "{init:?}");
    let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let with = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", OLD),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, _) = exchange(&router, &with, &initialized).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let mut answers = vec![init[0].clone()];
    let mut progress = Value::Null;
    for request in [
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        call(3, "rich"),
        call(4, "progress"),
        call(5, "ask"),
    ] {
        let (status, messages, _) = exchange(&router, &with, &request).await;
        assert_eq!(status, StatusCode::OK, "{messages:?}");
        for m in messages {
            if m["method"] == "notifications/progress" {
                progress = m["params"].clone();
            } else {
                answers.push(m);
            }
        }
    }
    let by_id = |id: u64| answers.iter().find(|m| m["id"] == id).cloned().unwrap();
    check_answers(by_id, &progress);
}
