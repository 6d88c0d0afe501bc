//! Each request runs in a span named and attributed as the OpenTelemetry semantic
//! conventions for MCP name them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support {
    pub mod log;
}

use ferromcp::prelude::*;
use ferromcp::testing::{ClientOptions, TestClient};
use serde_json::json;

struct Calc;

#[ferromcp::server(name = "calc")]
impl Calc {
    /// Adds two integers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> String {
        tracing::info!("adding");
        (a + b).to_string()
    }

    /// Always fails.
    #[tool]
    fn fail(&self) -> Result<String, String> {
        Err("it failed".into())
    }
}

/// `RUST_LOG=ferromcp=debug` shows one event per request, after it ends: method, id, the
/// tool's name, duration and outcome, in both eras.
#[tokio::test(flavor = "current_thread")]
async fn each_request_is_one_debug_event() {
    let (captured, _guard) = support::log::capture();
    let server = Server::new(Calc).unwrap();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = TestClient::connect(&server, options).await.unwrap();
        client
            .call_tool("add", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        client.call_tool("fail", json!({})).await.unwrap();
        let _ = client.call_tool("nope", json!({})).await;
        let log = captured.text();
        let events: Vec<&str> = log
            .lines()
            .filter(|l| l.contains(" ferromcp::request: request "))
            .collect();
        let one = |name: &str| {
            let found: Vec<_> = events
                .iter()
                .filter(|l| l.contains(&format!("name=\"{name}\"")))
                .collect();
            assert_eq!(found.len(), 1, "one event for {name}: {log}");
            *found[0]
        };
        for (name, outcome) in [
            ("add", "outcome=\"ok\""),
            ("fail", "outcome=\"tool_error\""),
            ("nope", "outcome=\"error\" code=-32602"),
        ] {
            let event = one(name);
            for field in ["DEBUG", "method=tools/call", "id=", "duration=", outcome] {
                assert!(event.contains(field), "{field} missing: {event}");
            }
        }
        captured.clear();
    }
}

#[tokio::test(flavor = "current_thread")]
async fn requests_run_in_spans_with_the_semantic_convention_attributes() {
    let (captured, _guard) = support::log::capture();
    let server = Server::new(Calc).unwrap();
    for (options, version) in [
        (ClientOptions::legacy(), "2025-11-25"),
        (ClientOptions::modern(), "2026-07-28"),
    ] {
        let client = TestClient::connect(&server, options).await.unwrap();
        let r = client
            .call_tool("add", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("3"));
        let _ = client.call_tool("nope", json!({})).await;
        let log = captured.text();
        let inside = log
            .lines()
            .find(|l| l.contains("adding") && l.contains(version))
            .unwrap_or_else(|| panic!("the handler's event is inside the request span: {log}"));
        for field in [
            "mcp.request{",
            "otel.name=\"tools/call add\"",
            "mcp.method.name=tools/call",
            "gen_ai.operation.name=\"execute_tool\"",
            "gen_ai.tool.name=\"add\"",
            "jsonrpc.request.id=",
        ] {
            assert!(inside.contains(field), "{field} missing: {inside}");
        }
        let failed = log
            .lines()
            .find(|l| l.contains("gen_ai.tool.name=\"nope\"") && l.contains("close"))
            .unwrap_or_else(|| panic!("the failed call's span closes: {log}"));
        assert!(failed.contains("error.type=\"-32602\""), "{failed}");
        captured.clear();
    }
}

/// At INFO, the level servers usually log at, no request span is made: the handler's event
/// is logged without one (the span is at DEBUG, where its cost is paid only when asked for).
#[tokio::test(flavor = "current_thread")]
async fn an_info_subscriber_gets_the_events_without_the_request_span() {
    let (captured, _guard) = support::log::capture_at(tracing::Level::INFO);
    let server = Server::new(Calc).unwrap();
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let r = client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("3"));
    let log = captured.text();
    let event = log
        .lines()
        .find(|l| l.contains("adding"))
        .unwrap_or_else(|| panic!("the handler's event is logged: {log}"));
    assert!(!event.contains("mcp.request"), "{event}");
}

/// What a client writes reaches the log escaped: a line break in an error's message cannot
/// forge a log line of its own.
#[tokio::test(flavor = "current_thread")]
async fn a_clients_error_message_cannot_forge_a_log_line() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (captured, _guard) = support::log::capture_at(tracing::Level::WARN);
    let server = Server::new(Calc).unwrap();
    let (client, server_end) = tokio::io::duplex(64 * 1024);
    let (server_in, server_out) = tokio::io::split(server_end);
    let serving = server.serve_io(server_in, server_out);
    let talk = async {
        let (read, mut write) = tokio::io::split(client);
        let forged = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"x\nERROR forged entry"}}"#;
        write
            .write_all(format!("{forged}\n").as_bytes())
            .await
            .unwrap();
        // A ping after it: its answer shows the error was read first.
        write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
            .await
            .unwrap();
        let mut answer = String::new();
        BufReader::new(read).read_line(&mut answer).await.unwrap();
        assert!(answer.contains("\"id\":1"), "{answer}");
        drop(write);
    };
    tokio::select! {
        () = talk => {}
        r = serving => panic!("the server stopped first: {r:?}"),
    }
    let log = captured.text();
    let reported = log
        .lines()
        .find(|l| l.contains("the client reported an error"))
        .unwrap_or_else(|| panic!("the error is logged: {log}"));
    assert!(reported.contains(r"x\nERROR forged entry"), "{reported}");
    assert!(
        !log.lines().any(|l| l.starts_with("ERROR forged")),
        "a forged line: {log}"
    );
}
