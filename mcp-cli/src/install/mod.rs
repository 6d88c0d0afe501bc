//! `ferromcp install CLIENT NAME`: adds a server to an MCP client's configuration.

mod codex;
mod locate;
mod merge;

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::json::Json;
use crate::{CliError, out};

/// Add a server to an MCP client's configuration (merged into the file, which is written
/// atomically after a copy to FILE.bak).
///
/// Examples:
///   ferromcp install claude-code calc -- /abs/path/to/calc
///   ferromcp install claude-code calc --scope project --url http://127.0.0.1:8080/mcp
///   ferromcp install vscode calc -e RUST_LOG=debug -- /abs/path/to/calc
///   ferromcp install json calc -- /abs/path/to/calc
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct InstallArgs {
    /// The client whose configuration to edit (`json` prints the entry instead)
    #[arg(value_enum)]
    client: Client,
    /// The server's name in the client (its tools are `mcp__NAME__TOOL` in Claude Code)
    name: String,
    /// The URL of a Streamable HTTP server, instead of a command after `--`
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// An HTTP header sent with every request, `Name: value` (with --url; repeatable)
    #[arg(long = "header", short = 'H', value_name = "K:V", requires = "url")]
    headers: Vec<String>,
    /// An environment variable for the server's process, KEY=VALUE (repeatable)
    #[arg(long = "env", short = 'e', value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// Where the entry goes: user (every project), project (a file in the current folder
    /// meant to be committed) or local (Claude Code: you, in the current folder).
    /// Default: local for claude-code, project for vscode, user for the others
    #[arg(long, value_enum)]
    scope: Option<Scope>,
    /// Replace an entry of the same name
    #[arg(long)]
    force: bool,
    /// Edit this file instead of the client's usual one
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The command that starts a stdio server, and its arguments
    #[arg(last = true, value_name = "COMMAND ARGS")]
    command: Vec<String>,
}

/// The clients `install` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Client {
    /// Claude Code: `.mcp.json` (project) or `~/.claude.json` (user, local)
    ClaudeCode,
    /// Claude Desktop: `claude_desktop_config.json` (user; stdio servers only)
    ClaudeDesktop,
    /// Cursor: `~/.cursor/mcp.json` (user) or `.cursor/mcp.json` (project)
    Cursor,
    /// VS Code: `.vscode/mcp.json` (project) or the profile's `mcp.json` (user)
    Vscode,
    /// Gemini CLI: `~/.gemini/settings.json` (user) or `.gemini/settings.json` (project)
    Gemini,
    /// Codex: `~/.codex/config.toml` (user) or `.codex/config.toml` (project)
    Codex,
    /// Print the entry as `{"mcpServers": {NAME: …}}` JSON
    Json,
}

impl Client {
    /// The name on the command line (`claude-code`, …).
    pub(crate) fn name(self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default()
    }
}

/// Where an entry is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Scope {
    /// For you, in every project.
    User,
    /// In a file in the current folder, to share with the project.
    Project,
    /// For you, in the current folder only (Claude Code).
    Local,
}

impl Scope {
    /// The name on the command line.
    pub(crate) fn name(self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default()
    }
}

/// How the client reaches the server.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Transport {
    /// The client starts `command` with `args` and speaks over its stdin and stdout.
    Stdio { command: String, args: Vec<String> },
    /// The client posts to `url` with `headers`.
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
}

/// One server entry, before it takes a client's shape.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) transport: Transport,
    pub(crate) env: Vec<(String, String)>,
}

/// Runs `ferromcp install`.
pub(crate) fn run(args: InstallArgs) -> Result<(), CliError> {
    let entry = entry(&args)?;
    if args.client == Client::Json {
        let mut doc = Json::object();
        if let Some(servers) = doc.child_object("mcpServers").and_then(Json::as_object_mut) {
            servers.insert(
                entry.name.clone(),
                merge::render(Client::ClaudeCode, &entry)?,
            );
        }
        out::raw(&doc.to_pretty());
        return Ok(());
    }
    let target = locate::target(args.client, args.scope, args.config.clone())?;
    if args.client == Client::Codex {
        codex::install(&target.file, &entry, args.force)?;
    } else {
        merge::install(args.client, &target, &entry, args.force)?;
    }
    out::note(format!(
        "added `{}` to {} ({})",
        entry.name,
        target.file.display(),
        target.describe()
    ));
    Ok(())
}

/// The entry the command line describes.
fn entry(args: &InstallArgs) -> Result<Entry, CliError> {
    if args.name.is_empty() {
        return Err(CliError::Usage("the server's name is empty".into()));
    }
    let env = args
        .env
        .iter()
        .map(|pair| split_pair(pair, '=', "-e"))
        .collect::<Result<_, _>>()?;
    let transport = match (&args.url, args.command.split_first()) {
        (Some(url), _) => Transport::Http {
            url: url.clone(),
            headers: args
                .headers
                .iter()
                .map(|h| split_pair(h, ':', "--header"))
                .collect::<Result<_, _>>()?,
        },
        (None, Some((command, rest))) => Transport::Stdio {
            command: command.clone(),
            args: rest.to_vec(),
        },
        (None, None) => {
            return Err(CliError::Usage(
                "say how to reach the server: `-- COMMAND ARGS` or `--url URL`".into(),
            ));
        }
    };
    Ok(Entry {
        name: args.name.clone(),
        transport,
        env,
    })
}

/// `KEY=VALUE` (or `Name: value`) as a pair; the value's surrounding spaces are trimmed.
fn split_pair(text: &str, separator: char, flag: &str) -> Result<(String, String), CliError> {
    match text.split_once(separator) {
        Some((key, value)) if !key.trim().is_empty() => {
            Ok((key.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(CliError::Usage(format!(
            "{flag} `{text}`: expected KEY{separator}VALUE"
        ))),
    }
}

/// A server's name as it appears in tool names (`mcp__{server}__{tool}` in Claude Code):
/// every character other than an ASCII letter or digit becomes `_`.
pub(crate) fn normalized(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Warns when `name` normalizes like another of `existing` (the client's tool names for the
/// two would collide).
pub(crate) fn warn_collisions<'a>(name: &str, existing: impl Iterator<Item = &'a str>) {
    let mine = normalized(name);
    for other in existing {
        if other != name && normalized(other) == mine {
            out::warn(format!(
                "`{name}` and the existing `{other}` both become `{mine}` in tool names \
                 (mcp__{mine}__…): clients may mix up or drop their tools"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_replaces_what_claude_code_replaces() {
        assert_eq!(normalized("my.server"), "my_server");
        assert_eq!(normalized("my server!"), "my_server_");
        assert_eq!(normalized("a-b_c9"), "a_b_c9");
    }

    #[test]
    fn pairs_split_at_the_first_separator() {
        assert_eq!(
            split_pair("A=b=c", '=', "-e").unwrap(),
            ("A".into(), "b=c".into())
        );
        assert_eq!(
            split_pair("Authorization: Bearer x", ':', "--header").unwrap(),
            ("Authorization".into(), "Bearer x".into())
        );
        assert!(split_pair("=x", '=', "-e").is_err());
        assert!(split_pair("novalue", '=', "-e").is_err());
    }
}
