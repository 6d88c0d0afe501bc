//! The bundle's `manifest.json` (MCPB manifest version 0.3).

use serde_json::{Map, Value, json};

use super::describe::ServerFacts;
use crate::CliError;

type JsonMap = Map<String, Value>;

/// What the command line adds to the manifest.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    pub(crate) author: Option<String>,
    /// `KEY` or `KEY=DEFAULT`.
    pub(crate) env: Vec<String>,
    pub(crate) secret_env: Vec<String>,
}

/// The manifest of a binary server at `entry` (relative to the bundle), from what the
/// server said about itself and its package's metadata.
pub(crate) fn manifest(
    facts: &ServerFacts,
    package: &Value,
    entry: &str,
    options: &Options,
) -> Result<Value, CliError> {
    let text = |key: &str| {
        package[key]
            .as_str()
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let author = options
        .author
        .clone()
        .or_else(|| package["authors"][0].as_str().map(author_name))
        .ok_or_else(|| {
            CliError::Usage(
                "say who the author is with --author (the package has no authors)".into(),
            )
        })?;
    let name = if facts.name.is_empty() {
        text("name").unwrap_or_default()
    } else {
        facts.name.clone()
    };
    let version = text("version").unwrap_or_else(|| facts.version.clone());
    let description = text("description")
        .or_else(|| facts.instructions.clone())
        .unwrap_or_else(|| format!("The {name} MCP server."));
    let (user_config, env) = user_config(options)?;
    let mut manifest = json!({
        "manifest_version": "0.3",
        "name": name,
        "version": version,
        "description": description,
        "author": {"name": author},
        "server": {
            "type": "binary",
            "entry_point": entry,
            "mcp_config": {"command": format!("${{__dirname}}/{entry}"), "args": [], "env": env},
        },
        "tools": facts.tools.iter().map(|(name, description)| {
            let mut tool = json!({"name": name});
            if let Some(description) = description { tool["description"] = json!(description); }
            tool
        }).collect::<Vec<_>>(),
        "prompts": facts.prompts.iter().map(|p| {
            let mut prompt = json!({"name": p.name, "arguments": p.arguments, "text": p.text});
            if let Some(description) = &p.description { prompt["description"] = json!(description); }
            prompt
        }).collect::<Vec<_>>(),
        "compatibility": {"platforms": [platform()]},
    });
    if let Some(title) = &facts.title {
        manifest["display_name"] = json!(title);
    }
    if let Some(license) = text("license") {
        manifest["license"] = json!(license);
    }
    if let Some(url) = text("repository") {
        manifest["repository"] = json!({"type": "git", "url": url});
    }
    if !user_config.is_empty() {
        manifest["user_config"] = Value::Object(user_config);
    }
    Ok(manifest)
}

/// `Ada Lovelace <ada@example.com>` → `Ada Lovelace`.
fn author_name(author: &str) -> String {
    author.split('<').next().unwrap_or(author).trim().to_owned()
}

/// The user configuration for `--env` and `--secret-env`, and the server's environment
/// that refers to it.
fn user_config(options: &Options) -> Result<(JsonMap, JsonMap), CliError> {
    let mut config = Map::new();
    let mut env = Map::new();
    let plain = options.env.iter().map(|e| (e.as_str(), false));
    let secret = options.secret_env.iter().map(|e| (e.as_str(), true));
    for (spec, sensitive) in plain.chain(secret) {
        let (key, default) = match spec.split_once('=') {
            Some((key, default)) => (key, Some(default)),
            None => (spec, None),
        };
        if key.is_empty() {
            return Err(CliError::Usage(format!(
                "--env `{spec}`: expected KEY or KEY=DEFAULT"
            )));
        }
        let id = key.to_ascii_lowercase();
        let mut option = json!({
            "type": "string",
            "title": key,
            "description": format!("The server's {key} environment variable"),
            "required": default.is_none(),
        });
        if sensitive {
            option["sensitive"] = json!(true);
        }
        if let Some(default) = default {
            option["default"] = json!(default);
        }
        env.insert(key.to_owned(), json!(format!("${{user_config.{id}}}")));
        config.insert(id, option);
    }
    Ok((config, env))
}

/// This machine's platform as MCPB names it.
fn platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        _ => "linux",
    }
}
