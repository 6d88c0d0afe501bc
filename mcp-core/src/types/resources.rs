//! Resources: the data a server exposes by URI, its templates, reading, and (legacy)
//! per-resource subscriptions.

use serde::{Deserialize, Serialize};

use crate::types::{
    Annotations, CacheScope, Cursor, EmptyResult, Icon, InputResponses, JSONObject, MetaObject,
    MrtrResult, NotificationMetaObject, NotificationParams, PaginatedRequestParams, RequestId,
    RequestMetaObject, ResultMetaObject, ResultType, TextOrBlobResourceContents,
};

/// A resource a server can be asked to read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Where the resource lives.
    pub uri: String,
    /// The programmatic name.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource holds, for a model or a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of its contents, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints about audience, priority and freshness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// The raw size in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons to show for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl Resource {
    /// A resource with just a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            ..Default::default()
        }
    }
}

/// A family of resources named by an RFC 6570 URI template.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// The URI template that expands to the URIs of the resources.
    pub uri_template: String,
    /// The programmatic name.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type shared by all matching resources, if they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints about audience, priority and freshness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons to show for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ResourceTemplate {
    /// A template with just a URI template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            ..Default::default()
        }
    }
}

/// Asks for a page of the server's resources.
#[derive(Debug, Clone, PartialEq)]
pub struct ListResourcesRequest {
    /// The request id.
    pub id: RequestId,
    /// The cursor and metadata (absent allowed before 2026).
    pub params: Option<PaginatedRequestParams>,
}

request!(ListResourcesRequest, "resources/list", optional PaginatedRequestParams => ListResourcesResult);

/// A page of resources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// 2026: always set on the wire; see [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The resources of this page.
    pub resources: Vec<Resource>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// 2026: how long, in milliseconds, the client may cache the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// 2026: who may share the cached page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(ListResourcesResult, cacheable, each resources);

impl ListResourcesResult {
    /// A page holding `resources`, with no next cursor.
    pub fn new(resources: Vec<Resource>) -> Self {
        ListResourcesResult {
            resources,
            ..Default::default()
        }
    }
}

/// 2026: the JSON-RPC response carrying a [`ListResourcesResult`].
#[derive(Debug, Clone, PartialEq)]
pub struct ListResourcesResultResponse {
    /// The id of the request answered.
    pub id: RequestId,
    /// The page.
    pub result: ListResourcesResult,
}

result_response!(ListResourcesResultResponse, ListResourcesResult);

/// Asks for a page of the server's resource templates.
#[derive(Debug, Clone, PartialEq)]
pub struct ListResourceTemplatesRequest {
    /// The request id.
    pub id: RequestId,
    /// The cursor and metadata (absent allowed before 2026).
    pub params: Option<PaginatedRequestParams>,
}

request!(
    ListResourceTemplatesRequest,
    "resources/templates/list",
    optional PaginatedRequestParams => ListResourceTemplatesResult
);

/// A page of resource templates.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// 2026: always set on the wire; see [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The templates of this page.
    pub resource_templates: Vec<ResourceTemplate>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// 2026: how long, in milliseconds, the client may cache the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// 2026: who may share the cached page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(ListResourceTemplatesResult, cacheable, each resource_templates);

impl ListResourceTemplatesResult {
    /// A page holding `resource_templates`, with no next cursor.
    pub fn new(resource_templates: Vec<ResourceTemplate>) -> Self {
        ListResourceTemplatesResult {
            resource_templates,
            ..Default::default()
        }
    }
}

/// 2026: the JSON-RPC response carrying a [`ListResourceTemplatesResult`].
#[derive(Debug, Clone, PartialEq)]
pub struct ListResourceTemplatesResultResponse {
    /// The id of the request answered.
    pub id: RequestId,
    /// The page.
    pub result: ListResourceTemplatesResult,
}

result_response!(
    ListResourceTemplatesResultResponse,
    ListResourceTemplatesResult
);

/// Asks for the contents of a resource.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadResourceRequest {
    /// The request id.
    pub id: RequestId,
    /// Which resource.
    pub params: ReadResourceRequestParams,
}

request!(ReadResourceRequest, "resources/read", ReadResourceRequestParams => ReadResourceResult);

/// Params of `resources/read`. In 2026 a read may take several round trips: a retry carries
/// the client's answers (`inputResponses`) and the server's opaque `requestState`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceRequestParams {
    /// Request metadata (required in 2026).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// The URI of the resource to read.
    pub uri: String,
    /// 2026: the client's answers to the input requests of the previous attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// 2026: the state the server returned with its input requests, echoed back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ReadResourceRequestParams {
    /// Params reading `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ReadResourceRequestParams {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// The contents of a resource (one item, or several for a resource with parts).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// 2026: always set on the wire; see [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The contents, as text or as base64 binary.
    pub contents: Vec<TextOrBlobResourceContents>,
    /// 2026: how long, in milliseconds, the client may cache the contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// 2026: who may share the cached contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(ReadResourceResult, cacheable, each contents);

impl ReadResourceResult {
    /// A result holding `contents`.
    pub fn new(contents: Vec<TextOrBlobResourceContents>) -> Self {
        ReadResourceResult {
            contents,
            ..Default::default()
        }
    }
}

/// 2026: the JSON-RPC response to `resources/read`: the contents, or a request for input.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadResourceResultResponse {
    /// The id of the request answered.
    pub id: RequestId,
    /// The contents, or the input the server needs first.
    pub result: MrtrResult<ReadResourceResult>,
}

result_response!(ReadResourceResultResponse, MrtrResult<ReadResourceResult>);

/// The params shape shared by requests about one resource: its URI.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceRequestParams {
    /// Request metadata (required in 2026).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// The URI of the resource.
    pub uri: String,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// Legacy (up to 2025-11-25): asks to be told when a resource changes. In 2026 this is part
/// of `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscribeRequest {
    /// The request id.
    pub id: RequestId,
    /// Which resource.
    pub params: SubscribeRequestParams,
}

request!(SubscribeRequest, "resources/subscribe", SubscribeRequestParams => EmptyResult);

/// Params of `resources/subscribe`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscribeRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// The URI of the resource to watch.
    pub uri: String,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl SubscribeRequestParams {
    /// Params watching `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        SubscribeRequestParams {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// Legacy (up to 2025-11-25): cancels an earlier `resources/subscribe`.
#[derive(Debug, Clone, PartialEq)]
pub struct UnsubscribeRequest {
    /// The request id.
    pub id: RequestId,
    /// Which resource.
    pub params: UnsubscribeRequestParams,
}

request!(UnsubscribeRequest, "resources/unsubscribe", UnsubscribeRequestParams => EmptyResult);

/// Params of `resources/unsubscribe`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UnsubscribeRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// The URI of the resource to stop watching.
    pub uri: String,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl UnsubscribeRequestParams {
    /// Params no longer watching `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        UnsubscribeRequestParams {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// Tells a subscriber that a resource changed and may be read again.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceUpdatedNotification {
    /// Which resource.
    pub params: ResourceUpdatedNotificationParams,
}

notification!(
    ResourceUpdatedNotification,
    "notifications/resources/updated",
    ResourceUpdatedNotificationParams
);

/// Params of `notifications/resources/updated`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceUpdatedNotificationParams {
    /// Notification metadata (in 2026, the subscription stream it belongs to).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
    /// The URI of the changed resource (possibly a sub-resource of the one subscribed to).
    pub uri: String,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ResourceUpdatedNotificationParams {
    /// Params announcing a change to `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceUpdatedNotificationParams {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// Tells the client that the set of resources (or templates) changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceListChangedNotification {
    /// Metadata only; may be absent.
    pub params: Option<NotificationParams>,
}

notification!(
    ResourceListChangedNotification,
    "notifications/resources/list_changed",
    optional NotificationParams
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::types::{CacheHints, Cacheable, WireResult};
    use serde_json::{Value, json};

    fn round_trip<T: serde::de::DeserializeOwned + Serialize>(v: &Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&t).unwrap(), v);
        t
    }

    #[test]
    fn legacy_list_round_trips() {
        let req: ListResourcesRequest =
            round_trip(&json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list"}));
        assert!(req.params.is_none());
        round_trip::<ListResourcesRequest>(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list", "params": {"cursor": "c"}}),
        );
        let res: ListResourcesResult = round_trip(&json!({
            "resources": [{"uri": "file:///a", "name": "a", "description": "d", "size": 12,
                "annotations": {"audience": ["user"]}, "x-custom": [1]}],
            "nextCursor": "n", "_meta": {"k": 1}
        }));
        assert_eq!(res.resources[0].size, Some(12));
        assert_eq!(res.resources[0].extra.get("x-custom"), Some(&json!([1])));
        round_trip::<ListResourceTemplatesResult>(&json!({
            "resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "files"}]
        }));
    }

    #[test]
    fn modern_read_round_trips() {
        let req: ReadResourceRequest = round_trip(&json!({
            "jsonrpc": "2.0", "id": "r", "method": "resources/read",
            "params": {
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}},
                "uri": "file:///a",
                "requestState": "abc"
            }
        }));
        assert_eq!(req.params.uri, "file:///a");
        assert_eq!(req.params.request_state.as_deref(), Some("abc"));

        let resp: ReadResourceResultResponse = round_trip(&json!({
            "jsonrpc": "2.0", "id": "r",
            "result": {"resultType": "complete", "ttlMs": 5, "cacheScope": "public",
                "contents": [{"uri": "file:///a", "text": "hi"}, {"uri": "file:///b", "blob": "AA=="}]}
        }));
        let MrtrResult::Complete(r) = &resp.result else {
            panic!("expected complete")
        };
        assert_eq!(r.contents.len(), 2);
        assert_eq!(r.ttl_ms, Some(5));

        let input: ReadResourceResultResponse = round_trip(&json!({
            "jsonrpc": "2.0", "id": "r",
            "result": {"resultType": "input_required", "requestState": "s"}
        }));
        assert!(matches!(input.result, MrtrResult::InputRequired(_)));
    }

    #[test]
    fn era_preparation() {
        let mut r = ListResourcesResult::new(vec![Resource::new("file:///a", "a")]);
        r.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"resultType": "complete", "resources": [{"uri": "file:///a", "name": "a"}],
                "ttlMs": 0, "cacheScope": "private"})
        );
        r.set_cache_hints(CacheHints {
            ttl_ms: 60_000,
            cache_scope: CacheScope::Public,
        });
        r.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(r.ttl_ms, Some(60_000));
        r.prepare_for(ProtocolVersion::V2025_06_18);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"resources": [{"uri": "file:///a", "name": "a"}]})
        );

        let mut t = ListResourceTemplatesResult::new(vec![]);
        t.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(t.cache_scope, Some(CacheScope::Private));
        let mut c = ReadResourceResult::new(vec![]);
        c.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(c.result_type, Some(ResultType::Complete));
        c.prepare_for(ProtocolVersion::V2025_11_25);
        assert_eq!(serde_json::to_value(&c).unwrap(), json!({"contents": []}));
    }

    #[test]
    fn subscriptions_and_notifications() {
        let s: SubscribeRequest = round_trip(&json!({
            "jsonrpc": "2.0", "id": 4, "method": "resources/subscribe", "params": {"uri": "file:///a"}
        }));
        assert_eq!(s.params.uri, "file:///a");
        round_trip::<UnsubscribeRequest>(&json!({
            "jsonrpc": "2.0", "id": 5, "method": "resources/unsubscribe", "params": {"uri": "file:///a"}
        }));
        assert!(
            serde_json::from_value::<SubscribeRequest>(json!({
                "jsonrpc": "2.0", "id": 4, "method": "resources/unsubscribe", "params": {"uri": "x"}
            }))
            .is_err()
        );
        let n: ResourceUpdatedNotification = round_trip(&json!({
            "jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}, "uri": "file:///a"}
        }));
        assert_eq!(
            n.params.meta.and_then(|m| m.subscription_id),
            Some(RequestId::from("listen-1"))
        );
        let lc: ResourceListChangedNotification = round_trip(
            &json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}),
        );
        assert!(lc.params.is_none());
        round_trip::<ResourceRequestParams>(
            &json!({"uri": "file:///a", "_meta": {"progressToken": 1}}),
        );
    }
}
