//! Why a registration was refused.

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// A tool with this name is already registered.
    #[error("a tool named `{0}` is already registered")]
    DuplicateTool(String),
    /// A prompt with this name is already registered.
    #[error("a prompt named `{0}` is already registered")]
    DuplicatePrompt(String),
    /// A resource with this URI is already registered.
    #[error("a resource with URI `{0}` is already registered")]
    DuplicateResource(String),
    /// A resource template with this URI template is already registered.
    #[error("a resource template `{0}` is already registered")]
    DuplicateTemplate(String),
    /// The URI template does not parse.
    #[error("invalid URI template `{template}`: {message}")]
    InvalidTemplate {
        /// The template.
        template: String,
        /// What is wrong with it.
        message: String,
    },
    /// An extension found the finished registry wanting (`Extension::check`): a tool
    /// pointing at a UI resource that is not there, say.
    #[error("extension `{id}`: {message}")]
    Extension {
        /// The extension's identifier.
        id: String,
        /// What it found.
        message: String,
    },
    /// A tool name outside 1–128 characters of `A-Z a-z 0-9 _ . -`.
    #[error(
        "tool names may only contain A-Z a-z 0-9 _ . - and be 1 to 128 characters long (found `{0}`)"
    )]
    InvalidToolName(String),
    /// A schema given to `#[tool]`, or a `_meta` given to `#[tool]`, `#[resource]` or
    /// `#[prompt]`, is not a JSON object (or an input schema is not `"type": "object"`), or an `x-mcp-header` annotation of a tool's input
    /// schema breaks the 2026 transport's rules (conforming clients would drop the tool).
    #[error("invalid {what} for `{name}`: {message}")]
    InvalidDescriptor {
        /// The tool's or prompt's name, or the resource's URI (template).
        name: String,
        /// Which part: `input_schema`, `output_schema` or `meta`.
        what: &'static str,
        /// What is wrong with it.
        message: String,
    },
}
