"""Drives the newcomer's server (tests/newcrate/run.sh builds it) as a user would: `--help`,
an unknown flag, one session over stdio and one over `--http 127.0.0.1:0`.

    python3 tests/newcrate/check.py path/to/binary

Prints one line per check and, last, `N passed, M failed`; exits 1 if any check failed.
"""

import json
import re
import subprocess
import sys
import urllib.request

BIN = sys.argv[1]
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "newcrate-check", "version": "1"},
    },
}
ADD = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
       "params": {"name": "add", "arguments": {"a": 40, "b": 2}}}
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail), flush=True)


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def cli():
    help_ = run("--help")
    check("--help exits 0 and names --http", help_.returncode == 0 and "--http" in help_.stdout,
          f"exit {help_.returncode}, stdout {help_.stdout!r}")
    bad = run("--no-such-flag")
    lines = bad.stderr.strip().splitlines()
    check("an unknown flag exits 2 with one line on stderr",
          bad.returncode == 2 and len(lines) == 1 and "--no-such-flag" in bad.stderr,
          f"exit {bad.returncode}, stderr {bad.stderr!r}")


def stdio():
    child = subprocess.Popen([BIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    try:
        def send(msg):
            child.stdin.write(json.dumps(msg) + "\n")
            child.stdin.flush()

        send(INIT)
        init = json.loads(child.stdout.readline())
        check("stdio: initialize names the server",
              init.get("result", {}).get("serverInfo", {}).get("name") == "calc", str(init))
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(ADD)
        call = json.loads(child.stdout.readline())
        text = call.get("result", {}).get("content", [{}])[0].get("text")
        check("stdio: tools/call add answers 42", text == "42", str(call))
        child.stdin.close()
        check("stdio: exits 0 at the end of input", child.wait(timeout=30) == 0,
              f"exit {child.returncode}")
    finally:
        child.kill()


def post(url, body, session=None):
    headers = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = "2025-11-25"
    req = urllib.request.Request(url, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(req, timeout=30) as resp:
        text = resp.read().decode()
        if resp.headers.get("Content-Type", "").startswith("text/event-stream"):
            text = [line[5:] for line in text.splitlines() if line.startswith("data:")][-1]
        return resp.headers.get("Mcp-Session-Id"), json.loads(text)


def http():
    child = subprocess.Popen([BIN, "--http", "127.0.0.1:0"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in child.stderr:
            found = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
            if found:
                url = found.group(1)
                break
        check("--http announces its URL on stderr", url is not None, "no URL line")
        if url is None:
            return
        session, init = post(url, INIT)
        check("http: initialize names the server and opens a session",
              session is not None
              and init.get("result", {}).get("serverInfo", {}).get("name") == "calc", str(init))
        _, call = post(url, ADD, session)
        text = call.get("result", {}).get("content", [{}])[0].get("text")
        check("http: tools/call add answers 42", text == "42", str(call))
    finally:
        child.terminate()
        child.wait(timeout=30)


cli()
stdio()
http()
passed = sum(results)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if all(results) else 1)
