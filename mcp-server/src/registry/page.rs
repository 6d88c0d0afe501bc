//! List pages (`tools/list`, …): serialized once per registry snapshot and protocol
//! revision, served from the cache, with opaque cursors.

use base64::Engine as _;
use ferromcp_core::ProtocolVersion;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::types::{MetaObject, ResultMetaObject};
use serde_json::value::RawValue;

use super::definitions::{Listing, prepared};
use super::visible::{Shows, set_key};
use super::*;
use crate::meta::Modern;
use crate::sync::lock;

/// One of the server's lists ([`Registry::set_list_meta`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum List {
    /// `tools/list`.
    Tools,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `prompts/list`.
    Prompts,
}

/// What a list page is asked for: which list, for which revision, from where, and for whom.
pub(crate) struct PageRequest<'a> {
    pub(crate) kind: ListKind,
    pub(crate) version: ProtocolVersion,
    /// The client's cursor; `None` for the first page.
    pub(crate) cursor: Option<&'a str>,
    /// The server's self-description as JSON, attached to every 2026 page.
    pub(crate) server_info: &'a RawValue,
    pub(crate) cache: ferromcp_core::types::CacheHints,
    /// An authenticated caller's scopes: items needing scopes it lacks are left out.
    pub(crate) granted: Option<&'a [String]>,
    /// The server's visibility predicate, for this request: items it hides are left out.
    pub(crate) shows: Option<Shows<'a>>,
}

impl Registry {
    /// Sets the `_meta` of every page of `list` (`None` removes it). In 2026 it is merged
    /// with the server's self-description the era puts there (which wins on its own key).
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::ServerBuilder;
    /// use ferromcp::registry::List;
    /// use ferromcp::types::MetaObject;
    ///
    /// let server = ServerBuilder::new("demo", "1.0.0").build();
    /// let meta = serde_json::json!({"example.com/catalog": "v2"});
    /// let meta = MetaObject(meta.as_object().cloned().unwrap_or_default());
    /// server.registry().set_list_meta(List::Tools, Some(meta));
    /// ```
    pub fn set_list_meta(&self, list: List, meta: Option<MetaObject>) {
        let _ = self.change(None, |s| {
            match meta {
                Some(MetaObject(extra)) => s.list_meta.insert(
                    list,
                    ResultMetaObject {
                        extra,
                        ..ResultMetaObject::default()
                    },
                ),
                None => s.list_meta.remove(&list),
            };
            Ok(())
        });
    }

    /// One page of a list, serialized for the request's version, from the cache when it was
    /// built before.
    ///
    /// # Errors
    ///
    /// An invalid cursor (-32602).
    pub(crate) fn page(&self, req: &PageRequest<'_>) -> Result<Arc<RawValue>, ErrorObject> {
        let offset = match req.cursor {
            None => 0,
            Some(c) => {
                decode_cursor(c).ok_or_else(|| ErrorObject::invalid_params("invalid cursor"))?
            }
        };
        let s = self.current();
        let filtered = visible(&s, req.kind, req.granted, req.shows);
        let total = filtered
            .as_ref()
            .map_or_else(|| s.len(req.kind), |(v, _)| v.len());
        if offset > total || (offset == total && offset != 0) {
            return Err(ErrorObject::invalid_params("invalid cursor"));
        }
        let scope_key = filtered
            .as_ref()
            .map_or_else(String::new, |(_, k)| k.clone());
        let key = (req.kind, req.version, offset, scope_key);
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
        let page: Arc<RawValue> = Arc::from(render(&s, req, &shown, next_cursor)?);
        let mut pages = lock(&s.pages);
        // As many sets as the predicate makes: past the bound, pages are rendered each time.
        if req.shows.is_none() || pages.len() < MAX_FILTERED_PAGES {
            pages.insert(key, page.clone());
        }
        Ok(page)
    }
}

impl Snapshot {
    /// How many items the list has.
    pub(super) fn len(&self, kind: ListKind) -> usize {
        match kind {
            ListKind::Tools => self.tools.len(),
            ListKind::Resources => self.resources.len(),
            ListKind::ResourceTemplates => self.templates.len(),
            ListKind::Prompts => self.prompts.len(),
        }
    }

    /// The name (or URI) of the list's item `i`, by which its scopes are declared.
    pub(super) fn key_of(&self, kind: ListKind, i: usize) -> &str {
        match kind {
            ListKind::Tools => self.tools[i].tool.name.as_str(),
            ListKind::Resources => self.resources[i].resource.uri.as_str(),
            ListKind::ResourceTemplates => self.templates[i].template.uri_template.as_str(),
            ListKind::Prompts => self.prompts[i].prompt.name.as_str(),
        }
    }
}

/// How many pages a snapshot caches once a visibility predicate is set: one is cached per
/// set of items a predicate shows, and a predicate may make many sets.
const MAX_FILTERED_PAGES: usize = 4096;

/// What a caller sees when items need scopes or the server has a visibility predicate: the
/// indexes of the items whose scopes it holds and that the predicate shows it, and the
/// cache key of that set. `None`: everything.
fn visible(
    s: &Snapshot,
    kind: ListKind,
    granted: Option<&[String]>,
    shows: Option<Shows<'_>>,
) -> Option<(Vec<usize>, String)> {
    let granted = granted.filter(|_| s.scopes.any());
    if granted.is_none() && shows.is_none() {
        return None;
    }
    let visible: Vec<usize> = (0..s.len(kind))
        .filter(|&i| {
            granted.is_none_or(|g| scopes::satisfies(g, s.scopes.of(kind, s.key_of(kind, i))))
                && shows.is_none_or(|shows| shows(s.listed(kind, i)))
        })
        .collect();
    let key = match (granted, shows) {
        // The predicate may decide anything: the set itself is the key.
        (_, Some(_)) => set_key(s.len(kind), &visible),
        (Some(granted), None) => {
            let held: Vec<&str> = s
                .scopes
                .universe()
                .into_iter()
                .filter(|u| granted.iter().any(|g| g == u))
                .collect();
            format!("\u{1}{}", held.join(" "))
        }
        (None, None) => String::new(),
    };
    Some((visible, key))
}

/// The page of the items `shown`, serialized for the request's version: the items as
/// [`prepared`] lists them (what [`Registry::definitions`] returns too), with the cursor,
/// the list's own `_meta` and, in 2026, the caching hints and the server's self-description.
fn render(
    s: &Snapshot,
    req: &PageRequest<'_>,
    shown: &[usize],
    next_cursor: Option<String>,
) -> Result<Box<RawValue>, ErrorObject> {
    match req.kind {
        ListKind::Tools => finish::<ListToolsResult>(s, req, shown, next_cursor),
        ListKind::Resources => finish::<ListResourcesResult>(s, req, shown, next_cursor),
        ListKind::ResourceTemplates => {
            finish::<ListResourceTemplatesResult>(s, req, shown, next_cursor)
        }
        ListKind::Prompts => finish::<ListPromptsResult>(s, req, shown, next_cursor),
    }
}

fn finish<R: Listing>(
    s: &Snapshot,
    req: &PageRequest<'_>,
    shown: &[usize],
    next_cursor: Option<String>,
) -> Result<Box<RawValue>, ErrorObject> {
    let mut result = prepared::<R>(s, shown, req.version);
    result.set_next_cursor(next_cursor);
    let own = s.list_meta.get(&req.kind);
    let json = if req.version.era() == ferromcp_core::Era::Modern {
        result.set_cache_hints(req.cache);
        serde_json::value::to_raw_value(&Modern::new(req.server_info, own, &result))
    } else {
        *result.meta_mut() = own.cloned();
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
