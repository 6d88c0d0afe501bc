//! [`IntoToolResult`]: what a `#[tool]` may return.

use super::*;

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
/// - `Result<T, E>` where `E: Display + 'static`: an `Err` becomes an `isError: true` result
///   carrying the error's text, which the model can read and act on; an `Err` of
///   [`ErrorObject`] is instead answered as that JSON-RPC error (code, message and data).
///
/// The `#[tool]` macro publishes [`output_schema`](Self::output_schema) of the declared
/// return type, so a type alias or a re-export behaves like the type it names.
///
/// # Examples
///
/// ```
/// use ferromcp::IntoToolResult;
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

// `#[inline]`: the impls are concrete, so without it each number type's result and schema
// code would be compiled into this crate whether a server returns that type or not.
macro_rules! plain_value_into_tool_result {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            #[inline]
            fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
                wrapped(&self)
            }

            #[inline]
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
            #[inline]
            fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
                if self.is_finite() {
                    wrapped(&self)
                } else {
                    Ok(CallToolResult::error(format!(
                        "the tool computed {self}, which JSON cannot represent"
                    )))
                }
            }

            #[inline]
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

impl<T: IntoToolResult, E: fmt::Display + 'static> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => tool_error(&e),
        }
    }

    fn output_schema() -> Option<JSONObject> {
        T::output_schema()
    }
}

/// An [`ErrorObject`] as the JSON-RPC error it is; any other error as an `isError: true`
/// result carrying its text, for the model to read.
fn tool_error<E: fmt::Display + 'static>(error: &E) -> Result<CallToolResult, ErrorObject> {
    match (error as &dyn std::any::Any).downcast_ref::<ErrorObject>() {
        Some(e) => Err(e.clone()),
        None => Ok(CallToolResult::error(error.to_string())),
    }
}
