//! The engine's entry point: a message's bytes and the transport's facts in, what the
//! transport does with it out.
//!
//! Everything a transport would otherwise decide about the protocol is decided here: how a
//! message is parsed and refused, the era of a request (from its `_meta` and, over HTTP,
//! its headers, checked against each other), whether it opens a legacy session, needs the
//! one it names or needs none, what a notification is for in each era, and the batch rule.
//! The transport then only finds the connection [`On`] names and runs the request there
//! ([`Engine::admit`], [`Engine::handle_registered`], [`poll_once`]).

use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

#[cfg(feature = "http")]
use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{self, EnvelopeError, Incoming, Message, Request, RequestId};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "http")]
use super::headers::Headers;
use super::{Engine, Envelope, Response, duplicate_id};
use crate::peer::session::{Connection, ConnectionEra, Transport};
use crate::peer::sink::Sink;
use crate::registry::RegistryEvent;
#[cfg(feature = "http")]
use crate::request::Caller;

/// Where a message came from: the transport's facts about it.
#[derive(Clone, Copy)]
pub(crate) enum Arrival<'a> {
    /// A pipe (stdio): one connection, whose first request decides its era.
    Pipe,
    /// An HTTP POST.
    #[cfg(feature = "http")]
    Http {
        /// The request's headers (the era's headers are checked against the body).
        headers: &'a dyn Headers,
        /// Whether it names a session (an `Mcp-Session-Id` header, well-formed or not).
        names_session: bool,
        /// Who sent it, and the request itself: what a 2026 custom notification's handler
        /// is given (a request's is made where it runs).
        caller: &'a Caller,
    },
    /// None without feature `http` (only the lifetime).
    #[cfg(not(feature = "http"))]
    #[allow(dead_code)]
    Never(std::convert::Infallible, std::marker::PhantomData<&'a ()>),
}

/// What the transport does with a message, as the engine decided.
// A pipe has one connection and takes every notification: some answers are HTTP's alone.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) enum Handled {
    /// Answer this and nothing more: the message was refused before it ran (HTTP 400).
    Refused(Response),
    /// Run this request on the connection `on` names.
    Request {
        /// The request.
        request: Request,
        /// Its `_meta`, when the era had to be known before the connection (HTTP); else
        /// [`Engine::handle_registered`] reads it, inside the request's future, so that the
        /// large `_meta` is not moved through the transport on the way.
        envelope: Option<Envelope>,
        /// The connection it runs on.
        on: On,
    },
    /// Hand this notification or client response to the session's connection
    /// ([`Engine::absorb`]).
    Absorb(Message),
    /// Nothing to do: a notification its era does not define on this transport (HTTP 202).
    Accepted,
    /// Accepted (HTTP 202), and this work to run on a task of the transport's: a 2026
    /// custom notification's handler.
    Run(super::Work),
    /// Run this batch on the session's connection ([`Engine::handle_batch`]).
    Batch {
        /// Its elements, those that did not parse included (they are answered in place).
        items: Vec<Result<Message, EnvelopeError>>,
        /// How many of them are requests (they run at once).
        requests: usize,
    },
}

/// The connection a request runs on.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum On {
    /// A connection of its own, for this request alone (2026-07-28 over HTTP).
    Stateless,
    /// A new legacy session, kept once its handshake succeeded ([`Engine::opened`]):
    /// `initialize` over HTTP. Sessions are minted here and nowhere else.
    NewSession,
    /// The legacy session the message names (HTTP), or the pipe's one connection.
    Session,
}

impl Engine {
    /// The one entry point: what to do with `bytes`, one JSON-RPC message or a batch, that
    /// arrived as `arrival` says.
    pub(crate) fn handle(&self, bytes: Vec<u8>, arrival: Arrival<'_>) -> Handled {
        let incoming = match jsonrpc::parse_owned(bytes) {
            Ok(incoming) => incoming,
            Err(e) => return Handled::Refused(envelope_error(&e)),
        };
        match incoming {
            Incoming::Single(Message::Request(request)) => self.request(request, arrival),
            Incoming::Single(other) => notice(self, other, arrival),
            Incoming::Batch(items) => batch(items, arrival),
        }
    }

    /// A request: its era, and the connection that era runs it on.
    fn request(&self, request: Request, arrival: Arrival<'_>) -> Handled {
        match arrival {
            Arrival::Pipe => Handled::Request {
                request,
                envelope: None,
                on: On::Session,
            },
            #[cfg(feature = "http")]
            Arrival::Http {
                headers,
                names_session,
                ..
            } => {
                // The headers decide the era with the body, and must agree with it.
                let envelope = match self.classify(&request, headers) {
                    Ok(envelope) => envelope,
                    Err(e) => return Handled::Refused(Response::error(Some(&request.id), &e)),
                };
                let on = if envelope.is_modern() {
                    On::Stateless
                } else if request.method == "initialize" {
                    // A session id sent with it is ignored: ids are only minted.
                    On::NewSession
                } else if names_session {
                    On::Session
                } else {
                    return Handled::Refused(session_required(Some(&request.id)));
                };
                Handled::Request {
                    request,
                    envelope: Some(envelope),
                    on,
                }
            }
            #[cfg(not(feature = "http"))]
            Arrival::Never(never, _) => match never {},
        }
    }

    /// The connection of a pipe: one client, whose first request decides its era; what
    /// the server sends it goes to `sink`.
    pub(crate) fn pipe(&self, sink: Sink) -> Arc<Connection> {
        let timeout = self.config().client_request_timeout;
        Arc::new(Connection::new(sink, timeout, Transport::Pipe))
    }

    /// A new connection for a request that `on` says runs on one over HTTP: its own
    /// (2026-07-28), or a legacy session's, minted for its `initialize` (kept once
    /// [`Engine::opened`]). `None` for [`On::Session`]: that one exists, and the transport
    /// finds it by its id.
    #[cfg(feature = "http")]
    pub(crate) fn mint(&self, on: On) -> Option<Arc<Connection>> {
        let timeout = self.config().client_request_timeout;
        match on {
            On::Stateless => Some(Arc::new(Connection::stateless(timeout))),
            On::NewSession => {
                let conn = Connection::new(Sink::Discard, timeout, Transport::Tcp);
                conn.decide(false);
                Some(Arc::new(conn))
            }
            On::Session => None,
        }
    }

    /// Registers request `id` as in flight on `conn` before it runs, so that a cancellation
    /// read next finds it. `Err` answers a request whose id is in flight already (HTTP 409).
    pub(crate) fn admit(conn: &Connection, id: &RequestId) -> Result<CancellationToken, Response> {
        conn.begin(id)
            .ok_or_else(|| Response::error(Some(id), &duplicate_id(id)))
    }

    /// Whether a connection made for [`On::NewSession`] became a session: its `initialize`
    /// succeeded. One that did not is dropped, and no session id is given out.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn opened(conn: &Connection) -> bool {
        conn.session().is_some_and(|s| s.negotiated().is_some())
    }

    /// The notification a legacy connection gets for a registry change, if any: list
    /// changes once it is initialized, resource updates for the URIs it subscribed to.
    /// Modern connections get theirs through `subscriptions/listen`.
    pub(crate) fn change_for(conn: &Connection, event: &RegistryEvent) -> Option<String> {
        let ConnectionEra::Legacy(session) = conn.era() else {
            return None;
        };
        session.negotiated()?;
        super::legacy_notification(&session, event)
    }
}

/// A notification or a client's response: the session's, except a 2026 notification over
/// HTTP, which that era does not define (cancellation is a closed stream): accepted and
/// ignored, as the transport requires, unless it is a custom one, whose handler runs.
#[cfg_attr(not(feature = "http"), allow(unused_variables))]
fn notice(engine: &Engine, message: Message, arrival: Arrival<'_>) -> Handled {
    match arrival {
        Arrival::Pipe => Handled::Absorb(message),
        #[cfg(feature = "http")]
        Arrival::Http {
            names_session,
            caller,
            ..
        } => {
            let modern = match &message {
                Message::Notification(n) => super::Probe::read(n.params.as_ref())
                    .is_ok_and(|p| super::is_modern(p.meta.as_ref())),
                _ => false,
            };
            if !modern && names_session {
                Handled::Absorb(message)
            } else if let Message::Notification(n) = &message {
                let work = modern
                    .then(|| {
                        let params = n.params.as_ref();
                        engine.custom_notification(None, &n.method, params, caller.clone())
                    })
                    .flatten();
                work.map_or(Handled::Accepted, Handled::Run)
            } else {
                Handled::Refused(session_required(None))
            }
        }
        #[cfg(not(feature = "http"))]
        Arrival::Never(never, _) => match never {},
    }
}

/// A batch: 2025-03-26's, so only ever in a legacy session ([`Engine::handle_batch`]
/// checks the session's revision).
fn batch(items: Vec<Result<Message, EnvelopeError>>, arrival: Arrival<'_>) -> Handled {
    #[cfg(feature = "http")]
    if let Arrival::Http {
        names_session: false,
        ..
    } = arrival
    {
        return Handled::Refused(Response::error(
            None,
            &ErrorObject::invalid_request("batches need a 2025-03-26 session (Mcp-Session-Id)"),
        ));
    }
    let _ = arrival;
    let requests = items
        .iter()
        .filter(|m| matches!(m, Ok(Message::Request(_))))
        .count();
    Handled::Batch { items, requests }
}

/// Polls a boxed request once: `Ok` with its output when it completed without waiting (most
/// tool calls: answered on the spot, without a task), else `Err` with the future, to go on
/// as a task of its own, polled there with its own waker.
pub(crate) async fn poll_once<F: Future + ?Sized>(
    mut future: Pin<Box<F>>,
) -> Result<F::Output, Pin<Box<F>>> {
    match std::future::poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await {
        Poll::Ready(output) => Ok(output),
        Poll::Pending => Err(future),
    }
}

/// The answer to a message that is not JSON-RPC.
fn envelope_error(e: &EnvelopeError) -> Response {
    Response::error(e.id.as_ref(), &e.to_error_object())
}

/// The answer to a legacy message over HTTP that names no session.
#[cfg(feature = "http")]
fn session_required(id: Option<&RequestId>) -> Response {
    Response::error(
        id,
        &ErrorObject::invalid_request("Bad Request: Mcp-Session-Id header is required"),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn engine() -> Engine {
        crate::ServerBuilder::new("handle", "1.0.0")
            .build()
            .engine()
            .clone()
    }

    fn decide(text: &str, arrival: Arrival<'_>) -> Handled {
        engine().handle(text.as_bytes().to_vec(), arrival)
    }

    fn refusal(handled: Handled) -> serde_json::Value {
        match handled {
            Handled::Refused(r) => serde_json::from_str(&r.json).unwrap(),
            _ => panic!("refused"),
        }
    }

    #[test]
    fn a_pipe_runs_every_request_on_its_connection_and_absorbs_notifications() {
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        let Handled::Request { on, request, .. } = decide(init, Arrival::Pipe) else {
            panic!("a request")
        };
        assert_eq!((on, request.method.as_str()), (On::Session, "initialize"));
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(matches!(decide(note, Arrival::Pipe), Handled::Absorb(_)));
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]"#;
        let Handled::Batch { requests, items } = decide(batch, Arrival::Pipe) else {
            panic!("a batch")
        };
        assert_eq!((requests, items.len()), (1, 2));
    }

    #[cfg(feature = "http")]
    #[test]
    fn what_is_not_json_rpc_is_refused_with_its_code() {
        let parse = refusal(decide("{not json", Arrival::Pipe));
        assert_eq!(parse["error"]["code"], -32700);
        let invalid = refusal(decide(
            r#"{"jsonrpc":"1.0","id":7,"method":"x"}"#,
            Arrival::Pipe,
        ));
        assert_eq!(invalid["error"]["code"], -32600);
        let meta = r#"{"jsonrpc":"2.0","id":8,"method":"ping","params":{"_meta":3}}"#;
        // Over a pipe the request's future reads `_meta` (and answers the error); over HTTP
        // the era must be known first, so it is refused here.
        assert!(matches!(
            decide(meta, Arrival::Pipe),
            Handled::Request { envelope: None, .. }
        ));
        let malformed = refusal(decide(meta, http(&http::HeaderMap::new(), true)));
        assert_eq!(
            (malformed["id"].clone(), malformed["error"]["code"].clone()),
            (8.into(), (-32602).into())
        );
    }

    #[cfg(feature = "http")]
    fn http(headers: &http::HeaderMap, names_session: bool) -> Arrival<'_> {
        Arrival::Http {
            headers,
            names_session,
            caller: Box::leak(Box::default()),
        }
    }

    #[cfg(feature = "http")]
    #[test]
    fn over_http_the_engine_names_the_connection_a_request_runs_on() {
        let none = http::HeaderMap::new();
        let modern = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{MODERN_META}}}}}"#
        );
        let mut era = http::HeaderMap::new();
        era.insert(
            "mcp-protocol-version",
            http::HeaderValue::from_static("2026-07-28"),
        );
        era.insert("mcp-method", http::HeaderValue::from_static("tools/list"));
        let Handled::Request { on, .. } = decide(&modern, http(&era, false)) else {
            panic!("a request")
        };
        assert_eq!(on, On::Stateless);
        // Its headers are the era's: without them, it is refused (-32020).
        let refused = refusal(decide(&modern, http(&none, false)));
        assert_eq!(refused["error"]["code"], -32020);
        // `initialize` mints a session, whether or not it names one.
        let init = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}"#;
        for names in [false, true] {
            let Handled::Request { on, .. } = decide(init, http(&none, names)) else {
                panic!("a request")
            };
            assert_eq!(on, On::NewSession);
        }
        let legacy = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
        let Handled::Request { on, .. } = decide(legacy, http(&none, true)) else {
            panic!("a request")
        };
        assert_eq!(on, On::Session);
        let required = refusal(decide(legacy, http(&none, false)));
        assert_eq!(required["id"], 3);
        assert!(
            required["error"]["message"]
                .as_str()
                .unwrap()
                .contains("Mcp-Session-Id")
        );
    }

    #[cfg(feature = "http")]
    #[test]
    fn over_http_headers_that_contradict_the_body_are_refused() {
        let mut headers = http::HeaderMap::new();
        headers.insert("mcp-method", http::HeaderValue::from_static("tools/call"));
        headers.insert(
            "mcp-protocol-version",
            http::HeaderValue::from_static("2026-07-28"),
        );
        let modern = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{{MODERN_META}}}}}"#
        );
        let refused = refusal(decide(&modern, http(&headers, false)));
        assert_eq!(
            (refused["id"].clone(), refused["error"]["code"].clone()),
            (4.into(), (-32020).into())
        );
    }

    #[cfg(feature = "http")]
    #[test]
    fn over_http_notifications_and_batches_need_a_legacy_session() {
        let none = http::HeaderMap::new();
        let legacy = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(matches!(
            decide(legacy, http(&none, true)),
            Handled::Absorb(_)
        ));
        // Without a session, or of the 2026 era (which defines none over HTTP): accepted.
        assert!(matches!(
            decide(legacy, http(&none, false)),
            Handled::Accepted
        ));
        let modern = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{{MODERN_META}}}}}"#
        );
        assert!(matches!(
            decide(&modern, http(&none, true)),
            Handled::Accepted
        ));
        // A client's response has nowhere to go without a session.
        let response = r#"{"jsonrpc":"2.0","id":9,"result":{}}"#;
        assert!(matches!(
            decide(response, http(&none, false)),
            Handled::Refused(_)
        ));
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
        let refused = refusal(decide(batch, http(&none, false)));
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("batches need")
        );
        assert!(matches!(
            decide(batch, http(&none, true)),
            Handled::Batch { requests: 1, .. }
        ));
    }

    #[tokio::test]
    async fn a_request_id_in_flight_is_refused_and_change_notes_wait_for_the_handshake() {
        let engine = engine();
        let conn = engine.pipe(Sink::Discard);
        let id = RequestId::Number(1);
        let _first = Engine::admit(&conn, &id).unwrap();
        let duplicate = Engine::admit(&conn, &id).unwrap_err();
        assert!(duplicate.json.contains("-32600"), "{}", duplicate.json);
        // Undecided, then legacy but not yet initialized: no change notification.
        assert_eq!(
            Engine::change_for(&conn, &RegistryEvent::ToolsChanged),
            None
        );
        conn.decide(false);
        assert_eq!(
            Engine::change_for(&conn, &RegistryEvent::ToolsChanged),
            None
        );
        assert!(!Engine::opened(&conn));
    }
}
