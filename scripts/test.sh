#!/usr/bin/env bash
# The project's one test command: what the README names and what CI runs.
# It needs only the Rust toolchain; later stages install their own tools (pinned) first.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "mcp-server's top-level modules depend on each other without cycles"
python3 scripts/check-layers.py mcp-server/src

step "cargo clippy (all targets, all features, warnings are errors)"
cargo clippy --workspace --all-targets --all-features -- -D warnings

# What the EXIT trap stops: each service started below adds its stop command.
stops=()
trap 'for s in "${stops[@]}"; do $s || true; done' EXIT

step "PostgreSQL for the sql-explorer tests (a throwaway cluster, stopped on exit)"
stops+=("bash scripts/postgres.sh stop")
pg_env=$(bash scripts/postgres.sh start) # (an assignment, so that set -e sees a failure)
eval "$pg_env"

step "an OAuth authorization server for the auth tests (oidc-provider, pinned; stopped on exit)"
stops+=("bash scripts/auth-server.sh stop")
auth_env=$(bash scripts/auth-server.sh start)
eval "$auth_env"
export MCP_AUTH_REQUIRE_AS=1

step "cargo test (unit, integration and doc tests)"
cargo test --workspace --all-features

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps --all-features

step "interop: third-party MCP clients drive the examples (installs pinned clients into .tools/)"
bash tests/interop/run.sh

step "conformance: the official MCP conformance suite against the everything example (installs the pinned suite into .tools/)"
bash tests/conformance/run.sh

step "all checks passed"
