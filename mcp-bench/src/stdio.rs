//! The stdio modes: spawn the server, speak newline-delimited JSON-RPC on its stdin/stdout.
//! Plain threads and blocking pipes, so the driver spends as little CPU as it can on the two
//! cores it shares with the server.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::calls::{Calls, Era, is_response};
use crate::report::{CallRun, Latencies, Sampler, cpu_time};

/// What to run.
#[derive(Debug)]
pub struct StdioRun {
    /// The server's label in the report.
    pub label: String,
    /// Requests and checks.
    pub calls: Calls,
    /// How many calls.
    pub count: u64,
    /// How many in flight (1 = sequential).
    pub pipeline: usize,
    /// Pipelined: one write per request, as a client that writes each message as it is
    /// made does, instead of filling a 64 KiB buffer and writing it when the window is full.
    pub write_each: bool,
    /// The server command.
    pub command: Vec<String>,
    /// The whole run is abandoned (and the server killed) after this long.
    pub timeout: Duration,
}

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Reads one line; `Ok(None)` at end of stream.
fn read_line(reader: &mut BufReader<ChildStdout>, line: &mut Vec<u8>) -> Result<bool, Error> {
    line.clear();
    Ok(reader.read_until(b'\n', line)? > 0)
}

/// Reads lines until a response arrives; server notifications are skipped.
fn read_response(reader: &mut BufReader<ChildStdout>, line: &mut Vec<u8>) -> Result<Value, Error> {
    loop {
        if !read_line(reader, line)? {
            return Err("the server closed its stdout".into());
        }
        let message: Value = serde_json::from_slice(line).map_err(|e| {
            format!(
                "not JSON from the server ({e}): {}",
                String::from_utf8_lossy(line)
            )
        })?;
        if is_response(&message) {
            return Ok(message);
        }
    }
}

/// Kills the child if the run outlives its timeout.
fn watchdog(child: Arc<Mutex<Child>>, timeout: Duration) -> Arc<AtomicU64> {
    let done = Arc::new(AtomicU64::new(0));
    let flag = done.clone();
    std::thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if flag.load(Ordering::Relaxed) == 1 {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if let Ok(mut child) = child.lock() {
            eprintln!("mcp-bench: timed out after {timeout:?}; killing the server");
            let _ = child.kill();
        }
    });
    done
}

impl StdioRun {
    /// Runs the calls and returns the report (any wrong or missing answer is an error).
    pub fn run(self) -> Result<CallRun, Error> {
        let spawned = Instant::now();
        let mut child = Command::new(&self.command[0])
            .args(&self.command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {:?}: {e}", self.command[0]))?;
        let pid = child.id();
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let child = Arc::new(Mutex::new(child));
        let done = watchdog(child.clone(), self.timeout);
        let mut writer = BufWriter::with_capacity(64 * 1024, stdin);
        let mut reader = BufReader::with_capacity(64 * 1024, stdout);
        let mut line = Vec::with_capacity(4096);

        // Start-up: spawn to the first response.
        let hello = match self.calls.era {
            Era::Legacy => Calls::initialize().to_owned(),
            Era::Modern => Calls::modern_hello(),
        };
        writeln!(writer, "{hello}")?;
        writer.flush()?;
        let first = read_response(&mut reader, &mut line)?;
        let startup = spawned.elapsed();
        if first.get("result").is_none() {
            return Err(format!("the first request failed: {first}").into());
        }
        if self.calls.era == Era::Legacy {
            writeln!(writer, "{}", Calls::initialized())?;
            writer.flush()?;
        }

        let cpu_before = cpu_time(pid);
        let sampler = Sampler::start(pid);
        let started = Instant::now();
        let latencies = if self.pipeline <= 1 {
            self.sequential(writer, &mut reader, &mut line)?
        } else {
            self.pipelined(writer, &mut reader, &mut line, started)?
        };
        let elapsed = started.elapsed();
        let (cpu_after, peak_rss_kb) = sampler.finish();
        let cpu = cpu_after
            .zip(cpu_before)
            .map(|(after, before)| after.saturating_sub(before));

        // stdin is closed by now: the server must exit on its own.
        let status = loop {
            if let Some(status) = child.lock().map_err(|_| "poisoned")?.try_wait()? {
                break status;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        done.store(1, Ordering::Relaxed);
        if read_line(&mut reader, &mut line)? {
            return Err(format!(
                "output after the last response: {}",
                String::from_utf8_lossy(&line)
            )
            .into());
        }
        if !status.success() {
            return Err(format!("the server exited with {status}").into());
        }
        Ok(CallRun {
            label: self.label,
            mode: "stdio",
            era: match self.calls.era {
                Era::Legacy => "legacy",
                Era::Modern => "modern",
            },
            concurrency: self.pipeline.max(1),
            calls: self.count,
            elapsed,
            latencies,
            cpu,
            peak_rss_kb,
            startup,
            writes: Some(if self.write_each { "each" } else { "batched" }),
        })
    }

    /// One call in flight: write, flush, read the answer.
    fn sequential(
        &self,
        mut writer: BufWriter<std::process::ChildStdin>,
        reader: &mut BufReader<ChildStdout>,
        line: &mut Vec<u8>,
    ) -> Result<Latencies, Error> {
        let mut latencies = Vec::with_capacity(self.count as usize);
        let mut request = Vec::with_capacity(256);
        for id in 1..=self.count {
            request.clear();
            self.calls.request(id, &mut request);
            request.push(b'\n');
            let sent = Instant::now();
            writer.write_all(&request)?;
            writer.flush()?;
            let response = read_response(reader, line)?;
            latencies.push(sent.elapsed().as_nanos() as u64);
            let got = self.calls.check(&response)?;
            if got != id {
                return Err(format!("expected the answer to {id}, got {got}").into());
            }
        }
        drop(writer);
        Ok(Latencies(latencies))
    }

    /// `pipeline` calls in flight: a writer thread keeps the window full and closes stdin
    /// right after the last request (so the server sees EOF with answers still owed); this
    /// thread reads and checks every answer.
    fn pipelined(
        &self,
        mut writer: BufWriter<std::process::ChildStdin>,
        reader: &mut BufReader<ChildStdout>,
        line: &mut Vec<u8>,
        started: Instant,
    ) -> Result<Latencies, Error> {
        let count = self.count;
        let sent_at: Arc<Vec<AtomicU64>> =
            Arc::new((0..=count).map(|_| AtomicU64::new(0)).collect());
        // A slot in this channel is a call in flight: the writer fills one per request, the
        // reader empties one per answer.
        let (slots, freed) = sync_channel::<()>(self.pipeline);
        let calls = self.calls;
        let write_each = self.write_each;
        let stamps = sent_at.clone();
        let writer_thread = std::thread::spawn(move || -> std::io::Result<()> {
            let mut request = Vec::with_capacity(256);
            for id in 1..=count {
                match slots.try_send(()) {
                    Ok(()) => {}
                    Err(TrySendError::Full(())) => {
                        // The window is full: push out what is buffered, then wait.
                        writer.flush()?;
                        if slots.send(()).is_err() {
                            return Ok(());
                        }
                    }
                    Err(TrySendError::Disconnected(())) => return Ok(()),
                }
                request.clear();
                calls.request(id, &mut request);
                request.push(b'\n');
                stamps[id as usize].store(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
                writer.write_all(&request)?;
                if write_each {
                    writer.flush()?;
                }
            }
            writer.flush()?;
            // EOF with up to `pipeline` answers still owed.
            drop(writer);
            Ok(())
        });
        let mut seen = vec![false; count as usize + 1];
        let mut latencies = Vec::with_capacity(count as usize);
        let outcome = (|| -> Result<(), Error> {
            for _ in 0..count {
                let response = read_response(reader, line)?;
                let now = started.elapsed().as_nanos() as u64;
                let id = self.calls.check(&response)?;
                let slot = seen
                    .get_mut(id as usize)
                    .ok_or_else(|| format!("unknown id {id}"))?;
                if std::mem::replace(slot, true) {
                    return Err(format!("two answers to call {id}").into());
                }
                latencies.push(now.saturating_sub(sent_at[id as usize].load(Ordering::Relaxed)));
                let _ = freed.recv();
            }
            Ok(())
        })();
        drop(freed);
        let written = writer_thread
            .join()
            .map_err(|_| "the writer thread panicked")?;
        outcome?;
        written?;
        Ok(Latencies(latencies))
    }
}
