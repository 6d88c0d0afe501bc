//! Building blocks shared by every area: JSON aliases, `_meta` objects, the common request,
//! notification and result shapes, the typed JSON-RPC messages, and implementation metadata.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ErrorObject;
use crate::jsonrpc::JsonRpcVersion;
use crate::types::{ClientCapabilities, LoggingLevel};
use crate::version::{Era, ProtocolVersion};

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

/// `_meta` key of the protocol version a 2026 request speaks.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities a 2026 request declares.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's self-description on a 2026 request.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the log level a 2026 request opts in to.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server's self-description on a 2026 result.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key naming the `subscriptions/listen` stream a notification belongs to.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key of a request's progress token.
pub const META_PROGRESS_TOKEN: &str = "progressToken";

/// Which side of a conversation a message or content is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// A `_meta` object with no reserved keys of its own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MetaObject(pub JSONObject);

impl MetaObject {
    /// The value at `key`, if any.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// Sets `key` to `value`, returning the previous value.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        self.0.insert(key.into(), value)
    }

    /// Whether the object has no keys.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The `_meta` of a request: the 2026 per-request envelope and the progress token.
///
/// In the legacy era all fields are optional; in the modern era `protocolVersion` and
/// `clientCapabilities` are required, which [`modern_envelope`](Self::modern_envelope)
/// checks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestMetaObject {
    /// Asks for `notifications/progress` about this request, tagged with this token.
    #[serde(
        rename = "progressToken",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub progress_token: Option<ProgressToken>,
    /// 2026: the protocol version of this request (kept as sent, so an unsupported one can be
    /// reported back).
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol_version: Option<String>,
    /// 2026: the client's capabilities for this request.
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_capabilities: Option<ClientCapabilities>,
    /// 2026: the client's self-description.
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Implementation>,
    /// 2026: the log level the client opts in to for this request; absent means no logs.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<LoggingLevel>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The validated 2026 envelope of one request.
#[derive(Debug, Clone, Copy)]
pub struct ModernEnvelope<'a> {
    /// The protocol version the request speaks, one the server supports.
    pub protocol_version: ProtocolVersion,
    /// The capabilities the client declared for this request.
    pub client_capabilities: &'a ClientCapabilities,
    /// The client's self-description, if sent.
    pub client_info: Option<&'a Implementation>,
    /// The log level the client opted in to, if any.
    pub log_level: Option<LoggingLevel>,
    /// The progress token, if any.
    pub progress_token: Option<&'a ProgressToken>,
}

impl RequestMetaObject {
    /// Validates the 2026 per-request envelope of a request whose `_meta` is `meta`, for a
    /// server that supports the modern versions in `supported`.
    ///
    /// # Errors
    ///
    /// - `_meta`, its protocol version or its client capabilities missing → -32602
    ///   (invalid params), naming what is missing;
    /// - a protocol version that is not a supported modern-era version → -32022 with
    ///   `data.supported` and `data.requested`.
    ///
    /// # Examples
    ///
    /// ```
    /// use mcp_core::types::RequestMetaObject;
    /// use mcp_core::ProtocolVersion;
    ///
    /// let meta: RequestMetaObject = serde_json::from_str(r#"{
    ///     "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}
    /// }"#).unwrap();
    /// let env = RequestMetaObject::modern_envelope(Some(&meta), &ProtocolVersion::MODERN).unwrap();
    /// assert!(env.client_capabilities.sampling.is_some());
    /// assert_eq!(
    ///     RequestMetaObject::modern_envelope(None, &ProtocolVersion::MODERN).unwrap_err().code.0,
    ///     -32602
    /// );
    /// ```
    pub fn modern_envelope<'a>(
        meta: Option<&'a RequestMetaObject>,
        supported: &[ProtocolVersion],
    ) -> std::result::Result<ModernEnvelope<'a>, ErrorObject> {
        let Some(meta) = meta else {
            return Err(missing_envelope(&["_meta"]));
        };
        let mut missing = Vec::new();
        if meta.protocol_version.is_none() {
            missing.push(META_PROTOCOL_VERSION);
        }
        if meta.client_capabilities.is_none() {
            missing.push(META_CLIENT_CAPABILITIES);
        }
        let (Some(requested), Some(client_capabilities)) =
            (&meta.protocol_version, &meta.client_capabilities)
        else {
            return Err(missing_envelope(&missing));
        };
        let protocol_version = match requested.parse::<ProtocolVersion>() {
            Ok(v) if v.era() == Era::Modern && supported.contains(&v) => v,
            _ => {
                let modern: Vec<ProtocolVersion> = supported
                    .iter()
                    .copied()
                    .filter(|v| v.era() == Era::Modern)
                    .collect();
                return Err(ErrorObject::unsupported_protocol_version(
                    requested, &modern,
                ));
            }
        };
        Ok(ModernEnvelope {
            protocol_version,
            client_capabilities,
            client_info: meta.client_info.as_ref(),
            log_level: meta.log_level,
            progress_token: meta.progress_token.as_ref(),
        })
    }
}

fn missing_envelope(missing: &[&str]) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "request is missing the required per-request envelope key(s): {}",
        missing.join(", ")
    ))
    .with_data(serde_json::json!({ "envelope": { "missing": missing } }))
}

/// The `_meta` of a result: the 2026 server self-description.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultMetaObject {
    /// 2026: the server's self-description.
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<Implementation>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The `_meta` of a notification: the 2026 subscription stream tag.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationMetaObject {
    /// 2026: the id of the `subscriptions/listen` request whose stream carries this
    /// notification.
    #[serde(
        rename = "io.modelcontextprotocol/subscriptionId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub subscription_id: Option<RequestId>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JSONObject,
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
    /// A value a later revision may define, kept as sent.
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
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
