// The two benchmark tools (echo, add) on the TypeScript SDK (@modelcontextprotocol/sdk
// 1.32.2), for mcp-bench (benches/peers/README.md).
//
//   node server.mjs                     stdio
//   node server.mjs --http ADDR         Streamable HTTP over node:http, one session per
//                                       initialize, SSE responses
//   node server.mjs --http ADDR --json  the same with enableJsonResponse
//
// HTTP follows the SDK's per-session pattern: an initialize without a session id gets a new
// transport and McpServer; later requests are routed by Mcp-Session-Id; DELETE closes one.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

function newServer() {
  const server = new McpServer({ name: 'ts-bench', version: '1.32.2' });
  server.registerTool(
    'echo',
    { description: 'Returns the text unchanged.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two integers.', inputSchema: { a: z.number().int(), b: z.number().int() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}

function parseArgs(argv) {
  const options = { http: undefined, json: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--http' && i + 1 < argv.length) options.http = argv[++i];
    else if (argv[i] === '--json') options.json = true;
    else {
      console.error(`unknown argument \`${argv[i]}\`\nusage: server.mjs [--http ADDR [--json]]`);
      process.exit(2);
    }
  }
  if (options.json && !options.http) {
    console.error('--json needs --http ADDR');
    process.exit(2);
  }
  return options;
}

function sendError(res, status, code, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function serveHttp(addr, enableJsonResponse) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    try {
      if (new URL(req.url, 'http://localhost').pathname !== '/mcp') {
        return sendError(res, 404, -32000, 'not found');
      }
      const sessionId = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      if (sessionId) {
        const transport = sessions.get(sessionId);
        if (!transport) return sendError(res, 404, -32001, 'Session not found');
        return await transport.handleRequest(req, res, body);
      }
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        return sendError(res, 400, -32000, 'Bad Request: No valid session ID provided');
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse,
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await newServer().connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) sendError(res, 400, -32700, String(error));
    }
  });
  const colon = addr.lastIndexOf(':');
  const host = addr.slice(0, colon).replace(/^\[|\]$/g, '');
  http.listen(Number(addr.slice(colon + 1)), host, () => {
    const { address, port } = http.address();
    console.error(`ts-server listening on http://${address}:${port}/mcp`);
  });
}

const options = parseArgs(process.argv.slice(2));
if (options.http) {
  serveHttp(options.http, options.json);
} else {
  await newServer().connect(new StdioServerTransport());
}
