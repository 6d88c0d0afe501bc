#!/usr/bin/env bash
# HTTP throughput with authentication off and on (issue 13's goal: on ≥ 0.9× off), both
# eras, off and on alternated for ROUNDS rounds of CALLS calls with 16 workers. The server
# is `mcp-bench serve`; "on" adds an AuthLayer with a JwtValidator for the test
# authorization server (scripts/auth-server.sh, started and stopped here), and every request
# carries the same valid RS256 token.
#
#   cargo build --release -p mcp-bench && benches/auth/throughput.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-5} CALLS=${CALLS:-20000} P=${PORT:-18123}
source benches/auth/token.sh
echo "token: ${#TOKEN} bytes"
B=./target/release/mcp-bench
for round in $(seq "$ROUNDS"); do
  for era in legacy modern; do
    off=$($B http --calls "$CALLS" --workers 16 --tool echo --era $era --port "$P" --label off \
      -- $B serve --http '{addr}')
    on=$(MCP_BENCH_BEARER=$TOKEN $B http --calls "$CALLS" --workers 16 --tool echo --era $era \
      --port "$P" --label on -- $B serve --http '{addr}' --auth-issuer "$MCP_AUTH_ISSUER")
    python3 - "$round" "$era" "$off" "$on" <<'PY'
import json, sys
r, era, off, on = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
print(f"round {r} {era:6}: off {off['calls_per_s']:>8} calls/s {off['cpu_us_per_call']:>5} µs cpu"
      f" | on {on['calls_per_s']:>8} calls/s {on['cpu_us_per_call']:>5} µs cpu"
      f" | calls on/off {on['calls_per_s'] / off['calls_per_s']:.3f}"
      f" cpu off/on {off['cpu_us_per_call'] / on['cpu_us_per_call']:.3f}")
PY
  done
done
