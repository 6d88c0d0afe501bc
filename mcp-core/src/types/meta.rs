//! The `_meta` objects of requests, results and notifications: the keys the protocol
//! reserves in them, and the validation of the 2026 per-request envelope.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::rpc_error::ErrorObject;
use crate::types::{
    ClientCapabilities, Implementation, JSONObject, LoggingLevel, ProgressToken, RequestId,
};
use crate::version::{Era, ProtocolVersion};

/// `_meta` key of the protocol version a 2026 request speaks.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities a 2026 request declares.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's self-description on a 2026 request.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the log level a 2026 request opts in to.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server's self-description on a 2026 result.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key naming the `subscriptions/listen` stream a notification belongs to.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key of a request's progress token.
pub const META_PROGRESS_TOKEN: &str = "progressToken";

/// A `_meta` object with no reserved keys of its own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MetaObject(pub JSONObject);

impl MetaObject {
    /// The value at `key`, if any.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// Sets `key` to `value`, returning the previous value.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        self.0.insert(key.into(), value)
    }

    /// Whether the object has no keys.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The `_meta` of a request: the 2026 per-request envelope and the progress token.
///
/// In the legacy era all fields are optional; in the modern era `protocolVersion` and
/// `clientCapabilities` are required, which [`modern_envelope`](Self::modern_envelope)
/// checks.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RequestMetaObject {
    /// Asks for `notifications/progress` about this request, tagged with this token.
    #[serde(
        rename = "progressToken",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub progress_token: Option<ProgressToken>,
    /// 2026: the protocol version of this request (kept as sent, so an unsupported one can be
    /// reported back).
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol_version: Option<String>,
    /// 2026: the client's capabilities for this request (in an `Arc`: a server shares them
    /// with the request's context rather than copying them).
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_capabilities: Option<Arc<ClientCapabilities>>,
    /// 2026: the client's self-description.
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Arc<Implementation>>,
    /// 2026: the log level the client opts in to for this request; absent means no logs.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<LoggingLevel>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JSONObject,
}

// By hand rather than derived: the derive's `#[serde(flatten)]` for `extra` buffers every
// member of the object into serde's intermediate tree before sorting them out, which costs
// a 2026 request (whose `_meta` carries the client's capabilities and info) several thousand
// instructions. This visits each member once; unknown ones go to `extra` as they come.
impl<'de> Deserialize<'de> for RequestMetaObject {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MetaVisitor;

        impl<'de> serde::de::Visitor<'de> for MetaVisitor {
            type Value = RequestMetaObject;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a `_meta` object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RequestMetaObject, A::Error> {
                fn once<T, E: serde::de::Error>(
                    slot: &mut Option<Option<T>>,
                    key: &'static str,
                    value: Option<T>,
                ) -> Result<(), E> {
                    if slot.is_some() {
                        return Err(E::duplicate_field(key));
                    }
                    *slot = Some(value);
                    Ok(())
                }
                let (mut progress, mut version, mut caps, mut info, mut level) =
                    (None, None, None, None, None);
                let mut extra = JSONObject::default();
                while let Some(key) = map.next_key::<MetaKey>()? {
                    match key {
                        MetaKey::ProgressToken => {
                            once(&mut progress, "progressToken", map.next_value()?)?
                        }
                        MetaKey::ProtocolVersion => {
                            once(&mut version, PROTOCOL_VERSION_KEY, map.next_value()?)?
                        }
                        // Read as themselves and then moved into an `Arc`: serde's own
                        // `Arc` reading goes through a `Box`, one more allocation and copy.
                        MetaKey::ClientCapabilities => once(
                            &mut caps,
                            CLIENT_CAPABILITIES_KEY,
                            map.next_value::<Option<ClientCapabilities>>()?
                                .map(Arc::new),
                        )?,
                        MetaKey::ClientInfo => once(
                            &mut info,
                            CLIENT_INFO_KEY,
                            map.next_value::<Option<Implementation>>()?.map(Arc::new),
                        )?,
                        MetaKey::LogLevel => once(&mut level, LOG_LEVEL_KEY, map.next_value()?)?,
                        MetaKey::Other(key) => {
                            extra.insert(key, map.next_value::<Value>()?);
                        }
                    }
                }
                Ok(RequestMetaObject {
                    progress_token: progress.flatten(),
                    protocol_version: version.flatten(),
                    client_capabilities: caps.flatten(),
                    client_info: info.flatten(),
                    log_level: level.flatten(),
                    extra,
                })
            }
        }

        deserializer.deserialize_map(MetaVisitor)
    }
}

/// A member name of a request's `_meta`: a known one without an allocation.
enum MetaKey {
    ProgressToken,
    ProtocolVersion,
    ClientCapabilities,
    ClientInfo,
    LogLevel,
    Other(String),
}

impl<'de> Deserialize<'de> for MetaKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;

        impl serde::de::Visitor<'_> for KeyVisitor {
            type Value = MetaKey;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member name")
            }

            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<MetaKey, E> {
                Ok(match key {
                    "progressToken" => MetaKey::ProgressToken,
                    PROTOCOL_VERSION_KEY => MetaKey::ProtocolVersion,
                    CLIENT_CAPABILITIES_KEY => MetaKey::ClientCapabilities,
                    CLIENT_INFO_KEY => MetaKey::ClientInfo,
                    LOG_LEVEL_KEY => MetaKey::LogLevel,
                    other => MetaKey::Other(other.to_owned()),
                })
            }
        }

        deserializer.deserialize_identifier(KeyVisitor)
    }
}

const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// The validated 2026 envelope of one request.
#[derive(Debug, Clone, Copy)]
pub struct ModernEnvelope<'a> {
    /// The protocol version the request speaks, one the server supports.
    pub protocol_version: ProtocolVersion,
    /// The capabilities the client declared for this request.
    pub client_capabilities: &'a Arc<ClientCapabilities>,
    /// The client's self-description, if sent.
    pub client_info: Option<&'a Arc<Implementation>>,
    /// The log level the client opted in to, if any.
    pub log_level: Option<LoggingLevel>,
    /// The progress token, if any.
    pub progress_token: Option<&'a ProgressToken>,
}

impl RequestMetaObject {
    /// Validates the 2026 per-request envelope of a request whose `_meta` is `meta`, for a
    /// server that supports the modern versions in `supported`.
    ///
    /// # Errors
    ///
    /// - `_meta`, its protocol version or its client capabilities missing → -32602
    ///   (invalid params), naming what is missing;
    /// - a protocol version that is not a supported modern-era version → -32022 with
    ///   `data.requested`, and all of `supported` (both eras, in the order given) as
    ///   `data.supported`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp_core::types::RequestMetaObject;
    /// use ferromcp_core::ProtocolVersion;
    ///
    /// let meta: RequestMetaObject = serde_json::from_str(r#"{
    ///     "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}
    /// }"#).unwrap();
    /// let env = RequestMetaObject::modern_envelope(Some(&meta), &ProtocolVersion::MODERN).unwrap();
    /// assert!(env.client_capabilities.sampling.is_some());
    /// assert_eq!(
    ///     RequestMetaObject::modern_envelope(None, &ProtocolVersion::MODERN).unwrap_err().code.0,
    ///     -32602
    /// );
    /// ```
    pub fn modern_envelope<'a>(
        meta: Option<&'a RequestMetaObject>,
        supported: &[ProtocolVersion],
    ) -> std::result::Result<ModernEnvelope<'a>, ErrorObject> {
        let Some(meta) = meta else {
            return Err(missing_envelope(&["_meta"]));
        };
        let mut missing = Vec::new();
        if meta.protocol_version.is_none() {
            missing.push(META_PROTOCOL_VERSION);
        }
        if meta.client_capabilities.is_none() {
            missing.push(META_CLIENT_CAPABILITIES);
        }
        let (Some(requested), Some(client_capabilities)) =
            (&meta.protocol_version, &meta.client_capabilities)
        else {
            return Err(missing_envelope(&missing));
        };
        let protocol_version = match requested.parse::<ProtocolVersion>() {
            Ok(v) if v.era() == Era::Modern && supported.contains(&v) => v,
            // Every version the server speaks, both eras: a client that supports an older
            // one falls back to it (a 2025 one by `initialize`).
            _ => {
                return Err(ErrorObject::unsupported_protocol_version(
                    requested, supported,
                ));
            }
        };
        Ok(ModernEnvelope {
            protocol_version,
            client_capabilities,
            client_info: meta.client_info.as_ref(),
            log_level: meta.log_level,
            progress_token: meta.progress_token.as_ref(),
        })
    }
}

fn missing_envelope(missing: &[&str]) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "request is missing the required per-request envelope key(s): {}",
        missing.join(", ")
    ))
    .with_data(serde_json::json!({ "envelope": { "missing": missing } }))
}

/// The `_meta` of a result: the 2026 server self-description.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultMetaObject {
    /// 2026: the server's self-description.
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<Implementation>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The `_meta` of a notification: the 2026 subscription stream tag.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationMetaObject {
    /// 2026: the id of the `subscriptions/listen` request whose stream carries this
    /// notification.
    #[serde(
        rename = "io.modelcontextprotocol/subscriptionId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub subscription_id: Option<RequestId>,
    /// Every other key.
    #[serde(flatten)]
    pub extra: JSONObject,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::RequestMetaObject;

    #[test]
    fn request_meta_reads_known_members_and_keeps_the_others() {
        let text = r#"{
            "progressToken": 7,
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            "io.modelcontextprotocol/logLevel": "info",
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "vendor/x": {"deep": [1, 2]}
        }"#;
        let meta: RequestMetaObject = serde_json::from_str(text).unwrap();
        assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
        assert!(meta.client_capabilities.unwrap().sampling.is_some());
        assert_eq!(meta.client_info.unwrap().name, "c");
        assert!(meta.log_level.is_some() && meta.progress_token.is_some());
        assert_eq!(meta.extra.len(), 2);
        assert_eq!(meta.extra["vendor/x"], json!({"deep": [1, 2]}));
        // The same through a `Value`, as when `_meta` sits in a flattened struct.
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let again: RequestMetaObject = serde_json::from_value(value).unwrap();
        assert_eq!(again.extra.len(), 2);
    }

    #[test]
    fn request_meta_names_may_be_escaped_and_members_may_be_null() {
        let meta: RequestMetaObject = serde_json::from_str(
            r#"{"io.modelcontextprotocol\/protocolVersion": "2026-07-28", "progressToken": null}"#,
        )
        .unwrap();
        assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
        assert!(meta.progress_token.is_none() && meta.extra.is_empty());
    }

    #[test]
    fn request_meta_refuses_duplicates_and_wrong_types() {
        for bad in [
            r#"{"progressToken": 1, "progressToken": 2}"#,
            r#"{"io.modelcontextprotocol/protocolVersion": 5}"#,
            r#"{"io.modelcontextprotocol/clientCapabilities": []}"#,
            r#"[]"#,
        ] {
            assert!(
                serde_json::from_str::<RequestMetaObject>(bad).is_err(),
                "{bad}"
            );
        }
    }
}
