//! The server's tools, resources, templates and prompts as the wire lists them for one
//! protocol revision: built by the same function as the list pages, so the two cannot
//! differ.

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{Cacheable, WireResult};
use serde::Serialize;

use super::snapshot::Snapshot;
use super::*;
use crate::meta::WithMeta;

/// What a server offers, each item as `tools/list`, `resources/list`,
/// `resources/templates/list` and `prompts/list` show it to a client of one protocol
/// revision ([`Registry::definitions`]).
///
/// All enabled items, in list order, unpaginated and unfiltered: no scope filtering, since
/// this is the server's own view, not a caller's.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Definitions {
    /// The enabled tools.
    pub tools: Vec<Tool>,
    /// The static resources.
    pub resources: Vec<Resource>,
    /// The resource templates.
    pub resource_templates: Vec<ResourceTemplate>,
    /// The enabled prompts.
    pub prompts: Vec<Prompt>,
}

impl Registry {
    /// Every enabled tool, resource, template and prompt, as the lists show them to a client
    /// of `version` (for documentation, bundles and tests).
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::{ProtocolVersion, ServerBuilder, registry::tool_fn};
    /// use ferromcp::types::Tool;
    ///
    /// let server = ServerBuilder::new("demo", "1.0.0").build();
    /// let schema = serde_json::json!({"type": "object"}).as_object().unwrap().clone();
    /// let mut tool = Tool::new("hello", schema);
    /// tool.title = Some("Hello".into());
    /// server.registry().add_tool(tool, tool_fn(|_: serde_json::Value, _ctx| async { "hi" }), None)?;
    ///
    /// let defs = server.registry().definitions(ProtocolVersion::V2025_11_25);
    /// assert_eq!(defs.tools[0].name, "hello");
    /// assert_eq!(defs.tools[0].title.as_deref(), Some("Hello"));
    /// # Ok::<(), ferromcp::registry::RegistryError>(())
    /// ```
    pub fn definitions(&self, version: ProtocolVersion) -> Definitions {
        let s = self.current();
        let all = |kind| (0..s.len(kind)).collect::<Vec<_>>();
        Definitions {
            tools: prepared::<ListToolsResult>(&s, &all(List::Tools), version).into_items(),
            resources: prepared::<ListResourcesResult>(&s, &all(List::Resources), version)
                .into_items(),
            resource_templates: prepared::<ListResourceTemplatesResult>(
                &s,
                &all(List::ResourceTemplates),
                version,
            )
            .into_items(),
            prompts: prepared::<ListPromptsResult>(&s, &all(List::Prompts), version).into_items(),
        }
    }
}

/// The items `shown` (indexes into the snapshot's list of `R`'s kind) as one result, adapted
/// to `version`: what a list page serializes and what [`Registry::definitions`] unpacks.
pub(super) fn prepared<R: Listing>(s: &Snapshot, shown: &[usize], version: ProtocolVersion) -> R {
    let mut result = R::of(s, shown);
    result.prepare_for(version);
    result
}

/// A list result, built from a snapshot's items.
pub(super) trait Listing: WithMeta + Cacheable + WireResult + Sized {
    /// What the list holds.
    type Item;

    /// The result holding the items `shown`, with no cursor.
    fn of(s: &Snapshot, shown: &[usize]) -> Self;

    /// Where the next page starts.
    fn set_next_cursor(&mut self, cursor: Option<String>);

    /// The items.
    fn into_items(self) -> Vec<Self::Item>;
}

/// `Listing` for a list result type: its item type, its field, and how an item is taken from
/// the snapshot.
macro_rules! listing {
    ($result:ty, $item:ty, $field:ident, |$s:ident, $i:ident| $take:expr) => {
        impl Listing for $result {
            type Item = $item;

            fn of($s: &Snapshot, shown: &[usize]) -> Self {
                <$result>::new(shown.iter().map(|&$i| $take).collect())
            }

            fn set_next_cursor(&mut self, cursor: Option<String>) {
                self.next_cursor = cursor;
            }

            fn into_items(self) -> Vec<$item> {
                self.$field
            }
        }
    };
}

listing!(ListToolsResult, Tool, tools, |s, i| Tool::clone(
    &s.tools[i].tool
));
listing!(ListResourcesResult, Resource, resources, |s, i| s.resources
    [i]
    .resource
    .clone());
listing!(
    ListResourceTemplatesResult,
    ResourceTemplate,
    resource_templates,
    |s, i| s.templates[i].template.clone()
);
listing!(ListPromptsResult, Prompt, prompts, |s, i| s.prompts[i]
    .prompt
    .clone());
