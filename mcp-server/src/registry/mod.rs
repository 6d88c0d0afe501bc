//! The registry: every tool, resource, resource template, prompt and completion a server
//! offers, with their handlers.
//!
//! It is read on every request and changed rarely, so it is a snapshot behind a lock that is
//! only held to clone an `Arc`; a reader never sees it change. A change is made on a copy
//! when a reader holds the snapshot, in place when none does (while the server is built, so
//! registering n tools costs O(n)), and is announced ([`RegistryEvent`]) so sessions and
//! listeners can send `list_changed` notifications. List pages are serialized once per
//! snapshot, protocol version and page, then served as bytes.

mod batch;
mod definitions;
mod entry;
mod error;
mod handler;
mod mirror;
mod page;
mod paths;
mod scopes;
mod snapshot;
mod visible;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use ferromcp_core::types::{
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Prompt,
    Resource, ResourceTemplate, Tool,
};
use ferromcp_core::uri_template::{Match, UriTemplate};
use tokio::sync::broadcast;

pub use entry::{CompletionTarget, is_valid_tool_name};
pub(crate) use entry::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};

/// What `resources/read` runs for a URI ([`Registry::resource`]).
pub(crate) struct FoundResource {
    pub(crate) handler: Arc<dyn ResourceHandler>,
    pub(crate) vars: Match,
    /// The template variables' path check: the handler runs only when it passed.
    pub(crate) checked: Result<(), ferromcp_core::error::ErrorObject>,
}
pub use batch::Batch;
pub use definitions::Definitions;
pub use error::RegistryError;
pub use handler::{
    ArgumentsError, BoxFuture, CompletionHandler, PromptHandler, ResourceHandler, ToolHandler,
    completion_fn, missing_prompt_argument, parse_arguments, prompt_fn, resource_fn, tool_fn,
};
#[cfg(feature = "http")]
pub(crate) use mirror::MirroredParam;
#[cfg(all(feature = "http", any(test, feature = "testing", feature = "fuzzing")))]
pub(crate) use mirror::mirrored_params;
pub use page::List;
/// The name the crate uses for [`List`] when it is the kind of a page.
pub(crate) use page::{List as ListKind, PageRequest};
pub use scopes::ScopedItem;
use snapshot::Snapshot;
pub use visible::Listed;
pub(crate) use visible::Shows;

/// A change to what the server offers, announced to sessions and `subscriptions/listen`
/// streams.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryEvent {
    /// The tool list changed.
    ToolsChanged,
    /// The prompt list changed.
    PromptsChanged,
    /// The resource or resource template list changed.
    ResourcesChanged,
    /// The contents of the resource with this URI changed.
    ResourceUpdated(String),
}

/// Settings for the lists (`tools/list`, …).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListSettings {
    pub(crate) page_size: usize,
}

/// The server's tools, resources, prompts and completions.
///
/// Cheap to share: clone the [`Server`](crate::Server) and reach it with
/// [`Server::registry`](crate::Server::registry).
pub struct Registry {
    snapshot: RwLock<Arc<Snapshot>>,
    events: broadcast::Sender<RegistryEvent>,
    settings: ListSettings,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tool_names())
            .finish_non_exhaustive()
    }
}

impl Registry {
    pub(crate) fn new(settings: ListSettings) -> Registry {
        let (events, _) = broadcast::channel(64);
        Registry {
            snapshot: RwLock::new(Arc::default()),
            events,
            settings,
        }
    }

    /// Entries per list page, set once the builder knows it (before anything is listed).
    pub(crate) fn set_page_size(&mut self, page_size: usize) {
        self.settings.page_size = page_size;
    }

    fn current(&self) -> Arc<Snapshot> {
        match self.snapshot.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Applies `edit` to a copy of the current snapshot and, if it succeeds, publishes it and
    /// announces `event`.
    fn change<T>(
        &self,
        event: Option<RegistryEvent>,
        edit: impl FnOnce(&mut Snapshot) -> Result<T, RegistryError>,
    ) -> Result<T, RegistryError> {
        let mut guard = match self.snapshot.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        // Copy on write: in place when no reader holds the current snapshot (while the server
        // is built, and whenever no request is using it), else on a copy that replaces it, so
        // registering n items costs O(n) rather than n copies of everything before them. An
        // edit fails only before it changes anything: the snapshot (or its copy) is as it was.
        let snapshot = Arc::make_mut(&mut guard);
        let out = edit(snapshot)?;
        snapshot.clear_pages();
        debug_assert!(snapshot.indexed(), "a registry edit left an index stale");
        drop(guard);
        if let Some(event) = event {
            // No receiver is not an error: nobody is listening yet.
            let _ = self.events.send(event);
        }
        Ok(out)
    }

    // HTTP with a notification bus only.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    /// Announces a change made elsewhere (another instance's), as if made here.
    pub(crate) fn announce(&self, event: RegistryEvent) {
        let _ = self.events.send(event);
    }

    /// Receives every later change.
    pub fn subscribe(&self) -> broadcast::Receiver<RegistryEvent> {
        self.events.subscribe()
    }

    /// Announces that the resource at `uri` changed, for `resources/subscribe` (legacy) and
    /// `resourceSubscriptions` (2026) subscribers.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        let _ = self.events.send(RegistryEvent::ResourceUpdated(uri.into()));
    }

    /// Adds a tool.
    ///
    /// # Errors
    ///
    /// The name is invalid or already taken (by an enabled or a disabled tool), or an
    /// `x-mcp-header` annotation of the input schema breaks the 2026 transport's rules
    /// ([`RegistryError::InvalidDescriptor`]): conforming clients would drop the tool.
    pub fn add_tool(
        &self,
        tool: Tool,
        handler: impl ToolHandler,
        timeout: Option<Duration>,
    ) -> Result<(), RegistryError> {
        self.add_tool_entry(ToolEntry::new(Arc::new(tool), Arc::new(handler), timeout)?)
    }

    pub(crate) fn add_tool_entry(&self, entry: ToolEntry) -> Result<(), RegistryError> {
        self.change(Some(RegistryEvent::ToolsChanged), |s| s.insert_tool(entry))
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.change(Some(RegistryEvent::ToolsChanged), |s| {
            Ok(s.delete_tool(name))
        })
        .unwrap_or(false)
    }

    /// Hides a tool from `tools/list` and refuses calls to it, until
    /// [`enable_tool`](Self::enable_tool); returns whether it was enabled.
    pub fn disable_tool(&self, name: &str) -> bool {
        self.change(Some(RegistryEvent::ToolsChanged), |s| {
            Ok(match s.tools.iter().position(|t| t.tool.name == name) {
                Some(i) => {
                    let entry = s.tools.remove(i);
                    s.disabled_tools.push(entry);
                    s.reindex();
                    true
                }
                None => false,
            })
        })
        .unwrap_or(false)
    }

    /// Shows a disabled tool again; returns whether it was disabled.
    pub fn enable_tool(&self, name: &str) -> bool {
        self.change(Some(RegistryEvent::ToolsChanged), |s| {
            Ok(
                match s.disabled_tools.iter().position(|t| t.tool.name == name) {
                    Some(i) => {
                        let entry = s.disabled_tools.remove(i);
                        s.push_tool(entry);
                        true
                    }
                    None => false,
                },
            )
        })
        .unwrap_or(false)
    }

    /// Adds a static resource.
    ///
    /// # Errors
    ///
    /// The URI is already registered.
    pub fn add_resource(
        &self,
        resource: Resource,
        handler: impl ResourceHandler,
    ) -> Result<(), RegistryError> {
        self.add_resource_entry(ResourceEntry {
            resource,
            handler: Arc::new(handler),
        })
    }

    pub(crate) fn add_resource_entry(&self, entry: ResourceEntry) -> Result<(), RegistryError> {
        self.change(Some(RegistryEvent::ResourcesChanged), |s| {
            s.insert_resource(entry)
        })
    }

    /// Removes a static resource; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.change(Some(RegistryEvent::ResourcesChanged), |s| {
            Ok(s.delete_resource(uri))
        })
        .unwrap_or(false)
    }

    /// Adds a resource template. Its variables are checked as paths before the handler
    /// runs: a value with a `..` component, an absolute path, a drive or a NUL byte is
    /// refused with -32602 ([`add_resource_template_unchecked`] exempts some;
    /// docs/resources.md).
    ///
    /// [`add_resource_template_unchecked`]: Registry::add_resource_template_unchecked
    ///
    /// # Errors
    ///
    /// The template does not parse or is already registered.
    pub fn add_resource_template(
        &self,
        template: ResourceTemplate,
        handler: impl ResourceHandler,
    ) -> Result<(), RegistryError> {
        self.add_resource_template_unchecked(template, handler, &[])
    }

    /// [`add_resource_template`](Registry::add_resource_template), with the variables named
    /// in `unchecked` exempt from the path check: variables that are not paths (a revision
    /// range, a query), or whose handler confines them to a directory itself.
    ///
    /// # Errors
    ///
    /// The template does not parse, a name in `unchecked` is not one of its variables, or
    /// the template is already registered.
    pub fn add_resource_template_unchecked(
        &self,
        template: ResourceTemplate,
        handler: impl ResourceHandler,
        unchecked: &[&str],
    ) -> Result<(), RegistryError> {
        let invalid = |message: String| RegistryError::InvalidTemplate {
            template: template.uri_template.clone(),
            message,
        };
        let matcher =
            UriTemplate::parse(&template.uri_template).map_err(|e| invalid(e.to_string()))?;
        if let Some(stray) = unchecked
            .iter()
            .find(|u| !matcher.variables().any(|v| v == **u))
        {
            return Err(invalid(format!(
                "`{stray}` is exempted from the path check but is not one of its variables"
            )));
        }
        self.add_template_entry(TemplateEntry {
            template,
            matcher,
            handler: Arc::new(handler),
            unchecked: unchecked.iter().map(|u| (*u).to_owned()).collect(),
        })
    }

    pub(crate) fn add_template_entry(&self, entry: TemplateEntry) -> Result<(), RegistryError> {
        self.change(Some(RegistryEvent::ResourcesChanged), |s| {
            if s.templates
                .iter()
                .any(|t| t.template.uri_template == entry.template.uri_template)
            {
                return Err(RegistryError::DuplicateTemplate(
                    entry.template.uri_template.clone(),
                ));
            }
            s.templates.push(Arc::new(entry));
            Ok(())
        })
    }

    /// Adds a prompt.
    ///
    /// # Errors
    ///
    /// The name is already taken.
    pub fn add_prompt(
        &self,
        prompt: Prompt,
        handler: impl PromptHandler,
    ) -> Result<(), RegistryError> {
        self.add_prompt_entry(PromptEntry {
            prompt,
            handler: Arc::new(handler),
        })
    }

    pub(crate) fn add_prompt_entry(&self, entry: PromptEntry) -> Result<(), RegistryError> {
        self.change(Some(RegistryEvent::PromptsChanged), |s| {
            s.insert_prompt(entry)
        })
    }

    /// Removes a prompt; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change(Some(RegistryEvent::PromptsChanged), |s| {
            Ok(s.delete_prompt(name))
        })
        .unwrap_or(false)
    }

    /// Hides a prompt until [`enable_prompt`](Self::enable_prompt); returns whether it was
    /// enabled.
    pub fn disable_prompt(&self, name: &str) -> bool {
        self.change(Some(RegistryEvent::PromptsChanged), |s| {
            Ok(match s.prompts.iter().position(|p| p.prompt.name == name) {
                Some(i) => {
                    let entry = s.prompts.remove(i);
                    s.disabled_prompts.push(entry);
                    s.reindex();
                    true
                }
                None => false,
            })
        })
        .unwrap_or(false)
    }

    /// Shows a disabled prompt again; returns whether it was disabled.
    pub fn enable_prompt(&self, name: &str) -> bool {
        self.change(Some(RegistryEvent::PromptsChanged), |s| {
            Ok(
                match s
                    .disabled_prompts
                    .iter()
                    .position(|p| p.prompt.name == name)
                {
                    Some(i) => {
                        let entry = s.disabled_prompts.remove(i);
                        s.push_prompt(entry);
                        true
                    }
                    None => false,
                },
            )
        })
        .unwrap_or(false)
    }

    /// Adds a completion for `argument` of `target`, replacing any earlier one.
    pub fn add_completion(
        &self,
        target: CompletionTarget,
        argument: impl Into<String>,
        handler: impl CompletionHandler,
    ) {
        let handler: Arc<dyn CompletionHandler> = Arc::new(handler);
        let argument = argument.into();
        let _ = self.change(None, |s| {
            s.completions.insert((target, argument), handler);
            Ok(())
        });
    }

    pub(crate) fn tool(&self, name: &str) -> Option<Arc<ToolEntry>> {
        let s = self.current();
        s.tool_index.get(name).map(|&i| s.tools[i].clone())
    }

    pub(crate) fn prompt(&self, name: &str) -> Option<Arc<PromptEntry>> {
        let s = self.current();
        s.prompt_index.get(name).map(|&i| s.prompts[i].clone())
    }

    /// The handler for `uri`: a static resource with exactly this URI, else the first
    /// template (in registration order) that matches it, with its variables and their path
    /// check (an error to answer instead of running the handler).
    pub(crate) fn resource(&self, uri: &str) -> Option<FoundResource> {
        let s = self.current();
        if let Some(&i) = s.resource_index.get(uri) {
            return Some(FoundResource {
                handler: s.resources[i].handler.clone(),
                vars: Match::default(),
                checked: Ok(()),
            });
        }
        s.templates.iter().find_map(|t| {
            t.matcher.matches(uri).map(|vars| FoundResource {
                handler: t.handler.clone(),
                checked: paths::check(&vars, &t.unchecked),
                vars,
            })
        })
    }

    pub(crate) fn completion(
        &self,
        target: &CompletionTarget,
        argument: &str,
    ) -> Option<Arc<dyn CompletionHandler>> {
        // The key is owned; a lookup by borrowed parts would need a custom Borrow impl for a
        // path that is far from hot.
        self.current()
            .completions
            .get(&(target.clone(), argument.to_owned()))
            .cloned()
    }

    /// What the server offers, for its capabilities.
    pub(crate) fn offers(&self) -> Offers {
        let s = self.current();
        Offers {
            tools: !s.tools.is_empty() || !s.disabled_tools.is_empty(),
            resources: !s.resources.is_empty() || !s.templates.is_empty(),
            prompts: !s.prompts.is_empty() || !s.disabled_prompts.is_empty(),
            completions: !s.completions.is_empty(),
            tasks: s.tools.iter().any(|t| {
                t.tool
                    .execution
                    .as_ref()
                    .and_then(|e| e.task_support)
                    .is_some_and(|s| s != ferromcp_core::types::ToolTaskSupport::Forbidden)
            }),
        }
    }

    /// Names of the enabled tools, in list order.
    pub fn tool_names(&self) -> Vec<String> {
        self.current()
            .tools
            .iter()
            .map(|t| t.tool.name.clone())
            .collect()
    }

    /// Every completion target and argument, for tests and diagnostics.
    pub fn completion_targets(&self) -> Vec<(CompletionTarget, String)> {
        let mut v: Vec<_> = self.current().completions.keys().cloned().collect();
        v.sort();
        v
    }
}

/// What kinds of primitives the registry holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Offers {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    pub(crate) completions: bool,
    /// Some tool can run as a task.
    pub(crate) tasks: bool,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
