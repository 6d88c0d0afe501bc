#!/usr/bin/env bash
# The OAuth authorization server of the auth tests: oidc-provider, pinned by
# tests/auth/package-lock.json, on a free 127.0.0.1 port.
#
#   scripts/auth-server.sh start   installs the pinned packages into tests/auth/node_modules
#                                  (npm ci, when the lockfile changed), starts tests/auth/as.mjs
#                                  and prints `export MCP_AUTH_ISSUER=http://127.0.0.1:PORT`
#                                  (eval it)
#   scripts/auth-server.sh stop    stops it
#
# Needs Node >= 20.19 with npm and the npm registry. State (the server's pid) is kept in
# $MCP_AUTH_STATE, default /tmp/mcp-auth-server.state. Progress goes to stderr; stdout is only
# the export.
set -euo pipefail

here=$(cd "$(dirname "$0")/../tests/auth" && pwd)
state=${MCP_AUTH_STATE:-/tmp/mcp-auth-server.state}
say() { printf 'auth-server.sh: %s\n' "$*" >&2; }

install() {
  local stamp="$here/node_modules/.lock-sha256" want
  command -v npm >/dev/null || { say "npm is needed (Node >= 20.19)"; exit 1; }
  want=$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)
  if [[ -f $stamp && $(<"$stamp") == "$want" ]]; then return 0; fi
  say "installing oidc-provider from package-lock.json into $here/node_modules"
  # No install scripts: none of these packages needs one.
  (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  printf '%s\n' "$want" >"$stamp"
}

start() {
  install
  stop
  local out line
  out=$(mktemp)
  node "$here/as.mjs" >"$out" 2> >(grep -v 'oidc-provider WARNING' >&2) &
  printf '%s\n' "$!" >"$state"
  for _ in $(seq 100); do
    line=$(head -n1 "$out")
    if [[ -n $line ]]; then
      rm -f "$out"
      printf 'export MCP_AUTH_ISSUER=%s\n' "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["issuer"])' "$line")"
      return 0
    fi
    kill -0 "$(<"$state")" 2>/dev/null || { say "the authorization server exited"; exit 1; }
    sleep 0.1
  done
  say "the authorization server did not start within 10 s"
  exit 1
}

stop() {
  if [[ -f $state ]]; then
    kill "$(<"$state")" 2>/dev/null || true
    rm -f "$state"
  fi
}

case "${1-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: scripts/auth-server.sh start|stop" >&2; exit 2 ;;
esac
