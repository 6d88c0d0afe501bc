//! The tool parameters a 2026 client mirrors into `Mcp-Param-*` headers: the `x-mcp-header`
//! annotations of a tool's input schema, found and checked once, when the tool is
//! registered, rather than on every call.
//!
//! The transport specification (2026-07-28, Streamable HTTP) makes a client drop a tool
//! whose annotations break its rules, so a server that listed one would offer a tool that
//! conforming clients never show. The registry refuses it instead, saying which rule.

use ferromcp_core::types::JSONObject;
use serde_json::Value;

/// A tool parameter mirrored into an `Mcp-Param-*` header.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MirroredParam {
    /// The chain of `properties` keys from the schema root.
    pub(crate) path: Vec<String>,
    /// The header as it is looked up: `mcp-param-` and the annotation, lowercase.
    pub(crate) key: String,
    /// The header as errors name it: `Mcp-Param-` and the annotation as written.
    pub(crate) display: String,
}

/// The `x-mcp-header` annotations of `schema` reachable through `properties` (at any
/// depth), each checked: a string that is an HTTP token (RFC 9110 `1*tchar`, so not empty,
/// ASCII, without spaces, colons or controls), unique among the schema's annotations
/// regardless of case, and on a parameter of type `string`, `integer` or `boolean`.
///
/// # Errors
///
/// The first annotation that breaks a rule, and which rule.
pub(crate) fn mirrored_params(schema: &JSONObject) -> Result<Box<[MirroredParam]>, String> {
    let mut out: Vec<MirroredParam> = Vec::new();
    walk(schema, &mut Vec::new(), &mut out)?;
    if schema.contains_key(HEADER) {
        return Err(format!(
            "`{HEADER}` is on the schema's root, not on a property"
        ));
    }
    strays(schema, true, &mut Vec::new())?;
    Ok(out.into_boxed_slice())
}

const HEADER: &str = "x-mcp-header";

/// An annotation that no chain of `properties` keys from the root reaches (under `items`,
/// `oneOf`/`anyOf`/`allOf`/`not`, `if`/`then`/`else`, `$ref`'s targets in `$defs`, ...):
/// the transport specification makes such an annotation, and so the tool, invalid.
/// `reachable`: `schema` is the root or a property reached from it through `properties`
/// alone. Keywords whose values are data, not schemas (`enum`, `const`, `default`,
/// `examples`), are not looked into.
fn strays(schema: &JSONObject, reachable: bool, at: &mut Vec<String>) -> Result<(), String> {
    if !reachable && schema.contains_key(HEADER) {
        return Err(format!(
            "`{HEADER}` at `{}` is not on a property reached from the root through \
             `properties` alone (not through items, composition, conditions or $ref)",
            at.join("/")
        ));
    }
    for (keyword, value) in schema {
        match (keyword.as_str(), value) {
            ("enum" | "const" | "default" | "examples", _) => {}
            ("properties", Value::Object(props)) => {
                for (name, sub) in props {
                    if let Value::Object(sub) = sub {
                        at.push(format!("properties/{name}"));
                        strays(sub, reachable, at)?;
                        at.pop();
                    }
                }
            }
            (_, value) => {
                at.push(keyword.clone());
                stray_values(value, at)?;
                at.pop();
            }
        }
    }
    Ok(())
}

/// [`strays`] in every schema inside `value`, none of them reachable.
fn stray_values(value: &Value, at: &mut Vec<String>) -> Result<(), String> {
    match value {
        Value::Object(schema) => strays(schema, false, at),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                at.push(i.to_string());
                stray_values(item, at)?;
                at.pop();
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn walk(
    schema: &JSONObject,
    path: &mut Vec<String>,
    out: &mut Vec<MirroredParam>,
) -> Result<(), String> {
    let Some(Value::Object(props)) = schema.get("properties") else {
        return Ok(());
    };
    for (key, sub) in props {
        let Value::Object(sub) = sub else { continue };
        path.push(key.clone());
        if let Some(header) = sub.get(HEADER) {
            let at = path.join(".");
            let Value::String(header) = header else {
                return Err(format!("`x-mcp-header` of `{at}` is not a string"));
            };
            if header.is_empty() || !header.bytes().all(is_tchar) {
                return Err(format!(
                    "`x-mcp-header` \"{}\" of `{at}` is not an HTTP header name token \
                     (letters, digits and !#$%&'*+-.^_`|~, at least one)",
                    header.escape_debug()
                ));
            }
            match sub.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                _ => {
                    return Err(format!(
                        "`x-mcp-header` \"{header}\" is on `{at}`, which is not of type \
                         \"string\", \"integer\" or \"boolean\""
                    ));
                }
            }
            let key = format!("mcp-param-{}", header.to_ascii_lowercase());
            if let Some(other) = out.iter().find(|p| p.key == key) {
                return Err(format!(
                    "`x-mcp-header` \"{header}\" of `{at}` is also the header of `{}` \
                     (header names ignore case)",
                    other.path.join(".")
                ));
            }
            out.push(MirroredParam {
                path: path.clone(),
                key,
                display: format!("Mcp-Param-{header}"),
            });
        }
        walk(sub, path, out)?;
        path.pop();
    }
    Ok(())
}

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn params(properties: Value) -> Result<Vec<(String, String)>, String> {
        let schema = json!({"type": "object", "properties": properties});
        mirrored_params(schema.as_object().unwrap()).map(|params| {
            params
                .iter()
                .map(|p| (p.path.join("."), p.key.clone()))
                .collect()
        })
    }

    #[test]
    fn annotations_are_found_through_properties_at_any_depth() {
        let found = params(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
            "target": {"type": "object", "properties": {
                "shard": {"type": "integer", "x-mcp-header": "Shard-Id"},
                "dry": {"type": "boolean", "x-mcp-header": "Dry_Run"}
            }},
            // A property named like the annotation is a property, not an annotation.
            "x-mcp-header": {"type": "string", "default": {"x-mcp-header": "NotOne"}}
        }))
        .unwrap();
        assert_eq!(
            found,
            [
                ("region", "mcp-param-region"),
                ("target.dry", "mcp-param-dry_run"),
                ("target.shard", "mcp-param-shard-id"),
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
    }

    #[test]
    fn annotations_that_conforming_clients_reject_are_refused() {
        // The invalid tool definitions of the official conformance suite, and a few more.
        for (properties, complaint) in [
            (
                json!({"v": {"type": "string", "x-mcp-header": ""}}),
                "not an HTTP header name",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "My Region"}}),
                "not an HTTP header name",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "Region:Primary"}}),
                "not an HTTP header name",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "Région"}}),
                "not an HTTP header name",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "Region\t1"}}),
                "not an HTTP header name",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "A\r\nB"}}),
                "not an HTTP header name",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": 5}}),
                "is not a string",
            ),
            (
                json!({"v": {"type": "number", "x-mcp-header": "Score"}}),
                "not of type",
            ),
            (
                json!({"v": {"type": "object", "x-mcp-header": "Data"}}),
                "not of type",
            ),
            (
                json!({"v": {"type": "array", "x-mcp-header": "List"}}),
                "not of type",
            ),
            (
                json!({"v": {"type": "null", "x-mcp-header": "Nil"}}),
                "not of type",
            ),
            (json!({"v": {"x-mcp-header": "Untyped"}}), "not of type"),
            (
                json!({"v": {"type": ["string", "null"], "x-mcp-header": "Maybe"}}),
                "not of type",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "Region"},
                       "b": {"type": "string", "x-mcp-header": "Region"}}),
                "also the header of `a`",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "MyField"},
                       "b": {"type": "object", "properties": {
                           "c": {"type": "string", "x-mcp-header": "myfield"}}}}),
                "also the header of `a`",
            ),
        ] {
            let error = params(properties.clone()).unwrap_err();
            assert!(error.contains(complaint), "{properties}: {error}");
        }
    }

    /// Only a chain of `properties` keys from the root may reach an annotated property.
    #[test]
    fn annotations_off_the_properties_chain_are_refused() {
        let leaf = json!({"type": "string", "x-mcp-header": "Item"});
        for (schema, at) in [
            (
                json!({"type": "object", "properties": {"list": {"type": "array", "items": leaf}}}),
                "properties/list/items",
            ),
            (
                json!({"type": "object", "properties": {"v": {"oneOf": [leaf, {"type": "integer"}]}}}),
                "properties/v/oneOf/0",
            ),
            (
                json!({"type": "object", "anyOf": [{"properties": {"v": leaf}}]}),
                "anyOf/0/properties/v",
            ),
            (
                json!({"type": "object", "properties": {"v": {"$ref": "#/$defs/Leaf"}}, "$defs": {"Leaf": leaf}}),
                "$defs/Leaf",
            ),
            (
                json!({"type": "object", "if": {"properties": {"v": leaf}}, "then": {}}),
                "if/properties/v",
            ),
            (
                json!({"type": "object", "properties": {"o": {"type": "object", "additionalProperties": leaf}}}),
                "properties/o/additionalProperties",
            ),
        ] {
            let error = mirrored_params(schema.as_object().unwrap()).unwrap_err();
            assert!(error.contains(&format!("`{at}`")), "{schema}: {error}");
        }
        let error = mirrored_params(
            json!({"type": "object", "x-mcp-header": "Root"})
                .as_object()
                .unwrap(),
        )
        .unwrap_err();
        assert!(error.contains("root"), "{error}");
    }
}
