//! What one client is shown of the catalog. The server's visibility predicate
//! ([`ServerBuilder::visible_if`](crate::ServerBuilder::visible_if)) decides, through
//! [`Context::shows_resource`], as it does for `resources/read`: a skill is hidden with its
//! `SKILL.md`, and a file when its own resource (the `SKILL.md`, or the files' template) or
//! its skill's `SKILL.md` is hidden. What is hidden is answered as if it did not exist.

use ferromcp_core::types::Resource;
use serde_json::Value;

use super::catalog::Catalog;
use crate::context::Context;

/// The catalog as the client of one request sees it.
pub(crate) struct Seen<'a> {
    pub(crate) catalog: &'a Catalog,
    pub(crate) ctx: &'a Context,
}

impl Seen<'_> {
    /// Whether the skill whose `SKILL.md` is at `uri` is shown.
    fn skill(&self, uri: &str) -> bool {
        self.catalog.skill(uri).is_some() && self.ctx.shows_resource(uri)
    }

    /// Whether the file at `uri` is served and shown: its own verdict, and its skill's (the
    /// innermost skill it belongs to).
    pub(crate) fn file(&self, uri: &str) -> bool {
        let Some((skill, _)) = self.catalog.file(uri) else {
            return false;
        };
        let skill_md = skill.uri();
        self.ctx.shows_resource(uri) && (skill_md == uri || self.ctx.shows_resource(&skill_md))
    }

    /// The entry of the skill whose `SKILL.md` is at `uri`, without the files hidden from
    /// the client; `None` when the skill is unknown or hidden.
    pub(crate) fn entry(&self, uri: &str) -> Option<Value> {
        if !self.skill(uri) {
            return None;
        }
        let mut entry = self.catalog.entry(uri)?.clone();
        if let Some(files) = entry.get_mut("resources").and_then(Value::as_array_mut) {
            files.retain(|f| f["uri"].as_str().is_some_and(|u| self.file(u)));
        }
        Some(entry)
    }

    /// The shown entries from `offset` of the shown ones, at most `size` of them, and the
    /// offset of the next page.
    pub(crate) fn page(&self, offset: usize, size: usize) -> (Vec<Value>, Option<usize>) {
        let mut shown = self
            .catalog
            .skills()
            .iter()
            .filter_map(|s| self.entry(&s.uri()))
            .skip(offset);
        let page: Vec<Value> = shown.by_ref().take(size).collect();
        let next = shown
            .next()
            .is_some()
            .then(|| offset.saturating_add(page.len()));
        (page, next)
    }

    /// The direct children of the directory at `uri` that hold a shown file (or are one);
    /// `None` when it is unknown or holds none.
    pub(crate) fn directory(&self, uri: &str) -> Option<Vec<&Resource>> {
        let children: Vec<&Resource> = self
            .catalog
            .directory(uri)?
            .filter(|child| self.file(&child.uri) || self.holds_shown(&child.uri))
            .collect();
        (!children.is_empty()).then_some(children)
    }

    /// Whether the directory at `uri` holds a shown file, at any depth.
    fn holds_shown(&self, uri: &str) -> bool {
        let prefix = format!("{uri}/");
        self.catalog
            .file_uris()
            .any(|file| file.starts_with(&prefix) && self.file(file))
    }
}
