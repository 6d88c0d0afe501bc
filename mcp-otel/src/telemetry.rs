//! [`Telemetry`]: the instruments, and the observer that records a server's requests,
//! sessions, tasks and listen streams with them.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Instant;

use opentelemetry::metrics::{Histogram, Meter, MeterProvider};
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{TraceContextExt, TracerProvider};
use opentelemetry::{Context, InstrumentationScope, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

use ferromcp::observe::{
    ClientRequestInfo, ClientRequestObserver, Guard, Meta, Observer, RequestInfo, RequestObserver,
    SessionInfo, Target as RequestTarget,
};

use crate::client::SessionTelemetry;
use crate::request::{Owned, RequestTelemetry, TraceCarrier, known_method, start_span};
use crate::samples::BoundSamples;

/// The bucket boundaries the conventions give both MCP duration histograms, in seconds.
pub(crate) const DURATION_BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// A server's OpenTelemetry instruments: its tracer, its histograms and gauges. Set it with
/// [`ServerBuilder::observer`](ferromcp::ServerBuilder::observer). Cheap to clone.
///
/// # Examples
///
/// ```
/// use ferromcp_otel::Telemetry;
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
    pub(crate) inner: Arc<Instruments>,
}

pub(crate) struct Instruments {
    /// `None`: metrics only, no spans ([`Telemetry::metrics_only`]).
    pub(crate) tracer: Option<SdkTracer>,
    pub(crate) propagator: TraceContextPropagator,
    pub(crate) operation_duration: Histogram<f64>,
    /// `operation_duration` bound to each attribute set seen so far.
    pub(crate) operations: BoundSamples,
    pub(crate) session_duration: Histogram<f64>,
    /// The server's own requests to the client, as the conventions' client histogram.
    pub(crate) client_duration: Histogram<f64>,
    // The gauges are counted in atomics and observed when metrics are collected: a request
    // pays two atomic adds instead of two aggregations of an up-down counter.
    pub(crate) active_requests: Arc<Live>,
    pub(crate) active_sessions: Arc<Live>,
    pub(crate) active_tasks: Arc<AtomicI64>,
    pub(crate) listen_streams: Arc<AtomicI64>,
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
pub(crate) struct Live {
    pipe: AtomicI64,
    tcp: AtomicI64,
}

impl Live {
    pub(crate) fn add(&self, transport: &str, n: i64) {
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
    /// use ferromcp_otel::{Prometheus, Telemetry};
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
        let live = |name, unit, description| live_gauge(&meter, name, unit, description);
        let count = |name, unit, description| count_gauge(&meter, name, unit, description);
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

/// An up-down counter of live things per `network.transport`, observed from the atomics
/// returned when metrics are collected.
fn live_gauge(
    meter: &Meter,
    name: &'static str,
    unit: &'static str,
    description: &'static str,
) -> Arc<Live> {
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
}

/// An up-down counter of live things, observed from the atomic returned.
fn count_gauge(
    meter: &Meter,
    name: &'static str,
    unit: &'static str,
    description: &'static str,
) -> Arc<AtomicI64> {
    let count = Arc::new(AtomicI64::new(0));
    let observed = count.clone();
    meter
        .i64_observable_up_down_counter(name)
        .with_unit(unit)
        .with_description(description)
        .with_callback(move |gauge| gauge.observe(observed.load(Ordering::Relaxed), &[]))
        .build();
    count
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

/// The current OpenTelemetry context when it has a span (the request's, or the caller's
/// from its `_meta`) whose trace context a message the server sends should carry.
pub(crate) fn trace_context() -> Option<Context> {
    let context = Context::current();
    context.span().span_context().is_valid().then_some(context)
}

/// The trace context of `context` (`traceparent`, and `tracestate` when not empty) as
/// `_meta` members, as a request's `_meta` brings it in: so a client's tracing links a
/// server-to-client request or notification to the server span it came from.
pub(crate) fn meta_of(context: &Context) -> Meta {
    let mut meta = Meta::new();
    TraceContextPropagator::new().inject_context(context, &mut MetaInjector(&mut meta));
    meta
}

/// Writes propagated fields into a `_meta` object.
pub(crate) struct MetaInjector<'a>(&'a mut serde_json::Map<String, serde_json::Value>);

impl opentelemetry::propagation::Injector for MetaInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0
            .insert(key.to_owned(), serde_json::Value::String(value));
    }
}
