//! OTLP export (HTTP/protobuf or gRPC) configured by the standard `OTEL_*` environment
//! variables (feature `otlp`).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::BodyExt as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tokio_util::sync::CancellationToken;

use super::batch::{BatchSettings, SpanBatcher};
use super::{Prometheus, Telemetry};

/// The OTLP exporters' default timeout, as the specification gives it.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest response body the client reads from a collector.
const MAX_RESPONSE_BODY: usize = 4 * 1024 * 1024;

/// A failed exchange with a collector, its causes included.
type HttpError = Box<dyn std::error::Error + Send + Sync>;

/// A configuration read from the environment that cannot be used, or an exporter that could
/// not be started. The message names the variable and says what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtelError {
    /// A setting holds a value this exporter does not support.
    #[error("{name}: `{value}` is not supported (give {expected})")]
    Unsupported {
        /// The variable (or setting) at fault.
        name: String,
        /// Its value.
        value: String,
        /// What it may hold.
        expected: &'static str,
    },
    /// A setting's value is malformed.
    #[error("{name}: `{value}` is not {expected}")]
    Invalid {
        /// The variable (or setting) at fault.
        name: String,
        /// Its value.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A variable's value is not valid UTF-8.
    #[error("{name}: the value is not valid UTF-8")]
    NotUnicode {
        /// The variable at fault.
        name: String,
    },
    /// One of the client certificate and its key is given without the other.
    #[error("{name} is set without its pair: give both the client certificate and its key")]
    Unpaired {
        /// The variable that is set.
        name: String,
    },
    /// No endpoint is set for a signal that is exported.
    #[error("no {signal} endpoint is set")]
    NoEndpoint {
        /// `traces` or `metrics`.
        signal: &'static str,
    },
    /// A file named by a variable cannot be read.
    #[error("{name}: cannot read `{path}`")]
    File {
        /// The variable naming the file.
        name: String,
        /// The file.
        path: String,
        /// Why it cannot be read.
        #[source]
        source: std::io::Error,
    },
    /// A file named by a variable does not hold what it should (PEM certificates or a key).
    #[error("{name}: the file holds no {expected}")]
    Pem {
        /// The variable naming the file.
        name: String,
        /// What it should hold.
        expected: &'static str,
        /// What the parser said, if anything.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// An `https://` collector, and no trusted roots: the system has none readable.
    #[error("an https:// collector, and no trusted roots: give OTEL_EXPORTER_OTLP_CERTIFICATE")]
    NoTrustedRoots,
    /// The TLS client could not be configured (the protocol versions, or the client
    /// certificate and key).
    #[error("the TLS client could not be configured")]
    Tls(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The export thread could not be started, or is gone.
    #[error("the OTLP export thread is not running")]
    ExportThread(#[source] Option<std::io::Error>),
    /// The metrics address cannot be listened on.
    #[error("cannot serve metrics on {address}")]
    MetricsAddress {
        /// The address asked for.
        address: String,
        /// Why it cannot be listened on.
        #[source]
        source: std::io::Error,
    },
}

/// A server's telemetry as the standard `OTEL_*` environment variables configure it, and the
/// guard of its exporters: dropping it (or [`shutdown`](Self::shutdown)) exports what is
/// still buffered and stops them.
///
/// [`Otel::from_env`] exports spans (batched) and metrics (periodically) over OTLP,
/// HTTP/protobuf or gRPC, when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the per-signal
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`) is set, and
/// does nothing when none is: [`telemetry`](Self::telemetry) is then `None`, and the server
/// pays nothing for telemetry.
///
/// | variable | effect |
/// |---|---|
/// | `OTEL_EXPORTER_OTLP_ENDPOINT` | base URL (`http://collector:4318`); over HTTP `/v1/traces` and `/v1/metrics` are appended, gRPC uses it as given (`http://collector:4317`) |
/// | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` | one signal's full URL, used as given |
/// | `OTEL_EXPORTER_OTLP_HEADERS` (and `_TRACES_` / `_METRICS_`) | `key=value,…` request headers, or gRPC metadata (values percent-decoded) |
/// | `OTEL_EXPORTER_OTLP_TIMEOUT` (and `_TRACES_` / `_METRICS_`) | milliseconds per export, its retries included (default 10000) |
/// | `OTEL_EXPORTER_OTLP_PROTOCOL` (and `_TRACES_` / `_METRICS_`) | `http/protobuf` (the default) or `grpc`; `http/json` is refused |
/// | `OTEL_EXPORTER_OTLP_CERTIFICATE` (and `_TRACES_` / `_METRICS_`) | `https://` endpoints: a PEM file of trusted roots, in place of the system's |
/// | `OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE`, `OTEL_EXPORTER_OTLP_CLIENT_KEY` (and per signal) | `https://` endpoints: a PEM certificate chain and key for mutual TLS (both or neither) |
/// | `OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER` | `otlp` (default) or `none` |
/// | `OTEL_SDK_DISABLED` | `true`: nothing is exported (any other value is false) |
/// | `OTEL_EXPORTER_OTLP_COMPRESSION` (and `_TRACES_` / `_METRICS_`) | `gzip` or `none` (the default) |
/// | `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` | the resource (the SDK reads them) |
/// | `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` | span batching, by the SDK's rules: milliseconds a span waits at most (5000), spans waiting at most (2048; more are dropped), spans per export (512) |
/// | `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE` | `cumulative` (default), `delta` or `lowmemory` |
/// | `OTEL_METRIC_EXPORT_INTERVAL` | milliseconds between metric exports (the SDK reads it; default 60000) |
/// | `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG` | the sampler (the SDK reads them) |
///
/// Requests go over HTTP/1.1, or HTTP/2 for gRPC, in the clear to `http://` endpoints and over
/// TLS (rustls) to `https://` ones. Transient failures (no connection, HTTP 429/502/503/504,
/// gRPC `UNAVAILABLE` and the like) are retried with a jittered exponential backoff, or
/// after the pause the collector names, within the timeout (docs/observability.md).
/// Exports run on a thread of their own (a small runtime for the sockets and the span
/// batches, and the SDK's periodic metrics worker), so they work whatever runtime, if any,
/// the application uses. The protobuf is written by this crate straight from the SDK's
/// data; each span when it ends, on the thread that ends it.
///
/// # Examples
///
/// ```no_run
/// use ferromcp::otel::Otel;
/// use ferromcp::prelude::*;
///
/// struct Demo;
///
/// #[ferromcp::server]
/// impl Demo {
///     /// Adds two integers.
///     #[tool]
///     fn add(&self, a: i64, b: i64) -> i64 {
///         a + b
///     }
/// }
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let otel = Otel::from_env()?;
/// let server = Server::builder(Demo).telemetry(otel.telemetry()).build()?;
/// server.serve_stdio().await?;
/// otel.shutdown()?; // or let it drop
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Otel {
    telemetry: Option<Telemetry>,
    tracers: Option<SdkTracerProvider>,
    meters: Option<SdkMeterProvider>,
    runtime: Option<ExportRuntime>,
    exports: Config,
    #[cfg(feature = "http")]
    metrics: Option<MetricsServer>,
}

#[cfg(feature = "http")]
#[derive(Debug)]
struct MetricsServer {
    addr: std::net::SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Otel {
    /// OTLP export as the environment configures it (see the table above); nothing when
    /// no endpoint is set or `OTEL_SDK_DISABLED=true`.
    ///
    /// # Errors
    ///
    /// A variable has a value that cannot be used (an endpoint that is not an `http://` or
    /// `https://` URL, a timeout that is not a number of milliseconds, an unsupported
    /// protocol, a malformed header list, a certificate or key file that cannot be read or
    /// parsed, …), or the export thread could not be started.
    pub fn from_env() -> Result<Otel, OtelError> {
        Otel::configure(None)
    }

    /// As [`from_env`](Self::from_env), and the metrics are also read by `prometheus` (for a
    /// `/metrics` route), so the telemetry is on even when nothing is exported.
    ///
    /// # Errors
    ///
    /// As for [`from_env`](Self::from_env).
    pub fn from_env_with_prometheus(prometheus: &Prometheus) -> Result<Otel, OtelError> {
        Otel::configure(Some(prometheus))
    }

    /// The telemetry to give the server ([`ServerBuilder::telemetry`](crate::ServerBuilder::telemetry)):
    /// `None` when nothing reads it.
    pub fn telemetry(&self) -> Option<Telemetry> {
        self.telemetry.clone()
    }

    /// Whether spans are exported over OTLP.
    pub fn exports_traces(&self) -> bool {
        self.exports.traces
    }

    /// Whether metrics are exported over OTLP.
    pub fn exports_metrics(&self) -> bool {
        self.exports.metrics
    }

    /// Exports what is buffered (spans not sent yet, the metrics' last values) and stops
    /// the exporters, waiting for those last exports (each at most its timeout). Dropping
    /// the value does the same and ignores errors.
    ///
    /// # Errors
    ///
    /// An export failed or timed out (the collector is unreachable, or refused the data).
    pub fn shutdown(mut self) -> Result<(), OTelSdkError> {
        self.stop()
    }

    fn stop(&mut self) -> Result<(), OTelSdkError> {
        #[cfg(feature = "http")]
        if let Some(metrics) = self.metrics.take() {
            metrics.task.abort();
        }
        // An export pausing between attempts gives up, and the final ones make one attempt:
        // shutting down does not wait out a collector that is down.
        if let Some(runtime) = &self.runtime {
            runtime.stopping.cancel();
        }
        let traces = self.tracers.take().map(|t| t.shutdown()).unwrap_or(Ok(()));
        let metrics = self.meters.take().map(|m| m.shutdown()).unwrap_or(Ok(()));
        // The runtime goes last: the final exports above need it.
        if let Some(runtime) = self.runtime.take() {
            runtime.stop();
        }
        traces.and(metrics)
    }

    fn configure(prometheus: Option<&Prometheus>) -> Result<Otel, OtelError> {
        let env = Env::process();
        let config = Config::read(&env)?;
        let mut otel = Otel {
            telemetry: None,
            tracers: None,
            meters: None,
            runtime: None,
            exports: config,
            #[cfg(feature = "http")]
            metrics: None,
        };
        if !config.traces && !config.metrics && prometheus.is_none() {
            return Ok(otel);
        }
        let handle = if config.traces || config.metrics {
            let runtime = ExportRuntime::start().map_err(|e| OtelError::ExportThread(Some(e)))?;
            let handle = (runtime.handle.clone(), runtime.stopping.clone());
            otel.runtime = Some(runtime);
            Some(handle)
        } else {
            None
        };
        // Each signal's client, with its own timeout and TLS settings.
        let client = |signal: Signal,
                      timeout: Duration,
                      transport: Transport|
         -> Result<Arc<HyperClient>, OtelError> {
            let (runtime, stopping) = handle.clone().ok_or(OtelError::ExportThread(None))?;
            let tls = match endpoint_of(&env, signal, transport)? {
                Some(url) if is_https(&url) => {
                    Some(TlsFiles::read(&env, signal)?.connector(transport)?)
                }
                _ => None,
            };
            Ok(Arc::new(HyperClient {
                runtime,
                timeout,
                tls,
                stopping,
            }))
        };
        let resource = Resource::builder().build();
        let mut tracers = SdkTracerProvider::builder().with_resource(resource.clone());
        if config.traces {
            let transport = config.traces_protocol;
            let client = client(Signal::Traces, config.traces_timeout, transport)?;
            let runtime = client.runtime.clone();
            let exporter = Exporter::new(
                client,
                transport,
                Signal::Traces,
                Temporality::Cumulative,
                config.traces_gzip,
                &env,
            )?;
            tracers = tracers.with_span_processor(SpanBatcher::new(
                exporter,
                BatchSettings::read(&env)?,
                &runtime,
            ));
        }
        let mut meters = SdkMeterProvider::builder().with_resource(resource);
        if config.metrics {
            let transport = config.metrics_protocol;
            meters = meters.with_reader(
                PeriodicReader::builder(Exporter::new(
                    client(Signal::Metrics, config.metrics_timeout, transport)?,
                    transport,
                    Signal::Metrics,
                    config.metrics_temporality,
                    config.metrics_gzip,
                    &env,
                )?)
                .build(),
            );
        }
        if let Some(prometheus) = prometheus {
            meters = meters.with_reader(prometheus.reader());
        }
        let tracers = tracers.build();
        let meters = meters.build();
        // No span exporter: no spans, which the SDK would record for nobody.
        otel.telemetry = Some(if config.traces {
            Telemetry::new(&tracers, &meters)
        } else {
            Telemetry::metrics_only(&meters)
        });
        otel.tracers = Some(tracers);
        otel.meters = Some(meters);
        Ok(otel)
    }
}

#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
impl Otel {
    /// As [`from_env`](Self::from_env), and with `metrics` (an address, as a `--metrics`
    /// flag gives it), serves the metrics in the Prometheus text format at
    /// `http://ADDR/metrics`: a listener of its own, apart from `/mcp`, on a task of the
    /// current runtime, stopped with the exporters. Once listening, it writes one line to
    /// stderr, `Prometheus metrics at http://127.0.0.1:9464/metrics` (port 0 shows the port
    /// chosen), as `serve_http` announces its URL.
    ///
    /// # Errors
    ///
    /// As for [`from_env`](Self::from_env), or the address cannot be bound.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use ferromcp::otel::Otel;
    ///
    /// let otel = Otel::from_env_serving_metrics(Some("127.0.0.1:9464")).await?;
    /// assert!(otel.telemetry().is_some());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn from_env_serving_metrics(metrics: Option<&str>) -> Result<Otel, OtelError> {
        let Some(addr) = metrics else {
            return Otel::from_env();
        };
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| OtelError::MetricsAddress {
                address: addr.to_string(),
                source,
            })?;
        let local = listener
            .local_addr()
            .map_err(|source| OtelError::MetricsAddress {
                address: addr.to_string(),
                source,
            })?;
        let prometheus = Prometheus::new();
        let mut otel = Otel::from_env_with_prometheus(&prometheus)?;
        let router = prometheus.router();
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router).await {
                tracing::warn!(error = %e, "the metrics listener failed");
            }
        });
        {
            use std::io::Write as _;
            // A closed stderr is no reason not to serve.
            let _ = writeln!(
                std::io::stderr().lock(),
                "Prometheus metrics at http://{local}/metrics"
            );
        }
        otel.metrics = Some(MetricsServer { addr: local, task });
        Ok(otel)
    }

    /// The address `/metrics` is served on, when it is.
    pub fn metrics_addr(&self) -> Option<std::net::SocketAddr> {
        self.metrics.as_ref().map(|m| m.addr)
    }
}

impl Drop for Otel {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// One variable's value: `None` when unset or empty.
type Lookup<'a> = Box<dyn Fn(&str) -> Result<Option<String>, OtelError> + 'a>;

/// The environment, as a lookup (tests give their own).
pub(crate) struct Env<'a>(Lookup<'a>);

impl<'a> Env<'a> {
    fn process() -> Env<'static> {
        Env(Box::new(|name| match std::env::var(name) {
            Ok(v) if v.trim().is_empty() => Ok(None),
            Ok(v) => Ok(Some(v)),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(OtelError::NotUnicode {
                name: name.to_owned(),
            }),
        }))
    }

    #[cfg(test)]
    pub(super) fn from_pairs(pairs: &'a [(&'a str, &'a str)]) -> Env<'a> {
        Env(Box::new(move |name| {
            Ok(pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
                .filter(|v| !v.trim().is_empty()))
        }))
    }

    pub(super) fn get(&self, name: &str) -> Result<Option<String>, OtelError> {
        (self.0)(name)
    }
}

/// What the environment asks for, checked. The exporters read the endpoints and headers
/// again themselves; they are checked here so that a bad value is an error rather than
/// ignored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Config {
    traces: bool,
    metrics: bool,
    traces_timeout: Duration,
    metrics_timeout: Duration,
    traces_protocol: Transport,
    metrics_protocol: Transport,
    /// `OTEL_EXPORTER_OTLP[_SIGNAL]_COMPRESSION`: `gzip` (true) or `none`.
    traces_gzip: bool,
    metrics_gzip: bool,
    /// `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`: `cumulative` (the default),
    /// `delta` or `lowmemory`, as the SDK applies them to each kind of instrument.
    metrics_temporality: Temporality,
}

/// How a signal is exported (`OTEL_EXPORTER_OTLP[_SIGNAL]_PROTOCOL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transport {
    /// `http/protobuf`: a protobuf body posted to `/v1/<signal>` over HTTP/1.1.
    HttpProtobuf,
    /// `grpc`: the collector's `Export` call over HTTP/2 (feature `otlp-grpc`; without it,
    /// reading the configuration refuses `grpc`).
    #[cfg(feature = "otlp-grpc")]
    Grpc,
}

impl Config {
    pub(crate) fn read(env: &Env<'_>) -> Result<Config, OtelError> {
        // The specification: only `true` (in any case) disables; any other value is false,
        // with a warning.
        let disabled = match env.get("OTEL_SDK_DISABLED")? {
            None => false,
            Some(v) if v.trim().eq_ignore_ascii_case("true") => true,
            Some(v) if v.trim().eq_ignore_ascii_case("false") => false,
            Some(v) => {
                tracing::warn!(
                    value = v.as_str(),
                    "OTEL_SDK_DISABLED is neither `true` nor `false`: taken as false"
                );
                false
            }
        };
        let compression = compression_of(env, "OTEL_EXPORTER_OTLP_COMPRESSION")?.unwrap_or(false);
        let base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT")?;
        if let Some(url) = &base {
            check_endpoint("OTEL_EXPORTER_OTLP_ENDPOINT", url)?;
        }
        check_headers(env, "OTEL_EXPORTER_OTLP_HEADERS")?;
        let protocol =
            protocol_of(env, "OTEL_EXPORTER_OTLP_PROTOCOL")?.unwrap_or(Transport::HttpProtobuf);
        let timeout = timeout_of(env, "OTEL_EXPORTER_OTLP_TIMEOUT")?.unwrap_or(DEFAULT_TIMEOUT);
        let signal = |name: &str| -> Result<(bool, Duration, Transport, bool), OtelError> {
            let upper = name.to_ascii_uppercase();
            let endpoint_var = format!("OTEL_EXPORTER_OTLP_{upper}_ENDPOINT");
            let endpoint = env.get(&endpoint_var)?;
            if let Some(url) = &endpoint {
                check_endpoint(&endpoint_var, url)?;
            }
            check_headers(env, &format!("OTEL_EXPORTER_OTLP_{upper}_HEADERS"))?;
            let own_protocol = protocol_of(env, &format!("OTEL_EXPORTER_OTLP_{upper}_PROTOCOL"))?;
            let own_timeout = timeout_of(env, &format!("OTEL_EXPORTER_OTLP_{upper}_TIMEOUT"))?;
            let own_compression =
                compression_of(env, &format!("OTEL_EXPORTER_OTLP_{upper}_COMPRESSION"))?;
            let exporter_var = format!("OTEL_{upper}_EXPORTER");
            let wanted = match env.get(&exporter_var)?.as_deref().map(str::trim) {
                None | Some("otlp") => true,
                Some("none") => false,
                Some(other) => {
                    return Err(OtelError::Unsupported {
                        name: exporter_var,
                        value: other.to_owned(),
                        expected: "`otlp` or `none`",
                    });
                }
            };
            let on = !disabled && wanted && (endpoint.is_some() || base.is_some());
            Ok((
                on,
                own_timeout.unwrap_or(timeout),
                own_protocol.unwrap_or(protocol),
                own_compression.unwrap_or(compression),
            ))
        };
        let (traces, traces_timeout, traces_protocol, traces_gzip) = signal("traces")?;
        let (metrics, metrics_timeout, metrics_protocol, metrics_gzip) = signal("metrics")?;
        let var = "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE";
        let metrics_temporality = match env.get(var)? {
            None => Temporality::Cumulative,
            Some(v) => v.trim().parse().map_err(|()| OtelError::Unsupported {
                name: var.to_owned(),
                value: v.clone(),
                expected: "`cumulative`, `delta` or `lowmemory`",
            })?,
        };
        Ok(Config {
            traces,
            metrics,
            traces_timeout,
            metrics_timeout,
            traces_protocol,
            metrics_protocol,
            traces_gzip,
            metrics_gzip,
            metrics_temporality,
        })
    }
}

fn timeout_of(env: &Env<'_>, name: &str) -> Result<Option<Duration>, OtelError> {
    match env.get(name)? {
        None => Ok(None),
        Some(v) => match v.trim().parse::<u64>() {
            Ok(ms) if ms > 0 => Ok(Some(Duration::from_millis(ms))),
            _ => Err(OtelError::Invalid {
                name: name.to_owned(),
                value: v,
                expected: "a positive number of milliseconds",
            }),
        },
    }
}

/// `gzip` (true) or `none` (false), in any case; anything else is refused.
fn compression_of(env: &Env<'_>, name: &str) -> Result<Option<bool>, OtelError> {
    let Some(value) = env.get(name)? else {
        return Ok(None);
    };
    match value.trim() {
        v if v.eq_ignore_ascii_case("gzip") => Ok(Some(true)),
        v if v.eq_ignore_ascii_case("none") => Ok(Some(false)),
        _ => Err(OtelError::Unsupported {
            name: name.to_owned(),
            value,
            expected: "`gzip` or `none`",
        }),
    }
}

fn check_endpoint(name: &str, url: &str) -> Result<(), OtelError> {
    let uri: http::Uri = url.trim().parse().map_err(|_| OtelError::Invalid {
        name: name.to_owned(),
        value: url.to_owned(),
        expected: "a URL",
    })?;
    match uri.scheme_str() {
        Some("http" | "https") if uri.host().is_some_and(|h| !h.is_empty()) => Ok(()),
        _ => Err(OtelError::Invalid {
            name: name.to_owned(),
            value: url.to_owned(),
            expected: "an http:// or https:// URL with a host (e.g. http://localhost:4318)",
        }),
    }
}

fn protocol_of(env: &Env<'_>, name: &str) -> Result<Option<Transport>, OtelError> {
    match env.get(name)?.as_deref().map(str::trim) {
        None => Ok(None),
        Some("http/protobuf") => Ok(Some(Transport::HttpProtobuf)),
        #[cfg(feature = "otlp-grpc")]
        Some("grpc") => Ok(Some(Transport::Grpc)),
        #[cfg(not(feature = "otlp-grpc"))]
        Some("grpc") => Err(OtelError::Unsupported {
            name: name.to_owned(),
            value: "grpc".to_owned(),
            expected: "`http/protobuf`; `grpc` needs ferromcp's `otlp-grpc` feature",
        }),
        Some(other) => Err(OtelError::Unsupported {
            name: name.to_owned(),
            value: other.to_owned(),
            expected: "`http/protobuf` or `grpc`",
        }),
    }
}

/// Whether an endpoint is `https://`, the scheme in any case (RFC 3986).
fn is_https(url: &str) -> bool {
    url.trim()
        .parse::<http::Uri>()
        .is_ok_and(|uri| uri.scheme() == Some(&http::uri::Scheme::HTTPS))
}

/// `key=value` pairs separated by commas, as the specification gives them; the values are
/// percent-decoded.
fn check_headers(env: &Env<'_>, name: &str) -> Result<(), OtelError> {
    headers_of(env, name).map(drop)
}

fn headers_of(
    env: &Env<'_>,
    name: &str,
) -> Result<Vec<(http::HeaderName, http::HeaderValue)>, OtelError> {
    let Some(list) = env.get(name)? else {
        return Ok(Vec::new());
    };
    let mut headers = Vec::new();
    for pair in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || OtelError::Invalid {
            name: name.to_owned(),
            value: pair.to_owned(),
            expected: "a `key=value` header",
        };
        let (key, value) = pair.split_once('=').ok_or_else(bad)?;
        let key = http::HeaderName::from_bytes(key.trim().as_bytes()).map_err(|_| bad())?;
        let value =
            http::HeaderValue::from_bytes(&percent_decode(value.trim())).map_err(|_| bad())?;
        headers.push((key, value));
    }
    Ok(headers)
}

/// `%XX` escapes replaced by their byte; a `%` not followed by two hex digits is kept.
fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// A current-thread runtime on a thread of its own, for the exporters' sockets: the SDK
/// runs exports on its own threads, where no runtime is current.
#[derive(Debug)]
pub(super) struct ExportRuntime {
    handle: tokio::runtime::Handle,
    /// Cancelled as the exporters shut down: exports retry no more.
    stopping: CancellationToken,
    stop: tokio::sync::oneshot::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl ExportRuntime {
    fn start() -> std::io::Result<ExportRuntime> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("mcp-otlp".into())
            .spawn(move || {
                runtime.block_on(async {
                    let _ = stopped.await;
                });
                // Not a plain drop, which waits for every blocking task: a name lookup of an
                // export that timed out may still be stuck in the resolver.
                runtime.shutdown_timeout(Duration::from_millis(500));
            })?;
        Ok(ExportRuntime {
            handle,
            stopping: CancellationToken::new(),
            stop,
            thread,
        })
    }

    #[cfg(test)]
    pub(super) fn handle(&self) -> &tokio::runtime::Handle {
        &self.handle
    }

    fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.thread.join();
    }
}

/// A span exporter posting over HTTP to `url` on a runtime of its own, with `timeout` per
/// export, as `Otel` makes one.
#[cfg(test)]
pub(super) fn test_exporter(url: &str, timeout: Duration) -> (Exporter, ExportRuntime) {
    let runtime = ExportRuntime::start().unwrap();
    let client = Arc::new(HyperClient {
        runtime: runtime.handle.clone(),
        timeout,
        tls: None,
        stopping: runtime.stopping.clone(),
    });
    let pairs = [("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", url)];
    let exporter = Exporter::new(
        client,
        Transport::HttpProtobuf,
        Signal::Traces,
        Temporality::Cumulative,
        false,
        &Env::from_pairs(&pairs),
    )
    .unwrap();
    (exporter, runtime)
}

/// Spans or metrics over OTLP: each batch written as protobuf by
/// [`protobuf`](super::protobuf), posted to the signal's endpoint over HTTP, or sent as its
/// collector service's `Export` call over gRPC.
#[derive(Debug)]
pub(super) struct Exporter {
    client: Arc<HyperClient>,
    transport: Transport,
    signal: Signal,
    endpoint: http::Uri,
    headers: http::HeaderMap,
    /// The metrics' temporality.
    temporality: Temporality,
    /// Bodies are gzipped (`Content-Encoding: gzip`, or gRPC's `grpc-encoding: gzip`).
    gzip: bool,
    stopped: AtomicBool,
}

impl Exporter {
    fn new(
        client: Arc<HyperClient>,
        transport: Transport,
        signal: Signal,
        temporality: Temporality,
        gzip: bool,
        env: &Env<'_>,
    ) -> Result<Exporter, OtelError> {
        let endpoint = endpoint_of(env, signal, transport)?.ok_or(OtelError::NoEndpoint {
            signal: signal.name(),
        })?;
        let endpoint = endpoint.parse().map_err(|_| OtelError::Invalid {
            name: format!("the {} endpoint", signal.name()),
            value: endpoint.clone(),
            expected: "a URI",
        })?;
        let mut headers = http::HeaderMap::new();
        // The signal's own headers replace the general ones of the same name.
        for name in [
            "OTEL_EXPORTER_OTLP_HEADERS".to_owned(),
            format!("OTEL_EXPORTER_OTLP_{}_HEADERS", signal.upper()),
        ] {
            for (key, value) in headers_of(env, &name)? {
                headers.insert(key, value);
            }
        }
        if transport == Transport::HttpProtobuf {
            headers.insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/x-protobuf"),
            );
            if gzip {
                headers.insert(
                    http::header::CONTENT_ENCODING,
                    http::HeaderValue::from_static("gzip"),
                );
            }
        }
        Ok(Exporter {
            client,
            transport,
            signal,
            endpoint,
            headers,
            temporality,
            gzip,
            stopped: AtomicBool::new(false),
        })
    }

    /// Sends one export's body (again after a transient failure, within the timeout); a
    /// collector's partial success is logged.
    pub(super) async fn send(&self, body: Option<Bytes>) -> OTelSdkResult {
        let Some(mut body) = body else {
            return Err(OTelSdkError::AlreadyShutdown);
        };
        let what = self.signal.name();
        let failed =
            |e: HttpError| OTelSdkError::InternalFailure(format!("OTLP {what} export: {e}"));
        if self.gzip {
            body = Bytes::from(gzip(&body).map_err(|e| failed(e.into()))?);
        }
        let reply = self
            .client
            .export(Outgoing {
                transport: self.transport,
                uri: self.endpoint.clone(),
                headers: self.headers.clone(),
                body,
                #[cfg(feature = "otlp-grpc")]
                gzipped: self.gzip,
            })
            .await
            .map_err(failed)?;
        if let Some((rejected, message)) = super::protobuf::partial_success(&reply) {
            tracing::warn!(
                signal = what,
                rejected,
                message,
                "the collector rejected part of an export"
            );
        }
        Ok(())
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    pub(super) fn stop(&self) -> OTelSdkResult {
        self.stopped.store(true, Ordering::Release);
        Ok(())
    }

    /// The export runtime.
    pub(super) fn runtime(&self) -> &tokio::runtime::Handle {
        &self.client.runtime
    }

    /// How long one export may take, its retries included.
    pub(super) fn timeout(&self) -> Duration {
        self.client.timeout
    }
}

impl PushMetricExporter for Exporter {
    fn export(&self, metrics: &ResourceMetrics) -> impl Future<Output = OTelSdkResult> + Send {
        let body = (!self.stopped())
            .then(|| Bytes::from(super::protobuf::export_metrics_request(metrics)));
        self.send(body)
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        self.stop()
    }

    /// Cumulative unless the environment prefers otherwise.
    fn temporality(&self) -> Temporality {
        self.temporality
    }
}

/// One of the exported signals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signal {
    Traces,
    Metrics,
}

impl Signal {
    /// Its part of the variables' names (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`).
    fn upper(self) -> &'static str {
        match self {
            Signal::Traces => "TRACES",
            Signal::Metrics => "METRICS",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Signal::Traces => "span",
            Signal::Metrics => "metric",
        }
    }

    /// Its collector service's `Export` method, over gRPC.
    #[cfg(feature = "otlp-grpc")]
    fn grpc_method(self) -> &'static str {
        match self {
            Signal::Traces => "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
            Signal::Metrics => "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
        }
    }

    /// Its path under a base endpoint, over HTTP.
    fn path(self) -> &'static str {
        match self {
            Signal::Traces => "/v1/traces",
            Signal::Metrics => "/v1/metrics",
        }
    }
}

/// Where `signal` is sent. Over HTTP: its own endpoint as given, or the base endpoint with the
/// signal's path appended. Over gRPC: the scheme and authority of either, and the signal's
/// collector service method.
fn endpoint_of(
    env: &Env<'_>,
    signal: Signal,
    transport: Transport,
) -> Result<Option<String>, OtelError> {
    let own = env.get(&format!("OTEL_EXPORTER_OTLP_{}_ENDPOINT", signal.upper()))?;
    let (url, own) = match own {
        Some(url) => (url, true),
        None => match env.get("OTEL_EXPORTER_OTLP_ENDPOINT")? {
            Some(url) => (url, false),
            None => return Ok(None),
        },
    };
    let url = url.trim();
    Ok(Some(match transport {
        Transport::HttpProtobuf if own => url.to_owned(),
        Transport::HttpProtobuf => format!("{}{}", url.trim_end_matches('/'), signal.path()),
        #[cfg(feature = "otlp-grpc")]
        Transport::Grpc => {
            let uri = url.parse::<http::Uri>().map_err(|_| OtelError::Invalid {
                name: format!("the {} endpoint", signal.name()),
                value: url.to_owned(),
                expected: "a URI",
            })?;
            format!(
                "{}://{}{}",
                uri.scheme_str().unwrap_or("http"),
                uri.authority().map_or("", |a| a.as_str()),
                signal.grpc_method()
            )
        }
    }))
}

/// A signal's TLS settings for an `https://` collector, as the specification names them
/// (each `OTEL_EXPORTER_OTLP_<SIGNAL>_…` variable before the general one): the files read
/// and their PEM checked.
#[derive(Debug)]
struct TlsFiles {
    /// `…_CERTIFICATE`: the roots the collector's certificate is checked against, in place of
    /// the system's.
    roots: Option<(String, Vec<u8>)>,
    /// `…_CLIENT_CERTIFICATE` and `…_CLIENT_KEY`: this server's certificate chain and key,
    /// for a collector that asks for one (mutual TLS).
    identity: Option<(Vec<u8>, Vec<u8>)>,
}

impl TlsFiles {
    fn read(env: &Env<'_>, signal: Signal) -> Result<TlsFiles, OtelError> {
        let file = |what: &str| -> Result<Option<(String, Vec<u8>)>, OtelError> {
            let own = format!("OTEL_EXPORTER_OTLP_{}_{what}", signal.upper());
            let general = format!("OTEL_EXPORTER_OTLP_{what}");
            let (var, path) = match env.get(&own)? {
                Some(path) => (own, path),
                None => match env.get(&general)? {
                    Some(path) => (general, path),
                    None => return Ok(None),
                },
            };
            let path = path.trim();
            std::fs::read(path)
                .map(|bytes| Some((var.clone(), bytes)))
                .map_err(|source| OtelError::File {
                    name: var,
                    path: path.to_owned(),
                    source,
                })
        };
        let roots = file("CERTIFICATE")?;
        if let Some((var, pem)) = &roots {
            certificates(var, pem)?;
        }
        let identity = match (file("CLIENT_CERTIFICATE")?, file("CLIENT_KEY")?) {
            (None, None) => None,
            (Some((var, chain)), Some((key_var, key))) => {
                certificates(&var, &chain)?;
                private_key(&key_var, &key)?;
                Some((chain, key))
            }
            (Some((var, _)), None) | (None, Some((var, _))) => {
                return Err(OtelError::Unpaired { name: var });
            }
        };
        Ok(TlsFiles { roots, identity })
    }

    /// A rustls connector for these settings, offering HTTP/1.1 or, for gRPC, HTTP/2 by
    /// ALPN.
    fn connector(&self, transport: Transport) -> Result<tokio_rustls::TlsConnector, OtelError> {
        use tokio_rustls::rustls;
        let mut roots = rustls::RootCertStore::empty();
        match &self.roots {
            Some((var, pem)) => {
                for cert in certificates(var, pem)? {
                    roots.add(cert).map_err(|e| OtelError::Pem {
                        name: var.clone(),
                        expected: "certificate rustls accepts",
                        source: Some(e.into()),
                    })?;
                }
            }
            None => {
                let native = rustls_native_certs::load_native_certs();
                roots.add_parsable_certificates(native.certs);
                if roots.is_empty() {
                    return Err(OtelError::NoTrustedRoots);
                }
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| OtelError::Tls(e.into()))?
            .with_root_certificates(roots);
        let mut config = match &self.identity {
            None => builder.with_no_client_auth(),
            Some((chain, key)) => builder
                .with_client_auth_cert(
                    certificates("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", chain)?,
                    private_key("OTEL_EXPORTER_OTLP_CLIENT_KEY", key)?,
                )
                .map_err(|e| OtelError::Tls(e.into()))?,
        };
        config.alpn_protocols = vec![match transport {
            Transport::HttpProtobuf => b"http/1.1".to_vec(),
            #[cfg(feature = "otlp-grpc")]
            Transport::Grpc => b"h2".to_vec(),
        }];
        Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
    }
}

/// The certificates of a PEM file; at least one.
fn certificates(
    var: &str,
    pem: &[u8],
) -> Result<Vec<tokio_rustls::rustls::pki_types::CertificateDer<'static>>, OtelError> {
    use tokio_rustls::rustls::pki_types::{CertificateDer, pem::PemObject as _};
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| OtelError::Pem {
            name: var.to_owned(),
            expected: "PEM certificate",
            source: Some(e.into()),
        })?;
    if certs.is_empty() {
        return Err(OtelError::Pem {
            name: var.to_owned(),
            expected: "PEM certificate",
            source: None,
        });
    }
    Ok(certs)
}

/// The private key of a PEM file (PKCS#8, PKCS#1 or SEC1).
fn private_key(
    var: &str,
    pem: &[u8],
) -> Result<tokio_rustls::rustls::pki_types::PrivateKeyDer<'static>, OtelError> {
    use tokio_rustls::rustls::pki_types::{PrivateKeyDer, pem::PemObject as _};
    PrivateKeyDer::from_pem_slice(pem).map_err(|e| OtelError::Pem {
        name: var.to_owned(),
        expected: "PEM private key",
        source: Some(e.into()),
    })
}

/// The exporters' HTTP client: one HTTP/1.1 connection per export (a batch every few
/// seconds at most), made with hyper on the export runtime.
struct HyperClient {
    runtime: tokio::runtime::Handle,
    /// For each export, its attempts and the pauses between them included.
    timeout: Duration,
    /// For an `https://` endpoint.
    tls: Option<tokio_rustls::TlsConnector>,
    /// Cancelled when [`Otel`] shuts down: no more retries, and a pause ends at once.
    stopping: CancellationToken,
}

impl std::fmt::Debug for HyperClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HyperClient")
            .field("timeout", &self.timeout)
            .field("tls", &self.tls.is_some())
            .finish_non_exhaustive()
    }
}

impl HyperClient {
    /// One export on the export runtime: attempted until it succeeds, fails for good, or the
    /// next attempt would end past the timeout.
    fn export(
        &self,
        outgoing: Outgoing,
    ) -> impl Future<Output = Result<Bytes, HttpError>> + Send + 'static {
        let task = self.runtime.spawn(retrying(
            outgoing,
            self.tls.clone(),
            self.timeout,
            self.stopping.clone(),
        ));
        async move {
            match task.await {
                Ok(reply) => reply,
                Err(e) => Err(format!("the export runtime stopped: {e}").into()),
            }
        }
    }
}

/// One export's request, kept to be sent again.
#[derive(Debug, Clone)]
struct Outgoing {
    transport: Transport,
    uri: http::Uri,
    headers: http::HeaderMap,
    /// The protobuf message, gzipped already when `gzipped`.
    body: Bytes,
    #[cfg(feature = "otlp-grpc")]
    gzipped: bool,
}

/// Attempts at most (the OpenTelemetry exporters of other languages make five as well).
const MAX_ATTEMPTS: u32 = 5;
/// The first pause; each later one is half as long again, up to [`MAX_BACKOFF`], and
/// jittered.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The OTLP exporter specification's retry: a transient failure (the connection failed or
/// broke; HTTP 429, 502, 503, 504; the gRPC codes it names) is tried again after an
/// exponential, jittered pause, or the pause the collector asked for (`Retry-After`, gRPC's
/// `RetryInfo`), as long as the whole export stays within `timeout` and the exporters are
/// not stopping. Anything else fails at once.
async fn retrying(
    outgoing: Outgoing,
    tls: Option<tokio_rustls::TlsConnector>,
    timeout: Duration,
    stopping: CancellationToken,
) -> Result<Bytes, HttpError> {
    let started = tokio::time::Instant::now();
    // Time left of the export's timeout (never an `Instant` past the clock's range: a
    // collector may ask for any pause).
    let left = || timeout.saturating_sub(started.elapsed());
    let mut backoff = FIRST_BACKOFF;
    let mut attempts = 1;
    let mut previous: Option<HttpError> = None;
    loop {
        let budget = left();
        let error =
            match tokio::time::timeout(budget, attempt(&outgoing, tls.clone(), budget)).await {
                Ok(Ok(reply)) => return Ok(reply),
                Ok(Err(error)) => error,
                // The time ran out during a retry: the failure that led to it says more.
                Err(_) => match previous {
                    Some(error) => {
                        return Err(format!(
                            "{error}, then no answer before the timeout ({attempts} attempts)"
                        )
                        .into());
                    }
                    None => return Err(format!("no answer within {timeout:?}").into()),
                },
            };
        let pause = match error.downcast_ref::<Transient>() {
            None => return Err(error),
            Some(Transient {
                after: Some(after), ..
            }) => *after,
            Some(Transient { after: None, .. }) => jittered(backoff),
        };
        let gave_up = |error: HttpError| -> HttpError {
            if attempts == 1 {
                error
            } else {
                format!("{error} ({attempts} attempts)").into()
            }
        };
        // Another attempt only when it would have time to be answered after the pause.
        if attempts >= MAX_ATTEMPTS
            || stopping.is_cancelled()
            || pause.saturating_add(MIN_ATTEMPT) > left()
        {
            return Err(gave_up(error));
        }
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = stopping.cancelled() => return Err(gave_up(error)),
        }
        backoff = (backoff * 3 / 2).min(MAX_BACKOFF);
        attempts += 1;
        previous = Some(error);
    }
}

/// The least time an attempt after a pause is given: with less, it would fail for want of
/// time and hide why the one before it failed.
const MIN_ATTEMPT: Duration = Duration::from_millis(250);

/// Between half and all of `pause`, so that exporters that failed together do not all
/// come back together.
fn jittered(pause: Duration) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    // RandomState's keys differ on each call: random enough for a jitter.
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let half = pause / 2;
    half + Duration::from_nanos(random % (half.as_nanos() as u64 + 1))
}

/// One attempt: the message posted over HTTP/1.1, or the gRPC call; the reply's message.
async fn attempt(
    outgoing: &Outgoing,
    tls: Option<tokio_rustls::TlsConnector>,
    #[cfg_attr(not(feature = "otlp-grpc"), allow(unused_variables))] left: Duration,
) -> Result<Bytes, HttpError> {
    match outgoing.transport {
        #[cfg(feature = "otlp-grpc")]
        Transport::Grpc => {
            grpc_unary(
                GrpcCall {
                    uri: outgoing.uri.clone(),
                    headers: outgoing.headers.clone(),
                    message: outgoing.body.clone(),
                    gzipped: outgoing.gzipped,
                    timeout: left,
                },
                tls,
            )
            .await
        }
        Transport::HttpProtobuf => {
            let mut request = Request::new(outgoing.body.clone());
            *request.method_mut() = http::Method::POST;
            *request.uri_mut() = outgoing.uri.clone();
            *request.headers_mut() = outgoing.headers.clone();
            let response = send(request, tls).await?;
            let status = response.status();
            if status.is_success() {
                return Ok(response.into_body());
            }
            let body = response.body();
            let text = String::from_utf8_lossy(&body[..body.len().min(512)]).into_owned();
            let error: HttpError = format!("the collector answered {status}: {text}").into();
            Err(match status.as_u16() {
                429 | 502 | 503 | 504 => transient_after(error, retry_after(response.headers())),
                _ => error,
            })
        }
    }
}

/// `Retry-After` in seconds (the HTTP-date form is not read: the backoff applies then).
fn retry_after(headers: &http::HeaderMap) -> Option<Duration> {
    let seconds: u64 = headers
        .get(http::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds))
}

/// An error that another attempt may not meet; `after`, the pause the collector asked for.
#[derive(Debug)]
struct Transient {
    error: HttpError,
    after: Option<Duration>,
}

/// `error`, marked for another attempt.
fn transient(error: HttpError) -> HttpError {
    transient_after(error, None)
}

/// `error`, marked for another attempt after `after` when the collector said so.
fn transient_after(error: HttpError, after: Option<Duration>) -> HttpError {
    Box::new(Transient { error, after })
}

impl std::fmt::Display for Transient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Transient {}

async fn send(
    request: Request<Bytes>,
    tls: Option<tokio_rustls::TlsConnector>,
) -> Result<Response<Bytes>, HttpError> {
    let (mut parts, body) = request.into_parts();
    let stream = connect(&parts.uri, tls).await?;
    let authority = parts
        .uri
        .authority()
        .ok_or("the endpoint has no host")?
        .as_str()
        .to_owned();
    // HTTP/1.1 requests name the path, and the host in their own header.
    parts.uri = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .parse()?;
    parts
        .headers
        .entry(http::header::HOST)
        .or_insert(http::HeaderValue::from_str(&authority)?);
    let request = Request::from_parts(parts, http_body_util::Full::new(body));
    match stream {
        Stream::Plain(stream) => exchange(stream, request).await,
        Stream::Tls(stream) => exchange(stream, request).await,
    }
}

/// A connection to an endpoint: TCP, and TLS over it for `https://`.
enum Stream {
    Plain(tokio::net::TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<tokio::net::TcpStream>>),
}

async fn connect(
    uri: &http::Uri,
    tls: Option<tokio_rustls::TlsConnector>,
) -> Result<Stream, HttpError> {
    let host = uri.host().ok_or("the endpoint has no host")?;
    let https = match uri.scheme_str() {
        Some("https") => true,
        Some("http") => false,
        _ => return Err("the endpoint is neither http:// nor https://".into()),
    };
    let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
    let host = host.trim_matches(['[', ']']);
    let stream = tokio::net::TcpStream::connect((host, port))
        .await
        .map_err(|e| transient(described(&e)))?;
    stream.set_nodelay(true)?;
    match (https, tls) {
        (false, _) => Ok(Stream::Plain(stream)),
        (true, Some(tls)) => {
            let name = tokio_rustls::rustls::pki_types::ServerName::try_from(host.to_owned())?;
            // A certificate or protocol failure (rustls' errors come as `InvalidData`) is
            // for good; a connection lost in the handshake is not.
            let stream = tls.connect(name, stream).await.map_err(|e| {
                let for_good = e.kind() == std::io::ErrorKind::InvalidData;
                let error = described(&e);
                if for_good { error } else { transient(error) }
            })?;
            Ok(Stream::Tls(Box::new(stream)))
        }
        (true, None) => Err("an https:// endpoint, and no TLS settings for it".into()),
    }
}

/// gzip at level 1: on span batches it compresses 6.1× against level 6's 6.6×, for a third
/// of the CPU (docs/benchmarks.md).
fn gzip(body: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(body.len() / 4 + 64),
        flate2::Compression::fast(),
    );
    encoder.write_all(body)?;
    encoder.finish()
}

#[cfg(feature = "otlp-grpc")]
/// A unary gRPC call's request.
struct GrpcCall {
    uri: http::Uri,
    headers: http::HeaderMap,
    /// The message, gzipped already when `gzipped`.
    message: Bytes,
    gzipped: bool,
    timeout: Duration,
}

#[cfg(feature = "otlp-grpc")]
/// One unary gRPC call (`Export`) on a new HTTP/2 connection: the message framed, the
/// reply's message when the status is OK, else the status as the error.
async fn grpc_unary(
    call: GrpcCall,
    tls: Option<tokio_rustls::TlsConnector>,
) -> Result<Bytes, HttpError> {
    let GrpcCall {
        uri,
        mut headers,
        message,
        gzipped,
        timeout,
    } = call;
    let stream = connect(&uri, tls).await?;
    let mut framed = Vec::with_capacity(5 + message.len());
    // The compressed flag, the length, the message.
    framed.push(u8::from(gzipped));
    framed.extend_from_slice(&u32::try_from(message.len())?.to_be_bytes());
    framed.extend_from_slice(&message);
    if gzipped {
        headers.insert("grpc-encoding", http::HeaderValue::from_static("gzip"));
    }
    headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/grpc"),
    );
    headers.insert(http::header::TE, http::HeaderValue::from_static("trailers"));
    headers.insert(
        "grpc-timeout",
        http::HeaderValue::from_str(&grpc_timeout(timeout))?,
    );
    let mut request = Request::new(http_body_util::Full::new(Bytes::from(framed)));
    *request.method_mut() = http::Method::POST;
    *request.uri_mut() = uri;
    *request.headers_mut() = headers;
    match stream {
        Stream::Plain(stream) => grpc_exchange(stream, request).await,
        Stream::Tls(stream) => grpc_exchange(stream, request).await,
    }
}

#[cfg(feature = "otlp-grpc")]
/// A `grpc-timeout` value: at most eight digits, in milliseconds while they fit, else in
/// seconds, else hours.
fn grpc_timeout(timeout: Duration) -> String {
    const MAX: u128 = 99_999_999;
    let ms = timeout.as_millis().max(1);
    if ms <= MAX {
        format!("{ms}m")
    } else if u128::from(timeout.as_secs()) <= MAX {
        format!("{}S", timeout.as_secs())
    } else {
        format!("{}H", (timeout.as_secs() / 3600).min(99_999_999))
    }
}

#[cfg(feature = "otlp-grpc")]
async fn grpc_exchange<T>(
    io: T,
    request: Request<http_body_util::Full<Bytes>>,
) -> Result<Bytes, HttpError>
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(io),
    )
    .await
    .map_err(|e| hyper_failure(&e))?;
    let connection = tokio::spawn(connection);
    let response = sender.send_request(request).await;
    let (parts, collected) = read_reply(response, connection).await?;
    if parts.status != http::StatusCode::OK {
        let error: HttpError = format!("the collector answered HTTP {}", parts.status).into();
        // gRPC's mapping of the HTTP statuses a proxy may answer: UNAVAILABLE for these.
        return Err(match parts.status.as_u16() {
            429 | 502 | 503 | 504 => transient(error),
            _ => error,
        });
    }
    // The status is in the trailers, or in the headers of a reply that has no body.
    let trailers = collected.trailers().cloned().unwrap_or_default();
    let field = |name: &str| {
        trailers
            .get(name)
            .or_else(|| parts.headers.get(name))
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    };
    match field("grpc-status").as_deref() {
        Some("0") => {}
        Some(code) => {
            let message = field("grpc-message").unwrap_or_default();
            let message = String::from_utf8_lossy(&percent_decode(&message)).into_owned();
            let error: HttpError = format!("gRPC status {code}: {message}").into();
            let retry_info = || {
                let details = field("grpc-status-details-bin")?;
                super::protobuf::retry_delay(&base64_decode(&details)?)
            };
            return Err(match code {
                // CANCELLED, DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE, UNAVAILABLE,
                // DATA_LOSS: the OTLP specification's retryable codes.
                "1" | "4" | "10" | "11" | "14" | "15" => transient_after(error, retry_info()),
                // RESOURCE_EXHAUSTED: only when the collector says when to come back.
                "8" => match retry_info() {
                    Some(after) => transient_after(error, Some(after)),
                    None => error,
                },
                _ => error,
            });
        }
        None => return Err("the collector's reply has no gRPC status".into()),
    }
    let encoding = parts.headers.get("grpc-encoding").map(|v| v.as_bytes());
    Ok(grpc_reply_message(collected.to_bytes(), encoding))
}

#[cfg(feature = "otlp-grpc")]
/// A binary (`-bin`) metadata value: base64, padded or not, as gRPC sends them.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    LENIENT.decode(text.trim()).ok()
}

#[cfg(feature = "otlp-grpc")]
/// The message of a unary reply's body: a compressed flag, a big-endian length, the
/// message; gzipped when the flag is set and the reply's `grpc-encoding` is `gzip` (as a
/// server may answer a gzipped call). Anything else reads as an empty message: the reply
/// only ever carries a partial success, which is logged when it can be read.
fn grpc_reply_message(body: Bytes, encoding: Option<&[u8]>) -> Bytes {
    let framed = |flag: u8| match body.get(..5) {
        Some([f, a, b, c, d])
            if *f == flag && u32::from_be_bytes([*a, *b, *c, *d]) as usize == body.len() - 5 =>
        {
            Some(body.slice(5..))
        }
        _ => None,
    };
    if let Some(message) = framed(0) {
        return message;
    }
    match (framed(1), encoding) {
        (Some(compressed), Some(e)) if e.eq_ignore_ascii_case(b"gzip") => {
            gunzip(&compressed).map_or_else(Bytes::new, Bytes::from)
        }
        _ => Bytes::new(),
    }
}

#[cfg(feature = "otlp-grpc")]
/// A gzipped reply, inflated to at most [`MAX_RESPONSE_BODY`] bytes.
fn gunzip(compressed: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read as _;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(compressed)
        .take(MAX_RESPONSE_BODY as u64 + 1)
        .read_to_end(&mut out)
        .ok()?;
    (out.len() <= MAX_RESPONSE_BODY).then_some(out)
}

/// An error with its causes, `hyper`'s "connection error" alone saying nothing of a TLS
/// alert or a refused connection.
fn described(error: &(dyn std::error::Error + 'static)) -> HttpError {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text.into()
}

/// A response body past [`MAX_RESPONSE_BODY`] said so; others as [`hyper_failure`] tells
/// them apart.
fn too_large(e: HttpError) -> HttpError {
    if e.is::<http_body_util::LengthLimitError>() {
        format!("the collector's answer is over {MAX_RESPONSE_BODY} bytes").into()
    } else if let Some(e) = e.downcast_ref::<hyper::Error>() {
        hyper_failure(e)
    } else {
        described(&*e)
    }
}

/// hyper's error, transient when the connection failed, closed, broke or timed out (another
/// attempt may find it well), final when the other end does not speak what was expected (an
/// HTTP/1.1 port given for gRPC, a reply that does not parse): no retry mends that.
fn hyper_failure(e: &hyper::Error) -> HttpError {
    let error = described(e);
    let io = std::iter::successors(std::error::Error::source(e), |cause| cause.source())
        .any(|cause| cause.is::<std::io::Error>());
    if e.is_closed() || e.is_incomplete_message() || e.is_canceled() || e.is_timeout() || io {
        transient(error)
    } else {
        error
    }
}

/// One request and its response on a new HTTP/1.1 connection over `io`.
async fn exchange<T>(
    io: T,
    request: Request<http_body_util::Full<Bytes>>,
) -> Result<Response<Bytes>, HttpError>
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(io))
            .await
            .map_err(|e| hyper_failure(&e))?;
    let connection = tokio::spawn(connection);
    let response = sender.send_request(request).await;
    let (parts, collected) = read_reply(response, connection).await?;
    Ok(Response::from_parts(parts, collected.to_bytes()))
}

/// A response's head and whole body (at most [`MAX_RESPONSE_BODY`]), then the connection it
/// came on closed: one request per connection, over HTTP/1.1 or HTTP/2.
async fn read_reply(
    response: Result<Response<hyper::body::Incoming>, hyper::Error>,
    connection: tokio::task::JoinHandle<Result<(), hyper::Error>>,
) -> Result<(http::response::Parts, http_body_util::Collected<Bytes>), HttpError> {
    let read = async {
        // No answer: the connection was refused, reset or closed on the way.
        let (parts, body) = response.map_err(|e| hyper_failure(&e))?.into_parts();
        let collected = http_body_util::Limited::new(body, MAX_RESPONSE_BODY)
            .collect()
            .await
            .map_err(too_large)?;
        Ok((parts, collected))
    };
    let reply = read.await;
    connection.abort();
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<Config, OtelError> {
        Config::read(&Env::from_pairs(pairs))
    }

    #[test]
    fn nothing_is_exported_without_an_endpoint() {
        let c = read(&[("OTEL_SERVICE_NAME", "x")]).unwrap();
        assert!(!c.traces && !c.metrics);
        assert_eq!(c.traces_timeout, DEFAULT_TIMEOUT);
    }

    #[test]
    fn the_base_endpoint_turns_both_signals_on() {
        let c = read(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318")]).unwrap();
        assert!(c.traces && c.metrics);
    }

    #[test]
    fn a_signal_endpoint_turns_on_that_signal_only() {
        let c = read(&[(
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
            "http://localhost:4318/v1/metrics",
        )])
        .unwrap();
        assert!(!c.traces && c.metrics);
        let c = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"),
            ("OTEL_TRACES_EXPORTER", "none"),
        ])
        .unwrap();
        assert!(!c.traces && c.metrics);
    }

    #[test]
    fn sdk_disabled_wins() {
        let c = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"),
            ("OTEL_SDK_DISABLED", "TRUE"),
        ])
        .unwrap();
        assert!(!c.traces && !c.metrics);
        let c = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"),
            ("OTEL_SDK_DISABLED", "false"),
        ])
        .unwrap();
        assert!(c.traces && c.metrics);
    }

    #[test]
    fn the_metrics_temporality_is_cumulative_unless_preferred_otherwise() {
        let base = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318");
        let var = "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE";
        assert_eq!(
            read(&[base]).unwrap().metrics_temporality,
            Temporality::Cumulative
        );
        for (value, expected) in [
            ("delta", Temporality::Delta),
            (" Delta ", Temporality::Delta),
            ("LOWMEMORY", Temporality::LowMemory),
            ("cumulative", Temporality::Cumulative),
        ] {
            assert_eq!(
                read(&[base, (var, value)]).unwrap().metrics_temporality,
                expected
            );
        }
    }

    #[test]
    fn only_true_disables_the_sdk() {
        let base = ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://Collector:4318");
        let c = read(&[base, ("OTEL_SDK_DISABLED", "yes")]).unwrap();
        assert!(c.traces && c.metrics);
        let c = read(&[base, ("OTEL_SDK_DISABLED", " True ")]).unwrap();
        assert!(!c.traces && !c.metrics);
    }

    #[test]
    fn https_is_recognised_in_any_case() {
        assert!(is_https("https://collector:4318"));
        assert!(is_https(" HTTPS://collector:4318/v1/traces"));
        assert!(is_https("HttpS://[::1]:4318"));
        assert!(!is_https("http://collector:4318"));
        assert!(!is_https("not a url"));
    }

    #[cfg(feature = "otlp-grpc")]
    #[test]
    fn grpc_timeouts_fit_eight_digits() {
        assert_eq!(grpc_timeout(Duration::from_millis(10_000)), "10000m");
        assert_eq!(grpc_timeout(Duration::ZERO), "1m");
        assert_eq!(grpc_timeout(Duration::from_millis(99_999_999)), "99999999m");
        assert_eq!(grpc_timeout(Duration::from_millis(100_000_000)), "100000S");
        assert_eq!(grpc_timeout(Duration::from_secs(u64::MAX)), "99999999H");
    }

    #[test]
    fn timeouts_general_and_per_signal() {
        let c = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
            ("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "700"),
        ])
        .unwrap();
        assert_eq!(c.traces_timeout, Duration::from_millis(2500));
        assert_eq!(c.metrics_timeout, Duration::from_millis(700));
    }

    #[test]
    fn compression_general_and_per_signal() {
        let base = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318");
        let c = read(&[base]).unwrap();
        assert!(!c.traces_gzip && !c.metrics_gzip, "uncompressed by default");
        let c = read(&[base, ("OTEL_EXPORTER_OTLP_COMPRESSION", " GZip ")]).unwrap();
        assert!(c.traces_gzip && c.metrics_gzip);
        let c = read(&[
            base,
            ("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"),
            ("OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "none"),
        ])
        .unwrap();
        assert!(c.traces_gzip && !c.metrics_gzip);
        let c = read(&[base, ("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "gzip")]).unwrap();
        assert!(c.traces_gzip && !c.metrics_gzip);
    }

    #[test]
    fn gzip_bodies_inflate_to_the_message() {
        use std::io::Read as _;
        let body: Vec<u8> = (0..10_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let packed = gzip(&body).unwrap();
        assert_eq!(&packed[..2], [0x1f, 0x8b], "the gzip magic number");
        assert!(packed.len() < body.len() / 4, "{} bytes", packed.len());
        let mut inflated = Vec::new();
        flate2::read::GzDecoder::new(&packed[..])
            .read_to_end(&mut inflated)
            .unwrap();
        assert_eq!(inflated, body);
    }

    #[cfg(feature = "otlp-grpc")]
    #[test]
    fn grpc_replies_plain_or_gzipped() {
        let frame = |flag: u8, message: &[u8]| {
            let mut b = vec![flag];
            b.extend_from_slice(&(message.len() as u32).to_be_bytes());
            b.extend_from_slice(message);
            Bytes::from(b)
        };
        let message = b"\x0a\x04\x08\x02\x12\x00";
        let gz = Some(&b"gzip"[..]);
        assert_eq!(grpc_reply_message(frame(0, message), None), &message[..]);
        assert_eq!(grpc_reply_message(frame(0, message), gz), &message[..]);
        let packed = gzip(message).unwrap();
        assert_eq!(grpc_reply_message(frame(1, &packed), gz), &message[..]);
        assert_eq!(
            grpc_reply_message(frame(1, &packed), Some(b"GZIP")),
            &message[..]
        );
        // Compressed with no encoding named, or one we do not know, or not gzip at all:
        // nothing to read.
        assert!(grpc_reply_message(frame(1, &packed), None).is_empty());
        assert!(grpc_reply_message(frame(1, &packed), Some(b"snappy")).is_empty());
        assert!(grpc_reply_message(frame(1, message), gz).is_empty());
        // A length that is not the body's.
        let mut short = frame(0, message).to_vec();
        short.pop();
        assert!(grpc_reply_message(Bytes::from(short), None).is_empty());
        // A reply that inflates past the limit is not read.
        let bomb = gzip(&vec![0; MAX_RESPONSE_BODY + 1]).unwrap();
        assert!(bomb.len() < MAX_RESPONSE_BODY / 16, "{} bytes", bomb.len());
        assert!(grpc_reply_message(frame(1, &bomb), gz).is_empty());
    }

    #[cfg(not(feature = "otlp-grpc"))]
    #[test]
    fn grpc_without_its_feature_is_refused_naming_it() {
        let e = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ])
        .unwrap_err()
        .to_string();
        assert!(e.contains("`otlp-grpc` feature"), "{e}");
    }

    #[cfg(feature = "otlp-grpc")]
    #[test]
    fn the_protocol_general_and_per_signal() {
        let base = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4317");
        let c = read(&[base]).unwrap();
        assert_eq!(
            (c.traces_protocol, c.metrics_protocol),
            (Transport::HttpProtobuf, Transport::HttpProtobuf)
        );
        let c = read(&[base, ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]).unwrap();
        assert_eq!(
            (c.traces_protocol, c.metrics_protocol),
            (Transport::Grpc, Transport::Grpc)
        );
        let c = read(&[
            base,
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/protobuf"),
        ])
        .unwrap();
        assert_eq!(
            (c.traces_protocol, c.metrics_protocol),
            (Transport::Grpc, Transport::HttpProtobuf)
        );
    }

    #[test]
    fn bad_values_are_errors_naming_the_variable() {
        let base = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318");
        for (pairs, var) in [
            (
                vec![("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318")],
                "OTEL_EXPORTER_OTLP_ENDPOINT",
            ),
            (
                vec![("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://collector:4318")],
                "OTEL_EXPORTER_OTLP_ENDPOINT",
            ),
            (
                vec![("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "not a url")],
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            ),
            (
                vec![base, ("OTEL_EXPORTER_OTLP_TIMEOUT", "10s")],
                "OTEL_EXPORTER_OTLP_TIMEOUT",
            ),
            (
                vec![base, ("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "0")],
                "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
            ),
            (
                vec![base, ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")],
                "OTEL_EXPORTER_OTLP_PROTOCOL: `http/json` is not supported",
            ),
            (
                vec![base, ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "GRPC")],
                "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            ),
            (
                vec![base, ("OTEL_EXPORTER_OTLP_HEADERS", "api-key")],
                "OTEL_EXPORTER_OTLP_HEADERS",
            ),
            (
                vec![base, ("OTEL_EXPORTER_OTLP_COMPRESSION", "zstd")],
                "OTEL_EXPORTER_OTLP_COMPRESSION: `zstd` is not supported",
            ),
            (
                vec![base, ("OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "deflate")],
                "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION",
            ),
            (
                vec![base, ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "bad key=1")],
                "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
            ),
            (
                vec![base, ("OTEL_METRICS_EXPORTER", "prometheus")],
                "OTEL_METRICS_EXPORTER",
            ),
            (
                vec![
                    base,
                    (
                        "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
                        "weekly",
                    ),
                ],
                "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
            ),
        ] {
            let e = read(&pairs).unwrap_err().to_string();
            assert!(e.contains(var), "{pairs:?}: {e}");
        }
    }

    /// The test TLS material (`tests/fixtures/tls`, made by its `make.sh`).
    fn fixture(name: &str) -> String {
        format!("{}/tests/fixtures/tls/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    fn tls(pairs: &[(&str, &str)]) -> Result<TlsFiles, OtelError> {
        TlsFiles::read(&Env::from_pairs(pairs), Signal::Traces)
    }

    #[test]
    fn tls_files_are_read_and_checked_naming_the_variable() {
        let ca = fixture("ca.pem");
        let files = tls(&[("OTEL_EXPORTER_OTLP_CERTIFICATE", &ca)]).unwrap();
        assert_eq!(
            files.roots.as_ref().unwrap().0,
            "OTEL_EXPORTER_OTLP_CERTIFICATE"
        );
        assert!(files.identity.is_none());
        // The signal's own variable wins.
        let other = fixture("other-ca.pem");
        let files = tls(&[
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", &ca),
            ("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", &other),
        ])
        .unwrap();
        assert_eq!(
            files.roots.as_ref().unwrap().1,
            std::fs::read(&other).unwrap()
        );
        let (cert, key) = (fixture("client.pem"), fixture("client.key"));
        let files = tls(&[
            ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", &cert),
            ("OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY", &key),
        ])
        .unwrap();
        assert!(files.identity.is_some() && files.roots.is_none());

        let missing = fixture("missing.pem");
        for (pairs, expected) in [
            (
                vec![("OTEL_EXPORTER_OTLP_CERTIFICATE", missing.as_str())],
                "OTEL_EXPORTER_OTLP_CERTIFICATE: cannot read",
            ),
            (
                // A key where a certificate belongs.
                vec![("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", key.as_str())],
                "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: the file holds no PEM certificate",
            ),
            (
                vec![("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", cert.as_str())],
                "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE is set without its pair",
            ),
            (
                vec![("OTEL_EXPORTER_OTLP_CLIENT_KEY", key.as_str())],
                "OTEL_EXPORTER_OTLP_CLIENT_KEY is set without its pair",
            ),
            (
                vec![
                    ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", cert.as_str()),
                    ("OTEL_EXPORTER_OTLP_CLIENT_KEY", cert.as_str()),
                ],
                "OTEL_EXPORTER_OTLP_CLIENT_KEY: the file holds no PEM private key",
            ),
        ] {
            let e = tls(&pairs).unwrap_err().to_string();
            assert!(e.contains(expected), "{pairs:?}: {e}");
        }
    }

    /// An HTTPS server on 127.0.0.1 with the fixtures' certificate `name`, asking for a
    /// client certificate signed by the fixtures' CA when `mutual`. It answers every request
    /// `200` with a body naming what it was sent, and whether the client showed a
    /// certificate.
    async fn https_server(mutual: bool, name: &str) -> String {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        use tokio_rustls::rustls;
        use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject as _};
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let chain = CertificateDer::pem_file_iter(fixture(&format!("{name}.pem")))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let key = PrivateKeyDer::from_pem_file(fixture(&format!("{name}.key"))).unwrap();
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .unwrap();
        let builder = if mutual {
            let mut roots = rustls::RootCertStore::empty();
            for cert in CertificateDer::pem_file_iter(fixture("ca.pem")).unwrap() {
                roots.add(cert.unwrap()).unwrap();
            }
            builder.with_client_cert_verifier(
                rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                )
                .build()
                .unwrap(),
            )
        } else {
            builder.with_no_client_auth()
        };
        let config = builder.with_single_cert(chain, key).unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(stream).await else {
                        return;
                    };
                    let client_cert = tls.get_ref().1.peer_certificates().is_some();
                    // The head, then as many body bytes as it announces.
                    let mut request = Vec::new();
                    let mut chunk = [0u8; 4096];
                    let head_end = loop {
                        if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                            break at + 4;
                        }
                        match tls.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&chunk[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&request[..head_end]).to_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .map_or(0, |v| v.trim().parse().unwrap());
                    while request.len() < head_end + length {
                        match tls.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&chunk[..n]),
                        }
                    }
                    let line = head.lines().next().unwrap_or_default().to_owned();
                    let body = format!("{line} {length} client-cert={client_cert}");
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = tls.write_all(reply.as_bytes()).await;
                    let _ = tls.shutdown().await;
                });
            }
        });
        format!("https://localhost:{}/v1/traces", addr.port())
    }

    async fn post(url: &str, files: &TlsFiles) -> Result<String, String> {
        let mut request = Request::new(Bytes::from_static(b"span bytes"));
        *request.method_mut() = http::Method::POST;
        *request.uri_mut() = url.parse().unwrap();
        let connector = files
            .connector(Transport::HttpProtobuf)
            .map_err(|e| e.to_string())?;
        let response =
            tokio::time::timeout(Duration::from_secs(30), send(request, Some(connector)))
                .await
                .expect("an answer or an error, soon")
                .map_err(|e| e.to_string())?;
        assert_eq!(response.status(), 200);
        Ok(String::from_utf8(response.into_body().to_vec()).unwrap())
    }

    #[tokio::test]
    async fn https_collectors_are_checked_against_the_given_roots() {
        let url = https_server(false, "server").await;
        let trusted = tls(&[("OTEL_EXPORTER_OTLP_CERTIFICATE", &fixture("ca.pem"))]).unwrap();
        assert_eq!(
            post(&url, &trusted).await.unwrap(),
            "post /v1/traces http/1.1 10 client-cert=false"
        );
        // By address as well as by name: the certificate names 127.0.0.1.
        let by_ip = url.replace("localhost", "127.0.0.1");
        assert!(post(&by_ip, &trusted).await.is_ok());
        // A certificate from another CA is refused.
        let wrong = tls(&[("OTEL_EXPORTER_OTLP_CERTIFICATE", &fixture("other-ca.pem"))]).unwrap();
        let e = post(&url, &wrong).await.unwrap_err();
        assert!(e.to_lowercase().contains("certificate"), "{e}");
        // And so is a collector whose certificate does not name the host asked for.
        let elsewhere = https_server(false, "elsewhere").await;
        let e = post(&elsewhere, &trusted).await.unwrap_err();
        assert!(e.to_lowercase().contains("certificate"), "{e}");
    }

    #[tokio::test]
    async fn a_collector_asking_for_a_client_certificate_gets_the_configured_one() {
        let url = https_server(true, "server").await;
        let ca = fixture("ca.pem");
        let (cert, key) = (fixture("client.pem"), fixture("client.key"));
        let mutual = tls(&[
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", &ca),
            ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", &cert),
            ("OTEL_EXPORTER_OTLP_CLIENT_KEY", &key),
        ])
        .unwrap();
        assert_eq!(
            post(&url, &mutual).await.unwrap(),
            "post /v1/traces http/1.1 10 client-cert=true"
        );
        let anonymous = tls(&[("OTEL_EXPORTER_OTLP_CERTIFICATE", &ca)]).unwrap();
        let e = post(&url, &anonymous).await.unwrap_err();
        assert!(e.to_lowercase().contains("certificate"), "{e}");
    }

    #[cfg(feature = "otlp-grpc")]
    fn plain_call(uri: http::Uri, message: &'static [u8]) -> GrpcCall {
        GrpcCall {
            uri,
            headers: http::HeaderMap::new(),
            message: Bytes::from_static(message),
            gzipped: false,
            timeout: Duration::from_secs(30),
        }
    }

    /// The gRPC call against a server that answers as collectors do: a reply message with
    /// `grpc-status: 0`, or a status alone (a "Trailers-Only" reply) when the call failed;
    /// a gzipped call answered in gzip, as grpc-go's servers do.
    #[cfg(all(feature = "otlp-grpc", feature = "http"))]
    #[tokio::test]
    async fn grpc_calls_read_the_status_and_the_reply() {
        use axum::http::{HeaderMap, Response, StatusCode};
        let app = axum::Router::new().route(
            "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
            axum::routing::post(|headers: HeaderMap, body: axum::body::Bytes| async move {
                let reply = Response::builder()
                    .status(StatusCode::OK)
                    .header("content-type", "application/grpc");
                let gzipped = headers.get("grpc-encoding").is_some_and(|e| e == "gzip");
                // The message framed: the compressed flag, its length, the bytes.
                assert_eq!(body[0], u8::from(gzipped));
                assert_eq!(
                    u32::from_be_bytes(body[1..5].try_into().unwrap()) as usize,
                    body.len() - 5
                );
                let message = if gzipped {
                    gunzip(&body[5..]).unwrap()
                } else {
                    body[5..].to_vec()
                };
                let reply = match &message[..] {
                    b"bad" => reply
                        .header("grpc-status", "3")
                        .header("grpc-message", "not%20a%20span%20batch")
                        .body(axum::body::Body::empty()),
                    _ => {
                        assert_eq!(headers["te"], "trailers");
                        assert!(headers["grpc-timeout"].to_str().unwrap().ends_with('m'));
                        // A reply in the headers' place: a partial success, and status 0.
                        let partial = [0x0a, 0x04, 0x08, 0x02, 0x12, 0x00];
                        let message = if gzipped {
                            gzip(&partial).unwrap()
                        } else {
                            partial.to_vec()
                        };
                        let mut framed = vec![u8::from(gzipped)];
                        framed.extend_from_slice(&(message.len() as u32).to_be_bytes());
                        framed.extend_from_slice(&message);
                        let reply = if gzipped {
                            reply.header("grpc-encoding", "gzip")
                        } else {
                            reply
                        };
                        reply
                            .header("grpc-status", "0")
                            .body(axum::body::Body::from(framed))
                    }
                };
                reply.unwrap()
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let uri: http::Uri = format!("http://{addr}{}", Signal::Traces.grpc_method())
            .parse()
            .unwrap();
        let call = |message: &'static [u8]| grpc_unary(plain_call(uri.clone(), message), None);
        let reply = call(b"ok!").await.unwrap();
        assert_eq!(
            super::super::protobuf::partial_success(&reply),
            Some((2, String::new()))
        );
        let gzipped = GrpcCall {
            message: gzip(b"ok!").unwrap().into(),
            gzipped: true,
            ..plain_call(uri.clone(), b"")
        };
        let reply = grpc_unary(gzipped, None).await.unwrap();
        assert_eq!(
            super::super::protobuf::partial_success(&reply),
            Some((2, String::new())),
            "the gzipped reply, inflated"
        );
        let e = call(b"bad").await.unwrap_err().to_string();
        assert_eq!(e, "gRPC status 3: not a span batch");
        // Nothing listening: the connection's own error.
        let closed: http::Uri = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let a = l.local_addr().unwrap();
            drop(l);
            format!("http://{a}{}", Signal::Traces.grpc_method())
                .parse()
                .unwrap()
        };
        let e = grpc_unary(plain_call(closed, b""), None)
            .await
            .unwrap_err()
            .to_string();
        assert!(e.to_lowercase().contains("refused"), "{e}");
    }

    #[test]
    fn headers_may_be_a_list() {
        let c = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "api-key=secret, x-tenant=a%20b,",
            ),
        ]);
        assert!(c.is_ok(), "{c:?}");
    }

    /// A collector answering the n-th request with `answers[n]` (the last one from then
    /// on): an HTTP status and headers, plus for gRPC a `grpc-status` and its details. It
    /// keeps each request's body.
    #[cfg(feature = "http")]
    async fn scripted(
        answers: Vec<(u16, Vec<(&'static str, String)>)>,
    ) -> (String, Arc<std::sync::Mutex<Vec<Bytes>>>) {
        let bodies = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = bodies.clone();
        let app = axum::Router::new().fallback(move |body: axum::body::Bytes| {
            let seen = seen.clone();
            let answers = answers.clone();
            async move {
                let n = {
                    let mut seen = seen.lock().unwrap();
                    seen.push(body);
                    seen.len() - 1
                };
                let (status, headers) = &answers[n.min(answers.len() - 1)];
                let mut reply = axum::http::Response::builder().status(*status);
                for (k, v) in headers {
                    reply = reply.header(*k, v);
                }
                reply.body(axum::body::Body::empty()).unwrap()
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("http://{addr}/v1/traces"), bodies)
    }

    fn outgoing(transport: Transport, url: &str) -> Outgoing {
        Outgoing {
            transport,
            uri: url.parse().unwrap(),
            headers: http::HeaderMap::new(),
            body: Bytes::from_static(b"spans"),
            #[cfg(feature = "otlp-grpc")]
            gzipped: false,
        }
    }

    #[cfg(feature = "http")]
    fn retry_after(seconds: &str) -> Vec<(&'static str, String)> {
        vec![("retry-after", seconds.to_owned())]
    }

    #[cfg(feature = "http")]
    #[tokio::test]
    async fn transient_http_failures_are_retried_and_others_are_not() {
        let never = CancellationToken::new();
        let long = Duration::from_secs(60);
        // 503 (after the backoff), 429 (after its Retry-After), then success: the same
        // body each time.
        let (url, bodies) =
            scripted(vec![(503, vec![]), (429, retry_after("0")), (200, vec![])]).await;
        let sent = outgoing(Transport::HttpProtobuf, &url);
        retrying(sent, None, long, never.clone()).await.unwrap();
        let bodies = bodies.lock().unwrap().clone();
        assert_eq!(bodies, vec![Bytes::from_static(b"spans"); 3]);

        // The error an export ends with, and how many attempts it made.
        let failure = |answers| async {
            let (url, bodies) = scripted(answers).await;
            let sent = outgoing(Transport::HttpProtobuf, &url);
            let e = retrying(sent, None, long, never.clone()).await.unwrap_err();
            let attempts = bodies.lock().unwrap().len();
            (e.to_string(), attempts)
        };

        // A refusal is final.
        for status in [400, 401, 404, 413, 500] {
            let (e, attempts) = failure(vec![(status, vec![]), (200, vec![])]).await;
            assert!(e.contains(&status.to_string()), "{e}");
            assert_eq!(attempts, 1, "{status}");
        }

        // At most five attempts.
        let (e, attempts) = failure(vec![(502, retry_after("0"))]).await;
        assert!(e.ends_with("(5 attempts)"), "{e}");
        assert_eq!(attempts, 5);

        // A pause that would end past the export's timeout is not taken, however long.
        for pause in ["3600", "18446744073709551615"] {
            let (e, attempts) = failure(vec![(503, retry_after(pause)), (200, vec![])]).await;
            assert!(e.contains("503"), "{e}");
            assert_eq!(attempts, 1);
        }
    }

    /// A server on 127.0.0.1 that answers its n-th connection with `replies[n]` (the last
    /// one from then on) and closes it, or with `None` holds it open unanswered; it counts
    /// the connections.
    async fn raw_server(
        replies: Vec<Option<&'static [u8]>>,
    ) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
        use std::sync::atomic::AtomicUsize;
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let count = Arc::new(AtomicUsize::new(0));
        let seen = count.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let n = seen.fetch_add(1, Ordering::SeqCst);
                let reply = replies[n.min(replies.len() - 1)];
                tokio::spawn(async move {
                    let mut buf = [0; 4096];
                    let _ = stream.read(&mut buf).await;
                    match reply {
                        Some(reply) => {
                            let _ = stream.write_all(reply).await;
                        }
                        None => tokio::time::sleep(Duration::from_secs(60)).await,
                    }
                });
            }
        });
        (format!("http://{addr}/v1/traces"), count)
    }

    /// A peer whose reply is not HTTP fails the export at once: no retry mends it.
    #[tokio::test]
    async fn a_peer_speaking_another_protocol_is_not_retried() {
        let never = CancellationToken::new();
        let long = Duration::from_secs(60);
        let (url, connections) = raw_server(vec![Some(b"hello, this is not HTTP\r\n")]).await;
        let e = retrying(
            outgoing(Transport::HttpProtobuf, &url),
            None,
            long,
            never.clone(),
        )
        .await
        .unwrap_err();
        assert!(!e.is::<Transient>(), "{e}");
        assert_eq!(connections.load(Ordering::SeqCst), 1, "{e}");
        // (A peer that closes the connection, as an HTTP/1.1 server does when gRPC's
        // HTTP/2 preface reaches it, is retried: that cannot be told from a network
        // failing.)
    }

    /// When the time runs out in a retry, the error is the failure that led to it.
    #[tokio::test]
    async fn a_retry_that_runs_out_of_time_reports_the_failure_before_it() {
        let unavailable: &[u8] =
            b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 0\r\ncontent-length: 0\r\n\r\n";
        let (url, connections) = raw_server(vec![Some(unavailable), None]).await;
        let e = retrying(
            outgoing(Transport::HttpProtobuf, &url),
            None,
            // Room for the first attempt on a loaded machine, and a second one after it.
            Duration::from_millis(3000),
            CancellationToken::new(),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(e.contains("503"), "{e}");
        assert!(
            e.ends_with("then no answer before the timeout (2 attempts)"),
            "{e}"
        );
        assert_eq!(connections.load(Ordering::SeqCst), 2);
    }

    /// Shutting down ends a pause between attempts at once, and no attempt follows.
    #[cfg(feature = "http")]
    #[tokio::test]
    async fn stopping_ends_the_retries() {
        let (url, bodies) = scripted(vec![(503, retry_after("30")), (200, vec![])]).await;
        let stopping = CancellationToken::new();
        let export = tokio::spawn(retrying(
            outgoing(Transport::HttpProtobuf, &url),
            None,
            Duration::from_secs(60),
            stopping.clone(),
        ));
        tokio::time::timeout(Duration::from_secs(10), async {
            while bodies.lock().unwrap().is_empty() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the first attempt reaches the collector");
        stopping.cancel();
        let e = tokio::time::timeout(Duration::from_secs(10), export)
            .await
            .expect("the export gives up when the exporters stop")
            .unwrap()
            .unwrap_err();
        assert!(e.to_string().contains("503"), "{e}");
        assert_eq!(bodies.lock().unwrap().len(), 1);
    }

    /// A connection that cannot be made is worth another attempt; a certificate the
    /// roots do not vouch for is not.
    #[tokio::test]
    async fn connection_failures_are_transient_and_certificate_failures_are_not() {
        let closed = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let a = l.local_addr().unwrap();
            drop(l);
            format!("http://{a}/v1/traces")
        };
        let e = attempt(
            &outgoing(Transport::HttpProtobuf, &closed),
            None,
            Duration::from_secs(30),
        )
        .await
        .unwrap_err();
        assert!(e.is::<Transient>(), "{e}");

        let url = https_server(false, "server").await;
        let untrusted = tls(&[("OTEL_EXPORTER_OTLP_CERTIFICATE", &fixture("other-ca.pem"))])
            .unwrap()
            .connector(Transport::HttpProtobuf)
            .unwrap();
        let e = attempt(
            &outgoing(Transport::HttpProtobuf, &url),
            Some(untrusted),
            Duration::from_secs(30),
        )
        .await
        .unwrap_err();
        assert!(!e.is::<Transient>(), "{e}");
        assert!(e.to_string().contains("UnknownIssuer"), "{e}");
    }

    /// `google.rpc.Status` with a `RetryInfo` of `seconds` + `nanos`, as a collector puts
    /// it in `grpc-status-details-bin`, written field by field (google/rpc/status.proto,
    /// error_details.proto, google/protobuf/any.proto and duration.proto).
    #[cfg(feature = "otlp-grpc")]
    fn status_with_retry_info(code: u8, seconds: u8, nanos: u32) -> Vec<u8> {
        let mut duration = vec![0x08, seconds, 0x10];
        let mut n = nanos;
        while n >= 0x80 {
            duration.push((n as u8) | 0x80);
            n >>= 7;
        }
        duration.push(n as u8);
        let mut retry_info = vec![0x0a, duration.len() as u8];
        retry_info.extend(duration);
        let url = b"type.googleapis.com/google.rpc.RetryInfo";
        let mut any = vec![0x0a, url.len() as u8];
        any.extend_from_slice(url);
        any.extend([0x12, retry_info.len() as u8]);
        any.extend(retry_info);
        let mut status = vec![0x08, code, 0x12, 0x04];
        status.extend_from_slice(b"busy");
        status.extend([0x1a, any.len() as u8]);
        status.extend(any);
        status
    }

    #[cfg(feature = "otlp-grpc")]
    #[test]
    fn retry_info_is_read_from_the_status_details() {
        use base64::Engine as _;
        let status = status_with_retry_info(8, 2, 500_000_000);
        assert_eq!(
            super::super::protobuf::retry_delay(&status),
            Some(Duration::from_millis(2500))
        );
        let padded = base64::engine::general_purpose::STANDARD.encode(&status);
        let unpadded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&status);
        assert_ne!(padded, unpadded, "the example needs padding");
        for text in [padded, unpadded] {
            assert_eq!(base64_decode(&text).as_deref(), Some(&status[..]));
        }
        // Other details, or none: no pause.
        assert_eq!(super::super::protobuf::retry_delay(&[0x08, 0x08]), None);
        let mut other = status.clone();
        let at = other.windows(9).position(|w| w == b"RetryInfo").unwrap();
        other[at] = b'X';
        assert_eq!(super::super::protobuf::retry_delay(&other), None);
    }

    #[cfg(all(feature = "otlp-grpc", feature = "http"))]
    #[tokio::test]
    async fn transient_grpc_statuses_are_retried_and_others_are_not() {
        use base64::Engine as _;
        let never = CancellationToken::new();
        let long = Duration::from_secs(60);
        let grpc = |code: &str| {
            vec![
                ("content-type", "application/grpc".to_owned()),
                ("grpc-status", code.to_owned()),
            ]
        };
        let details = base64::engine::general_purpose::STANDARD_NO_PAD
            .encode(status_with_retry_info(8, 0, 10_000_000));
        let mut exhausted_with_info = grpc("8");
        exhausted_with_info.push(("grpc-status-details-bin", details));
        let mut ok = grpc("0");
        ok.push(("grpc-encoding", "identity".to_owned()));
        // UNAVAILABLE (after the backoff), RESOURCE_EXHAUSTED with a RetryInfo, then OK.
        let (url, bodies) = scripted(vec![
            (200, grpc("14")),
            (200, exhausted_with_info),
            (200, ok),
        ])
        .await;
        retrying(outgoing(Transport::Grpc, &url), None, long, never.clone())
            .await
            .unwrap();
        let bodies = bodies.lock().unwrap().clone();
        assert_eq!(bodies.len(), 3);
        assert!(bodies.iter().all(|b| &b[5..] == b"spans"), "{bodies:?}");

        // INVALID_ARGUMENT, UNAUTHENTICATED, RESOURCE_EXHAUSTED without a RetryInfo: final.
        for code in ["3", "16", "8"] {
            let (url, bodies) = scripted(vec![(200, grpc(code)), (200, grpc("0"))]).await;
            let e = retrying(outgoing(Transport::Grpc, &url), None, long, never.clone())
                .await
                .unwrap_err();
            assert!(
                e.to_string().contains(&format!("gRPC status {code}")),
                "{e}"
            );
            assert_eq!(bodies.lock().unwrap().len(), 1, "{code}");
        }
    }
}
