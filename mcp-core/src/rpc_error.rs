//! The JSON-RPC error object and its codes: the leaf that both the envelope ([`crate::jsonrpc`])
//! and the schema types ([`crate::types`]) build on. Users reach these items at
//! [`crate::error`], which also gathers the payloads that name schema types.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::version::{Era, ProtocolVersion};

/// A JSON-RPC error code.
///
/// # Examples
///
/// ```
/// use ferromcp_core::error::ErrorCode;
///
/// assert_eq!(ErrorCode::METHOD_NOT_FOUND.0, -32601);
/// assert_eq!(ErrorCode::METHOD_NOT_FOUND.name(), Some("method not found"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// The JSON is not a valid request object.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// The method does not exist, is not available in this era, or its capability was not
    /// advertised.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// Invalid method parameters (also: unknown tool or prompt, bad cursor, and in the modern
    /// era an unknown resource, a malformed `_meta` envelope, or a tampered `requestState`).
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// An internal error of the receiver.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// Legacy era: the requested resource does not exist.
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// 2025-11-25: the request needs a URL-mode elicitation to complete first.
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);
    /// Modern era, HTTP: a header does not match the body, or is missing or malformed.
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// Modern era: the request needs a client capability the client did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// Modern era: the request's protocol version is unknown or unsupported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);
    /// HTTP: an error about the exchange itself (a refused `Host` or `Origin`, a method the
    /// endpoint does not allow, an overloaded server), in JSON-RPC's implementation-defined
    /// server-error range, as the other SDKs use it.
    pub const TRANSPORT_ERROR: ErrorCode = ErrorCode(-32000);
    /// HTTP, legacy era: an unknown, expired or foreign `Mcp-Session-Id`.
    pub const SESSION_NOT_FOUND: ErrorCode = ErrorCode(-32001);

    /// A short lowercase name for the codes this module defines.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            ErrorCode::PARSE_ERROR => "parse error",
            ErrorCode::INVALID_REQUEST => "invalid request",
            ErrorCode::METHOD_NOT_FOUND => "method not found",
            ErrorCode::INVALID_PARAMS => "invalid params",
            ErrorCode::INTERNAL_ERROR => "internal error",
            ErrorCode::RESOURCE_NOT_FOUND => "resource not found",
            ErrorCode::URL_ELICITATION_REQUIRED => "url elicitation required",
            ErrorCode::HEADER_MISMATCH => "header mismatch",
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => "missing required client capability",
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => "unsupported protocol version",
            ErrorCode::TRANSPORT_ERROR => "transport error",
            ErrorCode::SESSION_NOT_FOUND => "session not found",
            _ => return None,
        })
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{} ({name})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

/// The `error` member of a JSON-RPC error response (the schema's `Error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// A short description, ideally one sentence.
    pub message: String,
    /// Additional information; its shape depends on the code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with no `data`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches a `data` payload.
    ///
    /// A payload that fails to serialize (a map with non-string keys, say) is dropped rather
    /// than turned into a second error: the error itself still reaches the client.
    pub fn with_data(mut self, data: impl Serialize) -> Self {
        self.data = serde_json::to_value(data).ok();
        self
    }

    /// -32700.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, message)
    }

    /// -32600.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message)
    }

    /// -32601, naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// -32602.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// -32603.
    pub fn internal_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message)
    }

    /// Resource not found, in the form of the given era: -32002 in the legacy era, -32602 in
    /// the modern era; `data.uri` in both.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp_core::error::{ErrorCode, ErrorObject};
    /// use ferromcp_core::Era;
    ///
    /// assert_eq!(ErrorObject::resource_not_found("a://b", Era::Legacy).code, ErrorCode::RESOURCE_NOT_FOUND);
    /// let modern = ErrorObject::resource_not_found("a://b", Era::Modern);
    /// assert_eq!(modern.code, ErrorCode::INVALID_PARAMS);
    /// assert_eq!(modern.data.unwrap()["uri"], "a://b");
    /// ```
    pub fn resource_not_found(uri: &str, era: Era) -> Self {
        let code = match era {
            Era::Legacy => ErrorCode::RESOURCE_NOT_FOUND,
            Era::Modern => ErrorCode::INVALID_PARAMS,
        };
        Self::new(code, format!("resource not found: {uri}")).with_data(ResourceNotFoundData {
            uri: uri.to_owned(),
        })
    }

    /// -32000: the HTTP exchange itself is refused, for `reason`.
    pub fn transport(reason: impl Into<String>) -> Self {
        Self::new(ErrorCode::TRANSPORT_ERROR, reason)
    }

    /// -32001: the `Mcp-Session-Id` names no live session of this client.
    pub fn session_not_found() -> Self {
        Self::new(ErrorCode::SESSION_NOT_FOUND, "Session not found")
    }

    /// -32020, with the spec's wording style ("Header mismatch: …").
    pub fn header_mismatch(detail: impl fmt::Display) -> Self {
        Self::new(
            ErrorCode::HEADER_MISMATCH,
            format!("Header mismatch: {detail}"),
        )
    }

    /// -32022 with `data.supported` and `data.requested`.
    pub fn unsupported_protocol_version(requested: &str, supported: &[ProtocolVersion]) -> Self {
        Self::new(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            format!("unsupported protocol version: {requested}"),
        )
        .with_data(UnsupportedProtocolVersionData {
            supported: supported.iter().map(|v| v.as_str().to_owned()).collect(),
            requested: requested.to_owned(),
        })
    }

    /// Reads `data` as the payload type of this code.
    ///
    /// # Errors
    ///
    /// Fails when `data` is absent or has another shape.
    pub fn data_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(self.data.as_ref().unwrap_or(&Value::Null))
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ErrorObject {}

/// `data` of a resource-not-found error (-32002 legacy, -32602 modern).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceNotFoundData {
    /// The URI that named no resource.
    pub uri: String,
}

/// `data` of -32022.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnsupportedProtocolVersionData {
    /// The versions the server supports.
    pub supported: Vec<String>,
    /// The version the client asked for.
    pub requested: String,
}
