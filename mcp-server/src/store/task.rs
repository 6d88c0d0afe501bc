//! [`TaskStore`]: where tasks are kept between the call that starts one and the requests
//! that poll, answer or cancel it; [`MemoryTaskStore`] is the default.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use tokio::time::Instant;

use ferromcp_core::ProtocolVersion;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::types::TaskStatus;
use serde_json::Value;

use super::{StoreError, StoreFuture};
use crate::sync::lock;

/// One task as a store keeps it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id: unguessable, unique.
    pub id: String,
    /// Who may see the task (a legacy session, an authenticated principal); `None` for
    /// anyone who knows the id.
    pub owner: Option<String>,
    /// The revision of the request that started it, which decides the shapes its answers
    /// take.
    pub version: ProtocolVersion,
    /// Where the task is in its life.
    pub status: TaskStatus,
    /// A human-readable note on the status.
    pub status_message: Option<String>,
    /// When it was created.
    pub created_at: SystemTime,
    /// When its status last changed.
    pub last_updated_at: SystemTime,
    /// How long after `created_at` it is kept; `None` for no limit.
    pub ttl: Option<Duration>,
    /// The polling interval suggested to clients.
    pub poll_interval: Option<Duration>,
    /// How it ended, once it has.
    pub outcome: Option<TaskOutcome>,
}

impl TaskRecord {
    /// A `working` task created now.
    pub fn new(id: impl Into<String>, owner: Option<String>, version: ProtocolVersion) -> Self {
        let now = SystemTime::now();
        TaskRecord {
            id: id.into(),
            owner,
            version,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl: None,
            poll_interval: None,
            outcome: None,
        }
    }

    /// How long the instance running the task may go without renewing it (its re-reads
    /// through [`TaskStore::watch`], every poll interval) before a shared store may count
    /// that instance as stopped: four poll intervals (a store may hold out longer).
    pub fn lease(&self) -> Duration {
        self.poll_interval.unwrap_or(Duration::from_millis(500)) * 4
    }

    /// Whether the task's time to live has passed at `now`.
    pub fn is_expired(&self, now: SystemTime) -> bool {
        self.ttl
            .and_then(|ttl| self.created_at.checked_add(ttl))
            .is_some_and(|end| now >= end)
    }
}

/// How a task ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TaskOutcome {
    /// The request's result (for `tools/call`, the `CallToolResult` as JSON).
    Result(Value),
    /// The request's protocol error.
    Error(ErrorObject),
}

/// One page of [`TaskStore::list`].
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct TaskPage {
    /// The tasks, oldest first.
    pub tasks: Vec<TaskRecord>,
    /// Where the next page starts; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// Why a store could not do what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store holds as many tasks as it may.
    #[error("the task store is full ({0} tasks)")]
    Full(usize),
    /// A task with this id exists already.
    #[error("a task with this id exists already")]
    Duplicate,
    /// The cursor was not made by this store.
    #[error("invalid cursor")]
    InvalidCursor,
    /// The store's backend failed.
    #[error(transparent)]
    Backend(#[from] StoreError),
}

/// Keeps tasks: their status and, once they end, their outcome. The server runs the tasks
/// itself; a store only remembers them, so a store shared by several instances lets any of
/// them answer `tasks/get` (input requests and cancellation reach only the instance
/// running the task). Expired tasks (past their time to live) must read as absent.
///
/// The in-memory [`MemoryTaskStore`] is the default; set another with
/// [`ServerBuilder::task_store`](crate::ServerBuilder::task_store).
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task.
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, (), TaskStoreError>;

    /// The task with this id, unless it is unknown or expired.
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>, TaskStoreError>;

    /// Replaces a task that has not ended; returns false (and changes nothing) when the
    /// stored task has ended already or is gone, so the first end wins.
    fn update(&self, record: TaskRecord) -> StoreFuture<'_, bool, TaskStoreError>;

    /// The tasks of `owner`, oldest first, at most `limit` from `cursor` on.
    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, TaskPage, TaskStoreError>;

    /// Whether other instances of the server share this store (and may cancel a task this
    /// one runs). The instance running a task then re-reads it every poll interval
    /// ([`watch`](Self::watch)), so a cancellation recorded elsewhere stops it. `false` by
    /// default.
    fn shared(&self) -> bool {
        false
    }

    /// The re-read of a [`shared`](Self::shared) store by the instance running the task:
    /// the task as [`get`](Self::get) gives it, and word that it is still being run, good
    /// for `lease` ([`TaskRecord::lease`]). A shared store may report a task whose lease
    /// ran out (its instance died) as failed. By default, [`get`](Self::get).
    fn watch<'a>(
        &'a self,
        id: &'a str,
        lease: Duration,
    ) -> StoreFuture<'a, Option<TaskRecord>, TaskStoreError> {
        let _ = lease;
        self.get(id)
    }
}

/// A store behind an [`Arc`] (`Arc<dyn TaskStore>` too) is the store it points to.
impl<T: TaskStore + ?Sized> TaskStore for Arc<T> {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, (), TaskStoreError> {
        (**self).create(record)
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>, TaskStoreError> {
        (**self).get(id)
    }

    fn update(&self, record: TaskRecord) -> StoreFuture<'_, bool, TaskStoreError> {
        (**self).update(record)
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, TaskPage, TaskStoreError> {
        (**self).list(owner, cursor, limit)
    }

    fn shared(&self) -> bool {
        (**self).shared()
    }

    fn watch<'a>(
        &'a self,
        id: &'a str,
        lease: Duration,
    ) -> StoreFuture<'a, Option<TaskRecord>, TaskStoreError> {
        (**self).watch(id, lease)
    }
}

#[derive(Default)]
struct Memory {
    /// By id: the record and its place in `order`.
    tasks: HashMap<String, (u64, TaskRecord)>,
    /// Creation order, for listing with a stable cursor.
    order: BTreeMap<u64, String>,
    next: u64,
    /// By id: when the task expires, on tokio's clock (monotonic, and paused with a test's
    /// runtime, as the deadline that stops a running task is).
    ends: HashMap<String, Instant>,
}

impl Memory {
    fn remove(&mut self, id: &str) {
        if let Some((seq, _)) = self.tasks.remove(id) {
            self.order.remove(&seq);
        }
        self.ends.remove(id);
    }

    /// Whether the task `id` is past its time to live at `now`.
    fn expired(&self, id: &str, now: Instant) -> bool {
        self.ends.get(id).is_some_and(|end| now >= *end)
    }

    /// Drops expired tasks; then, if still at `capacity`, the oldest ended one.
    fn make_room(&mut self, capacity: usize, now: Instant) -> bool {
        let expired: Vec<String> = self
            .ends
            .iter()
            .filter(|(_, end)| now >= **end)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            self.remove(&id);
        }
        if self.tasks.len() < capacity {
            return true;
        }
        let oldest_ended = self.order.values().find(|id| {
            self.tasks
                .get(*id)
                .is_some_and(|(_, r)| r.status.is_terminal())
        });
        match oldest_ended.cloned() {
            Some(id) => {
                self.remove(&id);
                true
            }
            None => false,
        }
    }
}

/// When `record` expires on tokio's clock (`None`: never): what is left of its time to live
/// after its `created_at`, on the wall clock when it is stored, then counted on the monotonic
/// clock, so that a test's paused runtime moves it.
fn expiry(record: &TaskRecord) -> Option<Instant> {
    let end = record.created_at.checked_add(record.ttl?)?;
    let left = end.duration_since(SystemTime::now()).unwrap_or_default();
    Instant::now().checked_add(left)
}

/// Tasks in this process's memory, up to a capacity: past it, expired tasks go first, then
/// the oldest ended ones; when every task is still running, creating one fails.
///
/// Time to live is counted on tokio's clock, so a test that pauses its runtime
/// (`tokio::time::pause`) and advances it sees tasks expire without waiting.
pub struct MemoryTaskStore {
    capacity: usize,
    inner: Mutex<Memory>,
}

impl std::fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("capacity", &self.capacity)
            .field("len", &lock(&self.inner).tasks.len())
            .finish()
    }
}

impl Default for MemoryTaskStore {
    /// Room for 10,000 tasks.
    fn default() -> Self {
        MemoryTaskStore::new(10_000)
    }
}

impl MemoryTaskStore {
    /// A store that keeps at most `capacity` tasks (at least one).
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::tasks::MemoryTaskStore;
    ///
    /// let server = ferromcp::ServerBuilder::new("reports", "1.0.0")
    ///     .task_store(MemoryTaskStore::new(50_000))
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn new(capacity: usize) -> Self {
        MemoryTaskStore {
            capacity: capacity.max(1),
            inner: Mutex::new(Memory::default()),
        }
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, (), TaskStoreError> {
        let mut m = lock(&self.inner);
        let result = if m.tasks.contains_key(&record.id) {
            Err(TaskStoreError::Duplicate)
        } else if !m.make_room(self.capacity, Instant::now()) {
            Err(TaskStoreError::Full(self.capacity))
        } else {
            if let Some(end) = expiry(&record) {
                m.ends.insert(record.id.clone(), end);
            }
            let seq = m.next;
            m.next += 1;
            m.order.insert(seq, record.id.clone());
            m.tasks.insert(record.id.clone(), (seq, record));
            Ok(())
        };
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>, TaskStoreError> {
        let mut m = lock(&self.inner);
        let found = match m.tasks.get(id) {
            Some(_) if m.expired(id, Instant::now()) => {
                m.remove(id);
                None
            }
            Some((_, r)) => Some(r.clone()),
            None => None,
        };
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update(&self, record: TaskRecord) -> StoreFuture<'_, bool, TaskStoreError> {
        let mut m = lock(&self.inner);
        let updated = match m.tasks.get_mut(&record.id) {
            Some((_, stored)) if !stored.status.is_terminal() => {
                *stored = record;
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(updated)))
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, TaskPage, TaskStoreError> {
        let result = (|| {
            let start = match cursor {
                Some(c) => c
                    .parse::<u64>()
                    .map_err(|_| TaskStoreError::InvalidCursor)?,
                None => 0,
            };
            let m = lock(&self.inner);
            let now = Instant::now();
            let mut page = TaskPage::default();
            for (seq, id) in m.order.range(start..) {
                let Some((_, r)) = m.tasks.get(id) else {
                    continue;
                };
                if r.owner.as_deref() != owner || m.expired(id, now) {
                    continue;
                }
                if page.tasks.len() == limit.max(1) {
                    page.next_cursor = Some(seq.to_string());
                    break;
                }
                page.tasks.push(r.clone());
            }
            Ok(page)
        })();
        Box::pin(std::future::ready(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, owner: Option<&str>) -> TaskRecord {
        TaskRecord::new(id, owner.map(str::to_owned), ProtocolVersion::V2025_11_25)
    }

    #[tokio::test]
    async fn lists_by_owner_a_page_at_a_time() {
        let store = MemoryTaskStore::new(10);
        for i in 0..5 {
            let owner = if i % 2 == 0 { "a" } else { "b" };
            store
                .create(record(&format!("t{i}"), Some(owner)))
                .await
                .unwrap();
        }
        let first = store.list(Some("a"), None, 2).await.unwrap();
        let ids: Vec<_> = first.tasks.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["t0", "t2"]);
        let cursor = first.next_cursor.unwrap();
        let second = store.list(Some("a"), Some(&cursor), 2).await.unwrap();
        assert_eq!(second.tasks.len(), 1);
        assert_eq!(second.tasks[0].id, "t4");
        assert!(second.next_cursor.is_none());
        assert!(matches!(
            store.list(Some("a"), Some("x"), 2).await,
            Err(TaskStoreError::InvalidCursor)
        ));
    }

    #[tokio::test]
    async fn expired_tasks_read_as_absent() {
        let store = MemoryTaskStore::new(10);
        let mut r = record("old", None);
        r.created_at = SystemTime::now() - Duration::from_secs(10);
        r.ttl = Some(Duration::from_secs(5));
        store.create(r).await.unwrap();
        assert_eq!(store.get("old").await.unwrap(), None);
        assert!(store.list(None, None, 10).await.unwrap().tasks.is_empty());
    }

    #[tokio::test]
    async fn the_first_end_wins_and_full_stores_evict_ended_tasks() {
        let store = MemoryTaskStore::new(2);
        store.create(record("a", None)).await.unwrap();
        store.create(record("b", None)).await.unwrap();
        assert!(matches!(
            store.create(record("c", None)).await,
            Err(TaskStoreError::Full(2))
        ));
        let mut a = store.get("a").await.unwrap().unwrap();
        a.status = TaskStatus::Cancelled;
        assert!(store.update(a.clone()).await.unwrap());
        a.status = TaskStatus::Completed;
        assert!(
            !store.update(a).await.unwrap(),
            "a cancelled task stays cancelled"
        );
        store.create(record("c", None)).await.unwrap();
        assert_eq!(
            store.get("a").await.unwrap(),
            None,
            "the ended task made room"
        );
        assert!(store.get("b").await.unwrap().is_some());
    }
}
