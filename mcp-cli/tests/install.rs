//! `ferromcp install`: each client's file, at each scope, merged without losing anything.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

/// A temporary home and project folder; the command runs in the project with HOME (and the
/// config folder variables) pointing into the home.
struct Sandbox {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        // The project's path as the command sees it (the temp folder may be a symlink).
        let project = project.canonicalize().unwrap();
        Sandbox {
            _dir: dir,
            home,
            project,
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ferromcp"))
            .arg("install")
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("APPDATA", self.home.join("AppData"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .output()
            .unwrap()
    }

    fn json(&self, path: &Path) -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn each_client_and_scope_writes_its_file_in_its_shape() {
    let stdio = json!({"command": "/bin/calc", "args": ["--x"]});
    let typed = json!({"type": "stdio", "command": "/bin/calc", "args": ["--x"]});
    let cases: &[(&str, &str, &str, Value)] = &[
        (
            "claude-code",
            "project",
            ".mcp.json",
            json!({"mcpServers": {"calc": typed}}),
        ),
        (
            "claude-code",
            "user",
            "~/.claude.json",
            json!({"mcpServers": {"calc": typed}}),
        ),
        (
            "cursor",
            "user",
            "~/.cursor/mcp.json",
            json!({"mcpServers": {"calc": stdio}}),
        ),
        (
            "cursor",
            "project",
            ".cursor/mcp.json",
            json!({"mcpServers": {"calc": stdio}}),
        ),
        (
            "vscode",
            "project",
            ".vscode/mcp.json",
            json!({"servers": {"calc": typed}}),
        ),
        (
            "vscode",
            "user",
            "~/.config/Code/User/mcp.json",
            json!({"servers": {"calc": typed}}),
        ),
        (
            "gemini",
            "user",
            "~/.gemini/settings.json",
            json!({"mcpServers": {"calc": stdio}}),
        ),
        (
            "gemini",
            "project",
            ".gemini/settings.json",
            json!({"mcpServers": {"calc": stdio}}),
        ),
        (
            "claude-desktop",
            "user",
            "~/.config/Claude/claude_desktop_config.json",
            json!({"mcpServers": {"calc": stdio}}),
        ),
    ];
    for (client, scope, file, expected) in cases {
        let sandbox = Sandbox::new();
        let output = sandbox.run(&[client, "calc", "--scope", scope, "--", "/bin/calc", "--x"]);
        assert!(
            output.status.success(),
            "{client} {scope}: {}",
            stderr(&output)
        );
        let path = match file.strip_prefix("~/") {
            Some(rest) => sandbox.home.join(rest),
            None => sandbox.project.join(file),
        };
        assert_eq!(sandbox.json(&path), *expected, "{client} {scope}");
    }
}

#[test]
fn claude_code_local_scope_is_under_the_project_and_is_the_default() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[
        "claude-code",
        "calc",
        "-e",
        "RUST_LOG=debug",
        "--",
        "/bin/calc",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let config = sandbox.json(&sandbox.home.join(".claude.json"));
    let project = sandbox.project.display().to_string();
    assert_eq!(
        config["projects"][project.as_str()]["mcpServers"]["calc"],
        json!({"type": "stdio", "command": "/bin/calc", "args": [], "env": {"RUST_LOG": "debug"}})
    );
}

#[test]
fn http_entries_take_each_clients_keys() {
    let sandbox = Sandbox::new();
    let url = "http://127.0.0.1:8080/mcp";
    for (client, scope) in [
        ("claude-code", "project"),
        ("vscode", "project"),
        ("gemini", "project"),
    ] {
        let output = sandbox.run(&[
            client,
            "web",
            "--scope",
            scope,
            "--url",
            url,
            "-H",
            "X-Key: k 1",
        ]);
        assert!(output.status.success(), "{client}: {}", stderr(&output));
    }
    let headers = json!({"X-Key": "k 1"});
    let mcp = sandbox.json(&sandbox.project.join(".mcp.json"));
    assert_eq!(
        mcp["mcpServers"]["web"],
        json!({"type": "http", "url": url, "headers": headers})
    );
    let vscode = sandbox.json(&sandbox.project.join(".vscode/mcp.json"));
    assert_eq!(
        vscode["servers"]["web"],
        json!({"type": "http", "url": url, "headers": headers})
    );
    let gemini = sandbox.json(&sandbox.project.join(".gemini/settings.json"));
    assert_eq!(
        gemini["mcpServers"]["web"],
        json!({"httpUrl": url, "headers": headers})
    );
    let desktop = sandbox.run(&["claude-desktop", "web", "--url", url]);
    assert_eq!(desktop.status.code(), Some(2), "{}", stderr(&desktop));
}

#[test]
fn merging_keeps_other_entries_their_order_and_a_backup() {
    let sandbox = Sandbox::new();
    let path = sandbox.project.join(".mcp.json");
    let before = "{\n  \"zeta\": {\"keep\": [3, 1.5, null]},\n  \"mcpServers\": {\n    \"other\": {\"command\": \"o\", \"z\": 1, \"a\": 2}\n  },\n  \"alpha\": true\n}\n";
    std::fs::write(&path, before).unwrap();
    let output = sandbox.run(&[
        "claude-code",
        "calc",
        "--scope",
        "project",
        "--",
        "/bin/calc",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let after = std::fs::read_to_string(&path).unwrap();
    let keys: Vec<usize> = [
        "\"zeta\"",
        "\"mcpServers\"",
        "\"other\"",
        "\"z\"",
        "\"a\"",
        "\"calc\"",
        "\"alpha\"",
    ]
    .iter()
    .map(|k| {
        after
            .find(k)
            .unwrap_or_else(|| panic!("{k} lost:\n{after}"))
    })
    .collect();
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]),
        "order changed:\n{after}"
    );
    assert!(after.contains("1.5") && after.contains("null"));
    assert_eq!(
        std::fs::read_to_string(sandbox.project.join(".mcp.json.bak")).unwrap(),
        before
    );
}

#[test]
fn an_existing_name_is_refused_unless_forced() {
    let sandbox = Sandbox::new();
    let args = ["cursor", "calc", "--scope", "project", "--", "/bin/one"];
    assert!(sandbox.run(&args).status.success());
    let again = sandbox.run(&["cursor", "calc", "--scope", "project", "--", "/bin/two"]);
    assert_eq!(again.status.code(), Some(3));
    assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
    let path = sandbox.project.join(".cursor/mcp.json");
    assert_eq!(
        sandbox.json(&path)["mcpServers"]["calc"]["command"],
        "/bin/one"
    );
    let forced = sandbox.run(&[
        "cursor", "calc", "--scope", "project", "--force", "--", "/bin/two",
    ]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert_eq!(
        sandbox.json(&path)["mcpServers"]["calc"]["command"],
        "/bin/two"
    );
}

#[test]
fn a_name_that_normalizes_like_another_is_warned_about() {
    let sandbox = Sandbox::new();
    assert!(
        sandbox
            .run(&["claude-code", "my.server", "--scope", "project", "--", "a"])
            .status
            .success()
    );
    let output = sandbox.run(&["claude-code", "my-server", "--scope", "project", "--", "b"]);
    assert!(output.status.success());
    let warning = stderr(&output);
    assert!(
        warning.contains("warning:") && warning.contains("my_server"),
        "{warning}"
    );
    let quiet = sandbox.run(&["claude-code", "other", "--scope", "project", "--", "c"]);
    assert!(!stderr(&quiet).contains("warning:"), "{}", stderr(&quiet));
}

#[test]
fn a_file_that_is_not_json_is_left_alone() {
    let sandbox = Sandbox::new();
    let path = sandbox.project.join(".vscode/mcp.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = "{ // a comment\n \"servers\": {} }";
    std::fs::write(&path, text).unwrap();
    let output = sandbox.run(&["vscode", "calc", "--", "/bin/calc"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("not valid JSON"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn codex_tables_keep_the_rest_of_the_file() {
    let sandbox = Sandbox::new();
    let path = sandbox.home.join(".codex/config.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let before = "# my settings\nmodel = \"o3\"  # keep this comment\n\n[mcp_servers.other]\ncommand = \"o\"\n";
    std::fs::write(&path, before).unwrap();
    let output = sandbox.run(&["codex", "calc", "-e", "A=1", "--", "/bin/calc", "--x"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let web = sandbox.run(&["codex", "web", "--url", "http://h/mcp", "-H", "X-Key: k"]);
    assert!(web.status.success(), "{}", stderr(&web));
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with(before), "{after}");
    assert!(
        after.contains(
            "[mcp_servers.calc]\ncommand = \"/bin/calc\"\nargs = [\"--x\"]\nenv = { A = \"1\" }\n"
        ),
        "{after}"
    );
    assert!(
        after.contains(
            "[mcp_servers.web]\nurl = \"http://h/mcp\"\nhttp_headers = { X-Key = \"k\" }\n"
        ),
        "{after}"
    );
    assert_eq!(
        sandbox.run(&["codex", "calc", "--", "x"]).status.code(),
        Some(3)
    );
}

#[test]
fn json_prints_the_entry() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["json", "calc", "-e", "K=V", "--", "/bin/calc", "--x"]);
    assert!(output.status.success());
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        printed,
        json!({"mcpServers": {"calc": {"type": "stdio", "command": "/bin/calc", "args": ["--x"], "env": {"K": "V"}}}})
    );
    let none = sandbox.run(&["json", "calc"]);
    assert_eq!(none.status.code(), Some(2));
}
