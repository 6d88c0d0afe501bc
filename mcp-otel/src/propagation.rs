//! The W3C trace context a request's `_meta` brings in and a message the server sends
//! carries out.

use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;

use ferromcp::observe::Meta;

/// The W3C trace context members of a request's `params._meta`.
pub(crate) struct TraceCarrier<'a> {
    pub(crate) traceparent: &'a str,
    pub(crate) tracestate: Option<&'a str>,
}

impl Extractor for TraceCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => Some(self.traceparent),
            "tracestate" => self.tracestate,
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

/// The current OpenTelemetry context when it has a span (the request's, or the caller's
/// from its `_meta`) whose trace context a message the server sends should carry.
pub(crate) fn trace_context() -> Option<Context> {
    let context = Context::current();
    context.span().span_context().is_valid().then_some(context)
}

/// The trace context of `context` (`traceparent`, and `tracestate` when not empty) as
/// `_meta` members, as a request's `_meta` brings it in: so a client's tracing links a
/// server-to-client request or notification to the server span it came from.
pub(crate) fn meta_of(context: &Context) -> Meta {
    let mut meta = Meta::new();
    TraceContextPropagator::new().inject_context(context, &mut MetaInjector(&mut meta));
    meta
}

/// Writes propagated fields into a `_meta` object.
pub(crate) struct MetaInjector<'a>(&'a mut serde_json::Map<String, serde_json::Value>);

impl opentelemetry::propagation::Injector for MetaInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0
            .insert(key.to_owned(), serde_json::Value::String(value));
    }
}
