//! Custom request methods (`ServerBuilder::method`): answered through the engine like a
//! tool call, in both eras, over stdio and Streamable HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ferromcp::custom::{MethodError, method_fn, notification_fn};
use ferromcp::error::{ErrorCode, ErrorObject};
use ferromcp::extract::HttpRequest;
use ferromcp::http::HttpOptions;
use ferromcp::jsonrpc::RequestId;
use ferromcp::session::{SessionData, SessionState};
use ferromcp::testing::{ClientOptions, HttpTestClient, TestClient, TestClientError};
use ferromcp::{CancellationToken, Context, ProtocolVersion, Server, ServerBuilder};
use http::{HeaderName, HeaderValue};
use serde_json::{Value, json};
use std::time::Duration;

#[derive(serde::Deserialize)]
struct Hello {
    name: String,
}

#[derive(serde::Serialize)]
struct Greeting {
    greeting: String,
    era: String,
    /// The request's id, as the handler's `Context` knows it.
    id: Option<String>,
}

fn server() -> Server {
    ServerBuilder::new("custom", "1.0.0")
        .method(
            "custom/hello",
            method_fn(|p: Hello, ctx: Context| async move {
                if p.name.is_empty() {
                    return Err(ErrorObject::new(ErrorCode(-32042), "no name").with_data(json!(7)));
                }
                Ok(Greeting {
                    greeting: format!("hello, {}", p.name),
                    era: format!("{:?}", ctx.protocol_version().era()),
                    id: ctx.request_id().map(ToString::to_string),
                })
            }),
        )
        .unwrap()
        .build()
}

/// Every way a client reaches the server: stdio in both eras, HTTP in both eras.
async fn clients(server: &Server) -> Vec<(&'static str, TestClient)> {
    let router = || {
        let endpoint = server.http_router(HttpOptions::default(), CancellationToken::new());
        axum::Router::new().nest_service("/mcp", endpoint)
    };
    vec![
        (
            "stdio legacy",
            TestClient::connect(server, ClientOptions::legacy())
                .await
                .unwrap(),
        ),
        (
            "stdio 2026",
            TestClient::connect(server, ClientOptions::modern())
                .await
                .unwrap(),
        ),
        (
            "http legacy",
            HttpTestClient::new(router(), ClientOptions::legacy())
                .connect()
                .await
                .unwrap(),
        ),
        (
            "http 2026",
            HttpTestClient::new(router(), ClientOptions::modern())
                .connect()
                .await
                .unwrap(),
        ),
    ]
}

#[tokio::test]
async fn a_custom_method_answers_with_its_typed_result_in_both_eras() {
    let server = server();
    for (how, client) in clients(&server).await {
        let id = RequestId::String(format!("hello-{how}"));
        let result = client
            .request_with_id(id.clone(), "custom/hello", Some(json!({"name": "ada"})))
            .await
            .unwrap_or_else(|e| panic!("{how}: {e:?}"));
        assert_eq!(result["greeting"], "hello, ada", "{how}");
        assert_eq!(result["id"], id.to_string(), "{how}");
        let modern = how.ends_with("2026");
        let era = if modern { "Modern" } else { "Legacy" };
        assert_eq!(result["era"], era, "{how}");
        // The era's members, as on every result: 2026 says it is complete.
        let result_type = result.get("resultType").cloned();
        assert_eq!(
            result_type,
            modern.then(|| json!("complete")),
            "{how}: {result}"
        );
    }
}

#[tokio::test]
async fn a_custom_methods_error_and_bad_params_are_json_rpc_errors() {
    let server = server();
    for (how, client) in clients(&server).await {
        let err = client
            .request("custom/hello", Some(json!({"name": ""})))
            .await
            .unwrap_err();
        let TestClientError::Rpc(e) = err else {
            panic!("{how}: {err:?}")
        };
        assert_eq!((e.code, e.message.as_str()), (ErrorCode(-32042), "no name"));
        assert_eq!(e.data, Some(json!(7)), "{how}");

        let err = client
            .request("custom/hello", Some(json!({"nom": 1})))
            .await
            .unwrap_err();
        let TestClientError::Rpc(e) = err else {
            panic!("{how}: {err:?}")
        };
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{how}");

        // An unregistered method is still unknown.
        let err = client.request("custom/other", None).await.unwrap_err();
        let TestClientError::Rpc(e) = err else {
            panic!("{how}: {err:?}")
        };
        assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND, "{how}");
    }
}

#[tokio::test]
async fn a_panicking_custom_method_is_an_internal_error() {
    let server = ServerBuilder::new("custom", "1.0.0")
        .method(
            "custom/boom",
            method_fn(|(): (), _ctx: Context| async move {
                if true {
                    panic!("boom");
                }
                Ok::<Value, ErrorObject>(json!({}))
            }),
        )
        .unwrap()
        .build();
    let e = stdio_error(&server, "custom/boom").await;
    assert_eq!(e.code, ErrorCode::INTERNAL_ERROR);
}

/// The JSON-RPC error `method` answers a 2025 stdio client with.
async fn stdio_error(server: &Server, method: &str) -> ErrorObject {
    let client = TestClient::connect(server, ClientOptions::legacy())
        .await
        .unwrap();
    match client.request(method, None).await {
        Err(TestClientError::Rpc(e)) => e,
        other => panic!("{method} must be an error: {other:?}"),
    }
}

#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
struct Visits {
    count: u64,
}

impl SessionData for Visits {
    const KEY: &'static str = "visits";
}

/// Counts a visit of the session and reads the HTTP request's tenant: `{count, tenant}`.
fn visit(visits: &SessionState<Visits>, request: &HttpRequest) -> Result<Value, ErrorObject> {
    let count = visits
        .update(|v| {
            v.count += 1;
            v.count
        })
        .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
    let tenant = request.headers().get("x-tenant").cloned();
    let tenant = tenant.as_ref().and_then(|v| v.to_str().ok());
    Ok(json!({"count": count, "tenant": tenant}))
}

/// `custom/visit` answers [`visit`]; the notification `custom/visited` sends it to the
/// returned receiver. Both from the extractors a tool would take.
fn visiting() -> (Server, tokio::sync::mpsc::UnboundedReceiver<Value>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let server = ServerBuilder::new("custom", "1.0.0")
        .method(
            "custom/visit",
            method_fn(
                |(): (), visits: SessionState<Visits>, request: HttpRequest| async move {
                    visit(&visits, &request)
                },
            ),
        )
        .unwrap()
        .notification(
            "custom/visited",
            notification_fn(
                move |(): (), visits: SessionState<Visits>, request: HttpRequest| {
                    let seen = visit(&visits, &request).unwrap();
                    let tx = tx.clone();
                    async move { tx.send(seen).unwrap() }
                },
            ),
        )
        .unwrap()
        .build();
    (server, rx)
}

// Paused time: when every task is idle and nothing came, the notification never will.
#[tokio::test(start_paused = true)]
async fn custom_methods_and_notifications_take_session_state_and_the_http_request() {
    let (server, mut seen) = visiting();
    let router = axum::Router::new().nest_service(
        "/mcp",
        server.http_router(HttpOptions::default(), CancellationToken::new()),
    );
    let acme = HttpTestClient::new(router.clone(), ClientOptions::legacy()).with_header(
        HeaderName::from_static("x-tenant"),
        HeaderValue::from_static("acme"),
    );
    let a = acme.connect().await.unwrap();
    let visit = async |client: &TestClient| client.request("custom/visit", None).await.unwrap();
    assert_eq!(visit(&a).await, json!({"count": 1, "tenant": "acme"}));
    assert_eq!(visit(&a).await, json!({"count": 2, "tenant": "acme"}));
    // A notification of the same session, with the POST it came in.
    a.notify("custom/visited", None).await;
    let got = tokio::time::timeout(Duration::from_secs(60), seen.recv()).await;
    let expected = json!({"count": 3, "tenant": "acme"});
    assert_eq!(got.expect("delivered"), Some(expected));
    // Another session counts its own.
    let b = HttpTestClient::new(router, ClientOptions::legacy())
        .connect()
        .await
        .unwrap();
    assert_eq!(visit(&b).await, json!({"count": 1, "tenant": null}));

    // Over stdio there is no HTTP request: the extractor's error answers.
    let e = stdio_error(&server, "custom/visit").await;
    assert_eq!(e.code, ErrorCode::INVALID_REQUEST);
}

#[test]
fn spec_methods_and_rpc_names_cannot_be_registered() {
    let m = || method_fn(|(): (), _ctx: Context| async { Ok::<_, ErrorObject>(json!({})) });
    for name in [
        "tools/list",
        "notifications/initialized",
        "initialize",
        "rpc.x",
    ] {
        let err = ServerBuilder::new("s", "1").method(name, m()).unwrap_err();
        assert_eq!(err, MethodError::Reserved(name.into()));
    }
    let err = ServerBuilder::new("s", "1")
        .method("custom/a", m())
        .unwrap()
        .method("custom/a", m())
        .unwrap_err();
    assert_eq!(err, MethodError::Duplicate("custom/a".into()));
}

/// A server whose `custom/moved` notifications are forwarded to the returned receiver,
/// with what their `Context` says of the client: `path era client`.
fn noticing() -> (Server, tokio::sync::mpsc::UnboundedReceiver<String>) {
    #[derive(serde::Deserialize)]
    struct Moved {
        path: String,
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let server = ServerBuilder::new("custom", "1.0.0")
        .notification(
            "custom/moved",
            notification_fn(move |m: Moved, ctx: Context| {
                let tx = tx.clone();
                async move {
                    // A notification is no request.
                    assert_eq!(ctx.request_id(), None);
                    let client = ctx.client_info().map_or("nobody", |i| i.name.as_str());
                    tx.send(format!("{} {:?} {client}", m.path, ctx.era()))
                        .unwrap();
                }
            }),
        )
        .unwrap()
        .build();
    (server, rx)
}

// Paused time: when every task is idle and nothing came, the notification never will, and
// the wait ends at once rather than hanging.
#[tokio::test(start_paused = true)]
async fn a_custom_notification_reaches_its_handler_with_a_context_over_stdio_and_http_in_both_eras()
{
    let (server, mut rx) = noticing();
    let router = axum::Router::new().nest_service(
        "/mcp",
        server.http_router(HttpOptions::default(), CancellationToken::new()),
    );
    let clients = [
        TestClient::connect(&server, ClientOptions::legacy())
            .await
            .unwrap(),
        HttpTestClient::new(router.clone(), ClientOptions::legacy())
            .connect()
            .await
            .unwrap(),
    ];
    for (i, client) in clients.iter().enumerate() {
        // Params that do not read are dropped; the next notification still arrives.
        client
            .notify("custom/moved", Some(json!({"nope": 1})))
            .await;
        client
            .notify("custom/moved", Some(json!({"path": format!("/{i}")})))
            .await;
        let got = tokio::time::timeout(Duration::from_secs(60), rx.recv()).await;
        let expected = format!("/{i} Legacy ferromcp-testing");
        assert_eq!(got.expect("delivered"), Some(expected));
    }
    // 2026-07-28 over HTTP: spec notifications are ignored there, custom ones are not.
    let modern = HttpTestClient::new(router, ClientOptions::modern());
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let response = modern
        .post(&json!({
            "jsonrpc": "2.0",
            "method": "custom/moved",
            "params": {"path": "/2026", "_meta": meta},
        }))
        .await;
    assert_eq!(response.status(), 202);
    let got = tokio::time::timeout(Duration::from_secs(60), rx.recv()).await;
    assert_eq!(
        got.expect("delivered"),
        Some("/2026 Modern nobody".to_owned())
    );

    let err = ServerBuilder::new("s", "1")
        .notification(
            "notifications/initialized",
            notification_fn(|(): ()| async {}),
        )
        .unwrap_err();
    assert_eq!(
        err,
        MethodError::Reserved("notifications/initialized".into())
    );
}

/// Posts `batch` in a new 2025-03-26 session over HTTP; `Err` when no answer came within a
/// minute (of paused time: when every task waits).
async fn post_batch(
    server: &Server,
    batch: &Value,
) -> Result<ferromcp::testing::HttpResponse, tokio::time::error::Elapsed> {
    let router = axum::Router::new().nest_service(
        "/mcp",
        server.http_router(HttpOptions::default(), CancellationToken::new()),
    );
    let http = HttpTestClient::new(router, ClientOptions::version(ProtocolVersion::V2025_03_26));
    let _client = http.connect().await.unwrap();
    tokio::time::timeout(Duration::from_secs(60), http.post(batch)).await
}

// Paused time: were the answer held back, the wait would end at once, not hang.
#[tokio::test(start_paused = true)]
async fn a_custom_notification_in_a_batch_does_not_hold_back_the_answer() {
    let release = std::sync::Arc::new(tokio::sync::Notify::new());
    let (done, mut finished) = tokio::sync::mpsc::unbounded_channel();
    let gate = release.clone();
    let server = ServerBuilder::new("custom", "1.0.0")
        .notification(
            "custom/slow",
            notification_fn(move |(): ()| {
                let (gate, done) = (gate.clone(), done.clone());
                async move {
                    gate.notified().await;
                    done.send(()).unwrap();
                }
            }),
        )
        .unwrap()
        .build();
    let batch = json!([
        {"jsonrpc": "2.0", "method": "custom/slow"},
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
    ]);
    let answer = post_batch(&server, &batch)
        .await
        .expect("the batch is answered while the notification's handler waits");
    assert_eq!(answer.status(), 200);
    let answers: Value = serde_json::from_str(&answer.text()).unwrap();
    assert_eq!(answers, json!([{"jsonrpc": "2.0", "id": 1, "result": {}}]));
    // The handler still runs, and finishes once released.
    assert!(finished.try_recv().is_err());
    release.notify_one();
    let got = tokio::time::timeout(Duration::from_secs(60), finished.recv()).await;
    assert_eq!(got.expect("the handler finished"), Some(()));
}

/// Methods and a notification that take no params, optional ones, or any JSON: the
/// notification sends what it saw to the returned receiver.
fn paramless() -> (Server, tokio::sync::mpsc::UnboundedReceiver<Value>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let server = ServerBuilder::new("custom", "1.0.0")
        .method(
            "custom/unit",
            method_fn(|(): ()| async { Ok::<_, ErrorObject>(json!({"unit": true})) }),
        )
        .unwrap()
        .method(
            "custom/maybe",
            method_fn(|p: Option<Hello>| async move {
                Ok::<_, ErrorObject>(json!({"some": p.map(|h| h.name)}))
            }),
        )
        .unwrap()
        .method(
            "custom/value",
            method_fn(|p: Value| async move { Ok::<_, ErrorObject>(json!({"params": p})) }),
        )
        .unwrap()
        .notification(
            "custom/unit-seen",
            notification_fn(move |(): (), ctx: Context| {
                let tx = tx.clone();
                async move { tx.send(json!(format!("{:?}", ctx.era()))).unwrap() }
            }),
        )
        .unwrap()
        .build();
    (server, rx)
}

// Paused time: when every task is idle and nothing came, the notification never will.
#[tokio::test(start_paused = true)]
async fn params_of_only_meta_or_none_read_as_absent_in_both_eras() {
    let (server, mut seen) = paramless();
    for (how, client) in clients(&server).await {
        let modern = how.ends_with("2026");
        // 2026 requests always carry `_meta`; a 2025 client may send `{}` or a progress token.
        for params in [
            None,
            Some(json!({})),
            Some(json!({"_meta": {"progressToken": 1}})),
        ] {
            let call = async |method: &str| {
                let result = client.request(method, params.clone()).await;
                result.unwrap_or_else(|e| panic!("{how} {method} {params:?}: {e:?}"))
            };
            assert_eq!(call("custom/unit").await["unit"], true, "{how}");
            assert_eq!(call("custom/maybe").await["some"], Value::Null, "{how}");
            assert_eq!(call("custom/value").await["params"], json!({}), "{how}");
        }
        let named = client
            .request("custom/maybe", Some(json!({"name": "ada"})))
            .await
            .unwrap();
        assert_eq!(named["some"], "ada", "{how}");
        let meta = if modern {
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"})
        } else {
            json!({"progressToken": 1})
        };
        client
            .notify("custom/unit-seen", Some(json!({"_meta": meta})))
            .await;
        let got = tokio::time::timeout(Duration::from_secs(60), seen.recv()).await;
        let era = if modern { "Modern" } else { "Legacy" };
        assert_eq!(got.expect("delivered"), Some(json!(era)), "{how}");
    }
}

// Paused time: when every task is idle and nothing came, the notification never will.
#[tokio::test(start_paused = true)]
async fn a_2026_custom_notification_over_http_has_the_http_request() {
    let (tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
    let server = ServerBuilder::new("custom", "1.0.0")
        .notification(
            "custom/tenant",
            notification_fn(move |(): (), request: HttpRequest| {
                let tenant = request.headers().get("x-tenant").cloned();
                let tx = tx.clone();
                async move { tx.send(tenant).unwrap() }
            }),
        )
        .unwrap()
        .build();
    let router = axum::Router::new().nest_service(
        "/mcp",
        server.http_router(HttpOptions::default(), CancellationToken::new()),
    );
    let modern = HttpTestClient::new(router, ClientOptions::modern()).with_header(
        HeaderName::from_static("x-tenant"),
        HeaderValue::from_static("acme"),
    );
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let response = modern
        .post(&json!({"jsonrpc": "2.0", "method": "custom/tenant", "params": {"_meta": meta}}))
        .await;
    assert_eq!(response.status(), 202);
    let got = tokio::time::timeout(Duration::from_secs(60), seen.recv()).await;
    let tenant = got.expect("delivered");
    assert_eq!(tenant, Some(Some(HeaderValue::from_static("acme"))));
}

/// What a batch's request waits for and its sibling notification gives.
struct Gate(tokio::sync::Notify);

// Paused time: were the notification held back behind the request, the wait would end at
// once, not hang.
#[tokio::test(start_paused = true)]
async fn a_batch_request_may_wait_for_what_its_sibling_notification_does() {
    use ferromcp::extract::State;
    let server = ServerBuilder::new("custom", "1.0.0")
        .state(Gate(tokio::sync::Notify::new()))
        .method(
            "custom/wait",
            method_fn(|(): (), gate: State<Gate>| async move {
                gate.0.0.notified().await;
                Ok::<_, ErrorObject>(json!({"released": true}))
            }),
        )
        .unwrap()
        .notification(
            "custom/release",
            notification_fn(|(): (), gate: State<Gate>| async move { gate.0.0.notify_one() }),
        )
        .unwrap()
        .build();
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "custom/wait"},
        {"jsonrpc": "2.0", "method": "custom/release"},
    ]);
    let answer = post_batch(&server, &batch)
        .await
        .expect("the notification's handler ran while the request waited");
    let answers: Value = serde_json::from_str(&answer.text()).unwrap();
    assert_eq!(answers[0]["result"]["released"], true, "{answers}");
}

#[tokio::test]
async fn a_custom_notification_before_initialize_on_a_pipe_is_dropped() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (server, mut rx) = noticing();
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_io);
    let served = tokio::spawn(async move { server.serve_io(r, w).await });
    let (cr, mut cw) = tokio::io::split(client_io);
    let mut lines = tokio::io::BufReader::new(cr).lines();
    let moved = |path: &str| {
        let note = json!({"jsonrpc": "2.0", "method": "custom/moved", "params": {"path": path}});
        format!("{note}\n")
    };
    // The pipe's era is undecided: no client to give the handler.
    cw.write_all(moved("/early").as_bytes()).await.unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    cw.write_all(format!("{init}\n").as_bytes()).await.unwrap();
    let answer: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(answer["id"], 0, "{answer}");
    cw.write_all(moved("/late").as_bytes()).await.unwrap();
    // End of input: the server finishes what it runs, then returns.
    cw.shutdown().await.unwrap();
    while lines.next_line().await.unwrap().is_some() {}
    served.await.unwrap().unwrap();
    assert_eq!(rx.recv().await, Some("/late Legacy raw".to_owned()));
    assert!(
        rx.try_recv().is_err(),
        "only the notification after initialize"
    );
}

/// Sends `custom/held` 1, 2 and 3, releases one handler, then sends 4 and releases one:
/// what the handlers sent, in order. With room for one handler at a time, 2 and 3 are
/// dropped while 1 runs, and 4 runs once 1 is done.
async fn flood(
    client: &TestClient,
    gate: &tokio::sync::Notify,
    ran: &mut tokio::sync::mpsc::UnboundedReceiver<Value>,
) -> Vec<Value> {
    let mut got = Vec::new();
    for batch in [&[1, 2, 3][..], &[4]] {
        for n in batch {
            client.notify("custom/held", Some(json!({"n": n}))).await;
        }
        // Answered after the notifications were read (a pipe reads in order).
        client.request("ping", None).await.unwrap();
        gate.notify_one();
        let next = tokio::time::timeout(Duration::from_secs(60), ran.recv()).await;
        got.push(next.expect("a handler ran").unwrap());
    }
    got
}

/// A server with room for one request (and notification handler) per client, whose
/// `custom/held` handler waits for the gate, then sends its `n`.
fn held_server() -> (
    Server,
    std::sync::Arc<tokio::sync::Notify>,
    tokio::sync::mpsc::UnboundedReceiver<Value>,
) {
    let gate = std::sync::Arc::new(tokio::sync::Notify::new());
    let (tx, ran) = tokio::sync::mpsc::unbounded_channel();
    let held = gate.clone();
    let server = ServerBuilder::new("custom", "1.0.0")
        .max_in_flight(1)
        .notification(
            "custom/held",
            notification_fn(move |p: Value| {
                let (held, tx) = (held.clone(), tx.clone());
                async move {
                    held.notified().await;
                    tx.send(p["n"].clone()).unwrap();
                }
            }),
        )
        .unwrap()
        .build();
    (server, gate, ran)
}

// Paused time: when every task is idle and nothing came, nothing will.
#[tokio::test(start_paused = true)]
async fn notification_handlers_beyond_the_in_flight_limit_are_dropped() {
    let (server, gate, mut ran) = held_server();
    let stdio = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    assert_eq!(flood(&stdio, &gate, &mut ran).await, [json!(1), json!(4)]);
    let options = HttpOptions::default().max_in_flight(1);
    let router = axum::Router::new().nest_service(
        "/mcp",
        server.http_router(options, CancellationToken::new()),
    );
    let http = HttpTestClient::new(router, ClientOptions::legacy())
        .connect()
        .await
        .unwrap();
    assert_eq!(flood(&http, &gate, &mut ran).await, [json!(1), json!(4)]);
}

/// Over HTTP each legacy session has its own places for notification handlers: while one
/// session's handler holds its only place (and its next notification is dropped), another
/// session's handler still runs.
#[tokio::test(start_paused = true)]
async fn one_sessions_notification_flood_does_not_starve_another() {
    let (server, gate, mut ran) = held_server();
    let options = HttpOptions::default().max_in_flight(1);
    let router = axum::Router::new().nest_service(
        "/mcp",
        server.http_router(options, CancellationToken::new()),
    );
    let (a, b) = (
        HttpTestClient::new(router.clone(), ClientOptions::legacy()),
        HttpTestClient::new(router, ClientOptions::legacy()),
    );
    let (a, b) = (a.connect().await.unwrap(), b.connect().await.unwrap());
    // The reply to each notification comes once its handler was started or dropped.
    for (client, n) in [(&a, 1), (&a, 2), (&b, 3)] {
        client.notify("custom/held", Some(json!({ "n": n }))).await;
    }
    let mut got = Vec::new();
    for _ in 0..2 {
        gate.notify_one();
        // Paused time: when every task is idle and nothing came, nothing will.
        let next = tokio::time::timeout(Duration::from_secs(60), ran.recv()).await;
        got.push(next.expect("a handler ran").unwrap().as_i64().unwrap());
    }
    got.sort_unstable();
    assert_eq!(got, [1, 3]);
}
