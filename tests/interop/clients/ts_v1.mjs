// TypeScript SDK v1 (@modelcontextprotocol/sdk, legacy era only) against an example server,
// over stdio (the client starts the server) or Streamable HTTP (the server is already running).
// Usage: node ts_v1.mjs [--scenario=quickstart|showcase] [--protocol=2024-11-05] SERVER_COMMAND [ARGS...]
//        node ts_v1.mjs [--scenario=quickstart|showcase] [--protocol=2024-11-05] http://127.0.0.1:PORT/mcp
//        node ts_v1.mjs --scenario=filesystem FILESYSTEM_COMMAND [ARGS...]
//        node ts_v1.mjs --scenario=sql-explorer http://127.0.0.1:PORT/mcp
// The filesystem scenario (stdio only; see fs_checks.mjs) creates a scratch tree and starts
// the `filesystem` example on it, appending `--allow-write <root>` to the command. The
// sql-explorer scenario (HTTP only; see sql_checks.mjs) drives a running sql-explorer.
// --protocol=2024-11-05 pins the client to that revision (quickstart only): the SDK always asks
// for its latest revision in `initialize`, so the wrapped transport rewrites the request's
// protocolVersion; the server must answer with it, and every later HTTP request carries it in
// MCP-Protocol-Version.

import { ok, strictEqual } from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
    elicitationAnswerer,
    legacyTaskChecks,
    parseTarget,
    quickstartChecks,
    reporter,
    showcaseChecks,
} from './checks.mjs';
import { filesystemChecks, scratchTree } from './fs_checks.mjs';
import { sqlExplorerChecks } from './sql_checks.mjs';

let argv = process.argv.slice(2);
const scenario = argv[0]?.startsWith('--scenario=') ? argv.shift().slice('--scenario='.length) : 'quickstart';
if (!['quickstart', 'showcase', 'filesystem', 'sql-explorer'].includes(scenario)) throw new Error(`unknown scenario ${scenario}`);
const pinned = argv[0]?.startsWith('--protocol=') ? argv.shift().slice('--protocol='.length) : undefined;
if (pinned !== undefined && (pinned !== '2024-11-05' || scenario !== 'quickstart')) {
    throw new Error(`--protocol=${pinned}: only 2024-11-05, with the quickstart scenario`);
}
const expectedVersion = pinned ?? '2025-11-25';
const target = parseTarget(argv);
if (scenario === 'filesystem' && target.kind !== 'stdio') throw new Error('the filesystem scenario runs over stdio only');
if (scenario === 'sql-explorer' && target.kind !== 'http') throw new Error('the sql-explorer scenario runs over HTTP only');
const tree = scenario === 'filesystem' ? scratchTree() : null;
if (tree) {
    target.args = [...target.args, '--allow-write', tree.root];
    process.on('exit', tree.remove);
}
const report = reporter(`ts-sdk-v1 ${pinned ? `${pinned} ` : ''}${scenario} ${target.kind}`);
const elicitation = elicitationAnswerer();

const client = new Client({ name: 'interop-ts-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async request => elicitation.answer(request.params));

const transport =
    target.kind === 'http'
        ? new StreamableHTTPClientTransport(target.url)
        : new StdioClientTransport({ command: target.command, args: target.args, stderr: 'inherit' });
// The client hands the negotiated version to transports that want it (HTTP sends it in the
// MCP-Protocol-Version header); record it on the way.
if (pinned) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) =>
        send(message.method === 'initialize' ? { ...message, params: { ...message.params, protocolVersion: pinned } } : message, options);
}
let negotiated;
const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = version => {
    negotiated = version;
    setProtocolVersion?.(version);
};

let connected = false;
await report.check(`initialize negotiates ${expectedVersion} with the ${scenario} server`, async () => {
    await client.connect(transport);
    connected = true;
    strictEqual(negotiated, expectedVersion);
    strictEqual(client.getServerVersion()?.name, scenario);
});
if (connected && target.kind === 'http') {
    await report.check('initialize opens a legacy session (Mcp-Session-Id)', async () => {
        ok(transport.sessionId, 'no Mcp-Session-Id on the initialize response');
        ok(/^[\x21-\x7e]+$/.test(transport.sessionId), `session id not visible ASCII: ${JSON.stringify(transport.sessionId)}`);
    });
}
if (connected && tree) {
    try {
        await filesystemChecks(client, report, tree, { refusedCode: -32602 });
    } finally {
        await client.close();
        tree.remove();
    }
} else if (connected) {
    if (scenario === 'sql-explorer') {
        await sqlExplorerChecks(client, report);
    } else if (scenario === 'showcase') {
        await showcaseChecks(client, report, { notFoundCode: -32002, elicitation });
        await legacyTaskChecks(client, report, { CallToolResultSchema, CreateTaskResultSchema });
    } else {
        await quickstartChecks(client, report, { version: expectedVersion });
    }
    if (target.kind === 'http') {
        await report.check('terminateSession() (DELETE with the session id) succeeds', async () => {
            await transport.terminateSession();
            strictEqual(transport.sessionId, undefined);
        });
    }
    await client.close();
}
process.exitCode = report.failed === 0 && connected ? 0 : 1;
