//! Custom JSON-RPC methods: a request method the protocol does not define (`custom/hello`),
//! answered like a tool call — the same [`Context`], timeout, panic guard and cancellation.
//!
//! Register one with [`ServerBuilder::method`](crate::ServerBuilder::method) and
//! [`method_fn`], and a custom notification with
//! [`ServerBuilder::notification`](crate::ServerBuilder::notification) and
//! [`notification_fn`]; see docs/hooks.md.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use ferromcp_core::error::ErrorObject;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::context::Context;
use crate::hooks::{ClientView, Hooks};
use crate::registry::Listed;
use crate::result::HandlerError;

mod handler;

pub use handler::{MethodHandler, NotificationHandler};

/// The answer of a custom method as the engine sends it: the handler's JSON object, with the
/// era's members (`resultType`, `_meta.serverInfo` in 2026) added as for every result.
/// (It is `EmptyResult`'s type, whose unknown members are kept.)
pub(crate) type CustomResult = ferromcp_core::types::Result;

type MethodFuture = Pin<Box<dyn Future<Output = Result<CustomResult, HandlerError>> + Send>>;
type MethodCall = dyn Fn(Option<&str>, Context) -> MethodFuture + Send + Sync;

/// A custom request method's handler, made by [`method_fn`].
#[derive(Clone)]
pub struct Method {
    call: Arc<MethodCall>,
}

impl std::fmt::Debug for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Method").finish_non_exhaustive()
    }
}

impl Method {
    /// A handler from `f`, which reads the params and the extractors and starts the work.
    fn from_fn<Fut>(
        f: impl Fn(Option<&str>, &Context) -> Result<Fut, ErrorObject> + Send + Sync + 'static,
    ) -> Method
    where
        Fut: Future<Output = Result<CustomResult, HandlerError>> + Send + 'static,
    {
        let call = move |params: Option<&str>, ctx: Context| -> MethodFuture {
            match f(params, &ctx) {
                Ok(answer) => Box::pin(answer),
                Err(e) => Box::pin(std::future::ready(Err(HandlerError::Rpc(e)))),
            }
        };
        Method {
            call: Arc::new(call),
        }
    }

    /// Reads the params (`params`, the request's `params` text) and the extractors, and
    /// starts the handler.
    pub(crate) fn call(&self, params: Option<&str>, ctx: Context) -> MethodFuture {
        (self.call)(params, ctx)
    }
}

/// Reads a custom method's params. Their `_meta` is the protocol's, not the method's (the
/// handler reads it from [`Context::meta`]): it is removed first, and an object left empty
/// reads as absent params. Absent ones read as `{}` (or, for a type that wants none, as
/// `null`, so that `()` and `Option<T>` take them).
fn read_params<P: DeserializeOwned>(params: Option<&str>) -> Result<P, ErrorObject> {
    use serde_json::Value;
    let invalid =
        |e: serde_json::Error| ErrorObject::invalid_params(format!("invalid params: {e}"));
    let value = match params.map(serde_json::from_str::<Value>).transpose() {
        Ok(Some(Value::Object(mut object))) => {
            object.remove("_meta");
            (!object.is_empty()).then_some(Value::Object(object))
        }
        Ok(value) => value,
        Err(e) => return Err(invalid(e)),
    };
    match value {
        Some(value) => serde_json::from_value(value),
        None => serde_json::from_value(Value::Object(serde_json::Map::new()))
            .or_else(|e| serde_json::from_value(Value::Null).map_err(|_| e)),
    }
    .map_err(invalid)
}

/// The handler's result as the object the engine answers with.
fn into_result<R: Serialize>(value: R) -> Result<CustomResult, HandlerError> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(object)) => {
            serde_json::from_value(serde_json::Value::Object(object)).map_err(|e| {
                HandlerError::Rpc(ErrorObject::internal_error(format!(
                    "the method's result is not a valid result object: {e}"
                )))
            })
        }
        Ok(_) => Err(HandlerError::Rpc(ErrorObject::internal_error(
            "a custom method's result must be a JSON object",
        ))),
        Err(e) => Err(HandlerError::Rpc(ErrorObject::internal_error(format!(
            "the method's result does not serialize: {e}"
        )))),
    }
}

/// A custom method's handler from an async function of its typed params and of
/// extractors, as a `#[tool]` takes them (up to four: [`Context`], `State<T>`,
/// `SessionState<T>`, `HttpRequest`, your own [`FromContext`](crate::extract::FromContext)
/// types; none at all is fine too). Params that do not read as `P` are answered with
/// -32602, an extractor's `Err` with its error; `Err(error)` is answered with that JSON-RPC
/// error; `Ok(result)` must serialize to a JSON object. Give each parameter its type: the
/// types pick the extractors.
///
/// # Examples
///
/// ```
/// use ferromcp::custom::method_fn;
/// use ferromcp::error::ErrorObject;
/// use ferromcp::extract::State;
/// use ferromcp::{Context, ServerBuilder};
///
/// #[derive(serde::Deserialize)]
/// struct Hello { name: String }
///
/// #[derive(serde::Serialize)]
/// struct Greeting { greeting: String }
///
/// struct Config { salutation: &'static str }
///
/// let server = ServerBuilder::new("demo", "1.0.0")
///     .state(Config { salutation: "hello" })
///     .method(
///         "custom/hello",
///         method_fn(|p: Hello, ctx: Context, config: State<Config>| async move {
///             ctx.info(format!("greeting {}", p.name)).await;
///             let greeting = format!("{}, {}", config.salutation, p.name);
///             Ok::<_, ErrorObject>(Greeting { greeting })
///         }),
///     )
///     .expect("not a spec method")
///     .build();
/// # let _ = server;
/// ```
pub fn method_fn<T, H: MethodHandler<T>>(handler: H) -> Method {
    handler.into_method()
}

/// Work a notification's handler wants done: the transport runs it on a task of its own.
pub(crate) type Work = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Bounds the notification handlers a transport runs at once, so that a client cannot
/// flood the server with slow ones: beyond the bound a notification's work is dropped
/// (logged), never waited for, so the reader goes on.
#[derive(Clone)]
pub(crate) struct NoticeLimit(Arc<tokio::sync::Semaphore>);

impl NoticeLimit {
    /// At most `max` handlers at once.
    pub(crate) fn new(max: usize) -> NoticeLimit {
        NoticeLimit(Arc::new(tokio::sync::Semaphore::new(max)))
    }

    /// `work`, holding a place until it is done; `None` (logged) when every place is taken.
    pub(crate) fn admit(&self, work: Work) -> Option<Work> {
        let Ok(place) = self.0.clone().try_acquire_owned() else {
            tracing::warn!("too many notification handlers running; notification dropped");
            return None;
        };
        Some(Box::pin(async move {
            work.await;
            drop(place);
        }))
    }
}

type NotificationCall = dyn Fn(Option<&str>, &Context) -> Option<Work> + Send + Sync;

/// A custom notification's handler, made by [`notification_fn`].
#[derive(Clone)]
pub struct Notification {
    call: Arc<NotificationCall>,
}

impl std::fmt::Debug for Notification {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notification").finish_non_exhaustive()
    }
}

impl Notification {
    /// A handler from `f`, which reads the params and the extractors and starts the work.
    fn from_fn<Fut>(
        f: impl Fn(Option<&str>, &Context) -> Result<Fut, ErrorObject> + Send + Sync + 'static,
    ) -> Notification
    where
        Fut: Future<Output = ()> + Send + 'static,
    {
        let call = move |params: Option<&str>, ctx: &Context| -> Option<Work> {
            match f(params, ctx) {
                Ok(work) => Some(Box::pin(work)),
                Err(e) => {
                    tracing::debug!(error = %e.message, "custom notification ignored");
                    None
                }
            }
        };
        Notification {
            call: Arc::new(call),
        }
    }

    /// Reads the params and the extractors from `ctx` and makes the handler's work; `None`
    /// (logged) when they do not read: a notification has no answer to carry the error.
    pub(crate) fn call(&self, params: Option<&str>, ctx: &Context) -> Option<Work> {
        (self.call)(params, ctx)
    }
}

/// A custom notification's handler from an async function of its typed params and of
/// extractors, as a `#[tool]` takes them (up to four: [`Context`], `State<T>`,
/// `SessionState<T>`, `HttpRequest`, your own [`FromContext`](crate::extract::FromContext)
/// types; none at all is fine too). It runs on a task of its own, so the connection reads
/// on meanwhile; params or extractors that do not read are logged (at debug) and the
/// notification dropped, as is one that arrives while `max_in_flight` handlers already run
/// (`ServerBuilder::max_in_flight` per stdio connection and per legacy HTTP session,
/// `HttpOptions::max_in_flight` for 2026 clients over HTTP).
///
/// The [`Context`] serves no request ([`request_id`](Context::request_id) is `None`): in a
/// 2025 session it is the session's, so the handler may log, ask the client
/// ([`Context::roots`]) and read the session's state, and over HTTP it has the POST the
/// notification came in; a 2026-07-28 notification's describes the client its `_meta`
/// names (over HTTP, with the POST it came in and its principal).
///
/// # Examples
///
/// ```
/// use ferromcp::custom::notification_fn;
/// use ferromcp::{Context, ServerBuilder};
///
/// #[derive(serde::Deserialize)]
/// struct Moved { path: String }
///
/// let server = ServerBuilder::new("demo", "1.0.0")
///     .notification("custom/moved", notification_fn(|m: Moved, ctx: Context| async move {
///         ctx.info(format!("the client moved to {}", m.path)).await;
///     }))
///     .expect("not a spec method")
///     .build();
/// # let _ = server;
/// ```
pub fn notification_fn<T, H: NotificationHandler<T>>(handler: H) -> Notification {
    handler.into_notification()
}

/// Why a custom method or notification was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MethodError {
    /// The name is a method of a protocol revision, or starts with `rpc.` (reserved by
    /// JSON-RPC).
    #[error("`{0}` is reserved: a protocol method or an `rpc.` name")]
    Reserved(String),
    /// A handler for this name is already registered.
    #[error("a handler for `{0}` is already registered")]
    Duplicate(String),
}

/// Every request and notification method of every protocol revision the server speaks.
pub(crate) const SPEC_METHODS: &[&str] = &[
    "completion/complete",
    "elicitation/create",
    "initialize",
    "logging/setLevel",
    "notifications/cancelled",
    "notifications/elicitation/complete",
    "notifications/initialized",
    "notifications/message",
    "notifications/progress",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/roots/list_changed",
    "notifications/subscriptions/acknowledged",
    "notifications/tasks/status",
    "notifications/tools/list_changed",
    "ping",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/templates/list",
    "resources/unsubscribe",
    "roots/list",
    "sampling/createMessage",
    "server/discover",
    "subscriptions/listen",
    "tasks/cancel",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tasks/update",
    "tools/call",
    "tools/list",
];

/// A name no custom handler may take.
fn reserved(name: &str) -> bool {
    name.starts_with("rpc.") || SPEC_METHODS.contains(&name)
}

/// The custom methods of a server, kept in its configuration.
#[derive(Clone, Default)]
pub(crate) struct Custom {
    methods: HashMap<String, Method>,
    notifications: HashMap<String, Notification>,
    /// `ServerBuilder::hooks`.
    pub(crate) hooks: Option<Arc<dyn Hooks>>,
    /// `ServerBuilder::visible_if`.
    pub(crate) visible: Option<Arc<Visibility>>,
}

/// A server's visibility predicate: whether a request from this client may see this item.
pub(crate) type Visibility = dyn Fn(Listed<'_>, &ClientView<'_>) -> bool + Send + Sync;

impl Custom {
    /// The handler of the custom request method `name`.
    pub(crate) fn method(&self, name: &str) -> Option<&Method> {
        self.methods.get(name)
    }

    /// Adds the handler of the custom request method `name`.
    pub(crate) fn add_method(&mut self, name: String, method: Method) -> Result<(), MethodError> {
        if reserved(&name) {
            return Err(MethodError::Reserved(name));
        }
        if self.methods.contains_key(&name) {
            return Err(MethodError::Duplicate(name));
        }
        self.methods.insert(name, method);
        Ok(())
    }

    /// The handler of the custom notification `name`.
    pub(crate) fn notification(&self, name: &str) -> Option<&Notification> {
        self.notifications.get(name)
    }

    /// Adds the handler of the custom notification `name`.
    pub(crate) fn add_notification(
        &mut self,
        name: String,
        notification: Notification,
    ) -> Result<(), MethodError> {
        if reserved(&name) {
            return Err(MethodError::Reserved(name));
        }
        if self.notifications.contains_key(&name) {
            return Err(MethodError::Duplicate(name));
        }
        self.notifications.insert(name, notification);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every method name of the vendored schemas is reserved.
    #[test]
    fn spec_methods_cover_every_vendored_schema() {
        let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
        let mut seen = 0;
        for entry in std::fs::read_dir(&spec).into_iter().flatten().flatten() {
            let Ok(text) = std::fs::read_to_string(entry.path().join("schema.json")) else {
                continue;
            };
            seen += 1;
            let schema: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            let defs = schema
                .get("definitions")
                .or_else(|| schema.get("$defs"))
                .and_then(|d| d.as_object())
                .cloned()
                .unwrap_or_default();
            for def in defs.values() {
                let method = def.pointer("/properties/method/const");
                if let Some(name) = method.and_then(|m| m.as_str()) {
                    assert!(reserved(name), "{name} is not in SPEC_METHODS");
                }
            }
        }
        assert!(seen >= 5, "the vendored schemas were not found");
    }

    #[test]
    fn rpc_names_and_spec_methods_are_refused() {
        let m = method_fn(|(): ()| async { Ok::<_, ErrorObject>(serde_json::json!({})) });
        let mut custom = Custom::default();
        for name in ["tools/list", "notifications/initialized", "rpc.discover"] {
            assert_eq!(
                custom.add_method(name.into(), m.clone()),
                Err(MethodError::Reserved(name.into()))
            );
        }
        assert_eq!(custom.add_method("custom/hello".into(), m.clone()), Ok(()));
        assert_eq!(
            custom.add_method("custom/hello".into(), m),
            Err(MethodError::Duplicate("custom/hello".into()))
        );
    }
}
