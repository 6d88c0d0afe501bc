//! One out-of-line `poll` for a large inner future.
//!
//! rustc gives the body of every `async fn` (a coroutine, like a closure) a private copy in
//! each codegen unit that polls it, and the copy's callees the same, so a deep `async` call
//! tree is compiled once per unit that reaches it: the engine's request methods were built
//! four times over. A generic method marked `#[inline(never)]` is built once per type
//! instead; polling the inner future through one stops the copying there. The price is one
//! call per poll.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pin_project_lite::pin_project! {
    /// `inner`, polled through one shared function (see the module's documentation).
    pub(crate) struct Outline<F> {
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for Outline<F> {
    type Output = F::Output;

    #[inline(never)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().inner.poll(cx)
    }
}

/// Wraps `inner` so that its `poll` is compiled once (see the module's documentation).
pub(crate) fn outline<F: Future>(inner: F) -> Outline<F> {
    Outline { inner }
}
