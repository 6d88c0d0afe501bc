//! List pages (`tools/list`, …): serialized once per registry snapshot and protocol
//! revision, served from the cache, with opaque cursors.

use base64::Engine as _;
use ferromcp_core::ProtocolVersion;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::types::Cacheable;
use serde_json::value::RawValue;

use super::*;
use crate::meta::{Modern, WithMeta};
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
    /// before. `server_info` (the server's self-description as JSON) is attached to every
    /// 2026 page. With `granted` (an
    /// authenticated caller's scopes), items needing scopes it lacks are left out.
    ///
    /// # Errors
    ///
    /// An invalid cursor (-32602).
    pub(crate) fn page(
        &self,
        kind: ListKind,
        version: ProtocolVersion,
        cursor: Option<&str>,
        server_info: &RawValue,
        cache: ferromcp_core::types::CacheHints,
        granted: Option<&[String]>,
    ) -> Result<Arc<RawValue>, ErrorObject> {
        let offset = match cursor {
            None => 0,
            Some(c) => {
                decode_cursor(c).ok_or_else(|| ErrorObject::invalid_params("invalid cursor"))?
            }
        };
        let s = self.current();
        let len = match kind {
            ListKind::Tools => s.tools.len(),
            ListKind::Resources => s.resources.len(),
            ListKind::ResourceTemplates => s.templates.len(),
            ListKind::Prompts => s.prompts.len(),
        };
        let key_of = |i: usize| match kind {
            ListKind::Tools => s.tools[i].tool.name.as_str(),
            ListKind::Resources => s.resources[i].resource.uri.as_str(),
            ListKind::ResourceTemplates => s.templates[i].template.uri_template.as_str(),
            ListKind::Prompts => s.prompts[i].prompt.name.as_str(),
        };
        // What an authenticated caller sees when items need scopes: the items whose scopes
        // it holds, cached per set of its scopes that matter here. Otherwise everything.
        let filtered: Option<(Vec<usize>, String)> = match granted {
            Some(granted) if s.scopes.any() => {
                let held: Vec<&str> = s
                    .scopes
                    .universe()
                    .into_iter()
                    .filter(|u| granted.iter().any(|g| g == u))
                    .collect();
                let visible = (0..len)
                    .filter(|&i| scopes::satisfies(granted, s.scopes.of(kind, key_of(i))))
                    .collect();
                Some((visible, format!("\u{1}{}", held.join(" "))))
            }
            _ => None,
        };
        let total = filtered.as_ref().map_or(len, |(v, _)| v.len());
        if offset > total || (offset == total && offset != 0) {
            return Err(ErrorObject::invalid_params("invalid cursor"));
        }
        let scope_key = filtered
            .as_ref()
            .map_or_else(String::new, |(_, k)| k.clone());
        let key = (kind, version, offset, scope_key);
        if let Some(page) = lock(&s.pages).get(&key) {
            return Ok(page.clone());
        }
        let end = offset
            .saturating_add(self.settings.page_size.max(1))
            .min(total);
        let next_cursor = (end < total).then(|| encode_cursor(end));
        let shown: Vec<usize> = match &filtered {
            Some((visible, _)) => visible[offset..end].to_vec(),
            None => (offset..end).collect(),
        };
        let json = match kind {
            ListKind::Tools => {
                let mut r = ListToolsResult::new(
                    shown
                        .iter()
                        .map(|&i| Tool::clone(&s.tools[i].tool))
                        .collect(),
                );
                r.next_cursor = next_cursor;
                finish(r, version, server_info, cache)
            }
            ListKind::Resources => {
                let mut r = ListResourcesResult::new(
                    shown
                        .iter()
                        .map(|&i| s.resources[i].resource.clone())
                        .collect(),
                );
                r.next_cursor = next_cursor;
                finish(r, version, server_info, cache)
            }
            ListKind::ResourceTemplates => {
                let mut r = ListResourceTemplatesResult::new(
                    shown
                        .iter()
                        .map(|&i| s.templates[i].template.clone())
                        .collect(),
                );
                r.next_cursor = next_cursor;
                finish(r, version, server_info, cache)
            }
            ListKind::Prompts => {
                let mut r = ListPromptsResult::new(
                    shown.iter().map(|&i| s.prompts[i].prompt.clone()).collect(),
                );
                r.next_cursor = next_cursor;
                finish(r, version, server_info, cache)
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
    server_info: &RawValue,
    cache: ferromcp_core::types::CacheHints,
) -> Result<Box<RawValue>, ErrorObject> {
    let modern = version.era() == ferromcp_core::Era::Modern;
    if modern {
        result.set_cache_hints(cache);
    }
    result.prepare_for(version);
    let json = if modern {
        let own = result.meta_mut().take();
        serde_json::value::to_raw_value(&Modern::new(server_info, own.as_ref(), &result))
    } else {
        serde_json::value::to_raw_value(&result)
    };
    json.map_err(|e| ErrorObject::internal_error(format!("list does not serialize: {e}")))
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
