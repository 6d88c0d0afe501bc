//! Keeps the README honest: its first Rust block is the quickstart's source, and every shell
//! command in it is run here (the examples' `cargo run` commands, as the built binaries with
//! the README's arguments) or is the test command itself (`scripts/test.sh`, what CI runs).
//! A command added to the README without a test here fails `every_shell_command_is_covered`.
//!
//! The HTTP commands are run with port 0 in place of the README's 8080 (the OS picks a free
//! port, so a busy 8080 or a parallel test cannot interfere); the rest of each command is
//! checked verbatim.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

const README: &str = include_str!("../../README.md");
const QUICKSTART: &str = include_str!("../src/bin/quickstart.rs");

const SQL_EXPLORER_HTTP: &str =
    "cargo run -p mcp-examples --bin sql-explorer -- --http 127.0.0.1:8080";
const QUICKSTART_STDIO: &str = "cargo run -p mcp-examples --bin quickstart";
const QUICKSTART_HTTP: &str = "cargo run -p mcp-examples --bin quickstart -- --http 127.0.0.1:8080";
/// Runs everything, this test included; CI runs it (`.ci/run`).
const TEST_SCRIPT: &str = "scripts/test.sh";

/// The README's address, and what the HTTP tests listen on instead.
const README_ADDR: &str = "127.0.0.1:8080";
const TEST_ADDR: &str = "127.0.0.1:0";

/// Where the sql-explorer excerpt in the README says a checkout is.
const README_CHECKOUT: &str = "/path/to/mcp-rust-sdk";

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"readme","version":"1"}}}"#;

/// The README's fenced blocks, in order: (info string, body).
fn fences() -> Vec<(&'static str, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(&str, String)> = None;
    for line in README.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim(), String::new())),
            (Some(_), Some("")) => blocks.push(open.take().unwrap()),
            (Some((_, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a fence is not closed");
    blocks
}

/// Every line of the README's shell blocks.
fn shell_commands() -> Vec<String> {
    fences()
        .into_iter()
        .filter(|(info, _)| matches!(*info, "sh" | "bash" | "shell" | "console"))
        .flat_map(|(_, body)| body.lines().map(str::to_owned).collect::<Vec<_>>())
        .filter(|line| !line.trim().is_empty())
        .collect()
}

/// The arguments a README command passes to the example, with the test's address in place
/// of the README's.
fn example_args(command: &str, bin: &str) -> Vec<String> {
    assert!(
        shell_commands().iter().any(|c| c == command),
        "the README no longer runs `{command}`: update this test"
    );
    let rest = command
        .strip_prefix(&format!("cargo run -p mcp-examples --bin {bin}"))
        .unwrap();
    let args = match rest.strip_prefix(" -- ") {
        Some(args) => args.split(' ').collect(),
        None => {
            assert_eq!(rest, "");
            Vec::new()
        }
    };
    args.into_iter()
        .map(|a| if a == README_ADDR { TEST_ADDR } else { a }.to_owned())
        .collect()
}

#[test]
fn first_rust_block_is_the_quickstart() {
    let (_, body) = fences()
        .into_iter()
        .find(|(info, _)| info.split(',').next() == Some("rust"))
        .expect("the README has a Rust block");
    assert!(
        body == QUICKSTART,
        "the README's first Rust block differs from examples/src/bin/quickstart.rs"
    );
}

#[test]
fn every_shell_command_is_covered() {
    let covered = [
        SQL_EXPLORER_HTTP,
        QUICKSTART_STDIO,
        QUICKSTART_HTTP,
        TEST_SCRIPT,
    ];
    let commands = shell_commands();
    for command in &commands {
        assert!(
            covered.contains(&command.as_str()),
            "`{command}` is in the README but no test runs it: add one to examples/tests/readme.rs"
        );
    }
    for command in covered {
        assert!(
            commands.iter().any(|c| c == command),
            "`{command}` is no longer in the README"
        );
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(ci.contains(TEST_SCRIPT), "CI runs {TEST_SCRIPT}");
    let script = std::fs::read_to_string(root.join(TEST_SCRIPT)).unwrap();
    assert!(
        script.contains("cargo test --workspace"),
        "{TEST_SCRIPT} runs this test"
    );
}

/// A directory under the system's temp dir, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("readme-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn spawn(bin: &str, args: &[String], dir: &Path) -> Child {
    Command::new(bin)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

/// Reads `lines` until `done` says the line it was given is the last one, or for 60 s.
async fn read_until(
    lines: &mut tokio::io::Lines<BufReader<impl tokio::io::AsyncRead + Unpin>>,
    done: impl Fn(&str) -> bool,
) -> String {
    tokio::time::timeout(Duration::from_secs(60), async {
        let mut read = String::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            read.push_str(&line);
            read.push('\n');
            if done(&line) {
                return read;
            }
        }
        panic!("the output ended first: {read}");
    })
    .await
    .unwrap()
}

/// One JSON-RPC POST to an MCP endpoint; returns the session id the server set, if any, and
/// the JSON body.
async fn post(url: &str, session: Option<&str>, body: &str) -> (Option<String>, Value) {
    let authority = url
        .strip_prefix("http://")
        .and_then(|u| u.strip_suffix("/mcp"))
        .unwrap();
    let mut stream = tokio::net::TcpStream::connect(authority).await.unwrap();
    let session = session.map_or(String::new(), |id| {
        format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n")
    });
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{session}\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{response}"
    );
    let session = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_owned())
    });
    (session, serde_json::from_str(body).unwrap())
}

/// Initializes a 2025-11-25 session at `url` and calls `tool` in it.
async fn initialize_and_call(url: &str, server: &str, tool: &str, arguments: Value) -> Value {
    let (session, reply) = post(url, None, INITIALIZE).await;
    assert_eq!(reply["result"]["serverInfo"]["name"], server, "{reply}");
    let session = session.expect("a legacy session id");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}});
    let (_, reply) = post(url, Some(&session), &call.to_string()).await;
    reply["result"].clone()
}

/// The sql-explorer command: in an empty directory it creates the sample database, prints
/// exactly the connect block the README shows (up to the port and the paths), and answers
/// `query` at the URL it printed.
#[tokio::test]
async fn sql_explorer_command_prints_the_readme_block_and_serves() {
    let args = example_args(SQL_EXPLORER_HTTP, "sql-explorer");
    let scratch = Scratch::new("sql-explorer");
    let bin = env!("CARGO_BIN_EXE_sql-explorer");
    let mut child = spawn(bin, &args, &scratch.0);
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let printed = read_until(&mut stdout, |l| {
        l.starts_with("  npx @modelcontextprotocol/inspector ")
    })
    .await;
    let url = printed
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("sql-explorer: MCP over Streamable HTTP at "))
        .unwrap()
        .to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );

    let database = scratch
        .0
        .join("sql-explorer.sqlite")
        .canonicalize()
        .unwrap();
    let binary = Path::new(bin).canonicalize().unwrap();
    let as_in_readme = printed
        .replace(&url, &format!("http://{README_ADDR}/mcp"))
        .replace(
            &database.display().to_string(),
            &format!("{README_CHECKOUT}/sql-explorer.sqlite"),
        )
        .replace(
            &binary.display().to_string(),
            &format!("{README_CHECKOUT}/target/debug/sql-explorer"),
        );
    let blocks = fences();
    let command_block = blocks
        .iter()
        .position(|(_, body)| body.lines().any(|l| l == SQL_EXPLORER_HTTP))
        .unwrap();
    let (info, shown) = &blocks[command_block + 1];
    assert_eq!(*info, "text", "the printed block follows the command");
    assert_eq!(
        *shown, as_in_readme,
        "the README shows what sql-explorer prints"
    );

    let result = initialize_and_call(
        &url,
        "sql-explorer",
        "query",
        json!({"sql": "SELECT name FROM customers WHERE id = ?", "params": [1]}),
    )
    .await;
    assert_eq!(
        result["structuredContent"]["columns"],
        json!(["name"]),
        "{result}"
    );
    assert_eq!(result["structuredContent"]["row_count"], 1, "{result}");
    child.kill().await.unwrap();
}

#[tokio::test]
async fn quickstart_command_serves_stdio() {
    let args = example_args(QUICKSTART_STDIO, "quickstart");
    let scratch = Scratch::new("quickstart-stdio");
    let mut child = spawn(env!("CARGO_BIN_EXE_quickstart"), &args, &scratch.0);
    let mut stdin = child.stdin.take().unwrap();
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}"#;
    stdin
        .write_all(format!("{INITIALIZE}\n{call}\n").as_bytes())
        .await
        .unwrap();
    drop(stdin);
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let replies = read_until(&mut stdout, |l| l.contains(r#""id":2"#)).await;
    let replies: Vec<Value> = replies
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies[0]["result"]["serverInfo"]["name"], "quickstart");
    assert_eq!(replies[1]["result"]["content"][0]["text"], "42");
    assert!(child.wait().await.unwrap().success());
}

/// `--http`: the quickstart logs the URL it serves (on stderr: stdout is the protocol's) and
/// answers there.
#[tokio::test]
async fn quickstart_command_serves_http() {
    let args = example_args(QUICKSTART_HTTP, "quickstart");
    let scratch = Scratch::new("quickstart-http");
    let mut child = spawn(env!("CARGO_BIN_EXE_quickstart"), &args, &scratch.0);
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = read_until(&mut stderr, |l| l.contains("http://127.0.0.1:")).await;
    let line = line.lines().last().unwrap();
    let url = line[line.find("http://").unwrap()..]
        .split_whitespace()
        .next()
        .unwrap();
    let result = initialize_and_call(url, "quickstart", "add", json!({"a": 2, "b": 40})).await;
    assert_eq!(result["content"][0]["text"], "42", "{result}");
    child.kill().await.unwrap();
}
