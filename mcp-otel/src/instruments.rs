//! A server's instruments: its tracer, its duration histograms, and the live counts its
//! gauges observe.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use opentelemetry::metrics::{Histogram, Meter, MeterProvider};
use opentelemetry::trace::TracerProvider;
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

use crate::series::SeriesMap;

/// The bucket boundaries the conventions give both MCP duration histograms, in seconds.
pub(crate) const DURATION_BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// A server's tracer, histograms and gauges, shared by the observer (`Telemetry`) and the
/// requests and sessions it records.
pub(crate) struct Instruments {
    /// `None`: metrics only, no spans (`Telemetry::metrics_only`).
    pub(crate) tracer: Option<SdkTracer>,
    pub(crate) propagator: TraceContextPropagator,
    pub(crate) operation_duration: Histogram<f64>,
    /// `operation_duration`'s series, bound to each attribute set seen so far.
    pub(crate) operations: SeriesMap,
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
    pub(crate) fn new(count: &Arc<AtomicI64>) -> Counted {
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

impl Instruments {
    /// The instruments from these providers, under the instrumentation scope of this crate
    /// (with its version); no tracer, no spans.
    pub(crate) fn new(
        tracers: Option<&SdkTracerProvider>,
        meters: &impl MeterProvider,
    ) -> Instruments {
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
        Instruments {
            tracer: tracers.map(|t| t.tracer_with_scope(scope)),
            propagator: TraceContextPropagator::new(),
            operation_duration: histogram(
                "mcp.server.operation.duration",
                "MCP request duration as observed on the server, from its receipt until its result or error is sent.",
            ),
            operations: SeriesMap::default(),
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
