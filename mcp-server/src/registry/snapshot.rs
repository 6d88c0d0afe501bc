//! One immutable state of the registry: its entries, their indexes, and the list pages
//! built from them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::ResultMetaObject;
use serde_json::value::RawValue;

use super::scopes::Scopes;
use super::{
    CompletionHandler, CompletionTarget, ListKind, PromptEntry, RegistryError, ResourceEntry,
    TemplateEntry, ToolEntry,
};

#[derive(Default)]
pub(super) struct Snapshot {
    pub(super) tools: Vec<Arc<ToolEntry>>,
    pub(super) tool_index: HashMap<String, usize>,
    pub(super) disabled_tools: Vec<Arc<ToolEntry>>,
    pub(super) resources: Vec<Arc<ResourceEntry>>,
    pub(super) resource_index: HashMap<String, usize>,
    pub(super) templates: Vec<Arc<TemplateEntry>>,
    pub(super) prompts: Vec<Arc<PromptEntry>>,
    pub(super) prompt_index: HashMap<String, usize>,
    pub(super) disabled_prompts: Vec<Arc<PromptEntry>>,
    pub(super) completions: HashMap<(CompletionTarget, String), Arc<dyn CompletionHandler>>,
    pub(super) scopes: Scopes,
    /// Each list's own `_meta` ([`Registry::set_list_meta`](super::Registry::set_list_meta)).
    pub(super) list_meta: HashMap<ListKind, ResultMetaObject>,
    pub(super) pages: Mutex<HashMap<PageKey, Arc<RawValue>>>,
}

/// A cached page: its list, revision, offset, and the caller's scopes that decide what it
/// shows (empty when nothing is filtered).
pub(super) type PageKey = (ListKind, ProtocolVersion, usize, String);

/// A copy with the same entries and an empty page cache: what `Arc::make_mut` makes when a
/// change finds the snapshot shared.
impl Clone for Snapshot {
    fn clone(&self) -> Snapshot {
        Snapshot {
            tools: self.tools.clone(),
            tool_index: self.tool_index.clone(),
            disabled_tools: self.disabled_tools.clone(),
            resources: self.resources.clone(),
            resource_index: self.resource_index.clone(),
            templates: self.templates.clone(),
            prompts: self.prompts.clone(),
            prompt_index: self.prompt_index.clone(),
            disabled_prompts: self.disabled_prompts.clone(),
            completions: self.completions.clone(),
            scopes: self.scopes.clone(),
            list_meta: self.list_meta.clone(),
            pages: Mutex::default(),
        }
    }
}

impl Snapshot {
    /// Ready to publish after an edit in place: the page cache, built from the entries before
    /// it, emptied (a copy made by `clone` starts with an empty one).
    pub(super) fn clear_pages(&mut self) {
        match self.pages.get_mut() {
            Ok(pages) => pages.clear(),
            Err(poisoned) => poisoned.into_inner().clear(),
        }
    }

    /// Appends a tool and indexes it (the caller has checked that its name is free).
    pub(super) fn push_tool(&mut self, entry: Arc<ToolEntry>) {
        self.tool_index
            .insert(entry.tool.name.clone(), self.tools.len());
        self.tools.push(entry);
    }

    /// Appends a static resource and indexes it (its URI is free).
    pub(super) fn push_resource(&mut self, entry: Arc<ResourceEntry>) {
        self.resource_index
            .insert(entry.resource.uri.clone(), self.resources.len());
        self.resources.push(entry);
    }

    /// Appends a prompt and indexes it (its name is free).
    pub(super) fn push_prompt(&mut self, entry: Arc<PromptEntry>) {
        self.prompt_index
            .insert(entry.prompt.name.clone(), self.prompts.len());
        self.prompts.push(entry);
    }

    /// Adds a tool unless its name is taken (by an enabled or a disabled tool).
    pub(super) fn insert_tool(&mut self, entry: ToolEntry) -> Result<(), RegistryError> {
        let name = &entry.tool.name;
        if self.tool_index.contains_key(name)
            || self.disabled_tools.iter().any(|t| &t.tool.name == name)
        {
            return Err(RegistryError::DuplicateTool(name.clone()));
        }
        self.push_tool(Arc::new(entry));
        Ok(())
    }

    /// Removes a tool, enabled or disabled; returns whether it existed.
    pub(super) fn delete_tool(&mut self, name: &str) -> bool {
        let before = self.tools.len() + self.disabled_tools.len();
        self.tools.retain(|t| t.tool.name != name);
        self.disabled_tools.retain(|t| t.tool.name != name);
        self.reindex();
        before != self.tools.len() + self.disabled_tools.len()
    }

    /// Adds a static resource unless its URI is taken.
    pub(super) fn insert_resource(&mut self, entry: ResourceEntry) -> Result<(), RegistryError> {
        if self.resource_index.contains_key(&entry.resource.uri) {
            return Err(RegistryError::DuplicateResource(entry.resource.uri.clone()));
        }
        self.push_resource(Arc::new(entry));
        Ok(())
    }

    /// Removes a static resource; returns whether it existed.
    pub(super) fn delete_resource(&mut self, uri: &str) -> bool {
        let before = self.resources.len();
        self.resources.retain(|r| r.resource.uri != uri);
        self.reindex();
        before != self.resources.len()
    }

    /// Adds a prompt unless its name is taken (by an enabled or a disabled prompt).
    pub(super) fn insert_prompt(&mut self, entry: PromptEntry) -> Result<(), RegistryError> {
        let name = &entry.prompt.name;
        if self.prompt_index.contains_key(name)
            || self.disabled_prompts.iter().any(|p| &p.prompt.name == name)
        {
            return Err(RegistryError::DuplicatePrompt(name.clone()));
        }
        self.push_prompt(Arc::new(entry));
        Ok(())
    }

    /// Removes a prompt, enabled or disabled; returns whether it existed.
    pub(super) fn delete_prompt(&mut self, name: &str) -> bool {
        let before = self.prompts.len() + self.disabled_prompts.len();
        self.prompts.retain(|p| p.prompt.name != name);
        self.disabled_prompts.retain(|p| p.prompt.name != name);
        self.reindex();
        before != self.prompts.len() + self.disabled_prompts.len()
    }

    /// Rebuilds the indexes, after entries were removed or moved.
    pub(super) fn reindex(&mut self) {
        self.tool_index = self
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.tool.name.clone(), i))
            .collect();
        self.resource_index = self
            .resources
            .iter()
            .enumerate()
            .map(|(i, r)| (r.resource.uri.clone(), i))
            .collect();
        self.prompt_index = self
            .prompts
            .iter()
            .enumerate()
            .map(|(i, p)| (p.prompt.name.clone(), i))
            .collect();
    }

    /// Whether every index maps exactly its list's keys to their positions.
    pub(super) fn indexed(&self) -> bool {
        fn exact<T>(
            index: &HashMap<String, usize>,
            list: &[Arc<T>],
            key: impl Fn(&T) -> &str,
        ) -> bool {
            index.len() == list.len()
                && list
                    .iter()
                    .enumerate()
                    .all(|(i, e)| index.get(key(e)) == Some(&i))
        }
        exact(&self.tool_index, &self.tools, |t| &t.tool.name)
            && exact(&self.resource_index, &self.resources, |r| &r.resource.uri)
            && exact(&self.prompt_index, &self.prompts, |p| &p.prompt.name)
    }
}
