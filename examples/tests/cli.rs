//! Every example binary's command line, as `ferromcp::run` reads it: `--help` and
//! `--version` exit 0 on stdout, an unknown flag is one line on stderr and exit 2; the
//! quickstart serves stdio with no argument and Streamable HTTP with `--http`; the
//! environment's settings are checked before serving.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

/// Every example binary, with the name `--version` gives.
const BINARIES: [(&str, &str); 5] = [
    (env!("CARGO_BIN_EXE_quickstart"), "quickstart"),
    (env!("CARGO_BIN_EXE_showcase"), "showcase"),
    (env!("CARGO_BIN_EXE_filesystem"), "filesystem"),
    (env!("CARGO_BIN_EXE_sql-explorer"), "sql-explorer"),
    (env!("CARGO_BIN_EXE_everything"), "mcp-rust-sdk-everything"),
];

const SOON: Duration = Duration::from_secs(60);

/// Runs `bin` with `args` and no stdin, to its end.
async fn output(bin: &str, args: &[&str]) -> Output {
    let run = Command::new(bin)
        .args(args)
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    tokio::time::timeout(SOON, run)
        .await
        .expect("ends at once")
        .unwrap()
}

#[tokio::test]
async fn help_is_usage_on_stdout_and_exit_0() {
    for (bin, _) in BINARIES {
        for flag in ["--help", "-h"] {
            let run = output(bin, &[flag]).await;
            assert_eq!(run.status.code(), Some(0), "{bin} {flag}");
            let stdout = String::from_utf8(run.stdout).unwrap();
            assert!(stdout.contains("Usage: "), "{bin} {flag}: {stdout}");
            assert!(stdout.contains("--http <ADDR>"), "{bin} {flag}: {stdout}");
            assert!(run.stderr.is_empty(), "{bin} {flag}");
        }
    }
}

#[tokio::test]
async fn version_is_the_name_and_version_and_exit_0() {
    for (bin, name) in BINARIES {
        let run = output(bin, &["--version"]).await;
        assert_eq!(run.status.code(), Some(0), "{bin}");
        let stdout = String::from_utf8(run.stdout).unwrap();
        let (printed, version) = stdout.trim_end().split_once(' ').unwrap();
        assert_eq!(printed, name);
        // The server's version: the package's, unless `#[server(version)]` says another.
        let expected = if name == "mcp-rust-sdk-everything" {
            "1.0.0"
        } else {
            env!("CARGO_PKG_VERSION")
        };
        assert_eq!(version, expected, "{bin}");
    }
}

/// A wrong command line is refused before anything is served: one line on stderr naming
/// the mistake, exit 2, nothing on stdout.
#[tokio::test]
async fn a_wrong_command_line_is_one_line_and_exit_2() {
    for (bin, _) in BINARIES {
        for (args, says) in [
            (&["--foo"][..], "unexpected argument '--foo'"),
            (&["--http"], "a value is required for '--http <ADDR>'"),
            (&["--redis", "redis://127.0.0.1:1"], "--http <ADDR>"),
        ] {
            let run = output(bin, args).await;
            assert_eq!(run.status.code(), Some(2), "{bin} {args:?}");
            let stderr = String::from_utf8(run.stderr).unwrap();
            assert_eq!(stderr.lines().count(), 1, "{bin} {args:?}: {stderr}");
            assert!(stderr.starts_with("error: "), "{bin} {args:?}: {stderr}");
            assert!(stderr.contains(says), "{bin} {args:?}: {stderr}");
            assert!(
                stderr.ends_with("; try '--help'\n"),
                "{bin} {args:?}: {stderr}"
            );
            assert!(run.stdout.is_empty(), "{bin} {args:?}");
        }
    }
}

/// The examples' own flags: their values are checked by the parser too.
#[tokio::test]
async fn the_examples_own_flags_are_checked() {
    let sql = env!("CARGO_BIN_EXE_sql-explorer");
    let fs = env!("CARGO_BIN_EXE_filesystem");
    let missing = std::env::temp_dir().join("mcp-cli-test-no-such-dir");
    let missing = missing.to_str().unwrap();
    for (bin, args, says) in [
        (sql, &["--max-rows", "0"][..], "1 to 10000"),
        (
            sql,
            &["--database", "a", "--database-url", "b"],
            "cannot be used with",
        ),
        (
            sql,
            &["--auth-audience", "https://x"],
            "--auth-issuer <URL>",
        ),
        (fs, &[], "<ROOT>"),
        (fs, &[missing], missing),
    ] {
        let run = output(bin, args).await;
        assert_eq!(run.status.code(), Some(2), "{bin} {args:?}");
        let stderr = String::from_utf8(run.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{bin} {args:?}: {stderr}");
        assert!(stderr.contains(says), "{bin} {args:?}: {stderr}");
    }
}

/// An unusable `FERROMCP_REQUEST_STATE_KEYS` stops the server before it serves, with one
/// line naming the variable and exit 1.
#[tokio::test]
async fn bad_request_state_keys_are_refused_by_name() {
    for (bin, _) in BINARIES {
        for (keys, says) in [("zz", "key 1 is not hex"), ("abcd", "at least 32 bytes")] {
            let mut command = Command::new(bin);
            if bin.ends_with("filesystem") {
                command.arg(std::env::temp_dir());
            }
            let run = command
                .env("FERROMCP_REQUEST_STATE_KEYS", keys)
                .env("RUST_LOG", "off")
                .stdin(Stdio::null())
                .kill_on_drop(true)
                .output();
            let run = tokio::time::timeout(SOON, run).await.unwrap().unwrap();
            assert_eq!(run.status.code(), Some(1), "{bin} {keys}");
            let stderr = String::from_utf8(run.stderr).unwrap();
            assert_eq!(stderr.lines().count(), 1, "{bin}: {stderr}");
            assert!(
                stderr.starts_with("error: FERROMCP_REQUEST_STATE_KEYS: "),
                "{bin}: {stderr}"
            );
            assert!(stderr.contains(says), "{bin}: {stderr}");
        }
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// No arguments: stdio. An initialize and a tools/list are answered on stdout, and with
/// `RUST_LOG=ferromcp=debug` each request is one line on stderr.
#[tokio::test]
async fn quickstart_serves_stdio_without_arguments() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .env("RUST_LOG", "ferromcp=debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = [
        INITIALIZE,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}"#,
    ];
    stdin
        .write_all((lines.join("\n") + "\n").as_bytes())
        .await
        .unwrap();
    drop(stdin);
    let (mut stdout, mut stderr) = (String::new(), String::new());
    let (out, err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    tokio::time::timeout(SOON, async {
        BufReader::new(out)
            .read_to_string(&mut stdout)
            .await
            .unwrap();
        BufReader::new(err)
            .read_to_string(&mut stderr)
            .await
            .unwrap();
    })
    .await
    .expect("stdin closed: the server ends");
    assert!(child.wait().await.unwrap().success());
    let replies: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies.len(), 3, "{stdout}");
    assert_eq!(replies[0]["result"]["serverInfo"]["name"], "quickstart");
    let tools = replies[1]["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "add"), "{tools:?}");
    let events: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("ferromcp::request"))
        .collect();
    assert_eq!(events.len(), 3, "one event per request: {stderr}");
    assert!(
        events[2].contains("method=tools/call")
            && events[2].contains("name=\"add\"")
            && events[2].contains("outcome=\"ok\""),
        "{}",
        events[2]
    );
}

/// `--http 127.0.0.1:0`: the URL (with the real port) is the first line on stderr, how to
/// connect clients is on stdout, and an initialize POSTed there is answered.
#[tokio::test]
async fn quickstart_serves_http_where_it_says() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = tokio::time::timeout(SOON, stderr.next_line())
        .await
        .expect("the server announces itself")
        .unwrap()
        .unwrap();
    let url = first
        .strip_prefix("MCP server listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {first}"))
        .to_owned();
    let addr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap();
    assert!(!addr.ends_with(":0"), "the real port: {addr}");
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let heading = tokio::time::timeout(SOON, stdout.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(
        heading,
        format!("quickstart: MCP over Streamable HTTP at {url}")
    );

    let response = reqwest::Client::new()
        .post(&url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body = response.text().await.unwrap();
    assert!(body.contains(r#""name":"quickstart""#), "{body}");
    child.kill().await.unwrap();
}

/// With `--http`, `FERROMCP_REDIS_URL` is the Redis replicas share, as `--redis` would be:
/// one that cannot be reached stops the server with one line naming it, and exit 1.
#[tokio::test]
async fn the_redis_url_comes_from_the_environment() {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let url = "redis://127.0.0.1:1";
    let run = Command::new(env!("CARGO_BIN_EXE_everything"))
        .args(["--http", "127.0.0.1:0"])
        .env("FERROMCP_REDIS_URL", url)
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let run = tokio::time::timeout(SOON, run).await.unwrap().unwrap();
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("error: redis at {url}: ")),
        "{stderr}"
    );
}

/// `--redis` to a program whose runner has no shared stores (the quickstart: plain
/// `ferromcp::run`) is refused before serving: one line naming the fix, exit 2.
#[tokio::test]
async fn redis_without_shared_stores_is_one_line_and_exit_2() {
    let quickstart = env!("CARGO_BIN_EXE_quickstart");
    let args = ["--http", "127.0.0.1:0", "--redis", "redis://127.0.0.1:1"];
    let run = output(quickstart, &args).await;
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: --redis") && stderr.contains("ferromcp_redis::connect"),
        "{stderr}"
    );
    assert!(run.stdout.is_empty());
}
