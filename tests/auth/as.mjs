// The authorization server of the auth tests: oidc-provider (pinned in package-lock.json),
// on a free 127.0.0.1 port, with resource indicators (RFC 8707) and JWT access tokens
// (RFC 9068). Prints one JSON line, {"issuer": "http://127.0.0.1:PORT"}, once it listens.
//
// Clients (client_secret_basic or _post, client-credentials grant):
//   mcp-full   / full-secret    may get "mcp sql:query"
//   mcp-basic  / basic-secret   may get "mcp" only
// Other clients register themselves (dynamic client registration, RFC 7591, open) and use the
// authorization code grant with PKCE. Its login and consent are answered by a script acting as
// the user's browser, through three JSON/form endpoints (cookies as oidc-provider sets them):
//   GET  /interaction/UID          {"prompt": "login"|"consent", "details": …, "params": …}
//   POST /interaction/UID/login    form `login=NAME`: signs NAME in (no password)
//   POST /interaction/UID/consent  form `grant=SCOPES`: of the scopes asked for, grants
//                                  those in SCOPES and declines the others
// each POST answering 303 back to the authorization endpoint, as a browser form would.
// Consent is asked on every authorization request (no grant is remembered across requests), so
// a scope declined once can be granted by a later request: a client's step-up.
// A token requested with `resource=URL` is a JWT whose `aud` is URL (signed RS256), unless
// the URL ends in /opaque: then it is opaque, to be introspected (and revoked) at the server.
import http from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

let handler = (_req, res) => { res.statusCode = 503; res.end(); };
const server = http.createServer((req, res) => handler(req, res));
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      { client_id: 'mcp-full', client_secret: 'full-secret', grant_types: ['client_credentials'],
        response_types: [], redirect_uris: [], scope: 'mcp sql:query' },
      { client_id: 'mcp-basic', client_secret: 'basic-secret', grant_types: ['client_credentials'],
        response_types: [], redirect_uris: [], scope: 'mcp' },
    ],
    scopes: ['mcp', 'sql:query'],
    jwks: { keys: [{ ...rsa, kid: 'rs256-1', use: 'sig', alg: 'RS256' }] },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // Only the grant that this request's own consent made (see the top of this file).
    loadExistingGrant: async ctx => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: 'mcp sql:query',
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: resource.endsWith('/opaque') ? 'opaque' : 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  const callback = provider.callback();
  handler = (req, res) => {
    const match = /^\/interaction\/([^/?]+)(\/login|\/consent)?(?:\?|$)/.exec(req.url);
    if (!match) return callback(req, res);
    interact(provider, req, res, match[2]).catch(e => {
      res.statusCode = 400;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: String(e?.message ?? e) }));
    });
  };
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

/** The scripted user's side of a login or consent prompt (see the top of this file). */
async function interact(provider, req, res, action) {
  const { prompt, params, session, grantId } = await provider.interactionDetails(req, res);
  if (req.method === 'GET' && !action) {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ prompt: prompt.name, details: prompt.details, params }));
    return;
  }
  if (req.method !== 'POST' || !action) throw new Error(`${req.method} ${req.url}: not an interaction step`);
  let body = '';
  for await (const chunk of req) body += chunk;
  const form = new URLSearchParams(body);
  if (action === '/login') {
    if (prompt.name !== 'login') throw new Error(`the prompt is ${prompt.name}, not login`);
    const accountId = form.get('login');
    if (!accountId) throw new Error('no login');
    await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
    return;
  }
  if (prompt.name !== 'consent') throw new Error(`the prompt is ${prompt.name}, not consent`);
  const allowed = new Set((form.get('grant') ?? '').split(' ').filter(Boolean));
  const grant = grantId
    ? await provider.Grant.find(grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const split = scopes => [scopes.filter(s => allowed.has(s)).join(' '), scopes.filter(s => !allowed.has(s)).join(' ')];
  const [oidcYes, oidcNo] = split(prompt.details.missingOIDCScope ?? []);
  if (oidcYes) grant.addOIDCScope(oidcYes);
  if (oidcNo) grant.rejectOIDCScope(oidcNo);
  for (const [resource, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) {
    const [yes, no] = split(scopes);
    if (yes) grant.addResourceScope(resource, yes);
    if (no) grant.rejectResourceScope(resource, no);
  }
  await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
}

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
