//! `meta = …` on every kind of item: a tool, a static resource, a template and a prompt.
#![deny(warnings)]

use serde_json::json;

pub(crate) struct Annotated;

#[ferromcp::server]
impl Annotated {
    /// Adds.
    #[tool(meta = json!({"example.com/cost": "low"}))]
    fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }

    /// The version.
    #[resource(uri = "annotated://version", meta = json!({"example.com/stable": true}))]
    fn version(&self) -> String {
        "1".to_owned()
    }

    /// One item.
    #[resource(uri = "annotated://items/{id}", meta = json!({"example.com/kind": "item"}))]
    fn item(&self, id: u32) -> String {
        id.to_string()
    }

    /// Asks.
    #[prompt(meta = json!({"k": 1}))]
    fn ask(&self, topic: String) -> String {
        topic
    }
}

fn main() {
    let server = ferromcp::Server::new(Annotated);
    assert!(server.is_ok());
}
