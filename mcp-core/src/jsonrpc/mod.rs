//! The JSON-RPC 2.0 envelope: one parse of the outer object, with `params` and `result`
//! kept as raw JSON so the runtime can deserialize them straight into typed structs.
//!
//! The parser is strict where JSON-RPC and MCP are strict: `"jsonrpc": "2.0"` is required, a
//! request id is a string or an integer (never `null`), a message cannot carry both `result`
//! and `error`, and a key that appears twice in the envelope is an error rather than
//! "last one wins" (a parser differential that gateways routing on `method` can be fooled
//! by). Invalid JSON is a [`ParseError`](EnvelopeErrorKind::Parse) (-32700); valid JSON that
//! is not a JSON-RPC message is an [`InvalidRequest`](EnvelopeErrorKind::InvalidRequest)
//! (-32600).
//!
//! # Examples
//!
//! ```
//! use ferromcp_core::jsonrpc::{parse, Incoming, Message, RequestId};
//!
//! let incoming = parse(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#).unwrap();
//! let Incoming::Single(Message::Request(req)) = incoming else { panic!() };
//! assert_eq!(req.id, RequestId::Number(7));
//! assert_eq!(req.method, "tools/list");
//! assert!(req.params.is_none());
//! ```

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::rpc_error::{ErrorCode, ErrorObject};

mod params;
mod parse;
mod wire;
mod write;

pub use params::Params;
pub use parse::{MAX_NESTING, parse, parse_message, parse_owned};
pub use wire::{WireErrorResponse, WireNotification, WireRequest, WireResponse};
pub use write::to_string;

/// The only JSON-RPC version string MCP uses.
pub const JSONRPC_VERSION: &str = "2.0";

/// The `"jsonrpc": "2.0"` member: serializes as `"2.0"` and refuses any other value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(JSONRPC_VERSION)
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = JsonRpcVersion;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the string \"2.0\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<JsonRpcVersion, E> {
                if v == JSONRPC_VERSION {
                    Ok(JsonRpcVersion)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
        }
        deserializer.deserialize_str(V)
    }
}

/// A JSON-RPC request id: a string or an integer. MCP forbids `null`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => serializer.serialize_i64(*n),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer request id")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<RequestId, E> {
                Ok(RequestId::String(v))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// A request: a message with an `id` that expects a response.
#[derive(Debug, Clone)]
pub struct Request {
    /// The id the response must echo.
    pub id: RequestId,
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// The `params` member, unparsed. `None` when absent.
    pub params: Option<Params>,
}

/// A notification: a message with a method and no `id`; it gets no response.
#[derive(Debug, Clone)]
pub struct Notification {
    /// The method name, e.g. `notifications/cancelled`.
    pub method: String,
    /// The `params` member, unparsed. `None` when absent.
    pub params: Option<Params>,
}

/// A successful response.
#[derive(Debug, Clone)]
pub struct Response {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The `result` member, unparsed.
    pub result: Box<RawValue>,
}

/// An error response.
#[derive(Debug, Clone)]
pub struct ErrorResponse {
    /// The id of the request this answers; `None` when the request's id could not be read.
    pub id: Option<RequestId>,
    /// The error object.
    pub error: ErrorObject,
}

/// One JSON-RPC message, classified by its members.
#[derive(Debug, Clone)]
pub enum Message {
    /// Has `method` and `id`.
    Request(Request),
    /// Has `method` and no `id`.
    Notification(Notification),
    /// Has `result`.
    Response(Response),
    /// Has `error`.
    Error(ErrorResponse),
}

/// What one read from a transport carried: a single message or a batch.
///
/// Batches exist only in protocol revision 2025-03-26; the parser reports them as such and
/// leaves accepting or refusing them to the engine, which knows the revision in force.
#[derive(Debug)]
pub enum Incoming {
    /// A single JSON object.
    Single(Message),
    /// A non-empty top-level array; each element parsed on its own, so one bad element does
    /// not spoil the others.
    Batch(Vec<Result<Message, EnvelopeError>>),
}

/// Which of the two JSON-RPC failure classes a rejected message falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvelopeErrorKind {
    /// The bytes are not valid JSON (-32700).
    Parse,
    /// Valid JSON, but not a valid JSON-RPC message (-32600).
    InvalidRequest,
}

/// A message the envelope parser rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EnvelopeError {
    /// Parse error or invalid request.
    pub kind: EnvelopeErrorKind,
    /// The request id, when one could be read from an otherwise invalid message, so the error
    /// response can echo it.
    pub id: Option<RequestId>,
    /// What was wrong, for the error response's `message`.
    pub message: String,
}

impl EnvelopeError {
    /// The JSON-RPC error code for this failure.
    pub fn code(&self) -> ErrorCode {
        match self.kind {
            EnvelopeErrorKind::Parse => ErrorCode::PARSE_ERROR,
            EnvelopeErrorKind::InvalidRequest => ErrorCode::INVALID_REQUEST,
        }
    }

    /// The error object to send back.
    pub fn to_error_object(&self) -> ErrorObject {
        ErrorObject::new(self.code(), self.message.clone())
    }

    fn parse(message: impl Into<String>) -> Self {
        EnvelopeError {
            kind: EnvelopeErrorKind::Parse,
            id: None,
            message: message.into(),
        }
    }

    fn invalid(message: impl Into<String>) -> Self {
        EnvelopeError {
            kind: EnvelopeErrorKind::InvalidRequest,
            id: None,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_are_strings_or_integers() {
        assert_eq!(
            serde_json::from_str::<RequestId>("-5").unwrap(),
            RequestId::Number(-5)
        );
        assert_eq!(
            serde_json::from_str::<RequestId>("\"a\"").unwrap(),
            RequestId::from("a")
        );
        for bad in ["null", "1.5", "true", "[]", "18446744073709551615"] {
            assert!(serde_json::from_str::<RequestId>(bad).is_err(), "{bad}");
        }
    }
}
