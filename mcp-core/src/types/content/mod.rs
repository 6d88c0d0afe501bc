//! Content: the text, image, audio and resource blocks that tools, prompts and sampling
//! exchange, and the contents of a resource.
//!
//! # The `type` member
//!
//! Each content struct carries its `type` member as a zero-sized marker field
//! (`r#type: TextTag`, `ImageTag`, …) that always serializes as its constant and only
//! deserializes from it. So a struct round-trips on its own, `type` included, and
//! [`ContentBlock`] (serialized untagged, deserialized by looking at `type` first) writes each
//! `type` exactly once.
//!
//! ```
//! use ferromcp_core::types::{ContentBlock, TextContent};
//!
//! let text: TextContent = serde_json::from_str(r#"{"type":"text","text":"hi"}"#).unwrap();
//! assert_eq!(serde_json::to_string(&text).unwrap(), r#"{"type":"text","text":"hi"}"#);
//!
//! let block: ContentBlock = serde_json::from_str(r#"{"type":"text","text":"hi"}"#).unwrap();
//! assert_eq!(block, ContentBlock::text("hi"));
//! assert!(serde_json::from_str::<TextContent>(r#"{"type":"image","text":"hi"}"#).is_err());
//! ```

use serde::de::{DeserializeOwned, Error as _, Unexpected};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::types::{JSONObject, Role};

/// Implements the traits of a zero-sized marker that (de)serializes as one constant string:
/// the `type` member of a struct that is also a variant of a union dispatched on `type`.
/// The marker itself is declared by hand beside its use.
macro_rules! type_tag {
    ($name:ident = $value:literal) => {
        impl $name {
            /// The constant this marker stands for on the wire.
            pub const VALUE: &'static str = $value;
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(
                &self,
                s: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                s.serialize_str($value)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                d: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let s = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(d)?;
                if s == $value {
                    ::core::result::Result::Ok($name)
                } else {
                    ::core::result::Result::Err(<D::Error as ::serde::de::Error>::invalid_value(
                        ::serde::de::Unexpected::Str(&s),
                        &$value,
                    ))
                }
            }
        }
    };
}
pub(crate) use type_tag;

// Declared after `type_tag!` so that the submodules see it without an import.
mod block;
mod media;
mod resource;
mod tool_use;

pub use block::ContentBlock;
pub use media::{AudioContent, AudioTag, ImageContent, ImageTag, TextContent, TextTag};
pub use resource::{
    BlobResourceContents, EmbeddedResource, ResourceContents, ResourceLink, ResourceLinkTag,
    ResourceTag, TextOrBlobResourceContents, TextResourceContents,
};
pub use tool_use::{ToolResultContent, ToolResultTag, ToolUseContent, ToolUseTag};

/// Reads a JSON object whose `type` member selects how the rest is read: returns that
/// member and the whole object. For hand-written `Deserialize` impls of unions.
pub(crate) fn tagged_value<'de, D: Deserializer<'de>>(d: D) -> Result<(String, Value), D::Error> {
    let value = Value::deserialize(d)?;
    let tag = match &value {
        Value::Object(map) => match map.get("type") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(D::Error::invalid_type(
                    unexpected(other),
                    &"a string `type` member",
                ));
            }
            None => return Err(D::Error::missing_field("type")),
        },
        other => return Err(D::Error::invalid_type(unexpected(other), &"an object")),
    };
    Ok((tag, value))
}

/// Reads `T` out of a buffered value, reporting failure as the caller's error type.
pub(crate) fn from_value<T: DeserializeOwned, E: serde::de::Error>(value: Value) -> Result<T, E> {
    T::deserialize(value).map_err(E::custom)
}

/// How serde names `v` in an "invalid type" error.
pub(crate) fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(_) => Unexpected::Other("a number"),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// `deserialize_with` for an optional "any JSON" member: present (even as `null`) is
/// `Some`, absent is `None` (with `#[serde(default)]`). Plain `Option<Value>` would read
/// `null` as absent.
pub(crate) fn present_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Hints for clients about who content is for, how important it is and when it changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the content is meant for (user, assistant or both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// 2025-06-18+: when the content last changed, as an ISO 8601 timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Shared by the tests of every content module: deserializes `v`, checks that it
    /// serializes back unchanged, and returns the typed value.
    pub(super) fn round_trip<T: Serialize + DeserializeOwned>(v: Value) -> T {
        let t: T = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
        t
    }

    #[test]
    fn standalone_structs_keep_their_type() {
        round_trip::<TextContent>(json!({"type": "text", "text": "Tool result text"}));
        round_trip::<ImageContent>(json!({
            "type": "image", "data": "iVBO", "mimeType": "image/png",
            "annotations": {"audience": ["user"], "priority": 0.9}
        }));
        round_trip::<AudioContent>(
            json!({"type": "audio", "data": "UklG", "mimeType": "audio/wav"}),
        );
        round_trip::<EmbeddedResource>(json!({
            "type": "resource",
            "resource": {"uri": "file:///a.rs", "mimeType": "text/x-rust", "text": "fn main() {}"},
            "annotations": {"audience": ["user", "assistant"], "priority": 0.7,
                            "lastModified": "2025-05-03T14:30:00Z"}
        }));
        round_trip::<ResourceLink>(json!({
            "type": "resource_link", "uri": "file:///a.rs", "name": "a.rs",
            "description": "entry point", "mimeType": "text/x-rust"
        }));
        round_trip::<ToolUseContent>(json!({
            "type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}
        }));
        round_trip::<ToolResultContent>(json!({
            "type": "tool_result", "toolUseId": "call_1",
            "content": [{"type": "text", "text": "18°C"}]
        }));
        round_trip::<TextResourceContents>(
            json!({"uri": "file:///a.txt", "mimeType": "text/plain", "text": "x"}),
        );
        round_trip::<BlobResourceContents>(json!({"uri": "file:///a.png", "blob": "iVBO"}));
    }

    #[test]
    fn standalone_struct_rejects_wrong_or_missing_type() {
        assert!(
            serde_json::from_value::<TextContent>(json!({"type": "image", "text": "x"})).is_err()
        );
        assert!(serde_json::from_value::<TextContent>(json!({"text": "x"})).is_err());
        assert!(
            serde_json::from_value::<ImageContent>(
                json!({"type": "audio", "data": "", "mimeType": "a"})
            )
            .is_err()
        );
    }
}
