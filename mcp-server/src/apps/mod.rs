//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): a tool points at a `ui://` resource —
//! an HTML document served as `text/html;profile=mcp-app` — that the host renders in a
//! sandboxed iframe beside the tool's result.
//!
//! Install [`Apps`] with [`ServerBuilder::extension`](crate::ServerBuilder::extension): it
//! declares the extension and registers its [`UiResource`]s. A tool points at one with
//! `#[tool(ui = "ui://…")]` (or [`ToolUi`] for a tool added by hand), and still returns
//! text for clients without the extension; a handler asks [`client_supports_apps`].
//! Building the server fails for a tool pointing at a resource that is not there (see
//! [`check`]). See docs/apps.md.
//!
//! # Examples
//!
//! ```
//! use ferromcp::apps::{self, Apps, UiResource};
//! use ferromcp::prelude::*;
//!
//! struct Orders;
//!
//! #[ferromcp::server(name = "orders")]
//! impl Orders {
//!     /// Lists the open orders.
//!     #[tool(ui = "ui://orders/table.html")]
//!     async fn list_orders(&self) -> String {
//!         "2 open orders: #1 (3 items), #2 (1 item)".into()
//!     }
//! }
//!
//! let server = Server::builder(Orders)
//!     .extension(Apps::new().resource(UiResource::html(
//!         "ui://orders/table.html",
//!         "<!doctype html><table id=orders></table>",
//!     )))?
//!     .build()?;
//! # let _ = server;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod resource;
mod tool;

use std::path::PathBuf;
use std::sync::Arc;

use ferromcp_core::ProtocolVersion;
use serde_json::Value;

use crate::context::Context;
use crate::extension::{Extension, ExtensionError, Install};
use crate::registry::{Registry, RegistryError};

pub use resource::{Csp, Permission, UiResource};
pub use tool::{ToolUi, Visibility};

/// The extension's identifier, the key of `capabilities.extensions`.
pub const ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML document.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The flat `_meta` key of a tool's resource URI that hosts written before
/// `_meta.ui.resourceUri` read; set alongside it.
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// The scheme every app resource's URI starts with.
const UI_SCHEME: &str = "ui://";

/// Whether `uri` is a `ui://` URI with something after the scheme.
fn is_ui_uri(uri: &str) -> bool {
    uri.strip_prefix(UI_SCHEME)
        .is_some_and(|rest| !rest.is_empty())
}

/// Why an app's resource or tool was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppsError {
    /// An app resource's URI (or the URI a tool points at) does not start with `ui://`.
    #[error("`{0}` is not a ui:// URI: an app's resource is named `ui://…`")]
    NotUiUri(String),
    /// A tool points at a `ui://` resource that is not registered.
    #[error("tool `{tool}` points at `{uri}`, which is not a registered resource")]
    MissingResource {
        /// The tool.
        tool: String,
        /// The URI it points at.
        uri: String,
    },
    /// A tool points at a resource that is not served as `text/html;profile=mcp-app`.
    #[error(
        "tool `{tool}` points at `{uri}`, served as `{found}`: an app is served as `text/html;profile=mcp-app`"
    )]
    WrongMimeType {
        /// The tool.
        tool: String,
        /// The URI it points at.
        uri: String,
        /// The resource's MIME type (empty when it has none).
        found: String,
    },
    /// The HTML file of a resource could not be read.
    #[error("the HTML of `{uri}` could not be read from {path:?}")]
    Html {
        /// The resource.
        uri: String,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The registry refused a resource (a URI registered already).
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

impl From<AppsError> for ExtensionError {
    fn from(error: AppsError) -> Self {
        match error {
            AppsError::Registry(e) => ExtensionError::Registry(e),
            other => ExtensionError::Failed(Box::new(other)),
        }
    }
}

/// The MCP Apps extension: declares `io.modelcontextprotocol/ui` (with `{}`) in the
/// server's capabilities, registers its [`UiResource`]s, and checks the tools registered
/// so far ([`check`]).
#[derive(Debug, Clone, Default)]
pub struct Apps {
    resources: Vec<UiResource>,
}

impl Apps {
    /// The extension, with no resources yet.
    pub fn new() -> Self {
        Apps::default()
    }

    /// Adds a `ui://` resource.
    pub fn resource(mut self, resource: UiResource) -> Self {
        self.resources.push(resource);
        self
    }
}

impl Extension for Apps {
    fn id(&self) -> &str {
        ID
    }

    fn settings(&self, _version: ProtocolVersion) -> Option<ferromcp_core::types::JSONObject> {
        Some(Default::default())
    }

    fn install(self: Arc<Self>, install: &mut Install<'_>) -> Result<(), ExtensionError> {
        for resource in &self.resources {
            resource.clone().register(install.registry())?;
        }
        check(install.registry())?;
        Ok(())
    }

    /// What [`install`](Extension::install) checked, again on the finished registry: a
    /// `#[server]` type's tools are registered by
    /// [`ServerBuilder::build`](crate::ServerBuilder::build), after the extensions.
    fn check(&self, registry: &Registry) -> Result<(), ExtensionError> {
        check(registry).map_err(|e| ExtensionError::Failed(Box::new(e)))
    }
}

/// Checks every tool in `registry` that points at a UI (`_meta.ui.resourceUri` or
/// `_meta["ui/resourceUri"]`): the URI is a `ui://` URI of a registered resource served as
/// `text/html;profile=mcp-app`. [`Apps`] runs it when installed and again when
/// [`ServerBuilder::build`](crate::ServerBuilder::build) has registered the `#[server]`
/// type's tools; run it yourself after adding tools to a built server's registry.
///
/// # Errors
///
/// The first tool found pointing at a non-`ui://` URI ([`AppsError::NotUiUri`]), at a URI
/// no resource has ([`AppsError::MissingResource`]), or at a resource of another MIME type
/// ([`AppsError::WrongMimeType`]).
pub fn check(registry: &Registry) -> Result<(), AppsError> {
    let definitions = registry.definitions(ProtocolVersion::V2025_11_25);
    for t in &definitions.tools {
        let Some(uri) = tool::resource_uri(t) else {
            continue;
        };
        if !is_ui_uri(uri) {
            return Err(AppsError::NotUiUri(uri.to_owned()));
        }
        let Some(resource) = definitions.resources.iter().find(|r| r.uri == uri) else {
            return Err(AppsError::MissingResource {
                tool: t.name.clone(),
                uri: uri.to_owned(),
            });
        };
        if resource.mime_type.as_deref() != Some(MIME_TYPE) {
            return Err(AppsError::WrongMimeType {
                tool: t.name.clone(),
                uri: uri.to_owned(),
                found: resource.mime_type.clone().unwrap_or_default(),
            });
        }
    }
    Ok(())
}

/// Whether this request's client renders apps: it declared `io.modelcontextprotocol/ui`,
/// and its `mimeTypes` (when it lists them) include `text/html;profile=mcp-app`. A UI-bound
/// tool answers every client with meaningful text; this tells it whether a UI will be
/// shown beside it.
///
/// # Examples
///
/// ```
/// use ferromcp::Context;
/// use ferromcp::apps;
///
/// fn summary(ctx: &Context, rows: usize) -> String {
///     if apps::client_supports_apps(ctx) {
///         format!("{rows} rows, shown in the table")
///     } else {
///         format!("{rows} rows")
///     }
/// }
/// ```
pub fn client_supports_apps(ctx: &Context) -> bool {
    let Some(settings) = ctx.client_extension(ID) else {
        return false;
    };
    match settings.get("mimeTypes") {
        None => true,
        Some(Value::Array(types)) => types.iter().any(|t| t.as_str() == Some(MIME_TYPE)),
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::is_ui_uri;

    #[test]
    fn ui_uris_have_the_scheme_and_a_path() {
        assert!(is_ui_uri("ui://orders/table.html"));
        assert!(!is_ui_uri("ui://"));
        assert!(!is_ui_uri("https://example.com/table.html"));
        assert!(!is_ui_uri("UI://orders"));
    }
}
