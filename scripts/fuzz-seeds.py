#!/usr/bin/env python3
"""Writes the seed corpora of the JSON-shaped fuzz targets into fuzz/seeds/<target>/.

Sources: the official 2026-07-28 example messages vendored in spec/, and the traffic of a
session in each era as a conformance client sends it (initialize, list and call, batches of
2025-03-26, responses and errors, a 2026 request with its _meta envelope). Seeds are named
by the SHA-1 of their content, as libFuzzer names corpus files, so a rerun changes nothing.

The other targets read structured input (libFuzzer bytes through `arbitrary`), which no
example can be written in: their seeds are the set-cover-minimized corpora of the long run
(docs/fuzzing.md), which this script leaves alone.

Usage: python3 scripts/fuzz-seeds.py   (from anywhere; rewrites the three folders it writes)
"""

import hashlib
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "spec" / "2026-07-28" / "examples"
SEEDS = ROOT / "fuzz" / "seeds"

LEGACY = ["2025-03-26", "2025-06-18", "2025-11-25"]
MODERN = "2026-07-28"


def examples():
    """(definition, parsed example) for every vendored example, in a stable order."""
    for path in sorted(EXAMPLES.glob("*/*.json")):
        yield path.parent.name, json.loads(path.read_text())


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def request(id_, method, params=None):
    m = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        m["params"] = params
    return m


def modern_meta(params):
    params = dict(params or {})
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "seed", "version": "1"},
    }
    return params


def traffic():
    """The messages of one session per era, as a conformance client would send them."""
    out = []
    for version in LEGACY:
        out.append(request(0, "initialize", {
            "protocolVersion": version,
            "capabilities": {"roots": {"listChanged": True}, "sampling": {}},
            "clientInfo": {"name": "seed", "version": "1.0.0"},
        }))
        out.append({"jsonrpc": "2.0", "method": "notifications/initialized"})
    out += [
        request(1, "tools/list"),
        request("a-string-id", "tools/call", {"name": "add", "arguments": {"a": 1, "b": -2.5e3}}),
        request(3, "resources/read", {"uri": "file:///notes/%E2%9C%93.md"}),
        request(4, "prompts/get", {"name": "code_review", "arguments": {"code": "fn main() {}\n"}}),
        request(5, "completion/complete", {"ref": {"type": "ref/prompt", "name": "p"},
                                           "argument": {"name": "a", "value": "x"}}),
        request(6, "ping"),
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
        {"jsonrpc": "2.0", "id": 7, "result": {"roots": [{"uri": "file:///r", "name": "r"}]}},
        {"jsonrpc": "2.0", "id": 8, "error": {"code": -32601, "message": "Method not found"}},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
        request(9, "tools/call", modern_meta({"name": "add", "arguments": {"a": 1, "b": 2}})),
        request(10, "server/discover", modern_meta({})),
        request(11, "subscriptions/listen", modern_meta({})),
        request(12, "tools/call", modern_meta({
            "name": "ask", "arguments": {}, "requestState": "eyJhdWQiOiJzIn0.AAAA",
            "inputResponses": {"name": {"action": "accept", "content": {"name": "x"}}},
        })),
    ]
    return out


def write(target, blobs):
    folder = SEEDS / target
    folder.mkdir(parents=True, exist_ok=True)
    for blob in blobs:
        (folder / hashlib.sha1(blob).hexdigest()).write_bytes(blob)


def main():
    for target in ("envelope", "elicitation_schema", "uri_template"):
        shutil.rmtree(SEEDS / target, ignore_errors=True)
    msgs = traffic()
    envelope = [compact(m) for m in msgs]
    for definition, example in examples():
        if definition.endswith(("Request", "Notification")) and "method" in example:
            # The 2026 examples leave out `jsonrpc` and `id`: a client sends them.
            message = {"jsonrpc": "2.0"}
            if definition.endswith("Request"):
                message["id"] = len(envelope)
            message.update(example)
            envelope.append(compact(message))
        elif definition.endswith(("Result", "Error")):
            envelope.append(compact({"jsonrpc": "2.0", "id": len(envelope), "result": example}))
        else:
            envelope.append(compact(example))
    # 2025-03-26 batches: requests and notifications, and responses.
    envelope.append(compact(msgs[6:10]))
    envelope.append(compact(msgs[13:16]))
    # Pretty-printed and with a byte-order mark, as some clients write.
    envelope.append(json.dumps(msgs[7], indent=2).encode())
    envelope.append(b"\xef\xbb\xbf" + compact(msgs[6]))
    write("envelope", envelope)

    elicitation = [
        compact(example)
        for definition, example in examples()
        if definition.startswith("Elicit") or definition.endswith(("Schema", "EnumSchema"))
    ]
    elicitation += [
        compact(example["params"])
        for definition, example in examples()
        if definition == "ElicitRequest"
    ]
    for definition, example in examples():
        if definition == "ElicitRequestFormParams":
            for field in example["requestedSchema"]["properties"].values():
                elicitation.append(compact(field))
    write("elicitation_schema", elicitation)

    # uri_template: a selector byte (1: template text), the template, NUL, bytes for values.
    templates = {
        "file:///{path}", "file:///{+path}", "repo://{owner}/{repo}/issues{?state,labels}",
        "test://template/{id}/data", "db://{table}{/id*}{?fields*}", "x://{;list*,keys}",
        "mail:{user}@{host}{#frag}", "s3://{bucket}{.ext}{&q:3}",
    }
    for _, example in examples():
        for key in ("uriTemplate",):
            text = json.dumps(example)
            start = 0
            while (i := text.find(f'"{key}": "', start)) >= 0:
                j = text.index('"', i + len(key) + 5)
                templates.add(text[i + len(key) + 5:j])
                start = j
    write("uri_template", [b"\x01" + t.encode() + b"\x00" + bytes(range(1, 33))
                           for t in sorted(templates)])


if __name__ == "__main__":
    main()
