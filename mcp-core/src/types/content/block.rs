//! [`ContentBlock`]: one piece of content in a tool result or a prompt message.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use super::{
    Annotations, AudioContent, AudioTag, EmbeddedResource, ImageContent, ImageTag, ResourceLink,
    ResourceLinkTag, ResourceTag, TextContent, TextOrBlobResourceContents, TextTag, from_value,
    tagged_value,
};
use crate::ProtocolVersion;
use crate::types::{JSONObject, MetaObject};

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

    /// Adapts the block to a revision. A revision without resource links (2024-11-05,
    /// 2025-03-26) gets a link as a text block `"<title or name>: <uri>"`; one without
    /// audio (2024-11-05) gets audio as a text block `"[audio omitted: <mimeType>]"`
    /// (annotations and `_meta` kept in both cases). For 2024-11-05, which leaves out what
    /// it lacks ([`ProtocolVersion::omits_later_members`]), the block's `_meta`, its
    /// embedded resource's `_meta` and its annotations' `lastModified` are removed too.
    /// Every other block is valid in every revision and is left alone.
    pub fn prepare_for(&mut self, version: ProtocolVersion) {
        match self {
            ContentBlock::ResourceLink(link) if !version.has_resource_links() => {
                let label = link.title.as_deref().unwrap_or(&link.name);
                let text = format!("{label}: {}", link.uri);
                *self =
                    ContentBlock::Text(text_with(text, link.annotations.take(), link.meta.take()));
            }
            ContentBlock::Audio(audio) if !version.has_audio() => {
                let text = format!("[audio omitted: {}]", audio.mime_type);
                *self = ContentBlock::Text(text_with(
                    text,
                    audio.annotations.take(),
                    audio.meta.take(),
                ));
            }
            _ => {}
        }
        if version.omits_later_members() {
            self.omit_meta();
        }
    }

    /// Removes the 2025-06-18 members: `_meta` (of the block and of an embedded resource's
    /// contents) and `annotations.lastModified`.
    fn omit_meta(&mut self) {
        let (annotations, meta) = match self {
            ContentBlock::Text(c) => (&mut c.annotations, &mut c.meta),
            ContentBlock::Image(c) => (&mut c.annotations, &mut c.meta),
            ContentBlock::Audio(c) => (&mut c.annotations, &mut c.meta),
            ContentBlock::ResourceLink(c) => (&mut c.annotations, &mut c.meta),
            ContentBlock::Resource(c) => {
                match &mut c.resource {
                    TextOrBlobResourceContents::Text(r) => r.meta = None,
                    TextOrBlobResourceContents::Blob(r) => r.meta = None,
                }
                (&mut c.annotations, &mut c.meta)
            }
        };
        *meta = None;
        if let Some(a) = annotations {
            a.last_modified = None;
        }
    }
}

/// A text block carrying what a block it replaces was annotated with.
fn text_with(
    text: String,
    annotations: Option<Annotations>,
    meta: Option<MetaObject>,
) -> TextContent {
    TextContent {
        r#type: TextTag,
        text,
        annotations,
        meta,
        extra: JSONObject::new(),
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
    use crate::types::BlobResourceContents;
    use crate::types::content::tests::round_trip;
    use serde_json::json;

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

    #[test]
    fn audio_and_meta_are_left_out_for_2024_11_05() {
        let audio: ContentBlock = serde_json::from_value(json!({
            "type": "audio", "data": "AA", "mimeType": "audio/wav",
            "annotations": {"priority": 1.0, "lastModified": "2025-01-01T00:00:00Z"},
            "_meta": {"k": 1}
        }))
        .unwrap();
        let mut kept = audio.clone();
        kept.prepare_for(ProtocolVersion::V2025_03_26);
        assert_eq!(kept, audio);
        let mut old = audio;
        old.prepare_for(ProtocolVersion::V2024_11_05);
        assert_eq!(
            serde_json::to_value(&old).unwrap(),
            json!({"type": "text", "text": "[audio omitted: audio/wav]", "annotations": {"priority": 1.0}})
        );
        let mut link = ContentBlock::resource_link("file:///a", "a");
        link.prepare_for(ProtocolVersion::V2024_11_05);
        assert_eq!(link, ContentBlock::text("a: file:///a"));
        let mut embedded: ContentBlock = serde_json::from_value(json!({
            "type": "resource", "_meta": {"k": 1},
            "resource": {"uri": "x:/", "text": "t", "_meta": {"k": 2}}
        }))
        .unwrap();
        embedded.prepare_for(ProtocolVersion::V2024_11_05);
        assert_eq!(
            serde_json::to_value(&embedded).unwrap(),
            json!({"type": "resource", "resource": {"uri": "x:/", "text": "t"}})
        );
    }
}
