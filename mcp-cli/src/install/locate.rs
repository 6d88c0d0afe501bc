//! Where each client keeps its MCP servers, by scope and operating system.

use std::path::{Path, PathBuf};

use super::{Client, Scope};
use crate::CliError;

/// The file to edit and where in it the servers are.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Target {
    /// The config file.
    pub(crate) file: PathBuf,
    /// The keys from the file's top level to the object of servers.
    pub(crate) keys: Vec<String>,
    /// The scope asked for (or the client's default).
    pub(crate) scope: Scope,
}

impl Target {
    /// `user scope`, `project scope`, …
    pub(crate) fn describe(&self) -> String {
        format!("{} scope", self.scope.name())
    }
}

/// The target of `client` at `scope` (or its default); `config` replaces the file.
pub(crate) fn target(
    client: Client,
    scope: Option<Scope>,
    config: Option<PathBuf>,
) -> Result<Target, CliError> {
    let scope = scope.unwrap_or(match client {
        Client::ClaudeCode => Scope::Local,
        Client::Vscode => Scope::Project,
        _ => Scope::User,
    });
    let cwd = std::env::current_dir().map_err(|e| CliError::io(".", e))?;
    let (file, keys) = locate(client, scope, &cwd)?;
    Ok(Target {
        file: config.unwrap_or(file),
        keys,
        scope,
    })
}

fn keys(path: &[&str]) -> Vec<String> {
    path.iter().map(|&k| k.to_owned()).collect()
}

/// The usual file and keys of `client` at `scope`, with `cwd` as the project.
fn locate(client: Client, scope: Scope, cwd: &Path) -> Result<(PathBuf, Vec<String>), CliError> {
    let servers = keys(&["mcpServers"]);
    Ok(match (client, scope) {
        (Client::ClaudeCode, Scope::Project) => (cwd.join(".mcp.json"), servers),
        (Client::ClaudeCode, Scope::User) => (claude_json()?, servers),
        (Client::ClaudeCode, Scope::Local) => {
            let project = cwd.display().to_string();
            (claude_json()?, keys(&["projects", &project, "mcpServers"]))
        }
        (Client::ClaudeDesktop, Scope::User) => (
            app_config_dir()?
                .join("Claude")
                .join("claude_desktop_config.json"),
            servers,
        ),
        (Client::Cursor, Scope::User) => (home()?.join(".cursor").join("mcp.json"), servers),
        (Client::Cursor, Scope::Project) => (cwd.join(".cursor").join("mcp.json"), servers),
        (Client::Vscode, Scope::Project) => {
            (cwd.join(".vscode").join("mcp.json"), keys(&["servers"]))
        }
        (Client::Vscode, Scope::User) => (
            app_config_dir()?.join("Code").join("User").join("mcp.json"),
            keys(&["servers"]),
        ),
        (Client::Gemini, Scope::User) => (home()?.join(".gemini").join("settings.json"), servers),
        (Client::Gemini, Scope::Project) => (cwd.join(".gemini").join("settings.json"), servers),
        (Client::Codex, Scope::User) => (codex_home()?.join("config.toml"), keys(&["mcp_servers"])),
        (Client::Codex, Scope::Project) => (
            cwd.join(".codex").join("config.toml"),
            keys(&["mcp_servers"]),
        ),
        (client, scope) => {
            return Err(CliError::Usage(format!(
                "{} has no {} scope",
                client.name(),
                scope.name()
            )));
        }
    })
}

/// The home folder.
fn home() -> Result<PathBuf, CliError> {
    std::env::home_dir()
        .filter(|p| !p.as_os_str().is_empty())
        .ok_or_else(|| CliError::Usage("cannot tell the home folder: set HOME".into()))
}

/// Claude Code's `~/.claude.json` (in `CLAUDE_CONFIG_DIR` when that is set).
fn claude_json() -> Result<PathBuf, CliError> {
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir).join(".claude.json")),
        None => Ok(home()?.join(".claude.json")),
    }
}

/// Codex's folder: `CODEX_HOME`, else `~/.codex`.
fn codex_home() -> Result<PathBuf, CliError> {
    match std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => Ok(home()?.join(".codex")),
    }
}

/// Where desktop applications keep their settings: `~/Library/Application Support` on
/// macOS, `%APPDATA%` on Windows, `$XDG_CONFIG_HOME` or `~/.config` elsewhere.
fn app_config_dir() -> Result<PathBuf, CliError> {
    if cfg!(target_os = "macos") {
        return Ok(home()?.join("Library").join("Application Support"));
    }
    let var = if cfg!(windows) {
        "APPDATA"
    } else {
        "XDG_CONFIG_HOME"
    };
    match std::env::var_os(var).filter(|v| !v.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir)),
        None if cfg!(windows) => Err(CliError::Usage(
            "cannot tell the config folder: set APPDATA".into(),
        )),
        None => Ok(home()?.join(".config")),
    }
}
