//! What a server offers: [`ServerCapabilities`] and the capability objects inside it.

use serde::{Deserialize, Serialize};

use super::CapabilityMap;
use crate::types::JSONObject;

/// What a server offers: the features a client may use with it.
///
/// # Examples
///
/// ```
/// use ferromcp_core::types::{ServerCapabilities, ToolsCapability};
///
/// let caps = ServerCapabilities {
///     tools: Some(ToolsCapability { list_changed: Some(true), ..Default::default() }),
///     logging: Some(Default::default()),
///     ..Default::default()
/// };
/// assert_eq!(
///     serde_json::to_value(&caps).unwrap(),
///     serde_json::json!({"tools": {"listChanged": true}, "logging": {}})
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Non-standard capabilities under trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<CapabilityMap>,
    /// 2026: protocol extensions the server supports, by extension id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<CapabilityMap>,
    /// The server sends log messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JSONObject>,
    /// The server completes prompt and resource-template arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JSONObject>,
    /// The server has prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// The server has resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server has tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// 2025-11-25: the server can run some requests as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ServerCapabilities {
    /// Whether the server sends `notifications/tools/list_changed`.
    pub fn tools_list_changed(&self) -> bool {
        self.tools
            .as_ref()
            .is_some_and(|t| t.list_changed == Some(true))
    }

    /// Whether the server sends `notifications/prompts/list_changed`.
    pub fn prompts_list_changed(&self) -> bool {
        self.prompts
            .as_ref()
            .is_some_and(|p| p.list_changed == Some(true))
    }

    /// Whether the server sends `notifications/resources/list_changed`.
    pub fn resources_list_changed(&self) -> bool {
        self.resources
            .as_ref()
            .is_some_and(|r| r.list_changed == Some(true))
    }

    /// Whether clients may subscribe to updates of single resources.
    pub fn resources_subscribe(&self) -> bool {
        self.resources
            .as_ref()
            .is_some_and(|r| r.subscribe == Some(true))
    }
}

/// The server's `prompts` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptsCapability {
    /// The server notifies when its prompt list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The server's `resources` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Clients may subscribe to updates of single resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server notifies when its resource list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The server's `tools` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsCapability {
    /// The server notifies when its tool list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: the server's `tasks` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerTasksCapability {
    /// The server answers `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JSONObject>,
    /// The server answers `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JSONObject>,
    /// Which client-to-server requests the server can run as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequestsCapability>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: the requests a server can run as tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerTaskRequestsCapability {
    /// Tool requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<TaskToolsCapability>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: task support for tool requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskToolsCapability {
    /// `tools/call` may run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<JSONObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::types::lifecycle::tests::round_trip;

    #[test]
    fn server_capabilities_of_every_revision_round_trip() {
        let s: ServerCapabilities = round_trip(json!({
            "logging": {}, "completions": {},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": false},
            "tools": {"listChanged": true},
            "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
            "experimental": {"e": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }));
        assert!(s.tools_list_changed() && s.prompts_list_changed());
        assert!(s.resources_subscribe() && !s.resources_list_changed());
        assert!(
            s.tasks
                .unwrap()
                .requests
                .unwrap()
                .tools
                .unwrap()
                .call
                .is_some()
        );
    }
}
