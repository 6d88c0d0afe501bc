//! The functions [`method_fn`](super::method_fn) and
//! [`notification_fn`](super::notification_fn) take: an async function of the typed params
//! and of up to four extractors, as a `#[tool]` takes them.

use std::future::Future;

use ferromcp_core::error::ErrorObject;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Method, Notification, into_result, read_params};
use crate::context::Context;
use crate::extract::FromContext;

mod sealed {
    use super::{Context, ErrorObject, Future};

    /// An async function of typed params and extractors, started from a message's params
    /// and its context. Private: it keeps the public handler traits to these functions.
    pub trait Handler<T>: Send + Sync + 'static {
        /// What the function returns.
        type Future: Future + Send + 'static;

        /// Reads the params and the extractors, and calls the function; `Err` when one
        /// of them does not read.
        fn start(&self, params: Option<&str>, ctx: &Context) -> Result<Self::Future, ErrorObject>;
    }
}

macro_rules! handler {
    ($($e:ident),*) => {
        impl<F, Fut, P, $($e,)*> sealed::Handler<(P, $($e,)*)> for F
        where
            F: Fn(P, $($e,)*) -> Fut + Send + Sync + 'static,
            Fut: Future + Send + 'static,
            P: DeserializeOwned,
            $($e: FromContext,)*
        {
            type Future = Fut;

            #[allow(non_snake_case, unused_variables)]
            fn start(&self, params: Option<&str>, ctx: &Context) -> Result<Fut, ErrorObject> {
                let p = read_params::<P>(params)?;
                $(let $e = $e::from_context(ctx)?;)*
                Ok(self(p, $($e,)*))
            }
        }
    };
}

handler!();
handler!(E1);
handler!(E1, E2);
handler!(E1, E2, E3);
handler!(E1, E2, E3, E4);

/// A function that can answer a custom method: `async fn(P, E1, …, En) -> Result<R,
/// ErrorObject>` for `n` up to 4, where `P` (the params) implements `Deserialize`, `R`
/// serializes to a JSON object, and each `E` is an extractor ([`FromContext`]:
/// [`Context`], [`State<T>`](crate::extract::State),
/// [`SessionState<T>`](crate::session::SessionState), `HttpRequest`, …).
///
/// `T` only tells the implementations apart; [`method_fn`](super::method_fn) infers it.
pub trait MethodHandler<T>: sealed::Handler<T> {
    /// The handler as the server keeps it.
    #[doc(hidden)]
    fn into_method(self) -> Method;
}

impl<T, H, R> MethodHandler<T> for H
where
    H: sealed::Handler<T>,
    H::Future: Future<Output = Result<R, ErrorObject>>,
    R: Serialize,
{
    fn into_method(self) -> Method {
        Method::from_fn(move |params: Option<&str>, ctx: &Context| {
            let answer = self.start(params, ctx)?;
            Ok(async move { into_result(answer.await?) })
        })
    }
}

/// A function that can handle a custom notification: `async fn(P, E1, …, En)` for `n`
/// up to 4, where `P` (the params) implements `Deserialize` and each `E` is an extractor
/// ([`FromContext`]: [`Context`], [`State<T>`](crate::extract::State),
/// [`SessionState<T>`](crate::session::SessionState), …).
///
/// `T` only tells the implementations apart; [`notification_fn`](super::notification_fn)
/// infers it.
pub trait NotificationHandler<T>: sealed::Handler<T> {
    /// The handler as the server keeps it.
    #[doc(hidden)]
    fn into_notification(self) -> Notification;
}

impl<T, H> NotificationHandler<T> for H
where
    H: sealed::Handler<T>,
    H::Future: Future<Output = ()>,
{
    fn into_notification(self) -> Notification {
        Notification::from_fn(move |params: Option<&str>, ctx: &Context| self.start(params, ctx))
    }
}
