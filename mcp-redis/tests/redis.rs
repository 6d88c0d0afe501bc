//! Legacy sessions shared through a real Redis by two HTTP servers (two instances behind a
//! load balancer) on 127.0.0.1, driven by an HTTP client over real sockets.
//!
//! The tests that need Redis are `#[ignore]`d: they run with `--include-ignored` after eval
//! "$(scripts/redis.sh start)", which exports `MCP_TEST_REDIS_URL` and `MCP_TEST_REDIS_SERVER`
//! (the `redis-server` binary the outage test starts and stops a server of its own with);
//! run without those variables, they fail and say so. `scripts/test.sh` does both.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// ferromcp's own shared-session tests serve the same instance, on memory stores.
#[path = "../../mcp-server/tests/support/replica.rs"]
mod replica;

use std::sync::Arc;
use std::time::Duration;

use ferromcp::http::HttpOptions;
use ferromcp::store::{EventStore, SessionStore};
use ferromcp::{Server, ServerBuilder};
use ferromcp_redis::{RedisEventStore, RedisNotificationBus, RedisSessionStore, RedisTaskStore};
use reqwest::StatusCode;
use serde_json::{Value, json};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const CALL: &str =
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hi","arguments":{}}}"#;
const SUBSCRIBE: &str =
    r#"{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"note://a"}}"#;

/// The variable `name`, which `scripts/redis.sh start` exports; a test that needs it is
/// `#[ignore]`d, so running it without the variable is a mistake to report, not to pass.
fn env(name: &str) -> String {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v,
        _ => panic!("{name} is not set: eval \"$(scripts/redis.sh start)\" first"),
    }
}

/// A key prefix of this test's own, so tests sharing one Redis do not meet.
fn prefix() -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    format!(
        "mcp-test:{}:",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

/// The resource `note://a`, to subscribe to.
fn add_note(server: &Server) {
    server
        .registry()
        .add_resource(
            ferromcp::types::Resource::new("note://a", "a"),
            ferromcp::registry::resource_fn(None, |_, _, _| async { "a" }),
        )
        .unwrap();
}

/// A session store on the Redis at `url`, its keys under `prefix`.
async fn redis_store(url: &str, prefix: &str) -> RedisSessionStore {
    RedisSessionStore::connect(url)
        .await
        .unwrap()
        .with_prefix(prefix)
}

/// An event store on the Redis at `url`, its keys under `prefix`.
async fn redis_events(url: &str, prefix: &str) -> RedisEventStore {
    RedisEventStore::connect(url)
        .await
        .unwrap()
        .with_prefix(prefix)
}

/// One instance on 127.0.0.1 with its own connection to Redis; `x-user` becomes the
/// request's principal, as an authentication layer would. Returns its `/mcp` URL.
async fn instance(url: &str, prefix: &str, recheck: Duration) -> (Server, String) {
    let store = redis_store(url, prefix).await;
    instance_with(Arc::new(store), recheck).await
}

async fn instance_with(store: Arc<dyn SessionStore>, recheck: Duration) -> (Server, String) {
    serve(replica::instance(store, recheck)).await
}

/// Serves `app` on 127.0.0.1; returns its `/mcp` URL.
async fn serve((server, app): (Server, axum::Router)) -> (Server, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (server, format!("http://{addr}/mcp"))
}

async fn post(
    endpoint: &str,
    session: Option<&str>,
    user: Option<&str>,
    body: &str,
) -> reqwest::Response {
    let mut b = reqwest::Client::new()
        .post(endpoint)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .timeout(Duration::from_secs(10))
        .body(body.to_owned());
    if let Some(id) = session {
        b = b.header("mcp-session-id", id);
    }
    if let Some(user) = user {
        b = b.header("x-user", user);
    }
    b.send().await.unwrap()
}

async fn initialize(endpoint: &str, user: Option<&str>) -> String {
    let response = post(endpoint, None, user, INIT).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned()
}

async fn call(endpoint: &str, session: &str, user: Option<&str>) -> StatusCode {
    let response = post(endpoint, Some(session), user, CALL).await;
    let status = response.status();
    if status == StatusCode::OK {
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["result"]["content"][0]["text"], "hello", "{body}");
    }
    status
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn a_session_continues_on_another_instance_and_ends_everywhere() {
    let url = env("MCP_TEST_REDIS_URL");
    let prefix = prefix();
    let (_a_server, a) = instance(&url, &prefix, Duration::ZERO).await;
    let (_b_server, b) = instance(&url, &prefix, Duration::ZERO).await;
    let id = initialize(&a, None).await;

    let response = post(
        &b,
        Some(&id),
        None,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(call(&b, &id, None).await, StatusCode::OK);
    let response = post(&b, Some(&id), None, SUBSCRIBE).await;
    assert_eq!(response.status(), StatusCode::OK);

    // What B wrote is in Redis: a third instance restores the subscription with it.
    let store = redis_store(&url, &prefix).await;
    let record = store
        .load(&id, Duration::from_secs(60))
        .await
        .unwrap()
        .unwrap();
    let record: Value = serde_json::from_str(&record).unwrap();
    assert_eq!(record["subs"], json!(["note://a"]), "{record}");
    assert_eq!(record["v"], "2025-11-25");

    assert_eq!(call(&a, &id, None).await, StatusCode::OK);
    let response = reqwest::Client::new()
        .delete(&b)
        .header("mcp-session-id", &id)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(call(&a, &id, None).await, StatusCode::NOT_FOUND);
    assert_eq!(call(&b, &id, None).await, StatusCode::NOT_FOUND);
    assert_eq!(
        store.load(&id, Duration::from_secs(60)).await.unwrap(),
        None
    );
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn another_principals_session_id_is_not_found() {
    let url = env("MCP_TEST_REDIS_URL");
    let prefix = prefix();
    let (_a_server, a) = instance(&url, &prefix, Duration::ZERO).await;
    let (_b_server, b) = instance(&url, &prefix, Duration::ZERO).await;
    let id = initialize(&a, Some("alice")).await;
    assert_eq!(call(&b, &id, Some("bob")).await, StatusCode::NOT_FOUND);
    assert_eq!(call(&b, &id, None).await, StatusCode::NOT_FOUND);
    assert_eq!(call(&b, &id, Some("alice")).await, StatusCode::OK);
    assert_eq!(call(&a, &id, Some("bob")).await, StatusCode::NOT_FOUND);
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn sessions_expire_in_redis_after_the_idle_timeout() {
    let url = env("MCP_TEST_REDIS_URL");
    let prefix = prefix();
    let store = RedisSessionStore::connect(&url)
        .await
        .unwrap()
        .with_prefix(&prefix);
    let key = format!("{prefix}s");
    let minute = Duration::from_secs(60);
    store.save("s", "{}".into(), minute).await.unwrap();
    let held = pttl(&key).await;
    assert!(
        0 < held && held <= 60_000,
        "saved for the idle timeout: {held} ms"
    );
    // Most of the time to live gone by; a load resets it.
    shorten(&key, 5_000).await;
    let loaded = store.load("s", minute).await.unwrap();
    assert_eq!(loaded.as_deref(), Some("{}"));
    let held = pttl(&key).await;
    assert!(
        held > 5_000 && held <= 60_000,
        "a load resets it: {held} ms"
    );
    // Its time to live runs out (watched without a load, which would reset it): the
    // session is gone.
    shorten(&key, 1).await;
    assert!(eventually(async || pttl(&key).await == -2).await);
    assert_eq!(store.load("s", minute).await.unwrap(), None);
}

/// A plain connection to the tests' Redis, to see what the stores keep there.
async fn raw() -> redis::aio::MultiplexedConnection {
    redis::Client::open(env("MCP_TEST_REDIS_URL"))
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

/// The time to live Redis holds for `key`, in ms (negative: none, or no such key).
async fn pttl(key: &str) -> i64 {
    redis::cmd("PTTL")
        .arg(key)
        .query_async(&mut raw().await)
        .await
        .unwrap()
}

/// Leaves `key` `ms` milliseconds to live, as if the rest of its time had gone by.
async fn shorten(key: &str, ms: u64) {
    let set: i64 = redis::cmd("PEXPIRE")
        .arg(key)
        .arg(ms)
        .query_async(&mut raw().await)
        .await
        .unwrap();
    assert_eq!(set, 1, "{key} exists");
}

/// Whether `done` comes to hold within a bounded number of polls (no time is asserted:
/// a key left 1 ms to live is gone at the next look).
async fn eventually(mut done: impl AsyncFnMut() -> bool) -> bool {
    for _ in 0..500 {
        if done().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    false
}

/// A redis-server of this test's own, on a fixed port, that it can stop and start again.
struct OwnRedis {
    bin: String,
    port: u16,
    child: Option<std::process::Child>,
}

impl OwnRedis {
    fn new(bin: String) -> OwnRedis {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        OwnRedis {
            bin,
            port,
            child: None,
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    async fn start(&mut self) {
        let child = std::process::Command::new(&self.bin)
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--appendonly", "no", "--dir", "/tmp"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("redis-server did not listen on {} within 5 s", self.port);
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.stop();
    }
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn redis_down_gives_503_with_retry_after_and_recovers_when_it_is_back() {
    let bin = env("MCP_TEST_REDIS_SERVER");
    let mut redis = OwnRedis::new(bin);
    redis.start().await;
    let prefix = prefix();
    let (_a_server, a) = instance(&redis.url(), &prefix, Duration::ZERO).await;
    let (_b_server, b) = instance(&redis.url(), &prefix, Duration::ZERO).await;
    let id = initialize(&a, None).await;
    assert_eq!(call(&b, &id, None).await, StatusCode::OK);

    redis.stop();
    let started = std::time::Instant::now();
    for (endpoint, body, session) in [
        (&a, CALL, Some(id.as_str())),
        (&b, CALL, Some(id.as_str())),
        (&a, INIT, None),
    ] {
        let response = post(endpoint, session, None, body).await;
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()["retry-after"], "1");
    }
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "refused promptly, not hung: {:?}",
        started.elapsed()
    );

    // Back (empty: it keeps nothing on disk): the old session is gone, a new one works on
    // both instances, over the connections each instance re-established by itself.
    redis.start().await;
    let mut recovered = None;
    for _ in 0..50 {
        let response = post(&a, None, None, INIT).await;
        if response.status() == StatusCode::OK {
            recovered = Some(
                response.headers()["mcp-session-id"]
                    .to_str()
                    .unwrap()
                    .to_owned(),
            );
            break;
        }
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let fresh = recovered.expect("initialize works again within 5 s of Redis's restart");
    assert_eq!(call(&b, &fresh, None).await, StatusCode::OK);
    assert_eq!(call(&a, &fresh, None).await, StatusCode::OK);
    assert_eq!(call(&b, &id, None).await, StatusCode::NOT_FOUND);
}

/// An instance with the resource `note://a`, sharing sessions under `prefix` and
/// notifications on the channel `prefix`.
async fn bus_instance(url: &str, prefix: &str) -> (Server, String) {
    let store = redis_store(url, prefix).await;
    let bus = RedisNotificationBus::connect(url)
        .await
        .unwrap()
        .with_channel(prefix);
    let options = HttpOptions::default().notification_bus(Arc::new(bus));
    let (server, app) = replica::instance_with(Arc::new(store), Duration::ZERO, options);
    add_note(&server);
    serve((server, app)).await
}

/// The JSON-RPC messages that arrive on an SSE response within `wait`.
async fn read_events(response: &mut reqwest::Response, wait: Duration) -> Vec<Value> {
    read_events_while(response, wait, |_| true).await
}

/// The messages of a stream until `done` holds for them: at most 10 s, for the test to
/// fail on what was read by then.
async fn read_events_until(
    response: &mut reqwest::Response,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    read_events_while(response, Duration::from_secs(10), |events| !done(events)).await
}

async fn read_events_while(
    response: &mut reqwest::Response,
    wait: Duration,
    more: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    // Whole events only (a chunk cut at the deadline is not one).
    let messages = |text: &str| -> Vec<Value> {
        let whole = text.rfind("\n\n").map_or("", |end| &text[..end]);
        whole
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter(|d| !d.is_empty())
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    };
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + wait;
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(deadline, response.chunk()).await {
        text.push_str(std::str::from_utf8(&chunk).unwrap());
        if !more(&messages(&text)) {
            break;
        }
    }
    messages(&text)
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn changes_on_one_instance_reach_listeners_and_sessions_on_another() {
    let url = env("MCP_TEST_REDIS_URL");
    let prefix = prefix();
    let (a_server, _a) = bus_instance(&url, &prefix).await;
    let (_b_server, b) = bus_instance(&url, &prefix).await;
    // A server on another channel hears nothing.
    let (_c_server, c) = bus_instance(&url, &format!("{prefix}other:")).await;

    let listen = json!({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["note://a", "note://warm-up"],
                          "toolsListChanged": true},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}
    }})
    .to_string();
    let open = |endpoint: String| {
        let listen = listen.clone();
        async move {
            reqwest::Client::new()
                .post(endpoint)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "subscriptions/listen")
                .body(listen)
                .send()
                .await
                .unwrap()
        }
    };
    let mut on_b = open(b.clone()).await;
    let mut on_c = open(c.clone()).await;
    let ack = read_events_until(&mut on_b, |events| !events.is_empty()).await;
    assert_eq!(
        ack[0]["method"], "notifications/subscriptions/acknowledged",
        "{ack:?}"
    );
    // A legacy session on B, subscribed to the same resource.
    let session = initialize(&b, None).await;
    assert_eq!(
        post(&b, Some(&session), None, SUBSCRIBE).await.status(),
        StatusCode::OK
    );
    let mut get = get_stream(&b, &session, None).await;
    assert_eq!(get.status(), StatusCode::OK);

    // B subscribes to the channel as its router is made; once A's update reaches B's
    // listener, B hears A. (Of another resource, so that a late one is not counted below.)
    let updated = |m: &Value| {
        m["method"] == "notifications/resources/updated" && m["params"]["uri"] == "note://a"
    };
    let warmed = |m: &Value| m["params"]["uri"] == "note://warm-up";
    let mut heard = false;
    for _ in 0..50 {
        a_server
            .registry()
            .notify_resource_updated("note://warm-up");
        if read_events(&mut on_b, Duration::from_millis(100))
            .await
            .iter()
            .any(warmed)
        {
            heard = true;
            break;
        }
    }
    assert!(heard, "B's listen stream never heard A's resource update");

    // Exactly once each, and no echo back and forth: three updates are three notifications.
    for _ in 0..3 {
        a_server.registry().notify_resource_updated("note://a");
    }
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    a_server
        .registry()
        .add_tool(
            ferromcp::types::Tool::new("added", schema),
            ferromcp::registry::tool_fn(|_: Value, _| async { "added" }),
            None,
        )
        .unwrap();
    let list_changed = |m: &Value| m["method"] == "notifications/tools/list_changed";
    let mut seen = read_events_until(&mut on_b, |events| {
        events.iter().filter(|m| updated(m)).count() >= 3 && events.iter().any(list_changed)
    })
    .await;
    // And nothing more after them.
    seen.extend(read_events(&mut on_b, Duration::from_millis(300)).await);
    seen.retain(|m| !warmed(m));
    let first = &seen[..seen.len().min(8)];
    assert_eq!(seen.iter().filter(|m| updated(m)).count(), 3, "{first:?}");
    assert_eq!(
        seen.iter().filter(|m| list_changed(m)).count(),
        1,
        "{first:?}"
    );
    assert!(
        seen.iter()
            .all(|m| { m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "l" }),
        "{first:?}"
    );
    let mut legacy = read_events_until(&mut get, |events| {
        events.iter().filter(|m| updated(m)).count() >= 3
    })
    .await;
    legacy.extend(read_events(&mut get, Duration::from_millis(300)).await);
    assert_eq!(
        legacy.iter().filter(|m| updated(m)).count(),
        3,
        "{legacy:?}"
    );
    let other = read_events(&mut on_c, Duration::from_millis(100)).await;
    assert!(other.iter().all(|m| !updated(m)), "{other:?}");
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn the_redis_bus_delivers_what_is_published() {
    use ferromcp::store::NotificationBus;
    let url = env("MCP_TEST_REDIS_URL");
    let channel = prefix();
    let bus = Arc::new(
        RedisNotificationBus::connect(&url)
            .await
            .unwrap()
            .with_channel(&channel),
    );
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    let subscriber = bus.clone();
    let task = tokio::spawn(async move { subscriber.subscribe(tx).await });
    let mut got = None;
    for i in 0..50 {
        bus.publish(format!("m{i}")).await.unwrap();
        if let Ok(Some(m)) = tokio::time::timeout(Duration::from_millis(100), rx.recv()).await {
            got = Some(m);
            break;
        }
    }
    assert!(
        got.is_some_and(|m| m.starts_with('m')),
        "nothing came through"
    );
    drop(rx);
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("the subscription did not end when its receiver closed")
        .unwrap()
        .unwrap();
}

fn task(id: &str, owner: Option<&str>, ttl: Duration) -> ferromcp::tasks::TaskRecord {
    let mut r = ferromcp::tasks::TaskRecord::new(
        id,
        owner.map(str::to_owned),
        ferromcp::ProtocolVersion::V2025_11_25,
    );
    r.ttl = Some(ttl);
    // A lease of 20 s: no instance renews these, and they must read as working meanwhile.
    r.poll_interval = Some(Duration::from_secs(5));
    r
}

/// Two connections to one Redis task store under `prefix`, as two instances have.
async fn task_stores_at(prefix: &str) -> (RedisTaskStore, RedisTaskStore) {
    let url = env("MCP_TEST_REDIS_URL");
    let connect = || async {
        RedisTaskStore::connect(&url)
            .await
            .unwrap()
            .with_prefix(prefix)
    };
    (connect().await, connect().await)
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn the_redis_task_store_keeps_lists_and_ends_tasks_once() {
    use ferromcp::tasks::{TaskOutcome, TaskStore, TaskStoreError};
    use ferromcp::types::TaskStatus;
    let prefix = prefix();
    let (store, other) = task_stores_at(&prefix).await;
    let hour = Duration::from_secs(3_600);
    for i in 0..5 {
        let owner = if i % 2 == 0 { "session a" } else { "session b" };
        store
            .create(task(&format!("t{i}"), Some(owner), hour))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert!(matches!(
        store.create(task("t0", None, hour)).await,
        Err(TaskStoreError::Duplicate)
    ));
    let first = other.list(Some("session a"), None, 2).await.unwrap();
    let ids: Vec<_> = first.tasks.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["t0", "t2"]);
    let second = other
        .list(Some("session a"), first.next_cursor.as_deref(), 2)
        .await
        .unwrap();
    assert_eq!(second.tasks.len(), 1);
    assert_eq!(second.tasks[0].id, "t4");
    assert!(second.next_cursor.is_none());
    for hostile in ["x", "-1", "18446744073709551615", "9223372036854775807"] {
        assert!(
            matches!(
                other.list(Some("session a"), Some(hostile), 2).await,
                Err(TaskStoreError::InvalidCursor)
            ),
            "{hostile}"
        );
    }
    assert!(other.list(None, None, 10).await.unwrap().tasks.is_empty());

    // What one instance records, another reads back whole; the first end wins.
    let mut t1 = other.get("t1").await.unwrap().unwrap();
    assert_eq!(t1.owner.as_deref(), Some("session b"));
    t1.status = TaskStatus::Completed;
    t1.status_message = Some("done".into());
    t1.outcome = Some(TaskOutcome::Result(
        json!({"content": [], "isError": false}),
    ));
    assert!(other.update(t1.clone()).await.unwrap());
    assert_eq!(store.get("t1").await.unwrap(), Some(t1.clone()));
    let mut late = t1.clone();
    late.status = TaskStatus::Cancelled;
    assert!(
        !store.update(late).await.unwrap(),
        "a completed task stays completed"
    );
    assert!(!store.update(task("nowhere", None, hour)).await.unwrap());

    // A task past its time to live is gone, and so is its place in the list.
    store
        .create(task("brief", Some("session c"), hour))
        .await
        .unwrap();
    assert!(store.get("brief").await.unwrap().is_some());
    let key = format!("{prefix}task:brief");
    let held = pttl(&key).await;
    assert!(
        3_500_000 < held && held <= 3_600_000,
        "kept for its time to live: {held} ms"
    );
    shorten(&key, 1).await;
    assert!(
        eventually(async || store.get("brief").await.unwrap().is_none()).await,
        "an expired task reads as none"
    );
    assert!(
        store
            .list(Some("session c"), None, 10)
            .await
            .unwrap()
            .tasks
            .is_empty()
    );
}

/// An instance whose tasks live in Redis under `prefix` (sessions too): `slow` runs until
/// cancelled and then counts the cancellation in `stopped`; `quick` answers at once.
async fn task_instance(
    url: &str,
    prefix: &str,
    stopped: Arc<std::sync::atomic::AtomicUsize>,
) -> (Server, String) {
    use ferromcp::types::{Tool, ToolExecution, ToolTaskSupport};
    let tasks = RedisTaskStore::connect(url)
        .await
        .unwrap()
        .with_prefix(prefix);
    let server = ServerBuilder::new("task-replica", "1.0.0")
        .task_store(tasks)
        .build();
    let tool = |name: &str| {
        let mut t = Tool::new(
            name,
            json!({"type": "object"}).as_object().cloned().unwrap(),
        );
        t.execution = Some(ToolExecution {
            task_support: Some(ToolTaskSupport::Optional),
            ..Default::default()
        });
        t
    };
    server
        .registry()
        .add_tool(
            tool("slow"),
            ferromcp::registry::tool_fn(move |_: Value, ctx: ferromcp::Context| {
                let stopped = stopped.clone();
                async move {
                    let token = ctx.cancellation_token();
                    let watcher = tokio::spawn(async move {
                        token.cancelled().await;
                        stopped.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    });
                    ctx.cancelled().await;
                    let _ = watcher.await;
                    "never seen"
                }
            }),
            None,
        )
        .unwrap();
    server
        .registry()
        .add_tool(
            tool("confirm"),
            ferromcp::registry::tool_fn(|_: Value, ctx: ferromcp::Context| async move {
                ctx.begin_task().await;
                let schema = serde_json::from_value(json!({
                    "type": "object", "properties": {"ok": {"type": "boolean"}}
                }))
                .unwrap();
                let params = ferromcp::types::ElicitRequestFormParams::new("Sure?", schema);
                match ctx.elicit_form(params).await {
                    Ok(answer) => format!("{:?}", answer.action),
                    Err(e) => e.to_string(),
                }
            }),
            None,
        )
        .unwrap();
    server
        .registry()
        .add_tool(
            tool("quick"),
            ferromcp::registry::tool_fn(|_: Value, _| async { "quick result" }),
            None,
        )
        .unwrap();
    let sessions = redis_store(url, prefix).await;
    let bus = RedisNotificationBus::connect(url)
        .await
        .unwrap()
        .with_channel(prefix);
    let app = axum::Router::new().nest_service(
        "/mcp",
        server.http_router(
            HttpOptions::default()
                .session_store(Arc::new(sessions))
                .shared_session_recheck(Duration::ZERO)
                .notification_bus(Arc::new(bus)),
            tokio_util::sync::CancellationToken::new(),
        ),
    );
    serve((server, app)).await
}

async fn rpc(endpoint: &str, session: &str, id: u32, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    let response = post(endpoint, Some(session), None, &body).await;
    assert_eq!(response.status(), StatusCode::OK, "{method}");
    let text = response.text().await.unwrap();
    // JSON, or an SSE stream whose message with our id is the answer.
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .chain(std::iter::once(text.as_str()))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {method}: {text}"))
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn a_task_started_on_one_instance_is_polled_listed_and_cancelled_on_another() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let url = env("MCP_TEST_REDIS_URL");
    let prefix = prefix();
    let stopped = Arc::new(AtomicUsize::new(0));
    let (_a_server, a) = task_instance(&url, &prefix, stopped.clone()).await;
    let (_b_server, b) = task_instance(&url, &prefix, stopped.clone()).await;
    let session = initialize(&a, None).await;
    let task = json!({"ttl": 60_000});
    let created = rpc(
        &a,
        &session,
        2,
        "tools/call",
        json!({"name": "slow", "arguments": {}, "task": task}),
    )
    .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"))
        .to_owned();

    let seen = rpc(&b, &session, 3, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(seen["result"]["status"], "working", "{seen}");
    let listed = rpc(&b, &session, 4, "tasks/list", json!({})).await;
    assert_eq!(
        listed["result"]["tasks"][0]["taskId"],
        id.as_str(),
        "{listed}"
    );

    // Another session, on either instance, does not see it.
    let other = initialize(&b, None).await;
    let hidden = rpc(&b, &other, 5, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");

    // Cancelled on B: the handler running on A stops.
    let cancelled = rpc(&b, &session, 6, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    for _ in 0..100 {
        if stopped.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        stopped.load(Ordering::SeqCst),
        1,
        "A's handler never saw B's cancel"
    );
    let after = rpc(&a, &session, 7, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(after["result"]["status"], "cancelled", "{after}");

    // A result produced on A is collected on B.
    let quick = rpc(
        &a,
        &session,
        8,
        "tools/call",
        json!({"name": "quick", "arguments": {}, "task": task}),
    )
    .await;
    let quick_id = quick["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let result = rpc(&b, &session, 9, "tasks/result", json!({"taskId": quick_id})).await;
    assert_eq!(
        result["result"]["content"][0]["text"], "quick result",
        "{result}"
    );
}

/// A 2026 request with the tasks extension declared, and the headers that mirror it.
async fn modern_rpc(endpoint: &str, method: &str, name: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}},
            "elicitation": {"form": {}}
        }
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    reqwest::Client::new()
        .post(endpoint)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .timeout(Duration::from_secs(10))
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Adds tools on `server` until `stream`, held by another instance, hears the tool list
/// change: that instance's bus subscription is up. What the stream got meanwhile.
async fn until_heard(server: &Server, stream: &mut reqwest::Response) -> Vec<Value> {
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    let mut seen = Vec::new();
    for n in 0..50 {
        server
            .registry()
            .add_tool(
                ferromcp::types::Tool::new(format!("extra-{n}"), schema.clone()),
                ferromcp::registry::tool_fn(|_: Value, _| async { "extra" }),
                None,
            )
            .unwrap();
        let more = read_events(stream, Duration::from_millis(100)).await;
        let heard = more
            .iter()
            .any(|m| m["method"] == "notifications/tools/list_changed");
        seen.extend(more);
        if heard {
            return seen;
        }
    }
    panic!("the other instance never heard this one: {seen:?}");
}

/// Two task instances on one Redis, and the answer to a `confirm` call (a task that asks
/// for input) started on the first.
async fn confirm_on_the_first() -> ((Server, String), (Server, String), Value) {
    let url = env("MCP_TEST_REDIS_URL");
    let prefix = prefix();
    let stopped = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let a = task_instance(&url, &prefix, stopped.clone()).await;
    let b = task_instance(&url, &prefix, stopped).await;
    let created = modern_rpc(
        &a.1,
        "tools/call",
        "confirm",
        json!({"name": "confirm", "arguments": {}}),
    )
    .await;
    (a, b, created)
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn input_for_a_task_on_another_instance_is_refused_not_lost() {
    let ((_a_server, a), (_b_server, b), created) = confirm_on_the_first().await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let mut waiting = Value::Null;
    for _ in 0..100 {
        waiting = modern_rpc(&b, "tasks/get", &id, json!({"taskId": id})).await;
        if waiting["result"]["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(waiting["result"]["status"], "input_required", "{waiting}");
    let answer = json!({"taskId": id, "inputResponses": {"elicit-1": {"action": "accept", "content": {"ok": true}}}});
    let refused = modern_rpc(&b, "tasks/update", &id, answer.clone()).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another instance"),
        "{refused}"
    );
    // On the instance running it, the same update is taken.
    let taken = modern_rpc(&a, "tasks/update", &id, answer).await;
    assert!(taken.get("result").is_some(), "{taken}");
}

/// An instance sharing sessions and stream events through Redis, with a resource to
/// subscribe to and a `steps` tool that reports progress three times, 300 ms apart, then
/// answers.
async fn stream_instance(url: &str, prefix: &str) -> (Server, String) {
    let store = redis_store(url, prefix).await;
    let events = redis_events(url, prefix).await;
    let options = HttpOptions::default().event_store(Arc::new(events));
    let (server, app) = replica::instance_with(Arc::new(store), Duration::ZERO, options);
    add_note(&server);
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    server
        .registry()
        .add_tool(
            ferromcp::types::Tool::new("steps", schema),
            ferromcp::registry::tool_fn(|_: Value, ctx: ferromcp::Context| async move {
                for step in 1..=3 {
                    ctx.progress(f64::from(step), Some(3.0), None).await;
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                "done"
            }),
            None,
        )
        .unwrap();
    serve((server, app)).await
}

/// Two [`stream_instance`]s on one Redis and a session started on the first.
async fn two_stream_instances() -> ((Server, String), (Server, String), String, RedisEventStore) {
    let url = env("MCP_TEST_REDIS_URL");
    let prefix = prefix();
    let a = stream_instance(&url, &prefix).await;
    let b = stream_instance(&url, &prefix).await;
    let session = initialize(&a.1, None).await;
    // A look into what they share.
    let store = redis_events(&url, &prefix).await;
    (a, b, session, store)
}

/// SSE events (id, parsed data; the priming event's data is `Null`) read from `response`
/// until it ends or `wait` passes, and whether it ended.
async fn sse_events(
    response: &mut reqwest::Response,
    wait: Duration,
) -> (Vec<(String, Value)>, bool) {
    sse_events_while(response, wait, |_| true).await
}

/// The events of a stream until `done` holds for them (or the stream ends): at most 10 s,
/// for the test to fail on what was read by then.
async fn sse_events_until(
    response: &mut reqwest::Response,
    done: impl Fn(&[(String, Value)]) -> bool,
) -> (Vec<(String, Value)>, bool) {
    sse_events_while(response, Duration::from_secs(10), |events| !done(events)).await
}

async fn sse_events_while(
    response: &mut reqwest::Response,
    wait: Duration,
    more: impl Fn(&[(String, Value)]) -> bool,
) -> (Vec<(String, Value)>, bool) {
    let events = |text: &str| -> Vec<(String, Value)> {
        let whole = text.rfind("\n\n").map_or("", |end| &text[..end]);
        whole
            .split("\n\n")
            .filter_map(|event| {
                let id = event.lines().find_map(|l| l.strip_prefix("id: "))?;
                let data = event
                    .lines()
                    .find_map(|l| l.strip_prefix("data: "))
                    .filter(|d| !d.trim().is_empty())
                    .map_or(Value::Null, |d| serde_json::from_str(d).unwrap());
                Some((id.to_owned(), data))
            })
            .collect()
    };
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + wait;
    let ended = loop {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                text.push_str(std::str::from_utf8(&chunk).unwrap());
                if !more(&events(&text)) {
                    break false;
                }
            }
            Ok(Ok(None)) => break true,
            Ok(Err(e)) => panic!("the stream failed: {e}"),
            Err(_) => break false,
        }
    };
    (events(&text), ended)
}

/// A session's GET stream, resuming after `last_event_id` when given.
async fn get_stream(
    endpoint: &str,
    session: &str,
    last_event_id: Option<&str>,
) -> reqwest::Response {
    let mut get = reqwest::Client::new()
        .get(endpoint)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(id) = last_event_id {
        get = get.header("last-event-id", id);
    }
    get.send().await.unwrap()
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn a_response_stream_resumes_on_another_instance_exactly_once() {
    let ((_a_server, a), (_b_server, b), session, _) = two_stream_instances().await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "steps", "arguments": {}, "_meta": {"progressToken": "p"}}})
    .to_string();
    let mut on_a = post(&a, Some(&session), None, &call).await;
    assert_eq!(on_a.status(), StatusCode::OK);
    // The priming event and the first progress, then the client's connection drops.
    let mut seen = Vec::new();
    for _ in 0..20 {
        let (events, _) = sse_events(&mut on_a, Duration::from_millis(100)).await;
        seen.extend(events);
        if seen.iter().any(|(_, m)| m["params"]["progress"] == 1) {
            break;
        }
    }
    let (last_id, first) = seen.last().cloned().unwrap();
    assert_eq!(first["params"]["progress"], 1, "{seen:?}");
    drop(on_a);

    // Reconnecting to B: the rest of A's stream, followed as A writes it, each event once,
    // and the stream ends with the answer.
    let mut on_b = get_stream(&b, &session, Some(&last_id)).await;
    assert_eq!(on_b.status(), StatusCode::OK);
    let (events, ended) = sse_events(&mut on_b, Duration::from_secs(10)).await;
    assert!(
        ended,
        "the followed stream ends after the answer: {events:?}"
    );
    let messages: Vec<&Value> = events.iter().map(|(_, m)| m).collect();
    assert_eq!(messages.len(), 3, "{events:?}");
    assert_eq!(messages[0]["params"]["progress"], 2, "{events:?}");
    assert_eq!(messages[1]["params"]["progress"], 3, "{events:?}");
    assert_eq!(messages[2]["id"], 7, "{events:?}");
    assert_eq!(messages[2]["result"]["content"][0]["text"], "done");
    let tag = |id: &str| id.split('.').next().unwrap().to_owned();
    assert!(
        events.iter().all(|(id, _)| tag(id) == tag(&last_id)),
        "A's event ids: {events:?}"
    );

    // Resuming again from the middle replays only what came after, from the store.
    let mut again = get_stream(&b, &session, Some(&events[0].0)).await;
    let (replayed, ended) = sse_events(&mut again, Duration::from_secs(5)).await;
    assert!(ended);
    assert_eq!(
        replayed.iter().map(|(_, m)| m.clone()).collect::<Vec<_>>(),
        vec![messages[1].clone(), messages[2].clone()]
    );

    // An id naming a stream that does not exist opens a new GET stream instead.
    let unknown = format!("{}.999999.0", tag(&last_id));
    let mut fresh = get_stream(&b, &session, Some(&unknown)).await;
    let (mut events, ended) = sse_events_until(&mut fresh, |events| !events.is_empty()).await;
    assert!(!ended);
    events.extend(sse_events(&mut fresh, Duration::from_millis(300)).await.0);
    assert!(
        events.len() == 1 && events[0].1.is_null() && tag(&events[0].0) != tag(&last_id),
        "a priming event of B's own stream: {events:?}"
    );
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn a_get_stream_resumes_on_another_instance_and_goes_on_there() {
    let ((a_server, a), (b_server, b), session, store) = two_stream_instances().await;
    assert_eq!(
        post(&a, Some(&session), None, SUBSCRIBE).await.status(),
        StatusCode::OK
    );
    let mut on_a = get_stream(&a, &session, None).await;
    let mut seen = Vec::new();
    for _ in 0..50 {
        a_server.registry().notify_resource_updated("note://a");
        let (events, _) = sse_events(&mut on_a, Duration::from_millis(100)).await;
        seen.extend(events);
        if seen.iter().any(|(_, m)| !m.is_null()) {
            break;
        }
    }
    let (last_id, update) = seen.iter().rfind(|(_, m)| !m.is_null()).cloned().unwrap();
    assert_eq!(update["method"], "notifications/resources/updated");
    drop(on_a);
    // Sent while the client is away: kept by A, in memory and in Redis. (No bus here, so B's
    // copy of the session hears only B's own updates.)
    a_server.registry().notify_resource_updated("note://a");
    let mut parts = last_id.split('.');
    let (tag, stream, seq) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap().parse::<u64>().unwrap(),
    );
    let key = format!("{session}:ev:{tag}:{stream}");
    let mut written = false;
    for _ in 0..100 {
        let stored = store.read_stream(&key, seq).await.unwrap().unwrap();
        if !stored.events.is_empty() {
            written = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(written, "A never wrote the update to Redis");

    let mut on_b = get_stream(&b, &session, Some(&last_id)).await;
    assert_eq!(on_b.status(), StatusCode::OK);
    let tag = |id: &str| id.split('.').next().unwrap().to_owned();
    let (replayed, _) = sse_events_until(&mut on_b, |events| {
        events
            .iter()
            .any(|(id, m)| m.is_null() && tag(id) != tag(&last_id))
    })
    .await;
    let updates: Vec<_> = replayed.iter().filter(|(_, m)| !m.is_null()).collect();
    assert!(
        updates.len() == 1 && tag(&updates[0].0) == tag(&last_id),
        "the update A kept, replayed once: {replayed:?}"
    );
    let primed = replayed.last().unwrap();
    assert!(
        primed.1.is_null() && tag(&primed.0) != tag(&last_id),
        "then B's own stream: {replayed:?}"
    );
    // What B sends the session from now on arrives on this same connection.
    b_server.registry().notify_resource_updated("note://a");
    let (mut live, _) = sse_events_until(&mut on_b, |events| !events.is_empty()).await;
    live.extend(sse_events(&mut on_b, Duration::from_millis(300)).await.0);
    assert_eq!(live.len(), 1, "{live:?}");
    assert_eq!(live[0].1["method"], "notifications/resources/updated");
    assert_eq!(tag(&live[0].0), tag(&primed.0));
}

/// What every store that keeps streams must do, checked on `store`.
async fn stream_store_contract(store: &dyn EventStore) {
    use ferromcp::store::{MAX_STORED_EVENTS, StreamKind, StreamWrite};
    let ttl = Duration::from_secs(60);
    let key = "s:ev:t:1".to_owned();
    let event = |n: u64| {
        let mut w = StreamWrite::default();
        w.event = Some((n, format!("id: t.1.{n}\ndata: {{\"n\":{n}}}\n\n")));
        w
    };
    // A write to a stream never opened makes nothing.
    store.write_stream(&key, event(1), ttl).await.unwrap();
    assert_eq!(store.read_stream(&key, 0).await.unwrap(), None);

    let mut open = StreamWrite::default();
    open.opened = Some(StreamKind::Response);
    store.write_stream(&key, open, ttl).await.unwrap();
    let empty = store.read_stream(&key, 0).await.unwrap().unwrap();
    assert_eq!(
        (empty.kind, empty.events.len(), empty.finished),
        (StreamKind::Response, 0, false)
    );
    let total = MAX_STORED_EVENTS as u64 + 44;
    for n in 1..=total {
        store.write_stream(&key, event(n), ttl).await.unwrap();
    }
    let kept = store.read_stream(&key, 0).await.unwrap().unwrap();
    let numbers: Vec<u64> = kept.events.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        numbers,
        (45..=total).collect::<Vec<_>>(),
        "the latest, in order"
    );
    assert_eq!(kept.events[0].1, event(45).event.unwrap().1);
    let after = store.read_stream(&key, total - 2).await.unwrap().unwrap();
    assert_eq!(
        after.events.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        vec![total - 1, total]
    );
    let mut finish = StreamWrite::default();
    finish.finished = true;
    store.write_stream(&key, finish, ttl).await.unwrap();
    let done = store.read_stream(&key, total).await.unwrap().unwrap();
    assert!(done.finished && done.events.is_empty());

    let standalone = "s:ev:t:2".to_owned();
    let mut open = StreamWrite::default();
    open.opened = Some(StreamKind::Standalone);
    open.event = Some((1, "id: t.2.1\ndata: {}\n\n".into()));
    store.write_stream(&standalone, open, ttl).await.unwrap();
    let got = store.read_stream(&standalone, 0).await.unwrap().unwrap();
    assert_eq!((got.kind, got.events.len()), (StreamKind::Standalone, 1));
}

/// Opens the stream `key` in `store`, to live `ttl` without writes.
async fn open_short(store: &dyn EventStore, key: &str, ttl: Duration) {
    use ferromcp::store::{StreamKind, StreamWrite};
    let mut open = StreamWrite::default();
    open.opened = Some(StreamKind::Response);
    store.write_stream(key, open, ttl).await.unwrap();
    assert!(store.read_stream(key, 0).await.unwrap().is_some());
}

#[tokio::test(start_paused = true)]
async fn the_memory_stream_store_keeps_the_latest_events_in_order_and_expires() {
    let store = ferromcp::store::MemoryEventStore::new();
    stream_store_contract(&store).await;
    // Streams expire after their time to live without writes (tokio's clock, paused).
    open_short(&store, "s:ev:t:3", Duration::from_secs(1)).await;
    tokio::time::advance(Duration::from_millis(999)).await;
    assert!(store.read_stream("s:ev:t:3", 0).await.unwrap().is_some());
    tokio::time::advance(Duration::from_millis(1)).await;
    assert_eq!(store.read_stream("s:ev:t:3", 0).await.unwrap(), None);
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn the_redis_stream_store_keeps_the_latest_events_in_order_and_expires() {
    let url = env("MCP_TEST_REDIS_URL");
    let prefix = prefix();
    let redis = redis_events(&url, &prefix).await;
    stream_store_contract(&redis).await;
    // Streams expire after their time to live without writes.
    open_short(&redis, "s:ev:t:3", Duration::from_secs(1)).await;
    let key = format!("{prefix}s:ev:t:3");
    let held = pttl(&key).await;
    assert!(
        0 < held && held <= 1_000,
        "kept for its time to live: {held} ms"
    );
    shorten(&key, 1).await;
    assert!(
        eventually(async || redis.read_stream("s:ev:t:3", 0).await.unwrap().is_none()).await,
        "an expired stream reads as none"
    );
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn a_task_whose_instance_stops_renewing_it_fails_everywhere() {
    use ferromcp::tasks::{TaskOutcome, TaskStore};
    use ferromcp::types::TaskStatus;
    let prefix = prefix();
    let (runner, other) = task_stores_at(&prefix).await;
    // Lease: four poll intervals of 100 ms, raised to the store's minimum (2 s here; 10 s
    // by default).
    let runner = runner.with_min_lease(Duration::from_secs(2));
    let mut record = task("leased", Some("o"), Duration::from_secs(60));
    record.poll_interval = Some(Duration::from_millis(100));
    assert_eq!(record.lease(), Duration::from_millis(400));
    runner.create(record.clone()).await.unwrap();
    let lease = format!("{prefix}task-lease:leased");
    let held = pttl(&lease).await;
    assert!(0 < held && held <= 2_000, "leased on create: {held} ms");
    // Each re-read renews the lease: with half of it gone by, a renewal gives it back (the
    // time to live rises again), and the task is working all along, as seen from another
    // instance.
    for _ in 0..3 {
        shorten(&lease, 1_000).await;
        let seen = runner
            .watch("leased", record.lease())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(seen.status, TaskStatus::Working);
        let held = pttl(&lease).await;
        assert!(1_000 < held && held <= 2_000, "renewed: {held} ms");
        let elsewhere = other.get("leased").await.unwrap().unwrap();
        assert_eq!(elsewhere.status, TaskStatus::Working);
    }
    // The runner stops renewing (it died) and the lease runs out: the task reads as failed,
    // from get and from list, and stays failed.
    shorten(&lease, 1).await;
    assert!(eventually(async || pttl(&lease).await == -2).await);
    let listed = other.list(Some("o"), None, 10).await.unwrap();
    assert_eq!(listed.tasks.len(), 1);
    assert_eq!(listed.tasks[0].status, TaskStatus::Failed);
    let failed = other.get("leased").await.unwrap().unwrap();
    assert_eq!(failed.status, TaskStatus::Failed);
    match &failed.outcome {
        Some(TaskOutcome::Error(e)) => assert!(e.message.contains("stopped"), "{e:?}"),
        other => panic!("{other:?}"),
    }
    // A late end from the runner changes nothing: the first end wins.
    let mut late = record.clone();
    late.status = TaskStatus::Completed;
    late.outcome = Some(TaskOutcome::Result(json!({"content": []})));
    assert!(!runner.update(late).await.unwrap());
    let again = runner
        .watch("leased", record.lease())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.status, TaskStatus::Failed);
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn a_task_on_one_instance_is_followed_by_a_listen_stream_on_another() {
    let ((a_server, a), (_b_server, b), created) = confirm_on_the_first().await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let listen = json!({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen", "params": {
        "notifications": {"taskIds": [id], "toolsListChanged": true},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {
                      "extensions": {"io.modelcontextprotocol/tasks": {}}}}
    }});
    let mut on_b = reqwest::Client::new()
        .post(&b)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .body(listen.to_string())
        .send()
        .await
        .unwrap();
    let task_states = |events: &[Value]| -> Vec<Value> {
        events
            .iter()
            .filter(|m| m["method"] == "notifications/tasks" && m["params"]["taskId"] == id)
            .map(|m| m["params"].clone())
            .collect()
    };
    // Acknowledged on B with the task A runs, and its state now (read from Redis).
    let mut seen = read_events_until(&mut on_b, |events| !events.is_empty()).await;
    assert_eq!(
        seen[0]["params"]["notifications"]["taskIds"],
        json!([id]),
        "{seen:?}"
    );
    // Once B hears A's changes at all (its bus subscription is up)…
    seen.extend(until_heard(&a_server, &mut on_b).await);
    let before = task_states(&seen);
    // …the answer A takes ends the task there, and B's stream hears it end.
    let opened = before
        .last()
        .expect("the task's state when the stream opened");
    assert_eq!(opened["status"], "input_required", "{opened}");
    // What the task asks for is known where it runs.
    let waiting = modern_rpc(&a, "tasks/get", &id, json!({"taskId": id})).await;
    let key = waiting["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap();
    let answer = json!({"taskId": id, "inputResponses": {key.as_str(): {"action": "accept", "content": {"ok": true}}}});
    let taken = modern_rpc(&a, "tasks/update", &id, answer).await;
    assert!(taken.get("result").is_some(), "{taken}");
    let mut last = Value::Null;
    for _ in 0..30 {
        let states = task_states(&read_events(&mut on_b, Duration::from_millis(100)).await);
        if let Some(state) = states.last() {
            last = state.clone();
        }
        if last["status"] == "completed" {
            break;
        }
    }
    assert_eq!(last["status"], "completed", "{last}");
    assert_eq!(last["result"]["content"][0]["text"], "Accept", "{last}");
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn a_legacy_tasks_status_reaches_the_sessions_stream_on_another_instance() {
    let url = env("MCP_TEST_REDIS_URL");
    let prefix = prefix();
    let stopped = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (a_server, a) = task_instance(&url, &prefix, stopped.clone()).await;
    let (_b_server, b) = task_instance(&url, &prefix, stopped).await;
    let session = initialize(&a, None).await;
    // The session's GET stream is on B.
    let mut on_b = get_stream(&b, &session, None).await;
    assert_eq!(on_b.status(), StatusCode::OK);
    // Once B hears A at all (its bus subscription is up)…
    until_heard(&a_server, &mut on_b).await;
    let _ = read_events(&mut on_b, Duration::from_millis(200)).await;
    // …a task A runs for the session reports its end on the session's stream on B, once.
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "quick", "arguments": {}, "task": {"ttl": 60_000}}})
    .to_string();
    let created: Value = post(&a, Some(&session), None, &call)
        .await
        .json()
        .await
        .unwrap();
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"))
        .to_owned();
    let statuses: Vec<Value> = read_events(&mut on_b, Duration::from_secs(3))
        .await
        .into_iter()
        .filter(|m| m["method"] == "notifications/tasks/status" && m["params"]["taskId"] == id)
        .map(|m| m["params"]["status"].clone())
        .collect();
    assert_eq!(statuses, vec![json!("completed")], "{statuses:?}");
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn the_stores_connected_from_a_url_are_the_redis_ones() {
    let url = env("MCP_TEST_REDIS_URL");
    let stores = ferromcp_redis::connect(url.clone()).await.unwrap();
    // Sessions under the default prefix, seen by a store of its own.
    let id = prefix();
    let minute = Duration::from_secs(60);
    stores
        .sessions
        .save(&id, "{}".into(), minute)
        .await
        .unwrap();
    let other = RedisSessionStore::connect(&url).await.unwrap();
    assert_eq!(
        other.load(&id, minute).await.unwrap().as_deref(),
        Some("{}")
    );
    stores.sessions.remove(&id).await.unwrap();
    // Tasks shared between instances.
    assert!(ferromcp::store::TaskStore::shared(&stores.tasks));
}

#[tokio::test]
async fn a_url_that_is_not_redis_is_refused_before_connecting() {
    let error = ferromcp_redis::connect("http://127.0.0.1:1".into())
        .await
        .unwrap_err();
    assert!(
        matches!(error, ferromcp_redis::ConnectError::Url(_)),
        "{error:?}"
    );
}
