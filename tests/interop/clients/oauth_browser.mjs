// The user's side of an authorization code flow against the test authorization server
// (tests/auth/as.mjs), for the TypeScript OAuth clients: follows the authorization URL with
// the cookies oidc-provider sets, signs in as LOGIN at its login prompt, grants the scopes
// the user allows at its consent prompt (declining the others), and stops at the redirect to
// the client's redirect URI, which it returns with what was asked on the way.

import { ok, strictEqual } from 'node:assert/strict';

/**
 * Drives `authorizationUrl` to the redirect to `redirectUri`. `grant` is the space-separated
 * scopes the user allows; `jar` (a Map) holds the browser's cookies from one call to the next,
 * so a user signed in once is not asked again. Resolves to
 * {redirect: URL, prompts: [{prompt, details, params}]}.
 */
export async function authorizeAsUser(authorizationUrl, { redirectUri, login, grant, jar = new Map() }) {
    const origin = new URL(authorizationUrl).origin;
    const go = async (url, init = {}) => {
        ok(new URL(url).origin === origin, `the user agent left the authorization server for ${url}`);
        const headers = new Headers(init.headers);
        if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
        const response = await fetch(url, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
        for (const cookie of response.headers.getSetCookie()) {
            const [pair] = cookie.split(';');
            const eq = pair.indexOf('=');
            jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
        }
        return response;
    };
    const prompts = [];
    let response = await go(authorizationUrl);
    for (let hop = 0; hop < 12; hop++) {
        const location = response.headers.get('location');
        if (response.status < 300 || response.status > 399 || !location) {
            throw new Error(`the authorization server answered ${response.status} ${await response.text()}`);
        }
        const next = new URL(location, response.url || authorizationUrl);
        if (next.href.startsWith(redirectUri)) return { redirect: next, prompts };
        if (next.origin === origin && next.pathname.startsWith('/interaction/')) {
            const asked = await go(next);
            strictEqual(asked.status, 200, `GET ${next.pathname}`);
            const details = await asked.json();
            prompts.push(details);
            const body =
                details.prompt === 'login'
                    ? new URLSearchParams({ login })
                    : details.prompt === 'consent'
                      ? new URLSearchParams({ grant })
                      : null;
            ok(body, `unexpected prompt ${details.prompt}`);
            response = await go(`${next.href}/${details.prompt}`, {
                method: 'POST',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body
            });
            continue;
        }
        response = await go(next);
    }
    throw new Error('more than 12 redirects in the authorization flow');
}
