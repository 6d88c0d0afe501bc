//! Lists that differ per caller: the items a server's visibility predicate
//! ([`ServerBuilder::visible_if`](crate::ServerBuilder::visible_if)) shows one request, and
//! the cache key of that set.

use std::fmt::Write as _;

use ferromcp_core::types::{Prompt, Resource, ResourceTemplate, Tool};

use super::snapshot::Snapshot;
use super::{ListKind, Registry};

/// One item of a list, as a visibility predicate is shown it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Listed<'a> {
    /// A tool (`tools/list`, `tools/call`).
    Tool(&'a Tool),
    /// A static resource (`resources/list`, `resources/read`).
    Resource(&'a Resource),
    /// A resource template (`resources/templates/list`, and `resources/read` of a URI it
    /// matches).
    ResourceTemplate(&'a ResourceTemplate),
    /// A prompt (`prompts/list`, `prompts/get`).
    Prompt(&'a Prompt),
}

/// Whether one request may see an item.
pub(crate) type Shows<'a> = &'a dyn Fn(Listed<'_>) -> bool;

impl Snapshot {
    /// The list's item `i`.
    pub(super) fn listed(&self, kind: ListKind, i: usize) -> Listed<'_> {
        match kind {
            ListKind::Tools => Listed::Tool(&self.tools[i].tool),
            ListKind::Resources => Listed::Resource(&self.resources[i].resource),
            ListKind::ResourceTemplates => Listed::ResourceTemplate(&self.templates[i].template),
            ListKind::Prompts => Listed::Prompt(&self.prompts[i].prompt),
        }
    }
}

/// The cache key of the set `visible` of the list's items: a bit per item, so that two
/// requests share a page exactly when they see the same items.
pub(super) fn set_key(len: usize, visible: &[usize]) -> String {
    let mut bits = vec![0u8; len.div_ceil(8)];
    for &i in visible {
        bits[i / 8] |= 1 << (i % 8);
    }
    let mut key = String::with_capacity(1 + 2 * bits.len());
    key.push('\u{2}');
    for b in bits {
        let _ = write!(key, "{b:02x}");
    }
    key
}

impl Registry {
    /// Whether `shows` lets a request read `uri`: the static resource's verdict, else the
    /// first template matching it (the one that would serve it). `true` for a URI no item
    /// serves: the read then fails as not found anyway.
    pub(crate) fn shows_uri(&self, uri: &str, shows: Shows<'_>) -> bool {
        let s = self.current();
        if let Some(&i) = s.resource_index.get(uri) {
            return shows(Listed::Resource(&s.resources[i].resource));
        }
        s.templates
            .iter()
            .find(|t| t.matcher.matches(uri).is_some())
            .is_none_or(|t| shows(Listed::ResourceTemplate(&t.template)))
    }

    /// Whether `shows` lets a request complete the template written `template`; `true`
    /// when there is none.
    pub(crate) fn shows_template(&self, template: &str, shows: Shows<'_>) -> bool {
        let s = self.current();
        s.templates
            .iter()
            .find(|t| t.template.uri_template == template)
            .is_none_or(|t| shows(Listed::ResourceTemplate(&t.template)))
    }
}

#[cfg(test)]
mod tests {
    use super::set_key;

    #[test]
    fn sets_differ_in_their_keys_and_equal_sets_share_one() {
        assert_eq!(set_key(10, &[0, 9]), set_key(10, &[0, 9]));
        assert_ne!(set_key(10, &[0, 9]), set_key(10, &[0, 8]));
        assert_ne!(set_key(10, &[]), set_key(10, &[0]));
        assert_eq!(set_key(10, &[0, 9]), "\u{2}0102");
    }
}
