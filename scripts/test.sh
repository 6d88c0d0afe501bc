#!/usr/bin/env bash
# The project's one test command: what the README names and what CI runs.
# It needs only the Rust toolchain; later stages install their own tools (pinned) first.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step prints the minutes since the start and the disk space left where target/ lives:
# a full run needs ~20 GB there, and a linker that runs out of it dies with a bus error.
step() {
  printf '\n==> [%dm%02ds, %s free] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) \
    "$(df -h --output=avail . | tail -1 | tr -d ' ')" "$*"
}

# One build per run: incremental artefacts would only add ~10 GB to target/ on a fresh clone.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

step "cargo fmt --check"
cargo fmt --all -- --check

step "every library crate's modules depend on each other without cycles, at every depth"
python3 scripts/check-layers.py

step "no library file over 600 lines, no library function over 80 lines"
python3 scripts/check-size.py

step "cargo clippy (all targets, all features, warnings are errors)"
cargo clippy --workspace --all-targets --all-features -- -D warnings

# The licences, bans and sources checks work offline; the advisories check needs the RustSec
# database, which is downloaded, so it is a release step (CONTRIBUTING.md). Duplicate
# versions are warnings (deny.toml): one line each, without the inclusion graph.
CARGO_DENY_VERSION=0.20.2
# Installed into cargo's own bin directory, so later clones on the same machine reuse it.
step "cargo deny check licenses bans sources (installs the pinned cargo-deny $CARGO_DENY_VERSION with cargo install)"
cargo_deny="${CARGO_HOME:-$HOME/.cargo}/bin/cargo-deny"
if [[ "$("$cargo_deny" --version 2>/dev/null || true)" != "cargo-deny $CARGO_DENY_VERSION" ]]; then
  cargo install --locked cargo-deny --version "$CARGO_DENY_VERSION"
fi
"$cargo_deny" check --hide-inclusion-graph licenses bans sources

# api/*.txt lists the public API of each published crate, so a change to it shows in review.
step "the public API is the one listed in api/ (installs the pinned cargo-public-api with cargo install; scripts/public-api.sh regenerates the listings)"
scripts/public-api.sh --check

# What the EXIT trap stops: each service started below adds its stop command. The services'
# state files live in this run's own folder, so that two runs on one machine (two clones, or a
# developer's `scripts/redis.sh start` beside a run) never stop each other's servers.
run_state=$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-test.XXXXXX")
export MCP_AUTH_STATE=$run_state/auth-server.state MCP_REDIS_STATE=$run_state/redis.state \
  SQL_EXPLORER_PG_STATE=$run_state/postgres.state
stops=()
trap 'for s in "${stops[@]}"; do $s || true; done; rm -rf "$run_state"' EXIT

step "PostgreSQL for the sql-explorer tests (a throwaway cluster, stopped on exit)"
stops+=("bash scripts/postgres.sh stop")
pg_env=$(bash scripts/postgres.sh start) # (an assignment, so that set -e sees a failure)
eval "$pg_env"

step "Redis for the shared-session tests (a throwaway redis-server, no persistence; stopped on exit)"
stops+=("bash scripts/redis.sh stop")
redis_env=$(bash scripts/redis.sh start)
eval "$redis_env"

step "an OAuth authorization server for the auth tests (oidc-provider, pinned; stopped on exit)"
stops+=("bash scripts/auth-server.sh stop")
auth_env=$(bash scripts/auth-server.sh start)
eval "$auth_env"

# The tests that need the services above are #[ignore]d (a plain `cargo test` lists them as
# ignored); here they run, and fail if a service is missing.
step "cargo test (unit, integration and doc tests, and the ignored ones that need the services above)"
cargo test --workspace --all-features -- --include-ignored

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps --all-features

# docs.rs builds with nightly rustdoc, every feature and `--cfg docsrs`, which turns on
# `doc(cfg)` (the "Available on crate feature http only" marks). RUSTC_BOOTSTRAP lets the
# pinned stable rustdoc accept the nightly-only attribute for this one build.
step "cargo doc as docs.rs builds it (--cfg docsrs, all features)"
RUSTC_BOOTSTRAP=1 RUSTDOCFLAGS="--cfg docsrs -Dwarnings" \
  cargo doc -p ferromcp-core -p ferromcp-macros -p ferromcp -p ferromcp-otel -p ferromcp-redis -p ferromcp-client --no-deps --all-features

step "MSRV: the pinned toolchain is the declared rust-version, and no locked dependency needs a newer one"
msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml)
if ! rustc --version | grep -q "^rustc $msrv\."; then
  echo "rust-version is $msrv but the toolchain is $(rustc --version): update one of them" >&2
  exit 1
fi
cargo metadata --format-version 1 --locked | python3 -c '
import json, sys
msrv = tuple(int(x) for x in sys.argv[1].split(".")[:2])
newer = ["%s %s needs Rust %s" % (p["name"], p["version"], p["rust_version"])
         for p in json.load(sys.stdin)["packages"]
         if p.get("rust_version")
         and tuple(int(x) for x in p["rust_version"].split(".")[:2]) > msrv]
if newer:
    sys.exit("dependencies newer than the MSRV:\n  " + "\n  ".join(newer))
' "$msrv"

# The published crates, in dependency order (cargo packages them together: a local
# registry stands in for crates.io while each is verified against the others).
step "cargo package and cargo publish --dry-run: ferromcp-core, ferromcp-macros, ferromcp, ferromcp-otel, ferromcp-redis, ferromcp-client, ferromcp-cli"
# Cargo unpacks the stand-in registry's crates under $CARGO_HOME/registry/src/-<hash of its
# path>/ and reuses an unpacked crate of the same name and version; a run from a clone at
# the same path would then verify against an earlier run's sources. Remove those (only the
# local registries' directories start with `-`; crates.io's is `index.crates.io-…`).
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ferromcp-core-* \
  "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ferromcp-macros-* \
  "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ferromcp-[0-9]* \
  "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ferromcp-otel-* \
  "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ferromcp-redis-* \
  "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ferromcp-client-* \
  "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/ferromcp-cli-*
cargo package -p ferromcp-core -p ferromcp-macros -p ferromcp -p ferromcp-otel -p ferromcp-redis -p ferromcp-client -p ferromcp-cli
# `cargo package` has just built each packaged crate against the others; the dry-run adds the
# upload checks without building them all a second time.
cargo publish --dry-run --no-verify -p ferromcp-core -p ferromcp-macros -p ferromcp -p ferromcp-otel -p ferromcp-redis -p ferromcp-client -p ferromcp-cli

step "fuzz: every target for 20 s from its seeds (installs the pinned cargo-fuzz with cargo install)"
bash scripts/fuzz.sh 20

step "a newcomer's crate: ferromcp by path, a 20-line server, fn main() { ferromcp::run(..) }, over the command line, stdio and --http"
bash tests/newcrate/run.sh

step "interop: third-party MCP clients drive the examples (installs pinned clients into .tools/)"
bash tests/interop/run.sh

step "the ferromcp command: new -> cargo test in the new crate; install claude-code (each scope, stdio and HTTP) listed as connected by Claude Code; bundle checked by mcpb validate (pinned npm packages into .tools/)"
bash tests/cli/run.sh

step "ferromcp-client against servers this project did not write: npm server-everything and a Python SDK server, stdio and HTTP (pinned, into .tools/)"
bash tests/client/run.sh

step "apps in a real browser: headless chromium renders the sql-explorer's MCP App through ext-apps' AppBridge (installs chromium with apt-get, pinned npm packages into .tools/)"
bash tests/apps-browser/run.sh

step "scale-out: three everything replicas on one Redis behind nginx; real clients through it while replicas are killed and restarted and Redis stops (installs nginx-light)"
bash tests/interop/scaleout.sh

step "conformance: the official MCP conformance suite against the everything example (installs the pinned suite into .tools/)"
bash tests/conformance/run.sh

step "all checks passed"
