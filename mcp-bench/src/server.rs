//! `mcp-bench serve`: this SDK's side of the comparison — the same two tools every peer
//! implements (`echo`, `add`), written the way a user would write them.

use mcp_server::http::HttpOptions;
use mcp_server::prelude::*;

/// The benchmark server.
pub struct Bench;

#[mcp_server::server(name = "mcp-bench")]
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

/// Serves stdio, or Streamable HTTP at `addr` (`sse`: every response as an SSE stream;
/// `auth_issuer`: bearer tokens from this issuer, for `http://ADDR/mcp`, checked by
/// `AuthLayer` with a `JwtValidator`; `redis`: legacy sessions shared through this Redis;
/// `otel`: OpenTelemetry spans and metrics, recorded by the SDK with no exporter, metrics read
/// by a Prometheus reader).
pub async fn serve(
    addr: Option<String>,
    sse: bool,
    auth_issuer: Option<String>,
    redis: Option<String>,
    otel: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = Server::with_handler(Bench);
    if otel {
        use mcp_server::otel::{Prometheus, Telemetry};
        let tracers = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
        let meters = opentelemetry_sdk::metrics::SdkMeterProvider::builder()
            .with_reader(Prometheus::new().reader())
            .build();
        builder = builder.telemetry(Telemetry::new(&tracers, &meters));
    }
    let server = builder.build()?;
    match addr {
        None => server.serve_stdio().await?,
        Some(addr) => {
            let mut options = HttpOptions::default().sse_responses(sse);
            if let Some(issuer) = auth_issuer {
                use mcp_server::auth::{AuthConfig, AuthLayer, JwtValidator};
                let config = AuthConfig::new(format!("http://{addr}/mcp"), &issuer)?;
                options = options.auth(AuthLayer::new(config, JwtValidator::new(&issuer)?));
            }
            if let Some(url) = redis {
                let store = mcp_server::http::RedisSessionStore::connect(&url).await?;
                options = options.shared_sessions(std::sync::Arc::new(store));
            }
            server
                .serve_http_with(addr.as_str(), options, mcp_server::http::shutdown_signal())
                .await?;
        }
    }
    Ok(())
}
