//! Elicitation: the server asks the user, through the client, for structured input (form
//! mode, with a restricted JSON Schema of primitive fields) or to visit a URL (URL mode).
//!
//! The field schemas ([`StringSchema`], [`NumberSchema`], …) each carry their JSON Schema
//! `type` as a constant marker, so they round-trip on their own; the unions over them
//! ([`PrimitiveSchemaDefinition`], [`EnumSchema`], …) serialize the inner value as is and
//! deserialize by looking at `type` and the keys that tell the variants apart.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::content::from_value;
use crate::jsonrpc::JsonRpcVersion;
use crate::types::{JSONObject, MetaObject, RequestId};

mod enums;
mod form;
mod kind;
mod schema;
mod url;

pub use enums::{
    EnumSchema, LegacyTitledEnumSchema, MultiSelectEnumSchema, SingleSelectEnumSchema,
    TitledEnumItems, TitledEnumOption, TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema,
    UntitledEnumItems, UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};
pub use form::{ElicitModeForm, ElicitRequestFormParams, ElicitRequestedSchema};
pub use kind::{JsonTypeArray, JsonTypeBoolean, JsonTypeObject, JsonTypeString};
pub use schema::{
    BooleanSchema, NumberSchema, NumberSchemaType, PrimitiveSchemaDefinition, StringSchema,
    StringSchemaFormat,
};
pub use url::{
    ElicitModeUrl, ElicitRequestURLParams, ElicitationCompleteNotification,
    ElicitationCompleteNotificationParams,
};

/// `elicitation/create`: the server asks the user for input through the client.
///
/// A 2025-11-25 request carries `jsonrpc` and `id`; in 2026 it is embedded in an
/// [`InputRequiredResult`](crate::types::InputRequiredResult) without them.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitRequest {
    /// `"2.0"` on a standalone request; absent when embedded.
    pub jsonrpc: Option<JsonRpcVersion>,
    /// The request id on a standalone request; absent when embedded.
    pub id: Option<RequestId>,
    /// What to ask.
    pub params: ElicitRequestParams,
}

request!(ElicitRequest, "elicitation/create", embedded ElicitRequestParams => ElicitResult);

/// The params of `elicitation/create`: a form or a URL to visit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// Form mode (`mode` is `"form"` or, before 2025-11-25, absent).
    Form(ElicitRequestFormParams),
    /// URL mode (`mode` is `"url"`).
    Url(ElicitRequestURLParams),
}

impl ElicitRequestParams {
    /// The message shown to the user, whatever the mode.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequestParams::Form(p) => &p.message,
            ElicitRequestParams::Url(p) => &p.message,
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        match value.get("mode") {
            None | Some(Value::Null) => from_value(value).map(ElicitRequestParams::Form),
            Some(Value::String(m)) if m == ElicitModeForm::VALUE => {
                from_value(value).map(ElicitRequestParams::Form)
            }
            Some(Value::String(m)) if m == ElicitModeUrl::VALUE => {
                from_value(value).map(ElicitRequestParams::Url)
            }
            Some(other) => Err(D::Error::custom(format_args!(
                "unknown elicitation mode {other} (expected \"form\" or \"url\")"
            ))),
        }
    }
}

impl From<ElicitRequestFormParams> for ElicitRequestParams {
    fn from(p: ElicitRequestFormParams) -> Self {
        ElicitRequestParams::Form(p)
    }
}

impl From<ElicitRequestURLParams> for ElicitRequestParams {
    fn from(p: ElicitRequestURLParams) -> Self {
        ElicitRequestParams::Url(p)
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted fields, when the user accepted a form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitContentValue>>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ElicitResult {
    /// The user accepted and submitted `content`.
    pub fn accept(content: BTreeMap<String, ElicitContentValue>) -> Self {
        ElicitResult {
            meta: None,
            action: ElicitAction::Accept,
            content: Some(content),
            extra: JSONObject::new(),
        }
    }

    /// The user declined.
    pub fn decline() -> Self {
        ElicitResult {
            meta: None,
            action: ElicitAction::Decline,
            content: None,
            extra: JSONObject::new(),
        }
    }

    /// The user dismissed the request without choosing.
    pub fn cancel() -> Self {
        ElicitResult {
            meta: None,
            action: ElicitAction::Cancel,
            content: None,
            extra: JSONObject::new(),
        }
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (form) or agreed to continue (URL).
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without a choice.
    Cancel,
}

/// One submitted form field: a string, a number, a boolean or (multi-select) a list of
/// strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitContentValue {
    /// A string or single-select value.
    String(String),
    /// A number, kept exactly as sent.
    Number(serde_json::Number),
    /// A boolean.
    Boolean(bool),
    /// The choices of a multi-select field.
    StringArray(Vec<String>),
}

impl ElicitContentValue {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ElicitContentValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number as `f64`, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ElicitContentValue::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ElicitContentValue::Boolean(b) => Some(*b),
            _ => None,
        }
    }
}

impl From<String> for ElicitContentValue {
    fn from(s: String) -> Self {
        ElicitContentValue::String(s)
    }
}

impl From<&str> for ElicitContentValue {
    fn from(s: &str) -> Self {
        ElicitContentValue::String(s.to_owned())
    }
}

impl From<i64> for ElicitContentValue {
    fn from(n: i64) -> Self {
        ElicitContentValue::Number(n.into())
    }
}

impl From<bool> for ElicitContentValue {
    fn from(b: bool) -> Self {
        ElicitContentValue::Boolean(b)
    }
}

impl From<Vec<String>> for ElicitContentValue {
    fn from(v: Vec<String>) -> Self {
        ElicitContentValue::StringArray(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Shared by the tests of every elicitation module: deserializes `json`, checks that it
    /// serializes back unchanged, and returns the typed value.
    pub(super) fn round_trip<T: serde::de::DeserializeOwned + Serialize>(json: &Value) -> T {
        let typed: T = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&typed).unwrap(), json);
        typed
    }

    #[test]
    fn params_dispatch_on_mode() {
        let form_2026 = json!({
            "mode": "form",
            "message": "Please provide your GitHub username",
            "requestedSchema": {
                "type": "object",
                "properties": {"name": {"type": "string", "title": "GitHub Username"}},
                "required": ["name"]
            }
        });
        let p: ElicitRequestParams = round_trip(&form_2026);
        assert!(matches!(p, ElicitRequestParams::Form(_)));

        // 2025-06-18: no mode at all.
        let mut form_legacy = form_2026.clone();
        form_legacy.as_object_mut().unwrap().remove("mode");
        let p: ElicitRequestParams = round_trip(&form_legacy);
        assert!(matches!(&p, ElicitRequestParams::Form(f) if f.mode.is_none()));

        let url_2026 = json!({
            "mode": "url",
            "url": "https://mcp.example.com/ui/set_api_key",
            "message": "Please provide your API key to continue."
        });
        let p: ElicitRequestParams = round_trip(&url_2026);
        assert!(matches!(&p, ElicitRequestParams::Url(u) if u.elicitation_id.is_none()));
        assert_eq!(p.message(), "Please provide your API key to continue.");
        let u: ElicitRequestURLParams = round_trip(&url_2026);
        assert_eq!(u.url, "https://mcp.example.com/ui/set_api_key");

        assert!(
            serde_json::from_value::<ElicitRequestParams>(json!({"mode": "voice", "message": "x"}))
                .is_err()
        );
        assert!(serde_json::from_value::<ElicitRequestURLParams>(form_2026).is_err());
    }

    #[test]
    fn request_round_trips_embedded_and_standalone() {
        let embedded = json!({
            "method": "elicitation/create",
            "params": {"mode": "url", "message": "m", "url": "https://x.example", "elicitationId": "e1"}
        });
        let r: ElicitRequest = round_trip(&embedded);
        assert!(r.id.is_none() && r.jsonrpc.is_none());

        let standalone = json!({
            "jsonrpc": "2.0",
            "id": 7,
            "method": "elicitation/create",
            "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}
        });
        let r: ElicitRequest = round_trip(&standalone);
        assert_eq!(r.id, Some(RequestId::Number(7)));
        assert!(
            serde_json::from_value::<ElicitRequest>(json!({"method": "roots/list", "params": {}}))
                .is_err()
        );
    }

    #[test]
    fn results_round_trip() {
        for json in [
            json!({"action": "accept"}),
            json!({"action": "accept", "content": {"name": "Monalisa", "age": 30, "ok": true,
                   "colors": ["Red"], "ratio": 0.5}}),
            json!({"action": "decline", "_meta": {"k": 1}}),
        ] {
            round_trip::<ElicitResult>(&json);
        }
        let r: ElicitResult =
            serde_json::from_value(json!({"action": "accept", "content": {"age": 30}})).unwrap();
        assert_eq!(r.content.unwrap()["age"].as_f64(), Some(30.0));
        assert_eq!(
            serde_json::to_value(ElicitResult::cancel()).unwrap(),
            json!({"action": "cancel"})
        );
        let accepted =
            ElicitResult::accept(BTreeMap::from([("name".to_owned(), "octocat".into())]));
        assert_eq!(
            serde_json::to_value(accepted).unwrap(),
            json!({"action": "accept", "content": {"name": "octocat"}})
        );
    }
}
