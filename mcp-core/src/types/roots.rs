//! Roots: the directories or files a client lets a server work in, and how the server asks
//! for them.

use serde::{Deserialize, Serialize};

use crate::jsonrpc::JsonRpcVersion;
use crate::types::{
    JSONObject, MetaObject, NotificationParams, RequestId, RequestParams, ResultMetaObject,
};

/// A root: a URI (a `file://` URI in current revisions) the client exposes to the server.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// The URI of the root.
    pub uri: String,
    /// A display name for the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl Root {
    /// A root at `uri`, unnamed.
    pub fn new(uri: impl Into<String>) -> Self {
        Root {
            uri: uri.into(),
            ..Default::default()
        }
    }

    /// Sets the display name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// The server asks the client for its roots.
///
/// Up to 2025-11-25 this is a JSON-RPC request the server sends (`jsonrpc` and `id` set).
/// In 2026 it is an input request the server embeds in an
/// [`InputRequiredResult`](crate::types::InputRequiredResult): no `jsonrpc`, and usually no
/// `id`. Both members are therefore optional here and are written back only when present;
/// `method` is always written and checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListRootsRequest {
    /// `Some` when the value is (or was read as) a JSON-RPC message with `"jsonrpc": "2.0"`.
    pub jsonrpc: Option<JsonRpcVersion>,
    /// The request id, when there is one.
    pub id: Option<RequestId>,
    /// Metadata only; may be absent.
    pub params: Option<RequestParams>,
}

request!(ListRootsRequest, "roots/list", embedded optional RequestParams => ListRootsResult);

impl ListRootsRequest {
    /// A legacy JSON-RPC `roots/list` request with id `id`.
    pub fn new(id: impl Into<RequestId>) -> Self {
        ListRootsRequest {
            jsonrpc: Some(JsonRpcVersion),
            id: Some(id.into()),
            params: None,
        }
    }

    /// A 2026 input request (`{"method": "roots/list"}`), to put in an input-requests map.
    pub fn input_request() -> Self {
        ListRootsRequest::default()
    }
}

/// The client's roots.
///
/// The client produces this result, so it has no [`WireResult`](crate::types::WireResult)
/// preparation: no revision gives it `resultType` or caching fields (an incoming
/// `resultType` is kept in `extra`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// Result metadata (legacy revisions).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// The roots.
    pub roots: Vec<Root>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ListRootsResult {
    /// A result listing `roots`.
    pub fn new(roots: Vec<Root>) -> Self {
        ListRootsResult {
            roots,
            ..Default::default()
        }
    }
}

/// Legacy (up to 2025-11-25): the client tells the server its roots changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RootsListChangedNotification {
    /// Metadata only; may be absent.
    pub params: Option<NotificationParams>,
}

notification!(
    RootsListChangedNotification,
    "notifications/roots/list_changed",
    optional NotificationParams
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::McpRequest;
    use serde_json::{Value, json};

    fn round_trip<T: serde::de::DeserializeOwned + Serialize>(v: &Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&t).unwrap(), v);
        t
    }

    #[test]
    fn list_roots_request_shapes() {
        // Legacy JSON-RPC request, with and without params.
        let legacy: ListRootsRequest =
            round_trip(&json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}));
        assert_eq!(legacy, ListRootsRequest::new(9));
        round_trip::<ListRootsRequest>(&json!({
            "jsonrpc": "2.0", "id": 9, "method": "roots/list", "params": {"_meta": {"progressToken": 1}}
        }));
        // 2026 input request, and the official example (an id but no jsonrpc).
        let input: ListRootsRequest = round_trip(&json!({"method": "roots/list"}));
        assert_eq!(input, ListRootsRequest::input_request());
        let ex: ListRootsRequest =
            round_trip(&json!({"id": "list-roots-example", "method": "roots/list"}));
        assert!(ex.jsonrpc.is_none());
        assert_eq!(ListRootsRequest::METHOD, "roots/list");
        // Wrong method or wrong jsonrpc are refused.
        assert!(
            serde_json::from_value::<ListRootsRequest>(json!({"method": "roots/lst"})).is_err()
        );
        assert!(
            serde_json::from_value::<ListRootsRequest>(
                json!({"jsonrpc": "1.0", "method": "roots/list"})
            )
            .is_err()
        );
    }

    #[test]
    fn list_roots_result_and_notification() {
        let r: ListRootsResult = round_trip(&json!({
            "roots": [{"uri": "file:///home/u/p", "name": "P"}, {"uri": "file:///x", "_meta": {"a": 1}}],
            "_meta": {"k": "v"}
        }));
        assert_eq!(r.roots[0], Root::new("file:///home/u/p").with_name("P"));
        let n: RootsListChangedNotification =
            round_trip(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
        assert!(n.params.is_none());
        round_trip::<RootsListChangedNotification>(&json!({
            "jsonrpc": "2.0", "method": "notifications/roots/list_changed", "params": {"_meta": {"x": 1}}
        }));
    }
}
