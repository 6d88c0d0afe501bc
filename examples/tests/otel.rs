//! The examples' telemetry end to end: `quickstart` exporting OTLP, over HTTP/protobuf and
//! over gRPC, to a receiver this test starts (spans and metrics decoded with the
//! OpenTelemetry protobuf types), and `everything --metrics` scraped and parsed as
//! Prometheus text.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{HistogramDataPoint, metric};
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message as _;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

/// Bound on anything that should happen soon: a hang fails instead of blocking CI.
const SOON: Duration = Duration::from_secs(30);

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

/// What the receiver was sent, decoded.
#[derive(Default)]
struct Received {
    traces: Vec<ExportTraceServiceRequest>,
    metrics: Vec<ExportMetricsServiceRequest>,
    /// `(path, content-type, x-e2e header, encoding)` of every request; the encoding is
    /// `Content-Encoding` over HTTP, `grpc-encoding` over gRPC.
    requests: Vec<(String, String, String, String)>,
}

/// How a receiver takes the exports.
#[derive(Clone, Copy, PartialEq)]
enum Otlp {
    /// OTLP/HTTP: `POST /v1/traces` and `POST /v1/metrics` with protobuf bodies, answered
    /// with an empty (fully successful) protobuf response.
    Http,
    /// OTLP/gRPC over HTTP/2 without TLS: the trace and metrics services' `Export` calls,
    /// each one length-prefixed protobuf message (gzipped when the compressed flag and
    /// `grpc-encoding: gzip` say so), answered with an empty message and `grpc-status: 0`.
    Grpc,
}

/// A minimal OTLP collector on 127.0.0.1 over plain TCP: its base URL, and what it was
/// sent.
async fn receiver(otlp: Otlp) -> (String, Arc<Mutex<Received>>) {
    let (app, received) = collector(otlp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), received)
}

/// The same collector over TLS, with the test certificate for `localhost`
/// (mcp-server/tests/fixtures/tls), and accepting only clients that show a certificate
/// signed by the test CA: mutual TLS.
async fn tls_receiver(otlp: Otlp) -> (String, Arc<Mutex<Received>>) {
    let (app, received) = collector(otlp);
    let listener = TlsListener::bind().await;
    let port = listener.tcp.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("https://localhost:{port}"), received)
}

/// The test TLS material, beside ferromcp's tests.
fn fixture(name: &str) -> String {
    format!(
        "{}/../mcp-server/tests/fixtures/tls/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Connections accepted on 127.0.0.1 and through a TLS handshake (HTTP/2 or HTTP/1.1 by
/// ALPN); a failed handshake drops the connection and waits for the next.
struct TlsListener {
    tcp: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
}

impl TlsListener {
    async fn bind() -> TlsListener {
        use tokio_rustls::rustls;
        use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject as _};
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_file_iter(fixture("ca.pem")).unwrap() {
            roots.add(cert.unwrap()).unwrap();
        }
        let clients = rustls::server::WebPkiClientVerifier::builder_with_provider(
            Arc::new(roots),
            provider.clone(),
        )
        .build()
        .unwrap();
        let chain = CertificateDer::pem_file_iter(fixture("server.pem"))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let key = PrivateKeyDer::from_pem_file(fixture("server.key")).unwrap();
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_client_cert_verifier(clients)
            .with_single_cert(chain, key)
            .unwrap();
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        TlsListener {
            tcp: tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap(),
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
        }
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((stream, addr)) = self.tcp.accept().await else {
                continue;
            };
            if let Ok(Ok(tls)) = tokio::time::timeout(SOON, self.acceptor.accept(stream)).await {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

/// The collector's routes, and what they were sent.
fn collector(otlp: Otlp) -> (axum::Router, Arc<Mutex<Received>>) {
    let received = Arc::new(Mutex::new(Received::default()));
    let record = |signal: &'static str, received: Arc<Mutex<Received>>| {
        move |uri: axum::http::Uri, headers: axum::http::HeaderMap, body: axum::body::Bytes| async move {
            let header = |name: &str| {
                headers
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned()
            };
            let encoding = header(match otlp {
                Otlp::Http => "content-encoding",
                Otlp::Grpc => "grpc-encoding",
            });
            let mut r = received.lock().unwrap();
            r.requests.push((
                uri.path().to_owned(),
                header("content-type"),
                header("x-e2e"),
                encoding.clone(),
            ));
            let (gzipped, message) = match (otlp, body.as_ref()) {
                (Otlp::Http, message) => (encoding == "gzip", message),
                // The compressed flag, a big-endian length, the message.
                (Otlp::Grpc, [flag @ (0 | 1), a, b, c, d, rest @ ..])
                    if u32::from_be_bytes([*a, *b, *c, *d]) as usize == rest.len() =>
                {
                    assert_eq!(*flag == 1, encoding == "gzip", "flag {flag}, `{encoding}`");
                    (*flag == 1, rest)
                }
                (Otlp::Grpc, _) => panic!("not one gRPC message: {body:?}"),
            };
            let mut inflated = Vec::new();
            let message = if gzipped {
                std::io::Read::read_to_end(
                    &mut flate2::read::GzDecoder::new(message),
                    &mut inflated,
                )
                .expect("a gzip stream");
                &inflated[..]
            } else {
                message
            };
            let decoded = match signal {
                "traces" => ExportTraceServiceRequest::decode(message).map(|t| r.traces.push(t)),
                _ => ExportMetricsServiceRequest::decode(message).map(|m| r.metrics.push(m)),
            };
            let reply = axum::http::Response::builder();
            match (otlp, decoded) {
                (Otlp::Http, Ok(())) => reply
                    .header("content-type", "application/x-protobuf")
                    .body(axum::body::Body::empty()),
                (Otlp::Http, Err(_)) => reply
                    .status(axum::http::StatusCode::BAD_REQUEST)
                    .header("content-type", "text/plain")
                    .body(axum::body::Body::from("not an OTLP protobuf payload")),
                (Otlp::Grpc, decoded) => {
                    decoded.expect("an OTLP protobuf message");
                    reply
                        .header("content-type", "application/grpc")
                        .body(axum::body::Body::new(GrpcOk(0)))
                }
            }
            .unwrap()
        }
    };
    let (traces, metrics) = match otlp {
        Otlp::Http => ("/v1/traces", "/v1/metrics"),
        Otlp::Grpc => (
            "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
            "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
        ),
    };
    let app = axum::Router::new()
        .route(
            traces,
            axum::routing::post(record("traces", received.clone())),
        )
        .route(
            metrics,
            axum::routing::post(record("metrics", received.clone())),
        );
    (app, received)
}

/// A successful unary gRPC reply's body: an empty message (the `Export` responses carry
/// only an optional partial-success member), then the trailers.
struct GrpcOk(u8);

impl http_body::Body for GrpcOk {
    type Data = axum::body::Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Infallible>>> {
        self.0 += 1;
        Poll::Ready(match self.0 {
            1 => Some(Ok(http_body::Frame::data(axum::body::Bytes::from_static(
                &[0; 5],
            )))),
            2 => {
                let mut trailers = axum::http::HeaderMap::new();
                trailers.insert("grpc-status", axum::http::HeaderValue::from_static("0"));
                Some(Ok(http_body::Frame::trailers(trailers)))
            }
            _ => None,
        })
    }
}

fn string(value: &Option<AnyValue>) -> Option<&str> {
    match value.as_ref()?.value.as_ref()? {
        any_value::Value::StringValue(s) => Some(s),
        _ => None,
    }
}

fn attributes(kvs: &[KeyValue]) -> BTreeMap<&str, &str> {
    kvs.iter()
        .filter_map(|kv| Some((kv.key.as_str(), string(&kv.value)?)))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The exported spans named `name`, with their resource's `service.name`.
fn spans_named(r: &Received, name: &str) -> Vec<(String, Span)> {
    let mut found = Vec::new();
    for request in &r.traces {
        for resource in &request.resource_spans {
            let service = resource
                .resource
                .as_ref()
                .and_then(|res| attributes(&res.attributes).get("service.name").copied())
                .unwrap_or("")
                .to_owned();
            for scope in &resource.scope_spans {
                for span in scope.spans.iter().filter(|s| s.name == name) {
                    found.push((service.clone(), span.clone()));
                }
            }
        }
    }
    found
}

/// The histogram points of `name` whose attributes include `gen_ai.tool.name = tool`, with
/// the metric's unit.
/// The histogram's points for `tool`, each with the metric's unit and temporality.
fn histogram_points(
    r: &Received,
    name: &str,
    tool: &str,
) -> Vec<(String, i32, HistogramDataPoint)> {
    let mut found = Vec::new();
    for request in &r.metrics {
        for resource in &request.resource_metrics {
            for scope in &resource.scope_metrics {
                for m in scope.metrics.iter().filter(|m| m.name == name) {
                    let Some(metric::Data::Histogram(h)) = &m.data else {
                        panic!("{name} is not a histogram: {:?}", m.data);
                    };
                    for point in &h.data_points {
                        if attributes(&point.attributes).get("gen_ai.tool.name") == Some(&tool) {
                            found.push((m.unit.clone(), h.aggregation_temporality, point.clone()));
                        }
                    }
                }
            }
        }
    }
    found
}

/// Polls `check` over what the receiver holds until it gives a value, for at most `SOON`.
async fn eventually<T>(
    received: &Mutex<Received>,
    what: &str,
    check: impl Fn(&Received) -> Option<T>,
) -> T {
    let deadline = tokio::time::Instant::now() + SOON;
    loop {
        if let Some(found) = check(&received.lock().unwrap()) {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the receiver got no {what} within {SOON:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The quickstart over stdio, with only the standard variables set, exports the span of a
/// `tools/call` (parented by the request's `traceparent`) and its duration sample over
/// OTLP/HTTP-protobuf, while it runs (the batch and periodic exporters, with short
/// intervals), then exits cleanly.
#[tokio::test]
async fn quickstart_exports_spans_and_metrics_over_otlp() {
    let (endpoint, received) = receiver(Otlp::Http).await;
    quickstart_exports(
        &endpoint,
        &received,
        "http/protobuf",
        "application/x-protobuf",
        &[],
    )
    .await;
}

/// The TLS variables: the collector's CA, and this server's certificate for mutual TLS.
fn tls_variables() -> [(&'static str, String); 3] {
    [
        ("OTEL_EXPORTER_OTLP_CERTIFICATE", fixture("ca.pem")),
        (
            "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE",
            fixture("client.pem"),
        ),
        ("OTEL_EXPORTER_OTLP_CLIENT_KEY", fixture("client.key")),
    ]
}

/// The same to an `https://` collector that checks the exporter's client certificate,
/// trusted through `OTEL_EXPORTER_OTLP_CERTIFICATE`.
#[tokio::test]
async fn quickstart_exports_over_otlp_to_an_https_collector() {
    let (endpoint, received) = tls_receiver(Otlp::Http).await;
    quickstart_exports(
        &endpoint,
        &received,
        "http/protobuf",
        "application/x-protobuf",
        &tls_variables(),
    )
    .await;
}

/// And over gRPC with TLS.
#[tokio::test]
async fn quickstart_exports_over_otlp_grpc_to_an_https_collector() {
    let (endpoint, received) = tls_receiver(Otlp::Grpc).await;
    quickstart_exports(
        &endpoint,
        &received,
        "grpc",
        "application/grpc",
        &tls_variables(),
    )
    .await;
}

/// The same with `OTEL_EXPORTER_OTLP_PROTOCOL=grpc`: the `Export` calls of the collector's
/// gRPC services, over HTTP/2; and the metrics as deltas.
#[tokio::test]
async fn quickstart_exports_spans_and_metrics_over_otlp_grpc() {
    let (endpoint, received) = receiver(Otlp::Grpc).await;
    // With delta temporality, as Datadog's and Dynatrace's intakes want it.
    let delta = [(
        "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
        "delta".to_owned(),
    )];
    quickstart_exports(&endpoint, &received, "grpc", "application/grpc", &delta).await;
    let r = received.lock().unwrap();
    let paths: std::collections::BTreeSet<&str> =
        r.requests.iter().map(|(path, ..)| path.as_str()).collect();
    assert_eq!(
        paths.into_iter().collect::<Vec<_>>(),
        [
            "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
            "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
        ]
    );
}

/// `OTEL_EXPORTER_OTLP_COMPRESSION=gzip`: every export gzipped, over HTTP and over gRPC
/// (the receivers inflate them, and the checks are the same).
#[tokio::test]
async fn quickstart_exports_gzipped_over_otlp_http_and_grpc() {
    let gzip = [("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip".to_owned())];
    let (endpoint, received) = receiver(Otlp::Http).await;
    quickstart_exports(
        &endpoint,
        &received,
        "http/protobuf",
        "application/x-protobuf",
        &gzip,
    )
    .await;
    let (endpoint, received) = receiver(Otlp::Grpc).await;
    quickstart_exports(&endpoint, &received, "grpc", "application/grpc", &gzip).await;
}

async fn quickstart_exports(
    endpoint: &str,
    received: &Mutex<Received>,
    protocol: &str,
    content_type: &str,
    variables: &[(&str, String)],
) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_quickstart"));
    // Only what this test sets: nothing inherited may redirect or turn off the export.
    for (var, _) in std::env::vars().filter(|(k, _)| k.starts_with("OTEL_")) {
        command.env_remove(var);
    }
    command.envs(variables.iter().map(|(k, v)| (k, v)));
    let mut child = command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
        .env("OTEL_EXPORTER_OTLP_HEADERS", "x-e2e=quickstart%20test")
        .env("OTEL_SERVICE_NAME", "quickstart-e2e")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .env("OTEL_METRIC_EXPORT_INTERVAL", "200")
        .env("RUST_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let traceparent = format!("00-{TRACE_ID}-{PARENT_ID}-01");
    let call = serde_json::json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 40},
                   "_meta": {"traceparent": traceparent}}
    });
    let input = format!(
        "{}\n{}\n{call}\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    stdin.write_all(input.as_bytes()).await.unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for id in [1, 2] {
        let line = tokio::time::timeout(SOON, lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("a reply line");
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["id"], id, "{reply}");
        if id == 2 {
            assert_eq!(reply["result"]["content"][0]["text"], "42", "{reply}");
        }
    }

    // Exported while the server still runs.
    let (service, span) = eventually(received, "`tools/call add` span", |r| {
        spans_named(r, "tools/call add").into_iter().next()
    })
    .await;
    let (unit, temporality, point) = eventually(received, "operation duration sample", |r| {
        histogram_points(r, "mcp.server.operation.duration", "add")
            .into_iter()
            .next()
    })
    .await;

    // Stdin closed: the server ends, flushing its exporters, and exits with success.
    drop(stdin);
    let status = tokio::time::timeout(SOON, child.wait())
        .await
        .expect("the quickstart exits when stdin closes")
        .unwrap();
    assert!(status.success(), "exit status {status}");

    assert_eq!(
        service, "quickstart-e2e",
        "OTEL_SERVICE_NAME names the resource"
    );
    assert_eq!(span.kind, SpanKind::Server as i32);
    assert_eq!(hex(&span.trace_id), TRACE_ID, "the traceparent's trace");
    assert_eq!(
        hex(&span.parent_span_id),
        PARENT_ID,
        "the traceparent's span is the parent"
    );
    assert!(span.end_time_unix_nano >= span.start_time_unix_nano);
    let attrs = attributes(&span.attributes);
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "add"),
        ("network.transport", "pipe"),
        ("jsonrpc.request.id", "2"),
        ("mcp.protocol.version", "2025-11-25"),
    ] {
        assert_eq!(attrs.get(key), Some(&value), "{key}: {attrs:?}");
    }
    assert!(!attrs.contains_key("error.type"), "{attrs:?}");

    assert_eq!(unit, "s");
    // AggregationTemporality: 1 delta, 2 cumulative (the default).
    let delta = variables
        .iter()
        .any(|(k, v)| *k == "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE" && v == "delta");
    assert_eq!(temporality, if delta { 1 } else { 2 });
    assert!(point.count >= 1, "{point:?}");
    assert_eq!(point.bucket_counts.iter().sum::<u64>(), point.count);
    assert_eq!(
        point.explicit_bounds.first(),
        Some(&0.01),
        "the conventions' buckets"
    );
    let point_attrs = attributes(&point.attributes);
    assert_eq!(point_attrs.get("mcp.method.name"), Some(&"tools/call"));
    assert_eq!(point_attrs.get("network.transport"), Some(&"pipe"));
    assert!(
        !point_attrs.contains_key("jsonrpc.request.id"),
        "no per-request series: {point_attrs:?}"
    );

    let r = received.lock().unwrap();
    assert!(!r.requests.is_empty());
    let gzip = variables
        .iter()
        .any(|(k, v)| *k == "OTEL_EXPORTER_OTLP_COMPRESSION" && v == "gzip");
    for (path, sent_type, header, encoding) in &r.requests {
        assert_eq!(sent_type, content_type, "{path}");
        assert_eq!(encoding, if gzip { "gzip" } else { "" }, "{path}");
        assert_eq!(
            header, "quickstart test",
            "{path}: OTEL_EXPORTER_OTLP_HEADERS, percent-decoded"
        );
    }
}

/// With nothing listening at the endpoint, the server still answers, and still exits
/// cleanly (and soon) when stdin closes: a failed export is not the server's failure.
#[tokio::test]
async fn an_unreachable_collector_does_not_stop_the_server() {
    for protocol in ["http/protobuf", "grpc"] {
        unreachable_collector(protocol).await;
    }
}

async fn unreachable_collector(protocol: &str) {
    // A port that was free a moment ago, and is closed now.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_quickstart"));
    for (var, _) in std::env::vars().filter(|(k, _)| k.starts_with("OTEL_")) {
        command.env_remove(var);
    }
    let mut child = command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{closed}"))
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
        .env("OTEL_BSP_SCHEDULE_DELAY", "50")
        .env("RUST_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}"#,
                "\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut replies = Vec::new();
    tokio::time::timeout(SOON, async {
        while replies.len() < 2 {
            let line = lines.next_line().await.unwrap().expect("a reply line");
            replies.push(serde_json::from_str::<Value>(&line).unwrap());
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{protocol}: the server answers"));
    assert_eq!(replies[1]["result"]["content"][0]["text"], "still here");
    drop(stdin);
    let status = tokio::time::timeout(SOON, child.wait())
        .await
        .unwrap_or_else(|_| panic!("{protocol}: the server exits when stdin closes"))
        .unwrap();
    assert!(status.success(), "{protocol}: exit status {status}");
}

/// A bad variable is a clear error before anything is served, not a panic.
#[tokio::test]
async fn a_bad_otel_variable_is_refused_with_its_name() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_quickstart"));
    for (var, _) in std::env::vars().filter(|(k, _)| k.starts_with("OTEL_")) {
        command.env_remove(var);
    }
    let run = command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
        .env("OTEL_EXPORTER_OTLP_TIMEOUT", "ten seconds")
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let run = tokio::time::timeout(SOON, run)
        .await
        .expect("refused at once")
        .unwrap();
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("OTEL_EXPORTER_OTLP_TIMEOUT"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(run.stdout.is_empty());
}

/// One sample line of the Prometheus text format: name, labels, value.
fn parse_sample(line: &str) -> (String, BTreeMap<String, String>, f64) {
    let (series, value) = line.rsplit_once(' ').unwrap();
    let value: f64 = value.parse().unwrap_or_else(|_| panic!("value of {line}"));
    let Some((name, labels)) = series.split_once('{') else {
        return (series.to_owned(), BTreeMap::new(), value);
    };
    let labels = labels.strip_suffix('}').unwrap();
    let mut map = BTreeMap::new();
    let mut rest = labels;
    while !rest.is_empty() {
        let (key, after) = rest.split_once("=\"").unwrap();
        // Values here hold no escaped quotes (tool and method names).
        let (value, after) = after.split_once('"').unwrap();
        map.insert(key.to_owned(), value.to_owned());
        rest = after.strip_prefix(',').unwrap_or(after);
    }
    (name.to_owned(), map, value)
}

/// `everything --http … --metrics …` serves `/metrics` on its own port; after a
/// `tools/call`, the operation histogram has that tool's series, with cumulative buckets
/// ending at `+Inf` = `_count`.
#[tokio::test]
async fn everything_serves_prometheus_metrics() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_everything"));
    for (var, _) in std::env::vars().filter(|(k, _)| k.starts_with("OTEL_")) {
        command.env_remove(var);
    }
    let mut child = command
        .args(["--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut log = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut mcp, mut metrics) = (None, None);
    tokio::time::timeout(SOON, async {
        while mcp.is_none() || metrics.is_none() {
            let line = log.next_line().await.unwrap().expect("the server runs");
            if let Some(url) = line.strip_prefix("MCP server listening on ") {
                mcp = Some(url.to_owned());
            } else if let Some(url) = line.strip_prefix("Prometheus metrics at ") {
                metrics = Some(url.to_owned());
            }
        }
    })
    .await
    .expect("the server announces both URLs");
    let (mcp, metrics) = (mcp.unwrap(), metrics.unwrap());
    assert!(
        metrics.ends_with("/metrics") && !metrics.contains(":0/"),
        "{metrics}"
    );
    assert_ne!(
        mcp.split('/').nth(2),
        metrics.split('/').nth(2),
        "a listener of its own"
    );

    let http = reqwest::Client::new();
    let call = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "test_simple_text", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let reply = http
        .post(&mcp)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "test_simple_text")
        .json(&call)
        .send()
        .await
        .unwrap();
    assert!(reply.status().is_success(), "{}", reply.status());
    let body = reply.text().await.unwrap();
    assert!(body.contains("simple text response"), "{body}");

    let response = http.get(&metrics).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let text = response.text().await.unwrap();
    assert!(
        text.contains("# TYPE mcp_server_operation_duration_seconds histogram"),
        "{text}"
    );
    let family = "mcp_server_operation_duration_seconds";
    let mut buckets = Vec::new();
    let (mut count, mut sum) = (None, None);
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, labels, value) = parse_sample(line);
        if labels.get("gen_ai_tool_name").map(String::as_str) != Some("test_simple_text") {
            continue;
        }
        assert_eq!(labels["mcp_method_name"], "tools/call", "{line}");
        assert_eq!(labels["network_transport"], "tcp", "{line}");
        assert_eq!(labels["mcp_protocol_version"], "2026-07-28", "{line}");
        match name.strip_prefix(family) {
            Some("_bucket") => buckets.push((labels["le"].clone(), value)),
            Some("_count") => count = Some(value),
            Some("_sum") => sum = Some(value),
            _ => panic!("unexpected series for the tool: {line}"),
        }
    }
    let count = count.expect("a _count series");
    assert_eq!(count, 1.0, "one call");
    assert!(sum.expect("a _sum series") >= 0.0);
    assert_eq!(
        buckets.first().map(|b| b.0.as_str()),
        Some("0.01"),
        "{buckets:?}"
    );
    assert_eq!(
        buckets.last(),
        Some(&("+Inf".to_owned(), count)),
        "{buckets:?}"
    );
    assert!(
        buckets.windows(2).all(|w| w[0].1 <= w[1].1),
        "cumulative: {buckets:?}"
    );
    child.kill().await.unwrap();
}
