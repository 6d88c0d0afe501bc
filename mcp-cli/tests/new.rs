//! `ferromcp new`: the crate it writes, and (ignored here, run by tests/cli/run.sh) that
//! the crate passes `cargo test` straight away.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output};

fn ferromcp(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferromcp"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The SDK checkout this test runs in.
fn sdk_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[test]
fn new_writes_a_crate_that_depends_on_ferromcp_by_path_or_version() {
    let dir = tempfile::tempdir().unwrap();
    let root = sdk_root().to_str().unwrap();
    let output = ferromcp(dir.path(), &["new", "word-counter", "--path", root]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let krate = dir.path().join("word-counter");
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "src/lib.rs",
        "src/main.rs",
        "tests/server.rs",
        "README.md",
        ".gitignore",
    ] {
        assert!(krate.join(file).is_file(), "{file} missing");
    }
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    let server = sdk_root().join("mcp-server").canonicalize().unwrap();
    assert!(
        manifest.contains(&format!("ferromcp = {{ path = \"{}\" }}", server.display())),
        "{manifest}"
    );
    let lib = std::fs::read_to_string(krate.join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("pub struct WordCounter;") && lib.contains("word-counter://readme"),
        "{lib}"
    );
    let readme = std::fs::read_to_string(krate.join("README.md")).unwrap();
    assert!(
        readme.contains("ferromcp install claude-code word-counter"),
        "{readme}"
    );
    assert!(
        readme.contains("npx @modelcontextprotocol/inspector"),
        "{readme}"
    );

    let output = ferromcp(dir.path(), &["new", "web", "--http", "--version", "0.1.0"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let manifest = std::fs::read_to_string(dir.path().join("web/Cargo.toml")).unwrap();
    assert!(
        manifest.contains("ferromcp = { version = \"0.1.0\" }"),
        "{manifest}"
    );
    assert!(dir.path().join("web/tests/http.rs").is_file());
    let readme = std::fs::read_to_string(dir.path().join("web/README.md")).unwrap();
    assert!(
        readme.contains("--url http://127.0.0.1:8080/mcp"),
        "{readme}"
    );
}

#[test]
fn new_refuses_an_existing_folder_and_a_bad_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("taken")).unwrap();
    assert_eq!(
        ferromcp(dir.path(), &["new", "taken"]).status.code(),
        Some(3)
    );
    assert_eq!(
        ferromcp(dir.path(), &["new", "9lives"]).status.code(),
        Some(2)
    );
    assert_eq!(
        ferromcp(dir.path(), &["new", "x", "--path", "/", "--version", "1"])
            .status
            .code(),
        Some(2)
    );
}

/// Builds and tests the new crate (stdio and `--http`) against this checkout, in the
/// workspace's target folder. Slow (it compiles ferromcp with `testing`): tests/cli/run.sh
/// runs it with `--ignored`.
#[test]
#[ignore = "compiles a crate; run by tests/cli/run.sh"]
fn the_new_crate_passes_cargo_test() {
    let dir = tempfile::tempdir().unwrap();
    let root = sdk_root().to_str().unwrap();
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| format!("{root}/target"));
    for (name, extra) in [("calc", None), ("calc-http", Some("--http"))] {
        let mut args = vec!["new", name, "--path", root];
        args.extend(extra);
        let output = ferromcp(dir.path(), &args);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let manifest = dir.path().join(name).join("Cargo.toml");
        // Run from the checkout so that its rust-toolchain.toml picks the compiler.
        let status = Command::new(env!("CARGO"))
            .args(["test", "--manifest-path"])
            .arg(&manifest)
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(root)
            .status()
            .unwrap();
        assert!(
            status.success(),
            "cargo test failed in the new crate {name}"
        );
    }
}
