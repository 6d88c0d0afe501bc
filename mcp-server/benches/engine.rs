//! The engine end to end, through the public API: a client writes one JSON-RPC line into
//! `Server::serve_io` over an in-memory pipe and reads the one line that answers it.
//!
//! Each figure is the latency of one sequential call and so includes the stdio framing (line
//! splitting, the writer task, the pipe) and the client's own write and read, on a
//! current-thread tokio runtime (no cross-thread wake-ups). Every response is checked.
//!
//! - `tools_call/{legacy,modern}_{small,10kb}`: parse → dispatch → deserialize the arguments
//!   → call → serialize, in a 2025-11-25 session and with the 2026 per-request envelope.
//! - `tools_list/{legacy,modern}_50_tools`: one page of 50 macro-built tools.
//! - `request_state/*`: a modern call that elicits: round 1 ends `input_required` (the state
//!   is sealed with HMAC-SHA256), round 2 brings it back with the answer (opened, verified)
//!   and completes; and both rounds in sequence with a fresh state each time.

// Like tests, benchmarks stop loudly on a broken setup or a wrong response.
#![allow(clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::hint::black_box;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use criterion::{
    BenchmarkGroup, Criterion, criterion_group, criterion_main, measurement::WallTime,
};
use ferromcp::Era;
use ferromcp::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::runtime::Runtime;

/// The server of the `tools/call` and `request_state` benchmarks.
struct Bench;

#[derive(Deserialize, JsonSchema)]
struct Record {
    name: String,
    tags: Vec<String>,
    score: f64,
    note: String,
}

#[derive(Serialize, JsonSchema)]
struct Summary {
    records: usize,
    distinct_tags: usize,
    text_bytes: usize,
    total_score: f64,
}

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    proceed: bool,
}

#[ferromcp::server(name = "bench", version = "1.0.0")]
impl Bench {
    /// Returns its input.
    #[tool]
    fn echo(&self, text: String) -> String {
        text
    }

    /// A megabyte of text (issue 18's large resource).
    #[resource(uri = "bench://megabyte", mime_type = "text/plain")]
    fn megabyte(&self) -> &'static str {
        MEGABYTE.as_str()
    }

    /// Summarizes a batch of records.
    #[tool]
    fn ingest(&self, records: Vec<Record>) -> Json<Summary> {
        let tags: BTreeSet<&str> = records
            .iter()
            .flat_map(|r| r.tags.iter().map(String::as_str))
            .collect();
        Json(Summary {
            records: records.len(),
            distinct_tags: tags.len(),
            text_bytes: records.iter().map(|r| r.name.len() + r.note.len()).sum(),
            total_score: records.iter().map(|r| r.score).sum(),
        })
    }

    /// Runs an action once the user agrees.
    #[tool]
    async fn confirm(&self, action: String, ctx: Context) -> Result<String, ContextError> {
        Ok(
            match ctx.elicit::<Confirm>(format!("Run {action}?")).await? {
                Elicitation::Accept(Confirm { proceed: true }) => format!("ran {action}"),
                _ => "not run".to_owned(),
            },
        )
    }
}

/// 1,000,000 letters.
static MEGABYTE: LazyLock<String> = LazyLock::new(|| {
    (0..1_000_000u32)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect()
});

/// `resources/read` of a 1 MB text resource, in both eras.
fn resources_read(c: &mut Criterion) {
    let server = Server::new(Bench).expect("the bench server builds");
    let mut group = c.benchmark_group("resources_read");
    for era in [Era::Legacy, Era::Modern] {
        let mut wire = Wire::connect(&server, era);
        let read = wire.request("resources/read", json!({"uri": "bench://megabyte"}));
        let ok = wire.expect(&read, |r| {
            assert_eq!(
                r["contents"][0]["text"].as_str().map(str::len),
                Some(1_000_000)
            );
        });
        let name = format!("{}_1mb", era_name(era));
        bench_request(&mut group, &name, &mut wire, &read, &ok);
    }
    group.finish();
}

/// The server of the `tools_list` benchmark.
struct Fifty;

#[derive(Serialize, JsonSchema)]
struct Joined {
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Level {
    Low,
    High,
}

/// Writes `#[server] impl Fifty` with ten tools of each of five shapes, so `tools/list`
/// serializes a realistic mix of schemas and annotations.
macro_rules! fifty_tools {
    ($($repeat:ident)*; $($sum:ident)*; $($join:ident)*; $($scale:ident)*; $($level:ident)*) => {
        #[ferromcp::server(name = "fifty", version = "1.0.0")]
        impl Fifty {
            $(
                /// Repeats a text.
                ///
                /// # Arguments
                /// * `text` - what to repeat
                /// * `times` - how many times (once by default)
                #[tool]
                async fn $repeat(&self, text: String, times: Option<u32>) -> String {
                    text.repeat(times.unwrap_or(1) as usize)
                }
            )*
            $(
                /// Adds three numbers.
                #[tool(read_only)]
                fn $sum(&self, a: i64, b: i64, c: u8) -> String {
                    (a + b + i64::from(c)).to_string()
                }
            )*
            $(
                /// Joins items with a separator.
                ///
                /// # Arguments
                /// * `items` - the pieces, in order
                /// * `sep` - put between two pieces (nothing by default)
                #[tool(idempotent, title = "Join")]
                fn $join(&self, items: Vec<String>, sep: Option<String>) -> Json<Joined> {
                    Json(Joined { text: items.join(&sep.unwrap_or_default()) })
                }
            )*
            $(
                /// Scales a point.
                #[tool(destructive = false)]
                fn $scale(&self, point: Point, #[arg(default = 2)] factor: i32) -> String {
                    format!("{} {}", point.x * factor, point.y * factor)
                }
            )*
            $(
                /// Files a note at a level.
                #[tool(open_world = false)]
                fn $level(&self, level: Level, note: Option<String>) -> String {
                    format!("{level:?} {}", note.unwrap_or_default())
                }
            )*
        }
    };
}

fifty_tools!(
    tool_00 tool_01 tool_02 tool_03 tool_04 tool_05 tool_06 tool_07 tool_08 tool_09;
    tool_10 tool_11 tool_12 tool_13 tool_14 tool_15 tool_16 tool_17 tool_18 tool_19;
    tool_20 tool_21 tool_22 tool_23 tool_24 tool_25 tool_26 tool_27 tool_28 tool_29;
    tool_30 tool_31 tool_32 tool_33 tool_34 tool_35 tool_36 tool_37 tool_38 tool_39;
    tool_40 tool_41 tool_42 tool_43 tool_44 tool_45 tool_46 tool_47 tool_48 tool_49
);

/// What every response to a benchmarked request must look like.
struct Expect {
    prefix: Vec<u8>,
    len: usize,
}

impl Expect {
    /// Exactly `line`.
    fn exactly(line: &[u8]) -> Expect {
        Expect {
            prefix: line.to_vec(),
            len: line.len(),
        }
    }

    fn check(&self, line: &[u8]) {
        if line.len() != self.len || !line.starts_with(&self.prefix) {
            panic!(
                "unexpected response: {}\nexpected: {}…",
                String::from_utf8_lossy(line),
                String::from_utf8_lossy(&self.prefix)
            );
        }
    }
}

/// The client's end of a connection served by `Server::serve_io`.
struct Pipe {
    write: WriteHalf<DuplexStream>,
    read: BufReader<ReadHalf<DuplexStream>>,
    line: Vec<u8>,
}

impl Pipe {
    /// Writes one request line and returns the next line the server writes.
    async fn exchange(&mut self, request: &[u8]) -> &[u8] {
        self.write
            .write_all(request)
            .await
            .expect("the server reads");
        self.line.clear();
        let n = self
            .read
            .read_until(b'\n', &mut self.line)
            .await
            .expect("the server writes");
        assert!(n > 0, "the server closed the connection");
        &self.line
    }
}

/// A client of one era connected to a server, with the runtime that serves it.
struct Wire {
    rt: Runtime,
    pipe: Pipe,
    era: Era,
}

impl Wire {
    /// Connects to `server`; in the legacy era, completes the `initialize` handshake.
    fn connect(server: &Server, era: Era) -> Wire {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let (client, server_end) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_end);
        let server = server.clone();
        rt.spawn(async move { server.serve_io(server_read, server_write).await });
        let (read, write) = tokio::io::split(client);
        let mut wire = Wire {
            rt,
            pipe: Pipe {
                write,
                read: BufReader::new(read),
                line: Vec::new(),
            },
            era,
        };
        if era == Era::Legacy {
            let capabilities = json!({"elicitation": {"form": {}}});
            wire.result(&line(json!({
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": capabilities,
                    "clientInfo": {"name": "bench", "version": "1.0.0"}
                }
            })));
            let initialized =
                line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
            wire.rt
                .block_on(wire.pipe.write.write_all(&initialized))
                .expect("the server reads");
        }
        wire
    }

    /// A request line with id 1 (modern era: with the per-request `_meta` envelope).
    fn request(&self, method: &str, mut params: Value) -> Vec<u8> {
        if self.era == Era::Modern {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1.0.0"}
            });
        }
        line(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
    }

    /// Sends `request` once and returns the raw response line.
    fn raw(&mut self, request: &[u8]) -> Vec<u8> {
        let Wire { rt, pipe, .. } = self;
        rt.block_on(pipe.exchange(request)).to_vec()
    }

    /// Sends `request` once and returns its `result`, which must not be an error.
    fn result(&mut self, request: &[u8]) -> Value {
        let response: Value = serde_json::from_slice(&self.raw(request)).expect("JSON");
        let result = &response["result"];
        assert!(
            result.is_object() && result["isError"] != true,
            "{response}"
        );
        result.clone()
    }

    /// Calls once, checks the result with `check`, and returns what every later response
    /// to the same request must be.
    fn expect(&mut self, request: &[u8], check: impl FnOnce(&Value)) -> Expect {
        let raw = self.raw(request);
        let response: Value = serde_json::from_slice(&raw).expect("JSON");
        check(&response["result"]);
        Expect::exactly(&raw)
    }

    /// `iters` sequential round trips of `request`.
    fn time(&mut self, request: &[u8], expect: &Expect, iters: u64) -> Duration {
        let Wire { rt, pipe, .. } = self;
        rt.block_on(async {
            let start = Instant::now();
            for _ in 0..iters {
                expect.check(black_box(pipe.exchange(request).await));
            }
            start.elapsed()
        })
    }
}

fn line(message: Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(&message).expect("serializable");
    bytes.push(b'\n');
    bytes
}

fn era_name(era: Era) -> &'static str {
    match era {
        Era::Legacy => "legacy",
        _ => "modern",
    }
}

/// About 10 KB of arguments: 100 records.
fn records() -> Value {
    let records: Vec<Value> = (0..100)
        .map(|i| {
            json!({
                "name": format!("record-{i:04}"),
                "tags": ["alpha", "beta", format!("t{}", i % 7)],
                "score": f64::from(i) * 0.25,
                "note": "a short note \"quoted\" \u{e9}"
            })
        })
        .collect();
    json!({"records": records})
}

fn bench_request(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    wire: &mut Wire,
    request: &[u8],
    expect: &Expect,
) {
    group.bench_function(name, |b| {
        b.iter_custom(|iters| wire.time(request, expect, iters))
    });
}

fn tools_call(c: &mut Criterion) {
    let server = Server::new(Bench).expect("the bench server builds");
    let large = records();
    let mut group = c.benchmark_group("tools_call");
    for era in [Era::Legacy, Era::Modern] {
        let mut wire = Wire::connect(&server, era);
        let small = wire.request(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hello"}}),
        );
        let large = wire.request("tools/call", json!({"name": "ingest", "arguments": large}));
        assert!(large.len() > 10_000, "{} bytes", large.len());
        // 100 KB of text in and out (issue 18's large message): letters, nothing to escape.
        let text: String = (0..100_000u32)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let huge = wire.request(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": text}}),
        );
        let huge_ok = wire.expect(&huge, |r| {
            assert_eq!(
                r["content"][0]["text"].as_str().map(str::len),
                Some(100_000)
            );
        });
        let small_ok = wire.expect(&small, |r| assert_eq!(r["content"][0]["text"], "hello"));
        let large_ok = wire.expect(&large, |r| {
            assert_eq!(r["structuredContent"]["records"], 100, "{r}");
        });
        let era = era_name(era);
        bench_request(
            &mut group,
            &format!("{era}_small"),
            &mut wire,
            &small,
            &small_ok,
        );
        bench_request(
            &mut group,
            &format!("{era}_10kb"),
            &mut wire,
            &large,
            &large_ok,
        );
        bench_request(
            &mut group,
            &format!("{era}_100kb_echo"),
            &mut wire,
            &huge,
            &huge_ok,
        );
    }
    group.finish();
}

fn tools_list(c: &mut Criterion) {
    let server = Server::builder(Fifty)
        .page_size(100)
        .build()
        .expect("the fifty-tool server builds");
    let mut group = c.benchmark_group("tools_list");
    for era in [Era::Legacy, Era::Modern] {
        let mut wire = Wire::connect(&server, era);
        let request = wire.request("tools/list", json!({}));
        let ok = wire.expect(&request, |r| {
            assert_eq!(r["tools"].as_array().map(Vec::len), Some(50));
            assert!(r.get("nextCursor").is_none(), "one page");
        });
        let name = format!("{}_50_tools", era_name(era));
        bench_request(&mut group, &name, &mut wire, &request, &ok);
    }
    group.finish();
}

/// The `requestState` carried by an `input_required` response line.
fn request_state(line: &[u8]) -> &str {
    const KEY: &[u8] = br#""requestState":""#;
    let start = line
        .windows(KEY.len())
        .position(|w| w == KEY)
        .expect("a requestState")
        + KEY.len();
    let len = line[start..]
        .iter()
        .position(|&b| b == b'"')
        .expect("a closed string");
    std::str::from_utf8(&line[start..start + len]).expect("ASCII")
}

fn sealing(c: &mut Criterion) {
    let server = Server::new(Bench).expect("the bench server builds");
    let mut wire = Wire::connect(&server, Era::Modern);
    let call = |wire: &Wire, state: Option<&str>| {
        let mut params = json!({"name": "confirm", "arguments": {"action": "deploy"}});
        if let Some(state) = state {
            params["requestState"] = json!(state);
            params["inputResponses"] = json!({
                "elicitation-0": {"action": "accept", "content": {"proceed": true}}
            });
        }
        wire.request("tools/call", params)
    };
    let first = call(&wire, None);

    // Round 1's state embeds its expiry in seconds: check all but the state itself.
    let asked = wire.raw(&first);
    let state = request_state(&asked).to_owned();
    let result: Value = serde_json::from_slice(&asked).expect("JSON");
    assert_eq!(result["result"]["resultType"], "input_required", "{result}");
    let state_at = asked
        .windows(state.len())
        .position(|w| w == state.as_bytes())
        .expect("the state");
    let asked_ok = Expect {
        prefix: asked[..state_at].to_vec(),
        len: asked.len(),
    };

    let second = call(&wire, Some(&state));
    let done_ok = wire.expect(&second, |r| {
        assert_eq!(r["content"][0]["text"], "ran deploy", "{r}");
    });

    let mut group = c.benchmark_group("request_state");
    bench_request(
        &mut group,
        "round1_input_required_seals",
        &mut wire,
        &first,
        &asked_ok,
    );
    bench_request(
        &mut group,
        "round2_opens_and_completes",
        &mut wire,
        &second,
        &done_ok,
    );
    group.bench_function("both_rounds", |b| {
        b.iter_custom(|iters| {
            let Wire { rt, pipe, .. } = &mut wire;
            rt.block_on(async {
                let mut second = Vec::with_capacity(first.len() + 256);
                let start = Instant::now();
                for _ in 0..iters {
                    let asked = pipe.exchange(&first).await;
                    asked_ok.check(asked);
                    // Round 2 is round 1 with the state and the answer spliced in.
                    second.clear();
                    second.extend_from_slice(&first[..first.len() - 3]);
                    second.extend_from_slice(br#","requestState":""#);
                    second.extend_from_slice(request_state(asked).as_bytes());
                    second.extend_from_slice(
                        br#"","inputResponses":{"elicitation-0":{"action":"accept","content":{"proceed":true}}}}}"#,
                    );
                    second.push(b'\n');
                    done_ok.check(pipe.exchange(&second).await);
                }
                start.elapsed()
            })
        })
    });
    group.finish();
}

criterion_group!(benches, tools_call, resources_read, tools_list, sealing);
criterion_main!(benches);
