//! Tasks in both eras through the in-process client: 2025-11-25 task-augmented calls
//! (`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`) and the 2026-07-28
//! `io.modelcontextprotocol/tasks` extension (`tasks/get`, `tasks/update`, `tasks/cancel`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ferromcp::error::ErrorObject;
use ferromcp::registry::tool_fn;
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use ferromcp::types::{
    ElicitRequestFormParams, ElicitResult, TASKS_EXTENSION, Tool, ToolExecution, ToolTaskSupport,
};
use ferromcp::{Context, Server, ServerBuilder, ToolError};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

fn tool(name: &str, support: Option<ToolTaskSupport>) -> Tool {
    let mut t = Tool::new(
        name,
        json!({"type": "object"}).as_object().cloned().unwrap(),
    );
    t.description = Some(format!("The {name} tool."));
    t.execution = support.map(|s| ToolExecution {
        task_support: Some(s),
        ..Default::default()
    });
    t
}

#[derive(serde::Deserialize)]
struct NoArgs {}

/// What the tests' tools share: `gate` lets `gated` finish, `cancelled` records that a
/// cancelled task's handler saw its token fire.
#[derive(Clone)]
struct Probe {
    gate: Arc<Semaphore>,
    cancelled: Arc<AtomicBool>,
}

fn serve(builder: ferromcp::ServerBuilder) -> (Server, Probe) {
    let server = builder.page_size(2).build();
    let probe = Probe {
        gate: Arc::new(Semaphore::new(0)),
        cancelled: Arc::new(AtomicBool::new(false)),
    };
    let r = server.registry();
    let gate = probe.gate.clone();
    r.add_tool(
        tool("gated", Some(ToolTaskSupport::Optional)),
        tool_fn(move |_: NoArgs, _ctx: Context| {
            let gate = gate.clone();
            async move {
                gate.acquire().await.unwrap().forget();
                "done"
            }
        }),
        None,
    )
    .unwrap();
    let cancelled = probe.cancelled.clone();
    r.add_tool(
        tool("until_cancelled", Some(ToolTaskSupport::Optional)),
        tool_fn(move |_: NoArgs, ctx: Context| {
            let cancelled = cancelled.clone();
            async move {
                // Runs on a task of its own, as work handed to a pool would.
                let token = ctx.cancellation_token();
                let watcher = tokio::spawn(async move {
                    token.cancelled().await;
                    cancelled.store(true, Ordering::SeqCst);
                });
                ctx.begin_task().await;
                ctx.cancelled().await;
                let _ = watcher.await;
                "never seen"
            }
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("failing", Some(ToolTaskSupport::Required)),
        tool_fn(|_: NoArgs, ctx: Context| async move {
            ctx.begin_task().await;
            Err::<String, _>(ToolError::new("it failed"))
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("rejecting", Some(ToolTaskSupport::Optional)),
        tool_fn(|_: NoArgs, ctx: Context| async move {
            ctx.begin_task().await;
            Err::<String, _>(
                ErrorObject::invalid_params("bad city").with_data(json!({"city": "x"})),
            )
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("panicking", Some(ToolTaskSupport::Optional)),
        tool_fn(|_: NoArgs, ctx: Context| async move {
            ctx.begin_task().await;
            if ctx.task_id().is_some() {
                panic!("on purpose");
            }
            "unreachable"
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("confirm", Some(ToolTaskSupport::Optional)),
        tool_fn(|_: NoArgs, ctx: Context| async move {
            ctx.begin_task().await;
            let schema = serde_json::from_value(json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"]
            }))
            .unwrap();
            let answer = ctx
                .input(Some("confirm"))
                .elicit_form(ElicitRequestFormParams::new("Sure?", schema))
                .await
                .map_err(|e| ToolError::new(e.to_string()))?;
            Ok::<_, ToolError>(format!("answer: {:?}", answer.action))
        }),
        None,
    )
    .unwrap();
    r.add_tool(
        tool("plain", None),
        tool_fn(|_: NoArgs, _ctx: Context| async move { "plain" }),
        None,
    )
    .unwrap();
    (server, probe)
}

fn builder() -> ferromcp::ServerBuilder {
    ServerBuilder::new("tasks-test", "1.0.0")
}

fn rpc_code(e: TestClientError) -> i64 {
    match e {
        TestClientError::Rpc(e) => e.code.0,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

async fn connect(server: &Server, options: ClientOptions) -> TestClient {
    TestClient::connect(server, options).await.unwrap()
}

fn task_id(created: &Value) -> String {
    let task = created.get("task").unwrap_or(created);
    task["taskId"].as_str().unwrap().to_owned()
}

/// Waits (a bounded number of times) for the cancelled handler to see its token fire.
async fn handler_saw_cancellation(probe: &Probe) {
    for _ in 0..500 {
        if probe.cancelled.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the handler's cancellation token never fired");
}

/// Polls `tasks/get` until the task's status is `want` (a bounded number of polls).
async fn wait_for(client: &TestClient, id: &str, want: &str) -> Value {
    for _ in 0..500 {
        let task = client
            .request("tasks/get", Some(json!({"taskId": id})))
            .await
            .unwrap();
        if task["status"] == want {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never became {want}");
}

// ---------------------------------------------------------------- 2025-11-25

async fn legacy_call(client: &TestClient, name: &str, ttl: u64) -> Value {
    let created = client
        .request(
            "tools/call",
            Some(json!({"name": name, "arguments": {}, "task": {"ttl": ttl}})),
        )
        .await
        .unwrap();
    created["task"].clone()
}

#[tokio::test]
async fn legacy_task_runs_in_the_background_and_result_waits_for_it() {
    let (server, probe) = serve(builder());
    let client = connect(&server, ClientOptions::legacy()).await;
    let caps = &client.initialize_result().unwrap().capabilities;
    let tasks = serde_json::to_value(caps.tasks.as_ref().unwrap()).unwrap();
    assert_eq!(tasks["requests"]["tools"]["call"], json!({}));
    assert!(caps.extensions.is_none());

    let task = legacy_call(&client, "gated", 60_000).await;
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 60_000);
    let id = task["taskId"].as_str().unwrap().to_owned();
    let got = client
        .request("tasks/get", Some(json!({"taskId": id})))
        .await
        .unwrap();
    assert_eq!(got["status"], "working");

    // tasks/result blocks until the task ends. Paused, the clock moves on to the end of the
    // sleep only once every task waits: the request has had every chance to be answered.
    let result = {
        let client = &client;
        let waiting = client.request("tasks/result", Some(json!({"taskId": id})));
        tokio::pin!(waiting);
        tokio::time::pause();
        tokio::select! {
            _ = &mut waiting => panic!("tasks/result answered before the task ended"),
            () = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
        tokio::time::resume();
        probe.gate.add_permits(1);
        waiting.await.unwrap()
    };
    assert_eq!(result["content"][0]["text"], "done");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    assert_eq!(
        wait_for(&client, &id, "completed").await["taskId"],
        id.as_str()
    );
}

#[tokio::test]
async fn legacy_tool_error_fails_the_task_and_result_returns_it_exactly() {
    let (server, _) = serve(builder());
    let client = connect(&server, ClientOptions::legacy()).await;
    let id = task_id(&legacy_call(&client, "failing", 60_000).await);
    let result = client
        .request("tasks/result", Some(json!({"taskId": id})))
        .await
        .unwrap();
    assert_eq!(result["isError"], true);
    assert_eq!(result["content"][0]["text"], "it failed");
    assert_eq!(wait_for(&client, &id, "failed").await["status"], "failed");

    let panicked = task_id(&legacy_call(&client, "panicking", 60_000).await);
    let err = client
        .request("tasks/result", Some(json!({"taskId": panicked})))
        .await
        .unwrap_err();
    assert_eq!(rpc_code(err), -32603);
}

#[tokio::test]
async fn a_tool_error_object_fails_the_task_with_that_error_in_both_eras() {
    let (server, _) = serve(builder());
    let legacy = connect(&server, ClientOptions::legacy()).await;
    let id = task_id(&legacy_call(&legacy, "rejecting", 60_000).await);
    let err = legacy
        .request("tasks/result", Some(json!({"taskId": id})))
        .await
        .unwrap_err();
    let TestClientError::Rpc(e) = err else {
        panic!("expected a JSON-RPC error, got {err:?}")
    };
    assert_eq!((e.code.0, e.message.as_str()), (-32602, "bad city"));
    assert_eq!(e.data, Some(json!({"city": "x"})));
    assert_eq!(wait_for(&legacy, &id, "failed").await["status"], "failed");

    let client = connect(&server, modern()).await;
    let created = modern_call(&client, "rejecting").await;
    let failed = wait_for(&client, created["taskId"].as_str().unwrap(), "failed").await;
    assert_eq!(failed["error"]["code"], -32602);
    assert_eq!(failed["error"]["data"], json!({"city": "x"}));
    assert!(failed.get("result").is_none());
}

#[tokio::test]
async fn legacy_cancel_reaches_the_handler_and_is_final() {
    let (server, probe) = serve(builder());
    let client = connect(&server, ClientOptions::legacy()).await;
    let id = task_id(&legacy_call(&client, "until_cancelled", 60_000).await);
    let cancelled = client
        .request("tasks/cancel", Some(json!({"taskId": id})))
        .await
        .unwrap();
    assert_eq!(cancelled["status"], "cancelled");
    handler_saw_cancellation(&probe).await;
    assert_eq!(
        wait_for(&client, &id, "cancelled").await["status"],
        "cancelled"
    );
    let again = client
        .request("tasks/cancel", Some(json!({"taskId": id})))
        .await
        .unwrap_err();
    assert_eq!(rpc_code(again), -32602);
}

#[tokio::test]
async fn legacy_tasks_list_by_page_and_stay_in_their_session() {
    let (server, probe) = serve(builder());
    let client = connect(&server, ClientOptions::legacy()).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(legacy_call(&client, "gated", 60_000).await["taskId"].clone());
    }
    let first = client.request("tasks/list", None).await.unwrap();
    assert_eq!(first["tasks"].as_array().unwrap().len(), 2);
    let cursor = first["nextCursor"].clone();
    let second = client
        .request("tasks/list", Some(json!({"cursor": cursor})))
        .await
        .unwrap();
    assert_eq!(second["tasks"].as_array().unwrap().len(), 1);
    assert!(second.get("nextCursor").is_none());
    let listed: Vec<Value> = first["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["tasks"].as_array().unwrap())
        .map(|t| t["taskId"].clone())
        .collect();
    assert_eq!(listed, ids);

    // Another session sees none of them.
    let other = connect(&server, ClientOptions::legacy()).await;
    let err = other
        .request("tasks/get", Some(json!({"taskId": ids[0]})))
        .await
        .unwrap_err();
    assert_eq!(rpc_code(err), -32602);
    let err = other
        .request("tasks/cancel", Some(json!({"taskId": ids[0]})))
        .await
        .unwrap_err();
    assert_eq!(rpc_code(err), -32602);
    let none = other.request("tasks/list", None).await.unwrap();
    assert!(none["tasks"].as_array().unwrap().is_empty());
    probe.gate.add_permits(3);
}

#[tokio::test]
async fn legacy_task_support_is_enforced() {
    let (server, _) = serve(builder());
    let client = connect(&server, ClientOptions::legacy()).await;
    let err = client
        .request(
            "tools/call",
            Some(json!({"name": "failing", "arguments": {}})),
        )
        .await
        .unwrap_err();
    assert_eq!(
        rpc_code(err),
        -32601,
        "a required task called without `task`"
    );
    let err = client
        .request(
            "tools/call",
            Some(json!({"name": "plain", "arguments": {}, "task": {}})),
        )
        .await
        .unwrap_err();
    assert_eq!(rpc_code(err), -32601, "a task of a tool that forbids them");
    let plain = client.call_tool("plain", json!({})).await.unwrap();
    assert_eq!(plain.is_error, None);
}

#[tokio::test]
async fn tasks_expire_after_their_time_to_live() {
    let (server, probe) =
        serve(builder().task_ttl(Duration::from_millis(100), Duration::from_millis(150)));
    let client = connect(&server, ClientOptions::legacy()).await;
    // Asked for a minute, kept for the server's maximum.
    let task = legacy_call(&client, "gated", 60_000).await;
    assert_eq!(task["ttl"], 150);
    let id = task["taskId"].clone();
    // Still running at the end of its time to live: stopped, then gone. Paused, the clock
    // moves only as far as it is advanced.
    tokio::time::pause();
    tokio::time::advance(Duration::from_millis(300)).await;
    tokio::time::resume();
    let err = client
        .request("tasks/get", Some(json!({"taskId": id})))
        .await
        .unwrap_err();
    assert_eq!(rpc_code(err), -32602);
    assert!(
        client.request("tasks/list", None).await.unwrap()["tasks"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    probe.gate.add_permits(1);
}

#[tokio::test]
async fn running_tasks_are_bounded() {
    let (server, probe) = serve(builder().max_running_tasks(2));
    let client = connect(&server, ClientOptions::legacy()).await;
    legacy_call(&client, "gated", 60_000).await;
    legacy_call(&client, "gated", 60_000).await;
    let err = client
        .request(
            "tools/call",
            Some(json!({"name": "gated", "arguments": {}, "task": {}})),
        )
        .await
        .unwrap_err();
    let TestClientError::Rpc(e) = err else {
        panic!("expected an error")
    };
    assert!(e.message.contains("too many tasks"), "{}", e.message);
    probe.gate.add_permits(2);
}

// ---------------------------------------------------------------- 2026-07-28

fn modern() -> ClientOptions {
    ClientOptions::modern()
        .with_extension(TASKS_EXTENSION)
        .with_elicitation(|_| ElicitResult::accept(Default::default()))
}

async fn modern_call(client: &TestClient, name: &str) -> Value {
    client
        .request("tools/call", Some(json!({"name": name, "arguments": {}})))
        .await
        .unwrap()
}

#[tokio::test]
async fn modern_task_is_flat_and_its_result_inline() {
    let (server, probe) = serve(builder());
    let client = connect(&server, modern()).await;
    let discover = client.request("server/discover", None).await.unwrap();
    assert_eq!(
        discover["capabilities"]["extensions"][TASKS_EXTENSION],
        json!({})
    );
    assert!(discover["capabilities"].get("tasks").is_none());

    let created = modern_call(&client, "gated").await;
    assert_eq!(created["resultType"], "task");
    assert_eq!(created["status"], "working");
    assert!(created.get("task").is_none() && created["ttlMs"].as_u64().unwrap() > 0);
    let id = created["taskId"].as_str().unwrap().to_owned();
    assert_eq!(
        wait_for(&client, &id, "working").await["resultType"],
        "complete"
    );
    probe.gate.add_permits(1);
    let done = wait_for(&client, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "done");
    assert!(done["result"].get("_meta").is_none());

    // A tool error completes the task; a panic fails it with a protocol error.
    let failing = modern_call(&client, "failing").await;
    let failed = wait_for(&client, failing["taskId"].as_str().unwrap(), "completed").await;
    assert_eq!(failed["result"]["isError"], true);
    let panicking = modern_call(&client, "panicking").await;
    let broken = wait_for(&client, panicking["taskId"].as_str().unwrap(), "failed").await;
    assert_eq!(broken["error"]["code"], -32603);
    assert!(broken.get("result").is_none());

    for removed in ["tasks/result", "tasks/list"] {
        let err = client
            .request(removed, Some(json!({"taskId": id})))
            .await
            .unwrap_err();
        assert_eq!(rpc_code(err), -32601, "{removed}");
    }
}

/// Answers the `confirm` tool's question with yes.
async fn answer_yes(client: &TestClient, id: &str) {
    client
        .request(
            "tasks/update",
            Some(json!({
                "taskId": id,
                "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}
            })),
        )
        .await
        .unwrap();
}

#[tokio::test]
async fn modern_input_required_is_answered_with_tasks_update() {
    let (server, _) = serve(builder());
    let client = connect(&server, modern()).await;
    let id = task_id(&modern_call(&client, "confirm").await);
    let waiting = wait_for(&client, &id, "input_required").await;
    assert_eq!(
        waiting["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    // An answer to a question not asked changes nothing.
    let ack = client
        .request(
            "tasks/update",
            Some(json!({"taskId": id, "inputResponses": {"other": {"action": "accept"}}})),
        )
        .await
        .unwrap();
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("status").is_none());
    assert_eq!(
        wait_for(&client, &id, "input_required").await["taskId"],
        id.as_str()
    );
    answer_yes(&client, &id).await;
    let done = wait_for(&client, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "answer: Accept");
}

#[tokio::test]
async fn modern_cancel_during_input_required_reaches_the_handler() {
    let (server, _) = serve(builder());
    let client = connect(&server, modern()).await;
    let id = task_id(&modern_call(&client, "confirm").await);
    wait_for(&client, &id, "input_required").await;
    let ack = client
        .request("tasks/cancel", Some(json!({"taskId": id})))
        .await
        .unwrap();
    assert_eq!(ack["resultType"], "complete");
    let cancelled = wait_for(&client, &id, "cancelled").await;
    assert!(cancelled.get("inputRequests").is_none());
    // Cancelling an ended task is acknowledged alike.
    client
        .request("tasks/cancel", Some(json!({"taskId": id})))
        .await
        .unwrap();

    let (second, probe) = serve(builder());
    let client = connect(&second, modern()).await;
    let id = modern_call(&client, "until_cancelled").await["taskId"].clone();
    client
        .request("tasks/cancel", Some(json!({"taskId": id})))
        .await
        .unwrap();
    handler_saw_cancellation(&probe).await;
}

/// The error is -32021 naming the tasks extension.
fn assert_needs_the_extension(err: TestClientError) {
    let TestClientError::Rpc(e) = err else {
        panic!("expected a JSON-RPC error, got {err:?}")
    };
    assert_eq!(e.code.0, -32021);
    assert_eq!(
        e.data.unwrap()["requiredCapabilities"]["extensions"][TASKS_EXTENSION],
        json!({})
    );
}

/// A server none of whose tools runs as a task does not offer the extension: its methods
/// are not found (-32601), whatever the client declares.
#[tokio::test]
async fn without_task_tools_the_extensions_methods_are_not_found() {
    let server = builder().build();
    server
        .registry()
        .add_tool(
            tool("plain", None),
            ferromcp::registry::tool_fn(|_: Value, _| async { "ok" }),
            None,
        )
        .unwrap();
    let client = connect(&server, modern()).await;
    let discovered = client.request("server/discover", None).await.unwrap();
    assert!(
        discovered["capabilities"]["extensions"]
            .get(TASKS_EXTENSION)
            .is_none(),
        "{discovered}"
    );
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let err = client
            .request(method, Some(json!({"taskId": "x"})))
            .await
            .unwrap_err();
        assert_eq!(rpc_code(err), -32601, "{method}");
    }
}

#[tokio::test]
async fn modern_clients_without_the_extension_get_no_tasks() {
    let (server, _) = serve(builder());
    let client = connect(&server, ClientOptions::modern()).await;
    let err = client
        .request("tasks/get", Some(json!({"taskId": "x"})))
        .await
        .unwrap_err();
    assert_needs_the_extension(err);
    let err = client
        .request(
            "tools/call",
            Some(json!({"name": "failing", "arguments": {}})),
        )
        .await
        .unwrap_err();
    assert_eq!(rpc_code(err), -32021, "a tool that requires a task");
    let confirm = client
        .request(
            "tools/call",
            Some(json!({"name": "panicking", "arguments": {}})),
        )
        .await
        .unwrap();
    assert_eq!(
        confirm["resultType"], "complete",
        "an optional task runs as a call"
    );
    assert_eq!(confirm["content"][0]["text"], "unreachable");

    // With the extension, an unknown task is -32602.
    let with = connect(&server, modern()).await;
    let err = with
        .request("tasks/get", Some(json!({"taskId": "x"})))
        .await
        .unwrap_err();
    assert_eq!(rpc_code(err), -32602);
}

#[tokio::test]
async fn a_thousand_tasks_run_at_once_and_the_next_is_refused() {
    let (server, probe) = serve(builder());
    let client = connect(&server, ClientOptions::legacy()).await;
    let mut ids = Vec::new();
    for _ in 0..1_000 {
        ids.push(task_id(&legacy_call(&client, "gated", 60_000).await));
    }
    let err = client
        .request(
            "tools/call",
            Some(json!({"name": "gated", "arguments": {}, "task": {}})),
        )
        .await
        .unwrap_err();
    assert_eq!(
        rpc_code(err),
        -32603,
        "the default cap is 1,000 running tasks"
    );
    probe.gate.add_permits(1_000);
    for id in &ids {
        wait_for(&client, id, "completed").await;
    }
    // Ended tasks no longer count: a new one starts.
    let next = legacy_call(&client, "gated", 60_000).await;
    assert_eq!(next["status"], "working");
    probe.gate.add_permits(1);
}

/// Waits (a bounded number of times) for the `n`th `notifications/tasks` of `id`.
async fn task_notification(client: &TestClient, id: &str, n: usize) -> Value {
    for _ in 0..500 {
        let mine: Vec<Value> = client
            .notifications()
            .into_iter()
            .filter(|m| m["method"] == "notifications/tasks" && m["params"]["taskId"] == id)
            .map(|m| m["params"].clone())
            .collect();
        if let Some(note) = mine.get(n) {
            return note.clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no notifications/tasks #{n} for task {id}");
}

/// Opens a `subscriptions/listen` stream (request id `id`) following `task_ids`.
fn listen(
    client: &Arc<TestClient>,
    id: &str,
    task_ids: Value,
) -> tokio::task::JoinHandle<Result<Value, TestClientError>> {
    let client = client.clone();
    let id = ferromcp::jsonrpc::RequestId::String(id.into());
    tokio::spawn(async move {
        let params = json!({"notifications": {"taskIds": task_ids}});
        client
            .request_with_id(id, "subscriptions/listen", Some(params))
            .await
    })
}

#[tokio::test]
async fn listen_streams_carry_the_changes_of_the_tasks_they_name() {
    let (server, probe) = serve(builder());
    let client = Arc::new(connect(&server, modern()).await);
    let gated = task_id(&modern_call(&client, "gated").await);
    let confirm = task_id(&modern_call(&client, "confirm").await);
    wait_for(&client, &confirm, "input_required").await;

    let stream = listen(&client, "sub", json!([gated, "not-a-task", confirm, gated]));
    // Acknowledged with the tasks the server will follow (each once), then their state now.
    let mut ack = None;
    for _ in 0..500 {
        ack = client
            .notifications()
            .into_iter()
            .find(|m| m["method"] == "notifications/subscriptions/acknowledged");
        if ack.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let ack = ack.expect("the listen stream was never acknowledged");
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([gated, confirm])
    );
    let now = task_notification(&client, &gated, 0).await;
    assert_eq!(now["status"], "working");
    assert_eq!(
        now["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );
    assert!(now.get("resultType").is_none());
    let waiting = task_notification(&client, &confirm, 0).await;
    assert_eq!(waiting["status"], "input_required");
    assert_eq!(
        waiting["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );

    // Each change follows, in full, as `tasks/get` would answer it.
    probe.gate.add_permits(1);
    let done = task_notification(&client, &gated, 1).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "done");
    answer_yes(&client, &confirm).await;
    let mut last = Value::Null;
    for n in 1..4 {
        last = task_notification(&client, &confirm, n).await;
        if last["status"] == "completed" {
            break;
        }
        assert_eq!(last["status"], "working");
    }
    assert_eq!(last["result"]["content"][0]["text"], "answer: Accept");
    assert_eq!(last, {
        let mut polled = client
            .request("tasks/get", Some(json!({"taskId": confirm})))
            .await
            .unwrap();
        let map = polled.as_object_mut().unwrap();
        map.remove("resultType");
        map.insert(
            "_meta".into(),
            json!({"io.modelcontextprotocol/subscriptionId": "sub"}),
        );
        polled
    });

    // A task cancelled while followed says so.
    let until = task_id(&modern_call(&client, "until_cancelled").await);
    let second = listen(&client, "sub-2", json!([until]));
    assert_eq!(
        task_notification(&client, &until, 0).await["status"],
        "working"
    );
    client
        .request("tasks/cancel", Some(json!({"taskId": until})))
        .await
        .unwrap();
    let cancelled = task_notification(&client, &until, 1).await;
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(
        cancelled["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-2"
    );
    handler_saw_cancellation(&probe).await;
    stream.abort();
    second.abort();
}

#[tokio::test]
async fn listening_for_tasks_needs_the_extension_and_well_formed_ids() {
    let (server, _) = serve(builder());
    let without = connect(&server, ClientOptions::modern()).await;
    let err = without
        .request(
            "subscriptions/listen",
            Some(json!({"notifications": {"taskIds": ["a"]}})),
        )
        .await
        .unwrap_err();
    assert_needs_the_extension(err);
    let with = connect(&server, modern()).await;
    for bad in [json!("a"), json!([1, 2]), json!(vec!["x"; 1_001])] {
        // Refused at once: an accepted stream would never answer.
        let asked = with.request(
            "subscriptions/listen",
            Some(json!({"notifications": {"taskIds": bad}})),
        );
        let err = tokio::time::timeout(Duration::from_secs(10), asked)
            .await
            .unwrap_or_else(|_| panic!("{bad} was accepted"))
            .unwrap_err();
        assert_eq!(rpc_code(err), -32602, "{bad}");
    }
}
