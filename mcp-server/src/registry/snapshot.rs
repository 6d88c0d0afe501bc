//! One immutable state of the registry: its entries, their indexes, and the list pages
//! built from them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_core::ProtocolVersion;
use serde_json::value::RawValue;

use super::scopes::Scopes;
use super::{
    CompletionHandler, CompletionTarget, ListKind, PromptEntry, ResourceEntry, TemplateEntry,
    ToolEntry,
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
    pub(super) pages: Mutex<HashMap<PageKey, Arc<RawValue>>>,
}

/// A cached page: its list, revision, offset, and the caller's scopes that decide what it
/// shows (empty when nothing is filtered).
pub(super) type PageKey = (ListKind, ProtocolVersion, usize, String);

impl Snapshot {
    /// A copy with the same entries and an empty page cache.
    pub(super) fn edit(&self) -> Snapshot {
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
            pages: Mutex::default(),
        }
    }

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
}
