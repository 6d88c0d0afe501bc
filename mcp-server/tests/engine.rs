//! The engine through the in-process client, in both eras: every method, every error code,
//! the Context API, cancellation, timeouts, panics and pagination.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support {
    pub mod lists;
}

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ferromcp::registry::{CompletionTarget, completion_fn, prompt_fn, resource_fn, tool_fn};
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use ferromcp::types::{
    CallToolResult, CreateMessageRequestParams, CreateMessageResult, ElicitContentValue,
    ElicitRequestFormParams, ElicitRequestURLParams, ElicitRequestedSchema, ElicitResult,
    LoggingLevel, Prompt, PromptArgument, PromptMessage, Resource, ResourceTemplate,
    ResultMetaObject, Root, SamplingMessage, TextContent, Tool,
};
use ferromcp::{Context, Elicitation, ResourceError, Server, ServerBuilder};
use serde_json::{Value, json};
use support::lists::tool_names;

fn object(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn tool(name: &str) -> Tool {
    let mut t = Tool::new(name, object(json!({"type": "object"})));
    t.description = Some(format!("The {name} tool."));
    t
}

#[derive(serde::Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Person {
    name: String,
}

fn name_schema() -> ElicitRequestedSchema {
    serde_json::from_value(json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"]
    }))
    .unwrap()
}

/// A server exercising every feature; the same handlers serve both eras.
fn server() -> Server {
    let server = ServerBuilder::new("engine-test", "1.0.0")
        .instructions("Test server.")
        .tool_timeout(Duration::from_secs(5))
        .page_size(2)
        .build();
    let r = server.registry();
    r.add_tool(
        tool("add"),
        tool_fn(|a: AddArgs, _| async move { (a.a + a.b).to_string() }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("echo"),
        tool_fn(|a: Value, _| async move { a["text"].as_str().unwrap_or("").to_owned() }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("panic"),
        tool_fn(|_: Value, _| async move {
            if true {
                panic!("boom");
            }
            "unreachable"
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("slow"),
        tool_fn(|_: Value, _| async move {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            "late"
        }),
        Some(Duration::from_millis(50)),
    )
    .unwrap();
    r.add_tool(
        tool("fail"),
        tool_fn(|_: Value, _| async move { Err::<String, _>("the date must be in the future") }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("progress"),
        tool_fn(|_: Value, ctx: Context| async move {
            for p in [0.0, 50.0, 50.0, 100.0] {
                ctx.progress(p, Some(100.0), None).await;
            }
            "done"
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("log"),
        tool_fn(|_: Value, ctx: Context| async move {
            ctx.log(LoggingLevel::Debug, None, "debug message").await;
            ctx.log(LoggingLevel::Error, Some("app"), json!({"k": "v"}))
                .await;
            "logged"
        }),
        None,
    )
    .unwrap();
    // One tool body for both eras: a request to the client in the legacy era, an input
    // request answered on the next round in the modern era.
    r.add_tool(
        tool("greet"),
        tool_fn(|_: Value, ctx: Context| async move {
            let person = ctx.elicit::<Person>("What is your name?").await;
            let sampled = ctx
                .sample(CreateMessageRequestParams::new(
                    vec![SamplingMessage::user_text("Capital of France?")],
                    10,
                ))
                .await;
            let roots = ctx.roots().await;
            match (person, sampled, roots) {
                (Ok(Elicitation::Accept(p)), Ok(s), Ok(roots)) => {
                    let answer = s
                        .content
                        .blocks()
                        .first()
                        .and_then(|b| serde_json::to_value(b).ok())
                        .and_then(|v| v["text"].as_str().map(str::to_owned))
                        .unwrap_or_default();
                    format!("Hello, {}! {} ({} roots)", p.name, answer, roots.len())
                }
                other => format!("failed: {other:?}"),
            }
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("needs_sampling"),
        tool_fn(|_: Value, ctx: Context| async move {
            match ctx
                .sample(CreateMessageRequestParams::new(
                    vec![SamplingMessage::user_text("x")],
                    5,
                ))
                .await
            {
                Ok(_) => "sampled".to_owned(),
                Err(e) => format!("error: {e}"),
            }
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("stateful"),
        tool_fn(|_: Value, ctx: Context| async move {
            let round: u32 = ctx.request_state().unwrap_or(0);
            ctx.set_request_state(round + 1);
            let form = ElicitRequestFormParams::new("name?", name_schema());
            let answer = ctx.input(Some("confirm")).elicit_form(form).await;
            format!("round={round} answered={}", answer.is_ok())
        }),
        None,
    )
    .unwrap();

    r.add_resource(
        {
            let mut res = Resource::new("test://static-text", "static-text");
            res.mime_type = Some("text/plain".into());
            res
        },
        resource_fn(Some("text/plain"), |_, _, _| async { "static content" }),
    )
    .unwrap();
    r.add_resource_template(
        ResourceTemplate::new("test://items/{id}", "items"),
        resource_fn(Some("application/json"), |_, vars, _| async move {
            let id = vars.get_str("id").unwrap_or_default().to_owned();
            if id == "missing" {
                Err(ResourceError::NotFound)
            } else {
                Ok(format!("{{\"id\":\"{id}\"}}"))
            }
        }),
    )
    .unwrap();
    let mut prompt = Prompt::new("review");
    prompt.description = Some("Review something.".into());
    prompt.arguments = Some(vec![
        PromptArgument::new("topic", true),
        PromptArgument::new("style", false),
    ]);
    r.add_prompt(
        prompt,
        prompt_fn(|args: BTreeMap<String, String>, _| async move {
            vec![PromptMessage::user(TextContent::new(format!(
                "Review {}",
                args["topic"]
            )))]
        }),
    )
    .unwrap();
    r.add_completion(
        CompletionTarget::Prompt("review".into()),
        "style",
        completion_fn(|value: String, _, _| async move {
            ["formal", "friendly", "funny"]
                .iter()
                .filter(|s| s.starts_with(&value))
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        }),
    );
    server
}

fn rpc_code(e: TestClientError) -> i64 {
    match e {
        TestClientError::Rpc(e) => e.code.0,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn answering() -> impl Fn(ClientOptions) -> ClientOptions {
    |o: ClientOptions| {
        o.with_elicitation(|_| {
            let mut content = BTreeMap::new();
            content.insert("name".to_owned(), ElicitContentValue::String("Ada".into()));
            ElicitResult::accept(content)
        })
        .with_sampling(|_| {
            serde_json::from_value::<CreateMessageResult>(json!({
                "role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "test"
            }))
            .unwrap()
        })
        .with_roots(vec![Root::new("file:///work")])
    }
}

#[tokio::test]
async fn legacy_initialize_negotiates_and_declares_capabilities() {
    let server = server();
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let init = client.initialize_result().unwrap();
    assert_eq!(init.protocol_version, "2025-11-25");
    assert_eq!(init.server_info.name, "engine-test");
    assert_eq!(init.instructions.as_deref(), Some("Test server."));
    assert!(init.capabilities.tools.is_some() && init.capabilities.prompts.is_some());
    assert!(init.capabilities.resources.as_ref().unwrap().subscribe == Some(true));

    // An older supported version is echoed; an unknown one gets the newest legacy version.
    let client = TestClient::connect(
        &server,
        ClientOptions::version(ferromcp::ProtocolVersion::V2025_03_26),
    )
    .await
    .unwrap();
    assert_eq!(
        client.initialize_result().unwrap().protocol_version,
        "2025-03-26"
    );
    let raw = client.request("initialize", Some(json!({"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}))).await;
    assert_eq!(
        rpc_code(raw.unwrap_err()),
        -32600,
        "a second initialize is refused"
    );
}

/// One stdio connection to `server`: each line written in turn, each answer read before
/// the next line goes.
async fn one_by_one(server: &Server, lines: &[Value]) -> Vec<Value> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_io);
    let s = server.clone();
    let served = tokio::spawn(async move { s.serve_io(r, w).await });
    let (cr, mut cw) = tokio::io::split(client_io);
    let mut answers = tokio::io::BufReader::new(cr).lines();
    let mut replies = Vec::new();
    for line in lines {
        cw.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        let answer = answers.next_line().await.unwrap().unwrap();
        replies.push(serde_json::from_str(&answer).unwrap());
    }
    cw.shutdown().await.unwrap();
    served.await.unwrap().unwrap();
    replies
}

fn initialize_line(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}})
}

/// A client that speaks both eras tries 2026 first and falls back to `initialize` on the
/// same stdio connection; a server of one era says which versions it speaks.
#[tokio::test]
async fn each_era_says_what_it_speaks_and_a_refused_2026_request_decides_nothing() {
    use ferromcp::ProtocolVersion as V;
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});

    let legacy_only = ServerBuilder::new("legacy", "1.0.0")
        .protocol_versions(&[V::V2025_06_18, V::V2025_11_25])
        .build();
    let replies = one_by_one(
        &legacy_only,
        &[discover.clone(), initialize_line("2025-11-25")],
    )
    .await;
    assert_eq!(replies[0]["error"]["code"], -32022, "{}", replies[0]);
    assert_eq!(
        replies[0]["error"]["data"]["supported"],
        json!(["2025-11-25", "2025-06-18"])
    );
    assert_eq!(
        replies[1]["result"]["protocolVersion"], "2025-11-25",
        "{}",
        replies[1]
    );

    let modern_only = ServerBuilder::new("modern", "1.0.0")
        .protocol_versions(&[V::V2026_07_28])
        .build();
    let replies = one_by_one(&modern_only, &[initialize_line("2025-11-25"), discover]).await;
    assert_eq!(replies[0]["error"]["code"], -32022, "{}", replies[0]);
    assert_eq!(
        replies[0]["error"]["data"]["supported"],
        json!(["2026-07-28"])
    );
    assert_eq!(replies[0]["error"]["data"]["requested"], "2025-11-25");
    assert!(
        replies[1]["result"]["supportedVersions"].is_array(),
        "{}",
        replies[1]
    );
}

#[tokio::test]
async fn legacy_unknown_version_gets_latest_and_requests_before_initialize_are_refused() {
    let server = server();
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_io);
    let s = server.clone();
    let served = tokio::spawn(async move { s.serve_io(r, w).await });
    let (cr, mut cw) = tokio::io::split(client_io);
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    cw.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .await
        .unwrap();
    cw.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n").await.unwrap();
    cw.shutdown().await.unwrap();
    let mut lines = tokio::io::BufReader::new(cr).lines();
    let mut replies = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        replies.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    served.await.unwrap().unwrap();
    assert_eq!(replies.len(), 2);
    let init = replies.iter().find(|r| r["id"] == 2).unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert!(
        init["result"].get("resultType").is_none(),
        "no 2026 fields in the legacy era"
    );
    let ping = replies.iter().find(|r| r["id"] == 1).unwrap();
    assert_eq!(ping["result"], json!({}));

    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_io);
    let s = server.clone();
    let served = tokio::spawn(async move { s.serve_io(r, w).await });
    let (cr, mut cw) = tokio::io::split(client_io);
    cw.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n")
        .await
        .unwrap();
    cw.shutdown().await.unwrap();
    let mut lines = tokio::io::BufReader::new(cr).lines();
    let reply: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    served.await.unwrap().unwrap();
    assert_eq!(reply["error"]["code"], -32600);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize")
    );
}

#[tokio::test]
async fn tools_work_the_same_in_both_eras() {
    let server = server();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let modern = options.protocol_version().era() == ferromcp_core::Era::Modern;
        let client = TestClient::connect(&server, options).await.unwrap();
        let r = client
            .call_tool("add", json!({"a": 2, "b": 40}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("42"));
        assert_eq!(r.result_type.is_some(), modern);

        // Bad arguments: a result the model can read, naming the problem.
        let r = client
            .call_tool("add", json!({"a": "two", "b": 1}))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(true));
        assert!(
            r.content[0]
                .as_text()
                .unwrap()
                .contains("invalid argument `a`"),
            "{:?}",
            r.content
        );

        // A tool's own failure.
        let r = client.call_tool("fail", json!({})).await.unwrap();
        assert_eq!(r.is_error, Some(true));
        assert_eq!(
            r.content[0].as_text(),
            Some("the date must be in the future")
        );

        // Unknown tool and malformed arguments: protocol errors.
        assert_eq!(
            rpc_code(client.call_tool("nope", json!({})).await.unwrap_err()),
            -32602
        );
        assert_eq!(
            rpc_code(
                client
                    .request(
                        "tools/call",
                        Some(json!({"name": "add", "arguments": "str"}))
                    )
                    .await
                    .unwrap_err()
            ),
            -32602
        );
        assert_eq!(
            rpc_code(
                client
                    .request("tools/call", Some(json!({"arguments": {}})))
                    .await
                    .unwrap_err()
            ),
            -32602
        );
        assert_eq!(
            rpc_code(client.request("no/such/method", None).await.unwrap_err()),
            -32601
        );

        // A panic is an internal error, and the server keeps serving.
        assert_eq!(
            rpc_code(client.call_tool("panic", json!({})).await.unwrap_err()),
            -32603
        );
        assert_eq!(
            client
                .call_tool("add", json!({"a": 1, "b": 1}))
                .await
                .unwrap()
                .content[0]
                .as_text(),
            Some("2")
        );

        // A timeout ends the call with an error result.
        let r = client.call_tool("slow", json!({})).await.unwrap();
        assert_eq!(r.is_error, Some(true));
        assert!(r.content[0].as_text().unwrap().contains("did not finish"));
    }
}

#[tokio::test]
async fn lists_paginate_with_opaque_cursors() {
    let server = server();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = TestClient::connect(&server, options).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "add",
                "echo",
                "panic",
                "slow",
                "fail",
                "progress",
                "log",
                "greet",
                "needs_sampling",
                "stateful"
            ]
        );
        let first = client.request("tools/list", None).await.unwrap();
        assert_eq!(first["tools"].as_array().unwrap().len(), 2);
        let cursor = first["nextCursor"].as_str().unwrap();
        assert!(cursor.parse::<u64>().is_err(), "cursors are opaque");
        for bad in ["garbage", "bW9yZQ", ""] {
            assert_eq!(
                rpc_code(
                    client
                        .request("tools/list", Some(json!({"cursor": bad})))
                        .await
                        .unwrap_err()
                ),
                -32602,
                "{bad}"
            );
        }
        assert_eq!(client.list_prompts().await.unwrap().len(), 1);
        assert_eq!(client.list_resources().await.unwrap().len(), 1);
        assert_eq!(client.list_resource_templates().await.unwrap().len(), 1);
    }
}

#[tokio::test]
async fn modern_results_carry_result_type_cache_hints_and_server_info() {
    let server = server();
    let client = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let list = client.request("tools/list", None).await.unwrap();
    assert_eq!(list["resultType"], "complete");
    assert_eq!(list["ttlMs"], 0);
    assert_eq!(list["cacheScope"], "private");
    assert_eq!(
        list["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "engine-test"
    );
    let read = client
        .request("resources/read", Some(json!({"uri": "test://static-text"})))
        .await
        .unwrap();
    assert_eq!(read["resultType"], "complete");
    assert!(read.get("ttlMs").is_some());
    let call = client
        .request(
            "tools/call",
            Some(json!({"name": "add", "arguments": {"a": 1, "b": 2}})),
        )
        .await
        .unwrap();
    assert_eq!(call["resultType"], "complete");
    assert_eq!(
        call["_meta"]["io.modelcontextprotocol/serverInfo"]["version"],
        "1.0.0"
    );

    let legacy = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let list = legacy.request("tools/list", None).await.unwrap();
    for key in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        assert!(list.get(key).is_none(), "legacy lists have no {key}");
    }
}

#[tokio::test]
async fn modern_discover_and_envelope_errors() {
    let server = server();
    let client = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let d = client.request("server/discover", None).await.unwrap();
    assert_eq!(
        d["supportedVersions"],
        json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
    assert_eq!(d["resultType"], "complete");
    assert!(d["capabilities"]["tools"].is_object());
    assert_eq!(d["instructions"], "Test server.");

    // Removed methods are unknown in the modern era, even `initialize` with the envelope.
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ] {
        let e = client
            .request(method, Some(json!({"uri": "x", "level": "info"})))
            .await
            .unwrap_err();
        assert_eq!(rpc_code(e), -32601, "{method}");
    }

    // Envelope problems, through raw lines on a modern connection.
    let e = client
        .request(
            "tools/list",
            Some(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "1900-01-01"}})),
        )
        .await
        .unwrap_err();
    // The client helper merges its own envelope, so build the bad ones by hand below.
    let _ = e;
    let lines = raw_session(
        &server,
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"test://nope","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"needs_sampling","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ],
    )
    .await;
    let by_id = |id: i64| lines.iter().find(|l| l["id"] == id).unwrap().clone();
    assert_eq!(by_id(1)["result"]["resultType"], "complete");
    assert_eq!(by_id(2)["error"]["code"], -32602);
    assert_eq!(by_id(3)["error"]["code"], -32602);
    assert!(
        by_id(3)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("clientCapabilities")
    );
    assert_eq!(by_id(4)["error"]["code"], -32022);
    assert_eq!(
        by_id(4)["error"]["data"],
        json!({
            "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
            "requested": "1900-01-01"
        })
    );
    assert_eq!(by_id(5)["error"]["code"], -32602);
    assert_eq!(by_id(5)["error"]["data"]["uri"], "test://nope");
    assert_eq!(by_id(6)["error"]["code"], -32021);
    assert_eq!(
        by_id(6)["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
}

/// A 2026 client that declared no capabilities is told, per kind of input request, which
/// capability the request needs (`-32021`, `data.requiredCapabilities`).
#[tokio::test]
async fn each_input_request_names_the_capability_it_needs() {
    let server = ServerBuilder::new("needs", "1.0.0").build();
    let r = server.registry();
    r.add_tool(
        tool("ask"),
        tool_fn(|args: Value, ctx: Context| async move {
            let refused = match args["kind"].as_str() {
                Some("form") => {
                    let params = ElicitRequestFormParams::new("Name?", name_schema());
                    ctx.elicit_form(params).await.err()
                }
                Some("url") => {
                    let params = ElicitRequestURLParams::new("Sign in", "https://example.com/")
                        .with_elicitation_id("e1");
                    ctx.elicit_url(params).await.err()
                }
                _ => ctx.roots().await.err(),
            };
            refused.map_or("answered".to_owned(), |e| format!("error: {e}"))
        }),
        None,
    )
    .unwrap();
    let call = |id: u32, kind: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"ask","arguments":{{"kind":"{kind}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
    };
    let lines = [call(1, "form"), call(2, "url"), call(3, "roots")];
    let lines = raw_session(
        &server,
        &lines.iter().map(String::as_str).collect::<Vec<_>>(),
    )
    .await;
    let by_id = |id: i64| lines.iter().find(|l| l["id"] == id).unwrap().clone();
    for (id, required) in [
        (1, json!({"elicitation": {"form": {}}})),
        (2, json!({"elicitation": {"url": {}}})),
        (3, json!({"roots": {}})),
    ] {
        assert_eq!(by_id(id)["error"]["code"], -32021, "{id}");
        assert_eq!(
            by_id(id)["error"]["data"]["requiredCapabilities"],
            required,
            "{id}"
        );
    }
}

/// Writes `lines` to a fresh stdio connection, closes the input, and returns every message
/// the server wrote.
async fn raw_session(server: &Server, lines: &[&str]) -> Vec<Value> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (r, w) = tokio::io::split(server_io);
    let s = server.clone();
    let served = tokio::spawn(async move { s.serve_io(r, w).await });
    let (cr, mut cw) = tokio::io::split(client_io);
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let writer = tokio::spawn(async move {
        cw.write_all(input.as_bytes()).await.unwrap();
        cw.shutdown().await.unwrap();
    });
    let mut out = Vec::new();
    let mut reader = tokio::io::BufReader::new(cr).lines();
    while let Some(line) = reader.next_line().await.unwrap() {
        out.push(serde_json::from_str(&line).unwrap());
    }
    writer.await.unwrap();
    served.await.unwrap().unwrap();
    out
}

#[tokio::test]
async fn resources_and_templates_in_both_eras() {
    let server = server();
    for (options, not_found) in [
        (ClientOptions::legacy(), -32002),
        (ClientOptions::modern(), -32602),
    ] {
        let client = TestClient::connect(&server, options).await.unwrap();
        let r = client.read_resource("test://static-text").await.unwrap();
        assert_eq!(r.contents[0].mime_type(), Some("text/plain"));
        let r = client.read_resource("test://items/42").await.unwrap();
        let text = serde_json::to_value(&r.contents[0]).unwrap();
        assert_eq!(text["text"], r#"{"id":"42"}"#);
        assert_eq!(text["mimeType"], "application/json");
        assert_eq!(text["uri"], "test://items/42");
        for uri in ["test://nope", "test://items/missing"] {
            let e = client.read_resource(uri).await.unwrap_err();
            let TestClientError::Rpc(e) = e else { panic!() };
            assert_eq!(e.code.0, not_found);
            assert_eq!(e.data.unwrap()["uri"], uri);
        }
    }
}

#[tokio::test]
async fn prompts_and_completions() {
    let server = server();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = TestClient::connect(&server, options).await.unwrap();
        let p = client
            .get_prompt("review", json!({"topic": "PR 7"}))
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(&p.messages[0].content).unwrap()["text"],
            "Review PR 7"
        );
        assert_eq!(
            rpc_code(client.get_prompt("review", json!({})).await.unwrap_err()),
            -32602
        );
        assert_eq!(
            rpc_code(client.get_prompt("nope", json!({})).await.unwrap_err()),
            -32602
        );
        let c = client
            .complete_prompt_argument("review", "style", "f")
            .await
            .unwrap();
        assert_eq!(c.completion.values, ["formal", "friendly", "funny"]);
        let c = client
            .complete_prompt_argument("review", "topic", "x")
            .await
            .unwrap();
        assert!(
            c.completion.values.is_empty(),
            "no completion handler: empty values"
        );
    }
}

#[tokio::test]
async fn progress_is_sent_only_when_asked_and_strictly_increases() {
    let server = server();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = TestClient::connect(&server, options).await.unwrap();
        client.call_tool("progress", json!({})).await.unwrap();
        assert!(
            client
                .notifications()
                .iter()
                .all(|n| n["method"] != "notifications/progress")
        );
        client
            .request(
                "tools/call",
                Some(json!({"name": "progress", "_meta": {"progressToken": "p1"}})),
            )
            .await
            .unwrap();
        let progress: Vec<f64> = client
            .notifications()
            .iter()
            .filter(|n| n["method"] == "notifications/progress")
            .map(|n| {
                assert_eq!(n["params"]["progressToken"], "p1");
                n["params"]["progress"].as_f64().unwrap()
            })
            .collect();
        assert_eq!(progress, [0.0, 50.0, 100.0]);
    }
}

#[tokio::test]
async fn logging_follows_set_level_in_legacy_and_log_level_in_modern() {
    let server = server();
    let legacy = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    legacy
        .request("logging/setLevel", Some(json!({"level": "warning"})))
        .await
        .unwrap();
    legacy.call_tool("log", json!({})).await.unwrap();
    let logs: Vec<Value> = legacy
        .notifications()
        .into_iter()
        .filter(|n| n["method"] == "notifications/message")
        .collect();
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0]["params"]["level"], "error");
    assert_eq!(logs[0]["params"]["logger"], "app");

    let modern = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    modern.call_tool("log", json!({})).await.unwrap();
    assert!(modern.notifications().is_empty(), "no logLevel, no logs");
    let modern = TestClient::connect(
        &server,
        ClientOptions::modern().with_log_level(LoggingLevel::Debug),
    )
    .await
    .unwrap();
    modern.call_tool("log", json!({})).await.unwrap();
    assert_eq!(
        modern
            .notifications()
            .iter()
            .filter(|n| n["method"] == "notifications/message")
            .count(),
        2
    );
}

#[tokio::test]
async fn elicitation_sampling_and_roots_with_one_tool_body_in_both_eras() {
    let server = server();
    let with = answering();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = TestClient::connect(&server, with(options)).await.unwrap();
        let r = client.call_tool("greet", json!({})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("Hello, Ada! Paris (1 roots)"));
    }
    // A client without the capabilities: legacy tools see an error; modern calls end -32021.
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let r = client.call_tool("needs_sampling", json!({})).await.unwrap();
    assert_eq!(
        r.content[0].as_text(),
        Some("error: the client does not support sampling")
    );
    let client = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    assert_eq!(
        rpc_code(
            client
                .call_tool("needs_sampling", json!({}))
                .await
                .unwrap_err()
        ),
        -32021
    );
}

/// A sampling request with tools goes only to a client that declared `sampling.tools`.
#[tokio::test]
async fn sampling_with_tools_needs_the_clients_sampling_tools() {
    let server = ServerBuilder::new("sampler", "1.0.0").build();
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    server
        .registry()
        .add_tool(
            Tool::new("plan", schema.clone()),
            tool_fn(move |_: Value, ctx: Context| {
                let schema = schema.clone();
                async move {
                    let mut params = CreateMessageRequestParams::new(
                        vec![SamplingMessage::user_text("plan")],
                        9,
                    );
                    params.tools = Some(vec![Tool::new("search", schema)]);
                    ctx.sample(params)
                        .await
                        .map(|_| "sampled")
                        .map_err(|e| e.to_string())
                }
            }),
            None,
        )
        .unwrap();
    let answer = |_: CreateMessageRequestParams| {
        serde_json::from_value::<CreateMessageResult>(json!({
            "role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"
        }))
        .unwrap()
    };
    for version in [ClientOptions::legacy(), ClientOptions::modern()] {
        let modern = version.protocol_version() == ferromcp::ProtocolVersion::V2026_07_28;
        // Sampling without tools declared: not asked.
        let client = TestClient::connect(&server, version.clone().with_sampling(answer))
            .await
            .unwrap();
        let outcome = client.call_tool("plan", json!({})).await;
        if modern {
            let TestClientError::Rpc(e) = outcome.unwrap_err() else {
                panic!("an RPC error")
            };
            assert_eq!(e.code.0, -32021);
            let data = e.data.unwrap();
            assert!(
                data["requiredCapabilities"]["sampling"]["tools"].is_object(),
                "{data}"
            );
        } else {
            let r = outcome.unwrap();
            assert_eq!(
                r.content[0].as_text(),
                Some("the client does not support sampling with tools")
            );
        }
        // Declared: asked, and answered.
        let options = version.with_sampling(answer).with_sampling_tools();
        let client = TestClient::connect(&server, options).await.unwrap();
        let r = client.call_tool("plan", json!({})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("sampled"));
    }
}

#[tokio::test]
async fn modern_input_required_round_trip_and_sealed_state() {
    let server = server();
    let client = TestClient::connect(&server, answering()(ClientOptions::modern()))
        .await
        .unwrap();
    // Round 1 by hand: an input_required result with the named key and a sealed state.
    let first = client
        .request("tools/call", Some(json!({"name": "stateful"})))
        .await
        .unwrap();
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let state = first["requestState"].as_str().unwrap().to_owned();

    // Missing answer: asked again, state carried on.
    let again = client
        .request(
            "tools/call",
            Some(
                json!({"name": "stateful", "requestState": state, "inputResponses": {"other": {}}}),
            ),
        )
        .await
        .unwrap();
    assert_eq!(again["resultType"], "input_required");

    // Answered: the handler ran again and saw the state it stored in the previous round.
    let done = client
        .request(
            "tools/call",
            Some(json!({"name": "stateful", "requestState": again["requestState"], "inputResponses": {"confirm": {"action": "accept", "content": {"name": "x"}}}})),
        )
        .await
        .unwrap();
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["content"][0]["text"], "round=2 answered=true");

    // Tampered or foreign state: -32602.
    let mut tampered = state.clone();
    tampered.insert(5, 'x');
    for bad in [tampered, "garbage".to_owned()] {
        let e = client
            .request(
                "tools/call",
                Some(json!({"name": "stateful", "requestState": bad})),
            )
            .await
            .unwrap_err();
        assert_eq!(rpc_code(e), -32602);
    }
    let e = client
        .request(
            "tools/call",
            Some(json!({"name": "greet", "requestState": state})),
        )
        .await
        .unwrap_err();
    assert_eq!(
        rpc_code(e),
        -32602,
        "a state issued for one tool is refused by another"
    );
}

/// The paused clock lets the hour-long sleep end as soon as every task is idle: a handler
/// that cancellation failed to drop would finish and answer, and the test would see it.
#[tokio::test(start_paused = true)]
async fn cancellation_drops_the_handler_and_sends_nothing() {
    struct CountDrop(Arc<AtomicUsize>);
    impl Drop for CountDrop {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let server = ServerBuilder::new("cancel", "1").build();
    let dropped = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicUsize::new(0));
    let (d, f) = (dropped.clone(), finished.clone());
    server
        .registry()
        .add_tool(
            tool("wait"),
            tool_fn(move |_: Value, _| {
                let (d, f) = (d.clone(), f.clone());
                async move {
                    let _guard = CountDrop(d);
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    f.fetch_add(1, Ordering::SeqCst);
                    "never"
                }
            }),
            None,
        )
        .unwrap();
    let lines = raw_session(
        &server,
        &[
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"wait"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w","reason":"user"}}"#,
            r#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#,
        ],
    )
    .await;
    assert!(
        lines.iter().all(|l| l["id"] != "w"),
        "nothing is sent for a cancelled request: {lines:?}"
    );
    assert!(lines.iter().any(|l| l["id"] == "after"));
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        1,
        "the handler's future was dropped"
    );
    assert_eq!(
        finished.load(Ordering::SeqCst),
        0,
        "and never ran to its end"
    );
}

#[tokio::test]
async fn dynamic_registry_changes_notify_legacy_sessions_and_modern_listeners() {
    let server = server();
    let legacy = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    legacy
        .request(
            "resources/subscribe",
            Some(json!({"uri": "test://static-text"})),
        )
        .await
        .unwrap();

    server.registry().disable_tool("echo");
    server
        .registry()
        .notify_resource_updated("test://static-text");
    server.registry().notify_resource_updated("test://other");
    // A round trip makes sure the notifications, sent before its reply, have arrived.
    legacy.request("ping", None).await.unwrap();
    let methods: Vec<String> = legacy
        .notifications()
        .iter()
        .map(|n| n["method"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        methods.contains(&"notifications/tools/list_changed".to_owned()),
        "{methods:?}"
    );
    let updated: Vec<Value> = legacy
        .notifications()
        .into_iter()
        .filter(|n| n["method"] == "notifications/resources/updated")
        .collect();
    assert_eq!(updated.len(), 1);
    assert_eq!(updated[0]["params"]["uri"], "test://static-text");

    assert!(
        !legacy
            .list_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "echo")
    );
    assert_eq!(
        rpc_code(legacy.call_tool("echo", json!({})).await.unwrap_err()),
        -32602
    );
    server.registry().enable_tool("echo");
    assert!(
        legacy
            .list_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "echo")
    );
}

#[tokio::test]
async fn stdio_answers_garbage_and_oversized_lines_and_goes_on() {
    let server = ServerBuilder::new("limits", "1")
        .max_message_size(1024)
        .build();
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(2000)
    );
    let lines = raw_session(
        &server,
        &[
            "garbage",
            &big,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            r#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        ],
    )
    .await;
    // Errors about unreadable lines come in input order; answers to requests may overtake
    // each other, so look those up by id.
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert_eq!(lines[0]["error"]["code"], -32700);
    assert_eq!(lines[0]["id"], Value::Null);
    assert_eq!(lines[1]["error"]["code"], -32600);
    assert!(
        lines[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1024")
    );
    assert_eq!(
        lines[2]["id"], 1,
        "initialize is answered before anything after it is read"
    );
    let errors: Vec<&Value> = lines[3..].iter().filter(|l| l["id"].is_null()).collect();
    assert_eq!(
        errors.len(),
        2,
        "the batch and the null-id request: {lines:?}"
    );
    assert!(errors.iter().all(|e| e["error"]["code"] == -32600));
    assert!(errors.iter().any(|e| {
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2025-03-26")
    }));
    assert!(
        lines
            .iter()
            .any(|l| l["id"] == 3 && l["result"] == json!({}))
    );
}

#[tokio::test]
async fn batches_are_accepted_for_2025_03_26() {
    let server = server();
    let lines = raw_session(
        &server,
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            r#"[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}]"#,
        ],
    )
    .await;
    let batch = lines[1].as_array().expect("a batch response");
    assert_eq!(batch.len(), 2);
    assert_eq!(batch[0]["id"], 2);
    assert_eq!(batch[1]["result"]["content"][0]["text"], "3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundred_thousand_pipelined_calls_lose_nothing() {
    const N: usize = 100_000;
    let server = server();
    let mut input = String::with_capacity(N * 100);
    input.push_str(r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#);
    input.push('\n');
    for i in 0..N {
        input.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{i},"b":1}}}}}}"#
        ));
        input.push('\n');
    }
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_io);
    let s = server.clone();
    let served = tokio::spawn(async move { s.serve_io(r, w).await });
    let (cr, mut cw) = tokio::io::split(client_io);
    let writer = tokio::spawn(async move {
        cw.write_all(input.as_bytes()).await.unwrap();
        cw.shutdown().await.unwrap();
    });
    let mut seen = vec![false; N];
    let mut count = 0;
    let mut reader = tokio::io::BufReader::new(cr).lines();
    while let Some(line) = reader.next_line().await.unwrap() {
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == "init" {
            continue;
        }
        let i = v["id"].as_u64().unwrap() as usize;
        assert!(!seen[i], "duplicate response {i}");
        seen[i] = true;
        assert_eq!(v["result"]["content"][0]["text"], (i + 1).to_string());
        count += 1;
    }
    writer.await.unwrap();
    served.await.unwrap().unwrap();
    assert_eq!(count, N);
}

/// An input that counts how much of it the server has read.
struct CountingInput {
    data: Vec<u8>,
    pos: usize,
    read: Arc<AtomicUsize>,
}

impl tokio::io::AsyncRead for CountingInput {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let n = buf.remaining().min(4096).min(self.data.len() - self.pos);
        let start = self.pos;
        buf.put_slice(&self.data[start..start + n]);
        self.pos += n;
        self.read.fetch_add(n, Ordering::SeqCst);
        std::task::Poll::Ready(Ok(()))
    }
}

/// With an output nobody reads, the server must stop reading its input: requests in flight
/// and responses waiting to be written are bounded, so memory is too. The paused clock makes
/// this deterministic: the long sleep ends only once every task is blocked.
#[tokio::test(start_paused = true)]
async fn a_stalled_output_stops_the_input() {
    const N: usize = 100_000;
    let server = server();
    let mut input = Vec::with_capacity(N * 100);
    input.extend_from_slice(br#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#);
    input.push(b'\n');
    for i in 0..N {
        input.extend_from_slice(
            format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{i},"b":1}}}}}}"#).as_bytes(),
        );
        input.push(b'\n');
    }
    let total = input.len();
    let line = total / (N + 1);
    let read = Arc::new(AtomicUsize::new(0));
    let counting = CountingInput {
        data: input,
        pos: 0,
        read: read.clone(),
    };
    // The server writes into a small pipe whose other end is never read.
    let (never_read, output) = tokio::io::duplex(4096);
    let served = tokio::spawn({
        let server = server.clone();
        async move { server.serve_io(counting, output).await }
    });
    tokio::time::sleep(Duration::from_secs(3600)).await;
    let consumed = read.load(Ordering::SeqCst);
    // The reader's buffer, the requests in flight, the responses queued for the writer and
    // the pipe: a few thousand lines at most, never the whole input.
    assert!(
        consumed < 5_000 * line,
        "read {} of {} lines",
        consumed / line,
        N
    );
    assert!(!served.is_finished());
    served.abort();
    drop(never_read);
}

#[tokio::test]
async fn batches_over_a_hundred_messages_are_refused_whole() {
    let server = server();
    let calls: Vec<String> = (0..101)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":1}}}}}}"#))
        .collect();
    let batch = format!("[{}]", calls.join(","));
    let lines = raw_session(
        &server,
        &[
            r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            &batch,
        ],
    )
    .await;
    assert_eq!(lines.len(), 2, "one answer for the whole batch: {lines:?}");
    assert_eq!(lines[1]["error"]["code"], -32600);
    assert!(
        lines[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("100")
    );
}

#[tokio::test]
async fn a_response_over_the_limit_becomes_an_internal_error() {
    let server = ServerBuilder::new("big", "1")
        .max_response_size(1024)
        .build();
    server
        .registry()
        .add_tool(
            tool("big"),
            tool_fn(|_: Value, _| async { "x".repeat(2048) }),
            None,
        )
        .unwrap();
    server
        .registry()
        .add_tool(tool("small"), tool_fn(|_: Value, _| async { "ok" }), None)
        .unwrap();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = TestClient::connect(&server, options).await.unwrap();
        let e = client.call_tool("big", json!({})).await.unwrap_err();
        let TestClientError::Rpc(e) = e else { panic!() };
        assert_eq!(e.code.0, -32603);
        assert_eq!(e.message, "response too large");
        assert_eq!(
            client.call_tool("small", json!({})).await.unwrap().content[0].as_text(),
            Some("ok")
        );
    }
}

#[tokio::test]
async fn a_cancelled_tool_cancels_its_pending_elicitation_at_the_client() {
    let server = server();
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_io);
    let s = server.clone();
    let served = tokio::spawn(async move { s.serve_io(r, w).await });
    let (cr, mut cw) = tokio::io::split(client_io);
    let mut lines = tokio::io::BufReader::new(cr).lines();
    cw.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n").await.unwrap();
    let _init = lines.next_line().await.unwrap().unwrap();
    cw.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"g\",\"method\":\"tools/call\",\"params\":{\"name\":\"greet\"}}\n").await.unwrap();
    // The server asks the client for the name...
    let ask: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    // ...the client cancels the tool call instead of answering...
    cw.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"g\"}}\n").await.unwrap();
    // ...and the server withdraws its question.
    let withdrawn: Value =
        serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(withdrawn["method"], "notifications/cancelled");
    assert_eq!(withdrawn["params"]["requestId"], ask["id"]);
    cw.shutdown().await.unwrap();
    while let Some(line) = lines.next_line().await.unwrap() {
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_ne!(v["id"], "g", "nothing is sent for the cancelled call");
    }
    served.await.unwrap().unwrap();
}

/// An input delivered in chunks of pseudo-random sizes (0 = "not ready yet", then ready),
/// like a pipe under load: a line may arrive in many pieces, several lines in one piece.
struct Chunked {
    data: Vec<u8>,
    pos: usize,
    state: u64,
}

impl Chunked {
    fn next(&mut self) -> u64 {
        // xorshift64*: deterministic, good enough to vary chunk sizes.
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

impl tokio::io::AsyncRead for Chunked {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let roll = self.next();
        if roll.is_multiple_of(7) {
            // Not ready now; ready again at once (exercises the reader's pending path).
            cx.waker().wake_by_ref();
            return std::task::Poll::Pending;
        }
        let want = match roll % 4 {
            0 => 1,
            1 => (roll >> 8) as usize % 16 + 1,
            2 => (roll >> 8) as usize % 300 + 1,
            _ => (roll >> 8) as usize % 5000 + 1,
        };
        let n = want.min(buf.remaining()).min(self.data.len() - self.pos);
        let start = self.pos;
        buf.put_slice(&self.data[start..start + n]);
        self.pos += n;
        std::task::Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn any_chunking_of_the_input_loses_no_request() {
    const N: usize = 2_000;
    for seed in [1u64, 7, 0x9E37_79B9_7F4A_7C15] {
        let server = server();
        let mut input = Vec::new();
        input.extend_from_slice(br#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#);
        input.push(b'\n');
        for i in 0..N {
            // Vary the line lengths; some requests carry padding, some are notifications.
            let pad = "x".repeat(i % 97);
            input.extend_from_slice(
                format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{i}{pad}"}}}}}}"#).as_bytes(),
            );
            input.push(b'\n');
            if i.is_multiple_of(50) {
                input.extend_from_slice(
                    b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}\n\n",
                );
            }
        }
        let reader = Chunked {
            data: input,
            pos: 0,
            state: seed,
        };
        let (out_read, out_write) = tokio::io::duplex(1 << 16);
        let served = tokio::spawn({
            let server = server.clone();
            async move { server.serve_io(reader, out_write).await }
        });
        use tokio::io::AsyncBufReadExt;
        let mut lines = tokio::io::BufReader::new(out_read).lines();
        let mut seen = vec![false; N];
        while let Some(line) = lines.next_line().await.unwrap() {
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == "init" {
                continue;
            }
            let i = v["id"].as_u64().unwrap() as usize;
            assert!(!seen[i], "seed {seed}: response {i} twice");
            seen[i] = true;
            let text = v["result"]["content"][0]["text"].as_str().unwrap();
            assert_eq!(text, format!("{i}{}", "x".repeat(i % 97)), "seed {seed}");
        }
        served.await.unwrap().unwrap();
        assert!(
            seen.iter().all(|s| *s),
            "seed {seed}: lost {}",
            seen.iter().filter(|s| !**s).count()
        );
    }
}

/// More notifications than the outbound queue holds, from more requests than may run at
/// once: the serving loop writes the queue while it waits for a slot, so nothing stalls,
/// and each request's notifications come before its response.
#[tokio::test]
async fn stdio_streams_more_notifications_than_the_queue_holds() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    const CALLS: u64 = 6;
    const NOTES: u64 = 1500;
    let server = ServerBuilder::new("chatty", "1.0.0")
        .max_in_flight(2)
        .build();
    server
        .registry()
        .add_tool(
            tool("chatty"),
            tool_fn(|_: Value, ctx: Context| async move {
                for p in 1..=NOTES {
                    ctx.progress(p as f64, None, None).await;
                }
                "done"
            }),
            None,
        )
        .unwrap();
    let (client_io, server_io) = tokio::io::duplex(1 << 12);
    let (r, w) = tokio::io::split(server_io);
    let served = tokio::spawn(async move { server.serve_io(r, w).await });
    let (cr, mut cw) = tokio::io::split(client_io);
    let reading = tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(cr).lines();
        let mut seen = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            seen.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        seen
    });
    cw.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await.unwrap();
    for id in 1..=CALLS {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "chatty", "_meta": {"progressToken": id}}});
        cw.write_all(format!("{call}\n").as_bytes()).await.unwrap();
    }
    cw.shutdown().await.unwrap();
    let seen = tokio::time::timeout(Duration::from_secs(60), reading)
        .await
        .expect("the server kept writing")
        .unwrap();
    served.await.unwrap().unwrap();
    for id in 1..=CALLS {
        let notes: Vec<usize> = (0..seen.len())
            .filter(|&i| seen[i]["params"]["progressToken"] == id)
            .collect();
        let response = seen.iter().position(|m| m["id"] == id).unwrap();
        assert_eq!(notes.len() as u64, NOTES, "call {id}");
        assert!(
            notes.iter().all(|&i| i < response),
            "call {id}: a note after the result"
        );
        assert_eq!(seen[response]["result"]["content"][0]["text"], "done");
    }
}

#[tokio::test]
async fn a_tools_own_result_meta_is_kept_beside_the_server_info() {
    let server = ServerBuilder::new("meta-test", "2.0.0").build();
    server
        .registry()
        .add_tool(
            tool("tagged"),
            tool_fn(|_: Value, _| async move {
                let mut meta = ResultMetaObject::default();
                meta.extra
                    .insert("example.com/trace".to_owned(), json!("abc"));
                let mut result = CallToolResult::text("ok");
                result.meta = Some(meta);
                result
            }),
            None,
        )
        .unwrap();
    for (options, modern) in [
        (ClientOptions::modern(), true),
        (ClientOptions::legacy(), false),
    ] {
        let client = TestClient::connect(&server, options).await.unwrap();
        let call = client
            .request(
                "tools/call",
                Some(json!({"name": "tagged", "arguments": {}})),
            )
            .await
            .unwrap();
        assert_eq!(
            call["_meta"]["example.com/trace"], "abc",
            "modern: {modern}"
        );
        let info = &call["_meta"]["io.modelcontextprotocol/serverInfo"];
        if modern {
            assert_eq!(info["name"], "meta-test");
        } else {
            assert!(info.is_null(), "a legacy result has no serverInfo: {call}");
        }
    }
}

struct Incidents;

#[ferromcp::server]
impl Incidents {
    /// Lists open incidents.
    #[tool]
    fn list(&self) -> String {
        "none open".into()
    }

    /// Resolves an incident, saying who did.
    #[tool(scopes = ["incidents:write"])]
    fn resolve(&self, id: u32, ctx: Context) -> String {
        let who = ctx.principal().map_or("nobody", |p| p.subject());
        format!("{who} resolved {id}")
    }
}

/// A test client acting as a caller: its scopes decide what it sees and may call, and
/// handlers see it, in both eras.
#[tokio::test]
async fn a_test_client_acts_as_the_principal_it_is_given() {
    use ferromcp::Principal;
    let server = Server::new(Incidents).unwrap();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let reader = Principal::new("ana").with_scopes(["incidents:read"]);
        let client = TestClient::connect(&server, options.clone().with_principal(reader))
            .await
            .unwrap();
        assert_eq!(tool_names(&client).await, ["list"]);
        let refused = client
            .call_tool("resolve", json!({"id": 7}))
            .await
            .unwrap_err();
        let TestClientError::Rpc(e) = refused else {
            panic!("{refused:?}")
        };
        assert_eq!(e.data.unwrap()["missingScopes"], json!(["incidents:write"]));

        let writer = Principal::new("bo").with_scopes(["incidents:write"]);
        let client = TestClient::connect(&server, options.with_principal(writer))
            .await
            .unwrap();
        let result = client.call_tool("resolve", json!({"id": 7})).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("bo resolved 7"));
    }
}
