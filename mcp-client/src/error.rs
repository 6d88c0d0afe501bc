//! What can go wrong: [`Error`] and its kinds.

use std::time::Duration;

use ferromcp_core::error::ErrorObject;

/// A failed client operation.
///
/// The kinds a program usually tells apart: [`Error::is_connection`] (the server could not
/// be reached, or went away), [`Error::Protocol`] (the server answered with a JSON-RPC
/// error), [`Error::Timeout`] (no answer in time) and [`Error::InvalidMessage`] (the server
/// sent something that is not MCP). A tool that *fails* is none of these: `tools/call`
/// succeeds with a [`CallToolResult`](ferromcp_core::types::CallToolResult) whose
/// `is_error()` is true.
///
/// # Examples
///
/// ```
/// use ferromcp_client::Error;
///
/// let e = Error::Timeout(std::time::Duration::from_secs(5));
/// assert!(!e.is_connection());
/// assert_eq!(e.to_string(), "no answer from the server within 5s");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server process could not be started.
    #[error("cannot start the server `{command}`: {source}")]
    Spawn {
        /// The command that was run.
        command: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// The connection failed or closed (the process exited, the stream ended, an I/O or
    /// network error).
    #[error("connection failed: {0}")]
    Connection(String),
    /// The HTTP server answered with a status that is not a success.
    #[error("http status {status}: {body}")]
    Http {
        /// The status code.
        status: u16,
        /// The start of the response body, for the message.
        body: String,
    },
    /// The server answered the request with a JSON-RPC error.
    #[error("server error {}: {}", .0.code, .0.message)]
    Protocol(ErrorObject),
    /// The server did not answer within the request timeout.
    #[error("no answer from the server within {0:?}")]
    Timeout(Duration),
    /// The server sent a message that is not valid JSON-RPC/MCP, or a result of the wrong
    /// shape; the connection is closed when the framing itself is broken.
    #[error("invalid message from the server: {0}")]
    InvalidMessage(String),
    /// Client and server have no protocol revision in common.
    #[error("no protocol version in common: {0}")]
    UnsupportedVersion(String),
    /// The server needs something of the client it did not declare or cannot answer (a
    /// 2026 input request with no handler, say).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The request was cancelled by the caller.
    #[error("the request was cancelled")]
    Cancelled,
}

impl Error {
    /// Whether the server could not be reached or went away: a failed start, a closed or
    /// broken connection, or an HTTP error status.
    pub fn is_connection(&self) -> bool {
        matches!(
            self,
            Error::Spawn { .. } | Error::Connection(_) | Error::Http { .. }
        )
    }

    /// The JSON-RPC error the server answered with, if that is what this is.
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            Error::Protocol(e) => Some(e),
            _ => None,
        }
    }

    /// A copy for each of several waiters of one failure (a closed connection fails every
    /// pending request); the I/O source of [`Error::Spawn`] becomes its message.
    pub(crate) fn duplicate(&self) -> Error {
        match self {
            Error::Spawn { command, source } => Error::Spawn {
                command: command.clone(),
                source: std::io::Error::new(source.kind(), source.to_string()),
            },
            Error::Connection(m) => Error::Connection(m.clone()),
            Error::Http { status, body } => Error::Http {
                status: *status,
                body: body.clone(),
            },
            Error::Protocol(e) => Error::Protocol(e.clone()),
            Error::Timeout(d) => Error::Timeout(*d),
            Error::InvalidMessage(m) => Error::InvalidMessage(m.clone()),
            Error::UnsupportedVersion(m) => Error::UnsupportedVersion(m.clone()),
            Error::Unsupported(m) => Error::Unsupported(m.clone()),
            Error::Cancelled => Error::Cancelled,
        }
    }
}

/// A client result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
