//! A `ui://` resource: an HTML document served as `text/html;profile=mcp-app`, with the
//! `_meta.ui` the host reads to sandbox it.

use std::path::PathBuf;
use std::sync::Arc;

use ferromcp_core::types::{MetaObject, Resource, TextResourceContents};
use serde::Serialize;
use serde_json::Value;

use super::{AppsError, MIME_TYPE};
use crate::registry::{Registry, resource_fn};

/// The origins an app may reach (`_meta.ui.csp`); the host builds the iframe's
/// Content-Security-Policy from them. Empty lists are left out: the host's secure default
/// (nothing beyond the document) applies.
///
/// # Examples
///
/// ```
/// use ferromcp::apps::Csp;
///
/// let csp = Csp::new()
///     .connect_domains(["https://api.example.com"])
///     .resource_domains(["https://cdn.example.com"]);
/// # let _ = csp;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Csp {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    connect_domains: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    resource_domains: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    frame_domains: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    base_uri_domains: Vec<String>,
}

/// Strings from an iterator.
fn owned<S: Into<String>>(items: impl IntoIterator<Item = S>) -> Vec<String> {
    items.into_iter().map(Into::into).collect()
}

impl Csp {
    /// No origins: the app reaches nothing beyond its document.
    pub fn new() -> Self {
        Csp::default()
    }

    /// Origins for `fetch`, XHR and WebSockets (`connect-src`).
    pub fn connect_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.connect_domains = owned(origins);
        self
    }

    /// Origins for scripts, styles, images, fonts and media (`script-src`, `style-src`,
    /// `img-src`, `font-src`, `media-src`); `https://*.example.com` is allowed.
    pub fn resource_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.resource_domains = owned(origins);
        self
    }

    /// Origins of nested iframes (`frame-src`).
    pub fn frame_domains<S: Into<String>>(mut self, origins: impl IntoIterator<Item = S>) -> Self {
        self.frame_domains = owned(origins);
        self
    }

    /// Allowed base URIs of the document (`base-uri`).
    pub fn base_uri_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.base_uri_domains = owned(origins);
        self
    }

    fn is_empty(&self) -> bool {
        self == &Csp::default()
    }
}

/// A browser permission an app asks the host for (`_meta.ui.permissions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Permission {
    /// The camera (`camera`).
    Camera,
    /// The microphone (`microphone`).
    Microphone,
    /// The location (`geolocation`).
    Geolocation,
    /// Writing to the clipboard (`clipboardWrite`).
    ClipboardWrite,
}

impl Permission {
    fn key(self) -> &'static str {
        match self {
            Permission::Camera => "camera",
            Permission::Microphone => "microphone",
            Permission::Geolocation => "geolocation",
            Permission::ClipboardWrite => "clipboardWrite",
        }
    }
}

/// Where the HTML comes from.
#[derive(Debug, Clone)]
enum Html {
    Text(Arc<str>),
    File(PathBuf),
}

/// A `ui://` resource of an app, added by [`Apps::resource`](super::Apps::resource): its
/// HTML and its `_meta.ui`, served as `text/html;profile=mcp-app`.
///
/// # Examples
///
/// ```
/// use ferromcp::apps::{Csp, Permission, UiResource};
///
/// let table = UiResource::html("ui://orders/table.html", "<!doctype html><p>Orders</p>")
///     .name("Orders table")
///     .csp(Csp::new().resource_domains(["https://cdn.example.com"]))
///     .permissions([Permission::ClipboardWrite])
///     .prefers_border(true);
/// assert_eq!(table.uri(), "ui://orders/table.html");
/// ```
#[derive(Debug, Clone)]
pub struct UiResource {
    uri: String,
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    html: Html,
    csp: Csp,
    permissions: Vec<Permission>,
    domain: Option<String>,
    prefers_border: Option<bool>,
}

impl UiResource {
    /// The resource at `uri` serves `html`: `include_str!("table.html")`, or a `String`
    /// built at run time.
    pub fn html(uri: impl Into<String>, html: impl Into<Arc<str>>) -> Self {
        UiResource::with(uri.into(), Html::Text(html.into()))
    }

    /// The resource at `uri` serves the file at `path`, read once when [`Apps`](super::Apps)
    /// is installed (a file that cannot be read fails the installation).
    pub fn file(uri: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        UiResource::with(uri.into(), Html::File(path.into()))
    }

    fn with(uri: String, html: Html) -> Self {
        UiResource {
            uri,
            name: None,
            title: None,
            description: None,
            html,
            csp: Csp::default(),
            permissions: Vec::new(),
            domain: None,
            prefers_border: None,
        }
    }

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The name in `resources/list` (default: the URI).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The title in `resources/list`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The description in `resources/list`.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The origins the app may reach (`_meta.ui.csp`).
    pub fn csp(mut self, csp: Csp) -> Self {
        self.csp = csp;
        self
    }

    /// The browser permissions the app asks for (`_meta.ui.permissions`).
    pub fn permissions(mut self, permissions: impl IntoIterator<Item = Permission>) -> Self {
        self.permissions = permissions.into_iter().collect();
        self
    }

    /// A dedicated sandbox origin (`_meta.ui.domain`); its format is the host's to define.
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Whether the host should draw a border and background around the app
    /// (`_meta.ui.prefersBorder`; unset: the host decides).
    pub fn prefers_border(mut self, prefers: bool) -> Self {
        self.prefers_border = Some(prefers);
        self
    }

    /// The `_meta.ui` object of the resource.
    pub fn to_meta(&self) -> Value {
        let mut ui = serde_json::Map::new();
        if !self.csp.is_empty() {
            ui.insert("csp".into(), serde_json::json!(self.csp));
        }
        if !self.permissions.is_empty() {
            let granted = self
                .permissions
                .iter()
                .map(|p| (p.key().to_owned(), Value::Object(Default::default())))
                .collect();
            ui.insert("permissions".into(), Value::Object(granted));
        }
        if let Some(domain) = &self.domain {
            ui.insert("domain".into(), domain.clone().into());
        }
        if let Some(prefers) = self.prefers_border {
            ui.insert("prefersBorder".into(), prefers.into());
        }
        Value::Object(ui)
    }

    /// Reads the HTML and adds the resource to `registry`, its `_meta.ui` on the list entry
    /// and on the contents read.
    pub(super) fn register(self, registry: &Registry) -> Result<(), AppsError> {
        if !super::is_ui_uri(&self.uri) {
            return Err(AppsError::NotUiUri(self.uri));
        }
        let html = match &self.html {
            Html::Text(text) => text.clone(),
            Html::File(path) => match std::fs::read_to_string(path) {
                Ok(text) => Arc::from(text),
                Err(source) => {
                    return Err(AppsError::Html {
                        uri: self.uri,
                        path: path.clone(),
                        source,
                    });
                }
            },
        };
        let mut meta = MetaObject::default();
        meta.insert("ui", self.to_meta());
        let mut resource = Resource::new(&self.uri, self.name.unwrap_or_else(|| self.uri.clone()));
        resource.title = self.title;
        resource.description = self.description;
        resource.mime_type = Some(MIME_TYPE.to_owned());
        resource.meta = Some(meta.clone());
        let handler = resource_fn(Some(MIME_TYPE), move |uri, _, _| {
            let mut contents = TextResourceContents::new(uri, html.to_string());
            contents.meta = Some(meta.clone());
            async move { contents }
        });
        registry.add_resource(resource, handler)?;
        Ok(())
    }
}
