//! Whether a request is still open for its context's messages: a notification or a
//! server-to-client request goes out before the request's answer, or not at all.
//!
//! One atomic word holds a `CLOSED` bit and the number of messages being sent. A sender
//! enters (adds one), sends unless the bit was set, and leaves (subtracts one); the engine
//! closes the gate when the handler has finished, before its answer is written, and waits
//! only if messages are being sent at that moment. A request that sends nothing pays one
//! atomic operation at its end.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use tokio::sync::Notify;

use super::Context;

/// The bit set once the request has ended; the other bits count senders.
const CLOSED: usize = 1 << (usize::BITS - 1);

/// The gate of one request's context.
#[derive(Debug, Default)]
pub(super) struct Gate {
    /// `CLOSED`, plus the number of messages being sent.
    state: AtomicUsize,
    /// Messages dropped because the request had ended.
    dropped: AtomicU32,
    /// Rung by the last sender to leave after the gate closed.
    idle: Notify,
}

/// Held while one message is sent: the gate does not finish closing meanwhile.
pub(super) struct Pass<'a>(&'a Gate);

impl Gate {
    /// Lets one message through, or `None` once the request has ended.
    pub(super) fn enter(&self) -> Option<Pass<'_>> {
        let before = self.state.fetch_add(1, Ordering::Acquire);
        let pass = Pass(self);
        if before & CLOSED != 0 {
            drop(pass);
            return None;
        }
        Some(pass)
    }

    /// Whether the request has ended.
    pub(super) fn is_closed(&self) -> bool {
        self.state.load(Ordering::Acquire) & CLOSED != 0
    }

    /// Counts one more message dropped after the end; the count so far.
    pub(super) fn count_dropped(&self) -> u32 {
        self.dropped
            .fetch_add(1, Ordering::Relaxed)
            .saturating_add(1)
    }

    /// Ends the request: no message goes through from now on, and this returns once the
    /// messages being sent have gone.
    pub(super) async fn close(&self) {
        if !self.close_now() {
            self.drained().await;
        }
    }

    /// Closes the gate; `true` when no message is being sent, `false` when some are: then
    /// [`drained`](Self::drained) waits for them.
    pub(super) fn close_now(&self) -> bool {
        self.state.fetch_or(CLOSED, Ordering::AcqRel) & !CLOSED == 0
    }

    /// Returns once the messages being sent when the gate closed have gone.
    pub(super) async fn drained(&self) {
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            // Registered before the check: a sender leaving in between still wakes it.
            idle.as_mut().enable();
            if self.state.load(Ordering::Acquire) & !CLOSED == 0 {
                return;
            }
            idle.await;
        }
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        if self.0.state.fetch_sub(1, Ordering::AcqRel) == CLOSED | 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl Context {
    /// Ends the request's messages, before its answer is written: once this returns, the
    /// messages sent so far have gone, and progress, logs and requests to the client from
    /// this context or its clones are dropped (counted in a debug event of target
    /// `ferromcp::context`). Called when the handler has finished: at the end of its request,
    /// or of its task.
    pub(crate) async fn end(&self) {
        self.inner.gate.close().await;
    }

    /// [`end`](Self::end) for the engine's hot path: ends the request at once, which is all
    /// there is to do unless messages are being sent; else returns a future that waits for
    /// them (boxed: only then does the caller's future hold it).
    pub(crate) fn end_now(
        &self,
    ) -> Option<std::pin::Pin<Box<dyn Future<Output = ()> + Send + '_>>> {
        if self.inner.gate.close_now() {
            return None;
        }
        Some(Box::pin(self.inner.gate.drained()))
    }

    /// Whether the request has ended ([`end`](Self::end)).
    pub(super) fn has_ended(&self) -> bool {
        self.inner.gate.is_closed()
    }

    /// Counts a message dropped because the request has ended, in a debug event.
    pub(super) fn dropped_after_end(&self, method: &str) {
        let dropped = self.inner.gate.count_dropped();
        tracing::debug!(
            target: "ferromcp::context",
            id = self.inner.id.as_ref().map(tracing::field::display),
            method,
            dropped,
            "a message after its request ended; dropped"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn nothing_passes_after_close_and_close_waits_for_a_send_in_flight() {
        let gate = std::sync::Arc::new(Gate::default());
        let pass = gate.enter();
        assert!(pass.is_some());
        let closing = tokio::spawn({
            let gate = gate.clone();
            async move { gate.close().await }
        });
        // The close cannot finish while the pass is held.
        while !gate.is_closed() {
            tokio::task::yield_now().await;
        }
        assert!(gate.enter().is_none(), "a message after the end");
        assert!(!closing.is_finished());
        drop(pass);
        closing.await.unwrap();
        assert!(gate.enter().is_none());
        assert_eq!(gate.count_dropped(), 1);
        assert_eq!(gate.count_dropped(), 2);
    }

    #[tokio::test]
    async fn closing_an_idle_gate_returns_at_once() {
        let gate = Gate::default();
        gate.close().await;
        gate.close().await;
        assert!(gate.is_closed());
    }
}
