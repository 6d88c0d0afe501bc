//! The OAuth scopes a caller needs to see and use each item.
//!
//! Scopes are checked against the request's [`Principal`](crate::Principal). A request with
//! no principal (stdio, or HTTP without an authentication layer) is not subject to them:
//! scopes describe what an authenticated caller may do, and a server without
//! authentication has no caller to hold to them.

use std::collections::HashSet;

use super::*;

/// An item of the registry, named as its list names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScopedItem<'a> {
    /// The tool with this name.
    Tool(&'a str),
    /// The static resource with this URI.
    Resource(&'a str),
    /// The resource template with this URI template.
    ResourceTemplate(&'a str),
    /// The prompt with this name.
    Prompt(&'a str),
}

impl ScopedItem<'_> {
    fn key(self) -> (ListKind, String) {
        match self {
            ScopedItem::Tool(n) => (ListKind::Tools, n.to_owned()),
            ScopedItem::Resource(u) => (ListKind::Resources, u.to_owned()),
            ScopedItem::ResourceTemplate(t) => (ListKind::ResourceTemplates, t.to_owned()),
            ScopedItem::Prompt(n) => (ListKind::Prompts, n.to_owned()),
        }
    }

    fn event(self) -> RegistryEvent {
        match self {
            ScopedItem::Tool(_) => RegistryEvent::ToolsChanged,
            ScopedItem::Resource(_) | ScopedItem::ResourceTemplate(_) => {
                RegistryEvent::ResourcesChanged
            }
            ScopedItem::Prompt(_) => RegistryEvent::PromptsChanged,
        }
    }
}

/// The scopes each item needs, and the default for items without their own.
#[derive(Default, Clone)]
pub(super) struct Scopes {
    own: HashMap<(ListKind, String), Arc<[String]>>,
    default: Arc<[String]>,
}

impl Scopes {
    /// Whether any item needs any scope (otherwise nothing is filtered or checked).
    pub(super) fn any(&self) -> bool {
        !self.default.is_empty() || self.own.values().any(|s| !s.is_empty())
    }

    /// The scopes `key` of `kind` needs: its own, else the default.
    pub(super) fn of(&self, kind: ListKind, key: &str) -> &Arc<[String]> {
        // A tuple key cannot be borrowed from (&ListKind, &str); this is off the hot path
        // (only servers with scopes get here).
        match self.own.get(&(kind, key.to_owned())) {
            Some(own) => own,
            None => &self.default,
        }
    }

    /// The scopes any item needs, sorted: the part of a caller's scopes that decides what
    /// it sees.
    pub(super) fn universe(&self) -> Vec<&str> {
        let mut all: Vec<&str> = self
            .own
            .values()
            .chain(std::iter::once(&self.default))
            .flat_map(|s| s.iter().map(String::as_str))
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// Whether `granted` holds every scope of `needed`.
pub(crate) fn satisfies(granted: &[String], needed: &[String]) -> bool {
    needed.iter().all(|n| granted.contains(n))
}

impl Registry {
    /// Requires `scopes` of callers of `item`: an authenticated caller without all of them
    /// does not see the item in list results, and calling it is refused with the scopes it
    /// needs (over HTTP, `403` with an `insufficient_scope` challenge, so the client can
    /// ask for them). An empty list removes the requirement (the default applies again).
    ///
    /// The item need not exist yet; the requirement outlives its removal.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::registry::ScopedItem;
    ///
    /// let server = ferromcp::ServerBuilder::new("incidents", "1.0.0").build();
    /// server.registry().require_scopes(ScopedItem::Tool("resolve"), ["incidents:write"]);
    /// ```
    pub fn require_scopes<S: Into<String>>(
        &self,
        item: ScopedItem<'_>,
        scopes: impl IntoIterator<Item = S>,
    ) {
        let scopes: Arc<[String]> = scopes.into_iter().map(Into::into).collect();
        let _ = self.change(Some(item.event()), |s| {
            let key = item.key();
            if scopes.is_empty() {
                s.scopes.own.remove(&key);
            } else {
                s.scopes.own.insert(key, scopes);
            }
            Ok(())
        });
    }

    /// Requires `scopes` of callers of every item that has no scopes of its own (see
    /// [`require_scopes`](Self::require_scopes)).
    pub fn set_default_scopes<S: Into<String>>(&self, scopes: impl IntoIterator<Item = S>) {
        let scopes: Arc<[String]> = scopes.into_iter().map(Into::into).collect();
        let _ = self.change(Some(RegistryEvent::ToolsChanged), |s| {
            s.scopes.default = scopes;
            Ok(())
        });
        let _ = self.events.send(RegistryEvent::ResourcesChanged);
        let _ = self.events.send(RegistryEvent::PromptsChanged);
    }

    /// Runs an included type's registration ([`ServerBuilder::include`]): the default
    /// scopes it sets (its `#[server(scopes = …)]`) are required of the items it adds that
    /// have none of their own, and the server's default stays as it was.
    ///
    /// [`ServerBuilder::include`]: crate::ServerBuilder::include
    pub(crate) fn register_included(
        &self,
        register: impl FnOnce(&Registry) -> Result<(), RegistryError>,
    ) -> Result<(), RegistryError> {
        let before = self.current();
        register(self)?;
        let after = self.current();
        if Arc::ptr_eq(&before.scopes.default, &after.scopes.default) {
            return Ok(());
        }
        let included = after.scopes.default.clone();
        self.change(None, |s| {
            s.scopes.default = before.scopes.default.clone();
            for kind in [
                ListKind::Tools,
                ListKind::Resources,
                ListKind::ResourceTemplates,
                ListKind::Prompts,
            ] {
                let old: HashSet<&str> = (0..before.len(kind))
                    .map(|i| before.key_of(kind, i))
                    .collect();
                for i in 0..s.len(kind) {
                    let key = s.key_of(kind, i);
                    if !old.contains(key) {
                        let key = (kind, key.to_owned());
                        s.scopes.own.entry(key).or_insert_with(|| included.clone());
                    }
                }
            }
            Ok(())
        })
    }

    /// Every scope some item (or the default) needs, sorted, each once: what the
    /// protected-resource metadata offers when `AuthConfig::scopes_supported` is not set.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) fn declared_scopes(&self) -> Vec<String> {
        let s = self.current();
        s.scopes.universe().into_iter().map(str::to_owned).collect()
    }

    /// The scopes a caller lacks to use `kind`'s item `key`, with everything it needs:
    /// `None` when it may.
    pub(crate) fn missing_scopes(
        &self,
        kind: ListKind,
        key: &str,
        granted: &[String],
    ) -> Option<Arc<[String]>> {
        let s = self.current();
        if !s.scopes.any() {
            return None;
        }
        let needed = s.scopes.of(kind, key);
        (!satisfies(granted, needed)).then(|| needed.clone())
    }

    /// [`missing_scopes`](Self::missing_scopes) for the resource `uri` reads: a static
    /// resource's own, else the first matching template's.
    pub(crate) fn missing_scopes_for_uri(
        &self,
        uri: &str,
        granted: &[String],
    ) -> Option<Arc<[String]>> {
        let s = self.current();
        if !s.scopes.any() {
            return None;
        }
        let needed = if s.resource_index.contains_key(uri) {
            s.scopes.of(ListKind::Resources, uri)
        } else {
            let template = s
                .templates
                .iter()
                .find(|t| t.matcher.matches(uri).is_some())?;
            s.scopes
                .of(ListKind::ResourceTemplates, &template.template.uri_template)
        };
        (!satisfies(granted, needed)).then(|| needed.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_scopes_override_the_default() {
        let mut s = Scopes::default();
        assert!(!s.any());
        s.default = Arc::from(vec!["mcp".to_owned()]);
        s.own.insert(
            (ListKind::Tools, "query".into()),
            Arc::from(vec!["sql:query".to_owned()]),
        );
        assert_eq!(&**s.of(ListKind::Tools, "query"), ["sql:query"]);
        assert_eq!(&**s.of(ListKind::Tools, "other"), ["mcp"]);
        assert_eq!(&**s.of(ListKind::Prompts, "query"), ["mcp"]);
        assert_eq!(s.universe(), ["mcp", "sql:query"]);
        assert!(satisfies(&["mcp".into(), "x".into()], &["mcp".into()]));
        assert!(!satisfies(&["x".into()], &["mcp".into()]));
        assert!(satisfies(&[], &[]));
    }
}
