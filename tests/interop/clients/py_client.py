"""Python `mcp` SDK against an example server, over stdio or Streamable HTTP.

Usage: python py_client.py session|auto [--scenario=quickstart|showcase] SERVER_COMMAND [ARGS...]
           (stdio: starts the server)
       python py_client.py session|auto [--scenario=quickstart|showcase] http://127.0.0.1:PORT/mcp
           (a running server)
       python py_client.py session|auto --scenario=filesystem FILESYSTEM_COMMAND [ARGS...]
       python py_client.py session|auto --scenario=sql-explorer http://127.0.0.1:PORT/mcp

The filesystem scenario (stdio only; mirrors fs_checks.mjs) creates a scratch tree under
$TMPDIR, starts the `filesystem` example on it with `--allow-write <root>` appended to the
command, and removes the tree at the end. The sql-explorer scenario (HTTP only; mirrors
sql_checks.mjs) drives a running `sql-explorer` on its sample SQLite database, then connects
a second client that declares MCP Apps and checks what it sees (py_apps.py).

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
import os
import re
import shutil
import sys
import tempfile
from contextlib import AbstractAsyncContextManager
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import types
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.extension import advertise
from mcp.shared.exceptions import MCPError
from py_apps import APPS_SETTINGS, EXTENSION_ID, apps_checks, recording

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


async def quickstart_checks(client: Any, report: Reporter) -> None:
    """The quickstart contract; `client` is a ClientSession or an mcp.Client (same calls)."""

    async def tools_list() -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("add", "echo", "stats"):
            expect(name in tools, f"no tool {name} in {sorted(tools)}")
            expect(tools[name].description, f"tool {name} has no description")
            expect(tools[name].input_schema.get("type") == "object", tools[name].input_schema)
        expect(tools["add"].input_schema.get("required") == ["a", "b"], tools["add"].input_schema)
        expect((tools["stats"].output_schema or {}).get("type") == "object", "stats has an object outputSchema")

    await report.check("tools/list offers add, echo and stats, each with a description", tools_list)

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


async def showcase_checks(client: Any, report: Reporter, elicitation: Elicitation, not_found_code: int) -> None:
    """The showcase contract (elicitation, a resource template); `client` as above."""

    async def tools_list() -> None:
        tools = (await client.list_tools()).tools
        expect([t.name for t in tools] == ["greet", "report"], repr(tools))
        for tool in tools:
            expect(tool.description, f"{tool.name} has no description")
            expect(tool.input_schema.get("type") == "object", tool.input_schema)

    await report.check("tools/list offers greet and report, described", tools_list)

    async def report_call() -> None:
        text = only_text(await client.call_tool("report", {"sections": 1}))
        expect(text == "The report: 1 sections, all good.", repr(text))

    await report.check("tools/call report without a task runs to the end and answers in the call", report_call)

    async def note() -> None:
        templates = (await client.list_resource_templates()).resource_templates
        expect(any(t.uri_template == "showcase://notes/{id}" for t in templates), repr(templates))
        contents = (await client.read_resource("showcase://notes/welcome")).contents
        expect(contents[0].mime_type == "text/markdown", contents[0].mime_type)
        expect("Welcome!" in contents[0].text, contents[0].text)

    await report.check("resources/read through the template showcase://notes/{id}", note)

    async def missing_note() -> None:
        uri = "showcase://notes/missing"
        try:
            result = await client.read_resource(uri)
        except MCPError as e:
            expect(e.error.code == not_found_code, f"code {e.error.code}: {e.error.message}")
            expect((e.error.data or {}).get("uri") == uri, f"data {e.error.data!r}")
            return
        raise AssertionError(f"no error; got {result!r}")

    await report.check(f"resources/read of a missing note fails with {not_found_code} naming the URI", missing_note)

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


HELLO_TEXT = "hello from the filesystem interop test\nsecond line: ünïcödé 🦀\n"
TODO_TEXT = "# todo\n\n- write interop tests\n"
OUTSIDE_TEXT = "outside the root: never to be read or written\n"
WRITTEN_TEXT = 'written by write_file\n\ttab, "quotes", back\\slash\n'


class ScratchTree:
    """<base>/outside.txt beside <base>/root (the served root), as in fs_checks.mjs."""

    def __init__(self) -> None:
        # realpath: the server reports canonical paths, and $TMPDIR may be a symbolic link.
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="mcp-interop-fs-"))
        self.root = os.path.join(self.base, "root")
        self.outside = os.path.join(self.base, "outside.txt")
        os.makedirs(os.path.join(self.root, "notes"))
        write_text(os.path.join(self.root, "hello.txt"), HELLO_TEXT)
        write_text(os.path.join(self.root, "notes", "todo.md"), TODO_TEXT)
        write_text(self.outside, OUTSIDE_TEXT)
        os.symlink("../outside.txt", os.path.join(self.root, "link.txt"))
        os.symlink(self.base, os.path.join(self.root, "escape"))
        os.symlink("../created.txt", os.path.join(self.root, "dangling"))

    def remove(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def read_text(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


async def filesystem_checks(client: Any, report: Reporter, tree: ScratchTree) -> None:
    """The filesystem contract against `filesystem --allow-write <tree.root>`."""
    root, outside = tree.root, tree.outside

    async def tools_list() -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("read_file", "list_dir", "search", "write_file"):
            expect(name in tools, f"no tool {name} in {sorted(tools)}")
            expect(tools[name].description, f"tool {name} has no description")
            expect(tools[name].input_schema.get("type") == "object", tools[name].input_schema)
        expect(sorted(tools["write_file"].input_schema.get("required", [])) == ["content", "path"], tools["write_file"].input_schema)

    await report.check("tools/list offers read_file, list_dir, search and write_file (--allow-write)", tools_list)

    async def read_relative() -> None:
        text = only_text(await client.call_tool("read_file", {"path": "hello.txt"}))
        expect(text == HELLO_TEXT, repr(text))

    await report.check("tools/call read_file hello.txt (relative to the root) returns its text", read_relative)

    async def read_absolute() -> None:
        text = only_text(await client.call_tool("read_file", {"path": os.path.join(root, "notes", "todo.md")}))
        expect(text == TODO_TEXT, repr(text))

    await report.check("tools/call read_file with the absolute path inside the root returns its text", read_absolute)

    async def list_dir() -> None:
        result = await client.call_tool("list_dir", {"path": root})
        expect(not result.is_error, repr(result.content))
        expected = {
            "path": root,
            "entries": [
                {"name": "dangling", "kind": "symlink"},
                {"name": "escape", "kind": "symlink"},
                {"name": "hello.txt", "kind": "file", "size": len(HELLO_TEXT.encode())},
                {"name": "link.txt", "kind": "symlink"},
                {"name": "notes", "kind": "directory"},
            ],
            "truncated": False,
        }
        expect(result.structured_content == expected, repr(result.structured_content))
        expect(json.loads(result.content[0].text) == expected, "text mirrors the JSON")

    await report.check("tools/call list_dir of the root lists its entries (symlinks unfollowed) as structuredContent", list_dir)

    async def search(expected: dict[str, list[str]]) -> None:
        for pattern, matches in expected.items():
            result = await client.call_tool("search", {"path": ".", "pattern": pattern})
            expect(not result.is_error, repr(result.content))
            expect(result.structured_content == {"matches": matches, "truncated": False}, f"{pattern}: {result.structured_content!r}")

    todo = os.path.join(root, "notes", "todo.md")
    await report.check(
        "tools/call search finds notes/todo.md by glob and by substring",
        lambda: search({"*.md": [todo], "TODO": [todo]}),
    )
    # link.txt (to ../outside.txt) is not a match; escape/ (to <base>) is not walked.
    await report.check(
        "tools/call search neither follows nor shows symbolic links that lead outside",
        lambda: search({"*.txt": [os.path.join(root, "hello.txt")], "outside": []}),
    )

    async def write_and_read_back() -> None:
        text = only_text(await client.call_tool("write_file", {"path": "written.txt", "content": WRITTEN_TEXT}))
        expect(os.path.join(root, "written.txt") in text, text)
        expect(read_text(os.path.join(root, "written.txt")) == WRITTEN_TEXT, "the file on disk")
        back = only_text(await client.call_tool("read_file", {"path": "written.txt"}))
        expect(back == WRITTEN_TEXT, repr(back))

    await report.check("tools/call write_file creates written.txt, and read_file reads it back", write_and_read_back)

    async def resource() -> None:
        uri = "file://" + os.path.join(root, "hello.txt")
        contents = (await client.read_resource(uri)).contents
        expect(len(contents) == 1, repr(contents))
        expect(str(contents[0].uri) == uri, contents[0].uri)
        expect(contents[0].mime_type == "text/plain", contents[0].mime_type)
        expect(contents[0].text == HELLO_TEXT, repr(contents[0].text))

    await report.check("resources/read file:///<root>/hello.txt returns the text as text/plain", resource)

    attempts: list[tuple[str, dict[str, str]]] = [
        ("read_file", {"path": "../outside.txt"}),
        ("read_file", {"path": outside}),
        ("read_file", {"path": f"{root}/../outside.txt"}),
        ("read_file", {"path": "%2E%2E/outside.txt"}),
        ("list_dir", {"path": ".."}),
        ("search", {"path": tree.base, "pattern": "outside"}),
        ("write_file", {"path": "../outside.txt", "content": "overwritten via ..\n"}),
        ("write_file", {"path": outside, "content": "overwritten via an absolute path\n"}),
        ("read_file", {"path": "link.txt"}),
        ("read_file", {"path": "escape/outside.txt"}),
        ("list_dir", {"path": "escape"}),
        ("search", {"path": "escape", "pattern": "outside"}),
        ("write_file", {"path": "link.txt", "content": "overwritten through a symlink\n"}),
        ("write_file", {"path": "escape/outside.txt", "content": "overwritten through a symlinked directory\n"}),
        ("write_file", {"path": "dangling", "content": "created through a dangling symlink\n"}),
    ]
    for name, args in attempts:

        async def refused(name: str = name, args: dict[str, str] = args) -> None:
            result = await client.call_tool(name, args)
            expect(result.is_error is True, f"not an isError result: {result!r}")
            block = result.content[0]
            expect(isinstance(block, types.TextContent), repr(block))
            expect(block.text.startswith("path refused: "), f"not a refusal: {block.text!r}")

        shown = json.dumps(args["path"].replace(tree.base, "<base>"))
        await report.check(f'tools/call {name} {shown} (outside the root) is refused: isError "path refused: …"', refused)

    for shown, path in (("<base>/outside.txt", outside), ("<root>/link.txt (a symlink to outside)", os.path.join(root, "link.txt"))):

        async def resource_refused(path: str = path) -> None:
            try:
                result = await client.read_resource("file://" + path)
            except MCPError as e:
                expect(e.error.code == -32602, f"code {e.error.code}: {e.error.message}")
                expect("path refused" in e.error.message, e.error.message)
                return
            raise AssertionError(f"no error; got {result!r}")

        await report.check(f"resources/read file:///{shown} is refused with -32602", resource_refused)

    async def untouched() -> None:
        expect(read_text(outside) == OUTSIDE_TEXT, repr(read_text(outside)))
        expect(not os.path.lexists(os.path.join(tree.base, "created.txt")), "<base>/created.txt exists (written through root/dangling)")

    await report.check("the file outside the root is unchanged, and nothing was created outside it", untouched)


BOOKS = [[1, "Atlas 1", "books"], [5, "Cookbook 5", "books"], [9, "Novel 9", "books"]]


async def sql_explorer_checks(client: Any, report: Reporter) -> None:
    """The sql-explorer contract against its sample database (created on first run)."""

    async def tools_list() -> None:
        tools = (await client.list_tools()).tools
        expect([t.name for t in tools] == ["query", "explain", "list_tables"], [t.name for t in tools])
        for tool in tools:
            expect(tool.description, f"tool {tool.name} has no description")
            expect(tool.annotations and tool.annotations.read_only_hint is True, f"{tool.name} is read-only")
        expect(tools[0].input_schema.get("required") == ["sql"], tools[0].input_schema)
        expect((tools[0].output_schema or {}).get("type") == "object", "query has an object outputSchema")

    await report.check("tools/list offers query, explain and list_tables, read-only, query with an outputSchema", tools_list)

    async def query() -> None:
        sql = "SELECT id, name, category FROM products WHERE category = ? AND id <= ? ORDER BY id"
        result = await client.call_tool("query", {"sql": sql, "params": ["books", 10]})
        expect(not result.is_error, repr(result.content))
        expected = {"columns": ["id", "name", "category"], "rows": BOOKS, "row_count": 3, "truncated": False}
        expect(result.structured_content == expected, repr(result.structured_content))
        expect(json.loads(result.content[0].text) == expected, "text mirrors the JSON")

    await report.check(
        "tools/call query with bound params returns structuredContent {columns, rows, row_count, truncated}", query
    )

    async def orders() -> None:
        contents = (await client.read_resource("schema://tables/orders")).contents
        expect(len(contents) == 1, repr(contents))
        expect(contents[0].mime_type == "application/json", contents[0].mime_type)
        table = json.loads(contents[0].text)
        expect(table["name"] == "orders" and table["primary_key"] == ["id"], repr(table))
        fk = [{"columns": ["customer_id"], "references_table": "customers", "references_columns": ["id"]}]
        expect(table["foreign_keys"] == fk, repr(table["foreign_keys"]))
        expect([c["name"] for c in table["columns"]] == ["id", "customer_id", "ordered_on", "status"], repr(table))

    await report.check("resources/read schema://tables/orders describes the table as JSON", orders)

    async def delete_refused() -> None:
        result = await client.call_tool("query", {"sql": "DELETE FROM orders"})
        expect(result.is_error is True, f"not an isError result: {result!r}")
        text = result.content[0].text
        expect(text == "only a single SELECT/WITH query is allowed; got DELETE", repr(text))
        count = await client.call_tool("query", {"sql": "SELECT count(*) AS n FROM orders"})
        expect((count.structured_content or {}).get("rows") == [[250]], repr(count.structured_content))

    await report.check("tools/call query DELETE FROM orders is refused: isError, and nothing is deleted", delete_refused)


def transport(server: StdioServerParameters | str) -> AbstractAsyncContextManager[Any]:
    """The client transport for `server`: a stdio command or a Streamable HTTP URL."""
    if isinstance(server, str):
        # Sends DELETE for the session when the context exits (terminate_on_close=True).
        return streamable_http_client(server)
    return stdio_client(server)


async def run_session(
    server: StdioServerParameters | str, report: Reporter, tree: ScratchTree | None = None
) -> None:
    scenario = "filesystem" if tree else SCENARIO
    elicitation = Elicitation()
    async with transport(server) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicitation) as session:
            connected = False

            async def initialize() -> None:
                nonlocal connected
                init = await session.initialize()
                connected = True
                expect(init.protocol_version == "2025-11-25", init.protocol_version)
                expect(init.server_info.name == scenario, init.server_info)

            await report.check(f"initialize negotiates 2025-11-25 with the {scenario} server", initialize)
            if connected and tree:
                await filesystem_checks(session, report, tree)
            elif connected and scenario == "sql-explorer":
                await sql_explorer_checks(session, report)
                await apps_session(server, session, report)
            elif connected and scenario == "showcase":
                await showcase_checks(session, report, elicitation, not_found_code=-32002)
            elif connected:
                await quickstart_checks(session, report)
    if tree:
        await roots_checks(server, report, tree)


async def roots_checks(server: StdioServerParameters | str, report: Reporter, tree: ScratchTree) -> None:
    """A second session whose client declares `roots` (legacy era only): the server asks for
    them with roots/list and serves only the intersection, here <root>/notes."""
    notes = os.path.join(tree.root, "notes")
    asked = 0

    async def list_roots(context: Any) -> types.ListRootsResult:
        nonlocal asked
        asked += 1
        return types.ListRootsResult(roots=[types.Root(uri="file://" + notes, name="notes")])

    async with transport(server) as (read, write):
        async with ClientSession(read, write, list_roots_callback=list_roots) as session:

            async def narrowed() -> None:
                await session.initialize()
                text = only_text(await session.call_tool("read_file", {"path": "todo.md"}))
                expect(text == TODO_TEXT, repr(text))
                expect(asked >= 1, "the server never sent roots/list")
                result = await session.call_tool("read_file", {"path": os.path.join(tree.root, "hello.txt")})
                expect(result.is_error is True, f"not an isError result: {result!r}")
                expect(result.content[0].text.startswith("path refused: "), repr(result.content[0].text))

            await report.check(
                "a client with roots [<root>/notes] is asked for them (roots/list) and served only notes/",
                narrowed,
            )


async def enter_modern(client: Client, report: Reporter, name: str) -> bool:
    """The check `name`: entering `client` negotiates 2026-07-28. True when it was entered
    (even on another version): the caller exits it."""
    entered = False

    async def connect() -> None:
        nonlocal entered
        await client.__aenter__()
        entered = True
        expect(client.protocol_version == "2026-07-28", client.protocol_version)

    await report.check(name, connect)
    return entered


async def run_auto(server: StdioServerParameters | str, report: Reporter, tree: ScratchTree | None = None) -> None:
    elicitation = Elicitation()
    client = Client(server, mode="auto", elicitation_callback=elicitation)
    if await enter_modern(client, report, "mode=auto negotiates 2026-07-28 through server/discover"):
        try:
            if tree:
                await filesystem_checks(client, report, tree)
            elif SCENARIO == "sql-explorer":
                await sql_explorer_checks(client, report)
                await apps_auto(server, client, report)
            elif SCENARIO == "showcase":
                await showcase_checks(client, report, elicitation, not_found_code=-32602)
            else:
                await quickstart_checks(client, report)
        finally:
            await client.__aexit__(None, None, None)


async def apps_session(server: StdioServerParameters | str, plain: ClientSession, report: Reporter) -> None:
    """A second session, whose client declares MCP Apps (legacy era); py_apps.py's checks."""
    writers: list[Any] = []
    async with recording(transport(server), writers) as (read, write):
        async with ClientSession(read, write, extensions={EXTENSION_ID: APPS_SETTINGS}) as apps:

            async def initialize() -> None:
                init = await apps.initialize()
                expect(init.protocol_version == "2025-11-25", init.protocol_version)

            if await report.check(f"a client declaring {EXTENSION_ID} connects (legacy era)", initialize):
                await apps_checks(plain, apps, writers[0].sent, "legacy", BOOKS, report.check)


async def apps_auto(server: StdioServerParameters | str, plain: Client, report: Reporter) -> None:
    """A second mcp.Client, declaring MCP Apps (`advertise`), in mode auto; py_apps.py's checks."""
    writers: list[Any] = []
    apps = Client(recording(transport(server), writers), mode="auto", extensions=[advertise(EXTENSION_ID, APPS_SETTINGS)])
    if await enter_modern(apps, report, f"a client declaring {EXTENSION_ID} connects (modern era)"):
        try:
            await apps_checks(plain, apps, writers[0].sent, "modern", BOOKS, report.check)
        finally:
            await apps.__aexit__(None, None, None)


# The scenario being run (set once by main).
SCENARIO = "quickstart"


async def main() -> int:
    global SCENARIO
    argv = sys.argv[1:]
    scenario = "quickstart"
    if len(argv) > 1 and argv[1].startswith("--scenario="):
        scenario = argv.pop(1).removeprefix("--scenario=")
    SCENARIO = scenario
    if len(argv) < 2 or argv[0] not in ("session", "auto") or scenario not in ("quickstart", "showcase", "filesystem", "sql-explorer"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, command, *args = argv
    server: StdioServerParameters | str
    if re.match(r"https?://", command):
        if args:
            print(f"a URL target takes no further arguments: {args}", file=sys.stderr)
            return 2
        if scenario == "filesystem":
            print("the filesystem scenario runs over stdio only", file=sys.stderr)
            return 2
        server, kind = command, "http"
    elif scenario == "sql-explorer":
        print("the sql-explorer scenario runs over HTTP only", file=sys.stderr)
        return 2
    else:
        server, kind = StdioServerParameters(command=command, args=args), "stdio"
    tree = ScratchTree() if scenario == "filesystem" else None
    try:
        if tree:
            server = StdioServerParameters(command=command, args=[*args, "--allow-write", tree.root])
        label = f"python-mcp {mode} {scenario} {kind}"
        report = Reporter(label)
        if mode == "session":
            await run_session(server, report, tree)
        else:
            await run_auto(server, report, tree)
    finally:
        if tree:
            tree.remove()
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
