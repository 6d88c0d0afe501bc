#!/usr/bin/env bash
# A bounded soak (not part of CI or scripts/test.sh; see docs/benchmarks.md, "Soak").
#
#   SOAK_SECONDS=1800 scripts/soak.sh     # the default: 30 minutes
#
# Builds `mcp-bench` in release, starts `mcp-bench serve --soak` on 127.0.0.1 (HTTP), and
# runs `mcp-bench soak` against it for SOAK_SECONDS: both eras over HTTP (1,000 legacy
# sessions opened and closed, calls with progress, subscriptions/listen streams, GET streams,
# cancellations, clients disconnecting mid-stream) and over stdio (two servers the driver
# starts, one per era). Every 10 s it samples each server's RSS, open file descriptors
# (/proc/PID/fd), threads and live tokio tasks (which the server reports on its stderr)
# into a CSV, and prints first/last/max after the warm-up.
# Exits non-zero on any client error, lost answer, or server that died.
#
# Environment: SOAK_SECONDS (1800), SOAK_PORT (18090), SOAK_SESSIONS (1000),
# SOAK_WARMUP (60 s left out of the summary), SOAK_OUT (target/soak), CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${SOAK_SECONDS:-1800}
port=${SOAK_PORT:-18090}
sessions=${SOAK_SESSIONS:-1000}
warmup=${SOAK_WARMUP:-60}
target=${CARGO_TARGET_DIR:-target}
out=${SOAK_OUT:-$target/soak}
mkdir -p "$out"
csv=$out/samples.csv
pids_file=$out/stdio-pids
rm -f "$pids_file"

cargo build --release -p mcp-bench
bench=$target/release/mcp-bench

"$bench" serve --soak --http "127.0.0.1:$port" 2>"$out/server.log" &
server=$!
driver=
stop() {
  [ -n "$driver" ] && kill "$driver" 2>/dev/null || true
  kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap stop EXIT

# Wait (at most 30 s) until the server listens.
for _ in $(seq 300); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  kill -0 "$server" 2>/dev/null || { echo "soak: the server exited at start" >&2; exit 1; }
  sleep 0.1
done

"$bench" soak --seconds "$seconds" --port "$port" --sessions "$sessions" \
  --stdio-pids "$pids_file" -- "$bench" serve --soak >"$out/report.json" 2>"$out/driver.log" &
driver=$!

sample() { # name pid elapsed
  local name=$1 pid=$2 t=$3 rss threads fds tasks
  [ -r "/proc/$pid/status" ] || return 0
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
  threads=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")
  fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
  # The live tokio tasks the server last reported (every 10 s, on its stderr).
  tasks=$(grep -hoE "soak-tasks pid=$pid alive=[0-9]+" "$out/server.log" "$out/driver.log" \
    2>/dev/null | tail -n 1 | sed 's/.*alive=//')
  [ -n "$rss" ] && echo "$t,$name,$pid,$rss,$fds,$threads,${tasks:-}" >>"$csv"
}

echo "t_s,process,pid,rss_kb,fds,threads,tasks" >"$csv"
start=$(date +%s)
# Bounded: the driver's own run plus its grace, then it is stopped.
limit=$((seconds + 180))
while kill -0 "$driver" 2>/dev/null; do
  t=$(($(date +%s) - start))
  if [ "$t" -gt "$limit" ]; then
    echo "soak: the driver outlived its run by 180 s; stopping it" >&2
    kill "$driver"
    break
  fi
  sample http "$server" "$t"
  if [ -r "$pids_file" ]; then
    while read -r name pid; do sample "$name" "$pid" "$t"; done <"$pids_file"
  fi
  for _ in $(seq 100); do
    kill -0 "$driver" 2>/dev/null || break
    sleep 0.1
  done
done
status=0
wait "$driver" || status=$?
driver=
t=$(($(date +%s) - start))
sample http "$server" "$t"
alive=1
kill -0 "$server" 2>/dev/null || alive=0

echo "soak: $seconds s; samples in $csv, logs in $out/"
cat "$out/report.json" 2>/dev/null || true
python3 - "$csv" "$warmup" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
warm = int(sys.argv[2])
for name in dict.fromkeys(r["process"] for r in rows):
    mine = [r for r in rows if r["process"] == name]
    after = [r for r in mine if int(r["t_s"]) >= warm] or mine
    print(f"{name} (pid {mine[0]['pid']}, {len(mine)} samples, {len(after)} after {warm} s of warm-up):")
    for key, unit in (("rss_kb", " KiB"), ("fds", ""), ("threads", ""), ("tasks", "")):
        v = [int(r[key]) for r in after if r.get(key)]
        if v:
            print(f"  {key:8} first {v[0]}{unit}, last {v[-1]}{unit}, max {max(v)}{unit}")
EOF
if [ "$alive" -ne 1 ]; then
  echo "soak: FAILED: the HTTP server died (see $out/server.log)" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "soak: FAILED (driver exit $status):" >&2
  tail -n 20 "$out/driver.log" >&2
  exit 1
fi
echo "soak: passed: no client error, no lost answer"
