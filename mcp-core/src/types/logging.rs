//! Logging: the severity levels, the legacy `logging/setLevel` request and the log message
//! notification a server sends.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::types::{
    EmptyResult, JSONObject, JSONValue, NotificationMetaObject, RequestId, RequestMetaObject,
};

/// How severe a log message is, as in syslog (RFC 5424). Ordered from the least severe
/// ([`Debug`](Self::Debug)) to the most severe ([`Emergency`](Self::Emergency)), so
/// `level >= threshold` tells whether a message passes a filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detail for debugging.
    Debug,
    /// Routine information.
    Info,
    /// A normal but noteworthy event.
    Notice,
    /// Something that may need attention.
    Warning,
    /// An operation failed.
    Error,
    /// A component failed.
    Critical,
    /// Someone must act at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Every level, from the least to the most severe.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The wire name, e.g. `"warning"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not the wire name of any [`LoggingLevel`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown logging level `{0}`")]
pub struct UnknownLoggingLevel(pub String);

impl FromStr for LoggingLevel {
    type Err = UnknownLoggingLevel;

    /// Parses a wire name (`"debug"` … `"emergency"`); case-sensitive like the protocol.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LoggingLevel::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| UnknownLoggingLevel(s.to_owned()))
    }
}

/// Legacy (up to 2025-11-25): the client sets the least severe level it wants logs for.
/// In 2026 the level travels in each request's `_meta` instead.
#[derive(Debug, Clone, PartialEq)]
pub struct SetLevelRequest {
    /// The request id.
    pub id: RequestId,
    /// The level asked for.
    pub params: SetLevelRequestParams,
}

request!(SetLevelRequest, "logging/setLevel", SetLevelRequestParams => EmptyResult);

/// Params of `logging/setLevel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetLevelRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// Send messages of this level and more severe ones.
    pub level: LoggingLevel,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl SetLevelRequestParams {
    /// Params asking for `level` and above.
    pub fn new(level: LoggingLevel) -> Self {
        SetLevelRequestParams {
            meta: None,
            level,
            extra: JSONObject::new(),
        }
    }
}

/// A log message a server sends to the client.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggingMessageNotification {
    /// The message.
    pub params: LoggingMessageNotificationParams,
}

notification!(
    LoggingMessageNotification,
    "notifications/message",
    LoggingMessageNotificationParams
);

/// Params of `notifications/message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
    /// The severity.
    pub level: LoggingLevel,
    /// Which logger or component emitted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The payload: a string or any JSON value.
    pub data: JSONValue,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl LoggingMessageNotificationParams {
    /// A message of `level` carrying `data`, with no logger name.
    pub fn new(level: LoggingLevel, data: impl Into<JSONValue>) -> Self {
        LoggingMessageNotificationParams {
            meta: None,
            level,
            logger: None,
            data: data.into(),
            extra: JSONObject::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn levels_are_ordered_by_severity_and_round_trip() {
        for pair in LoggingLevel::ALL.windows(2) {
            assert!(pair[0] < pair[1]);
        }
        assert!(LoggingLevel::Debug < LoggingLevel::Emergency);
        for level in LoggingLevel::ALL {
            assert_eq!(serde_json::to_value(level).unwrap(), json!(level.as_str()));
            assert_eq!(level.as_str().parse::<LoggingLevel>().unwrap(), level);
            let back: LoggingLevel = serde_json::from_value(json!(level.as_str())).unwrap();
            assert_eq!(back, level);
        }
        assert_eq!(
            "Warning".parse::<LoggingLevel>(),
            Err(UnknownLoggingLevel("Warning".into()))
        );
        assert!(serde_json::from_value::<LoggingLevel>(json!("verbose")).is_err());
    }

    #[test]
    fn set_level_request_legacy() {
        let v = json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel",
            "params": {"level": "warning", "_meta": {"progressToken": "t"}}});
        let req: SetLevelRequest = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(req.params.level, LoggingLevel::Warning);
        assert_eq!(serde_json::to_value(&req).unwrap(), v);
        let wrong = json!({"jsonrpc": "2.0", "id": 3, "method": "logging/set", "params": {"level": "info"}});
        assert!(serde_json::from_value::<SetLevelRequest>(wrong).is_err());
    }

    #[test]
    fn logging_message_round_trip() {
        let v = json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "error", "logger": "db", "data": {"error": "boom"},
                "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}, "x-extra": 1}});
        let n: LoggingMessageNotification = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(n.params.level, LoggingLevel::Error);
        assert_eq!(n.params.extra.get("x-extra"), Some(&json!(1)));
        assert_eq!(serde_json::to_value(&n).unwrap(), v);

        // `data` is required, though it may be null.
        let missing = json!({"level": "info"});
        assert!(serde_json::from_value::<LoggingMessageNotificationParams>(missing).is_err());
        let null = json!({"level": "info", "data": null});
        let p: LoggingMessageNotificationParams = serde_json::from_value(null.clone()).unwrap();
        assert_eq!(serde_json::to_value(&p).unwrap(), null);

        let built = LoggingMessageNotificationParams::new(LoggingLevel::Info, "hello");
        assert_eq!(
            serde_json::to_value(&built).unwrap(),
            json!({"level": "info", "data": "hello"})
        );
    }
}
