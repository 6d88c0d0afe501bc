//! Fault injection: handlers that panic, fail to serialize or never return, and a client
//! that goes away with responses pending. Each fault gets its own answer (or ends only its
//! own connection), and the server goes on serving everyone else.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use ferromcp::jsonrpc;
use ferromcp::prelude::*;
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const INTERNAL_ERROR: i64 = -32603;

/// A value whose serialization fails.
struct Unserializable;

impl serde::Serialize for Unserializable {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("this value cannot be written"))
    }
}

impl schemars::JsonSchema for Unserializable {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Unserializable".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object"})
    }
}

/// What `asks` asks for.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Answer {
    #[allow(dead_code)]
    name: String,
}

struct Faulty;

#[ferromcp::server(name = "faulty")]
impl Faulty {
    /// Panics.
    #[tool]
    fn tool_panics(&self) -> String {
        panic!("tool fault")
    }

    /// Panics after an await point.
    #[tool]
    async fn async_tool_panics(&self) -> String {
        tokio::task::yield_now().await;
        panic!("async tool fault")
    }

    /// Returns a result that cannot be serialized.
    #[tool]
    fn unserializable(&self) -> Json<Unserializable> {
        Json(Unserializable)
    }

    /// Never returns.
    #[tool]
    async fn hangs(&self) -> String {
        std::future::pending::<()>().await;
        unreachable!()
    }

    /// Asks the user for a name.
    #[tool]
    async fn asks(&self, ctx: Context) -> String {
        match ctx.elicit::<Answer>("Your name?").await {
            Ok(_) => "answered".into(),
            Err(e) => format!("no answer: {e}"),
        }
    }

    /// Works.
    #[tool]
    fn ok(&self) -> &'static str {
        "still serving"
    }

    /// Panics when read.
    #[resource(uri = "fault://resource", mime_type = "text/plain")]
    fn resource_panics(&self) -> String {
        panic!("resource fault")
    }

    /// Panics when got.
    #[prompt]
    fn prompt_panics(&self) -> String {
        panic!("prompt fault")
    }
}

fn server() -> Server {
    Server::builder(Faulty)
        .tool_timeout(Duration::from_secs(5))
        .client_request_timeout(Duration::from_secs(2))
        .build()
        .unwrap()
}

fn internal_error<T: std::fmt::Debug>(got: Result<T, TestClientError>) {
    match got {
        Err(TestClientError::Rpc(e)) => assert_eq!(e.code.0, INTERNAL_ERROR, "{e:?}"),
        other => panic!("expected an internal error, got {other:?}"),
    }
}

async fn still_serving(client: &TestClient) {
    let result = client.call_tool("ok", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("still serving"));
}

#[tokio::test(start_paused = true)]
async fn every_kind_of_handler_fault_is_answered_and_the_server_goes_on() {
    let server = server();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = TestClient::connect(&server, options).await.unwrap();
        for tool in ["tool_panics", "async_tool_panics", "unserializable"] {
            internal_error(client.call_tool(tool, json!({})).await);
            still_serving(&client).await;
        }
        internal_error(client.read_resource("fault://resource").await);
        still_serving(&client).await;
        internal_error(client.get_prompt("prompt_panics", json!({})).await);
        still_serving(&client).await;

        // Paused time: the 5 s timeout passes as soon as every task waits.
        let result = client.call_tool("hangs", json!({})).await.unwrap();
        assert_eq!(result.is_error, Some(true), "{result:?}");
        let text = result.content[0].as_text().unwrap_or_default();
        assert!(text.contains("did not finish"), "{text}");
        still_serving(&client).await;
    }
}

/// Requests whose answers cannot be written (the client closed its end) end that connection
/// only: `serve_io` returns, and another connection of the same server is served.
#[tokio::test(start_paused = true)]
async fn a_client_gone_with_responses_pending_ends_only_its_connection() {
    let server = server();
    let (client_side, server_side) = tokio::io::duplex(64);
    let (server_read, server_write) = tokio::io::split(server_side);
    let served = {
        let server = server.clone();
        tokio::spawn(async move { server.serve_io(server_read, server_write).await })
    };
    let (client_read, mut client_write) = tokio::io::split(client_side);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "gone", "version": "1"}}});
    client_write
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    let mut lines = BufReader::new(client_read).lines();
    let answer = lines.next_line().await.unwrap().unwrap();
    assert!(matches!(
        jsonrpc::parse(answer.as_bytes()),
        Ok(jsonrpc::Incoming::Single(jsonrpc::Message::Response(_)))
    ));
    // Calls to a tool that never finishes, and many quick ones whose answers fill the pipe;
    // then the client stops reading and closes.
    let mut calls = String::new();
    for id in 1..200 {
        let tool = if id % 2 == 0 { "hangs" } else { "ok" };
        calls.push_str(&format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": {}}})
        ));
    }
    let writer = tokio::spawn(async move {
        let _ = client_write.write_all(calls.as_bytes()).await;
        std::future::pending::<()>().await;
    });
    // Paused time moves on only once every task waits: the server is then stuck writing
    // answers nobody reads, with calls still running.
    tokio::time::sleep(Duration::from_millis(10)).await;
    drop(lines);
    writer.abort();
    let _ = writer.await;

    let outcome = tokio::time::timeout(Duration::from_secs(30), served)
        .await
        .expect("serve_io returns once its client is gone");
    let _ = outcome.unwrap();

    let other = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    still_serving(&other).await;
}

/// A legacy client that never answers the server's elicitation: the handler gets an error
/// after the client request timeout, its call is answered, and the session goes on.
#[tokio::test(start_paused = true)]
async fn a_server_request_never_answered_times_out_for_its_handler_only() {
    let server = server();
    let (client_side, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    let served = {
        let server = server.clone();
        tokio::spawn(async move { server.serve_io(server_read, server_write).await })
    };
    let (client_read, mut client_write) = tokio::io::split(client_side);
    let mut lines = BufReader::new(client_read).lines();
    let mut send = async |message: serde_json::Value| {
        client_write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "silent", "version": "1"}}}),
    )
    .await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "asks", "arguments": {}}}))
    .await;
    let mut next = async || -> serde_json::Value {
        serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap()
    };
    assert_eq!(next().await["id"], 0);
    let ask = next().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    // Not answered. Paused time runs to the 2 s client request timeout (the server may
    // tell the client it gave up, with a notification, first).
    let mut answer = next().await;
    while answer.get("id").is_none() {
        answer = next().await;
    }
    assert_eq!(answer["id"], 1, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("no answer"), "{text}");

    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "ok", "arguments": {}}}))
    .await;
    let answer = next().await;
    assert_eq!(
        answer["result"]["content"][0]["text"], "still serving",
        "{answer}"
    );
    client_write.shutdown().await.unwrap();
    served.await.unwrap().unwrap();
}
