//! What the fixture returns and publishes: a tiny image and audio clip, and the input
//! schemas written out by hand.

use ferromcp::prelude::ImageContent;
use serde_json::{Value, json};

/// A 1×1 transparent PNG.
pub(super) const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
/// A tiny WAV file (a RIFF header and no samples).
pub(super) const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";
pub(super) fn image() -> ImageContent {
    ImageContent::new(PNG, "image/png")
}

pub(super) fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "address",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "kind": {"type": "string", "enum": ["home", "work"]}
        },
        "allOf": [{"anyOf": [{"required": ["name"]}, {"required": ["address"]}]}],
        "if": {"properties": {"kind": {"const": "work"}}, "required": ["kind"]},
        "then": {"required": ["address"]},
        "else": {"required": ["name"]},
        "additionalProperties": false
    })
}
