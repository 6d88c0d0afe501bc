//! One request's SERVER span and duration sample.

use std::borrow::Cow;
use std::time::Instant;

use ferromcp::ProtocolVersion;
use opentelemetry::propagation::Extractor;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue, Value};
use opentelemetry_sdk::trace::SdkTracer;

use ferromcp::observe::Outcome as ResponseOutcome;
use ferromcp::observe::{RequestInfo, RequestObserver, ResponseInfo, Target as RequestTarget};

use crate::samples::{Ending, Sample};
use crate::telemetry::Telemetry;

/// The method names the conventions list (and the 2026 ones), as static strings: an
/// attribute value that costs no allocation.
pub(crate) fn known_method(method: &str) -> Option<&'static str> {
    const KNOWN: [&str; 22] = [
        "tools/call",
        "tools/list",
        "resources/read",
        "resources/list",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/get",
        "prompts/list",
        "completion/complete",
        "initialize",
        "ping",
        "logging/setLevel",
        "server/discover",
        "subscriptions/listen",
        "tasks/get",
        "tasks/result",
        "tasks/list",
        "tasks/cancel",
        "tasks/update",
        "notifications/initialized",
        "notifications/cancelled",
    ];
    KNOWN.into_iter().find(|m| *m == method)
}

/// The W3C trace context members of a request's `params._meta`.
pub(crate) struct TraceCarrier<'a> {
    pub(crate) traceparent: &'a str,
    pub(crate) tracestate: Option<&'a str>,
}

impl Extractor for TraceCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => Some(self.traceparent),
            "tracestate" => self.tracestate,
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

/// How a request ended.
pub(crate) struct Outcome {
    pub(crate) version: Option<ProtocolVersion>,
    /// The JSON-RPC error code and message of an error response.
    pub(crate) error: Option<(i64, Option<String>)>,
    /// A `tools/call` result with `isError: true`.
    pub(crate) tool_error: bool,
}

/// What a request is about: the tool or prompt it names.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    Tool(&'a str),
    Prompt(&'a str),
}

/// [`Target`], owned by the request's telemetry.
pub(crate) enum Owned {
    Tool(String),
    Prompt(String),
}

impl Owned {
    fn borrow(&self) -> Target<'_> {
        match self {
            Owned::Tool(t) => Target::Tool(t),
            Owned::Prompt(p) => Target::Prompt(p),
        }
    }
}

/// The SERVER span of a request, a child of `parent`.
pub(crate) fn start_span(
    tracer: &SdkTracer,
    req: &RequestInfo<'_>,
    method: Cow<'static, str>,
    target: Option<&Owned>,
    version: Option<ProtocolVersion>,
    parent: &Context,
) -> opentelemetry_sdk::trace::Span {
    let target = target.map(Owned::borrow);
    let name: Cow<'static, str> = match target {
        Some(Target::Tool(t) | Target::Prompt(t)) => {
            // Not `format!`: its machinery costs several times the two copies.
            let mut name = String::with_capacity(method.len() + 1 + t.len());
            name.push_str(&method);
            name.push(' ');
            name.push_str(t);
            name.into()
        }
        None => method.clone(),
    };
    let mut attributes = shared_attributes(&method, req.transport().as_str(), target);
    let id = match req.id() {
        ferromcp::jsonrpc::RequestId::Number(n) => itoa::Buffer::new().format(*n).to_owned(),
        ferromcp::jsonrpc::RequestId::String(s) => s.clone(),
    };
    attributes.push(KeyValue::new("jsonrpc.request.id", id));
    if let Some(version) = version {
        attributes.push(KeyValue::new("mcp.protocol.version", version.as_str()));
    }
    if let Some(RequestTarget::Resource(uri)) = req.target() {
        attributes.push(KeyValue::new("mcp.resource.uri", uri.to_owned()));
    }
    if let Some(session) = req.session_id() {
        attributes.push(KeyValue::new("mcp.session.id", session.to_owned()));
    }
    tracer
        .span_builder(name)
        .with_kind(SpanKind::Server)
        .with_attributes(attributes)
        .start_with_context(tracer, parent)
}

/// The attributes a request's span and its duration sample share: the method, the
/// transport, and the tool or prompt (room is left for the others).
pub(crate) fn shared_attributes(
    method: &str,
    transport: &'static str,
    target: Option<Target<'_>>,
) -> Vec<KeyValue> {
    let mut attributes = Vec::with_capacity(8);
    let method = known_method(method).map_or_else(|| Value::from(method.to_owned()), Value::from);
    attributes.push(KeyValue::new("mcp.method.name", method));
    attributes.push(KeyValue::new("network.transport", transport));
    match target {
        Some(Target::Tool(tool)) => {
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
        }
        Some(Target::Prompt(prompt)) => {
            attributes.push(KeyValue::new("gen_ai.prompt.name", prompt.to_owned()));
        }
        None => {}
    }
    attributes
}

/// One request's span and clock; ending it records the duration sample.
pub(crate) struct RequestTelemetry {
    pub(crate) telemetry: Telemetry,
    /// The request's span in its parent's context; without spans, the caller's context
    /// when it sent one.
    pub(crate) context: Option<Context>,
    pub(crate) method: Cow<'static, str>,
    pub(crate) target: Option<Owned>,
    pub(crate) transport: &'static str,
    /// The revision the span started with.
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) started: Instant,
}

impl RequestObserver for RequestTelemetry {
    fn in_scope(&self, poll: &mut dyn FnMut()) {
        // Entered only when there is one (a span, or the caller's trace context).
        match &self.context {
            Some(context) => {
                let _entered = context.clone().attach();
                poll();
            }
            None => poll(),
        }
    }

    fn on_response(self: Box<Self>, response: &ResponseInfo<'_>) {
        let (error, tool_error) = match response.outcome() {
            // The message is the span's status; without a span, nothing reads it.
            ResponseOutcome::Error(code) => (
                Some((
                    code,
                    self.traced().then(|| response.error_message()).flatten(),
                )),
                false,
            ),
            ResponseOutcome::ToolError => (None, true),
            _ => (None, false),
        };
        (*self).finish(Outcome {
            version: response.protocol_version(),
            error,
            tool_error,
        });
    }
}

impl RequestTelemetry {
    /// Whether the request has a span of its own (whose status wants an error's message).
    pub(crate) fn traced(&self) -> bool {
        self.telemetry.inner.tracer.is_some()
    }

    /// Ends the span and records the request's duration.
    pub(crate) fn finish(self, outcome: Outcome) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let ending = match &outcome.error {
            Some((code, _)) => Ending::Code(*code),
            None if outcome.tool_error => Ending::ToolError,
            None => Ending::Ok,
        };
        let sample = Sample {
            method: &self.method,
            target: self.target.as_ref().map(Owned::borrow),
            transport: self.transport,
            version: outcome.version,
            ending,
        };
        if let (true, Some(context)) = (self.traced(), &self.context) {
            let span = context.span();
            // The revision only when the span did not start with one (`initialize`): never
            // twice. One at a time: there are rarely any, and a vector would cost more than
            // the span's lock taken again.
            sample.ending_attributes(self.version.is_none(), |kv| span.set_attribute(kv));
            match outcome.error {
                Some((_, message)) => span.set_status(Status::error(message.unwrap_or_default())),
                None if outcome.tool_error => span.set_status(Status::error("tool_error")),
                None => {}
            }
            span.end();
        }
        let i = &*self.telemetry.inner;
        i.operations.record(&i.operation_duration, &sample, elapsed);
    }
}

impl Drop for RequestTelemetry {
    fn drop(&mut self) {
        // Also when the request's future is dropped unfinished (its connection went away).
        self.telemetry.inner.active_requests.add(self.transport, -1);
    }
}
