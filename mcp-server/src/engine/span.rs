//! The span of one request, named and attributed as the OpenTelemetry semantic conventions
//! for MCP name them, so that an exporter (`tracing-opentelemetry`) needs no mapping.
//!
//! Free when nothing listens: the fields are computed only for an enabled span, and the
//! request's target (tool, prompt, URI) is read from its params only then.
//!
//! [`Tracing`] is the default [`Observer`]: the span, entered while the handler runs, and the
//! event.

use std::ops::ControlFlow;
use std::time::Instant;

use ferromcp_core::jsonrpc::Request;
use serde::Deserialize;
use tracing::Span;
use tracing::field::Empty;

use super::Reply;
use crate::observe::{Observer, RequestInfo, RequestObserver, ResponseInfo, Target};
use crate::scan::{self, string_end};

/// The `name` or `uri` a request is about.
#[derive(Deserialize)]
struct Members<'a> {
    #[serde(borrow, default)]
    name: Option<&'a str>,
    #[serde(borrow, default)]
    uri: Option<&'a str>,
}

/// The tool, prompt or resource `req` is about: read from the params up to that member
/// only, so the members after it (a tool's arguments, however large) are not read again.
pub(crate) fn about<'a>(req: &'a Request) -> Option<Target<'a>> {
    let (key, about): (_, fn(&'a str) -> Target<'a>) = match req.method.as_str() {
        "tools/call" => ("name", Target::Tool),
        "prompts/get" => ("name", Target::Prompt),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            ("uri", Target::Resource)
        }
        _ => return None,
    };
    let params = req.params.as_ref()?.get();
    let found = match member(params, key) {
        Member::Str(s) => s,
        Member::Absent => return None,
        // An escape the scan does not decode: as serde reads it (borrowed, so an escaped
        // value is none, as before).
        Member::Unsure => {
            let t = serde_json::from_str::<Members<'_>>(params).ok()?;
            if key == "name" { t.name } else { t.uri }?
        }
    };
    Some(about(found))
}

/// What a scan of a params object found for one top-level member.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Member<'a> {
    /// A string without escapes.
    Str(&'a str),
    /// Not there, or not a string.
    Absent,
    /// A key or the value has an escape, or the text is not what the envelope parser lets
    /// through: read it properly.
    Unsure,
}

/// Finds the top-level member `key` of `params`, JSON text the envelope parser has already
/// checked, stopping at it: members after it are not read, members before it are skipped
/// by their brackets and quotes.
pub(crate) fn member<'a>(params: &'a str, key: &str) -> Member<'a> {
    // The usual case, written by every client we know: the member sought first, no spaces
    // (`{"name":"add",...`).
    if let Some(value) = params
        .strip_prefix("{\"")
        .and_then(|p| p.strip_prefix(key))
        .and_then(|p| p.strip_prefix("\":\""))
    {
        // A name is short: a byte loop finds its end sooner than a call would.
        return match value.bytes().position(|c| c == b'"' || c == b'\\') {
            Some(n) if value.as_bytes()[n] == b'"' => Member::Str(&value[..n]),
            _ => Member::Unsure,
        };
    }
    if !params.trim_start().starts_with('{') {
        return Member::Absent;
    }
    let mut found = Member::Absent;
    let walked = scan::each_member(params, |name, escaped, value| {
        if escaped {
            found = Member::Unsure;
        } else if &name[1..name.len() - 1] == key {
            found = match string_end(value.as_bytes(), 0) {
                _ if !value.starts_with('"') => Member::Absent,
                Some((end, false)) if end == value.len() => Member::Str(&value[1..end - 1]),
                _ => Member::Unsure,
            };
        } else {
            return ControlFlow::Continue(());
        }
        // The first member of that name decides, as does an escape before it.
        ControlFlow::Break(())
    });
    match walked {
        Some(()) => found,
        None => Member::Unsure,
    }
}

/// A SERVER span for `req`: `mcp.method.name`, `jsonrpc.request.id`, the target attributes
/// of its method, and `otel.name` = "{method} {target}".
///
/// At DEBUG, as tower-http's request spans are: a subscriber at INFO (the examples' default)
/// would otherwise make and format one for every request, 14k instructions a call in the
/// quickstart, more than half again what the rest of the call costs, for a span it never
/// shows unless an event inside it is logged. `RUST_LOG=info,ferromcp=debug` brings it
/// back as the context of the handlers' log lines.
pub(crate) fn request(req: &Request) -> Span {
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
pub(crate) const REQUEST_EVENT: &str = "ferromcp::request";

/// When the request started, if its `debug` event is to be written; `None`, at the cost of
/// a level compare, when nothing listens at DEBUG.
#[inline]
pub(crate) fn started() -> Option<Instant> {
    tracing::enabled!(target: REQUEST_EVENT, tracing::Level::DEBUG).then(Instant::now)
}

/// The request's `debug` event, when [`started`] gave it a start: method, id, the tool or
/// prompt `name` or resource `uri`, duration and outcome (`ok`, `tool_error`, `error` with
/// the JSON-RPC `code`, `cancelled`, `listening`).
fn log(started: Option<Instant>, req: &Named, reply: &Reply) {
    let Some(started) = started else {
        return;
    };
    let (name, uri) = match &req.target {
        Some((true, n)) => (Some(n.as_str()), None),
        Some((false, u)) => (None, Some(u.as_str())),
        None => (None, None),
    };
    let (outcome, code) = match reply {
        Reply::Response(r) => match r.error {
            Some(code) => ("error", Some(code.0)),
            None if r.tool_error => ("tool_error", None),
            None => ("ok", None),
        },
        Reply::Silent => ("cancelled", None),
        Reply::Listen(_) => ("listening", None),
    };
    tracing::debug!(
        target: REQUEST_EVENT,
        method = %req.method,
        id = %req.id,
        name,
        uri,
        duration = ?started.elapsed(),
        outcome,
        code,
        "request"
    );
}

/// What a request's event names: its method, id, and the tool or prompt name (`true`) or
/// resource URI (`false`).
struct Named {
    method: String,
    id: ferromcp_core::jsonrpc::RequestId,
    target: Option<(bool, String)>,
}

impl Named {
    fn of(req: &Request) -> Named {
        Named {
            method: req.method.clone(),
            id: req.id.clone(),
            target: match about(req) {
                Some(Target::Tool(n) | Target::Prompt(n)) => Some((true, n.to_owned())),
                Some(Target::Resource(u)) => Some((false, u.to_owned())),
                None => None,
            },
        }
    }
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
    fn on_request(&self, request: &RequestInfo<'_>) -> Option<Box<dyn RequestObserver>> {
        let span = self::request(request.req);
        let started = started();
        if span.is_disabled() && started.is_none() {
            return None;
        }
        Some(Box::new(Traced {
            span,
            started,
            req: started.map(|_| Named::of(request.req)),
        }))
    }
}

/// A request's span, and its start when its event is to be written.
struct Traced {
    span: Span,
    started: Option<Instant>,
    /// What the event names, when it is to be written.
    req: Option<Named>,
}

impl RequestObserver for Traced {
    fn in_scope(&self, poll: &mut dyn FnMut()) {
        if self.span.is_disabled() {
            poll();
        } else {
            self.span.in_scope(poll);
        }
    }

    fn on_response(self: Box<Self>, response: &ResponseInfo<'_>) {
        record_outcome(&self.span, response.reply);
        if let Some(req) = &self.req {
            log(self.started, req, response.reply);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Member, member};

    /// What serde reads for `key`: a string member, else nothing.
    fn by_serde(params: &str, key: &str) -> Option<String> {
        let v: serde_json::Value = serde_json::from_str(params).unwrap();
        v.get(key).and_then(|v| v.as_str()).map(str::to_owned)
    }

    #[test]
    fn the_scan_finds_the_member_serde_finds() {
        let cases = [
            r#"{"name":"echo","arguments":{"text":"hi"}}"#,
            r#"{"arguments":{"text":"a \"name\": \"x\" {[}"},"name":"echo"}"#,
            r#"{ "arguments" : [1, {"name":"inner"}, "]}"] , "name" : "deep" }"#,
            r#"{"arguments":{"a":{"b":[{"c":"}"}]}},"name":"nested"}"#,
            r#"{"n":1,"m":-2.5e3,"t":true,"f":false,"z":null,"name":"after-scalars"}"#,
            r#"{"n":1}"#,
            r#"{"name":5}"#,
            r#"{"name":null}"#,
            r#"{"name":{"name":"x"}}"#,
            r#"{}"#,
            r#"{ }"#,
            r#"{"other":"x"}"#,
            r#"{"_meta":{"name":"not this"},"uri":"file:///a"}"#,
            "{\n\t\"name\"\r\n:\n\"ws\"\n}",
            r#"{"x":"\\","name":"after-backslash"}"#,
            r#"{"x":"\"","name":"after-quote"}"#,
            r#"{"x":"\\\"","name":"after-both"}"#,
            r#"{"name":""}"#,
            r#"{"name":"","x":1}"#,
            r#"{"names":"not this","name":"this"}"#,
            r#"{"name" :"spaced"}"#,
            r#"{"uri":"file:///a","name":"both"}"#,
            r#"[1,2]"#,
            r#""name""#,
            r#"7"#,
        ];
        for params in cases {
            for key in ["name", "uri"] {
                let got = match member(params, key) {
                    Member::Str(s) => Some(s.to_owned()),
                    Member::Absent => None,
                    Member::Unsure => panic!("unsure of {key} in {params}"),
                };
                assert_eq!(got, by_serde(params, key), "{key} in {params}");
            }
        }
    }

    #[test]
    fn escapes_in_the_key_or_value_sought_are_left_to_serde() {
        assert_eq!(member(r#"{"name":"caf\u00e9"}"#, "name"), Member::Unsure);
        assert_eq!(member(r#"{"na\u006de":"x"}"#, "name"), Member::Unsure);
        assert_eq!(member(r#"{"name":"a\"b"}"#, "name"), Member::Unsure);
        // An escape in another member's value is skipped over.
        assert_eq!(
            member(r#"{"a":"\u0041\"","name":"x"}"#, "name"),
            Member::Str("x")
        );
    }
}
