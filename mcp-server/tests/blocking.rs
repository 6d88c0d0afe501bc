//! Handlers that block their thread: `blocking` moves them to tokio's blocking pool so the
//! transport keeps reading, and a handler that blocks without it is named in a warning.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support {
    pub mod log;
}

use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

use ferromcp::prelude::*;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Tools that hand a value from one call to another through a channel.
struct Relay {
    tx: Mutex<Sender<&'static str>>,
    rx: Mutex<Receiver<&'static str>>,
}

#[ferromcp::server(name = "relay")]
impl Relay {
    /// Waits (blocking its thread) for `release`, ten seconds at most.
    #[tool(blocking)]
    fn wait(&self) -> &'static str {
        let rx = self.rx.lock().unwrap();
        rx.recv_timeout(Duration::from_secs(10))
            .unwrap_or("timed out")
    }

    /// The same wait, written as an async fn.
    #[tool(blocking)]
    async fn wait_async(&self) -> &'static str {
        let rx = self.rx.lock().unwrap();
        rx.recv_timeout(Duration::from_secs(10))
            .unwrap_or("timed out")
    }

    /// Releases a waiting call.
    #[tool]
    fn release(&self) -> &'static str {
        let _ = self.tx.lock().unwrap().send("released");
        "sent"
    }

    /// Blocks its thread without saying so.
    #[tool]
    fn hog(&self) -> &'static str {
        std::thread::sleep(Duration::from_millis(30));
        "done"
    }

    /// Panics on the blocking pool.
    #[tool(blocking)]
    fn explode(&self) -> &'static str {
        panic!("boom")
    }

    /// A blocking resource: the thread that read it.
    #[resource(uri = "relay://file", blocking)]
    fn file(&self) -> String {
        thread_name()
    }

    /// A blocking prompt: names the thread that built it.
    #[prompt(blocking)]
    fn greet(&self, name: String) -> String {
        format!("hello {name} from {}", thread_name())
    }
}

fn thread_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_owned()
}

fn relay() -> Server {
    let (tx, rx) = channel();
    Server::new(Relay {
        tx: Mutex::new(tx),
        rx: Mutex::new(rx),
    })
    .unwrap()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn call(id: u32, tool: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}"}}}}"#)
}

/// Serves stdio on this (single-threaded) runtime, sends `lines`, and reads answers until
/// every id in `ids` has one.
async fn stdio(server: &Server, lines: &[String], ids: &[u32]) -> Vec<Value> {
    let (client, server_io) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_io);
    let s = server.clone();
    let served = tokio::spawn(async move { s.serve_io(r, w).await });
    let (cr, mut cw) = tokio::io::split(client);
    for line in lines {
        cw.write_all(format!("{line}\n").as_bytes()).await.unwrap();
    }
    let mut answers = Vec::new();
    let mut reader = BufReader::new(cr).lines();
    while !ids
        .iter()
        .all(|id| answers.iter().any(|a: &Value| a["id"] == *id))
    {
        let line = reader.next_line().await.unwrap().expect("an answer");
        answers.push(serde_json::from_str(&line).unwrap());
    }
    cw.shutdown().await.unwrap();
    served.await.unwrap().unwrap();
    answers
}

fn text(answers: &[Value], id: u32) -> String {
    let a = answers.iter().find(|a| a["id"] == id).unwrap();
    a["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {a}"))
        .to_owned()
}

/// On a current-thread runtime a handler that blocked the transport would keep `release`
/// from being read until its ten-second wait ran out.
#[tokio::test(flavor = "current_thread")]
async fn a_blocking_tool_leaves_the_transport_free() {
    let server = relay();
    for tool in ["wait", "wait_async"] {
        let lines = [INIT.to_owned(), call(1, tool), call(2, "release")];
        let answers = stdio(&server, &lines, &[1, 2]).await;
        assert_eq!(text(&answers, 1), "released", "{tool}: {answers:?}");
        assert_eq!(text(&answers, 2), "sent");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn blocking_resources_prompts_and_panics() {
    let server = relay();
    let client =
        ferromcp::testing::TestClient::connect(&server, ferromcp::testing::ClientOptions::legacy())
            .await
            .unwrap();
    // This runtime runs on the test's own thread; a blocking handler runs on another.
    let here = thread_name();
    let read = client.read_resource("relay://file").await.unwrap();
    let reader = serde_json::to_value(&read).unwrap()["contents"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(reader, here, "the resource ran on the blocking pool");
    let prompt = client
        .get_prompt("greet", serde_json::json!({"name": "Ada"}))
        .await
        .unwrap();
    let text = serde_json::to_string(&prompt).unwrap();
    assert!(text.contains("hello Ada from "), "{text}");
    assert!(
        !text.contains(&format!("from {here}")),
        "the prompt ran on the blocking pool: {text}"
    );
    // A panic on the blocking pool is an internal error, and the server goes on.
    let err = client
        .call_tool("explode", serde_json::json!({}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("panicked"), "{err}");
    let ok = client
        .call_tool("release", serde_json::json!({}))
        .await
        .unwrap();
    assert_eq!(ok.content[0].as_text(), Some("sent"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_handler_that_blocks_without_saying_so_is_named_once() {
    let (captured, _guard) = support::log::capture();
    let server = relay();
    let lines = [
        INIT.to_owned(),
        call(1, "hog"),
        call(2, "hog"),
        call(3, "release"),
    ];
    let answers = stdio(&server, &lines, &[1, 2, 3]).await;
    assert_eq!(text(&answers, 1), "done");
    let log = captured.text();
    let warnings = log.matches("the tool `hog` ran").count();
    assert_eq!(warnings, 1, "one warning naming the tool: {log}");
    assert!(log.contains("#[tool(blocking)]"), "{log}");
    assert!(
        !log.contains("`release`"),
        "a quick tool is not named: {log}"
    );
}
