//! The functions [`notification_fn`](super::notification_fn) takes: an async function of
//! the typed params and of up to four extractors, as a `#[tool]` takes them.

use std::future::Future;

use serde::de::DeserializeOwned;

use super::{Notification, read_params};
use crate::context::Context;
use crate::extract::FromContext;

mod sealed {
    /// Keeps the handler traits to the functions this module implements them for.
    pub trait Sealed<T> {}
}

/// A function that can handle a custom notification: `async fn(P, E1, …, En)` for `n`
/// up to 4, where `P` (the params) implements `Deserialize` and each `E` is an extractor
/// ([`FromContext`]: [`Context`], [`State<T>`](crate::extract::State),
/// [`SessionState<T>`](crate::session::SessionState), …).
///
/// `T` only tells the implementations apart; [`notification_fn`](super::notification_fn)
/// infers it.
pub trait NotificationHandler<T>: sealed::Sealed<T> + Send + Sync + 'static {
    /// The handler as the server keeps it.
    #[doc(hidden)]
    fn into_notification(self) -> Notification;
}

macro_rules! notification_handler {
    ($($e:ident),*) => {
        impl<F, Fut, P, $($e,)*> sealed::Sealed<(P, $($e,)*)> for F
        where
            F: Fn(P, $($e,)*) -> Fut,
        {
        }

        impl<F, Fut, P, $($e,)*> NotificationHandler<(P, $($e,)*)> for F
        where
            F: Fn(P, $($e,)*) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = ()> + Send + 'static,
            P: DeserializeOwned,
            $($e: FromContext,)*
        {
            #[allow(non_snake_case, unused_variables)]
            fn into_notification(self) -> Notification {
                Notification::from_fn(move |params: Option<&str>, ctx: &Context| {
                    let p = read_params::<P>(params)?;
                    $(let $e = $e::from_context(ctx)?;)*
                    Ok(self(p, $($e,)*))
                })
            }
        }
    };
}

notification_handler!();
notification_handler!(E1);
notification_handler!(E1, E2);
notification_handler!(E1, E2, E3);
notification_handler!(E1, E2, E3, E4);
