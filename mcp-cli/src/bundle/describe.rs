//! What a server says about itself (its name, version, tools and prompts), asked over stdio.
//!
//! This is the one place `bundle` and `server-json` talk to a server: a short legacy-era
//! session (`initialize`, `tools/list`, `prompts/list`, `prompts/get`) over the binary's
//! stdin and stdout. It is meant to be replaced by `ferromcp-client` without touching its
//! callers.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::CliError;

/// How long one answer may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// A prompt, with the text it renders when each argument is `${arguments.NAME}`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PromptFacts {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) arguments: Vec<String>,
    pub(crate) text: String,
}

/// What the server told about itself.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ServerFacts {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) version: String,
    pub(crate) instructions: Option<String>,
    /// Each tool's name and description.
    pub(crate) tools: Vec<(String, Option<String>)>,
    pub(crate) prompts: Vec<PromptFacts>,
}

/// Starts `executable` and asks it about itself.
pub(crate) fn describe(executable: &Path) -> Result<ServerFacts, CliError> {
    let mut session = Session::start(executable)?;
    let init = session.request(
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "ferromcp-cli", "version": env!("CARGO_PKG_VERSION")},
        }),
    )?;
    session.notify("notifications/initialized")?;
    let info = &init["serverInfo"];
    let mut facts = ServerFacts {
        name: info["name"].as_str().unwrap_or_default().to_owned(),
        title: info["title"].as_str().map(str::to_owned),
        version: info["version"].as_str().unwrap_or_default().to_owned(),
        instructions: init["instructions"].as_str().map(str::to_owned),
        ..ServerFacts::default()
    };
    if !init["capabilities"]["tools"].is_null() {
        for tool in session.list("tools/list", "tools")? {
            let name = tool["name"].as_str().unwrap_or_default().to_owned();
            facts
                .tools
                .push((name, tool["description"].as_str().map(str::to_owned)));
        }
    }
    if !init["capabilities"]["prompts"].is_null() {
        for prompt in session.list("prompts/list", "prompts")? {
            facts.prompts.push(session.prompt(&prompt)?);
        }
    }
    Ok(facts)
}

/// A child server and the lines it writes.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    next_id: i64,
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Session {
    fn start(executable: &Path) -> Result<Session, CliError> {
        let mut child = Command::new(executable)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| CliError::io(executable, e))?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(stdin), Some(stdout)) => (stdin, stdout),
            _ => {
                return Err(CliError::Failed(
                    "the server's pipes were not opened".into(),
                ));
            }
        };
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Session {
            child,
            stdin,
            lines,
            next_id: 0,
        })
    }

    fn send(&mut self, message: &Value) -> Result<(), CliError> {
        writeln!(self.stdin, "{message}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| CliError::Failed(format!("the server stopped reading: {e}")))
    }

    fn notify(&mut self, method: &str) -> Result<(), CliError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method}))
    }

    /// Sends a request and waits for its answer (skipping anything else the server sends).
    fn request(&mut self, method: &str, params: Value) -> Result<Value, CliError> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let line = self.lines.recv_timeout(ANSWER_TIMEOUT).map_err(|_| {
                CliError::Failed(format!(
                    "the server did not answer {method} (exited or timed out)"
                ))
            })?;
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["id"] != id {
                continue;
            }
            if let Some(error) = message.get("error") {
                return Err(CliError::Failed(format!("{method}: {error}")));
            }
            return Ok(message["result"].clone());
        }
    }

    /// Every item of a paginated list.
    fn list(&mut self, method: &str, key: &str) -> Result<Vec<Value>, CliError> {
        let mut items = Vec::new();
        let mut params = json!({});
        loop {
            let page = self.request(method, params)?;
            items.extend(page[key].as_array().cloned().unwrap_or_default());
            match page["nextCursor"].as_str() {
                Some(cursor) => params = json!({"cursor": cursor}),
                None => return Ok(items),
            }
        }
    }

    /// The prompt's facts; its text is what it renders with `${arguments.NAME}` arguments.
    fn prompt(&mut self, prompt: &Value) -> Result<PromptFacts, CliError> {
        let name = prompt["name"].as_str().unwrap_or_default().to_owned();
        let description = prompt["description"].as_str().map(str::to_owned);
        let arguments: Vec<String> = prompt["arguments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["name"].as_str().map(str::to_owned))
            .collect();
        let placeholders: serde_json::Map<String, Value> = arguments
            .iter()
            .map(|a| (a.clone(), json!(format!("${{arguments.{a}}}"))))
            .collect();
        let rendered = self.request(
            "prompts/get",
            json!({"name": name, "arguments": placeholders}),
        );
        let text = rendered
            .ok()
            .map(|r| {
                let messages = r["messages"].as_array().cloned().unwrap_or_default();
                let texts: Vec<&str> = messages
                    .iter()
                    .filter_map(|m| m["content"]["text"].as_str())
                    .collect();
                texts.join("\n\n")
            })
            .filter(|t| !t.is_empty())
            .or_else(|| description.clone())
            .unwrap_or_else(|| name.clone());
        Ok(PromptFacts {
            name,
            description,
            arguments,
            text,
        })
    }
}
