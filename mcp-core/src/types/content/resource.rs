//! Resources inside messages: the contents of a resource, embedded, or a link to one.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::{Annotations, from_value, unexpected};
use crate::types::{Icon, JSONObject, MetaObject};

/// The `"type": "resource"` of an [`EmbeddedResource`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceTag;
type_tag!(ResourceTag = "resource");
/// The `"type": "resource_link"` of a [`ResourceLink`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceLinkTag;
type_tag!(ResourceLinkTag = "resource_link");

/// The members every resource contents object has.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// The resource's MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The contents of a resource that is text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// The resource's MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl TextResourceContents {
    /// Text contents of the resource at `uri`.
    pub fn new(uri: impl Into<String>, text: impl Into<String>) -> Self {
        TextResourceContents {
            uri: uri.into(),
            text: text.into(),
            ..Default::default()
        }
    }
}

/// The contents of a binary resource, base64-encoded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// The resource's MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The bytes in base64.
    pub blob: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl BlobResourceContents {
    /// Binary contents (already base64-encoded) of the resource at `uri`.
    pub fn new(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        BlobResourceContents {
            uri: uri.into(),
            blob: blob.into(),
            ..Default::default()
        }
    }
}

/// Text or binary resource contents. Read by which of `text` / `blob` is present (`text`
/// wins if both are); written as the inner object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TextOrBlobResourceContents {
    /// Text contents.
    Text(TextResourceContents),
    /// Binary contents.
    Blob(BlobResourceContents),
}

impl TextOrBlobResourceContents {
    /// The resource's URI.
    pub fn uri(&self) -> &str {
        match self {
            TextOrBlobResourceContents::Text(t) => &t.uri,
            TextOrBlobResourceContents::Blob(b) => &b.uri,
        }
    }

    /// The resource's MIME type, if known.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            TextOrBlobResourceContents::Text(t) => t.mime_type.as_deref(),
            TextOrBlobResourceContents::Blob(b) => b.mime_type.as_deref(),
        }
    }
}

impl<'de> Deserialize<'de> for TextOrBlobResourceContents {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let Value::Object(map) = &value else {
            return Err(D::Error::invalid_type(
                unexpected(&value),
                &"resource contents object",
            ));
        };
        if map.contains_key("text") {
            from_value(value).map(TextOrBlobResourceContents::Text)
        } else if map.contains_key("blob") {
            from_value(value).map(TextOrBlobResourceContents::Blob)
        } else {
            Err(D::Error::custom(
                "resource contents need a `text` or a `blob` member",
            ))
        }
    }
}

impl From<TextResourceContents> for TextOrBlobResourceContents {
    fn from(c: TextResourceContents) -> Self {
        TextOrBlobResourceContents::Text(c)
    }
}

impl From<BlobResourceContents> for TextOrBlobResourceContents {
    fn from(c: BlobResourceContents) -> Self {
        TextOrBlobResourceContents::Blob(c)
    }
}

/// A resource's contents embedded in a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// Always `"resource"`.
    #[serde(rename = "type")]
    pub r#type: ResourceTag,
    /// The contents.
    pub resource: TextOrBlobResourceContents,
    /// Audience and priority hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl EmbeddedResource {
    /// Embeds the given contents, with no annotations.
    pub fn new(resource: impl Into<TextOrBlobResourceContents>) -> Self {
        EmbeddedResource {
            r#type: ResourceTag,
            resource: resource.into(),
            annotations: None,
            meta: None,
            extra: JSONObject::new(),
        }
    }
}

/// 2025-06-18+: a pointer to a resource the client may read, without its contents.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// Always `"resource_link"`.
    #[serde(rename = "type")]
    pub r#type: ResourceLinkTag,
    /// The resource's URI.
    pub uri: String,
    /// The programmatic name.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The resource's MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size in bytes before any encoding, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// 2025-11-25+: icons to show for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Audience and priority hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ResourceLink {
    /// A link to `uri` named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::content::tests::round_trip;
    use serde_json::json;

    #[test]
    fn resource_contents_dispatch_on_text_or_blob() {
        let t: TextOrBlobResourceContents = round_trip(json!({"uri": "a:", "text": "x"}));
        assert!(matches!(t, TextOrBlobResourceContents::Text(_)));
        assert_eq!(t.uri(), "a:");
        let b: TextOrBlobResourceContents =
            round_trip(json!({"uri": "a:", "blob": "AA", "mimeType": "m"}));
        assert!(matches!(b, TextOrBlobResourceContents::Blob(_)));
        assert_eq!(b.mime_type(), Some("m"));
        assert!(
            serde_json::from_value::<TextOrBlobResourceContents>(json!({"uri": "a:"})).is_err()
        );
    }
}
