//! Prompts: templates of messages the server offers, listed and fetched by name.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::types::content::type_tag;
use crate::types::{
    CacheScope, ContentBlock, Cursor, Icon, InputResponses, JSONObject, MetaObject, MrtrResult,
    NotificationParams, PaginatedRequestParams, RequestId, RequestMetaObject, ResultMetaObject,
    ResultType, Role, WireResult,
};
use crate::{Era, ProtocolVersion};

/// The `"type": "ref/prompt"` of a [`PromptReference`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PromptRefTag;
type_tag!(PromptRefTag = "ref/prompt");

/// A prompt the server offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    /// The programmatic name, used in `prompts/get`.
    pub name: String,
    /// 2025-06-18+: a display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
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

impl Prompt {
    /// A prompt named `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt {
            name: name.into(),
            ..Default::default()
        }
    }
}

/// One argument a prompt takes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// The argument's name.
    pub name: String,
    /// 2025-06-18+: a display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the argument means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the argument must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl PromptArgument {
    /// An argument named `name`, optional unless `required`.
    pub fn new(name: impl Into<String>, required: bool) -> Self {
        PromptArgument {
            name: name.into(),
            required: Some(required),
            ..Default::default()
        }
    }
}

/// One message of a prompt: who says it and what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who the message is from.
    pub role: Role,
    /// The content (in 2025-03-26 without resource links).
    pub content: ContentBlock,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl PromptMessage {
    /// A message from `role`.
    pub fn new(role: Role, content: impl Into<ContentBlock>) -> Self {
        PromptMessage {
            role,
            content: content.into(),
            extra: JSONObject::new(),
        }
    }

    /// A message from the user.
    pub fn user(content: impl Into<ContentBlock>) -> Self {
        PromptMessage::new(Role::User, content)
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<ContentBlock>) -> Self {
        PromptMessage::new(Role::Assistant, content)
    }
}

/// Names a prompt, as the subject of a completion request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptReference {
    /// Always `"ref/prompt"`.
    #[serde(rename = "type")]
    pub r#type: PromptRefTag,
    /// The prompt's name.
    pub name: String,
    /// 2025-06-18+: a display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl PromptReference {
    /// A reference to the prompt named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        PromptReference {
            name: name.into(),
            ..Default::default()
        }
    }
}

/// `prompts/list`: asks for the server's prompts.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPromptsRequest {
    /// The request id.
    pub id: RequestId,
    /// Cursor and metadata (required in 2026).
    pub params: Option<PaginatedRequestParams>,
}

request!(ListPromptsRequest, "prompts/list", optional PaginatedRequestParams => ListPromptsResult);

/// The answer to `prompts/list`: one page of prompts. Cacheable in 2026.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// The prompts on this page.
    pub prompts: Vec<Prompt>,
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

impl ListPromptsResult {
    /// A single page holding `prompts`.
    pub fn new(prompts: Vec<Prompt>) -> Self {
        ListPromptsResult {
            prompts,
            ..Default::default()
        }
    }
}

wire_result!(ListPromptsResult, cacheable, each prompts);

/// 2026: the JSON-RPC response carrying a [`ListPromptsResult`].
#[derive(Debug, Clone, PartialEq)]
pub struct ListPromptsResultResponse {
    /// The id of the request answered.
    pub id: RequestId,
    /// The result.
    pub result: ListPromptsResult,
}

result_response!(ListPromptsResultResponse, ListPromptsResult);

/// `prompts/get`: fetches a prompt filled in with arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct GetPromptRequest {
    /// The request id.
    pub id: RequestId,
    /// Which prompt, with which arguments.
    pub params: GetPromptRequestParams,
}

request!(GetPromptRequest, "prompts/get", GetPromptRequestParams => GetPromptResult);

/// The params of `prompts/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptRequestParams {
    /// The prompt's name.
    pub name: String,
    /// The argument values, all strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
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

impl GetPromptRequestParams {
    /// A request for prompt `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        GetPromptRequestParams {
            name: name.into(),
            ..Default::default()
        }
    }
}

/// The answer to `prompts/get`: the prompt's messages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// 2026: always set on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl GetPromptResult {
    /// A result made of `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            messages,
            ..Default::default()
        }
    }
}

impl WireResult for GetPromptResult {
    /// Sets (modern era) or removes (legacy) `resultType`, and adapts each message's content
    /// with [`ContentBlock::prepare_for`] (2025-03-26 has no resource links).
    fn prepare_for(&mut self, version: ProtocolVersion) {
        self.result_type = match version.era() {
            Era::Modern => Some(self.result_type.take().unwrap_or(ResultType::Complete)),
            Era::Legacy => None,
        };
        for message in &mut self.messages {
            message.content.prepare_for(version);
        }
    }
}

/// 2026: the JSON-RPC response to `prompts/get`: the result, or a request for more input.
#[derive(Debug, Clone, PartialEq)]
pub struct GetPromptResultResponse {
    /// The id of the request answered.
    pub id: RequestId,
    /// The result or the input request.
    pub result: MrtrResult<GetPromptResult>,
}

result_response!(GetPromptResultResponse, MrtrResult<GetPromptResult>);

/// `notifications/prompts/list_changed`: the server's list of prompts changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptListChangedNotification {
    /// Metadata (in 2026 the subscription the notification belongs to).
    pub params: Option<NotificationParams>,
}

notification!(PromptListChangedNotification, "notifications/prompts/list_changed", optional NotificationParams);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::McpNotification;
    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    fn round_trip<T: Serialize + DeserializeOwned>(v: Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
        t
    }

    #[test]
    fn legacy_samples_round_trip() {
        let req: GetPromptRequest = round_trip(json!({
            "jsonrpc": "2.0", "id": 1, "method": "prompts/get",
            "params": {"name": "review", "arguments": {"code": "x = 1"}}
        }));
        assert_eq!(req.params.arguments.unwrap()["code"], "x = 1");
        let res: GetPromptResult = round_trip(json!({
            "description": "Review",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Review this"}},
                {"role": "assistant", "content": {"type": "resource",
                    "resource": {"uri": "file:///a.py", "text": "x = 1"}}}
            ]
        }));
        assert_eq!(
            res.messages[0],
            PromptMessage::user(ContentBlock::text("Review this"))
        );
        round_trip::<ListPromptsResult>(json!({
            "prompts": [{"name": "review", "arguments": [{"name": "code", "required": true}]}]
        }));
        round_trip::<ListPromptsRequest>(
            json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"}),
        );
        let n: PromptListChangedNotification =
            round_trip(json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}));
        assert!(n.params.is_none());
        assert_eq!(
            PromptListChangedNotification::METHOD,
            "notifications/prompts/list_changed"
        );
    }

    #[test]
    fn modern_samples_round_trip() {
        round_trip::<ListPromptsResult>(json!({
            "resultType": "complete",
            "prompts": [{"name": "code_review", "title": "Request Code Review",
                         "arguments": [{"name": "code", "description": "The code", "required": true}],
                         "icons": [{"src": "https://e.com/r.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}]}],
            "nextCursor": "next", "ttlMs": 600000, "cacheScope": "public"
        }));
        let resp: GetPromptResultResponse = round_trip(json!({
            "jsonrpc": "2.0", "id": "g",
            "result": {"resultType": "complete", "description": "d",
                       "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}
        }));
        assert!(matches!(resp.result, MrtrResult::Complete(_)));
        round_trip::<GetPromptRequestParams>(json!({
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
            "name": "code_review", "arguments": {"code": "def f(): pass"}, "requestState": "abc"
        }));
        let r: PromptReference = round_trip(json!({"type": "ref/prompt", "name": "code_review"}));
        assert_eq!(r, PromptReference::new("code_review"));
        assert!(
            serde_json::from_value::<PromptReference>(json!({"type": "ref/resource", "name": "x"}))
                .is_err()
        );
    }

    #[test]
    fn results_per_era() {
        let mut list = ListPromptsResult::new(vec![Prompt::new("p")]);
        list.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(list.cache_scope, Some(CacheScope::Private));
        list.prepare_for(ProtocolVersion::V2025_06_18);
        assert_eq!(
            serde_json::to_value(&list).unwrap(),
            json!({"prompts": [{"name": "p"}]})
        );

        let base = GetPromptResult::new(vec![PromptMessage::user(ContentBlock::resource_link(
            "file:///a",
            "a",
        ))]);
        let mut modern = base.clone();
        modern.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(modern.result_type, Some(ResultType::Complete));
        assert!(matches!(
            modern.messages[0].content,
            ContentBlock::ResourceLink(_)
        ));
        let mut legacy = modern.clone();
        legacy.prepare_for(ProtocolVersion::V2025_03_26);
        assert_eq!(legacy.result_type, None);
        assert_eq!(
            legacy.messages[0].content,
            ContentBlock::text("a: file:///a")
        );
    }
}
