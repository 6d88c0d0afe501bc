//! stdio: the server is a child process; one JSON-RPC message per line on its stdin and
//! stdout; what it writes to stderr is forwarded to `tracing` (target
//! `ferromcp_client::stderr`) and its last lines are kept for error messages.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStderr, ChildStdout, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::codec::{FramedRead, LinesCodec, LinesCodecError};

use super::Inbound;
use super::Sink;
use crate::error::{Error, Result};
use crate::sync::lock;

/// How many of the server's last stderr lines an error message quotes.
const STDERR_TAIL: usize = 8;
/// The longest stderr line kept (longer ones are cut).
const STDERR_LINE: usize = 4096;

/// A server to start: program, arguments, environment and working directory.
///
/// # Examples
///
/// ```
/// use ferromcp_client::StdioCommand;
///
/// let cmd = StdioCommand::new("my-server")
///     .args(["--verbose"])
///     .env("RUST_LOG", "debug")
///     .current_dir("/tmp");
/// assert_eq!(cmd.to_string(), "my-server --verbose");
/// ```
#[derive(Debug, Clone)]
pub struct StdioCommand {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    env_clear: bool,
    cwd: Option<PathBuf>,
}

impl StdioCommand {
    /// Runs `program` (looked up in `PATH` like a shell would).
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        StdioCommand {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            env: Vec::new(),
            env_clear: false,
            cwd: None,
        }
    }

    /// Adds one argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Adds arguments.
    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Self {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Sets an environment variable of the server (on top of the inherited environment).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// Starts the server with only the variables set with [`env`](Self::env).
    pub fn env_clear(mut self) -> Self {
        self.env_clear = true;
        self
    }

    /// Runs the server in `dir`.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args);
        if self.env_clear {
            cmd.env_clear();
        }
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        cmd
    }
}

impl std::fmt::Display for StdioCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.program.to_string_lossy())?;
        for a in &self.args {
            write!(f, " {}", a.to_string_lossy())?;
        }
        Ok(())
    }
}

type Tail = Arc<Mutex<VecDeque<String>>>;

/// The running child and its tasks; dropping it kills the child (tokio reaps it).
#[derive(Debug)]
pub(crate) struct StdioGuard {
    child: Arc<tokio::sync::Mutex<Child>>,
    tasks: Vec<JoinHandle<()>>,
}

impl StdioGuard {
    /// Closes the server's stdin, waits up to `grace` for it to exit, then kills it; reaps it.
    pub(crate) async fn close(&mut self, grace: Duration) {
        // The writer owns stdin: stopping it closes the pipe, the server's cue to exit.
        if let Some(writer) = self.tasks.first() {
            writer.abort();
        }
        let mut child = self.child.lock().await;
        if tokio::time::timeout(grace, child.wait()).await.is_err() {
            let _ = child.kill().await;
        }
    }
}

impl Drop for StdioGuard {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        if let Ok(mut child) = self.child.try_lock() {
            // `kill_on_drop` kills too, and tokio reaps the child in the background.
            let _ = child.start_kill();
        }
    }
}

/// Starts the server: the sink to write to, what it sends, and the guard of the process.
pub(crate) fn spawn(
    cmd: &StdioCommand,
    max_message: usize,
) -> Result<(Sink, mpsc::Receiver<Inbound>, StdioGuard)> {
    let mut child = cmd.command().spawn().map_err(|source| Error::Spawn {
        command: cmd.to_string(),
        source,
    })?;
    let missing = || Error::Connection("the server's pipes are missing".into());
    let stdin = child.stdin.take().ok_or_else(missing)?;
    let stdout = child.stdout.take().ok_or_else(missing)?;
    let stderr = child.stderr.take().ok_or_else(missing)?;
    let child = Arc::new(tokio::sync::Mutex::new(child));
    let tail: Tail = Arc::default();
    let (out_tx, out_rx) = mpsc::channel::<String>(64);
    let (in_tx, in_rx) = mpsc::channel(64);
    let tasks = vec![
        tokio::spawn(write_lines(stdin, out_rx)),
        tokio::spawn(read_messages(
            stdout,
            in_tx,
            max_message,
            child.clone(),
            tail.clone(),
        )),
        tokio::spawn(forward_stderr(stderr, tail)),
    ];
    Ok((Sink::Stdio(out_tx), in_rx, StdioGuard { child, tasks }))
}

async fn write_lines(mut stdin: tokio::process::ChildStdin, mut rx: mpsc::Receiver<String>) {
    while let Some(mut line) = rx.recv().await {
        line.push('\n');
        if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
            return;
        }
    }
}

async fn read_messages(
    stdout: ChildStdout,
    tx: mpsc::Sender<Inbound>,
    max_message: usize,
    child: Arc<tokio::sync::Mutex<Child>>,
    tail: Tail,
) {
    let mut lines = FramedRead::new(stdout, LinesCodec::new_with_max_length(max_message));
    let error = loop {
        match lines.next().await {
            Some(Ok(line)) if line.trim().is_empty() => {}
            Some(Ok(line)) => match serde_json::from_str(&line) {
                Ok(msg) => {
                    if tx.send(Inbound::Message(msg)).await.is_err() {
                        return;
                    }
                }
                Err(e) => {
                    break Error::InvalidMessage(format!(
                        "not JSON on the server's stdout ({e}): {}",
                        preview(&line)
                    ));
                }
            },
            Some(Err(LinesCodecError::MaxLineLengthExceeded)) => {
                break Error::InvalidMessage(format!(
                    "a message longer than the limit of {max_message} bytes"
                ));
            }
            Some(Err(LinesCodecError::Io(e))) => {
                break Error::Connection(format!("reading the server's output: {e}"));
            }
            None => break exited(&child, &tail).await,
        }
    };
    let _ = tx.send(Inbound::Closed(error)).await;
}

/// The error for a server whose stdout ended: its exit status (waited for briefly) and the
/// last lines of its stderr.
async fn exited(child: &tokio::sync::Mutex<Child>, tail: &Tail) -> Error {
    let status = async { child.lock().await.wait().await.ok() };
    let status = tokio::time::timeout(Duration::from_millis(500), status)
        .await
        .ok()
        .flatten();
    // Let the stderr task catch up with the server's last words.
    tokio::task::yield_now().await;
    let mut msg = match status {
        Some(s) => format!("the server exited ({s})"),
        None => "the server closed its output".to_owned(),
    };
    let lines: Vec<String> = lock(tail).iter().cloned().collect();
    if !lines.is_empty() {
        msg.push_str("; its last stderr lines: ");
        msg.push_str(&lines.join(" | "));
    }
    Error::Connection(msg)
}

fn preview(line: &str) -> String {
    let mut end = line.len().min(200);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let cut = if end < line.len() { "…" } else { "" };
    format!("{}{cut}", &line[..end])
}

async fn forward_stderr(stderr: ChildStderr, tail: Tail) {
    let mut lines = FramedRead::new(stderr, LinesCodec::new_with_max_length(STDERR_LINE));
    while let Some(line) = lines.next().await {
        let Ok(line) = line else { continue };
        tracing::info!(target: "ferromcp_client::stderr", "{line}");
        let mut tail = lock(&tail);
        if tail.len() == STDERR_TAIL {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}
