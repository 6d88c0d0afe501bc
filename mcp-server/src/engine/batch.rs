//! JSON-RPC batches: part of protocol revision 2025-03-26 only, and bounded.

use std::sync::Arc;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{EnvelopeError, Message, WireErrorResponse};
use tokio::task::JoinSet;

use super::{Engine, Reply, Response, Work};
use crate::peer::session::{Connection, ConnectionEra};
use crate::peer::sink::Sink;
use crate::request::Caller;

/// The most messages one batch may hold; a larger batch is refused whole, so one message
/// cannot fan out into unbounded work.
pub(crate) const MAX_BATCH: usize = 100;

/// What a batch came to: its responses, in order (notifications have none).
pub(crate) struct Answered {
    responses: Vec<String>,
}

impl Answered {
    /// The answer's text, a JSON array; `None` when there is none to send (notifications
    /// only).
    pub(crate) fn into_body(self) -> Option<String> {
        (!self.responses.is_empty()).then(|| format!("[{}]", self.responses.join(",")))
    }
}

impl Engine {
    /// Handles a batch of a connection: every element, requests concurrently; the responses
    /// in order (notifications have none). A notification's work goes to `spawn` as soon as
    /// it is read, for the transport to run on a task of its own: it starts before the
    /// batch's requests finish (one of them may wait for it), and the answer does not wait
    /// for it. `Err` refuses the batch whole: the connection's revision has no batches, or
    /// the batch is too large.
    pub(crate) async fn handle_batch(
        &self,
        conn: &Arc<Connection>,
        items: Vec<Result<Message, EnvelopeError>>,
        sink: Sink,
        caller: Caller,
        mut spawn: impl FnMut(Work) + Send,
    ) -> Result<Answered, ErrorObject> {
        if !allows_batches(conn) {
            return Err(ErrorObject::invalid_request(
                "batches are only part of protocol revision 2025-03-26",
            ));
        }
        if items.len() > MAX_BATCH {
            return Err(ErrorObject::invalid_request(format!(
                "a batch may hold at most {MAX_BATCH} messages"
            )));
        }
        let mut set = JoinSet::new();
        let mut responses: Vec<Option<String>> = vec![None; items.len()];
        for (i, item) in items.into_iter().enumerate() {
            match item {
                Err(e) => {
                    let error = e.to_error_object();
                    responses[i] = ferromcp_core::jsonrpc::to_string(&WireErrorResponse::new(
                        e.id.as_ref(),
                        &error,
                    ))
                    .ok();
                }
                Ok(Message::Request(req)) => {
                    let (server, conn, sink) = (self.clone(), conn.clone(), sink.clone());
                    let caller = caller.clone();
                    set.spawn(async move {
                        match server.handle_request(&conn, req, sink, caller).await {
                            Reply::Response(Response { json, .. }) => (i, Some(json)),
                            _ => (i, None),
                        }
                    });
                }
                Ok(other) => {
                    if let Some(work) = self.absorb(conn, other, caller.clone()) {
                        spawn(work);
                    }
                }
            }
        }
        while let Some(joined) = set.join_next().await {
            if let Ok((i, json)) = joined {
                responses[i] = json;
            }
        }
        Ok(Answered {
            responses: responses.into_iter().flatten().collect(),
        })
    }
}

/// Whether `conn` may send batches: a legacy session whose revision has them (2025-03-26).
pub(crate) fn allows_batches(conn: &Connection) -> bool {
    match conn.era() {
        ConnectionEra::Legacy(session) => session
            .negotiated()
            .is_some_and(|n| n.version.allows_batches()),
        _ => false,
    }
}
