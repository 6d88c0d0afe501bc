// TypeScript SDK v1 (@modelcontextprotocol/sdk) with its own OAuth support against
// `sql-explorer --http 127.0.0.1:0 --auth-issuer ISSUER` (run.sh starts both; ISSUER is the
// test authorization server, tests/auth/as.mjs).
// Usage: node ts_v1_auth.mjs --issuer=ISSUER http://127.0.0.1:PORT/mcp
//
// Three clients, each on a fresh connection, every HTTP exchange recorded through the
// transport's `fetch` option:
// 1. client credentials (the SDK's ClientCredentialsProvider, client mcp-full, scope
//    sql:query): the 401, protected-resource metadata, the authorization server's metadata, a
//    token for resource=<the server's URL>; then the sql-explorer checks all pass.
// 2. client credentials with mcp-basic (allowed "mcp" only): `query` is not listed, and calling
//    it gets 403 with the insufficient_scope challenge; the SDK asks for a token once more and
//    gives up (its client-credentials provider always asks for its configured scope).
// 3. authorization code + PKCE, registered dynamically, the user's login and consent scripted
//    (oauth_browser.mjs): the application first asks for scope "mcp" only (the SDK's auth()
//    with a scope); calling `query` gets the 403, on which the SDK starts a new authorization
//    for sql:query (step-up), the user grants it, and the same session's retried call succeeds.
//    (Left to itself the SDK asks for every scope the metadata lists, sql:query included, and
//    the authorization server denies an authorization that grants nothing, so this is how a
//    client of sql-explorer comes to hold a token without sql:query.)

import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth, discoverOAuthServerInfo, registerClient, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { reporter } from './checks.mjs';
import { authorizeAsUser } from './oauth_browser.mjs';
import { BOOKS, sqlExplorerChecks } from './sql_checks.mjs';

const argv = process.argv.slice(2);
const issuerArg = argv.find(a => a.startsWith('--issuer='));
const target = argv.filter(a => !a.startsWith('--issuer='));
if (!issuerArg || target.length !== 1 || !/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(target[0])) {
    throw new Error('usage: node ts_v1_auth.mjs --issuer=ISSUER http://127.0.0.1:PORT/mcp');
}
const issuer = issuerArg.slice('--issuer='.length);
const url = new URL(target[0]);
const metadataUrl = `${url.origin}/.well-known/oauth-protected-resource/mcp`;
const report = reporter('ts-sdk-v1 oauth sql-explorer http');
let failedToRun = false;

/** A `fetch` that records every exchange: method, URL, request headers and form, status, WWW-Authenticate, JSON body. */
function recorder() {
    const log = [];
    const recordingFetch = async (input, init = {}) => {
        const request = new Request(input, init);
        const form = typeof init.body === 'string' || init.body instanceof URLSearchParams ? String(init.body) : undefined;
        const response = await fetch(input, init);
        const entry = {
            method: request.method,
            url: request.url,
            authorization: request.headers.get('authorization'),
            form: form !== undefined && !form.startsWith('{') ? new URLSearchParams(form) : undefined,
            status: response.status,
            challenge: response.headers.get('www-authenticate')
        };
        if ((response.headers.get('content-type') ?? '').startsWith('application/json')) {
            entry.json = await response.clone().json().catch(() => undefined);
        }
        log.push(entry);
        return response;
    };
    return { log, fetch: recordingFetch };
}

/** The claims of a JWT (not verified: the server does that; this reads what the AS issued). */
function claims(jwt) {
    const parts = jwt.split('.');
    strictEqual(parts.length, 3, 'the access token is not a JWT');
    return JSON.parse(Buffer.from(parts[1], 'base64url').toString());
}

function scopes(value) {
    return new Set((value ?? '').split(' ').filter(Boolean));
}

/** The 403 answer to a call of `query`, from the log: status, challenge naming sql:query. */
function assertInsufficientScope(log) {
    const denied = log.filter(e => e.status === 403);
    ok(denied.length >= 1, `no 403 in ${JSON.stringify(log.map(e => `${e.method} ${e.url} ${e.status}`))}`);
    for (const entry of denied) {
        strictEqual(entry.method, 'POST');
        strictEqual(entry.url, url.href);
        ok(entry.challenge, '403 without WWW-Authenticate');
        ok(/^Bearer /.test(entry.challenge), entry.challenge);
        ok(entry.challenge.includes('error="insufficient_scope"'), entry.challenge);
        const scope = /scope="([^"]*)"/.exec(entry.challenge)?.[1];
        ok(scopes(scope).has('sql:query'), `scope="${scope}" does not name sql:query: ${entry.challenge}`);
        ok(entry.challenge.includes(`resource_metadata="${metadataUrl}"`), entry.challenge);
    }
}

/** Discovery from the 401 (and, given `tokenRequest`, the token): the checks shared by every flow. */
async function discoveryChecks(log, tokenRequest) {
    await report.check('the first request (no token) gets 401 with WWW-Authenticate: Bearer resource_metadata=…', async () => {
        const first = log[0];
        strictEqual(first.method, 'POST');
        strictEqual(first.url, url.href);
        strictEqual(first.authorization, null);
        strictEqual(first.status, 401);
        ok(/^Bearer /.test(first.challenge ?? ''), first.challenge);
        ok(first.challenge.includes(`resource_metadata="${metadataUrl}"`), first.challenge);
    });
    await report.check('the SDK reads the protected-resource metadata the challenge names: resource and authorization server', async () => {
        const prm = log.find(e => e.method === 'GET' && e.url === metadataUrl);
        ok(prm, `no GET ${metadataUrl}`);
        strictEqual(prm.status, 200);
        strictEqual(prm.json?.resource, url.href);
        deepStrictEqual(prm.json?.authorization_servers, [issuer]);
        ok(prm.json?.scopes_supported?.includes('sql:query'), JSON.stringify(prm.json));
        deepStrictEqual(prm.json?.bearer_methods_supported, ['header']);
    });
    await report.check("the SDK reads the authorization server's metadata from the issuer the metadata names", async () => {
        const asm = log.find(e => e.method === 'GET' && e.url.startsWith(`${issuer}/.well-known/`) && e.status === 200);
        ok(asm, `no metadata fetched from ${issuer}/.well-known/…`);
        strictEqual(asm.json?.issuer, issuer);
    });
    if (!tokenRequest) return;
    await report.check(`the token request names resource=${url.href} (RFC 8707), and the JWT's aud is that URL`, async () => {
        const request = tokenRequest();
        ok(request, 'no token request');
        strictEqual(request.url, `${issuer}/token`);
        strictEqual(request.form?.get('resource'), url.href);
        strictEqual(request.status, 200, JSON.stringify(request.json));
        const token = claims(request.json.access_token);
        strictEqual(token.aud, url.href);
        strictEqual(token.iss, issuer);
    });
}

// --- 1. client credentials, allowed sql:query ------------------------------------------------
async function clientCredentialsFull() {
    const { log, fetch } = recorder();
    const provider = new ClientCredentialsProvider({
        clientId: 'mcp-full',
        clientSecret: 'full-secret',
        scope: 'sql:query',
        expectedIssuer: issuer
    });
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch });
    const client = new Client({ name: 'interop-ts-v1-oauth', version: '1.0.0' });
    let connected = false;
    await report.check('client credentials (mcp-full): connect() authorizes on the 401 and initializes', async () => {
        await client.connect(transport);
        connected = true;
        strictEqual(client.getServerVersion()?.name, 'sql-explorer');
    });
    if (!connected) return false;
    await discoveryChecks(log, () => log.find(e => e.form?.get('grant_type') === 'client_credentials'));
    await report.check('client credentials: the grant asked for scope sql:query, authenticated as mcp-full, and every later request carries the token', async () => {
        const request = log.find(e => e.form?.get('grant_type') === 'client_credentials');
        strictEqual(request.form.get('scope'), 'sql:query');
        strictEqual(request.authorization, `Basic ${btoa('mcp-full:full-secret')}`);
        ok(scopes(claims(request.json.access_token).scope).has('sql:query'));
        const after = log.slice(log.indexOf(request) + 1).filter(e => e.url === url.href);
        ok(after.length >= 1);
        for (const e of after) strictEqual(e.authorization, `Bearer ${request.json.access_token}`);
    });
    await sqlExplorerChecks(client, report);
    await client.close();
    return true;
}

// --- 2. client credentials, not allowed sql:query ---------------------------------------------
async function clientCredentialsBasic() {
    const { log, fetch } = recorder();
    const provider = new ClientCredentialsProvider({
        clientId: 'mcp-basic',
        clientSecret: 'basic-secret',
        scope: 'mcp',
        expectedIssuer: issuer
    });
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch });
    const client = new Client({ name: 'interop-ts-v1-oauth-basic', version: '1.0.0' });
    let connected = false;
    await report.check('client credentials (mcp-basic, scope mcp): connect() authorizes and initializes', async () => {
        await client.connect(transport);
        connected = true;
        const token = claims(provider.tokens().access_token);
        deepStrictEqual([...scopes(token.scope)], ['mcp']);
        strictEqual(token.aud, url.href);
    });
    if (!connected) return false;
    await report.check('without sql:query, tools/list leaves query out', async () => {
        const { tools } = await client.listTools();
        deepStrictEqual(tools.map(t => t.name), ['explain', 'list_tables']);
    });
    await report.check('without sql:query, calling query gets HTTP 403, Bearer error="insufficient_scope", scope naming sql:query', async () => {
        const before = log.length;
        const tokenRequests = () => log.filter(e => e.form?.get('grant_type') === 'client_credentials').length;
        const tokensBefore = tokenRequests();
        let error;
        try {
            await client.callTool({ name: 'query', arguments: { sql: 'SELECT 1' } });
        } catch (e) {
            error = e;
        }
        ok(error, 'the call succeeded');
        assertInsufficientScope(log.slice(before));
        // The SDK's step-up: it asks for a token again (its configured scope, all this client
        // may have) and, answered 403 again with the same challenge, stops.
        strictEqual(tokenRequests(), tokensBefore + 1, 'one more token request on the 403');
        ok(error instanceof StreamableHTTPError, `not a StreamableHTTPError: ${error}`);
        strictEqual(error.code, 403);
    });
    await report.check('after the 403, the session goes on: list_tables still answers', async () => {
        const result = await client.callTool({ name: 'list_tables', arguments: {} });
        strictEqual(result.isError ?? false, false, JSON.stringify(result.content));
        ok(JSON.stringify(result.structuredContent ?? result.content).includes('orders'));
    });
    await client.close();
    return true;
}

// --- 3. authorization code + PKCE, dynamic registration, scripted consent, step-up -----------
/** An OAuthClientProvider for a public client that registers itself; its "browser" is authorizeAsUser. */
class ScriptedUserProvider {
    constructor() {
        this.redirectUrl = 'http://127.0.0.1:9/callback'; // never reached: the browser stops at the redirect
        this.clientMetadata = {
            client_name: 'interop-ts-v1-oauth',
            redirect_uris: [this.redirectUrl],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none'
        };
        this.grant = ''; // the scopes the user allows at the next consent
        this.authorizations = []; // {url, prompts, code}
        this.cookies = new Map(); // the user's browser's
    }
    state() {
        this._state = randomBytes(16).toString('base64url');
        return this._state;
    }
    clientInformation() {
        return this._client;
    }
    saveClientInformation(info) {
        this._client = info;
    }
    tokens() {
        return this._tokens;
    }
    saveTokens(tokens) {
        this._tokens = tokens;
    }
    saveCodeVerifier(verifier) {
        this._verifier = verifier;
    }
    codeVerifier() {
        return this._verifier;
    }
    async redirectToAuthorization(authorizationUrl) {
        const { redirect, prompts } = await authorizeAsUser(authorizationUrl.href, {
            redirectUri: this.redirectUrl,
            login: 'alice',
            grant: this.grant,
            jar: this.cookies
        });
        strictEqual(redirect.searchParams.get('state'), this._state, 'state comes back');
        strictEqual(redirect.searchParams.get('iss'), issuer, 'iss (RFC 9207)');
        const code = redirect.searchParams.get('code');
        ok(code, `no code: ${redirect.href}`);
        this.authorizations.push({ url: authorizationUrl, prompts, code });
    }
}

async function authorizationCodeWithStepUp() {
    const { log, fetch } = recorder();
    const provider = new ScriptedUserProvider();
    // The application registers itself for everything it may ask for, then asks for the least
    // it needs (scope "mcp"), as a client that asks for more only when a call needs it.
    await report.check('authorization code: the client registers itself (DCR) at the AS the server names, scope "mcp sql:query"', async () => {
        const { authorizationServerUrl, authorizationServerMetadata } = await discoverOAuthServerInfo(url, { fetchFn: fetch });
        strictEqual(authorizationServerUrl, issuer);
        const registered = await registerClient(authorizationServerUrl, {
            metadata: authorizationServerMetadata,
            clientMetadata: { ...provider.clientMetadata, scope: 'mcp sql:query' },
            fetchFn: fetch
        });
        provider.saveClientInformation({ ...registered, issuer });
        strictEqual(log.find(e => e.method === 'POST' && e.url === `${issuer}/reg`)?.status, 201);
    });
    if (!provider.clientInformation()) return false;
    provider.grant = 'mcp';
    await report.check('auth() with scope "mcp": PKCE authorization for resource=<the server>, the user signs in and consents; the code is exchanged', async () => {
        strictEqual(await auth(provider, { serverUrl: url, scope: 'mcp', fetchFn: fetch }), 'REDIRECT');
        strictEqual(provider.authorizations.length, 1);
        const asked = provider.authorizations[0].url.searchParams;
        strictEqual(asked.get('response_type'), 'code');
        strictEqual(asked.get('code_challenge_method'), 'S256');
        ok(asked.get('code_challenge'));
        strictEqual(asked.get('resource'), url.href);
        strictEqual(asked.get('scope'), 'mcp');
        deepStrictEqual(provider.authorizations[0].prompts.map(p => p.prompt), ['login', 'consent']);
        strictEqual(
            await auth(provider, { serverUrl: url, authorizationCode: provider.authorizations[0].code, fetchFn: fetch }),
            'AUTHORIZED'
        );
        const request = log.find(e => e.form?.get('grant_type') === 'authorization_code');
        ok(request, 'no authorization_code token request');
        strictEqual(request.status, 200, JSON.stringify(request.json));
        strictEqual(request.form.get('code_verifier'), provider.codeVerifier());
        strictEqual(request.form.get('resource'), url.href);
        const token = claims(provider.tokens().access_token);
        strictEqual(token.aud, url.href);
        strictEqual(token.sub, 'alice');
        deepStrictEqual([...scopes(token.scope)], ['mcp']);
        strictEqual(provider.tokens().refresh_token, undefined, 'no refresh token (none asked for)');
    });
    if (!provider.tokens()) return false;
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch });
    const client = new Client({ name: 'interop-ts-v1-oauth-code', version: '1.0.0' });
    let connected = false;
    await report.check('authorization code: connect() with the token initializes (no 401)', async () => {
        const before = log.length;
        await client.connect(transport);
        connected = true;
        ok(transport.sessionId, 'no session');
        ok(!log.slice(before).some(e => e.status === 401), 'a 401');
    });
    if (!connected) return false;
    await report.check('with scope "mcp" only, tools/list leaves query out', async () => {
        const { tools } = await client.listTools();
        deepStrictEqual(tools.map(t => t.name), ['explain', 'list_tables']);
    });
    const session = transport.sessionId;
    provider.grant = 'sql:query'; // this time the user allows it
    await report.check('query gets 403 insufficient_scope; the SDK re-authorizes for sql:query (step-up) and the user grants it', async () => {
        const before = log.length;
        let error;
        try {
            await client.callTool({ name: 'query', arguments: { sql: 'SELECT 1' } });
        } catch (e) {
            error = e;
        }
        ok(error instanceof UnauthorizedError, `expected UnauthorizedError (authorization started), got ${error}`);
        assertInsufficientScope(log.slice(before));
        strictEqual(provider.authorizations.length, 2);
        const asked = provider.authorizations[1].url.searchParams;
        ok(scopes(asked.get('scope')).has('sql:query'), `scope=${asked.get('scope')}`);
        strictEqual(asked.get('resource'), url.href);
        deepStrictEqual(provider.authorizations[1].prompts.map(p => p.prompt), ['consent'], 'signed in already: consent only');
        await transport.finishAuth(provider.authorizations[1].code);
        const token = claims(provider.tokens().access_token);
        ok(scopes(token.scope).has('sql:query'), `scope ${token.scope}`);
        strictEqual(token.sub, 'alice');
    });
    await report.check('after the step-up, the same session calls query successfully and lists it', async () => {
        const result = await client.callTool({
            name: 'query',
            arguments: {
                sql: 'SELECT id, name, category FROM products WHERE category = ? AND id <= ? ORDER BY id',
                params: ['books', 10]
            }
        });
        strictEqual(result.isError ?? false, false, JSON.stringify(result.content));
        deepStrictEqual(result.structuredContent?.rows, BOOKS);
        strictEqual(transport.sessionId, session, 'the session survived the new token');
        const { tools } = await client.listTools();
        deepStrictEqual(tools.map(t => t.name), ['query', 'explain', 'list_tables']);
    });
    await client.close();
    return true;
}

for (const flow of [clientCredentialsFull, clientCredentialsBasic, authorizationCodeWithStepUp]) {
    try {
        if (!(await flow())) failedToRun = true;
    } catch (e) {
        failedToRun = true;
        console.log(`not ok - ts-sdk-v1 oauth sql-explorer http: ${flow.name} stopped: ${String(e?.message ?? e).replace(/\s+/g, ' ')}`);
    }
}
process.exitCode = report.failed === 0 && !failedToRun ? 0 : 1;
