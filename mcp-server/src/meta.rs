//! Results whose `_meta` the server fills (2026 `serverInfo` on every result, on list pages
//! too).

use ferromcp_core::types::{
    CallToolResult, CompleteResult, CreateTaskExtensionResult, CreateTaskResult,
    DetailedTaskResult, DiscoverResult, EmptyResult, GetPromptResult, GetTaskResult,
    InitializeResult, InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListTasksResult, ListToolsResult, META_SERVER_INFO, ReadResourceResult,
    ResultMetaObject, WireResult,
};
use serde_json::value::RawValue;

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

/// A 2026 result as sent: its `_meta` (taken out of `result`, whose own `_meta` is then
/// absent) written first, then the result's members. The one way `serverInfo` is written,
/// for responses and for list pages alike.
#[derive(serde::Serialize)]
pub(crate) struct Modern<'a, R> {
    #[serde(rename = "_meta")]
    meta: ModernMeta<'a>,
    #[serde(flatten)]
    result: &'a R,
}

/// The `_meta` of a 2026 result: the server's self-description, then the handler's own
/// members.
struct ModernMeta<'a> {
    server_info: &'a RawValue,
    own: Option<&'a ResultMetaObject>,
}

impl serde::Serialize for ModernMeta<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let extra = self.own.map(|m| &m.extra);
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry(META_SERVER_INFO, self.server_info)?;
        // A `serverInfo` a handler put among the other members is not written twice.
        for (key, value) in extra.into_iter().flatten() {
            if key != META_SERVER_INFO {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

impl<'a, R: WithMeta> Modern<'a, R> {
    /// `result`, whose own `_meta` the caller took out (`own`), with `server_info` (the
    /// server's self-description as JSON, written once) and `own`'s members as its `_meta`.
    pub(crate) fn new(
        server_info: &'a RawValue,
        own: Option<&'a ResultMetaObject>,
        result: &'a R,
    ) -> Modern<'a, R> {
        Modern {
            meta: ModernMeta { server_info, own },
            result,
        }
    }
}

#[cfg(test)]
mod tests {
    use ferromcp_core::types::{
        CallToolResult, CompleteResult, DiscoverResult, EmptyResult, GetPromptResult,
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListTasksResult,
        ListToolsResult, META_SERVER_INFO, ReadResourceResult, ResultMetaObject,
    };
    use serde_json::json;
    use serde_json::value::RawValue;

    use super::{Modern, WithMeta};

    /// `result` as a 2026 response writes it, its own `_meta` taken out first.
    fn written<R: WithMeta>(mut result: R) -> String {
        let info = RawValue::from_string(r#"{"name":"s","version":"1"}"#.to_owned()).unwrap();
        let own = result.meta_mut().take();
        ferromcp_core::jsonrpc::to_string(&Modern::new(&info, own.as_ref(), &result)).unwrap()
    }

    #[test]
    fn a_modern_result_has_one_meta_with_the_server_info_and_the_handlers_members() {
        let mut meta = ResultMetaObject::default();
        meta.extra
            .insert("example.com/trace".to_owned(), json!("abc"));
        // A `serverInfo` of the handler's own is not the server's: not written, not twice.
        meta.extra
            .insert(META_SERVER_INFO.to_owned(), json!({"name": "forged"}));
        let mut result = CallToolResult::text("ok");
        result.meta = Some(meta);
        let text = written(result);
        assert_eq!(text.matches("\"_meta\"").count(), 1, "{text}");
        assert_eq!(text.matches(META_SERVER_INFO).count(), 1, "{text}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            json!({
                "_meta": {
                    META_SERVER_INFO: {"name": "s", "version": "1"},
                    "example.com/trace": "abc"
                },
                "content": [{"type": "text", "text": "ok"}]
            })
        );
    }

    #[test]
    fn every_result_without_a_meta_of_its_own_gets_exactly_one() {
        for text in [
            written(CallToolResult::default()),
            written(ReadResourceResult::default()),
            written(GetPromptResult::default()),
            written(CompleteResult::default()),
            written(DiscoverResult::default()),
            written(EmptyResult::default()),
            written(ListToolsResult::default()),
            written(ListResourcesResult::default()),
            written(ListResourceTemplatesResult::default()),
            written(ListPromptsResult::default()),
            written(ListTasksResult::default()),
        ] {
            assert_eq!(text.matches("\"_meta\"").count(), 1, "{text}");
            assert!(
                text.starts_with(
                    r#"{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}"#
                ),
                "{text}"
            );
        }
    }
}
