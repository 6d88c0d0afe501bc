//! What a tool may return, end to end: plain numbers and booleans become text plus
//! `{"result": …}` structured content with a matching `outputSchema`; `Json<T>` publishes
//! `T`'s schema whatever the type is called (an alias, a re-export); `Option<T>` and
//! `Result<T, E>` keep the schema of `T`. Every structured result is checked against the
//! tool's published schema.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ferromcp::prelude::*;
use ferromcp::testing::{ClientOptions, TestClient};
use ferromcp::{IntoToolResult, Json as Structured};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

#[derive(Serialize, JsonSchema)]
struct Summary {
    open: u32,
    closed: u32,
}

/// A type alias must behave as the type it names.
type Reply = Result<Json<Summary>, ToolError>;

struct Outputs;

#[ferromcp::server(name = "outputs", version = "1.0.0")]
impl Outputs {
    /// Adds two integers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }

    /// Halves a number.
    #[tool]
    fn half(&self, x: f64) -> f64 {
        x / 2.0
    }

    /// Whether a number is even.
    #[tool]
    async fn even(&self, n: u64) -> Result<bool, ToolError> {
        Ok(n.is_multiple_of(2))
    }

    /// The position of a word, if present.
    #[tool]
    fn position(&self, words: Vec<String>, word: String) -> Option<usize> {
        words.iter().position(|w| *w == word)
    }

    /// Counts through an alias.
    #[tool]
    fn summary(&self) -> Reply {
        Ok(Json(Summary { open: 2, closed: 5 }))
    }

    /// Counts through a re-export.
    #[tool]
    fn renamed(&self) -> Structured<Summary> {
        Structured(Summary { open: 1, closed: 0 })
    }

    /// Text stays plain text.
    #[tool]
    fn greet(&self, name: String) -> String {
        format!("hello {name}")
    }

    /// An opaque return type converts, without an output schema.
    #[tool]
    fn opaque(&self) -> impl IntoToolResult {
        7_u8
    }
}

async fn client(options: ClientOptions) -> TestClient {
    let server = Server::new(Outputs).unwrap();
    TestClient::connect(&server, options).await.unwrap()
}

fn schemas(tools: &[ferromcp::types::Tool]) -> std::collections::HashMap<String, Value> {
    tools
        .iter()
        .map(|t| {
            let schema = t.output_schema.clone().map_or(Value::Null, Value::Object);
            (t.name.clone(), schema)
        })
        .collect()
}

#[tokio::test]
async fn plain_values_are_wrapped_as_result_with_a_matching_schema() {
    for options in [ClientOptions::legacy(), ClientOptions::modern()] {
        let client = client(options).await;
        let schemas = schemas(&client.list_tools().await.unwrap());
        assert_eq!(
            schemas["add"],
            json!({
                "type": "object",
                "properties": {"result": {"type": "integer"}},
                "required": ["result"]
            })
        );
        assert_eq!(schemas["half"]["properties"]["result"]["type"], "number");
        assert_eq!(schemas["even"]["properties"]["result"]["type"], "boolean");
        assert_eq!(schemas["even"]["required"], json!(["result"]));
        assert_eq!(schemas["position"]["properties"]["result"]["minimum"], 0);
        assert!(schemas["position"].get("required").is_none());
        assert_eq!(schemas["greet"], Value::Null);
        assert_eq!(schemas["opaque"], Value::Null);

        let calls = [
            ("add", json!({"a": 2, "b": 3}), "5", json!({"result": 5})),
            ("half", json!({"x": 5}), "2.5", json!({"result": 2.5})),
            ("even", json!({"n": 4}), "true", json!({"result": true})),
            (
                "position",
                json!({"words": ["a", "b"], "word": "b"}),
                "1",
                json!({"result": 1}),
            ),
        ];
        for (tool, arguments, text, structured) in calls {
            let result = client.call_tool(tool, arguments).await.unwrap();
            assert_eq!(result.content[0].as_text(), Some(text), "{tool}");
            assert_eq!(
                result.structured_content,
                Some(structured.clone()),
                "{tool}"
            );
            let validator = jsonschema::validator_for(&schemas[tool]).unwrap();
            assert!(validator.is_valid(&structured), "{tool}");
        }

        let absent = client
            .call_tool("position", json!({"words": [], "word": "b"}))
            .await
            .unwrap();
        assert!(absent.content.is_empty());
        assert_eq!(absent.structured_content, Some(json!({})));
        assert!(
            jsonschema::validator_for(&schemas["position"])
                .unwrap()
                .is_valid(&json!({}))
        );

        let opaque = client.call_tool("opaque", json!({})).await.unwrap();
        assert_eq!(opaque.structured_content, Some(json!({"result": 7})));
    }
}

#[tokio::test]
async fn json_schemas_follow_the_type_not_its_name() {
    let client = client(ClientOptions::modern()).await;
    let schemas = schemas(&client.list_tools().await.unwrap());
    for tool in ["summary", "renamed"] {
        assert_eq!(schemas[tool]["type"], "object", "{tool}");
        assert_eq!(
            schemas[tool]["properties"]["open"]["type"], "integer",
            "{tool}"
        );
        let result = client.call_tool(tool, json!({})).await.unwrap();
        let structured = result.structured_content.unwrap();
        assert!(
            jsonschema::validator_for(&schemas[tool])
                .unwrap()
                .is_valid(&structured),
            "{tool}"
        );
    }
}
