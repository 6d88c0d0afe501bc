//! What a client can do: [`ClientCapabilities`] and the capability objects inside it.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::CapabilityMap;
use crate::types::JSONObject;

/// `extensions`, refused unless it is an object whose every member's settings are objects
/// (see [`ClientCapabilities::extensions`]).
fn declared_extensions<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<CapabilityMap>, D::Error> {
    let Some(declared) = Option::<Value>::deserialize(deserializer)? else {
        return Ok(None);
    };
    let Value::Object(declared) = declared else {
        return Err(D::Error::custom(format_args!(
            "`extensions` must be an object of extension ids, not {}",
            kind(&declared)
        )));
    };
    declared
        .into_iter()
        .map(|(id, settings)| match settings {
            Value::Object(settings) => Ok((id, settings)),
            other => Err(D::Error::custom(format_args!(
                "the settings of extension `{id}` must be an object (`{{}}` for none), not {}",
                kind(&other)
            ))),
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// How a JSON value that should have been an object is named in an error.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What a client can do: the features a server may use with it.
///
/// # Examples
///
/// ```
/// use ferromcp_core::types::ClientCapabilities;
///
/// let caps: ClientCapabilities = serde_json::from_str(r#"{"elicitation": {}, "roots": {}}"#).unwrap();
/// assert!(caps.supports_elicitation_form());
/// assert!(!caps.supports_elicitation_url());
/// assert!(caps.supports_roots());
/// assert!(!caps.supports_sampling());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Non-standard capabilities under trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<CapabilityMap>,
    /// Protocol extensions the client supports, by extension id, each with its settings
    /// (an object; `{}` for none). Anything else — `extensions` that is not an object, or
    /// settings that are not — fails to deserialize with an error naming the extension, so
    /// a server refuses the handshake or request with -32602 rather than guessing.
    #[serde(
        default,
        deserialize_with = "declared_extensions",
        skip_serializing_if = "Option::is_none"
    )]
    pub extensions: Option<CapabilityMap>,
    /// The client can list its roots (filesystem boundaries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// The client can sample from a model (`sampling/createMessage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// 2025-06-18 onwards: the client can ask its user for input (`elicitation/create`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// 2025-11-25: the client can run some requests as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

impl ClientCapabilities {
    /// Whether the client declared sampling at all.
    pub fn supports_sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// Whether the client accepts `tools` and `toolChoice` in sampling requests.
    pub fn supports_sampling_tools(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// Whether the client honours `includeContext` values other than `"none"` in sampling
    /// requests.
    pub fn supports_sampling_context(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.context.is_some())
    }

    /// Whether the client supports form-mode elicitation. An `elicitation` object naming
    /// neither `form` nor `url` (the 2025-06-18 form, `{}`) means form mode.
    pub fn supports_elicitation_form(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// Whether the client supports URL-mode elicitation (2025-11-25 onwards).
    pub fn supports_elicitation_url(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.url.is_some())
    }

    /// Whether the client can list its roots.
    pub fn supports_roots(&self) -> bool {
        self.roots.is_some()
    }

    /// Whether the client sends `notifications/roots/list_changed` (legacy era).
    pub fn supports_roots_list_changed(&self) -> bool {
        self.roots
            .as_ref()
            .is_some_and(|r| r.list_changed == Some(true))
    }

    /// Whether the client declared the extension with this id (2026).
    pub fn supports_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }
}

/// The client's `roots` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// Legacy era: the client notifies when its roots change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The client's `sampling` capability; `{}` means basic sampling.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// 2025-11-25 onwards: the client honours `includeContext` (soft-deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JSONObject>,
    /// 2025-11-25 onwards: the client accepts tools in sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JSONObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// The client's `elicitation` capability. `{}` (the only 2025-06-18 form) means form mode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// The client supports form-mode elicitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JSONObject>,
    /// The client supports URL-mode elicitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JSONObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: the client's `tasks` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientTasksCapability {
    /// The client answers `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JSONObject>,
    /// The client answers `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JSONObject>,
    /// Which server-to-client requests the client can run as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequestsCapability>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: the requests a client can run as tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientTaskRequestsCapability {
    /// Sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<TaskSamplingCapability>,
    /// Elicitation requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<TaskElicitationCapability>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: task support for sampling requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSamplingCapability {
    /// `sampling/createMessage` may run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_message: Option<JSONObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

/// 2025-11-25: task support for elicitation requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskElicitationCapability {
    /// `elicitation/create` may run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create: Option<JSONObject>,
    /// Unknown members, kept.
    #[serde(flatten)]
    pub extra: JSONObject,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::types::lifecycle::tests::round_trip;

    #[test]
    fn client_capabilities_of_every_revision_round_trip() {
        // 2025-03-26
        let c: ClientCapabilities = round_trip(json!({
            "roots": {"listChanged": true}, "sampling": {}, "experimental": {"x": {"a": 1}}
        }));
        assert!(c.supports_roots_list_changed() && c.supports_sampling());
        assert!(!c.supports_elicitation_form());
        // 2025-06-18: an empty elicitation object is form mode.
        let c: ClientCapabilities = round_trip(json!({"elicitation": {}}));
        assert!(c.supports_elicitation_form() && !c.supports_elicitation_url());
        // 2025-11-25
        let c: ClientCapabilities = round_trip(json!({
            "elicitation": {"url": {}},
            "sampling": {"context": {}, "tools": {}},
            "tasks": {
                "list": {}, "cancel": {},
                "requests": {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}}
            }
        }));
        assert!(!c.supports_elicitation_form() && c.supports_elicitation_url());
        assert!(c.supports_sampling_tools() && c.supports_sampling_context());
        let tasks = c.tasks.as_ref().unwrap();
        assert!(
            tasks
                .requests
                .as_ref()
                .unwrap()
                .sampling
                .as_ref()
                .unwrap()
                .create_message
                .is_some()
        );
        // 2026, with unknown members at every level.
        let c: ClientCapabilities = round_trip(json!({
            "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}},
            "roots": {"future": 1},
            "elicitation": {"form": {}, "url": {}},
            "somethingNew": {"k": true}
        }));
        assert!(c.supports_extension("io.modelcontextprotocol/ui"));
        assert!(c.supports_elicitation_form() && c.supports_elicitation_url());
        assert_eq!(c.extra["somethingNew"], json!({"k": true}));
        assert_eq!(c.roots.unwrap().extra["future"], json!(1));
    }

    #[test]
    fn extension_settings_that_are_not_an_object_are_refused_naming_the_extension() {
        for (settings, kind) in [
            (json!("yes"), "a string"),
            (json!(null), "null"),
            (json!([]), "an array"),
        ] {
            let error = serde_json::from_value::<ClientCapabilities>(json!({
                "extensions": {"com.example/ok": {"a": 1}, "com.example/bad": settings},
                "roots": {}
            }))
            .unwrap_err()
            .to_string();
            assert_eq!(
                error,
                format!(
                    "the settings of extension `com.example/bad` must be an object (`{{}}` for none), not {kind}"
                )
            );
        }
        for (odd, kind) in [(json!([]), "an array"), (json!("x"), "a string")] {
            let error = serde_json::from_value::<ClientCapabilities>(json!({"extensions": odd}))
                .unwrap_err()
                .to_string();
            assert_eq!(
                error,
                format!("`extensions` must be an object of extension ids, not {kind}")
            );
        }
        // `null` is the member left out.
        let c: ClientCapabilities =
            serde_json::from_value(json!({"extensions": null, "roots": {}})).unwrap();
        assert_eq!(c.extensions, None);
        assert!(c.supports_roots());
    }
}
