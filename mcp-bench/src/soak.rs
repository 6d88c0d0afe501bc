//! `mcp-bench soak`: a bounded soak of a `serve --soak` server. Over Streamable HTTP (a
//! server already listening on `127.0.0.1:P`), for the whole run and at once:
//!
//! - legacy sessions opened and closed (`--sessions` of them, spread over the run), each with
//!   a call and a call with progress (an SSE response); every fourth also starts a streamed
//!   call and disconnects mid-stream, every fourth (another) cancels a streamed call with
//!   `notifications/cancelled`, every tenth opens its GET stream and waits for a
//!   `tools/list_changed` on it;
//! - 2026-07-28 calls, plain and with progress, and every tenth a streamed call that the
//!   client cuts off mid-stream (the modern era's cancellation);
//! - `subscriptions/listen` streams, eight at a time: each acknowledged, each waits for a
//!   `tools/list_changed`, then all are dropped.
//!
//! Over stdio, two servers it starts with CMD ARGS (their pids written to `--stdio-pids`),
//! one per era: calls and calls with progress, pipelined, and in the legacy one a long call
//! cancelled with `notifications/cancelled` every fifth round.
//!
//! Every answer is checked. A wrong answer, or an answer to a cancelled call, is an error;
//! an answer that does not come within a minute is lost. The report is one JSON line; the
//! run fails if anything was wrong or lost.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::calls::Era;
use crate::http::{Answer, Connection};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Generous bound on any one answer (or stream event): past it, the answer is lost.
const ANSWER: Duration = Duration::from_secs(60);
/// How long past the end of the run the legacy sessions may take to reach their count.
const GRACE: Duration = Duration::from_secs(60);

/// What to run.
#[derive(Debug)]
pub struct Soak {
    /// How long.
    pub duration: Duration,
    /// The HTTP server's port on 127.0.0.1.
    pub port: u16,
    /// Legacy sessions to open and close over the run.
    pub sessions: u64,
    /// The stdio server command (started twice, once per era).
    pub command: Vec<String>,
    /// Where to write the stdio servers' pids (`stdio-legacy PID`, `stdio-modern PID`).
    pub pid_file: Option<String>,
}

#[derive(Debug, Default)]
struct Counts {
    sessions_opened: AtomicU64,
    sessions_closed: AtomicU64,
    http_calls: AtomicU64,
    stdio_calls: AtomicU64,
    progress: AtomicU64,
    get_streams: AtomicU64,
    listens: AtomicU64,
    listen_notifications: AtomicU64,
    disconnects: AtomicU64,
    cancels: AtomicU64,
    errors: AtomicU64,
    lost: AtomicU64,
}

fn bump(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

impl Counts {
    /// Counts a failed step: a lost answer if it timed out, else an error.
    fn failed(&self, worker: &str, e: &Error) {
        eprintln!("mcp-bench soak: {worker}: {e}");
        if e.to_string().starts_with("lost:") {
            bump(&self.lost, 1);
        } else {
            bump(&self.errors, 1);
        }
    }
}

/// Waits for `f` at most [`ANSWER`]; past that the answer is lost.
async fn within<T>(what: &str, f: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
    match tokio::time::timeout(ANSWER, f).await {
        Ok(r) => r,
        Err(_) => Err(format!("lost: no answer to {what} within {ANSWER:?}").into()),
    }
}

fn modern_meta(progress: Option<&str>) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-bench-soak", "version": "0.1.0"}
    });
    if let Some(token) = progress {
        meta["progressToken"] = json!(token);
    }
    meta
}

/// A `tools/call` request in the era's shape, with a progress token if given.
fn call(era: Era, id: u64, tool: &str, arguments: Value, progress: Option<&str>) -> String {
    let mut params = json!({"name": tool, "arguments": arguments});
    match era {
        Era::Legacy => {
            if let Some(token) = progress {
                params["_meta"] = json!({"progressToken": token});
            }
        }
        Era::Modern => params["_meta"] = modern_meta(progress),
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

/// Checks the messages answering call `id`: a result whose text is `text`, and with
/// `progress = Some((token, n))`, `n` progress notifications for that token.
fn check_call(
    messages: &[Value],
    id: u64,
    text: &str,
    progress: Option<(&str, usize)>,
    counts: &Counts,
) -> Result<(), Error> {
    // No token: no progress notification may answer the call.
    let (token, progress) = progress.unwrap_or(("", 0));
    let seen = messages
        .iter()
        .filter(|m| {
            m["method"] == "notifications/progress" && m["params"]["progressToken"] == token
        })
        .count();
    let response = messages
        .iter()
        .find(|m| m.get("method").is_none() && m["id"] == id)
        .ok_or_else(|| format!("call {id}: no response in {messages:?}"))?;
    if response["result"]["content"][0]["text"] != text {
        return Err(format!("call {id}: wanted {text:?}, got {response}").into());
    }
    if seen != progress {
        return Err(format!("call {id}: {seen} progress notifications, wanted {progress}").into());
    }
    bump(&counts.progress, seen as u64);
    Ok(())
}

fn check_http(answer: &Answer, what: &str, want: StatusCode) -> Result<(), Error> {
    if answer.status != want {
        return Err(format!("{what}: HTTP {} {:?}", answer.status, answer.messages).into());
    }
    Ok(())
}

/// A streamed response read event by event; [`Stream::cut`] disconnects mid-stream.
struct Stream {
    status: StatusCode,
    body: hyper::body::Incoming,
    conn: tokio::task::JoinHandle<()>,
    buf: Vec<u8>,
}

impl Stream {
    /// Sends one request on a connection of its own.
    async fn open(
        port: u16,
        method: Method,
        headers: &[(&str, &str)],
        body: String,
    ) -> Result<Stream, Error> {
        let tcp = TcpStream::connect(("127.0.0.1", port)).await?;
        tcp.set_nodelay(true)?;
        let (mut sender, conn) = http1::handshake(TokioIo::new(tcp)).await?;
        let conn = tokio::spawn(async move {
            let _ = conn.await;
        });
        let mut request = Request::builder()
            .method(method)
            .uri("/mcp")
            .header(HOST, format!("127.0.0.1:{port}"))
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = within("a streamed request", async {
            Ok(sender
                .send_request(request.body(Full::new(Bytes::from(body)))?)
                .await?)
        })
        .await?;
        Ok(Stream {
            status: response.status(),
            body: response.into_body(),
            conn,
            buf: Vec::new(),
        })
    }

    /// The next message (an event with data); `None` when the stream ends.
    async fn next(&mut self) -> Result<Option<Value>, Error> {
        loop {
            if let Some(end) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = self.buf.drain(..end + 2).collect();
                let data: String = std::str::from_utf8(&event)?
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                if !data.trim().is_empty() {
                    return Ok(Some(serde_json::from_str(&data)?));
                }
                continue;
            }
            let frame = tokio::time::timeout(ANSWER, self.body.frame())
                .await
                .map_err(|_| format!("lost: a stream was silent for {ANSWER:?}"))?;
            match frame {
                None => {
                    // A JSON body, or the last event without its blank line.
                    if self.buf.iter().all(u8::is_ascii_whitespace) {
                        return Ok(None);
                    }
                    let rest = std::mem::take(&mut self.buf);
                    let text = String::from_utf8(rest)?;
                    let text = text
                        .strip_prefix("data:")
                        .unwrap_or(&text)
                        .trim()
                        .to_owned();
                    return Ok(Some(serde_json::from_str(&text)?));
                }
                Some(frame) => {
                    if let Ok(data) = frame?.into_data() {
                        self.buf.extend_from_slice(&data);
                    }
                }
            }
        }
    }

    /// The next message that `pick` accepts (others are skipped); an error if the stream
    /// ends first.
    async fn until(&mut self, what: &str, pick: impl Fn(&Value) -> bool) -> Result<Value, Error> {
        while let Some(message) = self.next().await? {
            if pick(&message) {
                return Ok(message);
            }
        }
        Err(format!("the stream ended before {what}").into())
    }

    /// The client goes away: the connection is closed, unread.
    fn cut(self) {
        self.conn.abort();
    }
}

fn is_progress(m: &Value) -> bool {
    m["method"] == "notifications/progress"
}

fn is_tools_changed(m: &Value) -> bool {
    m["method"] == "notifications/tools/list_changed"
}

impl Soak {
    /// Runs the soak; the report, or an error carrying it when anything failed.
    pub async fn run(self) -> Result<Value, Error> {
        let started = Instant::now();
        let deadline = started + self.duration;
        let counts = Counts::default();
        let mut legacy_stdio = spawn_stdio(&self.command)?;
        let mut modern_stdio = spawn_stdio(&self.command)?;
        if let Some(file) = &self.pid_file {
            let pids = format!(
                "stdio-legacy {}\nstdio-modern {}\n",
                legacy_stdio.id().unwrap_or(0),
                modern_stdio.id().unwrap_or(0)
            );
            std::fs::write(file, pids)?;
        }
        tokio::join!(
            self.legacy_sessions(&counts, started, deadline),
            self.modern_calls(&counts, deadline),
            self.listens(&counts, deadline),
            stdio(&mut legacy_stdio, Era::Legacy, &counts, deadline),
            stdio(&mut modern_stdio, Era::Modern, &counts, deadline),
        );
        let c = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let report = json!({
            "seconds": started.elapsed().as_secs(),
            "sessions_opened": c(&counts.sessions_opened),
            "sessions_closed": c(&counts.sessions_closed),
            "http_calls": c(&counts.http_calls),
            "stdio_calls": c(&counts.stdio_calls),
            "progress_notifications": c(&counts.progress),
            "get_streams": c(&counts.get_streams),
            "listen_streams": c(&counts.listens),
            "listen_notifications": c(&counts.listen_notifications),
            "disconnects_mid_stream": c(&counts.disconnects),
            "cancellations": c(&counts.cancels),
            "errors": c(&counts.errors),
            "lost": c(&counts.lost),
        });
        if c(&counts.errors) > 0
            || c(&counts.lost) > 0
            || c(&counts.sessions_closed) < self.sessions
        {
            return Err(format!(
                "{report}\nthe soak failed (errors, lost answers or too few sessions)"
            )
            .into());
        }
        Ok(report)
    }

    /// Opens and closes `sessions` legacy sessions, evenly spread over the run.
    async fn legacy_sessions(&self, counts: &Counts, started: Instant, deadline: Instant) {
        let every = self.duration / u32::try_from(self.sessions.max(1)).unwrap_or(u32::MAX);
        for k in 0..self.sessions {
            if Instant::now() > deadline + GRACE {
                eprintln!(
                    "mcp-bench soak: legacy sessions: {k} of {} by the end",
                    self.sessions
                );
                return;
            }
            let start = started + every * u32::try_from(k).unwrap_or(u32::MAX);
            tokio::time::sleep_until(start.into()).await;
            if let Err(e) = self.legacy_session(k, counts).await {
                counts.failed("legacy session", &e);
            }
        }
    }

    async fn legacy_session(&self, k: u64, counts: &Counts) -> Result<(), Error> {
        let port = self.port;
        let mut c = Connection::open(port, Era::Legacy).await?;
        within("initialize", c.handshake()).await?;
        bump(&counts.sessions_opened, 1);
        let session = c
            .session()
            .and_then(|s| s.to_str().ok())
            .ok_or("initialize: no session id")?
            .to_owned();
        let post = |body: String| Bytes::from(body);

        let answer = within(
            "echo",
            c.send(
                Method::POST,
                post(call(
                    Era::Legacy,
                    1,
                    "echo",
                    json!({"text": format!("s{k}")}),
                    None,
                )),
                None,
            ),
        )
        .await?;
        check_http(&answer, "echo", StatusCode::OK)?;
        check_call(&answer.messages, 1, &format!("s{k}"), None, counts)?;
        let steps = call(
            Era::Legacy,
            2,
            "steps",
            json!({"n": 3, "delay_ms": 5}),
            Some("p2"),
        );
        let answer = within("steps", c.send(Method::POST, post(steps), None)).await?;
        check_http(&answer, "steps", StatusCode::OK)?;
        check_call(&answer.messages, 2, "3 steps", Some(("p2", 3)), counts)?;
        bump(&counts.http_calls, 2);

        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        if k % 4 == 1 {
            // Gone mid-stream: the call goes on (a legacy disconnect is not a cancellation).
            let body = call(
                Era::Legacy,
                3,
                "steps",
                json!({"n": 20, "delay_ms": 50}),
                Some("p3"),
            );
            let mut stream = Stream::open(port, Method::POST, &headers, body).await?;
            stream.until("progress", is_progress).await?;
            stream.cut();
            bump(&counts.disconnects, 1);
        }
        if k % 4 == 3 {
            let body = call(
                Era::Legacy,
                4,
                "steps",
                json!({"n": 200, "delay_ms": 50}),
                Some("p4"),
            );
            let mut stream = Stream::open(port, Method::POST, &headers, body).await?;
            stream.until("progress", is_progress).await?;
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                "params": {"requestId": 4, "reason": "soak"}});
            let answer = within(
                "cancel",
                c.send(Method::POST, post(cancel.to_string()), None),
            )
            .await?;
            check_http(&answer, "notifications/cancelled", StatusCode::ACCEPTED)?;
            // The stream ends with no answer to the cancelled call.
            while let Some(message) = stream.next().await? {
                if message.get("method").is_none() {
                    return Err(format!("a cancelled call was answered: {message}").into());
                }
            }
            bump(&counts.cancels, 1);
        }
        if k.is_multiple_of(10) {
            let mut stream = Stream::open(port, Method::GET, &headers, String::new()).await?;
            if stream.status != StatusCode::OK {
                return Err(format!("GET stream: HTTP {}", stream.status).into());
            }
            stream.until("tools/list_changed", is_tools_changed).await?;
            stream.cut();
            bump(&counts.get_streams, 1);
        }
        let answer = within("DELETE", c.send(Method::DELETE, Bytes::new(), None)).await?;
        check_http(&answer, "DELETE", StatusCode::OK)?;
        bump(&counts.sessions_closed, 1);
        Ok(())
    }

    /// 2026-07-28 calls until the end: plain, with progress, and cut off mid-stream.
    async fn modern_calls(&self, counts: &Counts, deadline: Instant) {
        let mut c = None;
        let mut id = 0u64;
        while Instant::now() < deadline {
            id += 1;
            let connection = match c.as_mut() {
                Some(c) => c,
                None => match Connection::open(self.port, Era::Modern).await {
                    Ok(opened) => c.insert(opened),
                    Err(e) => {
                        counts.failed("modern calls", &e);
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        continue;
                    }
                },
            };
            if let Err(e) = self.modern_round(connection, id, counts).await {
                counts.failed("modern calls", &e);
                c = None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn modern_round(
        &self,
        c: &mut Connection,
        id: u64,
        counts: &Counts,
    ) -> Result<(), Error> {
        let text = format!("m{id}");
        let body = call(Era::Modern, id, "echo", json!({"text": text}), None);
        let answer = within(
            "echo",
            c.send(
                Method::POST,
                Bytes::from(body),
                Some(("tools/call", Some("echo"))),
            ),
        )
        .await?;
        check_http(&answer, "echo", StatusCode::OK)?;
        check_call(&answer.messages, id, &text, None, counts)?;
        let body = call(
            Era::Modern,
            id,
            "steps",
            json!({"n": 3, "delay_ms": 5}),
            Some("m"),
        );
        let answer = within(
            "steps",
            c.send(
                Method::POST,
                Bytes::from(body),
                Some(("tools/call", Some("steps"))),
            ),
        )
        .await?;
        check_http(&answer, "steps", StatusCode::OK)?;
        check_call(&answer.messages, id, "3 steps", Some(("m", 3)), counts)?;
        bump(&counts.http_calls, 2);
        if id.is_multiple_of(10) {
            let body = call(
                Era::Modern,
                id,
                "steps",
                json!({"n": 20, "delay_ms": 50}),
                Some("cut"),
            );
            let headers = [
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "steps"),
            ];
            let mut stream = Stream::open(self.port, Method::POST, &headers, body).await?;
            stream.until("progress", is_progress).await?;
            stream.cut();
            bump(&counts.disconnects, 1);
        }
        Ok(())
    }

    /// Eight listen streams at a time until the end: acknowledged, one notification each,
    /// dropped.
    async fn listens(&self, counts: &Counts, deadline: Instant) {
        let mut round = 0u64;
        while Instant::now() < deadline {
            round += 1;
            if let Err(e) = self.listen_round(round, counts).await {
                counts.failed("listen streams", &e);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    async fn listen_round(&self, round: u64, counts: &Counts) -> Result<(), Error> {
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "subscriptions/listen"),
        ];
        let mut streams = Vec::new();
        for i in 0..8 {
            let body = json!({"jsonrpc": "2.0", "id": format!("l{round}.{i}"),
                "method": "subscriptions/listen", "params": {
                    "notifications": {"toolsListChanged": true},
                    "_meta": modern_meta(None)}})
            .to_string();
            let mut stream = Stream::open(self.port, Method::POST, &headers, body).await?;
            let ack = stream
                .next()
                .await?
                .ok_or("a listen stream ended at once")?;
            if ack["method"] != "notifications/subscriptions/acknowledged" {
                return Err(format!("listen: not acknowledged: {ack}").into());
            }
            streams.push(stream);
        }
        bump(&counts.listens, 8);
        for mut stream in streams {
            stream.until("tools/list_changed", is_tools_changed).await?;
            bump(&counts.listen_notifications, 1);
            stream.cut();
        }
        Ok(())
    }
}

fn spawn_stdio(command: &[String]) -> Result<tokio::process::Child, Error> {
    let first = command
        .first()
        .ok_or("the stdio server command goes after `--`")?;
    Ok(tokio::process::Command::new(first)
        .args(&command[1..])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {first:?}: {e}"))?)
}

/// Drives one stdio server until the end, then closes its stdin: it must exit cleanly.
async fn stdio(child: &mut tokio::process::Child, era: Era, counts: &Counts, deadline: Instant) {
    let name = match era {
        Era::Legacy => "stdio (legacy)",
        Era::Modern => "stdio (modern)",
    };
    if let Err(e) = stdio_rounds(child, era, counts, deadline).await {
        counts.failed(name, &e);
        let _ = child.start_kill();
        return;
    }
    match tokio::time::timeout(ANSWER, child.wait()).await {
        Ok(Ok(status)) if status.success() => {}
        Ok(Ok(status)) => counts.failed(name, &format!("exited with {status}").into()),
        Ok(Err(e)) => counts.failed(name, &e.into()),
        Err(_) => counts.failed(name, &"did not exit once its stdin closed".into()),
    }
}

async fn stdio_rounds(
    child: &mut tokio::process::Child,
    era: Era,
    counts: &Counts,
    deadline: Instant,
) -> Result<(), Error> {
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut lines = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
    if era == Era::Legacy {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "mcp-bench-soak", "version": "0.1.0"}}});
        stdin.write_all(format!("{init}\n").as_bytes()).await?;
        let answer =
            within::<Option<String>>("initialize", async { Ok(lines.next_line().await?) }).await?;
        let answer: Value = serde_json::from_str(&answer.ok_or("stdout closed")?)?;
        if answer.get("result").is_none() {
            return Err(format!("initialize: {answer}").into());
        }
        stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .await?;
    }
    let mut id = 0u64;
    let mut round = 0u64;
    while Instant::now() < deadline {
        round += 1;
        let (echo, steps) = (id + 1, id + 2);
        id += 2;
        let mut out = String::new();
        let text = format!("r{round}");
        out.push_str(&call(era, echo, "echo", json!({"text": text}), None));
        out.push('\n');
        out.push_str(&call(
            era,
            steps,
            "steps",
            json!({"n": 3, "delay_ms": 5}),
            Some("s"),
        ));
        out.push('\n');
        let mut cancelled = None;
        if era == Era::Legacy && round.is_multiple_of(5) {
            id += 1;
            cancelled = Some(id);
            out.push_str(&call(
                era,
                id,
                "steps",
                json!({"n": 200, "delay_ms": 50}),
                Some("c"),
            ));
            out.push('\n');
            out.push_str(
                &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": id, "reason": "soak"}})
                .to_string(),
            );
            out.push('\n');
        }
        stdin.write_all(out.as_bytes()).await?;
        let mut messages = Vec::new();
        let mut answered = 0;
        while answered < 2 {
            let line =
                within::<Option<String>>("a stdio call", async { Ok(lines.next_line().await?) })
                    .await?;
            let message: Value = serde_json::from_str(&line.ok_or("stdout closed")?)?;
            if message.get("method").is_none() {
                if cancelled.is_some_and(|c| message["id"] == c) {
                    return Err(format!("a cancelled call was answered: {message}").into());
                }
                answered += 1;
            }
            if message["method"] != "notifications/progress"
                || message["params"]["progressToken"] == "s"
            {
                messages.push(message);
            }
        }
        check_call(&messages, echo, &text, None, counts)?;
        check_call(&messages, steps, "3 steps", Some(("s", 3)), counts)?;
        bump(&counts.stdio_calls, 2);
        if cancelled.is_some() {
            bump(&counts.cancels, 1);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(stdin);
    // Whatever is left (progress of a cancelled call) must not be an answer.
    while let Some(line) =
        within::<Option<String>>("the end of stdout", async { Ok(lines.next_line().await?) })
            .await?
    {
        let message: Value = serde_json::from_str(&line)?;
        if message.get("method").is_none() {
            return Err(format!("an answer after the last call: {message}").into());
        }
    }
    Ok(())
}
