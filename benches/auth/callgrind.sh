#!/usr/bin/env bash
# Instructions per HTTP call with authentication off and on, both eras: the server
# (`mcp-bench serve`, as in throughput.sh) under callgrind for SHORT and LONG calls; per
# call = (LONG total − SHORT total) / (LONG − SHORT). Profiles stay in $OUT for
# callgrind_annotate.
#
#   cargo build --release -p mcp-bench && benches/auth/callgrind.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
SHORT=${SHORT:-1000} LONG=${LONG:-6000} P=${PORT:-18124} OUT=${OUT:-/tmp/mcp-auth-callgrind}
mkdir -p "$OUT"
rm -f "$OUT"/*.out*
source benches/auth/token.sh
B=./target/release/mcp-bench
for era in legacy modern; do
  for n in "$SHORT" "$LONG"; do
    $B http --calls "$n" --workers 4 --tool echo --era $era --port "$P" --label off -- \
      valgrind --tool=callgrind --callgrind-out-file="$OUT/$era-off-$n.out" \
      $B serve --http '{addr}' >/dev/null 2>&1
    MCP_BENCH_BEARER=$TOKEN $B http --calls "$n" --workers 4 --tool echo --era $era \
      --port "$P" --label on -- \
      valgrind --tool=callgrind --callgrind-out-file="$OUT/$era-on-$n.out" \
      $B serve --http '{addr}' --auth-issuer "$MCP_AUTH_ISSUER" >/dev/null 2>&1
  done
  for mode in off on; do
    short=$(awk '/^summary:/ {print $2}' "$OUT/$era-$mode-$SHORT.out")
    long=$(awk '/^summary:/ {print $2}' "$OUT/$era-$mode-$LONG.out")
    echo "$era auth $mode: $(( (long - short) / (LONG - SHORT) )) instructions per call"
  done
done
