//! The link between a handler running as a task and the engine: whether the call has become
//! a task yet, the input it waits for, and the wake-ups in both directions.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use tokio::sync::Notify;

use crate::sync::lock;

/// Shared by a task's [`Context`](super::Context) and the engine's record of the running
/// task.
#[derive(Debug, Default)]
pub(crate) struct TaskLink {
    /// The task's id, once the call has become a task.
    id: Mutex<Option<String>>,
    /// Set when the call has become a task: from then on the handler's input requests wait
    /// for `tasks/update` (2026) instead of ending the round.
    running: AtomicBool,
    /// Legacy era: server-to-client requests of the task awaiting the client.
    waiting: AtomicUsize,
    /// The latest status message the handler reported (with its progress).
    message: Mutex<Option<String>>,
    /// Rung by `tasks/update` after it stored answers.
    answered: Notify,
    /// Rung by the handler when what the task waits for changed, so that the engine
    /// publishes the new status.
    changed: Notify,
}

impl TaskLink {
    /// Marks the call as a task with this id.
    pub(crate) fn start(&self, id: &str) {
        *lock(&self.id) = Some(id.to_owned());
        self.running.store(true, Ordering::Release);
    }

    pub(crate) fn id(&self) -> Option<String> {
        lock(&self.id).clone()
    }

    pub(crate) fn is_running(&self) -> bool {
        self.running.load(Ordering::Acquire)
    }

    /// Whether a legacy task waits for the client's answer to one of its requests.
    pub(crate) fn is_waiting_for_client(&self) -> bool {
        self.waiting.load(Ordering::Acquire) > 0
    }

    pub(crate) fn begin_wait(&self) {
        self.waiting.fetch_add(1, Ordering::AcqRel);
        self.changed.notify_one();
    }

    pub(crate) fn end_wait(&self) {
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        self.changed.notify_one();
    }

    pub(crate) fn set_message(&self, message: Option<&str>) {
        if let Some(m) = message {
            *lock(&self.message) = Some(m.to_owned());
            self.changed.notify_one();
        }
    }

    pub(crate) fn message(&self) -> Option<String> {
        lock(&self.message).clone()
    }

    pub(crate) fn answered(&self) -> &Notify {
        &self.answered
    }

    pub(crate) fn changed(&self) -> &Notify {
        &self.changed
    }
}
