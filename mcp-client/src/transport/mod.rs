//! The transports: a child process over stdio, and Streamable HTTP.

use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::{Error, Result};

pub(crate) mod http;
pub(crate) mod stdio;

/// What a transport hands to the dispatcher.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// One JSON-RPC message (or a batch).
    Message(Value),
    /// The connection is gone, and why.
    Closed(Error),
}

/// Where the client's messages go.
#[derive(Debug, Clone)]
pub(crate) enum Sink {
    /// Lines for the child's stdin, written by the writer task.
    Stdio(mpsc::Sender<String>),
    /// POSTs to a Streamable HTTP endpoint.
    Http(std::sync::Arc<http::HttpSink>),
}

impl Sink {
    /// The revision the transport announces from now on (HTTP's `MCP-Protocol-Version`).
    pub(crate) fn set_protocol_version(&self, version: ferromcp_core::ProtocolVersion) {
        match self {
            Sink::Stdio(_) => {}
            Sink::Http(h) => h.set_version(Some(version)),
        }
    }

    /// Announces no revision (before `initialize` is answered).
    pub(crate) fn clear_protocol_version(&self) {
        match self {
            Sink::Stdio(_) => {}
            Sink::Http(h) => h.set_version(None),
        }
    }

    /// Sends one message.
    pub(crate) async fn send(&self, msg: Value) -> Result<()> {
        match self {
            Sink::Stdio(tx) => tx
                .send(msg.to_string())
                .await
                .map_err(|_| Error::Connection("the server's input is closed".into())),
            Sink::Http(h) => h.send(msg).await,
        }
    }
}
