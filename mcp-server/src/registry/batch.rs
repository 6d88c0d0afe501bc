//! Several changes published as one ([`Registry::batch`]): a reader sees the registry
//! before all of them or after all of them, and each list they change is announced once.

use std::sync::Arc;
use std::time::Duration;

use ferromcp_core::types::{Prompt, Resource, Tool};

use super::snapshot::Snapshot;
use super::{
    PromptEntry, PromptHandler, Registry, RegistryError, RegistryEvent, ResourceEntry,
    ResourceHandler, ToolEntry, ToolHandler,
};

/// The changes of one [`Registry::batch`], made on a copy of the registry that is
/// published when the batch ends well. Its methods are those of [`Registry`], with the same
/// checks; a method that fails leaves the copy as it was.
pub struct Batch<'a> {
    snapshot: &'a mut Snapshot,
    tools: bool,
    resources: bool,
    prompts: bool,
}

impl std::fmt::Debug for Batch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch").finish_non_exhaustive()
    }
}

impl Batch<'_> {
    /// Adds a tool, as [`Registry::add_tool`].
    ///
    /// # Errors
    ///
    /// As [`Registry::add_tool`].
    pub fn add_tool(
        &mut self,
        tool: Tool,
        handler: impl ToolHandler,
        timeout: Option<Duration>,
    ) -> Result<(), RegistryError> {
        let entry = ToolEntry::new(Arc::new(tool), Arc::new(handler), timeout)?;
        self.snapshot.insert_tool(entry)?;
        self.tools = true;
        Ok(())
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&mut self, name: &str) -> bool {
        let removed = self.snapshot.delete_tool(name);
        self.tools |= removed;
        removed
    }

    /// Adds a static resource, as [`Registry::add_resource`].
    ///
    /// # Errors
    ///
    /// The URI is already registered.
    pub fn add_resource(
        &mut self,
        resource: Resource,
        handler: impl ResourceHandler,
    ) -> Result<(), RegistryError> {
        self.snapshot.insert_resource(ResourceEntry {
            resource,
            handler: Arc::new(handler),
        })?;
        self.resources = true;
        Ok(())
    }

    /// Removes a static resource; returns whether it existed.
    pub fn remove_resource(&mut self, uri: &str) -> bool {
        let removed = self.snapshot.delete_resource(uri);
        self.resources |= removed;
        removed
    }

    /// Adds a prompt, as [`Registry::add_prompt`].
    ///
    /// # Errors
    ///
    /// The name is already taken.
    pub fn add_prompt(
        &mut self,
        prompt: Prompt,
        handler: impl PromptHandler,
    ) -> Result<(), RegistryError> {
        self.snapshot.insert_prompt(PromptEntry {
            prompt,
            handler: Arc::new(handler),
        })?;
        self.prompts = true;
        Ok(())
    }

    /// Removes a prompt; returns whether it existed.
    pub fn remove_prompt(&mut self, name: &str) -> bool {
        let removed = self.snapshot.delete_prompt(name);
        self.prompts |= removed;
        removed
    }

    /// The announcements the changes call for: one per list changed.
    fn events(&self) -> impl Iterator<Item = RegistryEvent> + use<> {
        [
            (self.tools, RegistryEvent::ToolsChanged),
            (self.resources, RegistryEvent::ResourcesChanged),
            (self.prompts, RegistryEvent::PromptsChanged),
        ]
        .into_iter()
        .filter_map(|(changed, event)| changed.then_some(event))
    }
}

impl Registry {
    /// Makes the changes `edit` makes as one: requests see the registry as it was before
    /// all of them or after all of them, never a part, and each list they change is
    /// announced once (one `list_changed` per list, not one per item). When `edit` returns
    /// an error, nothing changes and nothing is announced.
    ///
    /// `edit` runs while other changes wait: keep it short, and do not use the registry
    /// from it (that waits for `edit` to end).
    ///
    /// # Errors
    ///
    /// What `edit` returns.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::ServerBuilder;
    /// use ferromcp::registry::resource_fn;
    /// use ferromcp::types::Resource;
    ///
    /// let server = ServerBuilder::new("docs", "1.0.0").build();
    /// // Version 2 of the docs replaces version 1 at once.
    /// server.registry().batch(|b| {
    ///     b.remove_resource("docs://v1");
    ///     b.add_resource(
    ///         Resource::new("docs://v2", "docs"),
    ///         resource_fn(None, |_, _, _| async { "version 2" }),
    ///     )
    /// })?;
    /// # Ok::<(), ferromcp::registry::RegistryError>(())
    /// ```
    pub fn batch<T>(
        &self,
        edit: impl FnOnce(&mut Batch<'_>) -> Result<T, RegistryError>,
    ) -> Result<T, RegistryError> {
        let mut guard = match self.snapshot.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        // Always on a copy (with an empty page cache): an edit that fails halfway leaves
        // the published snapshot untouched.
        let mut copy = Snapshot::clone(&guard);
        let mut batch = Batch {
            snapshot: &mut copy,
            tools: false,
            resources: false,
            prompts: false,
        };
        let out = edit(&mut batch)?;
        let events: Vec<_> = batch.events().collect();
        debug_assert!(copy.indexed(), "a registry batch left an index stale");
        *guard = Arc::new(copy);
        drop(guard);
        for event in events {
            // No receiver is not an error: nobody is listening yet.
            let _ = self.events.send(event);
        }
        Ok(out)
    }
}
