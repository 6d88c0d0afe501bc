"""The MCP Apps checks (`io.modelcontextprotocol/ui`) for the Python `mcp` client, against a
running sql-explorer, whose `query` tool shows its result in the app
`ui://sql-explorer/query.html`. Mirrors apps_checks.mjs; py_client.py runs them after its
sql-explorer checks.

mcp 2.3.0 declares an extension as `ClientSession(extensions={id: settings})` or
`mcp.Client(extensions=[advertise(id, settings)])`: in `initialize` (2025-11-25) or in every
request's `_meta` envelope (2026-07-28). The constants are the SDK's own (`mcp.server.apps`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

APP_URI = "ui://sql-explorer/query.html"
APPS_SETTINGS: dict[str, Any] = {"mimeTypes": [APP_MIME_TYPE]}
# The members `_meta.ui` of a `ui://` resource may have (the ext-apps schema's McpUiResourceMeta).
RESOURCE_UI_KEYS = {"csp", "permissions", "domain", "prefersBorder"}
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
BOOKS_SQL = "SELECT id, name, category FROM products WHERE category = ? AND id <= ? ORDER BY id"


def expect(condition: bool, why: Any) -> None:
    if not condition:
        raise AssertionError(why)


class RecordingWriter:
    """A transport's write stream that keeps every JSON-RPC message sent through it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.sent: list[dict[str, Any]] = []

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", item)
        self.sent.append(message.model_dump(by_alias=True, exclude_none=True, mode="json"))
        await self.inner.send(item)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def __aenter__(self) -> RecordingWriter:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.inner.__aexit__(*exc)


@asynccontextmanager
async def recording(transport: Any, writer: list[RecordingWriter]) -> AsyncIterator[tuple[Any, Any]]:
    """`transport` (a client transport context) with its write stream recorded in `writer`."""
    async with transport as (read, write):
        recorder = RecordingWriter(write)
        writer.append(recorder)
        yield read, recorder


def resource_ui(meta: dict[str, Any] | None, where: str) -> dict[str, Any]:
    ui = (meta or {}).get("ui")
    expect(isinstance(ui, dict), f"{where}: _meta.ui is not an object: {ui!r}")
    unknown = set(ui) - RESOURCE_UI_KEYS
    expect(not unknown, f"{where}: unknown _meta.ui members {sorted(unknown)}")
    return ui


Check = Callable[[str, Callable[[], Awaitable[None]]], Awaitable[bool]]


async def apps_checks(
    plain: Any, apps: Any, sent: list[dict[str, Any]], era: str, books: list[list[Any]], check: Check
) -> None:
    """`plain` (a ClientSession or an mcp.Client) did not declare the extension, `apps` declared
    APPS_SETTINGS and `sent` is what it sent; `era` is legacy or modern; `query` with
    BOOKS_SQL answers `books`."""
    where = "in initialize" if era == "legacy" else "in every request's _meta"

    async def declared() -> None:
        if era == "legacy":
            ads = [m["params"]["capabilities"] for m in sent if m.get("method") == "initialize"]
        else:
            ads = [(m.get("params") or {}).get("_meta", {}).get(CLIENT_CAPABILITIES) for m in sent if "method" in m and "id" in m]
        expect(ads, f"no request sent: {sent!r}")
        for ad in ads:
            expect(((ad or {}).get("extensions") or {}).get(EXTENSION_ID) == APPS_SETTINGS, repr(ad))

    await check(f'the apps client sends extensions["{EXTENSION_ID}"] {where}', declared)

    async def server_declares() -> None:
        for client in (apps, plain):
            extensions = client.server_capabilities.extensions or {}
            expect(extensions.get(EXTENSION_ID) == {}, repr(extensions))

    await check(f'the server\'s capabilities carry extensions["{EXTENSION_ID}"], for both clients', server_declares)

    async def tool_meta() -> None:
        tools = {t.name: t for t in (await apps.list_tools()).tools}
        expect("query" in tools, f"no query tool in {sorted(tools)}")
        meta = tools["query"].meta or {}
        expect((meta.get("ui") or {}).get("resourceUri") == APP_URI, repr(meta))
        expect(meta.get("ui/resourceUri") == APP_URI, repr(meta))

    await check(f'tools/list: query\'s _meta.ui.resourceUri and _meta["ui/resourceUri"] are {APP_URI}', tool_meta)

    listed: dict[str, Any] = {}

    async def listed_app() -> None:
        resources = {str(r.uri): r for r in (await apps.list_resources()).resources}
        expect(APP_URI in resources, f"not listed: {sorted(resources)}")
        expect(resources[APP_URI].mime_type == APP_MIME_TYPE, resources[APP_URI].mime_type)
        listed["ui"] = resource_ui(resources[APP_URI].meta, "the list entry")

    await check(f"resources/list has {APP_URI} as {APP_MIME_TYPE} with its _meta.ui", listed_app)

    async def read_app() -> None:
        contents = (await apps.read_resource(APP_URI)).contents
        expect(len(contents) == 1, repr(contents))
        expect(str(contents[0].uri) == APP_URI, contents[0].uri)
        expect(contents[0].mime_type == APP_MIME_TYPE, contents[0].mime_type)
        text = getattr(contents[0], "text", "")
        expect(text.lower().startswith("<!doctype html>"), f"not an HTML document: {text[:80]!r}")
        ui = resource_ui(contents[0].meta, "the contents")
        expect("ui" not in listed or ui == listed["ui"], f"{ui!r} != listed {listed['ui']!r}")

    await check(f"resources/read {APP_URI} is an HTML document as {APP_MIME_TYPE} with the same _meta.ui", read_app)

    async def text_for_both() -> None:
        expected = {"columns": ["id", "name", "category"], "rows": books, "row_count": 3, "truncated": False}
        for client in (plain, apps):
            result = await client.call_tool("query", {"sql": BOOKS_SQL, "params": ["books", 10]})
            expect(not result.is_error, repr(result.content))
            expect(result.content[0].type == "text", repr(result.content[0]))
            expect(json.loads(result.content[0].text) == expected, result.content[0].text)

    await check("tools/call query: a client without the extension gets the rows as text, as the apps client does", text_for_both)
