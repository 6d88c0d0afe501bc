//! The physical floor for mcp-bench: the least a stdio MCP server must do per `tools/call`
//! (read a line, parse it into a `serde_json::Value`, build the result, serialize it, write
//! it), with no SDK, no async runtime and no validation beyond what answering needs.
//!
//! Responses go through a `BufWriter` that is flushed whenever stdin's buffer holds no
//! complete request left to answer, i.e. right before the loop could block on a read. A
//! pipelined client therefore gets every answer to what it has sent before the server
//! waits, so it cannot deadlock, and a burst of requests costs one `write(2)`, as in our
//! SDK's stdio writer (which flushes when its queue is empty). `--flush-each` flushes after
//! every response instead.

use std::io::{BufRead, BufReader, BufWriter, Write};

use serde_json::{Value, json};

fn main() -> std::io::Result<()> {
    let flush_each = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--flush-each") => true,
        Some(other) => {
            eprintln!("unknown argument `{other}`\nusage: floor [--flush-each]");
            std::process::exit(2);
        }
    };
    let mut input = BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut output = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        if let Some(response) = answer(&line) {
            serde_json::to_writer(&mut output, &response)?;
            output.write_all(b"\n")?;
        }
        if flush_each || !input.buffer().contains(&b'\n') {
            output.flush()?;
        }
    }
    output.flush()
}

/// The response to one line, or `None` for a notification (or a line that is not JSON).
fn answer(line: &str) -> Option<Value> {
    let mut message: Value = serde_json::from_str(line).ok()?;
    let id = message.get_mut("id")?.take();
    let params = message
        .get_mut("params")
        .map(Value::take)
        .unwrap_or(Value::Null);
    let result = match message.get("method").and_then(Value::as_str) {
        Some("initialize") => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "floor", "version": "0.0.0"},
        }),
        Some("tools/list") => json!({"tools": [
            {"name": "echo", "inputSchema": {"type": "object",
                "properties": {"text": {"type": "string"}}, "required": ["text"]}},
            {"name": "add", "inputSchema": {"type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"]}},
        ]}),
        Some("tools/call") => call(params),
        Some("ping") => json!({}),
        _ => return Some(error(id, -32601, "method not found")),
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn call(mut params: Value) -> Value {
    let mut args = params
        .get_mut("arguments")
        .map(Value::take)
        .unwrap_or(Value::Null);
    let text = match params.get("name").and_then(Value::as_str) {
        Some("echo") => match args.get_mut("text").map(Value::take) {
            Some(Value::String(text)) => Ok(text),
            _ => Err("echo needs a string `text`"),
        },
        Some("add") => match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => Ok((a + b).to_string()),
            _ => Err("add needs integers `a` and `b`"),
        },
        _ => Err("unknown tool"),
    };
    match text {
        Ok(text) => json!({"content": [{"type": "text", "text": text}]}),
        Err(message) => json!({"content": [{"type": "text", "text": message}], "isError": true}),
    }
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
