//! Requests and notifications: unions dispatched on `method`.

use serde::de::Error as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::types::content::unexpected;
use crate::types::{
    CallToolRequest, CancelTaskRequest, CancelledNotification, CompleteRequest,
    CreateMessageRequest, DiscoverRequest, ElicitRequest, ElicitationCompleteNotification,
    GetPromptRequest, GetTaskPayloadRequest, GetTaskRequest, InitializeRequest,
    InitializedNotification, ListPromptsRequest, ListResourceTemplatesRequest,
    ListResourcesRequest, ListRootsRequest, ListTasksRequest, ListToolsRequest,
    LoggingMessageNotification, McpNotification, McpRequest, PingRequest, ProgressNotification,
    PromptListChangedNotification, ReadResourceRequest, RequestId, ResourceListChangedNotification,
    ResourceUpdatedNotification, RootsListChangedNotification, SetLevelRequest, SubscribeRequest,
    SubscriptionsAcknowledgedNotification, SubscriptionsListenRequest, TaskStatusNotification,
    ToolListChangedNotification, UnsubscribeRequest,
};

/// Implements `Serialize`, method-dispatching `Deserialize`, `method()` and `From` for a
/// union of typed messages declared just above the call. `$tr` is `McpRequest` or
/// `McpNotification`.
macro_rules! method_union {
    ($union:ident, $tr:ident, $what:literal { $($variant:ident($ty:ty)),+ $(,)? }) => {
        impl $union {
            /// The methods this union accepts.
            pub const METHODS: &'static [&'static str] = &[$(<$ty as $tr>::METHOD),+];

            /// The JSON-RPC method of this message.
            pub fn method(&self) -> &'static str {
                match self {
                    $($union::$variant(_) => <$ty as $tr>::METHOD,)+
                }
            }
        }

        impl Serialize for $union {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $($union::$variant(m) => m.serialize(s),)+
                }
            }
        }

        impl<'de> Deserialize<'de> for $union {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let value = Value::deserialize(d)?;
                let method = match value.get("method") {
                    Some(Value::String(m)) => m.as_str(),
                    Some(other) => {
                        return Err(D::Error::invalid_type(unexpected(other), &"a method name"));
                    }
                    None if value.is_object() => return Err(D::Error::missing_field("method")),
                    None => return Err(D::Error::invalid_type(unexpected(&value), &$what)),
                };
                $(
                    if method == <$ty as $tr>::METHOD {
                        return <$ty>::deserialize(value).map($union::$variant).map_err(D::Error::custom);
                    }
                )+
                Err(D::Error::unknown_variant(method, Self::METHODS))
            }
        }

        $(
            impl From<$ty> for $union {
                fn from(m: $ty) -> Self {
                    $union::$variant(m)
                }
            }
        )+
    };
}

/// Any request a client sends to a server, in any revision.
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "every variant carries a request `_meta` of about 1 KB; boxing `initialize` alone \
              would save little and make matching on it clumsier"
)]
pub enum ClientRequest {
    /// `initialize` (legacy).
    Initialize(InitializeRequest),
    /// `ping` (legacy).
    Ping(PingRequest),
    /// `server/discover` (2026).
    Discover(DiscoverRequest),
    /// `resources/list`.
    ListResources(ListResourcesRequest),
    /// `resources/templates/list`.
    ListResourceTemplates(ListResourceTemplatesRequest),
    /// `resources/read`.
    ReadResource(ReadResourceRequest),
    /// `resources/subscribe` (legacy).
    Subscribe(SubscribeRequest),
    /// `resources/unsubscribe` (legacy).
    Unsubscribe(UnsubscribeRequest),
    /// `subscriptions/listen` (2026).
    SubscriptionsListen(SubscriptionsListenRequest),
    /// `prompts/list`.
    ListPrompts(ListPromptsRequest),
    /// `prompts/get`.
    GetPrompt(GetPromptRequest),
    /// `tools/list`.
    ListTools(ListToolsRequest),
    /// `tools/call`.
    CallTool(CallToolRequest),
    /// `tasks/get` (2025-11-25).
    GetTask(GetTaskRequest),
    /// `tasks/result` (2025-11-25).
    GetTaskPayload(GetTaskPayloadRequest),
    /// `tasks/cancel` (2025-11-25).
    CancelTask(CancelTaskRequest),
    /// `tasks/list` (2025-11-25).
    ListTasks(ListTasksRequest),
    /// `logging/setLevel` (legacy).
    SetLevel(SetLevelRequest),
    /// `completion/complete`.
    Complete(CompleteRequest),
}

method_union!(ClientRequest, McpRequest, "a request object" {
    Initialize(InitializeRequest),
    Ping(PingRequest),
    Discover(DiscoverRequest),
    ListResources(ListResourcesRequest),
    ListResourceTemplates(ListResourceTemplatesRequest),
    ReadResource(ReadResourceRequest),
    Subscribe(SubscribeRequest),
    Unsubscribe(UnsubscribeRequest),
    SubscriptionsListen(SubscriptionsListenRequest),
    ListPrompts(ListPromptsRequest),
    GetPrompt(GetPromptRequest),
    ListTools(ListToolsRequest),
    CallTool(CallToolRequest),
    GetTask(GetTaskRequest),
    GetTaskPayload(GetTaskPayloadRequest),
    CancelTask(CancelTaskRequest),
    ListTasks(ListTasksRequest),
    SetLevel(SetLevelRequest),
    Complete(CompleteRequest),
});

impl ClientRequest {
    /// The request id.
    pub fn id(&self) -> &RequestId {
        match self {
            ClientRequest::Initialize(r) => &r.id,
            ClientRequest::Ping(r) => &r.id,
            ClientRequest::Discover(r) => &r.id,
            ClientRequest::ListResources(r) => &r.id,
            ClientRequest::ListResourceTemplates(r) => &r.id,
            ClientRequest::ReadResource(r) => &r.id,
            ClientRequest::Subscribe(r) => &r.id,
            ClientRequest::Unsubscribe(r) => &r.id,
            ClientRequest::SubscriptionsListen(r) => &r.id,
            ClientRequest::ListPrompts(r) => &r.id,
            ClientRequest::GetPrompt(r) => &r.id,
            ClientRequest::ListTools(r) => &r.id,
            ClientRequest::CallTool(r) => &r.id,
            ClientRequest::GetTask(r) => &r.id,
            ClientRequest::GetTaskPayload(r) => &r.id,
            ClientRequest::CancelTask(r) => &r.id,
            ClientRequest::ListTasks(r) => &r.id,
            ClientRequest::SetLevel(r) => &r.id,
            ClientRequest::Complete(r) => &r.id,
        }
    }
}

/// Any request a server sends to a client (legacy era; the 2026 revision embeds sampling,
/// elicitation and roots requests in an
/// [`InputRequiredResult`](crate::types::InputRequiredResult) instead).
#[derive(Debug, Clone, PartialEq)]
pub enum ServerRequest {
    /// `ping`.
    Ping(PingRequest),
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageRequest),
    /// `roots/list`.
    ListRoots(ListRootsRequest),
    /// `elicitation/create` (2025-06-18 onwards).
    Elicit(ElicitRequest),
    /// `tasks/get` (2025-11-25).
    GetTask(GetTaskRequest),
    /// `tasks/result` (2025-11-25).
    GetTaskPayload(GetTaskPayloadRequest),
    /// `tasks/cancel` (2025-11-25).
    CancelTask(CancelTaskRequest),
    /// `tasks/list` (2025-11-25).
    ListTasks(ListTasksRequest),
}

method_union!(ServerRequest, McpRequest, "a request object" {
    Ping(PingRequest),
    CreateMessage(CreateMessageRequest),
    ListRoots(ListRootsRequest),
    Elicit(ElicitRequest),
    GetTask(GetTaskRequest),
    GetTaskPayload(GetTaskPayloadRequest),
    CancelTask(CancelTaskRequest),
    ListTasks(ListTasksRequest),
});

impl ServerRequest {
    /// The request id; `None` for a sampling, elicitation or roots request read without one
    /// (the 2026 embedded form).
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            ServerRequest::Ping(r) => Some(&r.id),
            ServerRequest::CreateMessage(r) => r.id.as_ref(),
            ServerRequest::ListRoots(r) => r.id.as_ref(),
            ServerRequest::Elicit(r) => r.id.as_ref(),
            ServerRequest::GetTask(r) => Some(&r.id),
            ServerRequest::GetTaskPayload(r) => Some(&r.id),
            ServerRequest::CancelTask(r) => Some(&r.id),
            ServerRequest::ListTasks(r) => Some(&r.id),
        }
    }
}

/// Any notification a client sends to a server, in any revision.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientNotification {
    /// `notifications/cancelled`.
    Cancelled(CancelledNotification),
    /// `notifications/initialized` (legacy).
    Initialized(InitializedNotification),
    /// `notifications/progress` (legacy).
    Progress(ProgressNotification),
    /// `notifications/roots/list_changed` (legacy).
    RootsListChanged(RootsListChangedNotification),
    /// `notifications/tasks/status` (2025-11-25).
    TaskStatus(TaskStatusNotification),
}

method_union!(ClientNotification, McpNotification, "a notification object" {
    Cancelled(CancelledNotification),
    Initialized(InitializedNotification),
    Progress(ProgressNotification),
    RootsListChanged(RootsListChangedNotification),
    TaskStatus(TaskStatusNotification),
});

/// Any notification a server sends to a client, in any revision.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerNotification {
    /// `notifications/cancelled`.
    Cancelled(CancelledNotification),
    /// `notifications/progress`.
    Progress(ProgressNotification),
    /// `notifications/resources/list_changed`.
    ResourceListChanged(ResourceListChangedNotification),
    /// `notifications/resources/updated`.
    ResourceUpdated(ResourceUpdatedNotification),
    /// `notifications/prompts/list_changed`.
    PromptListChanged(PromptListChangedNotification),
    /// `notifications/tools/list_changed`.
    ToolListChanged(ToolListChangedNotification),
    /// `notifications/message`.
    LoggingMessage(LoggingMessageNotification),
    /// `notifications/elicitation/complete` (2025-11-25).
    ElicitationComplete(ElicitationCompleteNotification),
    /// `notifications/tasks/status` (2025-11-25).
    TaskStatus(TaskStatusNotification),
    /// `notifications/subscriptions/acknowledged` (2026).
    SubscriptionsAcknowledged(SubscriptionsAcknowledgedNotification),
}

method_union!(ServerNotification, McpNotification, "a notification object" {
    Cancelled(CancelledNotification),
    Progress(ProgressNotification),
    ResourceListChanged(ResourceListChangedNotification),
    ResourceUpdated(ResourceUpdatedNotification),
    PromptListChanged(PromptListChangedNotification),
    ToolListChanged(ToolListChangedNotification),
    LoggingMessage(LoggingMessageNotification),
    ElicitationComplete(ElicitationCompleteNotification),
    TaskStatus(TaskStatusNotification),
    SubscriptionsAcknowledged(SubscriptionsAcknowledgedNotification),
});

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::types::messages::tests::round_trip;

    #[test]
    fn client_requests_dispatch_on_method() {
        let cases = [
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-03-26", "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"}}}),
                "initialize",
            ),
            (json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}), "ping"),
            (
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
                "tools/list",
            ),
            (
                json!({"jsonrpc": "2.0", "id": "x", "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1}}}),
                "tools/call",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 5, "method": "logging/setLevel",
                "params": {"level": "warning"}}),
                "logging/setLevel",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 6, "method": "resources/subscribe",
                "params": {"uri": "a://b"}}),
                "resources/subscribe",
            ),
        ];
        for (v, method) in cases {
            let r: ClientRequest = round_trip(v.clone());
            assert_eq!(r.method(), method);
            assert_eq!(serde_json::to_value(r.id()).unwrap(), v["id"]);
        }
        assert!(ClientRequest::METHODS.contains(&"server/discover"));
        assert!(ClientRequest::METHODS.contains(&"subscriptions/listen"));
        assert_eq!(ClientRequest::METHODS.len(), 19);
    }

    #[test]
    fn unknown_and_missing_methods_are_errors() {
        let e = serde_json::from_value::<ClientRequest>(
            json!({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage", "params": {}}),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("sampling/createMessage") && e.contains("tools/call"),
            "{e}"
        );
        assert!(
            serde_json::from_value::<ClientRequest>(json!({"jsonrpc": "2.0", "id": 1})).is_err()
        );
        assert!(serde_json::from_value::<ServerNotification>(json!([1])).is_err());
        // A known method with bad params reports that type's error, not a fallback.
        let e = serde_json::from_value::<ClientRequest>(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("name"), "{e}");
    }

    #[test]
    fn notifications_and_server_requests_dispatch_on_method() {
        let n: ClientNotification =
            round_trip(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert!(matches!(n, ClientNotification::Initialized(_)));
        let n: ClientNotification = round_trip(json!({"jsonrpc": "2.0",
            "method": "notifications/cancelled", "params": {"requestId": 3, "reason": "x"}}));
        assert!(matches!(n, ClientNotification::Cancelled(_)));
        let n: ServerNotification = round_trip(json!({"jsonrpc": "2.0",
            "method": "notifications/message", "params": {"level": "info", "data": "hi"}}));
        assert!(matches!(n, ServerNotification::LoggingMessage(_)));
        assert_eq!(n.method(), "notifications/message");
        let n: ServerNotification = round_trip(json!({"jsonrpc": "2.0",
            "method": "notifications/tools/list_changed"}));
        assert!(matches!(n, ServerNotification::ToolListChanged(_)));
        assert!(
            serde_json::from_value::<ServerNotification>(
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
            )
            .is_err()
        );

        let r: ServerRequest =
            round_trip(json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}));
        assert!(matches!(r, ServerRequest::ListRoots(_)));
        let r: ServerRequest = round_trip(json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}));
        assert!(matches!(r, ServerRequest::Ping(_)));
    }
}
