//! What handlers may return: the conversion traits from ordinary Rust values to tool results,
//! resource contents and prompt messages, and the error types handlers use.

use std::fmt;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::types::{
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
/// use ferromcp::{IntoToolResult, Json};
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
/// use ferromcp::{IntoToolResult, ToolError};
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

mod read;
mod tool;

pub use read::{IntoCompletion, IntoPromptResult, IntoReadResult};
pub use tool::IntoToolResult;

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
        assert_eq!(e.code, ferromcp_core::error::ErrorCode::INVALID_PARAMS);
    }
}
