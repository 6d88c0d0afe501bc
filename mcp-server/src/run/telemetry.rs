//! Telemetry for [`run`](crate::run()): with feature `otlp`, OTLP export as the `OTEL_*`
//! variables configure it and `--metrics ADDR`; without it, nothing. Every `otlp` condition
//! of the run module is in this file.

use super::RunError;
use crate::ServerBuilder;

/// `--metrics ADDR`.
#[cfg(feature = "otlp")]
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct TelemetryArgs {
    /// Serve Prometheus metrics text at http://ADDR/metrics
    #[arg(long, value_name = "ADDR")]
    metrics: Option<String>,
}

/// No flags without feature `otlp`.
#[cfg(not(feature = "otlp"))]
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct TelemetryArgs {}

/// The exporters while the server runs; dropping the last clone exports what is buffered.
#[derive(Debug, Clone)]
pub(super) struct Telemetry {
    #[cfg(feature = "otlp")]
    otel: std::sync::Arc<crate::otel::Otel>,
}

impl TelemetryArgs {
    /// Starts the exporters the environment and the flags ask for.
    #[cfg(feature = "otlp")]
    pub(super) async fn start(&self) -> Result<Telemetry, RunError> {
        let otel = crate::otel::Otel::from_env_serving_metrics(self.metrics.as_deref())
            .await
            .map_err(|e| RunError::Telemetry(e.into()))?;
        Ok(Telemetry {
            otel: std::sync::Arc::new(otel),
        })
    }

    /// Nothing to start without feature `otlp`.
    #[cfg(not(feature = "otlp"))]
    #[allow(clippy::unused_async)]
    pub(super) async fn start(&self) -> Result<Telemetry, RunError> {
        Ok(Telemetry {})
    }
}

impl Telemetry {
    /// `builder` reporting to these exporters.
    pub(super) fn apply<H>(&self, builder: ServerBuilder<H>) -> ServerBuilder<H> {
        #[cfg(feature = "otlp")]
        return builder.telemetry(self.otel.telemetry());
        #[cfg(not(feature = "otlp"))]
        builder
    }
}
