#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the sql-explorer tests.
#
#   scripts/postgres.sh start   installs PostgreSQL if initdb is missing (apt-get, as root),
#                               creates a cluster in a temp dir, starts it on 127.0.0.1 with
#                               TLS and prints `export SQL_EXPLORER_PG_URL=postgres://...` and
#                               the certificate paths below (eval them)
#   scripts/postgres.sh stop    stops that cluster and removes its directory
#
# The cluster trusts local connections (it listens on loopback only and lives for one test
# run). TLS: openssl makes a throwaway CA and, signed by it, a server certificate for
# 127.0.0.1 and localhost only (SQL_EXPLORER_PG_CA is the CA), plus an unrelated CA that
# signed nothing the server has (SQL_EXPLORER_PG_OTHER_CA); connecting to the server under
# another name (host=wrong.invalid with hostaddr=127.0.0.1) gives a wrong-host certificate.
# The server accepts both TLS and plain connections. Everything lives in the cluster's
# directory. PostgreSQL refuses to run as root, so as root the server runs as the `postgres`
# user. State (the directory of the running cluster) is kept in $SQL_EXPLORER_PG_STATE,
# default /tmp/sql-explorer-pg.state. Progress goes to stderr; stdout is only the export.
set -euo pipefail

state=${SQL_EXPLORER_PG_STATE:-/tmp/sql-explorer-pg.state}
say() { printf 'postgres.sh: %s\n' "$*" >&2; }

find_bin() {
  local dir
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
    dirname "$(command -v initdb)"
    return 0
  fi
  for dir in /usr/lib/postgresql/*/bin; do
    if [[ -x $dir/initdb && -x $dir/pg_ctl ]]; then
      printf '%s\n' "$dir"
      return 0
    fi
  done
  return 1
}

install() {
  if find_bin >/dev/null; then return 0; fi
  [[ $(id -u) == 0 ]] || { say "initdb not found and not root: install PostgreSQL (e.g. apt-get install postgresql)"; exit 1; }
  say "installing PostgreSQL with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
}

# as_server CMD...: runs CMD as the user the server runs as.
as_server() {
  if [[ $(id -u) == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# make_certs DIR: the CA, the server's key and certificate, and the unrelated CA, in DIR.
make_certs() {
  local dir=$1
  command -v openssl >/dev/null || { say "openssl not found: it makes the test certificates"; exit 1; }
  mkdir -p "$dir"
  (
    cd "$dir"
    openssl req -x509 -new -newkey rsa:2048 -nodes -days 2 -sha256 -subj "/CN=sql-explorer test CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -keyout ca.key -out ca.crt
    openssl req -x509 -new -newkey rsa:2048 -nodes -days 2 -sha256 -subj "/CN=sql-explorer other CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -keyout other-ca.key -out other-ca.crt
    openssl req -new -newkey rsa:2048 -nodes -sha256 -subj "/CN=127.0.0.1" \
      -keyout server.key -out server.csr
    printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
      "extendedKeyUsage=serverAuth" "subjectAltName=IP:127.0.0.1,DNS:localhost" >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -sha256 \
      -extfile server.ext -out server.crt
    rm -f ca.key other-ca.key server.csr server.ext ca.srl
    chmod 600 server.key
  ) >"$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log" >&2; exit 1; }
  if [[ $(id -u) == 0 ]]; then chown -R postgres: "$dir"; fi
  chmod 644 "$dir/ca.crt" "$dir/other-ca.crt" "$dir/server.crt"
}

free_port() {
  local port
  for port in 54329 54330 54331 54332 54333 54334 54335 54336; do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      printf '%s\n' "$port"
      return 0
    fi
  done
  say "no free port among 54329-54336"
  exit 1
}

start() {
  local bin dir port
  if [[ -f $state ]]; then
    say "a cluster is already recorded in $state; stopping it first"
    stop
  fi
  install
  bin=$(find_bin)
  dir=$(mktemp -d "${TMPDIR:-/tmp}/sql-explorer-pg.XXXXXX")
  if [[ $(id -u) == 0 ]]; then chown postgres: "$dir"; fi
  make_certs "$dir/tls"
  port=$(free_port)
  as_server "$bin/initdb" -D "$dir/data" --auth=trust --username=postgres --encoding=UTF8 \
    --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
  printf '%s\n%s\n%s\n' "$dir" "$bin" "$port" >"$state"
  # temp_file_limit: no test query may fill the machine's disk with spilled rows.
  as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=off -c temp_file_limit=256MB -c ssl=on -c ssl_cert_file=$dir/tls/server.crt -c ssl_key_file=$dir/tls/server.key" \
    >&2 || { cat "$dir/server.log" >&2; exit 1; }
  say "cluster running in $dir on 127.0.0.1:$port"
  printf 'export SQL_EXPLORER_PG_URL=postgres://postgres@127.0.0.1:%s/postgres\n' "$port"
  printf 'export SQL_EXPLORER_PG_CA=%s\n' "$dir/tls/ca.crt"
  printf 'export SQL_EXPLORER_PG_OTHER_CA=%s\n' "$dir/tls/other-ca.crt"
}

stop() {
  local dir bin
  [[ -f $state ]] || { say "no cluster recorded in $state"; return 0; }
  { read -r dir; read -r bin; } <"$state"
  if [[ -d $dir/data ]]; then
    as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2 || true
  fi
  rm -rf "$dir" "$state"
  say "cluster stopped and removed"
}

case "${1-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: scripts/postgres.sh start|stop" >&2; exit 2 ;;
esac
