//! Legacy sessions, and the requests the server sends its client (CLIENT spans).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use ferromcp::ProtocolVersion;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue, Value};

use ferromcp::observe::{ClientOutcome, ClientRequestObserver, Meta};

use crate::instruments::Instruments;
use crate::propagation::meta_of;

/// One live legacy session; dropping it records the session's duration.
pub(crate) struct SessionTelemetry {
    instruments: Arc<Instruments>,
    attributes: [KeyValue; 2],
    started: Instant,
}

impl SessionTelemetry {
    /// Counts a legacy session from its `initialize` on; the session's duration is recorded
    /// when the returned value is dropped.
    pub(crate) fn start(
        instruments: &Arc<Instruments>,
        version: &'static str,
        transport: &'static str,
    ) -> SessionTelemetry {
        instruments.active_sessions.add(transport, 1);
        SessionTelemetry {
            instruments: instruments.clone(),
            attributes: [
                KeyValue::new("mcp.protocol.version", version),
                KeyValue::new("network.transport", transport),
            ],
            started: Instant::now(),
        }
    }
}

impl OutgoingTelemetry {
    /// The CLIENT span of a request the server sends the client in this session (sampling,
    /// elicitation, roots, ping): a child of the current context (the handler's request
    /// span), named by its method, and the context its `_meta` carries, so that the client's
    /// own span of it is that span's child. Without spans, only its duration is recorded.
    pub(crate) fn start(
        instruments: &Arc<Instruments>,
        method: &str,
        id: &ferromcp::jsonrpc::RequestId,
        session_id: Option<&str>,
        version: Option<ProtocolVersion>,
        transport: &'static str,
    ) -> OutgoingTelemetry {
        let name: Cow<'static, str> = match OUTGOING.into_iter().find(|m| *m == method) {
            Some(known) => known.into(),
            None => method.to_owned().into(),
        };
        let mut sample = Vec::with_capacity(5);
        sample.push(KeyValue::new("mcp.method.name", name.clone()));
        sample.push(KeyValue::new("network.transport", transport));
        if let Some(version) = version {
            sample.push(KeyValue::new("mcp.protocol.version", version.as_str()));
        }
        let Some(tracer) = instruments.tracer.as_ref() else {
            return OutgoingTelemetry {
                instruments: instruments.clone(),
                context: None,
                sample,
                started: Instant::now(),
                finished: false,
            };
        };
        let id = match id {
            ferromcp::jsonrpc::RequestId::Number(n) => itoa::Buffer::new().format(*n).to_owned(),
            ferromcp::jsonrpc::RequestId::String(s) => s.clone(),
        };
        let mut attributes = Vec::with_capacity(5);
        attributes.push(KeyValue::new("mcp.method.name", name.clone()));
        attributes.push(KeyValue::new("network.transport", transport));
        attributes.push(KeyValue::new("jsonrpc.request.id", id));
        if let Some(version) = version {
            attributes.push(KeyValue::new("mcp.protocol.version", version.as_str()));
        }
        if let Some(session) = session_id {
            attributes.push(KeyValue::new("mcp.session.id", session.to_owned()));
        }
        let parent = Context::current();
        let span = tracer
            .span_builder(name)
            .with_kind(SpanKind::Client)
            .with_attributes(attributes)
            .start_with_context(tracer, &parent);
        OutgoingTelemetry {
            instruments: instruments.clone(),
            context: Some(parent.with_span(span)),
            sample,
            started: Instant::now(),
            finished: false,
        }
    }
}

/// The requests a server sends its client.
pub(crate) const OUTGOING: [&str; 4] = [
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "ping",
];

/// How a request the server sent ended, when not with a result.
pub(crate) enum OutgoingFailure<'a> {
    /// The client answered with this JSON-RPC error.
    Code(i64, &'a str),
    /// No answer within the request timeout.
    Timeout,
    /// The handler was cancelled, or the session or connection ended, first.
    Abandoned,
}

/// The CLIENT span and the duration of a request the server sent; ended by
/// [`finish`](Self::finish), or, marked as abandoned, when dropped before (the asking
/// handler's future was dropped, or the request could not be written).
pub(crate) struct OutgoingTelemetry {
    instruments: Arc<Instruments>,
    /// The span in its parent's context; `None` without spans.
    context: Option<Context>,
    /// The duration sample's attributes known at the start.
    sample: Vec<KeyValue>,
    started: Instant,
    finished: bool,
}

impl Drop for OutgoingTelemetry {
    fn drop(&mut self) {
        if !self.finished {
            self.finished = true;
            self.end(Some(OutgoingFailure::Abandoned));
        }
    }
}

impl ClientRequestObserver for OutgoingTelemetry {
    fn meta(&self) -> Option<Meta> {
        self.context.as_ref().map(meta_of)
    }

    fn on_response(mut self: Box<Self>, outcome: ClientOutcome<'_>) {
        self.finished = true;
        self.end(match outcome {
            ClientOutcome::Error(code, message) => Some(OutgoingFailure::Code(code, message)),
            ClientOutcome::Timeout => Some(OutgoingFailure::Timeout),
            ClientOutcome::Abandoned => Some(OutgoingFailure::Abandoned),
            _ => None,
        });
    }
}

// The tests end requests as the engine does, through these.
#[cfg(test)]
impl OutgoingTelemetry {
    /// The context the request's `_meta` carries: `None` without spans.
    pub(crate) fn context(&self) -> Option<&Context> {
        self.context.as_ref()
    }

    /// Ends the span: an error response marks it with the code as `error.type` and
    /// `rpc.response.status_code`; a timeout or an abandoned request by that kind.
    pub(crate) fn finish(mut self, failure: Option<OutgoingFailure<'_>>) {
        self.finished = true;
        self.end(failure);
    }
}

impl OutgoingTelemetry {
    fn end(&mut self, failure: Option<OutgoingFailure<'_>>) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let mut ending = Vec::with_capacity(2);
        let status = match failure {
            None => None,
            Some(OutgoingFailure::Code(code, message)) => {
                let code = itoa::Buffer::new().format(code).to_owned();
                ending.push(KeyValue::new("error.type", code.clone()));
                ending.push(KeyValue::new("rpc.response.status_code", code));
                Some(Status::error(message.to_owned()))
            }
            Some(OutgoingFailure::Timeout) => {
                ending.push(KeyValue::new("error.type", "timeout"));
                Some(Status::error("no answer within the request timeout"))
            }
            Some(OutgoingFailure::Abandoned) => {
                ending.push(KeyValue::new("error.type", "cancelled"));
                Some(Status::error("abandoned before the client answered"))
            }
        };
        if let Some(context) = &self.context {
            let span = context.span();
            for kv in &ending {
                span.set_attribute(kv.clone());
            }
            if let Some(status) = status {
                span.set_status(status);
            }
            span.end();
        }
        self.sample.append(&mut ending);
        self.instruments
            .client_duration
            .record(elapsed, &self.sample);
    }
}

impl std::fmt::Debug for SessionTelemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionTelemetry").finish_non_exhaustive()
    }
}

impl Drop for SessionTelemetry {
    fn drop(&mut self) {
        let i = &*self.instruments;
        if let Value::String(transport) = &self.attributes[1].value {
            i.active_sessions.add(transport.as_str(), -1);
        }
        i.session_duration
            .record(self.started.elapsed().as_secs_f64(), &self.attributes);
    }
}

#[cfg(test)]
mod tests {
    use ferromcp::jsonrpc::RequestId;
    use opentelemetry_sdk::metrics::SdkMeterProvider;
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SpanData};

    use super::*;
    use crate::Prometheus;
    use opentelemetry_sdk::trace::SdkTracerProvider;

    fn attr(span: &SpanData, key: &str) -> Option<String> {
        span.attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.as_str().into_owned())
    }

    /// A request the server sends the client, ended each way it can end.
    #[test]
    fn outgoing_requests_are_client_spans_marked_by_how_they_ended() {
        let spans = InMemorySpanExporter::default();
        let tracers = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        let prometheus = Prometheus::new();
        let meters = SdkMeterProvider::builder()
            .with_reader(prometheus.reader())
            .build();
        let instruments = Arc::new(Instruments::new(Some(&tracers), &meters));
        let send = |method: &str, n: i64, failure: Option<OutgoingFailure<'_>>| {
            let outgoing = OutgoingTelemetry::start(
                &instruments,
                method,
                &RequestId::Number(n),
                Some("session-1"),
                Some(ProtocolVersion::V2025_06_18),
                "tcp",
            );
            assert!(outgoing.context().unwrap().span().span_context().is_valid());
            outgoing.finish(failure);
        };
        send("roots/list", 1, None);
        send(
            "sampling/createMessage",
            2,
            Some(OutgoingFailure::Code(-32600, "no")),
        );
        send("elicitation/create", 3, Some(OutgoingFailure::Timeout));
        send("ping", 4, Some(OutgoingFailure::Abandoned));
        let ended = spans.get_finished_spans().unwrap();
        assert_eq!(ended.len(), 4);
        for span in &ended {
            assert_eq!(span.span_kind, SpanKind::Client);
            assert_eq!(attr(span, "mcp.method.name").as_deref(), Some(&*span.name));
            assert_eq!(attr(span, "network.transport").as_deref(), Some("tcp"));
            assert_eq!(attr(span, "mcp.session.id").as_deref(), Some("session-1"));
            assert_eq!(
                attr(span, "mcp.protocol.version").as_deref(),
                Some("2025-06-18")
            );
        }
        let [ok, refused, late, abandoned] = &ended[..] else {
            unreachable!()
        };
        assert_eq!(ok.name, "roots/list");
        assert_eq!(attr(ok, "jsonrpc.request.id").as_deref(), Some("1"));
        assert_eq!(attr(ok, "error.type"), None);
        assert_eq!(ok.status, Status::Unset);
        assert_eq!(attr(refused, "error.type").as_deref(), Some("-32600"));
        assert_eq!(
            attr(refused, "rpc.response.status_code").as_deref(),
            Some("-32600")
        );
        assert_eq!(refused.status, Status::error("no"));
        assert_eq!(attr(late, "error.type").as_deref(), Some("timeout"));
        assert!(matches!(late.status, Status::Error { .. }));
        assert_eq!(attr(abandoned, "error.type").as_deref(), Some("cancelled"));
        assert_eq!(attr(abandoned, "rpc.response.status_code"), None);

        // Dropped before it was answered: abandoned.
        drop(OutgoingTelemetry::start(
            &instruments,
            "roots/list",
            &RequestId::Number(5),
            None,
            None,
            "tcp",
        ));
        let ended = spans.get_finished_spans().unwrap();
        assert_eq!(ended.len(), 5);
        assert_eq!(attr(&ended[4], "error.type").as_deref(), Some("cancelled"));
        assert!(matches!(ended[4].status, Status::Error { .. }));

        // Each request is a sample of the conventions' client histogram, by how it ended.
        let text = prometheus.render().unwrap();
        let count = |labels: &str| {
            let line = format!("mcp_client_operation_duration_seconds_count{{{labels}}} ");
            text.lines()
                .find_map(|l| l.strip_prefix(&line))
                .unwrap_or_else(|| panic!("no {line} in\n{text}"))
                .to_owned()
        };
        let v = r#"mcp_protocol_version="2025-06-18",network_transport="tcp""#;
        for labels in [
            format!(r#"mcp_method_name="roots/list",{v}"#),
            format!(
                r#"error_type="-32600",mcp_method_name="sampling/createMessage",{v},rpc_response_status_code="-32600""#
            ),
            format!(r#"error_type="timeout",mcp_method_name="elicitation/create",{v}"#),
            format!(r#"error_type="cancelled",mcp_method_name="ping",{v}"#),
            // Dropped unanswered, in a request that gave no revision.
            r#"error_type="cancelled",mcp_method_name="roots/list",network_transport="tcp""#
                .to_owned(),
        ] {
            assert_eq!(count(&labels), "1", "{labels}");
        }

        // Without spans (metrics only), no span and nothing to carry, but the duration.
        let prometheus = Prometheus::new();
        let meters = SdkMeterProvider::builder()
            .with_reader(prometheus.reader())
            .build();
        let metrics_only = Arc::new(Instruments::new(None, &meters));
        let outgoing = OutgoingTelemetry::start(
            &metrics_only,
            "roots/list",
            &RequestId::Number(1),
            None,
            None,
            "pipe",
        );
        assert!(outgoing.context().is_none());
        outgoing.finish(None);
        let text = prometheus.render().unwrap();
        assert!(
            text.lines().any(|l| l
                == r#"mcp_client_operation_duration_seconds_count{mcp_method_name="roots/list",network_transport="pipe"} 1"#),
            "{text}"
        );
    }
}
