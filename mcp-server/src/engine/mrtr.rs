//! A request's `Context`, and the end of a handler's run: its outcome or override, and for the
//! modern era the `input_required` round with its sealed `requestState`.

use std::collections::BTreeMap;

use ferromcp_core::Era;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::RequestId;
use ferromcp_core::types::InputRequiredResult;
use serde::Deserialize;
use serde_json::Value;

use super::seal::{Target, caller_binding};
use super::*;

/// The params of `tools/call`, `prompts/get` and `resources/read` that drive multi
/// round-trip requests.
#[derive(Deserialize, Default)]
pub(super) struct MrtrParams {
    #[serde(rename = "inputResponses", default)]
    pub(super) input_responses: Option<BTreeMap<String, Value>>,
    #[serde(rename = "requestState", default)]
    pub(super) request_state: Option<String>,
}

impl Engine {
    /// Builds the request's context; for the modern era, opens `requestState` and merges the
    /// client's answers.
    pub(super) fn context(
        &self,
        id: &RequestId,
        scope: &Scope,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
        mrtr: Option<(&MrtrParams, &str, &str)>,
        task: Option<std::sync::Arc<crate::context::TaskLink>>,
    ) -> Result<Context, ErrorObject> {
        let modern = scope.client.version.era() == Era::Modern;
        let mrtr_state = match mrtr {
            Some((p, method, name)) if modern => {
                let mut state = Mrtr::default();
                if let Some(sealed) = &p.request_state {
                    let target = Target {
                        audience: &self.config().info.name,
                        method,
                        name,
                        caller: caller_binding(scope.client.caller.principal.as_deref()),
                    };
                    let opened = self.sealer().open(sealed, target).ok_or_else(|| {
                        ErrorObject::invalid_params("Invalid or expired requestState")
                    })?;
                    state.responses = opened.r;
                    state.user_state = opened.s;
                }
                if let Some(answers) = &p.input_responses {
                    state
                        .responses
                        .extend(answers.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                Some(state)
            }
            _ => None,
        };
        Ok(Context::new(
            self.host(),
            Some(id.clone()),
            scope.client.clone(),
            scope.meta,
            sink,
            cancel,
            mrtr_state,
            task,
        ))
    }

    /// Turns a driven handler into a reply: the context's override first (a missing client
    /// capability, input required), then the handler's own outcome.
    pub(super) fn finish<R: WithMeta>(
        &self,
        ctx: &Context,
        driven: Driven<Result<R, HandlerError>>,
        what: &str,
        mrtr_target: Option<(&str, &str)>,
        not_found_uri: Option<&str>,
    ) -> Reply {
        let Some(id) = ctx.request_id() else {
            // Only a request's context is finished here: one that serves none has no answer.
            return Reply::Silent;
        };
        let version = ctx.protocol_version();
        if let Some(Override::Error(e)) = ctx.take_override() {
            return Reply::Response(Response::error(Some(id), &e));
        }
        match driven {
            Driven::Done(Ok(result)) => Reply::Response(self.respond(id, version, result)),
            Driven::Done(Err(HandlerError::Rpc(e))) => {
                Reply::Response(Response::error(Some(id), &e))
            }
            Driven::Done(Err(HandlerError::ResourceNotFound)) => Reply::Response(Response::error(
                Some(id),
                &ErrorObject::resource_not_found(not_found_uri.unwrap_or_default(), version.era()),
            )),
            Driven::Panicked => {
                tracing::error!(%id, what, "handler panicked");
                Reply::Response(Response::error(
                    Some(id),
                    &ErrorObject::internal_error(format!("the {what} handler panicked")),
                ))
            }
            Driven::TimedOut => Reply::Response(Response::error(
                Some(id),
                &ErrorObject::internal_error(format!("the {what} handler did not finish in time")),
            )),
            Driven::Cancelled => Reply::Silent,
            Driven::InputRequired => self.input_required(ctx, mrtr_target),
        }
    }

    pub(super) fn input_required(&self, ctx: &Context, target: Option<(&str, &str)>) -> Reply {
        let Some(id) = ctx.request_id() else {
            return Reply::Silent;
        };
        let Some(state) = ctx.take_mrtr() else {
            return Reply::Response(Response::error(
                Some(id),
                &ErrorObject::internal_error("input required outside a modern request"),
            ));
        };
        let (method, name) = target.unwrap_or_default();
        let target = Target {
            audience: &self.config().info.name,
            method,
            name,
            caller: caller_binding(ctx.principal()),
        };
        let sealed = self
            .sealer()
            .seal(target, state.responses, state.user_state);
        let mut result = InputRequiredResult::new();
        result.input_requests = Some(state.pending);
        result.request_state = sealed;
        Reply::Response(self.respond(id, ctx.protocol_version(), result))
    }
}
