//! What handlers may return: the conversion traits from ordinary Rust values to tool results,
//! resource contents and prompt messages, and the error types handlers use.

use std::fmt;

use mcp_core::error::ErrorObject;
use mcp_core::types::{
    AudioContent, BlobResourceContents, CallToolResult, ContentBlock, EmbeddedResource,
    GetPromptResult, ImageContent, JSONObject, PromptMessage, ReadResourceResult, ResourceLink,
    TextContent, TextOrBlobResourceContents, TextResourceContents,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::schema::{output_schema_for, result_schema_for};

/// Structured tool output: the value goes into `structuredContent` (with a text copy of the
/// same JSON for clients that only read `content`), and its JSON Schema becomes the tool's
/// `outputSchema`.
///
/// # Examples
///
/// ```
/// use mcp_server::{IntoToolResult, Json};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum { value: i64 }
///
/// let result = Json(Sum { value: 3 }).into_tool_result().unwrap();
/// assert_eq!(result.structured_content, Some(serde_json::json!({"value": 3})));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

/// A tool failure the model should read: becomes a result with `isError: true` and this text.
///
/// Any `Err(E)` with `E: Display` returned from a tool does the same; `ToolError` is for
/// building one from a message.
///
/// # Examples
///
/// ```
/// use mcp_server::{IntoToolResult, ToolError};
///
/// let r: Result<String, ToolError> = Err(ToolError::new("date must be in the future"));
/// let result = r.into_tool_result().unwrap();
/// assert_eq!(result.is_error, Some(true));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A tool failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

/// Why a resource could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// No resource has this URI (a template matched but the thing it names does not exist).
    /// Answered as the era's resource-not-found error: -32002 in the legacy era, -32602 in
    /// the modern era, both with `data.uri`.
    #[error("resource not found")]
    NotFound,
    /// The URI or one of its template variables is invalid (-32602).
    #[error("{0}")]
    InvalidParams(String),
    /// Reading failed (-32603). The message reaches the client: keep secrets out of it.
    #[error("{0}")]
    Internal(String),
    /// A specific JSON-RPC error.
    #[error("{0}")]
    Rpc(ErrorObject),
}

impl ResourceError {
    /// A read failure with this message (-32603).
    pub fn internal(message: impl fmt::Display) -> Self {
        ResourceError::Internal(message.to_string())
    }

    /// Invalid parameters (-32602).
    pub fn invalid_params(message: impl fmt::Display) -> Self {
        ResourceError::InvalidParams(message.to_string())
    }
}

impl From<std::io::Error> for ResourceError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::NotFound {
            ResourceError::NotFound
        } else {
            ResourceError::Internal(e.to_string())
        }
    }
}

/// Why a prompt could not be produced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// An argument is missing or invalid (-32602).
    #[error("{0}")]
    InvalidArgument(String),
    /// Producing the prompt failed (-32603). The message reaches the client.
    #[error("{0}")]
    Internal(String),
    /// A specific JSON-RPC error.
    #[error("{0}")]
    Rpc(ErrorObject),
}

impl PromptError {
    /// An invalid or missing argument (-32602).
    pub fn invalid_argument(message: impl fmt::Display) -> Self {
        PromptError::InvalidArgument(message.to_string())
    }

    /// A failure with this message (-32603).
    pub fn internal(message: impl fmt::Display) -> Self {
        PromptError::Internal(message.to_string())
    }
}

/// A failure that ends a request with a JSON-RPC error rather than a result.
///
/// Resource-not-found needs the request's URI and era, so it is kept symbolic until the
/// engine answers.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HandlerError {
    /// A complete JSON-RPC error.
    Rpc(ErrorObject),
    /// The resource does not exist.
    ResourceNotFound,
}

impl From<ErrorObject> for HandlerError {
    fn from(e: ErrorObject) -> Self {
        HandlerError::Rpc(e)
    }
}

impl From<ResourceError> for HandlerError {
    fn from(e: ResourceError) -> Self {
        match e {
            ResourceError::NotFound => HandlerError::ResourceNotFound,
            ResourceError::InvalidParams(m) => HandlerError::Rpc(ErrorObject::invalid_params(m)),
            ResourceError::Internal(m) => HandlerError::Rpc(ErrorObject::internal_error(m)),
            ResourceError::Rpc(e) => HandlerError::Rpc(e),
        }
    }
}

impl From<PromptError> for HandlerError {
    fn from(e: PromptError) -> Self {
        match e {
            PromptError::InvalidArgument(m) => HandlerError::Rpc(ErrorObject::invalid_params(m)),
            PromptError::Internal(m) => HandlerError::Rpc(ErrorObject::internal_error(m)),
            PromptError::Rpc(e) => HandlerError::Rpc(e),
        }
    }
}

/// Converts a tool's return value into a `tools/call` result, and says which `outputSchema`
/// the results conform to.
///
/// Implemented for:
///
/// - text (`String`, `&str`), content blocks and vectors of them, [`CallToolResult`], and
///   `()` (an empty result): no output schema;
/// - numbers (`i8` to `i64`, `u8` to `u64`, `isize`, `usize`, `f32`, `f64`) and `bool`: the
///   value as text and as `structuredContent` `{"result": value}`, with the matching output
///   schema (a non-finite float is an `isError: true` result: JSON has no NaN);
/// - [`Json<T>`] (`T: Serialize + JsonSchema`): the value as `structuredContent`, with `T`'s
///   schema as the output schema;
/// - `Option<T>`: `Some` as `T`; `None` as an empty result (with `structuredContent: {}`
///   when `T` has an output schema, whose top-level properties are then all optional);
/// - `Result<T, E>` where `E: Display`: an `Err` becomes an `isError: true` result carrying
///   the error's text, which the model can read and act on.
///
/// The `#[tool]` macro publishes [`output_schema`](Self::output_schema) of the declared
/// return type, so a type alias or a re-export behaves like the type it names.
///
/// # Examples
///
/// ```
/// use mcp_server::IntoToolResult;
///
/// let result = 5_i64.into_tool_result().unwrap();
/// assert_eq!(result.content[0].as_text(), Some("5"));
/// assert_eq!(result.structured_content, Some(serde_json::json!({"result": 5})));
/// let schema = <i64 as IntoToolResult>::output_schema().unwrap();
/// assert_eq!(schema["properties"]["result"]["type"], "integer");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool]",
    label = "this return type does not implement `IntoToolResult`",
    note = "for structured output, derive `serde::Serialize` and `schemars::JsonSchema` for the type and wrap the value in `Json<…>`: return `Json<{Self}>`",
    note = "a tool returns a `String`, a number, a `bool`, a content block (`TextContent`, `ImageContent`, …), `Vec<ContentBlock>`, `CallToolResult`, `Json<T>`, `Option<T>`, or `Result<T, E>` with `E: Display`"
)]
pub trait IntoToolResult {
    /// The result, or a protocol error.
    ///
    /// # Errors
    ///
    /// A protocol-level failure: for example a [`Json`] value that cannot be serialized.
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject>;

    /// The JSON Schema every successful result's `structuredContent` conforms to, published
    /// as the tool's `outputSchema`; `None` (the default) for results without structured
    /// content.
    fn output_schema() -> Option<JSONObject>
    where
        Self: Sized,
    {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        Ok(CallToolResult::new(Vec::new()))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        Ok(CallToolResult::new(vec![self]))
    }
}

impl<T: Into<ContentBlock>> IntoToolResult for Vec<T> {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        Ok(CallToolResult::new(
            self.into_iter().map(Into::into).collect(),
        ))
    }
}

macro_rules! content_into_tool_result {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
                Ok(CallToolResult::new(vec![self.into()]))
            }
        }
    )*};
}
content_into_tool_result!(
    TextContent,
    ImageContent,
    AudioContent,
    EmbeddedResource,
    ResourceLink
);

fn structured_value<T: Serialize>(value: &T) -> Result<Value, ErrorObject> {
    serde_json::to_value(value).map_err(|e| {
        ErrorObject::internal_error(format!("structured result does not serialize: {e}"))
    })
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        Ok(CallToolResult::structured(structured_value(&self.0)?))
    }

    fn output_schema() -> Option<JSONObject> {
        Some(output_schema_for::<T>())
    }
}

/// A plain value as text and as `{"result": value}`.
fn wrapped<T: Serialize>(value: &T) -> Result<CallToolResult, ErrorObject> {
    let value = structured_value(value)?;
    let mut result = CallToolResult::text(value.to_string());
    result.structured_content = Some(serde_json::json!({ "result": value }));
    Ok(result)
}

macro_rules! plain_value_into_tool_result {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
                wrapped(&self)
            }

            fn output_schema() -> Option<JSONObject> {
                Some(result_schema_for::<$ty>())
            }
        }
    )*};
}
plain_value_into_tool_result!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, bool);

macro_rules! float_into_tool_result {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
                if self.is_finite() {
                    wrapped(&self)
                } else {
                    Ok(CallToolResult::error(format!(
                        "the tool computed {self}, which JSON cannot represent"
                    )))
                }
            }

            fn output_schema() -> Option<JSONObject> {
                Some(result_schema_for::<$ty>())
            }
        }
    )*};
}
float_into_tool_result!(f32, f64);

impl<T: IntoToolResult> IntoToolResult for Option<T> {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        match self {
            Some(v) => v.into_tool_result(),
            None => {
                let mut result = CallToolResult::new(Vec::new());
                if T::output_schema().is_some() {
                    result.structured_content = Some(Value::Object(JSONObject::new()));
                }
                Ok(result)
            }
        }
    }

    fn output_schema() -> Option<JSONObject> {
        // `None` answers `{}`, which the schema must accept.
        T::output_schema().map(|mut schema| {
            schema.remove("required");
            schema
        })
    }
}

impl<T: IntoToolResult, E: fmt::Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => Ok(CallToolResult::error(e.to_string())),
        }
    }

    fn output_schema() -> Option<JSONObject> {
        T::output_schema()
    }
}

/// Converts a resource handler's return value into the contents of a `resources/read`
/// result for the URI that was read.
///
/// Implemented for `String` / `&str` (text), `Vec<u8>` (binary, base64-encoded),
/// [`TextResourceContents`], [`BlobResourceContents`], vectors of contents,
/// [`ReadResourceResult`], [`Json<T>`] (JSON text), and `Result<T, E>` with
/// `E: Into<ResourceError>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[resource]",
    label = "this return type does not implement `IntoReadResult`",
    note = "return a `String`, `Vec<u8>`, `TextResourceContents`, `BlobResourceContents`, `Json<T>`, `ReadResourceResult`, or `Result<T, ResourceError>`"
)]
pub trait IntoReadResult {
    /// The result for `uri`, whose MIME type defaults to `mime_type`.
    ///
    /// # Errors
    ///
    /// The handler's own failure.
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError>;
}

fn one_content(contents: TextOrBlobResourceContents) -> ReadResourceResult {
    ReadResourceResult::new(vec![contents])
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        Ok(self)
    }
}

impl IntoReadResult for String {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        let mut text = TextResourceContents::new(uri, self);
        text.mime_type = Some(mime_type.unwrap_or("text/plain").to_owned());
        Ok(one_content(text.into()))
    }
}

impl IntoReadResult for &str {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        self.to_owned().into_read_result(uri, mime_type)
    }
}

impl IntoReadResult for Vec<u8> {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        use base64::Engine as _;
        let mut blob =
            BlobResourceContents::new(uri, base64::engine::general_purpose::STANDARD.encode(self));
        blob.mime_type = Some(mime_type.unwrap_or("application/octet-stream").to_owned());
        Ok(one_content(blob.into()))
    }
}

impl IntoReadResult for TextResourceContents {
    fn into_read_result(
        mut self,
        _: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        if self.mime_type.is_none() {
            self.mime_type = mime_type.map(str::to_owned);
        }
        Ok(one_content(self.into()))
    }
}

impl IntoReadResult for BlobResourceContents {
    fn into_read_result(
        mut self,
        _: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        if self.mime_type.is_none() {
            self.mime_type = mime_type.map(str::to_owned);
        }
        Ok(one_content(self.into()))
    }
}

impl IntoReadResult for Vec<TextOrBlobResourceContents> {
    fn into_read_result(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        Ok(ReadResourceResult::new(self))
    }
}

impl<T: Serialize> IntoReadResult for Json<T> {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        let text = serde_json::to_string(&self.0).map_err(|e| {
            HandlerError::Rpc(ErrorObject::internal_error(format!(
                "resource value does not serialize: {e}"
            )))
        })?;
        text.into_read_result(uri, Some(mime_type.unwrap_or("application/json")))
    }
}

impl<T: IntoReadResult, E: Into<ResourceError>> IntoReadResult for Result<T, E> {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, HandlerError> {
        match self {
            Ok(v) => v.into_read_result(uri, mime_type),
            Err(e) => Err(HandlerError::from(e.into())),
        }
    }
}

/// Converts a prompt handler's return value into a `prompts/get` result.
///
/// Implemented for `String` / `&str` (one user message), [`PromptMessage`], vectors of
/// messages, [`GetPromptResult`], and `Result<T, E>` with `E: Into<PromptError>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[prompt]",
    label = "this return type does not implement `IntoPromptResult`",
    note = "return a `String`, `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or `Result<T, PromptError>`"
)]
pub trait IntoPromptResult {
    /// The result.
    ///
    /// # Errors
    ///
    /// The handler's own failure.
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(
            TextContent::new(self),
        )]))
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        self.to_owned().into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: Into<PromptError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        match self {
            Ok(v) => v.into_prompt_result(),
            Err(e) => Err(HandlerError::from(e.into())),
        }
    }
}

/// Converts a completion handler's return value into completion values.
///
/// Implemented for `Vec<String>`, `Vec<&str>` and `Result<T, E>` with `E: Display`
/// (an error answers with no values: completion is a hint, never a failure the user sees).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[completion]",
    label = "this return type does not implement `IntoCompletion`",
    note = "return `Vec<String>` (at most 100 are sent; `hasMore` tells the client there were more)"
)]
pub trait IntoCompletion {
    /// The candidate values.
    fn into_completion(self) -> Vec<String>;
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Vec<String> {
        self
    }
}

impl IntoCompletion for Vec<&str> {
    fn into_completion(self) -> Vec<String> {
        self.into_iter().map(str::to_owned).collect()
    }
}

impl<T: IntoCompletion, E: fmt::Display> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Vec<String> {
        match self {
            Ok(v) => v.into_completion(),
            Err(e) => {
                tracing::debug!(error = %e, "completion handler failed; answering with no values");
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_results_from_plain_values() {
        let r = "hi".into_tool_result().unwrap();
        assert_eq!(r.content[0].as_text(), Some("hi"));
        assert_eq!(r.is_error, None);

        let r: Result<String, std::io::Error> = Err(std::io::Error::other("disk on fire"));
        let r = r.into_tool_result().unwrap();
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.content[0].as_text(), Some("disk on fire"));

        let r = Json(serde_json::json!({"a": 1}))
            .into_tool_result()
            .unwrap();
        assert_eq!(r.structured_content, Some(serde_json::json!({"a": 1})));
        assert_eq!(r.content[0].as_text(), Some(r#"{"a":1}"#));
    }

    #[test]
    fn plain_values_are_text_and_a_wrapped_result() {
        let r = true.into_tool_result().unwrap();
        assert_eq!(r.content[0].as_text(), Some("true"));
        assert_eq!(
            r.structured_content,
            Some(serde_json::json!({"result": true}))
        );
        let r = (-3_i8).into_tool_result().unwrap();
        assert_eq!(
            r.structured_content,
            Some(serde_json::json!({"result": -3}))
        );

        let nan = f64::NAN.into_tool_result().unwrap();
        assert_eq!(nan.is_error, Some(true));
        assert!(nan.content[0].as_text().unwrap().contains("NaN"));
        assert_eq!(nan.structured_content, None);

        let schema = u8::output_schema().unwrap();
        assert_eq!(schema["required"], serde_json::json!(["result"]));
        assert_eq!(schema["properties"]["result"]["maximum"], 255);
        assert!(String::output_schema().is_none());
        assert!(<Result<(), String>>::output_schema().is_none());
    }

    #[test]
    fn option_makes_the_schema_accept_an_empty_object() {
        let schema = <Option<Json<serde_json::Value>>>::output_schema().unwrap();
        assert!(schema.get("required").is_none());
        let none: Option<bool> = None;
        let r = none.into_tool_result().unwrap();
        assert!(r.content.is_empty());
        assert_eq!(r.structured_content, Some(serde_json::json!({})));
        let none: Option<String> = None;
        assert_eq!(none.into_tool_result().unwrap().structured_content, None);
        assert!(
            <Option<bool>>::output_schema()
                .unwrap()
                .get("required")
                .is_none()
        );
    }

    #[test]
    fn read_results_default_their_mime_type() {
        let r = "x".into_read_result("a://b", None).unwrap();
        assert_eq!(r.contents[0].mime_type(), Some("text/plain"));
        let r = vec![1u8, 2]
            .into_read_result("a://b", Some("image/png"))
            .unwrap();
        assert_eq!(r.contents[0].mime_type(), Some("image/png"));
        let r: Result<String, ResourceError> = Err(ResourceError::NotFound);
        assert_eq!(
            r.into_read_result("a://b", None).unwrap_err(),
            HandlerError::ResourceNotFound
        );
    }

    #[test]
    fn prompt_errors_map_to_invalid_params() {
        let r: Result<String, PromptError> = Err(PromptError::invalid_argument("missing `id`"));
        let HandlerError::Rpc(e) = r.into_prompt_result().unwrap_err() else {
            panic!()
        };
        assert_eq!(e.code, mcp_core::error::ErrorCode::INVALID_PARAMS);
    }
}
