//! `ferromcp bundle`: an MCP Bundle (`.mcpb`), the release binary with a `manifest.json`
//! whose tools and prompts come from the server itself, for one-click installs in Claude
//! Desktop.

mod describe;
mod manifest;

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::dev::cargo;
use crate::{CliError, out};

/// Build the release binary and pack it with a manifest.json into an MCP Bundle (.mcpb),
/// which Claude Desktop installs in one click. The manifest's tools and prompts are read
/// from the server itself.
///
/// Examples:
///   ferromcp bundle
///   ferromcp bundle --author "Ada Lovelace" --secret-env API_KEY --env REGION=eu
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct BundleArgs {
    /// Which binary of the crate to bundle (default: its only one, or the one named as the package)
    #[arg(long, value_name = "NAME")]
    bin: Option<String>,
    /// The crate's Cargo.toml (default: the current folder's)
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
    /// Write the bundle here (default: NAME-VERSION.mcpb in the current folder)
    #[arg(long, short = 'o', value_name = "FILE")]
    out: Option<PathBuf>,
    /// The author's name (default: the package's first author)
    #[arg(long, value_name = "NAME")]
    author: Option<String>,
    /// An environment variable the user sets when installing, KEY or KEY=DEFAULT (repeatable)
    #[arg(long = "env", value_name = "KEY[=DEFAULT]")]
    env: Vec<String>,
    /// A secret environment variable the user sets when installing (repeatable)
    #[arg(long = "secret-env", value_name = "KEY")]
    secret_env: Vec<String>,
    /// Bundle the debug build instead of the release build (quicker, for trying things)
    #[arg(long)]
    debug: bool,
}

/// Runs `ferromcp bundle`.
pub(crate) fn run(args: &BundleArgs) -> Result<(), CliError> {
    let binary = cargo::locate(args.manifest_path.as_deref(), args.bin.as_deref())?;
    let executable = cargo::build(&binary, !args.debug)?;
    let facts = describe::describe(&executable)?;
    let entry = format!("server/{}", file_name(&executable));
    let options = manifest::Options {
        author: args.author.clone(),
        env: args.env.clone(),
        secret_env: args.secret_env.clone(),
    };
    let manifest = manifest::manifest(&facts, &binary.metadata, &entry, &options)?;
    let version = manifest["version"].as_str().unwrap_or("0.0.0").to_owned();
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}-{version}.mcpb", binary.name)));
    write_bundle(&path, &manifest, &executable, &entry)?;
    out::note(format!(
        "bundled {} ({} tools, {} prompts) into {}",
        binary.name,
        facts.tools.len(),
        facts.prompts.len(),
        path.display()
    ));
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Writes the zip: `manifest.json` and the executable at `entry`, executable.
fn write_bundle(
    path: &Path,
    manifest: &serde_json::Value,
    executable: &Path,
    entry: &str,
) -> Result<(), CliError> {
    use zip::write::SimpleFileOptions;
    let zip_error = |e: zip::result::ZipError| CliError::Failed(format!("{}: {e}", path.display()));
    let binary = std::fs::read(executable).map_err(|e| CliError::io(executable, e))?;
    let file = std::fs::File::create(path).map_err(|e| CliError::io(path, e))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("manifest.json", options.unix_permissions(0o644))
        .map_err(zip_error)?;
    let text = serde_json::to_string_pretty(manifest).unwrap_or_default();
    zip.write_all(text.as_bytes())
        .map_err(|e| CliError::io(path, e))?;
    zip.start_file(entry, options.unix_permissions(0o755))
        .map_err(zip_error)?;
    zip.write_all(&binary).map_err(|e| CliError::io(path, e))?;
    zip.finish().map_err(zip_error)?;
    Ok(())
}
