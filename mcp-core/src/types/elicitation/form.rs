//! Form mode: the message and the flat object schema of the fields the user fills in.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{JsonTypeObject, PrimitiveSchemaDefinition};
use crate::types::content::type_tag;
use crate::types::{JSONObject, RequestMetaObject, TaskMetadata};

/// The `"mode": "form"` marker of form-mode elicitation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElicitModeForm;
type_tag!(ElicitModeForm = "form");

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
/// use ferromcp_core::types::{BooleanSchema, ElicitRequestedSchema, StringSchema};
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
