//! The requests the driver sends and the checks on every answer. Raw JSON-RPC: no SDK types,
//! so the driver favours no server.

use serde_json::Value;

/// Which protocol era the driver speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2025-11-25: `initialize` first (and a session over HTTP).
    Legacy,
    /// 2026-07-28: no handshake; every request carries the `_meta` envelope.
    Modern,
}

/// Which tool is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `echo(text)`: the text comes back unchanged.
    Echo,
    /// `add(a, b)`: the decimal sum comes back.
    Add,
    /// `greet(name)`: `Hello, {name}!` (the `everything` example's tool, for load through
    /// a balancer in front of its replicas).
    Greet,
}

const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcp-bench","version":"0.1.0"}}"#;

/// Builds request lines and checks responses.
#[derive(Debug, Clone, Copy)]
pub struct Calls {
    /// The era spoken.
    pub era: Era,
    /// The tool called.
    pub tool: Tool,
    /// Text added to every `echo` argument (empty by default): the large-message shape.
    pub pad: &'static str,
}

impl Calls {
    /// The tool's name.
    pub fn tool_name(&self) -> &'static str {
        match self.tool {
            Tool::Echo => "echo",
            Tool::Add => "add",
            Tool::Greet => "greet",
        }
    }

    /// The `initialize` request (legacy era), with id 0.
    pub fn initialize() -> &'static str {
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-bench","version":"0.1.0"}}}"#
    }

    /// The `notifications/initialized` notification.
    pub fn initialized() -> &'static str {
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
    }

    /// A first request of the modern era (id 0): `tools/list`.
    pub fn modern_hello() -> String {
        format!(r#"{{"jsonrpc":"2.0","id":0,"method":"tools/list","params":{{{MODERN_META}}}}}"#)
    }

    /// The `tools/call` request with this id, appended to `out` (no newline).
    pub fn request(&self, id: u64, out: &mut Vec<u8>) {
        use std::io::Write;
        let meta = match self.era {
            Era::Legacy => String::new(),
            Era::Modern => format!(",{MODERN_META}"),
        };
        let _ = match self.tool {
            Tool::Echo => write!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello {id}{pad}"}}{meta}}}}}"#,
                pad = self.pad
            ),
            Tool::Add => write!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":7}}{meta}}}}}"#
            ),
            Tool::Greet => write!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"greet","arguments":{{"name":"n{id}"}}{meta}}}}}"#
            ),
        };
    }

    /// The text the answer to call `id` must carry.
    fn expected(&self, id: u64) -> String {
        match self.tool {
            Tool::Echo => format!("hello {id}{}", self.pad),
            Tool::Add => (id + 7).to_string(),
            Tool::Greet => format!("Hello, n{id}!"),
        }
    }

    /// Checks one response message: its id, no error, and the text of its first content
    /// block. Returns the id.
    pub fn check(&self, message: &Value) -> Result<u64, String> {
        let id = message
            .get("id")
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("response without a numeric id: {message}"))?;
        let result = message
            .get("result")
            .ok_or_else(|| format!("call {id}: no result: {message}"))?;
        if result.get("isError") == Some(&Value::Bool(true)) {
            return Err(format!("call {id}: isError: {result}"));
        }
        let text = result
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("call {id}: no text content: {result}"))?;
        if text != self.expected(id) {
            return Err(format!("call {id}: wrong text {text:?}"));
        }
        Ok(id)
    }
}

/// Whether a parsed message is a response (not a server request or notification).
pub fn is_response(message: &Value) -> bool {
    message.get("method").is_none() && message.get("id").is_some()
}
