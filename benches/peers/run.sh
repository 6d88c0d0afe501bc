#!/usr/bin/env bash
# Runs mcp-bench against our SDK's server and the peers (rmcp, the TypeScript SDK, the
# hand-written floor), alternating servers within each round, and prints report.py's
# Markdown table. Every result line goes to target/peers/results-<date>.jsonl, the drivers'
# and servers' stderr to the .log beside it. See benches/peers/README.md.
#
#   benches/peers/run.sh                      the full set, ROUNDS=5
#   ROUNDS=1 QUICK=1 benches/peers/run.sh     a smoke run (small counts, under 2 minutes)
#
# Counts (defaults, QUICK=1 ones in brackets): SEQ_CALLS 20000 [2000], PIPE_CALLS 100000
# [10000], PIPELINE 32, HTTP_CALLS 50000 [3000], HTTP_SLOW_CALLS 5000 [500] (see below),
# HTTP_WORKERS 16, SESSIONS 2000 [200], BIG_CALLS 10000 [1000], BIG_PIPELINE 8, BIG_PAYLOAD
# 100000, WIDE_CALLS 100000 [10000], WIDE_WORKERS 1000, TOOL echo. CASES limits the run to
# some of: seq pipe pipe-each big http-sse http-json http-modern http-1k http-1k-modern
# sessions startup (space-separated). `pipe` fills a 64 KiB buffer and writes it
# when the window is full; `pipe-each` writes each request with a write of its own, as clients
# do; `big` echoes a BIG_PAYLOAD-byte string, BIG_PIPELINE calls in flight; `http-1k` and
# `http-1k-modern` are WIDE_WORKERS connections at once (each its own legacy session in
# `http-1k`), against rmcp's best configuration for that load (stateless, JSON). `startup`
# runs startup.py after the rounds: STARTUP_SAMPLES [10] spawns per server and round
# (default 40), servers alternated, start-up to the first response (the start-up column of
# the other tables is one sample per case and round, taken while the driver also starts
# its watchdog).
# Exits non-zero if any run failed; the others still count.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

quick=${QUICK:-0}
pick() { if [[ $quick == 1 ]]; then echo "$2"; else echo "$1"; fi; }
ROUNDS=${ROUNDS:-5}
SEQ_CALLS=${SEQ_CALLS:-$(pick 20000 2000)}
PIPE_CALLS=${PIPE_CALLS:-$(pick 100000 10000)}
PIPELINE=${PIPELINE:-32}
HTTP_CALLS=${HTTP_CALLS:-$(pick 50000 3000)}
HTTP_WORKERS=${HTTP_WORKERS:-16}
HTTP_SLOW_CALLS=${HTTP_SLOW_CALLS:-$(pick 5000 500)}
SESSIONS=${SESSIONS:-$(pick 2000 200)}
BIG_CALLS=${BIG_CALLS:-$(pick 10000 1000)}
BIG_PIPELINE=${BIG_PIPELINE:-8}
BIG_PAYLOAD=${BIG_PAYLOAD:-100000}
WIDE_CALLS=${WIDE_CALLS:-$(pick 100000 10000)}
WIDE_WORKERS=${WIDE_WORKERS:-1000}
TOOL=${TOOL:-echo}
STARTUP_SAMPLES=${STARTUP_SAMPLES:-$(pick 40 10)}
CASES=${CASES:-seq pipe pipe-each big http-sse http-json http-modern http-1k http-1k-modern sessions startup}

say() { printf 'peers: %s\n' "$*" >&2; }
die() { printf 'peers: error: %s\n' "$*" >&2; exit 1; }

# --- build ---------------------------------------------------------------------------------
command -v node >/dev/null || die "node (>= 18) is needed for the TypeScript peer"
say "building mcp-bench (target/release)"
cargo build --release --quiet -p mcp-bench
say "building rmcp-server and floor (target/peers/release)"
CARGO_TARGET_DIR="$root/target/peers" cargo build --release --quiet --manifest-path "$here/Cargo.toml"
ts_stamp="$here/ts/node_modules/.lock-sha256"
ts_want=$(cat "$here/ts/package.json" "$here/ts/package-lock.json" | sha256sum | cut -d' ' -f1)
if [[ ! -f $ts_stamp || $(<"$ts_stamp") != "$ts_want" ]]; then
  say "installing the TypeScript SDK from package-lock.json"
  (cd "$here/ts" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  printf '%s\n' "$ts_want" >"$ts_stamp"
fi

bench="$root/target/release/mcp-bench"
rmcp="$root/target/peers/release/rmcp-server"
floor="$root/target/peers/release/floor"
ts=(node "$here/ts/server.mjs")

stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
out="$root/target/peers/results-$stamp.jsonl"
log="$root/target/peers/results-$stamp.log"
mkdir -p "$root/target/peers"
: >"$out"
: >"$log"

# The machine, for the report.
python3 - "$out" <<'EOF'
import json, os, platform, subprocess, sys
def run(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
meta = {"nproc": os.cpu_count(), "cpu": model, "kernel": platform.release(),
        "rustc": run("rustc", "--version"), "node": run("node", "--version"),
        "date": subprocess.run(["date", "-u", "+%Y-%m-%d"], capture_output=True, text=True).stdout.strip(),
        "load": open("/proc/loadavg").read().split()[:3]}
with open(sys.argv[1], "a") as f:
    f.write(json.dumps({"meta": meta}) + "\n")
EOF

# --- one run -------------------------------------------------------------------------------
failures=0
port=18700
# run LABEL DRIVER-ARGS... -- SERVER...: one mcp-bench run, its JSON line appended to $out.
run() {
  local label=$1 line rc=0
  shift
  printf '== %s: %s\n' "$label" "$*" >>"$log"
  line=$("$bench" "$@" 2>>"$log") || rc=$?
  line=$(printf '%s\n' "$line" | tail -n 1)
  if [[ $rc != 0 || $line != \{* ]]; then
    failures=$((failures + 1))
    say "FAILED ($rc): $label (see $log)"
    printf '{"label":"%s","failed":true,"exit":%d}\n' "$label" "$rc" >>"$out"
    return 0
  fi
  printf '%s\n' "$line" >>"$out"
  say "$label: $(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(", ".join(f"{k}={r[k]}" for k in ("calls_per_s","p50_us","cpu_us_per_call","kb_per_session") if k in r))' "$line")"
}

# Each case lists its servers as "LABEL|DRIVER-ARGS|SERVER-COMMAND[|CALLS]"; {addr} is the
# driver's. CALLS overrides the case's count for a server too slow for it (rmcp's SSE
# responses without TCP_NODELAY, see README.md): calls/s stays comparable.
servers_for() {
  case $1 in
    seq | pipe | pipe-each)
      echo "ours|stdio|$bench serve"
      echo "ours-ct|stdio|$bench serve --current-thread"
      echo "rmcp|stdio|$rmcp"
      echo "rmcp-pipes|stdio|$rmcp --pipes"
      echo "ts|stdio|${ts[*]}"
      echo "floor|stdio|$floor" ;;
    big)
      echo "ours|stdio|$bench serve"
      echo "ours-ct|stdio|$bench serve --current-thread"
      echo "rmcp-pipes|stdio|$rmcp --pipes"
      echo "floor|stdio|$floor" ;;
    http-sse)
      echo "ours|http --era legacy|$bench serve --http {addr} --sse"
      echo "rmcp|http --era legacy|$rmcp --http {addr}|$HTTP_SLOW_CALLS"
      echo "rmcp-nodelay|http --era legacy|$rmcp --http {addr} --nodelay"
      echo "ts|http --era legacy|${ts[*]} --http {addr}" ;;
    http-json)
      echo "ours|http --era legacy|$bench serve --http {addr}"
      echo "rmcp-stateless|http --era legacy|$rmcp --http {addr} --json"
      echo "ts|http --era legacy|${ts[*]} --http {addr} --json" ;;
    http-modern)
      echo "ours|http --era modern|$bench serve --http {addr}"
      echo "rmcp|http --era modern|$rmcp --http {addr} --json"
      echo "rmcp-sse|http --era modern|$rmcp --http {addr}|$HTTP_SLOW_CALLS"
      echo "rmcp-sse-nodelay|http --era modern|$rmcp --http {addr} --nodelay" ;;
    http-1k)
      echo "ours|http --era legacy|$bench serve --http {addr}"
      echo "rmcp-stateless|http --era legacy|$rmcp --http {addr} --json" ;;
    http-1k-modern)
      echo "ours|http --era modern|$bench serve --http {addr}"
      echo "rmcp|http --era modern|$rmcp --http {addr} --json" ;;
    sessions)
      echo "ours|sessions|$bench serve --http {addr}"
      echo "rmcp|sessions|$rmcp --http {addr}"
      echo "ts|sessions|${ts[*]} --http {addr}" ;;
    *) die "unknown case \`$1\` in CASES" ;;
  esac
}

# case_args CASE [CALLS]: the driver's flags for a case (CALLS: the server's own count).
case_args() {
  case $1 in
    seq) echo "--calls ${2:-$SEQ_CALLS} --pipeline 1 --tool $TOOL" ;;
    pipe) echo "--calls ${2:-$PIPE_CALLS} --pipeline $PIPELINE --tool $TOOL" ;;
    pipe-each) echo "--calls ${2:-$PIPE_CALLS} --pipeline $PIPELINE --writes each --tool $TOOL" ;;
    big) echo "--calls ${2:-$BIG_CALLS} --pipeline $BIG_PIPELINE --tool echo --payload $BIG_PAYLOAD" ;;
    http-1k*) echo "--calls ${2:-$WIDE_CALLS} --workers $WIDE_WORKERS --tool $TOOL" ;;
    http-*) echo "--calls ${2:-$HTTP_CALLS} --workers $HTTP_WORKERS --tool $TOOL" ;;
    sessions) echo "--count $SESSIONS" ;;
  esac
}

say "results: $out"
for ((round = 1; round <= ROUNDS; round++)); do
  say "round $round of $ROUNDS"
  for c in $CASES; do
    [[ $c == startup ]] && continue
    mapfile -t servers < <(servers_for "$c")
    # Start each round's rotation one server later, so no server always runs first.
    n=${#servers[@]}
    for ((i = 0; i < n; i++)); do
      IFS='|' read -r who driver cmd calls <<<"${servers[(i + round - 1) % n]}"
      # A new port for each server: no run waits for the last one's socket to be released.
      port=$((port >= 18799 ? 18700 : port + 1))
      extra=()
      [[ $driver == stdio ]] || extra=(--port "$port")
      # shellcheck disable=SC2086 # word splitting of the argument lists is intended
      run "$c/$who" $driver $(case_args "$c" "$calls") "${extra[@]}" --label "$c/$who" -- $cmd
    done
  done
done

python3 "$here/report.py" "$out"
if [[ " $CASES " == *" startup "* ]]; then
  say "start-up: $((ROUNDS * STARTUP_SAMPLES)) samples per server"
  printf '\n**Start-up** (benches/peers/startup.py)\n\n'
  python3 "$here/startup.py" "$((ROUNDS * STARTUP_SAMPLES))" 2>>"$log"
fi
if ((failures > 0)); then
  say "$failures run(s) failed; see $log"
  exit 1
fi
