//! What the engine hands back to a transport, and how results become JSON for an era.

use ferromcp_core::error::{ErrorCode, ErrorObject};
use ferromcp_core::jsonrpc::{RequestId, WireErrorResponse, WireResponse};
use ferromcp_core::{Era, ProtocolVersion};

use super::*;
use crate::meta::Modern;
pub(super) use crate::meta::WithMeta;

/// What the transport does with one request.
#[derive(Debug)]
pub(crate) enum Reply {
    /// Send this response.
    Response(Response),
    /// The request was cancelled: send nothing.
    Silent,
    /// `subscriptions/listen` was accepted: stream its notifications. Boxed: every reply
    /// is moved through several layers, and a listen is rare and large.
    Listen(Box<Listen>),
}

/// A serialized JSON-RPC response.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) json: String,
    /// How a modern-era HTTP response carries it (legacy-era JSON-RPC errors are always 200).
    pub(crate) status: Status,
    /// The JSON-RPC error code, for an error response.
    pub(crate) error: Option<ErrorCode>,
    /// A tool result with `isError: true`.
    pub(crate) tool_error: bool,
}

/// The HTTP status class of a modern-era response: the one place that maps JSON-RPC errors
/// to statuses (spec 2026-07-28, Streamable HTTP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Status {
    /// 200: a result, or an error about the method's own work (unknown tool, resource not
    /// found, invalid arguments).
    Ok,
    /// 400: the request itself is unusable — malformed, a bad per-request envelope, an
    /// unsupported protocol version, a header mismatch, a missing client capability.
    BadRequest,
    /// 404: the method does not exist in this era.
    NotFound,
    /// 403 in both eras: the authenticated caller lacks scopes the item needs (all of them
    /// listed), so that an HTTP client can step up.
    InsufficientScope(Arc<[String]>),
}

impl Status {
    pub(crate) fn of(code: ErrorCode) -> Status {
        match code {
            ErrorCode::METHOD_NOT_FOUND => Status::NotFound,
            ErrorCode::PARSE_ERROR
            | ErrorCode::INVALID_REQUEST
            | ErrorCode::HEADER_MISMATCH
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => Status::BadRequest,
            _ => Status::Ok,
        }
    }
}

impl Response {
    pub(crate) fn error(id: Option<&RequestId>, error: &ErrorObject) -> Response {
        let json = ferromcp_core::jsonrpc::to_string(&WireErrorResponse::new(id, error)).unwrap_or_else(|_| {
            // An error object always serializes; this is the shape it would have had.
            format!(
                r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":{},"message":"internal error"}}}}"#,
                ErrorCode::INTERNAL_ERROR.0
            )
        });
        Response {
            json,
            status: Status::of(error.code),
            error: Some(error.code),
            tool_error: false,
        }
    }

    pub(super) fn with_status(mut self, status: Status) -> Response {
        self.status = status;
        self
    }
}

/// The error for a request whose id is already in flight on its connection (ids must be
/// unique among a client's outstanding requests).
pub(crate) fn duplicate_id(id: &RequestId) -> ErrorObject {
    ErrorObject::invalid_request(format!("request id {id} is already in flight"))
}

impl Engine {
    /// Serializes a result for `version`: era fields set or stripped, 2026 `serverInfo`
    /// attached, and the response size capped.
    pub(super) fn respond<R: WithMeta>(
        &self,
        id: &RequestId,
        version: ProtocolVersion,
        mut result: R,
    ) -> Response {
        result.prepare_for(version);
        let mut response = if version.era() == Era::Modern {
            // The handler's own `_meta` members stay; `serverInfo` is the server's to say,
            // written from the text made once rather than cloned and serialized each time.
            let own = result.meta_mut().take();
            self.respond_raw(id, &Modern::new(self.server_info(), own.as_ref(), &result))
        } else {
            self.respond_raw(id, &result)
        };
        response.tool_error = response.error.is_none() && result.is_tool_error();
        response
    }

    pub(super) fn respond_raw<R: serde::Serialize + ?Sized>(
        &self,
        id: &RequestId,
        result: &R,
    ) -> Response {
        match ferromcp_core::jsonrpc::to_string(&WireResponse::new(id, result)) {
            Ok(json) if json.len() <= self.config().max_response_size => Response {
                json,
                status: Status::Ok,
                error: None,
                tool_error: false,
            },
            Ok(json) => {
                tracing::warn!(size = json.len(), "response too large");
                Response::error(Some(id), &ErrorObject::internal_error("response too large"))
            }
            Err(e) => Response::error(
                Some(id),
                &ErrorObject::internal_error(format!("result does not serialize: {e}")),
            ),
        }
    }
}
