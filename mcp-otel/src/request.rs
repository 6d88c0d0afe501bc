//! A request's duration sample, and its SERVER span when spans are recorded.
//!
//! Metrics alone need nothing per request: [`Metrics`], one per transport, is shared by
//! every request and reads what it records from the request's end (method, tool or
//! prompt, revision, outcome, duration). A span, or a caller's trace context to make
//! current, is the request's own ([`RequestTelemetry`]).

use std::borrow::Cow;
use std::sync::Arc;

use ferromcp::ProtocolVersion;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::SdkTracer;

use ferromcp::observe::Outcome as ResponseOutcome;
use ferromcp::observe::{RequestInfo, RequestObserver, ResponseInfo, Target as RequestTarget};

use crate::instruments::Instruments;
use crate::propagation::TraceCarrier;
use crate::samples::{Ending, Sample, Target, known_method, shared_attributes};

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

/// How a request's duration sample tells its end.
fn ending(outcome: ResponseOutcome) -> Ending {
    match outcome {
        ResponseOutcome::Error(code) => Ending::Code(code),
        ResponseOutcome::ToolError => Ending::ToolError,
        _ => Ending::Ok,
    }
}

/// Records the duration sample of a request that ended, served in `version`: into the
/// series of its method, tool or prompt and transport, when one was made.
fn record(
    i: &Instruments,
    response: &ResponseInfo<'_>,
    version: Option<ProtocolVersion>,
    ending: Ending,
) {
    let request = response.request();
    let target = match request.target() {
        Some(RequestTarget::Tool(t)) => Some(Target::Tool(t)),
        Some(RequestTarget::Prompt(p)) => Some(Target::Prompt(p)),
        _ => None,
    };
    let (method, transport) = (request.method(), request.transport().as_str());
    let series = i.operations.find(method, target, transport);
    let sample = match &series {
        Some(series) => series.sample(version, ending),
        None => Sample {
            method,
            target,
            transport,
            version,
            ending,
        },
    };
    let seconds = response.duration().as_secs_f64();
    i.operations
        .record(&i.operation_duration, series.as_deref(), &sample, seconds);
}

/// The metrics of the requests over one transport that have no span and no caller's
/// trace context: shared by all of them ([`Watch::shared`](ferromcp::observe::Watch::shared)),
/// so a request allocates nothing for its telemetry.
pub(crate) struct Metrics {
    instruments: Arc<Instruments>,
    transport: &'static str,
}

impl Metrics {
    /// Counts one more request in flight over this transport.
    pub(crate) fn start(self: &Arc<Self>) -> Arc<Metrics> {
        self.instruments.active_requests.add(self.transport, 1);
        self.clone()
    }

    pub(crate) fn new(instruments: &Arc<Instruments>, transport: &'static str) -> Arc<Metrics> {
        Arc::new(Metrics {
            instruments: instruments.clone(),
            transport,
        })
    }
}

impl RequestObserver for Metrics {
    fn on_response(&self, response: &ResponseInfo<'_>) {
        let i = &*self.instruments;
        let ending = ending(response.outcome());
        record(i, response, response.protocol_version(), ending);
        i.active_requests.add(self.transport, -1);
    }

    fn on_abandoned(&self) {
        self.instruments.active_requests.add(self.transport, -1);
    }
}

/// One request's span, or its caller's trace context: what is current while its handler
/// runs.
pub(crate) struct RequestTelemetry {
    instruments: Arc<Instruments>,
    /// The request's span in its parent's context; without spans, the caller's context
    /// when it sent one.
    context: Option<Context>,
    transport: &'static str,
    /// The revision the span started with.
    version: Option<ProtocolVersion>,
}

impl RequestTelemetry {
    /// Starts the span of one request.
    pub(crate) fn start(instruments: &Arc<Instruments>, req: &RequestInfo<'_>) -> RequestTelemetry {
        let i = &**instruments;
        let parent = req.meta("traceparent").map(|traceparent| {
            let carrier = TraceCarrier {
                traceparent,
                tracestate: req.meta("tracestate"),
            };
            i.propagator.extract_with_context(&Context::new(), &carrier)
        });
        let transport = req.transport().as_str();
        let version = req.protocol_version();
        let context = match &i.tracer {
            Some(tracer) => {
                let target = match req.target() {
                    Some(RequestTarget::Tool(t)) => Some(Target::Tool(t)),
                    Some(RequestTarget::Prompt(p)) => Some(Target::Prompt(p)),
                    _ => None,
                };
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
            transport,
            version,
        }
    }

    /// Whether the request has a span of its own (whose status wants an error's message).
    fn traced(&self) -> bool {
        self.instruments.tracer.is_some()
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

    /// Ends the span and records the request's duration.
    fn on_response(&self, response: &ResponseInfo<'_>) {
        let outcome = response.outcome();
        let (ending, version) = (ending(outcome), response.protocol_version());
        if let (true, Some(context)) = (self.traced(), &self.context) {
            let span = context.span();
            let sample = Sample {
                method: response.request().method(),
                target: None,
                transport: self.transport,
                version,
                ending,
            };
            // The revision only when the span did not start with one (`initialize`): never
            // twice. One at a time: there are rarely any, and a vector would cost more than
            // the span's lock taken again.
            sample.ending_attributes(self.version.is_none(), |kv| span.set_attribute(kv));
            match outcome {
                ResponseOutcome::Error(_) => {
                    let message = response.error_message().unwrap_or_default();
                    span.set_status(Status::error(message));
                }
                ResponseOutcome::ToolError => span.set_status(Status::error("tool_error")),
                _ => {}
            }
            span.end();
        }
        record(&self.instruments, response, version, ending);
    }
}

impl Drop for RequestTelemetry {
    fn drop(&mut self) {
        // Also when the request's future is dropped unfinished (its connection went away).
        self.instruments.active_requests.add(self.transport, -1);
    }
}
