//! The showcase example's contract (elicitation, a resource template and its completion),
//! through the in-process client in both eras. Third-party clients drive the same binary in
//! tests/interop.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use ferromcp::types::{ElicitContentValue, ElicitRequestParams, ElicitResult};
use serde_json::json;

mod common;
use common::{eras, rpc_code};

// The binary's source, compiled here as a module so the test serves the very same server.
#[allow(dead_code)]
#[path = "../src/bin/showcase.rs"]
mod showcase;

async fn connect(options: ClientOptions) -> TestClient {
    TestClient::connect(&showcase::server().unwrap(), options)
        .await
        .unwrap()
}

#[tokio::test]
async fn lists_describe_the_tool_and_the_template() {
    for (options, _) in eras() {
        let client = connect(options).await;
        let tools = client.list_tools().await.unwrap();
        let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["greet", "report"]);
        for tool in &tools {
            assert!(tool.description.is_some());
            assert_eq!(tool.input_schema["type"], "object");
        }
        let support = tools[1].execution.as_ref().and_then(|e| e.task_support);
        assert_eq!(support, Some(ferromcp::types::ToolTaskSupport::Optional));

        // The one resource is the report's app.
        let resources = client.list_resources().await.unwrap();
        let uris: Vec<_> = resources.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris, ["ui://showcase/report.html"]);
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(templates.len(), 1);
        assert_eq!(templates[0].uri_template, "showcase://notes/{id}");
        assert_eq!(templates[0].mime_type.as_deref(), Some("text/markdown"));
    }
}

#[tokio::test]
async fn greet_asks_for_a_name_in_both_eras() {
    for (options, _) in eras() {
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = asked.clone();
        let options = options.with_elicitation(move |params| {
            seen.lock().unwrap().push(params);
            ElicitResult::accept(BTreeMap::from([(
                "name".to_owned(),
                ElicitContentValue::String("Ada".into()),
            )]))
        });
        let client = connect(options).await;
        let r = client.call_tool("greet", json!({})).await.unwrap();
        assert_eq!(r.is_error, None);
        assert_eq!(r.content[0].as_text(), Some("Hello, Ada!"));
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 1);
        let ElicitRequestParams::Form(form) = &asked[0] else {
            panic!("a form elicitation, got {:?}", asked[0]);
        };
        assert_eq!(form.message, "What is your name?");
        let schema = serde_json::to_value(&form.requested_schema).unwrap();
        assert_eq!(schema["properties"]["name"]["type"], "string");
        assert_eq!(schema["required"], json!(["name"]));
    }
}

#[tokio::test]
async fn greet_reports_a_decline_and_a_client_without_elicitation() {
    for (options, modern) in eras() {
        let declining = options
            .clone()
            .with_elicitation(|_| ElicitResult::decline());
        let client = connect(declining).await;
        let r = client.call_tool("greet", json!({})).await.unwrap();
        assert_eq!(r.is_error, Some(true));
        assert!(r.content[0].as_text().unwrap().contains("declined"));

        let client = connect(options).await;
        let r = client.call_tool("greet", json!({})).await;
        if modern {
            // 2026: asking for an undeclared capability ends the request with -32021.
            assert_eq!(rpc_code(r.unwrap_err()), -32021);
        } else {
            let r = r.unwrap();
            assert_eq!(r.is_error, Some(true));
            assert!(
                r.content[0]
                    .as_text()
                    .unwrap()
                    .contains("does not support elicitation")
            );
        }
    }
}

#[tokio::test]
async fn notes_and_completion() {
    for (options, modern) in eras() {
        let client = connect(options).await;
        let r = client
            .read_resource("showcase://notes/welcome")
            .await
            .unwrap();
        assert_eq!(r.contents[0].uri(), "showcase://notes/welcome");
        assert_eq!(r.contents[0].mime_type(), Some("text/markdown"));
        let text = serde_json::to_value(&r.contents[0]).unwrap()["text"].clone();
        assert!(text.as_str().unwrap().contains("Welcome!"), "{text}");

        let missing = client
            .read_resource("showcase://notes/missing")
            .await
            .unwrap_err();
        let TestClientError::Rpc(e) = missing else {
            panic!("expected an error, got {missing:?}")
        };
        assert_eq!(e.code.0, if modern { -32602 } else { -32002 });
        assert_eq!(e.data.as_ref().unwrap()["uri"], "showcase://notes/missing");

        let completion = client
            .request(
                "completion/complete",
                Some(json!({
                    "ref": {"type": "ref/resource", "uri": "showcase://notes/{id}"},
                    "argument": {"name": "id", "value": "t"}
                })),
            )
            .await
            .unwrap();
        assert_eq!(completion["completion"]["values"], json!(["todo"]));
    }
}

#[tokio::test]
async fn report_runs_as_a_task_with_progress_in_both_eras() {
    // 2025-11-25: asked for a task, collected with tasks/result.
    let client = connect(ClientOptions::legacy()).await;
    let created = client
        .request(
            "tools/call",
            Some(json!({"name": "report", "arguments": {"sections": 2}, "task": {"ttl": 60000}})),
        )
        .await
        .unwrap();
    let id = created["task"]["taskId"].clone();
    let result = client
        .request("tasks/result", Some(json!({"taskId": id})))
        .await
        .unwrap();
    assert_eq!(
        result["content"][0]["text"],
        "The report: 2 sections, all good."
    );
    let task = client
        .request("tasks/get", Some(json!({"taskId": id})))
        .await
        .unwrap();
    assert_eq!(task["status"], "completed");
    assert_eq!(task["statusMessage"], "section 2 of 2");

    // 2026-07-28 with the tasks extension: a task at once, polled until completed.
    let client =
        connect(ClientOptions::modern().with_extension(ferromcp::types::TASKS_EXTENSION)).await;
    let created = client
        .request(
            "tools/call",
            Some(json!({"name": "report", "arguments": {"sections": 2}})),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task");
    let id = created["taskId"].clone();
    let mut task = json!(null);
    for _ in 0..500 {
        task = client
            .request("tasks/get", Some(json!({"taskId": id})))
            .await
            .unwrap();
        if task["status"] == "completed" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(
        task["result"]["content"][0]["text"],
        "The report: 2 sections, all good."
    );
}

/// A host that renders apps: it declares the extension with the app MIME type.
fn apps_host(options: ClientOptions) -> ClientOptions {
    let mut settings = serde_json::Map::new();
    settings.insert("mimeTypes".into(), json!([ferromcp::apps::MIME_TYPE]));
    options.with_extension_settings(ferromcp::apps::ID, settings)
}

#[tokio::test]
async fn report_points_at_its_app_and_answers_text_to_every_client() {
    for (options, _) in eras() {
        let host = connect(apps_host(options.clone())).await;
        let tools = host.list_tools().await.unwrap();
        let meta = serde_json::to_value(tools[1].meta.as_ref().unwrap()).unwrap();
        assert_eq!(
            meta["ui"],
            json!({"resourceUri": "ui://showcase/report.html"})
        );
        assert!(tools[0].meta.as_ref().and_then(|m| m.get("ui")).is_none());

        let read = host
            .read_resource("ui://showcase/report.html")
            .await
            .unwrap();
        let contents = serde_json::to_value(&read.contents[0]).unwrap();
        assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
        assert_eq!(contents["_meta"]["ui"], json!({}));
        let html = contents["text"].as_str().unwrap();
        assert!(html.contains(r#"<button id="compile""#));
        assert!(
            html.contains("globalThis.ExtApps={"),
            "the App class is inlined"
        );
        assert!(!html.contains("data-inline=\"ext-apps\""));

        // With or without the extension, the same text.
        for client in [host, connect(options).await] {
            let r = client
                .call_tool("report", json!({"sections": 1}))
                .await
                .unwrap();
            assert_eq!(r.content.len(), 1);
            assert_eq!(
                r.content[0].as_text(),
                Some("The report: 1 sections, all good.")
            );
        }
    }
}
