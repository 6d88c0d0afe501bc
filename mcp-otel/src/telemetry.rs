//! [`Telemetry`]: the observer that owns a server's instruments and records its requests,
//! sessions, tasks and listen streams with them.

use std::sync::Arc;

use opentelemetry::metrics::MeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

use ferromcp::observe::{
    ClientRequestInfo, ClientRequestObserver, Guard, Meta, Observer, RequestInfo, SessionInfo,
    Transport, Watch,
};

use crate::client::{OutgoingTelemetry, SessionTelemetry};
use crate::instruments::{Counted, Instruments};
use crate::propagation::{meta_of, trace_context};
use crate::request::{Metrics, RequestTelemetry};

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
    inner: Arc<Instruments>,
    /// What every request without a span records, per transport: `pipe`, then `tcp`.
    metrics: [Arc<Metrics>; 2],
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
        let inner = Arc::new(Instruments::new(tracers, meters));
        Telemetry {
            metrics: [Metrics::new(&inner, "pipe"), Metrics::new(&inner, "tcp")],
            inner,
        }
    }
}

impl Observer for Telemetry {
    fn on_request(&self, request: &RequestInfo<'_>) -> Watch {
        // Metrics alone, and no trace context to make current: nothing of the request's own.
        if self.inner.tracer.is_none() && request.meta("traceparent").is_none() {
            let metrics = match request.transport() {
                Transport::Pipe => &self.metrics[0],
                _ => &self.metrics[1],
            };
            return Watch::shared(metrics.start());
        }
        Watch::owned(RequestTelemetry::start(&self.inner, request))
    }

    fn on_session(&self, session: &SessionInfo) -> Option<Guard> {
        Some(Box::new(SessionTelemetry::start(
            &self.inner,
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
        Some(Box::new(OutgoingTelemetry::start(
            &self.inner,
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
