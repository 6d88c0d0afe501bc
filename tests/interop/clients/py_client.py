"""Python `mcp` SDK against a quickstart server, over stdio or Streamable HTTP.

Usage: python py_client.py session|auto SERVER_COMMAND [ARGS...]   (stdio: starts the server)
       python py_client.py session|auto http://127.0.0.1:PORT/mcp  (a running server)

- session: the low-level `ClientSession` with the `initialize` handshake (legacy era), on
  `stdio_client` or `streamable_http_client`.
- auto: the high-level `mcp.Client(server, mode="auto")` (`server` is the
  `StdioServerParameters` or the URL), which probes `server/discover` and must pick
  2026-07-28 with our server.

Prints one line per check (`ok - ...` / `not ok - ...: why`); exits 1 on any failure.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from contextlib import AbstractAsyncContextManager
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import types
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

GREET_NAME = "Ada Lovelace"
ECHO_TEXT = '  tabs\tand\nnewlines, "quotes", back\\slash, ünïcödé 🦀  '
REVIEWED_CODE = "def add(a, b):\n    return a - b"


class Reporter:
    def __init__(self, label: str) -> None:
        self.label = label
        self.failed = 0

    async def check(self, name: str, body: Callable[[], Awaitable[None]]) -> bool:
        try:
            await body()
        except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
            self.failed += 1
            why = " ".join(f"{type(e).__name__}: {e}".split())[:600]
            print(f"not ok - {self.label}: {name}: {why}", flush=True)
            return False
        print(f"ok - {self.label}: {name}", flush=True)
        return True


def expect(condition: bool, why: Any) -> None:
    if not condition:
        raise AssertionError(why)


def only_text(result: types.CallToolResult) -> str:
    expect(not result.is_error, f"isError with {result.content!r}")
    expect(len(result.content) == 1, f"one content block expected, got {result.content!r}")
    block = result.content[0]
    expect(isinstance(block, types.TextContent), f"not text: {block!r}")
    return block.text


class Elicitation:
    """Answers elicitation/create as a user typing GREET_NAME would, remembering what was asked."""

    def __init__(self) -> None:
        self.seen: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.seen.append(params)
        return types.ElicitResult(action="accept", content={"name": GREET_NAME})


async def quickstart_checks(client: Any, report: Reporter, elicitation: Elicitation, not_found_code: int) -> None:
    """The quickstart contract; `client` is a ClientSession or an mcp.Client (same calls)."""

    async def tools_list() -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("add", "echo", "stats", "greet"):
            expect(name in tools, f"no tool {name} in {sorted(tools)}")
            expect(tools[name].description, f"tool {name} has no description")
            expect(tools[name].input_schema.get("type") == "object", tools[name].input_schema)
        expect(tools["add"].input_schema.get("required") == ["a", "b"], tools["add"].input_schema)
        expect((tools["stats"].output_schema or {}).get("type") == "object", "stats has an object outputSchema")

    await report.check("tools/list offers add, echo, stats and greet, each with a description", tools_list)

    async def add() -> None:
        text = only_text(await client.call_tool("add", {"a": 2, "b": 40}))
        expect(text == "42", repr(text))

    await report.check("tools/call add {a:2, b:40} returns the text 42", add)

    async def echo() -> None:
        text = only_text(await client.call_tool("echo", {"text": ECHO_TEXT}))
        expect(text == ECHO_TEXT, repr(text))

    await report.check("tools/call echo returns the text unchanged", echo)

    async def stats() -> None:
        result = await client.call_tool("stats", {"numbers": [1, 2, 3, 4]})
        expect(not result.is_error, repr(result.content))
        expected = {"count": 4, "mean": 2.5, "min": 1, "max": 4}
        expect(result.structured_content == expected, repr(result.structured_content))
        expect(json.loads(result.content[0].text) == expected, "text mirrors the JSON")

    await report.check("tools/call stats returns structuredContent {count, mean, min, max}", stats)

    async def stats_empty() -> None:
        result = await client.call_tool("stats", {"numbers": []})
        expect(result.is_error is True, repr(result))
        expect("at least one" in result.content[0].text, result.content[0].text)

    await report.check("tools/call stats with no numbers is a tool error the model can read", stats_empty)

    async def readme() -> None:
        contents = (await client.read_resource("quickstart://readme")).contents
        expect(len(contents) == 1, repr(contents))
        expect(str(contents[0].uri) == "quickstart://readme", contents[0].uri)
        expect(contents[0].mime_type == "text/markdown", contents[0].mime_type)
        expect(contents[0].text.startswith("# quickstart"), contents[0].text[:80])

    await report.check("resources/read quickstart://readme is markdown", readme)

    async def note() -> None:
        templates = (await client.list_resource_templates()).resource_templates
        expect(any(t.uri_template == "quickstart://notes/{id}" for t in templates), repr(templates))
        contents = (await client.read_resource("quickstart://notes/welcome")).contents
        expect(contents[0].mime_type == "text/markdown", contents[0].mime_type)
        expect("Welcome!" in contents[0].text, contents[0].text)

    await report.check("resources/read through the template quickstart://notes/{id}", note)

    async def missing_note() -> None:
        uri = "quickstart://notes/missing"
        try:
            result = await client.read_resource(uri)
        except MCPError as e:
            expect(e.error.code == not_found_code, f"code {e.error.code}: {e.error.message}")
            expect((e.error.data or {}).get("uri") == uri, f"data {e.error.data!r}")
            return
        raise AssertionError(f"no error; got {result!r}")

    await report.check(f"resources/read of a missing note fails with {not_found_code} naming the URI", missing_note)

    async def prompt() -> None:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        expect("code_review" in prompts and prompts["code_review"].description, repr(prompts))
        args = [(a.name, a.required) for a in prompts["code_review"].arguments or []]
        expect(args == [("code", True)], repr(args))
        messages = (await client.get_prompt("code_review", {"code": REVIEWED_CODE})).messages
        expect(len(messages) == 1 and messages[0].role == "user", repr(messages))
        expect(isinstance(messages[0].content, types.TextContent), repr(messages[0].content))
        expect(REVIEWED_CODE in messages[0].content.text, messages[0].content.text)

    await report.check("prompts/get code_review returns one user message quoting the code", prompt)

    async def greet() -> None:
        before = len(elicitation.seen)
        text = only_text(await client.call_tool("greet", {}))
        expect(text == f"Hello, {GREET_NAME}!", repr(text))
        expect(len(elicitation.seen) == before + 1, "exactly one elicitation")
        asked = elicitation.seen[-1]
        expect(asked.message == "What is your name?", asked.message)
        schema = asked.requested_schema
        expect(schema["properties"]["name"]["type"] == "string", schema)
        expect(schema.get("required") == ["name"], schema)

    await report.check(f'tools/call greet elicits a name and answers "Hello, {GREET_NAME}!"', greet)


def transport(server: StdioServerParameters | str) -> AbstractAsyncContextManager[Any]:
    """The client transport for `server`: a stdio command or a Streamable HTTP URL."""
    if isinstance(server, str):
        # Sends DELETE for the session when the context exits (terminate_on_close=True).
        return streamable_http_client(server)
    return stdio_client(server)


async def run_session(server: StdioServerParameters | str, report: Reporter) -> None:
    elicitation = Elicitation()
    async with transport(server) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicitation) as session:
            connected = False

            async def initialize() -> None:
                nonlocal connected
                init = await session.initialize()
                connected = True
                expect(init.protocol_version == "2025-11-25", init.protocol_version)
                expect(init.server_info.name == "quickstart", init.server_info)

            await report.check("initialize negotiates 2025-11-25 with the quickstart server", initialize)
            if connected:
                await quickstart_checks(session, report, elicitation, not_found_code=-32002)


async def run_auto(server: StdioServerParameters | str, report: Reporter) -> None:
    elicitation = Elicitation()
    client = Client(server, mode="auto", elicitation_callback=elicitation)
    entered = False

    async def connect() -> None:
        nonlocal entered
        await client.__aenter__()
        entered = True
        expect(client.protocol_version == "2026-07-28", client.protocol_version)

    await report.check("mode=auto negotiates 2026-07-28 through server/discover", connect)
    if entered:
        try:
            await quickstart_checks(client, report, elicitation, not_found_code=-32602)
        finally:
            await client.__aexit__(None, None, None)


async def main() -> int:
    if len(sys.argv) < 3 or sys.argv[1] not in ("session", "auto"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, command, *args = sys.argv[1:]
    server: StdioServerParameters | str
    if re.match(r"https?://", command):
        if args:
            print(f"a URL target takes no further arguments: {args}", file=sys.stderr)
            return 2
        server, kind = command, "http"
    else:
        server, kind = StdioServerParameters(command=command, args=args), "stdio"
    report = Reporter(f"python-mcp {mode} {kind}")
    if mode == "session":
        await run_session(server, report)
    else:
        await run_auto(server, report)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
