//! Building blocks shared by every area: JSON aliases, the common request, notification and
//! result shapes, the typed JSON-RPC messages, and implementation metadata. The `_meta`
//! objects are in `meta`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::jsonrpc::JsonRpcVersion;
use crate::rpc_error::ErrorObject;
use crate::types::{NotificationMetaObject, RequestMetaObject, ResultMetaObject};

pub use crate::jsonrpc::RequestId;

/// Any JSON value.
pub type JSONValue = Value;
/// A JSON object.
pub type JSONObject = Map<String, Value>;
/// A JSON array.
pub type JSONArray = Vec<Value>;
/// An opaque pagination position.
pub type Cursor = String;
/// A token that ties progress notifications to the request that asked for them; a string or
/// an integer, like a request id.
pub type ProgressToken = RequestId;
/// The `error` member of a JSON-RPC error response.
pub type Error = ErrorObject;
/// A result with no fields of its own (the answer to `ping`, `logging/setLevel`, …).
pub type EmptyResult = Result;

/// Which side of a conversation a message or content is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// Params of a request that has none of its own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// Request metadata (required in 2026).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// Params of a notification that has none of its own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// Params of a list request: an optional cursor.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// Request metadata (required in 2026).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// Where to continue; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// A list request of any method (the schema's base of all list requests).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequest {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The request id.
    pub id: RequestId,
    /// The list method.
    pub method: String,
    /// The cursor and metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<PaginatedRequestParams>,
}

/// The common shape of a list result: a next-page cursor.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaginatedResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// 2026: always set on the wire; see [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The fields every result has; with no others, the answer to requests that return nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Result {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// 2026: always set on the wire; see [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(Result);
wire_result!(PaginatedResult);

/// The 2026 fields of a result that clients may cache.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheableResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// 2026: always set on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// 2026: how long, in milliseconds, the client may cache the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// 2026: who may share the cached result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(CacheableResult, cacheable);

/// How a client must read a 2026 result.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ResultType {
    /// `"complete"`: the final result.
    Complete,
    /// `"input_required"`: an [`InputRequiredResult`](crate::types::InputRequiredResult); the
    /// client answers its input requests and calls again.
    InputRequired,
    /// `"task"` (the 2026 tasks extension, `io.modelcontextprotocol/tasks`): the request
    /// runs as a task, whose state the result carries; the client polls `tasks/get`.
    Task,
    /// A value a later revision may define, kept as sent.
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
            ResultType::Other(s) => s,
        }
    }
}

impl Serialize for ResultType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            "task" => ResultType::Task,
            _ => ResultType::Other(s),
        })
    }
}

/// Who may reuse a cached 2026 result, like HTTP `Cache-Control: public/private`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Only within the same authorization context.
    Private,
    /// Any client or intermediary, across authorization contexts.
    Public,
}

/// Caching hints for a cacheable 2026 result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// Milliseconds the client may treat the result as fresh; 0 means stale at once.
    pub ttl_ms: u64,
    /// Who may share the cache entry.
    pub cache_scope: CacheScope,
}

impl Default for CacheHints {
    /// Immediately stale and private: always correct, whatever the server's data.
    fn default() -> Self {
        CacheHints {
            ttl_ms: 0,
            cache_scope: CacheScope::Private,
        }
    }
}

/// A request of any method, params untyped (the schema's `Request`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The method name.
    pub method: String,
    /// The params object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<JSONObject>,
}

/// A notification of any method, params untyped (the schema's `Notification`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// The method name.
    pub method: String,
    /// The params object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<JSONObject>,
}

/// A JSON-RPC request, params untyped. For the fast path see [`crate::jsonrpc::parse`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JSONRPCRequest {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The request id.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The params object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<JSONObject>,
}

/// A JSON-RPC notification, params untyped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JSONRPCNotification {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The method name.
    pub method: String,
    /// The params object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<JSONObject>,
}

/// A successful JSON-RPC response, result untyped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JSONRPCResultResponse {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request answered.
    pub id: RequestId,
    /// The result.
    pub result: Result,
}

/// A JSON-RPC error response; `id` is absent or `null` when the request's id was unreadable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JSONRPCErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request answered.
    #[serde(default)]
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

/// The 2025-03-26 and 2025-06-18 name of [`JSONRPCErrorResponse`].
pub type JSONRPCError = JSONRPCErrorResponse;

/// A JSON-RPC response: a result or an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JSONRPCResponse {
    /// A result.
    Result(JSONRPCResultResponse),
    /// An error.
    Error(JSONRPCErrorResponse),
}

/// Any JSON-RPC message, untyped. The strict, one-pass parser for incoming bytes is
/// [`crate::jsonrpc::parse`]; this type is for building and inspecting messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JSONRPCMessage {
    /// A request.
    Request(JSONRPCRequest),
    /// A notification.
    Notification(JSONRPCNotification),
    /// A successful response.
    Result(JSONRPCResultResponse),
    /// An error response.
    Error(JSONRPCErrorResponse),
}

/// 2025-03-26: several requests and notifications sent as one array.
pub type JSONRPCBatchRequest = Vec<JSONRPCMessage>;
/// 2025-03-26: the responses to a batch, as one array.
pub type JSONRPCBatchResponse = Vec<JSONRPCResponse>;

/// An icon a client may show for a server, tool, resource or prompt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI of the image.
    pub src: String,
    /// The image's MIME type, when the URI does not tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes the image suits, as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The background the icon is drawn for: `"light"` or `"dark"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The `icons` member shared by servers, tools, resources and prompts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Icons {
    /// The icons, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
}

/// The `name` and `title` pair shared by named things.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BaseMetadata {
    /// The programmatic identifier.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// Names a client or server implementation (`clientInfo`, `serverInfo`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// The programmatic name.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The version string.
    pub version: String,
    /// What the implementation does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons to show for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Its home page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl Implementation {
    /// An implementation with just a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            ..Default::default()
        }
    }
}
