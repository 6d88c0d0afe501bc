//! 2025-11-25+: tool calls and their outcomes inside sampling messages.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ContentBlock, present_value};
use crate::types::{JSONObject, MetaObject};

/// The `"type": "tool_use"` of a [`ToolUseContent`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolUseTag;
type_tag!(ToolUseTag = "tool_use");
/// The `"type": "tool_result"` of a [`ToolResultContent`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolResultTag;
type_tag!(ToolResultTag = "tool_result");

/// 2025-11-25+: a model's request to call a tool, inside a sampling message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Always `"tool_use"`.
    #[serde(rename = "type")]
    pub r#type: ToolUseTag,
    /// Identifies this call; the matching [`ToolResultContent`] repeats it.
    pub id: String,
    /// The tool to call.
    pub name: String,
    /// The arguments.
    pub input: JSONObject,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ToolUseContent {
    /// A call of tool `name` with `input`, identified by `id`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: JSONObject) -> Self {
        ToolUseContent {
            id: id.into(),
            name: name.into(),
            input,
            ..Default::default()
        }
    }
}

/// 2025-11-25+: the outcome of a tool call, inside a sampling message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// Always `"tool_result"`.
    #[serde(rename = "type")]
    pub r#type: ToolResultTag,
    /// The `id` of the [`ToolUseContent`] this answers.
    pub tool_use_id: String,
    /// The result as content blocks.
    pub content: Vec<ContentBlock>,
    /// The result as structured data (an object in 2025-11-25, any value in 2026).
    #[serde(
        default,
        deserialize_with = "present_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ToolResultContent {
    /// The result of call `tool_use_id`, as content blocks.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<ContentBlock>) -> Self {
        ToolResultContent {
            tool_use_id: tool_use_id.into(),
            content,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::content::tests::round_trip;
    use serde_json::json;

    #[test]
    fn structured_content_null_is_kept() {
        let r: ToolResultContent = round_trip(json!({
            "type": "tool_result", "toolUseId": "1", "content": [], "structuredContent": null
        }));
        assert_eq!(r.structured_content, Some(Value::Null));
    }
}
