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

use super::content::{from_value, type_tag};
use crate::jsonrpc::JsonRpcVersion;
use crate::types::{
    JSONObject, MetaObject, NotificationMetaObject, RequestId, RequestMetaObject, TaskMetadata,
};

/// The JSON Schema `"type": "string"` marker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsonTypeString;
type_tag!(JsonTypeString = "string");
/// The JSON Schema `"type": "boolean"` marker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsonTypeBoolean;
type_tag!(JsonTypeBoolean = "boolean");
/// The JSON Schema `"type": "array"` marker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsonTypeArray;
type_tag!(JsonTypeArray = "array");
/// The JSON Schema `"type": "object"` marker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsonTypeObject;
type_tag!(JsonTypeObject = "object");
/// The `"mode": "form"` marker of form-mode elicitation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElicitModeForm;
type_tag!(ElicitModeForm = "form");
/// The `"mode": "url"` marker of URL-mode elicitation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElicitModeUrl;
type_tag!(ElicitModeUrl = "url");

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

/// Form-mode elicitation: a message and a flat schema of the fields to fill in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
    /// `"form"`; optional on the wire (2025-06-18 has no modes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitModeForm>,
    /// What the user is asked and why.
    pub message: String,
    /// The fields to fill in.
    pub requested_schema: ElicitRequestedSchema,
    /// 2025-11-25: run the request as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ElicitRequestFormParams {
    /// A form request (with `mode: "form"`) showing `message` and asking for `schema`.
    pub fn new(message: impl Into<String>, schema: ElicitRequestedSchema) -> Self {
        ElicitRequestFormParams {
            mode: Some(ElicitModeForm),
            message: message.into(),
            requested_schema: schema,
            ..Default::default()
        }
    }
}

/// The `requestedSchema` of a form: an object schema whose properties are primitive fields.
///
/// # Examples
///
/// ```
/// use mcp_core::types::{BooleanSchema, ElicitRequestedSchema, StringSchema};
///
/// let schema = ElicitRequestedSchema::new()
///     .with_required_property("name", StringSchema::default())
///     .with_property("subscribe", BooleanSchema::default());
/// assert_eq!(
///     serde_json::to_value(&schema).unwrap(),
///     serde_json::json!({
///         "type": "object",
///         "properties": {"name": {"type": "string"}, "subscribe": {"type": "boolean"}},
///         "required": ["name"]
///     })
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequestedSchema {
    /// The JSON Schema dialect URI.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub r#type: JsonTypeObject,
    /// The fields, by name.
    pub properties: BTreeMap<String, PrimitiveSchemaDefinition>,
    /// The names of the fields the user must fill in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ElicitRequestedSchema {
    /// An object schema with no fields yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// This schema with the optional field `name`.
    #[must_use]
    pub fn with_property(
        mut self,
        name: impl Into<String>,
        field: impl Into<PrimitiveSchemaDefinition>,
    ) -> Self {
        self.properties.insert(name.into(), field.into());
        self
    }

    /// This schema with the required field `name`.
    #[must_use]
    pub fn with_required_property(
        mut self,
        name: impl Into<String>,
        field: impl Into<PrimitiveSchemaDefinition>,
    ) -> Self {
        let name = name.into();
        self.required
            .get_or_insert_with(Vec::new)
            .push(name.clone());
        self.properties.insert(name, field.into());
        self
    }
}

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

/// One field of a form: a string, number, boolean or enum schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// A text field.
    String(StringSchema),
    /// A number or integer field.
    Number(NumberSchema),
    /// A checkbox.
    Boolean(BooleanSchema),
    /// A choice among fixed values.
    Enum(EnumSchema),
}

/// The JSON Schema `type` of a number field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberSchemaType {
    /// Any number.
    #[default]
    Number,
    /// Whole numbers only.
    Integer,
}

/// The `format` of a string field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StringSchemaFormat {
    /// An e-mail address.
    #[serde(rename = "email")]
    Email,
    /// A URI.
    #[serde(rename = "uri")]
    Uri,
    /// A calendar date.
    #[serde(rename = "date")]
    Date,
    /// A date and time.
    #[serde(rename = "date-time")]
    DateTime,
}

/// A text field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub r#type: JsonTypeString,
    /// The field's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest characters accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Most characters accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// The expected format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringSchemaFormat>,
    /// The pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// A number field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub r#type: NumberSchemaType,
    /// The field's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Smallest value accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// Largest value accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// The pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<f64>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl NumberSchema {
    /// An integer field.
    pub fn integer() -> Self {
        NumberSchema {
            r#type: NumberSchemaType::Integer,
            ..Default::default()
        }
    }
}

/// A checkbox.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub r#type: JsonTypeBoolean,
    /// The field's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// A choice among fixed values: single or multiple select, with or without display titles.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum EnumSchema {
    /// Pick one value.
    SingleSelect(SingleSelectEnumSchema),
    /// Pick several values.
    MultiSelect(MultiSelectEnumSchema),
    /// Pick one value, titled through the non-standard `enumNames`.
    LegacyTitled(LegacyTitledEnumSchema),
}

/// Pick one value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SingleSelectEnumSchema {
    /// Values shown as they are.
    Untitled(UntitledSingleSelectEnumSchema),
    /// Values with display titles.
    Titled(TitledSingleSelectEnumSchema),
}

/// Pick several values.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MultiSelectEnumSchema {
    /// Values shown as they are.
    Untitled(UntitledMultiSelectEnumSchema),
    /// Values with display titles.
    Titled(TitledMultiSelectEnumSchema),
}

/// A value with a display title (`{"const": …, "title": …}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TitledEnumOption {
    /// The value submitted (`const` on the wire).
    #[serde(rename = "const")]
    pub value: String,
    /// What the user sees.
    pub title: String,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl TitledEnumOption {
    /// The option `value`, shown as `title`.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        TitledEnumOption {
            value: value.into(),
            title: title.into(),
            extra: JSONObject::new(),
        }
    }
}

/// Pick one of plain string values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub r#type: JsonTypeString,
    /// The field's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values to choose from.
    #[serde(rename = "enum")]
    pub r#enum: Vec<String>,
    /// The pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl UntitledSingleSelectEnumSchema {
    /// A single select among `values`.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Self {
        UntitledSingleSelectEnumSchema {
            r#enum: values.into_iter().map(Into::into).collect(),
            ..Default::default()
        }
    }
}

/// Pick one of values shown with titles.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub r#type: JsonTypeString,
    /// The field's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options.
    pub one_of: Vec<TitledEnumOption>,
    /// The pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The `items` of an [`UntitledMultiSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledEnumItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub r#type: JsonTypeString,
    /// The values to choose from.
    #[serde(rename = "enum")]
    pub r#enum: Vec<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The `items` of a [`TitledMultiSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledEnumItems {
    /// The options.
    pub any_of: Vec<TitledEnumOption>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// Pick several of plain string values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub r#type: JsonTypeArray,
    /// The field's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest choices accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most choices accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The values to choose from.
    pub items: UntitledEnumItems,
    /// The pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// Pick several of values shown with titles.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub r#type: JsonTypeArray,
    /// The field's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest choices accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most choices accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: TitledEnumItems,
    /// The pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// Pick one value, with display titles in the parallel `enumNames` list (the 2025-06-18
/// `EnumSchema`; kept for compatibility).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub r#type: JsonTypeString,
    /// The field's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values to choose from.
    #[serde(rename = "enum")]
    pub r#enum: Vec<String>,
    /// Display titles, one per value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// The pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// Which field schema a JSON object is, from its `type` and distinguishing keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldKind {
    String,
    Number,
    Boolean,
    UntitledSingle,
    TitledSingle,
    UntitledMulti,
    TitledMulti,
    Legacy,
}

fn field_kind<E: serde::de::Error>(value: &Value) -> Result<FieldKind, E> {
    let has = |key: &str| value.get(key).is_some();
    match value.get("type").and_then(Value::as_str) {
        Some("string") if has("oneOf") => Ok(FieldKind::TitledSingle),
        Some("string") if has("enum") && has("enumNames") => Ok(FieldKind::Legacy),
        Some("string") if has("enum") => Ok(FieldKind::UntitledSingle),
        Some("string") => Ok(FieldKind::String),
        Some("number" | "integer") => Ok(FieldKind::Number),
        Some("boolean") => Ok(FieldKind::Boolean),
        Some("array") if value.get("items").is_some_and(|i| i.get("anyOf").is_some()) => {
            Ok(FieldKind::TitledMulti)
        }
        Some("array") => Ok(FieldKind::UntitledMulti),
        Some(other) => Err(E::custom(format_args!(
            "unsupported field schema type `{other}`"
        ))),
        None => Err(E::custom("field schema without a string `type`")),
    }
}

fn not_a<E: serde::de::Error>(what: &str, kind: FieldKind) -> E {
    E::custom(format_args!(
        "expected {what}, found a {kind:?} field schema"
    ))
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        match field_kind::<D::Error>(&value)? {
            FieldKind::String => from_value(value).map(PrimitiveSchemaDefinition::String),
            FieldKind::Number => from_value(value).map(PrimitiveSchemaDefinition::Number),
            FieldKind::Boolean => from_value(value).map(PrimitiveSchemaDefinition::Boolean),
            kind => enum_from(value, kind).map(PrimitiveSchemaDefinition::Enum),
        }
    }
}

impl<'de> Deserialize<'de> for EnumSchema {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let kind = field_kind::<D::Error>(&value)?;
        enum_from(value, kind)
    }
}

fn enum_from<E: serde::de::Error>(value: Value, kind: FieldKind) -> Result<EnumSchema, E> {
    match kind {
        FieldKind::UntitledSingle | FieldKind::TitledSingle => {
            single_from(value, kind).map(EnumSchema::SingleSelect)
        }
        FieldKind::UntitledMulti | FieldKind::TitledMulti => {
            multi_from(value, kind).map(EnumSchema::MultiSelect)
        }
        FieldKind::Legacy => from_value(value).map(EnumSchema::LegacyTitled),
        kind => Err(not_a("an enum schema", kind)),
    }
}

fn single_from<E: serde::de::Error>(
    value: Value,
    kind: FieldKind,
) -> Result<SingleSelectEnumSchema, E> {
    match kind {
        FieldKind::UntitledSingle => from_value(value).map(SingleSelectEnumSchema::Untitled),
        FieldKind::TitledSingle => from_value(value).map(SingleSelectEnumSchema::Titled),
        kind => Err(not_a("a single-select enum schema", kind)),
    }
}

fn multi_from<E: serde::de::Error>(
    value: Value,
    kind: FieldKind,
) -> Result<MultiSelectEnumSchema, E> {
    match kind {
        FieldKind::UntitledMulti => from_value(value).map(MultiSelectEnumSchema::Untitled),
        FieldKind::TitledMulti => from_value(value).map(MultiSelectEnumSchema::Titled),
        kind => Err(not_a("a multi-select enum schema", kind)),
    }
}

impl<'de> Deserialize<'de> for SingleSelectEnumSchema {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let kind = field_kind::<D::Error>(&value)?;
        single_from(value, kind)
    }
}

impl<'de> Deserialize<'de> for MultiSelectEnumSchema {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let kind = field_kind::<D::Error>(&value)?;
        multi_from(value, kind)
    }
}

impl From<StringSchema> for PrimitiveSchemaDefinition {
    fn from(s: StringSchema) -> Self {
        PrimitiveSchemaDefinition::String(s)
    }
}

impl From<NumberSchema> for PrimitiveSchemaDefinition {
    fn from(s: NumberSchema) -> Self {
        PrimitiveSchemaDefinition::Number(s)
    }
}

impl From<BooleanSchema> for PrimitiveSchemaDefinition {
    fn from(s: BooleanSchema) -> Self {
        PrimitiveSchemaDefinition::Boolean(s)
    }
}

impl From<EnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: EnumSchema) -> Self {
        PrimitiveSchemaDefinition::Enum(s)
    }
}

impl From<UntitledSingleSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: UntitledSingleSelectEnumSchema) -> Self {
        PrimitiveSchemaDefinition::Enum(EnumSchema::SingleSelect(SingleSelectEnumSchema::Untitled(
            s,
        )))
    }
}

impl From<TitledSingleSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: TitledSingleSelectEnumSchema) -> Self {
        PrimitiveSchemaDefinition::Enum(EnumSchema::SingleSelect(SingleSelectEnumSchema::Titled(s)))
    }
}

impl From<UntitledMultiSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: UntitledMultiSelectEnumSchema) -> Self {
        PrimitiveSchemaDefinition::Enum(EnumSchema::MultiSelect(MultiSelectEnumSchema::Untitled(s)))
    }
}

impl From<TitledMultiSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: TitledMultiSelectEnumSchema) -> Self {
        PrimitiveSchemaDefinition::Enum(EnumSchema::MultiSelect(MultiSelectEnumSchema::Titled(s)))
    }
}

impl From<LegacyTitledEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: LegacyTitledEnumSchema) -> Self {
        PrimitiveSchemaDefinition::Enum(EnumSchema::LegacyTitled(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip<T: serde::de::DeserializeOwned + Serialize>(json: &Value) -> T {
        let typed: T = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&typed).unwrap(), json);
        typed
    }

    fn examples() -> Vec<(&'static str, Value)> {
        vec![
            (
                "string",
                json!({"type": "string", "title": "Display Name", "description": "Description text",
                       "minLength": 3, "maxLength": 50, "format": "email", "default": "user@example.com"}),
            ),
            (
                "number",
                json!({"type": "number", "title": "Display Name", "minimum": 0.5, "maximum": 100.5,
                       "default": 50.5}),
            ),
            ("integer", json!({"type": "integer", "minimum": 18.0})),
            (
                "boolean",
                json!({"type": "boolean", "title": "Display Name", "default": false}),
            ),
            (
                "untitled-single",
                json!({"type": "string", "title": "Color Selection", "enum": ["Red", "Green", "Blue"],
                       "default": "Red"}),
            ),
            (
                "titled-single",
                json!({"type": "string", "oneOf": [{"const": "#FF0000", "title": "Red"},
                       {"const": "#00FF00", "title": "Green"}], "default": "#FF0000"}),
            ),
            (
                "untitled-multi",
                json!({"type": "array", "minItems": 1, "maxItems": 2,
                       "items": {"type": "string", "enum": ["Red", "Green", "Blue"]},
                       "default": ["Red", "Green"]}),
            ),
            (
                "titled-multi",
                json!({"type": "array", "items": {"anyOf": [{"const": "#FF0000", "title": "Red"}]},
                       "default": ["#FF0000"]}),
            ),
            (
                "legacy",
                json!({"type": "string", "enum": ["a", "b"], "enumNames": ["Option A", "Option B"]}),
            ),
        ]
    }

    #[test]
    fn every_field_schema_round_trips_standalone_and_lands_in_its_variant() {
        use EnumSchema as E;
        use MultiSelectEnumSchema as M;
        use PrimitiveSchemaDefinition as P;
        use SingleSelectEnumSchema as S;
        for (name, json) in examples() {
            let def: P = round_trip(&json);
            let ok = match name {
                "string" => {
                    round_trip::<StringSchema>(&json);
                    matches!(def, P::String(_))
                }
                "number" | "integer" => {
                    let n = round_trip::<NumberSchema>(&json);
                    assert_eq!(n.r#type == NumberSchemaType::Integer, name == "integer");
                    matches!(def, P::Number(_))
                }
                "boolean" => {
                    round_trip::<BooleanSchema>(&json);
                    matches!(def, P::Boolean(_))
                }
                "untitled-single" => {
                    round_trip::<UntitledSingleSelectEnumSchema>(&json);
                    round_trip::<SingleSelectEnumSchema>(&json);
                    matches!(def, P::Enum(E::SingleSelect(S::Untitled(_))))
                }
                "titled-single" => {
                    round_trip::<TitledSingleSelectEnumSchema>(&json);
                    matches!(def, P::Enum(E::SingleSelect(S::Titled(_))))
                }
                "untitled-multi" => {
                    round_trip::<UntitledMultiSelectEnumSchema>(&json);
                    round_trip::<MultiSelectEnumSchema>(&json);
                    matches!(def, P::Enum(E::MultiSelect(M::Untitled(_))))
                }
                "titled-multi" => {
                    round_trip::<TitledMultiSelectEnumSchema>(&json);
                    matches!(def, P::Enum(E::MultiSelect(M::Titled(_))))
                }
                "legacy" => {
                    round_trip::<LegacyTitledEnumSchema>(&json);
                    round_trip::<EnumSchema>(&json);
                    matches!(def, P::Enum(E::LegacyTitled(_)))
                }
                _ => false,
            };
            assert!(ok, "{name} landed in {def:?}");
        }
    }

    #[test]
    fn wrong_type_markers_are_rejected() {
        assert!(serde_json::from_value::<StringSchema>(json!({"type": "number"})).is_err());
        assert!(serde_json::from_value::<BooleanSchema>(json!({})).is_err());
        assert!(
            serde_json::from_value::<PrimitiveSchemaDefinition>(json!({"type": "object"})).is_err()
        );
        assert!(serde_json::from_value::<EnumSchema>(json!({"type": "string"})).is_err());
        assert!(
            serde_json::from_value::<SingleSelectEnumSchema>(
                json!({"type": "array", "items": {"type": "string", "enum": []}})
            )
            .is_err()
        );
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
