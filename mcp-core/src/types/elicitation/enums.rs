//! The choice fields: single or multiple select, with or without display titles.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::kind::{FieldKind, JsonTypeArray, JsonTypeString, field_kind, not_a};
use crate::types::JSONObject;
use crate::types::content::from_value;

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

impl<'de> Deserialize<'de> for EnumSchema {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let kind = field_kind::<D::Error>(&value)?;
        enum_from(value, kind)
    }
}

pub(super) fn enum_from<E: serde::de::Error>(
    value: Value,
    kind: FieldKind,
) -> Result<EnumSchema, E> {
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
