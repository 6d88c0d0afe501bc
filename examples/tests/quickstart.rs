//! The quickstart example's contract, through the in-process client in both eras, plus the
//! built binary's command line and stdout hygiene. Third-party clients drive the same binary
//! in tests/interop; tests/readme.rs checks that the README shows this very source.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Stdio;

use ferromcp::Server;
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

mod common;
use common::{eras, rpc_code};

// The binary's source, compiled here as a module so the test serves the very same server.
#[allow(dead_code)]
#[path = "../src/bin/quickstart.rs"]
mod quickstart;

async fn connect(options: ClientOptions) -> TestClient {
    TestClient::connect(&Server::new(quickstart::Quickstart).unwrap(), options)
        .await
        .unwrap()
}

#[tokio::test]
async fn lists_describe_every_tool_resource_and_prompt() {
    for (options, _) in eras() {
        let client = connect(options).await;
        let tools = client.list_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["add", "echo", "stats"]);
        for tool in &tools {
            assert!(
                tool.description.is_some(),
                "{} has a description",
                tool.name
            );
            assert_eq!(tool.input_schema["type"], "object");
            assert_eq!(tool.input_schema["additionalProperties"], false);
        }
        assert_eq!(tools[0].input_schema["required"], json!(["a", "b"]));
        assert_eq!(tools[0].input_schema["properties"]["a"]["type"], "integer");
        assert_eq!(tools[1].input_schema["required"], json!(["text"]));
        assert_eq!(
            tools[2].input_schema["properties"]["numbers"]["items"]["type"],
            "number"
        );
        let output = tools[2]
            .output_schema
            .as_ref()
            .expect("stats has an outputSchema");
        assert_eq!(output["type"], "object");
        assert_eq!(output["required"], json!(["count", "mean", "min", "max"]));

        let resources = client.list_resources().await.unwrap();
        assert_eq!(resources.len(), 1);
        assert_eq!(resources[0].uri, "quickstart://readme");
        assert_eq!(resources[0].mime_type.as_deref(), Some("text/markdown"));
        assert!(client.list_resource_templates().await.unwrap().is_empty());

        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts.len(), 1);
        assert_eq!(prompts[0].name, "code_review");
        assert!(prompts[0].description.is_some());
        let args = prompts[0].arguments.as_ref().unwrap();
        assert_eq!(args.len(), 1);
        assert_eq!(
            (args[0].name.as_str(), args[0].required),
            ("code", Some(true))
        );
    }
}

#[tokio::test]
async fn add_echo_and_stats() {
    for (options, _) in eras() {
        let client = connect(options).await;
        let r = client
            .call_tool("add", json!({"a": 2, "b": 40}))
            .await
            .unwrap();
        assert_eq!(r.is_error, None);
        assert_eq!(r.content.len(), 1);
        assert_eq!(r.content[0].as_text(), Some("42"));
        assert_eq!(r.structured_content, Some(json!({"result": 42})));

        let r = client
            .call_tool("add", json!({"a": i64::MAX, "b": 1}))
            .await
            .unwrap();
        assert_eq!(
            r.is_error,
            Some(true),
            "overflow is a tool error, not a panic"
        );

        let r = client
            .call_tool("add", json!({"a": 1.5, "b": 1}))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(true), "integers only");

        let text = "  tabs\tand\nnewlines, \"quotes\", back\\slash, ünïcödé 🦀  ";
        let r = client
            .call_tool("echo", json!({"text": text}))
            .await
            .unwrap();
        assert_eq!(r.content.len(), 1);
        assert_eq!(r.content[0].as_text(), Some(text));

        let r = client
            .call_tool("stats", json!({"numbers": [1, 2, 3, 4]}))
            .await
            .unwrap();
        let expected = json!({"count": 4, "mean": 2.5, "min": 1.0, "max": 4.0});
        assert_eq!(r.structured_content, Some(expected.clone()));
        let mirrored: Value = serde_json::from_str(r.content[0].as_text().unwrap()).unwrap();
        assert_eq!(
            mirrored, expected,
            "the text block mirrors the structured result"
        );

        let r = client
            .call_tool("stats", json!({"numbers": []}))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(true));
        assert!(r.content[0].as_text().unwrap().contains("at least one"));
        assert_eq!(r.structured_content, None);
    }
}

#[tokio::test]
async fn readme_and_an_unknown_uri() {
    for (options, modern) in eras() {
        let client = connect(options).await;
        let r = client.read_resource("quickstart://readme").await.unwrap();
        assert_eq!(r.contents.len(), 1);
        assert_eq!(r.contents[0].mime_type(), Some("text/markdown"));
        let text = serde_json::to_value(&r.contents[0]).unwrap()["text"].clone();
        assert!(text.as_str().unwrap().starts_with("# quickstart"));

        let missing = client
            .read_resource("quickstart://missing")
            .await
            .unwrap_err();
        let TestClientError::Rpc(e) = missing else {
            panic!("expected an error, got {missing:?}")
        };
        assert_eq!(e.code.0, if modern { -32602 } else { -32002 });
        assert_eq!(e.data.as_ref().unwrap()["uri"], "quickstart://missing");
    }
}

#[tokio::test]
async fn code_review_prompt() {
    for (options, _) in eras() {
        let client = connect(options).await;
        let code = "fn add(a: i32, b: i32) -> i32 { a - b }";
        let r = client
            .get_prompt("code_review", json!({"code": code}))
            .await
            .unwrap();
        assert_eq!(r.messages.len(), 1);
        let message = serde_json::to_value(&r.messages[0]).unwrap();
        assert_eq!(message["role"], "user");
        assert!(message["content"]["text"].as_str().unwrap().contains(code));

        let e = client
            .get_prompt("code_review", json!({}))
            .await
            .unwrap_err();
        assert_eq!(rpc_code(e), -32602, "a missing argument is invalid params");
    }
}

/// `serve_http` says where it listens on stderr even with logging off, as its first and
/// only line, and the URL it gives is served.
#[tokio::test]
async fn http_announces_its_url_on_stderr_without_logging() {
    let bin = env!("CARGO_BIN_EXE_quickstart");
    let mut child = tokio::process::Command::new(bin)
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = tokio::time::timeout(std::time::Duration::from_secs(60), lines.next_line())
        .await
        .expect("the server announces itself")
        .unwrap()
        .expect("a line on stderr");
    let url = first
        .strip_prefix("MCP server listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {first}"));
    let addr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("not an MCP URL: {url}"));
    assert!(!addr.ends_with(":0"), "the real port is shown: {addr}");
    // The URL is live: a request without a body is answered (refused) by the endpoint.
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    socket
        .write_all(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut reply = String::new();
    socket.read_to_string(&mut reply).await.unwrap();
    assert!(reply.starts_with("HTTP/1.1 "), "{reply}");
    child.kill().await.unwrap();
    while let Some(line) = lines.next_line().await.unwrap() {
        assert!(
            !line.contains("listening on"),
            "announced more than once: {line}"
        );
    }
}

#[tokio::test]
async fn binary_speaks_only_protocol_on_stdout() {
    let bin = env!("CARGO_BIN_EXE_quickstart");

    // Logging at the most verbose level must still leave stdout to the protocol.
    let mut child = tokio::process::Command::new(bin)
        .env("RUST_LOG", "trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "\n",
                // Logged (at debug) and otherwise ignored.
                r#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}"#,
                "\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    drop(stdin);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut replies = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        replies.push(serde_json::from_str::<Value>(&line).expect("every stdout line is JSON"));
    }
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .await
        .unwrap();
    assert!(
        child.wait().await.unwrap().success(),
        "exits 0 when stdin closes"
    );
    assert_eq!(replies.len(), 2, "{replies:?}");
    assert_eq!(replies[0]["result"]["serverInfo"]["name"], "quickstart");
    assert_eq!(replies[1]["result"]["content"][0]["text"], "42");
    assert!(
        stderr.contains("notification ignored"),
        "logs go to stderr: {stderr}"
    );
}

/// The binary's minor page faults so far (`/proc/PID/stat`, field 10).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn minor_faults(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The command name (field 2) is in parentheses and may hold spaces.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    after.split(' ').nth(7).unwrap().parse().unwrap()
}

/// With the allocator setting docs/stdio.md gives applications ("Tuning glibc's allocator"),
/// large messages over stdio do not fault their buffers in again on every call: with glibc's
/// default thresholds each 100 KB echo faults in ~35 pages (the line, the argument, the
/// response, freed and handed back to the kernel). The SDK no longer makes the setting
/// itself; this checks that the documented one works. Counted on the built binary, after a
/// warm-up, over 100 sequential calls.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[tokio::test]
async fn large_echoes_reuse_their_buffers_with_the_documented_allocator_setting() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .env("RUST_LOG", "off")
        .env_remove("MALLOC_TRIM_THRESHOLD_")
        .env_remove("MALLOC_MMAP_THRESHOLD_")
        .env(
            "GLIBC_TUNABLES",
            "glibc.malloc.trim_threshold=8388608:glibc.malloc.mmap_threshold=4194304",
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    stdin
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    lines.next_line().await.unwrap().unwrap();
    let text = "x".repeat(100_000);
    let call = |id: u32| {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "echo", "arguments": {"text": text}}});
        format!("{line}\n")
    };
    let mut faults = Vec::new();
    for id in 1..=120u32 {
        if id == 21 {
            faults.push(minor_faults(pid));
        }
        stdin.write_all(call(id).as_bytes()).await.unwrap();
        let reply: Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(
            reply["result"]["content"][0]["text"].as_str().map(str::len),
            Some(100_000)
        );
    }
    faults.push(minor_faults(pid));
    let per_call = (faults[1] - faults[0]) as f64 / 100.0;
    assert!(per_call < 5.0, "{per_call} page faults per 100 KB call");
}
