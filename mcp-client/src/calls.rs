//! The typed calls of [`Client`]: lists (every page), tools, resources, prompts,
//! completion, logging, ping.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use ferromcp_core::Era;
use ferromcp_core::types::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, GetPromptResult,
    LoggingLevel, META_LOG_LEVEL, ProgressNotificationParams, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::client::{Client, arguments, parse};
use crate::error::{Error, Result};
use crate::peer::ProgressFn;

/// The most pages one list call follows (a server whose cursors never end is cut off).
const MAX_PAGES: usize = 10_000;

/// Per-call settings of [`Client::call_tool_with`]: progress, cancellation, timeout.
///
/// # Examples
///
/// ```
/// use ferromcp_client::CallOptions;
/// use ferromcp_client::CancellationToken;
///
/// let cancel = CancellationToken::new();
/// let options = CallOptions::new()
///     .on_progress(|p| eprintln!("{}/{:?}", p.progress, p.total))
///     .cancel_on(cancel.clone());
/// # let _ = options;
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    progress: Option<ProgressFn>,
    cancel: Option<CancellationToken>,
    timeout: Option<Duration>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("progress", &self.progress.is_some())
            .field("cancel", &self.cancel)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl CallOptions {
    /// No progress, no cancellation, the client's timeout.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks for progress (a `progressToken` is sent) and calls `f` with each notification.
    pub fn on_progress(
        mut self,
        f: impl Fn(ProgressNotificationParams) + Send + Sync + 'static,
    ) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    /// Cancels the call when `token` is cancelled: the call fails with
    /// [`Error::Cancelled`] and the server gets `notifications/cancelled`. (Dropping the
    /// call's future does the same.)
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// A timeout for this call instead of the client's.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
}

impl Client {
    /// `ping`: checks that the server answers.
    pub async fn ping(&self) -> Result<()> {
        self.request_value("ping", None).await.map(drop)
    }

    /// Every page of a list, concatenated.
    async fn list_all<T: DeserializeOwned>(&self, method: &str, key: &str) -> Result<Vec<T>> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}));
            let mut page = self.request_value(method, params).await?;
            let next = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let list = page.get_mut(key).map(Value::take).ok_or_else(|| {
                Error::InvalidMessage(format!("{method} result: missing field `{key}`"))
            })?;
            items.extend(parse::<Vec<T>>(method, list)?);
            match next {
                Some(n) if Some(&n) != cursor.as_ref() => cursor = Some(n),
                _ => return Ok(items),
            }
        }
        Err(Error::InvalidMessage(format!(
            "{method}: more than {MAX_PAGES} pages"
        )))
    }

    /// `tools/list`, every page.
    pub async fn list_tools(&self) -> Result<Vec<Tool>> {
        self.list_all("tools/list", "tools").await
    }

    /// `resources/list`, every page.
    pub async fn list_resources(&self) -> Result<Vec<Resource>> {
        self.list_all("resources/list", "resources").await
    }

    /// `resources/templates/list`, every page.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        self.list_all("resources/templates/list", "resourceTemplates")
            .await
    }

    /// `prompts/list`, every page.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>> {
        self.list_all("prompts/list", "prompts").await
    }

    /// `tools/call` with `arguments` (a JSON object, or `null` for none).
    ///
    /// A tool that fails is a success here: check
    /// [`CallToolResult::is_error`].
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult> {
        self.call_tool_with(
            CallToolRequestParams {
                arguments: self::arguments(arguments)?,
                ..CallToolRequestParams::new(name)
            },
            CallOptions::new(),
        )
        .await
    }

    /// `tools/call` with full params and per-call options (progress, cancellation, timeout).
    pub async fn call_tool_with(
        &self,
        params: CallToolRequestParams,
        options: CallOptions,
    ) -> Result<CallToolResult> {
        let params = serde_json::to_value(params)
            .map_err(|e| Error::Unsupported(format!("tool call params: {e}")))?;
        let timeout = options.timeout.unwrap_or(self.request_timeout());
        let call = self.request_with("tools/call", Some(params), timeout, options.progress);
        let v = match options.cancel {
            // Biased: the call is sent before a token that is already cancelled is seen,
            // so the server always hears of the cancellation of what it was sent.
            Some(token) => tokio::select! {
                biased;
                r = call => r?,
                () = token.cancelled() => return Err(Error::Cancelled),
            },
            None => call.await?,
        };
        parse("tools/call", v)
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        self.call("resources/read", json!({"uri": uri})).await
    }

    /// `prompts/get` with string `arguments`.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult> {
        let mut params = json!({"name": name});
        if !arguments.is_empty() {
            params["arguments"] = json!(arguments);
        }
        self.call("prompts/get", params).await
    }

    /// `completion/complete`.
    pub async fn complete(&self, params: CompleteRequestParams) -> Result<CompleteResult> {
        let params = serde_json::to_value(params)
            .map_err(|e| Error::Unsupported(format!("completion params: {e}")))?;
        self.call("completion/complete", params).await
    }

    /// Sets the level of the log messages the server sends: `logging/setLevel` in the
    /// legacy era; in 2026 the level every later request carries in its `_meta`.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<()> {
        if self.protocol_version().era() == Era::Modern {
            self.shared().set_envelope_key(META_LOG_LEVEL, json!(level));
            return Ok(());
        }
        self.request_value("logging/setLevel", Some(json!({"level": level})))
            .await
            .map(drop)
    }

    /// `resources/subscribe` (legacy era): the server sends `notifications/resources/updated`
    /// for `uri`, read from [`events`](Self::events).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<()> {
        self.request_value("resources/subscribe", Some(json!({"uri": uri})))
            .await
            .map(drop)
    }

    /// `resources/unsubscribe` (legacy era).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<()> {
        self.request_value("resources/unsubscribe", Some(json!({"uri": uri})))
            .await
            .map(drop)
    }
}
