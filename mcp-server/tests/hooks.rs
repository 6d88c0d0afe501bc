//! Lifecycle hooks (`ServerBuilder::hooks`): the handshake's answer adjusted per client, in
//! both eras.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use ferromcp::custom::method_fn;
use ferromcp::error::ErrorObject;
use ferromcp::hooks::{ClientView, Handshake, HookFuture, Hooks};
use ferromcp::jsonrpc::RequestId;
use ferromcp::testing::{ClientOptions, TestClient};
use ferromcp::types::Root;
use ferromcp::{Context, Era, ServerBuilder};
use serde_json::json;

struct ByClient;

impl Hooks for ByClient {
    fn on_initialize(&self, client: &ClientView<'_>, answer: &mut Handshake<'_>) {
        let name = client.info.map_or("nobody", |i| i.name.as_str());
        *answer.instructions = Some(format!("hello, {name} ({:?})", client.version.era()));
        answer.extra.insert("x-greeted".into(), json!(name));
        if let Some(info) = answer.server_info.as_deref_mut() {
            info.title = Some("Greeter".into());
        }
    }
}

#[tokio::test]
async fn on_initialize_adjusts_initialize_and_discover_per_client() {
    let server = ServerBuilder::new("hooked", "1.0.0")
        .instructions("the default")
        .hooks(ByClient)
        .build();

    let legacy = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let init = legacy.initialize_result().unwrap();
    assert_eq!(
        init.instructions.as_deref(),
        Some("hello, ferromcp-testing (Legacy)")
    );
    assert_eq!(init.capabilities.extra["x-greeted"], "ferromcp-testing");
    assert_eq!(init.server_info.title.as_deref(), Some("Greeter"));
    // The version is still the one agreed on.
    assert_eq!(init.protocol_version, "2025-11-25");

    let modern = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let discover = modern.request("server/discover", None).await.unwrap();
    assert_eq!(
        discover["instructions"],
        format!("hello, ferromcp-testing ({:?})", Era::Modern)
    );
    assert_eq!(discover["capabilities"]["x-greeted"], "ferromcp-testing");
}

#[tokio::test]
async fn without_hooks_the_answer_is_the_configured_one() {
    let server = ServerBuilder::new("plain", "1.0.0")
        .instructions("the default")
        .build();
    let legacy = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let init = legacy.initialize_result().unwrap();
    assert_eq!(init.instructions.as_deref(), Some("the default"));
}

/// Reports each hook's call, with the roots the client gave when asked.
struct Watcher(tokio::sync::mpsc::UnboundedSender<String>);

impl Hooks for Watcher {
    fn on_initialized(&self, ctx: Context) -> HookFuture {
        let tx = self.0.clone();
        Box::pin(async move {
            let name = ctx
                .client_info()
                .map(|i| i.name.clone())
                .unwrap_or_default();
            // No request: no id.
            let id = ctx.request_id();
            tx.send(format!("initialized by {name}, id {id:?}"))
                .unwrap();
        })
    }

    fn on_roots_list_changed(&self, ctx: Context) -> HookFuture {
        let tx = self.0.clone();
        Box::pin(async move {
            let roots = ctx.roots().await.unwrap();
            let uris: Vec<String> = roots.into_iter().map(|r| r.uri).collect();
            tx.send(format!("roots {}", uris.join(" "))).unwrap();
        })
    }
}

// Paused time: when every task is idle and no hook ran, none will, and the wait ends at
// once rather than hanging.
#[tokio::test(start_paused = true)]
async fn on_initialized_and_on_roots_list_changed_run_with_a_session_context() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let server = ServerBuilder::new("hooked", "1.0.0")
        .hooks(Watcher(tx))
        .build();
    let options = ClientOptions::legacy().with_roots(vec![Root::new("file:///work")]);
    let client = TestClient::connect(&server, options).await.unwrap();
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(60), rx.recv())
            .await
            .expect("the hook ran")
            .unwrap()
    };
    assert_eq!(next().await, "initialized by ferromcp-testing, id None");
    client
        .notify("notifications/roots/list_changed", None)
        .await;
    assert_eq!(next().await, "roots file:///work");
}

/// Reports each cancellation the hook sees.
struct Cancellations(tokio::sync::mpsc::UnboundedSender<String>);

impl Hooks for Cancellations {
    fn on_cancelled(&self, ctx: Context, id: RequestId, reason: Option<String>) -> HookFuture {
        let tx = self.0.clone();
        Box::pin(async move {
            let no_request = ctx.request_id().is_none();
            tx.send(format!(
                "cancelled {id} {reason:?}, no request: {no_request}"
            ))
            .unwrap();
        })
    }
}

// Paused time, as above.
#[tokio::test(start_paused = true)]
async fn on_cancelled_runs_when_the_client_cancels_a_running_request() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let server = ServerBuilder::new("hooked", "1.0.0")
        .hooks(Cancellations(tx))
        .method(
            "custom/wait",
            method_fn(|(): (), ctx: Context| async move {
                ctx.cancelled().await;
                Ok::<_, ErrorObject>(json!({}))
            }),
        )
        .unwrap()
        .build();
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let cancel = |id: u64| {
        let params = json!({"requestId": id, "reason": "enough"});
        client.notify("notifications/cancelled", Some(params))
    };
    // A request that is not running: nothing to cancel, no hook.
    cancel(5).await;
    let call = client.request_with_id(RequestId::Number(7), "custom/wait", None);
    let cancelled = async {
        // Sent after the request (polled first): the server reads them in that order.
        cancel(7).await;
        tokio::time::timeout(Duration::from_secs(60), rx.recv())
            .await
            .expect("the hook ran")
            .unwrap()
    };
    tokio::select! {
        biased;
        answer = call => panic!("a cancelled request is not answered: {answer:?}"),
        seen = cancelled => {
            assert_eq!(seen, r#"cancelled 7 Some("enough"), no request: true"#);
        }
    }
    assert!(rx.try_recv().is_err(), "one cancellation, one call");
}
