//! URL mode: the user is sent to a URL, and the server announces when that elicitation has
//! finished.

use serde::{Deserialize, Serialize};

use crate::types::content::type_tag;
use crate::types::{JSONObject, NotificationMetaObject, RequestMetaObject, TaskMetadata};

/// The `"mode": "url"` marker of URL-mode elicitation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElicitModeUrl;
type_tag!(ElicitModeUrl = "url");

/// URL-mode elicitation: the user is sent to a URL (for input that must not pass through the
/// client, such as credentials).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestURLParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// Always `"url"`.
    pub mode: ElicitModeUrl,
    /// What the user is asked and why.
    pub message: String,
    /// Where to send the user.
    pub url: String,
    /// 2025-11-25 (required there): the id that a later
    /// [`ElicitationCompleteNotification`] refers to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// 2025-11-25: run the request as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ElicitRequestURLParams {
    /// A URL request showing `message` and sending the user to `url`.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        ElicitRequestURLParams {
            message: message.into(),
            url: url.into(),
            ..Default::default()
        }
    }

    /// This request with the elicitation id (required by 2025-11-25).
    #[must_use]
    pub fn with_elicitation_id(mut self, id: impl Into<String>) -> Self {
        self.elicitation_id = Some(id.into());
        self
    }
}

/// 2025-11-25 `notifications/elicitation/complete`: a URL-mode elicitation has finished.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationCompleteNotification {
    /// Which elicitation finished.
    pub params: ElicitationCompleteNotificationParams,
}

notification!(
    ElicitationCompleteNotification,
    "notifications/elicitation/complete",
    ElicitationCompleteNotificationParams
);

/// The params of [`ElicitationCompleteNotification`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
    /// The `elicitationId` of the finished URL-mode request.
    pub elicitation_id: String,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::elicitation::tests::round_trip;
    use serde_json::json;

    #[test]
    fn complete_notification_round_trips() {
        let json = json!({
            "jsonrpc": "2.0",
            "method": "notifications/elicitation/complete",
            "params": {"elicitationId": "e1"}
        });
        let n: ElicitationCompleteNotification = round_trip(&json);
        assert_eq!(n.params.elicitation_id, "e1");
    }
}
