#!/usr/bin/env bash
# The project's one test command: what the README names and what CI runs.
# It needs only the Rust toolchain; later stages install their own tools (pinned) first.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (all targets, all features, warnings are errors)"
cargo clippy --workspace --all-targets --all-features -- -D warnings

step "PostgreSQL for the sql-explorer tests (a throwaway cluster, stopped on exit)"
trap 'bash scripts/postgres.sh stop' EXIT
pg_env=$(bash scripts/postgres.sh start) # (an assignment, so that set -e sees a failure)
eval "$pg_env"

step "cargo test (unit, integration and doc tests)"
cargo test --workspace --all-features

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps --all-features

step "fuzz: every target for 20 s from its seeds (installs the pinned cargo-fuzz into .tools/)"
bash scripts/fuzz.sh 20

step "interop: third-party MCP clients drive the examples (installs pinned clients into .tools/)"
bash tests/interop/run.sh

step "conformance: the official MCP conformance suite against the everything example (installs the pinned suite into .tools/)"
bash tests/conformance/run.sh

step "all checks passed"
