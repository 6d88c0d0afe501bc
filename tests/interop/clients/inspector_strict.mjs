// The MCP Inspector CLI's schema-portability check (`--method tools/list --strict`) over one
// example server's tools, started over stdio by the Inspector. One check: the list has tools,
// and the Inspector reports no finding at all — no error (exit 6) and no warning (a `type`
// array, a schema that constrains nothing, a remote `$ref`).
// Usage: node inspector_strict.mjs --example=NAME SERVER_COMMAND
// filesystem is started on a scratch root (with --allow-write, so every tool is listed) that
// this program creates under TMPDIR and removes; the others run in TMPDIR/server (sql-explorer
// creates its sample database in its working directory).

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, strictEqual } from 'node:assert/strict';
import { reporter, runInspector } from './checks.mjs';

const [exampleArg, command] = process.argv.slice(2);
if (!exampleArg?.startsWith('--example=') || !command) {
    throw new Error('usage: inspector_strict.mjs --example=NAME SERVER_COMMAND');
}
const example = exampleArg.slice('--example='.length);
const report = reporter(`inspector-cli strict ${example} stdio`);
const home = mkdtempSync(join(tmpdir(), 'mcp-inspector-home-'));
const cwd = join(tmpdir(), 'server');
mkdirSync(cwd, { recursive: true });
const root = example === 'filesystem' ? mkdtempSync(join(tmpdir(), 'mcp-interop-fs-')) : undefined;
const server = root ? [command, '--allow-write', root] : [command];

try {
    await report.check('tools/list --strict: no schema-portability error or warning', async () => {
        const run = await runInspector(['--cli', ...server, '--method', 'tools/list', '--strict', '--format', 'json'], { home, cwd });
        strictEqual(run.code, 0, `exit ${run.code}: ${run.stderr || run.stdout}`);
        ok(run.json?.result?.tools?.length > 0, `no tools in ${JSON.stringify(run.json)}`);
        strictEqual(run.json.schemaFindings, undefined, JSON.stringify(run.json.schemaFindings));
    });
} finally {
    rmSync(home, { recursive: true, force: true });
    if (root) rmSync(root, { recursive: true, force: true });
}
process.exitCode = report.failed === 0 ? 0 : 1;
