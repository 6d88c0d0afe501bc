//! The JSON clients: the entry in each client's shape, merged into its file.

use super::locate::Target;
use super::{Client, Entry, Transport, warn_collisions};
use crate::fsutil::{read_optional, write_atomic};
use crate::json::Json;
use crate::{CliError, out};

/// The entry as `client` writes it.
pub(crate) fn render(client: Client, entry: &Entry) -> Result<Json, CliError> {
    let mut fields: Vec<(&str, Json)> = Vec::new();
    let typed = matches!(client, Client::ClaudeCode | Client::Vscode | Client::Json);
    match &entry.transport {
        Transport::Stdio { command, args } => {
            if typed {
                fields.push(("type", Json::string("stdio")));
            }
            fields.push(("command", Json::string(command)));
            fields.push(("args", Json::Array(args.iter().map(Json::string).collect())));
            if !entry.env.is_empty() {
                fields.push(("env", Json::string_map(&entry.env)));
            }
        }
        Transport::Http { url, headers } => {
            if client == Client::ClaudeDesktop {
                return Err(CliError::Usage(
                    "claude-desktop starts its servers over stdio: give `-- COMMAND ARGS` \
                     (a remote server is added in the app as a connector)"
                        .into(),
                ));
            }
            if !entry.env.is_empty() {
                return Err(CliError::Usage(
                    "-e sets a stdio server's environment: not with --url".into(),
                ));
            }
            if typed {
                fields.push(("type", Json::string("http")));
            }
            let url_key = if client == Client::Gemini {
                "httpUrl"
            } else {
                "url"
            };
            fields.push((url_key, Json::string(url)));
            if !headers.is_empty() {
                fields.push(("headers", Json::string_map(headers)));
            }
        }
    }
    Ok(Json::Object(
        fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
    ))
}

/// Adds `entry` to `target`'s file for `client`.
pub(crate) fn install(
    client: Client,
    target: &Target,
    entry: &Entry,
    force: bool,
) -> Result<(), CliError> {
    let rendered = render(client, entry)?;
    let mut doc = match read_optional(&target.file)? {
        Some(text) if !text.trim().is_empty() => {
            serde_json::from_str::<Json>(&text).map_err(|e| CliError::Config {
                path: target.file.clone(),
                message: format!(
                    "not valid JSON ({e}); comments are not kept either: fix or edit it by hand"
                ),
            })?
        }
        _ => Json::object(),
    };
    let mut node = &mut doc;
    for key in &target.keys {
        node = node.child_object(key).ok_or_else(|| CliError::Config {
            path: target.file.clone(),
            message: format!("`{key}` is not an object"),
        })?;
    }
    let servers = node.as_object_mut().ok_or_else(|| CliError::Config {
        path: target.file.clone(),
        message: "not a JSON object".into(),
    })?;
    if servers.contains_key(&entry.name) {
        if !force {
            return Err(CliError::Exists(format!(
                "{} already has a server named `{}` ({}): --force replaces it",
                target.file.display(),
                entry.name,
                target.describe()
            )));
        }
        out::note(format!("replacing the existing `{}`", entry.name));
    }
    warn_collisions(&entry.name, servers.keys().map(String::as_str));
    servers.insert(entry.name.clone(), rendered);
    write_atomic(&target.file, &doc.to_pretty())
}
