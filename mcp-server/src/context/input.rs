//! Input requests to the client — elicitation, sampling, roots — sent as legacy
//! server-to-client requests or collected as modern-era `inputRequests`.

use ferromcp_core::Era;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::types::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestFormParams,
    ElicitRequestParams, ElicitRequestURLParams, ElicitRequestedSchema, ElicitResult,
    ElicitationCapability, IncludeContext, InputRequest, JSONObject, ListRootsResult, Root,
    RootsCapability, SamplingCapability,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use ferromcp_core::types::RELATED_TASK_META_KEY;

use super::{Context, ContextError, Mrtr, TaskLink};
use crate::sync::lock;

/// Builds one input request to the client; see [`Context::input`].
pub struct InputRequestBuilder<'a> {
    pub(super) ctx: &'a Context,
    pub(super) key: Option<String>,
}

impl std::fmt::Debug for InputRequestBuilder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputRequestBuilder")
            .field("key", &self.key)
            .finish()
    }
}

impl InputRequestBuilder<'_> {
    /// `elicitation/create` in form mode; see [`Context::elicit_form`].
    ///
    /// # Errors
    ///
    /// See [`Context::elicit_form`].
    pub async fn elicit_form(
        self,
        params: ElicitRequestFormParams,
    ) -> Result<ElicitResult, ContextError> {
        if !self.ctx.client_capabilities().supports_elicitation_form() {
            return Err(self.missing(
                "elicitation",
                ClientCapabilities {
                    elicitation: Some(ElicitationCapability {
                        form: Some(JSONObject::new()),
                        ..ElicitationCapability::default()
                    }),
                    ..ClientCapabilities::default()
                },
            ));
        }
        self.ask(
            "elicitation",
            ElicitRequestParams::Form(params).into_input(),
        )
        .await
    }

    /// `elicitation/create` in URL mode; see [`Context::elicit_url`].
    ///
    /// # Errors
    ///
    /// See [`Context::elicit_url`].
    pub async fn elicit_url(
        self,
        params: ElicitRequestURLParams,
    ) -> Result<ElicitResult, ContextError> {
        if !self.ctx.client_capabilities().supports_elicitation_url() {
            return Err(self.missing(
                "URL elicitation",
                ClientCapabilities {
                    elicitation: Some(ElicitationCapability {
                        url: Some(JSONObject::new()),
                        ..ElicitationCapability::default()
                    }),
                    ..ClientCapabilities::default()
                },
            ));
        }
        self.ask("elicitation", ElicitRequestParams::Url(params).into_input())
            .await
    }

    /// `sampling/createMessage`; see [`Context::sample`].
    ///
    /// # Errors
    ///
    /// See [`Context::sample`].
    pub async fn sample(
        self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ContextError> {
        let caps = self.ctx.client_capabilities();
        // What the request uses beyond plain sampling needs its own declaration: tools (the
        // spec's MUST NOT without `sampling.tools`) and a context other than `none`.
        let tools = params.tools.is_some() || params.tool_choice.is_some();
        let context = matches!(
            params.include_context,
            Some(IncludeContext::ThisServer | IncludeContext::AllServers)
        );
        let what = if !caps.supports_sampling() {
            Some("sampling")
        } else if tools && !caps.supports_sampling_tools() {
            Some("sampling with tools")
        } else if context && !caps.supports_sampling_context() {
            Some("sampling with included context")
        } else {
            None
        };
        if let Some(what) = what {
            let declared = || Some(JSONObject::default());
            return Err(self.missing(
                what,
                ClientCapabilities {
                    sampling: Some(SamplingCapability {
                        tools: if tools { declared() } else { None },
                        context: if context { declared() } else { None },
                        ..SamplingCapability::default()
                    }),
                    ..ClientCapabilities::default()
                },
            ));
        }
        self.ask("sampling", InputRequest::from(params)).await
    }

    /// `roots/list`; see [`Context::roots`].
    ///
    /// # Errors
    ///
    /// See [`Context::roots`].
    pub async fn roots(self) -> Result<Vec<Root>, ContextError> {
        if !self.ctx.client_capabilities().supports_roots() {
            return Err(self.missing(
                "roots",
                ClientCapabilities {
                    roots: Some(RootsCapability::default()),
                    ..ClientCapabilities::default()
                },
            ));
        }
        let result: ListRootsResult = self.ask("roots", InputRequest::list_roots()).await?;
        Ok(result.roots)
    }

    /// `required` is built, not parsed from JSON: a `Value` would compile one more
    /// deserializer of every capability type into the crate.
    fn missing(&self, what: &'static str, required: ClientCapabilities) -> ContextError {
        if self.ctx.era() == Era::Modern {
            self.ctx
                .fail_with(ErrorObject::missing_required_client_capability(required));
        }
        ContextError::CapabilityMissing(what)
    }

    async fn ask<R: DeserializeOwned>(
        self,
        kind: &str,
        request: InputRequest,
    ) -> Result<R, ContextError> {
        let ctx = self.ctx;
        match ctx.era() {
            Era::Legacy => {
                // Held until the client has answered: the request is sent before the
                // answer of the request it belongs to, or not at all.
                let Some(_pass) = ctx.inner.gate.enter() else {
                    ctx.dropped_after_end(request.method());
                    return Err(ContextError::Ended);
                };
                let Some(session) = &ctx.inner.client.session else {
                    return Err(ContextError::Disconnected);
                };
                let (method, mut params) = method_and_params(&request)?;
                let task = ctx.inner.task.as_ref().filter(|t| t.is_running());
                if let (Some(id), Value::Object(params)) = (task.and_then(|t| t.id()), &mut params)
                {
                    // 2025-11-25: a request made for a task names it.
                    let meta = params
                        .entry("_meta")
                        .or_insert_with(|| Value::Object(Default::default()));
                    if let Value::Object(meta) = meta {
                        meta.insert(
                            RELATED_TASK_META_KEY.to_owned(),
                            serde_json::json!({ "taskId": id }),
                        );
                    }
                }
                // The task is `input_required` while the client has not answered.
                let _waiting = task.map(|t| WaitingForClient::new(t));
                let value = session
                    .request(method, params, &ctx.inner.sink, &ctx.inner.cancel)
                    .await?;
                serde_json::from_value(value).map_err(ContextError::InvalidResponse)
            }
            Era::Modern => {
                if ctx.has_ended() {
                    ctx.dropped_after_end(request.method());
                    return Err(ContextError::Ended);
                }
                let Some(mrtr) = &ctx.inner.mrtr else {
                    return Err(ContextError::Disconnected);
                };
                // Inside a traced request, the input request carries its trace context.
                let request = with_meta(ctx.inner.host.observer(), request);
                if let Some(task) = ctx.inner.task.as_ref().filter(|t| t.is_running()) {
                    return wait_for_answer(mrtr, task, self.key, kind, request).await;
                }
                let answer = {
                    let mut m = lock(mrtr);
                    let key = match self.key {
                        Some(k) => k,
                        None => format!("{kind}-{}", m.next_key),
                    };
                    m.next_key += 1;
                    let parsed = m
                        .responses
                        .get(&key)
                        .and_then(|v| serde_json::from_value::<R>(v.clone()).ok());
                    if parsed.is_none() {
                        // Unanswered, or answered with the wrong shape: ask (again).
                        m.responses.remove(&key);
                        m.pending.insert(key, request);
                    }
                    parsed
                };
                match answer {
                    Some(r) => Ok(r),
                    // The engine sees the pending request when this future stays pending, and
                    // ends the call with an `input_required` result; this future is then
                    // dropped, never resumed.
                    None => std::future::pending().await,
                }
            }
        }
    }
}

/// Counts a legacy task's request to the client while it waits for the answer.
struct WaitingForClient<'a>(&'a TaskLink);

impl<'a> WaitingForClient<'a> {
    fn new(task: &'a TaskLink) -> Self {
        task.begin_wait();
        WaitingForClient(task)
    }
}

impl Drop for WaitingForClient<'_> {
    fn drop(&mut self) {
        self.0.end_wait();
    }
}

/// A running 2026 task's input request: registered as pending (the task shows it in
/// `inputRequests`), then answered through `tasks/update`, which wakes this future.
async fn wait_for_answer<R: DeserializeOwned>(
    mrtr: &std::sync::Mutex<Mrtr>,
    task: &TaskLink,
    key: Option<String>,
    kind: &str,
    request: InputRequest,
) -> Result<R, ContextError> {
    let key = {
        let mut m = lock(mrtr);
        let key = key.unwrap_or_else(|| format!("{kind}-{}", m.next_key));
        m.next_key += 1;
        // An answer from an earlier round of the call, before it became a task.
        if let Some(r) = m
            .responses
            .get(&key)
            .and_then(|v| serde_json::from_value::<R>(v.clone()).ok())
        {
            return Ok(r);
        }
        m.responses.remove(&key);
        m.pending.insert(key.clone(), request.clone());
        key
    };
    task.changed().notify_one();
    loop {
        let answered = task.answered().notified();
        tokio::pin!(answered);
        answered.as_mut().enable();
        {
            let mut m = lock(mrtr);
            if let Some(value) = m.responses.get(&key) {
                match serde_json::from_value::<R>(value.clone()) {
                    Ok(r) => return Ok(r),
                    Err(_) => {
                        // The wrong shape: ask again.
                        m.responses.remove(&key);
                        m.pending.insert(key.clone(), request.clone());
                        task.changed().notify_one();
                    }
                }
            }
        }
        answered.await;
    }
}

/// The method and params of an input request, to send it as a legacy request.
/// `request` with what the observer adds to `_meta` (inside a traced request, its trace
/// context) in its params' `_meta`: a 2026 input request, which the client answers in the
/// call's next round, links to the server span that asked, as a 2025 server-to-client
/// request does.
fn with_meta(observer: &dyn crate::observe::Observer, request: InputRequest) -> InputRequest {
    let Some(meta) = observer.message_meta() else {
        return request;
    };
    let Ok(mut value) = serde_json::to_value(&request) else {
        return request;
    };
    if let Value::Object(members) = &mut value {
        let params = members
            .entry("params")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        crate::observe::add_meta(params, meta);
    }
    serde_json::from_value(value).unwrap_or(request)
}

fn method_and_params(request: &InputRequest) -> Result<(&'static str, Value), ContextError> {
    let params = match request {
        InputRequest::CreateMessage(r) => serde_json::to_value(&r.params),
        InputRequest::Elicit(r) => serde_json::to_value(&r.params),
        InputRequest::ListRoots(r) => serde_json::to_value(&r.params),
    }
    .map_err(ContextError::InvalidResponse)?;
    let params = if params.is_null() {
        serde_json::json!({})
    } else {
        params
    };
    Ok((request.method(), params))
}

trait IntoInputRequest {
    fn into_input(self) -> InputRequest;
}

impl IntoInputRequest for ElicitRequestParams {
    fn into_input(self) -> InputRequest {
        InputRequest::from(self)
    }
}

/// The form schema for `T`: schemars' schema of `T`, which must be a flat object of
/// primitive fields.
pub(super) fn elicitation_schema<T: schemars::JsonSchema>()
-> Result<ElicitRequestedSchema, ContextError> {
    let schema = crate::schema::input_schema_for::<T>();
    serde_json::from_value(Value::Object(schema)).map_err(ContextError::UnsupportedSchema)
}
