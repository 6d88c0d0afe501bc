//! SIGTERM, as an orchestrator sends it, stops `everything --http` gracefully: a call in
//! flight gets its whole answer, then the process exits with success.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::Command;

/// Bound on anything that should happen soon: a hang fails instead of blocking CI.
const SOON: Duration = Duration::from_secs(30);

#[tokio::test]
async fn sigterm_lets_a_call_in_flight_finish_then_exits_cleanly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_everything"))
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // The server logs the URL it serves (port 0 becomes a real port).
    let mut log = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = tokio::time::timeout(SOON, async {
        while let Some(line) = log.next_line().await.unwrap() {
            if let Some(rest) = line.split("http://").nth(1) {
                return rest.split("/mcp").next().unwrap().to_owned();
            }
        }
        panic!("the server exited without serving");
    })
    .await
    .expect("the server announces its URL");
    let log_task = tokio::spawn(async move {
        let mut rest = Vec::new();
        while let Ok(Some(line)) = log.next_line().await {
            rest.push(line);
        }
        rest
    });

    // A 2026-07-28 call that reports progress before its result, as an SSE stream.
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "test_tool_with_progress", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "progressToken": "p"
        }}
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: test_tool_with_progress\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    // Wait for the first progress event: the call is now certainly in flight.
    tokio::time::timeout(SOON, async {
        while !String::from_utf8_lossy(&received).contains("notifications/progress") {
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(
                n > 0,
                "closed early: {}",
                String::from_utf8_lossy(&received)
            );
            received.extend_from_slice(&chunk[..n]);
        }
    })
    .await
    .expect("a progress notification");

    let pid = child.id().unwrap().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(killed.success());

    // The rest of the answer arrives, ending with the result.
    tokio::time::timeout(SOON, stream.read_to_end(&mut received))
        .await
        .expect("the stream ends")
        .unwrap();
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        text.contains("Tool with progress executed successfully"),
        "the result arrives after SIGTERM: {text}"
    );
    // Then the process exits on its own, successfully.
    let status = tokio::time::timeout(SOON, child.wait())
        .await
        .expect("the process exits after the call")
        .unwrap();
    assert!(status.success(), "exit status {status}");
    let rest = log_task.await.unwrap().join("\n");
    assert!(rest.contains("shutting down"), "{rest}");
}
