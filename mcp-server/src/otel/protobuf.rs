//! The OTLP export bodies (`ExportTraceServiceRequest`, `ExportMetricsServiceRequest`,
//! protobuf) written straight from the SDK's span and metric data.
//!
//! opentelemetry-otlp converted each batch into the generated message types first (every
//! name, key and string value copied into a `String`, every id into a `Vec`) and prost then
//! walked that tree computing nested lengths again at each level: about 16,000 instructions
//! a span in the guard benchmark, more than the whole `tools/call` it describes. Here each
//! field is written once into one buffer; a nested message's length is written in front of
//! its body once the body is known, moving the body when the length needs more than one
//! byte. The message numbers are those of `opentelemetry/proto/trace/v1/trace.proto`,
//! `metrics/v1/metrics.proto`, `common/v1/common.proto`, `resource/v1/resource.proto` and
//! the collector services'; tests decode the output with the OpenTelemetry project's own
//! generated types and compare it with the SDK's conversion.

use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use opentelemetry::trace::{SpanKind, Status};
use opentelemetry::{Array, InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::Temporality;
use opentelemetry_sdk::metrics::data::{
    AggregatedMetrics, Exemplar, Metric, MetricData, ResourceMetrics,
};
use opentelemetry_sdk::trace::SpanData;

/// Wire types.
const VARINT: u32 = 0;
const FIXED64: u32 = 1;
const LEN: u32 = 2;
const FIXED32: u32 = 5;

/// `SpanFlags`: the context says whether its parent is remote, and whether it is.
const CONTEXT_HAS_IS_REMOTE: u32 = 0x100;
const CONTEXT_IS_REMOTE: u32 = 0x200;

/// A protobuf message being written.
struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    fn varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.buf.push(value as u8 | 0x80);
            value >>= 7;
        }
        self.buf.push(value as u8);
    }

    fn key(&mut self, field: u32, wire: u32) {
        self.varint(u64::from(field << 3 | wire));
    }

    /// A `bytes` or `string` field; proto3 leaves an empty one out.
    fn bytes(&mut self, field: u32, value: &[u8]) {
        if !value.is_empty() {
            self.bytes_always(field, value);
        }
    }

    /// A `bytes` or `string` field even when empty (a `oneof` member).
    fn bytes_always(&mut self, field: u32, value: &[u8]) {
        self.key(field, LEN);
        self.varint(value.len() as u64);
        self.buf.extend_from_slice(value);
    }

    fn string(&mut self, field: u32, value: &str) {
        self.bytes(field, value.as_bytes());
    }

    /// A `uint32` or enumeration field; zero is left out.
    fn uint(&mut self, field: u32, value: u32) {
        if value != 0 {
            self.key(field, VARINT);
            self.varint(u64::from(value));
        }
    }

    fn fixed64(&mut self, field: u32, value: u64) {
        if value != 0 {
            self.key(field, FIXED64);
            self.buf.extend_from_slice(&value.to_le_bytes());
        }
    }

    fn fixed32(&mut self, field: u32, value: u32) {
        if value != 0 {
            self.key(field, FIXED32);
            self.buf.extend_from_slice(&value.to_le_bytes());
        }
    }

    /// A nested message: its key, its length, then the body `write` puts after them. The
    /// length is guessed to fit one byte; when it does not, the body moves up to make room.
    fn message(&mut self, field: u32, write: impl FnOnce(&mut Writer)) {
        self.message_sized(field, 1, write);
    }

    /// As [`message`](Self::message), with room left for a length of `guess` bytes (a span
    /// nearly always takes two): the body moves only when its length takes more or fewer.
    fn message_sized(&mut self, field: u32, guess: usize, write: impl FnOnce(&mut Writer)) {
        self.key(field, LEN);
        let at = self.buf.len();
        self.buf.resize(at + guess, 0);
        write(self);
        let end = self.buf.len();
        let len = end - at - guess;
        let needed = varint_len(len as u64);
        if needed > guess {
            self.buf.resize(end + needed - guess, 0);
            self.buf.copy_within(at + guess..end, at + needed);
        } else if needed < guess {
            self.buf.copy_within(at + guess..end, at + needed);
            self.buf.truncate(end - (guess - needed));
        }
        let mut rest = len as u64;
        for byte in &mut self.buf[at..at + needed] {
            *byte = rest as u8 | 0x80;
            rest >>= 7;
        }
        self.buf[at + needed - 1] &= 0x7f;
    }

    fn attributes<'a>(&mut self, field: u32, attributes: impl IntoIterator<Item = &'a KeyValue>) {
        for kv in attributes {
            self.key_value(field, kv.key.as_str(), &kv.value);
        }
    }

    /// A `KeyValue` (key 1, `AnyValue` 2). Attributes are most of a span, so the lengths of
    /// one holding a scalar or a string are counted up front rather than fixed up after.
    fn key_value(&mut self, field: u32, key: &str, value: &Value) {
        if let Value::String(s) = value {
            let (k, v) = (key.as_bytes(), s.as_str().as_bytes());
            // The usual attribute, a short key and a short string, whose every length takes
            // one byte: written as four pieces.
            if field < 16 && !k.is_empty() && k.len() + v.len() <= 121 {
                let any = 2 + v.len();
                let len = 2 + k.len() + 2 + any;
                self.buf.reserve(2 + len);
                self.buf.extend_from_slice(&[
                    (field << 3 | LEN) as u8,
                    len as u8,
                    0x0a,
                    k.len() as u8,
                ]);
                self.buf.extend_from_slice(k);
                self.buf
                    .extend_from_slice(&[0x12, any as u8, 0x0a, v.len() as u8]);
                self.buf.extend_from_slice(v);
                return;
            }
        }
        let any = match value {
            Value::String(s) => 1 + varint_len(s.as_str().len() as u64) + s.as_str().len(),
            Value::Bool(_) => 2,
            Value::I64(i) => 1 + varint_len(*i as u64),
            Value::F64(_) => 9,
            _ => {
                return self.message(field, |w| {
                    w.string(1, key);
                    w.message(2, |w| w.any_value(value));
                });
            }
        };
        let key_len = match key.len() {
            0 => 0,
            n => 1 + varint_len(n as u64) + n,
        };
        let len = key_len + 1 + varint_len(any as u64) + any;
        self.buf.reserve(len + 6);
        self.key(field, LEN);
        self.varint(len as u64);
        self.string(1, key);
        self.key(2, LEN);
        self.varint(any as u64);
        self.any_value(value);
    }

    /// An `AnyValue`'s body: one member of its `oneof`, written even when zero or empty.
    fn any_value(&mut self, value: &Value) {
        match value {
            Value::String(s) => self.bytes_always(1, s.as_str().as_bytes()),
            Value::Bool(b) => {
                self.key(2, VARINT);
                self.varint(u64::from(*b));
            }
            Value::I64(i) => {
                self.key(3, VARINT);
                self.varint(*i as u64);
            }
            Value::F64(f) => {
                self.key(4, FIXED64);
                self.buf.extend_from_slice(&f.to_le_bytes());
            }
            Value::Array(array) => self.message(5, |w| match array {
                Array::Bool(values) => {
                    for v in values {
                        w.message(1, |w| w.any_value(&Value::Bool(*v)));
                    }
                }
                Array::I64(values) => {
                    for v in values {
                        w.message(1, |w| w.any_value(&Value::I64(*v)));
                    }
                }
                Array::F64(values) => {
                    for v in values {
                        w.message(1, |w| w.any_value(&Value::F64(*v)));
                    }
                }
                Array::String(values) => {
                    for v in values {
                        w.message(1, |w| w.bytes_always(1, v.as_str().as_bytes()));
                    }
                }
                // Kinds of array a later SDK may add: their text, rather than nothing.
                other => w.message(1, |w| w.bytes_always(1, other.to_string().as_bytes())),
            }),
            // Kinds of value a later SDK may add: their text.
            other => self.bytes_always(1, other.as_str().as_bytes()),
        }
    }

    /// An `InstrumentationScope` (name 1, version 2, attributes 3).
    fn scope(&mut self, scope: &InstrumentationScope) {
        self.string(1, scope.name());
        self.string(2, scope.version().unwrap_or_default());
        self.attributes(3, scope.attributes());
    }

    /// A `Span`'s body.
    fn span(&mut self, span: &SpanData) {
        let context = &span.span_context;
        self.bytes(1, &context.trace_id().to_bytes());
        self.bytes(2, &context.span_id().to_bytes());
        self.string(3, &context.trace_state().header());
        if span.parent_span_id != opentelemetry::trace::SpanId::INVALID {
            self.bytes(4, &span.parent_span_id.to_bytes());
        }
        self.fixed32(
            16,
            flags(
                span.parent_span_is_remote,
                context.trace_flags().to_u8().into(),
            ),
        );
        self.string(5, &span.name);
        self.uint(6, kind(&span.span_kind));
        self.fixed64(7, nanos(span.start_time));
        self.fixed64(8, nanos(span.end_time));
        self.attributes(9, &span.attributes);
        self.uint(10, span.dropped_attributes_count);
        for event in span.events.iter() {
            self.message(11, |w| {
                w.fixed64(1, nanos(event.timestamp));
                w.string(2, &event.name);
                w.attributes(3, &event.attributes);
                w.uint(4, event.dropped_attributes_count);
            });
        }
        self.uint(12, span.events.dropped_count);
        for link in span.links.iter() {
            let context = &link.span_context;
            self.message(13, |w| {
                w.bytes(1, &context.trace_id().to_bytes());
                w.bytes(2, &context.span_id().to_bytes());
                w.string(3, &context.trace_state().header());
                w.attributes(4, &link.attributes);
                w.uint(5, link.dropped_attributes_count);
                w.fixed32(
                    6,
                    flags(context.is_remote(), context.trace_flags().to_u8().into()),
                );
            });
        }
        self.uint(14, span.links.dropped_count);
        self.message(15, |w| match &span.status {
            Status::Unset => {}
            Status::Ok => w.uint(3, 1),
            Status::Error { description } => {
                w.string(2, description);
                w.uint(3, 2);
            }
        });
    }
}

/// How many bytes `value` takes as a varint.
fn varint_len(value: u64) -> usize {
    // One byte per started group of seven bits, and one for zero.
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

fn flags(remote: bool, trace_flags: u32) -> u32 {
    trace_flags | CONTEXT_HAS_IS_REMOTE | if remote { CONTEXT_IS_REMOTE } else { 0 }
}

/// `Span.SpanKind`'s numbers.
fn kind(kind: &SpanKind) -> u32 {
    match kind {
        SpanKind::Internal => 1,
        SpanKind::Server => 2,
        SpanKind::Client => 3,
        SpanKind::Producer => 4,
        SpanKind::Consumer => 5,
    }
}

fn nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Spans written ahead of their export, each as its `ScopeSpans.spans` member (`Span`,
/// field 2) in the buffer of its instrumentation scope, the scopes in the order they first
/// appear: nearly always a single one (the server's), so a list searched in order beats a
/// map. [`encoded_trace_request`] wraps them in the rest of the message; in front of the
/// first scope's spans it leaves room for the message's head, so that a batch of one scope
/// is sent as written, not copied.
#[derive(Debug, Default)]
pub(crate) struct EncodedSpans {
    /// Each scope and its spans; the first scope's buffer starts with `gap` bytes kept free.
    scopes: Vec<(InstrumentationScope, Vec<u8>)>,
    spans: usize,
    /// The first scope's buffer is made with room for this many spans of the usual size.
    room: usize,
    /// What the resource's part of the head takes at most ([`head_room`]).
    front: usize,
    /// Bytes kept free at the start of the first scope's buffer.
    gap: usize,
}

/// The room the head of an export of `resource`'s spans takes before its scope's: the
/// `ResourceSpans` key and length, and the resource.
pub(crate) fn head_room(resource: &Resource) -> usize {
    1 + 5 + resource_message(resource).len()
}

/// A scope's part of the head: the `ScopeSpans` key and length, at most, and the scope.
fn scope_room(scope: &InstrumentationScope) -> usize {
    1 + 5 + small(|w| w.message(1, |w| w.scope(scope))).len()
}

/// What `write` writes, on its own.
fn small(write: impl FnOnce(&mut Writer)) -> Vec<u8> {
    let mut w = Writer { buf: Vec::new() };
    write(&mut w);
    w.buf
}

/// `ResourceSpans.resource`, with its key and length.
fn resource_message(resource: &Resource) -> Vec<u8> {
    small(|w| {
        w.message(1, |w| {
            for (key, value) in resource.iter() {
                w.key_value(1, key.as_str(), value);
            }
        });
    })
}

impl EncodedSpans {
    /// Room for `spans` spans of the usual size (about 300 bytes each) once the first comes,
    /// and `front` bytes (see [`head_room`]) for the head before them.
    pub(crate) fn with_room(spans: usize, front: usize) -> EncodedSpans {
        EncodedSpans {
            room: spans.min(4096),
            front,
            ..EncodedSpans::default()
        }
    }

    /// Writes `span` after the others of its scope.
    pub(crate) fn push(&mut self, span: &SpanData) {
        let scope = &span.instrumentation_scope;
        let at = match self.scopes.iter().position(|(s, _)| same_scope(s, scope)) {
            Some(at) => at,
            None => {
                let buf = if self.scopes.is_empty() {
                    self.gap = self.front + scope_room(scope);
                    let mut buf = Vec::with_capacity(self.gap + self.room * 384);
                    buf.resize(self.gap, 0);
                    buf
                } else {
                    Vec::with_capacity(1024)
                };
                self.scopes.push((scope.clone(), buf));
                self.scopes.len() - 1
            }
        };
        let buf = &mut self.scopes[at].1;
        let mut w = Writer {
            buf: std::mem::take(buf),
        };
        w.message_sized(2, 2, |w| w.span(span));
        *buf = w.buf;
        self.spans += 1;
    }

    /// How many spans are written.
    pub(crate) fn len(&self) -> usize {
        self.spans
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.spans == 0
    }
}

/// Whether two scopes are equal; first by where their texts are, as the scope every server
/// span shares is the same static strings each time.
fn same_scope(a: &InstrumentationScope, b: &InstrumentationScope) -> bool {
    fn at(text: Option<&str>) -> Option<(*const u8, usize)> {
        text.map(|t| (t.as_ptr(), t.len()))
    }
    let placed = at(Some(a.name())) == at(Some(b.name()))
        && at(a.version()) == at(b.version())
        && at(a.schema_url()) == at(b.schema_url())
        && a.attributes().next().is_none()
        && b.attributes().next().is_none();
    placed || a == b
}

/// An `ExportTraceServiceRequest` holding `spans` under `resource`: one `ResourceSpans`,
/// with one `ScopeSpans` per instrumentation scope in the order the scopes first appear.
#[cfg(test)]
pub(crate) fn export_trace_request(resource: &Resource, spans: &[SpanData]) -> Vec<u8> {
    let mut encoded = EncodedSpans::with_room(spans.len(), head_room(resource));
    for span in spans {
        encoded.push(span);
    }
    encoded_trace_request(resource, encoded).to_vec()
}

/// One `ScopeSpans` of an export: its scope (field 1, with key and length), its spans
/// (field 2 each, written; after `gap` free bytes), its schema URL (3).
struct ScopePart {
    head: Vec<u8>,
    spans: Vec<u8>,
    gap: usize,
    tail: Vec<u8>,
}

impl ScopePart {
    /// The `ScopeSpans` message's length.
    fn len(&self) -> usize {
        self.head.len() + self.spans.len() - self.gap + self.tail.len()
    }
}

/// The `ExportTraceServiceRequest` of spans written ahead, under `resource`. With one scope
/// whose head fits the room left for it, the head is written there and the spans are sent
/// where they are; otherwise every length is counted first and the spans are copied once.
pub(crate) fn encoded_trace_request(resource: &Resource, spans: EncodedSpans) -> Bytes {
    // `ResourceSpans`: the resource (1), a `ScopeSpans` per scope (2), the schema URL (3).
    let resource_head = resource_message(resource);
    let resource_tail = small(|w| w.string(3, resource.schema_url().unwrap_or_default()));
    let gap = spans.gap;
    let mut scopes: Vec<ScopePart> = spans
        .scopes
        .into_iter()
        .enumerate()
        .map(|(n, (scope, written))| ScopePart {
            head: small(|w| w.message(1, |w| w.scope(&scope))),
            spans: written,
            gap: if n == 0 { gap } else { 0 },
            tail: small(|w| w.string(3, scope.schema_url().unwrap_or_default())),
        })
        .collect();
    let framed = |len: usize| 1 + varint_len(len as u64) + len;
    let resource_len = resource_head.len()
        + scopes.iter().map(|s| framed(s.len())).sum::<usize>()
        + resource_tail.len();
    let mut top = Writer {
        buf: Vec::with_capacity(6 + resource_head.len()),
    };
    top.key(1, LEN);
    top.varint(resource_len as u64);
    top.buf.extend_from_slice(&resource_head);
    if let [only] = &mut scopes[..] {
        let mut head = Writer {
            buf: top.buf.clone(),
        };
        head.key(2, LEN);
        head.varint(only.len() as u64);
        head.buf.extend_from_slice(&only.head);
        if head.buf.len() <= only.gap {
            let from = only.gap - head.buf.len();
            let mut body = std::mem::take(&mut only.spans);
            body[from..only.gap].copy_from_slice(&head.buf);
            body.extend_from_slice(&only.tail);
            body.extend_from_slice(&resource_tail);
            return Bytes::from(body).slice(from..);
        }
    }
    let mut w = Writer {
        buf: Vec::with_capacity(framed(resource_len)),
    };
    w.buf.extend_from_slice(&top.buf);
    for scope in &scopes {
        w.key(2, LEN);
        w.varint(scope.len() as u64);
        w.buf.extend_from_slice(&scope.head);
        w.buf.extend_from_slice(&scope.spans[scope.gap..]);
        w.buf.extend_from_slice(&scope.tail);
    }
    w.buf.extend_from_slice(&resource_tail);
    Bytes::from(w.buf)
}

/// An `ExportMetricsServiceRequest` holding `metrics` (`metrics/v1/metrics.proto`): one
/// `ResourceMetrics`, a `ScopeMetrics` per scope, as the SDK collected them.
pub(crate) fn export_metrics_request(metrics: &ResourceMetrics) -> Vec<u8> {
    let mut w = Writer {
        buf: Vec::with_capacity(4096),
    };
    let resource = metrics.resource();
    w.message(1, |w| {
        w.message(1, |w| {
            for (key, value) in resource.iter() {
                w.key_value(1, key.as_str(), value);
            }
        });
        for scope in metrics.scope_metrics() {
            w.message(2, |w| {
                w.message(1, |w| w.scope(scope.scope()));
                for metric in scope.metrics() {
                    w.message(2, |w| w.metric(metric));
                }
                w.string(3, scope.scope().schema_url().unwrap_or_default());
            });
        }
        w.string(3, resource.schema_url().unwrap_or_default());
    });
    w.buf
}

/// A data point's number: `as_int` (an `sfixed64`) for integers, `as_double` for floats.
trait Number: Copy {
    /// Writes the value as the `oneof`'s member: `int_field` or `double_field`.
    fn write(self, w: &mut Writer, int_field: u32, double_field: u32);
    fn as_f64(self) -> f64;
}

impl Number for u64 {
    fn write(self, w: &mut Writer, int_field: u32, _: u32) {
        // As the SDK's conversion does: a count past i64 is sent as 0.
        w.sfixed64(int_field, i64::try_from(self).unwrap_or_default());
    }
    fn as_f64(self) -> f64 {
        self as f64
    }
}

impl Number for i64 {
    fn write(self, w: &mut Writer, int_field: u32, _: u32) {
        w.sfixed64(int_field, self);
    }
    fn as_f64(self) -> f64 {
        self as f64
    }
}

impl Number for f64 {
    fn write(self, w: &mut Writer, _: u32, double_field: u32) {
        w.double(double_field, self);
    }
    fn as_f64(self) -> f64 {
        self
    }
}

/// `AggregationTemporality`'s numbers.
fn temporality(t: Temporality) -> u32 {
    match t {
        Temporality::Delta => 1,
        _ => 2,
    }
}

impl Writer {
    /// An `sfixed64` or `double` written even when zero (a `oneof` member or an `optional`).
    fn sfixed64(&mut self, field: u32, value: i64) {
        self.key(field, FIXED64);
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    fn double(&mut self, field: u32, value: f64) {
        self.key(field, FIXED64);
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    /// A `Metric`'s body: name 1, description 2, unit 3, then its data (gauge 5, sum 7,
    /// histogram 9, exponential histogram 10).
    fn metric(&mut self, metric: &Metric) {
        self.string(1, metric.name());
        self.string(2, metric.description());
        self.string(3, metric.unit());
        match metric.data() {
            AggregatedMetrics::F64(data) => self.metric_data(data),
            AggregatedMetrics::U64(data) => self.metric_data(data),
            AggregatedMetrics::I64(data) => self.metric_data(data),
        }
    }

    fn metric_data<T: Number>(&mut self, data: &MetricData<T>) {
        match data {
            MetricData::Gauge(gauge) => self.message(5, |w| {
                let start = gauge.start_time().map_or(0, nanos);
                for point in gauge.data_points() {
                    w.message(1, |w| {
                        w.number_point(
                            point.attributes(),
                            start,
                            nanos(gauge.time()),
                            point.value(),
                            point.exemplars(),
                        );
                    });
                }
            }),
            MetricData::Sum(sum) => self.message(7, |w| {
                for point in sum.data_points() {
                    w.message(1, |w| {
                        w.number_point(
                            point.attributes(),
                            nanos(sum.start_time()),
                            nanos(sum.time()),
                            point.value(),
                            point.exemplars(),
                        );
                    });
                }
                w.uint(2, temporality(sum.temporality()));
                w.uint(3, u32::from(sum.is_monotonic()));
            }),
            MetricData::Histogram(histogram) => self.message(9, |w| {
                for point in histogram.data_points() {
                    w.message(1, |w| {
                        w.attributes(9, point.attributes());
                        w.fixed64(2, nanos(histogram.start_time()));
                        w.fixed64(3, nanos(histogram.time()));
                        w.fixed64(4, point.count());
                        w.double(5, point.sum().as_f64());
                        w.packed(6, point.bucket_counts(), |w, n| {
                            w.buf.extend_from_slice(&n.to_le_bytes());
                        });
                        w.packed(7, point.bounds(), |w, b| {
                            w.buf.extend_from_slice(&b.to_le_bytes());
                        });
                        for exemplar in point.exemplars() {
                            w.message(8, |w| w.exemplar(exemplar));
                        }
                        w.extremes(11, point.min(), point.max());
                    });
                }
                w.uint(2, temporality(histogram.temporality()));
            }),
            MetricData::ExponentialHistogram(histogram) => self.message(10, |w| {
                for point in histogram.data_points() {
                    w.message(1, |w| {
                        w.attributes(1, point.attributes());
                        w.fixed64(2, nanos(histogram.start_time()));
                        w.fixed64(3, nanos(histogram.time()));
                        w.fixed64(4, point.count() as u64);
                        w.double(5, point.sum().as_f64());
                        w.sint32(6, point.scale().into());
                        w.fixed64(7, point.zero_count());
                        for (field, buckets) in
                            [(8, point.positive_bucket()), (9, point.negative_bucket())]
                        {
                            w.message(field, |w| {
                                w.sint32(1, buckets.offset());
                                w.packed(2, buckets.counts(), Writer::varint);
                            });
                        }
                        for exemplar in point.exemplars() {
                            w.message(11, |w| w.exemplar(exemplar));
                        }
                        w.extremes(12, point.min(), point.max());
                        if point.zero_threshold() != 0.0 {
                            w.double(14, point.zero_threshold());
                        }
                    });
                }
                w.uint(2, temporality(histogram.temporality()));
            }),
        }
    }

    /// A `NumberDataPoint`'s body: attributes 7, start 2, time 3, value 4 or 6, exemplars 5.
    fn number_point<'a, T: Number + 'a>(
        &mut self,
        attributes: impl Iterator<Item = &'a KeyValue>,
        start: u64,
        time: u64,
        value: T,
        exemplars: impl Iterator<Item = &'a Exemplar<T>>,
    ) {
        self.attributes(7, attributes);
        self.fixed64(2, start);
        self.fixed64(3, time);
        value.write(self, 6, 4);
        for exemplar in exemplars {
            self.message(5, |w| w.exemplar(exemplar));
        }
    }

    /// An `Exemplar`'s body: filtered attributes 7, time 2, value 3 or 6, span id 4, trace
    /// id 5.
    fn exemplar<T: Number>(&mut self, exemplar: &Exemplar<T>) {
        self.attributes(7, exemplar.filtered_attributes());
        self.fixed64(2, nanos(exemplar.time()));
        exemplar.value.write(self, 6, 3);
        self.bytes(4, exemplar.span_id());
        self.bytes(5, exemplar.trace_id());
    }

    /// A histogram point's `optional double` minimum at `field` and maximum after it.
    fn extremes<T: Number>(&mut self, field: u32, min: Option<T>, max: Option<T>) {
        for (field, value) in [(field, min), (field + 1, max)] {
            if let Some(value) = value {
                self.double(field, value.as_f64());
            }
        }
    }

    /// A `sint32` (zigzag); zero is left out.
    fn sint32(&mut self, field: u32, value: i32) {
        if value != 0 {
            self.key(field, VARINT);
            self.varint(u64::from(((value << 1) ^ (value >> 31)) as u32));
        }
    }

    /// A packed repeated field, each value written by `write`; left out when empty.
    fn packed<T>(
        &mut self,
        field: u32,
        values: impl Iterator<Item = T>,
        write: impl Fn(&mut Writer, T),
    ) {
        let mut values = values.peekable();
        if values.peek().is_some() {
            self.message(field, |w| values.for_each(|v| write(w, v)));
        }
    }
}

/// What an `ExportTraceServiceResponse` says was rejected: its `partial_success`'s
/// `rejected_spans` (1) and `error_message` (2), when it has one. A body that is not such a
/// message says nothing.
pub(crate) fn partial_success(body: &[u8]) -> Option<(i64, String)> {
    let partial = fields(body)?.find_map(|(field, value)| match (field, value) {
        (1, Field::Len(bytes)) => Some(bytes),
        _ => None,
    })?;
    let mut rejected = 0;
    let mut message = String::new();
    for (field, value) in fields(partial)? {
        match (field, value) {
            (1, Field::Varint(n)) => rejected = n as i64,
            (2, Field::Len(text)) => message = String::from_utf8_lossy(text).into_owned(),
            _ => {}
        }
    }
    (rejected != 0 || !message.is_empty()).then_some((rejected, message))
}

/// The pause a gRPC error's details ask for: `google.rpc.Status` (its `details`, field 3,
/// each a `google.protobuf.Any`) holding a `google.rpc.RetryInfo`, whose `retry_delay` is a
/// `google.protobuf.Duration` (seconds, nanos).
#[cfg(feature = "otlp-grpc")]
pub(crate) fn retry_delay(status: &[u8]) -> Option<std::time::Duration> {
    fields(status)?
        .filter_map(|(field, value)| match (field, value) {
            (3, Field::Len(any)) => Some(any),
            _ => None,
        })
        .find_map(|any| {
            let mut type_url = None;
            let mut value = None;
            for (field, v) in fields(any)? {
                match (field, v) {
                    (1, Field::Len(url)) => type_url = Some(url),
                    (2, Field::Len(bytes)) => value = Some(bytes),
                    _ => {}
                }
            }
            if !type_url?.ends_with(b"/google.rpc.RetryInfo") {
                return None;
            }
            let delay =
                fields(value.unwrap_or_default())?.find_map(|(field, v)| match (field, v) {
                    (1, Field::Len(duration)) => Some(duration),
                    _ => None,
                })?;
            let (mut seconds, mut nanos) = (0u64, 0u64);
            for (field, v) in fields(delay)? {
                match (field, v) {
                    (1, Field::Varint(n)) => seconds = n,
                    (2, Field::Varint(n)) => nanos = n,
                    _ => {}
                }
            }
            // Negative values (two's complement varints) and nanos past a second are not
            // pauses.
            (i64::try_from(seconds).is_ok() && nanos < 1_000_000_000).then(|| {
                std::time::Duration::from_secs(seconds) + std::time::Duration::from_nanos(nanos)
            })
        })
}

enum Field<'a> {
    Varint(u64),
    Len(&'a [u8]),
    Other,
}

/// A message's fields, or `None` when it is not well formed.
fn fields(mut body: &[u8]) -> Option<impl Iterator<Item = (u32, Field<'_>)>> {
    let mut out = Vec::new();
    while !body.is_empty() {
        let key = read_varint(&mut body)?;
        let field = u32::try_from(key >> 3).ok()?;
        let value = match key & 7 {
            0 => Field::Varint(read_varint(&mut body)?),
            1 => {
                body = body.get(8..)?;
                Field::Other
            }
            2 => {
                let len = usize::try_from(read_varint(&mut body)?).ok()?;
                let (bytes, rest) = (body.get(..len)?, body.get(len..)?);
                body = rest;
                Field::Len(bytes)
            }
            5 => {
                body = body.get(4..)?;
                Field::Other
            }
            _ => return None,
        };
        out.push((field, value));
    }
    Some(out.into_iter())
}

fn read_varint(body: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = body.split_first()?;
        *body = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::time::Duration;

    use opentelemetry::trace::{Event, Link, SpanContext, SpanId, TraceFlags, TraceId, TraceState};
    use opentelemetry::{InstrumentationScope, KeyValue, StringValue};
    use opentelemetry_proto::tonic::collector::trace::v1::{
        ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
    };
    use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
    use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
    use opentelemetry_sdk::trace::{SpanEvents, SpanLinks};
    use prost::Message as _;

    use super::*;

    fn context(trace: u128, span: u64, remote: bool, state: &str) -> SpanContext {
        SpanContext::new(
            TraceId::from(trace),
            SpanId::from(span),
            TraceFlags::SAMPLED,
            remote,
            TraceState::from_key_value([("vendor", state)]).unwrap(),
        )
    }

    fn every_value(prefix: &str) -> Vec<KeyValue> {
        let long = "x".repeat(3000);
        vec![
            KeyValue::new(format!("{prefix}.string"), "tools/call"),
            KeyValue::new(format!("{prefix}.empty"), ""),
            KeyValue::new(format!("{prefix}.long"), long),
            KeyValue::new(format!("{prefix}.true"), true),
            KeyValue::new(format!("{prefix}.false"), false),
            KeyValue::new(format!("{prefix}.zero"), 0i64),
            KeyValue::new(format!("{prefix}.negative"), -5i64),
            KeyValue::new(format!("{prefix}.big"), i64::MAX),
            KeyValue::new(format!("{prefix}.float"), 0.25f64),
            KeyValue::new(format!("{prefix}.float0"), 0.0f64),
            KeyValue::new(
                format!("{prefix}.bools"),
                Value::Array(vec![true, false].into()),
            ),
            KeyValue::new(
                format!("{prefix}.ints"),
                Value::Array(vec![0i64, -1, 1 << 40].into()),
            ),
            KeyValue::new(
                format!("{prefix}.floats"),
                Value::Array(vec![1.5f64, -0.0].into()),
            ),
            KeyValue::new(
                format!("{prefix}.strings"),
                Value::Array(vec![StringValue::from("a"), StringValue::from("")].into()),
            ),
            KeyValue::new(
                format!("{prefix}.no-values"),
                Value::Array(Vec::<i64>::new().into()),
            ),
            KeyValue::new(format!("{prefix}.unicode"), "é ✓ 🙂"),
            KeyValue::new("", "an empty key"),
        ]
    }

    fn span(scope: &InstrumentationScope, n: u64, status: Status, kind: SpanKind) -> SpanData {
        let start = UNIX_EPOCH + Duration::from_nanos(1_764_200_000_123_456_789 + n);
        let mut events = SpanEvents::default();
        events.events.push(Event::new(
            "exception",
            start + Duration::from_micros(5),
            every_value("e"),
            1,
        ));
        events.dropped_count = 2;
        let mut links = SpanLinks::default();
        links
            .links
            .push(Link::new(context(7, 8, true, "l"), every_value("l"), 3));
        links.dropped_count = 4;
        SpanData {
            span_context: context(
                0x0af7_6519_16cd_43dd_8448_eb21_1c80_319c + u128::from(n),
                0xb7ad_6b71_6920_3331 + n,
                false,
                "s",
            ),
            parent_span_id: if n.is_multiple_of(2) {
                SpanId::from(0x1234 + n)
            } else {
                SpanId::INVALID
            },
            parent_span_is_remote: n.is_multiple_of(4),
            span_kind: kind,
            name: Cow::Owned(format!("tools/call tool{n}")),
            start_time: start,
            end_time: start + Duration::from_micros(37),
            attributes: every_value("a"),
            dropped_attributes_count: (n % 3) as u32,
            events,
            links,
            status,
            instrumentation_scope: scope.clone(),
        }
    }

    /// What the SDK's own conversion (opentelemetry-proto's, which opentelemetry-otlp sends)
    /// makes of `spans`.
    fn reference(resource: &Resource, spans: &[SpanData]) -> ExportTraceServiceRequest {
        ExportTraceServiceRequest {
            resource_spans: group_spans_by_resource_and_scope(
                spans.to_vec(),
                &ResourceAttributesWithSchema::from(resource),
            ),
        }
    }

    #[test]
    fn the_body_decodes_to_what_the_sdk_conversion_gives() {
        let resource = Resource::builder()
            .with_service_name("demo")
            .with_attribute(KeyValue::new("deployment.environment", "test"))
            .with_schema_url(
                [KeyValue::new("host.name", "h")],
                "https://opentelemetry.io/schemas/1.30.0",
            )
            .build();
        let server = InstrumentationScope::builder("ferromcp")
            .with_version("0.1.0")
            .with_attributes([KeyValue::new("scope.a", 1i64)])
            .build();
        let other = InstrumentationScope::builder("app")
            .with_schema_url("https://example.com/schema")
            .build();
        let spans = vec![
            span(&server, 0, Status::Unset, SpanKind::Server),
            span(&other, 1, Status::Ok, SpanKind::Client),
            span(&server, 2, Status::error("boom ✗"), SpanKind::Internal),
            span(&other, 3, Status::error(""), SpanKind::Producer),
            span(&server, 4, Status::Unset, SpanKind::Consumer),
        ];
        let body = export_trace_request(&resource, &spans);
        let decoded = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
        assert_eq!(decoded, reference(&resource, &spans));
        assert_eq!(decoded.resource_spans[0].scope_spans[0].spans.len(), 3);
        // Values long enough that lengths take one, two and three bytes.
        assert!(body.len() > 0x4000, "{}", body.len());
    }

    /// Spans are written with room for a two-byte length: one whose length takes one byte
    /// or three moves into place.
    #[test]
    fn spans_whose_lengths_take_one_two_or_three_bytes() {
        let resource = Resource::builder_empty().build();
        let scope = InstrumentationScope::builder("s").build();
        let sized = |attribute: usize| {
            let mut data = span(&scope, 1, Status::Unset, SpanKind::Server);
            data.name = Cow::Borrowed("a");
            data.events = SpanEvents::default();
            data.links = SpanLinks::default();
            data.attributes = if attribute == 0 {
                Vec::new()
            } else {
                vec![KeyValue::new("k", "v".repeat(attribute))]
            };
            data
        };
        let spans = [sized(0), sized(200), sized(20_000), sized(0)];
        // No room in front: the head is written before a copy of the spans.
        let mut encoded = EncodedSpans::with_room(1, 0);
        let mut lengths = Vec::new();
        for data in &spans {
            let before: usize = encoded.scopes.iter().map(|(_, b)| b.len()).sum();
            encoded.push(data);
            let after: usize = encoded.scopes.iter().map(|(_, b)| b.len()).sum();
            lengths.push(after - before);
        }
        // Key, length, body: under 128 bytes, under 16 KiB, over it.
        assert!(
            lengths[0] < 130 && lengths[1] > 200 && lengths[2] > 20_000,
            "{lengths:?}"
        );
        let body = encoded_trace_request(&resource, encoded);
        let decoded = ExportTraceServiceRequest::decode(&body[..]).unwrap();
        assert_eq!(decoded, reference(&resource, &spans));
    }

    /// Short string attributes take a path of their own: around its bounds, and with an
    /// empty key or value, the output is what the SDK's conversion gives.
    #[test]
    fn string_attributes_around_the_short_path_bounds() {
        let resource = Resource::builder_empty().build();
        let scope = InstrumentationScope::builder("s").build();
        let mut data = span(&scope, 1, Status::Unset, SpanKind::Server);
        data.events = SpanEvents::default();
        data.links = SpanLinks::default();
        data.attributes = [0, 1, 119, 120, 121, 122, 126, 200]
            .into_iter()
            .map(|n| KeyValue::new("k", "v".repeat(n)))
            .chain([
                KeyValue::new("", "empty key"),
                KeyValue::new("k".repeat(121), ""),
                KeyValue::new("k".repeat(122), ""),
                KeyValue::new("é", "ü✓"),
            ])
            .collect();
        let body = export_trace_request(&resource, std::slice::from_ref(&data));
        let decoded = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
        assert_eq!(decoded, reference(&resource, &[data]));
    }

    /// The head goes in the room kept for it when it fits, and before a copy when the
    /// resource grew since the room was kept.
    #[test]
    fn the_head_in_its_room_or_before_a_copy() {
        let scope = InstrumentationScope::builder("ferromcp")
            .with_version("1")
            .build();
        let mut data = span(&scope, 2, Status::Unset, SpanKind::Server);
        data.events = SpanEvents::default();
        data.links = SpanLinks::default();
        let small = Resource::builder_empty().build();
        let large = Resource::builder()
            .with_service_name("x".repeat(300))
            .build();
        for (kept_for, sent_with, in_place) in [
            (&small, &small, true),
            (&large, &large, true),
            (&small, &large, false),
        ] {
            let mut encoded = EncodedSpans::with_room(4, head_room(kept_for));
            encoded.push(&data);
            encoded.push(&data);
            let written = encoded.scopes[0].1.as_ptr_range();
            let body = encoded_trace_request(sent_with, encoded);
            // In place, the body is a slice of the buffer the spans were written in.
            assert_eq!(written.contains(&body.as_ptr()), in_place);
            let decoded = ExportTraceServiceRequest::decode(&body[..]).unwrap();
            assert_eq!(decoded, reference(sent_with, &[data.clone(), data.clone()]));
        }
    }

    #[test]
    fn an_empty_batch_and_an_empty_resource() {
        let resource = Resource::builder_empty().build();
        let body = export_trace_request(&resource, &[]);
        let decoded = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
        assert_eq!(decoded, reference(&resource, &[]));
    }

    #[test]
    fn a_span_as_the_server_makes_it() {
        let resource = Resource::builder().build();
        let scope = InstrumentationScope::builder("ferromcp").build();
        let mut data = span(&scope, 6, Status::Unset, SpanKind::Server);
        data.attributes = vec![
            KeyValue::new("mcp.method.name", "tools/call"),
            KeyValue::new("gen_ai.tool.name", "echo"),
            KeyValue::new("jsonrpc.request.id", "7"),
        ];
        data.events = SpanEvents::default();
        data.links = SpanLinks::default();
        let body = export_trace_request(&resource, std::slice::from_ref(&data));
        let decoded = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
        assert_eq!(decoded, reference(&resource, &[data]));
    }

    /// Every kind of metric the SDK aggregates, collected by a real meter provider, written
    /// here and decoded, against the SDK's own conversion.
    #[test]
    fn the_metrics_body_decodes_to_what_the_sdk_conversion_gives() {
        use opentelemetry::metrics::MeterProvider as _;
        use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
        use opentelemetry_sdk::metrics::{
            InMemoryMetricExporterBuilder, PeriodicReader, SdkMeterProvider,
        };
        for temporality in [Temporality::Cumulative, Temporality::Delta] {
            let exporter = InMemoryMetricExporterBuilder::new()
                .with_temporality(temporality)
                .build();
            let provider = SdkMeterProvider::builder()
                .with_resource(
                    Resource::builder()
                        .with_service_name("metrics-test")
                        .with_attribute(KeyValue::new("host.name", "h"))
                        .build(),
                )
                .with_reader(PeriodicReader::builder(exporter.clone()).build())
                .with_view(|instrument: &opentelemetry_sdk::metrics::Instrument| {
                    (instrument.name() == "exponential").then(|| {
                        opentelemetry_sdk::metrics::Stream::builder()
                            .with_aggregation(
                                opentelemetry_sdk::metrics::Aggregation::Base2ExponentialHistogram {
                                    max_size: 160,
                                    max_scale: 20,
                                    record_min_max: true,
                                },
                            )
                            .build()
                            .unwrap()
                    })
                })
                .build();
            let meter = provider.meter_with_scope(
                InstrumentationScope::builder("ferromcp")
                    .with_version("0.1.0")
                    .with_schema_url("https://opentelemetry.io/schemas/1.30.0")
                    .build(),
            );
            let other = provider.meter("app");
            let tool = [KeyValue::new("gen_ai.tool.name", "echo")];
            let histogram = meter
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description("How long requests take.")
                .with_boundaries(vec![0.01, 0.1, 1.0])
                .build();
            for value in [0.005, 0.05, 0.5, 5.0] {
                histogram.record(value, &tool);
            }
            histogram.record(0.2, &[KeyValue::new("error.type", "tool_error")]);
            let empty = meter.u64_histogram("never.recorded").build();
            let _ = &empty;
            let counter = meter.u64_counter("calls").build();
            counter.add(3, &tool);
            counter.add(0, &[]);
            let live = meter
                .i64_up_down_counter("mcp.server.sessions.active")
                .build();
            live.add(2, &[KeyValue::new("network.transport", "tcp")]);
            live.add(-5, &[KeyValue::new("network.transport", "pipe")]);
            let ratio = other.f64_gauge("ratio").build();
            ratio.record(-0.0, &[]);
            ratio.record(0.75, &tool);
            let level = other.i64_gauge("level").build();
            level.record(i64::MIN, &[]);
            let big = other.u64_gauge("big").build();
            big.record(u64::MAX, &[]);
            let float_sum = other.f64_counter("bytes").build();
            float_sum.add(1.5, &[]);
            let exponential = other.f64_histogram("exponential").build();
            for value in [0.0, 0.001, 1.0, 3.5, 1000.0] {
                exponential.record(value, &tool);
            }
            provider.force_flush().unwrap();
            let collected = exporter.get_finished_metrics().unwrap();
            assert!(!collected.is_empty());
            for metrics in &collected {
                let body = export_metrics_request(metrics);
                let decoded = ExportMetricsServiceRequest::decode(body.as_slice()).unwrap();
                assert_eq!(
                    decoded,
                    ExportMetricsServiceRequest::from(metrics),
                    "{temporality:?}"
                );
                let kinds: usize = decoded.resource_metrics[0]
                    .scope_metrics
                    .iter()
                    .map(|s| s.metrics.len())
                    .sum();
                // Every instrument recorded to (one never was, and is not sent).
                assert_eq!(kinds, 8);
                use opentelemetry_proto::tonic::metrics::v1::metric::Data;
                let data: Vec<_> = decoded.resource_metrics[0]
                    .scope_metrics
                    .iter()
                    .flat_map(|s| &s.metrics)
                    .filter_map(|m| m.data.as_ref())
                    .collect();
                assert!(
                    data.iter()
                        .any(|d| matches!(d, Data::ExponentialHistogram(_)))
                );
                assert!(data.iter().any(|d| matches!(d, Data::Histogram(_))));
                assert!(data.iter().any(|d| matches!(d, Data::Gauge(_))));
                assert!(data.iter().any(|d| matches!(d, Data::Sum(_))));
            }
        }
    }

    #[test]
    fn varint_lengths() {
        for (value, len) in [
            (0u64, 1),
            (1, 1),
            (127, 1),
            (128, 2),
            (16_383, 2),
            (16_384, 3),
            (u64::MAX, 10),
        ] {
            assert_eq!(varint_len(value), len, "{value}");
            let mut w = Writer { buf: Vec::new() };
            w.varint(value);
            assert_eq!(w.buf.len(), len, "{value}");
        }
    }

    #[test]
    fn partial_success_is_read_from_the_response() {
        let encode = |response: ExportTraceServiceResponse| response.encode_to_vec();
        assert_eq!(partial_success(&[]), None);
        assert_eq!(
            partial_success(&encode(ExportTraceServiceResponse {
                partial_success: None
            })),
            None
        );
        assert_eq!(
            partial_success(&encode(ExportTraceServiceResponse {
                partial_success: Some(ExportTracePartialSuccess {
                    rejected_spans: 0,
                    error_message: String::new(),
                })
            })),
            None
        );
        assert_eq!(
            partial_success(&encode(ExportTraceServiceResponse {
                partial_success: Some(ExportTracePartialSuccess {
                    rejected_spans: 3,
                    error_message: "too old".into(),
                })
            })),
            Some((3, "too old".to_owned()))
        );
        // Not a protobuf message: nothing to say.
        assert_eq!(partial_success(b"\xff\xff\xff"), None);
        assert_eq!(partial_success(b"{\"partialSuccess\":{}}"), None);
    }
}
