//! Notifications about requests in flight: cancellation and progress.

use serde::{Deserialize, Serialize};

use crate::types::{JSONObject, NotificationMetaObject, ProgressToken, RequestId};

/// Either side says it no longer wants the result of a request it sent.
#[derive(Debug, Clone, PartialEq)]
pub struct CancelledNotification {
    /// Which request, and why.
    pub params: CancelledNotificationParams,
}

notification!(
    CancelledNotification,
    "notifications/cancelled",
    CancelledNotificationParams
);

/// Params of `notifications/cancelled`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
    /// The id of the request to cancel. Only the 2025-11-25 schema lets it be absent; it is
    /// needed to cancel any ordinary request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// A reason that may be logged or shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl CancelledNotificationParams {
    /// Cancels the request `request_id`, with no reason given.
    pub fn new(request_id: impl Into<RequestId>) -> Self {
        CancelledNotificationParams {
            request_id: Some(request_id.into()),
            ..Default::default()
        }
    }

    /// Sets the reason.
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

/// How far a long request has come; sent for requests whose `_meta` carried a progress
/// token.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressNotification {
    /// The progress report.
    pub params: ProgressNotificationParams,
}

notification!(
    ProgressNotification,
    "notifications/progress",
    ProgressNotificationParams
);

/// Params of `notifications/progress`.
///
/// `progress` and `total` are JSON numbers that may be fractional; whole values are written
/// as JSON integers (`50`, not `50.0`), the way peers usually send them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
    /// The token from the request's `_meta`.
    pub progress_token: ProgressToken,
    /// Progress so far; grows with every notification.
    #[serde(serialize_with = "number::serialize")]
    pub progress: f64,
    /// The value `progress` will reach when done, if known.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::serialize_option"
    )]
    pub total: Option<f64>,
    /// A human-readable status line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ProgressNotificationParams {
    /// A report of `progress` for the request that sent `progress_token`.
    pub fn new(progress_token: impl Into<ProgressToken>, progress: f64) -> Self {
        ProgressNotificationParams {
            meta: None,
            progress_token: progress_token.into(),
            progress,
            total: None,
            message: None,
            extra: JSONObject::new(),
        }
    }

    /// Sets the total.
    pub fn with_total(mut self, total: f64) -> Self {
        self.total = Some(total);
        self
    }

    /// Sets the status message.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

/// Writes an `f64` as a JSON integer when it is a whole number that fits one, so that
/// `50` read from the wire is written back as `50`.
mod number {
    use serde::Serializer;

    // 2^63 and 2^64 are exact in f64; integers strictly inside these bounds convert exactly.
    const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;
    const U64_BOUND: f64 = 18_446_744_073_709_551_616.0;

    pub(super) fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        let v = *v;
        if v.is_finite() && v.fract() == 0.0 {
            if (0.0..U64_BOUND).contains(&v) {
                return s.serialize_u64(v as u64);
            }
            if (-I64_BOUND..0.0).contains(&v) {
                return s.serialize_i64(v as i64);
            }
        }
        s.serialize_f64(v)
    }

    pub(super) fn serialize_option<S: Serializer>(
        v: &Option<f64>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => serialize(v, s),
            None => s.serialize_none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cancelled_round_trip() {
        let v = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": "123", "reason": "User requested cancellation"}});
        let n: CancelledNotification = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(n.params.request_id, Some(RequestId::from("123")));
        assert_eq!(serde_json::to_value(&n).unwrap(), v);

        let built = CancelledNotificationParams::new(7).with_reason("stop");
        assert_eq!(
            serde_json::to_value(&built).unwrap(),
            json!({"requestId": 7, "reason": "stop"})
        );
    }

    #[test]
    fn progress_numbers_keep_their_shape() {
        let v = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "tok", "progress": 50, "total": 100, "message": "half"}});
        let n: ProgressNotification = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(n.params.progress, 50.0);
        assert_eq!(n.params.total, Some(100.0));
        assert_eq!(serde_json::to_value(&n).unwrap(), v);

        let frac = json!({"progressToken": 1, "progress": 0.25, "_meta": {"k": true}});
        let p: ProgressNotificationParams = serde_json::from_value(frac.clone()).unwrap();
        assert_eq!(p.progress, 0.25);
        assert_eq!(serde_json::to_value(&p).unwrap(), frac);

        let neg = ProgressNotificationParams::new(2, -3.0).with_total(1e30);
        assert_eq!(
            serde_json::to_value(&neg).unwrap(),
            json!({"progressToken": 2, "progress": -3, "total": 1e30})
        );
        assert!(
            serde_json::from_value::<ProgressNotificationParams>(json!({"progress": 1})).is_err()
        );
    }
}
