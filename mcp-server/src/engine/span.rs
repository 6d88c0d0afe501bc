//! The span of one request, named and attributed as the OpenTelemetry semantic conventions
//! for MCP name them, so that an exporter (`tracing-opentelemetry`) needs no mapping.
//!
//! Free when nothing listens: the fields are computed only for an enabled span, and the
//! request's target (tool, prompt, URI) is read from its params only then.
//!
//! With feature `otel` and a `Telemetry`, the same facts make an OpenTelemetry span and a
//! duration sample ([`crate::otel`]).

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
        // The URI is an attribute, never the name: the conventions keep names low-cardinality.
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            if let Some(u) = uri {
                span.record("mcp.resource.uri", u);
            }
            None
        }
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

#[cfg(feature = "otel")]
pub(crate) use observed::{finish, start};

/// The OpenTelemetry span and duration sample of a request.
#[cfg(feature = "otel")]
mod observed {
    use mcp_core::ProtocolVersion;
    use mcp_core::jsonrpc::Request;
    use mcp_core::types::RequestMetaObject;
    use serde::Deserialize;
    use serde_json::Value;

    use super::{Reply, Target};
    use crate::otel::{Outcome, RequestFacts, RequestTelemetry, Telemetry, TraceCarrier};
    use crate::peer::session::{Connection, ConnectionEra};

    /// Starts the span of `req`, a child of the trace context in its `_meta` if any.
    pub(crate) fn start<'a>(
        telemetry: &'a Telemetry,
        req: &'a Request,
        meta: Option<&'a RequestMetaObject>,
        conn: &'a Connection,
    ) -> RequestTelemetry<'a> {
        let target = req
            .params
            .as_deref()
            .and_then(|p| serde_json::from_str::<Target<'_>>(p.get()).ok());
        let (name, uri) = target.map_or((None, None), |t| (t.name, t.uri));
        let method = req.method.as_str();
        let text = |key: &str| match meta?.extra.get(key)? {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        };
        telemetry.request(RequestFacts {
            method,
            id: &req.id,
            tool: name.filter(|_| method == "tools/call"),
            prompt: name.filter(|_| method == "prompts/get"),
            uri: uri.filter(|_| method.starts_with("resources/")),
            session_id: conn.session_id(),
            transport: conn.transport().as_str(),
            trace_parent: text("traceparent").map(|traceparent| TraceCarrier {
                traceparent,
                tracestate: text("tracestate"),
            }),
        })
    }

    #[derive(Deserialize)]
    struct ErrorReply {
        error: ErrorMessage,
    }

    #[derive(Deserialize)]
    struct ErrorMessage {
        message: String,
    }

    /// Ends the span of a request answered with `reply`.
    pub(crate) fn finish(
        telemetry: RequestTelemetry<'_>,
        reply: &Reply,
        conn: &Connection,
        meta: Option<&RequestMetaObject>,
    ) {
        let version = match conn.era() {
            ConnectionEra::Legacy(session) => session.negotiated().map(|n| n.version.as_str()),
            ConnectionEra::Modern | ConnectionEra::Undecided => meta
                .and_then(|m| {
                    m.protocol_version
                        .as_deref()?
                        .parse::<ProtocolVersion>()
                        .ok()
                })
                .map(ProtocolVersion::as_str),
        };
        let (error, tool_error) = match reply {
            Reply::Response(r) => (
                r.error.map(|code| {
                    // The message is the span's status; without a span, nothing reads it.
                    let message = telemetry
                        .traced()
                        .then(|| serde_json::from_str::<ErrorReply>(&r.json).ok())
                        .flatten()
                        .map(|e| e.error.message);
                    (code.0, message)
                }),
                r.tool_error,
            ),
            Reply::Silent | Reply::Listen(_) => (None, false),
        };
        telemetry.finish(Outcome {
            version,
            error,
            tool_error,
        });
    }
}
