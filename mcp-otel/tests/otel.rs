//! OpenTelemetry spans and metrics (`ferromcp-otel`), read back through the SDK's in-memory
//! exporters: names, kinds and attributes by the semantic conventions for MCP, in both eras,
//! over stdio and HTTP; parents from `_meta`; the isError and protocol-error cases; the
//! duration histograms, the gauges and their Prometheus text.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ferromcp::prelude::*;
use ferromcp::testing::{ClientOptions, TestClient};
use ferromcp_otel::{Prometheus, Telemetry};
use opentelemetry::trace::{SpanId, SpanKind, Status, TraceId};
use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::{
    InMemoryMetricExporter, InMemoryMetricExporterBuilder, PeriodicReader, SdkMeterProvider,
    Temporality,
};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;

struct Calc;

#[ferromcp::server(name = "calc")]
impl Calc {
    /// Adds two integers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }

    /// Always fails, as a tool failure the model reads.
    #[tool]
    fn fail(&self) -> Result<String, &'static str> {
        Err("no luck")
    }

    /// The OpenTelemetry trace the handler runs in (all zeros: none).
    #[tool]
    fn trace(&self) -> String {
        use opentelemetry::trace::TraceContextExt as _;
        opentelemetry::Context::current()
            .span()
            .span_context()
            .trace_id()
            .to_string()
    }

    /// Logs a line, then asks the user to confirm; says what the user chose.
    #[tool]
    async fn confirm(&self, ctx: Context) -> String {
        ctx.info("asking").await;
        let schema: ferromcp::types::ElicitRequestedSchema =
            serde_json::from_value(json!({"type": "object", "properties": {}})).unwrap();
        let params = ferromcp::types::ElicitRequestFormParams::new("Sure?", schema);
        match ctx.elicit_form(params).await {
            Ok(answer) => format!("{:?}", answer.action),
            Err(e) => format!("failed: {e}"),
        }
    }

    /// A greeting.
    #[prompt]
    fn greet(&self, name: String) -> String {
        format!("Say hello to {name}.")
    }

    /// The readme.
    #[resource(uri = "calc://readme")]
    fn readme(&self) -> &'static str {
        "calc"
    }
}

/// A server whose telemetry goes to in-memory exporters (and a Prometheus reader).
struct Observed {
    server: Server,
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    meters: SdkMeterProvider,
    prometheus: Prometheus,
}

fn observed() -> Observed {
    let spans = InMemorySpanExporter::default();
    let tracers = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    let metrics = InMemoryMetricExporter::default();
    let prometheus = Prometheus::new();
    let meters = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics.clone()).build())
        .with_reader(prometheus.reader())
        .build();
    let server = Server::builder(Calc)
        .observer(Telemetry::new(&tracers, &meters))
        .build()
        .unwrap();
    Observed {
        server,
        spans,
        metrics,
        meters,
        prometheus,
    }
}

impl Observed {
    async fn client(&self, options: ClientOptions) -> TestClient {
        TestClient::connect(&self.server, options).await.unwrap()
    }

    fn spans(&self) -> Vec<SpanData> {
        self.spans.get_finished_spans().unwrap()
    }

    fn span(&self, name: &str) -> SpanData {
        let spans = self.spans();
        spans
            .iter()
            .rev()
            .find(|s| s.name == name)
            .cloned()
            .unwrap_or_else(|| {
                let names: Vec<_> = spans.iter().map(|s| s.name.to_string()).collect();
                panic!("no span {name:?} among {names:?}")
            })
    }

    fn metrics(&self) -> Vec<ResourceMetrics> {
        self.metrics.reset();
        self.meters.force_flush().unwrap();
        self.metrics.get_finished_metrics().unwrap()
    }
}

fn attr(span: &SpanData, key: &str) -> Option<String> {
    find(&span.attributes, key)
}

fn find(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| match &kv.value {
            Value::String(s) => s.to_string(),
            other => other.to_string(),
        })
}

#[tokio::test(flavor = "current_thread")]
async fn requests_are_server_spans_named_and_attributed_by_the_conventions() {
    let o = observed();
    for (options, version) in [
        (ClientOptions::legacy(), "2025-11-25"),
        (ClientOptions::modern(), "2026-07-28"),
    ] {
        let client = o.client(options).await;
        client
            .call_tool("add", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        let call = o.span("tools/call add");
        assert_eq!(call.span_kind, SpanKind::Server);
        assert_eq!(call.status, Status::Unset);
        for (key, value) in [
            ("mcp.method.name", "tools/call"),
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", "add"),
            ("mcp.protocol.version", version),
            ("network.transport", "pipe"),
        ] {
            assert_eq!(
                attr(&call, key).as_deref(),
                Some(value),
                "{key} in {version}"
            );
        }
        assert!(attr(&call, "jsonrpc.request.id").is_some());
        assert_eq!(attr(&call, "error.type"), None);
        // stdio has no session id.
        assert_eq!(attr(&call, "mcp.session.id"), None);
        // No trace context was sent: the span starts a trace.
        assert_eq!(call.parent_span_id, SpanId::INVALID);

        client
            .get_prompt("greet", json!({"name": "Ada"}))
            .await
            .unwrap();
        let prompt = o.span("prompts/get greet");
        assert_eq!(
            attr(&prompt, "gen_ai.prompt.name").as_deref(),
            Some("greet")
        );
        assert_eq!(attr(&prompt, "gen_ai.operation.name"), None);

        client.read_resource("calc://readme").await.unwrap();
        // The URI is an attribute, never part of the name (high cardinality).
        let read = o.span("resources/read");
        assert_eq!(
            attr(&read, "mcp.resource.uri").as_deref(),
            Some("calc://readme")
        );

        client.list_tools().await.unwrap();
        let list = o.span("tools/list");
        assert_eq!(
            attr(&list, "mcp.protocol.version").as_deref(),
            Some(version)
        );
        assert_eq!(attr(&list, "gen_ai.tool.name"), None);
        o.spans.reset();
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_traceparent_in_meta_is_the_parent_of_the_server_span() {
    let o = observed();
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let parent = "00f067aa0ba902b7";
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = o.client(options).await;
        client
            .request(
                "tools/call",
                Some(json!({
                    "name": "add",
                    "arguments": {"a": 1, "b": 1},
                    "_meta": {
                        "traceparent": format!("00-{trace}-{parent}-01"),
                        "tracestate": "rojo=00f067aa0ba902b7"
                    }
                })),
            )
            .await
            .unwrap();
        let call = o.span("tools/call add");
        assert_eq!(
            call.span_context.trace_id(),
            TraceId::from_hex(trace).unwrap()
        );
        assert_eq!(call.parent_span_id, SpanId::from_hex(parent).unwrap());
        assert!(call.parent_span_is_remote);
        assert_eq!(
            call.span_context.trace_state().get("rojo"),
            Some("00f067aa0ba902b7")
        );
        o.spans.reset();
    }
}

#[tokio::test(flavor = "current_thread")]
async fn tool_errors_and_protocol_errors_mark_the_span_as_failed() {
    let o = observed();
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = o.client(options).await;
        let r = client.call_tool("fail", json!({})).await.unwrap();
        assert_eq!(r.is_error, Some(true));
        let failed = o.span("tools/call fail");
        assert_eq!(attr(&failed, "error.type").as_deref(), Some("tool_error"));
        assert_eq!(attr(&failed, "rpc.response.status_code"), None);
        assert!(matches!(failed.status, Status::Error { .. }));

        client.call_tool("nope", json!({})).await.unwrap_err();
        let unknown = o.span("tools/call nope");
        assert_eq!(attr(&unknown, "error.type").as_deref(), Some("-32602"));
        assert_eq!(
            attr(&unknown, "rpc.response.status_code").as_deref(),
            Some("-32602")
        );
        match &unknown.status {
            Status::Error { description } => {
                assert!(description.contains("unknown tool"), "{description}")
            }
            other => panic!("status {other:?}"),
        }

        client.request("no/such/method", None).await.unwrap_err();
        let missing = o.span("no/such/method");
        assert_eq!(attr(&missing, "error.type").as_deref(), Some("-32601"));
        o.spans.reset();
    }
}

#[tokio::test(flavor = "current_thread")]
async fn http_legacy_spans_carry_the_session_id_and_tcp() {
    let o = observed();
    let router = axum::Router::new().nest_service(
        "/mcp",
        o.server.http_router(
            ferromcp::http::HttpOptions::default(),
            ferromcp::CancellationToken::new(),
        ),
    );
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let (headers, _) = post(&router, &[], init).await;
    let session = headers
        .get("mcp-session-id")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let call = r#"{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#;
    let (_, body) = post(
        &router,
        &[
            ("mcp-session-id", &session),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        call,
    )
    .await;
    assert!(body.contains("\"5\""), "{body}");
    let span = o.span("tools/call add");
    assert_eq!(attr(&span, "mcp.session.id"), Some(session));
    assert_eq!(attr(&span, "network.transport").as_deref(), Some("tcp"));
    assert_eq!(attr(&span, "jsonrpc.request.id").as_deref(), Some("call-1"));
    assert_eq!(
        attr(&span, "mcp.protocol.version").as_deref(),
        Some("2025-11-25")
    );
    let init = o.span("initialize");
    assert_eq!(
        attr(&init, "mcp.protocol.version").as_deref(),
        Some("2025-11-25")
    );
}

#[tokio::test(flavor = "current_thread")]
async fn http_modern_spans_are_stateless_tcp_and_take_their_parent_from_meta() {
    let o = observed();
    let router = axum::Router::new().nest_service(
        "/mcp",
        o.server.http_router(
            ferromcp::http::HttpOptions::default(),
            ferromcp::CancellationToken::new(),
        ),
    );
    let call = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {
            "name": "add", "arguments": {"a": 2, "b": 2},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
            }
        }
    });
    let (_, body) = post(
        &router,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "add"),
        ],
        &call.to_string(),
    )
    .await;
    assert!(body.contains("\"4\""), "{body}");
    let span = o.span("tools/call add");
    assert_eq!(span.span_kind, SpanKind::Server);
    assert_eq!(attr(&span, "network.transport").as_deref(), Some("tcp"));
    assert_eq!(
        attr(&span, "mcp.protocol.version").as_deref(),
        Some("2026-07-28")
    );
    assert_eq!(attr(&span, "mcp.session.id"), None);
    assert_eq!(attr(&span, "jsonrpc.request.id").as_deref(), Some("7"));
    assert_eq!(
        span.parent_span_id,
        SpanId::from_hex("b7ad6b7169203331").unwrap()
    );
}

async fn post(
    router: &axum::Router,
    headers: &[(&str, &str)],
    body: &str,
) -> (http::HeaderMap, String) {
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;
    let mut req = http::Request::post("/mcp")
        .header("host", "127.0.0.1:3000")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let response = router
        .clone()
        .oneshot(req.body(axum::body::Body::from(body.to_owned())).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), http::StatusCode::OK);
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (headers, String::from_utf8(bytes.to_vec()).unwrap())
}

/// The data points of the histogram `name`: each one's attributes, count and bounds.
fn histogram(metrics: &[ResourceMetrics], name: &str) -> Vec<(Vec<KeyValue>, u64, Vec<f64>)> {
    let mut out = Vec::new();
    for rm in metrics {
        for scope in rm.scope_metrics() {
            for metric in scope.metrics().filter(|m| m.name() == name) {
                assert_eq!(metric.unit(), "s");
                if let AggregatedMetrics::F64(MetricData::Histogram(h)) = metric.data() {
                    for p in h.data_points() {
                        out.push((
                            p.attributes().cloned().collect(),
                            p.count(),
                            p.bounds().collect(),
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The sum of the up-down counter `name` over its data points.
fn gauge(metrics: &[ResourceMetrics], name: &str) -> Option<i64> {
    let mut total = None;
    for rm in metrics {
        for scope in rm.scope_metrics() {
            for metric in scope.metrics().filter(|m| m.name() == name) {
                if let AggregatedMetrics::I64(MetricData::Sum(s)) = metric.data() {
                    total = Some(s.data_points().map(|p| p.value()).sum());
                }
            }
        }
    }
    total
}

const BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

#[tokio::test(flavor = "current_thread")]
async fn durations_sessions_and_requests_are_measured() {
    let o = observed();
    let client = o.client(ClientOptions::legacy()).await;
    client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    client
        .call_tool("add", json!({"a": 3, "b": 4}))
        .await
        .unwrap();
    client.call_tool("fail", json!({})).await.unwrap();
    client.call_tool("nope", json!({})).await.unwrap_err();

    let metrics = o.metrics();
    let ops = histogram(&metrics, "mcp.server.operation.duration");
    let point = |tool: &str| {
        ops.iter()
            .find(|(a, _, _)| find(a, "gen_ai.tool.name").as_deref() == Some(tool))
            .unwrap_or_else(|| panic!("no sample for {tool}: {ops:?}"))
    };
    let (add, count, bounds) = point("add");
    assert_eq!(*count, 2);
    assert_eq!(bounds, &BOUNDARIES);
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "pipe"),
    ] {
        assert_eq!(find(add, key).as_deref(), Some(value), "{key}");
    }
    assert_eq!(find(add, "error.type"), None);
    // High-cardinality attributes stay on spans.
    assert_eq!(find(add, "jsonrpc.request.id"), None);
    assert_eq!(
        find(&point("fail").0, "error.type").as_deref(),
        Some("tool_error")
    );
    let unknown = &point("nope").0;
    assert_eq!(find(unknown, "error.type").as_deref(), Some("-32602"));
    assert_eq!(
        find(unknown, "rpc.response.status_code").as_deref(),
        Some("-32602")
    );
    assert!(
        ops.iter().any(
            |(a, n, _)| find(a, "mcp.method.name").as_deref() == Some("initialize") && *n == 1
        )
    );
    assert_eq!(gauge(&metrics, "mcp.server.active_sessions"), Some(1));
    assert_eq!(gauge(&metrics, "mcp.server.active_requests"), Some(0));
    assert!(histogram(&metrics, "mcp.server.session.duration").is_empty());

    drop(client);
}

#[tokio::test(flavor = "current_thread")]
async fn a_session_ending_with_its_connection_records_its_duration() {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
    let o = observed();
    let (client, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let server = o.server.clone();
    let served = tokio::spawn(async move { server.serve_io(read, write).await });
    let (client_read, mut client_write) = tokio::io::split(client);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    client_write
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    let mut lines = tokio::io::BufReader::new(client_read).lines();
    let answer = lines.next_line().await.unwrap().unwrap();
    assert!(answer.contains("protocolVersion"), "{answer}");
    assert_eq!(gauge(&o.metrics(), "mcp.server.active_sessions"), Some(1));

    // End of input ends the connection, and with it the session.
    client_write.shutdown().await.unwrap();
    drop(client_write);
    served.await.unwrap().unwrap();
    let metrics = o.metrics();
    assert_eq!(gauge(&metrics, "mcp.server.active_sessions"), Some(0));
    let sessions = histogram(&metrics, "mcp.server.session.duration");
    let (attributes, count, bounds) = sessions.first().expect("a session duration");
    assert_eq!(*count, 1);
    assert_eq!(bounds, &BOUNDARIES);
    assert_eq!(
        find(attributes, "mcp.protocol.version").as_deref(),
        Some("2025-11-25")
    );
    assert_eq!(
        find(attributes, "network.transport").as_deref(),
        Some("pipe")
    );
}

#[tokio::test(flavor = "current_thread")]
async fn prometheus_text_has_the_histograms_buckets_and_labels() {
    let o = observed();
    let client = o.client(ClientOptions::modern()).await;
    client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    let text = o.prometheus.render().unwrap();
    assert!(
        text.contains("# TYPE mcp_server_operation_duration_seconds histogram\n"),
        "{text}"
    );
    let labels = "gen_ai_operation_name=\"execute_tool\",gen_ai_tool_name=\"add\",mcp_method_name=\"tools/call\",mcp_protocol_version=\"2026-07-28\",network_transport=\"pipe\"";
    for line in [
        format!("mcp_server_operation_duration_seconds_bucket{{{labels},le=\"300\"}} 1\n"),
        format!("mcp_server_operation_duration_seconds_bucket{{{labels},le=\"+Inf\"}} 1\n"),
        format!("mcp_server_operation_duration_seconds_count{{{labels}}} 1\n"),
        "# TYPE mcp_server_active_requests gauge\n".to_owned(),
        "mcp_server_active_requests{network_transport=\"pipe\"} 0\n".to_owned(),
    ] {
        assert!(text.contains(&line), "{line} missing from:\n{text}");
    }
    // Every bucket line is cumulative, so counts never decrease along `le`.
    let counts: Vec<u64> = text
        .lines()
        .filter(|l| {
            l.starts_with("mcp_server_operation_duration_seconds_bucket") && l.contains("\"add\"")
        })
        .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(counts.len(), BOUNDARIES.len() + 1);
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
}

/// Polls (boundedly) until the gauge `name` reads `want`.
async fn gauge_becomes(o: &Observed, name: &str, want: i64) {
    let mut last = None;
    for _ in 0..200 {
        last = gauge(&o.metrics(), name);
        if last == Some(want) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("{name} stayed at {last:?}, not {want}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_tasks_and_listen_streams_are_counted() {
    use ferromcp::types::{TASKS_EXTENSION, Tool, ToolExecution, ToolTaskSupport};
    let o = observed();
    let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(0));
    let mut tool = Tool::new(
        "gated",
        json!({"type": "object"}).as_object().cloned().unwrap(),
    );
    tool.execution = Some(ToolExecution {
        task_support: Some(ToolTaskSupport::Optional),
        ..Default::default()
    });
    let opened = gate.clone();
    o.server
        .registry()
        .add_tool(
            tool,
            ferromcp::registry::tool_fn(move |_: serde_json::Value, _ctx: Context| {
                let opened = opened.clone();
                async move {
                    opened.acquire().await.unwrap().forget();
                    "done"
                }
            }),
            None,
        )
        .unwrap();
    let client = o
        .client(ClientOptions::modern().with_extension(TASKS_EXTENSION))
        .await;
    assert_eq!(gauge(&o.metrics(), "mcp.server.active_tasks"), Some(0));
    let created = client
        .request(
            "tools/call",
            Some(json!({"name": "gated", "arguments": {}})),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    gauge_becomes(&o, "mcp.server.active_tasks", 1).await;
    gate.add_permits(1);
    gauge_becomes(&o, "mcp.server.active_tasks", 0).await;

    assert_eq!(
        gauge(&o.metrics(), "mcp.server.active_listen_streams"),
        Some(0)
    );
    let listener = std::sync::Arc::new(o.client(ClientOptions::modern()).await);
    let listening = listener.clone();
    let stream = tokio::spawn(async move {
        let params = json!({"notifications": {"toolsListChanged": true}});
        let id = ferromcp::jsonrpc::RequestId::String("listen".into());
        listening
            .request_with_id(id, "subscriptions/listen", Some(params))
            .await
    });
    gauge_becomes(&o, "mcp.server.active_listen_streams", 1).await;
    // The client ends the stream.
    listener
        .notify(
            "notifications/cancelled",
            Some(json!({"requestId": "listen"})),
        )
        .await;
    gauge_becomes(&o, "mcp.server.active_listen_streams", 0).await;
    stream.abort();
    drop(client);
}

#[tokio::test(flavor = "current_thread")]
async fn a_session_restored_from_a_shared_store_counts_where_it_is_held() {
    let o = observed();
    let shared = std::sync::Arc::new(ferromcp::store::MemorySessionStore::default());
    let endpoint = || {
        axum::Router::new().nest_service(
            "/mcp",
            o.server.http_router(
                ferromcp::http::HttpOptions::default().session_store(shared.clone()),
                ferromcp::CancellationToken::new(),
            ),
        )
    };
    let (a, b) = (endpoint(), endpoint());
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let (headers, _) = post(&a, &[], init).await;
    let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
    assert_eq!(gauge(&o.metrics(), "mcp.server.active_sessions"), Some(1));
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1}}}"#;
    let (_, body) = post(
        &b,
        &[
            ("mcp-session-id", &session),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        call,
    )
    .await;
    assert!(body.contains("\"2\""), "{body}");
    assert_eq!(
        gauge(&o.metrics(), "mcp.server.active_sessions"),
        Some(2),
        "held by both endpoints now"
    );
}

/// A server with metrics-only telemetry, read by an in-memory exporter of `temporality`.
fn metrics_only(temporality: Temporality) -> (Server, InMemoryMetricExporter, SdkMeterProvider) {
    let (builder, metrics, meters) = metrics_only_builder(Server::builder(Calc), temporality);
    (builder.build().unwrap(), metrics, meters)
}

/// `builder` with metrics-only telemetry, read by an in-memory exporter of `temporality`.
fn metrics_only_builder<H>(
    builder: ferromcp::ServerBuilder<H>,
    temporality: Temporality,
) -> (
    ferromcp::ServerBuilder<H>,
    InMemoryMetricExporter,
    SdkMeterProvider,
) {
    let metrics = InMemoryMetricExporterBuilder::new()
        .with_temporality(temporality)
        .build();
    let meters = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics.clone()).build())
        .build();
    (
        builder.observer(Telemetry::metrics_only(&meters)),
        metrics,
        meters,
    )
}

/// A `tools/call` of `tool` with no arguments, in the trace `trace` (a remote parent span).
async fn traced_call(client: &TestClient, tool: &str, trace: &str) -> serde_json::Value {
    client
        .request(
            "tools/call",
            Some(json!({
                "name": tool,
                "arguments": {},
                "_meta": {"traceparent": format!("00-{trace}-00f067aa0ba902b7-01")}
            })),
        )
        .await
        .unwrap()
}

fn collect(metrics: &InMemoryMetricExporter, meters: &SdkMeterProvider) -> Vec<ResourceMetrics> {
    metrics.reset();
    meters.force_flush().unwrap();
    metrics.get_finished_metrics().unwrap()
}

/// The count of the duration samples of `tools/call` for `tool`, in `version`.
fn calls_of(metrics: &[ResourceMetrics], tool: &str, version: &str) -> u64 {
    histogram(metrics, "mcp.server.operation.duration")
        .iter()
        .filter(|(a, _, _)| {
            find(a, "gen_ai.tool.name").as_deref() == Some(tool)
                && find(a, "mcp.protocol.version").as_deref() == Some(version)
        })
        .map(|(_, n, _)| n)
        .sum()
}

#[tokio::test(flavor = "current_thread")]
async fn metrics_only_telemetry_measures_and_keeps_the_callers_trace_without_spans() {
    let (server, metrics, meters) = metrics_only(Temporality::Cumulative);
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    for (options, version) in [
        (ClientOptions::legacy(), "2025-11-25"),
        (ClientOptions::modern(), "2026-07-28"),
    ] {
        let client = TestClient::connect(&server, options).await.unwrap();
        for _ in 0..3 {
            client
                .call_tool("add", json!({"a": 1, "b": 2}))
                .await
                .unwrap();
        }
        client.call_tool("fail", json!({})).await.unwrap();
        // No span of its own, but the handler runs in the caller's trace context.
        let traced = traced_call(&client, "trace", trace).await;
        assert_eq!(traced["content"][0]["text"], trace, "{traced}");
        let untraced = client
            .request(
                "tools/call",
                Some(json!({"name": "trace", "arguments": {}})),
            )
            .await
            .unwrap();
        assert_eq!(
            untraced["content"][0]["text"],
            TraceId::INVALID.to_string(),
            "{untraced}"
        );

        let collected = collect(&metrics, &meters);
        assert_eq!(calls_of(&collected, "add", version), 3, "{version}");
        assert_eq!(calls_of(&collected, "trace", version), 2, "{version}");
        let ops = histogram(&collected, "mcp.server.operation.duration");
        let (fail, n, bounds) = ops
            .iter()
            .find(|(a, _, _)| {
                find(a, "gen_ai.tool.name").as_deref() == Some("fail")
                    && find(a, "mcp.protocol.version").as_deref() == Some(version)
            })
            .unwrap();
        assert_eq!(*n, 1);
        assert_eq!(bounds, &BOUNDARIES);
        for (key, value) in [
            ("mcp.method.name", "tools/call"),
            ("gen_ai.operation.name", "execute_tool"),
            ("network.transport", "pipe"),
            ("error.type", "tool_error"),
        ] {
            assert_eq!(find(fail, key).as_deref(), Some(value), "{key}");
        }
        assert_eq!(gauge(&collected, "mcp.server.active_requests"), Some(0));
    }
}

#[tokio::test(flavor = "current_thread")]
async fn samples_keep_counting_across_delta_collections() {
    let (server, metrics, meters) = metrics_only(Temporality::Delta);
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    for round in [3, 2, 0, 4] {
        for _ in 0..round {
            client
                .call_tool("add", json!({"a": 1, "b": 2}))
                .await
                .unwrap();
        }
        let collected = collect(&metrics, &meters);
        assert_eq!(calls_of(&collected, "add", "2025-11-25"), round);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn every_sample_counts_however_many_attribute_sets_there_are() {
    // More tools than the histogram binds (the rest are recorded unbound), and unknown ones
    // (protocol errors, never bound): none is lost.
    let (builder, metrics, meters) =
        metrics_only_builder(ServerBuilder::new("many", "1.0.0"), Temporality::Cumulative);
    let server = builder.build();
    let tools = 1_100;
    for n in 0..tools {
        let schema = serde_json::from_value(json!({"type": "object"})).unwrap();
        server
            .registry()
            .add_tool(
                ferromcp::types::Tool::new(format!("t-{n}"), schema),
                ferromcp::registry::tool_fn(|_: serde_json::Value, _| async { "ok" }),
                None,
            )
            .unwrap();
    }
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    // Under the SDK's default cardinality limit (2,000 sets) in all.
    let unknown = 300;
    for n in 0..tools {
        client
            .call_tool(&format!("t-{n}"), json!({}))
            .await
            .unwrap();
    }
    for n in 0..unknown {
        let err = client
            .call_tool(&format!("nope-{n}"), json!({}))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ferromcp::testing::TestClientError::Rpc(e) if e.code.0 == -32602),
            "{err}"
        );
    }
    // The first and the last of each again: bound, and unbound.
    for (t, u) in [(0, 0), (tools - 1, unknown - 1)] {
        client
            .call_tool(&format!("t-{t}"), json!({}))
            .await
            .unwrap();
        client
            .call_tool(&format!("nope-{u}"), json!({}))
            .await
            .unwrap_err();
    }
    let collected = collect(&metrics, &meters);
    let ops = histogram(&collected, "mcp.server.operation.duration");
    let calls = |ok: bool| -> Vec<_> {
        ops.iter()
            .filter(|(a, _, _)| {
                find(a, "mcp.method.name").as_deref() == Some("tools/call")
                    && find(a, "error.type").is_none() == ok
            })
            .collect()
    };
    let (answered, failed) = (calls(true), calls(false));
    assert_eq!(answered.len(), tools);
    assert_eq!(failed.len(), unknown);
    assert_eq!(
        answered.iter().map(|(_, n, _)| n).sum::<u64>(),
        tools as u64 + 2
    );
    assert_eq!(
        failed.iter().map(|(_, n, _)| n).sum::<u64>(),
        unknown as u64 + 2
    );
    for (t, u) in [(0, 0), (tools - 1, unknown - 1)] {
        for name in [format!("t-{t}"), format!("nope-{u}")] {
            assert_eq!(calls_of(&collected, &name, "2025-11-25"), 2, "{name}");
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn messages_to_the_client_carry_the_server_spans_trace_context() {
    let o = observed();
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let asked = seen.clone();
    let options = ClientOptions::legacy().with_elicitation(move |p| {
        if let ferromcp::types::ElicitRequestParams::Form(form) = p {
            let meta = form.meta.map(|m| m.extra).unwrap_or_default();
            asked.lock().unwrap().push(meta.get("traceparent").cloned());
        }
        ferromcp::types::ElicitResult::decline()
    });
    let client = o
        .client(options.with_log_level(ferromcp::types::LoggingLevel::Info))
        .await;
    let answer = traced_call(&client, "confirm", trace).await;
    assert_eq!(answer["content"][0]["text"], "Decline", "{answer}");
    let span = o.span("tools/call confirm");
    let expected = format!("00-{trace}-{}-01", span.span_context.span_id());
    // The elicitation request has a CLIENT span of its own, the tool call's child, whose
    // context the request carries; the log notification carries the tool call's.
    let asking = o.span("elicitation/create");
    assert_eq!(asking.span_kind, SpanKind::Client);
    assert_eq!(asking.parent_span_id, span.span_context.span_id());
    assert_eq!(asking.span_context.trace_id(), span.span_context.trace_id());
    assert_eq!(
        attr(&asking, "mcp.method.name").as_deref(),
        Some("elicitation/create")
    );
    assert_eq!(attr(&asking, "network.transport").as_deref(), Some("pipe"));
    assert_eq!(
        attr(&asking, "mcp.protocol.version").as_deref(),
        Some("2025-11-25")
    );
    assert!(attr(&asking, "jsonrpc.request.id").is_some_and(|id| id.starts_with("ferromcp-")));
    assert_eq!(attr(&asking, "error.type"), None);
    assert_eq!(asking.status, opentelemetry::trace::Status::Unset);
    // It ended before the tool call did.
    assert!(asking.end_time <= span.end_time);
    let asked = format!("00-{trace}-{}-01", asking.span_context.span_id());
    assert_eq!(*seen.lock().unwrap(), [Some(json!(asked))]);
    let logged: Vec<_> = client
        .notifications()
        .into_iter()
        .filter(|n| n["method"] == "notifications/message")
        .collect();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["params"]["_meta"]["traceparent"], json!(expected));
    assert_eq!(logged[0]["params"]["data"], "asking");

    // Outside a trace (no telemetry), nothing is added.
    let plain = Server::builder(Calc).build().unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let asked = seen.clone();
    let client = TestClient::connect(
        &plain,
        ClientOptions::legacy()
            .with_log_level(ferromcp::types::LoggingLevel::Info)
            .with_elicitation(move |p| {
                if let ferromcp::types::ElicitRequestParams::Form(form) = p {
                    asked.lock().unwrap().push(form.meta.is_some());
                }
                ferromcp::types::ElicitResult::decline()
            }),
    )
    .await
    .unwrap();
    client
        .request(
            "tools/call",
            Some(json!({"name": "confirm", "arguments": {}})),
        )
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), [false]);
    let logged: Vec<_> = client
        .notifications()
        .into_iter()
        .filter(|n| n["method"] == "notifications/message")
        .collect();
    assert_eq!(logged.len(), 1);
    assert!(logged[0]["params"].get("_meta").is_none(), "{logged:?}");
}

/// The 2026 era asks inside the result (`input_required`): each input request carries the
/// trace context of the server span that asked, as a 2025 server-to-client request does.
#[tokio::test(flavor = "current_thread")]
async fn modern_input_requests_carry_the_server_spans_trace_context() {
    let o = observed();
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    // The client can be asked (its answers are not needed: one round is enough).
    let asks =
        || ClientOptions::modern().with_elicitation(|_| ferromcp::types::ElicitResult::decline());
    let client = o.client(asks()).await;
    let result = traced_call(&client, "confirm", trace).await;
    assert_eq!(result["resultType"], "input_required", "{result}");
    let span = o.span("tools/call confirm");
    let expected = format!("00-{trace}-{}-01", span.span_context.span_id());
    let requests = result["inputRequests"].as_object().expect("input requests");
    assert_eq!(requests.len(), 1, "{result}");
    for request in requests.values() {
        assert_eq!(request["method"], "elicitation/create", "{result}");
        assert_eq!(
            request["params"]["_meta"]["traceparent"],
            json!(expected),
            "{result}"
        );
        assert_eq!(request["params"]["message"], "Sure?", "{result}");
    }

    // Outside a trace (no telemetry), nothing is added.
    let plain = Server::builder(Calc).build().unwrap();
    let client = TestClient::connect(&plain, asks()).await.unwrap();
    let result = client
        .request(
            "tools/call",
            Some(json!({"name": "confirm", "arguments": {}})),
        )
        .await
        .unwrap();
    assert_eq!(result["resultType"], "input_required", "{result}");
    for request in result["inputRequests"].as_object().unwrap().values() {
        assert!(request["params"].get("_meta").is_none(), "{result}");
    }
}
