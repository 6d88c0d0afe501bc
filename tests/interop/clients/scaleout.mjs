// The scale-out suite's Node side (tests/interop/scaleout.sh): clients that talk to three
// `everything --redis` replicas through a round-robin load balancer with no stickiness.
//
//   node scaleout.mjs load LB_URL SECONDS
//       TypeScript SDK v1 client (a 2025-11-25 session) calling tools for SECONDS while the
//       script kills and restarts replicas: every call must succeed.
//   node scaleout.mjs fanout LB_URL REPLICA_URL,REPLICA_URL,...
//       a 2026 `subscriptions/listen` stream opened through the balancer hears the tool list
//       change triggered on every replica (the Redis notification bus).
//   node scaleout.mjs session LB_URL
//       opens a legacy session through the balancer; prints its id.
//   node scaleout.mjs redis-down LB_URL SESSION
//       with Redis stopped: the session's requests get 503 + Retry-After (never another
//       error), 2026 requests are served.
//   node scaleout.mjs redis-up LB_URL SESSION
//       with Redis back: the same session is served again by every replica.
//   node scaleout.mjs resume LB_URL REPLICA_A,REPLICA_B,... PID_OF_A
//       a legacy call's SSE stream, left on replica A, resumes on B (Last-Event-ID) with
//       each event once; then A is killed (SIGKILL, PID_OF_A) after a stream of its own
//       was left, and the events A wrote are resumed through the balancer, each once.
// Prints `ok - …` / `not ok - …` per check; exits 1 on any failure.

import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { reporter } from './checks.mjs';

const [mode, url, arg, pid] = process.argv.slice(2);
const report = reporter(`scaleout ${mode}`);
const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

/** A raw JSON-RPC POST; returns the HTTP status, headers and the JSON-RPC messages. */
async function post(target, body, headers = {}) {
    const response = await fetch(target, {
        method: 'POST',
        headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    let messages = [];
    if (type.startsWith('application/json') && text) messages = [JSON.parse(text)];
    if (type.startsWith('text/event-stream')) {
        messages = text
            .split('\n')
            .filter(l => l.startsWith('data: ') && l.length > 6)
            .map(l => JSON.parse(l.slice(6)));
    }
    return { status: response.status, headers: response.headers, messages };
}

function legacyCall(session, id, name) {
    return post(
        url,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'greet', arguments: { name } } },
        { 'mcp-protocol-version': LEGACY, 'mcp-session-id': session },
    );
}

function modernCall(target, id, tool, args) {
    const params = {
        name: tool,
        arguments: args,
        _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': {},
        },
    };
    return post(
        target,
        { jsonrpc: '2.0', id, method: 'tools/call', params },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': tool },
    );
}

function greeting(messages, name) {
    const answer = messages.find(m => m.id !== undefined);
    ok(answer, 'no answer');
    strictEqual(answer.result?.content?.[0]?.text, `Hello, ${name}!`, JSON.stringify(answer));
}

async function load(seconds) {
    const client = new Client({ name: 'scaleout-ts', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    let calls = 0;
    const failures = [];
    await report.check('connect through the balancer (a 2025-11-25 session)', async () => {
        await client.connect(transport);
        ok(transport.sessionId, 'no session id');
    });
    const deadline = Date.now() + seconds * 1000;
    while (Date.now() < deadline) {
        calls += 1;
        const name = `caller ${calls}`;
        try {
            const result = await client.callTool({ name: 'greet', arguments: { name } });
            if (result.content?.[0]?.text !== `Hello, ${name}!`) failures.push(`call ${calls}: ${JSON.stringify(result)}`);
            if (calls % 20 === 0) {
                const { tools } = await client.listTools();
                if (!tools.some(t => t.name === 'greet')) failures.push(`list ${calls}: no greet`);
            }
        } catch (e) {
            failures.push(`call ${calls}: ${e?.message ?? e}`);
        }
    }
    await report.check(`${calls} calls in ${seconds} s, one session, replicas killed and restarted meanwhile: every call answered`, async () => {
        ok(calls >= 20, `only ${calls} calls`);
        strictEqual(failures.length, 0, failures.slice(0, 5).join(' | '));
    });
    await transport.close().catch(() => {});
}

/** Reads SSE messages from a streaming response body into `into`, until it ends. */
async function pump(body, into) {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of event.split('\n')) {
                if (line.startsWith('data: ') && line.length > 6) into.push(JSON.parse(line.slice(6)));
            }
        }
    }
}

async function fanout(replicas) {
    const seen = [];
    const abort = new AbortController();
    const response = await fetch(url, {
        method: 'POST',
        headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': 'subscriptions/listen',
        },
        body: JSON.stringify({
            jsonrpc: '2.0',
            id: 'fanout',
            method: 'subscriptions/listen',
            params: {
                notifications: { toolsListChanged: true },
                _meta: {
                    'io.modelcontextprotocol/protocolVersion': MODERN,
                    'io.modelcontextprotocol/clientCapabilities': {},
                },
            },
        }),
        signal: abort.signal,
    });
    const reading = pump(response.body, seen).catch(() => {});
    const changes = () => seen.filter(m => m.method === 'notifications/tools/list_changed').length;
    await report.check('a listen stream opened through the balancer is acknowledged', async () => {
        strictEqual(response.status, 200);
        for (let i = 0; i < 100 && seen.length === 0; i++) await sleep(50);
        strictEqual(seen[0]?.method, 'notifications/subscriptions/acknowledged', JSON.stringify(seen[0]));
    });
    const before = changes();
    await report.check(`the tool list changed on each of the ${replicas.length} replicas reaches it`, async () => {
        for (const [i, replica] of replicas.entries()) {
            const { status, messages } = await modernCall(replica, i + 1, 'test_trigger_tool_change', {});
            strictEqual(status, 200, JSON.stringify(messages));
        }
        // One replica holds the stream; without the bus it would hear only its own change,
        // with an echo between replicas it would hear more.
        for (let i = 0; i < 200 && changes() - before < replicas.length; i++) await sleep(50);
        await sleep(1000);
        strictEqual(changes() - before, replicas.length, `list_changed for ${replicas.length} changes`);
    });
    abort.abort();
    await reading;
}

async function session() {
    const init = await post(
        url,
        {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'scaleout-raw', version: '1.0.0' } },
        },
        {},
    );
    const id = init.headers.get('mcp-session-id');
    await report.check('a legacy session opens through the balancer', async () => {
        strictEqual(init.status, 200);
        ok(id, 'no Mcp-Session-Id');
        const done = await post(
            url,
            { jsonrpc: '2.0', method: 'notifications/initialized' },
            { 'mcp-protocol-version': LEGACY, 'mcp-session-id': id },
        );
        strictEqual(done.status, 202);
        for (let i = 0; i < 3; i++) greeting((await legacyCall(id, 10 + i, 'before')).messages, 'before');
    });
    // The id on stdout's last line, for the next step.
    console.log(id ?? '');
}

async function redisDown(id) {
    await report.check('with Redis stopped, the session gets 503 with Retry-After, never another error', async () => {
        const statuses = [];
        let refused = null;
        for (let i = 0; i < 40 && !refused; i++) {
            const { status, headers, messages } = await legacyCall(id, 100 + i, 'during');
            statuses.push(status);
            if (status === 503) refused = { retry: headers.get('retry-after'), messages };
            else if (status === 200) greeting(messages, 'during');
            else throw new Error(`status ${status}: ${JSON.stringify(messages)}`);
            if (!refused) await sleep(250);
        }
        ok(refused, `never refused: ${statuses.join(',')}`);
        ok(Number(refused.retry) >= 1, `Retry-After: ${refused.retry}`);
        ok(refused.messages[0]?.error, JSON.stringify(refused.messages));
    });
    await report.check('with Redis stopped, 2026 requests are served by every replica', async () => {
        for (let i = 0; i < 6; i++) {
            const { status, messages } = await modernCall(url, 200 + i, 'greet', { name: 'stateless' });
            strictEqual(status, 200, JSON.stringify(messages));
            greeting(messages, 'stateless');
        }
    });
}

async function redisUp(id) {
    await report.check('with Redis back, the same session is served again on every replica', async () => {
        let inARow = 0;
        const statuses = [];
        for (let i = 0; i < 80 && inARow < 6; i++) {
            const { status, messages } = await legacyCall(id, 300 + i, 'after');
            statuses.push(status);
            if (status === 200) {
                greeting(messages, 'after');
                inARow += 1;
            } else if (status === 503) {
                inARow = 0;
                await sleep(250);
            } else {
                throw new Error(`status ${status}: ${JSON.stringify(messages)}`);
            }
        }
        strictEqual(inARow, 6, `statuses: ${statuses.join(',')}`);
    });
}

/**
 * Reads SSE events ({id, message}; a priming event's message is null) from `response` until
 * `enough(events)`, the stream ends, or `ms` pass; then lets the connection go.
 */
async function readSse(response, ms, enough = () => false) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const events = [];
    const deadline = Date.now() + ms;
    let buffer = '';
    let ended = false;
    while (!enough(events)) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        const chunk = await Promise.race([reader.read(), sleep(left).then(() => null)]);
        if (chunk === null) break;
        if (chunk.done) {
            ended = true;
            break;
        }
        buffer += decoder.decode(chunk.value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const lines = buffer.slice(0, end).split('\n');
            buffer = buffer.slice(end + 2);
            const id = lines.find(l => l.startsWith('id: '))?.slice(4);
            const data = lines.find(l => l.startsWith('data: '))?.slice(6) ?? '';
            events.push({ id, message: data.trim() ? JSON.parse(data) : null });
        }
    }
    await reader.cancel().catch(() => {});
    return { events, ended };
}

async function resume(replicas, victim) {
    const [a, b] = replicas;
    const init = await post(url, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'scaleout-resume', version: '1.0.0' } },
    });
    const session = init.headers.get('mcp-session-id');
    const headers = { 'mcp-protocol-version': LEGACY, 'mcp-session-id': session };
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const progressOf = e => e.message?.params?.progress;
    // A call reporting progress once a second, its stream read on `target` up to the first
    // progress; the connection then goes (the call goes on).
    const leave = async (target, id, seconds) => {
        const response = await fetch(target, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
            body: JSON.stringify({
                jsonrpc: '2.0',
                id,
                method: 'tools/call',
                params: { name: 'slow_compute', arguments: { seconds, label: 'resumed' }, _meta: { progressToken: `p${id}` } },
            }),
        });
        strictEqual(response.status, 200);
        const { events } = await readSse(response, 10_000, ev => ev.some(e => progressOf(e) === 1));
        const last = events.at(-1);
        strictEqual(progressOf(last), 1, JSON.stringify(events));
        return last.id;
    };
    const reconnect = target =>
        fetch(target, { headers: { accept: 'text/event-stream', ...headers, 'last-event-id': lastId } });
    let lastId = '';
    await report.check('a stream left on one replica resumes on another with each event once', async () => {
        lastId = await leave(a, 2, 3);
        const resumed = await reconnect(b);
        strictEqual(resumed.status, 200);
        const { events, ended } = await readSse(resumed, 15_000);
        ok(ended, `the stream ends with the answer: ${JSON.stringify(events)}`);
        deepStrictEqual(events.map(e => progressOf(e) ?? e.message?.id), [2, 3, 2]);
        ok(events[2].message.result.content[0].text.includes('computed resumed in 3 s'), JSON.stringify(events[2]));
        const tag = id => id.split('.')[0];
        ok(events.every(e => tag(e.id) === tag(lastId)), 'the ids are those of the stream left');
    });
    await report.check('after its replica dies, what it wrote resumes through the balancer, each event once', async () => {
        lastId = await leave(a, 3, 20);
        // Away for 3 s: progress 2 (and likely 3) is written meanwhile; then the replica dies.
        await sleep(3_000);
        process.kill(Number(victim), 'SIGKILL');
        await sleep(300);
        const resumed = await reconnect(url);
        strictEqual(resumed.status, 200);
        const { events } = await readSse(resumed, 3_000);
        const progress = events.map(progressOf);
        ok(progress.length >= 1, `the events written before the kill: ${JSON.stringify(events)}`);
        deepStrictEqual(
            progress,
            progress.map((_, i) => i + 2),
            'each progress after the last one seen, once and in order; no answer (its request died)',
        );
    });
}

switch (mode) {
    case 'load':
        await load(Number(arg));
        break;
    case 'fanout':
        await fanout(arg.split(','));
        break;
    case 'session':
        await session();
        break;
    case 'redis-down':
        await redisDown(arg);
        break;
    case 'redis-up':
        await redisUp(arg);
        break;
    case 'resume':
        await resume(arg.split(','), pid);
        break;
    default:
        throw new Error(`unknown mode ${mode}`);
}
process.exit(report.failed ? 1 : 0);
