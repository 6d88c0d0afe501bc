// The host side of an MCP App, in the page: the TypeScript SDK v2 client connects to the
// MCP server over Streamable HTTP (through the driver's same-origin /mcp proxy), declares
// the io.modelcontextprotocol/ui extension, calls the UI-bound tool, reads its ui://
// resource, renders it in a sandboxed iframe under a Content-Security-Policy built from the
// resource's _meta.ui.csp, and connects ext-apps' AppBridge to the iframe over postMessage.
//
// Query parameters: tool (default `query`), args (the tool's arguments, JSON).
// What the driver asserts on is kept in `window.host` (see `host` below).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
    AppBridge,
    PostMessageTransport,
    RESOURCE_MIME_TYPE,
    getToolUiResourceUri
} from '@modelcontextprotocol/ext-apps/app-bridge';

const UI_EXTENSION = 'io.modelcontextprotocol/ui';
const search = new URLSearchParams(location.search);
const toolName = search.get('tool') ?? 'query';
const toolArgs = JSON.parse(search.get('args') ?? '{}');

const host = {
    // starting → connected → rendering → ready (the app initialized and got the tool's
    // input and result), or failed (then `error` says why).
    state: 'starting',
    error: null,
    // The server's settings for the ui extension (undefined if it did not declare it).
    serverExtension: undefined,
    tool: null,
    toolResult: null,
    resource: null,
    // The policy the host put on the iframe, built from resource._meta.ui.csp.
    policy: null,
    appInfo: null,
    // Every tools/call the app made through the bridge: {name, arguments, result | error}.
    appCalls: []
};
window.host = host;

function status(text) {
    document.getElementById('status').textContent = text;
}

function fail(error) {
    host.state = 'failed';
    host.error = error instanceof Error ? `${error.message}\n${error.stack}` : String(error);
    status(`failed: ${host.error}`);
}

/** The iframe's Content-Security-Policy for `csp` (a resource's `_meta.ui.csp`), as the
 * ext-apps spec says hosts build it: nothing beyond the document itself, inline script and
 * style, and the origins the resource declares, each in its own directive. */
export function policyFor(csp = {}) {
    const list = (domains, otherwise) => (domains?.length ? domains.join(' ') : otherwise);
    const resources = csp.resourceDomains ?? [];
    const withResources = base => [base, ...resources].join(' ');
    return [
        "default-src 'none'",
        `script-src ${withResources("'self' 'unsafe-inline'")}`,
        `style-src ${withResources("'self' 'unsafe-inline'")}`,
        `img-src ${withResources("'self' data:")}`,
        `font-src ${withResources("'self'")}`,
        `media-src ${withResources("'self' data:")}`,
        `connect-src ${list(csp.connectDomains, "'none'")}`,
        `frame-src ${list(csp.frameDomains, "'none'")}`,
        "object-src 'none'",
        `base-uri ${list(csp.baseUriDomains, "'self'")}`
    ].join('; ');
}

const escapeAttribute = text => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;');

/** `html` with the policy as its first `<meta http-equiv>` (before any script it guards). */
function withPolicy(html, policy) {
    const meta = `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(policy)}">`;
    const head = /<head(\s[^>]*)?>/i.exec(html);
    if (head) return html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length);
    return meta + html;
}

async function main() {
    const client = new Client(
        { name: 'ferromcp-apps-browser-host', version: '1.0.0' },
        { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } }
    );
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
    host.serverExtension = client.getServerCapabilities()?.extensions?.[UI_EXTENSION];
    host.state = 'connected';
    status('connected');

    const { tools } = await client.listTools();
    const tool = tools.find(t => t.name === toolName);
    if (!tool) throw new Error(`the server has no tool ${toolName} (it has ${tools.map(t => t.name).join(', ')})`);
    host.tool = tool;
    const uri = getToolUiResourceUri(tool);
    if (!uri) throw new Error(`tool ${toolName} has no _meta.ui.resourceUri: ${JSON.stringify(tool._meta)}`);

    const result = await client.callTool({ name: toolName, arguments: toolArgs });
    host.toolResult = result;
    const read = await client.readResource({ uri });
    const contents = read.contents.find(c => c.uri === uri) ?? read.contents[0];
    host.resource = { uri: contents?.uri, mimeType: contents?.mimeType, meta: contents?._meta ?? null };
    if (contents?.mimeType !== RESOURCE_MIME_TYPE || typeof contents.text !== 'string') {
        throw new Error(`${uri} is not ${RESOURCE_MIME_TYPE} text: ${JSON.stringify(host.resource)}`);
    }
    const csp = contents._meta?.ui?.csp ?? {};
    host.policy = policyFor(csp);
    host.state = 'rendering';
    status(`rendering ${uri}`);

    // A sandboxed iframe without allow-same-origin: the app runs in an opaque origin of its
    // own, reaches the host only by postMessage, and the network only as the policy allows.
    const iframe = document.createElement('iframe');
    iframe.id = 'app';
    iframe.title = uri;
    iframe.setAttribute('sandbox', 'allow-scripts');
    document.getElementById('frame').append(iframe);

    const bridge = new AppBridge(
        client,
        { name: 'ferromcp-apps-browser-host', version: '1.0.0' },
        { serverTools: {}, serverResources: {}, logging: {}, sandbox: { csp } },
        { hostContext: { theme: 'light', displayMode: 'inline' } }
    );
    bridge.oninitialized = async () => {
        try {
            host.appInfo = bridge.getAppVersion() ?? null;
            await bridge.sendToolInput({ arguments: toolArgs });
            await bridge.sendToolResult(result);
            host.state = 'ready';
            status(`ready: ${uri}`);
        } catch (error) {
            fail(error);
        }
    };
    // Listening before the document loads, so the app's ui/initialize is not missed.
    await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
    // connect() made oncalltool forward the app's tools/call to the server through the
    // client; record each call on its way (the driver asserts on them).
    const forward = bridge.oncalltool;
    bridge.oncalltool = async (params, extra) => {
        const call = { name: params.name, arguments: params.arguments ?? {}, result: null, error: null };
        host.appCalls.push(call);
        try {
            call.result = await forward(params, extra);
            return call.result;
        } catch (error) {
            call.error = String(error);
            throw error;
        }
    };
    iframe.srcdoc = withPolicy(contents.text, host.policy);
}

main().catch(fail);
