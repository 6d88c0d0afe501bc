//! The client against the project's example servers (`quickstart`, `everything`) over
//! stdio, in both eras (automatic: 2026-07-28; pinned: 2025-11-25 and 2025-03-26).
//!
//! The binaries are built by `common::example`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

mod common;
use common::{Roots, eras, example, text};

use ferromcp_client::types::{
    CallToolRequestParams, ClientCapabilities, CompleteRequestParams, ContentBlock, LoggingLevel,
    PromptReference, RootsCapability, ServerNotification,
};
use ferromcp_client::{CallOptions, Client, ClientOptions, Event, StdioCommand};
use serde_json::json;

async fn quickstart(options: ClientOptions) -> Client {
    let cmd = StdioCommand::new(example("quickstart")).env("RUST_LOG", "off");
    Client::connect_stdio(cmd, options).await.unwrap()
}

#[tokio::test]
async fn quickstart_over_stdio_in_each_era() {
    for (options, version) in eras() {
        let client = quickstart(options).await;
        assert_eq!(client.protocol_version(), version);
        let tools = client.list_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert!(
            names.contains(&"add") && names.contains(&"echo"),
            "{names:?}"
        );

        let sum = client
            .call_tool("add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert!(!sum.is_error());
        let ContentBlock::Text(text) = &sum.content[0] else {
            panic!("{sum:?}")
        };
        assert_eq!(text.text, "5");

        let resources = client.list_resources().await.unwrap();
        assert_eq!(resources[0].uri, "quickstart://readme");
        let readme = client.read_resource("quickstart://readme").await.unwrap();
        assert_eq!(readme.contents.len(), 1);

        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts[0].name, "code_review");
        let args = BTreeMap::from([("code".to_owned(), "fn main() {}".to_owned())]);
        let prompt = client.get_prompt("code_review", args).await.unwrap();
        assert!(!prompt.messages.is_empty());

        // An unknown tool is the server's JSON-RPC error, not a connection failure.
        let e = client
            .call_tool("no_such_tool", json!({}))
            .await
            .unwrap_err();
        assert_eq!(e.rpc().map(|r| r.code.0), Some(-32602), "{version}: {e:?}");
        assert!(!e.is_connection());
        client.close().await;
        assert!(client.is_closed());
    }
}

#[tokio::test]
async fn everything_over_stdio_in_each_era() {
    for (options, version) in eras() {
        let cmd = StdioCommand::new(example("everything")).env("RUST_LOG", "off");
        let client = Client::connect_stdio(cmd, options).await.unwrap();
        assert_eq!(client.protocol_version(), version);
        assert!(client.server_capabilities().tools.is_some());
        let tools = client.list_tools().await.unwrap();
        assert!(tools.len() > 3, "{tools:?}");
        client.list_resources().await.unwrap();
        client.list_resource_templates().await.unwrap();
        client.list_prompts().await.unwrap();
        if version.era() == ferromcp_client::Era::Legacy {
            client.ping().await.unwrap();
        }
        client.set_log_level(LoggingLevel::Debug).await.unwrap();
        client.close().await;
    }
}

fn everything() -> StdioCommand {
    StdioCommand::new(example("everything")).env("RUST_LOG", "off")
}

#[tokio::test]
async fn completion_progress_and_logging_against_everything() {
    for (options, version) in eras() {
        let client = Client::connect_stdio(everything(), options).await.unwrap();
        let params = CompleteRequestParams::new(
            PromptReference::new("test_prompt_with_arguments"),
            "arg1",
            "",
        );
        client.complete(params).await.unwrap();

        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let options =
            CallOptions::new().on_progress(move |p| sink.lock().unwrap().push(p.progress));
        let params = CallToolRequestParams::new("test_tool_with_progress");
        let result = client.call_tool_with(params, options).await.unwrap();
        assert_eq!(text(&result), "Tool with progress executed successfully");
        assert_eq!(*seen.lock().unwrap(), [0.0, 50.0, 100.0], "{version}");

        let mut events = client.events();
        client.set_log_level(LoggingLevel::Info).await.unwrap();
        client
            .call_tool("test_tool_with_logging", json!(null))
            .await
            .unwrap();
        let mut logs = 0;
        while let Some(Event::Notification(n)) = events.try_next() {
            if matches!(*n, ServerNotification::LoggingMessage(_)) {
                logs += 1;
            }
        }
        assert_eq!(logs, 3, "{version}");
        assert_eq!(events.dropped(), 0);
        client.close().await;
        assert!(matches!(events.next().await, Some(Event::Closed { .. })));
    }
}

#[tokio::test]
async fn the_handler_answers_roots_in_both_eras() {
    for (options, version) in eras() {
        let caps = ClientCapabilities {
            roots: Some(RootsCapability::default()),
            ..Default::default()
        };
        let options = options.capabilities(caps).handler(Roots("file:///tmp/x"));
        let client = Client::connect_stdio(everything(), options).await.unwrap();
        let result = client
            .call_tool("test_input_required_result_list_roots", json!({}))
            .await
            .unwrap();
        assert_eq!(
            text(&result),
            "The client has 1 roots: file:///tmp/x",
            "{version}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn a_tool_run_as_a_2025_task() {
    let options =
        ClientOptions::new().protocol_version(ferromcp_client::ProtocolVersion::V2025_11_25);
    let client = Client::connect_stdio(everything(), options).await.unwrap();
    let params = CallToolRequestParams::new("slow_compute").with_arguments(
        json!({"seconds": 0, "label": "t"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let ferromcp_client::ToolRun::Task(task) = client.start_tool_task(params).await.unwrap() else {
        panic!("no task was created")
    };
    let result = client.task_result(&task.id).await.unwrap();
    assert!(!result.is_error(), "{result:?}");
    let state = client.get_task(&task.id).await.unwrap();
    assert_eq!(state.status, ferromcp_client::types::TaskStatus::Completed);
    client.close().await;
}
