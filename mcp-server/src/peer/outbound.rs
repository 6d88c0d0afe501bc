//! How a server-to-client request (a legacy session's elicitation, sampling or roots) can
//! fail. Its own type, so that the session does not depend on `Context`; `Context` turns it
//! into a [`ContextError`](crate::ContextError).

use ferromcp_core::error::ErrorObject;

/// Why a server-to-client request got no usable answer.
#[derive(Debug)]
pub(crate) enum OutboundError {
    /// The client answered with a JSON-RPC error.
    Client(ErrorObject),
    /// The request could not be written.
    InvalidResponse(serde_json::Error),
    /// The connection is gone, the session ended, or the request was cancelled.
    Disconnected,
    /// No answer in time.
    Timeout,
}
