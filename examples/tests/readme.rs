//! Keeps the README honest. Its server ends in `fn main() { ferromcp::run(…) }`, as the
//! quickstart example does, so each `cargo run` command the README gives is run here as the
//! quickstart binary with the same arguments; and the HTTP snippets of its table of clients
//! are the ones `--http` prints. A command added to the README without a test here fails
//! `every_shell_command_is_covered`. (The README's Rust block itself is compiled as a doctest,
//! in `ferromcp`'s `mod guide`.)
//!
//! The HTTP command is run with port 0 in place of the README's 8080 (the OS picks a free
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
const CONTRIBUTING: &str = include_str!("../../CONTRIBUTING.md");
const QUICKSTART: &str = include_str!("../src/bin/quickstart.rs");

const RUN_STDIO: &str = "cargo run";
const RUN_HTTP: &str = "cargo run -- --http 127.0.0.1:8080";
const RUN_HELP: &str = "cargo run -- --help";
/// Runs everything, this test included; CI runs it (`.ci/run`).
const TEST_SCRIPT: &str = "scripts/test.sh";

/// The README's address, and what the HTTP tests listen on instead.
const README_ADDR: &str = "127.0.0.1:8080";
const TEST_ADDR: &str = "127.0.0.1:0";
/// The name of the README's server, and of the quickstart, which stands in for it.
const README_NAME: &str = "text-tools";
const QUICKSTART_NAME: &str = "quickstart";

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"readme","version":"1"}}}"#;

/// The fenced blocks of `text`, in order: (info string, body).
fn fences(text: &str) -> Vec<(&str, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(&str, String)> = None;
    for line in text.lines() {
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

/// Every command of the shell blocks of `text`, without its trailing `# comment`.
fn shell_commands(text: &str) -> Vec<String> {
    fences(text)
        .into_iter()
        .filter(|(info, _)| matches!(*info, "sh" | "bash" | "shell" | "console"))
        .flat_map(|(_, body)| body.lines().map(str::to_owned).collect::<Vec<_>>())
        .map(|line| match line.find(" #") {
            Some(at) => line[..at].trim_end().to_owned(),
            None => line.trim_end().to_owned(),
        })
        .filter(|line| !line.trim().is_empty())
        .collect()
}

/// The arguments a README `cargo run` command passes to the server, with the test's address
/// in place of the README's.
fn run_args(command: &str) -> Vec<String> {
    assert!(
        shell_commands(README).iter().any(|c| c == command),
        "the README no longer runs `{command}`: update this test"
    );
    let rest = command.strip_prefix(RUN_STDIO).unwrap();
    let args: Vec<&str> = match rest.strip_prefix(" -- ") {
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

/// The quickstart stands in for the README's server only while both are one call to
/// `ferromcp::run`, which is what decides how the command line is served.
#[test]
fn the_readme_server_and_the_quickstart_are_both_served_by_run() {
    let (_, body) = fences(README)
        .into_iter()
        .find(|(info, _)| info.split(',').next() == Some("rust"))
        .expect("the README has a Rust block");
    let readme_main = "fn main() {\n    ferromcp::run(TextTools)\n}\n";
    assert!(
        body.ends_with(readme_main),
        "the README's server ends in `{readme_main}`"
    );
    assert!(
        body.contains(&format!("#[ferromcp::server(name = \"{README_NAME}\")]")),
        "the README's server is named {README_NAME}"
    );
    assert!(
        QUICKSTART.contains("fn main() {\n    ferromcp::run(Quickstart)\n}\n"),
        "examples/src/bin/quickstart.rs's main is `ferromcp::run(Quickstart)`"
    );
}

#[test]
fn every_shell_command_is_covered() {
    let covered = [RUN_STDIO, RUN_HTTP, RUN_HELP];
    let commands = shell_commands(README);
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
    // The test command is in CONTRIBUTING.md, and it is what CI runs.
    assert!(
        shell_commands(CONTRIBUTING)
            .iter()
            .any(|c| c == TEST_SCRIPT),
        "CONTRIBUTING.md gives {TEST_SCRIPT}"
    );
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

fn spawn(args: &[String], dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_quickstart"))
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
    let session = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_owned())
    });
    (session, serde_json::from_str(body).unwrap())
}

/// Initializes a 2025-11-25 session at `url` and calls `add` in it.
async fn initialize_and_add(url: &str) -> Value {
    let (session, reply) = post(url, None, INITIALIZE).await;
    assert_eq!(
        reply["result"]["serverInfo"]["name"], QUICKSTART_NAME,
        "{reply}"
    );
    let session = session.expect("a legacy session id");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 40}}});
    let (_, reply) = post(url, Some(&session), &call.to_string()).await;
    reply["result"].clone()
}

/// `cargo run`: stdio, until stdin closes.
#[tokio::test]
async fn run_serves_stdio() {
    let scratch = Scratch::new("stdio");
    let mut child = spawn(&run_args(RUN_STDIO), &scratch.0);
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
    assert_eq!(replies[0]["result"]["serverInfo"]["name"], QUICKSTART_NAME);
    assert_eq!(replies[1]["result"]["content"][0]["text"], "42");
    assert!(child.wait().await.unwrap().success());
}

/// `cargo run -- --http 127.0.0.1:8080`: Streamable HTTP at the URL it logs, and on stdout
/// the snippets of the README's HTTP column, for this server and URL.
#[tokio::test]
async fn run_http_serves_and_prints_the_readme_snippets() {
    let scratch = Scratch::new("http");
    let mut child = spawn(&run_args(RUN_HTTP), &scratch.0);
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = read_until(&mut stderr, |l| l.contains("http://127.0.0.1:")).await;
    let line = line.lines().last().unwrap();
    let url = line[line.find("http://").unwrap()..]
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();

    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let printed = read_until(&mut stdout, |l| {
        l.starts_with("  npx @modelcontextprotocol/inspector ")
    })
    .await
    .replace(&url, &format!("http://{README_ADDR}/mcp"))
    .replace(QUICKSTART_NAME, README_NAME);
    let table = README
        .lines()
        .skip_while(|l| !l.starts_with("| client | stdio"))
        .take_while(|l| l.starts_with('|'))
        .collect::<Vec<_>>();
    let mut checked = 0;
    for row in &table[2..] {
        let http = row.split(" | ").nth(2).unwrap();
        // Each inline-code span of the HTTP column, as the server prints it (the VS Code
        // entry without the file name before it).
        for code in http.split('`').skip(1).step_by(2) {
            if code.ends_with(".json") {
                continue;
            }
            assert!(
                printed.contains(code),
                "`{code}` (README) is not what --http prints:\n{printed}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 3, "Claude Code, VS Code and the Inspector");

    let result = initialize_and_add(&url).await;
    assert_eq!(result["content"][0]["text"], "42", "{result}");
    child.kill().await.unwrap();
}

/// `cargo run -- --help`: the usage, naming `--http`, and exit status 0.
#[tokio::test]
async fn run_help_prints_the_usage() {
    let scratch = Scratch::new("help");
    let output = spawn(&run_args(RUN_HELP), &scratch.0)
        .wait_with_output()
        .await
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let usage = String::from_utf8(output.stdout).unwrap();
    assert!(usage.contains("--http <ADDR>"), "{usage}");
}
