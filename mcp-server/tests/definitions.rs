//! What a server says about its own lists: `Server::definitions` equals what clients of each
//! revision are listed, page after page, and `Registry::set_list_meta` is the lists' `_meta`
//! in both eras.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ferromcp::ProtocolVersion;
use ferromcp::prelude::*;
use ferromcp::registry::List;
use ferromcp::testing::{ClientOptions, TestClient};
use ferromcp::types::MetaObject;
use serde_json::{Value, json};

struct Library;

#[ferromcp::server(name = "library", version = "1.0.0")]
impl Library {
    /// Finds books.
    #[tool(title = "Find", read_only)]
    fn find(&self, query: String) -> String {
        query
    }

    /// Lends a book.
    #[tool(meta = json!({"example.com/desk": 2}))]
    fn lend(&self, id: u32) -> String {
        id.to_string()
    }

    /// Returns a book.
    #[tool]
    fn give_back(&self, id: u32) -> String {
        id.to_string()
    }

    /// Hidden by the test.
    #[tool]
    fn audit(&self) -> String {
        "ok".into()
    }

    /// The catalog.
    #[resource(uri = "library://catalog", title = "Catalog", mime_type = "text/plain")]
    fn catalog(&self) -> String {
        "all".into()
    }

    /// The opening hours.
    #[resource(uri = "library://hours")]
    fn hours(&self) -> String {
        "9-5".into()
    }

    /// The news.
    #[resource(uri = "library://news")]
    fn news(&self) -> String {
        "none".into()
    }

    /// One book.
    #[resource(uri = "library://books/{id}", title = "Book")]
    fn book(&self, id: u32) -> String {
        id.to_string()
    }

    /// One shelf.
    #[resource(uri = "library://shelves/{shelf}")]
    fn shelf(&self, shelf: String) -> String {
        shelf
    }

    /// One author's books.
    #[resource(uri = "library://authors/{name}")]
    fn author(&self, name: String) -> String {
        name
    }

    /// Recommends a book.
    #[prompt(title = "Recommend")]
    fn recommend(&self, genre: String) -> String {
        genre
    }

    /// Summarizes a book.
    #[prompt]
    fn summarize(&self, id: u32) -> String {
        id.to_string()
    }

    /// Greets a reader.
    #[prompt]
    fn welcome(&self) -> String {
        "welcome".into()
    }
}

fn server() -> Server {
    let server = Server::builder(Library).page_size(2).build().unwrap();
    assert!(server.registry().disable_tool("audit"));
    server
}

/// Every page of `method` the client is sent, each page's `key` joined in order.
async fn pages(client: &TestClient, method: &str, key: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    let mut count = 0;
    loop {
        let params = cursor.as_ref().map(|c| json!({"cursor": c}));
        let page = client.request(method, params).await.unwrap();
        out.extend(page[key].as_array().unwrap().iter().cloned());
        count += 1;
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert!(count > 1, "{method}: one page; the test wants several");
    out
}

#[tokio::test]
async fn definitions_are_the_pages_each_version_is_listed() {
    let server = server();
    for version in ProtocolVersion::ALL {
        let client = TestClient::connect(&server, ClientOptions::version(version))
            .await
            .unwrap();
        let defs = serde_json::to_value(server.definitions(version)).unwrap();
        for (method, key, field) in [
            ("tools/list", "tools", "tools"),
            ("resources/list", "resources", "resources"),
            (
                "resources/templates/list",
                "resourceTemplates",
                "resourceTemplates",
            ),
            ("prompts/list", "prompts", "prompts"),
        ] {
            let listed = pages(&client, method, key).await;
            assert_eq!(defs[field], Value::Array(listed), "{version:?} {method}");
        }
    }
}

#[test]
fn definitions_leave_out_disabled_items() {
    let defs = server().definitions(ProtocolVersion::V2025_11_25);
    let names: Vec<&str> = defs.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["find", "lend", "give_back"]);
    assert_eq!(defs.resources.len(), 3);
    assert_eq!(defs.resource_templates.len(), 3);
    assert_eq!(defs.prompts.len(), 3);
}

fn meta(value: Value) -> MetaObject {
    MetaObject(value.as_object().unwrap().clone())
}

#[tokio::test]
async fn list_meta_is_sent_in_both_eras() {
    let server = server();
    server.registry().set_list_meta(
        List::Tools,
        Some(meta(json!({"example.com/catalog": "v2"}))),
    );
    server
        .registry()
        .set_list_meta(List::Prompts, Some(meta(json!({"k": 1}))));

    let legacy = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    for cursor in [None, Some(json!({"cursor": "bWNwLW9mZnNldDoy"}))] {
        let page = legacy.request("tools/list", cursor).await.unwrap();
        assert_eq!(page["_meta"], json!({"example.com/catalog": "v2"}));
    }
    let page = legacy.request("prompts/list", None).await.unwrap();
    assert_eq!(page["_meta"], json!({"k": 1}));
    let page = legacy.request("resources/list", None).await.unwrap();
    assert!(page.get("_meta").is_none(), "{page}");

    let modern = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let page = modern.request("tools/list", None).await.unwrap();
    assert_eq!(page["_meta"]["example.com/catalog"], "v2");
    assert_eq!(
        page["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "library"
    );

    // Removed: the pages built before are not served again.
    server.registry().set_list_meta(List::Tools, None);
    let page = legacy.request("tools/list", None).await.unwrap();
    assert!(page.get("_meta").is_none(), "{page}");
    let page = modern.request("tools/list", None).await.unwrap();
    assert!(page["_meta"].get("example.com/catalog").is_none(), "{page}");
}
