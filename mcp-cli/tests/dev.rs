//! `ferromcp dev` on the quickstart example: it serves HTTP and restarts on a change.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

/// Kills `dev` and the server it started when the test ends, however it ends.
struct Running {
    dev: Child,
    servers: Vec<u32>,
}

impl Drop for Running {
    fn drop(&mut self) {
        for pid in &self.servers {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
        let _ = self.dev.kill();
        let _ = self.dev.wait();
    }
}

/// An initialize over HTTP: the answer, or `None` if nothing listens (the server is being
/// restarted: other edits to the watched crate restart it too).
fn initialize(addr: &str) -> Option<String> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut stream = TcpStream::connect(addr).ok()?;
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    Some(answer)
}

#[test]
fn dev_serves_and_restarts_when_a_watched_file_changes() {
    let watched = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/Cargo.toml");
    let mut dev = Command::new(env!("CARGO_BIN_EXE_ferromcp"))
        .args([
            "dev",
            "--bin",
            "quickstart",
            "--addr",
            &addr,
            "--manifest-path",
        ])
        .arg(&manifest)
        .arg("--watch")
        .arg(watched.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = dev.stderr.take().unwrap();
    let stdout = dev.stdout.take().unwrap();
    let mut running = Running {
        dev,
        servers: Vec::new(),
    };
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    // Waits for the next `dev: serving … (pid N)` line and notes the server's pid.
    let serving = |running: &mut Running| loop {
        let line = lines.recv().expect("dev exited before serving");
        if let Some(rest) = line.strip_prefix("dev: serving ") {
            assert!(rest.starts_with(&format!("http://{addr}/mcp")), "{line}");
            let pid = rest.rsplit("pid ").next().unwrap().trim_end_matches(')');
            running.servers.push(pid.parse().unwrap());
            return;
        }
    };
    // Until an initialize gets through: each refusal waits for the next restart.
    let answered = |running: &mut Running| loop {
        serving(running);
        if let Some(answer) = initialize(&addr) {
            assert!(answer.contains("\"name\":\"quickstart\""), "{answer}");
            return;
        }
    };
    answered(&mut running);
    let mut connect = String::new();
    BufReader::new(stdout).read_line(&mut connect).unwrap();
    assert!(connect.contains(&format!("http://{addr}/mcp")), "{connect}");
    let before = running.servers.len();
    std::fs::write(watched.path().join("touched.rs"), "// changed").unwrap();
    answered(&mut running);
    assert!(running.servers.len() > before, "the server was restarted");
}
