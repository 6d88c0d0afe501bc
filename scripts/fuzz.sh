#!/usr/bin/env bash
# Builds the fuzz targets in fuzz/ and runs each one for a bounded time, starting from its
# committed seeds; any crash, timeout or memory blow-up fails the script (docs/fuzzing.md).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]   (default: 20 s, every target)
#
# cargo-fuzz is installed pinned into cargo's own bin directory (as cargo-deny is), so later
# clones on the same machine reuse it. It passes nightly-only flags (-Zsanitizer,
# -Cpasses=sancov-module); the toolchain pinned in rust-toolchain.toml accepts them with
# RUSTC_BOOTSTRAP=1, so no nightly is needed.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_FUZZ_VERSION=0.13.1
cargo_fuzz="${CARGO_HOME:-$HOME/.cargo}/bin/cargo-fuzz"
if [[ "$("$cargo_fuzz" --version 2>/dev/null || true)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]]; then
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi
export RUSTC_BOOTSTRAP=1

seconds=${1:-20}
shift || true
if [[ $# -gt 0 ]]; then
  targets=("$@")
else
  mapfile -t targets < <("$cargo_fuzz" list --fuzz-dir fuzz)
fi

# Release with debug assertions (overflow checks) and no sanitizer: the SDK's crates forbid
# `unsafe`, so AddressSanitizer would double the time to find what a plain build finds.
flags=(--fuzz-dir fuzz -O -a -s none)
"$cargo_fuzz" build "${flags[@]}"

for target in "${targets[@]}"; do
  corpus=fuzz/target/corpus/$target
  artifacts=fuzz/artifacts/$target
  mkdir -p "$corpus" "$artifacts"
  seeds=()
  [[ -d fuzz/seeds/$target ]] && seeds=("fuzz/seeds/$target")
  printf -- '--- %s: %s s\n' "$target" "$seconds"
  # New inputs go to the scratch corpus (the first folder); the seeds are only read.
  "$cargo_fuzz" run "${flags[@]}" "$target" "$corpus" "${seeds[@]}" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 2>"fuzz/target/$target.log" ||
    { tail -n 60 "fuzz/target/$target.log"; echo "fuzz target $target failed; the input is in $artifacts/"; exit 1; }
  grep -E '^Done|cov: .*ft:' "fuzz/target/$target.log" | tail -n 2
done
