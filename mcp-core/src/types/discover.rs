//! 2026 discovery: `server/discover` tells a client which protocol versions and capabilities
//! a server has, without the legacy `initialize` handshake.

use serde::{Deserialize, Serialize};

use crate::types::{
    CacheScope, JSONObject, RequestId, RequestParams, ResultMetaObject, ResultType,
    ServerCapabilities,
};

/// 2026: asks the server what it supports.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoverRequest {
    /// The request id.
    pub id: RequestId,
    /// The per-request envelope; no other params.
    pub params: RequestParams,
}

request!(DiscoverRequest, "server/discover", RequestParams => DiscoverResult);

/// 2026: what the server supports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Result metadata (the server's self-description).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Always set on the wire; see [`WireResult`](crate::types::WireResult).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The protocol versions the server speaks, as sent (a client may list versions this
    /// crate does not know).
    pub supported_versions: Vec<String>,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// Advice for the client or its model on how to use the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// How long, in milliseconds, the client may cache this answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may share the cached answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

wire_result!(DiscoverResult, cacheable);

impl DiscoverResult {
    /// A result announcing `supported_versions` and `capabilities`.
    pub fn new(supported_versions: Vec<String>, capabilities: ServerCapabilities) -> Self {
        DiscoverResult {
            supported_versions,
            capabilities,
            ..Default::default()
        }
    }
}

/// 2026: the JSON-RPC response carrying a [`DiscoverResult`].
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoverResultResponse {
    /// The id of the request answered.
    pub id: RequestId,
    /// The answer.
    pub result: DiscoverResult,
}

result_response!(DiscoverResultResponse, DiscoverResult);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::types::{Implementation, WireResult};
    use serde_json::{Value, json};

    fn round_trip<T: serde::de::DeserializeOwned + Serialize>(v: &Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&t).unwrap(), v);
        t
    }

    #[test]
    fn discover_round_trips() {
        let req: DiscoverRequest = round_trip(&json!({
            "jsonrpc": "2.0", "id": "discover-1", "method": "server/discover",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}
        }));
        assert!(req.params.meta.is_some());
        // params is required.
        assert!(
            serde_json::from_value::<DiscoverRequest>(
                json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"})
            )
            .is_err()
        );

        let resp: DiscoverResultResponse = round_trip(&json!({
            "jsonrpc": "2.0", "id": "discover-1",
            "result": {"resultType": "complete", "supportedVersions": ["2026-07-28", "2027-01-01"],
                "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "S", "version": "1"}},
                "instructions": "hi", "ttlMs": 3600000, "cacheScope": "public"}
        }));
        assert_eq!(resp.result.supported_versions.len(), 2);
        assert_eq!(resp.result.cache_scope, Some(CacheScope::Public));
    }

    #[test]
    fn prepare_fills_cache_hints() {
        let mut r = DiscoverResult::new(
            vec![ProtocolVersion::V2026_07_28.as_str().to_owned()],
            ServerCapabilities::default(),
        );
        r.meta = Some(ResultMetaObject {
            server_info: Some(Implementation::new("s", "1")),
            ..Default::default()
        });
        r.prepare_for(ProtocolVersion::V2026_07_28);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
                "ttlMs": 0, "cacheScope": "private"})
        );
    }
}
