//! Runs a handler's future under the request's rules: a panic becomes an error, the
//! request's cancellation drops the future, a timeout ends it, and (modern era) a handler
//! waiting for client input ends the round with `input_required`.

use std::future::{Future, poll_fn};
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use crate::context::Context;

/// How a driven handler ended.
pub(crate) enum Driven<T> {
    Done(T),
    Panicked,
    TimedOut,
    Cancelled,
    InputRequired,
}

/// Polls the inner future, turning a panic during a poll into `Err(())`.
struct CatchUnwind<F>(F);

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

/// Builds the handler's future (catching a panic while building it) and drives it.
pub(crate) async fn drive<T, F>(ctx: &Context, timeout: Duration, start: F) -> Driven<T>
where
    F: FnOnce() -> Pin<Box<dyn Future<Output = T> + Send>>,
{
    let fut = match std::panic::catch_unwind(AssertUnwindSafe(start)) {
        Ok(fut) => fut,
        Err(_) => return Driven::Panicked,
    };
    let mut fut = CatchUnwind(fut);
    let work = poll_fn(|cx| match Pin::new(&mut fut).poll(cx) {
        Poll::Ready(Ok(v)) => Poll::Ready(Driven::Done(v)),
        Poll::Ready(Err(())) => Poll::Ready(Driven::Panicked),
        Poll::Pending if ctx.has_pending_inputs() => Poll::Ready(Driven::InputRequired),
        Poll::Pending => Poll::Pending,
    });
    let cancel = ctx.cancellation_token();
    tokio::select! {
        biased;
        () = cancel.cancelled() => Driven::Cancelled,
        r = tokio::time::timeout(timeout, work) => r.unwrap_or(Driven::TimedOut),
    }
}
