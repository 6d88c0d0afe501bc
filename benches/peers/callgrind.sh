#!/usr/bin/env bash
# Instructions per tools/call, counted by callgrind in the server process: for each server,
# mcp-bench's stdio sequential mode runs the server under valgrind twice, SHORT and LONG
# calls, and (Ir(LONG) - Ir(SHORT)) / (LONG - SHORT) cancels start-up, initialize and exit.
# Instruction counts do not depend on the machine's load, so this is the regression guard
# (benches/peers/README.md).
#
#   benches/peers/callgrind.sh              ours, rmcp, floor
#   WITH_TS=1 benches/peers/callgrind.sh    and the TypeScript SDK (slow: node's JIT)
#
# SHORT (default 2000) and LONG (12000) set the counts, TOOL (echo) the tool. The out
# files are kept in target/peers/callgrind/ for callgrind_annotate.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

SHORT=${SHORT:-2000}
LONG=${LONG:-12000}
TOOL=${TOOL:-echo}
((LONG > SHORT)) || { echo "callgrind: LONG must be larger than SHORT" >&2; exit 2; }

say() { printf 'callgrind: %s\n' "$*" >&2; }
if ! command -v valgrind >/dev/null; then
  say "installing valgrind"
  apt-get update -qq && apt-get install -y -qq valgrind >/dev/null
fi

say "building mcp-bench, rmcp-server and floor"
cargo build --release --quiet -p mcp-bench
CARGO_TARGET_DIR="$root/target/peers" cargo build --release --quiet --manifest-path "$here/Cargo.toml"

bench="$root/target/release/mcp-bench"
servers=(
  "ours|$bench serve"
  "rmcp|$root/target/peers/release/rmcp-server"
  "rmcp-pipes|$root/target/peers/release/rmcp-server --pipes"
  "floor|$root/target/peers/release/floor"
)
if [[ ${WITH_TS:-0} == 1 ]]; then
  [[ -d $here/ts/node_modules ]] || (cd "$here/ts" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  servers+=("ts|node $here/ts/server.mjs")
fi

dir="$root/target/peers/callgrind"
mkdir -p "$dir"

# The total Ir of a callgrind out file: its `summary:` line (`totals:` in older files).
instructions() {
  awk '/^(summary|totals):/ { print $2; exit }' "$1"
}

rows=()
for entry in "${servers[@]}"; do
  IFS='|' read -r who cmd <<<"$entry"
  declare -A ir=()
  for calls in "$SHORT" "$LONG"; do
    file="$dir/$who-$TOOL-$calls.out"
    rm -f "$file"
    say "$who: $calls calls"
    # shellcheck disable=SC2086 # the server command is split into words on purpose
    "$bench" stdio --calls "$calls" --pipeline 1 --tool "$TOOL" --label "callgrind/$who" -- \
      valgrind --tool=callgrind --callgrind-out-file="$file" $cmd \
      >"$dir/$who-$TOOL-$calls.json" 2>"$dir/$who-$TOOL-$calls.log" ||
      { say "$who failed: see $dir/$who-$TOOL-$calls.log"; exit 1; }
    ir[$calls]=$(instructions "$file")
    [[ -n ${ir[$calls]} ]] || { say "no summary in $file"; exit 1; }
  done
  per_call=$(( (ir[$LONG] - ir[$SHORT]) / (LONG - SHORT) ))
  rows+=("$who|${ir[$SHORT]}|${ir[$LONG]}|$per_call")
  unset ir
done

ours=$(printf '%s\n' "${rows[@]}" | awk -F'|' '$1 == "ours" { print $4 }')
printf '\nInstructions per `tools/call` of `%s` over stdio (callgrind Ir, server process, %s − %s calls):\n\n' \
  "$TOOL" "$LONG" "$SHORT"
printf '| server | Ir, %s calls | Ir, %s calls | Ir per call | ours ÷ server |\n|---|---|---|---|---|\n' \
  "$SHORT" "$LONG"
for row in "${rows[@]}"; do
  IFS='|' read -r who short long per <<<"$row"
  printf '| %s | %s | %s | %s | %s |\n' "$who" "$short" "$long" "$per" \
    "$(awk -v o="$ours" -v p="$per" 'BEGIN { printf "%.2f", o / p }')"
done
