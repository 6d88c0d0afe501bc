//! Connects to a server, lists its tools, resources and prompts, and calls one tool,
//! checking the text of its result: what tests/client/run.sh runs against servers this
//! project did not write.
//!
//! ```text
//! probe [--protocol VERSION] TOOL ARGS_JSON EXPECTED_TEXT (--url URL | -- COMMAND ARGS…)
//! ```
//!
//! Prints one line and exits 0 when everything worked, 1 otherwise.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use ferromcp_client::types::ContentBlock;
use ferromcp_client::{Client, ClientOptions, HttpTransport, ProtocolVersion, StdioCommand};

async fn probe(args: &[String]) -> Result<String, String> {
    let mut args = args.iter();
    let mut options = ClientOptions::new();
    let mut next = args.next().ok_or("missing arguments")?;
    if next == "--protocol" {
        let v: ProtocolVersion = args
            .next()
            .ok_or("--protocol needs a value")?
            .parse()
            .map_err(|e| format!("{e}"))?;
        options = options.protocol_version(v);
        next = args.next().ok_or("missing tool")?;
    }
    let tool = next.clone();
    let call_args: serde_json::Value = serde_json::from_str(args.next().ok_or("missing args")?)
        .map_err(|e| format!("args: {e}"))?;
    let expected = args.next().ok_or("missing expected text")?.clone();
    let client = match args.next().map(String::as_str) {
        Some("--url") => {
            let url = args.next().ok_or("--url needs a value")?;
            Client::connect_http(HttpTransport::new(url), options).await
        }
        Some("--") => {
            let program = args.next().ok_or("missing command")?;
            Client::connect_stdio(StdioCommand::new(program).args(args), options).await
        }
        _ => return Err("expected --url URL or -- COMMAND".into()),
    }
    .map_err(|e| format!("connect: {e}"))?;
    let version = client.protocol_version();
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    if !tools.iter().any(|t| t.name == tool) {
        return Err(format!("no tool {tool} among {} tools", tools.len()));
    }
    let caps = client.server_capabilities().clone();
    if caps.resources.is_some() {
        client
            .list_resources()
            .await
            .map_err(|e| format!("resources/list: {e}"))?;
    }
    if caps.prompts.is_some() {
        client
            .list_prompts()
            .await
            .map_err(|e| format!("prompts/list: {e}"))?;
    }
    let result = client
        .call_tool(&tool, call_args)
        .await
        .map_err(|e| format!("tools/call: {e}"))?;
    let text: String = result
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    if result.is_error() || !text.contains(&expected) {
        return Err(format!("{tool} answered {text:?}, expected {expected:?}"));
    }
    client.close().await;
    Ok(format!(
        "{version}: {} tools, {tool} → {text:?}",
        tools.len()
    ))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match probe(&args).await {
        Ok(line) => {
            println!("ok {line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("FAILED {e}");
            ExitCode::FAILURE
        }
    }
}
