//! The Streamable HTTP modes: the driver spawns the server, waits for its port, and runs
//! workers that each hold one keep-alive HTTP/1.1 connection (and, in the legacy era, one
//! session).

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

use crate::calls::{Calls, Era, is_response};
use crate::report::{CallRun, Latencies, cpu_time, status_kb};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// A spawned HTTP server, stopped when dropped.
pub struct Spawned {
    child: Child,
    /// Spawn to the first accepted connection.
    pub spawned: Instant,
}

impl Spawned {
    /// Spawns `command` with every `{addr}` replaced by `127.0.0.1:port` and waits (up to
    /// 30 s) until the port accepts connections.
    pub async fn start(command: &[String], port: u16) -> Result<Spawned, Error> {
        let addr = format!("127.0.0.1:{port}");
        let args: Vec<String> = command.iter().map(|a| a.replace("{addr}", &addr)).collect();
        let spawned = Instant::now();
        let child = Command::new(&args[0])
            .args(&args[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {:?}: {e}", args[0]))?;
        let mut server = Spawned { child, spawned };
        loop {
            if TcpStream::connect(&addr).await.is_ok() {
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait()? {
                return Err(format!("the server exited before listening: {status}").into());
            }
            if spawned.elapsed() > Duration::from_secs(30) {
                return Err(format!("nothing listens on {addr} after 30 s").into());
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Spawned {
    /// SIGTERM first, so that a server run under a profiler (`valgrind --tool=callgrind`)
    /// writes its profile; SIGKILL if it is still there after 30 s.
    fn drop(&mut self) {
        let pid = self.child.id().to_string();
        let termed = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .is_ok_and(|s| s.success());
        if termed {
            let asked = Instant::now();
            while asked.elapsed() < Duration::from_secs(30) {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One keep-alive connection to the endpoint.
pub struct Connection {
    sender: SendRequest<Full<Bytes>>,
    host: HeaderValue,
    era: Era,
    session: Option<HeaderValue>,
    /// `Bearer $MCP_BENCH_BEARER`, when set.
    authorization: Option<HeaderValue>,
}

/// A response: status, session id header, and the JSON-RPC messages in the body (one for a
/// JSON body, every `data:` event for an SSE body).
pub struct Answer {
    /// The HTTP status.
    pub status: StatusCode,
    /// `Mcp-Session-Id`, if any.
    pub session: Option<HeaderValue>,
    /// The messages.
    pub messages: Vec<Value>,
}

impl Connection {
    /// Opens a connection (TCP_NODELAY on the client side, as every HTTP client sets it).
    pub async fn open(port: u16, era: Era) -> Result<Connection, Error> {
        let stream = TcpStream::connect(("127.0.0.1", port)).await?;
        stream.set_nodelay(true)?;
        let (sender, conn) = http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(conn);
        Ok(Connection {
            sender,
            host: HeaderValue::from_str(&format!("127.0.0.1:{port}"))?,
            era,
            session: None,
            authorization: std::env::var("MCP_BENCH_BEARER")
                .ok()
                .and_then(|t| HeaderValue::from_str(&format!("Bearer {t}")).ok()),
        })
    }

    /// The session id in use.
    pub fn session(&self) -> Option<&HeaderValue> {
        self.session.as_ref()
    }

    /// Uses this session id from now on (`None`: no session).
    pub fn set_session(&mut self, session: Option<HeaderValue>) {
        self.session = session;
    }

    /// Sends one request with the era's headers (`name`: the modern `Mcp-Name`).
    pub async fn send(
        &mut self,
        method: Method,
        body: Bytes,
        rpc: Option<(&str, Option<&str>)>,
    ) -> Result<Answer, Error> {
        let mut request = Request::builder()
            .method(method)
            .uri("/mcp")
            .header(HOST, self.host.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        if let Some(authorization) = &self.authorization {
            request = request.header(hyper::header::AUTHORIZATION, authorization.clone());
        }
        match self.era {
            Era::Legacy => {
                if let Some(session) = &self.session {
                    request = request
                        .header("mcp-session-id", session.clone())
                        .header("mcp-protocol-version", "2025-11-25");
                }
            }
            Era::Modern => {
                request = request.header("mcp-protocol-version", "2026-07-28");
                if let Some((method, name)) = rpc {
                    request = request.header("mcp-method", method);
                    if let Some(name) = name {
                        request = request.header("mcp-name", name);
                    }
                }
            }
        }
        self.sender.ready().await?;
        let response = self
            .sender
            .send_request(request.body(Full::new(body))?)
            .await?;
        let status = response.status();
        let session = response.headers().get("mcp-session-id").cloned();
        let sse = response
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let body = response.into_body().collect().await?.to_bytes();
        let messages = if body.is_empty() {
            Vec::new()
        } else if sse {
            sse_messages(&body)?
        } else {
            vec![serde_json::from_slice(&body).map_err(|e| {
                format!(
                    "{status}: not JSON ({e}): {}",
                    String::from_utf8_lossy(&body)
                )
            })?]
        };
        Ok(Answer {
            status,
            session,
            messages,
        })
    }

    /// Legacy era: `initialize` and `notifications/initialized`; keeps the session id.
    pub async fn handshake(&mut self) -> Result<(), Error> {
        let answer = self
            .send(
                Method::POST,
                Bytes::from_static(Calls::initialize().as_bytes()),
                None,
            )
            .await?;
        if answer.status != StatusCode::OK
            || answer
                .messages
                .first()
                .and_then(|m| m.get("result"))
                .is_none()
        {
            return Err(
                format!("initialize failed: {} {:?}", answer.status, answer.messages).into(),
            );
        }
        self.session = answer.session;
        let answer = self
            .send(
                Method::POST,
                Bytes::from_static(Calls::initialized().as_bytes()),
                None,
            )
            .await?;
        if answer.status != StatusCode::ACCEPTED {
            return Err(format!("notifications/initialized: {} (want 202)", answer.status).into());
        }
        Ok(())
    }
}

/// The JSON-RPC messages of an SSE body (events with empty data, such as priming events,
/// are skipped).
fn sse_messages(body: &[u8]) -> Result<Vec<Value>, Error> {
    let text = std::str::from_utf8(body)?;
    let mut messages = Vec::new();
    let mut data = String::new();
    for line in text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)) {
        if line.is_empty() {
            if !data.trim().is_empty() {
                messages.push(serde_json::from_str(&data)?);
            }
            data.clear();
        } else if let Some(value) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    if !data.trim().is_empty() {
        messages.push(serde_json::from_str(&data)?);
    }
    Ok(messages)
}

/// What to run.
#[derive(Debug)]
pub struct HttpRun {
    /// The server's label in the report.
    pub label: String,
    /// Requests and checks.
    pub calls: Calls,
    /// How many calls in all.
    pub count: u64,
    /// Concurrent workers, one connection each.
    pub workers: usize,
    /// The server command (`{addr}` is replaced); empty: a server (or a load balancer)
    /// already listens on the port, and its CPU and memory are not reported.
    pub command: Vec<String>,
    /// The port.
    pub port: u16,
}

impl HttpRun {
    /// Runs the calls; any wrong or missing answer is an error.
    pub async fn run(self) -> Result<CallRun, Error> {
        let opened = Instant::now();
        let server = if self.command.is_empty() {
            None
        } else {
            Some(Spawned::start(&self.command, self.port).await?)
        };
        let pid = server.as_ref().map(Spawned::pid);
        // Start-up: spawn to the first answer.
        let mut first = Connection::open(self.port, self.calls.era).await?;
        match self.calls.era {
            Era::Legacy => first.handshake().await?,
            Era::Modern => {
                let answer = first
                    .send(
                        Method::POST,
                        Bytes::from(Calls::modern_hello()),
                        Some(("tools/list", None)),
                    )
                    .await?;
                if answer.status != StatusCode::OK {
                    return Err(
                        format!("tools/list: {} {:?}", answer.status, answer.messages).into(),
                    );
                }
            }
        }
        let startup = server.as_ref().map_or(opened, |s| s.spawned).elapsed();
        drop(first);

        let mut connections = Vec::with_capacity(self.workers);
        for _ in 0..self.workers {
            let mut connection = Connection::open(self.port, self.calls.era).await?;
            if self.calls.era == Era::Legacy {
                connection.handshake().await?;
            }
            connections.push(connection);
        }
        let next = Arc::new(AtomicU64::new(1));
        let cpu_before = pid.and_then(cpu_time);
        let started = Instant::now();
        let mut tasks = Vec::new();
        for connection in connections {
            let next = next.clone();
            let calls = self.calls;
            let count = self.count;
            tasks.push(tokio::spawn(worker(connection, calls, count, next)));
        }
        let mut latencies = Vec::with_capacity(self.count as usize);
        for task in tasks {
            latencies.extend(task.await??);
        }
        let elapsed = started.elapsed();
        let cpu = pid
            .and_then(cpu_time)
            .zip(cpu_before)
            .map(|(after, before)| after - before);
        if latencies.len() as u64 != self.count {
            return Err(format!("{} answers for {} calls", latencies.len(), self.count).into());
        }
        Ok(CallRun {
            label: self.label,
            mode: "http",
            era: match self.calls.era {
                Era::Legacy => "legacy",
                Era::Modern => "modern",
            },
            concurrency: self.workers,
            calls: self.count,
            elapsed,
            latencies: Latencies(latencies),
            cpu,
            peak_rss_kb: pid.and_then(|pid| status_kb(pid, "VmHWM")),
            startup,
            writes: None,
        })
    }
}

/// Takes call ids from `next` until `count` are taken; checks every answer.
async fn worker(
    mut connection: Connection,
    calls: Calls,
    count: u64,
    next: Arc<AtomicU64>,
) -> Result<Vec<u64>, Error> {
    let mut latencies = Vec::new();
    let mut body = Vec::with_capacity(256);
    loop {
        let id = next.fetch_add(1, Ordering::Relaxed);
        if id > count {
            return Ok(latencies);
        }
        body.clear();
        calls.request(id, &mut body);
        let sent = Instant::now();
        let answer = connection
            .send(
                Method::POST,
                Bytes::copy_from_slice(&body),
                Some(("tools/call", Some(calls.tool_name()))),
            )
            .await?;
        latencies.push(sent.elapsed().as_nanos() as u64);
        if answer.status != StatusCode::OK {
            return Err(format!("call {id}: HTTP {} {:?}", answer.status, answer.messages).into());
        }
        let response = answer
            .messages
            .iter()
            .find(|m| is_response(m))
            .ok_or_else(|| format!("call {id}: no response in the body"))?;
        let got = calls.check(response)?;
        if got != id {
            return Err(format!("call {id}: answer for {got}").into());
        }
    }
}
