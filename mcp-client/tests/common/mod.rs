//! Helpers of the tests: the example servers, built once into this workspace's target
//! directory (the one the test runs from) with `cargo build -p mcp-examples`:
//! `CARGO_BIN_EXE_*` only names binaries of the crate under test, and a dev-dependency on
//! the examples would be a cycle.

#![allow(dead_code, reason = "each test binary uses some of the helpers")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::OnceLock;

use ferromcp_client::{ClientOptions, ProtocolVersion};
use tokio::io::{AsyncBufReadExt, BufReader};

/// The examples' binary `name`, built once.
pub fn example(name: &str) -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    let dir = BUILT.get_or_init(|| {
        // target/<profile>/deps/<this test> → target/<profile>
        let exe = std::env::current_exe().unwrap();
        let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
        let target = profile_dir.parent().unwrap();
        let profile = profile_dir
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = std::process::Command::new(cargo);
        // The same command as tests/interop/run.sh's, so that the two share one build.
        cmd.args([
            "build",
            "--quiet",
            "-p",
            "mcp-examples",
            "--bins",
            "--target-dir",
        ])
        .arg(target)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
        if profile == "release" {
            cmd.arg("--release");
        }
        let status = cmd.status().unwrap();
        assert!(status.success(), "building the examples failed");
        profile_dir
    });
    dir.join(name)
}

/// The option sets of the eras tested, and the revision each must end up speaking.
pub fn eras() -> [(ClientOptions, ProtocolVersion); 3] {
    [
        (ClientOptions::new(), ProtocolVersion::V2026_07_28),
        (
            ClientOptions::new().protocol_version(ProtocolVersion::V2025_11_25),
            ProtocolVersion::V2025_11_25,
        ),
        (
            ClientOptions::new().protocol_version(ProtocolVersion::V2025_03_26),
            ProtocolVersion::V2025_03_26,
        ),
    ]
}

/// An example serving Streamable HTTP on a free port, and its URL; killed when dropped.
pub async fn http_example(name: &str) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(example(name))
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines
        .next_line()
        .await
        .unwrap()
        .expect("the server announces its URL");
    let url = first
        .strip_prefix("MCP server listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {first}"))
        .to_owned();
    (child, url)
}

/// The text of a result's first content block.
pub fn text(result: &ferromcp_client::types::CallToolResult) -> &str {
    match &result.content[0] {
        ferromcp_client::types::ContentBlock::Text(t) => &t.text,
        other => panic!("not text: {other:?}"),
    }
}

/// A handler answering `roots/list` with one root, `uri`.
pub struct Roots(pub &'static str);

impl ferromcp_client::ClientHandler for Roots {
    fn list_roots(
        &self,
    ) -> ferromcp_client::BoxFuture<
        '_,
        Result<ferromcp_client::types::ListRootsResult, ferromcp_client::rpc::ErrorObject>,
    > {
        let uri = self.0;
        Box::pin(async move {
            Ok(ferromcp_client::types::ListRootsResult::new(vec![
                ferromcp_client::types::Root::new(uri),
            ]))
        })
    }
}
