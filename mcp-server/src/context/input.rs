//! Input requests to the client — elicitation, sampling, roots — sent as legacy
//! server-to-client requests or collected as modern-era `inputRequests`.

use mcp_core::Era;
use mcp_core::error::ErrorObject;
use mcp_core::types::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestFormParams,
    ElicitRequestParams, ElicitRequestURLParams, ElicitRequestedSchema, ElicitResult, InputRequest,
    ListRootsResult, Root,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Context, ContextError};
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
                serde_json::json!({"elicitation": {"form": {}}}),
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
                serde_json::json!({"elicitation": {"url": {}}}),
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
        if !self.ctx.client_capabilities().supports_sampling() {
            return Err(self.missing("sampling", serde_json::json!({"sampling": {}})));
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
            return Err(self.missing("roots", serde_json::json!({"roots": {}})));
        }
        let result: ListRootsResult = self.ask("roots", InputRequest::list_roots()).await?;
        Ok(result.roots)
    }

    fn missing(&self, what: &'static str, required: Value) -> ContextError {
        if self.ctx.era() == Era::Modern {
            let required: ClientCapabilities = serde_json::from_value(required).unwrap_or_default();
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
                let Some(session) = &ctx.inner.client.session else {
                    return Err(ContextError::Disconnected);
                };
                let (method, params) = method_and_params(&request)?;
                let value = session
                    .request(method, params, &ctx.inner.sink, &ctx.inner.cancel)
                    .await?;
                serde_json::from_value(value)
                    .map_err(|e| ContextError::InvalidResponse(e.to_string()))
            }
            Era::Modern => {
                let Some(mrtr) = &ctx.inner.mrtr else {
                    return Err(ContextError::Disconnected);
                };
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

/// The method and params of an input request, to send it as a legacy request.
fn method_and_params(request: &InputRequest) -> Result<(&'static str, Value), ContextError> {
    let params = match request {
        InputRequest::CreateMessage(r) => serde_json::to_value(&r.params),
        InputRequest::Elicit(r) => serde_json::to_value(&r.params),
        InputRequest::ListRoots(r) => serde_json::to_value(&r.params),
    }
    .map_err(|e| ContextError::InvalidResponse(e.to_string()))?;
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
    serde_json::from_value(Value::Object(schema))
        .map_err(|e| ContextError::UnsupportedSchema(e.to_string()))
}
