//! [`IntoReadResult`], [`IntoPromptResult`] and [`IntoCompletion`]: what a `#[resource]`, a
//! `#[prompt]` and a `#[completion]` may return.

use super::*;

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
        let text = ferromcp_core::jsonrpc::to_string(&self.0).map_err(|e| {
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
/// messages, [`GetPromptResult`], and `Result<T, E>` with `E: Display`, as for tools: a
/// [`PromptError`] (or an [`ErrorObject`]) keeps its JSON-RPC error, any other error ends the
/// request with an internal error (-32603) carrying its text.
///
/// # Examples
///
/// ```
/// use ferromcp::IntoPromptResult;
///
/// let failed: Result<String, std::io::Error> = Err(std::io::Error::other("no template"));
/// let error = failed.into_prompt_result().unwrap_err();
/// let ferromcp::HandlerError::Rpc(e) = error else { panic!() };
/// assert_eq!(e.code, ferromcp::error::ErrorCode::INTERNAL_ERROR);
/// assert_eq!(e.message, "no template");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[prompt]",
    label = "this return type does not implement `IntoPromptResult`",
    note = "return a `String`, `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or `Result<T, E>` with `E: Display`"
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

impl<T: IntoPromptResult, E: fmt::Display + 'static> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        match self {
            Ok(v) => v.into_prompt_result(),
            Err(e) => Err(HandlerError::from(prompt_error(&e))),
        }
    }
}

/// A [`PromptError`] or an [`ErrorObject`] as it is; any other error as an internal error
/// with its text.
fn prompt_error<E: fmt::Display + 'static>(error: &E) -> PromptError {
    let any = error as &dyn std::any::Any;
    if let Some(e) = any.downcast_ref::<PromptError>() {
        return e.clone();
    }
    if let Some(e) = any.downcast_ref::<ErrorObject>() {
        return PromptError::Rpc(e.clone());
    }
    PromptError::internal(error)
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
