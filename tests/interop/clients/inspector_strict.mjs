// The MCP Inspector CLI's schema-portability check (`--method tools/list --strict`) over one
// example server's tools, started over stdio by the Inspector. One check: the list has tools,
// and the Inspector reports no finding at all — no error (exit 6) and no warning (a `type`
// array, a schema that constrains nothing, a remote `$ref`).
// Usage: node inspector_strict.mjs --example=NAME SERVER_COMMAND
// filesystem is started on a scratch root (with --allow-write, so every tool is listed) that
// this program creates under TMPDIR and removes; the others run in TMPDIR/server (sql-explorer
// creates its sample database in its working directory).

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ok, strictEqual } from 'node:assert/strict';
import { reporter } from './checks.mjs';

const [exampleArg, command] = process.argv.slice(2);
if (!exampleArg?.startsWith('--example=') || !command) {
    throw new Error('usage: inspector_strict.mjs --example=NAME SERVER_COMMAND');
}
const example = exampleArg.slice('--example='.length);
const inspector = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin', 'mcp-inspector');
const report = reporter(`inspector-cli strict ${example} stdio`);
const home = mkdtempSync(join(tmpdir(), 'mcp-inspector-home-'));
const cwd = join(tmpdir(), 'server');
mkdirSync(cwd, { recursive: true });
const root = example === 'filesystem' ? mkdtempSync(join(tmpdir(), 'mcp-interop-fs-')) : undefined;
const server = root ? [command, '--allow-write', root] : [command];

function listStrict() {
    const argv = [inspector, '--cli', ...server, '--method', 'tools/list', '--strict', '--format', 'json'];
    return new Promise(resolve => {
        execFile(
            process.execPath,
            argv,
            { cwd, env: { ...process.env, HOME: home }, timeout: 60_000, maxBuffer: 16 << 20 },
            (error, stdout, stderr) => {
                let json;
                try {
                    json = JSON.parse(stdout);
                } catch {
                    json = undefined;
                }
                resolve({ code: error ? (error.code ?? 'killed') : 0, stderr, json });
            }
        );
    });
}

try {
    await report.check('tools/list --strict: no schema-portability error or warning', async () => {
        const run = await listStrict();
        strictEqual(run.code, 0, `exit ${run.code}: ${run.stderr}`);
        ok(run.json?.result?.tools?.length > 0, `no tools in ${JSON.stringify(run.json)}`);
        strictEqual(run.json.schemaFindings, undefined, JSON.stringify(run.json.schemaFindings));
    });
} finally {
    rmSync(home, { recursive: true, force: true });
    if (root) rmSync(root, { recursive: true, force: true });
}
process.exitCode = report.failed === 0 ? 0 : 1;
