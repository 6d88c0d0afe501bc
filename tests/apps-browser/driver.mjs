// Drives a real browser through the sql-explorer's MCP App and asserts on what it shows.
//
//   node driver.mjs --mcp http://127.0.0.1:PORT/mcp --chromium /usr/bin/chromium
//
// It bundles host/host.mjs (esbuild, for the browser), serves the host page on a loopback
// port of its own with /mcp proxied to the sql-explorer (the page reaches the server from its
// own origin: the server sends no CORS headers, as a server for non-browser clients need not),
// starts a "canary" server on another port that the app is not allowed to reach, launches
// headless chromium with playwright-core and checks, inside the app's iframe: the rendered
// table, sorting, the chart, a query run from the app through the host's AppBridge, and the
// Content-Security-Policy the host applied. One `ok - ` / `not ok - ` line per check; the exit
// status is 1 if any check failed.
import { createServer, request as httpRequest } from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const { values: options } = parseArgs({
    options: { mcp: { type: 'string' }, chromium: { type: 'string' } }
});
if (!options.mcp || !options.chromium) {
    console.error('usage: node driver.mjs --mcp URL --chromium PATH');
    process.exit(2);
}
const mcp = new URL(options.mcp);

const UI_EXTENSION = 'io.modelcontextprotocol/ui';
const APP_URI = 'ui://sql-explorer/query.html';
const APP_MIME = 'text/html;profile=mcp-app';
// The sample shop's queries (tests/apps-browser/README.md): the first renders as a bar chart,
// the one the app runs next as a line chart.
const BAR_SQL = 'SELECT category, count(*) AS products FROM products GROUP BY category ORDER BY category';
const LINE_SQL = 'SELECT ordered_on, count(*) AS orders FROM orders GROUP BY ordered_on ORDER BY ordered_on LIMIT 10';
const TIMEOUT = 20_000;

// --- reporting ------------------------------------------------------------------------------
let failures = 0;
async function check(name, body) {
    try {
        await body();
        console.log(`ok - ${name}`);
        return true;
    } catch (error) {
        failures += 1;
        console.log(`not ok - ${name}`);
        for (const line of String(error?.message ?? error).split('\n').slice(0, 30)) console.log(`    | ${line}`);
        return false;
    }
}
function expect(condition, message) {
    if (!condition) throw new Error(message);
}
const show = value => JSON.stringify(value);

// --- the host page's server, with /mcp proxied to the MCP server -----------------------------
async function bundleHost() {
    const out = await build({
        entryPoints: [join(here, 'host', 'host.mjs')],
        bundle: true,
        format: 'esm',
        platform: 'browser',
        target: 'chrome120',
        write: false,
        logLevel: 'silent'
    });
    return out.outputFiles[0].text;
}

// Every JSON-RPC request the page sent to the server through /mcp, parsed.
const seenByServer = [];

function proxy(req, res) {
    const chunks = [];
    req.on('data', chunk => chunks.push(chunk));
    req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (body.length) {
            try {
                seenByServer.push(JSON.parse(body.toString('utf8')));
            } catch {
                // Not JSON: the server answers it; nothing to record.
            }
        }
        const upstream = httpRequest(
            {
                host: mcp.hostname,
                port: mcp.port,
                path: mcp.pathname + (new URL(req.url, 'http://x').search || ''),
                method: req.method,
                headers: { ...req.headers, host: mcp.host }
            },
            reply => {
                res.writeHead(reply.statusCode ?? 502, reply.headers);
                reply.pipe(res);
            }
        );
        upstream.on('error', error => {
            res.writeHead(502, { 'content-type': 'text/plain' });
            res.end(`proxy: ${error.message}`);
        });
        upstream.end(body);
    });
}

function listen(server) {
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(server.address().port));
    });
}

async function startHostServer() {
    const page = await readFile(join(here, 'host', 'index.html'));
    const script = await bundleHost();
    const server = createServer((req, res) => {
        const path = new URL(req.url, 'http://x').pathname;
        if (path === '/mcp') return proxy(req, res);
        if (path === '/') {
            res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
            return res.end(page);
        }
        if (path === '/host.js') {
            res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
            return res.end(script);
        }
        // (favicon.ico among them: 404 without a console error would need a body; 204 is quiet.)
        res.writeHead(path === '/favicon.ico' ? 204 : 404).end();
    });
    return { server, port: await listen(server) };
}

// The origin the app declares nothing for: any request reaching it is a CSP failure.
async function startCanary() {
    const hits = [];
    const server = createServer((req, res) => {
        hits.push(`${req.method} ${req.url}`);
        res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' });
        res.end('canary');
    });
    return { server, hits, origin: `http://127.0.0.1:${await listen(server)}` };
}

// --- the checks -------------------------------------------------------------------------------
// The table as the app shows it: header names, aria-sort per header, cell texts per row.
function readTable(frame) {
    return frame.evaluate(() => {
        const table = document.querySelector('table#result');
        if (!table) return null;
        const headers = [...table.querySelectorAll('thead th[data-column]')];
        return {
            columns: headers.map(th => th.dataset.column),
            sort: headers.map(th => th.getAttribute('aria-sort')),
            rows: [...table.querySelectorAll('tbody tr')].map(tr => [...tr.cells].map(td => td.textContent.trim()))
        };
    });
}

function readChart(frame) {
    return frame.evaluate(() => {
        const svg = document.querySelector('svg#chart');
        if (!svg) return null;
        return {
            kind: svg.dataset.kind ?? null,
            bars: svg.querySelectorAll('rect.bar').length,
            lines: svg.querySelectorAll('path.line').length,
            points: svg.querySelectorAll('circle.point').length
        };
    });
}

// A cell as the table should show it: the value's text (numbers and numeric strings alike).
const cellText = value => (value === null || value === undefined ? '' : String(value).trim());

async function waitFor(description, probe, timeout = TIMEOUT) {
    const deadline = Date.now() + timeout;
    let last;
    while (Date.now() < deadline) {
        last = await probe();
        if (last?.done) return last.value;
        await new Promise(resolve => setTimeout(resolve, 100));
    }
    throw new Error(`timed out after ${timeout / 1000} s waiting for ${description}; last seen: ${show(last?.seen ?? last)}`);
}

function expectRows(table, result, what) {
    const { columns, rows } = result.structuredContent;
    expect(show(table.columns) === show(columns), `${what}: header columns ${show(table.columns)}, the result's ${show(columns)}`);
    expect(table.rows.length === rows.length, `${what}: ${table.rows.length} rows in tbody, the result has ${rows.length}`);
    const want = rows.map(row => row.map(cellText));
    const got = table.rows.map(row => row.map(cell => cell.trim()));
    // Cells may be formatted (1234 -> "1,234"); compare digits and text loosely but in order.
    const norm = text => text.replace(/[,\s]/g, '');
    for (let i = 0; i < want.length; i++) {
        expect(
            show(got[i].map(norm)) === show(want[i].map(norm)),
            `${what}: row ${i} shows ${show(got[i])}, the result has ${show(rows[i])}`
        );
    }
}

function expectChart(chart, kind, rowCount) {
    expect(chart, 'no svg#chart in the app');
    expect(chart.kind === kind, `svg#chart data-kind is ${show(chart.kind)}, expected ${show(kind)}`);
    if (kind === 'bar') expect(chart.bars === rowCount, `${chart.bars} rect.bar for ${rowCount} rows`);
    if (kind === 'line') {
        expect(chart.lines === 1, `${chart.lines} path.line, expected 1`);
        expect(chart.points === rowCount, `${chart.points} circle.point for ${rowCount} rows`);
    }
}

/** The directives of a policy: name -> its sources. */
function directives(policy) {
    const map = new Map();
    for (const part of policy.split(';')) {
        const [name, ...sources] = part.trim().split(/\s+/);
        if (name) map.set(name.toLowerCase(), sources);
    }
    return map;
}

function expectPolicyFollows(policy, csp) {
    const d = directives(policy);
    const sources = name => d.get(name) ?? [];
    const exactly = (name, domains, otherwise) => {
        const want = domains?.length ? domains : [otherwise];
        expect(show(sources(name)) === show(want), `${name} is ${show(sources(name))}, _meta.ui.csp gives ${show(want)}`);
    };
    expect(show(sources('default-src')) === show(["'none'"]), `default-src is ${show(sources('default-src'))}, expected 'none'`);
    exactly('connect-src', csp.connectDomains, "'none'");
    exactly('frame-src', csp.frameDomains, "'none'");
    if (csp.baseUriDomains?.length) exactly('base-uri', csp.baseUriDomains);
    for (const name of ['script-src', 'style-src', 'img-src', 'font-src', 'media-src']) {
        const extra = sources(name).filter(s => !s.startsWith("'") && s !== 'data:');
        const want = csp.resourceDomains ?? [];
        expect(show(extra) === show(want), `${name} allows the origins ${show(extra)}, _meta.ui.csp.resourceDomains gives ${show(want)}`);
    }
}

async function run(page, canary) {
    const url = `http://127.0.0.1:${hostPort}/?tool=query&args=${encodeURIComponent(JSON.stringify({ sql: BAR_SQL }))}`;
    await page.goto(url);
    const host = await waitFor('the host to render the app (window.host.state "ready")', async () => {
        const h = await page.evaluate(() => window.host && JSON.parse(JSON.stringify(window.host)));
        return { done: h && (h.state === 'ready' || h.state === 'failed'), value: h, seen: h && { state: h.state, error: h.error } };
    });
    if (host.state === 'failed') throw new Error(`the host failed: ${host.error}`);

    await check('the server declares the io.modelcontextprotocol/ui extension to the host', () => {
        expect(host.serverExtension !== undefined, 'capabilities.extensions has no io.modelcontextprotocol/ui');
    });
    await check(`the query tool points at ${APP_URI}; the resource is ${APP_MIME}`, () => {
        expect(host.tool?._meta?.ui?.resourceUri === APP_URI, `query's _meta: ${show(host.tool?._meta)}`);
        expect(host.resource.mimeType === APP_MIME, `resource: ${show(host.resource)}`);
    });
    const first = host.toolResult;
    expect(first?.structuredContent?.rows, `the query tool's result has no structuredContent.rows: ${show(first)}`);

    const handle = await page.$('iframe#app');
    const frame = await handle?.contentFrame();
    expect(frame, 'the host put no iframe#app in the page');
    await check('the app runs in a sandboxed iframe (sandbox="allow-scripts", an opaque origin)', async () => {
        const sandbox = await handle.getAttribute('sandbox');
        expect(sandbox === 'allow-scripts', `sandbox=${show(sandbox)}`);
        const origin = await frame.evaluate(() => window.origin);
        expect(origin === 'null', `the app's origin is ${show(origin)}, not opaque`);
        expect(host.appInfo?.name, `the app did not initialize with the bridge (appInfo ${show(host.appInfo)})`);
    });

    await check(`the table shows the ${first.structuredContent.rows.length} rows of the result`, async () => {
        const table = await waitFor('table#result to show rows', async () => {
            const t = await readTable(frame);
            return { done: t && t.rows.length > 0, value: t, seen: t };
        });
        expectRows(table, first, 'table#result');
        const sql = await frame.evaluate(() => document.querySelector('textarea#sql')?.value);
        expect(sql?.trim() === BAR_SQL, `textarea#sql holds ${show(sql)}, the tool input's sql was ${show(BAR_SQL)}`);
    });

    await check('clicking a header sorts the rows (aria-sort and row order change)', async () => {
        const before = await readTable(frame);
        const column = before.columns.length - 1; // the numeric column: `products`
        const name = before.columns[column];
        const numbers = rows => rows.map(r => Number(r[column].replace(/[,\s]/g, '')));
        const th = frame.locator(`table#result thead th[data-column="${name}"]`);
        const orders = [];
        for (let click = 0; click < 2; click++) {
            await th.click();
            const t = await readTable(frame);
            const sort = t.sort[column];
            expect(sort === 'ascending' || sort === 'descending', `after a click on ${name}, aria-sort is ${show(sort)}`);
            const others = t.sort.filter((s, i) => i !== column && s !== null && s !== 'none');
            expect(others.length === 0, `other headers still carry aria-sort: ${show(t.sort)}`);
            const values = numbers(t.rows);
            const sorted = [...values].sort((a, b) => (sort === 'ascending' ? a - b : b - a));
            expect(show(values) === show(sorted), `${sort} by ${name}, but the rows read ${show(values)}`);
            expect(t.rows.length === before.rows.length, `sorting changed the row count: ${t.rows.length}`);
            orders.push(sort);
        }
        expect(orders[0] !== orders[1], `a second click did not flip the order (${show(orders)})`);
    });

    await check('the chart is a bar chart with one rect.bar per row', async () => {
        expectChart(await readChart(frame), 'bar', first.structuredContent.rows.length);
    });

    await check('running new SQL in the app calls query through the bridge and re-renders', async () => {
        const callsBefore = host.appCalls.length;
        await frame.locator('textarea#sql').fill(LINE_SQL);
        await frame.locator('button#run').click();
        const call = await waitFor('the app\'s tools/call through the AppBridge', async () => {
            const calls = await page.evaluate(() => JSON.parse(JSON.stringify(window.host.appCalls)));
            const c = calls[callsBefore];
            return { done: c && (c.result || c.error), value: c, seen: calls };
        });
        expect(call.name === 'query', `the app called ${show(call.name)}`);
        expect(call.arguments?.sql?.trim() === LINE_SQL, `the app sent ${show(call.arguments)}`);
        expect(!call.error && !call.result.isError, `the call failed: ${call.error ?? show(call.result)}`);
        const reached = seenByServer.flat().some(m => m?.method === 'tools/call' && m.params?.arguments?.sql?.trim() === LINE_SQL);
        expect(reached, 'no tools/call with the new SQL went through /mcp to the server');
        const table = await waitFor('table#result to show the new rows', async () => {
            const t = await readTable(frame);
            return { done: t && show(t.columns) === show(call.result.structuredContent.columns), value: t, seen: t };
        });
        expectRows(table, call.result, 'table#result after #run');
        expectChart(await readChart(frame), 'line', call.result.structuredContent.rows.length);
    });

    const csp = host.resource.meta?.ui?.csp ?? {};
    await check(`the iframe's policy is the one built from _meta.ui.csp (${show(csp)})`, async () => {
        const applied = await frame.evaluate(
            () => document.querySelector('meta[http-equiv="Content-Security-Policy" i]')?.getAttribute('content') ?? null
        );
        expect(applied === host.policy, `the iframe's policy is ${show(applied)}, the host built ${show(host.policy)}`);
        expectPolicyFollows(applied, csp);
    });

    await check(`a fetch from the app to an undeclared origin (${canary.origin}) is blocked`, async () => {
        const outcome = await frame.evaluate(async target => {
            const violations = [];
            document.addEventListener('securitypolicyviolation', e =>
                violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, policy: e.originalPolicy })
            );
            let fetched;
            try {
                const response = await fetch(`${target}/from-the-app`);
                fetched = `status ${response.status}`;
            } catch (error) {
                fetched = `failed: ${error}`;
            }
            await new Promise(resolve => setTimeout(resolve, 200));
            return { fetched, violations };
        }, canary.origin);
        expect(outcome.fetched.startsWith('failed'), `the fetch went through (${outcome.fetched})`);
        const violation = outcome.violations.find(v => v.blocked.startsWith(canary.origin));
        expect(violation, `no securitypolicyviolation for ${canary.origin}: ${show(outcome.violations)}`);
        expect(violation.directive === 'connect-src', `violated ${violation.directive}, expected connect-src`);
        expect(violation.policy === host.policy, `the enforced policy is ${show(violation.policy)}, the host built ${show(host.policy)}`);
        expect(canary.hits.length === 0, `the canary server was reached: ${show(canary.hits)}`);
    });
}

// --- main -----------------------------------------------------------------------------------
let hostPort;
const { server: hostServer, port } = await startHostServer();
hostPort = port;
const canary = await startCanary();
let browser;
const pageErrors = [];
try {
    browser = await chromium.launch({ executablePath: options.chromium, headless: true, timeout: TIMEOUT });
    const page = await browser.newPage();
    page.setDefaultTimeout(TIMEOUT);
    page.on('pageerror', error => pageErrors.push(`pageerror: ${error.message}`));
    page.on('console', message => {
        if (message.type() === 'error') pageErrors.push(`console: ${message.text()}`);
    });
    await run(page, canary);
} catch (error) {
    failures += 1;
    console.log(`not ok - the browser run stopped: ${String(error?.message ?? error).split('\n').join('\n    | ')}`);
} finally {
    await browser?.close().catch(() => {});
    hostServer.close();
    canary.server.close();
}
if (failures > 0 && pageErrors.length) {
    console.log('    errors the page reported:');
    for (const line of pageErrors.slice(0, 30)) console.log(`    | ${line}`);
}
process.exit(failures > 0 ? 1 : 0);
