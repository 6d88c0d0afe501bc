//! [`RedisTaskStore`]: tasks kept in Redis, so that any instance of a server answers
//! `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` for a task another one runs.

use std::sync::LazyLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ferromcp::ProtocolVersion;
use ferromcp::error::ErrorObject;
use ferromcp::store::{
    StoreError, StoreFuture, TaskOutcome, TaskPage, TaskRecord, TaskStore, TaskStoreError,
};
use ferromcp::types::TaskStatus;
use redis::Script;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ConnectError;
use crate::conn::{Conn, keyed_store};

/// Stores a new task, lists it under its owner and takes its lease (KEYS[3], for ARGV[5]
/// ms), at once: 1 when stored (or when this very record is there already: a retry whose
/// first reply was lost), 0 when another task has the id. The owner's list lives as long as
/// its longest-lived task (a list holding a task with no time to live does not expire).
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local current = redis.call('GET', KEYS[1])
if current then
  if current == ARGV[1] then return 1 end
  return 0
end
redis.call('SET', KEYS[3], '1', 'PX', ARGV[5])
local fresh = redis.call('EXISTS', KEYS[2]) == 0
if ARGV[4] == '' then
  redis.call('SET', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
if ARGV[4] == '' then
  redis.call('PERSIST', KEYS[2])
else
  local left = redis.call('PTTL', KEYS[2])
  if fresh or (left >= 0 and left < tonumber(ARGV[4])) then
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
  end
end
return 1
",
    )
});

/// Replaces a task unless it has ended (its value starts with `1`) or is gone; keeps the
/// key's time to live. Returns 1 when it replaced it.
static UPDATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, 1) == '1' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1
",
    )
});

/// Renews a task's lease (KEYS[2], for ARGV[1] ms) and reads the task.
static WATCH: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return redis.call('GET', KEYS[1])
",
    )
});

/// Fails a working task whose lease (KEYS[2]) has run out, with ARGV[1] as its new value;
/// 1 when it did. Nothing when the lease holds (renewed since it was read) or the task has
/// ended or gone: the first end wins.
static FAIL_UNLEASED: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, 1) == '1' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1
",
    )
});

/// A task, and whether its lease holds (1) or ran out (0); nil when there is no task.
static READ: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local value = redis.call('GET', KEYS[1])
if not value then return false end
return {value, redis.call('EXISTS', KEYS[2])}
",
    )
});

/// What a task whose instance stopped renewing its lease ends with.
const STOPPED: &str = "the server instance running this task stopped before it finished";

/// A [`TaskStore`] in Redis: one key per task (`mcp:task:<id>` by default), expiring with
/// the task's time to live, and one sorted set per owner listing its tasks by creation
/// time, for `tasks/list`.
///
/// The first end wins across instances (an update of an ended task changes nothing, checked
/// in Redis itself). An instance running a task re-reads it every poll interval, so a
/// `tasks/cancel` answered by another instance stops the handler there within that
/// interval; each re-read renews the task's lease (`mcp:task-lease:<id>`, four poll
/// intervals ([`TaskRecord::lease`]) and at least 10 s, [`with_min_lease`](Self::with_min_lease)). A task whose lease runs out
/// while it is still working (its instance died or lost Redis) is read as **failed**, with
/// an internal error saying its instance stopped, and stays so: its clients stop waiting
/// for a result that will never come. Input a 2026 task asks for is answered (`tasks/update`) on the instance that
/// runs it: route `tasks/*` to it, or keep tasks that ask for input on one instance.
///
/// Every operation is bounded by a timeout (1 s by default); a Redis that is down makes
/// the task requests fail with an internal error, and never hang. Creating and ending a task
/// are each one Lua script (Redis 6.0 or newer, for `SET … KEEPTTL`). `tasks/list` pages by
/// position in the owner's list: a task that expires between two pages can shift the next
/// one by a place.
///
/// # Examples
///
/// ```no_run
/// use ferromcp_redis::RedisTaskStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let tasks = RedisTaskStore::connect("redis://10.0.0.5:6379").await?;
/// let server = ferromcp::ServerBuilder::new("reports", "1.0.0").task_store(tasks).build();
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisTaskStore {
    conn: Conn,
    prefix: String,
    min_lease: Duration,
}

keyed_store!(RedisTaskStore, "mcp:");

/// A task as stored: its value is `0` or `1` (ended) and then this, in JSON.
#[derive(Serialize, Deserialize)]
struct Stored {
    id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
    version: String,
    status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    created_ms: u64,
    updated_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    poll_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ErrorObject>,
    /// Whether its instance renews a lease (tasks stored before leases existed do not).
    #[serde(default)]
    leased: bool,
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn since_epoch(t: SystemTime) -> u64 {
    ms(t.duration_since(UNIX_EPOCH).unwrap_or_default())
}

fn encode(r: &TaskRecord) -> Result<String, TaskStoreError> {
    let (result, error) = match &r.outcome {
        Some(TaskOutcome::Result(v)) => (Some(v.clone()), None),
        Some(TaskOutcome::Error(e)) => (None, Some(e.clone())),
        _ => (None, None),
    };
    let stored = Stored {
        id: r.id.clone(),
        owner: r.owner.clone(),
        version: r.version.as_str().to_owned(),
        status: r.status,
        message: r.status_message.clone(),
        created_ms: since_epoch(r.created_at),
        updated_ms: since_epoch(r.last_updated_at),
        ttl_ms: r.ttl.map(ms),
        poll_ms: r.poll_interval.map(ms),
        result,
        error,
        leased: true,
    };
    let json = serde_json::to_string(&stored).map_err(StoreError::malformed)?;
    Ok(format!(
        "{}{json}",
        if r.status.is_terminal() { '1' } else { '0' }
    ))
}

fn decode(value: &str) -> Result<TaskRecord, TaskStoreError> {
    decode_leased(value).map(|(record, _)| record)
}

/// The task, and whether its instance renews a lease for it.
fn decode_leased(value: &str) -> Result<(TaskRecord, bool), TaskStoreError> {
    let bad = |why: String| StoreError::malformed(format!("a stored task does not read: {why}"));
    let json = value.get(1..).ok_or_else(|| bad("empty".into()))?;
    let s: Stored = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
    let version: ProtocolVersion = s.version.parse().map_err(|_| bad(s.version.clone()))?;
    let at = |ms: u64| UNIX_EPOCH + Duration::from_millis(ms);
    let mut r = TaskRecord::new(s.id, s.owner, version);
    r.status = s.status;
    r.status_message = s.message;
    r.created_at = at(s.created_ms);
    r.last_updated_at = at(s.updated_ms);
    r.ttl = s.ttl_ms.map(Duration::from_millis);
    r.poll_interval = s.poll_ms.map(Duration::from_millis);
    r.outcome = match (s.result, s.error) {
        (Some(v), _) => Some(TaskOutcome::Result(v)),
        (None, Some(e)) => Some(TaskOutcome::Error(e)),
        (None, None) => None,
    };
    Ok((r, s.leased))
}

impl RedisTaskStore {
    /// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]`).
    ///
    /// # Errors
    ///
    /// The URL is malformed, or Redis could not be reached within the timeout.
    pub async fn connect(url: &str) -> Result<RedisTaskStore, ConnectError> {
        Ok(RedisTaskStore::on(Conn::open(url).await?))
    }

    /// The store on `conn`.
    pub(crate) fn on(conn: Conn) -> RedisTaskStore {
        RedisTaskStore {
            conn,
            prefix: "mcp:".into(),
            min_lease: Duration::from_secs(10),
        }
    }

    /// The shortest lease a running task gets (10 s by default): how long its instance may
    /// go without renewing it (a Redis failover, a stalled thread) before the task is
    /// taken for lost. A task's own lease is four poll intervals when that is longer.
    #[must_use]
    pub fn with_min_lease(mut self, lease: Duration) -> Self {
        self.min_lease = lease;
        self
    }

    fn key(&self, id: &str) -> String {
        format!("{}task:{id}", self.prefix)
    }

    fn lease_key(&self, id: &str) -> String {
        format!("{}task-lease:{id}", self.prefix)
    }

    /// `record`, read while its lease had run out: failed now (the first end wins, so an
    /// end recorded meanwhile stays), as stored.
    async fn stopped(&self, mut record: TaskRecord) -> Result<Option<TaskRecord>, TaskStoreError> {
        tracing::warn!(task = %record.id, "the instance running a task stopped renewing it; the task fails");
        record.status = TaskStatus::Failed;
        record.status_message = Some(STOPPED.into());
        record.last_updated_at = SystemTime::now();
        record.outcome = Some(TaskOutcome::Error(ErrorObject::internal_error(STOPPED)));
        let mut script = FAIL_UNLEASED.prepare_invoke();
        script
            .key(self.key(&record.id))
            .key(self.lease_key(&record.id))
            .arg(encode(&record)?);
        let failed: i64 = self.conn.eval(&script).await?;
        if failed == 1 {
            return Ok(Some(record));
        }
        // Renewed meanwhile, or ended: as stored now.
        self.get_plain(&record.id).await
    }

    /// The lease a task gets: its own (four poll intervals) or the store's minimum.
    fn lease(&self, lease: Duration) -> u64 {
        ms(lease.max(self.min_lease)).max(1)
    }

    async fn get_plain(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let mut get = redis::cmd("GET");
        get.arg(self.key(id));
        live(self.conn.run(get).await?)
    }

    /// The sorted set of `owner`'s tasks (`-` for tasks of no one in particular; an owner
    /// is never empty, so `=` before a name keeps the two apart).
    fn index(&self, owner: Option<&str>) -> String {
        match owner {
            Some(o) => format!("{}tasks-of:={o}", self.prefix),
            None => format!("{}tasks-of:-", self.prefix),
        }
    }
}

/// The task a stored value holds, unless its time to live has passed.
fn live(value: Option<String>) -> Result<Option<TaskRecord>, TaskStoreError> {
    let record = value.as_deref().map(decode).transpose()?;
    Ok(record.filter(|r| !r.is_expired(SystemTime::now())))
}

/// How long a key lives: what is left of the task's time to live (at least 1 ms).
fn remaining(r: &TaskRecord) -> Option<u64> {
    let end = r.created_at.checked_add(r.ttl?)?;
    Some(ms(end.duration_since(SystemTime::now()).unwrap_or_default()).max(1))
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, (), TaskStoreError> {
        Box::pin(async move {
            let mut script = CREATE.prepare_invoke();
            script
                .key(self.key(&record.id))
                .key(self.index(record.owner.as_deref()))
                .key(self.lease_key(&record.id))
                .arg(encode(&record)?)
                .arg(since_epoch(record.created_at))
                .arg(&record.id)
                .arg(remaining(&record).map_or(String::new(), |px| px.to_string()))
                .arg(self.lease(record.lease()));
            let created: i64 = self.conn.eval(&script).await?;
            if created == 1 {
                Ok(())
            } else {
                Err(TaskStoreError::Duplicate)
            }
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>, TaskStoreError> {
        Box::pin(async move {
            let mut script = READ.prepare_invoke();
            script.key(self.key(id)).key(self.lease_key(id));
            let read: Option<(String, i64)> = self.conn.eval(&script).await?;
            let Some((value, leased)) = read else {
                return Ok(None);
            };
            let (record, renewed) = decode_leased(&value)?;
            if record.is_expired(SystemTime::now()) {
                return Ok(None);
            }
            if renewed && leased == 0 && !record.status.is_terminal() {
                return self.stopped(record).await;
            }
            Ok(Some(record))
        })
    }

    fn watch<'a>(
        &'a self,
        id: &'a str,
        lease: Duration,
    ) -> StoreFuture<'a, Option<TaskRecord>, TaskStoreError> {
        Box::pin(async move {
            let mut script = WATCH.prepare_invoke();
            script
                .key(self.key(id))
                .key(self.lease_key(id))
                .arg(self.lease(lease));
            live(self.conn.eval(&script).await?)
        })
    }

    fn update(&self, record: TaskRecord) -> StoreFuture<'_, bool, TaskStoreError> {
        Box::pin(async move {
            let mut script = UPDATE.prepare_invoke();
            script.key(self.key(&record.id)).arg(encode(&record)?);
            let replaced: i64 = self.conn.eval(&script).await?;
            Ok(replaced == 1)
        })
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, TaskPage, TaskStoreError> {
        Box::pin(async move {
            // A position in the owner's list: small enough for Redis's signed indexes, with
            // room to add a page.
            let start = match cursor {
                Some(c) => {
                    c.parse::<u32>()
                        .map_err(|_| TaskStoreError::InvalidCursor)? as usize
                }
                None => 0,
            };
            let window = limit.clamp(1, 10_000);
            let index = self.index(owner);
            // One more than a page: whether there is a next one.
            let mut range = redis::cmd("ZRANGE");
            range.arg(&index).arg(start).arg(start + window);
            let ids: Vec<String> = self.conn.run(range).await?;
            if ids.is_empty() {
                return Ok(TaskPage::default());
            }
            // The tasks, then their leases.
            let mut get = redis::cmd("MGET");
            for id in &ids {
                get.arg(self.key(id));
            }
            for id in &ids {
                get.arg(self.lease_key(id));
            }
            let mut values: Vec<Option<String>> = self.conn.run(get).await?;
            let leases = values.split_off(ids.len().min(values.len()));
            let now = SystemTime::now();
            let mut page = TaskPage::default();
            let (mut consumed, mut gone) = (0, Vec::new());
            for ((id, value), lease) in ids.iter().zip(values).zip(leases) {
                if page.tasks.len() == window {
                    break;
                }
                consumed += 1;
                match value.as_deref().map(decode_leased).transpose()? {
                    Some((r, renewed)) if r.owner.as_deref() == owner && !r.is_expired(now) => {
                        if renewed && lease.is_none() && !r.status.is_terminal() {
                            if let Some(failed) = self.stopped(r).await? {
                                page.tasks.push(failed);
                            }
                        } else {
                            page.tasks.push(r);
                        }
                    }
                    Some(_) => {}
                    None => gone.push(id.clone()),
                }
            }
            if !gone.is_empty() {
                let mut remove = redis::cmd("ZREM");
                remove.arg(&index).arg(&gone);
                self.conn.run::<()>(remove).await?;
            }
            if consumed < ids.len() || ids.len() > window {
                // The next page starts after what was read here, less what was removed.
                page.next_cursor = Some((start + consumed - gone.len()).to_string());
            }
            Ok(page)
        })
    }

    fn shared(&self) -> bool {
        true
    }
}
