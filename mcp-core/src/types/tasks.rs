//! 2025-11-25 tasks: a request sent with `task` metadata runs in the background; the
//! requester polls it (`tasks/get`), fetches its result (`tasks/result`), lists or cancels
//! it, and may receive `notifications/tasks/status`. No other revision has tasks.
//!
//! [`GetTaskResult`], [`CancelTaskResult`] and [`TaskStatusNotificationParams`] are a
//! [`Task`] plus the result or notification members; the task is a flattened `task` field,
//! whose `extra` map keeps the unknown members.

use serde::{Deserialize, Serialize};

use crate::types::{
    Cursor, JSONObject, NotificationMetaObject, PaginatedRequestParams, RequestId,
    RequestMetaObject, ResultMetaObject, ResultType,
};

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for input from the requester.
    InputRequired,
    /// Finished successfully.
    Completed,
    /// Finished with an error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has finished (completed, failed or cancelled).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// The state of one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
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
    pub ttl: Option<u64>,
    /// Suggested milliseconds between polls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl Task {
    /// A task created (and last updated) at `created_at`, kept without limit.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
    ) -> Self {
        let created_at = created_at.into();
        Task {
            task_id: task_id.into(),
            status,
            status_message: None,
            last_updated_at: created_at.clone(),
            created_at,
            ttl: None,
            poll_interval: None,
            extra: JSONObject::new(),
        }
    }
}

/// The `task` member of a request's params: asks for the request to run as a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskMetadata {
    /// How long, in milliseconds, the requester wants the task kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// Ties a message to a task (under the `io.modelcontextprotocol/related-task` `_meta` key).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTaskMetadata {
    /// The task's id.
    pub task_id: String,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The params members of a request that may run as a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskAugmentedRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// Run as a task, with these settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The immediate answer to a request run as a task: the task just created.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Set only in the modern era, which has no tasks; see
    /// [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The task.
    pub task: Task,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(CreateTaskResult);

/// The params of `tasks/get`, `tasks/result` and `tasks/cancel`: which task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// The task's id.
    pub task_id: String,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl TaskRequestParams {
    /// Params naming task `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        TaskRequestParams {
            task_id: task_id.into(),
            ..Default::default()
        }
    }
}

/// The params of `tasks/get`.
pub type GetTaskRequestParams = TaskRequestParams;
/// The params of `tasks/result`.
pub type GetTaskPayloadRequestParams = TaskRequestParams;
/// The params of `tasks/cancel`.
pub type CancelTaskRequestParams = TaskRequestParams;

/// `tasks/get`: the state of a task.
#[derive(Debug, Clone, PartialEq)]
pub struct GetTaskRequest {
    /// The request id.
    pub id: RequestId,
    /// Which task.
    pub params: TaskRequestParams,
}

request!(GetTaskRequest, "tasks/get", TaskRequestParams => GetTaskResult);

/// The answer to `tasks/get` (and `tasks/cancel`): the task's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Set only in the modern era, which has no tasks; see
    /// [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The task, its members inline; its `extra` keeps unknown members.
    #[serde(flatten)]
    pub task: Task,
}

wire_result!(GetTaskResult);

impl From<Task> for GetTaskResult {
    fn from(task: Task) -> Self {
        GetTaskResult {
            meta: None,
            result_type: None,
            task,
        }
    }
}

/// `tasks/result`: the result of a finished task.
#[derive(Debug, Clone, PartialEq)]
pub struct GetTaskPayloadRequest {
    /// The request id.
    pub id: RequestId,
    /// Which task.
    pub params: TaskRequestParams,
}

request!(GetTaskPayloadRequest, "tasks/result", TaskRequestParams => GetTaskPayloadResult);

/// The answer to `tasks/result`: the result of the request the task ran, whose members are
/// kept in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskPayloadResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Set only in the modern era, which has no tasks; see
    /// [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The members of the task's result.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(GetTaskPayloadResult);

/// `tasks/cancel`: stop a task.
#[derive(Debug, Clone, PartialEq)]
pub struct CancelTaskRequest {
    /// The request id.
    pub id: RequestId,
    /// Which task.
    pub params: TaskRequestParams,
}

request!(CancelTaskRequest, "tasks/cancel", TaskRequestParams => CancelTaskResult);

/// The answer to `tasks/cancel`: the task's state after cancelling; the same shape as
/// [`GetTaskResult`].
pub type CancelTaskResult = GetTaskResult;

/// `tasks/list`: the tasks the requester may see, a page at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct ListTasksRequest {
    /// The request id.
    pub id: RequestId,
    /// The cursor; may be absent.
    pub params: Option<PaginatedRequestParams>,
}

request!(ListTasksRequest, "tasks/list", optional PaginatedRequestParams => ListTasksResult);

/// One page of tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Set only in the modern era, which has no tasks; see
    /// [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The tasks.
    pub tasks: Vec<Task>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(ListTasksResult);

/// `notifications/tasks/status`: a task's status changed.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatusNotification {
    /// The task's new state.
    pub params: TaskStatusNotificationParams,
}

notification!(
    TaskStatusNotification,
    "notifications/tasks/status",
    TaskStatusNotificationParams
);

/// The params of [`TaskStatusNotification`]: the task, its members inline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatusNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
    /// The task; its `extra` keeps unknown members.
    #[serde(flatten)]
    pub task: Task,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::types::WireResult;
    use serde_json::{Value, json};

    fn round_trip<T: serde::de::DeserializeOwned + Serialize>(json: &Value) -> T {
        let typed: T = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&typed).unwrap(), json);
        typed
    }

    fn task_json() -> Value {
        json!({
            "taskId": "t1",
            "status": "input_required",
            "statusMessage": "waiting",
            "createdAt": "2025-11-25T10:00:00Z",
            "lastUpdatedAt": "2025-11-25T10:00:05Z",
            "ttl": null,
            "pollInterval": 500
        })
    }

    #[test]
    fn task_keeps_null_ttl_and_unknown_members() {
        let mut json = task_json();
        json["x-vendor"] = json!(1);
        let t: Task = round_trip(&json);
        assert_eq!(t.status, TaskStatus::InputRequired);
        assert!(t.ttl.is_none() && !t.status.is_terminal());
        assert!(
            serde_json::to_value(Task::new("t", TaskStatus::Working, "now")).unwrap()["ttl"]
                .is_null()
        );
    }

    #[test]
    fn results_and_notification_inline_the_task() {
        let mut get = task_json();
        get["_meta"] = json!({"k": "v"});
        get["extra"] = json!(true);
        let r: GetTaskResult = round_trip(&get);
        assert_eq!(r.task.task_id, "t1");
        assert!(r.task.extra.contains_key("extra"));
        assert!(!r.task.extra.contains_key("_meta"));

        let mut r2 = r.clone();
        r2.prepare_for(ProtocolVersion::V2025_11_25);
        assert_eq!(r2, r);

        round_trip::<CreateTaskResult>(&json!({"task": task_json()}));
        round_trip::<ListTasksResult>(&json!({"tasks": [task_json()], "nextCursor": "c"}));
        round_trip::<GetTaskPayloadResult>(&json!({"content": [], "isError": false}));

        let note = json!({
            "jsonrpc": "2.0",
            "method": "notifications/tasks/status",
            "params": task_json()
        });
        let n: TaskStatusNotification = round_trip(&note);
        assert_eq!(n.params.task.poll_interval, Some(500));
    }

    #[test]
    fn requests_round_trip() {
        let req = |method: &str| json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"taskId": "t1"}});
        round_trip::<GetTaskRequest>(&req("tasks/get"));
        round_trip::<GetTaskPayloadRequest>(&req("tasks/result"));
        round_trip::<CancelTaskRequest>(&req("tasks/cancel"));
        assert!(serde_json::from_value::<GetTaskRequest>(req("tasks/cancel")).is_err());
        round_trip::<ListTasksRequest>(
            &json!({"jsonrpc": "2.0", "id": "a", "method": "tasks/list"}),
        );
        let p: TaskAugmentedRequestParams =
            round_trip(&json!({"_meta": {"progressToken": 1}, "task": {"ttl": 60000}}));
        assert_eq!(p.task.unwrap().ttl, Some(60000));
        round_trip::<RelatedTaskMetadata>(&json!({"taskId": "t1"}));
    }
}
