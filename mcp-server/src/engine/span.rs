//! The span of one request, named and attributed as the OpenTelemetry semantic conventions
//! for MCP name them, so that an exporter (`tracing-opentelemetry`) needs no mapping.
//!
//! Free when nothing listens: the fields are computed only for an enabled span, and the
//! request's target (tool, prompt, URI) is read from its params only then.

use mcp_core::jsonrpc::Request;
use serde::Deserialize;
use tracing::Span;
use tracing::field::Empty;

use super::Reply;

/// The `name` or `uri` a request is about.
#[derive(Deserialize)]
struct Target<'a> {
    #[serde(borrow, default)]
    name: Option<&'a str>,
    #[serde(borrow, default)]
    uri: Option<&'a str>,
}

/// A SERVER span for `req`: `mcp.method.name`, `jsonrpc.request.id`, the target attributes
/// of its method, and `otel.name` = "{method} {target}".
pub(crate) fn request(req: &Request) -> Span {
    let span = tracing::info_span!(
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
    let target = req
        .params
        .as_deref()
        .and_then(|p| serde_json::from_str::<Target<'_>>(p.get()).ok());
    let (name, uri) = target.map_or((None, None), |t| (t.name, t.uri));
    let shown = match req.method.as_str() {
        "tools/call" => name.inspect(|n| {
            span.record("gen_ai.operation.name", "execute_tool");
            span.record("gen_ai.tool.name", n);
        }),
        "prompts/get" => name.inspect(|n| {
            span.record("gen_ai.prompt.name", n);
        }),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => uri.inspect(|u| {
            span.record("mcp.resource.uri", u);
        }),
        _ => None,
    };
    match shown {
        Some(target) => span.record("otel.name", format!("{} {target}", req.method)),
        None => span.record("otel.name", req.method.as_str()),
    };
    span
}

/// Records the protocol revision a request was served in, once the engine knows it.
pub(crate) fn record_version(version: &str) {
    let span = Span::current();
    if !span.is_disabled() {
        span.record("mcp.protocol.version", version);
    }
}

/// Records how the request ended: `error.type` is the JSON-RPC error code of an error
/// response.
pub(crate) fn record_outcome(span: &Span, reply: &Reply) {
    if span.is_disabled() {
        return;
    }
    if let Reply::Response(r) = reply
        && let Some(code) = r.error
    {
        span.record("error.type", code.0.to_string());
    }
}
