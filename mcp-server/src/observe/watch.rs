//! [`Watch`]: how an observer follows one request, kept by value in the request's future.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use super::{RequestObserver, ResponseInfo};

/// How an observer follows one request: what [`Observer::on_request`](super::Observer::on_request)
/// returns. The engine keeps it in the request's future, so following a request allocates
/// nothing unless the observer boxed state of its own for it ([`Watch::owned`]).
///
/// - [`Watch::off`]: nothing more of this request (what costs nothing further);
/// - [`Watch::shared`]: one [`RequestObserver`] that many requests share, such as one that
///   records metrics: what it needs at the end ([`ResponseInfo`]: the method, target,
///   duration and outcome) comes with the end, so it needs no state per request;
/// - [`Watch::owned`]: a request observer of the request's own (a span, say), boxed.
///
/// Watches combine with [`and`](Self::and). A watch dropped before the request ended (its
/// connection went away) tells its observers [`RequestObserver::on_abandoned`].
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// use ferromcp::observe::{RequestObserver, ResponseInfo, Watch};
///
/// /// Counts answered requests; one for every request.
/// #[derive(Default)]
/// struct Answered(AtomicUsize);
///
/// impl RequestObserver for Answered {
///     fn on_response(&self, _response: &ResponseInfo<'_>) {
///         self.0.fetch_add(1, Ordering::Relaxed);
///     }
/// }
///
/// let answered = Arc::new(Answered::default());
/// let watch = Watch::shared(answered.clone()).and(Watch::off());
/// assert!(!watch.is_off());
/// assert!(Watch::off().is_off());
/// ```
pub struct Watch(Repr);

enum Repr {
    Off,
    Shared(Arc<dyn RequestObserver>),
    Owned(Box<dyn RequestObserver>),
    /// Two watches, the first the outer.
    Both(Box<(Watch, Watch)>),
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.0 {
            Repr::Off => "off",
            Repr::Shared(_) => "shared",
            Repr::Owned(_) => "owned",
            Repr::Both(_) => "both",
        };
        f.debug_tuple("Watch").field(&kind).finish()
    }
}

impl Default for Watch {
    fn default() -> Watch {
        Watch::off()
    }
}

impl Watch {
    /// Hear nothing more of this request.
    #[inline]
    pub const fn off() -> Watch {
        Watch(Repr::Off)
    }

    /// Tell `observer`, which other requests may share, how this request ends: no
    /// allocation per request.
    #[inline]
    pub fn shared(observer: Arc<dyn RequestObserver>) -> Watch {
        Watch(Repr::Shared(observer))
    }

    /// Tell `observer`, this request's own, how it ends (boxed: one allocation per request).
    #[inline]
    pub fn owned(observer: impl RequestObserver + 'static) -> Watch {
        Watch(Repr::Owned(Box::new(observer)))
    }

    /// This watch and `other`: this one's observer runs the polls in its scope outside
    /// `other`'s, and hears the end after it. Allocates only when both watch.
    #[inline]
    pub fn and(self, other: Watch) -> Watch {
        match (self.is_off(), other.is_off()) {
            (_, true) => self,
            (true, false) => other,
            (false, false) => Watch(Repr::Both(Box::new((self, other)))),
        }
    }

    /// Whether nothing follows the request.
    #[inline]
    pub fn is_off(&self) -> bool {
        matches!(self.0, Repr::Off)
    }

    /// Runs `poll` in the scope of every observer watching.
    pub(crate) fn in_scope(&self, poll: &mut dyn FnMut()) {
        match &self.0 {
            Repr::Off => poll(),
            Repr::Shared(o) => o.in_scope(poll),
            Repr::Owned(o) => o.in_scope(poll),
            Repr::Both(both) => both.0.in_scope(&mut || both.1.in_scope(poll)),
        }
    }

    /// Tells every observer watching how the request ended.
    pub(crate) fn end(mut self, response: &ResponseInfo<'_>) {
        match std::mem::replace(&mut self.0, Repr::Off) {
            Repr::Off => {}
            Repr::Shared(o) => o.on_response(response),
            Repr::Owned(o) => o.on_response(response),
            Repr::Both(both) => {
                let (outer, inner) = *both;
                inner.end(response);
                outer.end(response);
            }
        }
    }
}

/// A watch dropped unended: the request was abandoned.
impl Drop for Watch {
    #[inline]
    fn drop(&mut self) {
        match &self.0 {
            Repr::Off | Repr::Both(_) => {}
            Repr::Shared(o) => o.on_abandoned(),
            Repr::Owned(o) => o.on_abandoned(),
        }
    }
}

pin_project_lite::pin_project! {
    /// A request's handler, polled in its watching observers' scope.
    pub(crate) struct InScope<'w, F> {
        pub(crate) watch: &'w Watch,
        #[pin]
        pub(crate) future: F,
    }
}

impl<F: Future> Future for InScope<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let mut future = this.future;
        let mut polled = Poll::Pending;
        this.watch
            .in_scope(&mut || polled = future.as_mut().poll(cx));
        polled
    }
}
