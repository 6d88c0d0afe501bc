//! `mcp-bench`: a load driver for MCP servers that speaks raw JSON-RPC (so it favours no
//! SDK), and this SDK's benchmark server. See `docs/benchmarks.md` and `benches/peers/`.
//!
//! ```text
//! mcp-bench stdio    [--calls N] [--pipeline K] [--writes batched|each] [--tool echo|add|greet] [--payload BYTES] [--era legacy|modern] [--label L] -- CMD ARGS...
//! mcp-bench http     [--calls N] [--workers W] [--tool echo|add|greet] [--payload BYTES] [--era legacy|modern] [--port P] [--label L] [-- CMD ARGS...]
//! mcp-bench sessions [--count N] [--port P] [--label L] -- CMD ARGS...
//! mcp-bench serve    [--http ADDR] [--sse] [--auth-issuer URL] [--redis URL] [--otel | --metrics | --otlp]
//! mcp-bench otlp-sink [--port P]
//! mcp-bench serve    --soak [--http ADDR] [--tick-ms MS]
//! mcp-bench soak     [--seconds S] [--port P] [--sessions N] [--stdio-pids FILE] -- CMD ARGS...
//! ```
//!
//! Each run prints one JSON line on stdout and exits non-zero if any answer is wrong or
//! missing. In `http` and `sessions`, `{addr}` in ARGS becomes `127.0.0.1:P`, and every
//! request carries `Authorization: Bearer $MCP_BENCH_BEARER` when that variable is set.
//! `serve --auth-issuer URL` requires tokens from that issuer for `http://ADDR/mcp`.
//! `serve --otel` records OpenTelemetry spans and metrics (no exporter), to measure their cost;
//! `serve --metrics` records the metrics only, for a Prometheus reader;
//! `serve --otlp` exports them over OTLP as the `OTEL_*` variables configure it, for example
//! to `otlp-sink`, which accepts every export and logs its size to stderr.
//! `--payload` adds that many bytes of text to each `echo` argument (and so to each answer).
//! `serve --soak` serves the soak server (see `server::Soak`); `soak` drives one already
//! listening on `127.0.0.1:P` and two stdio servers it starts with CMD ARGS (see `soak.rs`
//! and `scripts/soak.sh`).

// A command-line tool: its report goes to stdout, its diagnostics to stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod calls;
mod http;
mod report;
mod server;
mod sessions;
mod sink;
mod soak;
mod stdio;

use std::time::Duration;

use calls::{Calls, Era, Tool};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// The flags before `--` and the command after it.
struct Args {
    flags: Vec<(String, Option<String>)>,
    command: Vec<String>,
}

impl Args {
    fn parse(args: impl Iterator<Item = String>) -> Result<Args, Error> {
        let mut flags = Vec::new();
        let mut command = Vec::new();
        let mut args = args.peekable();
        while let Some(arg) = args.next() {
            if arg == "--" {
                command.extend(args.by_ref());
                break;
            }
            let Some(name) = arg.strip_prefix("--") else {
                return Err(format!("unexpected argument {arg:?}").into());
            };
            let value = match args.peek() {
                Some(next) if !next.starts_with("--") => args.next(),
                _ => None,
            };
            flags.push((name.to_owned(), value));
        }
        Ok(Args { flags, command })
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.flags
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    fn has(&self, name: &str) -> bool {
        self.flags.iter().any(|(n, _)| n == name)
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, Error> {
        match self.value(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("--{name}: not a number: {v}").into()),
        }
    }

    fn check(&self, known: &[&str], needs_command: bool) -> Result<(), Error> {
        if let Some((unknown, _)) = self
            .flags
            .iter()
            .find(|(n, _)| !known.contains(&n.as_str()))
        {
            return Err(format!("unknown flag --{unknown}").into());
        }
        if needs_command && self.command.is_empty() {
            return Err("the server command goes after `--`".into());
        }
        Ok(())
    }

    fn calls(&self) -> Result<Calls, Error> {
        let era = match self.value("era").unwrap_or("legacy") {
            "legacy" => Era::Legacy,
            "modern" => Era::Modern,
            other => return Err(format!("--era: legacy or modern, not {other}").into()),
        };
        let tool = match self.value("tool").unwrap_or("echo") {
            "echo" => Tool::Echo,
            "add" => Tool::Add,
            "greet" => Tool::Greet,
            other => return Err(format!("--tool: echo, add or greet, not {other}").into()),
        };
        let payload: usize = self.number("payload", 0)?;
        if payload > 0 && tool != Tool::Echo {
            return Err("--payload: only with --tool echo".into());
        }
        // Letters only: nothing to escape, so the size on the wire is the size given.
        let pad: String = (0..payload)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        Ok(Calls {
            era,
            tool,
            pad: Box::leak(pad.into_boxed_str()),
        })
    }

    fn label(&self) -> String {
        self.value("label")
            .map(str::to_owned)
            .or_else(|| {
                self.command
                    .first()
                    .map(|c| c.rsplit('/').next().unwrap_or(c).to_owned())
            })
            .unwrap_or_default()
    }
}

const USAGE: &str = "usage:
  mcp-bench stdio    [--calls N] [--pipeline K] [--writes batched|each] [--tool echo|add|greet] [--payload BYTES] [--era legacy|modern] [--label L] [--timeout-s S] -- CMD ARGS...
  mcp-bench http     [--calls N] [--workers W] [--tool echo|add|greet] [--payload BYTES] [--era legacy|modern] [--port P] [--label L] [-- CMD ARGS...]   (no command: a server already on --port)
  mcp-bench sessions [--count N] [--port P] [--label L] -- CMD ARGS...
  mcp-bench serve    [--http ADDR] [--sse] [--auth-issuer URL] [--redis URL] [--otel | --metrics | --otlp]
  mcp-bench otlp-sink [--port P]
  mcp-bench serve    --soak [--http ADDR] [--tick-ms MS]
  mcp-bench soak     [--seconds S] [--port P] [--sessions N] [--stdio-pids FILE] -- CMD ARGS...";

/// Lets glibc keep the freed buffers of messages up to 4 MiB for reuse, as an application
/// serving large messages would (docs/stdio.md, "Tuning glibc's allocator"): one untouched
/// block of that size, allocated and freed, raises its dynamic trimming and mapping
/// thresholds. The large-message benchmarks were measured with it.
fn keep_freed_buffers() {
    let block: Vec<u8> = Vec::with_capacity(4 << 20);
    drop(std::hint::black_box(block));
}

fn main() {
    let mut argv = std::env::args().skip(1);
    let mode = argv.next().unwrap_or_default();
    let outcome = Args::parse(argv).and_then(|args| run(&mode, args));
    if let Err(e) = outcome {
        eprintln!("mcp-bench {mode}: {e}");
        if e.to_string().contains("usage") || e.to_string().contains("flag") {
            eprintln!("{USAGE}");
        }
        std::process::exit(1);
    }
}

fn run(mode: &str, args: Args) -> Result<(), Error> {
    match mode {
        "stdio" => {
            args.check(
                &[
                    "calls",
                    "pipeline",
                    "tool",
                    "era",
                    "label",
                    "timeout-s",
                    "payload",
                    "writes",
                ],
                true,
            )?;
            let write_each = match args.value("writes") {
                None | Some("batched") => false,
                Some("each") => true,
                Some(other) => return Err(format!("--writes {other}: give batched or each").into()),
            };
            let run = stdio::StdioRun {
                label: args.label(),
                calls: args.calls()?,
                count: args.number("calls", 10_000)?,
                pipeline: args.number("pipeline", 1)?,
                write_each,
                command: args.command.clone(),
                timeout: Duration::from_secs(args.number("timeout-s", 300)?),
            };
            println!("{}", run.run()?.into_json());
            Ok(())
        }
        "http" => {
            args.check(
                &[
                    "calls", "workers", "tool", "era", "port", "label", "payload",
                ],
                // Without a command: an endpoint already listening on --port.
                false,
            )?;
            let run = http::HttpRun {
                label: args.label(),
                calls: args.calls()?,
                count: args.number("calls", 20_000)?,
                workers: args.number("workers", 16)?,
                command: args.command.clone(),
                port: args.number("port", 18_080)?,
            };
            let report = driver_runtime()?.block_on(run.run())?.into_json();
            println!("{report}");
            Ok(())
        }
        "sessions" => {
            args.check(&["count", "port", "label"], true)?;
            let report = driver_runtime()?.block_on(sessions::run(
                args.label(),
                args.command.clone(),
                args.number("port", 18_081)?,
                args.number("count", 2_000)?,
            ))?;
            println!("{report}");
            Ok(())
        }
        "serve" => {
            args.check(
                &[
                    "http",
                    "sse",
                    "current-thread",
                    "auth-issuer",
                    "redis",
                    "otel",
                    "metrics",
                    "otlp",
                    "soak",
                    "tick-ms",
                ],
                false,
            )?;
            keep_freed_buffers();
            let runtime = if args.has("current-thread") {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?
            } else {
                tokio::runtime::Builder::new_multi_thread()
                    .enable_all()
                    .build()?
            };
            let addr = args.value("http").map(str::to_owned);
            if args.has("soak") {
                let tick = Duration::from_millis(args.number("tick-ms", 1_000)?);
                return runtime
                    .block_on(server::serve_soak(addr, tick))
                    .map_err(|e| e.to_string().into());
            }
            runtime
                .block_on(server::serve(
                    addr,
                    args.has("sse"),
                    args.value("auth-issuer").map(str::to_owned),
                    args.value("redis").map(str::to_owned),
                    match (args.has("otel"), args.has("metrics"), args.has("otlp")) {
                        (false, false, false) => server::Observe::Nothing,
                        (true, false, false) => server::Observe::Recorded,
                        (false, true, false) => server::Observe::Metrics,
                        (false, false, true) => server::Observe::Exported,
                        _ => return Err("give one of --otel, --metrics and --otlp".into()),
                    },
                ))
                .map_err(|e| e.to_string().into())
        }
        "otlp-sink" => {
            args.check(&["port"], false)?;
            let port = args.number("port", 4318)?;
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?
                .block_on(sink::otlp_sink(port))
                .map_err(|e| e.to_string().into())
        }
        "soak" => {
            args.check(&["seconds", "port", "sessions", "stdio-pids"], true)?;
            let soak = soak::Soak {
                duration: Duration::from_secs(args.number("seconds", 1_800)?),
                port: args.number("port", 18_082)?,
                sessions: args.number("sessions", 1_000)?,
                command: args.command.clone(),
                pid_file: args.value("stdio-pids").map(str::to_owned),
            };
            let report = driver_runtime()?.block_on(soak.run())?;
            println!("{report}");
            Ok(())
        }
        _ => Err(format!("unknown mode {mode:?}; usage").into()),
    }
}

/// The driver's own runtime: one thread, so it takes as little of the machine from the
/// server as it can.
fn driver_runtime() -> Result<tokio::runtime::Runtime, Error> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}
