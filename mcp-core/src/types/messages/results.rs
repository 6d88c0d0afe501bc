//! Results: unions with no discriminator on the wire, read by the members present.

use serde::de::Error as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ProtocolVersion;
use crate::types::content::unexpected;
use crate::types::{
    CallToolResult, CompleteResult, CreateMessageResult, CreateTaskResult, DiscoverResult,
    ElicitResult, EmptyResult, GetPromptResult, GetTaskPayloadResult, GetTaskResult,
    InitializeResult, InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListRootsResult, ListTasksResult, ListToolsResult, META_SUBSCRIPTION_ID,
    ReadResourceResult, ResultType, SubscriptionsListenResult, WireResult,
};

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
    use crate::types::messages::tests::round_trip;

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
}
