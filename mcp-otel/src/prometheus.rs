//! Metrics in the Prometheus text exposition format (0.0.4), rendered on demand from an SDK
//! meter provider's reader: no Prometheus client library, no registry of its own.

use std::fmt::Write as _;
use std::sync::{Arc, Weak};
use std::time::Duration;

use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::metrics::data::{
    AggregatedMetrics, Histogram, Metric, MetricData, ResourceMetrics,
};
use opentelemetry_sdk::metrics::reader::MetricReader;
use opentelemetry_sdk::metrics::{InstrumentKind, ManualReader, Pipeline, Temporality};

/// A meter provider's metrics as Prometheus text: register [`reader`](Self::reader) with
/// the provider, then [`render`](Self::render) on each scrape (or mount
/// [`router`](Self::router)). Cheap to clone; clones share the reader.
///
/// # Examples
///
/// ```
/// use ferromcp_otel::Prometheus;
/// use opentelemetry::metrics::MeterProvider as _;
/// use opentelemetry_sdk::metrics::SdkMeterProvider;
///
/// let prometheus = Prometheus::new();
/// let meters = SdkMeterProvider::builder()
///     .with_reader(prometheus.reader())
///     .build();
/// meters.meter("demo").u64_counter("jobs").build().add(2, &[]);
/// assert!(prometheus.render().unwrap().contains("jobs_total 2"));
/// ```
#[derive(Debug, Clone)]
pub struct Prometheus {
    reader: Arc<ManualReader>,
}

impl Default for Prometheus {
    fn default() -> Self {
        Prometheus::new()
    }
}

/// The reader half of a [`Prometheus`], to register with a meter provider.
#[derive(Debug)]
pub struct PrometheusReader {
    reader: Arc<ManualReader>,
}

impl Prometheus {
    /// A renderer with cumulative temporality, as Prometheus expects.
    pub fn new() -> Prometheus {
        Prometheus {
            reader: Arc::new(
                ManualReader::builder()
                    .with_temporality(Temporality::Cumulative)
                    .build(),
            ),
        }
    }

    /// The reader to register with `SdkMeterProvider::builder().with_reader(…)`.
    pub fn reader(&self) -> PrometheusReader {
        PrometheusReader {
            reader: self.reader.clone(),
        }
    }

    /// Every metric of the provider, in the Prometheus text format.
    ///
    /// # Errors
    ///
    /// The reader is not registered with a provider, or the provider was shut down.
    pub fn render(&self) -> Result<String, OTelSdkError> {
        let mut metrics = ResourceMetrics::default();
        self.reader.collect(&mut metrics)?;
        let mut out = String::new();
        for scope in metrics.scope_metrics() {
            for metric in scope.metrics() {
                write_metric(&mut out, metric);
            }
        }
        Ok(out)
    }

    /// A router answering `GET /metrics` with [`render`](Self::render)'s text, to merge into
    /// the application's own router (apart from `/mcp`, and usually on another port).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run() -> std::io::Result<()> {
    /// use ferromcp_otel::Prometheus;
    ///
    /// let prometheus = Prometheus::new();
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:9464").await?;
    /// axum::serve(listener, prometheus.router()).await
    /// # }
    /// ```
    pub fn router(&self) -> axum::Router {
        let this = self.clone();
        axum::Router::new().route(
            "/metrics",
            axum::routing::get(move || {
                let this = this.clone();
                async move {
                    use axum::response::IntoResponse as _;
                    match this.render() {
                        Ok(text) => (
                            [(
                                http::header::CONTENT_TYPE,
                                "text/plain; version=0.0.4; charset=utf-8",
                            )],
                            text,
                        )
                            .into_response(),
                        Err(e) => {
                            (http::StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response()
                        }
                    }
                }
            }),
        )
    }
}

impl MetricReader for PrometheusReader {
    fn register_pipeline(&self, pipeline: Weak<Pipeline>) {
        self.reader.register_pipeline(pipeline);
    }

    fn collect(&self, rm: &mut ResourceMetrics) -> OTelSdkResult {
        self.reader.collect(rm)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.reader.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.reader.shutdown_with_timeout(timeout)
    }

    fn temporality(&self, kind: InstrumentKind) -> Temporality {
        self.reader.temporality(kind)
    }
}

fn write_metric(out: &mut String, metric: &Metric) {
    let base = metric_name(metric.name(), metric.unit());
    match metric.data() {
        AggregatedMetrics::F64(data) => write_data(out, &base, metric.description(), data),
        AggregatedMetrics::I64(data) => write_data(out, &base, metric.description(), data),
        AggregatedMetrics::U64(data) => write_data(out, &base, metric.description(), data),
    }
}

/// A value as Prometheus writes numbers.
trait Number: Copy {
    fn text(self) -> String;
}

impl Number for f64 {
    fn text(self) -> String {
        float(self)
    }
}

impl Number for i64 {
    fn text(self) -> String {
        self.to_string()
    }
}

impl Number for u64 {
    fn text(self) -> String {
        self.to_string()
    }
}

fn write_data<T: Number>(out: &mut String, base: &str, help: &str, data: &MetricData<T>) {
    match data {
        MetricData::Gauge(g) => {
            header(out, base, help, "gauge");
            for p in g.data_points() {
                sample(out, base, p.attributes(), None, &p.value().text());
            }
        }
        MetricData::Sum(s) => {
            let name = if s.is_monotonic() {
                format!("{base}_total")
            } else {
                base.to_owned()
            };
            header(
                out,
                &name,
                help,
                if s.is_monotonic() { "counter" } else { "gauge" },
            );
            for p in s.data_points() {
                sample(out, &name, p.attributes(), None, &p.value().text());
            }
        }
        MetricData::Histogram(h) => write_histogram(out, base, help, h),
        // Not made by this crate's instruments, and not expressible as classic buckets.
        MetricData::ExponentialHistogram(_) => {}
    }
}

fn write_histogram<T: Number>(out: &mut String, base: &str, help: &str, h: &Histogram<T>) {
    header(out, base, help, "histogram");
    let bucket = format!("{base}_bucket");
    for p in h.data_points() {
        let mut cumulative = 0;
        for (bound, count) in p.bounds().zip(p.bucket_counts()) {
            cumulative += count;
            let le = float(bound);
            sample(
                out,
                &bucket,
                p.attributes(),
                Some(&le),
                &cumulative.to_string(),
            );
        }
        sample(
            out,
            &bucket,
            p.attributes(),
            Some("+Inf"),
            &p.count().to_string(),
        );
        sample(
            out,
            &format!("{base}_sum"),
            p.attributes(),
            None,
            &p.sum().text(),
        );
        sample(
            out,
            &format!("{base}_count"),
            p.attributes(),
            None,
            &p.count().to_string(),
        );
    }
}

fn header(out: &mut String, name: &str, help: &str, kind: &str) {
    if !help.is_empty() {
        let help = help.replace('\\', "\\\\").replace('\n', "\\n");
        let _ = writeln!(out, "# HELP {name} {help}");
    }
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn sample<'a>(
    out: &mut String,
    name: &str,
    attributes: impl Iterator<Item = &'a KeyValue>,
    le: Option<&str>,
    value: &str,
) {
    out.push_str(name);
    let mut labels: Vec<(String, String)> = attributes
        .map(|kv| (label_name(kv.key.as_str()), label_value(&kv.value)))
        .collect();
    labels.sort();
    if let Some(le) = le {
        labels.push(("le".to_owned(), le.to_owned()));
    }
    if !labels.is_empty() {
        out.push('{');
        for (i, (k, v)) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{k}=\"{v}\"");
        }
        out.push('}');
    }
    out.push(' ');
    out.push_str(value);
    out.push('\n');
}

/// The Prometheus name of an OpenTelemetry metric: invalid characters become `_`, and the
/// unit is appended as Prometheus names it (`s` → `_seconds`; annotations like `{request}`
/// add nothing).
fn metric_name(name: &str, unit: &str) -> String {
    let mut out = sanitize(name, true);
    let suffix = match unit {
        "s" => "seconds",
        "ms" => "milliseconds",
        "By" => "bytes",
        "1" | "" => "",
        u if u.starts_with('{') => "",
        u => return format!("{out}_{}", sanitize(u, false)),
    };
    if !suffix.is_empty() && !out.ends_with(suffix) {
        out.push('_');
        out.push_str(suffix);
    }
    out
}

fn label_name(key: &str) -> String {
    sanitize(key, false)
}

fn sanitize(text: &str, colons: bool) -> String {
    let mut out: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || (colons && c == ':') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn label_value(value: &Value) -> String {
    value
        .as_str()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn float(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v == f64::INFINITY {
        "+Inf".to_owned()
    } else if v == f64::NEG_INFINITY {
        "-Inf".to_owned()
    } else {
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_prometheus_conventions() {
        assert_eq!(
            metric_name("mcp.server.operation.duration", "s"),
            "mcp_server_operation_duration_seconds"
        );
        assert_eq!(
            metric_name("mcp.server.active_requests", "{request}"),
            "mcp_server_active_requests"
        );
        assert_eq!(label_name("gen_ai.tool.name"), "gen_ai_tool_name");
        assert_eq!(label_value(&Value::from("a\"b\\c\nd")), "a\\\"b\\\\c\\nd");
        assert_eq!(float(0.01), "0.01");
        assert_eq!(float(300.0), "300");
    }
}
