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
//! use mcp_core::types::{ContentBlock, TextContent};
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

use crate::ProtocolVersion;
use crate::types::{Icon, JSONObject, MetaObject, Role};

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

/// The `"type": "text"` of a [`TextContent`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextTag;
type_tag!(TextTag = "text");
/// The `"type": "image"` of an [`ImageContent`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ImageTag;
type_tag!(ImageTag = "image");
/// The `"type": "audio"` of an [`AudioContent`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AudioTag;
type_tag!(AudioTag = "audio");
/// The `"type": "resource"` of an [`EmbeddedResource`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceTag;
type_tag!(ResourceTag = "resource");
/// The `"type": "resource_link"` of a [`ResourceLink`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceLinkTag;
type_tag!(ResourceLinkTag = "resource_link");
/// The `"type": "tool_use"` of a [`ToolUseContent`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolUseTag;
type_tag!(ToolUseTag = "tool_use");
/// The `"type": "tool_result"` of a [`ToolResultContent`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolResultTag;
type_tag!(ToolResultTag = "tool_result");

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

fn unexpected(v: &Value) -> Unexpected<'_> {
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

/// A block of plain text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// Always `"text"`.
    #[serde(rename = "type")]
    pub r#type: TextTag,
    /// The text.
    pub text: String,
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

impl TextContent {
    /// A text block with no annotations.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent {
            text: text.into(),
            ..Default::default()
        }
    }
}

/// An image, base64-encoded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Always `"image"`.
    #[serde(rename = "type")]
    pub r#type: ImageTag,
    /// The image bytes in base64.
    pub data: String,
    /// The image format, e.g. `image/png`.
    pub mime_type: String,
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

impl ImageContent {
    /// An image from its base64 data and MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ImageContent {
            data: data.into(),
            mime_type: mime_type.into(),
            ..Default::default()
        }
    }
}

/// An audio clip, base64-encoded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Always `"audio"`.
    #[serde(rename = "type")]
    pub r#type: AudioTag,
    /// The audio bytes in base64.
    pub data: String,
    /// The audio format, e.g. `audio/wav`.
    pub mime_type: String,
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

impl AudioContent {
    /// An audio clip from its base64 data and MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        AudioContent {
            data: data.into(),
            mime_type: mime_type.into(),
            ..Default::default()
        }
    }
}

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

/// 2025-11-25+: a model's request to call a tool, inside a sampling message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Always `"tool_use"`.
    #[serde(rename = "type")]
    pub r#type: ToolUseTag,
    /// Identifies this call; the matching [`ToolResultContent`] repeats it.
    pub id: String,
    /// The tool to call.
    pub name: String,
    /// The arguments.
    pub input: JSONObject,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ToolUseContent {
    /// A call of tool `name` with `input`, identified by `id`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: JSONObject) -> Self {
        ToolUseContent {
            id: id.into(),
            name: name.into(),
            input,
            ..Default::default()
        }
    }
}

/// 2025-11-25+: the outcome of a tool call, inside a sampling message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// Always `"tool_result"`.
    #[serde(rename = "type")]
    pub r#type: ToolResultTag,
    /// The `id` of the [`ToolUseContent`] this answers.
    pub tool_use_id: String,
    /// The result as content blocks.
    pub content: Vec<ContentBlock>,
    /// The result as structured data (an object in 2025-11-25, any value in 2026).
    #[serde(
        default,
        deserialize_with = "present_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ToolResultContent {
    /// The result of call `tool_use_id`, as content blocks.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<ContentBlock>) -> Self {
        ToolResultContent {
            tool_use_id: tool_use_id.into(),
            content,
            ..Default::default()
        }
    }
}

/// One piece of content in a tool result or a prompt message. Dispatched on `type`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ContentBlock {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"`.
    Audio(AudioContent),
    /// `"resource_link"` (2025-06-18+).
    ResourceLink(ResourceLink),
    /// `"resource"`.
    Resource(EmbeddedResource),
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (tag, value) = tagged_value(d)?;
        match tag.as_str() {
            TextTag::VALUE => from_value(value).map(ContentBlock::Text),
            ImageTag::VALUE => from_value(value).map(ContentBlock::Image),
            AudioTag::VALUE => from_value(value).map(ContentBlock::Audio),
            ResourceLinkTag::VALUE => from_value(value).map(ContentBlock::ResourceLink),
            ResourceTag::VALUE => from_value(value).map(ContentBlock::Resource),
            other => Err(D::Error::unknown_variant(
                other,
                &["text", "image", "audio", "resource_link", "resource"],
            )),
        }
    }
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An image block from base64 data and a MIME type.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent::new(data, mime_type))
    }

    /// An audio block from base64 data and a MIME type.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent::new(data, mime_type))
    }

    /// An embedded resource block.
    pub fn resource(resource: impl Into<TextOrBlobResourceContents>) -> Self {
        ContentBlock::Resource(EmbeddedResource::new(resource))
    }

    /// A resource link block.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentBlock::ResourceLink(ResourceLink::new(uri, name))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// Adapts the block to a revision: 2025-03-26 has no resource links, so there a link
    /// becomes a text block `"<title or name>: <uri>"` (annotations and `_meta` kept).
    /// Every other block is valid in every revision and is left alone.
    pub fn prepare_for(&mut self, version: ProtocolVersion) {
        if version != ProtocolVersion::V2025_03_26 {
            return;
        }
        if let ContentBlock::ResourceLink(link) = self {
            let label = link.title.as_deref().unwrap_or(&link.name);
            let text = TextContent {
                r#type: TextTag,
                text: format!("{label}: {}", link.uri),
                annotations: link.annotations.take(),
                meta: link.meta.take(),
                extra: JSONObject::new(),
            };
            *self = ContentBlock::Text(text);
        }
    }
}

impl From<TextContent> for ContentBlock {
    fn from(c: TextContent) -> Self {
        ContentBlock::Text(c)
    }
}

impl From<ImageContent> for ContentBlock {
    fn from(c: ImageContent) -> Self {
        ContentBlock::Image(c)
    }
}

impl From<AudioContent> for ContentBlock {
    fn from(c: AudioContent) -> Self {
        ContentBlock::Audio(c)
    }
}

impl From<ResourceLink> for ContentBlock {
    fn from(c: ResourceLink) -> Self {
        ContentBlock::ResourceLink(c)
    }
}

impl From<EmbeddedResource> for ContentBlock {
    fn from(c: EmbeddedResource) -> Self {
        ContentBlock::Resource(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip<T: Serialize + DeserializeOwned>(v: Value) -> T {
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

    #[test]
    fn content_block_dispatches_on_type() {
        let image: ContentBlock =
            round_trip(json!({"type": "image", "data": "AA", "mimeType": "image/png"}));
        assert!(matches!(image, ContentBlock::Image(_)));
        let audio: ContentBlock =
            round_trip(json!({"type": "audio", "data": "AA", "mimeType": "audio/wav"}));
        assert!(matches!(audio, ContentBlock::Audio(_)));
        let link: ContentBlock =
            round_trip(json!({"type": "resource_link", "uri": "x:/", "name": "n"}));
        assert_eq!(link, ContentBlock::resource_link("x:/", "n"));
        let res: ContentBlock =
            round_trip(json!({"type": "resource", "resource": {"uri": "x:/", "blob": "AA"}}));
        assert_eq!(
            res,
            ContentBlock::resource(BlobResourceContents::new("x:/", "AA"))
        );
        let text: ContentBlock =
            round_trip(json!({"type": "text", "text": "hi", "_meta": {"k": 1}, "future": true}));
        let ContentBlock::Text(t) = &text else {
            panic!("not text")
        };
        assert_eq!(t.extra.get("future"), Some(&json!(true)));
        assert_eq!(text.as_text(), Some("hi"));

        assert_eq!(
            serde_json::to_value(ContentBlock::text("hi")).unwrap(),
            json!({"type": "text", "text": "hi"})
        );
    }

    #[test]
    fn content_block_errors_are_specific() {
        let err = serde_json::from_value::<ContentBlock>(json!({"type": "video"})).unwrap_err();
        assert!(err.to_string().contains("unknown variant `video`"), "{err}");
        let err = serde_json::from_value::<ContentBlock>(json!({"text": "x"})).unwrap_err();
        assert!(err.to_string().contains("missing field `type`"), "{err}");
        let err = serde_json::from_value::<ContentBlock>(json!({"type": "image", "data": "x"}))
            .unwrap_err();
        assert!(err.to_string().contains("mimeType"), "{err}");
        // Tool use/result blocks belong to sampling messages, not to ContentBlock.
        assert!(
            serde_json::from_value::<ContentBlock>(
                json!({"type": "tool_use", "id": "1", "name": "n", "input": {}})
            )
            .is_err()
        );
    }

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

    #[test]
    fn structured_content_null_is_kept() {
        let r: ToolResultContent = round_trip(json!({
            "type": "tool_result", "toolUseId": "1", "content": [], "structuredContent": null
        }));
        assert_eq!(r.structured_content, Some(Value::Null));
    }

    #[test]
    fn resource_link_becomes_text_in_2025_03_26() {
        let mut link = ContentBlock::ResourceLink(ResourceLink {
            title: Some("Main".into()),
            ..ResourceLink::new("file:///main.rs", "main.rs")
        });
        let mut kept = link.clone();
        kept.prepare_for(ProtocolVersion::V2025_06_18);
        assert_eq!(kept, link);
        link.prepare_for(ProtocolVersion::V2025_03_26);
        assert_eq!(link, ContentBlock::text("Main: file:///main.rs"));
    }
}
