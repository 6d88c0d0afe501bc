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
//! | `mcp.server.active_requests` | up-down counter | `{request}` | `network.transport` |
//! | `mcp.server.active_sessions` | up-down counter | `{session}` | `network.transport` |
//! | `mcp.server.active_tasks` | up-down counter | `{task}` | — |
//! | `mcp.server.active_listen_streams` | up-down counter | `{stream}` | — |
//!
//! The last two are this SDK's (the conventions name no such instruments): tasks running in
//! this process, and open `subscriptions/listen` streams. Sessions count where they are
//! held: a session restored from a shared store counts on each instance that holds it.
//!
//! Both histograms use the conventions' bucket boundaries (10 ms to 300 s).
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
//! use mcp_server::otel::{Prometheus, Telemetry};
//! use mcp_server::prelude::*;
//! use opentelemetry_sdk::metrics::SdkMeterProvider;
//! use opentelemetry_sdk::trace::SdkTracerProvider;
//!
//! let prometheus = Prometheus::new();
//! let meters = SdkMeterProvider::builder()
//!     .with_reader(prometheus.reader())
//!     .build();
//! // An exporter goes on the tracer provider (`with_batch_exporter`); none here.
//! let tracers = SdkTracerProvider::builder().build();
//! let server = Server::builder("demo", "1.0.0")
//!     .telemetry(Telemetry::new(&tracers, &meters))
//!     .build();
//! # let _ = server;
//! ```

#[cfg(feature = "otlp")]
mod otlp;
mod prometheus;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Instant;

use opentelemetry::metrics::{Histogram, MeterProvider};
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer, TracerProvider};
use opentelemetry::{Context, InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

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
/// use mcp_server::otel::Telemetry;
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
    tracer: SdkTracer,
    propagator: TraceContextPropagator,
    operation_duration: Histogram<f64>,
    session_duration: Histogram<f64>,
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
    /// Instruments from these providers, under the instrumentation scope `mcp-server` (with
    /// this crate's version).
    pub fn new(tracers: &SdkTracerProvider, meters: &impl MeterProvider) -> Telemetry {
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
                tracer: tracers.tracer_with_scope(scope),
                propagator: TraceContextPropagator::new(),
                operation_duration: histogram(
                    "mcp.server.operation.duration",
                    "MCP request duration as observed on the server, from its receipt until its result or error is sent.",
                ),
                session_duration: histogram(
                    "mcp.server.session.duration",
                    "The duration of an MCP session as observed on the server.",
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

    /// Starts the span and the clock of one request.
    pub(crate) fn request(&self, req: RequestFacts<'_>) -> RequestTelemetry {
        let i = &*self.inner;
        let parent = match req.trace_parent {
            Some(carrier) => i.propagator.extract_with_context(&Context::new(), &carrier),
            None => Context::new(),
        };
        let name = match req.tool.or(req.prompt) {
            Some(target) => format!("{} {target}", req.method),
            None => req.method.to_owned(),
        };
        let method = match known_method(req.method) {
            Some(m) => Value::from(m),
            None => Value::from(req.method.to_owned()),
        };
        let mut metric = Vec::with_capacity(8);
        metric.push(KeyValue::new("mcp.method.name", method));
        metric.push(KeyValue::new("network.transport", req.transport));
        // One shared string: the span's attributes clone it without copying.
        let target = req
            .tool
            .or(req.prompt)
            .map(|t| Value::String(Arc::<str>::from(t).into()));
        if let Some(tool) = target.clone().filter(|_| req.tool.is_some()) {
            metric.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            metric.push(KeyValue::new("gen_ai.tool.name", tool));
        }
        if let Some(prompt) = target.filter(|_| req.prompt.is_some()) {
            metric.push(KeyValue::new("gen_ai.prompt.name", prompt));
        }
        // Cheap clones: the values are static strings or the shared target.
        let mut span = Vec::with_capacity(metric.len() + 3);
        span.extend_from_slice(&metric);
        span.push(KeyValue::new("jsonrpc.request.id", req.id));
        if let Some(uri) = req.uri {
            span.push(KeyValue::new("mcp.resource.uri", uri.to_owned()));
        }
        if let Some(session) = req.session_id {
            span.push(KeyValue::new("mcp.session.id", session.to_owned()));
        }
        let span = i
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Server)
            .with_attributes(span)
            .start_with_context(&i.tracer, &parent);
        i.active_requests.add(req.transport, 1);
        RequestTelemetry {
            telemetry: self.clone(),
            context: parent.with_span(span),
            metric,
            transport: req.transport,
            started: Instant::now(),
        }
    }

    /// Counts a running task until the returned value is dropped.
    pub(crate) fn task(&self) -> Counted {
        Counted::new(&self.inner.active_tasks)
    }

    /// Counts an open listen stream until the returned value is dropped.
    pub(crate) fn listen_stream(&self) -> Counted {
        Counted::new(&self.inner.listen_streams)
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

/// What the engine knows of a request when it arrives.
pub(crate) struct RequestFacts<'a> {
    pub(crate) method: &'a str,
    pub(crate) id: String,
    pub(crate) tool: Option<&'a str>,
    pub(crate) prompt: Option<&'a str>,
    pub(crate) uri: Option<&'a str>,
    pub(crate) session_id: Option<&'a str>,
    /// `network.transport`: `pipe` or `tcp`.
    pub(crate) transport: &'static str,
    pub(crate) trace_parent: Option<TraceCarrier<'a>>,
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
    pub(crate) version: Option<&'static str>,
    /// The JSON-RPC error code and message of an error response.
    pub(crate) error: Option<(i64, Option<String>)>,
    /// A `tools/call` result with `isError: true`.
    pub(crate) tool_error: bool,
}

/// One request's span and clock; ending it records the duration sample.
pub(crate) struct RequestTelemetry {
    telemetry: Telemetry,
    context: Context,
    metric: Vec<KeyValue>,
    transport: &'static str,
    started: Instant,
}

impl RequestTelemetry {
    /// The context the handler runs in: the request's span.
    pub(crate) fn context(&self) -> Context {
        self.context.clone()
    }

    /// Ends the span and records the request's duration.
    pub(crate) fn finish(mut self, outcome: Outcome) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let span = self.context.span();
        let mut ending = Vec::with_capacity(3);
        if let Some(version) = outcome.version {
            let kv = KeyValue::new("mcp.protocol.version", version);
            self.metric.push(kv.clone());
            ending.push(kv);
        }
        match outcome.error {
            Some((code, message)) => {
                let code = code.to_string();
                for kv in [
                    KeyValue::new("error.type", code.clone()),
                    KeyValue::new("rpc.response.status_code", code),
                ] {
                    self.metric.push(kv.clone());
                    ending.push(kv);
                }
                span.set_status(Status::error(message.unwrap_or_default()));
            }
            None if outcome.tool_error => {
                let kv = KeyValue::new("error.type", "tool_error");
                self.metric.push(kv.clone());
                ending.push(kv);
                span.set_status(Status::error("tool_error"));
            }
            None => {}
        }
        span.set_attributes(ending);
        span.end();
        let i = &*self.telemetry.inner;
        i.operation_duration.record(elapsed, &self.metric);
    }
}

impl Drop for RequestTelemetry {
    fn drop(&mut self) {
        // Also when the request's future is dropped unfinished (its connection went away).
        self.telemetry.inner.active_requests.add(self.transport, -1);
    }
}

/// One live legacy session; dropping it records the session's duration.
pub(crate) struct SessionTelemetry {
    telemetry: Telemetry,
    attributes: [KeyValue; 2],
    started: Instant,
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
