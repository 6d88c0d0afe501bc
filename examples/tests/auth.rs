//! `sql-explorer --auth-issuer` and `everything --auth-issuer`: the binaries as OAuth
//! resource servers, against the test authorization server: those tests are `#[ignore]`d, and
//! run with `--include-ignored` after eval "$(scripts/auth-server.sh start)" (`scripts/test.sh`
//! does), which exports `MCP_AUTH_ISSUER`; without it they fail.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

// The binary's module, for its argument parser (the rest is unused here).
#[path = "../src/bin/sql-explorer.rs"]
#[allow(dead_code, unused_imports)]
mod sql_explorer;

/// `MCP_AUTH_ISSUER`, which `scripts/auth-server.sh start` exports; the tests that need it
/// are `#[ignore]`d, so running one without it is a mistake to report, not to pass.
fn issuer() -> String {
    match std::env::var("MCP_AUTH_ISSUER") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!("MCP_AUTH_ISSUER is not set: eval \"$(scripts/auth-server.sh start)\" first"),
    }
}

#[test]
fn the_auth_flags_need_http_and_each_other() {
    use clap::Parser as _;
    let parse = |a: &[&str]| {
        sql_explorer::Args::try_parse_from(std::iter::once("sql-explorer").chain(a.iter().copied()))
            .map_err(|e| e.to_string())
    };
    parse(&[
        "--http",
        "127.0.0.1:0",
        "--auth-issuer",
        "https://as.example.com",
    ])
    .unwrap();
    assert!(
        parse(&["--auth-issuer", "https://as.example.com"])
            .unwrap_err()
            .contains("--http")
    );
    assert!(
        parse(&["--http", "127.0.0.1:0", "--auth-audience", "https://x"])
            .unwrap_err()
            .contains("--auth-issuer")
    );
}

/// A client-credentials token from the authorization server.
async fn token(issuer: &str, client: (&str, &str), scope: &str, resource: &str) -> String {
    let answer: Value = reqwest::Client::new()
        .post(format!("{issuer}/token"))
        .basic_auth(client.0, Some(client.1))
        .form(&[
            ("grant_type", "client_credentials"),
            ("scope", scope),
            ("resource", resource),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_owned()
}

async fn rpc(
    url: &str,
    token: Option<&str>,
    session: Option<&str>,
    body: Value,
) -> (u16, reqwest::header::HeaderMap, String) {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .json(&body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if let Some(s) = session {
        req = req
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let r = req.send().await.unwrap();
    let (status, headers) = (r.status().as_u16(), r.headers().clone());
    (status, headers, r.text().await.unwrap())
}

fn init() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

async fn session(url: &str, token: &str) -> String {
    let (status, headers, body) = rpc(url, Some(token), None, init()).await;
    assert_eq!(status, 200, "{body}");
    headers["mcp-session-id"].to_str().unwrap().to_owned()
}

#[tokio::test]
#[ignore = "needs the authorization server: eval \"$(scripts/auth-server.sh start)\""]
async fn with_an_issuer_every_request_needs_its_token_and_query_needs_sql_query() {
    let issuer = issuer();
    let dir = std::env::temp_dir().join(format!("sql-explorer-auth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_sql-explorer"))
        .current_dir(&dir)
        .args(["--http", "127.0.0.1:0", "--auth-issuer", &issuer])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let url = first
        .strip_prefix("sql-explorer: MCP over Streamable HTTP at ")
        .unwrap()
        .to_owned();
    let origin = url.strip_suffix("/mcp").unwrap();

    let metadata: Value =
        reqwest::get(format!("{origin}/.well-known/oauth-protected-resource/mcp"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(metadata["resource"], url);
    assert_eq!(metadata["authorization_servers"], json!([issuer]));
    assert_eq!(metadata["scopes_supported"], json!(["sql:query"]));

    let (status, headers, _) = rpc(&url, None, None, init()).await;
    assert_eq!(status, 401);
    let challenge = headers["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains(&format!(
        "resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\""
    )));

    let query = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "query", "arguments": {"sql": "SELECT 1 AS one"}}});
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});

    let analyst = token(&issuer, ("mcp-full", "full-secret"), "sql:query", &url).await;
    let id = session(&url, &analyst).await;
    let (_, _, body) = rpc(&url, Some(&analyst), Some(&id), list.clone()).await;
    assert!(body.contains("\"query\""), "{body}");
    let (status, _, body) = rpc(&url, Some(&analyst), Some(&id), query.clone()).await;
    assert_eq!(status, 200);
    assert!(
        body.contains("\"one\"") && !body.contains("\"isError\":true"),
        "{body}"
    );

    let viewer = token(&issuer, ("mcp-basic", "basic-secret"), "mcp", &url).await;
    let id = session(&url, &viewer).await;
    let (_, _, body) = rpc(&url, Some(&viewer), Some(&id), list).await;
    assert!(
        !body.contains("\"query\"") && body.contains("list_tables"),
        "{body}"
    );
    let (status, headers, _) = rpc(&url, Some(&viewer), Some(&id), query).await;
    assert_eq!(status, 403);
    assert!(
        headers["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer error=\"insufficient_scope\", scope=\"sql:query\"")
    );

    let elsewhere = token(
        &issuer,
        ("mcp-full", "full-secret"),
        "sql:query",
        "http://127.0.0.1:1/mcp",
    )
    .await;
    let (status, _, _) = rpc(&url, Some(&elsewhere), None, init()).await;
    assert_eq!(status, 401, "a token for another resource");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
#[ignore = "needs the authorization server: eval \"$(scripts/auth-server.sh start)\""]
async fn everything_with_an_issuer_takes_any_scope() {
    let issuer = issuer();
    // A free port: the audience is derived from the address given.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let url = format!("http://{addr}/mcp");
    let _child = tokio::process::Command::new(env!("CARGO_BIN_EXE_everything"))
        .args(["--http", &addr, "--auth-issuer", &issuer])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while tokio::net::TcpStream::connect(&addr).await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "everything did not listen"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, headers, _) = rpc(&url, None, None, init()).await;
    assert_eq!(status, 401);
    assert!(
        headers["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("resource_metadata=")
    );
    let viewer = token(&issuer, ("mcp-basic", "basic-secret"), "mcp", &url).await;
    let id = session(&url, &viewer).await;
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let (status, _, body) = rpc(&url, Some(&viewer), Some(&id), list).await;
    assert_eq!(status, 200);
    assert!(body.contains("test_simple_text"), "{body}");
}
