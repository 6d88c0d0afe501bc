//! `ferromcp server-json`: the official MCP Registry's `server.json` for this crate's
//! server, checked against the registry's published schema (vendored in schemas/).

use std::path::PathBuf;

use clap::Args;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::dev::cargo;
use crate::{CliError, out};

/// The registry's schema, version 2025-12-11; see schemas/README.md for its source.
const SCHEMA: &str = include_str!("../schemas/server.schema.json");
/// The schema's published address, written as the document's `$schema`.
const SCHEMA_URL: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// Write the MCP Registry's server.json for this crate's server (an MCP Bundle package, an
/// OCI image or a remote Streamable HTTP endpoint), validated against the registry's schema.
///
/// Examples:
///   ferromcp server-json --name io.github.me/calc --mcpb calc-0.1.0.mcpb \
///       --mcpb-url https://github.com/me/calc/releases/download/v0.1.0/calc-0.1.0.mcpb
///   ferromcp server-json --name io.github.me/calc --url https://calc.example.com/mcp
// The comment is the command's `--help` text, printed as written: its URLs stay bare.
#[allow(rustdoc::bare_urls)]
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct ServerJsonArgs {
    /// The server's name in the registry, NAMESPACE/NAME (reverse DNS: io.github.USER/NAME)
    #[arg(long, value_name = "NAMESPACE/NAME")]
    name: String,
    /// The published .mcpb's download URL (a GitHub or GitLab release asset)
    #[arg(long, value_name = "URL", requires = "mcpb")]
    mcpb_url: Option<String>,
    /// The .mcpb file itself, for its SHA-256 (with --mcpb-url)
    #[arg(long, value_name = "FILE", requires = "mcpb_url")]
    mcpb: Option<PathBuf>,
    /// An OCI image that runs the server over stdio (registry/namespace/image:tag)
    #[arg(long, value_name = "IMAGE")]
    oci: Option<String>,
    /// The URL of a remote Streamable HTTP endpoint
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// The crate's Cargo.toml (default: the current folder's)
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
    /// Which binary of the crate (default: its only one, or the one named as the package)
    #[arg(long, value_name = "NAME")]
    bin: Option<String>,
    /// Write here instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    out: Option<PathBuf>,
}

/// Runs `ferromcp server-json`.
pub(crate) fn run(args: &ServerJsonArgs) -> Result<(), CliError> {
    let binary = cargo::locate(args.manifest_path.as_deref(), args.bin.as_deref())?;
    let document = document(args, &binary.metadata)?;
    let problems = validate(&document);
    if !problems.is_empty() {
        return Err(CliError::Failed(format!(
            "the server.json does not match the registry's schema:\n  {}",
            problems.join("\n  ")
        )));
    }
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    match &args.out {
        Some(path) => std::fs::write(path, text).map_err(|e| CliError::io(path, e))?,
        None => out::raw(&text),
    }
    Ok(())
}

/// The document for `package` (cargo metadata) with what the flags add.
fn document(args: &ServerJsonArgs, package: &Value) -> Result<Value, CliError> {
    let version = package["version"].as_str().unwrap_or("0.0.0");
    let description = package["description"].as_str().unwrap_or("An MCP server");
    let mut packages = Vec::new();
    if let (Some(url), Some(file)) = (&args.mcpb_url, &args.mcpb) {
        let bytes = std::fs::read(file).map_err(|e| CliError::io(file, e))?;
        let sha = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>();
        packages.push(json!({
            "registryType": "mcpb", "identifier": url, "version": version,
            "fileSha256": sha, "transport": {"type": "stdio"},
        }));
    }
    if let Some(image) = &args.oci {
        packages.push(
            json!({"registryType": "oci", "identifier": image, "transport": {"type": "stdio"}}),
        );
    }
    let remotes: Vec<Value> = args
        .url
        .iter()
        .map(|url| json!({"type": "streamable-http", "url": url}))
        .collect();
    if packages.is_empty() && remotes.is_empty() {
        return Err(CliError::Usage(
            "say where the server is: --mcpb-url with --mcpb, --oci or --url".into(),
        ));
    }
    let mut document = json!({
        "$schema": SCHEMA_URL,
        "name": args.name,
        "description": truncate(description, 100),
        "version": version,
    });
    if let Some(url) = package["repository"]
        .as_str()
        .filter(|u| u.starts_with("https://github.com/"))
    {
        document["repository"] = json!({"url": url, "source": "github"});
    }
    if let Some(url) = package["homepage"].as_str() {
        document["websiteUrl"] = json!(url);
    }
    if !packages.is_empty() {
        document["packages"] = json!(packages);
    }
    if !remotes.is_empty() {
        document["remotes"] = json!(remotes);
    }
    Ok(document)
}

/// At most `max` characters (the registry caps the description at 100).
fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// The schema's complaints about `document`, one line each.
pub(crate) fn validate(document: &Value) -> Vec<String> {
    let schema: Value = match serde_json::from_str(SCHEMA) {
        Ok(schema) => schema,
        Err(e) => return vec![format!("the vendored schema does not parse: {e}")],
    };
    match jsonschema::validator_for(&schema) {
        Ok(validator) => validator
            .iter_errors(document)
            .map(|e| format!("{}: {e}", e.instance_path))
            .collect(),
        Err(e) => vec![format!("the vendored schema does not compile: {e}")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_refuses_what_the_registry_refuses() {
        let good = json!({"$schema": SCHEMA_URL, "name": "io.github.me/calc", "description": "d", "version": "1.0.0",
            "remotes": [{"type": "streamable-http", "url": "https://calc.example.com/mcp"}]});
        assert_eq!(validate(&good), Vec::<String>::new());
        let mut bad = good.clone();
        bad["name"] = json!("no-slash");
        assert!(!validate(&bad).is_empty());
    }

    #[test]
    fn long_descriptions_are_cut_to_100_characters() {
        assert_eq!(truncate(&"é".repeat(150), 100).chars().count(), 100);
        assert_eq!(truncate("short", 100), "short");
    }
}
