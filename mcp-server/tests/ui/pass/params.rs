//! Parameters are sorted by their types' traits, not their types' names: an alias or a
//! re-export of an extractor is an extractor, a type of your own named `Context` is an
//! argument. So it goes for tools and prompts; in a resource, a parameter named after no
//! variable of the template is an extractor; in a completion, any but the partial `String`.
#![deny(warnings, unused_qualifications, unreachable_pub)]
// A test program (harness = false): an unwrap that fails is the test failing; clippy's
// allow-unwrap-in-tests does not reach a target without the test harness.
#![allow(clippy::unwrap_used)]

mod mine {
    /// A type that happens to be called `Context`: a plain argument.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub(crate) struct Context {
        pub(crate) topic: String,
    }

    impl std::str::FromStr for Context {
        type Err = std::convert::Infallible;

        fn from_str(topic: &str) -> Result<Self, Self::Err> {
            Ok(Context {
                topic: topic.to_owned(),
            })
        }
    }
}

use ferromcp::extract::State;

type Ctx = ferromcp::Context;
type Db = State<Vec<String>>;

struct Params;

#[ferromcp::server]
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

    /// An item by index; extractors behind aliases beside the variable.
    #[resource(uri = "items://{index}")]
    fn item(&self, db: Db, index: usize, ctx: Ctx) -> String {
        let _ = ctx.request_id();
        db.get(index).cloned().unwrap_or_default()
    }

    /// A prompt whose argument is a type of your own named `Context`.
    #[prompt]
    fn brief(&self, context: mine::Context, db: Db, ctx: Ctx) -> String {
        let _ = ctx.request_id();
        format!("{} of {}", context.topic, db.len())
    }

    #[completion(prompt = "brief", argument = "context")]
    fn topics(&self, db: Db, value: String, ctx: Ctx) -> Vec<String> {
        let _ = ctx.request_id();
        db.iter()
            .filter(|t| t.starts_with(&value))
            .cloned()
            .collect()
    }
}

fn main() {
    let server = ferromcp::Server::builder(Params)
        .state(vec!["a".to_owned()])
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let options = ferromcp::testing::ClientOptions::modern();
        let client = ferromcp::testing::TestClient::connect(&server, options)
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
        let result = client
            .call_tool("count", serde_json::json!({}))
            .await
            .unwrap();
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({"result": 1}))
        );

        let read = client.read_resource("items://0").await.unwrap();
        assert_eq!(
            serde_json::to_value(&read.contents[0]).unwrap()["text"],
            "a"
        );

        let prompts = client.list_prompts().await.unwrap();
        let arguments = prompts[0].arguments.as_ref().unwrap();
        let names: Vec<&str> = arguments.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["context"]);
        assert!(arguments[0].required.unwrap_or(false));
        let prompt = client
            .get_prompt("brief", serde_json::json!({"context": "x"}))
            .await
            .unwrap();
        let message = serde_json::to_value(&prompt.messages[0]).unwrap();
        assert_eq!(message["content"]["text"], "x of 1");

        let done = client
            .complete_prompt_argument("brief", "context", "")
            .await
            .unwrap();
        assert_eq!(done.completion.values, ["a"]);
    });
}
