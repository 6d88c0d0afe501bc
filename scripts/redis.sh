#!/usr/bin/env bash
# A throwaway Redis server for the shared-session tests.
#
#   scripts/redis.sh start   installs Debian's redis-server if it is missing (apt-get, as
#                            root), starts one on a free 127.0.0.1 port with no persistence
#                            (no RDB snapshots, no AOF) in a temp dir, and prints
#                            `export MCP_TEST_REDIS_URL=redis://127.0.0.1:PORT` and
#                            `export MCP_TEST_REDIS_SERVER=/path/to/redis-server` (eval them;
#                            the outage test starts and stops a server of its own with it)
#   scripts/redis.sh stop    stops that server and removes its directory
#   scripts/redis.sh install installs redis-server only (when missing)
#
# State (the running server's directory and port) is kept in $MCP_REDIS_STATE, default
# /tmp/mcp-redis.state. Progress goes to stderr; stdout is only the exports.
set -euo pipefail

state=${MCP_REDIS_STATE:-/tmp/mcp-redis.state}
say() { printf 'redis.sh: %s\n' "$*" >&2; }

find_bin() {
  if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
    command -v redis-server
    return 0
  fi
  return 1
}

install() {
  if find_bin >/dev/null; then return 0; fi
  [[ $(id -u) == 0 ]] || { say "redis-server not found and not root: install it (e.g. apt-get install redis-server)"; exit 1; }
  # Without starting the package's own service (on 6379, every interface).
  bash "$(dirname "$0")/deb-install.sh" redis-server
}

free_port() {
  local port
  for port in 63790 63791 63792 63793 63794 63795 63796 63797; do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      printf '%s\n' "$port"
      return 0
    fi
  done
  say "no free port among 63790-63797"
  exit 1
}

start() {
  local bin dir port i
  if [[ -f $state ]]; then
    say "a server is already recorded in $state; stopping it first"
    stop
  fi
  install
  bin=$(find_bin)
  dir=$(mktemp -d "${TMPDIR:-/tmp}/mcp-redis.XXXXXX")
  port=$(free_port)
  printf '%s\n%s\n' "$dir" "$port" >"$state"
  "$bin" --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$dir" \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >&2
  for i in $(seq 1 100); do
    if redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
      say "redis-server running on 127.0.0.1:$port ($dir)"
      printf 'export MCP_TEST_REDIS_URL=redis://127.0.0.1:%s\n' "$port"
      printf 'export MCP_TEST_REDIS_SERVER=%s\n' "$bin"
      return 0
    fi
    sleep 0.1
  done
  cat "$dir/redis.log" >&2 || true
  say "redis-server did not answer within 10 s"
  exit 1
}

stop() {
  local dir port
  [[ -f $state ]] || { say "no server recorded in $state"; return 0; }
  { read -r dir; read -r port; } <"$state"
  redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
  if [[ -f $dir/redis.pid ]]; then
    kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
  fi
  rm -rf "$dir" "$state"
  say "server stopped and removed"
}

case "${1-}" in
  start) start ;;
  install) install ;;
  stop) stop ;;
  *) echo "usage: scripts/redis.sh start|stop|install" >&2; exit 2 ;;
esac
