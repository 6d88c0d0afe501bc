//! Tool calls run as tasks, in both eras: 2025-11-25 tasks (`task` in the call's params,
//! `tasks/get`, `tasks/result`, `tasks/cancel`) and the 2026-07-28 tasks extension (a call
//! answered with `resultType: "task"`, polled with `tasks/get`, which carries the result).

use std::time::Duration;

use ferromcp_core::Era;
use ferromcp_core::types::{
    CallToolRequestParams, CallToolResult, CreateTaskExtensionResult, CreateTaskResult,
    DetailedTaskResult, GetTaskResult, TaskMetadata, TaskStatus,
};
use serde_json::{Value, json};

use crate::client::{Client, parse};
use crate::error::{Error, Result};

/// A task's state, in either era.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskInfo {
    /// The task's id.
    pub id: String,
    /// Its status.
    pub status: TaskStatus,
    /// The server's note on the status.
    pub status_message: Option<String>,
    /// How often the server suggests polling.
    pub poll_interval: Option<Duration>,
}

/// What starting a tool as a task gave.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ToolRun {
    /// The server ran the call at once (it may decline to make a task).
    Complete(Box<CallToolResult>),
    /// A task was created.
    Task(TaskInfo),
}

fn info_2025(t: ferromcp_core::types::Task) -> TaskInfo {
    TaskInfo {
        id: t.task_id,
        status: t.status,
        status_message: t.status_message,
        poll_interval: t.poll_interval.map(Duration::from_millis),
    }
}

fn info_2026(t: ferromcp_core::types::TaskState) -> TaskInfo {
    TaskInfo {
        id: t.task_id,
        status: t.status,
        status_message: t.status_message,
        poll_interval: t.poll_interval_ms.map(Duration::from_millis),
    }
}

impl Client {
    fn is_modern(&self) -> bool {
        self.protocol_version().era() == Era::Modern
    }

    /// Calls a tool as a task. In 2025-11-25 the call asks for one (`task` in its params);
    /// in 2026 the client must declare the `io.modelcontextprotocol/tasks` extension in its
    /// capabilities, and the server chooses.
    pub async fn start_tool_task(&self, mut params: CallToolRequestParams) -> Result<ToolRun> {
        if !self.is_modern() && params.task.is_none() {
            params.task = Some(TaskMetadata::default());
        }
        let params = serde_json::to_value(params)
            .map_err(|e| Error::Unsupported(format!("tool call params: {e}")))?;
        let v = self.request_value("tools/call", Some(params)).await?;
        if v.get("task").is_some() {
            let created: CreateTaskResult = parse("tools/call", v)?;
            return Ok(ToolRun::Task(info_2025(created.task)));
        }
        if v.get("resultType").and_then(Value::as_str) == Some("task") {
            let created: CreateTaskExtensionResult = parse("tools/call", v)?;
            return Ok(ToolRun::Task(info_2026(created.task)));
        }
        Ok(ToolRun::Complete(Box::new(parse("tools/call", v)?)))
    }

    /// `tasks/get`: the task's state now.
    pub async fn get_task(&self, id: &str) -> Result<TaskInfo> {
        let v = self
            .request_value("tasks/get", Some(json!({"taskId": id})))
            .await?;
        if self.is_modern() {
            let got: DetailedTaskResult = parse("tasks/get", v)?;
            return Ok(info_2026(got.task));
        }
        let got: GetTaskResult = parse("tasks/get", v)?;
        Ok(info_2025(got.task))
    }

    /// The tool's result once the task is done: `tasks/result` (which waits) in 2025; in
    /// 2026 `tasks/get` polled at the server's interval (a second by default) until the
    /// task ends. A failed task's error is [`Error::Protocol`].
    pub async fn task_result(&self, id: &str) -> Result<CallToolResult> {
        if !self.is_modern() {
            return self.call("tasks/result", json!({"taskId": id})).await;
        }
        loop {
            let v = self
                .request_value("tasks/get", Some(json!({"taskId": id})))
                .await?;
            let got: DetailedTaskResult = parse("tasks/get", v)?;
            if let Some(e) = got.error {
                return Err(Error::Protocol(e));
            }
            if let Some(result) = got.result {
                return parse("tasks/get", result);
            }
            if got.task.status.is_terminal() {
                return Err(Error::InvalidMessage(format!(
                    "task {id} ended ({:?}) without a result",
                    got.task.status
                )));
            }
            let wait = got.task.poll_interval_ms.unwrap_or(1000);
            tokio::time::sleep(Duration::from_millis(wait)).await;
        }
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, id: &str) -> Result<()> {
        self.request_value("tasks/cancel", Some(json!({"taskId": id})))
            .await
            .map(drop)
    }
}
