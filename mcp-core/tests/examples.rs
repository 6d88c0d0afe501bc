//! Every official 2026-07-28 example message deserializes into the type named by its folder
//! and serializes back to an equal JSON value, numbers in the form they were written.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod support;

use std::path::Path;

use ferromcp_core::types;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use support::{json_eq, spec_dir};

fn round_trip<T: DeserializeOwned + Serialize>(json: &Value) -> Result<(), String> {
    let typed: T = serde_json::from_value(json.clone()).map_err(|e| format!("deserialize: {e}"))?;
    let back = serde_json::to_value(&typed).map_err(|e| format!("serialize: {e}"))?;
    if json_eq(json, &back) {
        Ok(())
    } else {
        Err(format!(
            "round trip changed the message\n  file: {json}\n  back: {back}"
        ))
    }
}

macro_rules! by_name {
    ($name:expr, $json:expr; $($ty:ident),* $(,)?) => {
        match $name {
            $(stringify!($ty) => round_trip::<types::$ty>($json),)*
            other => Err(format!("no type named `{other}` in ferromcp_core::types")),
        }
    };
}

fn check(type_name: &str, json: &Value) -> Result<(), String> {
    by_name!(type_name, json;
        AudioContent, BlobResourceContents, BooleanSchema, CallToolRequest, CallToolRequestParams,
        CallToolResult, CallToolResultResponse, CancelledNotification, CancelledNotificationParams,
        ClientCapabilities, CompleteRequest, CompleteRequestParams, CompleteResult,
        CompleteResultResponse, CreateMessageRequest, CreateMessageRequestParams,
        CreateMessageResult, DiscoverRequest, DiscoverResult, DiscoverResultResponse,
        ElicitRequest, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult,
        EmbeddedResource, GetPromptRequest, GetPromptRequestParams, GetPromptResult,
        GetPromptResultResponse, HeaderMismatchError, ImageContent, InputRequests,
        InputRequiredResult, InputResponses, InternalError, InvalidParamsError,
        ListPromptsRequest, ListPromptsResult, ListPromptsResultResponse,
        ListResourceTemplatesRequest, ListResourceTemplatesResult,
        ListResourceTemplatesResultResponse, ListResourcesRequest, ListResourcesResult,
        ListResourcesResultResponse, ListRootsRequest, ListRootsResult, ListToolsRequest,
        ListToolsResult, ListToolsResultResponse, LoggingMessageNotification,
        LoggingMessageNotificationParams, MethodNotFoundError,
        MissingRequiredClientCapabilityError, ModelPreferences, NumberSchema,
        PaginatedRequestParams, ParseError, ProgressNotification, ProgressNotificationParams,
        PromptListChangedNotification, ReadResourceRequest, ReadResourceResult,
        ReadResourceResultResponse, Resource, ResourceLink, ResourceListChangedNotification,
        ResourceUpdatedNotification, ResourceUpdatedNotificationParams, Root, SamplingMessage,
        ServerCapabilities, StringSchema, SubscriptionsAcknowledgedNotification,
        SubscriptionsListenRequest, SubscriptionsListenResult, SubscriptionsListenResultResponse,
        TextContent, TextResourceContents, TitledMultiSelectEnumSchema,
        TitledSingleSelectEnumSchema, Tool, ToolListChangedNotification, ToolResultContent,
        ToolUseContent, UnsupportedProtocolVersionError, UntitledMultiSelectEnumSchema,
        UntitledSingleSelectEnumSchema,
    )
}

#[test]
fn every_official_2026_example_round_trips_through_its_type() {
    let root = spec_dir().join("2026-07-28/examples");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    assert_eq!(
        files.len(),
        129,
        "the official example set has 129 messages"
    );

    let mut failures = Vec::new();
    for file in &files {
        let type_name = file
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .expect("example folder name");
        let text = std::fs::read_to_string(file).expect("readable example");
        let json: Value = serde_json::from_str(&text).expect("example is JSON");
        if let Err(e) = check(type_name, &json) {
            failures.push(format!(
                "{}: {e}",
                file.strip_prefix(&root).unwrap().display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("examples folder") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}
