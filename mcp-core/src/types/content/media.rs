//! Media blocks: text, images and audio.

use serde::{Deserialize, Serialize};

use super::Annotations;
use crate::types::{JSONObject, MetaObject};

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
