//! The legacy handshake (`initialize`, `notifications/initialized`), `ping`, and the
//! capability objects both sides declare.
//!
//! The capability types hold the union of all four revisions. In the legacy era they are
//! exchanged once, in `initialize`; in the 2026 revision the client sends its
//! [`ClientCapabilities`] in every request's `_meta` and the server publishes its
//! [`ServerCapabilities`] in `server/discover`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::types::{
    EmptyResult, Implementation, JSONObject, NotificationParams, RequestId, RequestMetaObject,
    RequestParams, ResultMetaObject, ResultType,
};

/// Named, non-standard capabilities: `experimental` (all revisions) and `extensions` (2026),
/// each key mapping to that capability's settings object.
pub type CapabilityMap = BTreeMap<String, JSONObject>;

/// What a client can do: the features a server may use with it.
///
/// # Examples
///
/// ```
/// use mcp_core::types::ClientCapabilities;
///
/// let caps: ClientCapabilities = serde_json::from_str(r#"{"elicitation": {}, "roots": {}}"#).unwrap();
/// assert!(caps.supports_elicitation_form());
/// assert!(!caps.supports_elicitation_url());
/// assert!(caps.supports_roots());
/// assert!(!caps.supports_sampling());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Non-standard capabilities under trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<CapabilityMap>,
    /// 2026: protocol extensions the client supports, by extension id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<CapabilityMap>,
    /// The client can list its roots (filesystem boundaries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// The client can sample from a model (`sampling/createMessage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// 2025-06-18 onwards: the client can ask its user for input (`elicitation/create`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// 2025-11-25: the client can run some requests as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ClientCapabilities {
    /// Whether the client declared sampling at all.
    pub fn supports_sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// Whether the client accepts `tools` and `toolChoice` in sampling requests.
    pub fn supports_sampling_tools(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// Whether the client honours `includeContext` values other than `"none"` in sampling
    /// requests.
    pub fn supports_sampling_context(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.context.is_some())
    }

    /// Whether the client supports form-mode elicitation. An `elicitation` object naming
    /// neither `form` nor `url` (the 2025-06-18 form, `{}`) means form mode.
    pub fn supports_elicitation_form(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// Whether the client supports URL-mode elicitation (2025-11-25 onwards).
    pub fn supports_elicitation_url(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.url.is_some())
    }

    /// Whether the client can list its roots.
    pub fn supports_roots(&self) -> bool {
        self.roots.is_some()
    }

    /// Whether the client sends `notifications/roots/list_changed` (legacy era).
    pub fn supports_roots_list_changed(&self) -> bool {
        self.roots
            .as_ref()
            .is_some_and(|r| r.list_changed == Some(true))
    }

    /// Whether the client declared the extension with this id (2026).
    pub fn supports_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }
}

/// The client's `roots` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// Legacy era: the client notifies when its roots change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The client's `sampling` capability; `{}` means basic sampling.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// 2025-11-25 onwards: the client honours `includeContext` (soft-deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JSONObject>,
    /// 2025-11-25 onwards: the client accepts tools in sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JSONObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The client's `elicitation` capability. `{}` (the only 2025-06-18 form) means form mode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// The client supports form-mode elicitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JSONObject>,
    /// The client supports URL-mode elicitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JSONObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: the client's `tasks` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientTasksCapability {
    /// The client answers `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JSONObject>,
    /// The client answers `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JSONObject>,
    /// Which server-to-client requests the client can run as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequestsCapability>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: the requests a client can run as tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientTaskRequestsCapability {
    /// Sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<TaskSamplingCapability>,
    /// Elicitation requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<TaskElicitationCapability>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: task support for sampling requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSamplingCapability {
    /// `sampling/createMessage` may run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_message: Option<JSONObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: task support for elicitation requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskElicitationCapability {
    /// `elicitation/create` may run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create: Option<JSONObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// What a server offers: the features a client may use with it.
///
/// # Examples
///
/// ```
/// use mcp_core::types::{ServerCapabilities, ToolsCapability};
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

/// Legacy era: the client's opening request, naming its protocol version, capabilities
/// and identity.
#[derive(Debug, Clone, PartialEq)]
pub struct InitializeRequest {
    /// The request id.
    pub id: RequestId,
    /// The handshake data.
    pub params: InitializeRequestParams,
}

request!(InitializeRequest, "initialize", InitializeRequestParams => InitializeResult);

/// Params of `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// The newest version the client supports, as sent (it may be one this crate does not
    /// know; negotiation happens on the parsed value).
    pub protocol_version: String,
    /// What the client can do.
    pub capabilities: ClientCapabilities,
    /// The client's self-description.
    pub client_info: Implementation,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl InitializeRequestParams {
    /// Params with the given version, capabilities and client description.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        InitializeRequestParams {
            meta: None,
            protocol_version: protocol_version.into(),
            capabilities,
            client_info,
            extra: JSONObject::new(),
        }
    }
}

/// Legacy era: the server's answer to `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Never sent: this result only exists in the legacy era (kept for uniformity with the
    /// other results; [`WireResult::prepare_for`](crate::types::WireResult::prepare_for)
    /// clears it for legacy versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The version the server chose for the session.
    pub protocol_version: String,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// The server's self-description.
    pub server_info: Implementation,
    /// Hints for the model on how to use the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(InitializeResult);

impl InitializeResult {
    /// A result with the given version, capabilities and server description.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        InitializeResult {
            meta: None,
            result_type: None,
            protocol_version: protocol_version.into(),
            capabilities,
            server_info,
            instructions: None,
            extra: JSONObject::new(),
        }
    }
}

/// Legacy era: the client's acknowledgement that the handshake is complete.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InitializedNotification {
    /// Optional metadata.
    pub params: Option<NotificationParams>,
}

notification!(InitializedNotification, "notifications/initialized", optional NotificationParams);

/// Legacy era: a liveness check either side may send; the answer is an empty result.
#[derive(Debug, Clone, PartialEq)]
pub struct PingRequest {
    /// The request id.
    pub id: RequestId,
    /// Optional metadata.
    pub params: Option<RequestParams>,
}

request!(PingRequest, "ping", optional RequestParams => EmptyResult);

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ProtocolVersion;
    use crate::types::McpRequest;
    use crate::types::WireResult;

    fn round_trip<T: Serialize + serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
        t
    }

    #[test]
    fn empty_capability_objects_serialize_as_empty_objects() {
        let caps = ClientCapabilities {
            sampling: Some(Default::default()),
            ..Default::default()
        };
        assert_eq!(serde_json::to_string(&caps).unwrap(), r#"{"sampling":{}}"#);
        assert_eq!(
            serde_json::to_string(&ClientCapabilities::default()).unwrap(),
            "{}"
        );
        assert_eq!(
            serde_json::to_string(&ServerCapabilities::default()).unwrap(),
            "{}"
        );
    }

    #[test]
    fn client_capabilities_of_every_revision_round_trip() {
        // 2025-03-26
        let c: ClientCapabilities = round_trip(json!({
            "roots": {"listChanged": true}, "sampling": {}, "experimental": {"x": {"a": 1}}
        }));
        assert!(c.supports_roots_list_changed() && c.supports_sampling());
        assert!(!c.supports_elicitation_form());
        // 2025-06-18: an empty elicitation object is form mode.
        let c: ClientCapabilities = round_trip(json!({"elicitation": {}}));
        assert!(c.supports_elicitation_form() && !c.supports_elicitation_url());
        // 2025-11-25
        let c: ClientCapabilities = round_trip(json!({
            "elicitation": {"url": {}},
            "sampling": {"context": {}, "tools": {}},
            "tasks": {
                "list": {}, "cancel": {},
                "requests": {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}}
            }
        }));
        assert!(!c.supports_elicitation_form() && c.supports_elicitation_url());
        assert!(c.supports_sampling_tools() && c.supports_sampling_context());
        let tasks = c.tasks.as_ref().unwrap();
        assert!(
            tasks
                .requests
                .as_ref()
                .unwrap()
                .sampling
                .as_ref()
                .unwrap()
                .create_message
                .is_some()
        );
        // 2026, with unknown members at every level.
        let c: ClientCapabilities = round_trip(json!({
            "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}},
            "roots": {"future": 1},
            "elicitation": {"form": {}, "url": {}},
            "somethingNew": {"k": true}
        }));
        assert!(c.supports_extension("io.modelcontextprotocol/ui"));
        assert!(c.supports_elicitation_form() && c.supports_elicitation_url());
        assert_eq!(c.extra["somethingNew"], json!({"k": true}));
        assert_eq!(c.roots.unwrap().extra["future"], json!(1));
    }

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

    #[test]
    fn initialize_round_trips_and_keeps_unknown_versions() {
        let req: InitializeRequest = round_trip(json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2099-01-01",
                "capabilities": {"roots": {"listChanged": true}},
                "clientInfo": {"name": "c", "version": "1"}
            }
        }));
        assert_eq!(req.params.protocol_version, "2099-01-01");
        assert_eq!(InitializeRequest::METHOD, "initialize");
        assert!(
            serde_json::from_value::<InitializeRequest>(json!({
                "jsonrpc": "2.0", "id": 0, "method": "initialize"
            }))
            .is_err()
        );
        assert!(
            serde_json::from_value::<InitializeRequest>(json!({
                "jsonrpc": "2.0", "id": 0, "method": "ping", "params": req.params
            }))
            .is_err()
        );

        let mut res: InitializeResult = round_trip(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "s", "version": "2"},
            "instructions": "be nice"
        }));
        res.result_type = Some(ResultType::Complete);
        res.prepare_for(ProtocolVersion::V2025_06_18);
        assert_eq!(res.result_type, None);
    }

    #[test]
    fn ping_and_initialized_params_are_optional() {
        let p: PingRequest = round_trip(json!({"jsonrpc": "2.0", "id": "a", "method": "ping"}));
        assert!(p.params.is_none());
        let p: PingRequest = round_trip(json!({
            "jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {"progressToken": 3}}
        }));
        assert!(p.params.unwrap().meta.unwrap().progress_token.is_some());
        let n: InitializedNotification =
            round_trip(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert!(n.params.is_none());
    }

    #[test]
    fn official_capability_examples_round_trip() {
        let base =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/2026-07-28/examples");
        let mut n = 0;
        for (folder, client) in [("ClientCapabilities", true), ("ServerCapabilities", false)] {
            for entry in std::fs::read_dir(base.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                let v: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                if client {
                    round_trip::<ClientCapabilities>(v);
                } else {
                    round_trip::<ServerCapabilities>(v);
                }
                n += 1;
            }
        }
        assert_eq!(n, 18);
    }
}
