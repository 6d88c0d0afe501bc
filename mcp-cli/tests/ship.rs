//! `ferromcp bundle` and `ferromcp server-json` on the quickstart example.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

fn examples_manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/Cargo.toml")
}

fn ferromcp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferromcp"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn bundle_packs_the_binary_with_the_servers_own_tools_and_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("quickstart.mcpb");
    let manifest = examples_manifest();
    let common = [
        "bundle",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bin",
        "quickstart",
        "--debug",
    ];
    let no_author = ferromcp(&[&common[..], &["-o", out.to_str().unwrap()]].concat());
    assert_eq!(no_author.status.code(), Some(2), "{}", stderr(&no_author));

    let extra = [
        "--author",
        "Ada",
        "--secret-env",
        "API_KEY",
        "--env",
        "REGION=eu",
        "-o",
        out.to_str().unwrap(),
    ];
    let output = ferromcp(&[&common[..], &extra[..]].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&out).unwrap()).unwrap();
    let mut text = String::new();
    zip.by_name("manifest.json")
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let manifest: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(manifest["manifest_version"], "0.3");
    assert_eq!(manifest["name"], "quickstart");
    assert_eq!(manifest["author"], json!({"name": "Ada"}));
    assert_eq!(manifest["server"]["type"], "binary");
    assert_eq!(manifest["server"]["entry_point"], "server/quickstart");
    assert_eq!(
        manifest["server"]["mcp_config"]["command"],
        "${__dirname}/server/quickstart"
    );
    let tools: Vec<&str> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["add", "echo", "stats"]);
    assert_eq!(manifest["tools"][0]["description"], "Adds two integers.");
    let prompt = &manifest["prompts"][0];
    assert_eq!(prompt["name"], "code_review");
    assert_eq!(prompt["arguments"], json!(["code"]));
    assert!(
        prompt["text"]
            .as_str()
            .unwrap()
            .ends_with("${arguments.code}"),
        "{prompt}"
    );
    assert_eq!(
        manifest["server"]["mcp_config"]["env"],
        json!({"REGION": "${user_config.region}", "API_KEY": "${user_config.api_key}"})
    );
    assert_eq!(manifest["user_config"]["api_key"]["sensitive"], true);
    assert_eq!(manifest["user_config"]["region"]["default"], "eu");
    let binary = zip.by_name("server/quickstart").unwrap();
    assert_eq!(binary.unix_mode().map(|m| m & 0o777), Some(0o755));
    assert!(binary.size() > 0);
}

#[test]
fn server_json_is_valid_for_the_registry_and_hashes_the_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("q.mcpb");
    std::fs::write(&bundle, b"not really a zip").unwrap();
    let manifest = examples_manifest();
    let base = [
        "server-json",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bin",
        "quickstart",
        "--name",
        "io.github.me/quickstart",
    ];
    let url = "https://github.com/me/q/releases/download/v0.1.0/q.mcpb";
    let with_mcpb = [
        &base[..],
        &[
            "--mcpb",
            bundle.to_str().unwrap(),
            "--mcpb-url",
            url,
            "--url",
            "https://q.example.com/mcp",
        ],
    ]
    .concat();
    let output = ferromcp(&with_mcpb);
    assert!(output.status.success(), "{}", stderr(&output));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        document["$schema"],
        "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    );
    assert_eq!(document["name"], "io.github.me/quickstart");
    assert!(document["description"].as_str().unwrap().chars().count() <= 100);
    assert_eq!(document["packages"][0]["registryType"], "mcpb");
    assert_eq!(document["packages"][0]["identifier"], url);
    // sha256("not really a zip")
    assert_eq!(
        document["packages"][0]["fileSha256"],
        "d5bd64a5c43b6f8cc7f6c7897e954e58b89abfed62e851a47f842de714cca7d0"
    );
    assert_eq!(
        document["remotes"][0],
        json!({"type": "streamable-http", "url": "https://q.example.com/mcp"})
    );

    assert_eq!(
        ferromcp(&base).status.code(),
        Some(2),
        "no package nor remote"
    );
    let bad = [
        &base[..5],
        &[
            "--name",
            "not-reverse-dns",
            "--url",
            "https://q.example.com/mcp",
        ],
    ]
    .concat();
    let refused = ferromcp(&bad);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("/name"), "{}", stderr(&refused));
}
