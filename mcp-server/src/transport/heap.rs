//! Large messages and glibc's heap: keep freed buffers for reuse.
//!
//! glibc's `malloc` gives freed memory at the top of its heap back to the kernel as soon as
//! more than 128 KiB is free there. A server that handles messages of a few hundred
//! kilobytes allocates buffers that size on every call (the line, the arguments, the
//! response), frees them, and so has their pages unmapped and faulted in, zeroed, again on
//! the next call: measured on a 100 KB echo, that doubled the server's CPU per call
//! (docs/benchmarks.md, "Large messages").
//!
//! glibc's thresholds are dynamic, as mallopt(3) documents under `M_MMAP_THRESHOLD`: freeing
//! a block it had mapped on its own raises the mapping threshold to that block's size, and
//! the trimming threshold to twice that. So one block of the largest message size,
//! allocated and freed (none of its pages touched), makes the heap keep up to twice that
//! size of freed memory for reuse. Setting `MALLOC_TRIM_THRESHOLD_`, `MALLOC_MMAP_THRESHOLD_`
//! (or the other `MALLOC_*` tunables) in the environment turns the dynamic thresholds off, and
//! then this changes nothing; with another allocator it maps and unmaps one block.

/// glibc's ceiling for the dynamic mapping threshold on 64-bit targets
/// (`DEFAULT_MMAP_THRESHOLD_MAX`): a larger freed block does not raise it.
const CEILING: usize = 32 << 20;

/// Below this, a message fits under glibc's default thresholds: nothing to do.
const DEFAULT_THRESHOLD: usize = 128 << 10;

/// Lets the allocator keep freed buffers of messages up to `largest` bytes (clamped to 32
/// MiB), once per process. Called by the transports that own the process's I/O
/// (`serve_stdio`, `serve_http*`), not by the embeddable ones.
pub(crate) fn keep_freed_buffers(largest: usize) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if largest <= DEFAULT_THRESHOLD {
        return;
    }
    ONCE.call_once(|| {
        // Past glibc's initial threshold, so it is mapped on its own, and freed at once.
        let block: Vec<u8> = Vec::with_capacity(largest.min(CEILING));
        drop(std::hint::black_box(block));
    });
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use std::process::Command;

    /// The process's minor page faults so far (`/proc/self/stat`, field 10).
    fn minor_faults() -> u64 {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
        // The command name (field 2) is in parentheses and may hold spaces.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        after.split(' ').nth(7).unwrap().parse().unwrap()
    }

    /// Page faults per round of a call's worth of buffers: four of 100 KB (each under
    /// glibc's initial mapping threshold, so from the heap), filled, then all freed; 200
    /// rounds.
    fn faults_per_round() -> f64 {
        let before = minor_faults();
        for round in 0..200u8 {
            let buffers: Vec<Vec<u8>> = (0..4).map(|_| vec![round; 100_000]).collect();
            std::hint::black_box(&buffers);
        }
        (minor_faults() - before) as f64 / 200.0
    }

    /// Run in a process of its own (a test harness has allocated and freed before): without
    /// the call, every round faults the buffer's pages in again; after it, none.
    #[test]
    fn freed_large_buffers_are_reused_after_the_call() {
        if std::env::var_os("MCP_HEAP_CHILD").is_some() {
            let without = faults_per_round();
            super::keep_freed_buffers(4 * 1024 * 1024);
            let with = faults_per_round();
            println!("faults per round: without {without}, with {with}");
            assert!(
                without > 50.0,
                "without the call: {without} faults per round"
            );
            assert!(with < 1.0, "after the call: {with} faults per round");
            return;
        }
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "transport::heap::tests::freed_large_buffers_are_reused_after_the_call",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("MCP_HEAP_CHILD", "1")
            .env_remove("MALLOC_TRIM_THRESHOLD_")
            .env_remove("MALLOC_MMAP_THRESHOLD_")
            .env_remove("GLIBC_TUNABLES")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("faults per round"),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
