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

mod prometheus;

use std::sync::Arc;
use std::time::Instant;

use opentelemetry::metrics::{Histogram, MeterProvider, UpDownCounter};
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer, TracerProvider};
use opentelemetry::{Context, InstrumentationScope, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

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
    active_requests: UpDownCounter<i64>,
    active_sessions: UpDownCounter<i64>,
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
                active_requests: meter
                    .i64_up_down_counter("mcp.server.active_requests")
                    .with_unit("{request}")
                    .with_description("MCP requests the server is handling.")
                    .build(),
                active_sessions: meter
                    .i64_up_down_counter("mcp.server.active_sessions")
                    .with_unit("{session}")
                    .with_description("Live MCP sessions (2025 revisions).")
                    .build(),
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
        let transport = KeyValue::new("network.transport", req.transport);
        let mut metric = Vec::with_capacity(8);
        metric.push(KeyValue::new("mcp.method.name", req.method.to_owned()));
        metric.push(transport.clone());
        if let Some(tool) = req.tool {
            metric.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            metric.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
        }
        if let Some(prompt) = req.prompt {
            metric.push(KeyValue::new("gen_ai.prompt.name", prompt.to_owned()));
        }
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
        i.active_requests.add(1, std::slice::from_ref(&transport));
        RequestTelemetry {
            telemetry: self.clone(),
            context: parent.with_span(span),
            metric,
            transport,
            started: Instant::now(),
        }
    }

    /// Counts a legacy session from its `initialize` on; the session's duration is recorded
    /// when the returned value is dropped.
    pub(crate) fn session(&self, version: &str, transport: &'static str) -> SessionTelemetry {
        let attributes = [
            KeyValue::new("mcp.protocol.version", version.to_owned()),
            KeyValue::new("network.transport", transport),
        ];
        self.inner.active_sessions.add(1, &attributes[1..]);
        SessionTelemetry {
            telemetry: self.clone(),
            attributes,
            started: Instant::now(),
        }
    }
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
pub(crate) struct Outcome<'a> {
    pub(crate) version: Option<&'a str>,
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
    transport: KeyValue,
    started: Instant,
}

impl RequestTelemetry {
    /// The context the handler runs in: the request's span.
    pub(crate) fn context(&self) -> Context {
        self.context.clone()
    }

    /// Ends the span and records the request's duration.
    pub(crate) fn finish(mut self, outcome: Outcome<'_>) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let span = self.context.span();
        if let Some(version) = outcome.version {
            self.metric
                .push(KeyValue::new("mcp.protocol.version", version.to_owned()));
        }
        let mut ending = Vec::with_capacity(3);
        if let Some(version) = outcome.version {
            ending.push(KeyValue::new("mcp.protocol.version", version.to_owned()));
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
        self.telemetry
            .inner
            .active_requests
            .add(-1, std::slice::from_ref(&self.transport));
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
        i.active_sessions.add(-1, &self.attributes[1..]);
        i.session_duration
            .record(self.started.elapsed().as_secs_f64(), &self.attributes);
    }
}
