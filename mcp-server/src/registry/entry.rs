//! What the registry holds for each tool, resource, resource template, prompt and
//! completion.

use std::sync::Arc;
use std::time::Duration;

use ferromcp_core::types::{Prompt, Resource, ResourceTemplate, Tool};
use ferromcp_core::uri_template::UriTemplate;

use super::mirror::{MirroredParam, mirrored_params};
use super::{PromptHandler, RegistryError, ResourceHandler, ToolHandler};

/// A registered tool.
pub(crate) struct ToolEntry {
    /// What `tools/list` shows; shared with the `#[tool]` descriptor cached for the process.
    pub(crate) tool: Arc<Tool>,
    /// What `tools/call` runs.
    pub(crate) handler: Arc<dyn ToolHandler>,
    /// How long a call may run before it is ended with an error; `None` uses the server's
    /// default.
    pub(crate) timeout: Option<Duration>,
    /// The parameters a 2026 HTTP call mirrors into `Mcp-Param-*` headers (checked whatever
    /// the transport: the same tools may be served over HTTP too).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) mirrored: Box<[MirroredParam]>,
}

impl ToolEntry {
    /// A tool to register, its name and `x-mcp-header` annotations checked.
    ///
    /// # Errors
    ///
    /// The name is not a valid tool name, or an annotation breaks the transport's rules.
    pub(crate) fn new(
        tool: Arc<Tool>,
        handler: Arc<dyn ToolHandler>,
        timeout: Option<Duration>,
    ) -> Result<ToolEntry, RegistryError> {
        if !is_valid_tool_name(&tool.name) {
            return Err(RegistryError::InvalidToolName(tool.name.clone()));
        }
        let mirrored = mirrored_params(&tool.input_schema).map_err(|message| {
            RegistryError::InvalidDescriptor {
                name: tool.name.clone(),
                what: "input_schema",
                message,
            }
        })?;
        Ok(ToolEntry {
            tool,
            handler,
            timeout,
            mirrored,
        })
    }
}

/// A registered static resource.
pub(crate) struct ResourceEntry {
    /// What `resources/list` shows.
    pub(crate) resource: Resource,
    /// What `resources/read` runs.
    pub(crate) handler: Arc<dyn ResourceHandler>,
}

/// A registered resource template.
pub(crate) struct TemplateEntry {
    /// What `resources/templates/list` shows.
    pub(crate) template: ResourceTemplate,
    /// The parsed `uriTemplate`, used to match URIs on `resources/read`.
    pub(crate) matcher: UriTemplate,
    /// What `resources/read` runs for a matching URI.
    pub(crate) handler: Arc<dyn ResourceHandler>,
    /// The variables exempt from the path check (`registry::paths`).
    pub(crate) unchecked: Box<[String]>,
}

/// A registered prompt.
pub(crate) struct PromptEntry {
    /// What `prompts/list` shows.
    pub(crate) prompt: Prompt,
    /// What `prompts/get` runs.
    pub(crate) handler: Arc<dyn PromptHandler>,
}

/// What a completion answers for: an argument of a prompt or of a resource template.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CompletionTarget {
    /// An argument of the prompt with this name.
    Prompt(String),
    /// A variable of the resource template with this URI template.
    ResourceTemplate(String),
}

/// Whether `name` is a valid tool name: 1–128 characters of `A-Z a-z 0-9 _ . -`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_the_spec_alphabet() {
        assert!(is_valid_tool_name("a.b-c_d9"));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("my tool"));
        assert!(!is_valid_tool_name(&"x".repeat(129)));
        assert!(is_valid_tool_name(&"x".repeat(128)));
    }
}
