//! Lists that differ per caller: `ServerBuilder::visible_if` hides items from lists, pages
//! and calls alike, in both eras.

#![cfg(feature = "testing")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ferromcp::Principal;
use ferromcp::prelude::*;
use ferromcp::registry::Listed;
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use serde_json::json;

struct Desk;

#[ferromcp::server(name = "desk")]
impl Desk {
    /// Lists the tickets.
    #[tool(read_only)]
    fn tickets(&self) -> &'static str {
        "none"
    }

    /// Answers a ticket.
    #[tool]
    fn answer(&self, id: u32) -> String {
        format!("answered {id}")
    }

    /// Empties the queue.
    #[tool(destructive)]
    fn admin_purge(&self) -> &'static str {
        "purged"
    }

    /// The audit log.
    #[resource(uri = "admin://log")]
    fn admin_log(&self) -> &'static str {
        "log"
    }

    /// A user's record.
    #[resource(uri = "admin://users/{id}")]
    fn admin_user(&self, id: String) -> String {
        format!("user {id}")
    }

    /// Drafts a reply.
    #[prompt]
    fn reply(&self, ticket: String) -> String {
        format!("Reply to {ticket}.")
    }

    /// Reviews the operators' work.
    #[prompt]
    fn admin_review(&self) -> &'static str {
        "Review the week."
    }
}

/// Whether an item is for operators: its name or URI says `admin`.
fn for_operators(item: Listed<'_>) -> bool {
    match item {
        Listed::Tool(t) => t.name.starts_with("admin"),
        Listed::Prompt(p) => p.name.starts_with("admin"),
        Listed::Resource(r) => r.uri.starts_with("admin:"),
        Listed::ResourceTemplate(t) => t.uri_template.starts_with("admin:"),
        _ => false,
    }
}

fn server() -> Server {
    Server::builder(Desk)
        .page_size(1)
        .visible_if(|item, client| {
            !for_operators(item) || client.principal.is_some_and(|p| p.subject() == "ops")
        })
        .build()
        .unwrap()
}

fn names(tools: &[ferromcp::types::Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

fn is_error(result: Result<impl std::fmt::Debug, TestClientError>, code: i64) {
    match result {
        Err(TestClientError::Rpc(e)) => assert_eq!(e.code.0, code, "{}", e.message),
        other => panic!("expected error {code}, got {other:?}"),
    }
}

fn eras() -> [ClientOptions; 2] {
    [ClientOptions::legacy(), ClientOptions::modern()]
}

#[tokio::test]
async fn hidden_items_are_absent_from_every_list_and_page() {
    let server = server();
    for options in eras() {
        let client = TestClient::connect(&server, options).await.unwrap();
        // One item per page: the cursors walk the visible items only.
        let tools = client.list_tools().await.unwrap();
        assert_eq!(names(&tools), ["tickets", "answer"]);
        assert!(client.list_resources().await.unwrap().is_empty());
        assert!(client.list_resource_templates().await.unwrap().is_empty());
        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts.len(), 1);
        assert_eq!(prompts[0].name, "reply");
    }
}

#[tokio::test]
async fn the_caller_the_predicate_admits_sees_everything() {
    let server = server();
    for options in eras() {
        let ops = options.with_principal(Principal::new("ops"));
        let client = TestClient::connect(&server, ops).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        assert_eq!(names(&tools), ["tickets", "answer", "admin_purge"]);
        assert_eq!(client.list_resources().await.unwrap().len(), 1);
        assert_eq!(client.list_resource_templates().await.unwrap().len(), 1);
        assert_eq!(client.list_prompts().await.unwrap().len(), 2);
        let purged = client.call_tool("admin_purge", json!({})).await.unwrap();
        assert_eq!(purged.content[0].as_text(), Some("purged"));
        let log = client.read_resource("admin://log").await.unwrap();
        assert_eq!(
            serde_json::to_value(&log).unwrap()["contents"][0]["text"],
            "log"
        );
        client.read_resource("admin://users/7").await.unwrap();
        client.get_prompt("admin_review", json!({})).await.unwrap();
    }
}

#[tokio::test]
async fn a_hidden_item_is_refused_as_one_that_does_not_exist() {
    let server = server();
    for options in eras() {
        let modern = options.protocol_version().era() == ferromcp::Era::Modern;
        let client = TestClient::connect(&server, options).await.unwrap();
        is_error(client.call_tool("admin_purge", json!({})).await, -32602);
        is_error(client.get_prompt("admin_review", json!({})).await, -32602);
        // Not found: -32002 in the 2025 revisions, -32602 in 2026-07-28.
        let not_found = if modern { -32602 } else { -32002 };
        is_error(client.read_resource("admin://log").await, not_found);
        is_error(client.read_resource("admin://users/7").await, not_found);
        // What stays visible still answers.
        let answered = client.call_tool("answer", json!({"id": 3})).await.unwrap();
        assert_eq!(answered.content[0].as_text(), Some("answered 3"));
        client
            .get_prompt("reply", json!({"ticket": "T-1"}))
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn callers_who_see_different_items_get_different_pages_of_one_snapshot() {
    let server = server();
    let guest = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let ops = ClientOptions::legacy().with_principal(Principal::new("ops"));
    let ops = TestClient::connect(&server, ops).await.unwrap();
    // Interleaved, so that a page cached for one would show if it were served to the other.
    for _ in 0..2 {
        assert_eq!(names(&guest.list_tools().await.unwrap()).len(), 2);
        assert_eq!(names(&ops.list_tools().await.unwrap()).len(), 3);
    }
}
