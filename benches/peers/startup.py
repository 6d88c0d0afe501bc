#!/usr/bin/env python3
"""Start-up to the first response, many samples per server, servers alternated.

Each sample spawns the server with its stdin and stdout as pipes (as a client does),
writes `initialize`, reads the response line, then closes stdin and waits for the exit;
the time is from just before the spawn to the response. Nothing else runs in the driver
meanwhile (mcp-bench's start-up column also starts its watchdog thread while the server
starts, and has one sample per case and round).

Each binary is timed from a fresh copy (in a temporary directory under target/, so on the
same filesystem), made just before the samples: how a binary's file sits in the page cache
changes its start-up. On the benchmark machine a binary as the linker wrote it started
0.3 ms slower than a `cp` of it, for every server alike (quickstart 1.64 against 1.36 ms,
rmcp's 1.67 against 1.36), and by how much drifted over the day. Copies put every server in
the same state.

    benches/peers/startup.py [ROUNDS]      default 100

It times the servers that are built, and says how to build the others:
    cargo build --release -p mcp-bench -p mcp-examples      ours, quickstart
    benches/peers/run.sh builds target/peers/release/{rmcp-server,floor}
    benches/peers/compile/run.sh builds the 50-tool servers (many-ours, many-rmcp) and the
        small ones (small-ours, small-rmcp)

The small servers are the like-for-like pair: the same two tools as the peer run's, each
SDK with its stdio server features only and no logging set up (`ours` and `quickstart`
have the HTTP transport, telemetry and more linked in; `rmcp` has its HTTP server). They
run as each SDK's documentation runs stdio: small-ours on a current-thread runtime
(docs/stdio.md; small-ours-mt on tokio's default one), small-rmcp as rmcp's README does
(`#[tokio::main]`, `stdio()`), and small-rmcp-best in the configuration where rmcp starts
fastest (a current-thread runtime and `stdio_pipes()`).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
T = os.path.join(ROOT, "target")
SERVERS = [
    ("ours-ct", [f"{T}/release/mcp-bench", "serve", "--current-thread"]),
    ("ours", [f"{T}/release/mcp-bench", "serve"]),
    ("quickstart", [f"{T}/release/quickstart"]),
    ("rmcp", [f"{T}/peers/release/rmcp-server"]),
    ("rmcp-pipes", [f"{T}/peers/release/rmcp-server", "--pipes"]),
    ("floor", [f"{T}/peers/release/floor"]),
    ("small-ours", [f"{T}/peers-compile-ours/release/small-ours"]),
    ("small-ours-mt", [f"{T}/peers-compile-ours/release/small-ours", "--multi-thread"]),
    ("small-rmcp", [f"{T}/peers-compile-rmcp/release/small-rmcp"]),
    ("small-rmcp-best", [f"{T}/peers-compile-rmcp/release/small-rmcp", "--best"]),
    ("many-ours (50 tools)", [f"{T}/peers-compile-ours/release/many-ours"]),
    ("many-rmcp (50 tools)", [f"{T}/peers-compile-rmcp/release/many-rmcp"]),
]
INIT = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
        b'"2025-06-18","capabilities":{},"clientInfo":{"name":"startup","version":"1"}}}\n')


def sample(command):
    start = time.perf_counter()
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    child.stdin.write(INIT)
    child.stdin.flush()
    line = child.stdout.readline()
    elapsed = time.perf_counter() - start
    child.stdin.close()
    child.wait(timeout=10)
    if b'"result"' not in line:
        sys.exit(f"{command[0]}: no initialize result: {line[:200]!r}")
    return elapsed * 1000


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    servers = [(n, c) for n, c in SERVERS if os.access(c[0], os.X_OK)]
    for name, command in SERVERS:
        if (name, command) not in servers:
            print(f"not built, left out: {name} ({command[0]})", file=sys.stderr)
    copies = tempfile.mkdtemp(prefix="startup-", dir=T)
    try:
        fresh = {}
        for name, command in servers:
            if command[0] not in fresh:
                fresh[command[0]] = os.path.join(copies, str(len(fresh)))
                shutil.copy2(command[0], fresh[command[0]])
        servers = [(name, [fresh[command[0]]] + command[1:]) for name, command in servers]
        times = {name: [] for name, _ in servers}
        for r in range(rounds):
            # Start each round one server later, so no server always runs first.
            for name, command in servers[r % len(servers):] + servers[:r % len(servers)]:
                times[name].append(sample(command))
    finally:
        shutil.rmtree(copies)
    print(f"start-up to the first response, ms ({rounds} samples each, servers alternated; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end)\n")
    print("| server | min | p10 | p50 | p90 |")
    print("|---|---|---|---|---|")
    for name, values in times.items():
        v = sorted(values)
        print(f"| {name} | {v[0]:.2f} | {v[len(v) // 10]:.2f} | {statistics.median(v):.2f} "
              f"| {v[9 * len(v) // 10]:.2f} |")


if __name__ == "__main__":
    main()
