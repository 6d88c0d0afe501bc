//! `mcp-bench serve`: this SDK's side of the comparison — the same two tools every peer
//! implements (`echo`, `add`), written the way a user would write them.

use ferromcp::http::HttpOptions;
use ferromcp::observe::Tracing;
use ferromcp::prelude::*;

/// The benchmark server.
pub struct Bench;

#[ferromcp::server(name = "mcp-bench")]
impl Bench {
    /// Returns the text unchanged.
    #[tool(read_only, idempotent)]
    fn echo(&self, text: String) -> String {
        text
    }

    /// Adds two integers.
    #[tool(read_only, idempotent)]
    fn add(&self, a: i64, b: i64) -> String {
        a.wrapping_add(b).to_string()
    }
}

/// The soak server (`serve --soak`): the benchmark's two tools, a tool that reports
/// progress step by step (long enough to be cancelled or cut off mid-stream), and a `marker`
/// tool that a ticker disables and enables again, so that list-changed notifications flow to
/// `subscriptions/listen` streams and legacy GET streams.
pub struct Soak;

#[ferromcp::server(name = "mcp-bench-soak")]
impl Soak {
    /// Returns the text unchanged.
    #[tool(read_only, idempotent)]
    fn echo(&self, text: String) -> String {
        text
    }

    /// Adds two integers.
    #[tool(read_only, idempotent)]
    fn add(&self, a: i64, b: i64) -> String {
        a.wrapping_add(b).to_string()
    }

    /// Counts `n` steps (at most 1,000), `delay_ms` (at most 1,000) apart, reporting
    /// progress after each; answers `"<n> steps"`.
    #[tool(read_only)]
    async fn steps(&self, ctx: Context, n: u32, delay_ms: u64) -> Result<String, &'static str> {
        if n > 1_000 || delay_ms > 1_000 {
            return Err("at most 1000 steps, 1000 ms apart");
        }
        for i in 1..=n {
            ctx.progress(f64::from(i), Some(f64::from(n)), None).await;
            tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
        }
        Ok(format!("{n} steps"))
    }

    /// Does nothing: the ticker toggles it to change the tool list.
    #[tool(read_only, idempotent)]
    fn marker(&self) -> &'static str {
        "marker"
    }
}

/// Serves the soak server on stdio, or over Streamable HTTP at `addr`; every `tick` the
/// `marker` tool is disabled or enabled again (a `tools/list_changed` each time), and every
/// ten ticks the runtime's live task count goes to stderr as `soak-tasks pid=P alive=N`
/// (what `scripts/soak.sh` samples).
pub async fn serve_soak(
    addr: Option<String>,
    tick: std::time::Duration,
) -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder(Soak).build()?;
    let registry = server.clone();
    let ticker = tokio::spawn(async move {
        let mut interval = tokio::time::interval(tick);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut enabled = true;
        let pid = std::process::id();
        for n in 0u64.. {
            interval.tick().await;
            if n % 10 == 0 {
                let alive = tokio::runtime::Handle::current()
                    .metrics()
                    .num_alive_tasks();
                // One write: the stdio servers share the driver's stderr.
                let line = format!("soak-tasks pid={pid} alive={alive}\n");
                let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
            }
            if enabled {
                registry.registry().disable_tool("marker");
            } else {
                registry.registry().enable_tool("marker");
            }
            enabled = !enabled;
        }
    });
    let served = match addr {
        None => server.serve_stdio().await,
        Some(addr) => server.serve_http(addr.as_str()).await,
    };
    ticker.abort();
    Ok(served?)
}

/// What `serve` does with OpenTelemetry.
pub enum Observe {
    /// No telemetry.
    Nothing,
    /// Spans and metrics recorded by the SDK with no exporter, metrics read by a Prometheus
    /// reader: the whole cost of the instrumentation short of exporting.
    Recorded,
    /// Metrics only, read by a Prometheus reader (`Otel::from_env_with_prometheus` with no
    /// OTLP endpoint set).
    Metrics,
    /// Spans and metrics exported over OTLP as the `OTEL_*` variables say.
    Exported,
}

/// Serves stdio, or Streamable HTTP at `addr` (`sse`: every response as an SSE stream;
/// `auth_issuer`: bearer tokens from this issuer, for `http://ADDR/mcp`, checked by
/// `AuthLayer` with a `JwtValidator`; `redis`: legacy sessions shared through this Redis;
/// `observe`: the telemetry).
pub async fn serve(
    addr: Option<String>,
    sse: bool,
    auth_issuer: Option<String>,
    redis: Option<String>,
    observe: Observe,
) -> Result<(), Box<dyn std::error::Error>> {
    use ferromcp_otel::{Otel, Prometheus, Telemetry};
    let endpoint = std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_some();
    let mut builder = Server::builder(Bench);
    // Kept until the server ends: dropping it exports what is still buffered.
    let mut exporters = None;
    match observe {
        Observe::Nothing => {}
        Observe::Recorded => {
            let tracers = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
            let meters = opentelemetry_sdk::metrics::SdkMeterProvider::builder()
                .with_reader(Prometheus::new().reader())
                .build();
            builder = builder.observer((Tracing, Telemetry::new(&tracers, &meters)));
        }
        Observe::Metrics => {
            if endpoint {
                return Err("--metrics: unset OTEL_EXPORTER_OTLP_ENDPOINT".into());
            }
            let o = Otel::from_env_with_prometheus(&Prometheus::new())?;
            builder = builder.observer(o.clone());
            exporters = Some(o);
        }
        Observe::Exported => {
            if !endpoint {
                return Err(
                    "--otlp: set OTEL_EXPORTER_OTLP_ENDPOINT (e.g. to `mcp-bench otlp-sink`)"
                        .into(),
                );
            }
            let o = Otel::from_env()?;
            builder = builder.observer(o.clone());
            exporters = Some(o);
        }
    }
    let server = builder.build()?;
    match addr {
        None => server.serve_stdio().await?,
        Some(addr) => {
            let mut options = HttpOptions::default().sse_responses(sse);
            if let Some(issuer) = auth_issuer {
                use ferromcp::auth::{AuthConfig, AuthLayer, JwtValidator};
                let config = AuthConfig::new(format!("http://{addr}/mcp"), &issuer)?;
                options = options.auth(AuthLayer::new(config, JwtValidator::new(&issuer)?));
            }
            if let Some(url) = redis {
                let sessions = ferromcp_redis::RedisSessionStore::connect(&url).await?;
                let events = ferromcp_redis::RedisEventStore::connect(&url).await?;
                options = options
                    .session_store(std::sync::Arc::new(sessions))
                    .event_store(std::sync::Arc::new(events));
            }
            server.serve_http(addr.as_str()).options(options).await?;
        }
    }
    if let Some(exporters) = exporters {
        exporters.shutdown()?;
    }
    Ok(())
}
