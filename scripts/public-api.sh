#!/usr/bin/env bash
# The public API of every published crate (all features), one item a line, in api/<crate>.txt:
# a change to the surface shows in review as a change to those files.
#
#   scripts/public-api.sh           writes the listings
#   scripts/public-api.sh --check   compares them with the code; fails with the diff
#
# cargo-public-api reads rustdoc JSON, which only nightly rustdoc writes: RUSTC_BOOTSTRAP=1
# lets the pinned stable toolchain write it (as scripts/test.sh's docs.rs step does).
# 0.52.0 is the release whose rustdoc-types reads format 57, what rustc 1.95 writes; a
# toolchain update may need a newer one (`cargo info public-api@X -v` names its
# rustdoc-types; 0.N of rustdoc-types reads format N).
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_PUBLIC_API_VERSION=0.52.0
CRATES=(ferromcp ferromcp-core ferromcp-macros ferromcp-otel ferromcp-redis ferromcp-client)

# The pinned version, in cargo's own bin directory (installed there when missing or another
# version), so later clones on the same machine reuse it.
tool="${CARGO_HOME:-$HOME/.cargo}/bin/cargo-public-api"
if [[ "$("$tool" --version 2>/dev/null || true)" != "cargo-public-api $CARGO_PUBLIC_API_VERSION" ]]; then
  cargo install --locked cargo-public-api --version "$CARGO_PUBLIC_API_VERSION"
fi

check=false
[[ "${1:-}" == "--check" ]] && check=true
out=api
if $check; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi

for crate in "${CRATES[@]}"; do
  # Blanket impls (`impl<T> Into<U> for T`, …) are left out: they say nothing about this
  # crate. Its own target directory: RUSTC_BOOTSTRAP would otherwise rebuild the main one.
  RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=target/public-api \
    "$tool" public-api --package "$crate" --all-features --omit blanket-impls --color never \
    > "$out/$crate.txt"
done

if $check; then
  if ! diff -ru api "$out"; then
    echo "error: the public API changed (above: - listed in api/, + now); if that is intended," >&2
    echo "run scripts/public-api.sh and commit the listings in api/" >&2
    exit 1
  fi
fi
