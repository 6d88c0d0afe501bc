//! Codex's `config.toml`: `[mcp_servers.NAME]` tables, edited with toml_edit so that the
//! rest of the file (comments, order, layout) stays as it was.

use std::path::Path;

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table};

use super::{Entry, Transport, warn_collisions};
use crate::fsutil::{read_optional, write_atomic};
use crate::{CliError, out};

/// Adds `entry` to the Codex config at `file`.
pub(crate) fn install(file: &Path, entry: &Entry, force: bool) -> Result<(), CliError> {
    let text = read_optional(file)?.unwrap_or_default();
    let mut doc: DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| CliError::Config {
                path: file.to_path_buf(),
                message: format!("not valid TOML: {}", e.message()),
            })?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| CliError::Config {
            path: file.to_path_buf(),
            message: "`mcp_servers` is not a table".into(),
        })?;
    if servers.contains_key(&entry.name) {
        if !force {
            return Err(CliError::Exists(format!(
                "{} already has a server named `{}`: --force replaces it",
                file.display(),
                entry.name
            )));
        }
        out::note(format!("replacing the existing `{}`", entry.name));
    }
    warn_collisions(&entry.name, servers.iter().map(|(k, _)| k));
    servers.insert(&entry.name, Item::Table(table(entry)));
    write_atomic(file, &doc.to_string())
}

/// The server's table.
fn table(entry: &Entry) -> Table {
    let mut table = Table::new();
    match &entry.transport {
        Transport::Stdio { command, args } => {
            table.insert("command", toml_edit::value(command.as_str()));
            table.insert(
                "args",
                toml_edit::value(args.iter().map(String::as_str).collect::<Array>()),
            );
        }
        Transport::Http { url, headers } => {
            table.insert("url", toml_edit::value(url.as_str()));
            if !headers.is_empty() {
                table.insert("http_headers", toml_edit::value(inline(headers)));
            }
        }
    }
    if !entry.env.is_empty() {
        table.insert("env", toml_edit::value(inline(&entry.env)));
    }
    table
}

fn inline(pairs: &[(String, String)]) -> InlineTable {
    pairs
        .iter()
        .map(|(k, v)| (k.as_str(), toml_edit::Value::from(v.as_str())))
        .collect()
}
