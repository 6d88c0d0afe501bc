//! The error definitions of the schemas, each with its fixed code.
//!
//! - [`ParseError`], [`InvalidRequestError`], [`MethodNotFoundError`], [`InvalidParamsError`]
//!   and [`InternalError`] are `error` objects (2026);
//! - [`HeaderMismatchError`], [`UnsupportedProtocolVersionError`] and
//!   [`MissingRequiredClientCapabilityError`] (2026) and [`URLElicitationRequiredError`]
//!   (2025-11-25) are whole JSON-RPC error responses, whose `error` member is the matching
//!   `…ErrorObject` type with a typed `data` payload from [`crate::error`].
//!
//! Each type writes its code on serialization and refuses any other code on
//! deserialization. All of them convert into the untyped [`ErrorObject`] /
//! [`JSONRPCErrorResponse`], and back with `TryFrom` (which hands the input back unchanged
//! when the code or the `data` shape does not match).
//!
//! # Examples
//!
//! ```
//! use ferromcp_core::types::{InvalidParamsError, UnsupportedProtocolVersionError};
//!
//! let e: InvalidParamsError =
//!     serde_json::from_str(r#"{"code":-32602,"message":"Invalid cursor"}"#).unwrap();
//! assert_eq!(e.message, "Invalid cursor");
//! assert!(serde_json::from_str::<InvalidParamsError>(r#"{"code":-32601,"message":"x"}"#).is_err());
//!
//! let r: UnsupportedProtocolVersionError = serde_json::from_str(r#"{
//!     "jsonrpc": "2.0", "id": 1,
//!     "error": {"code": -32022, "message": "Unsupported protocol version",
//!               "data": {"supported": ["2026-07-28"], "requested": "1900-01-01"}}
//! }"#).unwrap();
//! assert_eq!(r.error.data.requested, "1900-01-01");
//! ```

use serde::{Deserialize, Serialize};

use super::error_data::{MissingRequiredClientCapabilityData, UrlElicitationRequiredData};
use crate::jsonrpc::JsonRpcVersion;
use crate::rpc_error::{ErrorCode, ErrorObject, UnsupportedProtocolVersionData};
use crate::types::{JSONRPCErrorResponse, JSONValue, RequestId};

/// Wire form of an error object, for serialization.
#[derive(Serialize)]
struct ErrorOut<'a, D: Serialize> {
    code: ErrorCode,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a D>,
}

/// Wire form of an error object, for deserialization.
#[derive(Deserialize)]
struct ErrorIn<D> {
    code: ErrorCode,
    message: String,
    // A missing `data` is `None` without `#[serde(default)]`, which would demand `D: Default`.
    data: Option<D>,
}

fn check_code<E: serde::de::Error>(found: ErrorCode, expected: ErrorCode) -> Result<(), E> {
    if found == expected {
        Ok(())
    } else {
        Err(E::invalid_value(
            serde::de::Unexpected::Signed(found.0),
            &format!("error code {}", expected.0).as_str(),
        ))
    }
}

/// Wire form of an error response, for serialization.
#[derive(Serialize)]
struct ResponseOut<'a, E> {
    jsonrpc: JsonRpcVersion,
    id: Option<&'a RequestId>,
    error: &'a E,
}

/// Wire form of an error response, for deserialization.
#[derive(Deserialize)]
struct ResponseIn<E> {
    #[allow(dead_code)]
    jsonrpc: JsonRpcVersion,
    #[serde(default)]
    id: Option<RequestId>,
    error: E,
}

/// Implements the code constant, serde and the `ErrorObject` conversions for an error
/// object struct `{ message: String, data: D }` (`optional`: `data: Option<JSONValue>`).
macro_rules! coded_error {
    ($ty:ident, $code:expr, optional) => {
        coded_error!(@common $ty, $code);
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                ErrorOut { code: $code, message: &self.message, data: self.data.as_ref() }
                    .serialize(s)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let repr = ErrorIn::<JSONValue>::deserialize(d)?;
                check_code::<D::Error>(repr.code, $code)?;
                Ok($ty { message: repr.message, data: repr.data })
            }
        }
        impl From<$ty> for ErrorObject {
            fn from(e: $ty) -> ErrorObject {
                ErrorObject { code: $code, message: e.message, data: e.data }
            }
        }
        impl TryFrom<ErrorObject> for $ty {
            type Error = ErrorObject;
            fn try_from(e: ErrorObject) -> Result<Self, ErrorObject> {
                if e.code == $code {
                    Ok($ty { message: e.message, data: e.data })
                } else {
                    Err(e)
                }
            }
        }
    };
    ($ty:ident, $code:expr, $data:ty) => {
        coded_error!(@common $ty, $code);
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                ErrorOut { code: $code, message: &self.message, data: Some(&self.data) }
                    .serialize(s)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let repr = ErrorIn::<$data>::deserialize(d)?;
                check_code::<D::Error>(repr.code, $code)?;
                let data =
                    repr.data.ok_or_else(|| <D::Error as serde::de::Error>::missing_field("data"))?;
                Ok($ty { message: repr.message, data })
            }
        }
        impl From<$ty> for ErrorObject {
            fn from(e: $ty) -> ErrorObject {
                ErrorObject::new($code, e.message).with_data(e.data)
            }
        }
        impl TryFrom<ErrorObject> for $ty {
            type Error = ErrorObject;
            fn try_from(e: ErrorObject) -> Result<Self, ErrorObject> {
                if e.code != $code {
                    return Err(e);
                }
                match e.data_as::<$data>() {
                    Ok(data) => Ok($ty { message: e.message, data }),
                    Err(_) => Err(e),
                }
            }
        }
    };
    (@common $ty:ident, $code:expr) => {
        impl $ty {
            /// The code this error always has.
            pub const CODE: ErrorCode = $code;
        }
    };
}

/// Implements serde and the `JSONRPCErrorResponse` conversions for an error response
/// struct `{ id: Option<RequestId>, error: E }`.
macro_rules! error_response {
    ($ty:ident, $error:ty) => {
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                ResponseOut {
                    jsonrpc: JsonRpcVersion,
                    id: self.id.as_ref(),
                    error: &self.error,
                }
                .serialize(s)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let repr = ResponseIn::<$error>::deserialize(d)?;
                Ok($ty {
                    id: repr.id,
                    error: repr.error,
                })
            }
        }
        impl $ty {
            /// A response to `id` (`None` when the request's id could not be read).
            pub fn new(id: Option<RequestId>, error: $error) -> Self {
                $ty { id, error }
            }
        }
        impl From<$ty> for JSONRPCErrorResponse {
            fn from(r: $ty) -> JSONRPCErrorResponse {
                JSONRPCErrorResponse {
                    jsonrpc: JsonRpcVersion,
                    id: r.id,
                    error: r.error.into(),
                }
            }
        }
        impl TryFrom<JSONRPCErrorResponse> for $ty {
            type Error = JSONRPCErrorResponse;
            fn try_from(r: JSONRPCErrorResponse) -> Result<Self, JSONRPCErrorResponse> {
                let JSONRPCErrorResponse { jsonrpc, id, error } = r;
                match <$error>::try_from(error) {
                    Ok(error) => Ok($ty { id, error }),
                    Err(error) => Err(JSONRPCErrorResponse { jsonrpc, id, error }),
                }
            }
        }
    };
}

/// -32700: the message was not valid JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// A short description.
    pub message: String,
    /// Extra detail of any shape.
    pub data: Option<JSONValue>,
}

coded_error!(ParseError, ErrorCode::PARSE_ERROR, optional);

/// -32600: the JSON was not a valid request.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidRequestError {
    /// A short description.
    pub message: String,
    /// Extra detail of any shape.
    pub data: Option<JSONValue>,
}

coded_error!(InvalidRequestError, ErrorCode::INVALID_REQUEST, optional);

/// -32601: the method does not exist or is not offered.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodNotFoundError {
    /// A short description.
    pub message: String,
    /// Extra detail of any shape.
    pub data: Option<JSONValue>,
}

coded_error!(MethodNotFoundError, ErrorCode::METHOD_NOT_FOUND, optional);

/// -32602: the params were wrong (unknown tool or prompt, bad cursor, bad arguments, …).
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidParamsError {
    /// A short description.
    pub message: String,
    /// Extra detail of any shape.
    pub data: Option<JSONValue>,
}

coded_error!(InvalidParamsError, ErrorCode::INVALID_PARAMS, optional);

/// -32603: the receiver failed internally.
#[derive(Debug, Clone, PartialEq)]
pub struct InternalError {
    /// A short description.
    pub message: String,
    /// Extra detail of any shape.
    pub data: Option<JSONValue>,
}

coded_error!(InternalError, ErrorCode::INTERNAL_ERROR, optional);

macro_rules! impl_new_optional {
    ($($ty:ident),*) => {$(
        impl $ty {
            /// An error with this message and no `data`.
            pub fn new(message: impl Into<String>) -> Self {
                $ty { message: message.into(), data: None }
            }
        }
    )*};
}

impl_new_optional!(
    ParseError,
    InvalidRequestError,
    MethodNotFoundError,
    InvalidParamsError,
    InternalError,
    HeaderMismatchErrorObject
);

/// The `error` member of a [`HeaderMismatchError`] (code -32020).
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderMismatchErrorObject {
    /// A short description, conventionally `"Header mismatch: …"`.
    pub message: String,
    /// Extra detail of any shape.
    pub data: Option<JSONValue>,
}

coded_error!(
    HeaderMismatchErrorObject,
    ErrorCode::HEADER_MISMATCH,
    optional
);

/// 2026, HTTP: an error response saying a request header is missing, malformed, or
/// disagrees with the body.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderMismatchError {
    /// The id of the request answered; `None` is written as `null`.
    pub id: Option<RequestId>,
    /// The error.
    pub error: HeaderMismatchErrorObject,
}

error_response!(HeaderMismatchError, HeaderMismatchErrorObject);

/// The `error` member of an [`UnsupportedProtocolVersionError`] (code -32022).
#[derive(Debug, Clone, PartialEq)]
pub struct UnsupportedProtocolVersionErrorObject {
    /// A short description.
    pub message: String,
    /// The versions the server supports and the one requested.
    pub data: UnsupportedProtocolVersionData,
}

coded_error!(
    UnsupportedProtocolVersionErrorObject,
    ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
    UnsupportedProtocolVersionData
);

/// 2026: an error response saying the request's protocol version is unknown or not
/// supported.
#[derive(Debug, Clone, PartialEq)]
pub struct UnsupportedProtocolVersionError {
    /// The id of the request answered; `None` is written as `null`.
    pub id: Option<RequestId>,
    /// The error.
    pub error: UnsupportedProtocolVersionErrorObject,
}

error_response!(
    UnsupportedProtocolVersionError,
    UnsupportedProtocolVersionErrorObject
);

/// The `error` member of a [`MissingRequiredClientCapabilityError`] (code -32021).
#[derive(Debug, Clone, PartialEq)]
pub struct MissingRequiredClientCapabilityErrorObject {
    /// A short description.
    pub message: String,
    /// The capabilities the request needs.
    pub data: MissingRequiredClientCapabilityData,
}

coded_error!(
    MissingRequiredClientCapabilityErrorObject,
    ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
    MissingRequiredClientCapabilityData
);

/// 2026: an error response saying the request needs a client capability the client did
/// not declare.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingRequiredClientCapabilityError {
    /// The id of the request answered; `None` is written as `null`.
    pub id: Option<RequestId>,
    /// The error.
    pub error: MissingRequiredClientCapabilityErrorObject,
}

error_response!(
    MissingRequiredClientCapabilityError,
    MissingRequiredClientCapabilityErrorObject
);

/// The `error` member of a [`URLElicitationRequiredError`] (code -32042).
#[derive(Debug, Clone, PartialEq)]
pub struct URLElicitationRequiredErrorObject {
    /// A short description.
    pub message: String,
    /// The URL elicitations to complete before retrying.
    pub data: UrlElicitationRequiredData,
}

coded_error!(
    URLElicitationRequiredErrorObject,
    ErrorCode::URL_ELICITATION_REQUIRED,
    UrlElicitationRequiredData
);

/// 2025-11-25: an error response saying the request can only go on once the user has
/// completed some URL-mode elicitations.
#[derive(Debug, Clone, PartialEq)]
pub struct URLElicitationRequiredError {
    /// The id of the request answered; `None` is written as `null`.
    pub id: Option<RequestId>,
    /// The error.
    pub error: URLElicitationRequiredErrorObject,
}

error_response!(
    URLElicitationRequiredError,
    URLElicitationRequiredErrorObject
);

macro_rules! impl_new_typed {
    ($($ty:ident: $data:ty),*) => {$(
        impl $ty {
            /// An error with this message and payload.
            pub fn new(message: impl Into<String>, data: $data) -> Self {
                $ty { message: message.into(), data }
            }
        }
    )*};
}

impl_new_typed!(
    UnsupportedProtocolVersionErrorObject: UnsupportedProtocolVersionData,
    MissingRequiredClientCapabilityErrorObject: MissingRequiredClientCapabilityData,
    URLElicitationRequiredErrorObject: UrlElicitationRequiredData
);

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    use super::*;
    use crate::types::ClientCapabilities;

    fn examples<T: Serialize + DeserializeOwned>(name: &str) -> usize {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../spec/2026-07-28/examples")
            .join(name);
        let mut n = 0;
        // Not every definition has examples (InvalidRequestError has none).
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return 0;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let t: T = serde_json::from_value(v.clone())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(serde_json::to_value(&t).unwrap(), v, "{}", path.display());
            n += 1;
        }
        n
    }

    #[test]
    fn official_examples_round_trip() {
        let n = examples::<ParseError>("ParseError")
            + examples::<InvalidRequestError>("InvalidRequestError")
            + examples::<MethodNotFoundError>("MethodNotFoundError")
            + examples::<InvalidParamsError>("InvalidParamsError")
            + examples::<InternalError>("InternalError")
            + examples::<HeaderMismatchError>("HeaderMismatchError")
            + examples::<UnsupportedProtocolVersionError>("UnsupportedProtocolVersionError")
            + examples::<MissingRequiredClientCapabilityError>(
                "MissingRequiredClientCapabilityError",
            );
        assert_eq!(n, 10);
    }

    #[test]
    fn codes_are_fixed() {
        assert!(
            serde_json::from_value::<ParseError>(json!({"code": -32600, "message": "m"})).is_err()
        );
        assert!(serde_json::from_value::<InternalError>(json!({"message": "m"})).is_err());
        let e = MethodNotFoundError::new("nope");
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"code": -32601, "message": "nope"})
        );
        assert!(
            serde_json::from_value::<HeaderMismatchError>(json!({
                "jsonrpc": "2.0", "id": 1, "error": {"code": -32021, "message": "m"}
            }))
            .is_err()
        );
        // A typed payload is required where the schema requires it.
        assert!(
            serde_json::from_value::<UnsupportedProtocolVersionError>(json!({
                "jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "m"}
            }))
            .is_err()
        );
    }

    #[test]
    fn responses_without_an_id_and_conversions() {
        let r: HeaderMismatchError = serde_json::from_value(json!({
            "jsonrpc": "2.0", "error": {"code": -32020, "message": "Header mismatch: x"}
        }))
        .unwrap();
        assert_eq!(r.id, None);
        assert_eq!(serde_json::to_value(&r).unwrap()["id"], Value::Null);

        let caps = ClientCapabilities {
            sampling: Some(Default::default()),
            ..Default::default()
        };
        let obj = ErrorObject::missing_required_client_capability(caps.clone());
        let typed = MissingRequiredClientCapabilityErrorObject::try_from(obj.clone()).unwrap();
        assert_eq!(typed.data.required_capabilities, caps);
        assert_eq!(ErrorObject::from(typed), obj);
        let not_it = ErrorObject::invalid_params("x");
        assert_eq!(
            MissingRequiredClientCapabilityErrorObject::try_from(not_it.clone()),
            Err(not_it)
        );

        let resp = UnsupportedProtocolVersionError::new(
            Some(RequestId::Number(4)),
            UnsupportedProtocolVersionErrorObject::new(
                "unsupported",
                UnsupportedProtocolVersionData {
                    supported: vec!["2026-07-28".into()],
                    requested: "x".into(),
                },
            ),
        );
        let untyped = JSONRPCErrorResponse::from(resp.clone());
        assert_eq!(untyped.error.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(
            serde_json::to_value(&untyped).unwrap(),
            serde_json::to_value(&resp).unwrap()
        );
        assert_eq!(
            UnsupportedProtocolVersionError::try_from(untyped).unwrap(),
            resp
        );
    }

    #[test]
    fn url_elicitation_required_round_trips() {
        let v = json!({
            "jsonrpc": "2.0", "id": "r1",
            "error": {
                "code": -32042, "message": "This request requires more information.",
                "data": {"elicitations": [{
                    "mode": "url", "elicitationId": "e1",
                    "url": "https://example.com/connect", "message": "Please authorize."
                }]}
            }
        });
        let r: URLElicitationRequiredError = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(r.error.data.elicitations.len(), 1);
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
    }
}
