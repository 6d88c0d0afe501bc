//! A `tools/call` that becomes a task, and the task running in the background.
//!
//! 2025-11-25: the client asks (`params.task`); the task is stored and answered before the
//! handler runs. 2026-07-28: the server decides, for a tool with task support and a client
//! that declares the extension; the handler first runs in the request, so that input it
//! asks for at the start goes through ordinary `input_required` rounds and a handler that
//! finishes at once answers directly; at its first wait for anything else (or
//! `Context::begin_task`) the call becomes a task and the future moves to the background.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, SystemTime};

use ferromcp_core::error::ErrorObject;
use ferromcp_core::types::{
    CallToolResult, ClientCapabilities, CreateTaskExtensionResult, CreateTaskResult,
    TASKS_EXTENSION, TaskMetadata, TaskStatus, TaskStatusNotificationParams, ToolTaskSupport,
    WireResult,
};
use ferromcp_core::{Era, ProtocolVersion};
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use super::super::guard::{CatchUnwind, Driven};
use super::super::mrtr::MrtrParams;
use super::super::{Engine, Reply, Response, Scope};
use super::{Running, TaskOutcome, TaskRecord, legacy_task, new_id, task_state};
use crate::context::{Context, Override, TaskLink};
use crate::peer::sink::Sink;
use crate::registry::ToolEntry;
use crate::result::HandlerError;
use crate::sync::lock;

type ToolFuture =
    CatchUnwind<Pin<Box<dyn Future<Output = Result<CallToolResult, HandlerError>> + Send>>>;

/// How one `tools/call` runs.
enum Mode {
    /// As an ordinary call.
    Sync,
    /// As a 2025-11-25 task kept this long.
    Legacy(Duration),
    /// As a 2026 task, if the handler waits.
    Modern,
}

/// What a call of a task-capable tool (or a call asking for a task) becomes.
///
/// # Errors
///
/// -32601 for a 2025 call that asks for a task of a tool that forbids them, or does not
/// ask for one of a tool that requires them; -32021 for a 2026 call of a tool that
/// requires a task from a client without the extension.
fn mode(
    engine: &Engine,
    version: ProtocolVersion,
    capabilities: &ClientCapabilities,
    support: ToolTaskSupport,
    asked: Option<&RawValue>,
) -> Result<Mode, ErrorObject> {
    let limits = &engine.tasks().limits;
    match version.era() {
        Era::Legacy if version < ProtocolVersion::V2025_11_25 => Ok(Mode::Sync),
        Era::Legacy => match (support, asked) {
            (ToolTaskSupport::Forbidden, Some(_)) => Err(ErrorObject::method_not_found(
                "tools/call as a task (this tool does not run as a task)",
            )),
            (ToolTaskSupport::Required, None) => Err(ErrorObject::method_not_found(
                "tools/call without `task` (this tool runs only as a task)",
            )),
            (_, None) => Ok(Mode::Sync),
            (_, Some(raw)) => {
                let meta: TaskMetadata = serde_json::from_str(raw.get())
                    .map_err(|e| ErrorObject::invalid_params(format!("invalid `task`: {e}")))?;
                let ttl = meta
                    .ttl
                    .map_or(limits.default_ttl, Duration::from_millis)
                    .min(limits.max_ttl);
                Ok(Mode::Legacy(ttl))
            }
        },
        Era::Modern => {
            let takes_tasks = capabilities.supports_extension(TASKS_EXTENSION);
            match support {
                ToolTaskSupport::Forbidden => Ok(Mode::Sync),
                _ if takes_tasks => Ok(Mode::Modern),
                ToolTaskSupport::Optional => Ok(Mode::Sync),
                ToolTaskSupport::Required => Err(missing_extension()),
            }
        }
    }
}

/// -32021 naming the tasks extension.
pub(crate) fn missing_extension() -> ErrorObject {
    ErrorObject::missing_required_client_capability(ClientCapabilities {
        extensions: Some(
            [(TASKS_EXTENSION.to_owned(), Default::default())]
                .into_iter()
                .collect(),
        ),
        ..Default::default()
    })
}

/// A `tools/call` that may run as a task: what the request brought.
pub(in crate::engine) struct TaskCall<'a> {
    pub(in crate::engine) request_id: &'a ferromcp_core::jsonrpc::RequestId,
    /// Where the request's own messages go.
    pub(in crate::engine) sink: &'a Sink,
    /// The request's cancellation (not the task's).
    pub(in crate::engine) cancel: &'a CancellationToken,
    pub(in crate::engine) tool: &'a ToolEntry,
    pub(in crate::engine) arguments: Option<&'a RawValue>,
    pub(in crate::engine) mrtr: &'a MrtrParams,
    /// The request's `task` member (2025-11-25: the client asks for a task).
    pub(in crate::engine) asked: Option<&'a RawValue>,
}

impl Engine {
    /// Runs a `tools/call` as a task when the era's rules say so; `None` when it runs as an
    /// ordinary call.
    pub(in crate::engine) async fn call_as_task(
        &self,
        scope: &Scope<'_>,
        call: &TaskCall<'_>,
    ) -> Result<Option<Reply>, ErrorObject> {
        let support = call
            .tool
            .tool
            .execution
            .as_ref()
            .and_then(|e| e.task_support)
            .unwrap_or(ToolTaskSupport::Forbidden);
        let version = scope.client.version;
        let mode = mode(
            self,
            version,
            &scope.client.capabilities,
            support,
            call.asked,
        )?;
        if matches!(mode, Mode::Sync) {
            return Ok(None);
        }
        if lock(&self.tasks().running).len() >= self.tasks().limits.max_running {
            return Err(ErrorObject::internal_error(format!(
                "too many tasks running (at most {}); retry when one has finished",
                self.tasks().limits.max_running
            )));
        }
        match mode {
            Mode::Legacy(ttl) => self.legacy_task(scope, call, ttl).await.map(Some),
            Mode::Modern => self.modern_task(scope, call).await.map(Some),
            Mode::Sync => Ok(None),
        }
    }

    /// A 2025-11-25 task: started at once, the request answered with the task.
    async fn legacy_task(
        &self,
        scope: &Scope<'_>,
        call: &TaskCall<'_>,
        ttl: Duration,
    ) -> Result<Reply, ErrorObject> {
        let link = Arc::new(TaskLink::default());
        // A task is stopped by `tasks/cancel`, not by the end of the request that started it.
        let task_cancel = CancellationToken::new();
        let version = scope.client.version;
        let owner = scope.client.task_owner();
        // The request is answered at once: its messages go to a `tasks/result`
        // stream, or where the connection's go.
        let task_sink = scope.conn.map_or(Sink::Discard, |c| c.task_route());
        let ctx = self.context(
            call.request_id,
            scope,
            task_sink.clone(),
            task_cancel.clone(),
            None,
            Some(link.clone()),
        )?;
        let id = new_id()?;
        link.start(&id);
        let mut record = TaskRecord::new(id, owner, version);
        record.ttl = Some(ttl);
        record.poll_interval = Some(self.tasks().limits.poll_interval);
        let fut = match start(call.tool, call.arguments, &ctx) {
            Some(fut) => fut,
            None => return Ok(self.panicked(call.request_id)),
        };
        self.launch(record.clone(), ctx, task_cancel, task_sink, fut)
            .await?;
        let result = CreateTaskResult {
            meta: None,
            result_type: None,
            task: legacy_task(&record, None),
            extra: Default::default(),
        };
        Ok(Reply::Response(self.respond(
            call.request_id,
            version,
            result,
        )))
    }

    /// A 2026 task: the handler's first poll, in the request, decides whether the call
    /// completes, asks for input, or goes on as a task.
    async fn modern_task(
        &self,
        scope: &Scope<'_>,
        call: &TaskCall<'_>,
    ) -> Result<Reply, ErrorObject> {
        let link = Arc::new(TaskLink::default());
        let task_cancel = CancellationToken::new();
        let version = scope.client.version;
        let name = call.tool.tool.name.as_str();
        let ctx = self.context(
            call.request_id,
            scope,
            call.sink.clone(),
            task_cancel.clone(),
            Some((call.mrtr, "tools/call", name)),
            Some(link.clone()),
        )?;
        let Some(mut fut) = start(call.tool, call.arguments, &ctx) else {
            return Ok(self.panicked(call.request_id));
        };
        // The first poll, in the request: it decides what the call becomes.
        let first = tokio::select! {
            biased;
            () = call.cancel.cancelled() => None,
            polled = poll_fn(|cx| Poll::Ready(Pin::new(&mut fut).poll(cx))) => Some(polled),
        };
        let driven = match first {
            None => {
                task_cancel.cancel();
                drop(fut);
                ctx.end().await;
                return Ok(Reply::Silent);
            }
            Some(Poll::Ready(Ok(result))) => Driven::Done(result),
            Some(Poll::Ready(Err(()))) => Driven::Panicked,
            Some(Poll::Pending) if ctx.has_pending_inputs() => Driven::InputRequired,
            Some(Poll::Pending) => {
                let id = new_id()?;
                link.start(&id);
                let owner = scope.client.task_owner();
                let mut record = TaskRecord::new(id, owner, version);
                record.ttl = Some(self.tasks().limits.default_ttl);
                record.poll_interval = Some(self.tasks().limits.poll_interval);
                // Stored before it is announced: a `tasks/get` right after finds it.
                self.launch(record.clone(), ctx, task_cancel, Sink::Discard, fut)
                    .await?;
                let result = CreateTaskExtensionResult::new(task_state(&record, None));
                return Ok(Reply::Response(self.respond(
                    call.request_id,
                    version,
                    result,
                )));
            }
        };
        // Not a task: the request ends here, as `drive` ends an ordinary call.
        drop(fut);
        ctx.end().await;
        let target = Some(("tools/call", name));
        Ok(self.finish(&ctx, driven, "tool", target, None))
    }

    fn panicked(&self, id: &ferromcp_core::jsonrpc::RequestId) -> Reply {
        Reply::Response(Response::error(
            Some(id),
            &ErrorObject::internal_error("the tool handler panicked"),
        ))
    }

    /// Stores the task and runs its handler in the background.
    async fn launch(
        &self,
        record: TaskRecord,
        ctx: Context,
        cancel: CancellationToken,
        sink: Sink,
        fut: ToolFuture,
    ) -> Result<(), ErrorObject> {
        let tasks = self.tasks();
        if let Err(e) = tasks.store.create(record.clone()).await {
            // The request is answered with the error: its context ends with it.
            drop(fut);
            ctx.end().await;
            return Err(ErrorObject::internal_error(format!(
                "cannot store the task: {e}"
            )));
        }
        let running = Arc::new(Running {
            ctx,
            cancel,
            ended: CancellationToken::new(),
            sink,
        });
        lock(&tasks.running).insert(record.id.clone(), running.clone());
        let engine = self.clone();
        let observed = self.config().observer.on_task();
        tasks.tracker.spawn(async move {
            engine.run(record, running, fut).await;
            drop(observed);
        });
        Ok(())
    }

    /// Drives a task's handler to its end, publishing its status as it changes.
    async fn run(&self, record: TaskRecord, running: Arc<Running>, mut fut: ToolFuture) {
        let tasks = self.tasks();
        let deadline = record.ttl.map(|ttl| tokio::time::Instant::now() + ttl);
        let expired = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(expired);
        let Some(link) = running.ctx.task_link().cloned() else {
            return;
        };
        // A store shared with other instances: a `tasks/cancel` one of them answered shows
        // in the record.
        let recheck = tasks.store.shared().then(|| {
            let every = record.poll_interval.unwrap_or(tasks.limits.poll_interval);
            tokio::time::interval_at(tokio::time::Instant::now() + every, every)
        });
        // One future for the whole run: a re-read in flight when another branch fires is not
        // started over.
        let elsewhere = cancelled_elsewhere(tasks, &record.id, record.lease(), recheck);
        tokio::pin!(elsewhere);
        let mut shown = (record.status, None::<String>);
        let ended = loop {
            tokio::select! {
                biased;
                () = running.cancel.cancelled() => break Ended::Cancelled,
                () = tasks.shutdown.cancelled() => break Ended::Cancelled,
                () = &mut expired => break Ended::Expired,
                r = &mut fut => break match r {
                    Ok(result) => Ended::Done(Box::new(result)),
                    Err(()) => Ended::Panicked,
                },
                () = &mut elsewhere => break Ended::Cancelled,
                () = link.changed().notified() => {
                    let now = super::view(&record, Some(&running));
                    if (now.status, now.message.clone()) != shown {
                        shown = (now.status, now.message.clone());
                        let mut updated = record.clone();
                        updated.status = now.status;
                        updated.status_message = now.message;
                        updated.last_updated_at = SystemTime::now();
                        self.publish(updated, &running).await;
                    }
                }
            }
        };
        running.cancel.cancel();
        // The task is the request: its context ends with its handler.
        drop(fut);
        running.ctx.end().await;
        let done = ended_record(&record, &running, &link, ended);
        self.publish(done, &running).await;
        lock(&tasks.running).remove(&record.id);
        running.ended.cancel();
    }

    /// Stores a task's new state and tells the client: a 2025 task's on its session, a
    /// 2026 task's on the listen streams that asked for it.
    async fn publish(&self, record: TaskRecord, running: &Running) {
        match self.tasks().store.update(record.clone()).await {
            Ok(true) => {}
            // Ended already (cancelled meanwhile): that end stands.
            Ok(false) => return,
            Err(e) => {
                tracing::warn!(task = %record.id, error = %e, "cannot store the task's status");
                return;
            }
        }
        self.tasks().announce(&record, Some(running));
        if record.version.era() == Era::Legacy {
            let params = TaskStatusNotificationParams {
                meta: None,
                task: legacy_task(&record, None),
            };
            let note = ferromcp_core::jsonrpc::WireNotification::new(
                "notifications/tasks/status",
                Some(&params),
            );
            if let Ok(text) = serde_json::to_string(&note) {
                // Another instance may hold the session's stream (a shared session).
                if let Some(owner) = &record.owner {
                    self.tasks().note_legacy(owner, &text);
                }
                running.sink.try_send(text);
            }
        }
    }
}

/// Re-reads a task in a shared store at each tick of `recheck` until another instance has
/// cancelled it (or it is gone); never ends without a re-read interval.
async fn cancelled_elsewhere(
    tasks: &super::Tasks,
    id: &str,
    lease: Duration,
    recheck: Option<tokio::time::Interval>,
) {
    let Some(mut recheck) = recheck else {
        return std::future::pending().await;
    };
    loop {
        recheck.tick().await;
        // Each re-read also renews the task's lease: this instance still runs it.
        match tasks.store.watch(id, lease).await {
            Ok(Some(r)) if !r.status.is_terminal() => {}
            // Cancelled (or ended otherwise: a store that took this instance for dead), or
            // gone (expired, removed): nobody can collect its result.
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(task = %id, error = %e, "cannot re-read the task from its store");
            }
        }
    }
}

enum Ended {
    Done(Box<Result<CallToolResult, HandlerError>>),
    Panicked,
    Cancelled,
    Expired,
}

/// The record of a task that ended so.
fn ended_record(
    record: &TaskRecord,
    running: &Running,
    link: &TaskLink,
    ended: Ended,
) -> TaskRecord {
    let mut done = record.clone();
    done.last_updated_at = SystemTime::now();
    done.status_message = link.message();
    let modern = record.version.era() == Era::Modern;
    match ended {
        Ended::Cancelled => done.status = TaskStatus::Cancelled,
        Ended::Expired => {
            done.status = TaskStatus::Failed;
            done.outcome = Some(TaskOutcome::Error(ErrorObject::internal_error(
                "the task's time to live ran out before it finished",
            )));
        }
        Ended::Panicked => {
            tracing::error!(task = %record.id, "task handler panicked");
            done.status = TaskStatus::Failed;
            done.outcome = Some(TaskOutcome::Error(ErrorObject::internal_error(
                "the tool handler panicked",
            )));
        }
        Ended::Done(result) => {
            let (status, outcome) = match (running.ctx.take_override(), *result) {
                (Some(Override::Error(e)), _) | (None, Err(HandlerError::Rpc(e))) => {
                    (TaskStatus::Failed, TaskOutcome::Error(e))
                }
                (None, Err(HandlerError::ResourceNotFound)) => (
                    TaskStatus::Failed,
                    TaskOutcome::Error(ErrorObject::internal_error("not found")),
                ),
                (None, Ok(mut result)) => {
                    // 2025: a tool error fails the task; 2026: the task completed, and
                    // its result says the tool failed.
                    let failed = !modern && result.is_error == Some(true);
                    result.prepare_for(record.version);
                    match serde_json::to_value(&result) {
                        Ok(v) if failed => (TaskStatus::Failed, TaskOutcome::Result(v)),
                        Ok(v) => (TaskStatus::Completed, TaskOutcome::Result(v)),
                        Err(e) => (
                            TaskStatus::Failed,
                            TaskOutcome::Error(ErrorObject::internal_error(format!(
                                "the result does not serialize: {e}"
                            ))),
                        ),
                    }
                }
            };
            done.status = status;
            done.outcome = Some(outcome);
        }
    }
    done
}

/// The handler's future, or `None` if making it panicked.
fn start(tool: &ToolEntry, arguments: Option<&RawValue>, ctx: &Context) -> Option<ToolFuture> {
    let handler = tool.handler.clone();
    let ctx = ctx.clone();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        handler.call(arguments, ctx)
    }))
    .ok()
    .map(CatchUnwind)
}
