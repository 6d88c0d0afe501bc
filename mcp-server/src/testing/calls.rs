//! The test client's typed calls: lists, tools (with their progress), resources, prompts
//! and completions, each checked against its result type.

use super::*;

impl TestClient {
    pub(super) async fn typed<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<T, TestClientError> {
        let v = self.request(method, params).await?;
        serde_json::from_value(v).map_err(|e| TestClientError::Unexpected(e.to_string()))
    }

    async fn list<T: DeserializeOwned>(
        &self,
        method: &str,
        key: &str,
    ) -> Result<Vec<T>, TestClientError> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}));
            let page = self.request(method, params).await?;
            let items: Vec<T> =
                serde_json::from_value(page.get(key).cloned().unwrap_or(Value::Null))
                    .map_err(|e| TestClientError::Unexpected(e.to_string()))?;
            out.extend(items);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(out),
            }
        }
    }

    /// Every tool, following pagination.
    ///
    /// # Errors
    ///
    /// As [`request`](Self::request).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, TestClientError> {
        self.list("tools/list", "tools").await
    }

    /// Every static resource, following pagination.
    ///
    /// # Errors
    ///
    /// As [`request`](Self::request).
    pub async fn list_resources(&self) -> Result<Vec<Resource>, TestClientError> {
        self.list("resources/list", "resources").await
    }

    /// Every resource template, following pagination.
    ///
    /// # Errors
    ///
    /// As [`request`](Self::request).
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, TestClientError> {
        self.list("resources/templates/list", "resourceTemplates")
            .await
    }

    /// Every prompt, following pagination.
    ///
    /// # Errors
    ///
    /// As [`request`](Self::request).
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, TestClientError> {
        self.list("prompts/list", "prompts").await
    }

    /// Calls a tool (answering input requests in the modern era).
    ///
    /// # Errors
    ///
    /// As [`request_mrtr`](Self::request_mrtr).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, TestClientError> {
        let v = self
            .request_mrtr("tools/call", json!({"name": name, "arguments": arguments}))
            .await?;
        serde_json::from_value(v).map_err(|e| TestClientError::Unexpected(e.to_string()))
    }

    /// Calls a tool with a progress token of its own and returns the result with the
    /// progress the server reported for this call, in order (they are removed from
    /// [`notifications`](Self::notifications)).
    ///
    /// # Errors
    ///
    /// As [`request_mrtr`](Self::request_mrtr).
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::prelude::*;
    /// use ferromcp::testing::{ClientOptions, TestClient};
    ///
    /// struct Slow;
    ///
    /// #[ferromcp::server]
    /// impl Slow {
    ///     /// Works in two steps.
    ///     #[tool]
    ///     async fn work(&self, ctx: Context) -> String {
    ///         ctx.progress(1.0, Some(2.0), Some("half way")).await;
    ///         ctx.progress(2.0, Some(2.0), None).await;
    ///         "done".to_owned()
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::new(Slow).unwrap();
    /// for options in [ClientOptions::legacy(), ClientOptions::modern()] {
    ///     let client = TestClient::connect(&server, options).await.unwrap();
    ///     let (result, progress) = client
    ///         .call_tool_with_progress("work", serde_json::json!({}))
    ///         .await
    ///         .unwrap();
    ///     assert_eq!(result.content[0].as_text(), Some("done"));
    ///     let steps: Vec<f64> = progress.iter().map(|p| p.progress).collect();
    ///     assert_eq!(steps, [1.0, 2.0]);
    ///     assert_eq!(progress[0].message.as_deref(), Some("half way"));
    /// }
    /// # }
    /// ```
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<(CallToolResult, Vec<ProgressNotificationParams>), TestClientError> {
        let token = format!(
            "test-client-progress-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed)
        );
        let params = json!({
            "name": name,
            "arguments": arguments,
            "_meta": {"progressToken": token},
        });
        let v = self.request_mrtr("tools/call", params).await?;
        let result =
            serde_json::from_value(v).map_err(|e| TestClientError::Unexpected(e.to_string()))?;
        // The reader keeps the connection's order, so every notification the server sent
        // before its answer is already stored.
        let mut progress = Vec::new();
        lock(&self.notifications).retain(|n| {
            let ours = n["method"] == "notifications/progress"
                && n["params"]["progressToken"] == token.as_str();
            if ours
                && let Ok(p) =
                    serde_json::from_value::<ProgressNotificationParams>(n["params"].clone())
            {
                progress.push(p);
            }
            !ours
        });
        Ok((result, progress))
    }

    /// Reads a resource (answering input requests in the modern era).
    ///
    /// # Errors
    ///
    /// As [`request_mrtr`](Self::request_mrtr).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, TestClientError> {
        let v = self
            .request_mrtr("resources/read", json!({"uri": uri}))
            .await?;
        serde_json::from_value(v).map_err(|e| TestClientError::Unexpected(e.to_string()))
    }

    /// Gets a prompt (answering input requests in the modern era).
    ///
    /// # Errors
    ///
    /// As [`request_mrtr`](Self::request_mrtr).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, TestClientError> {
        let v = self
            .request_mrtr("prompts/get", json!({"name": name, "arguments": arguments}))
            .await?;
        serde_json::from_value(v).map_err(|e| TestClientError::Unexpected(e.to_string()))
    }

    /// Asks for completions of the variable `argument` (partially `value`) of the resource
    /// template `uri_template` (as the server lists it).
    ///
    /// # Errors
    ///
    /// As [`request`](Self::request).
    pub async fn complete_resource_argument(
        &self,
        uri_template: &str,
        argument: &str,
        value: &str,
    ) -> Result<CompleteResult, TestClientError> {
        let reference = json!({"type": "ref/resource", "uri": uri_template});
        self.complete(reference, argument, value).await
    }

    /// Asks for completions of `argument` (partially `value`) of the prompt `prompt`.
    ///
    /// # Errors
    ///
    /// As [`request`](Self::request).
    pub async fn complete_prompt_argument(
        &self,
        prompt: &str,
        argument: &str,
        value: &str,
    ) -> Result<CompleteResult, TestClientError> {
        let reference = json!({"type": "ref/prompt", "name": prompt});
        self.complete(reference, argument, value).await
    }

    async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
    ) -> Result<CompleteResult, TestClientError> {
        let params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        self.typed("completion/complete", Some(params)).await
    }
}
