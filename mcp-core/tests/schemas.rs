//! For every revision, a sample of every message the server side emits — built through the
//! typed model and prepared for that revision with `WireResult::prepare_for` — validates
//! against that revision's official `schema.json`.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod support;

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{self, WireResult};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use support::spec_dir;

/// The official schema of one revision, with one validator per definition on demand.
struct Schema {
    version: ProtocolVersion,
    root: Value,
}

impl Schema {
    fn load(version: ProtocolVersion) -> Schema {
        let path = spec_dir().join(version.as_str()).join("schema.json");
        let text = std::fs::read_to_string(&path).expect("schema readable");
        Schema {
            version,
            root: serde_json::from_str(&text).expect("schema is JSON"),
        }
    }

    fn defs_key(&self) -> &'static str {
        if self.root.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        }
    }

    /// The schema read strictly: every definition listing its `properties` (and saying
    /// nothing of others) is closed, so a member the revision does not define is an error.
    fn strict(mut self) -> Schema {
        let key = self.defs_key();
        for definition in self.root[key]
            .as_object_mut()
            .expect("definitions")
            .values_mut()
        {
            if let Some(object) = definition.as_object_mut()
                && object.contains_key("properties")
                && !object.contains_key("additionalProperties")
            {
                object.insert("additionalProperties".into(), Value::Bool(false));
            }
        }
        self
    }

    fn has(&self, def: &str) -> bool {
        self.root[self.defs_key()].get(def).is_some()
    }

    /// Errors of `instance` against definition `def`, as readable lines.
    fn errors(&self, def: &str, instance: &Value) -> Vec<String> {
        let key = self.defs_key();
        let schema = json!({
            "$schema": self.root["$schema"],
            "$ref": format!("#/{key}/{def}"),
            key: self.root[key],
        });
        let validator = jsonschema::validator_for(&schema).expect("official schema compiles");
        validator
            .iter_errors(instance)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect()
    }
}

/// A message as the server would emit it for `version`.
fn result<T: DeserializeOwned + Serialize + WireResult>(v: ProtocolVersion, json: Value) -> Value {
    let mut typed: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("sample does not deserialize: {e}\n{json}"));
    typed.prepare_for(v);
    serde_json::to_value(&typed).expect("serializes")
}

fn message<T: DeserializeOwned + Serialize>(json: Value) -> Value {
    let typed: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("sample does not deserialize: {e}\n{json}"));
    serde_json::to_value(&typed).expect("serializes")
}

fn tool_list(v: ProtocolVersion) -> Value {
    let mut tools = vec![
        json!({
            "name": "add",
            "description": "Adds two integers.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true}
        }),
        json!({"name": "noop", "description": "Does nothing.", "inputSchema": {"type": "object"}}),
    ];
    if v.has_structured_content() {
        tools.push(json!({
            "name": "weather",
            "title": "Weather",
            "description": "Current weather.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
            "outputSchema": {
                "type": "object",
                "properties": {"temperature": {"type": "number"}},
                "required": ["temperature"]
            }
        }));
    }
    if v >= ProtocolVersion::V2025_11_25 {
        tools.push(json!({
            "name": "icon.tool",
            "description": "Has an icon.",
            "inputSchema": {"type": "object"},
            "icons": [{"src": "https://example.com/i.png", "mimeType": "image/png", "sizes": ["48x48"]}],
            "_meta": {"com.example/x": 1}
        }));
    }
    json!({"tools": tools, "nextCursor": "c2"})
}

fn call_tool_results(v: ProtocolVersion) -> Vec<Value> {
    let png = "iVBORw0KGgo=";
    let mut out = vec![
        json!({"content": [{"type": "text", "text": "hello"}]}),
        json!({"content": [{"type": "text", "text": "bad"}], "isError": true}),
        json!({"content": [{"type": "image", "data": png, "mimeType": "image/png"}]}),
        json!({"content": [{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}]}),
        json!({"content": [
            {"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "t"}},
            {"type": "resource", "resource": {"uri": "test://b", "mimeType": "image/png", "blob": png}}
        ]}),
        json!({"content": [{"type": "text", "text": "x", "annotations": {"audience": ["user"], "priority": 0.5}}]}),
        // A structured result: legacy revisions without structured output drop it, and
        // 2025-06-18/11-25 keep only objects.
        json!({"content": [{"type": "text", "text": "{\"t\":1}"}], "structuredContent": {"t": 1}}),
        json!({"content": [{"type": "text", "text": "[1,2]"}], "structuredContent": [1, 2]}),
    ];
    if v >= ProtocolVersion::V2025_06_18 {
        out.push(json!({"content": [
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "mimeType": "text/plain"}
        ]}));
    }
    out
}

fn capabilities() -> Value {
    json!({
        "tools": {"listChanged": true},
        "resources": {"subscribe": true, "listChanged": true},
        "prompts": {"listChanged": true},
        "logging": {},
        "completions": {}
    })
}

/// Every server-emitted sample for `v`: (definition name, message).
fn samples(v: ProtocolVersion) -> Vec<(&'static str, Value)> {
    let modern = v == ProtocolVersion::V2026_07_28;
    let mut s: Vec<(&'static str, Value)> = Vec::new();

    if !modern {
        s.push((
            "InitializeResult",
            result::<types::InitializeResult>(
                v,
                json!({
                    "protocolVersion": v.as_str(),
                    "capabilities": capabilities(),
                    "serverInfo": {"name": "s", "version": "1.0.0"},
                    "instructions": "Use the tools."
                }),
            ),
        ));
    } else {
        s.push((
            "DiscoverResult",
            result::<types::DiscoverResult>(
                v,
                json!({
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {"listChanged": true}, "resources": {}, "prompts": {}, "completions": {}},
                    "instructions": "Use the tools.",
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1.0.0"}}
                }),
            ),
        ));
    }

    s.push((
        "ListToolsResult",
        result::<types::ListToolsResult>(v, tool_list(v)),
    ));
    for r in call_tool_results(v) {
        s.push(("CallToolResult", result::<types::CallToolResult>(v, r)));
    }
    s.push((
        "ListResourcesResult",
        result::<types::ListResourcesResult>(
            v,
            json!({"resources": [
                {"uri": "test://static-text", "name": "static-text", "mimeType": "text/plain", "description": "d"},
                {"uri": "test://b", "name": "b", "size": 12, "annotations": {"priority": 1.0}}
            ]}),
        ),
    ));
    s.push((
        "ListResourceTemplatesResult",
        result::<types::ListResourceTemplatesResult>(
            v,
            json!({"resourceTemplates": [
                {"uriTemplate": "test://template/{id}/data", "name": "t", "mimeType": "application/json"}
            ]}),
        ),
    ));
    s.push((
        "ReadResourceResult",
        result::<types::ReadResourceResult>(
            v,
            json!({"contents": [
                {"uri": "test://static-text", "mimeType": "text/plain", "text": "x"},
                {"uri": "test://static-binary", "mimeType": "image/png", "blob": "iVBORw0KGgo="}
            ]}),
        ),
    ));
    s.push((
        "ListPromptsResult",
        result::<types::ListPromptsResult>(
            v,
            json!({"prompts": [
                {"name": "p", "description": "d", "arguments": [{"name": "a", "required": true, "description": "x"}]}
            ]}),
        ),
    ));
    s.push((
        "GetPromptResult",
        result::<types::GetPromptResult>(
            v,
            json!({"description": "d", "messages": [
                {"role": "user", "content": {"type": "text", "text": "hi"}},
                {"role": "assistant", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}},
                {"role": "user", "content": {"type": "resource", "resource": {"uri": "a://b", "text": "t", "mimeType": "text/plain"}}}
            ]}),
        ),
    ));
    s.push((
        "CompleteResult",
        result::<types::CompleteResult>(
            v,
            json!({"completion": {"values": ["a", "b"], "total": 2, "hasMore": false}}),
        ),
    ));
    s.push(("EmptyResult", result::<types::EmptyResult>(v, json!({}))));

    // Notifications.
    s.push((
        "ProgressNotification",
        message::<types::ProgressNotification>(json!({
            "jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": 50, "total": 100}
        })),
    ));
    s.push((
        "LoggingMessageNotification",
        message::<types::LoggingMessageNotification>(json!({
            "jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "logger": "app", "data": {"k": "v"}}
        })),
    ));
    for (def, method) in [
        (
            "ToolListChangedNotification",
            "notifications/tools/list_changed",
        ),
        (
            "PromptListChangedNotification",
            "notifications/prompts/list_changed",
        ),
        (
            "ResourceListChangedNotification",
            "notifications/resources/list_changed",
        ),
    ] {
        let mut n = json!({"jsonrpc": "2.0", "method": method});
        if modern {
            n["params"] = json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 7}});
        }
        let value = match def {
            "ToolListChangedNotification" => message::<types::ToolListChangedNotification>(n),
            "PromptListChangedNotification" => message::<types::PromptListChangedNotification>(n),
            _ => message::<types::ResourceListChangedNotification>(n),
        };
        s.push((def, value));
    }
    s.push((
        "ResourceUpdatedNotification",
        message::<types::ResourceUpdatedNotification>(json!({
            "jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": "test://watched-resource"}
        })),
    ));
    if !modern {
        s.push((
            "CancelledNotification",
            message::<types::CancelledNotification>(json!({
                "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 3, "reason": "timed out"}
            })),
        ));
    }

    if modern {
        s.push((
            "InputRequiredResult",
            result::<types::InputRequiredResult>(
                v,
                json!({
                    "inputRequests": {
                        "user_name": {
                            "method": "elicitation/create",
                            "params": {
                                "mode": "form",
                                "message": "What is your name?",
                                "requestedSchema": {
                                    "type": "object",
                                    "properties": {"name": {"type": "string"}},
                                    "required": ["name"]
                                }
                            }
                        },
                        "capital": {
                            "method": "sampling/createMessage",
                            "params": {
                                "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}],
                                "maxTokens": 100
                            }
                        },
                        "roots": {"method": "roots/list"}
                    },
                    "requestState": "opaque"
                }),
            ),
        ));
        s.push((
            "SubscriptionsAcknowledgedNotification",
            message::<types::SubscriptionsAcknowledgedNotification>(json!({
                "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                "params": {
                    "_meta": {"io.modelcontextprotocol/subscriptionId": "s1"},
                    "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["test://x"]}
                }
            })),
        ));
        s.push((
            "SubscriptionsListenResult",
            result::<types::SubscriptionsListenResult>(
                v,
                json!({"_meta": {"io.modelcontextprotocol/subscriptionId": "s1"}}),
            ),
        ));
        for (def, error) in [
            (
                "UnsupportedProtocolVersionError",
                json!({"code": -32022, "message": "unsupported protocol version", "data": {"supported": ["2026-07-28"], "requested": "1900-01-01"}}),
            ),
            (
                "MissingRequiredClientCapabilityError",
                json!({"code": -32021, "message": "missing", "data": {"requiredCapabilities": {"sampling": {}}}}),
            ),
            (
                "HeaderMismatchError",
                json!({"code": -32020, "message": "Header mismatch: Mcp-Method"}),
            ),
        ] {
            let response = json!({"jsonrpc": "2.0", "id": 1, "error": error});
            let value = match def {
                "UnsupportedProtocolVersionError" => {
                    message::<types::UnsupportedProtocolVersionError>(response)
                }
                "MissingRequiredClientCapabilityError" => {
                    message::<types::MissingRequiredClientCapabilityError>(response)
                }
                _ => message::<types::HeaderMismatchError>(response),
            };
            s.push((def, value));
        }
    } else {
        // Server-to-client requests exist only in the legacy era.
        s.push((
            "PingRequest",
            message::<types::PingRequest>(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
        ));
        s.push((
            "CreateMessageRequest",
            message::<types::CreateMessageRequest>(json!({
                "jsonrpc": "2.0", "id": 2, "method": "sampling/createMessage",
                "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                    "maxTokens": 100,
                    "systemPrompt": "be brief",
                    "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.5}
                }
            })),
        ));
        s.push((
            "ListRootsRequest",
            message::<types::ListRootsRequest>(
                json!({"jsonrpc": "2.0", "id": 3, "method": "roots/list"}),
            ),
        ));
        if v >= ProtocolVersion::V2025_06_18 {
            s.push((
                "ElicitRequest",
                message::<types::ElicitRequest>(json!({
                    "jsonrpc": "2.0", "id": 4, "method": "elicitation/create",
                    "params": {
                        "message": "Who are you?",
                        "requestedSchema": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string", "default": "John Doe"},
                                "age": {"type": "integer", "minimum": 0},
                                "ok": {"type": "boolean", "default": true},
                                "color": {"type": "string", "enum": ["red", "green"]}
                            },
                            "required": ["name"]
                        }
                    }
                })),
            ));
        }
    }
    s
}

fn wrap_response(v: ProtocolVersion, result: &Value) -> (&'static str, Value) {
    let def = if v >= ProtocolVersion::V2025_11_25 {
        "JSONRPCResultResponse"
    } else {
        "JSONRPCResponse"
    };
    (def, json!({"jsonrpc": "2.0", "id": 1, "result": result}))
}

#[test]
fn server_messages_validate_against_every_revision_schema() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for v in ProtocolVersion::ALL {
        let schema = Schema::load(v);
        assert_eq!(schema.version, v);
        let strict = v.omits_later_members().then(|| Schema::load(v).strict());
        for (def, value) in samples(v) {
            assert!(schema.has(def), "{v}: the schema has no `{def}`");
            let mut errors = schema.errors(def, &value);
            if def.ends_with("Result") {
                let (envelope, wrapped) = wrap_response(v, &value);
                errors.extend(schema.errors(envelope, &wrapped));
                // A 2024-11-05 client is sent nothing its revision does not define.
                if let Some(strict) = &strict {
                    errors.extend(strict.errors(def, &value));
                }
            } else {
                errors.extend(schema.errors("JSONRPCMessage", &value));
            }
            checked += 1;
            if !errors.is_empty() {
                failures.push(format!("{v} {def}: {value}\n    {}", errors.join("\n    ")));
            }
        }
    }
    assert!(checked > 100, "only {checked} samples were checked");
    assert!(
        failures.is_empty(),
        "{} samples failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn era_fields_appear_only_in_their_era() {
    for v in ProtocolVersion::ALL {
        let list = result::<types::ListToolsResult>(v, tool_list(v));
        let modern = v == ProtocolVersion::V2026_07_28;
        assert_eq!(list.get("resultType").is_some(), modern, "{v}: resultType");
        assert_eq!(list.get("ttlMs").is_some(), modern, "{v}: ttlMs");
        assert_eq!(list.get("cacheScope").is_some(), modern, "{v}: cacheScope");

        let array =
            result::<types::CallToolResult>(v, json!({"content": [], "structuredContent": [1, 2]}));
        assert_eq!(
            array.get("structuredContent").is_some(),
            modern,
            "{v}: array structuredContent"
        );
        let object = result::<types::CallToolResult>(
            v,
            json!({"content": [], "structuredContent": {"a": 1}}),
        );
        assert_eq!(
            object.get("structuredContent").is_some(),
            v.has_structured_content(),
            "{v}: object structuredContent"
        );
    }
}

#[test]
fn a_legacy_message_that_breaks_the_schema_is_caught() {
    // The harness itself must be able to fail: a tool without inputSchema is invalid.
    let schema = Schema::load(ProtocolVersion::V2025_11_25);
    assert!(!schema.errors("Tool", &json!({"name": "x"})).is_empty());
    assert!(
        !schema
            .errors("CallToolResult", &json!({"content": "nope"}))
            .is_empty()
    );
}
