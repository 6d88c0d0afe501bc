//! Schemas every client accepts. JSON Schema allows more than clients handle: a bare `true`
//! or `false` where a schema object is expected, a `type` array (`["integer", "null"]`,
//! which single-type dialects such as the OpenAPI subset of some model providers reject), a
//! schema with no keyword that constrains anything. The MCP Inspector's `--strict` check
//! reports each; this module rewrites them into equivalent forms that pass it.
//!
//! Input and output schemas differ on `null`: an `Option<T>` argument is published as a
//! plain, optional `T` (absent is `None`; the arguments deserializer never needs a `null`),
//! while an output may really contain `null`, which is kept as an `anyOf` branch.

use ferromcp_core::types::JSONObject;
use serde_json::{Value, json};

/// Whether a schema describes what a client sends or what the server answers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Input,
    Output,
}

/// What a keyword's value holds, for the walk over every schema inside a schema.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// One schema (`items`, `not`, …).
    One,
    /// An array of schemas (`anyOf`, `prefixItems`, …).
    Array,
    /// Names mapped to schemas (`properties`, `$defs`, …).
    Map,
    /// No schema.
    Nothing,
}

/// A `match`, not a list scanned per keyword: rustc compares the length first, so each
/// keyword costs a comparison or two.
fn holds(keyword: &str) -> Holds {
    match keyword {
        "items"
        | "contains"
        | "not"
        | "propertyNames"
        | "if"
        | "then"
        | "else"
        | "additionalProperties"
        | "unevaluatedProperties"
        | "additionalItems"
        | "unevaluatedItems"
        | "contentSchema" => Holds::One,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Holds::Array,
        "properties" | "patternProperties" | "dependentSchemas" | "$defs" | "definitions" => {
            Holds::Map
        }
        _ => Holds::Nothing,
    }
}

/// Where a boolean is the usual spelling (`"additionalProperties": false`), not a stand-in
/// for a schema object.
fn boolean_allowed(keyword: &str) -> bool {
    matches!(
        keyword,
        "additionalProperties" | "unevaluatedProperties" | "additionalItems" | "unevaluatedItems"
    )
}

/// Keywords that restrict which instances a schema accepts.
fn constraining(keyword: &str) -> bool {
    matches!(
        keyword,
        "type"
            | "enum"
            | "const"
            | "multipleOf"
            | "maximum"
            | "exclusiveMaximum"
            | "minimum"
            | "exclusiveMinimum"
            | "maxLength"
            | "minLength"
            | "pattern"
            | "format"
            | "contentMediaType"
            | "contentEncoding"
            | "contentSchema"
            | "maxItems"
            | "minItems"
            | "uniqueItems"
            | "maxContains"
            | "minContains"
            | "maxProperties"
            | "minProperties"
            | "required"
            | "dependentRequired"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "not"
            | "items"
            | "prefixItems"
            | "contains"
            | "additionalItems"
            | "unevaluatedItems"
            | "properties"
            | "patternProperties"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "propertyNames"
            | "dependentSchemas"
            | "dependencies"
            | "$ref"
            | "$dynamicRef"
            | "$recursiveRef"
    )
}

/// The `format` values JSON Schema 2020-12 defines. schemars also writes formats of its own
/// for Rust number types (`uint`, `int32`, `double`, …), which strict validators (Ajv in
/// strict mode, as the TypeScript SDK suggests configuring it) refuse outright; the type and
/// the numeric bounds schemars writes beside them still say what the Rust type accepts.
fn standard_format(format: &str) -> bool {
    matches!(
        format,
        "date-time"
            | "date"
            | "time"
            | "duration"
            | "email"
            | "idn-email"
            | "hostname"
            | "idn-hostname"
            | "ipv4"
            | "ipv6"
            | "uri"
            | "uri-reference"
            | "iri"
            | "iri-reference"
            | "uuid"
            | "uri-template"
            | "json-pointer"
            | "relative-json-pointer"
            | "regex"
    )
}

/// Any JSON value, spelled with one `type` per branch (the spelling of `true` that names
/// what it accepts).
fn any_value() -> Value {
    json!([
        {"type": "object"},
        {"type": "array"},
        {"type": "string"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "null"}
    ])
}

/// Rewrites `schema` (a root schema object) and every schema inside it, and drops every
/// `format` that is not a standard one.
pub(crate) fn make_portable(schema: &mut JSONObject, direction: Direction) {
    if direction == Direction::Input {
        drop_null(schema);
    }
    // After `drop_null`, which may have merged a branch's keywords in.
    if schema
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !standard_format(f))
    {
        schema.remove("format");
    }
    split_type_union(schema);
    for (keyword, value) in schema.iter_mut() {
        let keyword = keyword.as_str();
        match (holds(keyword), value) {
            (Holds::Map, Value::Object(map)) => map
                .values_mut()
                .for_each(|sub| subschema(sub, keyword, direction)),
            // `items` holds an array of schemas in drafts before 2020-12.
            (Holds::Array | Holds::One, Value::Array(items))
                if holds(keyword) == Holds::Array || keyword == "items" =>
            {
                items
                    .iter_mut()
                    .for_each(|sub| subschema(sub, keyword, direction));
            }
            (Holds::One, value) => subschema(value, keyword, direction),
            _ => {}
        }
    }
}

/// A schema in the position of `keyword`.
fn subschema(value: &mut Value, keyword: &str, direction: Direction) {
    match value {
        Value::Bool(_) if boolean_allowed(keyword) => {}
        Value::Bool(true) => *value = json!({ "anyOf": any_value() }),
        Value::Bool(false) => *value = json!({ "not": {} }),
        Value::Object(map) => {
            make_portable(map, direction);
            // Under `not`, `{}` is the exact spelling of "nothing": leave it.
            if keyword != "not" && !constrains(map) {
                map.insert("anyOf".into(), any_value());
            }
        }
        _ => {}
    }
}

fn constrains(schema: &JSONObject) -> bool {
    schema.keys().any(|k| constraining(k))
        || (schema.contains_key("if")
            && (schema.contains_key("then") || schema.contains_key("else")))
}

/// An input value is never `null`: optional means absent. Removes `null` from `type` and
/// `enum`, a `null` default, and the `null` branch of a two-branch `anyOf`/`oneOf` (what
/// schemars writes for `Option<T>` when `T` is not a simple type).
fn drop_null(schema: &mut JSONObject) {
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|t| t != "null");
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if schema.get("default").is_some_and(Value::is_null) {
        schema.remove("default");
    }
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = schema.get(keyword) else {
            continue;
        };
        let is_null = |b: &Value| {
            b.get("type").is_some_and(|t| t == "null")
                && b.as_object().is_some_and(|o| o.len() == 1)
        };
        if branches.len() != 2 || !branches.iter().any(is_null) {
            continue;
        }
        let Some(Value::Object(kept)) = branches.iter().find(|b| !is_null(b)).cloned() else {
            continue;
        };
        schema.remove(keyword);
        for (k, v) in kept {
            schema.entry(k).or_insert(v);
        }
        // The kept branch may itself have been nullable.
        drop_null(schema);
    }
}

/// `"type": ["a", "b"]` becomes `"anyOf": [{"type": "a"}, {"type": "b"}]` (one type left:
/// `"type": "a"`). Keywords for one of the types stay beside it: JSON Schema applies them
/// only to instances of their type, so the meaning is unchanged.
fn split_type_union(schema: &mut JSONObject) {
    let Some(Value::Array(types)) = schema.get("type") else {
        return;
    };
    let types = types.clone();
    if let [one] = types.as_slice() {
        schema.insert("type".into(), one.clone());
        return;
    }
    schema.remove("type");
    let branches: Vec<Value> = types
        .into_iter()
        .map(|t| Value::Object(std::iter::once(("type".to_owned(), t)).collect()))
        .collect();
    if schema.contains_key("anyOf") {
        let all = schema
            .entry("allOf")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(all) = all {
            all.push(json!({ "anyOf": branches }));
        }
    } else {
        schema.insert("anyOf".into(), Value::Array(branches));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn portable(value: Value, direction: Direction) -> Value {
        let Value::Object(mut map) = value else {
            panic!("not an object")
        };
        make_portable(&mut map, direction);
        Value::Object(map)
    }

    #[test]
    fn optional_inputs_are_plain_types() {
        let schema = json!({
            "type": "object",
            "properties": {
                "limit": {"type": ["integer", "null"], "minimum": 0, "default": null},
                "mode": {"type": ["string", "null"], "enum": ["a", "b", null]},
                "where": {"anyOf": [{"type": "object", "properties": {"x": {"type": "string"}}}, {"type": "null"}], "description": "filter"}
            }
        });
        assert_eq!(
            portable(schema, Direction::Input),
            json!({
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "minimum": 0},
                    "mode": {"type": "string", "enum": ["a", "b"]},
                    "where": {"type": "object", "properties": {"x": {"type": "string"}}, "description": "filter"}
                }
            })
        );
    }

    #[test]
    fn outputs_keep_null_as_a_branch_and_lose_bare_booleans() {
        let schema = json!({
            "type": "object",
            "properties": {
                "size": {"type": ["integer", "null"], "minimum": 0},
                "rows": {"type": "array", "items": {"type": "array", "items": true}},
                "never": false,
                "note": {"description": "anything"}
            },
            "additionalProperties": false
        });
        let any = json!({"anyOf": any_value()});
        assert_eq!(
            portable(schema, Direction::Output),
            json!({
                "type": "object",
                "properties": {
                    "size": {"anyOf": [{"type": "integer"}, {"type": "null"}], "minimum": 0},
                    "rows": {"type": "array", "items": {"type": "array", "items": any}},
                    "never": {"not": {}},
                    "note": {"description": "anything", "anyOf": any_value()}
                },
                "additionalProperties": false
            })
        );
    }

    /// Non-standard formats go wherever a schema is, including a nullable branch an input
    /// keeps; a `format` member of a value (a `default`, a `const`) is data and stays.
    #[test]
    fn foreign_formats_go_from_schemas_only() {
        let schema = json!({
            "type": "object",
            "properties": {
                "n": {"anyOf": [{"type": "integer", "format": "uint32"}, {"type": "null"}]},
                "at": {"type": "string", "format": "date-time"},
                "opts": {"type": "object", "default": {"format": "int32"}, "const": {"format": "x"}}
            },
            "$defs": {"D": {"type": "number", "format": "double"}}
        });
        assert_eq!(
            portable(schema, Direction::Input),
            json!({
                "type": "object",
                "properties": {
                    "n": {"type": "integer"},
                    "at": {"type": "string", "format": "date-time"},
                    "opts": {"type": "object", "default": {"format": "int32"}, "const": {"format": "x"}}
                },
                "$defs": {"D": {"type": "number"}}
            })
        );
    }
}
