//! What `dev` asks cargo: the crate's binary and how it serves, and a build that says where
//! the executable is.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::CliError;

/// The binary `dev` runs.
#[derive(Debug, Clone)]
pub(crate) struct Binary {
    /// Its package's folder (what is watched).
    pub(crate) dir: PathBuf,
    /// The package's name.
    pub(crate) package: String,
    /// The binary target's name.
    pub(crate) name: String,
    /// The package as `cargo metadata` describes it (version, description, license, …).
    pub(crate) metadata: Value,
}

/// Runs `cargo metadata` on `manifest` (default: the current folder's) and picks the binary:
/// `bin`, else the package's only binary, else the one named as the package.
pub(crate) fn locate(manifest: Option<&Path>, bin: Option<&str>) -> Result<Binary, CliError> {
    let mut command = Command::new(cargo());
    command.args(["metadata", "--no-deps", "--format-version", "1"]);
    if let Some(manifest) = manifest {
        command.arg("--manifest-path").arg(manifest);
    }
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| CliError::io("cargo", e))?;
    if !output.status.success() {
        return Err(CliError::Failed(
            "`cargo metadata` failed: run dev in a crate's folder".into(),
        ));
    }
    let metadata: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| CliError::Failed(format!("cargo metadata: {e}")))?;
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let candidates: Vec<(Value, String)> = packages
        .iter()
        .flat_map(|package| {
            let bins = package["targets"].as_array().cloned().unwrap_or_default();
            bins.into_iter()
                .filter(|t| {
                    t["kind"]
                        .as_array()
                        .is_some_and(|k| k.iter().any(|k| k == "bin"))
                })
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .map(move |name| (package.clone(), name))
        })
        .collect();
    let chosen = match bin {
        Some(bin) => candidates.iter().find(|(_, name)| name == bin),
        None if candidates.len() == 1 => candidates.first(),
        None => candidates
            .iter()
            .find(|(package, name)| package["name"] == name.as_str()),
    };
    let Some((package, name)) = chosen else {
        let names: Vec<&str> = candidates.iter().map(|(_, n)| n.as_str()).collect();
        return Err(CliError::Usage(format!(
            "say which binary to run with --bin (found: {})",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        )));
    };
    let manifest_path = PathBuf::from(package["manifest_path"].as_str().unwrap_or("Cargo.toml"));
    Ok(Binary {
        dir: manifest_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
        package: package["name"].as_str().unwrap_or_default().to_owned(),
        name: name.clone(),
        metadata: package.clone(),
    })
}

/// Builds `binary` (`release` or not) with cargo's messages on stderr; the executable's path.
pub(crate) fn build(binary: &Binary, release: bool) -> Result<PathBuf, CliError> {
    let mut command = Command::new(cargo());
    command.args(["build", "--message-format", "json-render-diagnostics", "-p"]);
    command.arg(&binary.package).arg("--bin").arg(&binary.name);
    if release {
        command.arg("--release");
    }
    command.current_dir(&binary.dir);
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| CliError::io("cargo", e))?;
    if !output.status.success() {
        return Err(CliError::Failed(format!(
            "`cargo build --bin {}` failed",
            binary.name
        )));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| {
            m["reason"] == "compiler-artifact" && m["target"]["name"] == binary.name.as_str()
        })
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| CliError::Failed(format!("cargo built no executable named {}", binary.name)))
}

/// The cargo to run: `$CARGO` when run by cargo, else `cargo`.
fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}
