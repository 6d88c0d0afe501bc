//! Runs a handler's future under the request's rules: a panic becomes an error, the
//! request's cancellation drops the future, a timeout ends it, and (modern era) a handler
//! waiting for client input ends the round with `input_required`.

use std::collections::HashSet;
use std::future::{Future, poll_fn};
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Mutex, OnceLock};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use crate::context::Context;

/// A first poll longer than this blocked the transport's task: the handler is named in a
/// warning (once per process).
const SLOW_FIRST_POLL: Duration = Duration::from_millis(10);

/// Warns, once per handler, that the first poll of the `kind` handler `name` took `took`.
fn warn_slow(kind: &str, name: &str, took: Duration) {
    let what = format!("the {kind} `{name}`");
    static WARNED: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let mut warned = match WARNED.get_or_init(Default::default).lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    if warned.insert(what.clone()) {
        tracing::warn!(
            handler = %what,
            ms = took.as_millis(),
            "{what} ran {} ms before its first await, blocking the transport meanwhile (and \
             out of reach of its timeout): mark it #[tool(blocking)] (or #[resource(blocking)], \
             #[prompt(blocking)]), or move the work into tokio::task::spawn_blocking",
            took.as_millis()
        );
    }
}

/// How a driven handler ended.
pub(crate) enum Driven<T> {
    Done(T),
    Panicked,
    TimedOut,
    Cancelled,
    InputRequired,
}

/// Polls the inner future, turning a panic during a poll into `Err(())`.
pub(crate) struct CatchUnwind<F>(pub(crate) F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, ()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match std::panic::catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    }
}

/// Builds the handler's future (catching a panic while building it) and drives it; then
/// ends the request's context, before its answer is written: its clones send nothing more.
/// `kind` and `name` name the handler in the warning about a slow first poll.
pub(crate) async fn drive<T, F>(
    ctx: &Context,
    (kind, name): (&str, &str),
    timeout: Duration,
    start: F,
) -> Driven<T>
where
    F: FnOnce() -> Pin<Box<dyn Future<Output = T> + Send>>,
{
    // One block, not a nested `async fn`: the call's future would carry (and copy) both.
    let driven = 'run: {
        let fut = match std::panic::catch_unwind(AssertUnwindSafe(start)) {
            Ok(fut) => fut,
            Err(_) => break 'run Driven::Panicked,
        };
        let mut fut = CatchUnwind(fut);
        let cancel = ctx.cancellation_token();
        if cancel.is_cancelled() {
            break 'run Driven::Cancelled;
        }
        // The first poll runs on the transport's task: time it, to name handlers that block.
        // Most handlers finish in it, and for them nothing else is set up: the timeout's timer
        // and the wait for cancellation start only if the handler waits. The timeout counts
        // from the start of the first poll. (tokio's clock, so paused test time applies.)
        let started = tokio::time::Instant::now();
        let first = poll_fn(|cx| Poll::Ready(Pin::new(&mut fut).poll(cx))).await;
        let took = started.elapsed();
        if took > SLOW_FIRST_POLL {
            warn_slow(kind, name, took);
        }
        match first {
            Poll::Ready(Ok(v)) => break 'run Driven::Done(v),
            Poll::Ready(Err(())) => break 'run Driven::Panicked,
            Poll::Pending if ctx.has_pending_inputs() => break 'run Driven::InputRequired,
            Poll::Pending => {}
        }
        let work = poll_fn(|cx| match Pin::new(&mut fut).poll(cx) {
            Poll::Ready(Ok(v)) => Poll::Ready(Driven::Done(v)),
            Poll::Ready(Err(())) => Poll::Ready(Driven::Panicked),
            Poll::Pending if ctx.has_pending_inputs() => Poll::Ready(Driven::InputRequired),
            Poll::Pending => Poll::Pending,
        });
        let deadline = started.checked_add(timeout);
        let timed = async move {
            match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline, work)
                    .await
                    .unwrap_or(Driven::TimedOut),
                None => work.await,
            }
        };
        tokio::select! {
            biased;
            () = cancel.cancelled() => Driven::Cancelled,
            r = timed => r,
        }
    };
    // The handler's future is dropped by now: a message it was sending gave way.
    if let Some(sends) = ctx.end_now() {
        sends.await;
    }
    driven
}
