//! The server that `serve_http*` runs, over real sockets on 127.0.0.1: stalled and idle
//! connections are closed, the connection and in-flight caps hold, and shutdown drains.

#![cfg(feature = "http")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use ferromcp::http::HttpOptions;
use ferromcp::registry::tool_fn;
use ferromcp::types::Tool;
use ferromcp::{Server, ServerBuilder};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, oneshot};

/// Generous bound on anything that should happen "soon": a hang fails the test instead of
/// blocking CI. Not a speed assertion.
const SOON: Duration = Duration::from_secs(30);

/// A server with `hi` (answers at once) and `wait` (answers once `gate` is notified,
/// after telling `started`).
fn server(started: Arc<Notify>, gate: Arc<Notify>) -> Server {
    let server = ServerBuilder::new("serve-test", "1.0.0").build();
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    let r = server.registry();
    r.add_tool(
        Tool::new("hi", schema.clone()),
        tool_fn(|_: Value, _| async { "hello" }),
        None,
    )
    .unwrap();
    r.add_tool(
        Tool::new("wait", schema),
        tool_fn(move |_: Value, _| {
            let (started, gate) = (started.clone(), gate.clone());
            async move {
                started.notify_one();
                gate.notified().await;
                "released"
            }
        }),
        None,
    )
    .unwrap();
    server
}

struct Running {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
    started: Arc<Notify>,
    gate: Arc<Notify>,
}

async fn start(options: HttpOptions) -> Running {
    let (started, gate) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let server = server(started.clone(), gate.clone());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        server
            .serve_http_on(listener)
            .options(options)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    Running {
        addr,
        stop: Some(stop),
        served,
        started,
        gate,
    }
}

/// A 2026-07-28 `tools/call` of `tool`, as raw HTTP/1.1.
fn call(tool: &str, keep_alive: bool) -> Vec<u8> {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    })
    .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\nContent-Length: {}\r\nConnection: {}\r\n\r\n{body}",
        body.len(),
        if keep_alive { "keep-alive" } else { "close" }
    )
    .into_bytes()
}

/// Reads one response with a `Content-Length` body: (status, head, body).
async fn read_response(stream: &mut TcpStream) -> (u16, String, String) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = find(&buf, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).into_owned();
            let length: usize = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse().unwrap())
                })
                .unwrap_or(0);
            while buf.len() < end + 4 + length {
                let n = stream.read(&mut chunk).await.unwrap();
                assert!(n > 0, "the connection closed mid-body");
                buf.extend_from_slice(&chunk[..n]);
            }
            let status = head[9..12].parse().unwrap();
            let body = String::from_utf8_lossy(&buf[end + 4..end + 4 + length]).into_owned();
            return (status, head, body);
        }
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "the connection closed before a response: {buf:?}");
        buf.extend_from_slice(&chunk[..n]);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

async fn call_once(addr: SocketAddr, tool: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(&call(tool, false)).await.unwrap();
    tokio::time::timeout(SOON, read_response(&mut stream))
        .await
        .expect("an answer")
}

/// Whether the server closed the connection: end of file or a reset, and no bytes.
async fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(
        tokio::time::timeout(SOON, stream.read(&mut byte)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_requests_are_closed_within_the_header_timeout_while_others_are_served() {
    let running = start(HttpOptions::default().header_read_timeout(Duration::from_secs(1))).await;
    let mut stalled = Vec::new();
    for i in 0..300 {
        let mut s = TcpStream::connect(running.addr).await.unwrap();
        // Half the clients send half a request's headers; the others send nothing at all.
        if i % 2 == 0 {
            s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
                .await
                .unwrap();
        }
        stalled.push(s);
    }
    // Meanwhile an ordinary client is served.
    let (status, _, body) = call_once(running.addr, "hi").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("hello"), "{body}");
    // All watched at once: a server that never closes them fails after one `SOON`.
    let mut watching = tokio::task::JoinSet::new();
    for mut s in stalled {
        watching.spawn(async move { closed_by_server(&mut s).await });
    }
    let closed = watching.join_all().await.into_iter().filter(|c| *c).count();
    assert_eq!(
        closed, 300,
        "every stalled connection is closed by the server"
    );
    // And the server still serves.
    assert_eq!(call_once(running.addr, "hi").await.0, 200);
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_and_a_busy_one_is_not() {
    let running = start(HttpOptions::default().idle_timeout(Duration::from_millis(300))).await;
    let mut stream = TcpStream::connect(running.addr).await.unwrap();
    stream.write_all(&call("hi", true)).await.unwrap();
    let (status, head, _) = read_response(&mut stream).await;
    assert_eq!(status, 200);
    assert!(
        !head.to_ascii_lowercase().contains("connection: close"),
        "{head}"
    );
    // A request that runs longer than the idle timeout keeps its connection.
    let mut busy = TcpStream::connect(running.addr).await.unwrap();
    busy.write_all(&call("wait", true)).await.unwrap();
    running.started.notified().await;
    assert!(
        closed_by_server(&mut stream).await,
        "the idle connection is closed"
    );
    running.gate.notify_one();
    let (status, _, body) = tokio::time::timeout(SOON, read_response(&mut busy))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert!(body.contains("released"), "{body}");
}

#[tokio::test]
async fn at_the_connection_cap_new_connections_wait_for_a_free_slot() {
    let options = HttpOptions::default()
        .max_connections(2)
        .header_read_timeout(Duration::from_secs(60));
    let running = start(options).await;
    let first = TcpStream::connect(running.addr).await.unwrap();
    let _second = TcpStream::connect(running.addr).await.unwrap();
    // The third connects (the kernel's backlog takes it) but is not served...
    let mut third = TcpStream::connect(running.addr).await.unwrap();
    third.write_all(&call("hi", false)).await.unwrap();
    let mut byte = [0u8; 1];
    assert!(
        tokio::time::timeout(Duration::from_millis(300), third.peek(&mut byte))
            .await
            .is_err(),
        "no answer while both slots are taken"
    );
    // ...until a slot frees.
    drop(first);
    let (status, _, body) = tokio::time::timeout(SOON, read_response(&mut third))
        .await
        .expect("served once a slot is free");
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn beyond_max_in_flight_a_request_gets_503_with_retry_after() {
    let running = start(HttpOptions::default().max_in_flight(1)).await;
    let addr = running.addr;
    let slow = tokio::spawn(async move { call_once(addr, "wait").await });
    running.started.notified().await;
    let (status, head, body) = call_once(addr, "hi").await;
    assert_eq!(status, 503, "{body}");
    assert!(
        head.to_ascii_lowercase().contains("retry-after: 1"),
        "{head}"
    );
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"]["code"], -32000, "{body}");
    running.gate.notify_one();
    let (status, _, body) = slow.await.unwrap();
    assert_eq!(status, 200);
    assert!(body.contains("released"), "{body}");
    // The slot is free again.
    assert_eq!(call_once(addr, "hi").await.0, 200);
}

#[tokio::test]
async fn a_body_that_stalls_gets_408() {
    let running = start(HttpOptions::default().body_read_timeout(Duration::from_millis(200))).await;
    let mut stream = TcpStream::connect(running.addr).await.unwrap();
    stream
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"jsonrpc\":",
        )
        .await
        .unwrap();
    let (status, _, body) = tokio::time::timeout(SOON, read_response(&mut stream))
        .await
        .unwrap();
    assert_eq!(status, 408, "{body}");
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[tokio::test]
async fn shutdown_ends_streams_finishes_calls_in_flight_and_stops_accepting() {
    let mut running = start(HttpOptions::default()).await;
    let addr = running.addr;
    // A legacy session with its GET stream open.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let init = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{INIT}",
        INIT.len()
    );
    s.write_all(init.as_bytes()).await.unwrap();
    let (status, head, _) = read_response(&mut s).await;
    assert_eq!(status, 200);
    let session = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .unwrap()
        .to_owned();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\
         Mcp-Session-Id: {session}\r\n\r\n"
    );
    stream.write_all(get.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    // A call in flight.
    let slow = tokio::spawn(async move { call_once(addr, "wait").await });
    running.started.notified().await;

    running.stop.take().unwrap().send(()).unwrap();
    // The GET stream ends...
    let mut rest = Vec::new();
    tokio::time::timeout(SOON, stream.read_to_end(&mut rest))
        .await
        .expect("the GET stream ends at shutdown")
        .unwrap();
    // ...new connections are refused...
    let refused = tokio::time::timeout(SOON, async {
        loop {
            if TcpStream::connect(addr).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(refused.is_ok(), "the listener is closed");
    assert!(!running.served.is_finished(), "a call is still in flight");
    // ...and the call in flight still gets its answer.
    running.gate.notify_one();
    let (status, _, body) = slow.await.unwrap();
    assert_eq!(status, 200);
    assert!(body.contains("released"), "{body}");
    tokio::time::timeout(SOON, running.served)
        .await
        .expect("serving ends once the call is answered")
        .unwrap()
        .unwrap();
}
