//! What a revision lacks, left out of the definitions its clients are sent.
//!
//! Only a revision that [omits later members](ProtocolVersion::omits_later_members)
//! (2024-11-05) loses anything here; newer revisions keep a member their schema does not
//! define (a `title` for 2025-03-26, say) as a harmless extra, so that the bytes their
//! clients get do not change. Everything 2024-11-05 lacks is one set of later members, so
//! each adapter asks that one question and then clears them.

use crate::ProtocolVersion;
use crate::types::{
    Annotations, ClientCapabilities, Implementation, InitializeResult, Prompt, Resource,
    ResourceTemplate, ServerCapabilities, TextOrBlobResourceContents, Tool,
};

/// Clears `annotations.lastModified` (2025-06-18).
fn without_last_modified(annotations: &mut Option<Annotations>) {
    if let Some(a) = annotations {
        a.last_modified = None;
    }
}

impl Tool {
    /// Removes, for a revision that [omits later members](ProtocolVersion::omits_later_members),
    /// what it lacks: `annotations`, `title`, `outputSchema`, `icons`, `execution`, `_meta`.
    pub(crate) fn omit_later_members(&mut self, version: ProtocolVersion) {
        if !version.omits_later_members() {
            return;
        }
        self.annotations = None;
        self.title = None;
        self.output_schema = None;
        self.icons = None;
        self.execution = None;
        self.meta = None;
    }
}

impl Prompt {
    /// Adapts the prompt to a revision: for 2024-11-05 (see
    /// [`ProtocolVersion::omits_later_members`]) without `title`, `icons`, `_meta` and its
    /// arguments' `title`; for every other revision unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp_core::ProtocolVersion;
    /// use ferromcp_core::types::Prompt;
    ///
    /// let mut prompt = Prompt { title: Some("Greet".into()), ..Prompt::new("greet") };
    /// prompt.prepare_for(ProtocolVersion::V2025_03_26);
    /// assert!(prompt.title.is_some());
    /// prompt.prepare_for(ProtocolVersion::V2024_11_05);
    /// assert_eq!(prompt, Prompt::new("greet"));
    /// ```
    pub fn prepare_for(&mut self, version: ProtocolVersion) {
        if !version.omits_later_members() {
            return;
        }
        self.title = None;
        self.icons = None;
        self.meta = None;
        for argument in self.arguments.iter_mut().flatten() {
            argument.title = None;
        }
    }
}

impl Resource {
    /// Adapts the resource to a revision: for 2024-11-05 (see
    /// [`ProtocolVersion::omits_later_members`]) without `title`, `icons`, `_meta` and
    /// `annotations.lastModified`; for every other revision unchanged.
    pub fn prepare_for(&mut self, version: ProtocolVersion) {
        if !version.omits_later_members() {
            return;
        }
        self.title = None;
        self.icons = None;
        self.meta = None;
        without_last_modified(&mut self.annotations);
    }
}

impl ResourceTemplate {
    /// Adapts the template to a revision, as [`Resource::prepare_for`] does a resource.
    pub fn prepare_for(&mut self, version: ProtocolVersion) {
        if !version.omits_later_members() {
            return;
        }
        self.title = None;
        self.icons = None;
        self.meta = None;
        without_last_modified(&mut self.annotations);
    }
}

impl TextOrBlobResourceContents {
    /// Adapts the contents to a revision: for 2024-11-05 (see
    /// [`ProtocolVersion::omits_later_members`]) without `_meta`; otherwise unchanged.
    pub fn prepare_for(&mut self, version: ProtocolVersion) {
        if !version.omits_later_members() {
            return;
        }
        let meta = match self {
            TextOrBlobResourceContents::Text(t) => &mut t.meta,
            TextOrBlobResourceContents::Blob(b) => &mut b.meta,
        };
        *meta = None;
    }
}

impl Implementation {
    /// Adapts the description of a server to a revision: for 2024-11-05 (see
    /// [`ProtocolVersion::omits_later_members`]) only `name` and `version` stay (and
    /// unknown members); otherwise unchanged.
    pub fn prepare_for(&mut self, version: ProtocolVersion) {
        if !version.omits_later_members() {
            return;
        }
        self.title = None;
        self.icons = None;
        self.website_url = None;
        self.description = None;
    }
}

impl ServerCapabilities {
    /// Adapts the capabilities to a revision: for 2024-11-05 (see
    /// [`ProtocolVersion::omits_later_members`]) without `completions`, `tasks` and
    /// `extensions`; otherwise unchanged.
    pub fn prepare_for(&mut self, version: ProtocolVersion) {
        if !version.omits_later_members() {
            return;
        }
        self.completions = None;
        self.tasks = None;
        self.extensions = None;
    }
}

impl ClientCapabilities {
    /// Keeps only what a client of `version` can have meant: for 2024-11-05 (see
    /// [`ProtocolVersion::omits_later_members`]) no `elicitation` and no `tasks`, which that
    /// revision does not have, so a server never sends it such a request; otherwise unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp_core::ProtocolVersion;
    /// use ferromcp_core::types::ClientCapabilities;
    ///
    /// let mut caps: ClientCapabilities =
    ///     serde_json::from_value(serde_json::json!({"elicitation": {}})).unwrap();
    /// caps.restrict_to(ProtocolVersion::V2024_11_05);
    /// assert!(!caps.supports_elicitation_form());
    /// ```
    pub fn restrict_to(&mut self, version: ProtocolVersion) {
        if !version.omits_later_members() {
            return;
        }
        self.elicitation = None;
        self.tasks = None;
    }
}

impl InitializeResult {
    /// What [`WireResult::prepare_for`](crate::types::WireResult::prepare_for) does beyond
    /// `resultType`: the capabilities and the server's description for the revision.
    pub(crate) fn omit_later_members(&mut self, version: ProtocolVersion) {
        self.capabilities.prepare_for(version);
        self.server_info.prepare_for(version);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::types::{
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
        ReadResourceResult, WireResult,
    };

    fn prepared<T>(version: ProtocolVersion, value: serde_json::Value) -> serde_json::Value
    where
        T: serde::de::DeserializeOwned + serde::Serialize + WireResult,
    {
        let mut typed: T = serde_json::from_value(value).unwrap();
        typed.prepare_for(version);
        serde_json::to_value(typed).unwrap()
    }

    #[test]
    fn a_2024_11_05_client_gets_only_what_its_revision_defines() {
        let v = ProtocolVersion::V2024_11_05;
        let tools = json!({"tools": [{
            "name": "t", "title": "T", "description": "d",
            "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}, "execution": {"taskSupport": "optional"},
            "icons": [{"src": "https://x/i.png"}], "_meta": {"k": 1}
        }]});
        assert_eq!(
            prepared::<ListToolsResult>(v, tools.clone()),
            json!({"tools": [{"name": "t", "description": "d", "inputSchema": {"type": "object"}}]})
        );
        // 2025-03-26 keeps what it does not define, as before.
        assert_eq!(
            prepared::<ListToolsResult>(ProtocolVersion::V2025_03_26, tools.clone()),
            tools
        );
        let prompts = json!({"prompts": [{
            "name": "p", "title": "P", "_meta": {"k": 1}, "icons": [],
            "arguments": [{"name": "a", "title": "A", "required": true}]
        }]});
        assert_eq!(
            prepared::<ListPromptsResult>(v, prompts),
            json!({"prompts": [{"name": "p", "arguments": [{"name": "a", "required": true}]}]})
        );
        let annotations = json!({"priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"});
        let resources = json!({"resources": [{
            "uri": "a://b", "name": "b", "title": "B", "_meta": {}, "icons": [],
            "annotations": annotations
        }]});
        assert_eq!(
            prepared::<ListResourcesResult>(v, resources),
            json!({"resources": [{"uri": "a://b", "name": "b", "annotations": {"priority": 0.5}}]})
        );
        let templates = json!({"resourceTemplates": [{
            "uriTemplate": "a://{x}", "name": "x", "title": "X", "_meta": {}
        }]});
        assert_eq!(
            prepared::<ListResourceTemplatesResult>(v, templates),
            json!({"resourceTemplates": [{"uriTemplate": "a://{x}", "name": "x"}]})
        );
        let read = json!({"contents": [{"uri": "a://b", "text": "t", "_meta": {"k": 1}}]});
        assert_eq!(
            prepared::<ReadResourceResult>(v, read),
            json!({"contents": [{"uri": "a://b", "text": "t"}]})
        );
    }

    #[test]
    fn a_2024_11_05_handshake_declares_only_its_capabilities() {
        let init = json!({
            "protocolVersion": "2024-11-05",
            "capabilities": {
                "tools": {"listChanged": true}, "logging": {}, "completions": {},
                "tasks": {"list": {}}, "extensions": {"io.x/y": {}}
            },
            "serverInfo": {
                "name": "s", "version": "1", "title": "S", "description": "d",
                "icons": [], "websiteUrl": "https://x"
            }
        });
        assert_eq!(
            prepared::<InitializeResult>(ProtocolVersion::V2024_11_05, init.clone()),
            json!({
                "protocolVersion": "2024-11-05",
                "capabilities": {"tools": {"listChanged": true}, "logging": {}},
                "serverInfo": {"name": "s", "version": "1"}
            })
        );
        assert_eq!(
            prepared::<InitializeResult>(ProtocolVersion::V2025_03_26, init.clone()),
            init
        );
    }
}
