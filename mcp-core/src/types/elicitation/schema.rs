//! The form field schemas (string, number, boolean) and the union over all field kinds,
//! which deserializes by looking at `type` and the keys that tell the kinds apart.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Number, Value};

use super::enums::enum_from;
use super::kind::{FieldKind, JsonTypeBoolean, JsonTypeString, field_kind};
use super::{
    EnumSchema, LegacyTitledEnumSchema, MultiSelectEnumSchema, SingleSelectEnumSchema,
    TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema, UntitledMultiSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
};
use crate::types::JSONObject;
use crate::types::content::from_value;

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
    /// Smallest value accepted. A JSON number kept as written (`18` stays `18`, not `18.0`);
    /// `serde_json::Number::from(18)` or `Number::from_f64(0.5)` build one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    /// Largest value accepted, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    /// The pre-filled value, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Number>,
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
    use crate::types::elicitation::tests::round_trip;
    use crate::types::{
        LegacyTitledEnumSchema, MultiSelectEnumSchema, SingleSelectEnumSchema,
        TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema, UntitledMultiSelectEnumSchema,
        UntitledSingleSelectEnumSchema,
    };
    use serde_json::json;

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
}
