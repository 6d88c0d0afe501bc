//! [`Context`]: what a handler can do besides computing its result — report progress, log
//! to the client, notice cancellation, and ask the client for input (elicitation, sampling,
//! roots) with one API for both protocol eras.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::RequestId;
use ferromcp_core::types::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestFormParams,
    ElicitRequestURLParams, ElicitResult, Implementation, InputRequest, LoggingLevel,
    ProgressToken, RequestMetaObject, Root,
};
use ferromcp_core::{Era, ProtocolVersion};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::peer::outbound::OutboundError;
use crate::peer::session::LegacySession;
use crate::peer::sink::Sink;
use crate::principal::Principal;
use crate::request::Caller;
#[cfg(feature = "http")]
use crate::request::HttpRequest;
use crate::sync::lock;

mod gate;
mod input;
mod notify;
mod task;

pub use input::InputRequestBuilder;
use input::elicitation_schema;
pub(crate) use task::TaskLink;

/// Why a request to the client did not produce an answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContextError {
    /// The client did not declare the capability this needs. In the modern era the request
    /// also ends with -32021 naming the capability, whatever the handler returns.
    #[error("the client does not support {0}")]
    CapabilityMissing(&'static str),
    /// The client answered with a JSON-RPC error.
    #[error("the client answered with an error: {0}")]
    Client(ErrorObject),
    /// The client's answer does not have the expected shape.
    #[error("the client's answer is invalid")]
    InvalidResponse(#[source] serde_json::Error),
    /// The connection to the client is gone.
    #[error("the client is no longer connected")]
    Disconnected,
    /// The client did not answer in time.
    #[error("the client did not answer in time")]
    Timeout,
    /// The request this context belongs to has been answered (a clone of its context
    /// outlived it): nothing is sent to the client for it any more.
    #[error("the request has ended")]
    Ended,
    /// The schema for a typed elicitation is not a flat object of primitive fields.
    #[error("cannot elicit this type: it is not a flat object of primitive fields")]
    UnsupportedSchema(#[source] serde_json::Error),
}

impl From<OutboundError> for ContextError {
    fn from(e: OutboundError) -> ContextError {
        match e {
            OutboundError::Client(e) => ContextError::Client(e),
            OutboundError::InvalidResponse(e) => ContextError::InvalidResponse(e),
            OutboundError::Disconnected => ContextError::Disconnected,
            OutboundError::Timeout => ContextError::Timeout,
        }
    }
}

/// The outcome of a typed elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation<T> {
    /// The user submitted the form; here is its content.
    Accept(T),
    /// The user refused.
    Decline,
    /// The user dismissed the request.
    Cancel,
}

/// How a request ended other than by its handler's value, decided by the context.
#[derive(Debug, Clone)]
pub(crate) enum Override {
    /// A protocol error replaces the result.
    Error(ErrorObject),
}

/// The state of one multi round-trip request (modern era).
#[derive(Debug, Default)]
pub(crate) struct Mrtr {
    /// Answers so far: earlier rounds (from the sealed state) and this round's
    /// `inputResponses`.
    pub(crate) responses: BTreeMap<String, Value>,
    /// Input requests this round could not answer.
    pub(crate) pending: BTreeMap<String, InputRequest>,
    /// Counts input requests in execution order, for automatic keys.
    pub(crate) next_key: usize,
    /// The handler's own state, carried between rounds.
    pub(crate) user_state: Option<Value>,
}

/// What a request's context needs from the server serving it. The engine implements it, so
/// that `Context` does not depend on the engine.
pub(crate) trait Host: Send + Sync + 'static {
    /// Shared application state of one type.
    fn state(&self, type_id: TypeId) -> Option<Arc<dyn Any + Send + Sync>>;
    /// The host itself, to recover its concrete type.
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
    /// What the server reports to.
    fn observer(&self) -> &dyn crate::observe::Observer;
}

/// The client a request comes from, as the engine has established it: from the legacy
/// session, or from the request's own 2026 envelope.
#[derive(Clone)]
pub(crate) struct Client {
    pub(crate) version: ProtocolVersion,
    pub(crate) capabilities: Arc<ClientCapabilities>,
    pub(crate) info: Option<Arc<Implementation>>,
    /// Legacy era: the session, which holds the log level and carries server-to-client
    /// requests.
    pub(crate) session: Option<Arc<LegacySession>>,
    /// Who is calling, and over HTTP the request the message came in.
    pub(crate) caller: Caller,
}

impl Client {
    /// Who the client's tasks belong to, so that no one else can see, steer or cancel
    /// them: its legacy session, else the authenticated caller (issuer and subject), else
    /// nobody in particular (an unauthenticated 2026 client: the task id, unguessable, is
    /// the only key).
    pub(crate) fn task_owner(&self) -> Option<String> {
        match (&self.session, &self.caller.principal) {
            (Some(session), _) => Some(session.task_owner()),
            (None, Some(p)) => Some(format!("principal {:?} {:?}", p.issuer(), p.subject())),
            (None, None) => None,
        }
    }
}

struct RequestCtx {
    /// The request served; `None` for a context that serves none (a notification's).
    id: Option<RequestId>,
    client: Client,
    /// The request's whole `_meta`, shared with the engine's envelope.
    meta: Option<Arc<RequestMetaObject>>,
    /// Modern era: the level from `_meta.logLevel` (absent: no logs). Legacy: unused; the
    /// session's level applies.
    log_level: Option<LoggingLevel>,
    cancel: CancellationToken,
    sink: Sink,
    host: Arc<dyn Host>,
    last_progress: Mutex<Option<f64>>,
    mrtr: Option<Mutex<Mrtr>>,
    outcome: Mutex<Option<Override>>,
    /// Set when the call may run as a task (the tool supports tasks and the client takes
    /// them).
    task: Option<Arc<TaskLink>>,
    /// Closed when the request ends: nothing is sent for it after its answer.
    gate: gate::Gate,
}

/// The request a handler is serving, and its line back to the client.
///
/// Take it as a handler parameter (`ctx: Context`) and the macro passes it in; it is never
/// part of the tool's input schema. Cloning is cheap.
#[derive(Clone)]
pub struct Context {
    inner: Arc<RequestCtx>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("id", &self.inner.id)
            .field("version", &self.inner.client.version)
            .finish_non_exhaustive()
    }
}

impl Context {
    /// The context of request `id` from `client` (`None`: of a notification, which is no
    /// request), served by `host`: its messages go to `sink`, `cancel` ends it, `mrtr`
    /// (modern era, a request that can ask for input) holds the answers so far, and `task`
    /// links a call that may run as a task to the engine.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        host: Arc<dyn Host>,
        id: Option<RequestId>,
        client: Client,
        meta: Option<&Arc<RequestMetaObject>>,
        sink: Sink,
        cancel: CancellationToken,
        mrtr: Option<Mrtr>,
        task: Option<Arc<TaskLink>>,
    ) -> Context {
        let log_level = match client.version.era() {
            Era::Modern => meta.and_then(|m| m.log_level),
            Era::Legacy => None,
        };
        Context {
            inner: Arc::new(RequestCtx {
                id,
                meta: meta.cloned(),
                log_level,
                client,
                cancel,
                sink,
                host,
                last_progress: Mutex::new(None),
                mrtr: mrtr.map(Mutex::new),
                outcome: Mutex::new(None),
                task,
                gate: gate::Gate::default(),
            }),
        }
    }

    /// The host serving this request.
    pub(crate) fn host(&self) -> Arc<dyn Host> {
        self.inner.host.clone()
    }

    /// The client of this request, as the engine established it.
    pub(crate) fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The JSON-RPC id of the request being served; `None` for a context that serves no
    /// request: a hook's ([`Hooks`](crate::hooks::Hooks)) or a custom notification's.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.inner.id.as_ref()
    }

    /// Who is calling: the principal an authentication layer (the `auth` feature's
    /// `AuthLayer`, or your own) put on the HTTP request; `None` over stdio and for
    /// unauthenticated HTTP.
    ///
    /// Handlers can also take it as a parameter, `#[extract] caller: Principal`.
    pub fn principal(&self) -> Option<&Principal> {
        self.inner.client.caller.principal.as_deref()
    }

    /// The HTTP request the message came in (method, URI, headers, extensions; not the
    /// body); `None` over stdio. `Authorization` is not among the headers behind the `auth`
    /// feature's `AuthLayer`.
    ///
    /// Handlers can also take it as a parameter, `request: HttpRequest`
    /// ([`extract::HttpRequest`](crate::extract::HttpRequest)).
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn http_request(&self) -> Option<&HttpRequest> {
        self.inner.client.caller.http.as_ref()
    }

    /// The legacy session the request belongs to; `None` in the 2026-07-28 era.
    pub(crate) fn legacy_session(&self) -> Option<&Arc<LegacySession>> {
        self.inner.client.session.as_ref()
    }

    /// The protocol revision of this request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.client.version
    }

    /// The era of this request.
    pub fn era(&self) -> Era {
        self.inner.client.version.era()
    }

    /// What the client declared it can do (for this request in the modern era, for the
    /// session in the legacy era).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client.capabilities
    }

    /// The client's self-description, if it sent one.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client.info.as_deref()
    }

    /// Shared application state registered with
    /// [`ServerBuilder::state`](crate::ServerBuilder::state).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.inner
            .host
            .state(TypeId::of::<T>())?
            .downcast::<T>()
            .ok()
    }

    /// Whether the client asked for progress notifications about this request.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.meta()?.progress_token.as_ref()
    }

    /// The request's `_meta`, whole, as the client sent it: `progressToken`, the 2026
    /// envelope's keys (protocol version, client capabilities and info, log level), and
    /// every other key in [`extra`](RequestMetaObject::extra). `None` when the request had
    /// no `_meta`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::prelude::*;
    ///
    /// struct Traced;
    ///
    /// #[ferromcp::server]
    /// impl Traced {
    ///     /// Echoes the caller's trace id, from the request's `_meta`.
    ///     #[tool]
    ///     async fn trace(&self, ctx: Context) -> String {
    ///         ctx.meta()
    ///             .and_then(|m| m.extra.get("example.com/traceId"))
    ///             .and_then(|v| v.as_str())
    ///             .unwrap_or("none")
    ///             .to_owned()
    ///     }
    /// }
    /// # let _ = Server::new(Traced).unwrap();
    /// ```
    pub fn meta(&self) -> Option<&RequestMetaObject> {
        self.inner.meta.as_deref()
    }

    /// Legacy Streamable HTTP (2025-11-25): ends this request's SSE response stream now; the
    /// client reconnects with `Last-Event-ID` and receives what follows (SSE polling, for
    /// long-running calls behind proxies that cut long responses). A no-op elsewhere.
    pub fn close_sse_stream(&self) {
        self.inner.sink.close_stream();
    }

    /// Whether the request was cancelled (by the client, a timeout, or a disconnect).
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the request is cancelled; for `select!` in long-running handlers.
    /// A cancelled handler's future is also dropped at its next await point, so most
    /// handlers never need this.
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await;
    }

    /// A token that fires when the request is cancelled, to hand to other tasks.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.inner.cancel.clone()
    }

    /// The id of the task this call runs as, once it runs as one (see
    /// [`begin_task`](Self::begin_task) and docs/tasks.md).
    pub fn task_id(&self) -> Option<String> {
        self.inner.task.as_ref().and_then(|t| t.id())
    }

    /// Marks where a tool declared with `task_support` becomes a task, for a client that
    /// takes tasks: the call is answered with the task at this point and the handler goes
    /// on in the background. Input requested before it (2026) is asked in ordinary
    /// `input_required` rounds of the call; input requested after it makes the task
    /// `input_required` until the client answers with `tasks/update`.
    ///
    /// A task also begins, without this call, at the handler's first wait for anything
    /// other than the client's input (a timer, I/O). Elsewhere (a tool without task
    /// support, a client that did not ask for a task, a 2025 task, which starts before the
    /// handler runs) this returns at once.
    pub async fn begin_task(&self) {
        let Some(task) = &self.inner.task else {
            return;
        };
        if task.is_running() {
            return;
        }
        // Yield once with nothing else pending: the engine then starts the task.
        let mut yielded = false;
        std::future::poll_fn(|cx| {
            if std::mem::replace(&mut yielded, true) {
                std::task::Poll::Ready(())
            } else {
                cx.waker().wake_by_ref();
                std::task::Poll::Pending
            }
        })
        .await;
    }

    /// Asks the user to fill in a form whose fields are `T`'s (a flat struct of strings,
    /// numbers, booleans and unit enums).
    ///
    /// # Errors
    ///
    /// See [`elicit_form`](Self::elicit_form); also [`ContextError::UnsupportedSchema`] when
    /// `T` is not a flat object, and [`ContextError::InvalidResponse`] when the submitted
    /// content does not deserialize into `T`.
    pub async fn elicit<T: DeserializeOwned + schemars::JsonSchema>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, ContextError> {
        let schema = elicitation_schema::<T>()?;
        let result = self
            .elicit_form(ElicitRequestFormParams::new(message, schema))
            .await?;
        match result.action {
            ferromcp_core::types::ElicitAction::Accept => {
                let content = serde_json::to_value(result.content.unwrap_or_default())
                    .map_err(ContextError::InvalidResponse)?;
                serde_json::from_value(content)
                    .map(Elicitation::Accept)
                    .map_err(ContextError::InvalidResponse)
            }
            ferromcp_core::types::ElicitAction::Decline => Ok(Elicitation::Decline),
            ferromcp_core::types::ElicitAction::Cancel => Ok(Elicitation::Cancel),
        }
    }

    /// Asks the user to fill in a form (`elicitation/create`, form mode).
    ///
    /// Legacy era: sends the request to the client and waits for the answer. Modern era:
    /// returns the answer from the request's `inputResponses` if the client already gave it;
    /// otherwise the call ends with an `input_required` result asking for it, and the handler
    /// runs again, from the start, when the client calls back with the answer.
    ///
    /// # Errors
    ///
    /// [`ContextError::CapabilityMissing`] when the client did not declare form elicitation
    /// (modern era: the request then ends with -32021); transport and client failures.
    pub async fn elicit_form(
        &self,
        params: ElicitRequestFormParams,
    ) -> Result<ElicitResult, ContextError> {
        self.input(None).elicit_form(params).await
    }

    /// Asks the user to visit a URL (`elicitation/create`, URL mode, 2025-11-25 and later).
    ///
    /// # Errors
    ///
    /// As [`elicit_form`](Self::elicit_form), for URL-mode elicitation.
    pub async fn elicit_url(
        &self,
        params: ElicitRequestURLParams,
    ) -> Result<ElicitResult, ContextError> {
        self.input(None).elicit_url(params).await
    }

    /// Asks the client's model for a completion (`sampling/createMessage`).
    ///
    /// # Errors
    ///
    /// As [`elicit_form`](Self::elicit_form), for the sampling capability.
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ContextError> {
        self.input(None).sample(params).await
    }

    /// Asks the client for its roots (`roots/list`).
    ///
    /// # Errors
    ///
    /// As [`elicit_form`](Self::elicit_form), for the roots capability.
    pub async fn roots(&self) -> Result<Vec<Root>, ContextError> {
        self.input(None).roots().await
    }

    /// Names the next input request: in the modern era `key` is its key in
    /// `inputRequests`/`inputResponses` (otherwise keys are generated from the order of
    /// requests: `elicitation-0`, `sampling-1`, …). In the legacy era the key is unused.
    pub fn input(&self, key: Option<&str>) -> InputRequestBuilder<'_> {
        InputRequestBuilder {
            ctx: self,
            key: key.map(str::to_owned),
        }
    }

    /// The handler's own state from the previous round of this multi round-trip request
    /// (modern era), as stored with [`set_request_state`](Self::set_request_state).
    pub fn request_state<T: DeserializeOwned>(&self) -> Option<T> {
        let mrtr = self.inner.mrtr.as_ref()?;
        let state = lock(mrtr).user_state.clone()?;
        serde_json::from_value(state).ok()
    }

    /// Stores state for the next round of this multi round-trip request (modern era). It
    /// travels to the client sealed (authenticated, with an expiry) in `requestState` and
    /// comes back only untampered. A no-op in the legacy era, where the handler simply keeps
    /// running.
    pub fn set_request_state(&self, state: impl Serialize) {
        if let Some(mrtr) = &self.inner.mrtr {
            lock(mrtr).user_state = serde_json::to_value(state).ok();
        }
    }

    fn fail_with(&self, error: ErrorObject) {
        let mut outcome = lock(&self.inner.outcome);
        if outcome.is_none() {
            *outcome = Some(Override::Error(error));
        }
    }

    pub(crate) fn take_override(&self) -> Option<Override> {
        lock(&self.inner.outcome).take()
    }

    /// The multi round-trip state of a modern request, taken to seal it for the next round;
    /// `None` outside one.
    pub(crate) fn take_mrtr(&self) -> Option<Mrtr> {
        self.inner
            .mrtr
            .as_ref()
            .map(|m| std::mem::take(&mut *lock(m)))
    }

    /// A 2026 task whose request has been answered: its progress and logs have no stream
    /// to go to (the task's status message still follows its progress).
    fn detached(&self) -> bool {
        self.era() == Era::Modern && self.inner.task.as_ref().is_some_and(|t| t.is_running())
    }

    pub(crate) fn task_link(&self) -> Option<&Arc<TaskLink>> {
        self.inner.task.as_ref()
    }

    /// The input requests of a running task that the client has not answered.
    pub(crate) fn pending_inputs(&self) -> std::collections::BTreeMap<String, InputRequest> {
        self.inner
            .mrtr
            .as_ref()
            .map(|m| lock(m).pending.clone())
            .unwrap_or_default()
    }

    /// Stores the client's answers to pending input requests of a running task (answers to
    /// requests it is not waiting for are ignored) and wakes the handler; returns whether
    /// any was taken.
    pub(crate) fn deliver_inputs(&self, answers: BTreeMap<String, Value>) -> bool {
        let (Some(mrtr), Some(task)) = (&self.inner.mrtr, &self.inner.task) else {
            return false;
        };
        let mut taken = false;
        {
            let mut m = lock(mrtr);
            for (key, value) in answers {
                if m.pending.remove(&key).is_some() {
                    m.responses.insert(key, value);
                    taken = true;
                }
            }
        }
        if taken {
            task.answered().notify_waiters();
            task.changed().notify_one();
        }
        taken
    }

    pub(crate) fn has_pending_inputs(&self) -> bool {
        self.inner
            .mrtr
            .as_ref()
            .is_some_and(|m| !lock(m).pending.is_empty())
    }
}
