//! [`Otel`]: the providers, exporters and observer a server's telemetry is made of, as the
//! `OTEL_*` variables configure them.

use std::sync::Arc;

use ferromcp::observe::{
    ClientRequestInfo, ClientRequestObserver, Guard, Meta, Observer, RequestInfo, SessionInfo,
    Tracing, Watch,
};
use opentelemetry_sdk::error::OTelSdkError;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanExporter};

use crate::{Prometheus, Telemetry};

/// Why [`Otel`] could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtelError {
    /// An OTLP exporter could not be built from the `OTEL_*` variables (an unknown
    /// protocol, a bad header, a transport this build lacks).
    #[error("the OTLP exporter could not be built")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
    /// Flushing or shutting down the providers failed.
    #[error("the telemetry could not be flushed or shut down")]
    Sdk(#[from] OTelSdkError),
}

/// A server's OpenTelemetry: tracer and meter providers exporting over OTLP, and the
/// observer recording into them. Give it to
/// [`ServerBuilder::observer`](ferromcp::ServerBuilder::observer); it keeps the default
/// `tracing` spans and events ([`Tracing`]) as well.
///
/// [`from_env`](Self::from_env) reads the standard variables: traces are exported when
/// `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and
/// `OTEL_TRACES_EXPORTER` is not `none`), metrics likewise (`…_METRICS_ENDPOINT`,
/// `OTEL_METRICS_EXPORTER`); `OTEL_SDK_DISABLED=true` turns both off. The OTLP exporter
/// reads the rest itself (`OTEL_EXPORTER_OTLP_PROTOCOL`, `…_HEADERS`, `…_TIMEOUT`,
/// `…_COMPRESSION`, `…_METRICS_TEMPORALITY_PREFERENCE`), as do the SDK's batch span processor
/// (`OTEL_BSP_*`) and periodic metric reader (`OTEL_METRIC_EXPORT_INTERVAL`). With nothing
/// set, nothing is recorded and the observer is [`Tracing`]'s alone.
///
/// Cheap to clone; the providers are shut down, what they buffer exported, by
/// [`shutdown`](Self::shutdown) or when the last clone is dropped.
///
/// # Examples
///
/// ```
/// use ferromcp::ServerBuilder;
///
/// let otel = ferromcp_otel::Otel::from_env()?;
/// let server = ServerBuilder::new("demo", "1.0.0").observer(otel.clone()).build();
/// # let _ = server;
/// otel.shutdown()?;
/// # Ok::<(), ferromcp_otel::OtelError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Otel {
    inner: Option<Arc<Providers>>,
}

#[derive(Debug)]
struct Providers {
    /// The default observer and this one: a request is told to both without cloning.
    observer: (Tracing, Telemetry),
    tracers: SdkTracerProvider,
    meters: SdkMeterProvider,
}

/// Whether the variables ask for one signal's export.
fn exports(signal: &str) -> bool {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let upper = signal.to_ascii_uppercase();
    !var("OTEL_SDK_DISABLED").trim().eq_ignore_ascii_case("true")
        && !var(&format!("OTEL_{upper}_EXPORTER"))
            .trim()
            .eq_ignore_ascii_case("none")
        && (set("OTEL_EXPORTER_OTLP_ENDPOINT")
            || set(&format!("OTEL_EXPORTER_OTLP_{upper}_ENDPOINT")))
}

impl Otel {
    /// OTLP export as the `OTEL_*` variables configure it (see [`Otel`]).
    ///
    /// # Errors
    ///
    /// [`OtelError::Exporter`] when the OTLP exporter cannot be built from them.
    pub fn from_env() -> Result<Otel, OtelError> {
        Otel::configure(None)
    }

    /// As [`from_env`](Self::from_env), and the metrics read by `prometheus` as well, so
    /// that they are recorded even when nothing is exported.
    ///
    /// # Errors
    ///
    /// [`OtelError::Exporter`] when the OTLP exporter cannot be built.
    pub fn from_env_with_prometheus(prometheus: &Prometheus) -> Result<Otel, OtelError> {
        Otel::configure(Some(prometheus))
    }

    fn configure(prometheus: Option<&Prometheus>) -> Result<Otel, OtelError> {
        let (traces, metrics) = (exports("traces"), exports("metrics"));
        if !traces && !metrics && prometheus.is_none() {
            return Ok(Otel::default());
        }
        let mut tracers = SdkTracerProvider::builder();
        if traces {
            tracers =
                tracers.with_batch_exporter(opentelemetry_otlp::SpanExporter::builder().build()?);
        }
        let mut meters = SdkMeterProvider::builder();
        if metrics {
            let exporter = opentelemetry_otlp::MetricExporter::builder().build()?;
            meters = meters.with_reader(PeriodicReader::builder(exporter).build());
        }
        if let Some(prometheus) = prometheus {
            meters = meters.with_reader(prometheus.reader());
        }
        Ok(Otel::with_providers(
            tracers.build(),
            meters.build(),
            traces,
        ))
    }

    /// Spans to `spans` (batched) and metrics to `metrics` (read periodically), whatever the
    /// environment says: for an exporter configured in code.
    ///
    /// # Examples
    ///
    /// ```
    /// use opentelemetry_sdk::metrics::InMemoryMetricExporter;
    /// use opentelemetry_sdk::trace::InMemorySpanExporter;
    ///
    /// let otel = ferromcp_otel::Otel::with_exporters(
    ///     InMemorySpanExporter::default(),
    ///     InMemoryMetricExporter::default(),
    /// );
    /// assert!(otel.telemetry().is_some());
    /// ```
    pub fn with_exporters(
        spans: impl SpanExporter + 'static,
        metrics: impl PushMetricExporter,
    ) -> Otel {
        let tracers = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .build();
        let meters = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metrics).build())
            .build();
        Otel::with_providers(tracers, meters, true)
    }

    fn with_providers(tracers: SdkTracerProvider, meters: SdkMeterProvider, spans: bool) -> Otel {
        let telemetry = if spans {
            Telemetry::new(&tracers, &meters)
        } else {
            Telemetry::metrics_only(&meters)
        };
        Otel {
            inner: Some(Arc::new(Providers {
                observer: (Tracing, telemetry),
                tracers,
                meters,
            })),
        }
    }

    /// The observer recording into the providers: `None` when nothing is recorded.
    pub fn telemetry(&self) -> Option<Telemetry> {
        self.inner.as_ref().map(|p| p.observer.1.clone())
    }

    /// Exports what the providers buffer now.
    ///
    /// # Errors
    ///
    /// [`OtelError::Sdk`] when an export fails.
    pub fn force_flush(&self) -> Result<(), OtelError> {
        if let Some(p) = &self.inner {
            p.tracers.force_flush()?;
            p.meters.force_flush()?;
        }
        Ok(())
    }

    /// Exports what the providers buffer and shuts them down: later spans and metrics are
    /// dropped.
    ///
    /// # Errors
    ///
    /// [`OtelError::Sdk`] when an export fails or the providers were shut down already.
    pub fn shutdown(&self) -> Result<(), OtelError> {
        if let Some(p) = &self.inner {
            let traces = p.tracers.shutdown();
            p.meters.shutdown()?;
            traces?;
        }
        Ok(())
    }

    fn telemetry_ref(&self) -> Option<&Telemetry> {
        self.inner.as_ref().map(|p| &p.observer.1)
    }
}

impl Observer for Otel {
    fn on_request(&self, request: &RequestInfo<'_>) -> Watch {
        match &self.inner {
            Some(p) => p.observer.on_request(request),
            None => Tracing.on_request(request),
        }
    }

    fn on_session(&self, session: &SessionInfo) -> Option<Guard> {
        self.telemetry_ref()?.on_session(session)
    }

    fn on_task(&self) -> Option<Guard> {
        self.telemetry_ref()?.on_task()
    }

    fn on_listen(&self) -> Option<Guard> {
        self.telemetry_ref()?.on_listen()
    }

    fn on_client_request(
        &self,
        request: &ClientRequestInfo<'_>,
    ) -> Option<Box<dyn ClientRequestObserver>> {
        self.telemetry_ref()?.on_client_request(request)
    }

    fn message_meta(&self) -> Option<Meta> {
        self.telemetry_ref()?.message_meta()
    }
}
