//! Tool parameters are sorted by their types' traits, not their names: an alias or a
//! re-export of an extractor is an extractor, a type of your own named `Context` is an
//! argument.
#![deny(warnings, unused_qualifications, unreachable_pub)]

mod mine {
    /// A type that happens to be called `Context`: a plain argument.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub(crate) struct Context {
        pub(crate) topic: String,
    }
}

use mcp_server::extract::State;

type Ctx = mcp_server::Context;
type Db = State<Vec<String>>;

struct Params;

#[mcp_server::server]
impl Params {
    /// Extractors behind aliases, an argument named like one.
    #[tool]
    fn ask(&self, ctx: Ctx, db: Db, context: mine::Context, limit: Option<u8>) -> String {
        let _ = ctx.request_id();
        format!("{} {} {}", db.len(), context.topic, limit.unwrap_or(1))
    }

    /// A destructured extractor.
    #[tool]
    fn count(&self, State(items): State<Vec<String>>) -> usize {
        items.len()
    }
}

fn main() {
    let server = mcp_server::Server::with_handler(Params)
        .state(vec!["a".to_owned()])
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let options = mcp_server::testing::ClientOptions::modern();
        let client = mcp_server::testing::TestClient::connect(&server, options)
            .await
            .unwrap();
        let tools = client.list_tools().await.unwrap();
        let ask = tools.iter().find(|t| t.name == "ask").unwrap();
        let properties = ask.input_schema["properties"].as_object().unwrap();
        assert_eq!(properties.keys().collect::<Vec<_>>(), ["context", "limit"]);
        assert_eq!(ask.input_schema["required"], serde_json::json!(["context"]));
        assert_eq!(properties["limit"]["type"], "integer");
        let arguments = serde_json::json!({"context": {"topic": "x"}});
        let result = client.call_tool("ask", arguments).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("1 x 1"));
        let result = client.call_tool("count", serde_json::json!({})).await.unwrap();
        assert_eq!(result.structured_content, Some(serde_json::json!({"result": 1})));
    });
}
