//! One request's SERVER span and duration sample.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use ferromcp::ProtocolVersion;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::SdkTracer;

use ferromcp::observe::Outcome as ResponseOutcome;
use ferromcp::observe::{RequestInfo, RequestObserver, ResponseInfo, Target as RequestTarget};

use crate::instruments::Instruments;
use crate::propagation::TraceCarrier;
use crate::samples::{Ending, Owned, Sample, Target, known_method, shared_attributes};
use crate::series::Series;

/// How a request ended.
pub(crate) struct Outcome {
    pub(crate) version: Option<ProtocolVersion>,
    /// The JSON-RPC error code and message of an error response.
    pub(crate) error: Option<(i64, Option<String>)>,
    /// A `tools/call` result with `isError: true`.
    pub(crate) tool_error: bool,
}

/// The SERVER span of a request, a child of `parent`.
fn start_span(
    tracer: &SdkTracer,
    req: &RequestInfo<'_>,
    target: Option<Target<'_>>,
    version: Option<ProtocolVersion>,
    parent: &Context,
) -> opentelemetry_sdk::trace::Span {
    let method = req.method();
    let name: Cow<'static, str> = match target {
        Some(Target::Tool(t) | Target::Prompt(t)) => {
            // Not `format!`: its machinery costs several times the two copies.
            let mut name = String::with_capacity(method.len() + 1 + t.len());
            name.push_str(method);
            name.push(' ');
            name.push_str(t);
            name.into()
        }
        None => known_method(method).map_or_else(|| method.to_owned().into(), Cow::Borrowed),
    };
    let mut attributes = shared_attributes(method, req.transport().as_str(), target);
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

/// What a request's duration sample names.
enum Names {
    /// The series of its method, target and transport, found when the request started:
    /// nothing copied.
    Series(Arc<Series>),
    /// Owned, for a request whose series was not made yet (the first of its kind, one that
    /// fails, or one past the bound sets).
    Owned {
        method: Cow<'static, str>,
        target: Option<Owned>,
    },
}

/// One request's span and clock; ending it records the duration sample.
pub(crate) struct RequestTelemetry {
    instruments: Arc<Instruments>,
    /// The request's span in its parent's context; without spans, the caller's context
    /// when it sent one.
    context: Option<Context>,
    names: Names,
    transport: &'static str,
    /// The revision the span started with.
    version: Option<ProtocolVersion>,
    started: Instant,
}

impl RequestTelemetry {
    /// Starts the span and the clock of one request.
    pub(crate) fn start(instruments: &Arc<Instruments>, req: &RequestInfo<'_>) -> RequestTelemetry {
        let i = &**instruments;
        let parent = req.meta("traceparent").map(|traceparent| {
            let carrier = TraceCarrier {
                traceparent,
                tracestate: req.meta("tracestate"),
            };
            i.propagator.extract_with_context(&Context::new(), &carrier)
        });
        let target = match req.target() {
            Some(RequestTarget::Tool(t)) => Some(Target::Tool(t)),
            Some(RequestTarget::Prompt(p)) => Some(Target::Prompt(p)),
            _ => None,
        };
        let method = req.method();
        let transport = req.transport().as_str();
        let names = match i.operations.find(method, target, transport) {
            Some(series) => Names::Series(series),
            None => Names::Owned {
                method: known_method(method)
                    .map_or_else(|| method.to_owned().into(), Cow::Borrowed),
                target: target.map(Owned::from),
            },
        };
        let version = req.protocol_version();
        let context = match &i.tracer {
            Some(tracer) => {
                let parent = parent.unwrap_or_default();
                let span = start_span(tracer, req, target, version, &parent);
                Some(parent.with_span(span))
            }
            None => parent,
        };
        i.active_requests.add(transport, 1);
        RequestTelemetry {
            instruments: instruments.clone(),
            context,
            names,
            transport,
            version,
            started: Instant::now(),
        }
    }
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
        self.instruments.tracer.is_some()
    }

    /// Ends the span and records the request's duration.
    pub(crate) fn finish(self, outcome: Outcome) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let ending = match &outcome.error {
            Some((code, _)) => Ending::Code(*code),
            None if outcome.tool_error => Ending::ToolError,
            None => Ending::Ok,
        };
        let (sample, series) = match &self.names {
            Names::Series(series) => (series.sample(outcome.version, ending), Some(&**series)),
            Names::Owned { method, target } => {
                let sample = Sample {
                    method,
                    target: target.as_ref().map(Owned::borrow),
                    transport: self.transport,
                    version: outcome.version,
                    ending,
                };
                (sample, None)
            }
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
        let i = &*self.instruments;
        i.operations
            .record(&i.operation_duration, series, &sample, elapsed);
    }
}

impl Drop for RequestTelemetry {
    fn drop(&mut self) {
        // Also when the request's future is dropped unfinished (its connection went away).
        self.instruments.active_requests.add(self.transport, -1);
    }
}
