# Sourced by the auth benchmarks: starts the test authorization server (stopped on exit)
# and sets TOKEN to a client-credentials access token for the resource on port $P.
state=$(mktemp -u /tmp/mcp-auth-bench.XXXXXX)
eval "$(MCP_AUTH_STATE=$state bash scripts/auth-server.sh start)"
trap 'MCP_AUTH_STATE=$state bash scripts/auth-server.sh stop' EXIT
TOKEN=$(curl -s -u mcp-full:full-secret -d grant_type=client_credentials -d scope=mcp \
  -d "resource=http://127.0.0.1:$P/mcp" "$MCP_AUTH_ISSUER/token" |
  python3 -c 'import json,sys;print(json.load(sys.stdin)["access_token"])')
