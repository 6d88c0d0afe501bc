//! A tool's `_meta.ui`: the `ui://` resource the host renders beside its result, and who
//! may call it.

use ferromcp_core::types::{MetaObject, Tool};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::LEGACY_RESOURCE_URI_KEY;

/// Who may call a UI-bound tool (`_meta.ui.visibility`). A tool without a visibility list
/// is visible to both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Visibility {
    /// The model (the agent) sees the tool and may call it.
    Model,
    /// The app (the rendered UI, through the host) may call the tool.
    App,
}

/// A tool's `_meta.ui`: what `#[tool(ui = "ui://…", visibility = [...])]` sets, for tools
/// added to the registry by hand.
///
/// # Examples
///
/// ```
/// use ferromcp::apps::{ToolUi, Visibility};
/// use ferromcp::types::Tool;
///
/// let mut tool = Tool::new("refresh_rows", Default::default());
/// ToolUi::new("ui://orders/table.html")
///     .visibility([Visibility::App])
///     .apply(&mut tool);
/// let meta = tool.meta.unwrap_or_default();
/// assert_eq!(meta.get("ui").unwrap()["resourceUri"], "ui://orders/table.html");
/// assert_eq!(meta.get("ui").unwrap()["visibility"], serde_json::json!(["app"]));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolUi {
    resource_uri: Option<String>,
    visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// The tool's UI is the resource at `resource_uri` (a `ui://` URI, checked by
    /// [`check`](super::check) and when [`Apps`](super::Apps) is installed).
    pub fn new(resource_uri: impl Into<String>) -> Self {
        ToolUi {
            resource_uri: Some(resource_uri.into()),
            visibility: None,
        }
    }

    /// No UI of its own, only a visibility: a tool the app calls, hidden from the model
    /// with `[Visibility::App]`.
    pub fn without_resource() -> Self {
        ToolUi::default()
    }

    /// Who may call the tool (default: both the model and the app).
    pub fn visibility(mut self, visibility: impl IntoIterator<Item = Visibility>) -> Self {
        self.visibility = Some(visibility.into_iter().collect());
        self
    }

    /// The `_meta.ui` object.
    pub fn to_meta(&self) -> Value {
        let mut ui = serde_json::Map::new();
        if let Some(uri) = &self.resource_uri {
            ui.insert("resourceUri".into(), uri.clone().into());
        }
        if let Some(visibility) = &self.visibility {
            ui.insert("visibility".into(), serde_json::json!(visibility));
        }
        Value::Object(ui)
    }

    /// Sets the tool's `_meta.ui` (merged into a `ui` object its `_meta` has already), and
    /// the flat `_meta["ui/resourceUri"]` that hosts written before the nested form still
    /// read.
    pub fn apply(&self, tool: &mut Tool) {
        let meta = tool.meta.get_or_insert_with(MetaObject::default);
        if let Some(uri) = &self.resource_uri {
            meta.insert(LEGACY_RESOURCE_URI_KEY, uri.clone().into());
        }
        let Value::Object(members) = self.to_meta() else {
            return;
        };
        match meta.0.get_mut("ui") {
            Some(Value::Object(ui)) => ui.extend(members),
            _ => {
                meta.insert("ui", Value::Object(members));
            }
        }
    }
}

/// The `ui://` URI `tool` points at (`_meta.ui.resourceUri`, else the flat
/// `_meta["ui/resourceUri"]`), if any.
pub(super) fn resource_uri(tool: &Tool) -> Option<&str> {
    let meta = tool.meta.as_ref()?;
    meta.get("ui")
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get(LEGACY_RESOURCE_URI_KEY))
        .and_then(Value::as_str)
}
