//! Two replicas of `everything --http … --redis URL` sharing one real Redis and one
//! `FERROMCP_REQUEST_STATE_KEYS`, as behind a load balancer with no stickiness: a legacy session
//! minted on one continues on the other, a 2026 multi round-trip request started on one
//! completes on the other, and a task whose replica is killed fails on the other.
//!
//! Needs `MCP_TEST_REDIS_URL`, so the tests are `#[ignore]`d: run them with
//! `--include-ignored` after eval "$(scripts/redis.sh start)" (`scripts/test.sh` does).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Stdio;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// Bound on anything that should happen soon: a hang fails instead of blocking CI.
const SOON: Duration = Duration::from_secs(30);
/// Two keys: a new one that seals, and an old one still accepted (rotation).
const KEYS: &str = "\
    1111111111111111111111111111111111111111111111111111111111111111,\
    2222222222222222222222222222222222222222222222222222222222222222";

/// `MCP_TEST_REDIS_URL`, which `scripts/redis.sh start` exports; the tests that need it are
/// `#[ignore]`d, so running one without it is a mistake to report, not to pass.
fn redis_url() -> String {
    match std::env::var("MCP_TEST_REDIS_URL") {
        Ok(v) if !v.is_empty() => v,
        _ => panic!("MCP_TEST_REDIS_URL is not set: eval \"$(scripts/redis.sh start)\" first"),
    }
}

/// A plain connection to the replicas' Redis, to see and move the leases they keep there.
async fn raw(redis: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(redis)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

/// The time to live Redis holds for `key`, in ms (negative: none, or no such key).
async fn pttl(redis: &str, key: &str) -> i64 {
    redis::cmd("PTTL")
        .arg(key)
        .query_async(&mut raw(redis).await)
        .await
        .unwrap()
}

/// Leaves `key` `ms` milliseconds to live, as if the rest of its time had gone by.
async fn pexpire(redis: &str, key: &str, ms: u64) {
    let set: i64 = redis::cmd("PEXPIRE")
        .arg(key)
        .arg(ms)
        .query_async(&mut raw(redis).await)
        .await
        .unwrap();
    assert_eq!(set, 1, "{key} exists");
}

/// A replica on a free loopback port: the process, and its `/mcp` URL.
async fn replica(redis: &str, keys: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_everything"))
        .args(["--http", "127.0.0.1:0", "--redis", redis])
        .env("RUST_LOG", "info")
        .env("FERROMCP_REQUEST_STATE_KEYS", keys)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut log = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(SOON, async {
        while let Some(line) = log.next_line().await.unwrap() {
            if let Some(rest) = line.split("http://").nth(1) {
                let addr = rest.split("/mcp").next().unwrap();
                return format!("http://{addr}/mcp");
            }
        }
        panic!("the replica exited without serving");
    })
    .await
    .expect("the replica announces its URL");
    // Keep draining its log so it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = log.next_line().await {} });
    (child, url)
}

async fn legacy(url: &str, session: Option<&str>, body: Value) -> reqwest::Response {
    let mut b = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .timeout(SOON)
        .body(body.to_string());
    if let Some(id) = session {
        b = b.header("mcp-session-id", id);
    }
    b.send().await.unwrap()
}

async fn modern(url: &str, name: &str, params: Value) -> Value {
    let mut params = params;
    params["name"] = json!(name);
    modern_rpc(url, "tools/call", name, params).await
}

/// A 2026 request (`Mcp-Name: name`) from a client that takes elicitation and tasks.
async fn modern_rpc(url: &str, method: &str, name: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .timeout(SOON)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn a_legacy_session_moves_between_replicas_and_ends_on_both() {
    let redis = redis_url();
    let (_a, a) = replica(&redis, KEYS).await;
    let (_b, b) = replica(&redis, KEYS).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "replicas-test", "version": "1"}}});
    let response = legacy(&a, None, init).await;
    assert_eq!(response.status(), StatusCode::OK);
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        legacy(&b, Some(&id), initialized).await.status(),
        StatusCode::ACCEPTED
    );
    // Every request alternates replicas, as a round-robin balancer sends them.
    for (i, url) in [&b, &a, &b, &a].into_iter().enumerate() {
        let call = json!({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
            "params": {"name": "test_simple_text", "arguments": {}}});
        let response = legacy(url, Some(&id), call).await;
        assert_eq!(response.status(), StatusCode::OK, "request {i}");
        let body: Value = response.json().await.unwrap();
        assert!(body["result"]["content"][0]["text"].is_string(), "{body}");
    }
    let subscribe = json!({"jsonrpc": "2.0", "id": 20, "method": "resources/subscribe",
        "params": {"uri": "test://watched-resource"}});
    assert_eq!(
        legacy(&b, Some(&id), subscribe).await.status(),
        StatusCode::OK
    );
    let response = reqwest::Client::new()
        .delete(&b)
        .header("mcp-session-id", &id)
        .timeout(SOON)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    // A held its copy: it sees the DELETE once it rechecks the store (every second by
    // default; in another process, so asked until it answers so, within `SOON`).
    let ping = json!({"jsonrpc": "2.0", "id": 30, "method": "ping"});
    let gone = tokio::time::timeout(SOON, async {
        while legacy(&a, Some(&id), ping.clone()).await.status() != StatusCode::NOT_FOUND {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(gone.is_ok(), "A never saw the session ended");
    assert_eq!(
        legacy(&b, Some(&id), ping).await.status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn a_multi_round_trip_request_started_on_one_replica_completes_on_another() {
    let redis = redis_url();
    let (_a, a) = replica(&redis, KEYS).await;
    // B was given the keys in another order: what A sealed with its first key, B opens
    // with its second (a rotation in progress).
    let reversed: String = KEYS.split(',').rev().collect::<Vec<_>>().join(",");
    let (_b, b) = replica(&redis, &reversed).await;
    let (_c, c) = replica(
        &redis,
        "3333333333333333333333333333333333333333333333333333333333333333",
    )
    .await;
    let first = modern(&a, "test_input_required_result_elicitation", json!({})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let answers = json!({"user_name": {"action": "accept", "content": {"name": "Ana"}}});
    let second = modern(
        &b,
        "test_input_required_result_elicitation",
        json!({"requestState": state, "inputResponses": answers}),
    )
    .await;
    assert_eq!(
        second["result"]["content"][0]["text"], "Hello, Ana!",
        "{second}"
    );
    // A replica with other keys refuses the state.
    let refused = modern(
        &c,
        "test_input_required_result_elicitation",
        json!({"requestState": state, "inputResponses": answers}),
    )
    .await;
    assert!(refused["error"].is_object(), "{refused}");
}

#[tokio::test]
#[ignore = "needs Redis: eval \"$(scripts/redis.sh start)\""]
async fn a_task_whose_replica_is_killed_fails_on_the_other() {
    let redis = redis_url();
    let (mut a, a_url) = replica(&redis, KEYS).await;
    let (_b, b_url) = replica(&redis, KEYS).await;
    let started = modern(
        &a_url,
        "slow_compute",
        json!({"arguments": {"seconds": 600}}),
    )
    .await;
    assert_eq!(started["result"]["resultType"], "task", "{started}");
    let id = started["result"]["taskId"].as_str().unwrap().to_owned();
    let get = || modern_rpc(&b_url, "tasks/get", &id, json!({"taskId": id}));
    // Seen from B while A runs it (and renews its lease): working.
    for _ in 0..6 {
        let seen = get().await;
        assert_eq!(seen["result"]["status"], "working", "{seen}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    // A renews the lease (`mcp:task-lease:<id>`, the default prefix, for at least 10 s, the
    // store's minimum): with half of it gone by, it rises again.
    let lease = format!("mcp:task-lease:{id}");
    let held = pttl(&redis, &lease).await;
    assert!(0 < held && held <= 10_000, "leased: {held} ms");
    pexpire(&redis, &lease, 5_000).await;
    let mut renewed = false;
    for _ in 0..120 {
        if pttl(&redis, &lease).await > 5_000 {
            renewed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(renewed, "A renews the lease of the task it runs");
    a.kill().await.unwrap();
    // A is gone with the computation and renews nothing: once its lease runs out (left 1 ms
    // to live here, as if the rest had gone by), B reports the task failed.
    pexpire(&redis, &lease, 1).await;
    let mut seen = Value::Null;
    for _ in 0..200 {
        seen = get().await;
        if seen["result"]["status"] != "working" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(seen["result"]["status"], "failed", "{seen}");
    let error = seen["result"]["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(error.contains("stopped"), "{seen}");
}
