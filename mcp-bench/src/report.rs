//! What a run reports: latency percentiles and the server process's CPU time and memory,
//! read from `/proc`.

use std::time::Duration;

/// Latencies of one run, in nanoseconds.
#[derive(Debug, Default)]
pub struct Latencies(pub Vec<u64>);

impl Latencies {
    /// The `p`-th percentile (0–100), in microseconds.
    pub fn percentile_us(&mut self, p: f64) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        self.0.sort_unstable();
        let rank = ((p / 100.0) * (self.0.len() - 1) as f64).round() as usize;
        self.0[rank.min(self.0.len() - 1)] as f64 / 1000.0
    }
}

/// CPU time (user + system, all threads) the process has used so far, from
/// `/proc/PID/stat` (clock ticks of 10 ms; runs are long enough for that to be fine).
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: count fields after it.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of the file (utime, stime) are 12 and 13 after the name and state.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// A `kB` figure of `/proc/PID/status` (`VmRSS`, `VmHWM`).
pub fn status_kb(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// The summary of a call run, printed as one JSON line.
#[derive(Debug)]
pub struct CallRun {
    /// The server's name in the report.
    pub label: String,
    /// `stdio` or `http`.
    pub mode: &'static str,
    /// `legacy` or `modern`.
    pub era: &'static str,
    /// Calls in flight (stdio) or workers (HTTP).
    pub concurrency: usize,
    /// Calls answered and checked.
    pub calls: u64,
    /// Wall time of the call phase.
    pub elapsed: Duration,
    /// Per-call latencies.
    pub latencies: Latencies,
    /// Server CPU time spent in the call phase.
    pub cpu: Option<Duration>,
    /// Peak resident set of the server, kB.
    pub peak_rss_kb: Option<u64>,
    /// Spawn to the first response.
    pub startup: Duration,
    /// stdio: how requests were written, `batched` (many per write) or `each` (one write per
    /// request).
    pub writes: Option<&'static str>,
}

impl CallRun {
    /// The JSON line.
    pub fn into_json(mut self) -> serde_json::Value {
        let secs = self.elapsed.as_secs_f64();
        let calls = self.calls.max(1) as f64;
        serde_json::json!({
            "label": self.label,
            "mode": self.mode,
            "writes": self.writes,
            "era": self.era,
            "pipeline": self.concurrency,
            "workers": self.concurrency,
            "calls": self.calls,
            "secs": round(secs, 4),
            "calls_per_s": round(self.calls as f64 / secs, 0),
            "p50_us": round(self.latencies.percentile_us(50.0), 1),
            "p99_us": round(self.latencies.percentile_us(99.0), 1),
            "cpu_us_per_call": self.cpu.map(|c| round(c.as_secs_f64() * 1e6 / calls, 2)),
            "peak_rss_kb": self.peak_rss_kb,
            "startup_ms": round(self.startup.as_secs_f64() * 1000.0, 2),
            "errors": 0,
        })
    }
}

/// Rounds to `digits` decimals.
pub fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// Samples a process's CPU time and peak RSS every few milliseconds, so the figures survive
/// a server that exits as soon as its input ends (its `/proc` entry goes with it).
pub struct Sampler {
    pid: u32,
    cpu_ms: std::sync::Arc<std::sync::atomic::AtomicU64>,
    hwm_kb: std::sync::Arc<std::sync::atomic::AtomicU64>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    /// Starts sampling `pid`.
    pub fn start(pid: u32) -> Sampler {
        use std::sync::atomic::Ordering::Relaxed;
        let cpu_ms = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let hwm_kb = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (c, h, s) = (cpu_ms.clone(), hwm_kb.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Relaxed) {
                if let Some(cpu) = cpu_time(pid) {
                    c.fetch_max(cpu.as_millis() as u64, Relaxed);
                }
                if let Some(kb) = status_kb(pid, "VmHWM") {
                    h.fetch_max(kb, Relaxed);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        Sampler {
            pid,
            cpu_ms,
            hwm_kb,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops sampling: the CPU time used so far and the peak RSS (a last direct reading
    /// when the process is still there, else the last sample).
    pub fn finish(mut self) -> (Option<Duration>, Option<u64>) {
        use std::sync::atomic::Ordering::Relaxed;
        if let Some(cpu) = cpu_time(self.pid) {
            self.cpu_ms.fetch_max(cpu.as_millis() as u64, Relaxed);
        }
        if let Some(kb) = status_kb(self.pid, "VmHWM") {
            self.hwm_kb.fetch_max(kb, Relaxed);
        }
        self.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let cpu = Some(Duration::from_millis(self.cpu_ms.load(Relaxed)));
        let hwm = Some(self.hwm_kb.load(Relaxed)).filter(|&kb| kb > 0);
        (cpu, hwm)
    }
}
