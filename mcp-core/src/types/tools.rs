//! Tools: listing them, calling them, and their results.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::types::content::present_value;
use crate::types::{
    CacheHints, CacheScope, Cacheable, ContentBlock, Cursor, Icon, InputResponses, JSONObject,
    MetaObject, MrtrResult, NotificationParams, PaginatedRequestParams, RequestId,
    RequestMetaObject, ResultMetaObject, ResultType, TaskMetadata, WireResult,
};
use crate::{Era, ProtocolVersion};

/// A tool the server offers: its name, what it does and the JSON Schema of its arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The programmatic name, used in `tools/call`.
    pub name: String,
    /// 2025-06-18+: a display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; its `type` is `"object"`.
    pub input_schema: JSONObject,
    /// 2025-06-18+: JSON Schema of `structuredContent` in the results. Its `type` must be
    /// `"object"` in 2025-06-18 and 2025-11-25; any schema in 2026 (see
    /// [`prepare_for`](Self::prepare_for)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JSONObject>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// 2025-11-25: how the tool runs as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// 2025-11-25+: icons to show for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl Tool {
    /// A tool named `name` whose arguments follow `input_schema` (a JSON Schema object).
    pub fn new(name: impl Into<String>, input_schema: JSONObject) -> Self {
        Tool {
            name: name.into(),
            input_schema,
            ..Default::default()
        }
    }

    /// Adapts the tool to a revision, removing what that revision's schema forbids: in
    /// 2025-06-18 and 2025-11-25 an `outputSchema` whose `type` is not `"object"` (those
    /// revisions allow only object output; the tool's results then carry no
    /// `structuredContent` either, see [`CallToolResult`]'s `prepare_for`). For 2025-03-26
    /// and later, fields a revision does not know (`title`, `icons`, `execution`,
    /// `outputSchema` in 2025-03-26) are harmless extra members and stay; for 2024-11-05
    /// (see [`ProtocolVersion::omits_later_members`]) only `name`, `description` and
    /// `inputSchema` stay (and unknown members).
    pub fn prepare_for(&mut self, version: ProtocolVersion) {
        self.omit_later_members(version);
        if version.has_structured_content() && !version.structured_content_any_value() {
            let object_schema = self
                .output_schema
                .as_ref()
                .is_none_or(|s| s.get("type").and_then(Value::as_str) == Some("object"));
            if !object_schema {
                self.output_schema = None;
            }
        }
    }
}

/// Hints about a tool's behaviour. Untrusted unless the server is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool changes nothing (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// A change it makes may destroy data (default true; meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it again with the same arguments changes nothing more (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// It reaches outside entities such as the web (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: how a tool runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// Whether the tool may or must be called as a task (default forbidden).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<ToolTaskSupport>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: the values of [`ToolExecution::task_support`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolTaskSupport {
    /// The tool cannot run as a task.
    Forbidden,
    /// The tool may run as a task or not.
    Optional,
    /// The tool must run as a task.
    Required,
}

/// `tools/list`: asks for the server's tools.
#[derive(Debug, Clone, PartialEq)]
pub struct ListToolsRequest {
    /// The request id.
    pub id: RequestId,
    /// Cursor and metadata (required in 2026).
    pub params: Option<PaginatedRequestParams>,
}

request!(ListToolsRequest, "tools/list", optional PaginatedRequestParams => ListToolsResult);

/// The answer to `tools/list`: one page of tools. Cacheable in 2026.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// The tools on this page.
    pub tools: Vec<Tool>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// 2026: always set on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// 2026: how long, in milliseconds, the client may cache the list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// 2026: who may share the cached list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ListToolsResult {
    /// A single page holding `tools`.
    pub fn new(tools: Vec<Tool>) -> Self {
        ListToolsResult {
            tools,
            ..Default::default()
        }
    }
}

impl WireResult for ListToolsResult {
    /// As for every cacheable result (`resultType`, `ttlMs`, `cacheScope`), and each tool
    /// through [`Tool::prepare_for`].
    fn prepare_for(&mut self, version: ProtocolVersion) {
        match version.era() {
            Era::Modern => {
                self.result_type.get_or_insert(ResultType::Complete);
                let hints = CacheHints::default();
                self.ttl_ms.get_or_insert(hints.ttl_ms);
                self.cache_scope.get_or_insert(hints.cache_scope);
            }
            Era::Legacy => {
                self.result_type = None;
                self.ttl_ms = None;
                self.cache_scope = None;
            }
        }
        for tool in &mut self.tools {
            tool.prepare_for(version);
        }
    }
}

impl Cacheable for ListToolsResult {
    fn set_cache_hints(&mut self, hints: CacheHints) {
        self.ttl_ms = Some(hints.ttl_ms);
        self.cache_scope = Some(hints.cache_scope);
    }
}

/// 2026: the JSON-RPC response carrying a [`ListToolsResult`].
#[derive(Debug, Clone, PartialEq)]
pub struct ListToolsResultResponse {
    /// The id of the request answered.
    pub id: RequestId,
    /// The result.
    pub result: ListToolsResult,
}

result_response!(ListToolsResultResponse, ListToolsResult);

/// `tools/call`: runs a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct CallToolRequest {
    /// The request id.
    pub id: RequestId,
    /// Which tool, with which arguments.
    pub params: CallToolRequestParams,
}

request!(CallToolRequest, "tools/call", CallToolRequestParams => CallToolResult);

/// The params of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// The tool's name.
    pub name: String,
    /// The arguments, matching the tool's input schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JSONObject>,
    /// 2025-11-25: run the call as a task with these settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// 2026: the client's answers to the input requests of an earlier
    /// [`InputRequiredResult`](crate::types::InputRequiredResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// 2026: the opaque state the server returned with its input requests, sent back as is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata (required in 2026).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl CallToolRequestParams {
    /// A call of tool `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        CallToolRequestParams {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Sets the arguments.
    pub fn with_arguments(mut self, arguments: JSONObject) -> Self {
        self.arguments = Some(arguments);
        self
    }
}

/// The answer to `tools/call`. A tool's own failure is a result with `isError: true`, not
/// a JSON-RPC error, so the model can see it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// 2026: always set on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The result as content blocks (in 2025-03-26 without resource links).
    pub content: Vec<ContentBlock>,
    /// 2025-06-18+: the result as data matching the tool's output schema; an object before
    /// 2026, any JSON value (even `null`) in 2026.
    #[serde(
        default,
        deserialize_with = "present_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool failed (absent means false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl CallToolResult {
    /// A successful result made of these content blocks.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }

    /// A successful result holding one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult::new(vec![ContentBlock::text(text)])
    }

    /// A failed result (`isError: true`) whose text tells the model what went wrong.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            is_error: Some(true),
            ..CallToolResult::text(message)
        }
    }

    /// A successful result with `value` as `structuredContent` and, for clients that only
    /// read content blocks, the same JSON serialized in a text block.
    pub fn structured(value: Value) -> Self {
        CallToolResult {
            structured_content: Some(value.clone()),
            ..CallToolResult::text(value.to_string())
        }
    }

    /// Whether the result reports a failure.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

impl WireResult for CallToolResult {
    /// Sets (modern era) or removes (legacy) `resultType`, and removes a
    /// `structuredContent` the revision cannot carry: all of it in 2025-03-26, a non-object
    /// value in 2025-06-18 and 2025-11-25. If that leaves no content at all, the value
    /// becomes a text block of its JSON so it is not lost. Content blocks are adapted with
    /// [`ContentBlock::prepare_for`].
    fn prepare_for(&mut self, version: ProtocolVersion) {
        self.result_type = match version.era() {
            Era::Modern => Some(self.result_type.take().unwrap_or(ResultType::Complete)),
            Era::Legacy => None,
        };
        let allowed = match &self.structured_content {
            None => true,
            Some(_) if !version.has_structured_content() => false,
            Some(Value::Object(_)) => true,
            Some(_) => version.structured_content_any_value(),
        };
        if !allowed
            && let Some(value) = self.structured_content.take()
            && self.content.is_empty()
        {
            self.content.push(ContentBlock::text(value.to_string()));
        }
        for block in &mut self.content {
            block.prepare_for(version);
        }
    }
}

/// 2026: the JSON-RPC response to `tools/call`: the result, or a request for more input.
#[derive(Debug, Clone, PartialEq)]
pub struct CallToolResultResponse {
    /// The id of the request answered.
    pub id: RequestId,
    /// The result or the input request.
    pub result: MrtrResult<CallToolResult>,
}

result_response!(CallToolResultResponse, MrtrResult<CallToolResult>);

/// `notifications/tools/list_changed`: the server's list of tools changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolListChangedNotification {
    /// Metadata (in 2026 the subscription the notification belongs to).
    pub params: Option<NotificationParams>,
}

notification!(ToolListChangedNotification, "notifications/tools/list_changed", optional NotificationParams);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{McpRequest, TextContent};
    use serde::de::DeserializeOwned;
    use serde_json::json;

    fn round_trip<T: Serialize + DeserializeOwned>(v: Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
        t
    }

    fn obj(v: Value) -> JSONObject {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    #[test]
    fn legacy_call_round_trips() {
        let req: CallToolRequest = round_trip(json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"progressToken": "t"}}
        }));
        assert_eq!(req.params.name, "add");
        assert_eq!(CallToolRequest::METHOD, "tools/call");
        let res: CallToolResult = round_trip(json!({
            "content": [{"type": "text", "text": "3"}, {"type": "image", "data": "AA", "mimeType": "image/png"}],
            "isError": false
        }));
        assert_eq!(res.content[0].as_text(), Some("3"));
    }

    #[test]
    fn modern_samples_round_trip() {
        let res: CallToolResult = round_trip(json!({
            "resultType": "complete",
            "content": [{"type": "text", "text": "Found 2 users"}],
            "structuredContent": [{"id": "1"}, {"id": "2"}]
        }));
        assert_eq!(res.result_type, Some(ResultType::Complete));
        round_trip::<Tool>(json!({
            "name": "list_users", "title": "User List",
            "inputSchema": {"type": "object", "properties": {}},
            "outputSchema": {"type": "array", "items": {"type": "object"}}
        }));
        round_trip::<ListToolsResult>(json!({
            "resultType": "complete",
            "tools": [{"name": "w", "inputSchema": {"type": "object"},
                       "icons": [{"src": "https://e.com/i.png", "sizes": ["48x48"]}]}],
            "nextCursor": "c", "ttlMs": 300000, "cacheScope": "public"
        }));
        round_trip::<ListToolsRequest>(json!({
            "jsonrpc": "2.0", "id": "l", "method": "tools/list",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
        }));
        round_trip::<ListToolsRequest>(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        round_trip::<ToolListChangedNotification>(json!({
            "jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}}
        }));
        round_trip::<CallToolRequestParams>(json!({
            "name": "get_weather", "arguments": {"location": "NY"}, "requestState": "s1",
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
        }));
    }

    #[test]
    fn call_tool_result_response_round_trips() {
        let resp: CallToolResultResponse = round_trip(json!({
            "jsonrpc": "2.0", "id": "c",
            "result": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}], "isError": false}
        }));
        assert!(matches!(resp.result, MrtrResult::Complete(_)));
    }

    #[test]
    fn wrong_method_is_rejected() {
        let r = serde_json::from_value::<CallToolRequest>(json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"name": "x"}
        }));
        assert!(r.is_err());
    }

    #[test]
    fn constructors() {
        assert_eq!(
            serde_json::to_value(CallToolResult::error("boom")).unwrap(),
            json!({"content": [{"type": "text", "text": "boom"}], "isError": true})
        );
        assert!(CallToolResult::error("boom").is_error());
        let s = CallToolResult::structured(json!({"t": 22.5}));
        assert_eq!(s.structured_content, Some(json!({"t": 22.5})));
        assert_eq!(
            s.content,
            vec![ContentBlock::Text(TextContent::new(r#"{"t":22.5}"#))]
        );
    }

    #[test]
    fn call_tool_result_per_era() {
        let base = CallToolResult::structured(json!([1, 2]));

        let mut modern = base.clone();
        modern.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(
            serde_json::to_value(&modern).unwrap(),
            json!({"resultType": "complete", "content": [{"type": "text", "text": "[1,2]"}],
                   "structuredContent": [1, 2]})
        );

        for v in [ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25] {
            let mut r = modern.clone();
            r.prepare_for(v);
            assert_eq!(
                serde_json::to_value(&r).unwrap(),
                json!({"content": [{"type": "text", "text": "[1,2]"}]}),
                "{v}"
            );
            let mut o = CallToolResult::structured(json!({"a": 1}));
            o.prepare_for(v);
            assert_eq!(o.structured_content, Some(json!({"a": 1})));
        }

        let mut old = CallToolResult::structured(json!({"a": 1}));
        old.prepare_for(ProtocolVersion::V2025_03_26);
        assert_eq!(
            serde_json::to_value(&old).unwrap(),
            json!({"content": [{"type": "text", "text": "{\"a\":1}"}]})
        );

        // A structured value with no content is not lost when the revision cannot carry it.
        let mut bare = CallToolResult {
            structured_content: Some(json!("x")),
            ..Default::default()
        };
        bare.prepare_for(ProtocolVersion::V2025_06_18);
        assert_eq!(bare.content, vec![ContentBlock::text("\"x\"")]);

        // 2025-03-26 has no resource links.
        let mut link = CallToolResult::new(vec![ContentBlock::resource_link("file:///a", "a")]);
        link.prepare_for(ProtocolVersion::V2025_03_26);
        assert_eq!(link.content, vec![ContentBlock::text("a: file:///a")]);
    }

    #[test]
    fn tool_output_schema_per_revision() {
        let array = Tool {
            output_schema: Some(obj(json!({"type": "array"}))),
            ..Tool::new("t", obj(json!({"type": "object"})))
        };
        let object = Tool {
            output_schema: Some(obj(json!({"type": "object"}))),
            ..array.clone()
        };
        for v in ProtocolVersion::ALL {
            let mut a = array.clone();
            a.prepare_for(v);
            // 2024-11-05 has no outputSchema at all; 2025-03-26 keeps it as an extra.
            let stripped = matches!(
                v,
                ProtocolVersion::V2024_11_05
                    | ProtocolVersion::V2025_06_18
                    | ProtocolVersion::V2025_11_25
            );
            assert_eq!(a.output_schema.is_none(), stripped, "{v}");
            let mut o = object.clone();
            o.prepare_for(v);
            assert_eq!(o.output_schema.is_none(), v.omits_later_members(), "{v}");
        }
    }

    #[test]
    fn list_tools_result_per_era() {
        let mut r = ListToolsResult::new(vec![Tool {
            output_schema: Some(obj(json!({"type": "string"}))),
            ..Tool::new("t", obj(json!({"type": "object"})))
        }]);
        let mut modern = r.clone();
        modern.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(modern.ttl_ms, Some(0));
        assert_eq!(modern.cache_scope, Some(CacheScope::Private));
        assert_eq!(modern.result_type, Some(ResultType::Complete));
        assert!(modern.tools[0].output_schema.is_some());
        modern.set_cache_hints(CacheHints {
            ttl_ms: 5,
            cache_scope: CacheScope::Public,
        });
        assert_eq!(modern.ttl_ms, Some(5));

        modern.prepare_for(ProtocolVersion::V2025_11_25);
        r.prepare_for(ProtocolVersion::V2025_11_25);
        assert_eq!(modern, r);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
        );
    }
}
