//! The `Mcp-Param-*` headers a 2026 client sends with a `tools/call`: one per argument that
//! the tool's listed input schema marks with `x-mcp-header`, learned from `tools/list` the
//! first time a tool is called and remembered per client.

use ::http::{HeaderName, HeaderValue};

use super::*;
use crate::registry::{MirroredParam, mirrored_params};

/// The mirrored parameters of the tools a client has seen listed, by tool name.
pub(super) type Mirrors = Arc<Mutex<HashMap<String, Arc<[MirroredParam]>>>>;

impl HttpTestClient {
    /// The `Mcp-Param-*` headers of `message` in the modern era: none but for a
    /// `tools/call` with arguments, whose tool's annotations are listed first when this
    /// client has not seen the tool yet.
    pub(super) async fn param_headers(&self, message: &Value) -> Vec<(HeaderName, HeaderValue)> {
        let params = &message["params"];
        let arguments = &params["arguments"];
        let Some(tool) = params["name"].as_str() else {
            return Vec::new();
        };
        if self.options.version.era() == Era::Legacy
            || message["method"] != "tools/call"
            || arguments.as_object().is_none_or(serde_json::Map::is_empty)
        {
            return Vec::new();
        }
        let known = lock(&self.mirrors).get(tool).cloned();
        let mirrored = match known {
            Some(mirrored) => mirrored,
            None => self.learn(tool).await,
        };
        mirrored
            .iter()
            .filter_map(|param| {
                let mut value = arguments;
                for key in &param.path {
                    value = value.get(key)?;
                }
                let name = HeaderName::from_bytes(param.key.as_bytes()).ok()?;
                Some((name, header_value(value)?))
            })
            .collect()
    }

    /// Lists the tools (every page) and remembers each one's mirrored parameters; returns
    /// `tool`'s, none when it is not listed.
    async fn learn(&self, tool: &str) -> Arc<[MirroredParam]> {
        let mut cursor: Option<Value> = None;
        loop {
            let params = cursor.take().map(|c| json!({ "cursor": c }));
            let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
            let message = self.message(&id, "tools/list", params);
            let response = self.send(self.request_for(&message, Vec::new())).await;
            let result = &response.message()["result"];
            let Some(tools) = result["tools"].as_array() else {
                break;
            };
            let mut mirrors = lock(&self.mirrors);
            for listed in tools {
                let (Some(name), Some(schema)) =
                    (listed["name"].as_str(), listed["inputSchema"].as_object())
                else {
                    continue;
                };
                let mirrored = mirrored_params(schema).unwrap_or_default();
                mirrors.insert(name.to_owned(), Arc::from(mirrored));
            }
            drop(mirrors);
            match result.get("nextCursor") {
                Some(next) if !next.is_null() => cursor = Some(next.clone()),
                _ => break,
            }
        }
        lock(&self.mirrors)
            .get(tool)
            .cloned()
            .unwrap_or_else(|| Arc::from([]))
    }
}

/// A mirrored argument as its header carries it: a string by [`encode`], an integer in
/// decimal, a boolean as `true` or `false`; nothing for other values.
fn header_value(value: &Value) -> Option<HeaderValue> {
    match value {
        Value::String(s) => encode(s),
        Value::Number(n) => HeaderValue::from_str(&n.to_string()).ok(),
        Value::Bool(b) => Some(HeaderValue::from_static(if *b { "true" } else { "false" })),
        _ => None,
    }
}

/// A string as a 2026 header carries it: as it is when it is plain visible ASCII (spaces
/// inside allowed), otherwise — or when it could be read as the wrapper — Base64-wrapped as
/// `=?base64?…?=`.
pub(super) fn encode(value: &str) -> Option<HeaderValue> {
    let plain = value.bytes().all(|b| b.is_ascii_graphic() || b == b' ')
        && value.trim() == value
        && !value.starts_with("=?base64?");
    if plain {
        return HeaderValue::from_str(value).ok();
    }
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(value);
    HeaderValue::from_str(&format!("=?base64?{encoded}?=")).ok()
}
