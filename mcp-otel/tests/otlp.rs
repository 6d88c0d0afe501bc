//! What `ferromcp-otel` sends a collector over OTLP/HTTP, decoded with the OpenTelemetry
//! project's own message types by a receiver in this test: the span a user's backend shows
//! for a tool call (name, kind, the conventions' attributes, the caller's trace as parent),
//! and the duration histogram's sample. Export is flushed explicitly, never waited for.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use ferromcp::prelude::*;
use ferromcp::testing::{ClientOptions, TestClient};
use ferromcp_otel::Otel;
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::metric;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message as _;
use serde_json::json;

struct Calc;

#[ferromcp::server(name = "calc")]
impl Calc {
    /// Adds two integers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

/// What the receiver was sent.
#[derive(Default)]
struct Received {
    traces: Vec<ExportTraceServiceRequest>,
    metrics: Vec<ExportMetricsServiceRequest>,
}

/// An OTLP/HTTP receiver on a free port: its base URL, and what it receives.
async fn receiver() -> (String, Arc<Mutex<Received>>) {
    let received = Arc::new(Mutex::new(Received::default()));
    let (traces, metrics) = (received.clone(), received.clone());
    let app = axum::Router::new()
        .route(
            "/v1/traces",
            axum::routing::post(move |body: Bytes| async move {
                let request = ExportTraceServiceRequest::decode(body).unwrap();
                traces.lock().unwrap().traces.push(request);
            }),
        )
        .route(
            "/v1/metrics",
            axum::routing::post(move |body: Bytes| async move {
                let request = ExportMetricsServiceRequest::decode(body).unwrap();
                metrics.lock().unwrap().metrics.push(request);
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, received)
}

fn text(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| match &kv.value {
            Some(AnyValue {
                value: Some(any_value::Value::StringValue(s)),
            }) => Some(s.clone()),
            _ => None,
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_reaches_the_collector_as_a_server_span_and_a_duration_sample() {
    let (url, received) = receiver().await;
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(format!("{url}/v1/traces"))
        .build()
        .unwrap();
    let metrics = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_endpoint(format!("{url}/v1/metrics"))
        .build()
        .unwrap();
    let otel = Otel::with_exporters(spans, metrics);
    let server = Server::builder(Calc)
        .observer(otel.clone())
        .build()
        .unwrap();
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    client
        .request(
            "tools/call",
            Some(json!({
                "name": "add",
                "arguments": {"a": 1, "b": 2},
                "_meta": {"traceparent": format!("00-{trace}-00f067aa0ba902b7-01")}
            })),
        )
        .await
        .unwrap();
    // The exporters block on their HTTP requests: off the runtime's threads, so that the
    // receiver can answer them.
    tokio::task::spawn_blocking(move || otel.shutdown().unwrap())
        .await
        .unwrap();

    let received = received.lock().unwrap();
    let spans: Vec<&Span> = received
        .traces
        .iter()
        .flat_map(|r| &r.resource_spans)
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| &s.spans)
        .collect();
    let call = spans
        .iter()
        .find(|s| s.name == "tools/call add")
        .unwrap_or_else(|| panic!("no tools/call span among {spans:?}"));
    assert_eq!(call.kind, SpanKind::Server as i32);
    assert_eq!(hex(&call.trace_id), trace);
    assert_eq!(hex(&call.parent_span_id), "00f067aa0ba902b7");
    let attributes = &call.attributes;
    assert_eq!(
        text(attributes, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert_eq!(text(attributes, "gen_ai.tool.name").as_deref(), Some("add"));
    assert_eq!(
        text(attributes, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(
        text(attributes, "network.transport").as_deref(),
        Some("pipe")
    );
    assert!(text(attributes, "jsonrpc.request.id").is_some());
    assert!(text(attributes, "mcp.protocol.version").is_some());

    let duration = received
        .metrics
        .iter()
        .flat_map(|r| &r.resource_metrics)
        .flat_map(|r| &r.scope_metrics)
        .flat_map(|s| &s.metrics)
        .find(|m| m.name == "mcp.server.operation.duration")
        .expect("the operation duration histogram");
    assert_eq!(duration.unit, "s");
    let Some(metric::Data::Histogram(histogram)) = &duration.data else {
        panic!("not a histogram: {duration:?}");
    };
    let call = histogram
        .data_points
        .iter()
        .find(|p| text(&p.attributes, "gen_ai.tool.name").as_deref() == Some("add"))
        .expect("a sample of the tool call");
    assert_eq!(call.count, 1);
    assert_eq!(
        text(&call.attributes, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
