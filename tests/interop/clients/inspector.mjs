// The MCP Inspector CLI (`mcp-inspector --cli`) against an example server, in one protocol
// era, over stdio (the Inspector starts the server) or Streamable HTTP (`--transport http`,
// the server is already running). Each check is one Inspector process (that is how the CLI
// works: connect, one method, print the result as JSON, exit), so this also covers connecting
// and closing cleanly.
// Usage: node inspector.mjs legacy|modern [--scenario=quickstart|showcase] SERVER_COMMAND [ARGS...]
//        node inspector.mjs legacy|modern [--scenario=quickstart|showcase] http://127.0.0.1:PORT/mcp

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { ECHO_TEXT, parseTarget, reporter, runInspector } from './checks.mjs';

const [era, ...rest] = process.argv.slice(2);
const scenario = rest[0]?.startsWith('--scenario=') ? rest.shift().slice('--scenario='.length) : 'quickstart';
if (!['quickstart', 'showcase'].includes(scenario)) throw new Error(`unknown scenario ${scenario}`);
const target = parseTarget(rest);
// The Inspector's target: the server command (everything that is not an option), or the URL.
const server = target.kind === 'http' ? [target.url.href, '--transport', 'http'] : [target.command, ...target.args];
const report = reporter(`inspector-cli ${era} ${scenario} ${target.kind}`);
const version = era === 'modern' ? '2026-07-28' : '2025-11-25';
// The Inspector keeps a catalog and OAuth state under $HOME: give it a throwaway one.
const home = mkdtempSync(join(tmpdir(), 'mcp-inspector-home-'));

/** Runs one Inspector command; resolves to {code, stdout, stderr, json} (never rejects). */
function inspect(...args) {
    return runInspector(['--cli', '--protocol-era', era, ...server, ...args, '--format', 'json', '-q'], { home });
}

/** The `result` of a successful Inspector run. */
async function result(...args) {
    const run = await inspect(...args);
    strictEqual(run.code, 0, `exit ${run.code}: ${run.stderr || run.stdout}`);
    ok(run.json?.result, `no result in ${run.stdout}`);
    return run.json.result;
}

function onlyText(r) {
    strictEqual(r.isError ?? false, false, JSON.stringify(r.content));
    strictEqual(r.content.length, 1, JSON.stringify(r.content));
    strictEqual(r.content[0].type, 'text');
    return r.content[0].text;
}

try {
    await report.check(`initialize negotiates ${version}`, async () => {
        const r = await result('--method', 'initialize');
        strictEqual(r.protocolVersion, version);
        strictEqual(r.serverInfo.name, scenario);
    });
    if (scenario === 'quickstart') await quickstart();
    else await showcase();
} finally {
    rmSync(home, { recursive: true, force: true });
}
process.exitCode = report.failed === 0 ? 0 : 1;

async function quickstart() {
    // --strict: the Inspector's schema portability lint; exit 6 on an error-severity problem.
    await report.check('tools/list --strict offers add, echo and stats, described, with portable schemas', async () => {
        const { tools } = await result('--method', 'tools/list', '--strict');
        const byName = Object.fromEntries(tools.map(t => [t.name, t]));
        for (const name of ['add', 'echo', 'stats']) {
            ok(byName[name]?.description, `tool ${name} missing or without a description`);
        }
        strictEqual(byName.stats.outputSchema?.type, 'object');
    });

    await report.check('tools/call add with --tool-arg a=2 b=40 returns 42', async () => {
        const r = await result('--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=40');
        strictEqual(onlyText(r), '42');
        // Only 2026 results identify the server in _meta: proves which era was spoken.
        const serverInfo = r._meta?.['io.modelcontextprotocol/serverInfo'];
        strictEqual(serverInfo?.name, era === 'modern' ? 'quickstart' : undefined, JSON.stringify(r._meta));
    });

    await report.check('tools/call echo with --tool-args-json returns the text unchanged', async () => {
        const r = await result('--method', 'tools/call', '--tool-name', 'echo', '--tool-args-json', JSON.stringify({ text: ECHO_TEXT }));
        strictEqual(onlyText(r), ECHO_TEXT);
    });

    await report.check('tools/call stats returns structuredContent {count, mean, min, max}', async () => {
        const r = await result('--method', 'tools/call', '--tool-name', 'stats', '--tool-args-json', '{"numbers":[1,2,3,4]}');
        deepStrictEqual(r.structuredContent, { count: 4, mean: 2.5, min: 1, max: 4 });
    });

    await report.check('resources/read quickstart://readme is markdown', async () => {
        const { contents } = await result('--method', 'resources/read', '--uri', 'quickstart://readme');
        strictEqual(contents[0].mimeType, 'text/markdown');
        ok(contents[0].text.startsWith('# quickstart'), contents[0].text.slice(0, 80));
    });

    await report.check('prompts/get code_review with --prompt-args quotes the code', async () => {
        const code = 'let total = a - b; // "sum"';
        const { messages } = await result('--method', 'prompts/get', '--prompt-name', 'code_review', '--prompt-args', `code=${code}`);
        strictEqual(messages.length, 1);
        strictEqual(messages[0].role, 'user');
        ok(messages[0].content.text.includes(code), messages[0].content.text);
    });
}

async function showcase() {
    await report.check('tools/list --strict offers greet and report, described, with portable schemas', async () => {
        const { tools } = await result('--method', 'tools/list', '--strict');
        deepStrictEqual(tools.map(t => t.name), ['greet', 'report']);
        for (const tool of tools) ok(tool.description, `${tool.name} has no description`);
    });

    await report.check('resources/templates/list shows showcase://notes/{id}', async () => {
        const { resourceTemplates } = await result('--method', 'resources/templates/list');
        deepStrictEqual(resourceTemplates.map(t => t.uriTemplate), ['showcase://notes/{id}']);
    });

    // The Inspector CLI cannot answer elicitation and does not declare it: greet must say so
    // (legacy: an isError result, exit 5) or, in 2026, the server refuses the call with
    // -32021 "missing required client capability" (the CLI prints the message, exit 1).
    await report.check('tools/call greet without elicitation support is refused with a clear message', async () => {
        const run = await inspect('--method', 'tools/call', '--tool-name', 'greet');
        if (era === 'modern') {
            strictEqual(run.code, 1, `exit ${run.code}: ${run.stdout}${run.stderr}`);
            ok(/missing required client capability/.test(run.stderr), run.stderr);
        } else {
            strictEqual(run.code, 5, `exit ${run.code}: ${run.stdout}${run.stderr}`);
            strictEqual(run.json?.result?.isError, true, run.stdout);
            ok(/does not support elicitation/.test(run.json.result.content[0].text), run.stdout);
        }
    });
}
