//! Fault injection over Streamable HTTP: clients that go away in the middle of a streamed
//! answer (real sockets on 127.0.0.1), readers that never read, ten thousand listen streams
//! and results far over the response cap (through the router). Each fault reaches only its
//! own client, every other client is served, and nothing is left running: handlers end,
//! the runtime's live tasks come back to where they were, shutdown completes.

#![cfg(feature = "http")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support {
    pub mod http;
}

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use ferromcp::http::HttpOptions;
use ferromcp::registry::tool_fn;
use ferromcp::types::Tool;
use ferromcp::{CancellationToken, Context, Server, ServerBuilder};
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, oneshot};
use tower::ServiceExt;

use support::http::{V, initialize, legacy, messages, modern_meta, modern_request, router, send};

/// A generous bound on anything that should happen soon: a hang fails instead of blocking
/// CI. Never a speed assertion.
const SOON: Duration = Duration::from_secs(30);

/// What the `stream` handlers did: how many run now, and how many ended cancelled.
#[derive(Default)]
struct Counters {
    live: AtomicUsize,
    cancelled: AtomicUsize,
}

/// Held by a running `stream` handler: counts it out when the handler ends or is dropped,
/// and counts a cancellation when its token has fired by then.
struct Live {
    counters: Arc<Counters>,
    token: CancellationToken,
}

impl Drop for Live {
    fn drop(&mut self) {
        // Out first, then counted cancelled: a test that sees the cancellation sees the
        // handler gone too.
        self.counters.live.fetch_sub(1, Ordering::SeqCst);
        if self.token.is_cancelled() {
            self.counters.cancelled.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// A server with `hi` (answers at once), `stream` (a progress notification, then waits for
/// a permit of gate `arguments.gate`, then answers "released"), `marker` (toggled to change
/// the tool list) and `huge` (a 100 MB text result, after a progress notification when the
/// client asked for progress).
fn server(counters: Arc<Counters>, gates: Arc<[Semaphore; 2]>) -> Server {
    let server = ServerBuilder::new("http-faults", "1.0.0").build();
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    let r = server.registry();
    r.add_tool(
        Tool::new("hi", schema.clone()),
        tool_fn(|_: Value, _| async { "hello" }),
        None,
    )
    .unwrap();
    r.add_tool(
        Tool::new("marker", schema.clone()),
        tool_fn(|_: Value, _| async { "marker" }),
        None,
    )
    .unwrap();
    r.add_tool(
        Tool::new("stream", schema.clone()),
        tool_fn(move |args: Value, ctx: Context| {
            let (counters, gates) = (counters.clone(), gates.clone());
            async move {
                counters.live.fetch_add(1, Ordering::SeqCst);
                let _live = Live {
                    counters,
                    token: ctx.cancellation_token(),
                };
                ctx.progress(1.0, None, Some("started")).await;
                let gate = usize::try_from(args["gate"].as_u64().unwrap_or(0)).unwrap();
                gates[gate].acquire().await.unwrap().forget();
                "released"
            }
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        Tool::new("huge", schema),
        tool_fn(|_: Value, ctx: Context| async move {
            ctx.progress(1.0, None, None).await;
            "x".repeat(100 * 1024 * 1024)
        }),
        None,
    )
    .unwrap();
    server
}

fn gates() -> Arc<[Semaphore; 2]> {
    Arc::new([Semaphore::new(0), Semaphore::new(0)])
}

/// Polls `done` every 10 ms until it holds; fails after [`SOON`].
async fn eventually(what: &str, done: impl Fn() -> bool) {
    let polled = tokio::time::timeout(SOON, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(polled.is_ok(), "not within {SOON:?}: {what}");
}

fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

// ---- Real sockets ----

struct Running {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn start(server: Server) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        server
            .serve_http_on(listener)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    Running { addr, stop, served }
}

impl Running {
    /// Shuts down and waits: a handler still running (leaked) would hold shutdown up.
    async fn shut_down(self) {
        self.stop.send(()).unwrap();
        tokio::time::timeout(SOON, self.served)
            .await
            .expect("shutdown completes: nothing is left running")
            .unwrap()
            .unwrap();
    }
}

/// A POST of `body` as raw HTTP/1.1, with extra headers.
fn post(body: &str, headers: &[(&str, &str)]) -> Vec<u8> {
    let mut head = String::from(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n",
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    format!("{head}Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn modern_call(id: u64, tool: &str, arguments: Value) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
    "name": tool, "arguments": arguments, "_meta": {
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": format!("p{id}")
    }}})
    .to_string();
    post(
        &body,
        &[
            ("MCP-Protocol-Version", V),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", tool),
        ],
    )
}

fn legacy_call(session: &str, id: u64, tool: &str, arguments: Value) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": {"progressToken": format!("p{id}")}}})
    .to_string();
    post(
        &body,
        &[
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
    )
}

/// Reads from `stream` into `buf` until `buf` holds `needle`; fails after [`SOON`] or at
/// the end of the stream.
async fn read_until(stream: &mut TcpStream, buf: &mut Vec<u8>, needle: &str) {
    let found = tokio::time::timeout(SOON, async {
        let mut chunk = [0u8; 8192];
        while !String::from_utf8_lossy(buf).contains(needle) {
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(
                n > 0,
                "the stream ended before {needle:?}: {}",
                String::from_utf8_lossy(buf)
            );
            buf.extend_from_slice(&chunk[..n]);
        }
    })
    .await;
    assert!(found.is_ok(), "no {needle:?} within {SOON:?}");
}

/// One request on a connection of its own, read to the end (`Connection: close`).
async fn exchange(addr: SocketAddr, request: Vec<u8>) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(&request).await.unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(SOON, stream.read_to_end(&mut all))
        .await
        .expect("an answer")
        .unwrap();
    String::from_utf8(all).unwrap()
}

fn closing(mut request: Vec<u8>) -> Vec<u8> {
    let at = request.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    request.splice(at + 2..at + 2, b"Connection: close\r\n".iter().copied());
    request
}

/// A new legacy session (2025-11-25), initialized; its id.
async fn legacy_session(addr: SocketAddr) -> String {
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"faults","version":"1"}}}"#;
    let answer = exchange(addr, closing(post(init, &[]))).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let session = answer
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap();
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let answer = exchange(
        addr,
        closing(post(
            initialized,
            &[
                ("Mcp-Session-Id", &session),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
        )),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
    session
}

/// The last `id:` of the SSE events read so far.
fn last_event_id(buf: &[u8]) -> String {
    String::from_utf8_lossy(buf)
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .next_back()
        .unwrap()
        .to_owned()
}

/// A 2026-07-28 client that drops its connection in the middle of a streamed `tools/call`
/// cancels that call (its handler's token fires and the handler is dropped); another
/// client's streamed call on the same server goes on to its answer, the server serves new
/// calls, no handler is left running and shutdown completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_client_gone_mid_stream_cancels_its_call_only() {
    let before = alive_tasks();
    let counters = Arc::new(Counters::default());
    let gates = gates();
    let running = start(server(counters.clone(), gates.clone())).await;
    let addr = running.addr;

    let mut gone = TcpStream::connect(addr).await.unwrap();
    gone.write_all(&modern_call(1, "stream", json!({"gate": 0})))
        .await
        .unwrap();
    let mut seen = Vec::new();
    read_until(&mut gone, &mut seen, "notifications/progress").await;
    assert!(String::from_utf8_lossy(&seen).contains("text/event-stream"));

    let mut other = TcpStream::connect(addr).await.unwrap();
    other
        .write_all(&modern_call(2, "stream", json!({"gate": 1})))
        .await
        .unwrap();
    let mut other_seen = Vec::new();
    read_until(&mut other, &mut other_seen, "notifications/progress").await;
    assert_eq!(counters.live.load(Ordering::SeqCst), 2);

    drop(gone);
    eventually("the dropped client's call is cancelled", || {
        counters.cancelled.load(Ordering::SeqCst) == 1
    })
    .await;
    assert_eq!(
        counters.live.load(Ordering::SeqCst),
        1,
        "only its call ended"
    );

    // The other client's call goes on to its answer.
    gates[1].add_permits(1);
    read_until(&mut other, &mut other_seen, "released").await;
    assert!(
        String::from_utf8_lossy(&other_seen).contains(r#""id":2"#),
        "{}",
        String::from_utf8_lossy(&other_seen)
    );
    drop(other);
    eventually("every handler has ended", || {
        counters.live.load(Ordering::SeqCst) == 0
    })
    .await;
    assert_eq!(counters.cancelled.load(Ordering::SeqCst), 1);

    let answer = exchange(addr, closing(modern_call(3, "hi", json!({})))).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("hello"), "{answer}");

    running.shut_down().await;
    eventually("the server's tasks have all ended", || {
        alive_tasks() <= before
    })
    .await;
}

/// A legacy (2025-11-25) client that drops its connection in the middle of a streamed
/// `tools/call` does not cancel it: the revision says a disconnect is not a cancellation,
/// and the stream is resumable. The call runs on and its answer reaches the client that
/// resumes with `Last-Event-ID`. A call cut off the same way and then cancelled with
/// `notifications/cancelled` is cancelled. Another session's streamed call is unaffected,
/// the session goes on serving, nothing is left running and shutdown completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_client_gone_mid_stream_can_resume_or_cancel_and_others_go_on() {
    let before = alive_tasks();
    let counters = Arc::new(Counters::default());
    let gates = gates();
    let running = start(server(counters.clone(), gates.clone())).await;
    let addr = running.addr;
    let session = legacy_session(addr).await;
    let other_session = legacy_session(addr).await;

    // Another session's streamed call, in flight throughout.
    let mut other = TcpStream::connect(addr).await.unwrap();
    other
        .write_all(&legacy_call(
            &other_session,
            1,
            "stream",
            json!({"gate": 1}),
        ))
        .await
        .unwrap();
    let mut other_seen = Vec::new();
    read_until(&mut other, &mut other_seen, "notifications/progress").await;

    // Cut off mid-stream, then resumed: the answer is not lost.
    let mut gone = TcpStream::connect(addr).await.unwrap();
    gone.write_all(&legacy_call(&session, 7, "stream", json!({"gate": 0})))
        .await
        .unwrap();
    let mut seen = Vec::new();
    read_until(&mut gone, &mut seen, "notifications/progress").await;
    let last = last_event_id(&seen);
    drop(gone);
    let mut resumed = TcpStream::connect(addr).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\
         Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: {last}\r\n\r\n"
    );
    resumed.write_all(get.as_bytes()).await.unwrap();
    let mut resumed_seen = Vec::new();
    read_until(&mut resumed, &mut resumed_seen, "HTTP/1.1 200").await;
    gates[0].add_permits(1);
    read_until(&mut resumed, &mut resumed_seen, "released").await;
    assert!(
        String::from_utf8_lossy(&resumed_seen).contains(r#""id":7"#),
        "{}",
        String::from_utf8_lossy(&resumed_seen)
    );
    drop(resumed);
    eventually("the resumed call has ended", || {
        counters.live.load(Ordering::SeqCst) == 1
    })
    .await;
    assert_eq!(
        counters.cancelled.load(Ordering::SeqCst),
        0,
        "a disconnect is not a cancellation"
    );

    // Cut off mid-stream, then cancelled: its handler's token fires.
    let mut gone = TcpStream::connect(addr).await.unwrap();
    gone.write_all(&legacy_call(&session, 9, "stream", json!({"gate": 0})))
        .await
        .unwrap();
    let mut seen = Vec::new();
    read_until(&mut gone, &mut seen, "notifications/progress").await;
    drop(gone);
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"gone"}}"#;
    let answer = exchange(
        addr,
        closing(post(
            cancel,
            &[
                ("Mcp-Session-Id", &session),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
        )),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
    eventually("the cancelled call's handler ends cancelled", || {
        counters.cancelled.load(Ordering::SeqCst) == 1
    })
    .await;
    assert_eq!(
        counters.live.load(Ordering::SeqCst),
        1,
        "the other session's call runs on"
    );

    // The session serves its next request; the other session's call gets its answer.
    let answer = exchange(addr, closing(legacy_call(&session, 10, "hi", json!({})))).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("hello"), "{answer}");
    gates[1].add_permits(1);
    read_until(&mut other, &mut other_seen, "released").await;
    drop(other);
    eventually("every handler has ended", || {
        counters.live.load(Ordering::SeqCst) == 0
    })
    .await;
    assert_eq!(counters.cancelled.load(Ordering::SeqCst), 1);

    running.shut_down().await;
    eventually("the server's tasks have all ended", || {
        alive_tasks() <= before
    })
    .await;
}

// ---- Through the router ----

fn router_for(server: &Server) -> axum::Router {
    router(
        server,
        HttpOptions::default().keep_alive(Duration::from_secs(3600)),
    )
}

fn listen_request(id: &str) -> Request<Body> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true}, "_meta": modern_meta()}})
    .to_string();
    modern_request("subscriptions/listen", None, body)
}

/// A 2026 request `id` of `method`; a `progressToken` in `params` goes to its `_meta`.
fn modern_rpc(id: u64, method: &str, name: Option<&str>, mut params: Value) -> Request<Body> {
    let mut meta = modern_meta();
    if let Some(token) = params.get("progressToken").cloned() {
        meta["progressToken"] = token;
        params.as_object_mut().unwrap().remove("progressToken");
    }
    params["_meta"] = meta;
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    modern_request(method, name, body)
}

/// Reads SSE events off a response body, one JSON-RPC message at a time.
struct Events {
    body: Body,
    buf: String,
}

impl Events {
    fn new(response: axum::response::Response) -> Events {
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Events {
            body: response.into_body(),
            buf: String::new(),
        }
    }

    /// The next message, waiting at most `wait` for each frame; `None` at the end of the
    /// stream or when nothing came in time.
    async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let event: String = self.buf.drain(..end + 2).collect();
                if let Some(data) = event
                    .lines()
                    .find_map(|l| l.strip_prefix("data: "))
                    .filter(|d| !d.is_empty())
                {
                    return Some(serde_json::from_str(data).unwrap());
                }
                continue;
            }
            let frame = tokio::time::timeout(wait, self.body.frame()).await.ok()??;
            if let Ok(data) = frame.unwrap().into_data() {
                self.buf.push_str(std::str::from_utf8(&data).unwrap());
            }
        }
    }

    async fn next(&mut self) -> Value {
        self.next_within(SOON).await.expect("an event within SOON")
    }
}

/// [`send`], bounded by [`SOON`]: the status and the body.
async fn answer(router: &axum::Router, req: Request<Body>) -> (StatusCode, String) {
    let (status, _, body) = tokio::time::timeout(SOON, send(router, req))
        .await
        .expect("an answer within SOON");
    (status, body)
}

/// Changes the tool list `times` times (the `marker` tool off and on), yielding after each
/// change so that every stream's task keeps up with the changes.
async fn change_tools(server: &Server, times: usize) {
    for i in 0..times {
        if i % 2 == 0 {
            server.registry().disable_tool("marker");
        } else {
            server.registry().enable_tool("marker");
        }
        tokio::task::yield_now().await;
    }
}

fn tools_changed(message: &Value) -> bool {
    message["method"] == "notifications/tools/list_changed"
}

/// What may be queued for one stream whose reader is stalled: the stream's channel (64
/// messages), the registry's broadcast buffer (64 changes) and a few more (the
/// acknowledgement, the notification that says changes were missed, one in hand).
const STALLED_LISTEN_BOUND: usize = 64 + 64 + 8;

/// A `subscriptions/listen` stream whose reader never reads: 100,000 list changes queue at
/// most a bounded backlog for it (the stream's channel is bounded, and the stream's task
/// waits on it instead of queueing more); dropping it then ends its task, and the server
/// goes on serving, other listen streams included.
#[tokio::test]
async fn a_listen_stream_whose_reader_never_reads_queues_a_bounded_backlog() {
    let server = server(Arc::default(), gates());
    let router = router_for(&server);
    let response = router
        .clone()
        .oneshot(listen_request("stalled"))
        .await
        .unwrap();
    let baseline = alive_tasks();
    let mut stalled = Events::new(response);

    change_tools(&server, 100_000).await;

    // Everything queued for the stalled reader, read back now.
    let ack = stalled.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let mut queued = 0;
    while let Some(message) = stalled.next_within(Duration::from_secs(1)).await {
        assert!(tools_changed(&message), "{message}");
        queued += 1;
        assert!(
            queued <= STALLED_LISTEN_BOUND,
            "a stalled listen stream queued more than {STALLED_LISTEN_BOUND} messages"
        );
    }
    assert!(queued > 0, "the changes reached the stream");
    drop(stalled);
    eventually("the dropped stream's task ends", || {
        alive_tasks() < baseline
    })
    .await;

    // The server serves, and a new listen stream gets the next change.
    let (status, body) = answer(
        &router,
        modern_rpc(1, "tools/call", Some("hi"), json!({"name": "hi"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("hello"), "{body}");
    let response = router
        .clone()
        .oneshot(listen_request("fresh"))
        .await
        .unwrap();
    let mut fresh = Events::new(response);
    assert_eq!(
        fresh.next().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    change_tools(&server, 1).await;
    let changed = fresh.next().await;
    assert!(tools_changed(&changed), "{changed}");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "fresh"
    );
}

/// What a stalled legacy GET stream may be sent before it is detached as too slow: the
/// session's live buffer per stream (256 events) and the priming event.
const STALLED_GET_BOUND: usize = 256 + 1;

/// A legacy session's GET stream whose reader never reads: of 100,000 list changes, at most
/// a bounded number are buffered for it, then the server detaches it (the stream ends once
/// what was buffered is read; the client may resume it). The session goes on: it answers
/// requests and its next GET stream gets the next change.
#[tokio::test]
async fn a_get_stream_whose_reader_never_reads_is_bounded_then_detached() {
    let server = server(Arc::default(), gates());
    let router = router_for(&server);
    let session = initialize(&router).await;
    let (status, _) = answer(
        &router,
        legacy(
            &session,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let get = || {
        Request::get("/mcp")
            .header("host", "127.0.0.1")
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .body(Body::empty())
            .unwrap()
    };
    let mut stalled = Events::new(router.clone().oneshot(get()).await.unwrap());

    change_tools(&server, 100_000).await;

    // Read back: a bounded number of changes, then the end of the detached stream.
    let mut queued = 0;
    let ended = tokio::time::timeout(SOON, async {
        while let Some(message) = stalled.next_within(SOON).await {
            assert!(tools_changed(&message), "{message}");
            queued += 1;
            assert!(
                queued <= STALLED_GET_BOUND,
                "a stalled GET stream was sent more than {STALLED_GET_BOUND} messages"
            );
        }
    })
    .await;
    assert!(ended.is_ok(), "the stalled stream was not detached");
    assert!(queued > 0, "the changes reached the stream");

    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (status, body) = answer(&router, legacy(&session, list)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("\"hi\""), "{body}");
    let mut fresh = Events::new(router.clone().oneshot(get()).await.unwrap());
    change_tools(&server, 1).await;
    let changed = fresh.next().await;
    assert!(tools_changed(&changed), "{changed}");
}

/// Ten thousand 2026 `subscriptions/listen` streams on one server: all acknowledged, one
/// list change reaches every one of them (tagged with its own subscription id), then all
/// are dropped, their tasks end, and the server still serves.
#[tokio::test]
async fn ten_thousand_listen_streams_are_acknowledged_notified_and_dropped() {
    const STREAMS: usize = 10_000;
    let server = server(Arc::default(), gates());
    let router = router_for(&server);
    // The router's first request may start tasks of its own: measured after one.
    let (status, _) = answer(&router, modern_rpc(1, "tools/list", None, json!({}))).await;
    assert_eq!(status, StatusCode::OK);
    let baseline = alive_tasks();

    let mut streams = Vec::with_capacity(STREAMS);
    for i in 0..STREAMS {
        let response = router
            .clone()
            .oneshot(listen_request(&format!("s{i}")))
            .await
            .unwrap();
        let mut events = Events::new(response);
        let ack = events.next().await;
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        streams.push(events);
    }
    assert!(alive_tasks() >= baseline + STREAMS, "a task per stream");

    change_tools(&server, 1).await;
    for (i, events) in streams.iter_mut().enumerate() {
        let changed = events.next().await;
        assert!(tools_changed(&changed), "{changed}");
        assert_eq!(
            changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            format!("s{i}")
        );
    }

    drop(streams);
    eventually("every stream's task ends", || alive_tasks() <= baseline).await;
    let (status, body) = answer(
        &router,
        modern_rpc(2, "tools/call", Some("hi"), json!({"name": "hi"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("hello"), "{body}");
}

/// A handler that returns 100 MB, over HTTP in both eras, as a JSON answer and at the end
/// of an SSE stream: the default 10 MiB response cap makes it -32603 "response too large"
/// to that caller, and the next call is served.
#[tokio::test]
async fn a_hundred_megabyte_result_is_refused_by_the_response_cap_in_both_eras() {
    let server = server(Arc::default(), gates());
    let router = router_for(&server);
    let too_large = |message: &Value| {
        let text = message.to_string();
        let shown = &text[..text.len().min(300)];
        assert_eq!(message["error"]["code"], -32603, "{shown}");
        assert_eq!(message["error"]["message"], "response too large");
    };

    // 2026-07-28: a JSON answer (no progress asked), then an SSE stream (progress first).
    for (id, params) in [
        (1, json!({"name": "huge"})),
        (2, json!({"name": "huge", "progressToken": "big"})),
    ] {
        let (_, body) = answer(&router, modern_rpc(id, "tools/call", Some("huge"), params)).await;
        let all = messages(&body);
        let last = all.last().unwrap();
        assert_eq!(last["id"], id);
        too_large(last);
        let (status, body) = answer(
            &router,
            modern_rpc(id + 10, "tools/call", Some("hi"), json!({"name": "hi"})),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.contains("hello"), "{body}");
    }

    // 2025-11-25, in a session: the same.
    let session = initialize(&router).await;
    for (id, meta) in [(3, json!({})), (4, json!({"progressToken": "big"}))] {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "huge", "_meta": meta}})
        .to_string();
        let (status, body) = answer(&router, legacy(&session, &call)).await;
        assert_eq!(status, StatusCode::OK);
        let all = messages(&body);
        let last = all.last().unwrap();
        assert_eq!(last["id"], id);
        too_large(last);
        let hi = r#"{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"hi"}}"#;
        let (status, body) = answer(&router, legacy(&session, hi)).await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.contains("hello"), "{body}");
    }
}
