//! List pages (`tools/list`, …): serialized once per registry snapshot and protocol
//! revision, served from the cache, with opaque cursors.

use base64::Engine as _;
use mcp_core::ProtocolVersion;
use mcp_core::error::ErrorObject;
use mcp_core::types::{Cacheable, ResultMetaObject};
use serde_json::value::RawValue;

use super::*;
use crate::meta::WithMeta;
use crate::sync::lock;

/// Which list a page belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ListKind {
    Tools,
    Resources,
    ResourceTemplates,
    Prompts,
}

impl Registry {
    /// One page of a list, serialized for `version`, from the cache when it was built
    /// before. `meta` is attached to every page (2026 `serverInfo`).
    ///
    /// # Errors
    ///
    /// An invalid cursor (-32602).
    pub(crate) fn page(
        &self,
        kind: ListKind,
        version: ProtocolVersion,
        cursor: Option<&str>,
        meta: Option<&ResultMetaObject>,
        cache: mcp_core::types::CacheHints,
    ) -> Result<Arc<RawValue>, ErrorObject> {
        let offset = match cursor {
            None => 0,
            Some(c) => {
                decode_cursor(c).ok_or_else(|| ErrorObject::invalid_params("invalid cursor"))?
            }
        };
        let s = self.current();
        let total = match kind {
            ListKind::Tools => s.tools.len(),
            ListKind::Resources => s.resources.len(),
            ListKind::ResourceTemplates => s.templates.len(),
            ListKind::Prompts => s.prompts.len(),
        };
        if offset > total || (offset == total && offset != 0) {
            return Err(ErrorObject::invalid_params("invalid cursor"));
        }
        let key = (kind, version, offset);
        if let Some(page) = lock(&s.pages).get(&key) {
            return Ok(page.clone());
        }
        let end = offset
            .saturating_add(self.settings.page_size.max(1))
            .min(total);
        let next_cursor = (end < total).then(|| encode_cursor(end));
        let json = match kind {
            ListKind::Tools => {
                let mut r = ListToolsResult::new(
                    s.tools[offset..end]
                        .iter()
                        .map(|t| t.tool.clone())
                        .collect(),
                );
                r.next_cursor = next_cursor;
                finish(r, version, meta, cache)
            }
            ListKind::Resources => {
                let mut r = ListResourcesResult::new(
                    s.resources[offset..end]
                        .iter()
                        .map(|t| t.resource.clone())
                        .collect(),
                );
                r.next_cursor = next_cursor;
                finish(r, version, meta, cache)
            }
            ListKind::ResourceTemplates => {
                let mut r = ListResourceTemplatesResult::new(
                    s.templates[offset..end]
                        .iter()
                        .map(|t| t.template.clone())
                        .collect(),
                );
                r.next_cursor = next_cursor;
                finish(r, version, meta, cache)
            }
            ListKind::Prompts => {
                let mut r = ListPromptsResult::new(
                    s.prompts[offset..end]
                        .iter()
                        .map(|t| t.prompt.clone())
                        .collect(),
                );
                r.next_cursor = next_cursor;
                finish(r, version, meta, cache)
            }
        }?;
        let page: Arc<RawValue> = Arc::from(json);
        lock(&s.pages).insert(key, page.clone());
        Ok(page)
    }
}

fn finish<R: WithMeta + Cacheable>(
    mut result: R,
    version: ProtocolVersion,
    meta: Option<&ResultMetaObject>,
    cache: mcp_core::types::CacheHints,
) -> Result<Box<RawValue>, ErrorObject> {
    if version.era() == mcp_core::Era::Modern {
        result.set_cache_hints(cache);
        if let Some(meta) = meta {
            *result.meta_mut() = Some(meta.clone());
        }
    }
    result.prepare_for(version);
    serde_json::value::to_raw_value(&result)
        .map_err(|e| ErrorObject::internal_error(format!("list does not serialize: {e}")))
}

const CURSOR_PREFIX: &str = "mcp-offset:";

fn encode_cursor(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{CURSOR_PREFIX}{offset}"))
}

fn decode_cursor(cursor: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    text.strip_prefix(CURSOR_PREFIX)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_opaque_and_checked() {
        assert_eq!(decode_cursor(&encode_cursor(42)), Some(42));
        assert_eq!(decode_cursor("42"), None);
        assert_eq!(decode_cursor("!!!"), None);
    }
}
