//! The handler traits the registry stores: one per kind of primitive. The `#[server]` macro
//! implements them for each annotated method; the `*_fn` adapters build them from closures
//! for tools, resources and prompts registered at run time.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::types::{CallToolResult, GetPromptResult, ReadResourceResult};
use ferromcp_core::uri_template::Match;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::context::Context;
use crate::result::{HandlerError, IntoPromptResult, IntoReadResult, IntoToolResult};

/// A boxed, sendable future: what async handlers return through a trait object.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Runs one tool.
pub trait ToolHandler: Send + Sync + 'static {
    /// Calls the tool with its raw `arguments` (absent when the client sent none).
    ///
    /// Argument errors are results with `isError: true` naming the bad field, so the model
    /// can correct itself; `Err` is for protocol failures.
    fn call(
        &self,
        arguments: Option<&RawValue>,
        ctx: Context,
    ) -> BoxFuture<Result<CallToolResult, HandlerError>>;
}

/// Reads one resource, or the resources of one template.
pub trait ResourceHandler: Send + Sync + 'static {
    /// Reads `uri`; `vars` holds the template's variables (empty for a static resource).
    fn read(
        &self,
        uri: &str,
        vars: &Match,
        ctx: Context,
    ) -> BoxFuture<Result<ReadResourceResult, HandlerError>>;
}

/// Produces one prompt.
pub trait PromptHandler: Send + Sync + 'static {
    /// Produces the prompt for these arguments.
    fn get(
        &self,
        arguments: &BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<Result<GetPromptResult, HandlerError>>;
}

/// Suggests values for one argument of a prompt or resource template.
pub trait CompletionHandler: Send + Sync + 'static {
    /// Candidates for the argument whose partial value is `value`; `context` holds the
    /// values of the other arguments the client has already resolved.
    fn complete(
        &self,
        value: &str,
        context: &BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<Vec<String>>;
}

/// Reads tool arguments into `T`; on failure, an error whose message names the argument at
/// fault, for the model to correct.
///
/// # Errors
///
/// The arguments do not deserialize into `T`.
///
/// # Examples
///
/// ```
/// use ferromcp::registry::parse_arguments;
///
/// #[derive(Debug, serde::Deserialize)]
/// struct Args { count: u32 }
///
/// let raw = serde_json::value::RawValue::from_string(r#"{"count": "x"}"#.into()).unwrap();
/// let error = parse_arguments::<Args>(Some(&raw)).unwrap_err();
/// assert_eq!(error.argument(), Some("count"));
/// assert_eq!(error.to_string(), "invalid argument `count`: invalid type: string \"x\", expected u32");
/// ```
pub fn parse_arguments<T: DeserializeOwned>(
    arguments: Option<&RawValue>,
) -> Result<T, ArgumentsError> {
    // Absent and `null` arguments are an empty object: a tool without parameters may be called
    // either way.
    let text = match arguments.map(RawValue::get) {
        None => "{}",
        Some(t) if t.trim() == "null" => "{}",
        Some(t) => t,
    };
    serde_json::from_str(text).map_err(|error| ArgumentsError {
        argument: key_at(text, error.line(), error.column()),
        error,
    })
}

/// Tool arguments that do not deserialize into the tool's input type (see
/// [`parse_arguments`]). Its message is serde's, prefixed with the argument whose value it
/// is about, and meant for the model: it becomes the text of an `isError: true` result.
#[derive(Debug)]
pub struct ArgumentsError {
    argument: Option<String>,
    error: serde_json::Error,
}

impl ArgumentsError {
    /// The top-level argument whose value is wrong; `None` when the error is about the
    /// arguments object itself (a missing or unknown member, which serde's message names).
    pub fn argument(&self) -> Option<&str> {
        self.argument.as_deref()
    }
}

impl std::fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let full = self.error.to_string();
        let position = format!(
            " at line {} column {}",
            self.error.line(),
            self.error.column()
        );
        let message = full.strip_suffix(&position).unwrap_or(&full);
        match &self.argument {
            Some(key) => write!(f, "invalid argument `{key}`: {message}"),
            None => write!(f, "invalid arguments: {message}"),
        }
    }
}

impl std::error::Error for ArgumentsError {}

/// The top-level member of the JSON object `text` whose value spans the error position.
fn key_at(text: &str, line: usize, column: usize) -> Option<String> {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let offset = line_start + column;
    let members: Vec<(String, &RawValue)> =
        serde_json::from_str::<BTreeMap<String, &RawValue>>(text)
            .ok()?
            .into_iter()
            .collect();
    let base = text.as_ptr() as usize;
    members.into_iter().find_map(|(key, raw)| {
        let start = (raw.get().as_ptr() as usize).checked_sub(base)?;
        (start <= offset && offset <= start + raw.get().len()).then_some(key)
    })
}

/// A tool handler from an async closure taking deserialized arguments and the request's
/// [`Context`].
///
/// # Examples
///
/// ```
/// use ferromcp::registry::tool_fn;
///
/// #[derive(serde::Deserialize)]
/// struct Args { text: String }
///
/// let handler = tool_fn(|args: Args, _ctx| async move { args.text });
/// # let _ = handler;
/// ```
pub fn tool_fn<A, F, Fut>(f: F) -> impl ToolHandler
where
    A: DeserializeOwned + Send + 'static,
    F: Fn(A, Context) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoToolResult,
{
    ToolFn {
        f,
        _args: std::marker::PhantomData,
    }
}

struct ToolFn<F, A> {
    f: F,
    _args: std::marker::PhantomData<fn() -> A>,
}

impl<A, F, Fut> ToolHandler for ToolFn<F, A>
where
    A: DeserializeOwned + Send + 'static,
    F: Fn(A, Context) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoToolResult,
{
    fn call(
        &self,
        arguments: Option<&RawValue>,
        ctx: Context,
    ) -> BoxFuture<Result<CallToolResult, HandlerError>> {
        match parse_arguments::<A>(arguments) {
            Ok(args) => {
                let fut = (self.f)(args, ctx);
                Box::pin(async move { fut.await.into_tool_result().map_err(HandlerError::Rpc) })
            }
            Err(error) => Box::pin(std::future::ready(Ok(CallToolResult::error(
                error.to_string(),
            )))),
        }
    }
}

/// A resource handler from an async closure taking the URI, its template variables and the
/// request's [`Context`]; `mime_type` is the default MIME type of text and binary contents.
pub fn resource_fn<F, Fut>(mime_type: Option<&str>, f: F) -> impl ResourceHandler
where
    F: Fn(String, Match, Context) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoReadResult,
{
    ResourceFn {
        f,
        mime_type: mime_type.map(str::to_owned),
    }
}

struct ResourceFn<F> {
    f: F,
    mime_type: Option<String>,
}

impl<F, Fut> ResourceHandler for ResourceFn<F>
where
    F: Fn(String, Match, Context) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoReadResult,
{
    fn read(
        &self,
        uri: &str,
        vars: &Match,
        ctx: Context,
    ) -> BoxFuture<Result<ReadResourceResult, HandlerError>> {
        let fut = (self.f)(uri.to_owned(), vars.clone(), ctx);
        let uri = uri.to_owned();
        let mime_type = self.mime_type.clone();
        Box::pin(async move { fut.await.into_read_result(&uri, mime_type.as_deref()) })
    }
}

/// A prompt handler from an async closure taking the prompt's arguments and the request's
/// [`Context`].
pub fn prompt_fn<F, Fut>(f: F) -> impl PromptHandler
where
    F: Fn(BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoPromptResult,
{
    PromptFn { f }
}

struct PromptFn<F> {
    f: F,
}

impl<F, Fut> PromptHandler for PromptFn<F>
where
    F: Fn(BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoPromptResult,
{
    fn get(
        &self,
        arguments: &BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<Result<GetPromptResult, HandlerError>> {
        let fut = (self.f)(arguments.clone(), ctx);
        Box::pin(async move { fut.await.into_prompt_result() })
    }
}

/// A completion handler from an async closure taking the partial value, the other resolved
/// arguments, and the request's [`Context`].
pub fn completion_fn<F, Fut>(f: F) -> impl CompletionHandler
where
    F: Fn(String, BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: crate::result::IntoCompletion,
{
    CompletionFn { f }
}

struct CompletionFn<F> {
    f: F,
}

impl<F, Fut> CompletionHandler for CompletionFn<F>
where
    F: Fn(String, BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: crate::result::IntoCompletion,
{
    fn complete(
        &self,
        value: &str,
        context: &BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<Vec<String>> {
        let fut = (self.f)(value.to_owned(), context.clone(), ctx);
        Box::pin(async move { crate::result::IntoCompletion::into_completion(fut.await) })
    }
}

/// A protocol error for a prompt argument that is missing.
pub fn missing_prompt_argument(name: &str) -> HandlerError {
    HandlerError::Rpc(ErrorObject::invalid_params(format!(
        "missing required argument `{name}`"
    )))
}
