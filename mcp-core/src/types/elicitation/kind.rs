//! What kind of form field a JSON schema object is: the JSON Schema `type` markers and the
//! classifier that both the enum schemas and the union over all field kinds deserialize by.

use serde_json::Value;

use crate::types::content::type_tag;

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

/// Which field schema a JSON object is, from its `type` and distinguishing keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FieldKind {
    String,
    Number,
    Boolean,
    UntitledSingle,
    TitledSingle,
    UntitledMulti,
    TitledMulti,
    Legacy,
}

pub(super) fn field_kind<E: serde::de::Error>(value: &Value) -> Result<FieldKind, E> {
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

pub(super) fn not_a<E: serde::de::Error>(what: &str, kind: FieldKind) -> E {
    E::custom(format_args!(
        "expected {what}, found a {kind:?} field schema"
    ))
}
