//! Legacy sessions shared by two endpoints (two instances behind a load balancer) through a
//! `SessionStore`: here the in-memory one, so the logic is tested on every run;
//! mcp-redis/tests/redis.rs runs the same flows against a real Redis.

#![cfg(feature = "http")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support {
    pub mod replica;
}

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use ferromcp::store::{MemorySessionStore, SessionStore, StoreFuture};
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use support::replica::instance;
use tower::ServiceExt;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}"#;
const CALL: &str =
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hi","arguments":{}}}"#;
const SUBSCRIBE: &str =
    r#"{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"note://a"}}"#;

/// Counts the loads a store serves: the hot path must not need any.
#[derive(Clone, Default)]
struct Counting {
    inner: MemorySessionStore,
    loads: Arc<AtomicUsize>,
}

impl SessionStore for Counting {
    fn load<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, Option<String>> {
        self.loads.fetch_add(1, Ordering::SeqCst);
        self.inner.load(id, ttl)
    }
    fn save<'a>(&'a self, id: &'a str, record: String, ttl: Duration) -> StoreFuture<'a, ()> {
        self.inner.save(id, record, ttl)
    }
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        self.inner.remove(id)
    }
}

fn post(session: Option<&str>, user: Option<&str>, body: &str) -> Request<Body> {
    let mut b = Request::post("/mcp")
        .header("host", "127.0.0.1:3000")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(id) = session {
        b = b.header("mcp-session-id", id);
    }
    if let Some(user) = user {
        b = b.header("x-user", user);
    }
    b.body(Body::from(body.to_owned())).unwrap()
}

async fn send(router: &axum::Router, req: Request<Body>) -> (StatusCode, http::HeaderMap, String) {
    let response = router.clone().oneshot(req).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, headers, String::from_utf8(bytes.to_vec()).unwrap())
}

async fn initialize(router: &axum::Router, user: Option<&str>) -> String {
    let (status, headers, body) = send(router, post(None, user, INIT)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    headers["mcp-session-id"].to_str().unwrap().to_owned()
}

fn result(body: &str) -> Value {
    let value: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    value["result"].clone()
}

#[tokio::test]
async fn a_session_minted_on_one_instance_continues_on_another() {
    let store = Arc::new(MemorySessionStore::new());
    let (_, a) = instance(store.clone(), Duration::ZERO);
    let (_, b) = instance(store.clone(), Duration::ZERO);
    let id = initialize(&a, None).await;
    assert_eq!(store.len(), 1, "initialize wrote the session through");

    let (status, _, body) = send(&b, post(Some(&id), None, CALL)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(result(&body)["content"][0]["text"], "hello");
    let (status, _, body) = send(&b, post(Some(&id), None, SUBSCRIBE)).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // A re-reads the session it minted (its recheck window is zero here).
    let (status, _, _) = send(&a, post(Some(&id), None, CALL)).await;
    assert_eq!(status, StatusCode::OK);
    // A third instance restores it with the subscription made on B: its GET stream gets
    // the update it announces for that resource, and not another.
    let (server_c, c) = instance(store.clone(), Duration::ZERO);
    let stream = c
        .clone()
        .oneshot(
            Request::get("/mcp")
                .header("host", "localhost")
                .header("accept", "text/event-stream")
                .header("mcp-session-id", &id)
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    server_c.registry().notify_resource_updated("note://a");
    server_c.registry().notify_resource_updated("note://b");
    let mut body = stream.into_body();
    let mut text = String::new();
    tokio::time::timeout(Duration::from_secs(5), async {
        while !text.contains("notifications/resources/updated") {
            let frame = body.frame().await.unwrap().unwrap();
            if let Ok(data) = frame.into_data() {
                text.push_str(std::str::from_utf8(&data).unwrap());
            }
        }
    })
    .await
    .expect("the restored session's subscription delivers the update");
    assert!(
        text.contains("note://a") && !text.contains("note://b"),
        "{text}"
    );

    // DELETE on B ends it everywhere.
    let delete = Request::delete("/mcp")
        .header("host", "localhost")
        .header("mcp-session-id", &id)
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&b, delete).await.0, StatusCode::OK);
    assert!(store.is_empty());
    assert_eq!(
        send(&a, post(Some(&id), None, CALL)).await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        send(&b, post(Some(&id), None, CALL)).await.0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn another_principal_cannot_restore_a_session() {
    let store = Arc::new(MemorySessionStore::new());
    let (_, a) = instance(store.clone(), Duration::ZERO);
    let (_, b) = instance(store.clone(), Duration::ZERO);
    let id = initialize(&a, Some("alice")).await;
    assert_eq!(
        send(&b, post(Some(&id), Some("bob"), CALL)).await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        send(&b, post(Some(&id), None, CALL)).await.0,
        StatusCode::NOT_FOUND,
        "anonymous is another principal"
    );
    let (status, _, body) = send(&b, post(Some(&id), Some("alice"), CALL)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        send(&b, post(Some(&id), Some("bob"), CALL)).await.0,
        StatusCode::NOT_FOUND,
        "held on B now, still alice's"
    );
}

#[tokio::test]
async fn the_instance_holding_a_session_does_not_read_the_store_per_request() {
    let store = Counting::default();
    let loads = store.loads.clone();
    let (_, a) = instance(Arc::new(store.clone()), Duration::from_secs(3600));
    let (_, b) = instance(Arc::new(store.clone()), Duration::from_secs(3600));
    let id = initialize(&a, None).await;
    for _ in 0..50 {
        assert_eq!(
            send(&a, post(Some(&id), None, CALL)).await.0,
            StatusCode::OK
        );
    }
    assert_eq!(loads.load(Ordering::SeqCst), 0, "A minted it: no read");
    for _ in 0..50 {
        assert_eq!(
            send(&b, post(Some(&id), None, CALL)).await.0,
            StatusCode::OK
        );
    }
    assert_eq!(
        loads.load(Ordering::SeqCst),
        1,
        "B read it once, to restore it"
    );
}

#[tokio::test]
async fn an_unreachable_store_gives_503_with_retry_after_then_recovers() {
    let store = MemorySessionStore::new();
    let (_, a) = instance(Arc::new(store.clone()), Duration::ZERO);
    let (_, b) = instance(Arc::new(store.clone()), Duration::ZERO);
    let id = initialize(&a, None).await;
    store.set_available(false);
    for (router, req) in [
        (&b, post(Some(&id), None, CALL)),
        (&a, post(Some(&id), None, CALL)),
        (&a, post(None, None, INIT)),
    ] {
        let (status, headers, body) = send(router, req).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(headers["retry-after"], "1");
    }
    store.set_available(true);
    let (status, _, body) = send(&b, post(Some(&id), None, CALL)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(store.len(), 1, "the refused initialize left nothing behind");
}

#[tokio::test]
async fn a_change_the_store_refused_is_reread_not_trusted() {
    let store = MemorySessionStore::new();
    let (_, a) = instance(Arc::new(store.clone()), Duration::from_secs(3600));
    let (_, b) = instance(Arc::new(store.clone()), Duration::ZERO);
    let id = initialize(&a, None).await;
    store.set_available(false);
    let (status, _, _) = send(&a, post(Some(&id), None, SUBSCRIBE)).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    // The session A holds is no longer trusted: with the store still down, 503 again,
    // although A's recheck window is an hour.
    let (status, _, _) = send(&a, post(Some(&id), None, CALL)).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    store.set_available(true);
    assert_eq!(
        send(&a, post(Some(&id), None, CALL)).await.0,
        StatusCode::OK
    );
    // The refused subscription was dropped with the re-read; the client retries it.
    assert_eq!(
        send(&a, post(Some(&id), None, SUBSCRIBE)).await.0,
        StatusCode::OK
    );
    assert_eq!(
        send(&b, post(Some(&id), None, CALL)).await.0,
        StatusCode::OK
    );
}
