//! Tasks: tool calls that outlive their request (2025-11-25 task-augmented requests and
//! the 2026-07-28 `io.modelcontextprotocol/tasks` extension).
//!
//! A [`TaskStore`] (in [`crate::store`]) keeps task records; [`call`] decides whether a
//! `tools/call` becomes a task and runs it in the background; [`methods`] answers
//! `tasks/*`. The running part of a task — its handler's future, its cancellation token,
//! its pending input requests — lives here, in [`Tasks`], with the process that runs it.

mod call;
mod methods;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ferromcp_core::types::{DetailedTaskResult, Task, TaskState, TaskStatus};
use serde_json::Value;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::context::Context;
use crate::peer::sink::Sink;
pub use crate::store::{
    MemoryTaskStore, TaskOutcome, TaskPage, TaskRecord, TaskStore, TaskStoreError,
};
use crate::sync::lock;
pub(in crate::engine) use call::TaskCall;
pub(crate) use call::missing_extension;

/// The limits of a server's tasks, set by `ServerBuilder`.
#[derive(Debug, Clone)]
pub(crate) struct TaskLimits {
    /// Tasks running at once in this process; past it a call that would start one fails.
    pub(crate) max_running: usize,
    /// How long a task is kept when the client does not say (2025) or cannot (2026).
    pub(crate) default_ttl: Duration,
    /// The longest a client may ask a task to be kept.
    pub(crate) max_ttl: Duration,
    /// The polling interval suggested to clients.
    pub(crate) poll_interval: Duration,
    /// Tasks per `tasks/list` page.
    pub(crate) page_size: usize,
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits {
            max_running: 1_000,
            default_ttl: Duration::from_secs(3_600),
            max_ttl: Duration::from_secs(24 * 3_600),
            poll_interval: Duration::from_millis(500),
            page_size: 100,
        }
    }
}

/// A task running in this process.
pub(crate) struct Running {
    /// The handler's context: its pending input requests and its link.
    ctx: Context,
    /// Stops the handler (`tasks/cancel`, the time to live, shutdown).
    cancel: CancellationToken,
    /// Fires when the task has ended and its record says so.
    ended: CancellationToken,
    /// Where a legacy task's status notifications go.
    sink: Sink,
}

/// A 2026 task's new state, for the `subscriptions/listen` streams that asked for it.
#[derive(Debug)]
pub(crate) struct TaskChange {
    pub(crate) id: String,
    /// Whether the task has ended (no change follows).
    pub(crate) ended: bool,
    /// The task as `tasks/get` would answer it, without `resultType`.
    pub(crate) task: Value,
    /// Relayed from another instance (a notification bus): not published again.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) remote: bool,
}

/// How many changes a listen stream may fall behind before it re-reads its tasks.
const CHANGES_BUFFERED: usize = 256;

/// The tasks of one server: the store, what runs here, and the limits.
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    running: Mutex<HashMap<String, Arc<Running>>>,
    tracker: TaskTracker,
    shutdown: CancellationToken,
    limits: TaskLimits,
    /// 2026 tasks' changes; built only while a listen stream asks for tasks.
    changes: broadcast::Sender<Arc<TaskChange>>,
    /// 2025 tasks' status notifications (owner, message), for a notification bus to carry
    /// to the instance holding the session's stream; sent only while one listens.
    legacy_notes: broadcast::Sender<Arc<(String, String)>>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("running", &lock(&self.running).len())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, limits: TaskLimits) -> Tasks {
        Tasks {
            store,
            running: Mutex::new(HashMap::new()),
            tracker: TaskTracker::new(),
            shutdown: CancellationToken::new(),
            limits,
            changes: broadcast::channel(CHANGES_BUFFERED).0,
            legacy_notes: broadcast::channel(CHANGES_BUFFERED).0,
        }
    }

    /// The status notifications of 2025 tasks from now on: (owner, message).
    // HTTP only: the bus is an HTTP option.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn legacy_notes(&self) -> broadcast::Receiver<Arc<(String, String)>> {
        self.legacy_notes.subscribe()
    }

    /// Offers a 2025 task's status notification to the notification bus, if one listens.
    fn note_legacy(&self, owner: &str, message: &str) {
        if self.legacy_notes.receiver_count() > 0 {
            let _ = self
                .legacy_notes
                .send(Arc::new((owner.to_owned(), message.to_owned())));
        }
    }

    /// The changes of 2026 tasks from now on.
    pub(crate) fn changes(&self) -> broadcast::Receiver<Arc<TaskChange>> {
        self.changes.subscribe()
    }

    /// Tells the listen streams that a 2026 task changed; costs nothing when none listens.
    fn announce(&self, record: &TaskRecord, running: Option<&Running>) {
        if record.version.era() != ferromcp_core::Era::Modern || self.changes.receiver_count() == 0
        {
            return;
        }
        let Ok(task) = serde_json::to_value(detailed(record, running)) else {
            return;
        };
        let _ = self.changes.send(Arc::new(TaskChange {
            id: record.id.clone(),
            ended: record.status.is_terminal(),
            task,
            remote: false,
        }));
    }

    /// Tells this instance's listen streams of a change another instance announced (the
    /// notification bus); nothing when none listens.
    // HTTP only: the bus is an HTTP option.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn relay(&self, id: String, ended: bool, task: Value) {
        // The bus's own receiver does not count: it takes no remote changes.
        if self.changes.receiver_count() > 1 {
            let _ = self.changes.send(Arc::new(TaskChange {
                id,
                ended,
                task,
                remote: true,
            }));
        }
    }

    fn running(&self, id: &str) -> Option<Arc<Running>> {
        lock(&self.running).get(id).cloned()
    }

    // HTTP only: a stdio server's tasks end with its process.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    /// Stops every running task and waits (up to `deadline`) for them to record it.
    pub(crate) async fn shutdown(&self, deadline: Duration) {
        self.shutdown.cancel();
        self.tracker.close();
        let _ = tokio::time::timeout(deadline, self.tracker.wait()).await;
    }
}

/// What a server with task-capable tools declares: the 2025-11-25 `tasks` capability, or
/// the 2026 extension.
pub(crate) fn capability(
    era: ferromcp_core::Era,
) -> (
    Option<ferromcp_core::types::ServerTasksCapability>,
    Option<ferromcp_core::types::CapabilityMap>,
) {
    use ferromcp_core::types::{
        ServerTaskRequestsCapability, ServerTasksCapability, TaskToolsCapability,
    };
    match era {
        ferromcp_core::Era::Legacy => (
            Some(ServerTasksCapability {
                list: Some(Default::default()),
                cancel: Some(Default::default()),
                requests: Some(ServerTaskRequestsCapability {
                    tools: Some(TaskToolsCapability {
                        call: Some(Default::default()),
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            None,
        ),
        ferromcp_core::Era::Modern => (
            None,
            Some(
                [(
                    ferromcp_core::types::TASKS_EXTENSION.to_owned(),
                    Default::default(),
                )]
                .into_iter()
                .collect(),
            ),
        ),
    }
}

/// A new task id: 128 bits from the OS CSPRNG, in hex.
fn new_id() -> Result<String, ferromcp_core::error::ErrorObject> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        ferromcp_core::error::ErrorObject::internal_error(format!(
            "no randomness for a task id: {e}"
        ))
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `t` as an ISO 8601 UTC timestamp with milliseconds.
pub(crate) fn iso8601(t: SystemTime) -> String {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = i64::try_from(days).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A record as the client sees it: a task running here reports what it waits for.
struct View {
    status: TaskStatus,
    message: Option<String>,
}

fn view(record: &TaskRecord, running: Option<&Running>) -> View {
    let mut v = View {
        status: record.status,
        message: record.status_message.clone(),
    };
    if let Some(r) = running.filter(|_| !record.status.is_terminal())
        && let Some(link) = r.ctx.task_link()
    {
        let waits = link.is_waiting_for_client() || r.ctx.has_pending_inputs();
        v.status = if waits {
            TaskStatus::InputRequired
        } else {
            TaskStatus::Working
        };
        v.message = link.message().or(v.message);
    }
    v
}

/// The 2025-11-25 shape of a task.
fn legacy_task(record: &TaskRecord, running: Option<&Running>) -> Task {
    let v = view(record, running);
    let mut task = Task::new(record.id.clone(), v.status, iso8601(record.created_at));
    task.last_updated_at = iso8601(record.last_updated_at);
    task.status_message = v.message;
    task.ttl = record.ttl.map(millis);
    task.poll_interval = record.poll_interval.map(millis);
    task
}

/// The 2026 extension's shape of a task.
fn task_state(record: &TaskRecord, running: Option<&Running>) -> TaskState {
    let v = view(record, running);
    TaskState {
        task_id: record.id.clone(),
        status: v.status,
        status_message: v.message,
        created_at: iso8601(record.created_at),
        last_updated_at: iso8601(record.last_updated_at),
        ttl_ms: record.ttl.map(millis),
        poll_interval_ms: record.poll_interval.map(millis),
        extra: Default::default(),
    }
}

/// A 2026 task in full, as `tasks/get` answers it and `notifications/tasks` carries it:
/// its state and, by status, its result, error or pending input requests.
fn detailed(record: &TaskRecord, running: Option<&Running>) -> DetailedTaskResult {
    let state = task_state(record, running);
    let input_requests = match (running, state.status) {
        (Some(r), TaskStatus::InputRequired) => Some(r.ctx.pending_inputs()),
        _ => None,
    };
    let (result, error) = match (&record.outcome, state.status) {
        (Some(TaskOutcome::Result(v)), TaskStatus::Completed) => (Some(v.clone()), None),
        (Some(TaskOutcome::Error(e)), TaskStatus::Failed) => (None, Some(e.clone())),
        _ => (None, None),
    };
    DetailedTaskResult {
        meta: None,
        result_type: None,
        task: state,
        result,
        error,
        input_requests,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601_utc() {
        assert_eq!(iso8601(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_785_233_045_123);
        assert_eq!(iso8601(t), "2026-07-28T10:04:05.123Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(iso8601(leap), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn ids_are_unique_hex() {
        let a = new_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, new_id().unwrap());
    }
}
