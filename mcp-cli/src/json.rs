//! JSON that keeps its keys in the order the file had them, for editing config files that
//! people also edit by hand.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// A JSON value whose objects keep their key order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json reads it.
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, in file order.
    Object(IndexMap<String, Json>),
}

impl Json {
    /// An empty object.
    pub(crate) fn object() -> Json {
        Json::Object(IndexMap::new())
    }

    /// The object's map, if this is an object.
    pub(crate) fn as_object_mut(&mut self) -> Option<&mut IndexMap<String, Json>> {
        match self {
            Json::Object(map) => Some(map),
            _ => None,
        }
    }

    /// `self[key]`, made an empty object first if missing; `None` if `self` is not an
    /// object or `self[key]` is something else.
    pub(crate) fn child_object(&mut self, key: &str) -> Option<&mut Json> {
        let map = self.as_object_mut()?;
        let child = map.entry(key.to_owned()).or_insert_with(Json::object);
        matches!(child, Json::Object(_)).then_some(child)
    }

    /// The text of a string value.
    pub(crate) fn string(text: impl Into<String>) -> Json {
        Json::String(text.into())
    }

    /// An object of string values, in the given order.
    pub(crate) fn string_map(pairs: &[(String, String)]) -> Json {
        Json::Object(
            pairs
                .iter()
                .map(|(k, v)| (k.clone(), Json::string(v)))
                .collect(),
        )
    }

    /// The value as pretty JSON text (two-space indent) with a final newline.
    pub(crate) fn to_pretty(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order_through_a_round_trip() {
        let text = r#"{"z": 1, "a": {"y": [true, null, 1.5], "b": "s"}, "m": -3}"#;
        let value: Json = serde_json::from_str(text).unwrap();
        let back = serde_json::to_string(&value).unwrap();
        assert_eq!(back, r#"{"z":1,"a":{"y":[true,null,1.5],"b":"s"},"m":-3}"#);
    }
}
