//! Schema conformance of a server (feature `conformance`): every list and handshake a server
//! sends, in every protocol revision it serves, validated against that revision's official
//! schema, bundled with this crate.

use ferromcp_core::{Era, ProtocolVersion};
use serde_json::{Value, json};

use super::{ClientOptions, TestClient};
use crate::server::Server;

/// The official schema of `version`, as published with the specification; `None` for a
/// revision this crate does not bundle.
pub fn official_schema(version: ProtocolVersion) -> Option<&'static str> {
    Some(match version {
        ProtocolVersion::V2024_11_05 => include_str!("../../spec/2024-11-05/schema.json"),
        ProtocolVersion::V2025_03_26 => include_str!("../../spec/2025-03-26/schema.json"),
        ProtocolVersion::V2025_06_18 => include_str!("../../spec/2025-06-18/schema.json"),
        ProtocolVersion::V2025_11_25 => include_str!("../../spec/2025-11-25/schema.json"),
        ProtocolVersion::V2026_07_28 => include_str!("../../spec/2026-07-28/schema.json"),
        _ => return None,
    })
}

/// Validates instances against definitions of one revision's schema.
pub struct SchemaValidator {
    root: Value,
    defs_key: &'static str,
}

impl std::fmt::Debug for SchemaValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaValidator").finish_non_exhaustive()
    }
}

impl SchemaValidator {
    /// The validator of `version`'s official schema.
    pub fn new(version: ProtocolVersion) -> SchemaValidator {
        let root: Value = official_schema(version)
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or(Value::Null);
        let defs_key = if root.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        SchemaValidator { root, defs_key }
    }

    /// The validator of `version`'s official schema read strictly: every definition that
    /// lists its `properties` and says nothing of others (`additionalProperties`) is
    /// treated as closed, so a member the revision does not define (a `title` or
    /// `structuredContent` sent to a 2024-11-05 client, say) is a violation. Objects
    /// nested inside a definition stay as the schema has them.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::ProtocolVersion;
    /// use ferromcp::testing::SchemaValidator;
    /// use serde_json::json;
    ///
    /// let tool = json!({"name": "t", "title": "T", "inputSchema": {"type": "object"}});
    /// assert!(SchemaValidator::new(ProtocolVersion::V2024_11_05).errors("Tool", &tool).is_empty());
    /// assert!(!SchemaValidator::strict(ProtocolVersion::V2024_11_05).errors("Tool", &tool).is_empty());
    /// ```
    pub fn strict(version: ProtocolVersion) -> SchemaValidator {
        let mut validator = SchemaValidator::new(version);
        if let Some(defs) = validator
            .root
            .get_mut(validator.defs_key)
            .and_then(Value::as_object_mut)
        {
            for definition in defs.values_mut() {
                if let Some(object) = definition.as_object_mut()
                    && object.contains_key("properties")
                    && !object.contains_key("additionalProperties")
                {
                    object.insert("additionalProperties".into(), Value::Bool(false));
                }
            }
        }
        validator
    }

    /// The validator [`check_conformance`] uses for `version`: [`strict`](Self::strict)
    /// for a revision whose clients are sent only what it defines
    /// ([`ProtocolVersion::omits_later_members`], 2024-11-05), [`new`](Self::new) for the
    /// others, whose clients may be sent harmless members of later revisions.
    pub fn for_clients_of(version: ProtocolVersion) -> SchemaValidator {
        if version.omits_later_members() {
            SchemaValidator::strict(version)
        } else {
            SchemaValidator::new(version)
        }
    }

    /// Whether the schema defines `definition`.
    pub fn defines(&self, definition: &str) -> bool {
        self.root[self.defs_key].get(definition).is_some()
    }

    /// The violations of `instance` against `definition`, one line each (empty: valid).
    pub fn errors(&self, definition: &str, instance: &Value) -> Vec<String> {
        let key = self.defs_key;
        let schema = json!({
            "$schema": self.root["$schema"],
            "$ref": format!("#/{key}/{definition}"),
            key: self.root[key],
        });
        match jsonschema::validator_for(&schema) {
            Ok(v) => v
                .iter_errors(instance)
                .map(|e| format!("{} at {}", e, e.instance_path))
                .collect(),
            Err(e) => vec![format!("the schema does not compile: {e}")],
        }
    }
}

/// Checks every list (`tools/list`, `resources/list`, `resources/templates/list`,
/// `prompts/list`) and the handshake (`initialize`, or `server/discover` in the modern era)
/// of `server`, in each protocol revision it serves, against that revision's official schema
/// (read strictly for 2024-11-05: see [`SchemaValidator::for_clients_of`]).
///
/// # Errors
///
/// Every violation found, one line each, naming the revision, the method and the path.
pub async fn check_conformance(server: &Server) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    for version in server.engine().config().versions.clone() {
        let schema = SchemaValidator::for_clients_of(version);
        let client = match TestClient::connect(server, ClientOptions::version(version)).await {
            Ok(c) => c,
            Err(e) => {
                problems.push(format!("{version}: cannot connect: {e}"));
                continue;
            }
        };
        let mut checks: Vec<(&str, &str, Option<Value>)> = vec![
            ("tools/list", "ListToolsResult", None),
            ("resources/list", "ListResourcesResult", None),
            (
                "resources/templates/list",
                "ListResourceTemplatesResult",
                None,
            ),
            ("prompts/list", "ListPromptsResult", None),
        ];
        match version.era() {
            Era::Legacy => {
                if let Some(init) = client.initialize_result() {
                    let value = serde_json::to_value(init).unwrap_or(Value::Null);
                    problems.extend(
                        schema
                            .errors("InitializeResult", &value)
                            .into_iter()
                            .map(|e| format!("{version} initialize: {e}")),
                    );
                }
            }
            Era::Modern => checks.push(("server/discover", "DiscoverResult", None)),
        }
        for (method, definition, params) in checks {
            let mut cursor: Option<String> = None;
            loop {
                let params = match (&params, &cursor) {
                    (_, Some(c)) => Some(json!({"cursor": c})),
                    (p, None) => p.clone(),
                };
                let result = match client.request(method, params).await {
                    Ok(v) => v,
                    // A server without, say, prompts may refuse prompts/list; that is not a
                    // schema violation.
                    Err(_) => break,
                };
                problems.extend(
                    schema
                        .errors(definition, &result)
                        .into_iter()
                        .map(|e| format!("{version} {method}: {e}")),
                );
                match result.get("nextCursor").and_then(Value::as_str) {
                    Some(next) => cursor = Some(next.to_owned()),
                    None => break,
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// [`check_conformance`] for tests: panics with the list of violations.
///
/// # Panics
///
/// When the server sends anything its revision's schema rejects.
///
/// # Examples
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = ferromcp::ServerBuilder::new("demo", "1.0.0").build();
/// ferromcp::testing::assert_conformant(&server).await;
/// # }
/// ```
#[allow(
    clippy::panic,
    reason = "an assertion for tests: failing loudly is its purpose"
)]
pub async fn assert_conformant(server: &Server) {
    if let Err(problems) = check_conformance(server).await {
        panic!(
            "the server's messages break the official schemas:\n  {}",
            problems.join("\n  ")
        );
    }
}
