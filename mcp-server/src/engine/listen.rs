//! `subscriptions/listen` (2026): a long-lived stream of the change notifications the client
//! opted in to — acknowledged first, each tagged with the subscription's id, nothing the
//! client did not ask for. With the tasks extension, `taskIds` asks for
//! `notifications/tasks` on those tasks: their state right after the acknowledgement, then
//! each change until they end.

use std::collections::HashSet;
use std::sync::Arc;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{RequestId, WireNotification};
use ferromcp_core::types::{
    META_SUBSCRIPTION_ID, SubscriptionFilter, TASK_IDS_FILTER, TASK_NOTIFICATION, TASKS_EXTENSION,
};
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::Engine;
use super::tasks::TaskChange;
use crate::context::Client;
use crate::peer::sink::Sink;
use crate::registry::RegistryEvent;

/// The most task ids one listen request may name.
const MAX_TASK_IDS: usize = 1_000;

/// The tasks a listen stream follows.
struct TaskFeed {
    engine: Engine,
    owner: Option<String>,
    /// The tasks not ended yet.
    ids: HashSet<String>,
    changes: broadcast::Receiver<Arc<TaskChange>>,
    /// Their state when the stream was accepted, sent right after the acknowledgement.
    initial: Vec<Value>,
}

impl std::fmt::Debug for TaskFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskFeed")
            .field("ids", &self.ids)
            .finish_non_exhaustive()
    }
}

/// Whether a task, as `tasks/get` answers it, has ended.
fn ended(task: &Value) -> bool {
    matches!(
        task.get("status").and_then(Value::as_str),
        Some("completed" | "failed" | "cancelled")
    )
}

/// The `taskIds` of a listen filter: `None` when absent.
fn task_ids(filter: &SubscriptionFilter) -> Result<Option<Vec<String>>, ErrorObject> {
    let Some(value) = filter.extra.get(TASK_IDS_FILTER) else {
        return Ok(None);
    };
    let mut ids: Vec<String> = serde_json::from_value(value.clone()).map_err(|_| {
        ErrorObject::invalid_params("`notifications.taskIds` must be an array of task ids")
    })?;
    if ids.len() > MAX_TASK_IDS {
        return Err(ErrorObject::invalid_params(format!(
            "`notifications.taskIds` names {} tasks; at most {MAX_TASK_IDS} per stream",
            ids.len()
        )));
    }
    // Each once, in the order asked.
    let mut seen = HashSet::new();
    ids.retain(|id| seen.insert(id.clone()));
    Ok(Some(ids))
}

/// An accepted `subscriptions/listen` request, ready to stream.
#[derive(Debug)]
pub(crate) struct Listen {
    pub(crate) id: RequestId,
    /// What the server agreed to send: the requested types it supports.
    pub(crate) filter: SubscriptionFilter,
    events: broadcast::Receiver<RegistryEvent>,
    tasks: Option<TaskFeed>,
    /// The request's cancellation: its id stays in flight while the stream lasts, so a
    /// `notifications/cancelled` (stdio) or a closed HTTP stream ends it.
    cancel: CancellationToken,
    /// The observer's guard, held while the stream is open.
    _observed: Option<crate::observe::Guard>,
}

impl Listen {
    /// Accepts a listen request; subscribes to changes at once, so none is missed between
    /// the acknowledgement and the first notification.
    ///
    /// # Errors
    ///
    /// -32602 for a malformed `taskIds`; -32021 when it names tasks and the request does
    /// not declare the tasks extension.
    pub(crate) async fn new(
        server: &Engine,
        id: RequestId,
        requested: SubscriptionFilter,
        client: &Client,
        cancel: CancellationToken,
    ) -> Result<Listen, ErrorObject> {
        let offers = server.registry().offers();
        let yes =
            |asked: Option<bool>, offered: bool| (asked == Some(true) && offered).then_some(true);
        let asked_tasks = task_ids(&requested)?.filter(|ids| !ids.is_empty());
        if asked_tasks.is_some() && !client.capabilities.supports_extension(TASKS_EXTENSION) {
            return Err(super::tasks::missing_extension());
        }
        let mut filter = SubscriptionFilter {
            tools_list_changed: yes(requested.tools_list_changed, offers.tools),
            prompts_list_changed: yes(requested.prompts_list_changed, offers.prompts),
            resources_list_changed: yes(requested.resources_list_changed, offers.resources),
            resource_subscriptions: requested
                .resource_subscriptions
                .filter(|uris| offers.resources && !uris.is_empty()),
            ..Default::default()
        };
        let events = server.registry().subscribe();
        let mut tasks = None;
        if let Some(asked) = asked_tasks.filter(|_| offers.tasks) {
            // Subscribed before the tasks are read: a change in between is sent (twice at
            // worst), never lost.
            let changes = server.tasks().changes();
            let owner = client.task_owner();
            let found = server.watchable_tasks(&asked, owner.as_deref()).await?;
            if !found.is_empty() {
                filter.extra.insert(
                    TASK_IDS_FILTER.to_owned(),
                    found
                        .iter()
                        .map(|(id, _)| Value::from(id.as_str()))
                        .collect(),
                );
                tasks = Some(TaskFeed {
                    engine: server.clone(),
                    owner,
                    ids: found
                        .iter()
                        .filter(|(_, task)| !ended(task))
                        .map(|(id, _)| id.clone())
                        .collect(),
                    changes,
                    initial: found.into_iter().map(|(_, task)| task).collect(),
                });
            }
        }
        Ok(Listen {
            id,
            filter,
            events,
            tasks,
            cancel,
            _observed: server.config().observer.on_listen(),
        })
    }

    fn tag(&self) -> Value {
        json!({ META_SUBSCRIPTION_ID: self.id })
    }

    fn message(&self, method: &str, mut params: Value) -> Option<String> {
        if let Value::Object(map) = &mut params {
            map.insert("_meta".into(), self.tag());
        }
        ferromcp_core::jsonrpc::to_string(&WireNotification::new(method, Some(&params))).ok()
    }

    /// The acknowledgement, the stream's first message.
    pub(crate) fn acknowledgement(&self) -> Option<String> {
        let filter = serde_json::to_value(&self.filter).ok()?;
        self.message(
            "notifications/subscriptions/acknowledged",
            json!({ "notifications": filter }),
        )
    }

    /// The notification for one registry event, if the client opted in to it.
    fn notification(&self, event: &RegistryEvent) -> Option<String> {
        let f = &self.filter;
        match event {
            RegistryEvent::ToolsChanged if f.tools_list_changed == Some(true) => {
                self.message("notifications/tools/list_changed", json!({}))
            }
            RegistryEvent::PromptsChanged if f.prompts_list_changed == Some(true) => {
                self.message("notifications/prompts/list_changed", json!({}))
            }
            RegistryEvent::ResourcesChanged if f.resources_list_changed == Some(true) => {
                self.message("notifications/resources/list_changed", json!({}))
            }
            RegistryEvent::ResourceUpdated(uri)
                if f.resource_subscriptions
                    .as_ref()
                    .is_some_and(|u| u.contains(uri)) =>
            {
                self.message("notifications/resources/updated", json!({ "uri": uri }))
            }
            _ => None,
        }
    }

    /// Streams: the acknowledgement, then the notifications, until `cancel` fires or the
    /// peer goes away. Returns the final result to send when the server ended the stream
    /// itself (`shutdown`), or `None` when the client ended it.
    pub(crate) async fn run(mut self, sink: Sink, shutdown: CancellationToken) -> Option<String> {
        let cancel = self.cancel.clone();
        if let Some(ack) = self.acknowledgement() {
            sink.send(ack).await;
        }
        let initial = self
            .tasks
            .as_mut()
            .map(|feed| std::mem::take(&mut feed.initial))
            .unwrap_or_default();
        for task in initial {
            if let Some(message) = self.message(TASK_NOTIFICATION, task) {
                sink.send(message).await;
            }
        }
        loop {
            tokio::select! {
                biased;
                () = cancel.cancelled() => return None,
                () = shutdown.cancelled() => {
                    let result = json!({
                        "resultType": "complete",
                        "_meta": { META_SUBSCRIPTION_ID: self.id }
                    });
                    return ferromcp_core::jsonrpc::to_string(&ferromcp_core::jsonrpc::WireResponse::new(&self.id, &result)).ok();
                }
                event = self.events.recv() => match event {
                    Ok(event) => {
                        if let Some(message) = self.notification(&event) {
                            sink.send(message).await;
                        }
                    }
                    // Missed events: the lists may have changed in any way; say so.
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        for event in [RegistryEvent::ToolsChanged, RegistryEvent::PromptsChanged, RegistryEvent::ResourcesChanged] {
                            if let Some(message) = self.notification(&event) {
                                sink.send(message).await;
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                change = next_change(&mut self.tasks) => {
                    for task in self.task_notifications(change).await {
                        if let Some(message) = self.message(TASK_NOTIFICATION, task) {
                            sink.send(message).await;
                        }
                    }
                }
            }
            if !sink.is_connected() {
                return None;
            }
        }
    }

    /// What one step of the task feed gives the client: the changed task if it follows it;
    /// after falling behind, the current state of every task it follows.
    async fn task_notifications(
        &mut self,
        change: Result<Arc<TaskChange>, broadcast::error::RecvError>,
    ) -> Vec<Value> {
        let Some(feed) = self.tasks.as_mut() else {
            return Vec::new();
        };
        let sent = match change {
            Ok(change) if feed.ids.contains(&change.id) => {
                if change.ended {
                    feed.ids.remove(&change.id);
                }
                vec![change.task.clone()]
            }
            Ok(_) => Vec::new(),
            Err(broadcast::error::RecvError::Lagged(_)) => {
                let ids: Vec<String> = feed.ids.iter().cloned().collect();
                match feed
                    .engine
                    .watchable_tasks(&ids, feed.owner.as_deref())
                    .await
                {
                    Ok(found) => {
                        // Tasks gone from the store (expired) are no longer followed.
                        feed.ids = found
                            .iter()
                            .filter(|(_, task)| !ended(task))
                            .map(|(id, _)| id.clone())
                            .collect();
                        found.into_iter().map(|(_, task)| task).collect()
                    }
                    Err(e) => {
                        tracing::warn!(error = %e.message, "cannot re-read the followed tasks");
                        Vec::new()
                    }
                }
            }
            Err(broadcast::error::RecvError::Closed) => {
                feed.ids.clear();
                Vec::new()
            }
        };
        if feed.ids.is_empty() {
            // Every followed task has ended: stop listening for tasks.
            self.tasks = None;
        }
        sent
    }
}

/// The next change of the tasks a stream follows; never, when it follows none.
async fn next_change(
    feed: &mut Option<TaskFeed>,
) -> Result<Arc<TaskChange>, broadcast::error::RecvError> {
    match feed {
        Some(feed) => feed.changes.recv().await,
        None => std::future::pending().await,
    }
}
