//! OpenTelemetry traces and metrics, named and attributed by the semantic conventions for
//! MCP (feature `otel`).
//!
//! Give a server a [`Telemetry`] made from your tracer and meter providers, and every
//! request it answers, over stdio or HTTP and in either era, becomes a SERVER span named
//! `"{mcp.method.name} {target}"` (`tools/call add`, `prompts/get review`, `tools/list`) and
//! a sample of the `mcp.server.operation.duration` histogram. A W3C `traceparent` (and
//! `tracestate`) in the request's `params._meta` is the span's parent, and the span is the
//! current OpenTelemetry context while the handler runs, so spans a tool makes are its
//! children. Legacy sessions record `mcp.server.session.duration` when they end.
//!
//! | instrument | kind | unit | attributes |
//! |---|---|---|---|
//! | `mcp.server.operation.duration` | histogram | s | `mcp.method.name`, `mcp.protocol.version`, `network.transport`, `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `error.type`, `rpc.response.status_code` |
//! | `mcp.server.session.duration` | histogram | s | `mcp.protocol.version`, `network.transport` |
//! | `mcp.client.operation.duration` | histogram | s | `mcp.method.name`, `mcp.protocol.version`, `network.transport`, `error.type` (a JSON-RPC code, `timeout` or `cancelled`), `rpc.response.status_code` |
//! | `mcp.server.active_requests` | up-down counter | `{request}` | `network.transport` |
//! | `mcp.server.active_sessions` | up-down counter | `{session}` | `network.transport` |
//! | `mcp.server.active_tasks` | up-down counter | `{task}` | — |
//! | `mcp.server.active_listen_streams` | up-down counter | `{stream}` | — |
//!
//! The last two are this SDK's (the conventions name no such instruments): tasks running in
//! this process, and open `subscriptions/listen` streams. Sessions count where they are
//! held: a session restored from a shared store counts on each instance that holds it.
//!
//! The histograms use the conventions' bucket boundaries (10 ms to 300 s).
//! [`Prometheus`] renders the meter provider's metrics in the Prometheus text format, for a
//! `/metrics` route.
//!
//! Spans are made with the OpenTelemetry API directly, not through `tracing`: a request's
//! attributes are known at one place in the engine, so no `tracing` layer has to map every
//! span of the process, and a server without a `Telemetry` pays one branch per request.
//!
//! # Examples
//!
//! ```
//! use ferromcp::otel::{Prometheus, Telemetry};
//! use ferromcp::prelude::*;
//! use opentelemetry_sdk::metrics::SdkMeterProvider;
//! use opentelemetry_sdk::trace::SdkTracerProvider;
//!
//! let prometheus = Prometheus::new();
//! let meters = SdkMeterProvider::builder()
//!     .with_reader(prometheus.reader())
//!     .build();
//! // An exporter goes on the tracer provider (`with_batch_exporter`); none here.
//! let tracers = SdkTracerProvider::builder().build();
//! let server = ServerBuilder::new("demo", "1.0.0")
//!     .telemetry(Telemetry::new(&tracers, &meters))
//!     .build();
//! # let _ = server;
//! ```

#[cfg(feature = "otlp")]
mod batch;
#[cfg(feature = "otlp")]
mod otlp;
mod prometheus;
#[cfg(feature = "otlp")]
mod protobuf;

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use ferromcp_core::ProtocolVersion;
use opentelemetry::metrics::{BoundHistogram, Histogram, MeterProvider};
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer, TracerProvider};
use opentelemetry::{Context, InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

use foldhash::fast::RandomState as MapHasher;

use crate::observe::Outcome as ResponseOutcome;
use crate::observe::{
    ClientOutcome, ClientRequestInfo, ClientRequestObserver, Guard, Meta, Observer, RequestInfo,
    RequestObserver, ResponseInfo, SessionInfo, Target as RequestTarget,
};

#[cfg(feature = "otlp")]
#[cfg_attr(docsrs, doc(cfg(feature = "otlp")))]
pub use otlp::{Otel, OtelError};
pub use prometheus::{Prometheus, PrometheusReader};

/// The bucket boundaries the conventions give both MCP duration histograms, in seconds.
const DURATION_BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// A server's OpenTelemetry instruments: its tracer, its histograms and gauges. Set it with
/// [`ServerBuilder::telemetry`](crate::ServerBuilder::telemetry). Cheap to clone.
///
/// # Examples
///
/// ```
/// use ferromcp::otel::Telemetry;
/// use opentelemetry_sdk::metrics::SdkMeterProvider;
/// use opentelemetry_sdk::trace::SdkTracerProvider;
///
/// let telemetry = Telemetry::new(
///     &SdkTracerProvider::builder().build(),
///     &SdkMeterProvider::builder().build(),
/// );
/// # let _ = telemetry;
/// ```
#[derive(Clone)]
pub struct Telemetry {
    inner: Arc<Instruments>,
}

struct Instruments {
    /// `None`: metrics only, no spans ([`Telemetry::metrics_only`]).
    tracer: Option<SdkTracer>,
    propagator: TraceContextPropagator,
    operation_duration: Histogram<f64>,
    /// `operation_duration` bound to each attribute set seen so far.
    operations: BoundSamples,
    session_duration: Histogram<f64>,
    /// The server's own requests to the client, as the conventions' client histogram.
    client_duration: Histogram<f64>,
    // The gauges are counted in atomics and observed when metrics are collected: a request
    // pays two atomic adds instead of two aggregations of an up-down counter.
    active_requests: Arc<Live>,
    active_sessions: Arc<Live>,
    active_tasks: Arc<AtomicI64>,
    listen_streams: Arc<AtomicI64>,
}

/// Counts one live thing (a task, a listen stream) until dropped.
#[derive(Debug)]
pub(crate) struct Counted(Arc<AtomicI64>);

impl Counted {
    fn new(count: &Arc<AtomicI64>) -> Counted {
        count.fetch_add(1, Ordering::Relaxed);
        Counted(count.clone())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A live count per `network.transport`.
#[derive(Default)]
struct Live {
    pipe: AtomicI64,
    tcp: AtomicI64,
}

impl Live {
    fn add(&self, transport: &str, n: i64) {
        let slot = if transport == "pipe" {
            &self.pipe
        } else {
            &self.tcp
        };
        slot.fetch_add(n, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry").finish_non_exhaustive()
    }
}

impl Telemetry {
    /// Instruments from these providers, under the instrumentation scope `ferromcp` (with
    /// this crate's version).
    pub fn new(tracers: &SdkTracerProvider, meters: &impl MeterProvider) -> Telemetry {
        Telemetry::build(Some(tracers), meters)
    }

    /// Metrics only: the histograms and gauges, and no spans. A request's W3C trace context
    /// (`traceparent` in its `_meta`) is still the current OpenTelemetry context while its
    /// handler runs, so spans the handler makes with a tracer of its own join the caller's
    /// trace. For a server that serves `/metrics` and exports no traces: a span costs more
    /// than every metric together, and the SDK records it even when no exporter reads it.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::otel::{Prometheus, Telemetry};
    /// use opentelemetry_sdk::metrics::SdkMeterProvider;
    ///
    /// let prometheus = Prometheus::new();
    /// let meters = SdkMeterProvider::builder()
    ///     .with_reader(prometheus.reader())
    ///     .build();
    /// let telemetry = Telemetry::metrics_only(&meters);
    /// # let _ = telemetry;
    /// ```
    pub fn metrics_only(meters: &impl MeterProvider) -> Telemetry {
        Telemetry::build(None, meters)
    }

    fn build(tracers: Option<&SdkTracerProvider>, meters: &impl MeterProvider) -> Telemetry {
        let scope = InstrumentationScope::builder(env!("CARGO_PKG_NAME"))
            .with_version(env!("CARGO_PKG_VERSION"))
            .build();
        let meter = meters.meter_with_scope(scope.clone());
        let histogram = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(DURATION_BOUNDARIES.to_vec())
                .build()
        };
        let live = |name: &'static str, unit: &'static str, description: &'static str| {
            let counts = Arc::new(Live::default());
            let observed = counts.clone();
            meter
                .i64_observable_up_down_counter(name)
                .with_unit(unit)
                .with_description(description)
                .with_callback(move |gauge| {
                    for (transport, count) in [("pipe", &observed.pipe), ("tcp", &observed.tcp)] {
                        gauge.observe(
                            count.load(Ordering::Relaxed),
                            &[KeyValue::new("network.transport", transport)],
                        );
                    }
                })
                .build();
            counts
        };
        let count = |name: &'static str, unit: &'static str, description: &'static str| {
            let count = Arc::new(AtomicI64::new(0));
            let observed = count.clone();
            meter
                .i64_observable_up_down_counter(name)
                .with_unit(unit)
                .with_description(description)
                .with_callback(move |gauge| gauge.observe(observed.load(Ordering::Relaxed), &[]))
                .build();
            count
        };
        Telemetry {
            inner: Arc::new(Instruments {
                tracer: tracers.map(|t| t.tracer_with_scope(scope)),
                propagator: TraceContextPropagator::new(),
                operation_duration: histogram(
                    "mcp.server.operation.duration",
                    "MCP request duration as observed on the server, from its receipt until its result or error is sent.",
                ),
                operations: BoundSamples::default(),
                session_duration: histogram(
                    "mcp.server.session.duration",
                    "The duration of an MCP session as observed on the server.",
                ),
                client_duration: histogram(
                    "mcp.client.operation.duration",
                    "The duration of an MCP request the server sent its client, from its sending until its response arrived.",
                ),
                active_requests: live(
                    "mcp.server.active_requests",
                    "{request}",
                    "MCP requests the server is handling.",
                ),
                active_sessions: live(
                    "mcp.server.active_sessions",
                    "{session}",
                    "Live MCP sessions (2025 revisions).",
                ),
                active_tasks: count(
                    "mcp.server.active_tasks",
                    "{task}",
                    "MCP tasks running in this process.",
                ),
                listen_streams: count(
                    "mcp.server.active_listen_streams",
                    "{stream}",
                    "Open subscriptions/listen streams (2026-07-28).",
                ),
            }),
        }
    }
}

impl Observer for Telemetry {
    fn on_request(&self, request: &RequestInfo<'_>) -> Option<Box<dyn RequestObserver>> {
        Some(Box::new(self.request(request)))
    }

    fn on_session(&self, session: &SessionInfo) -> Option<Guard> {
        Some(Box::new(self.session(
            session.version.as_str(),
            session.transport.as_str(),
        )))
    }

    fn on_task(&self) -> Option<Guard> {
        Some(Box::new(Counted::new(&self.inner.active_tasks)))
    }

    fn on_listen(&self) -> Option<Guard> {
        Some(Box::new(Counted::new(&self.inner.listen_streams)))
    }

    fn on_client_request(
        &self,
        request: &ClientRequestInfo<'_>,
    ) -> Option<Box<dyn ClientRequestObserver>> {
        Some(Box::new(self.outgoing(
            request.method,
            request.id,
            request.session_id,
            request.version,
            request.transport.as_str(),
        )))
    }

    fn message_meta(&self) -> Option<Meta> {
        trace_context().map(|context| meta_of(&context))
    }
}

impl Telemetry {
    /// Starts the span and the clock of one request.
    fn request(&self, req: &RequestInfo<'_>) -> RequestTelemetry {
        let i = &*self.inner;
        let parent = req.meta("traceparent").map(|traceparent| {
            let carrier = TraceCarrier {
                traceparent,
                tracestate: req.meta("tracestate"),
            };
            i.propagator.extract_with_context(&Context::new(), &carrier)
        });
        let target = match req.target() {
            Some(RequestTarget::Tool(t)) => Some(Owned::Tool(t.to_owned())),
            Some(RequestTarget::Prompt(p)) => Some(Owned::Prompt(p.to_owned())),
            _ => None,
        };
        let method: Cow<'static, str> = match known_method(req.method()) {
            Some(m) => m.into(),
            None => req.method().to_owned().into(),
        };
        let transport = req.transport().as_str();
        let version = req.protocol_version();
        let context = match &i.tracer {
            Some(tracer) => {
                let parent = parent.unwrap_or_default();
                let span = start_span(
                    tracer,
                    req,
                    method.clone(),
                    target.as_ref(),
                    version,
                    &parent,
                );
                Some(parent.with_span(span))
            }
            None => parent,
        };
        i.active_requests.add(transport, 1);
        RequestTelemetry {
            telemetry: self.clone(),
            context,
            method,
            target,
            transport,
            version,
            started: Instant::now(),
        }
    }

    /// Counts a legacy session from its `initialize` on; the session's duration is recorded
    /// when the returned value is dropped.
    pub(crate) fn session(
        &self,
        version: &'static str,
        transport: &'static str,
    ) -> SessionTelemetry {
        self.inner.active_sessions.add(transport, 1);
        SessionTelemetry {
            telemetry: self.clone(),
            attributes: [
                KeyValue::new("mcp.protocol.version", version),
                KeyValue::new("network.transport", transport),
            ],
            started: Instant::now(),
        }
    }
}

impl<H> crate::ServerBuilder<H> {
    /// Emits OpenTelemetry spans and metrics for every request and legacy session, by the
    /// semantic conventions for MCP ([`otel`](crate::otel)), besides the default `tracing`
    /// spans. `None` (what `otel::Otel::telemetry` gives when nothing is exported) leaves
    /// telemetry off.
    pub fn telemetry(self, telemetry: impl Into<Option<Telemetry>>) -> Self {
        match telemetry.into() {
            Some(telemetry) => self.observer((crate::observe::Tracing, telemetry)),
            None => self,
        }
    }
}

/// The current OpenTelemetry context when it has a span (the request's, or the caller's
/// from its `_meta`) whose trace context a message the server sends should carry.
fn trace_context() -> Option<Context> {
    let context = Context::current();
    context.span().span_context().is_valid().then_some(context)
}

/// The trace context of `context` (`traceparent`, and `tracestate` when not empty) as
/// `_meta` members, as a request's `_meta` brings it in: so a client's tracing links a
/// server-to-client request or notification to the server span it came from.
fn meta_of(context: &Context) -> Meta {
    let mut meta = Meta::new();
    TraceContextPropagator::new().inject_context(context, &mut MetaInjector(&mut meta));
    meta
}

/// Writes propagated fields into a `_meta` object.
struct MetaInjector<'a>(&'a mut serde_json::Map<String, serde_json::Value>);

impl opentelemetry::propagation::Injector for MetaInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0
            .insert(key.to_owned(), serde_json::Value::String(value));
    }
}

/// The method names the conventions list (and the 2026 ones), as static strings: an
/// attribute value that costs no allocation.
fn known_method(method: &str) -> Option<&'static str> {
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
enum Owned {
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
fn start_span(
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
        ferromcp_core::jsonrpc::RequestId::Number(n) => itoa::Buffer::new().format(*n).to_owned(),
        ferromcp_core::jsonrpc::RequestId::String(s) => s.clone(),
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
fn shared_attributes(
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
    telemetry: Telemetry,
    /// The request's span in its parent's context; without spans, the caller's context
    /// when it sent one.
    context: Option<Context>,
    method: Cow<'static, str>,
    target: Option<Owned>,
    transport: &'static str,
    /// The revision the span started with.
    version: Option<ProtocolVersion>,
    started: Instant,
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

/// How a request ended, as the duration histogram tells them apart.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Ending {
    Ok,
    /// A `tools/call` result with `isError: true`.
    ToolError,
    /// A JSON-RPC error response with this code.
    Code(i64),
}

/// The attributes of one duration sample, borrowed from the request.
#[derive(Clone, Copy)]
struct Sample<'a> {
    method: &'a str,
    target: Option<Target<'a>>,
    transport: &'static str,
    version: Option<ProtocolVersion>,
    ending: Ending,
}

impl Sample<'_> {
    /// The attributes the sample is recorded with.
    fn attributes(&self) -> Vec<KeyValue> {
        let mut attributes = shared_attributes(self.method, self.transport, self.target);
        self.ending_attributes(true, |kv| attributes.push(kv));
        attributes
    }

    /// The attributes known only when the request has ended: the protocol revision (unless
    /// not `with_version`) and the error, if any.
    fn ending_attributes(&self, with_version: bool, mut add: impl FnMut(KeyValue)) {
        if let (true, Some(version)) = (with_version, self.version) {
            add(KeyValue::new("mcp.protocol.version", version.as_str()));
        }
        match self.ending {
            Ending::Ok => {}
            Ending::ToolError => add(KeyValue::new("error.type", "tool_error")),
            Ending::Code(code) => {
                let code = code.to_string();
                add(KeyValue::new("error.type", code.clone()));
                add(KeyValue::new("rpc.response.status_code", code));
            }
        }
    }

    /// Hashes what tells samples apart, as few words as it can: equal samples must hash the
    /// same, unequal ones only rarely do, and [`Sample::is`] settles it.
    fn hash_into(&self, h: &mut impl Hasher) {
        h.write(self.method.as_bytes());
        let (kind, target) = match self.target {
            Some(Target::Tool(t)) => (1, t),
            Some(Target::Prompt(p)) => (2, p),
            None => (0, ""),
        };
        if kind != 0 {
            h.write(target.as_bytes());
        }
        let version = self
            .version
            .and_then(|v| ProtocolVersion::ALL.iter().position(|&known| known == v))
            .map_or(0, |i| i as u64 + 1);
        let (ending, code) = match self.ending {
            Ending::Ok => (0, 0),
            Ending::ToolError => (1, 0),
            Ending::Code(code) => (2, code),
        };
        // The transport by its length: `pipe` and `tcp` differ in it.
        let packed = kind | version << 2 | ending << 6 | (self.transport.len() as u64) << 8;
        h.write_u64(packed);
        if code != 0 {
            h.write_i64(code);
        }
    }

    fn is(&self, key: &SampleKey) -> bool {
        let target = match (self.target, &key.target) {
            (Some(Target::Tool(t)), Some((true, k)))
            | (Some(Target::Prompt(t)), Some((false, k))) => t == &**k,
            (None, None) => true,
            _ => false,
        };
        self.ending == key.ending
            && self.version == key.version
            && same(self.transport, key.transport)
            && target
            && *self.method == *key.method
    }

    fn key(&self) -> SampleKey {
        SampleKey {
            method: self.method.into(),
            target: match self.target {
                Some(Target::Tool(t)) => Some((true, t.into())),
                Some(Target::Prompt(p)) => Some((false, p.into())),
                None => None,
            },
            transport: self.transport,
            version: self.version,
            ending: self.ending,
        }
    }
}

/// A [`Sample`]'s attributes, owned.
struct SampleKey {
    method: Box<str>,
    /// `true` for a tool, `false` for a prompt.
    target: Option<(bool, Box<str>)>,
    transport: &'static str,
    version: Option<ProtocolVersion>,
    ending: Ending,
}

/// Whether two of the few static attribute values are the same: the same text in one
/// place, as a value of one `match` arm always is, needs no comparison of its bytes.
fn same(a: &'static str, b: &'static str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// How many attribute sets of the duration histogram are bound; samples with others are
/// recorded unbound (the SDK's own cardinality limit still applies to both).
const MAX_BOUND: usize = 1024;

/// A histogram bound to each attribute set it has recorded, up to [`MAX_BOUND`] of them:
/// the SDK looks an unbound sample's attributes up in a map keyed by the whole attribute
/// list (hashing every key and value), where a bound one records straight into its
/// buckets. Finding the bound histogram hashes the few parts of a [`Sample`] once.
///
/// Only answered requests (a result, `isError` included) are bound: their method and tool
/// or prompt exist, so their sets are as many as the server's methods, tools and prompts.
/// A request that ended in a protocol error (an unknown tool, say) is recorded unbound, as
/// the client chose its name: a bound set is never released, and with delta temporality
/// the SDK keeps a bound set's series (or the overflow series it was bound to past the
/// cardinality limit) for as long as it is bound.
struct BoundSamples {
    /// Each sample's hash, seeded. Chosen collisions would only lengthen a list that
    /// [`MAX_BOUND`] bounds.
    hasher: MapHasher,
    bound: RwLock<BoundMap>,
    /// How many are bound: once [`MAX_BOUND`], a new attribute set takes no write lock.
    len: AtomicUsize,
}

type BoundMap = HashMap<u64, Vec<(SampleKey, BoundHistogram<f64>)>, BuildHasherDefault<Prehashed>>;

impl Default for BoundSamples {
    fn default() -> BoundSamples {
        BoundSamples {
            hasher: MapHasher::default(),
            bound: RwLock::default(),
            len: AtomicUsize::new(0),
        }
    }
}

impl BoundSamples {
    fn record(&self, histogram: &Histogram<f64>, sample: &Sample<'_>, value: f64) {
        let mut h = self.hasher.build_hasher();
        sample.hash_into(&mut h);
        let hash = h.finish();
        {
            let bound = self.bound.read().unwrap_or_else(|e| e.into_inner());
            if let Some((_, b)) = bound
                .get(&hash)
                .and_then(|list| list.iter().find(|(key, _)| sample.is(key)))
            {
                b.record(value);
                return;
            }
        }
        let attributes = sample.attributes();
        if matches!(sample.ending, Ending::Code(_)) || self.len.load(Ordering::Relaxed) >= MAX_BOUND
        {
            histogram.record(value, &attributes);
            return;
        }
        let mut bound = self.bound.write().unwrap_or_else(|e| e.into_inner());
        let list = bound.entry(hash).or_default();
        // Another thread may have bound it since the read.
        if let Some((_, b)) = list.iter().find(|(key, _)| sample.is(key)) {
            b.record(value);
            return;
        }
        let b = histogram.bind(&attributes);
        b.record(value);
        list.push((sample.key(), b));
        self.len.fetch_add(1, Ordering::Relaxed);
    }
}

/// A hasher for keys that are hashes already.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// One live legacy session; dropping it records the session's duration.
pub(crate) struct SessionTelemetry {
    telemetry: Telemetry,
    attributes: [KeyValue; 2],
    started: Instant,
}

impl Telemetry {
    /// The CLIENT span of a request the server sends the client in this session (sampling,
    /// elicitation, roots, ping): a child of the current context (the handler's request
    /// span), named by its method, and the context its `_meta` carries, so that the client's
    /// own span of it is that span's child. Without spans, only its duration is recorded.
    pub(crate) fn outgoing(
        &self,
        method: &str,
        id: &ferromcp_core::jsonrpc::RequestId,
        session_id: Option<&str>,
        version: Option<ProtocolVersion>,
        transport: &'static str,
    ) -> OutgoingTelemetry {
        let name: Cow<'static, str> = match OUTGOING.into_iter().find(|m| *m == method) {
            Some(known) => known.into(),
            None => method.to_owned().into(),
        };
        let mut sample = Vec::with_capacity(5);
        sample.push(KeyValue::new("mcp.method.name", name.clone()));
        sample.push(KeyValue::new("network.transport", transport));
        if let Some(version) = version {
            sample.push(KeyValue::new("mcp.protocol.version", version.as_str()));
        }
        let Some(tracer) = self.inner.tracer.as_ref() else {
            return OutgoingTelemetry {
                telemetry: self.clone(),
                context: None,
                sample,
                started: Instant::now(),
                finished: false,
            };
        };
        let id = match id {
            ferromcp_core::jsonrpc::RequestId::Number(n) => {
                itoa::Buffer::new().format(*n).to_owned()
            }
            ferromcp_core::jsonrpc::RequestId::String(s) => s.clone(),
        };
        let mut attributes = Vec::with_capacity(5);
        attributes.push(KeyValue::new("mcp.method.name", name.clone()));
        attributes.push(KeyValue::new("network.transport", transport));
        attributes.push(KeyValue::new("jsonrpc.request.id", id));
        if let Some(version) = version {
            attributes.push(KeyValue::new("mcp.protocol.version", version.as_str()));
        }
        if let Some(session) = session_id {
            attributes.push(KeyValue::new("mcp.session.id", session.to_owned()));
        }
        let parent = Context::current();
        let span = tracer
            .span_builder(name)
            .with_kind(SpanKind::Client)
            .with_attributes(attributes)
            .start_with_context(tracer, &parent);
        OutgoingTelemetry {
            telemetry: self.clone(),
            context: Some(parent.with_span(span)),
            sample,
            started: Instant::now(),
            finished: false,
        }
    }
}

/// The requests a server sends its client.
const OUTGOING: [&str; 4] = [
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "ping",
];

/// How a request the server sent ended, when not with a result.
pub(crate) enum OutgoingFailure<'a> {
    /// The client answered with this JSON-RPC error.
    Code(i64, &'a str),
    /// No answer within the request timeout.
    Timeout,
    /// The handler was cancelled, or the session or connection ended, first.
    Abandoned,
}

/// The CLIENT span and the duration of a request the server sent; ended by
/// [`finish`](Self::finish), or, marked as abandoned, when dropped before (the asking
/// handler's future was dropped, or the request could not be written).
pub(crate) struct OutgoingTelemetry {
    telemetry: Telemetry,
    /// The span in its parent's context; `None` without spans.
    context: Option<Context>,
    /// The duration sample's attributes known at the start.
    sample: Vec<KeyValue>,
    started: Instant,
    finished: bool,
}

impl Drop for OutgoingTelemetry {
    fn drop(&mut self) {
        if !self.finished {
            self.finished = true;
            self.end(Some(OutgoingFailure::Abandoned));
        }
    }
}

impl ClientRequestObserver for OutgoingTelemetry {
    fn meta(&self) -> Option<Meta> {
        self.context.as_ref().map(meta_of)
    }

    fn on_response(mut self: Box<Self>, outcome: ClientOutcome<'_>) {
        self.finished = true;
        self.end(match outcome {
            ClientOutcome::Error(code, message) => Some(OutgoingFailure::Code(code, message)),
            ClientOutcome::Timeout => Some(OutgoingFailure::Timeout),
            ClientOutcome::Abandoned => Some(OutgoingFailure::Abandoned),
            _ => None,
        });
    }
}

// The tests end requests as the engine does, through these.
#[cfg(test)]
impl OutgoingTelemetry {
    /// The context the request's `_meta` carries: `None` without spans.
    pub(crate) fn context(&self) -> Option<&Context> {
        self.context.as_ref()
    }

    /// Ends the span: an error response marks it with the code as `error.type` and
    /// `rpc.response.status_code`; a timeout or an abandoned request by that kind.
    pub(crate) fn finish(mut self, failure: Option<OutgoingFailure<'_>>) {
        self.finished = true;
        self.end(failure);
    }
}

impl OutgoingTelemetry {
    fn end(&mut self, failure: Option<OutgoingFailure<'_>>) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let mut ending = Vec::with_capacity(2);
        let status = match failure {
            None => None,
            Some(OutgoingFailure::Code(code, message)) => {
                let code = itoa::Buffer::new().format(code).to_owned();
                ending.push(KeyValue::new("error.type", code.clone()));
                ending.push(KeyValue::new("rpc.response.status_code", code));
                Some(Status::error(message.to_owned()))
            }
            Some(OutgoingFailure::Timeout) => {
                ending.push(KeyValue::new("error.type", "timeout"));
                Some(Status::error("no answer within the request timeout"))
            }
            Some(OutgoingFailure::Abandoned) => {
                ending.push(KeyValue::new("error.type", "cancelled"));
                Some(Status::error("abandoned before the client answered"))
            }
        };
        if let Some(context) = &self.context {
            let span = context.span();
            for kv in &ending {
                span.set_attribute(kv.clone());
            }
            if let Some(status) = status {
                span.set_status(status);
            }
            span.end();
        }
        self.sample.append(&mut ending);
        self.telemetry
            .inner
            .client_duration
            .record(elapsed, &self.sample);
    }
}

impl std::fmt::Debug for SessionTelemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionTelemetry").finish_non_exhaustive()
    }
}

impl Drop for SessionTelemetry {
    fn drop(&mut self) {
        let i = &*self.telemetry.inner;
        if let Value::String(transport) = &self.attributes[1].value {
            i.active_sessions.add(transport.as_str(), -1);
        }
        i.session_duration
            .record(self.started.elapsed().as_secs_f64(), &self.attributes);
    }
}

#[cfg(test)]
mod tests {
    use ferromcp_core::jsonrpc::RequestId;
    use opentelemetry_sdk::metrics::SdkMeterProvider;
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SpanData};

    use super::*;

    fn attr(span: &SpanData, key: &str) -> Option<String> {
        span.attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.as_str().into_owned())
    }

    /// A request the server sends the client, ended each way it can end.
    #[test]
    fn outgoing_requests_are_client_spans_marked_by_how_they_ended() {
        let spans = InMemorySpanExporter::default();
        let tracers = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        let prometheus = Prometheus::new();
        let meters = SdkMeterProvider::builder()
            .with_reader(prometheus.reader())
            .build();
        let telemetry = Telemetry::new(&tracers, &meters);
        let send = |method: &str, n: i64, failure: Option<OutgoingFailure<'_>>| {
            let outgoing = telemetry.outgoing(
                method,
                &RequestId::Number(n),
                Some("session-1"),
                Some(ProtocolVersion::V2025_06_18),
                "tcp",
            );
            assert!(outgoing.context().unwrap().span().span_context().is_valid());
            outgoing.finish(failure);
        };
        send("roots/list", 1, None);
        send(
            "sampling/createMessage",
            2,
            Some(OutgoingFailure::Code(-32600, "no")),
        );
        send("elicitation/create", 3, Some(OutgoingFailure::Timeout));
        send("ping", 4, Some(OutgoingFailure::Abandoned));
        let ended = spans.get_finished_spans().unwrap();
        assert_eq!(ended.len(), 4);
        for span in &ended {
            assert_eq!(span.span_kind, SpanKind::Client);
            assert_eq!(attr(span, "mcp.method.name").as_deref(), Some(&*span.name));
            assert_eq!(attr(span, "network.transport").as_deref(), Some("tcp"));
            assert_eq!(attr(span, "mcp.session.id").as_deref(), Some("session-1"));
            assert_eq!(
                attr(span, "mcp.protocol.version").as_deref(),
                Some("2025-06-18")
            );
        }
        let [ok, refused, late, abandoned] = &ended[..] else {
            unreachable!()
        };
        assert_eq!(ok.name, "roots/list");
        assert_eq!(attr(ok, "jsonrpc.request.id").as_deref(), Some("1"));
        assert_eq!(attr(ok, "error.type"), None);
        assert_eq!(ok.status, Status::Unset);
        assert_eq!(attr(refused, "error.type").as_deref(), Some("-32600"));
        assert_eq!(
            attr(refused, "rpc.response.status_code").as_deref(),
            Some("-32600")
        );
        assert_eq!(refused.status, Status::error("no"));
        assert_eq!(attr(late, "error.type").as_deref(), Some("timeout"));
        assert!(matches!(late.status, Status::Error { .. }));
        assert_eq!(attr(abandoned, "error.type").as_deref(), Some("cancelled"));
        assert_eq!(attr(abandoned, "rpc.response.status_code"), None);

        // Dropped before it was answered: abandoned.
        drop(telemetry.outgoing("roots/list", &RequestId::Number(5), None, None, "tcp"));
        let ended = spans.get_finished_spans().unwrap();
        assert_eq!(ended.len(), 5);
        assert_eq!(attr(&ended[4], "error.type").as_deref(), Some("cancelled"));
        assert!(matches!(ended[4].status, Status::Error { .. }));

        // Each request is a sample of the conventions' client histogram, by how it ended.
        let text = prometheus.render().unwrap();
        let count = |labels: &str| {
            let line = format!("mcp_client_operation_duration_seconds_count{{{labels}}} ");
            text.lines()
                .find_map(|l| l.strip_prefix(&line))
                .unwrap_or_else(|| panic!("no {line} in\n{text}"))
                .to_owned()
        };
        let v = r#"mcp_protocol_version="2025-06-18",network_transport="tcp""#;
        for labels in [
            format!(r#"mcp_method_name="roots/list",{v}"#),
            format!(
                r#"error_type="-32600",mcp_method_name="sampling/createMessage",{v},rpc_response_status_code="-32600""#
            ),
            format!(r#"error_type="timeout",mcp_method_name="elicitation/create",{v}"#),
            format!(r#"error_type="cancelled",mcp_method_name="ping",{v}"#),
            // Dropped unanswered, in a request that gave no revision.
            r#"error_type="cancelled",mcp_method_name="roots/list",network_transport="tcp""#
                .to_owned(),
        ] {
            assert_eq!(count(&labels), "1", "{labels}");
        }

        // Without spans (metrics only), no span and nothing to carry, but the duration.
        let prometheus = Prometheus::new();
        let meters = SdkMeterProvider::builder()
            .with_reader(prometheus.reader())
            .build();
        let metrics_only = Telemetry::metrics_only(&meters);
        let outgoing =
            metrics_only.outgoing("roots/list", &RequestId::Number(1), None, None, "pipe");
        assert!(outgoing.context().is_none());
        outgoing.finish(None);
        let text = prometheus.render().unwrap();
        assert!(
            text.lines().any(|l| l
                == r#"mcp_client_operation_duration_seconds_count{mcp_method_name="roots/list",network_transport="pipe"} 1"#),
            "{text}"
        );
    }
}
