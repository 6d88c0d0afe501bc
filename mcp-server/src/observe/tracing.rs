//! The default observer, [`Tracing`]: the span of one request, named and attributed as the
//! OpenTelemetry semantic conventions for MCP name them, so that an exporter
//! (`tracing-opentelemetry`) needs no mapping, entered while the handler runs; and one
//! `debug` event per request.
//!
//! Free when nothing listens: the fields are computed only for an enabled span, and the
//! request's target (tool, prompt, URI) is read from its params only then.

use ferromcp_core::jsonrpc::Request;
use tracing::Span;
use tracing::field::Empty;

use super::target::about;
use super::{Observer, Outcome, RequestInfo, RequestObserver, ResponseInfo, Target, Watch};

/// A SERVER span for `req`: `mcp.method.name`, `jsonrpc.request.id`, the target attributes
/// of its method, and `otel.name` = "{method} {target}".
///
/// At DEBUG, as tower-http's request spans are: a subscriber at INFO (the examples' default)
/// would otherwise make and format one for every request, 14k instructions a call in the
/// quickstart, more than half again what the rest of the call costs, for a span it never
/// shows unless an event inside it is logged. `RUST_LOG=info,ferromcp=debug` brings it
/// back as the context of the handlers' log lines.
fn request(req: &Request) -> Span {
    let span = tracing::debug_span!(
        "mcp.request",
        otel.name = Empty,
        otel.kind = "server",
        mcp.method.name = %req.method,
        jsonrpc.request.id = %req.id,
        mcp.protocol.version = Empty,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        mcp.resource.uri = Empty,
        error.type = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    let shown = match about(req) {
        Some(Target::Tool(n)) => {
            span.record("gen_ai.operation.name", "execute_tool");
            span.record("gen_ai.tool.name", n);
            Some(n)
        }
        Some(Target::Prompt(n)) => {
            span.record("gen_ai.prompt.name", n);
            Some(n)
        }
        // The URI is an attribute, never the name: the conventions keep names low-cardinality.
        Some(Target::Resource(u)) => {
            span.record("mcp.resource.uri", u);
            None
        }
        None => None,
    };
    match shown {
        Some(target) => span.record("otel.name", format!("{} {target}", req.method)),
        None => span.record("otel.name", req.method.as_str()),
    };
    span
}

/// The target of the one `debug` event per request (under `ferromcp`, so that
/// `RUST_LOG=ferromcp=debug` shows it).
const REQUEST_EVENT: &str = "ferromcp::request";

/// Whether the request's `debug` event is to be written: a level compare when nothing
/// listens at DEBUG.
#[inline]
fn logged() -> bool {
    tracing::enabled!(target: REQUEST_EVENT, tracing::Level::DEBUG)
}

/// The request's `debug` event: method, id, the tool or prompt `name` or resource `uri`,
/// duration and outcome (`ok`, `tool_error`, `error` with the JSON-RPC `code`,
/// `cancelled`, `listening`).
fn log(response: &ResponseInfo<'_>, outcome: Outcome) {
    let request = response.request();
    let (name, uri) = match request.target() {
        Some(Target::Tool(n) | Target::Prompt(n)) => (Some(n), None),
        Some(Target::Resource(u)) => (None, Some(u)),
        None => (None, None),
    };
    let (outcome, code) = match outcome {
        Outcome::Error(code) => ("error", Some(code)),
        Outcome::ToolError => ("tool_error", None),
        Outcome::Ok => ("ok", None),
        Outcome::Cancelled => ("cancelled", None),
        Outcome::Listening => ("listening", None),
    };
    tracing::debug!(
        target: REQUEST_EVENT,
        method = %request.method(),
        id = %request.id(),
        name,
        uri,
        duration = ?response.duration(),
        outcome,
        code,
        "request"
    );
}

/// Records the protocol revision a request was served in, once the engine knows it.
pub(crate) fn record_version(version: &str) {
    // The request span is at DEBUG: without a subscriber that wants it, there is no span
    // to look up.
    if !tracing::level_enabled!(tracing::Level::DEBUG) {
        return;
    }
    let span = Span::current();
    if !span.is_disabled() {
        span.record("mcp.protocol.version", version);
    }
}

/// Records how the request ended: `error.type` is the JSON-RPC error code of an error
/// response.
fn record_outcome(span: &Span, outcome: Outcome) {
    if span.is_disabled() {
        return;
    }
    if let Outcome::Error(code) = outcome {
        span.record("error.type", code.to_string());
    }
}

/// The default [`Observer`]: a `tracing` span per request (at DEBUG, named and attributed
/// by the OpenTelemetry semantic conventions for MCP, so that `tracing-opentelemetry` needs
/// no mapping: `mcp.method.name`, `jsonrpc.request.id`, `gen_ai.tool.name`,
/// `gen_ai.prompt.name`, `mcp.resource.uri`, `mcp.protocol.version`, `error.type`,
/// `otel.name` = "{method} {target}"), entered while the handler runs; and one `debug`
/// event per request under the target `ferromcp::request` (method, id, name or uri,
/// duration, outcome and error code). When no subscriber wants either, a request costs a
/// level check.
///
/// # Examples
///
/// ```
/// use ferromcp::ServerBuilder;
/// use ferromcp::observe::Tracing;
///
/// // What a server does unless told otherwise.
/// let server = ServerBuilder::new("demo", "1.0.0").observer(Tracing).build();
/// # let _ = server;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Tracing;

impl Observer for Tracing {
    #[inline]
    fn on_request(&self, request: &RequestInfo<'_>) -> Watch {
        let span = self::request(request.req);
        let logged = logged();
        if span.is_disabled() && !logged {
            return Watch::off();
        }
        Watch::owned(Traced { span, logged })
    }
}

/// A request's span, and whether its event is to be written.
struct Traced {
    span: Span,
    logged: bool,
}

impl RequestObserver for Traced {
    fn in_scope(&self, poll: &mut dyn FnMut()) {
        if self.span.is_disabled() {
            poll();
        } else {
            self.span.in_scope(poll);
        }
    }

    fn on_response(&self, response: &ResponseInfo<'_>) {
        let outcome = response.outcome();
        record_outcome(&self.span, outcome);
        if self.logged {
            log(response, outcome);
        }
    }
}
