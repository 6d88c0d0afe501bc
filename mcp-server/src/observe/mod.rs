//! Watching what a server does: the hook the engine reports every request, session, task
//! and outgoing message to.
//!
//! An [`Observer`] is told when a request starts ([`Observer::on_request`]) and answers
//! with a [`Watch`]: nothing more, a [`RequestObserver`] that many requests share (told how
//! each ends, with its method, target, duration and outcome: what metrics need, with no
//! allocation per request), or one of the request's own. A request observer may run code
//! around every poll of the request's handler ([`RequestObserver::in_scope`], to make its
//! own span current). An observer may also add members to the `_meta` of the messages a
//! handler sends ([`Observer::message_meta`]), and hold a guard while a legacy session, a
//! task or a listen stream lives. Every method has a default that does nothing, so an
//! observer implements only what it needs.
//!
//! The default, [`Tracing`], makes a `tracing` span per request named and attributed by the
//! OpenTelemetry semantic conventions for MCP, and one `debug` event per request (target
//! `ferromcp::request`); when no subscriber wants either, it costs a level check. The
//! `ferromcp-otel` crate is an observer that records OpenTelemetry spans and metrics.
//!
//! # Examples
//!
//! Counting the tool calls that failed:
//!
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicUsize, Ordering};
//!
//! use ferromcp::ServerBuilder;
//! use ferromcp::observe::{Observer, Outcome, RequestInfo, RequestObserver, ResponseInfo, Watch};
//!
//! /// One count for every request: nothing is allocated per request.
//! #[derive(Default)]
//! struct Failures(Arc<Count>);
//!
//! #[derive(Default)]
//! struct Count(AtomicUsize);
//!
//! impl Observer for Failures {
//!     fn on_request(&self, request: &RequestInfo<'_>) -> Watch {
//!         match request.method() {
//!             "tools/call" => Watch::shared(self.0.clone()),
//!             _ => Watch::off(),
//!         }
//!     }
//! }
//!
//! impl RequestObserver for Count {
//!     fn on_response(&self, response: &ResponseInfo<'_>) {
//!         if !matches!(response.outcome(), Outcome::Ok) {
//!             self.0.fetch_add(1, Ordering::Relaxed);
//!         }
//!     }
//! }
//!
//! let server = ServerBuilder::new("demo", "1.0.0")
//!     .observer((ferromcp::observe::Tracing, Failures::default()))
//!     .build();
//! # let _ = server;
//! ```

use std::any::Any;
use std::time::Duration;

use ferromcp_core::ProtocolVersion;
use ferromcp_core::jsonrpc::{Request, RequestId};
use ferromcp_core::types::RequestMetaObject;
use serde::Deserialize;
use serde_json::Value;

pub(crate) mod target;
mod tracing;
mod watch;

pub use self::tracing::Tracing;
pub(crate) use self::tracing::record_version;
pub(crate) use self::watch::InScope;
pub use self::watch::Watch;

/// Members of a message's `_meta` object.
pub type Meta = serde_json::Map<String, Value>;

/// Held while the thing it was made for lives (a legacy session, a task, a listen stream),
/// then dropped: what an observer counts live things with.
pub type Guard = Box<dyn Any + Send + Sync>;

/// The hook a server reports to; set it with
/// [`ServerBuilder::observer`](crate::ServerBuilder::observer). The default is [`Tracing`].
///
/// Called on the request's task: keep each call short, and do not block.
pub trait Observer: Send + Sync + 'static {
    /// A request arrived: how to follow it. The default, [`Watch::off`], hears nothing
    /// more of it (what costs nothing further).
    fn on_request(&self, request: &RequestInfo<'_>) -> Watch {
        let _ = request;
        Watch::off()
    }

    /// A legacy session was initialized (or taken over from a shared store); the guard is
    /// dropped when the session ends on this instance.
    fn on_session(&self, session: &SessionInfo) -> Option<Guard> {
        let _ = session;
        None
    }

    /// A task started running in this process; the guard is dropped when it ends.
    fn on_task(&self) -> Option<Guard> {
        None
    }

    /// A `subscriptions/listen` stream opened; the guard is dropped when it closes.
    fn on_listen(&self) -> Option<Guard> {
        None
    }

    /// The server is sending its client a request (sampling, elicitation, roots, ping) in
    /// a legacy session: return what is to hear how it ends.
    fn on_client_request(
        &self,
        request: &ClientRequestInfo<'_>,
    ) -> Option<Box<dyn ClientRequestObserver>> {
        let _ = request;
        None
    }

    /// Members to add to the `_meta` of a message a handler sends now (a notification, a
    /// request to the client, a 2026 input request), such as the W3C `traceparent` of the
    /// current span. Called in the handler's scope ([`RequestObserver::in_scope`]).
    fn message_meta(&self) -> Option<Meta> {
        None
    }
}

/// What follows a request, through the [`Watch`] that [`Observer::on_request`] returned:
/// the request's own ([`Watch::owned`]) or shared by many ([`Watch::shared`]).
pub trait RequestObserver: Send + Sync {
    /// Runs `poll`, one poll of the request's handler, in this observer's scope (a span
    /// entered, a context made current). The default just runs it.
    fn in_scope(&self, poll: &mut dyn FnMut()) {
        poll();
    }

    /// The request ended this way.
    fn on_response(&self, response: &ResponseInfo<'_>);

    /// The request was abandoned before it ended (its connection went away): no
    /// [`on_response`](Self::on_response) follows. The default does nothing.
    fn on_abandoned(&self) {}
}

/// One request to the client being observed, from [`Observer::on_client_request`].
/// Dropped without [`on_response`](Self::on_response) when it could not be sent.
pub trait ClientRequestObserver: Send + Sync {
    /// Members to add to the request's `_meta` (its own trace context); `None` leaves it to
    /// [`Observer::message_meta`].
    fn meta(&self) -> Option<Meta> {
        None
    }

    /// The request ended this way.
    fn on_response(self: Box<Self>, outcome: ClientOutcome<'_>);
}

/// How a connection reaches the server, as the conventions' `network.transport` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transport {
    /// stdio.
    Pipe,
    /// Streamable HTTP.
    Tcp,
}

impl Transport {
    /// `"pipe"` or `"tcp"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Pipe => "pipe",
            Transport::Tcp => "tcp",
        }
    }
}

/// What a request is about, for the methods that name something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target<'a> {
    /// `tools/call`: the tool's name.
    Tool(&'a str),
    /// `prompts/get`: the prompt's name.
    Prompt(&'a str),
    /// `resources/read`, `resources/subscribe`, `resources/unsubscribe`: the URI.
    Resource(&'a str),
}

/// What a request's connection tells its observers, read when asked: the connection
/// implements it, so that this module names none of the engine's or the transports' types.
pub(crate) trait ConnectionFacts: Sync {
    /// The HTTP session id of a legacy HTTP session.
    fn session_id(&self) -> Option<&str>;

    /// How the connection reaches the server.
    fn transport(&self) -> Transport;

    /// In a legacy session, the revision it negotiated (`None` until `initialize` settles
    /// it); `None` outside one.
    fn legacy_version(&self) -> Option<Option<ProtocolVersion>>;
}

/// A shared connection tells what it does.
impl<T: ConnectionFacts + Send> ConnectionFacts for std::sync::Arc<T> {
    fn session_id(&self) -> Option<&str> {
        (**self).session_id()
    }

    fn transport(&self) -> Transport {
        (**self).transport()
    }

    fn legacy_version(&self) -> Option<Option<ProtocolVersion>> {
        (**self).legacy_version()
    }
}

/// What the engine's reply to a request tells its observers: the engine's reply implements
/// it.
pub(crate) trait ReplyFacts: Sync {
    /// How the request ended.
    fn outcome(&self) -> Outcome;

    /// The JSON text of an error response; `None` for any other reply.
    fn error_json(&self) -> Option<&str>;
}

/// A request as it arrives. What is not asked for is not computed.
pub struct RequestInfo<'a> {
    pub(crate) req: &'a Request,
    pub(crate) meta: Option<&'a RequestMetaObject>,
    pub(crate) conn: &'a dyn ConnectionFacts,
}

impl std::fmt::Debug for RequestInfo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestInfo")
            .field("method", &self.req.method)
            .field("id", &self.req.id)
            .finish_non_exhaustive()
    }
}

impl<'a> RequestInfo<'a> {
    /// The method (`mcp.method.name`).
    #[inline]
    pub fn method(&self) -> &'a str {
        self.req.method.as_str()
    }

    /// The JSON-RPC id (`jsonrpc.request.id`).
    pub fn id(&self) -> &'a RequestId {
        &self.req.id
    }

    /// The tool, prompt or resource the request names, read from its params.
    pub fn target(&self) -> Option<Target<'a>> {
        target::about(self.req)
    }

    /// The HTTP session id (`mcp.session.id`) of a legacy HTTP session.
    pub fn session_id(&self) -> Option<&'a str> {
        self.conn.session_id()
    }

    /// How the request came (`network.transport`).
    #[inline]
    pub fn transport(&self) -> Transport {
        self.conn.transport()
    }

    /// The protocol revision, when known: its legacy session's, or the one its `_meta`
    /// names (for `initialize`, only once handled: it settles it).
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        version(self.conn, self.meta)
    }

    /// A string member of the request's `params._meta`, such as `traceparent`.
    #[inline]
    pub fn meta(&self, key: &str) -> Option<&'a str> {
        match self.meta?.extra.get(key)? {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        }
    }
}

/// The request's protocol revision: its legacy session's, or the one its `_meta` names.
fn version(
    conn: &dyn ConnectionFacts,
    meta: Option<&RequestMetaObject>,
) -> Option<ProtocolVersion> {
    match conn.legacy_version() {
        Some(negotiated) => negotiated,
        None => meta.and_then(|m| m.protocol_version.as_deref()?.parse().ok()),
    }
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// A result.
    Ok,
    /// A `tools/call` result with `isError: true`.
    ToolError,
    /// A JSON-RPC error response with this code.
    Error(i64),
    /// Cancelled: nothing was sent.
    Cancelled,
    /// `subscriptions/listen` was accepted: its stream is open.
    Listening,
}

/// A request as it ended: what an observer needs to record it, so that it needs no state
/// of its own per request.
pub struct ResponseInfo<'a> {
    pub(crate) request: RequestInfo<'a>,
    pub(crate) reply: &'a dyn ReplyFacts,
    pub(crate) duration: Duration,
}

impl std::fmt::Debug for ResponseInfo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseInfo")
            .field("method", &self.request.req.method)
            .field("outcome", &self.outcome())
            .field("duration", &self.duration)
            .finish_non_exhaustive()
    }
}

impl<'a> ResponseInfo<'a> {
    /// The request that ended: its method, id, target, transport and session.
    #[inline]
    pub fn request(&self) -> &RequestInfo<'a> {
        &self.request
    }

    /// How long the request took, from when its observer was asked until its reply was
    /// made (`mcp.server.operation.duration`).
    #[inline]
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// How the request ended.
    pub fn outcome(&self) -> Outcome {
        self.reply.outcome()
    }

    /// The message of an error response (read from the response text on each call).
    pub fn error_message(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct ErrorReply {
            error: ErrorMessage,
        }
        #[derive(Deserialize)]
        struct ErrorMessage {
            message: String,
        }
        let json = self.reply.error_json()?;
        serde_json::from_str::<ErrorReply>(json)
            .ok()
            .map(|e| e.error.message)
    }

    /// The protocol revision the request was served in, when known (`initialize` settles
    /// it for its session).
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.request.protocol_version()
    }
}

/// A legacy session as it starts.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct SessionInfo {
    /// The negotiated revision (`mcp.protocol.version`).
    pub version: ProtocolVersion,
    /// How the client reaches the server (`network.transport`).
    pub transport: Transport,
}

/// A request the server sends its client.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ClientRequestInfo<'a> {
    /// The method (`sampling/createMessage`, `elicitation/create`, `roots/list`, `ping`).
    pub method: &'a str,
    /// Its JSON-RPC id.
    pub id: &'a RequestId,
    /// The HTTP session id, for a legacy HTTP session.
    pub session_id: Option<&'a str>,
    /// The session's revision.
    pub version: Option<ProtocolVersion>,
    /// How the client is reached.
    pub transport: Transport,
}

/// How a request the server sent its client ended.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum ClientOutcome<'a> {
    /// The client answered with a result.
    Ok,
    /// The client answered with this JSON-RPC error code and message.
    Error(i64, &'a str),
    /// No answer within the request timeout.
    Timeout,
    /// The asking handler was cancelled, or the session or connection ended, first.
    Abandoned,
}

/// The observer shared.
impl<O: Observer + ?Sized> Observer for std::sync::Arc<O> {
    fn on_request(&self, request: &RequestInfo<'_>) -> Watch {
        (**self).on_request(request)
    }

    fn on_session(&self, session: &SessionInfo) -> Option<Guard> {
        (**self).on_session(session)
    }

    fn on_task(&self) -> Option<Guard> {
        (**self).on_task()
    }

    fn on_listen(&self) -> Option<Guard> {
        (**self).on_listen()
    }

    fn on_client_request(
        &self,
        request: &ClientRequestInfo<'_>,
    ) -> Option<Box<dyn ClientRequestObserver>> {
        (**self).on_client_request(request)
    }

    fn message_meta(&self) -> Option<Meta> {
        (**self).message_meta()
    }
}

/// Both observers, the first one first: `(Tracing, my_observer)` keeps the default's
/// spans and events.
impl<A: Observer, B: Observer> Observer for (A, B) {
    fn on_request(&self, request: &RequestInfo<'_>) -> Watch {
        self.0.on_request(request).and(self.1.on_request(request))
    }

    fn on_session(&self, session: &SessionInfo) -> Option<Guard> {
        both(self.0.on_session(session), self.1.on_session(session))
    }

    fn on_task(&self) -> Option<Guard> {
        both(self.0.on_task(), self.1.on_task())
    }

    fn on_listen(&self) -> Option<Guard> {
        both(self.0.on_listen(), self.1.on_listen())
    }

    fn on_client_request(
        &self,
        request: &ClientRequestInfo<'_>,
    ) -> Option<Box<dyn ClientRequestObserver>> {
        match (
            self.0.on_client_request(request),
            self.1.on_client_request(request),
        ) {
            (Some(a), Some(b)) => Some(Box::new(Both(a, b))),
            (a, b) => a.or(b),
        }
    }

    fn message_meta(&self) -> Option<Meta> {
        match (self.0.message_meta(), self.1.message_meta()) {
            (Some(mut a), Some(b)) => {
                a.extend(b);
                Some(a)
            }
            (a, b) => a.or(b),
        }
    }
}

fn both(a: Option<Guard>, b: Option<Guard>) -> Option<Guard> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Box::new((a, b))),
        (a, b) => a.or(b),
    }
}

/// Two observers of one request to the client.
struct Both<T: ?Sized>(Box<T>, Box<T>);

impl ClientRequestObserver for Both<dyn ClientRequestObserver> {
    fn meta(&self) -> Option<Meta> {
        self.1.meta().or_else(|| self.0.meta())
    }

    fn on_response(self: Box<Self>, outcome: ClientOutcome<'_>) {
        self.1.on_response(outcome);
        self.0.on_response(outcome);
    }
}

/// `params` (an object) with `meta`'s members set in its `_meta`; its other members are
/// kept.
pub(crate) fn add_meta(params: &mut Value, meta: Meta) {
    let Value::Object(members) = params else {
        return;
    };
    let slot = members
        .entry("_meta")
        .or_insert_with(|| Value::Object(Meta::new()));
    if let Value::Object(slot) = slot {
        slot.extend(meta);
    }
}

#[cfg(test)]
mod tests;
