//! What the engine hands back to a transport, and how results become JSON for an era.

use mcp_core::error::{ErrorCode, ErrorObject};
use mcp_core::jsonrpc::{RequestId, WireErrorResponse, WireResponse};
use mcp_core::types::{META_SERVER_INFO, ResultMetaObject};
use mcp_core::{Era, ProtocolVersion};
use serde_json::value::RawValue;

use super::*;
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
        let json = mcp_core::jsonrpc::to_string(&WireErrorResponse::new(id, error)).unwrap_or_else(|_| {
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

/// A 2026 result as sent: its `_meta` (taken out of `result`, whose own `_meta` is then
/// absent) written first, then the result's members.
#[derive(serde::Serialize)]
struct Modern<'a, R> {
    #[serde(rename = "_meta")]
    meta: ModernMeta<'a>,
    #[serde(flatten)]
    result: &'a R,
}

/// The `_meta` of a 2026 result: the server's self-description, then the handler's own
/// members.
struct ModernMeta<'a> {
    server_info: &'a RawValue,
    own: Option<&'a ResultMetaObject>,
}

impl serde::Serialize for ModernMeta<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let extra = self.own.map(|m| &m.extra);
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry(META_SERVER_INFO, self.server_info)?;
        // A `serverInfo` a handler put among the other members is not written twice.
        for (key, value) in extra.into_iter().flatten() {
            if key != META_SERVER_INFO {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// The error for a request whose id is already in flight on its connection (ids must be
/// unique among a client's outstanding requests).
pub(crate) fn duplicate_id(id: &RequestId) -> ErrorObject {
    ErrorObject::invalid_request(format!("request id {id} is already in flight"))
}

impl Engine {
    pub(super) fn result_meta(&self) -> ResultMetaObject {
        ResultMetaObject {
            server_info: Some(self.config().info.clone()),
            ..Default::default()
        }
    }

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
            self.respond_raw(
                id,
                &Modern {
                    meta: ModernMeta {
                        server_info: self.server_info(),
                        own: own.as_ref(),
                    },
                    result: &result,
                },
            )
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
        match mcp_core::jsonrpc::to_string(&WireResponse::new(id, result)) {
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

#[cfg(test)]
mod tests {
    use mcp_core::types::{
        CallToolResult, CompleteResult, DiscoverResult, EmptyResult, GetPromptResult,
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListTasksResult,
        ListToolsResult, META_SERVER_INFO, ReadResourceResult, ResultMetaObject,
    };
    use serde_json::json;
    use serde_json::value::RawValue;

    use super::{Modern, ModernMeta, WithMeta};

    /// `result` as a 2026 response writes it, its own `_meta` taken out first.
    fn written<R: WithMeta>(mut result: R) -> String {
        let info = RawValue::from_string(r#"{"name":"s","version":"1"}"#.to_owned()).unwrap();
        let own = result.meta_mut().take();
        mcp_core::jsonrpc::to_string(&Modern {
            meta: ModernMeta {
                server_info: &info,
                own: own.as_ref(),
            },
            result: &result,
        })
        .unwrap()
    }

    #[test]
    fn a_modern_result_has_one_meta_with_the_server_info_and_the_handlers_members() {
        let mut meta = ResultMetaObject::default();
        meta.extra
            .insert("example.com/trace".to_owned(), json!("abc"));
        // A `serverInfo` of the handler's own is not the server's: not written, not twice.
        meta.extra
            .insert(META_SERVER_INFO.to_owned(), json!({"name": "forged"}));
        let mut result = CallToolResult::text("ok");
        result.meta = Some(meta);
        let text = written(result);
        assert_eq!(text.matches("\"_meta\"").count(), 1, "{text}");
        assert_eq!(text.matches(META_SERVER_INFO).count(), 1, "{text}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            json!({
                "_meta": {
                    META_SERVER_INFO: {"name": "s", "version": "1"},
                    "example.com/trace": "abc"
                },
                "content": [{"type": "text", "text": "ok"}]
            })
        );
    }

    #[test]
    fn every_result_without_a_meta_of_its_own_gets_exactly_one() {
        for text in [
            written(CallToolResult::default()),
            written(ReadResourceResult::default()),
            written(GetPromptResult::default()),
            written(CompleteResult::default()),
            written(DiscoverResult::default()),
            written(EmptyResult::default()),
            written(ListToolsResult::default()),
            written(ListResourcesResult::default()),
            written(ListResourceTemplatesResult::default()),
            written(ListPromptsResult::default()),
            written(ListTasksResult::default()),
        ] {
            assert_eq!(text.matches("\"_meta\"").count(), 1, "{text}");
            assert!(
                text.starts_with(
                    r#"{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}"#
                ),
                "{text}"
            );
        }
    }
}
