#!/usr/bin/env python3
"""Summarizes a results-<date>.jsonl written by benches/peers/run.sh as Markdown, ready for
docs/benchmarks.md: per case and server the medians over the rounds, and the ratios of ours
to each peer (throughput: ours / peer, so > 1 means ours is faster; p50 and CPU per call:
ours / peer, so < 1 means ours is lower).

    python3 benches/peers/report.py target/peers/results-<date>.jsonl
"""

import json
import statistics
import sys
from collections import defaultdict

CASES = {
    "seq": "stdio, sequential (one call in flight)",
    "pipe": "stdio, pipelined",
    "pipe-each": "stdio, pipelined, one write per request",
    "big": "stdio, a 100 KB string echoed (8 in flight)",
    "http-sse": "Streamable HTTP, 2025-11-25 sessions, SSE responses",
    "http-json": "Streamable HTTP, 2025-11-25, JSON responses",
    "http-modern": "Streamable HTTP, 2026-07-28 (no sessions)",
    "http-1k": "Streamable HTTP, 1,000 connections, 2025-11-25 (ours: 1,000 sessions)",
    "http-1k-modern": "Streamable HTTP, 1,000 connections, 2026-07-28",
    "sessions": "memory per open 2025-11-25 HTTP session",
}
NOTES = {
    ("http-sse", "rmcp"): "default config, no TCP_NODELAY",
    ("http-sse", "rmcp-nodelay"): "TCP_NODELAY on accepted sockets",
    ("http-json", "rmcp-stateless"): "rmcp answers JSON only without sessions",
    ("http-modern", "rmcp"): "JSON responses (`json_response`)",
    ("http-modern", "rmcp-sse"): "rmcp's default: SSE responses, no TCP_NODELAY",
    ("http-modern", "rmcp-sse-nodelay"): "SSE responses, TCP_NODELAY",
    ("seq", "ours-ct"): "the same server on tokio's current-thread runtime",
    ("pipe", "ours-ct"): "the same server on tokio's current-thread runtime",
    ("seq", "rmcp-pipes"): "`stdio_pipes()` instead of `stdio()`",
    ("pipe", "rmcp-pipes"): "`stdio_pipes()` instead of `stdio()`",
    ("pipe-each", "ours-ct"): "the same server on tokio's current-thread runtime",
    ("pipe-each", "rmcp-pipes"): "`stdio_pipes()` instead of `stdio()`",
    ("big", "ours-ct"): "the same server on tokio's current-thread runtime",
    ("big", "rmcp-pipes"): "`stdio_pipes()` instead of `stdio()`",
    ("http-1k", "rmcp-stateless"): "rmcp's best here: no sessions, JSON responses",
    ("http-1k-modern", "rmcp"): "JSON responses (`json_response`)",
}


def median(rows, key):
    values = [r[key] for r in rows if isinstance(r.get(key), (int, float))]
    return statistics.median(values) if values else None


def fmt(value, digits=0):
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def ratio(ours, peer):
    if ours is None or peer is None or peer == 0:
        return "–"
    return f"{ours / peer:.2f}"


def spread(rows, key):
    values = [r[key] for r in rows if isinstance(r.get(key), (int, float))]
    if len(values) < 2 or not statistics.median(values):
        return "–"
    return f"±{50 * (max(values) - min(values)) / statistics.median(values):.0f}%"


def load(path):
    meta, groups, failed = {}, defaultdict(list), defaultdict(int)
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            record = json.loads(line)
            if "meta" in record:
                meta = record["meta"]
                continue
            case, _, server = record.get("label", "?/?").partition("/")
            if record.get("failed"):
                failed[(case, server)] += 1
            else:
                groups[(case, server)].append(record)
    return meta, groups, failed


def throughput_table(case, servers, groups, failed):
    ours = groups.get((case, "ours"), [])
    first = (ours or next((groups[(case, s)] for s in servers if groups.get((case, s))), [{}]))[0]
    shape = f"{first.get('calls', '?')} calls"
    if first.get("mode") == "stdio":
        shape += f", {first.get('pipeline', '?')} in flight"
    elif "workers" in first:
        shape += f", {first['workers']} workers"
    out = [f"**{CASES.get(case, case)}** ({shape}; medians over the rounds)", "",
           "| server | runs | calls/s | spread | ours ÷ peer, calls/s | p50 µs | ours ÷ peer, p50 "
           "| p99 µs | CPU µs/call | ours ÷ peer, CPU | peak RSS MiB | start-up ms |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for server in servers:
        rows = groups.get((case, server), [])
        m = {k: median(rows, k) for k in
             ("calls_per_s", "p50_us", "p99_us", "cpu_us_per_call", "peak_rss_kb", "startup_ms")}
        o = {k: median(ours, k) for k in m}
        notes = [NOTES[(case, server)]] if (case, server) in NOTES else []
        if rows and rows[0].get("calls") != first.get("calls"):
            notes.append(f"{rows[0].get('calls')} calls")
        name = server + (f" ({'; '.join(notes)})" if notes else "")
        if failed.get((case, server)):
            name += f" — {failed[(case, server)]} failed"
        rss = m["peak_rss_kb"] / 1024 if m["peak_rss_kb"] is not None else None
        out.append(
            f"| {name} | {len(rows)} | {fmt(m['calls_per_s'])} | {spread(rows, 'calls_per_s')} "
            f"| {ratio(o['calls_per_s'], m['calls_per_s'])} | {fmt(m['p50_us'], 1)} "
            f"| {ratio(o['p50_us'], m['p50_us'])} | {fmt(m['p99_us'], 1)} "
            f"| {fmt(m['cpu_us_per_call'], 1)} | {ratio(o['cpu_us_per_call'], m['cpu_us_per_call'])} "
            f"| {fmt(rss, 1)} | {fmt(m['startup_ms'], 1)} |")
    return out


def sessions_table(case, servers, groups, failed):
    ours = groups.get((case, "ours"), [])
    first = (ours or next((groups[(case, s)] for s in servers if groups.get((case, s))), [{}]))[0]
    out = [f"**{CASES[case]}** ({first.get('count', '?')} sessions; medians over the rounds)", "",
           "| server | runs | RSS before, MiB | RSS open, MiB | KiB per session "
           "| ours ÷ peer | RSS after DELETE, MiB | returned |",
           "|---|---|---|---|---|---|---|---|"]
    for server in servers:
        rows = groups.get((case, server), [])
        mib = {k: (v / 1024 if v is not None else None) for k, v in
               ((k, median(rows, k)) for k in ("rss_base_kb", "rss_open_kb", "rss_after_delete_kb"))}
        per = median(rows, "kb_per_session")
        name = server + (f" — {failed[(case, server)]} failed" if failed.get((case, server)) else "")
        out.append(f"| {name} | {len(rows)} | {fmt(mib['rss_base_kb'], 1)} | {fmt(mib['rss_open_kb'], 1)} "
                   f"| {fmt(per, 1)} | {ratio(median(ours, 'kb_per_session'), per)} "
                   f"| {fmt(mib['rss_after_delete_kb'], 1)} | {fmt(median(rows, 'returned_pct'))}% |")
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report.py RESULTS.jsonl")
    meta, groups, failed = load(sys.argv[1])
    out = []
    if meta:
        out += [f"Machine: {meta.get('nproc')} cores (`nproc`), `{meta.get('cpu')}` (as `/proc/cpuinfo` "
                f"names it), Linux {meta.get('kernel')}, {meta.get('rustc')}, Node {meta.get('node')}. "
                f"Date: {meta.get('date')}. Load average at the start: {' / '.join(meta.get('load', []))}.", ""]
    keys = set(groups) | set(failed)
    for case in list(CASES) + sorted({c for c, _ in keys} - set(CASES)):
        servers = sorted({s for c, s in keys if c == case}, key=lambda s: (s != "ours", s))
        if not servers:
            continue
        table = sessions_table if case == "sessions" else throughput_table
        out += table(case, servers, groups, failed) + [""]
    print("\n".join(out).rstrip())


if __name__ == "__main__":
    main()
