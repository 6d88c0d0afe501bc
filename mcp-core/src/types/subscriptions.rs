//! 2026 subscriptions: the client opens one long-lived `subscriptions/listen` request and the
//! server streams the notifications it asked for, each tagged with the listen request's id.

use serde::{Deserialize, Serialize};

use crate::types::{
    Implementation, JSONObject, NotificationMetaObject, RequestId, RequestMetaObject, ResultType,
};

/// Which notifications a `subscriptions/listen` stream carries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// Send `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// Send `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// Send `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// Send `notifications/resources/updated` for these resource URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2026: opens a notification stream; the server answers only when it closes the stream.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriptionsListenRequest {
    /// The request id; it also tags every notification of the stream.
    pub id: RequestId,
    /// The envelope and the wanted notifications.
    pub params: SubscriptionsListenRequestParams,
}

request!(
    SubscriptionsListenRequest,
    "subscriptions/listen",
    SubscriptionsListenRequestParams => SubscriptionsListenResult
);

/// Params of `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenRequestParams {
    /// The 2026 per-request envelope (required).
    #[serde(rename = "_meta")]
    pub meta: RequestMetaObject,
    /// The notifications the client wants.
    pub notifications: SubscriptionFilter,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl SubscriptionsListenRequestParams {
    /// Params asking for `notifications` under the envelope `meta`.
    pub fn new(meta: RequestMetaObject, notifications: SubscriptionFilter) -> Self {
        SubscriptionsListenRequestParams {
            meta,
            notifications,
            extra: JSONObject::new(),
        }
    }
}

/// 2026: the answer that closes a `subscriptions/listen` stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// Names the stream that closed (required).
    #[serde(rename = "_meta")]
    pub meta: SubscriptionsListenResultMetaObject,
    /// Always set on the wire (`"complete"`); see [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(SubscriptionsListenResult);

impl SubscriptionsListenResult {
    /// The result closing the stream opened by request `subscription_id`.
    pub fn new(subscription_id: RequestId) -> Self {
        SubscriptionsListenResult {
            meta: SubscriptionsListenResultMetaObject::new(subscription_id),
            result_type: Some(ResultType::Complete),
            extra: JSONObject::new(),
        }
    }
}

/// The `_meta` of a [`SubscriptionsListenResult`]: the stream's id and the server's
/// self-description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenResultMetaObject {
    /// The server's self-description.
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<Implementation>,
    /// The id of the `subscriptions/listen` request whose stream closed.
    #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
    pub subscription_id: RequestId,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl SubscriptionsListenResultMetaObject {
    /// Metadata naming the stream `subscription_id`, without server info.
    pub fn new(subscription_id: RequestId) -> Self {
        SubscriptionsListenResultMetaObject {
            server_info: None,
            subscription_id,
            extra: JSONObject::new(),
        }
    }
}

/// 2026: the JSON-RPC response carrying a [`SubscriptionsListenResult`].
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriptionsListenResultResponse {
    /// The id of the listen request answered.
    pub id: RequestId,
    /// The closing result.
    pub result: SubscriptionsListenResult,
}

result_response!(SubscriptionsListenResultResponse, SubscriptionsListenResult);

/// 2026: the first message of a stream: the server confirms which notifications it will
/// send (possibly fewer than asked for).
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriptionsAcknowledgedNotification {
    /// The accepted filter.
    pub params: SubscriptionsAcknowledgedNotificationParams,
}

notification!(
    SubscriptionsAcknowledgedNotification,
    "notifications/subscriptions/acknowledged",
    SubscriptionsAcknowledgedNotificationParams
);

/// Params of `notifications/subscriptions/acknowledged`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// Notification metadata: the subscription id of the stream.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
    /// The notifications the server will send.
    pub notifications: SubscriptionFilter,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl SubscriptionsAcknowledgedNotificationParams {
    /// Params acknowledging `notifications` on the stream `subscription_id`.
    pub fn new(subscription_id: RequestId, notifications: SubscriptionFilter) -> Self {
        SubscriptionsAcknowledgedNotificationParams {
            meta: Some(NotificationMetaObject {
                subscription_id: Some(subscription_id),
                extra: JSONObject::new(),
            }),
            notifications,
            extra: JSONObject::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::types::WireResult;
    use serde_json::{Value, json};

    fn round_trip<T: serde::de::DeserializeOwned + Serialize>(v: &Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&t).unwrap(), v);
        t
    }

    #[test]
    fn listen_request_round_trip() {
        let req: SubscriptionsListenRequest = round_trip(&json!({
            "jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
            "params": {
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}},
                "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["file:///c"]}
            }
        }));
        assert_eq!(req.params.notifications.tools_list_changed, Some(true));
        assert_eq!(
            req.params.meta.protocol_version.as_deref(),
            Some("2026-07-28")
        );
        // `_meta` and `notifications` are required.
        assert!(
            serde_json::from_value::<SubscriptionsListenRequestParams>(
                json!({"notifications": {}})
            )
            .is_err()
        );
        assert!(
            serde_json::from_value::<SubscriptionsListenRequestParams>(json!({"_meta": {}}))
                .is_err()
        );
    }

    #[test]
    fn listen_result_and_response() {
        let resp: SubscriptionsListenResultResponse = round_trip(&json!({
            "jsonrpc": "2.0", "id": "listen-1",
            "result": {"resultType": "complete", "_meta": {
                "io.modelcontextprotocol/subscriptionId": "listen-1",
                "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"},
                "other": true}}
        }));
        assert_eq!(
            resp.result.meta.subscription_id,
            RequestId::from("listen-1")
        );
        assert_eq!(resp.result.meta.extra.get("other"), Some(&json!(true)));
        assert!(
            serde_json::from_value::<SubscriptionsListenResult>(
                json!({"resultType": "complete", "_meta": {}})
            )
            .is_err()
        );

        let mut r = SubscriptionsListenResult::new(RequestId::Number(4));
        r.result_type = None;
        r.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": 4}})
        );
    }

    #[test]
    fn acknowledged_round_trip() {
        let n: SubscriptionsAcknowledgedNotification = round_trip(&json!({
            "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"},
                "notifications": {"promptsListChanged": false, "resourcesListChanged": true}}
        }));
        let built = SubscriptionsAcknowledgedNotificationParams::new(
            "listen-1".into(),
            SubscriptionFilter {
                prompts_list_changed: Some(false),
                resources_list_changed: Some(true),
                ..Default::default()
            },
        );
        assert_eq!(n.params, built);
    }
}
