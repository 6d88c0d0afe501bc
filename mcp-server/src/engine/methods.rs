//! The methods both eras share: lists, `tools/call`, `resources/read`, `prompts/get`,
//! `completion/complete`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use ferromcp_core::Era;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::Request;
use ferromcp_core::types::{
    CallToolResult, CompleteRequestParams, CompleteResult, CompletionReference,
};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::tasks::TaskCall;
use super::*;
use crate::context::Client;
use crate::hooks::ClientView;
use crate::principal::Principal;
use crate::registry::{Listed, PageRequest, Shows};

#[derive(Deserialize)]
pub(super) struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    /// 2025-11-25: run as a task, with these settings.
    #[serde(borrow, default)]
    task: Option<&'a RawValue>,
    // MRTR members, listed rather than `#[serde(flatten)]`ed: flattening makes serde buffer
    // every other member (the whole `_meta` of a 2026 request) into an intermediate tree,
    // several thousand instructions per call; listed, the others are skipped in place.
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<BTreeMap<String, Value>>,
    #[serde(rename = "requestState", default)]
    request_state: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct ReadParams {
    uri: String,
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<BTreeMap<String, Value>>,
    #[serde(rename = "requestState", default)]
    request_state: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct GetPromptParams {
    name: String,
    #[serde(default)]
    arguments: Option<BTreeMap<String, String>>,
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<BTreeMap<String, Value>>,
    #[serde(rename = "requestState", default)]
    request_state: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

impl Engine {
    /// The methods both eras share.
    pub(super) async fn common_request(
        &self,
        req: &Request,
        scope: Scope<'_>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Reply {
        let id = &req.id;
        let params = req.params.as_ref();
        let version = scope.client.version;
        span::record_version(version.as_str());
        // The methods below answer their own protocol errors through `?`.
        let fail = |e: ErrorObject| Reply::Response(Response::error(Some(id), &e));
        let list = |kind: ListKind| -> Reply {
            let cursor = match parse_params::<ListParams>(params) {
                Ok(p) => p.cursor,
                Err(e) => return Reply::Response(Response::error(Some(id), &e)),
            };
            let shows = self.visibility(&scope.client);
            let page = PageRequest {
                kind,
                version,
                cursor: cursor.as_deref(),
                server_info: self.server_info(),
                cache: self.config().list_cache,
                granted: scope
                    .client
                    .caller
                    .principal
                    .as_deref()
                    .map(Principal::scopes),
                shows: shows.as_ref().map(|f| f as Shows<'_>),
            };
            match self.registry().page(&page) {
                Ok(page) => Reply::Response(self.respond_raw(id, &*page)),
                Err(e) => Reply::Response(Response::error(Some(id), &e)),
            }
        };
        match req.method.as_str() {
            "tools/list" => list(ListKind::Tools),
            "resources/list" => list(ListKind::Resources),
            "resources/templates/list" => list(ListKind::ResourceTemplates),
            "prompts/list" => list(ListKind::Prompts),
            "tools/call" => self
                .call_tool(req, scope, sink, cancel)
                .await
                .unwrap_or_else(fail),
            "resources/read" => self
                .read_resource(req, scope, sink, cancel)
                .await
                .unwrap_or_else(fail),
            "prompts/get" => self
                .get_prompt(req, scope, sink, cancel)
                .await
                .unwrap_or_else(fail),
            "completion/complete" => self
                .complete(req, scope, sink, cancel)
                .await
                .unwrap_or_else(fail),
            // Boxed, as the task path of `tools/call`: its state must not enlarge the future
            // of every request.
            "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" | "tasks/update" => {
                Box::pin(self.task_request(req, &scope, &sink))
                    .await
                    .unwrap_or_else(fail)
            }
            _ => self
                .custom_request(req, scope, sink, cancel)
                .await
                .unwrap_or_else(fail),
        }
    }

    /// The refusal of an authenticated caller that lacks scopes the item `what` (its kind
    /// and name) needs (`missing` says which, given the caller's): a JSON-RPC error naming
    /// them, which HTTP answers with 403 and an `insufficient_scope` challenge. Nothing is
    /// formatted unless the call is refused: this runs on every call.
    fn scope_refusal(
        &self,
        id: &RequestId,
        scope: &Scope<'_>,
        what: (&str, &str),
        missing: impl FnOnce(&[String]) -> Option<Arc<[String]>>,
    ) -> Option<Reply> {
        let principal = scope.client.caller.principal.as_deref()?;
        let needed = missing(principal.scopes())?;
        let lacking: Vec<&str> = needed
            .iter()
            .filter(|s| !principal.has_scope(s))
            .map(String::as_str)
            .collect();
        let error = ErrorObject::invalid_request(format!(
            "insufficient scope: the {} `{}` needs {}",
            what.0,
            what.1,
            lacking.join(" ")
        ))
        .with_data(serde_json::json!({ "requiredScopes": &*needed, "missingScopes": lacking }));
        Some(Reply::Response(
            Response::error(Some(id), &error).with_status(Status::InsufficientScope(needed)),
        ))
    }

    /// Whether the server's visibility predicate hides `item` from this client: it is then
    /// refused as if it did not exist.
    fn hidden(&self, client: &Client, item: Listed<'_>) -> bool {
        self.visibility(client).is_some_and(|shows| !shows(item))
    }

    /// The server's visibility predicate bound to `client`, or `None` when the server has
    /// none (everything is shown).
    fn visibility<'c>(&'c self, client: &'c Client) -> Option<impl Fn(Listed<'_>) -> bool + 'c> {
        let predicate = self.config().custom.visible.as_deref()?;
        let view = view(client);
        Some(move |item: Listed<'_>| predicate(item, &view))
    }

    /// Whether the server's visibility predicate lets `client` read `uri` (the verdict of
    /// `Registry::shows_uri`).
    pub(crate) fn shows_resource(&self, client: &Client, uri: &str) -> bool {
        self.visibility(client)
            .is_none_or(|shows| self.registry().shows_uri(uri, &shows))
    }

    /// The tool `name`, unless it does not exist or is hidden from this client (-32602).
    fn find_tool(
        &self,
        name: &str,
        client: &Client,
    ) -> Result<Arc<crate::registry::ToolEntry>, ErrorObject> {
        self.registry()
            .tool(name)
            .filter(|t| !self.hidden(client, Listed::Tool(&t.tool)))
            .ok_or_else(|| ErrorObject::invalid_params(format!("unknown tool: {name}")))
    }

    pub(super) async fn call_tool(
        &self,
        req: &Request,
        scope: Scope<'_>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<Reply, ErrorObject> {
        let id = &req.id;
        let mut p: CallParams<'_> = parse_params_borrowed(req.params.as_ref())?;
        let mrtr = MrtrParams {
            input_responses: p.input_responses.take(),
            request_state: p.request_state.take(),
        };
        if let Some(args) = p.arguments
            && !args.get().starts_with('{')
        {
            return Err(ErrorObject::invalid_params("`arguments` must be an object"));
        }
        let tool = self.find_tool(&p.name, &scope.client)?;
        if let Some(refusal) = self.scope_refusal(id, &scope, ("tool", &p.name), |g| {
            self.registry().missing_scopes(ListKind::Tools, &p.name, g)
        }) {
            return Ok(refusal);
        }
        // The one branch an ordinary call pays for tasks. Boxed: inline, the task path's
        // state would enlarge (and be copied with) every call's future.
        if (tool.tool.execution.is_some() || p.task.is_some())
            && let Some(reply) = Box::pin(self.call_as_task(
                &scope,
                &TaskCall {
                    request_id: id,
                    sink: &sink,
                    cancel: &cancel,
                    tool: &tool,
                    arguments: p.arguments,
                    mrtr: &mrtr,
                    asked: p.task,
                },
            ))
            .await?
        {
            return Ok(reply);
        }
        let ctx = self.context(
            id,
            &scope,
            sink,
            cancel,
            Some((&mrtr, "tools/call", &p.name)),
            None,
        )?;
        let timeout = tool.timeout.unwrap_or(self.config().tool_timeout);
        let handler = tool.handler.clone();
        let arguments = p.arguments;
        let call_ctx = ctx.clone();
        let driven = drive(&ctx, ("tool", &p.name), timeout, move || {
            handler.call(arguments, call_ctx)
        })
        .await;
        if matches!(driven, Driven::TimedOut) {
            ctx.cancellation_token().cancel();
            if ctx.take_override().is_none() {
                return Ok(Reply::Response(self.respond(
                    id,
                    scope.client.version,
                    CallToolResult::error(format!(
                        "the tool `{}` did not finish within {} s",
                        p.name,
                        timeout.as_secs_f64()
                    )),
                )));
            }
        }
        Ok(self.finish(&ctx, driven, "tool", Some(("tools/call", &p.name)), None))
    }

    pub(super) async fn read_resource(
        &self,
        req: &Request,
        scope: Scope<'_>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<Reply, ErrorObject> {
        let id = &req.id;
        let mut p: ReadParams = parse_params(req.params.as_ref())?;
        let mrtr = MrtrParams {
            input_responses: p.input_responses.take(),
            request_state: p.request_state.take(),
        };
        if p.uri.len() > ferromcp_core::uri_template::MAX_URI_LEN {
            return Err(ErrorObject::invalid_params("the URI is too long"));
        }
        let shown = |uri: &str| self.shows_resource(&scope.client, uri);
        let Some(found) = self.registry().resource(&p.uri).filter(|_| shown(&p.uri)) else {
            return Err(ErrorObject::resource_not_found(
                &p.uri,
                scope.client.version.era(),
            ));
        };
        if let Some(refusal) = self.scope_refusal(id, &scope, ("resource", &p.uri), |g| {
            self.registry().missing_scopes_for_uri(&p.uri, g)
        }) {
            return Ok(refusal);
        }
        found.checked?;
        let (handler, vars) = (found.handler, found.vars);
        let ctx = self.context(
            id,
            &scope,
            sink,
            cancel,
            Some((&mrtr, "resources/read", &p.uri)),
            None,
        )?;
        let uri = p.uri.clone();
        let call_ctx = ctx.clone();
        let driven = drive(
            &ctx,
            ("resource", &p.uri),
            self.config().tool_timeout,
            move || handler.read(&uri, &vars, call_ctx),
        )
        .await;
        let driven = match driven {
            Driven::Done(Ok(mut r)) => {
                if ctx.protocol_version().era() == Era::Modern {
                    ferromcp_core::types::Cacheable::set_cache_hints(
                        &mut r,
                        self.config().read_cache,
                    );
                }
                Driven::Done(Ok(r))
            }
            other => other,
        };
        Ok(self.finish(
            &ctx,
            driven,
            "resource",
            Some(("resources/read", &p.uri)),
            Some(&p.uri),
        ))
    }

    pub(super) async fn get_prompt(
        &self,
        req: &Request,
        scope: Scope<'_>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<Reply, ErrorObject> {
        let id = &req.id;
        let mut p: GetPromptParams = parse_params(req.params.as_ref())?;
        let mrtr = MrtrParams {
            input_responses: p.input_responses.take(),
            request_state: p.request_state.take(),
        };
        let Some(prompt) = self
            .registry()
            .prompt(&p.name)
            .filter(|e| !self.hidden(&scope.client, Listed::Prompt(&e.prompt)))
        else {
            return Err(ErrorObject::invalid_params(format!(
                "unknown prompt: {}",
                p.name
            )));
        };
        if let Some(refusal) = self.scope_refusal(id, &scope, ("prompt", &p.name), |g| {
            self.registry()
                .missing_scopes(ListKind::Prompts, &p.name, g)
        }) {
            return Ok(refusal);
        }
        let arguments = p.arguments.clone().unwrap_or_default();
        for arg in prompt.prompt.arguments.iter().flatten() {
            if arg.required == Some(true) && !arguments.contains_key(&arg.name) {
                return Err(ErrorObject::invalid_params(format!(
                    "missing required argument `{}`",
                    arg.name
                )));
            }
        }
        let ctx = self.context(
            id,
            &scope,
            sink,
            cancel,
            Some((&mrtr, "prompts/get", &p.name)),
            None,
        )?;
        let handler = prompt.handler.clone();
        let call_ctx = ctx.clone();
        let driven = drive(
            &ctx,
            ("prompt", &p.name),
            self.config().tool_timeout,
            move || handler.get(&arguments, call_ctx),
        )
        .await;
        Ok(self.finish(&ctx, driven, "prompt", Some(("prompts/get", &p.name)), None))
    }

    pub(super) async fn complete(
        &self,
        req: &Request,
        scope: Scope<'_>,
        sink: Sink,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<Reply, ErrorObject> {
        let id = &req.id;
        let p: CompleteRequestParams = parse_params(req.params.as_ref())?;
        let target = match &p.r#ref {
            CompletionReference::Prompt(r) => {
                if self
                    .registry()
                    .prompt(&r.name)
                    .is_none_or(|e| self.hidden(&scope.client, Listed::Prompt(&e.prompt)))
                {
                    return Err(ErrorObject::invalid_params(format!(
                        "unknown prompt: {}",
                        r.name
                    )));
                }
                CompletionTarget::Prompt(r.name.clone())
            }
            CompletionReference::ResourceTemplate(r) => {
                CompletionTarget::ResourceTemplate(r.uri.clone())
            }
        };
        // A hidden template completes nothing, as one that does not exist.
        let shown = match &target {
            CompletionTarget::ResourceTemplate(uri) => self
                .visibility(&scope.client)
                .is_none_or(|shows| self.registry().shows_template(uri, &shows)),
            _ => true,
        };
        let handler = self
            .registry()
            .completion(&target, &p.argument.name)
            .filter(|_| shown);
        let Some(handler) = handler else {
            return Ok(Reply::Response(self.respond(
                id,
                scope.client.version,
                CompleteResult::new(Vec::new()),
            )));
        };
        let ctx = self.context(id, &scope, sink, cancel, None, None)?;
        let context_args = p.context.and_then(|c| c.arguments).unwrap_or_default();
        let value = p.argument.value.clone();
        let call_ctx = ctx.clone();
        let driven = drive(
            &ctx,
            ("completion of", &p.argument.name),
            self.config().tool_timeout,
            move || {
                let fut = handler.complete(&value, &context_args, call_ctx);
                Box::pin(async move { Ok::<_, HandlerError>(CompleteResult::new(fut.await)) })
            },
        )
        .await;
        Ok(self.finish(&ctx, driven, "completion", None, None))
    }
}

impl Context {
    /// Whether the server's visibility predicate
    /// ([`ServerBuilder::visible_if`](crate::ServerBuilder::visible_if)) shows this request's
    /// client the resource at `uri`, as `resources/list` and `resources/read` decide it: by
    /// the static resource registered at exactly `uri`, else by the first template matching
    /// it. `true` when the server has no predicate, or when nothing serves `uri`.
    ///
    /// For extensions and custom methods that describe resources another way (as the Skills
    /// extension's `skills/list` does): what they leave out for a hidden resource keeps it
    /// hidden there too.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::prelude::*;
    ///
    /// struct Handbook;
    ///
    /// #[ferromcp::server]
    /// impl Handbook {
    ///     /// Names the chapters this caller may read.
    ///     #[tool]
    ///     fn chapters(&self, ctx: Context) -> String {
    ///         let shown: Vec<&str> = ["docs://intro", "docs://internals"]
    ///             .into_iter()
    ///             .filter(|uri| ctx.shows_resource(uri))
    ///             .collect();
    ///         shown.join(" ")
    ///     }
    /// }
    /// # let _ = Server::new(Handbook).unwrap();
    /// ```
    pub fn shows_resource(&self, uri: &str) -> bool {
        Engine::from_host(self.host()).shows_resource(self.client(), uri)
    }
}

/// What a hook or the visibility predicate knows of the client of a request.
pub(super) fn view(client: &Client) -> ClientView<'_> {
    ClientView {
        info: client.info.as_deref(),
        version: client.version,
        capabilities: &client.capabilities,
        principal: client.caller.principal.as_deref(),
    }
}
