//! Results whose `_meta` the server fills (2026 `serverInfo` on every result, on list pages
//! too).

use mcp_core::types::{
    CallToolResult, CompleteResult, CreateTaskExtensionResult, CreateTaskResult,
    DetailedTaskResult, DiscoverResult, EmptyResult, GetPromptResult, GetTaskResult,
    InitializeResult, InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListTasksResult, ListToolsResult, ReadResourceResult, ResultMetaObject,
    WireResult,
};

/// A result with a `_meta` the server fills before sending it.
pub(crate) trait WithMeta: WireResult + serde::Serialize {
    fn meta_mut(&mut self) -> &mut Option<ResultMetaObject>;

    /// A tool result with `isError: true` (telemetry's `error.type = tool_error`).
    fn is_tool_error(&self) -> bool {
        false
    }
}

impl WithMeta for CallToolResult {
    fn meta_mut(&mut self) -> &mut Option<ResultMetaObject> {
        &mut self.meta
    }

    fn is_tool_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

// Only implementations: the trait is declared above, outside the macro.
macro_rules! with_meta {
    ($($ty:ty),*) => {$(
        impl WithMeta for $ty {
            fn meta_mut(&mut self) -> &mut Option<ResultMetaObject> {
                &mut self.meta
            }
        }
    )*};
}
with_meta!(
    ReadResourceResult,
    GetPromptResult,
    CompleteResult,
    DiscoverResult,
    EmptyResult,
    InputRequiredResult,
    InitializeResult,
    ListToolsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListPromptsResult,
    CreateTaskResult,
    GetTaskResult,
    ListTasksResult,
    CreateTaskExtensionResult,
    DetailedTaskResult
);
