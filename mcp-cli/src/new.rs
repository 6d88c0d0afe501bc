//! `ferromcp new NAME`: a crate with a server, its tests and a README, ready to `cargo test`.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::{CliError, out};

const CARGO_TOML: &str = include_str!("../templates/Cargo.toml.tmpl");
const LIB_RS: &str = include_str!("../templates/lib.rs.tmpl");
const MAIN_RS: &str = include_str!("../templates/main.rs.tmpl");
const TESTS_RS: &str = include_str!("../templates/tests.rs.tmpl");
const TESTS_HTTP_RS: &str = include_str!("../templates/tests_http.rs.tmpl");
const README_MD: &str = include_str!("../templates/README.md.tmpl");
const CONNECT_STDIO: &str = include_str!("../templates/connect_stdio.md.tmpl");
const CONNECT_HTTP: &str = include_str!("../templates/connect_http.md.tmpl");
const GITIGNORE: &str = include_str!("../templates/gitignore.tmpl");

/// Create a new MCP server crate: a tool, a resource and a prompt, tests that drive them
/// with ferromcp's test client, and a README with the lines that connect clients.
#[derive(Debug, Args)]
pub(crate) struct NewArgs {
    /// The crate's name (letters, digits, `-` and `_`, starting with a letter); also the
    /// folder created and the server's name
    name: String,
    /// Lead with Streamable HTTP: a test over the HTTP endpoint and HTTP connect lines
    #[arg(long)]
    http: bool,
    /// Depend on ferromcp at this path (its crate folder or the SDK checkout's root)
    #[arg(long, value_name = "PATH_TO_FERROMCP", conflicts_with = "version")]
    path: Option<PathBuf>,
    /// Depend on this version of ferromcp from crates.io (default: this command's version)
    #[arg(long, value_name = "V")]
    version: Option<String>,
    /// Create the crate in this folder instead of ./NAME
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Runs `ferromcp new`.
pub(crate) fn run(args: &NewArgs) -> Result<(), CliError> {
    check_name(&args.name)?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&args.name));
    if dir.exists() {
        return Err(CliError::Exists(format!(
            "{} already exists",
            dir.display()
        )));
    }
    let dependency = match &args.path {
        Some(path) => Dependency::Path(ferromcp_crate_dir(path)?),
        None => Dependency::Version(
            args.version
                .clone()
                .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned()),
        ),
    };
    let files = render(&args.name, args.http, &dependency);
    for (relative, text) in &files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| CliError::io(parent, e))?;
        }
        std::fs::write(&path, text).map_err(|e| CliError::io(&path, e))?;
    }
    if let Dependency::Path(crate_dir) = &dependency {
        copy_lock(crate_dir, &dir)?;
    }
    out::note(format!("created {} ({} files)", dir.display(), files.len()));
    out::note(format!(
        "next: cd {} && cargo test && ferromcp dev",
        dir.display()
    ));
    Ok(())
}

/// Where `ferromcp` comes from.
enum Dependency {
    Path(PathBuf),
    Version(String),
}

impl Dependency {
    /// The dependency as a TOML inline table, with `features` if given.
    fn toml(&self, features: &[&str]) -> String {
        let mut table = toml_edit::InlineTable::new();
        match self {
            Dependency::Path(path) => {
                table.insert("path", path.display().to_string().into());
            }
            Dependency::Version(version) => {
                table.insert("version", version.as_str().into());
            }
        }
        if !features.is_empty() {
            table.insert(
                "features",
                features
                    .iter()
                    .copied()
                    .collect::<toml_edit::Array>()
                    .into(),
            );
        }
        table.fmt();
        table.to_string()
    }
}

/// A crate name cargo accepts and the templates can use as an identifier and a URI scheme.
fn check_name(name: &str) -> Result<(), CliError> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(CliError::Usage(format!(
            "invalid crate name `{name}`: use letters, digits, `-` and `_`, starting with a letter"
        )));
    }
    Ok(())
}

/// The `ferromcp` crate's folder: `path` itself, or its `mcp-server/` (the SDK's root).
fn ferromcp_crate_dir(path: &Path) -> Result<PathBuf, CliError> {
    let path = std::fs::canonicalize(path).map_err(|e| CliError::io(path, e))?;
    for candidate in [path.clone(), path.join("mcp-server")] {
        let manifest = candidate.join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&manifest)
            && let Ok(doc) = text.parse::<toml_edit::DocumentMut>()
            && doc
                .get("package")
                .and_then(|p| p.get("name"))
                .and_then(|n| n.as_str())
                == Some("ferromcp")
        {
            return Ok(candidate);
        }
    }
    Err(CliError::Usage(format!(
        "{}: neither it nor its mcp-server/ is the ferromcp crate",
        path.display()
    )))
}

/// Copies the SDK workspace's `Cargo.lock` (if any) so that the new crate builds the
/// versions the SDK is tested with, and reuses their artefacts in a shared target folder.
fn copy_lock(crate_dir: &Path, dir: &Path) -> Result<(), CliError> {
    let Some(lock) = crate_dir
        .ancestors()
        .map(|d| d.join("Cargo.lock"))
        .find(|p| p.is_file())
    else {
        return Ok(());
    };
    let target = dir.join("Cargo.lock");
    std::fs::copy(&lock, &target).map_err(|e| CliError::io(&target, e))?;
    Ok(())
}

/// The crate's files, relative to its folder.
fn render(name: &str, http: bool, dependency: &Dependency) -> Vec<(&'static str, String)> {
    let type_name = type_name(name);
    let crate_ident = name.replace('-', "_");
    let scheme = name.to_ascii_lowercase().replace('_', "-");
    let http_dev_deps = if http {
        "\naxum = { version = \"0.8\", default-features = false }"
    } else {
        ""
    };
    let fill = |template: &str| {
        template
            .replace(
                "{{connect}}",
                if http { CONNECT_HTTP } else { CONNECT_STDIO },
            )
            .replace("{{ferromcp}}", &dependency.toml(&[]))
            .replace("{{ferromcp_testing}}", &dependency.toml(&["testing"]))
            .replace("{{http_dev_deps}}", http_dev_deps)
            .replace("{{Type}}", &type_name)
            .replace("{{crate}}", &crate_ident)
            .replace("{{scheme}}", &scheme)
            .replace("{{name}}", name)
    };
    let mut files = vec![
        ("Cargo.toml", fill(CARGO_TOML)),
        ("src/lib.rs", fill(LIB_RS)),
        ("src/main.rs", fill(MAIN_RS)),
        ("tests/server.rs", fill(TESTS_RS)),
        ("README.md", fill(README_MD)),
        (".gitignore", GITIGNORE.to_owned()),
    ];
    if http {
        files.push(("tests/http.rs", fill(TESTS_HTTP_RS)));
    }
    files
}

/// `word-counter` → `WordCounter`.
fn type_name(name: &str) -> String {
    name.split(['-', '_'])
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
                .collect::<String>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_are_camel_case() {
        assert_eq!(type_name("word-counter"), "WordCounter");
        assert_eq!(type_name("calc"), "Calc");
        assert_eq!(type_name("a_b-c"), "ABC");
    }

    #[test]
    fn names_must_start_with_a_letter() {
        assert!(check_name("calc-2").is_ok());
        assert!(check_name("2calc").is_err());
        assert!(check_name("my tool").is_err());
        assert!(check_name("").is_err());
    }

    #[test]
    fn no_placeholder_is_left() {
        for http in [false, true] {
            let files = render("my-server", http, &Dependency::Version("0.1.0".into()));
            for (path, text) in files {
                assert!(!text.contains("{{"), "{path} keeps a placeholder:\n{text}");
            }
        }
    }
}
