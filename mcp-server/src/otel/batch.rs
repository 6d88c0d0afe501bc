//! [`Otel`](super::Otel)'s span processor: each span is written as protobuf when it ends,
//! on the thread that ended it, into the batch being filled; a task on the export runtime
//! sends each batch once it is full, and whatever is waiting every schedule delay.
//!
//! The SDK's `BatchSpanProcessor` moves every `SpanData` through a channel to a thread of
//! its own, which collects a batch and hands it to the exporter, where it is written and
//! dropped. Writing the span where it ends saves the channel, the moves and the batch's
//! vector, and frees the span's strings on the thread that made them, where the allocator's
//! per-thread cache takes them back cheaply (freed on another thread, they went through the
//! shared heap's locked path, and the request thread's next allocations missed its cache).
//! The batching rules are the SDK's, read from the same variables.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use opentelemetry::Context;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::trace::{Span, SpanData, SpanProcessor};
use tokio::sync::Notify;

use super::otlp::{Env, Exporter, OtelError};
use super::protobuf::{EncodedSpans, encoded_trace_request, head_room};

/// The batching rules (`OTEL_BSP_*`), with the SDK's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BatchSettings {
    /// Spans waiting at most; more are dropped (and counted) until a batch is sent.
    pub(crate) max_queue: usize,
    /// Spans in one export at most.
    pub(crate) max_batch: usize,
    /// How long a span waits at most for its batch to fill.
    pub(crate) delay: Duration,
}

impl Default for BatchSettings {
    fn default() -> BatchSettings {
        BatchSettings {
            max_queue: 2048,
            max_batch: 512,
            delay: Duration::from_millis(5000),
        }
    }
}

impl BatchSettings {
    /// `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` (no more than the queue,
    /// as the SDK has it) and `OTEL_BSP_SCHEDULE_DELAY` (milliseconds). A value that is not
    /// a positive whole number is refused, naming the variable.
    pub(crate) fn read(env: &Env<'_>) -> Result<BatchSettings, OtelError> {
        let mut settings = BatchSettings::default();
        let positive = |name: &str| -> Result<Option<u64>, OtelError> {
            match env.get(name)? {
                None => Ok(None),
                Some(v) => match v.trim().parse::<u64>() {
                    Ok(n) if n > 0 => Ok(Some(n)),
                    _ => Err(OtelError::Invalid {
                        name: name.to_owned(),
                        value: v,
                        expected: "a positive whole number",
                    }),
                },
            }
        };
        if let Some(n) = positive("OTEL_BSP_MAX_QUEUE_SIZE")? {
            settings.max_queue = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(n) = positive("OTEL_BSP_MAX_EXPORT_BATCH_SIZE")? {
            settings.max_batch = usize::try_from(n).unwrap_or(usize::MAX);
        }
        settings.max_batch = settings.max_batch.min(settings.max_queue);
        if let Some(ms) = positive("OTEL_BSP_SCHEDULE_DELAY")? {
            settings.delay = Duration::from_millis(ms);
        }
        Ok(settings)
    }
}

/// Writes spans as they end and exports them in batches (see the module's docs).
#[derive(Debug)]
pub(crate) struct SpanBatcher {
    shared: Arc<Shared>,
    worker: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

#[derive(Debug)]
struct Shared {
    queue: Mutex<Queue>,
    /// A batch filled up, or the processor is stopping.
    wake: Notify,
    /// Held while batches are sent: one export at a time, as the SDK's processor makes
    /// them, and a flush waits for the export under way before it sends what waits.
    sending: tokio::sync::Mutex<()>,
    settings: BatchSettings,
    exporter: Exporter,
    /// The tracer provider's, set as it is built.
    resource: RwLock<Resource>,
    /// The room a batch keeps for the head of its export ([`head_room`] of the resource).
    front: AtomicUsize,
    /// Spans dropped because the queue was full.
    dropped: AtomicU64,
}

#[derive(Debug, Default)]
struct Queue {
    /// Batches waiting, oldest first; the last one is being filled.
    batches: VecDeque<EncodedSpans>,
    /// Spans in them all.
    spans: usize,
    /// Shut down: spans that end from now on are not exported.
    stopped: bool,
}

impl Queue {
    /// Takes the oldest batch: only a full one unless `any`.
    fn take(&mut self, max_batch: usize, any: bool) -> Option<EncodedSpans> {
        let first = self.batches.front()?;
        if first.is_empty() || !any && first.len() < max_batch {
            return None;
        }
        let batch = self.batches.pop_front()?;
        self.spans -= batch.len();
        Some(batch)
    }
}

impl SpanBatcher {
    /// A processor exporting through `exporter`, its worker spawned on the export runtime.
    pub(crate) fn new(
        exporter: Exporter,
        settings: BatchSettings,
        runtime: &tokio::runtime::Handle,
    ) -> SpanBatcher {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            wake: Notify::new(),
            sending: tokio::sync::Mutex::new(()),
            settings,
            exporter,
            resource: RwLock::new(Resource::builder_empty().build()),
            front: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
        });
        let worker = runtime.spawn(work(shared.clone()));
        SpanBatcher {
            shared,
            worker: Mutex::new(Some(worker)),
        }
    }
}

/// The worker: sends each batch that fills up, and every schedule delay whatever waits.
async fn work(shared: Arc<Shared>) {
    let delay = shared.settings.delay;
    let mut due = tokio::time::Instant::now() + delay;
    loop {
        let timed_out = tokio::select! {
            () = shared.wake.notified() => false,
            () = tokio::time::sleep_until(due) => true,
        };
        if timed_out {
            due = tokio::time::Instant::now() + delay;
        }
        if shared
            .queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .stopped
        {
            return;
        }
        loop {
            let _sending = shared.sending.lock().await;
            let Some(batch) = shared.take(timed_out) else {
                break;
            };
            let spans = batch.len();
            if let Err(e) = shared.send(batch).await {
                tracing::warn!(error = %e, spans, "OTLP span export failed");
            }
        }
    }
}

impl Shared {
    fn take(&self, any: bool) -> Option<EncodedSpans> {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        queue.take(self.settings.max_batch, any)
    }

    async fn send(&self, batch: EncodedSpans) -> OTelSdkResult {
        let body = {
            let resource = self.resource.read().unwrap_or_else(|e| e.into_inner());
            encoded_trace_request(&resource, batch)
        };
        self.exporter.send(Some(body)).await
    }

    /// Sends everything waiting, after the export under way if there is one, on the export
    /// runtime, and waits for it: at most `timeout`, after which the exports go on without
    /// being waited for.
    fn flush(self: &Arc<Self>, timeout: Duration) -> OTelSdkResult {
        let idle = self.sending.try_lock().is_ok();
        if idle && self.queue.lock().unwrap_or_else(|e| e.into_inner()).spans == 0 {
            return Ok(());
        }
        let (done, finished) = std::sync::mpsc::sync_channel(1);
        let shared = self.clone();
        self.exporter.runtime().spawn(async move {
            let _sending = shared.sending.lock().await;
            let batches: Vec<EncodedSpans> = {
                let mut queue = shared.queue.lock().unwrap_or_else(|e| e.into_inner());
                std::iter::from_fn(|| queue.take(shared.settings.max_batch, true)).collect()
            };
            let mut result = Ok(());
            for batch in batches {
                if let Err(e) = shared.send(batch).await {
                    result = Err(e);
                }
            }
            let _ = done.send(result);
        });
        finished.recv_timeout(timeout).map_err(|e| match e {
            std::sync::mpsc::RecvTimeoutError::Timeout => OTelSdkError::Timeout(timeout),
            std::sync::mpsc::RecvTimeoutError::Disconnected => {
                OTelSdkError::InternalFailure("the export runtime stopped".into())
            }
        })?
    }
}

impl SpanProcessor for SpanBatcher {
    fn on_start(&self, _span: &mut Span, _cx: &Context) {}

    fn on_end(&self, span: SpanData) {
        if !span.span_context.is_sampled() {
            return;
        }
        let shared = &*self.shared;
        let mut queue = shared.queue.lock().unwrap_or_else(|e| e.into_inner());
        if queue.stopped {
            return;
        }
        if queue.spans >= shared.settings.max_queue {
            drop(queue);
            if shared.dropped.fetch_add(1, Ordering::Relaxed) == 0 {
                tracing::warn!(
                    max_queue = shared.settings.max_queue,
                    "OTLP span queue full: spans are dropped until the exporter catches up \
                     (OTEL_BSP_MAX_QUEUE_SIZE)"
                );
            }
            return;
        }
        let max_batch = shared.settings.max_batch;
        if queue
            .batches
            .back()
            .is_none_or(|last| last.len() >= max_batch)
        {
            let front = shared.front.load(Ordering::Relaxed);
            queue
                .batches
                .push_back(EncodedSpans::with_room(max_batch, front));
        }
        let Some(filling) = queue.batches.back_mut() else {
            return;
        };
        filling.push(&span);
        let full = filling.len() == max_batch;
        queue.spans += 1;
        drop(queue);
        if full {
            shared.wake.notify_one();
        }
        // `span` is dropped here, on the thread that made it.
    }

    /// Sends what waits, waiting at most twice the export timeout
    /// (`OTEL_EXPORTER_OTLP_TIMEOUT`): once for an export under way, once for the rest.
    fn force_flush(&self) -> OTelSdkResult {
        self.shared.flush(self.shared.exporter.timeout() * 2)
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        {
            let mut queue = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
            if queue.stopped {
                return Err(OTelSdkError::AlreadyShutdown);
            }
            queue.stopped = true;
        }
        // The worker ends when it next wakes; what waits is sent here.
        self.shared.wake.notify_one();
        let flushed = self.shared.flush(timeout);
        if let Some(worker) = self.worker.lock().unwrap_or_else(|e| e.into_inner()).take() {
            worker.abort();
        }
        let dropped = self.shared.dropped.load(Ordering::Relaxed);
        if dropped > 0 {
            tracing::warn!(dropped, "OTLP spans dropped because the queue was full");
        }
        let stopped = self.shared.exporter.stop();
        flushed.and(stopped)
    }

    fn set_resource(&mut self, resource: &Resource) {
        *self
            .shared
            .resource
            .write()
            .unwrap_or_else(|e| e.into_inner()) = resource.clone();
        self.shared
            .front
            .store(head_room(resource), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::time::Instant;

    use opentelemetry::trace::{
        Link, SpanKind, TraceId, TraceState, Tracer as _, TracerProvider as _,
    };
    use opentelemetry::{KeyValue, trace::Span as _};
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_sdk::trace::{
        SamplingDecision, SamplingResult, SdkTracerProvider, ShouldSample,
    };
    use prost::Message as _;

    use super::*;
    use crate::otel::otlp::test_exporter;

    fn settings(max_queue: usize, max_batch: usize, delay: Duration) -> BatchSettings {
        BatchSettings {
            max_queue,
            max_batch,
            delay,
        }
    }

    #[test]
    fn settings_are_read_from_the_environment() {
        let read = |pairs: &[(&str, &str)]| BatchSettings::read(&Env::from_pairs(pairs));
        assert_eq!(read(&[]).unwrap(), BatchSettings::default());
        assert_eq!(
            read(&[
                ("OTEL_BSP_MAX_QUEUE_SIZE", "100"),
                ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", " 10 "),
                ("OTEL_BSP_SCHEDULE_DELAY", "250"),
            ])
            .unwrap(),
            settings(100, 10, Duration::from_millis(250))
        );
        // No batch larger than the queue, as the SDK has it.
        assert_eq!(
            read(&[("OTEL_BSP_MAX_QUEUE_SIZE", "100")])
                .unwrap()
                .max_batch,
            100
        );
        for (name, value) in [
            ("OTEL_BSP_MAX_QUEUE_SIZE", "0"),
            ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "-1"),
            ("OTEL_BSP_SCHEDULE_DELAY", "5s"),
        ] {
            let e = read(&[(name, value)]).unwrap_err().to_string();
            assert!(e.starts_with(name) && e.contains(value), "{e}");
        }
    }

    /// How the test collector answers.
    #[derive(Clone, Copy)]
    enum Answer {
        /// 200 at once.
        Now,
        /// 200 after this long.
        After(Duration),
        /// Never.
        Never,
    }

    /// A collector on 127.0.0.1 that counts the requests it has received, and keeps each
    /// one's body as it answers it (never, for `Answer::Never`).
    async fn collector(answer: Answer) -> (String, Arc<Mutex<Vec<Vec<u8>>>>, Arc<AtomicUsize>) {
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let received = Arc::new(AtomicUsize::new(0));
        let (seen, counted) = (bodies.clone(), received.clone());
        let app = axum::Router::new().fallback(move |body: axum::body::Bytes| {
            let (seen, counted) = (seen.clone(), counted.clone());
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                match answer {
                    Answer::Now => {}
                    Answer::After(pause) => tokio::time::sleep(pause).await,
                    Answer::Never => std::future::pending::<()>().await,
                }
                seen.lock().unwrap().push(body.to_vec());
                axum::http::StatusCode::OK
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("http://{addr}/v1/traces"), bodies, received)
    }

    /// The span names of each export received so far.
    fn exports(bodies: &Mutex<Vec<Vec<u8>>>) -> Vec<Vec<String>> {
        let bodies = bodies.lock().unwrap();
        bodies
            .iter()
            .map(|body| {
                let request = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
                request
                    .resource_spans
                    .iter()
                    .flat_map(|r| &r.scope_spans)
                    .flat_map(|s| &s.spans)
                    .map(|s| s.name.clone())
                    .collect()
            })
            .collect()
    }

    /// Waits (10 s at most) until `done` holds.
    async fn until(what: &str, mut done: impl FnMut() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "waited for {what}"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    struct Setup {
        provider: SdkTracerProvider,
        shared: Arc<Shared>,
        _runtime: crate::otel::otlp::ExportRuntime,
    }

    fn setup(url: &str, settings: BatchSettings, sampler: Option<Box<dyn ShouldSample>>) -> Setup {
        let (exporter, runtime) = test_exporter(url, Duration::from_secs(30));
        let batcher = SpanBatcher::new(exporter, settings, runtime.handle());
        let shared = batcher.shared.clone();
        let mut builder = SdkTracerProvider::builder().with_span_processor(batcher);
        if let Some(sampler) = sampler {
            builder = builder.with_sampler(sampler);
        }
        Setup {
            provider: builder.build(),
            shared,
            _runtime: runtime,
        }
    }

    fn end_spans(provider: &SdkTracerProvider, names: std::ops::Range<usize>) {
        let tracer = provider.tracer("test");
        for n in names {
            let mut span = tracer.start(format!("span {n}"));
            span.set_attribute(KeyValue::new("n", n as i64));
            span.end();
        }
    }

    fn names(range: std::ops::Range<usize>) -> Vec<String> {
        range.map(|n| format!("span {n}")).collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn full_batches_go_at_once_and_the_rest_on_flush() {
        let (url, bodies, _) = collector(Answer::Now).await;
        let s = setup(&url, settings(100, 2, Duration::from_secs(3600)), None);
        end_spans(&s.provider, 0..5);
        // Two full batches, sent without a flush and long before the schedule delay.
        until("two exports", || bodies.lock().unwrap().len() == 2).await;
        assert_eq!(exports(&bodies), vec![names(0..2), names(2..4)]);
        let provider = s.provider.clone();
        tokio::task::spawn_blocking(move || provider.force_flush())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(exports(&bodies)[2], names(4..5));
        // Nothing waits any more: a flush sends nothing.
        let provider = s.provider.clone();
        tokio::task::spawn_blocking(move || provider.force_flush())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(exports(&bodies).len(), 3);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn the_schedule_delay_sends_a_batch_that_is_not_full() {
        let (url, bodies, _) = collector(Answer::Now).await;
        let s = setup(&url, settings(100, 50, Duration::from_millis(50)), None);
        // Fewer spans than a batch: they go when the delay is up, with no flush (in one
        // export or more, as the timer falls).
        let sent = || exports(&bodies).concat();
        end_spans(&s.provider, 0..3);
        until("the delayed export", || sent().len() == 3).await;
        end_spans(&s.provider, 3..4);
        until("the next delayed export", || sent().len() == 4).await;
        assert_eq!(sent(), names(0..4));
        assert!(exports(&bodies).iter().all(|e| !e.is_empty()));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_flush_and_a_shutdown_wait_for_the_export_under_way() {
        let (url, bodies, received) = collector(Answer::After(Duration::from_millis(300))).await;
        let s = setup(&url, settings(100, 2, Duration::from_secs(3600)), None);
        for round in 0..2 {
            // A full batch: the worker sends it, and the collector takes its time.
            end_spans(&s.provider, round * 2..round * 2 + 2);
            until("the export", || {
                received.load(Ordering::SeqCst) == round + 1
            })
            .await;
            let provider = s.provider.clone();
            let ended = tokio::task::spawn_blocking(move || {
                if round == 0 {
                    provider.force_flush()
                } else {
                    provider.shutdown()
                }
            })
            .await
            .unwrap();
            // Neither returns before that export is answered.
            assert!(ended.is_ok(), "{ended:?}");
            assert_eq!(bodies.lock().unwrap().len(), round + 1);
        }
        assert_eq!(exports(&bodies).concat(), names(0..4));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_full_queue_drops_spans_and_counts_them() {
        // The collector never answers: the first batch's export hangs, the rest wait.
        let (url, _, held) = collector(Answer::Never).await;
        let s = setup(&url, settings(3, 2, Duration::from_secs(3600)), None);
        end_spans(&s.provider, 0..2);
        until("the first export", || held.load(Ordering::SeqCst) == 1).await;
        // Three wait (a full batch and one more), two are dropped.
        end_spans(&s.provider, 2..7);
        assert_eq!(s.shared.dropped.load(Ordering::Relaxed), 2);
        assert_eq!(s.shared.queue.lock().unwrap().spans, 3);
        // Shutting down sends what waits and gives up after the timeout.
        let shared = s.shared.clone();
        let provider = s.provider.clone();
        let shutdown = tokio::task::spawn_blocking(move || {
            provider.shutdown_with_timeout(Duration::from_millis(200))
        })
        .await
        .unwrap();
        assert!(shutdown.is_err(), "{shutdown:?}");
        // The flush goes on after the timeout: once the aborted worker lets go of the
        // export lock, it takes what waits and sends it.
        until("the flush's export", || held.load(Ordering::SeqCst) == 2).await;
        assert_eq!(shared.queue.lock().unwrap().spans, 0);
    }

    /// Records every span but samples none.
    #[derive(Debug, Clone)]
    struct RecordOnly;

    impl ShouldSample for RecordOnly {
        fn should_sample(
            &self,
            _: Option<&Context>,
            _: TraceId,
            _: &str,
            _: &SpanKind,
            _: &[KeyValue],
            _: &[Link],
        ) -> SamplingResult {
            SamplingResult {
                decision: SamplingDecision::RecordOnly,
                attributes: Vec::new(),
                trace_state: TraceState::default(),
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn spans_not_sampled_and_spans_after_shutdown_are_not_exported() {
        let (url, bodies, _) = collector(Answer::Now).await;
        let s = setup(
            &url,
            settings(100, 1, Duration::from_secs(3600)),
            Some(Box::new(RecordOnly)),
        );
        end_spans(&s.provider, 0..3);
        assert_eq!(s.shared.queue.lock().unwrap().spans, 0);

        let (url, bodies_after, _) = collector(Answer::Now).await;
        let s = setup(&url, settings(100, 1, Duration::from_secs(3600)), None);
        let provider = s.provider.clone();
        tokio::task::spawn_blocking(move || provider.shutdown())
            .await
            .unwrap()
            .unwrap();
        // The processor itself refuses a second shutdown.
        let again = s.provider.clone();
        let again = tokio::task::spawn_blocking(move || again.shutdown())
            .await
            .unwrap();
        assert!(again.is_err());
        let (exporter, runtime) = test_exporter(&url, Duration::from_secs(1));
        let batcher = SpanBatcher::new(exporter, BatchSettings::default(), runtime.handle());
        let first = tokio::task::block_in_place(|| batcher.shutdown());
        let second = tokio::task::block_in_place(|| batcher.shutdown());
        assert!(first.is_ok(), "{first:?}");
        assert!(matches!(second, Err(OTelSdkError::AlreadyShutdown)));
        // A sampled span that ends after the shutdown (the SDK's tracer hands out no
        // recording spans by then, so it is given to the processor directly) is dropped.
        let recorded = opentelemetry_sdk::trace::InMemorySpanExporter::default();
        let recorder = SdkTracerProvider::builder()
            .with_simple_exporter(recorded.clone())
            .build();
        end_spans(&recorder, 0..1);
        let [late] = &recorded.get_finished_spans().unwrap()[..] else {
            panic!("one span")
        };
        assert!(late.span_context.is_sampled());
        batcher.on_end(late.clone());
        assert_eq!(batcher.shared.queue.lock().unwrap().spans, 0);
        assert_eq!(s.shared.queue.lock().unwrap().spans, 0);
        assert!(bodies.lock().unwrap().is_empty());
        assert!(bodies_after.lock().unwrap().is_empty());
    }
}
