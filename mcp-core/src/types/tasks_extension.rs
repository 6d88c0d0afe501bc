//! 2026-07-28 tasks, the `io.modelcontextprotocol/tasks` extension (SEP-2663): a
//! `tools/call` from a client that declares the extension may be answered with a task
//! (`resultType: "task"`), which the client polls with `tasks/get` (the result, error or
//! pending input requests inline), answers with `tasks/update` and stops with
//! `tasks/cancel`. The core 2026 schema has none of these; their shapes follow the
//! extension. Durations are integer milliseconds named `…Ms`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::rpc_error::ErrorObject;
use crate::types::{
    InputRequest, JSONObject, RequestMetaObject, ResultMetaObject, ResultType, TaskStatus,
};

/// The extension's id, under `capabilities.extensions` of both sides.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The notification that carries a task's new state (the same members as the answer to
/// `tasks/get`), sent on a `subscriptions/listen` stream that asked for the task.
pub const TASK_NOTIFICATION: &str = "notifications/tasks";

/// The member of a `subscriptions/listen` filter (and of its acknowledgement) that lists
/// the ids of the tasks whose changes the client wants as [`TASK_NOTIFICATION`]s.
pub const TASK_IDS_FILTER: &str = "taskIds";

/// The `_meta` key that ties a message to a task (2025-11-25; [`RelatedTaskMetadata`]
/// is its value).
///
/// [`RelatedTaskMetadata`]: crate::types::RelatedTaskMetadata
pub const RELATED_TASK_META_KEY: &str = "io.modelcontextprotocol/related-task";

/// A task's state in the 2026 extension: the members every task answer carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskState {
    /// The task's id.
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// A human-readable note on the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When it last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long, in milliseconds from creation, it is kept; `null` (always written) for no
    /// limit.
    pub ttl_ms: Option<u64>,
    /// Suggested milliseconds between polls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The answer to a request the server runs as a task: `resultType: "task"` and the task's
/// state, flat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskExtensionResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// `"task"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The task just created.
    #[serde(flatten)]
    pub task: TaskState,
}

impl CreateTaskExtensionResult {
    /// The answer announcing `task`.
    pub fn new(task: TaskState) -> Self {
        CreateTaskExtensionResult {
            meta: None,
            result_type: Some(ResultType::Task),
            task,
        }
    }
}

wire_result!(CreateTaskExtensionResult);

/// The answer to `tasks/get`: the task's state and, by status, the result (`completed`),
/// the error (`failed`) or the input requests waiting for `tasks/update`
/// (`input_required`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTaskResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// `"complete"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The task.
    #[serde(flatten)]
    pub task: TaskState,
    /// A completed task's result, as the request would have returned it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// A failed task's protocol error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// An `input_required` task's unanswered requests, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<BTreeMap<String, InputRequest>>,
}

wire_result!(DetailedTaskResult);

/// The params of `tasks/update`: answers to some of a task's input requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// The task's id.
    pub task_id: String,
    /// Answers, keyed as the task's `inputRequests`.
    pub input_responses: BTreeMap<String, Value>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::types::WireResult;
    use serde_json::json;

    fn state() -> TaskState {
        TaskState {
            task_id: "t1".into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: "2026-07-28T10:00:00Z".into(),
            last_updated_at: "2026-07-28T10:00:00Z".into(),
            ttl_ms: Some(60_000),
            poll_interval_ms: Some(500),
            extra: JSONObject::new(),
        }
    }

    #[test]
    fn create_result_is_flat_and_says_task() {
        let mut r = CreateTaskExtensionResult::new(state());
        r.prepare_for(ProtocolVersion::V2026_07_28);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["resultType"], "task");
        assert_eq!(v["taskId"], "t1");
        assert_eq!(v["ttlMs"], 60_000);
        assert_eq!(v["pollIntervalMs"], 500);
        assert!(v.get("task").is_none() && v.get("ttl").is_none());
        let back: CreateTaskExtensionResult = serde_json::from_value(v).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn detailed_task_carries_only_what_its_status_has() {
        let mut r = DetailedTaskResult {
            meta: None,
            result_type: None,
            task: TaskState {
                status: TaskStatus::Failed,
                ttl_ms: None,
                ..state()
            },
            result: None,
            error: Some(ErrorObject::internal_error("boom")),
            input_requests: None,
        };
        r.prepare_for(ProtocolVersion::V2026_07_28);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["resultType"], "complete");
        assert_eq!(v["error"]["code"], -32603);
        assert!(v["ttlMs"].is_null() && v.get("result").is_none());
        let p: UpdateTaskRequestParams = serde_json::from_value(
            json!({"taskId": "t1", "inputResponses": {"k": {"action": "accept"}}}),
        )
        .unwrap();
        assert_eq!(p.input_responses.len(), 1);
    }
}
