#!/usr/bin/env bash
# Compile time and binary size of the same 50-tool stdio server on our SDK and on rmcp
# (gen.py writes both). For each: a clean release build of the whole dependency tree (the
# registry cache is filled first, so no download is timed), then REPEAT (default 3)
# rebuilds after touching src/main.rs, i.e. the server crate alone, macros included, and
# the binary's size as built and stripped. Target dirs: target/peers-compile-{ours,rmcp}.
# The clean build runs with `--timings`: timings.py prints its slowest units and the share
# of the SDK's macro crate (and of syn, which the macros need) on stderr.
# A third row, `deps`, builds deps/ beside this script: the third-party crates that ours builds, with
# the same features, and no SDK code, so the floor that no change to the SDK's own crates
# can go below.
# ours/ and rmcp/ also hold, in src/bin/, the small two-tool servers that startup.py compares
# (same dependencies and features); only the 50-tool binary is timed, and the small ones are
# built after it.
#
#   benches/peers/compile/run.sh             all three
#   ONLY=ours benches/peers/compile/run.sh   one of them
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
REPEAT=${REPEAT:-3}
say() { printf 'compile: %s\n' "$*" >&2; }

python3 "$here/gen.py"

seconds() { # seconds COMMAND...: runs it quietly and prints its wall-clock time
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { say "failed: $*"; "$@"; exit 1; }
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.1f}')"
}

rows=()
for crate in ${ONLY:-ours rmcp deps}; do
  manifest="$here/$crate/Cargo.toml"
  export CARGO_TARGET_DIR="$root/target/peers-compile-$crate"
  cargo fetch --manifest-path "$manifest" --quiet
  rm -rf "$CARGO_TARGET_DIR"
  say "$crate: clean release build"
  clean=$(seconds cargo build --release --timings --manifest-path "$manifest" --bin "many-$crate")
  # The clean build's timings: the slowest units, and the macro crates' share.
  python3 "$here/timings.py" "$CARGO_TARGET_DIR/cargo-timings/cargo-timing.html" "$crate" >&2
  crates=$(cargo tree --manifest-path "$manifest" -e normal,build --prefix none | sed 's/ (\*)$//' | sort -u | wc -l)
  rebuilds=()
  for ((i = 0; i < REPEAT; i++)); do
    touch "$here/$crate/src/main.rs"
    say "$crate: rebuild $((i + 1)) of $REPEAT after touching src/main.rs"
    rebuilds+=("$(seconds cargo build --release --manifest-path "$manifest" --bin "many-$crate")")
  done
  rebuild=$(printf '%s\n' "${rebuilds[@]}" | sort -n | sed -n "$(((REPEAT + 1) / 2))p")
  # The small server of the start-up comparison (startup.py), untimed.
  if [[ -d $here/$crate/src/bin ]]; then
    cargo build --release --quiet --manifest-path "$manifest" --bins
  fi
  bin="$CARGO_TARGET_DIR/release/many-$crate"
  strip -o "$bin.stripped" "$bin"
  rows+=("$crate|$crates|$clean|$rebuild ($(IFS=/; echo "${rebuilds[*]}"))|$(($(stat -c %s "$bin") / 1024))|$(($(stat -c %s "$bin.stripped") / 1024))")
done
unset CARGO_TARGET_DIR

printf '\n50-tool stdio server, release profile, %s cores, %s:\n\n' "$(nproc)" "$(rustc --version)"
printf '| SDK | crates built | clean build, s | rebuild after touch, s (median; runs) | binary, KiB | stripped, KiB |\n'
printf '|---|---|---|---|---|---|\n'
for row in "${rows[@]}"; do
  IFS='|' read -r crate crates clean rebuild size stripped <<<"$row"
  printf '| %s | %s | %s | %s | %s | %s |\n' "$crate" "$crates" "$clean" "$rebuild" "$size" "$stripped"
done
