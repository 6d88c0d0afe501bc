// The quickstart and showcase checks shared by the TypeScript clients. SDK v1 and v2 clients expose the
// same calls (listTools, callTool, readResource, getPrompt), so one scenario drives both.
// Every check prints one line: `ok - <label>: <check>` or `not ok - <label>: <check>: <why>`.

import { execFile } from 'node:child_process';
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GREET_NAME = 'Ada Lovelace';
export const ECHO_TEXT = '  tabs\tand\nnewlines, "quotes", back\\slash, ünïcödé 🦀  ';
const REVIEWED_CODE = 'fn add(a: i32, b: i32) -> i32 { a - b }';

/**
 * The server a client program talks to, from its command line: an `http://` or `https://`
 * URL (a running server's Streamable HTTP endpoint) or the command that starts a stdio server.
 */
export function parseTarget(argv) {
    if (argv.length === 0) throw new Error('no server: give a URL or a server command');
    if (/^https?:\/\//.test(argv[0])) {
        if (argv.length !== 1) throw new Error(`a URL target takes no further arguments: ${argv.slice(1).join(' ')}`);
        return { kind: 'http', url: new URL(argv[0]) };
    }
    const [command, ...args] = argv;
    return { kind: 'stdio', command, args };
}

/**
 * Runs the Inspector CLI (`mcp-inspector ARGS...`) with HOME set to `home` (it keeps a catalog
 * and OAuth state there) and, if given, in the directory `cwd`; resolves to
 * {code, stdout, stderr, json}, `json` being stdout parsed (never rejects).
 */
export function runInspector(args, { home, cwd }) {
    const inspector = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin', 'mcp-inspector');
    return new Promise(resolve => {
        execFile(
            process.execPath,
            [inspector, ...args],
            { cwd, env: { ...process.env, HOME: home }, timeout: 60_000, maxBuffer: 16 << 20 },
            (error, stdout, stderr) => {
                let json;
                try {
                    json = JSON.parse(stdout);
                } catch {
                    json = undefined;
                }
                resolve({ code: error ? (error.code ?? 'killed') : 0, stdout, stderr, json });
            }
        );
    });
}

/** A check runner for one client run: counts failures and prints one line per check. */
export function reporter(label) {
    let failed = 0;
    return {
        async check(name, body) {
            try {
                await body();
                console.log(`ok - ${label}: ${name}`);
            } catch (e) {
                failed += 1;
                const why = String(e?.message ?? e).replace(/\s+/g, ' ').slice(0, 600);
                console.log(`not ok - ${label}: ${name}: ${why}`);
            }
        },
        get failed() {
            return failed;
        }
    };
}

/** Answers elicitation/create as a user typing GREET_NAME would, remembering what was asked. */
export function elicitationAnswerer() {
    const seen = [];
    const answer = params => {
        seen.push(params);
        return { action: 'accept', content: { name: GREET_NAME } };
    };
    return { seen, answer };
}

function onlyText(result) {
    strictEqual(result.isError ?? false, false, `isError with ${JSON.stringify(result.content)}`);
    strictEqual(result.content.length, 1, `one content block expected, got ${JSON.stringify(result.content)}`);
    strictEqual(result.content[0].type, 'text');
    return result.content[0].text;
}

/**
 * Runs the quickstart contract (tools, a resource, a prompt) against a connected client.
 *
 * version: the negotiated revision, when the caller knows it. A 2024-11-05 client is sent no
 * member of a later revision: no outputSchema, no structuredContent (the text still carries
 * the JSON), no title.
 */
export async function quickstartChecks(client, { check }, { version } = {}) {
    const old = version === '2024-11-05';
    await check('tools/list offers add, echo and stats, each with a description', async () => {
        const { tools } = await client.listTools();
        const byName = Object.fromEntries(tools.map(t => [t.name, t]));
        for (const name of ['add', 'echo', 'stats']) {
            ok(byName[name], `no tool ${name} in ${tools.map(t => t.name).join(', ')}`);
            ok(byName[name].description, `tool ${name} has no description`);
            strictEqual(byName[name].inputSchema.type, 'object');
        }
        deepStrictEqual(byName.add.inputSchema.required, ['a', 'b']);
        if (old) {
            for (const tool of tools) {
                for (const later of ['title', 'outputSchema', 'annotations', 'icons', 'execution', '_meta']) {
                    ok(!(later in tool), `tool ${tool.name} has ${later}, which 2024-11-05 lacks`);
                }
            }
        } else {
            strictEqual(byName.stats.outputSchema?.type, 'object', 'stats has an object outputSchema');
        }
    });

    await check('tools/call add {a:2, b:40} returns the text 42', async () => {
        const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
        strictEqual(onlyText(result), '42');
    });

    await check('tools/call echo returns the text unchanged', async () => {
        const result = await client.callTool({ name: 'echo', arguments: { text: ECHO_TEXT } });
        strictEqual(onlyText(result), ECHO_TEXT);
    });

    const statsCheck = old
        ? 'tools/call stats returns {count, mean, min, max} as text only'
        : 'tools/call stats returns structuredContent {count, mean, min, max}';
    await check(statsCheck, async () => {
        const result = await client.callTool({ name: 'stats', arguments: { numbers: [1, 2, 3, 4] } });
        strictEqual(result.isError ?? false, false, JSON.stringify(result.content));
        const expected = { count: 4, mean: 2.5, min: 1, max: 4 };
        if (old) {
            ok(!('structuredContent' in result), 'structuredContent, which 2024-11-05 lacks');
        } else {
            deepStrictEqual(result.structuredContent, expected);
        }
        deepStrictEqual(JSON.parse(result.content[0].text), expected, 'text mirrors the JSON');
    });

    await check('tools/call stats with no numbers is a tool error the model can read', async () => {
        const result = await client.callTool({ name: 'stats', arguments: { numbers: [] } });
        strictEqual(result.isError, true);
        ok(/at least one/.test(result.content[0].text), result.content[0].text);
    });

    await check('resources/read quickstart://readme is markdown', async () => {
        const { contents } = await client.readResource({ uri: 'quickstart://readme' });
        strictEqual(contents.length, 1);
        strictEqual(contents[0].uri, 'quickstart://readme');
        strictEqual(contents[0].mimeType, 'text/markdown');
        ok(contents[0].text.startsWith('# quickstart'), contents[0].text.slice(0, 80));
    });

    await check('prompts/get code_review returns one user message quoting the code', async () => {
        const { prompts } = await client.listPrompts();
        const prompt = prompts.find(p => p.name === 'code_review');
        ok(prompt?.description, 'code_review is listed with a description');
        deepStrictEqual(
            prompt.arguments.map(a => [a.name, a.required]),
            [['code', true]]
        );
        const { messages } = await client.getPrompt({ name: 'code_review', arguments: { code: REVIEWED_CODE } });
        strictEqual(messages.length, 1);
        strictEqual(messages[0].role, 'user');
        strictEqual(messages[0].content.type, 'text');
        ok(messages[0].content.text.includes(REVIEWED_CODE), messages[0].content.text);
    });
}

/**
 * Runs the showcase contract (elicitation, a resource template) against a connected client.
 *
 * notFoundCode: the error code this client reports for a missing resource (the wire code is
 * -32002 in the legacy era and -32602 in the modern era; some clients normalize it).
 * elicitation: the answerer registered on the client.
 */
export async function showcaseChecks(client, { check }, { notFoundCode, elicitation }) {
    await check('tools/list offers greet and report, described', async () => {
        const { tools } = await client.listTools();
        deepStrictEqual(tools.map(t => t.name), ['greet', 'report']);
        for (const tool of tools) {
            ok(tool.description, `${tool.name} has no description`);
            strictEqual(tool.inputSchema.type, 'object');
        }
    });

    await check('tools/call report without a task runs to the end and answers in the call', async () => {
        const result = await client.callTool({ name: 'report', arguments: { sections: 1 } });
        strictEqual(onlyText(result), 'The report: 1 sections, all good.');
    });

    await check('resources/read through the template showcase://notes/{id}', async () => {
        const { resourceTemplates } = await client.listResourceTemplates();
        ok(resourceTemplates.some(t => t.uriTemplate === 'showcase://notes/{id}'), JSON.stringify(resourceTemplates));
        const { contents } = await client.readResource({ uri: 'showcase://notes/welcome' });
        strictEqual(contents[0].mimeType, 'text/markdown');
        ok(contents[0].text.includes('Welcome!'), contents[0].text);
    });

    await check(`resources/read of a missing note fails with ${notFoundCode} naming the URI`, async () => {
        const uri = 'showcase://notes/missing';
        let result;
        try {
            result = await client.readResource({ uri });
        } catch (e) {
            strictEqual(e.code, notFoundCode, `code ${e.code}: ${e.message}`);
            strictEqual(e.data?.uri, uri, `data ${JSON.stringify(e.data)}`);
            return;
        }
        throw new Error(`no error; got ${JSON.stringify(result)}`);
    });

    await check(`tools/call greet elicits a name and answers "Hello, ${GREET_NAME}!"`, async () => {
        const before = elicitation.seen.length;
        const result = await client.callTool({ name: 'greet', arguments: {} });
        strictEqual(onlyText(result), `Hello, ${GREET_NAME}!`);
        strictEqual(elicitation.seen.length, before + 1, 'exactly one elicitation');
        const asked = elicitation.seen.at(-1);
        strictEqual(asked.message, 'What is your name?');
        strictEqual(asked.requestedSchema.properties.name.type, 'string');
        deepStrictEqual(asked.requestedSchema.required, ['name']);
    });
}

/**
 * The 2025-11-25 tasks of the showcase's `report` tool, through the TypeScript SDK v1's
 * experimental tasks API (`client.experimental.tasks`): a task-augmented call streamed to
 * its result, `tasks/get`, `tasks/list` and `tasks/result` of the finished task, and
 * `tasks/cancel` of a running one. `schemas` are the SDK's result schemas.
 */
export async function legacyTaskChecks(client, { check }, { CallToolResultSchema, CreateTaskResultSchema }) {
    const reportText = n => `The report: ${n} sections, all good.`;
    let finished;

    await check('tools/list: report takes tasks (execution.taskSupport "optional")', async () => {
        const { tools } = await client.listTools();
        strictEqual(tools.find(t => t.name === 'report')?.execution?.taskSupport, 'optional');
        strictEqual(client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined, true);
    });

    await check('tasks: report called as a task streams taskCreated, then its result', async () => {
        const kinds = [];
        let result;
        const stream = client.experimental.tasks.callToolStream(
            { name: 'report', arguments: { sections: 2 } },
            CallToolResultSchema,
            { task: { ttl: 60000 } },
        );
        for await (const message of stream) {
            kinds.push(message.type);
            if (message.type === 'taskCreated') finished = message.task.taskId;
            if (message.type === 'result') result = message.result;
            if (message.type === 'error') throw message.error;
        }
        strictEqual(kinds[0], 'taskCreated', kinds.join(' '));
        strictEqual(kinds.at(-1), 'result', kinds.join(' '));
        ok(finished, 'no task id');
        strictEqual(onlyText(result), reportText(2));
    });

    await check('tasks/get, tasks/list and tasks/result of the finished task', async () => {
        const task = await client.experimental.tasks.getTask(finished);
        strictEqual(task.status, 'completed');
        const { tasks } = await client.experimental.tasks.listTasks();
        ok(tasks.some(t => t.taskId === finished), JSON.stringify(tasks));
        const result = await client.experimental.tasks.getTaskResult(finished, CallToolResultSchema);
        strictEqual(onlyText(result), reportText(2));
    });

    await check('tasks/cancel of a running task: cancelled, and a second cancel is refused', async () => {
        const created = await client.request(
            { method: 'tools/call', params: { name: 'report', arguments: { sections: 100 }, task: { ttl: 60000 } } },
            CreateTaskResultSchema,
        );
        const id = created.task.taskId;
        strictEqual(created.task.status, 'working');
        const cancelled = await client.experimental.tasks.cancelTask(id);
        strictEqual(cancelled.status, 'cancelled');
        strictEqual((await client.experimental.tasks.getTask(id)).status, 'cancelled');
        let refused;
        try {
            await client.experimental.tasks.cancelTask(id);
        } catch (e) {
            refused = e;
        }
        strictEqual(refused?.code, -32602, `second cancel: ${refused?.message ?? 'accepted'}`);
    });
}
