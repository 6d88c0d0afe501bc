// TypeScript SDK v2 client (@modelcontextprotocol/client) against an example server, in one
// version-negotiation mode: legacy (initialize), auto (server/discover, falling back to
// initialize) or pinned to 2026-07-28 (discover must offer it; no fallback); over stdio (the
// client starts the server) or Streamable HTTP (the server is already running).
// Usage: node ts_v2.mjs legacy|auto|2026-07-28 [--scenario=quickstart|showcase] SERVER_COMMAND [ARGS...]
//        node ts_v2.mjs legacy|auto|2026-07-28 [--scenario=quickstart|showcase] http://127.0.0.1:PORT/mcp
//        node ts_v2.mjs legacy|auto|2026-07-28 --scenario=sql-explorer http://127.0.0.1:PORT/mcp
// The sql-explorer scenario (HTTP only; see sql_checks.mjs) drives a running sql-explorer, then
// connects a second client that declares MCP Apps and checks what it sees (apps_checks.mjs).

import { ok, strictEqual } from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { elicitationAnswerer, parseTarget, quickstartChecks, reporter, showcaseChecks } from './checks.mjs';
import { sqlExplorerChecks } from './sql_checks.mjs';
import { APPS_ID, APPS_SETTINGS, appsChecks, recordSent } from './apps_checks.mjs';

const [mode, ...rest] = process.argv.slice(2);
const scenario = rest[0]?.startsWith('--scenario=') ? rest.shift().slice('--scenario='.length) : 'quickstart';
if (!['quickstart', 'showcase', 'sql-explorer'].includes(scenario)) throw new Error(`unknown scenario ${scenario}`);
const target = parseTarget(rest);
if (scenario === 'sql-explorer' && target.kind !== 'http') throw new Error('the sql-explorer scenario runs over HTTP only');
const negotiation = mode === 'legacy' || mode === 'auto' ? mode : { pin: mode };
// What the connection must end up with: our server speaks 2026-07-28 on both transports, so
// `auto` has to pick the modern era rather than fall back.
const expected = mode === 'legacy' ? { version: '2025-11-25', era: 'legacy' } : { version: '2026-07-28', era: 'modern' };
const report = reporter(`ts-sdk-v2 ${mode} ${scenario} ${target.kind}`);
const elicitation = elicitationAnswerer();

const client = new Client(
    { name: 'interop-ts-v2', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: negotiation } }
);
// Legacy: answers the server's elicitation/create request. Modern: the same handler fulfils
// the input requests of an input_required result, and the client calls again.
client.setRequestHandler('elicitation/create', async request => elicitation.answer(request.params));

const transport =
    target.kind === 'http'
        ? new StreamableHTTPClientTransport(target.url)
        : new StdioClientTransport({ command: target.command, args: target.args, stderr: 'inherit' });

let connected = false;
await report.check(`connect negotiates ${expected.version} (${expected.era} era)`, async () => {
    await client.connect(transport);
    connected = true;
    strictEqual(client.getNegotiatedProtocolVersion(), expected.version);
    strictEqual(client.getProtocolEra(), expected.era);
    strictEqual(client.getServerVersion()?.name, scenario);
});
if (connected && target.kind === 'http') {
    if (expected.era === 'legacy') {
        await report.check('initialize opens a legacy session (Mcp-Session-Id)', async () => {
            ok(transport.sessionId, 'no Mcp-Session-Id on the initialize response');
            ok(/^[\x21-\x7e]+$/.test(transport.sessionId), `session id not visible ASCII: ${JSON.stringify(transport.sessionId)}`);
        });
    } else {
        await report.check('the 2026 era is stateless: no Mcp-Session-Id', async () => {
            strictEqual(transport.sessionId, undefined);
        });
    }
}
if (connected) {
    // v2 reports a missing resource as ResourceNotFoundError (-32602) in both eras: in the
    // legacy era it rebuilds that from the wire's -32002 + data.uri (see README.md).
    if (scenario === 'sql-explorer') {
        await sqlExplorerChecks(client, report);
        await appsRun(report);
    } else if (scenario === 'showcase') {
        await showcaseChecks(client, report, { notFoundCode: -32602, elicitation });
    } else {
        await quickstartChecks(client, report);
    }
    if (target.kind === 'http' && expected.era === 'legacy') {
        await report.check('terminateSession() (DELETE with the session id) succeeds', async () => {
            await transport.terminateSession();
            strictEqual(transport.sessionId, undefined);
        });
    }
    await client.close();
}
process.exitCode = report.failed === 0 && connected ? 0 : 1;

/** A second client, declaring MCP Apps, on the same server; the apps checks with both. */
async function appsRun(report) {
    const apps = new Client(
        { name: 'interop-ts-v2-apps', version: '1.0.0' },
        { capabilities: { extensions: { [APPS_ID]: APPS_SETTINGS } }, versionNegotiation: { mode: negotiation } }
    );
    const appsTransport = new StreamableHTTPClientTransport(target.url);
    const sent = recordSent(appsTransport);
    let appsConnected = false;
    await report.check(`a client declaring ${APPS_ID} connects (${expected.era} era)`, async () => {
        await apps.connect(appsTransport);
        appsConnected = true;
        strictEqual(apps.getProtocolEra(), expected.era);
    });
    if (appsConnected) {
        await appsChecks({ plain: client, apps, sent, era: expected.era }, report);
        await apps.close();
    }
}
