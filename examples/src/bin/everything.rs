//! `everything`: the fixture of the official MCP conformance suite, written with the SDK's
//! macros. It exposes exactly the tools, resources and prompts the suite's scenarios call
//! (see `shared/CONFORMANCE.md`, "fixture contract"), for both protocol eras.
//!
//! ```sh
//! cargo run -p mcp-examples --bin everything                            # stdio
//! cargo run -p mcp-examples --bin everything -- --http 127.0.0.1:3001   # Streamable HTTP
//! # behind an OAuth authorization server: every request needs a token it issued for
//! # http://127.0.0.1:3001/mcp (or --auth-audience URL), any scope
//! cargo run -p mcp-examples --bin everything -- --http 127.0.0.1:3001 --auth-issuer https://as.example.com
//! # one replica of several behind a load balancer: legacy sessions shared through Redis,
//! # requestState keys (hex, comma-separated, the first seals) shared through the environment
//! FERROMCP_REQUEST_STATE_KEYS=$KEY cargo run -p mcp-examples --bin everything -- --http 127.0.0.1:3001 --redis redis://127.0.0.1:6379
//! ```
//!
//! Every tool, resource and prompt is in the one `#[server]` impl block below (the macro
//! reads a single block); `fixtures` holds the content and schemas they return, `client`
//! the questions they ask the client, `input_required` the longer multi-round scenarios,
//! `dynamic` the primitives registered at run time, `skills()` the Skills extension (the
//! folder `examples/skills/everything`), and `ferromcp::run` the command line and the HTTP
//! set-up (Redis through ferromcp-redis, authorization).

use std::time::Duration;

use ferromcp::prelude::*;
use ferromcp::skills::{Skills, SkillsError};
use ferromcp::types::{
    AudioContent, CreateMessageRequestParams, ElicitRequestFormParams, EmbeddedResource,
    SamplingMessage, TextResourceContents,
};
use serde_json::{Value, json};

#[path = "everything/client.rs"]
mod client;
#[path = "everything/dynamic.rs"]
mod dynamic;
#[path = "everything/fixtures.rs"]
mod fixtures;
#[path = "everything/input_required.rs"]
mod input_required;

use client::{ask_name, elicited, sampled_text, schema};
use dynamic::{
    add_dynamic_prompt, add_dynamic_resource, add_dynamic_tool, toggle_dynamic_prompt,
    toggle_dynamic_tool,
};
use fixtures::{PNG, WAV, every_enum_form, image, json_schema_2020_12, profile_with_defaults};

struct Everything;

#[ferromcp::server(name = "mcp-rust-sdk-everything", version = "1.0.0")]
impl Everything {
    /// Returns a simple text response.
    #[tool]
    fn test_simple_text(&self) -> &'static str {
        "This is a simple text response for testing."
    }

    /// Returns an image.
    #[tool]
    fn test_image_content(&self) -> ImageContent {
        image()
    }

    /// Returns an audio clip.
    #[tool]
    fn test_audio_content(&self) -> AudioContent {
        AudioContent::new(WAV, "audio/wav")
    }

    /// Returns an embedded resource.
    #[tool]
    fn test_embedded_resource(&self) -> EmbeddedResource {
        let mut text = TextResourceContents::new(
            "test://embedded-resource",
            "This is an embedded resource content.",
        );
        text.mime_type = Some("text/plain".into());
        EmbeddedResource::new(text)
    }

    /// Returns text, an image and an embedded resource.
    #[tool]
    fn test_multiple_content_types(&self) -> Vec<ContentBlock> {
        let mut resource = TextResourceContents::new(
            "test://mixed-content-resource",
            r#"{"test":"data","value":123}"#,
        );
        resource.mime_type = Some("application/json".into());
        vec![
            ContentBlock::text("Multiple content types test:"),
            image().into(),
            EmbeddedResource::new(resource).into(),
        ]
    }

    /// Logs three messages while it works.
    #[tool]
    async fn test_tool_with_logging(&self, ctx: Context) -> &'static str {
        ctx.info("Tool execution started").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.info("Tool processing data").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.info("Tool execution completed").await;
        "Tool with logging executed successfully"
    }

    /// Reports progress while it works.
    #[tool]
    async fn test_tool_with_progress(&self, ctx: Context) -> &'static str {
        ctx.progress(0.0, Some(100.0), None).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.progress(50.0, Some(100.0), None).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.progress(100.0, Some(100.0), None).await;
        "Tool with progress executed successfully"
    }

    /// Always fails, as a result the model can read.
    #[tool]
    fn test_error_handling(&self) -> Result<String, ToolError> {
        Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        ))
    }

    /// Asks the client's model to answer a prompt.
    ///
    /// # Arguments
    /// * `prompt` - what to ask the model
    #[tool]
    async fn test_sampling(&self, prompt: String, ctx: Context) -> Result<String, ContextError> {
        let result = ctx
            .sample(CreateMessageRequestParams::new(
                vec![SamplingMessage::user_text(prompt)],
                100,
            ))
            .await?;
        Ok(format!("LLM response: {}", sampled_text(&result)))
    }

    /// Asks the user for a username and an email address.
    ///
    /// # Arguments
    /// * `message` - what to tell the user
    #[tool]
    async fn test_elicitation(
        &self,
        message: String,
        ctx: Context,
    ) -> Result<String, ContextError> {
        let requested = schema(json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "Your username"},
                "email": {"type": "string", "description": "Your email address"}
            },
            "required": ["username", "email"]
        }));
        let result = ctx
            .elicit_form(ElicitRequestFormParams::new(message, requested))
            .await?;
        Ok(format!("User response: {}", elicited(&result)))
    }

    /// Asks the user for fields that all have defaults.
    #[tool]
    async fn test_elicitation_sep1034_defaults(
        &self,
        ctx: Context,
    ) -> Result<String, ContextError> {
        let requested = schema(profile_with_defaults());
        let result = ctx
            .elicit_form(ElicitRequestFormParams::new(
                "Please review your profile",
                requested,
            ))
            .await?;
        Ok(format!("Elicitation result: {}", elicited(&result)))
    }

    /// Asks the user to choose among enumerated values, in every enum form.
    #[tool]
    async fn test_elicitation_sep1330_enums(&self, ctx: Context) -> Result<String, ContextError> {
        let requested = schema(every_enum_form());
        let result = ctx
            .elicit_form(ElicitRequestFormParams::new(
                "Choose your options",
                requested,
            ))
            .await?;
        Ok(format!("Elicitation result: {}", elicited(&result)))
    }

    /// Publishes a JSON Schema 2020-12 input schema verbatim.
    #[tool(input_schema = json_schema_2020_12())]
    fn json_schema_2020_12_tool(&self, #[args] input: Value) -> String {
        format!("Received: {input}")
    }

    /// Closes its response stream mid-call; the result arrives after the client reconnects.
    #[tool]
    async fn test_reconnection(&self, ctx: Context) -> &'static str {
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.close_sse_stream();
        tokio::time::sleep(Duration::from_millis(100)).await;
        "Reconnection test completed"
    }

    /// Needs the client's sampling capability.
    #[tool]
    async fn test_missing_capability(&self, ctx: Context) -> Result<String, ContextError> {
        let result = ctx
            .sample(CreateMessageRequestParams::new(
                vec![SamplingMessage::user_text("Say hello.")],
                10,
            ))
            .await?;
        Ok(sampled_text(&result))
    }

    /// Asks the user to confirm, without ever sending a request on the response stream.
    #[tool]
    async fn test_streaming_elicitation(&self, ctx: Context) -> Result<String, ContextError> {
        let requested = schema(json!({
            "type": "object",
            "properties": {"confirm": {"type": "boolean"}},
            "required": ["confirm"]
        }));
        let result = ctx
            .elicit_form(ElicitRequestFormParams::new("Continue?", requested))
            .await?;
        Ok(format!(
            "Streaming elicitation result: {}",
            elicited(&result)
        ))
    }

    /// Logs a message (sent only when the request asks for logs).
    #[tool]
    async fn test_logging_tool(&self, ctx: Context) -> &'static str {
        ctx.info("Logging tool executed").await;
        "Logging tool executed"
    }

    /// Changes the tool list.
    #[tool]
    fn test_trigger_tool_change(&self, ctx: Context) -> &'static str {
        toggle_dynamic_tool(&ctx.server());
        "Tool list changed"
    }

    /// Changes the prompt list.
    #[tool]
    fn test_trigger_prompt_change(&self, ctx: Context) -> &'static str {
        toggle_dynamic_prompt(&ctx.server());
        "Prompt list changed"
    }

    /// Asks the user's name, then greets them.
    #[tool]
    async fn test_input_required_result_elicitation(
        &self,
        ctx: Context,
    ) -> Result<String, ContextError> {
        let name = ask_name(&ctx, "user_name", "What is your name?").await?;
        Ok(format!("Hello, {name}!"))
    }

    /// Asks the client's model a question.
    #[tool]
    async fn test_input_required_result_sampling(
        &self,
        ctx: Context,
    ) -> Result<String, ContextError> {
        let params = CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text("What is the capital of France?")],
            100,
        );
        let result = ctx.input(Some("capital_question")).sample(params).await?;
        Ok(format!("The model answered: {}", sampled_text(&result)))
    }

    /// Lists the client's roots.
    #[tool]
    async fn test_input_required_result_list_roots(
        &self,
        ctx: Context,
    ) -> Result<String, ContextError> {
        let roots = ctx.input(Some("client_roots")).roots().await?;
        let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
        Ok(format!(
            "The client has {} roots: {}",
            roots.len(),
            uris.join(", ")
        ))
    }

    /// Asks for confirmation, carrying its own state between rounds.
    #[tool]
    async fn test_input_required_result_request_state(
        &self,
        ctx: Context,
    ) -> Result<String, ContextError> {
        input_required::request_state(&ctx).await
    }

    /// Asks for a name, a greeting and the roots, all at once.
    #[tool]
    async fn test_input_required_result_multiple_inputs(
        &self,
        ctx: Context,
    ) -> Result<String, ContextError> {
        input_required::multiple_inputs(&ctx).await
    }

    /// Asks two questions, one round each.
    #[tool]
    async fn test_input_required_result_multi_round(
        &self,
        ctx: Context,
    ) -> Result<String, ContextError> {
        let name = ask_name(&ctx, "step1", "What is your name?").await?;
        ctx.set_request_state(format!("step1-done:{name}"));
        let color = ask_name(&ctx, "step2", "What is your favorite color?").await?;
        Ok(format!("Hello, {name}! Your favorite color is {color}."))
    }

    /// Asks for input with an integrity-protected request state.
    #[tool]
    async fn test_input_required_result_tampered_state(
        &self,
        ctx: Context,
    ) -> Result<String, ContextError> {
        ctx.set_request_state("untampered");
        let name = ask_name(&ctx, "user_name", "What is your name?").await?;
        Ok(format!("Hello, {name}!"))
    }

    /// Asks only for what the client declared it can do.
    #[tool]
    async fn test_input_required_result_capabilities(
        &self,
        ctx: Context,
    ) -> Result<String, ContextError> {
        input_required::capabilities(&ctx).await
    }

    /// Greets someone, at once (never a task).
    ///
    /// # Arguments
    /// * `name` - who to greet
    #[tool]
    fn greet(&self, name: String) -> String {
        format!("Hello, {name}!")
    }

    /// Computes for `seconds` seconds, reporting progress; runs as a task when the client
    /// takes tasks (with `seconds: 0` it answers at once).
    ///
    /// # Arguments
    /// * `seconds` - how long the computation takes
    /// * `label` - a name for the computation, echoed in the result
    #[tool(task_support = "optional")]
    async fn slow_compute(&self, seconds: u64, label: Option<String>, ctx: Context) -> String {
        for done in 0..seconds {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let message = format!("{} of {seconds} s", done + 1);
            ctx.progress((done + 1) as f64, Some(seconds as f64), Some(&message))
                .await;
        }
        format!(
            "computed {} in {seconds} s",
            label.as_deref().unwrap_or("a result")
        )
    }

    /// Works for a second, then fails with an error the model can read; only as a task.
    #[tool(task_support = "required")]
    async fn failing_job(&self) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Err(ToolError::new("the job failed after a second of work"))
    }

    /// Works for a moment, then panics: the task fails with a protocol error.
    #[tool(task_support = "optional")]
    #[allow(clippy::panic)] // the suite's fixture: a handler that panics, caught by the SDK
    async fn protocol_error_job(&self) -> String {
        tokio::time::sleep(Duration::from_millis(200)).await;
        panic!("protocol_error_job fails on purpose")
    }

    /// Asks the user to confirm deleting a file, as part of the task.
    ///
    /// # Arguments
    /// * `filename` - the file to delete
    #[tool(task_support = "optional")]
    async fn confirm_delete(&self, filename: String, ctx: Context) -> Result<String, ContextError> {
        ctx.begin_task().await;
        let requested = schema(json!({
            "type": "object",
            "properties": {"confirm": {"type": "boolean"}},
            "required": ["confirm"]
        }));
        let message = format!("Delete {filename}?");
        let answer = ctx
            .elicit_form(ElicitRequestFormParams::new(message, requested))
            .await?;
        let confirmed = answer
            .content
            .and_then(|c| c.get("confirm").and_then(|v| v.as_bool()))
            .unwrap_or(false);
        Ok(if confirmed {
            format!("deleted {filename}")
        } else {
            format!("kept {filename}")
        })
    }

    /// Asks two questions at once, as part of the task.
    #[tool(task_support = "optional")]
    async fn multi_input(&self, ctx: Context) -> Result<String, ContextError> {
        ctx.begin_task().await;
        let (first, second) = tokio::join!(
            ask_name(&ctx, "first_name", "What is your first name?"),
            ask_name(&ctx, "last_name", "What is your last name?"),
        );
        Ok(format!("Hello, {} {}!", first?, second?))
    }

    /// Asks for a name first, then greets in a task (input rounds before the task).
    #[tool(task_support = "required")]
    async fn test_tool_with_task(&self, ctx: Context) -> Result<String, ContextError> {
        let name = ask_name(&ctx, "user_name", "What is your name?").await?;
        ctx.begin_task().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(format!("Hello, {name}, from a task!"))
    }

    /// Mirrors its `region` parameter into the `Mcp-Param-Region` header.
    #[tool]
    fn test_custom_header(
        &self,
        /// Where to run.
        #[arg(header = "Region")]
        region: String,
        /// What to run.
        query: String,
    ) -> String {
        format!("region={region} query={query}")
    }

    /// A static text resource.
    #[resource(
        uri = "test://static-text",
        name = "static-text",
        mime_type = "text/plain"
    )]
    fn static_text(&self) -> &'static str {
        "This is the content of the static text resource."
    }

    /// A static binary resource.
    #[resource(
        uri = "test://static-binary",
        name = "static-binary",
        mime_type = "image/png"
    )]
    fn static_binary(&self) -> Result<ferromcp::types::BlobResourceContents, ResourceError> {
        let mut blob = ferromcp::types::BlobResourceContents::new("test://static-binary", PNG);
        blob.mime_type = Some("image/png".into());
        Ok(blob)
    }

    /// Data for an id.
    #[resource(
        uri = "test://template/{id}/data",
        name = "template",
        mime_type = "application/json"
    )]
    fn template(&self, id: String) -> String {
        json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
    }

    /// A resource that changes every three seconds.
    #[resource(
        uri = "test://watched-resource",
        name = "watched-resource",
        mime_type = "text/plain"
    )]
    fn watched(&self) -> String {
        format!(
            "Watched resource content at {:?}",
            std::time::SystemTime::now()
        )
    }

    /// A simple prompt.
    #[prompt]
    fn test_simple_prompt(&self) -> &'static str {
        "This is a simple prompt for testing."
    }

    /// A prompt with two arguments.
    ///
    /// # Arguments
    /// * `arg1` - the first argument
    /// * `arg2` - the second argument
    #[prompt]
    fn test_prompt_with_arguments(&self, arg1: String, arg2: String) -> String {
        format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
    }

    /// A prompt embedding a resource.
    #[prompt]
    fn test_prompt_with_embedded_resource(
        &self,
        /// The URI of the resource to embed.
        #[arg(rename = "resourceUri")]
        resource_uri: String,
    ) -> Vec<PromptMessage> {
        let mut text =
            TextResourceContents::new(resource_uri, "Embedded resource content for testing.");
        text.mime_type = Some("text/plain".into());
        vec![
            PromptMessage::user(EmbeddedResource::new(text)),
            PromptMessage::user(TextContent::new(
                "Please process the embedded resource above.",
            )),
        ]
    }

    /// A prompt with an image.
    #[prompt]
    fn test_prompt_with_image(&self) -> Vec<PromptMessage> {
        vec![
            PromptMessage::user(image()),
            PromptMessage::user(TextContent::new("Please analyze the image above.")),
        ]
    }

    /// A prompt that asks the user for context first.
    #[prompt]
    async fn test_input_required_result_prompt(&self, ctx: Context) -> Result<String, PromptError> {
        let context = ask_name(&ctx, "user_context", "What context should the prompt use?")
            .await
            .map_err(PromptError::internal)?;
        Ok(format!("Prompt with user context: {context}"))
    }

    #[completion(prompt = "test_prompt_with_arguments", argument = "arg1")]
    fn complete_arg1(&self, value: String) -> Vec<String> {
        ["paris", "park", "party"]
            .into_iter()
            .filter(|v| v.starts_with(&value))
            .map(String::from)
            .collect()
    }
}

fn main() {
    ferromcp::run::Runner::for_server::<Everything>()
        .shared_stores(ferromcp_redis::connect)
        .serve_with(async |setup| {
            let server = setup.builder(Everything)?.extension(skills()?)?.build()?;
            tokio::spawn(change_over_time(server.clone()));
            Ok(server)
        })
}

/// The skills served through `io.modelcontextprotocol/skills` (SEP-2640), so that the
/// conformance suite's skills scenarios have something to check: the folder
/// `examples/skills/everything`, read when the server starts.
fn skills() -> Result<Skills, SkillsError> {
    Skills::from_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/skills/everything"))
}

/// The dynamic primitives appear after 2 s; the watched resource changes every 3 s.
async fn change_over_time(server: Server) {
    tokio::time::sleep(Duration::from_secs(2)).await;
    add_dynamic_tool(&server);
    add_dynamic_resource(&server);
    add_dynamic_prompt(&server);
    let mut tick = tokio::time::interval(Duration::from_secs(3));
    loop {
        tick.tick().await;
        server
            .registry()
            .notify_resource_updated("test://watched-resource");
    }
}

#[cfg(test)]
mod tests {
    /// The folder loads (else the server would not start), with a subfolder in the first
    /// skill listed, which the suite's directory scenario reads.
    #[test]
    fn the_skills_folder_is_valid() {
        let skills = super::skills().unwrap();
        assert_eq!(
            skills.uris(),
            [
                "skill://conformance/run-the-suite/SKILL.md",
                "skill://everything-tour/SKILL.md"
            ]
        );
    }
}
