//! `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` (2025-11-25) and `tasks/get`,
//! `tasks/update`, `tasks/cancel` (the 2026 extension).

use std::time::SystemTime;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::Request;
use ferromcp_core::types::{
    EmptyResult, GetTaskResult, ListTasksResult, PaginatedRequestParams, RELATED_TASK_META_KEY,
    TASKS_EXTENSION, TaskRequestParams, TaskStatus, UpdateTaskRequestParams,
};
use ferromcp_core::{Era, ProtocolVersion};
use serde_json::Value;

use super::super::{Engine, Reply, Response, Scope, parse_params};
use super::call::missing_extension;
use super::{TaskOutcome, TaskRecord, detailed, legacy_task};
use crate::peer::sink::Sink;

impl Engine {
    /// A `tasks/*` request, in the form of the request's era.
    pub(in crate::engine) async fn task_request(
        &self,
        req: &Request,
        scope: &Scope<'_>,
        sink: &Sink,
    ) -> Result<Reply, ErrorObject> {
        match scope.client.version.era() {
            Era::Legacy => self.legacy_task_request(req, scope, sink).await,
            Era::Modern => self.modern_task_request(req, scope).await,
        }
    }

    /// `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` of 2025-11-25.
    async fn legacy_task_request(
        &self,
        req: &Request,
        scope: &Scope<'_>,
        sink: &Sink,
    ) -> Result<Reply, ErrorObject> {
        let version = scope.client.version;
        let params = req.params.as_ref();
        if version < ProtocolVersion::V2025_11_25 {
            return Err(ErrorObject::method_not_found(&req.method));
        }
        let owner = scope.client.task_owner();
        let owner = owner.as_deref();
        if req.method == "tasks/list" {
            let p: PaginatedRequestParams = parse_params(params)?;
            return self
                .list_tasks(req, version, owner, p.cursor.as_deref())
                .await;
        }
        let p: TaskRequestParams = parse_params(params)?;
        let record = self.find(&p.task_id, Era::Legacy, owner).await?;
        match req.method.as_str() {
            "tasks/get" => {
                let running = self.tasks().running(&record.id);
                let result = GetTaskResult::from(legacy_task(&record, running.as_deref()));
                Ok(Reply::Response(self.respond(&req.id, version, result)))
            }
            "tasks/result" => self.task_result(req, record, sink).await,
            "tasks/cancel" => {
                let cancelled = self.cancel_task(record).await?.ok_or_else(|| {
                    ErrorObject::invalid_params(
                        "the task has already ended and cannot be cancelled",
                    )
                })?;
                let result = GetTaskResult::from(legacy_task(&cancelled, None));
                Ok(Reply::Response(self.respond(&req.id, version, result)))
            }
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` of the 2026 tasks extension.
    async fn modern_task_request(
        &self,
        req: &Request,
        scope: &Scope<'_>,
    ) -> Result<Reply, ErrorObject> {
        let version = scope.client.version;
        let params = req.params.as_ref();
        let owner = scope.client.task_owner();
        // `tasks/result` and `tasks/list` are not part of the extension.
        if !matches!(
            req.method.as_str(),
            "tasks/get" | "tasks/update" | "tasks/cancel"
        ) {
            return Err(ErrorObject::method_not_found(&req.method));
        }
        // A server with no tool that runs as a task does not offer the extension
        // (`server/discover` says so): its methods are not implemented here (404
        // over HTTP), rather than a request to declare what the server lacks.
        if !self.registry().offers().tasks {
            return Err(ErrorObject::method_not_found(&req.method));
        }
        if !scope
            .client
            .capabilities
            .supports_extension(TASKS_EXTENSION)
        {
            return Err(missing_extension());
        }
        if req.method == "tasks/update" {
            let p: UpdateTaskRequestParams = parse_params(params)?;
            let record = self.find(&p.task_id, Era::Modern, owner.as_deref()).await?;
            return self.update_task(req, version, record, p);
        }
        let p: TaskRequestParams = parse_params(params)?;
        let record = self.find(&p.task_id, Era::Modern, owner.as_deref()).await?;
        if req.method == "tasks/cancel" {
            // Cancelling an ended task changes nothing and is acknowledged alike.
            self.cancel_task(record).await?;
            return Ok(Reply::Response(self.respond(
                &req.id,
                version,
                EmptyResult::default(),
            )));
        }
        let running = self.tasks().running(&record.id);
        let detailed = detailed(&record, running.as_deref());
        Ok(Reply::Response(self.respond(&req.id, version, detailed)))
    }

    /// `tasks/update`: the client's answers handed to the task waiting for them.
    fn update_task(
        &self,
        req: &Request,
        version: ProtocolVersion,
        record: TaskRecord,
        p: UpdateTaskRequestParams,
    ) -> Result<Reply, ErrorObject> {
        match self.tasks().running(&record.id) {
            Some(running) => {
                running.ctx.deliver_inputs(p.input_responses);
            }
            // Waiting for input on another instance (a shared store): the answers
            // cannot reach it from here; saying so beats dropping them.
            None if record.status == TaskStatus::InputRequired => {
                return Err(ErrorObject::internal_error(
                    "the task runs on another instance of this server; send tasks/update to it \
                     (route tasks/* by their Mcp-Name header)",
                ));
            }
            None => {}
        }
        Ok(Reply::Response(self.respond(
            &req.id,
            version,
            EmptyResult::default(),
        )))
    }

    /// The task with this id, if the requester may see it: a task of the other era or of
    /// another owner is answered as unknown.
    async fn find(
        &self,
        id: &str,
        era: Era,
        owner: Option<&str>,
    ) -> Result<TaskRecord, ErrorObject> {
        let record = self
            .tasks()
            .store
            .get(id)
            .await
            .map_err(|e| ErrorObject::internal_error(format!("task store: {e}")))?;
        record
            .filter(|r| r.version.era() == era && r.owner.as_deref() == owner)
            .ok_or_else(|| ErrorObject::invalid_params(format!("unknown task: {id}")))
    }

    /// The 2026 tasks among `ids` that `owner` may see, each as `tasks/get` would answer
    /// it now (without `resultType`); ids of unknown tasks, of other owners' and of 2025
    /// tasks, and tasks the store failed to read, are left out.
    pub(in crate::engine) async fn watchable_tasks(
        &self,
        ids: &[String],
        owner: Option<&str>,
    ) -> Result<Vec<(String, Value)>, ErrorObject> {
        let mut found = Vec::new();
        for id in ids {
            match self.find(id, Era::Modern, owner).await {
                Ok(record) => {
                    let running = self.tasks().running(&record.id);
                    let task = serde_json::to_value(detailed(&record, running.as_deref()))
                        .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
                    found.push((record.id, task));
                }
                Err(e) if e.code == ferromcp_core::error::ErrorCode::INVALID_PARAMS => {}
                // One task the store failed to read is left out, not the whole request.
                Err(e) => tracing::warn!(task = %id, error = %e.message, "cannot read a task"),
            }
        }
        Ok(found)
    }

    /// Cancels a task that has not ended: its record says `cancelled` first, then its
    /// handler is stopped. `None` when it had ended already.
    async fn cancel_task(&self, mut record: TaskRecord) -> Result<Option<TaskRecord>, ErrorObject> {
        if record.status.is_terminal() {
            return Ok(None);
        }
        record.status = TaskStatus::Cancelled;
        record.status_message = Some("cancelled by the client".to_owned());
        record.last_updated_at = SystemTime::now();
        let stored = self
            .tasks()
            .store
            .update(record.clone())
            .await
            .map_err(|e| ErrorObject::internal_error(format!("task store: {e}")))?;
        if let Some(running) = self.tasks().running(&record.id) {
            running.cancel.cancel();
        }
        if stored {
            self.tasks().announce(&record, None);
        }
        Ok(stored.then_some(record))
    }

    /// 2025-11-25 `tasks/result`: waits for the task to end, then answers exactly what the
    /// request would have, tied to the task.
    ///
    /// Meanwhile the task's messages — the requests it makes of the client, its status
    /// notifications — go on this request's stream, those held for want of one first.
    async fn task_result(
        &self,
        req: &Request,
        mut record: TaskRecord,
        sink: &Sink,
    ) -> Result<Reply, ErrorObject> {
        if let Some(running) = self.tasks().running(&record.id)
            && let Sink::Routed(route) = &running.sink
        {
            route.attach(sink.clone()).await;
        }
        while !record.status.is_terminal() {
            match self.tasks().running(&record.id) {
                Some(running) => running.ended.cancelled().await,
                // Run elsewhere (a shared store): poll it.
                None => tokio::time::sleep(self.tasks().limits.poll_interval).await,
            }
            record = self
                .find(&record.id, Era::Legacy, record.owner.as_deref())
                .await?;
        }
        let related = serde_json::json!({ "taskId": record.id });
        match record.outcome {
            Some(TaskOutcome::Result(Value::Object(mut result))) => {
                let meta = result
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Default::default()));
                if let Value::Object(meta) = meta {
                    meta.insert(RELATED_TASK_META_KEY.to_owned(), related);
                }
                Ok(Reply::Response(self.respond_raw(&req.id, &result)))
            }
            Some(TaskOutcome::Result(other)) => {
                Ok(Reply::Response(self.respond_raw(&req.id, &other)))
            }
            Some(TaskOutcome::Error(mut e)) => {
                if e.data.is_none() {
                    e = e.with_data(serde_json::json!({ RELATED_TASK_META_KEY: related }));
                }
                Ok(Reply::Response(Response::error(Some(&req.id), &e)))
            }
            None => Err(ErrorObject::internal_error(format!(
                "the task was {} before it produced a result",
                match record.status {
                    TaskStatus::Cancelled => "cancelled",
                    _ => "ended",
                }
            ))),
        }
    }

    /// 2025-11-25 `tasks/list`: the requester's tasks, a page at a time.
    async fn list_tasks(
        &self,
        req: &Request,
        version: ProtocolVersion,
        owner: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Reply, ErrorObject> {
        let page = self
            .tasks()
            .store
            .list(owner, cursor, self.tasks().limits.page_size)
            .await
            .map_err(|e| match e {
                super::TaskStoreError::InvalidCursor => {
                    ErrorObject::invalid_params("invalid cursor")
                }
                e => ErrorObject::internal_error(format!("task store: {e}")),
            })?;
        let tasks = page
            .tasks
            .iter()
            .filter(|r| r.version.era() == Era::Legacy)
            .map(|r| legacy_task(r, self.tasks().running(&r.id).as_deref()))
            .collect();
        let result = ListTasksResult {
            tasks,
            next_cursor: page.next_cursor,
            ..Default::default()
        };
        Ok(Reply::Response(self.respond(&req.id, version, result)))
    }
}
