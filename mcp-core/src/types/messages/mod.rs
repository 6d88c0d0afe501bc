//! The unions of all messages each side sends, across every revision.
//!
//! - [`ClientRequest`], [`ServerRequest`], [`ClientNotification`] and
//!   [`ServerNotification`] have one variant per typed message. Deserialization reads
//!   `method` first and then parses the one type that method names, so a malformed message
//!   reports the error of its own type; an unknown method is an error naming the known ones.
//! - [`ClientResult`] and [`ServerResult`] have no discriminator on the wire. Deserialization
//!   picks the variant from the members present (an `input_required` `resultType` first,
//!   then a member only one result type requires, e.g. `tools` → [`ListToolsResult`]) and
//!   falls back to the empty result. When the request is known, parse its own result type
//!   instead ([`McpRequest::Result`](crate::types::McpRequest::Result)).
//!
//! A union holds every message of every revision; which of them a given revision allows is
//! for the engine to check.
//!
//! # Examples
//!
//! ```
//! use ferromcp_core::types::{ClientRequest, ServerResult};
//!
//! let req: ClientRequest = serde_json::from_str(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#,
//! ).unwrap();
//! assert_eq!(req.method(), "tools/call");
//! assert!(matches!(req, ClientRequest::CallTool(_)));
//!
//! let res: ServerResult = serde_json::from_str(r#"{"tools":[]}"#).unwrap();
//! assert!(matches!(res, ServerResult::ListTools(_)));
//! let res: ServerResult = serde_json::from_str(r#"{}"#).unwrap();
//! assert!(matches!(res, ServerResult::Empty(_)));
//! ```

mod methods;
mod results;

pub use methods::{ClientNotification, ClientRequest, ServerNotification, ServerRequest};
pub use results::{ClientResult, ServerResult};

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde_json::Value;

    use super::*;

    /// Shared by the tests of every messages module: deserializes `v`, checks that it
    /// serializes back unchanged, and returns the typed value.
    pub(super) fn round_trip<T: Serialize + serde::de::DeserializeOwned>(v: Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
        t
    }

    /// Every official 2026 message example parses as its own variant of the union it
    /// belongs to, and serializes back unchanged.
    #[test]
    fn official_examples_parse_as_their_own_variant() {
        fn check<T: Serialize + serde::de::DeserializeOwned + std::fmt::Debug>(
            folder: &str,
            variant: &str,
        ) -> usize {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../spec/2026-07-28/examples")
                .join(folder);
            let mut n = 0;
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let v: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                let t: T = round_trip(v);
                let got = format!("{t:?}");
                assert!(
                    got.starts_with(&format!("{variant}(")),
                    "{}: {got}",
                    path.display()
                );
                n += 1;
            }
            n
        }
        let mut n = 0;
        for (folder, variant) in [
            ("CallToolRequest", "CallTool"),
            ("CompleteRequest", "Complete"),
            ("DiscoverRequest", "Discover"),
            ("GetPromptRequest", "GetPrompt"),
            ("ListPromptsRequest", "ListPrompts"),
            ("ListResourceTemplatesRequest", "ListResourceTemplates"),
            ("ListResourcesRequest", "ListResources"),
            ("ListToolsRequest", "ListTools"),
            ("ReadResourceRequest", "ReadResource"),
            ("SubscriptionsListenRequest", "SubscriptionsListen"),
        ] {
            n += check::<ClientRequest>(folder, variant);
        }
        for (folder, variant) in [
            ("CreateMessageRequest", "CreateMessage"),
            ("ElicitRequest", "Elicit"),
            ("ListRootsRequest", "ListRoots"),
        ] {
            n += check::<ServerRequest>(folder, variant);
        }
        n += check::<ClientNotification>("CancelledNotification", "Cancelled");
        for (folder, variant) in [
            ("CancelledNotification", "Cancelled"),
            ("LoggingMessageNotification", "LoggingMessage"),
            ("ProgressNotification", "Progress"),
            ("PromptListChangedNotification", "PromptListChanged"),
            ("ResourceListChangedNotification", "ResourceListChanged"),
            ("ResourceUpdatedNotification", "ResourceUpdated"),
            (
                "SubscriptionsAcknowledgedNotification",
                "SubscriptionsAcknowledged",
            ),
            ("ToolListChangedNotification", "ToolListChanged"),
        ] {
            n += check::<ServerNotification>(folder, variant);
        }
        for (folder, variant) in [
            ("CallToolResult", "CallTool"),
            ("CompleteResult", "Complete"),
            ("DiscoverResult", "Discover"),
            ("GetPromptResult", "GetPrompt"),
            ("InputRequiredResult", "InputRequired"),
            ("ListPromptsResult", "ListPrompts"),
            ("ListResourceTemplatesResult", "ListResourceTemplates"),
            ("ListResourcesResult", "ListResources"),
            ("ListToolsResult", "ListTools"),
            ("ReadResourceResult", "ReadResource"),
            ("SubscriptionsListenResult", "SubscriptionsListen"),
        ] {
            n += check::<ServerResult>(folder, variant);
        }
        for (folder, variant) in [
            ("CreateMessageResult", "CreateMessage"),
            ("ElicitResult", "Elicit"),
            ("ListRootsResult", "ListRoots"),
        ] {
            n += check::<ClientResult>(folder, variant);
        }
        assert_eq!(n, 46);
    }
}
