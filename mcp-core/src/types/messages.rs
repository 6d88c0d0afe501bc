//! The unions of all messages each side sends, across every revision.
//!
//! - [`ClientRequest`], [`ServerRequest`], [`ClientNotification`] and
//!   [`ServerNotification`] have one variant per typed message. Deserialization reads
//!   `method` first and then parses the one type that method names, so a malformed message
//!   reports the error of its own type; an unknown method is an error naming the known ones.
//! - [`ClientResult`] and [`ServerResult`] have no discriminator on the wire. Deserialization
//!   picks the variant from the members present (an `input_required` `resultType` first,
//!   then a member only one result type requires, e.g. `tools` → [`ListToolsResult`]) and
//!   falls back to the empty result. When the request is known, parse its own result type
//!   instead ([`McpRequest::Result`](crate::types::McpRequest::Result)).
//!
//! A union holds every message of every revision; which of them a given revision allows is
//! for the engine to check.
//!
//! # Examples
//!
//! ```
//! use mcp_core::types::{ClientRequest, ServerResult};
//!
//! let req: ClientRequest = serde_json::from_str(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#,
//! ).unwrap();
//! assert_eq!(req.method(), "tools/call");
//! assert!(matches!(req, ClientRequest::CallTool(_)));
//!
//! let res: ServerResult = serde_json::from_str(r#"{"tools":[]}"#).unwrap();
//! assert!(matches!(res, ServerResult::ListTools(_)));
//! let res: ServerResult = serde_json::from_str(r#"{}"#).unwrap();
//! assert!(matches!(res, ServerResult::Empty(_)));
//! ```

use serde::de::Error as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ProtocolVersion;
use crate::types::{
    CallToolRequest, CallToolResult, CancelTaskRequest, CancelledNotification, CompleteRequest,
    CompleteResult, CreateMessageRequest, CreateMessageResult, CreateTaskResult, DiscoverRequest,
    DiscoverResult, ElicitRequest, ElicitResult, ElicitationCompleteNotification, EmptyResult,
    GetPromptRequest, GetPromptResult, GetTaskPayloadRequest, GetTaskPayloadResult, GetTaskRequest,
    GetTaskResult, InitializeRequest, InitializeResult, InitializedNotification,
    InputRequiredResult, ListPromptsRequest, ListPromptsResult, ListResourceTemplatesRequest,
    ListResourceTemplatesResult, ListResourcesRequest, ListResourcesResult, ListRootsRequest,
    ListRootsResult, ListTasksRequest, ListTasksResult, ListToolsRequest, ListToolsResult,
    LoggingMessageNotification, META_SUBSCRIPTION_ID, McpNotification, McpRequest, PingRequest,
    ProgressNotification, PromptListChangedNotification, ReadResourceRequest, ReadResourceResult,
    RequestId, ResourceListChangedNotification, ResourceUpdatedNotification, ResultType,
    RootsListChangedNotification, SetLevelRequest, SubscribeRequest,
    SubscriptionsAcknowledgedNotification, SubscriptionsListenRequest, SubscriptionsListenResult,
    TaskStatusNotification, ToolListChangedNotification, UnsubscribeRequest, WireResult,
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

fn unexpected(v: &Value) -> serde::de::Unexpected<'_> {
    use serde::de::Unexpected;
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(_) => Unexpected::Other("a number"),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
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
/// elicitation and roots requests in an [`InputRequiredResult`] instead).
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

/// One way to read a result: the member whose presence selects it, and the parser.
type Candidate<T> = (&'static str, fn(&Value) -> serde_json::Result<T>);

/// Reads `value` as the first candidate whose member is present; if that fails, tries the
/// later candidates whose member is also present, and reports the first failure when none
/// fits. `None` when no candidate's member is present.
fn by_member<T>(value: &Value, candidates: &[Candidate<T>]) -> Option<serde_json::Result<T>> {
    let mut first_err = None;
    for (member, parse) in candidates {
        if value.get(member).is_some() {
            match parse(value) {
                Ok(t) => return Some(Ok(t)),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
    }
    first_err.map(Err)
}

/// Any result a client sends to a server (legacy era: answers to server requests).
///
/// Deserialization picks the variant by member: `model` → [`CreateMessage`](Self::CreateMessage),
/// `roots` → [`ListRoots`](Self::ListRoots), `action` → [`Elicit`](Self::Elicit),
/// `tasks` → [`ListTasks`](Self::ListTasks), `task` → [`CreateTask`](Self::CreateTask),
/// `taskId` → [`GetTask`](Self::GetTask), otherwise [`Empty`](Self::Empty).
/// [`GetTaskPayload`](Self::GetTaskPayload) is the result of the task's own request, so it
/// is never produced by deserialization (the payload reads as its own type); it exists for
/// sending.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientResult {
    /// Answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// Answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// Answer to `elicitation/create`.
    Elicit(ElicitResult),
    /// Answer to a request run as a task (2025-11-25).
    CreateTask(CreateTaskResult),
    /// Answer to `tasks/get` and `tasks/cancel` (2025-11-25).
    GetTask(GetTaskResult),
    /// Answer to `tasks/list` (2025-11-25).
    ListTasks(ListTasksResult),
    /// Answer to `tasks/result` (2025-11-25).
    GetTaskPayload(GetTaskPayloadResult),
    /// Answer to `ping` and other requests that return nothing.
    Empty(EmptyResult),
}

impl Serialize for ClientResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ClientResult::CreateMessage(r) => r.serialize(s),
            ClientResult::ListRoots(r) => r.serialize(s),
            ClientResult::Elicit(r) => r.serialize(s),
            ClientResult::CreateTask(r) => r.serialize(s),
            ClientResult::GetTask(r) => r.serialize(s),
            ClientResult::ListTasks(r) => r.serialize(s),
            ClientResult::GetTaskPayload(r) => r.serialize(s),
            ClientResult::Empty(r) => r.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ClientResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        if !value.is_object() {
            return Err(D::Error::invalid_type(
                unexpected(&value),
                &"a result object",
            ));
        }
        let candidates: [Candidate<ClientResult>; 6] = [
            ("model", |v| {
                CreateMessageResult::deserialize(v).map(ClientResult::CreateMessage)
            }),
            ("roots", |v| {
                ListRootsResult::deserialize(v).map(ClientResult::ListRoots)
            }),
            ("action", |v| {
                ElicitResult::deserialize(v).map(ClientResult::Elicit)
            }),
            ("tasks", |v| {
                ListTasksResult::deserialize(v).map(ClientResult::ListTasks)
            }),
            ("task", |v| {
                CreateTaskResult::deserialize(v).map(ClientResult::CreateTask)
            }),
            ("taskId", |v| {
                GetTaskResult::deserialize(v).map(ClientResult::GetTask)
            }),
        ];
        match by_member(&value, &candidates) {
            Some(r) => r.map_err(D::Error::custom),
            None => EmptyResult::deserialize(value)
                .map(ClientResult::Empty)
                .map_err(D::Error::custom),
        }
    }
}

/// Any result a server sends to a client, in any revision.
///
/// Deserialization picks the variant in this order: `resultType: "input_required"` →
/// [`InputRequired`](Self::InputRequired); then by member: `supportedVersions` →
/// [`Discover`](Self::Discover), `protocolVersion` → [`Initialize`](Self::Initialize),
/// `resourceTemplates`, `resources`, `contents`, `prompts`, `messages` (get prompt),
/// `tools`, `completion`, `content` (call tool), `tasks`, `task`, `taskId`; then a `_meta`
/// naming a subscription → [`SubscriptionsListen`](Self::SubscriptionsListen); otherwise
/// [`Empty`](Self::Empty). As in [`ClientResult`], `GetTaskPayload` is only for sending.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerResult {
    /// 2026: the server needs input from the client before it can answer.
    InputRequired(InputRequiredResult),
    /// Answer to `initialize` (legacy).
    Initialize(InitializeResult),
    /// Answer to `server/discover` (2026).
    Discover(DiscoverResult),
    /// Answer to `resources/list`.
    ListResources(ListResourcesResult),
    /// Answer to `resources/templates/list`.
    ListResourceTemplates(ListResourceTemplatesResult),
    /// Answer to `resources/read`.
    ReadResource(ReadResourceResult),
    /// Answer that closes a `subscriptions/listen` stream (2026).
    SubscriptionsListen(SubscriptionsListenResult),
    /// Answer to `prompts/list`.
    ListPrompts(ListPromptsResult),
    /// Answer to `prompts/get`.
    GetPrompt(GetPromptResult),
    /// Answer to `tools/list`.
    ListTools(ListToolsResult),
    /// Answer to `tools/call`.
    CallTool(CallToolResult),
    /// Answer to `completion/complete`.
    Complete(CompleteResult),
    /// Answer to a request run as a task (2025-11-25).
    CreateTask(CreateTaskResult),
    /// Answer to `tasks/get` and `tasks/cancel` (2025-11-25).
    GetTask(GetTaskResult),
    /// Answer to `tasks/list` (2025-11-25).
    ListTasks(ListTasksResult),
    /// Answer to `tasks/result` (2025-11-25).
    GetTaskPayload(GetTaskPayloadResult),
    /// Answer to `ping` and other requests that return nothing.
    Empty(EmptyResult),
}

macro_rules! server_result_each {
    ($self:expr, $r:ident => $body:expr) => {
        match $self {
            ServerResult::InputRequired($r) => $body,
            ServerResult::Initialize($r) => $body,
            ServerResult::Discover($r) => $body,
            ServerResult::ListResources($r) => $body,
            ServerResult::ListResourceTemplates($r) => $body,
            ServerResult::ReadResource($r) => $body,
            ServerResult::SubscriptionsListen($r) => $body,
            ServerResult::ListPrompts($r) => $body,
            ServerResult::GetPrompt($r) => $body,
            ServerResult::ListTools($r) => $body,
            ServerResult::CallTool($r) => $body,
            ServerResult::Complete($r) => $body,
            ServerResult::CreateTask($r) => $body,
            ServerResult::GetTask($r) => $body,
            ServerResult::ListTasks($r) => $body,
            ServerResult::GetTaskPayload($r) => $body,
            ServerResult::Empty($r) => $body,
        }
    };
}

impl Serialize for ServerResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        server_result_each!(self, r => r.serialize(s))
    }
}

impl WireResult for ServerResult {
    fn prepare_for(&mut self, version: ProtocolVersion) {
        server_result_each!(self, r => r.prepare_for(version))
    }
}

impl<'de> Deserialize<'de> for ServerResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        if !value.is_object() {
            return Err(D::Error::invalid_type(
                unexpected(&value),
                &"a result object",
            ));
        }
        if value.get("resultType").and_then(Value::as_str)
            == Some(ResultType::InputRequired.as_str())
        {
            return InputRequiredResult::deserialize(value)
                .map(ServerResult::InputRequired)
                .map_err(D::Error::custom);
        }
        let candidates: [Candidate<ServerResult>; 13] = [
            ("supportedVersions", |v| {
                DiscoverResult::deserialize(v).map(ServerResult::Discover)
            }),
            ("protocolVersion", |v| {
                InitializeResult::deserialize(v).map(ServerResult::Initialize)
            }),
            ("resourceTemplates", |v| {
                ListResourceTemplatesResult::deserialize(v).map(ServerResult::ListResourceTemplates)
            }),
            ("resources", |v| {
                ListResourcesResult::deserialize(v).map(ServerResult::ListResources)
            }),
            ("contents", |v| {
                ReadResourceResult::deserialize(v).map(ServerResult::ReadResource)
            }),
            ("prompts", |v| {
                ListPromptsResult::deserialize(v).map(ServerResult::ListPrompts)
            }),
            ("messages", |v| {
                GetPromptResult::deserialize(v).map(ServerResult::GetPrompt)
            }),
            ("tools", |v| {
                ListToolsResult::deserialize(v).map(ServerResult::ListTools)
            }),
            ("completion", |v| {
                CompleteResult::deserialize(v).map(ServerResult::Complete)
            }),
            ("content", |v| {
                CallToolResult::deserialize(v).map(ServerResult::CallTool)
            }),
            ("tasks", |v| {
                ListTasksResult::deserialize(v).map(ServerResult::ListTasks)
            }),
            ("task", |v| {
                CreateTaskResult::deserialize(v).map(ServerResult::CreateTask)
            }),
            ("taskId", |v| {
                GetTaskResult::deserialize(v).map(ServerResult::GetTask)
            }),
        ];
        if let Some(r) = by_member(&value, &candidates) {
            return r.map_err(D::Error::custom);
        }
        let names_subscription = value
            .get("_meta")
            .and_then(|m| m.get(META_SUBSCRIPTION_ID))
            .is_some();
        if names_subscription {
            return SubscriptionsListenResult::deserialize(value)
                .map(ServerResult::SubscriptionsListen)
                .map_err(D::Error::custom);
        }
        EmptyResult::deserialize(value)
            .map(ServerResult::Empty)
            .map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn round_trip<T: Serialize + serde::de::DeserializeOwned>(v: Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
        t
    }

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

    #[test]
    fn server_results_pick_the_most_specific_shape() {
        let cases: Vec<(Value, &str)> = vec![
            (
                json!({"resultType": "input_required", "requestState": "s"}),
                "InputRequired",
            ),
            (
                json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "serverInfo": {"name": "s", "version": "1"}}),
                "Initialize",
            ),
            (
                json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                "capabilities": {}, "ttlMs": 0, "cacheScope": "private"}),
                "Discover",
            ),
            (json!({"tools": [], "nextCursor": "n"}), "ListTools"),
            (json!({"prompts": []}), "ListPrompts"),
            (json!({"resources": []}), "ListResources"),
            (json!({"resourceTemplates": []}), "ListResourceTemplates"),
            (
                json!({"contents": [{"uri": "a://b", "text": "t"}]}),
                "ReadResource",
            ),
            (
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": "t"}}]}),
                "GetPrompt",
            ),
            (
                json!({"content": [{"type": "text", "text": "t"}], "isError": true}),
                "CallTool",
            ),
            (
                json!({"content": [], "structuredContent": {"a": 1}}),
                "CallTool",
            ),
            (json!({"completion": {"values": ["a"]}}), "Complete"),
            (
                json!({"resultType": "complete",
                "_meta": {"io.modelcontextprotocol/subscriptionId": 4}}),
                "SubscriptionsListen",
            ),
            (json!({}), "Empty"),
            (json!({"_meta": {"k": 1}, "unknown": true}), "Empty"),
        ];
        for (v, want) in cases {
            let r: ServerResult = round_trip(v.clone());
            let got = format!("{r:?}");
            assert!(got.starts_with(want), "{v} parsed as {got}");
        }
        // A result that names a type but does not fit it is an error, not an empty result.
        assert!(serde_json::from_value::<ServerResult>(json!({"tools": 5})).is_err());
        assert!(serde_json::from_value::<ServerResult>(json!([])).is_err());
    }

    #[test]
    fn server_results_are_prepared_per_era() {
        let mut r: ServerResult = serde_json::from_value(json!({"tools": []})).unwrap();
        r.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(serde_json::to_value(&r).unwrap()["resultType"], "complete");
        r.prepare_for(ProtocolVersion::V2025_03_26);
        assert_eq!(serde_json::to_value(&r).unwrap(), json!({"tools": []}));
    }

    #[test]
    fn client_results_pick_the_most_specific_shape() {
        let cases: Vec<(Value, &str)> = vec![
            (
                json!({"role": "assistant", "content": {"type": "text", "text": "hi"},
                "model": "m", "stopReason": "endTurn"}),
                "CreateMessage",
            ),
            (
                json!({"roots": [{"uri": "file:///a", "name": "a"}]}),
                "ListRoots",
            ),
            (json!({"action": "accept", "content": {"x": 1}}), "Elicit"),
            (json!({"action": "decline"}), "Elicit"),
            (json!({}), "Empty"),
        ];
        for (v, want) in cases {
            let r: ClientResult = round_trip(v.clone());
            let got = format!("{r:?}");
            assert!(got.starts_with(want), "{v} parsed as {got}");
        }
    }

    /// Every official 2026 message example parses as its own variant of the union it
    /// belongs to, and serializes back unchanged.
    #[test]
    fn official_examples_parse_as_their_own_variant() {
        fn check<T: Serialize + serde::de::DeserializeOwned + std::fmt::Debug>(
            folder: &str,
            variant: &str,
        ) -> usize {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../spec/2026-07-28/examples")
                .join(folder);
            let mut n = 0;
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let v: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                let t: T = round_trip(v);
                let got = format!("{t:?}");
                assert!(
                    got.starts_with(&format!("{variant}(")),
                    "{}: {got}",
                    path.display()
                );
                n += 1;
            }
            n
        }
        let mut n = 0;
        for (folder, variant) in [
            ("CallToolRequest", "CallTool"),
            ("CompleteRequest", "Complete"),
            ("DiscoverRequest", "Discover"),
            ("GetPromptRequest", "GetPrompt"),
            ("ListPromptsRequest", "ListPrompts"),
            ("ListResourceTemplatesRequest", "ListResourceTemplates"),
            ("ListResourcesRequest", "ListResources"),
            ("ListToolsRequest", "ListTools"),
            ("ReadResourceRequest", "ReadResource"),
            ("SubscriptionsListenRequest", "SubscriptionsListen"),
        ] {
            n += check::<ClientRequest>(folder, variant);
        }
        for (folder, variant) in [
            ("CreateMessageRequest", "CreateMessage"),
            ("ElicitRequest", "Elicit"),
            ("ListRootsRequest", "ListRoots"),
        ] {
            n += check::<ServerRequest>(folder, variant);
        }
        n += check::<ClientNotification>("CancelledNotification", "Cancelled");
        for (folder, variant) in [
            ("CancelledNotification", "Cancelled"),
            ("LoggingMessageNotification", "LoggingMessage"),
            ("ProgressNotification", "Progress"),
            ("PromptListChangedNotification", "PromptListChanged"),
            ("ResourceListChangedNotification", "ResourceListChanged"),
            ("ResourceUpdatedNotification", "ResourceUpdated"),
            (
                "SubscriptionsAcknowledgedNotification",
                "SubscriptionsAcknowledged",
            ),
            ("ToolListChangedNotification", "ToolListChanged"),
        ] {
            n += check::<ServerNotification>(folder, variant);
        }
        for (folder, variant) in [
            ("CallToolResult", "CallTool"),
            ("CompleteResult", "Complete"),
            ("DiscoverResult", "Discover"),
            ("GetPromptResult", "GetPrompt"),
            ("InputRequiredResult", "InputRequired"),
            ("ListPromptsResult", "ListPrompts"),
            ("ListResourceTemplatesResult", "ListResourceTemplates"),
            ("ListResourcesResult", "ListResources"),
            ("ListToolsResult", "ListTools"),
            ("ReadResourceResult", "ReadResource"),
            ("SubscriptionsListenResult", "SubscriptionsListen"),
        ] {
            n += check::<ServerResult>(folder, variant);
        }
        for (folder, variant) in [
            ("CreateMessageResult", "CreateMessage"),
            ("ElicitResult", "Elicit"),
            ("ListRootsResult", "ListRoots"),
        ] {
            n += check::<ClientResult>(folder, variant);
        }
        assert_eq!(n, 46);
    }
}
