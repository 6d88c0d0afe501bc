//! Writing the envelope: borrowed views that serialize an outgoing message directly.

use serde::Serialize;

use super::{JsonRpcVersion, RequestId};
use crate::rpc_error::ErrorObject;

/// Serializes an outgoing request without building a `Value` tree.
///
/// # Examples
///
/// ```
/// use ferromcp_core::jsonrpc::{RequestId, WireRequest};
///
/// let req = WireRequest::new(RequestId::Number(1), "ping", None::<&()>);
/// assert_eq!(serde_json::to_string(&req).unwrap(), r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct WireRequest<'a, P: ?Sized> {
    jsonrpc: JsonRpcVersion,
    /// The request id.
    pub id: RequestId,
    /// The method name.
    pub method: &'a str,
    /// The params, omitted when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<&'a P>,
}

impl<'a, P: ?Sized> WireRequest<'a, P> {
    /// A request with the given id, method and params.
    pub fn new(id: RequestId, method: &'a str, params: Option<&'a P>) -> Self {
        WireRequest {
            jsonrpc: JsonRpcVersion,
            id,
            method,
            params,
        }
    }
}

/// Serializes an outgoing notification.
///
/// # Examples
///
/// ```
/// use ferromcp_core::jsonrpc::WireNotification;
///
/// let n = WireNotification::new("notifications/tools/list_changed", None::<&()>);
/// assert_eq!(
///     serde_json::to_string(&n).unwrap(),
///     r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
/// );
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct WireNotification<'a, P: ?Sized> {
    jsonrpc: JsonRpcVersion,
    /// The method name.
    pub method: &'a str,
    /// The params, omitted when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<&'a P>,
}

impl<'a, P: ?Sized> WireNotification<'a, P> {
    /// A notification with the given method and params.
    pub fn new(method: &'a str, params: Option<&'a P>) -> Self {
        WireNotification {
            jsonrpc: JsonRpcVersion,
            method,
            params,
        }
    }
}

/// Serializes an outgoing successful response.
///
/// # Examples
///
/// ```
/// use ferromcp_core::jsonrpc::{RequestId, WireResponse};
///
/// let (id, result) = (RequestId::from("a"), serde_json::json!({}));
/// let r = WireResponse::new(&id, &result);
/// assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct WireResponse<'a, R: ?Sized> {
    jsonrpc: JsonRpcVersion,
    /// The id of the request answered.
    pub id: &'a RequestId,
    /// The result.
    pub result: &'a R,
}

impl<'a, R: ?Sized> WireResponse<'a, R> {
    /// A response to `id` carrying `result`.
    pub fn new(id: &'a RequestId, result: &'a R) -> Self {
        WireResponse {
            jsonrpc: JsonRpcVersion,
            id,
            result,
        }
    }
}

/// Serializes an outgoing error response. `id` is `null` when the request's id is unknown.
///
/// # Examples
///
/// ```
/// use ferromcp_core::error::{ErrorCode, ErrorObject};
/// use ferromcp_core::jsonrpc::WireErrorResponse;
///
/// let e = ErrorObject::new(ErrorCode::PARSE_ERROR, "parse error");
/// assert_eq!(
///     serde_json::to_string(&WireErrorResponse::new(None, &e)).unwrap(),
///     r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#
/// );
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct WireErrorResponse<'a> {
    jsonrpc: JsonRpcVersion,
    /// The id of the request answered, or `null`.
    pub id: Option<&'a RequestId>,
    /// The error.
    pub error: &'a ErrorObject,
}

impl<'a> WireErrorResponse<'a> {
    /// An error response to `id` (or to an unknown id).
    pub fn new(id: Option<&'a RequestId>, error: &'a ErrorObject) -> Self {
        WireErrorResponse {
            jsonrpc: JsonRpcVersion,
            id,
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outgoing_messages_serialize_compactly() {
        let params = serde_json::json!({"progressToken": "t", "progress": 1});
        let n = WireNotification::new("notifications/progress", Some(&params));
        assert_eq!(
            serde_json::to_string(&n).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"t"}}"#
        );
    }
}
