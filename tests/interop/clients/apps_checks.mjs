// The MCP Apps checks (`io.modelcontextprotocol/ui`) for the TypeScript SDK v2 client, against
// a running sql-explorer, whose `query` tool shows its result in the app
// `ui://sql-explorer/query.html`. Mirrored in py_apps.py.
//
// A v2 client declares an extension in its capabilities, `capabilities.extensions[ID]`: the SDK
// sends them in `initialize` (2025-11-25) or in every request's `_meta` envelope (2026-07-28).

import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { BOOKS } from './sql_checks.mjs';

export const APPS_ID = 'io.modelcontextprotocol/ui';
export const APP_MIME = 'text/html;profile=mcp-app';
export const APP_URI = 'ui://sql-explorer/query.html';
/** What an apps client declares: it renders the apps' MIME type. */
export const APPS_SETTINGS = { mimeTypes: [APP_MIME] };
/** The members `_meta.ui` of a `ui://` resource may have (the ext-apps schema's McpUiResourceMeta). */
const RESOURCE_UI_KEYS = ['csp', 'permissions', 'domain', 'prefersBorder'];
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const BOOKS_SQL = 'SELECT id, name, category FROM products WHERE category = ? AND id <= ? ORDER BY id';

/** Records what `transport` sends (before the client connects it). */
export function recordSent(transport) {
    const sent = [];
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
        sent.push(message);
        return send(message, options);
    };
    return sent;
}

function assertResourceUi(ui, where) {
    ok(ui && typeof ui === 'object' && !Array.isArray(ui), `${where}: _meta.ui is not an object: ${JSON.stringify(ui)}`);
    for (const key of Object.keys(ui)) ok(RESOURCE_UI_KEYS.includes(key), `${where}: unknown _meta.ui member ${key}`);
}

/**
 * `plain` is a connected client that did not declare the extension; `apps` one that declared
 * APPS_SETTINGS, `sent` what it sent, `era` 'legacy' or 'modern'.
 */
export async function appsChecks({ plain, apps, sent, era }, { check }) {
    const where = era === 'legacy' ? 'in initialize' : "in every request's _meta";
    await check(`the apps client sends extensions["${APPS_ID}"] ${where}`, async () => {
        const declared =
            era === 'legacy'
                ? sent.filter(m => m.method === 'initialize').map(m => m.params.capabilities)
                : sent.filter(m => m.method !== undefined && m.id !== undefined).map(m => m.params?._meta?.[CLIENT_CAPABILITIES]);
        ok(declared.length > 0, `no request sent: ${JSON.stringify(sent)}`);
        for (const capabilities of declared) deepStrictEqual(capabilities?.extensions?.[APPS_ID], APPS_SETTINGS);
    });

    await check(`the server's capabilities carry extensions["${APPS_ID}"], for both clients`, async () => {
        deepStrictEqual(apps.getServerCapabilities()?.extensions?.[APPS_ID], {});
        deepStrictEqual(plain.getServerCapabilities()?.extensions?.[APPS_ID], {});
    });

    await check(`tools/list: query's _meta.ui.resourceUri and _meta["ui/resourceUri"] are ${APP_URI}`, async () => {
        const { tools } = await apps.listTools();
        const query = tools.find(t => t.name === 'query');
        ok(query, `no query tool in ${tools.map(t => t.name)}`);
        strictEqual(query._meta?.ui?.resourceUri, APP_URI, JSON.stringify(query._meta));
        strictEqual(query._meta?.['ui/resourceUri'], APP_URI, JSON.stringify(query._meta));
    });

    let listedUi;
    await check(`resources/list has ${APP_URI} as ${APP_MIME} with its _meta.ui`, async () => {
        const { resources } = await apps.listResources();
        const app = resources.find(r => r.uri === APP_URI);
        ok(app, `not listed: ${JSON.stringify(resources.map(r => r.uri))}`);
        strictEqual(app.mimeType, APP_MIME);
        assertResourceUi(app._meta?.ui, 'the list entry');
        listedUi = app._meta.ui;
    });

    await check(`resources/read ${APP_URI} is an HTML document as ${APP_MIME} with the same _meta.ui`, async () => {
        const { contents } = await apps.readResource({ uri: APP_URI });
        strictEqual(contents.length, 1, JSON.stringify(contents));
        strictEqual(contents[0].uri, APP_URI);
        strictEqual(contents[0].mimeType, APP_MIME);
        ok(/^<!doctype html>/i.test(contents[0].text ?? ''), `not an HTML document: ${String(contents[0].text).slice(0, 80)}`);
        assertResourceUi(contents[0]._meta?.ui, 'the contents');
        if (listedUi !== undefined) deepStrictEqual(contents[0]._meta.ui, listedUi);
    });

    await check('tools/call query: a client without the extension gets the rows as text, as the apps client does', async () => {
        const call = { name: 'query', arguments: { sql: BOOKS_SQL, params: ['books', 10] } };
        const expected = { columns: ['id', 'name', 'category'], rows: BOOKS, row_count: 3, truncated: false };
        for (const client of [plain, apps]) {
            const result = await client.callTool(call);
            strictEqual(result.isError ?? false, false, JSON.stringify(result.content));
            strictEqual(result.content[0].type, 'text');
            deepStrictEqual(JSON.parse(result.content[0].text), expected);
        }
    });
}
