//! Sampling: the server asks the client's model for a completion (`sampling/createMessage`).
//!
//! Since 2025-11-25 a message's `content` may be one block or an array of blocks, and blocks
//! include tool calls and tool results; [`SamplingContent`] holds either form and writes it
//! back as it came.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::content::{from_value, tagged_value};
use crate::jsonrpc::JsonRpcVersion;
use crate::types::{
    AudioContent, AudioTag, ImageContent, ImageTag, JSONObject, MetaObject, RequestId,
    RequestMetaObject, Role, TaskMetadata, TextContent, TextTag, Tool, ToolResultContent,
    ToolResultTag, ToolUseContent, ToolUseTag,
};

/// `sampling/createMessage`: the server asks the client to sample its model.
///
/// A legacy request carries `jsonrpc` and `id`; in 2026 it is embedded in an
/// [`InputRequiredResult`](crate::types::InputRequiredResult) without them.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateMessageRequest {
    /// `"2.0"` on a standalone request; absent when embedded.
    pub jsonrpc: Option<JsonRpcVersion>,
    /// The request id on a standalone request; absent when embedded.
    pub id: Option<RequestId>,
    /// What to sample.
    pub params: CreateMessageRequestParams,
}

request!(CreateMessageRequest, "sampling/createMessage", embedded CreateMessageRequestParams => CreateMessageResult);

/// Which servers' context the client should add to the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No context.
    None,
    /// Context from the requesting server only.
    ThisServer,
    /// Context from every connected server.
    AllServers,
}

/// The params of `sampling/createMessage`.
///
/// # Examples
///
/// ```
/// use ferromcp_core::types::{CreateMessageRequestParams, SamplingMessage};
///
/// let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("Hi")], 100);
/// assert_eq!(
///     serde_json::to_value(&params).unwrap(),
///     serde_json::json!({
///         "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}],
///         "maxTokens": 100
///     })
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// What the server would like in a model; the client decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which context to add.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// The sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to generate.
    pub max_tokens: u64,
    /// Sequences that end generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific options passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JSONObject>,
    /// 2025-11-25+: tools the model may call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// 2025-11-25+: how the model may use the tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// 2025-11-25: run the request as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl CreateMessageRequestParams {
    /// A request to continue `messages`, generating at most `max_tokens`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        CreateMessageRequestParams {
            messages,
            max_tokens,
            ..Default::default()
        }
    }
}

/// The client's sampled message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Who wrote the message (normally the assistant).
    pub role: Role,
    /// The message: one block or several.
    pub content: SamplingContent,
    /// The model that produced it.
    pub model: String,
    /// Why generation stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse` or a
    /// provider's own value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// One message of a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Who wrote it.
    pub role: Role,
    /// One block or several.
    pub content: SamplingContent,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl SamplingMessage {
    /// A message from `role` with `content`.
    pub fn new(role: Role, content: impl Into<SamplingContent>) -> Self {
        SamplingMessage {
            meta: None,
            role,
            content: content.into(),
            extra: JSONObject::new(),
        }
    }

    /// A user message with one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        SamplingMessage::new(Role::User, SamplingMessageContentBlock::text(text))
    }

    /// An assistant message with one text block.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        SamplingMessage::new(Role::Assistant, SamplingMessageContentBlock::text(text))
    }
}

/// The `content` of a sampling message or result: a single block, or (2025-11-25+) an array
/// of blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// One block, written as an object.
    Single(SamplingMessageContentBlock),
    /// Several blocks, written as an array.
    Multiple(Vec<SamplingMessageContentBlock>),
}

impl SamplingContent {
    /// The blocks, whichever the form.
    pub fn blocks(&self) -> &[SamplingMessageContentBlock] {
        match self {
            SamplingContent::Single(b) => std::slice::from_ref(b),
            SamplingContent::Multiple(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Array(items) => from_value(Value::Array(items)).map(SamplingContent::Multiple),
            value => from_value(value).map(SamplingContent::Single),
        }
    }
}

impl From<SamplingMessageContentBlock> for SamplingContent {
    fn from(b: SamplingMessageContentBlock) -> Self {
        SamplingContent::Single(b)
    }
}

impl From<Vec<SamplingMessageContentBlock>> for SamplingContent {
    fn from(v: Vec<SamplingMessageContentBlock>) -> Self {
        SamplingContent::Multiple(v)
    }
}

impl From<TextContent> for SamplingContent {
    fn from(c: TextContent) -> Self {
        SamplingContent::Single(c.into())
    }
}

/// One block of sampling content. Dispatched on `type`; each variant's struct carries its
/// own `type`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingMessageContentBlock {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"`.
    Audio(AudioContent),
    /// `"tool_use"` (2025-11-25+).
    ToolUse(ToolUseContent),
    /// `"tool_result"` (2025-11-25+).
    ToolResult(ToolResultContent),
}

impl<'de> Deserialize<'de> for SamplingMessageContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (tag, value) = tagged_value(d)?;
        match tag.as_str() {
            TextTag::VALUE => from_value(value).map(SamplingMessageContentBlock::Text),
            ImageTag::VALUE => from_value(value).map(SamplingMessageContentBlock::Image),
            AudioTag::VALUE => from_value(value).map(SamplingMessageContentBlock::Audio),
            ToolUseTag::VALUE => from_value(value).map(SamplingMessageContentBlock::ToolUse),
            ToolResultTag::VALUE => from_value(value).map(SamplingMessageContentBlock::ToolResult),
            other => Err(D::Error::unknown_variant(
                other,
                &["text", "image", "audio", "tool_use", "tool_result"],
            )),
        }
    }
}

impl SamplingMessageContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingMessageContentBlock::Text(TextContent::new(text))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingMessageContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl From<TextContent> for SamplingMessageContentBlock {
    fn from(c: TextContent) -> Self {
        SamplingMessageContentBlock::Text(c)
    }
}

impl From<ImageContent> for SamplingMessageContentBlock {
    fn from(c: ImageContent) -> Self {
        SamplingMessageContentBlock::Image(c)
    }
}

impl From<AudioContent> for SamplingMessageContentBlock {
    fn from(c: AudioContent) -> Self {
        SamplingMessageContentBlock::Audio(c)
    }
}

impl From<ToolUseContent> for SamplingMessageContentBlock {
    fn from(c: ToolUseContent) -> Self {
        SamplingMessageContentBlock::ToolUse(c)
    }
}

impl From<ToolResultContent> for SamplingMessageContentBlock {
    fn from(c: ToolResultContent) -> Self {
        SamplingMessageContentBlock::ToolResult(c)
    }
}

/// What the server would like in a model. Priorities run from 0 to 1.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model names or families to consider, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much low cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much low latency matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// A hint at a model: a (partial) name the client may match as it sees fit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A full or partial model name, e.g. `claude-3-sonnet` or `sonnet`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ModelHint {
    /// A hint naming `name`.
    pub fn new(name: impl Into<String>) -> Self {
        ModelHint {
            name: Some(name.into()),
            extra: JSONObject::new(),
        }
    }
}

/// 2025-11-25+: how the model may use the tools of a sampling request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// The mode; the client's default is `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// Whether the model may, must or must not call tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// The model must call at least one tool.
    Required,
    /// The model must not call tools.
    None,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip<T: serde::de::DeserializeOwned + Serialize>(json: &Value) -> T {
        let typed: T = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&typed).unwrap(), json);
        typed
    }

    #[test]
    fn content_is_one_block_or_many() {
        let single = json!({"role": "user", "content": {"type": "text", "text": "Capital?"}});
        let m: SamplingMessage = round_trip(&single);
        assert!(matches!(
            m.content,
            SamplingContent::Single(SamplingMessageContentBlock::Text(_))
        ));
        assert_eq!(m.content.blocks()[0].as_text(), Some("Capital?"));

        let many = json!({
            "role": "user",
            "content": [
                {"type": "tool_result", "toolUseId": "call_123", "content": [{"type": "text", "text": "Result 1"}]},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}
            ]
        });
        let m: SamplingMessage = round_trip(&many);
        let blocks = m.content.blocks();
        assert!(matches!(
            blocks[0],
            SamplingMessageContentBlock::ToolResult(_)
        ));
        assert!(matches!(blocks[1], SamplingMessageContentBlock::Image(_)));
        assert!(matches!(blocks[2], SamplingMessageContentBlock::Audio(_)));

        let bad = serde_json::from_value::<SamplingMessageContentBlock>(
            json!({"type": "resource_link", "uri": "x", "name": "n"}),
        );
        assert!(bad.unwrap_err().to_string().contains("resource_link"));
    }

    #[test]
    fn legacy_and_2026_requests_round_trip() {
        let legacy = json!({
            "jsonrpc": "2.0",
            "id": 3,
            "method": "sampling/createMessage",
            "params": {
                "_meta": {"progressToken": "p"},
                "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}],
                "includeContext": "thisServer",
                "temperature": 0.5,
                "stopSequences": ["\n"],
                "metadata": {"provider": "x"},
                "maxTokens": 10
            }
        });
        let r: CreateMessageRequest = round_trip(&legacy);
        assert_eq!(r.id, Some(RequestId::Number(3)));
        assert_eq!(r.params.include_context, Some(IncludeContext::ThisServer));

        let modern = json!({
            "method": "sampling/createMessage",
            "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Weather?"}}],
                "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}], "intelligencePriority": 0.8, "speedPriority": 0.5},
                "systemPrompt": "You are a helpful assistant.",
                "tools": [{"name": "get_weather", "inputSchema": {"type": "object"}}],
                "toolChoice": {"mode": "required"},
                "maxTokens": 1000
            }
        });
        let r: CreateMessageRequest = round_trip(&modern);
        assert!(r.jsonrpc.is_none() && r.id.is_none());
        assert_eq!(
            r.params.tool_choice.unwrap().mode,
            Some(ToolChoiceMode::Required)
        );
    }

    #[test]
    fn results_round_trip() {
        let text = json!({
            "role": "assistant",
            "content": {"type": "text", "text": "Paris."},
            "model": "claude-3-sonnet-20240307",
            "stopReason": "endTurn"
        });
        round_trip::<CreateMessageResult>(&text);
        let tool_use = json!({
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "call_abc123", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "call_def456", "name": "get_weather", "input": {"city": "London"}}
            ],
            "model": "claude-3-sonnet-20240307",
            "stopReason": "toolUse"
        });
        let r: CreateMessageResult = round_trip(&tool_use);
        assert_eq!(r.content.blocks().len(), 2);
        assert!(
            serde_json::from_value::<CreateMessageResult>(
                json!({"role": "assistant", "model": "m"})
            )
            .is_err()
        );
    }
}
