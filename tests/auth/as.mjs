// The authorization server of the auth tests: oidc-provider (pinned in package-lock.json),
// on a free 127.0.0.1 port, with resource indicators (RFC 8707) and JWT access tokens
// (RFC 9068). Prints one JSON line, {"issuer": "http://127.0.0.1:PORT"}, once it listens.
//
// Clients (client_secret_basic or _post, client-credentials grant):
//   mcp-full   / full-secret    may get "mcp sql:query"
//   mcp-basic  / basic-secret   may get "mcp" only
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
    features: {
      devInteractions: { enabled: false },
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
  handler = provider.callback();
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
