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

mod client_capabilities;
mod server_capabilities;

pub use client_capabilities::{
    ClientCapabilities, ClientTaskRequestsCapability, ClientTasksCapability, ElicitationCapability,
    RootsCapability, SamplingCapability, TaskElicitationCapability, TaskSamplingCapability,
};
pub use server_capabilities::{
    PromptsCapability, ResourcesCapability, ServerCapabilities, ServerTaskRequestsCapability,
    ServerTasksCapability, TaskToolsCapability, ToolsCapability,
};

/// Named, non-standard capabilities: `experimental` (all revisions) and `extensions` (2026),
/// each key mapping to that capability's settings object.
pub type CapabilityMap = BTreeMap<String, JSONObject>;

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

impl crate::types::WireResult for InitializeResult {
    /// Clears `resultType` (a legacy result) and, for 2024-11-05, leaves out the
    /// capabilities and server description members that revision lacks
    /// ([`ServerCapabilities::prepare_for`], [`Implementation::prepare_for`]).
    fn prepare_for(&mut self, version: crate::ProtocolVersion) {
        self.result_type = match version.era() {
            crate::Era::Modern => Some(self.result_type.take().unwrap_or(ResultType::Complete)),
            crate::Era::Legacy => None,
        };
        self.omit_later_members(version);
    }
}

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

    /// Shared by the tests of every lifecycle module: deserializes `v`, checks that it
    /// serializes back unchanged, and returns the typed value.
    pub(super) fn round_trip<T: Serialize + serde::de::DeserializeOwned>(
        v: serde_json::Value,
    ) -> T {
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
