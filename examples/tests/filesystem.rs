//! The filesystem example's contract through the in-process client in both eras: the path
//! traversal table of SECURITY.md row 17 for every tool and for `resources/read`, ordinary
//! reads, listing, search and (only with `--allow-write`) writes, and the legacy clients'
//! roots. Each test builds its own tree under `std::env::temp_dir()`, with real files
//! outside the root that an unguarded server would serve, and removes it afterwards.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use ferromcp::Server;
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use ferromcp::types::{CallToolResult, Root};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

// The binary's source, compiled here as a module so the test serves the very same server.
#[allow(dead_code)]
#[path = "../src/bin/filesystem.rs"]
mod filesystem;

use filesystem::path_guard::AllowedRoot;

const SECRET: &str = "top secret\n";
/// Not UTF-8, with NUL bytes; base64 `AAEC//79`.
const BINARY: [u8; 6] = [0, 1, 2, 0xff, 0xfe, 0xfd];

/// A directory tree under the system's temp dir, removed on drop:
///
/// ```text
/// base/secret.txt              outside the root
/// base/outside/leak.txt        outside the root
/// base/root_evil/secret2.txt   outside, but its name starts with the root's
/// base/root/                   the allowed root
///   hello.txt  HEAD~3..HEAD  v1.0..v2.0/a.txt  notes/nested/deep.md  image.png  big.bin
///   many/f000 … f149
///   escape -> base/secret.txt   escape_dir -> base/outside   inner_link -> hello.txt
///   dangling -> base/created_by_link.txt (missing)
/// ```
struct Tree {
    base: PathBuf,
}

impl Tree {
    fn new(name: &str) -> Tree {
        let base = std::env::temp_dir().join(format!("mcp-fs-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(&base).unwrap();
        let tree = Tree {
            base: base.canonicalize().unwrap(),
        };
        let (base, root) = (&tree.base, tree.root());
        fs::write(base.join("secret.txt"), SECRET).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::write(base.join("outside/leak.txt"), SECRET).unwrap();
        fs::create_dir_all(base.join("root_evil")).unwrap();
        fs::write(base.join("root_evil/secret2.txt"), SECRET).unwrap();
        fs::create_dir_all(root.join("notes/nested")).unwrap();
        fs::create_dir_all(root.join("v1.0..v2.0")).unwrap();
        fs::create_dir_all(root.join("many")).unwrap();
        fs::write(root.join("hello.txt"), "hello\n").unwrap();
        fs::write(root.join("HEAD~3..HEAD"), "a range\n").unwrap();
        fs::write(root.join("v1.0..v2.0/a.txt"), "versions\n").unwrap();
        fs::write(root.join("notes/nested/deep.md"), "# deep\n").unwrap();
        fs::write(root.join("image.png"), BINARY).unwrap();
        let big = usize::try_from(filesystem::MAX_FILE_BYTES).unwrap() + 1;
        fs::write(root.join("big.bin"), vec![b'a'; big]).unwrap();
        for i in 0..150 {
            fs::write(root.join(format!("many/f{i:03}")), "").unwrap();
        }
        symlink(base.join("secret.txt"), root.join("escape")).unwrap();
        symlink(base.join("outside"), root.join("escape_dir")).unwrap();
        symlink("hello.txt", root.join("inner_link")).unwrap();
        symlink(base.join("created_by_link.txt"), root.join("dangling")).unwrap();
        tree
    }

    fn root(&self) -> PathBuf {
        self.base.join("root")
    }

    /// `root` joined with `rest`, as a string.
    fn at(&self, rest: &str) -> String {
        format!("{}/{rest}", self.root().display())
    }

    fn server(&self, allow_write: bool) -> Server {
        let roots = vec![AllowedRoot::new(&self.root()).unwrap()];
        filesystem::server(roots, allow_write).unwrap()
    }

    /// Nothing outside the root was changed or created.
    fn assert_outside_untouched(&self) {
        assert_eq!(
            fs::read_to_string(self.base.join("secret.txt")).unwrap(),
            SECRET
        );
        assert_eq!(
            fs::read_to_string(self.base.join("outside/leak.txt")).unwrap(),
            SECRET
        );
        let mut names: Vec<_> = fs::read_dir(&self.base)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["outside", "root", "root_evil", "secret.txt"]);
        assert_eq!(fs::read_dir(self.base.join("outside")).unwrap().count(), 1);
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

/// SECURITY.md row 17's table, then the same escapes aimed at real files outside the root
/// (so that a server without the guard would answer them).
fn traversals(tree: &Tree) -> Vec<String> {
    let mut paths: Vec<String> = [
        "../etc/passwd",
        "..%2Fetc",
        "%2E%2E/etc",
        "..%5Cetc",
        "%00",
        "/etc/passwd",
        "C:\\x",
        "\\\\srv\\share",
        "escape",
        // Aimed at real files.
        "../secret.txt",
        "..%2Fsecret.txt",
        "%2e%2e%2fsecret.txt",
        "..%5Csecret.txt",
        "notes/../../secret.txt",
        "hello.txt%00",
        "hello.txt\0",
        "escape_dir/leak.txt",
        "//srv/share",
        "C:/x",
    ]
    .map(String::from)
    .to_vec();
    paths.push(format!("{}/secret.txt", tree.base.display()));
    paths.push(format!("{}/root_evil/secret2.txt", tree.base.display()));
    paths.push(tree.at("../secret.txt"));
    paths.push(tree.at("escape"));
    paths.push(tree.at("escape_dir"));
    paths
}

fn eras() -> [ClientOptions; 2] {
    [ClientOptions::legacy(), ClientOptions::modern()]
}

async fn connect(server: &Server, options: ClientOptions) -> TestClient {
    TestClient::connect(server, options).await.unwrap()
}

fn text(r: &CallToolResult) -> &str {
    r.content[0].as_text().unwrap_or_default()
}

async fn call(client: &TestClient, tool: &str, args: Value) -> CallToolResult {
    client.call_tool(tool, args).await.unwrap()
}

async fn ok(client: &TestClient, tool: &str, args: Value) -> CallToolResult {
    let r = call(client, tool, args.clone()).await;
    assert_eq!(r.is_error, None, "{tool} {args}: {}", text(&r));
    r
}

async fn assert_refused(client: &TestClient, tool: &str, args: Value) {
    let r = call(client, tool, args.clone()).await;
    assert_eq!(r.is_error, Some(true), "{tool} {args} is refused: {r:?}");
    assert!(
        text(&r).starts_with("path refused: "),
        "{tool} {args}: {}",
        text(&r)
    );
}

fn rpc_error(e: TestClientError) -> ferromcp::error::ErrorObject {
    match e {
        TestClientError::Rpc(e) => e,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn resource_json(r: &ferromcp::types::ReadResourceResult) -> Value {
    assert_eq!(r.contents.len(), 1);
    serde_json::to_value(&r.contents[0]).unwrap()
}

#[tokio::test]
async fn lists_tools_and_the_file_template() {
    let tree = Tree::new("lists");
    for (allow_write, expected) in [
        (false, &["read_file", "list_dir", "search"][..]),
        (true, &["read_file", "list_dir", "search", "write_file"]),
    ] {
        let server = tree.server(allow_write);
        for options in eras() {
            let client = connect(&server, options).await;
            let tools = client.list_tools().await.unwrap();
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(names, expected);
            for tool in &tools {
                let hints = serde_json::to_value(&tool.annotations).unwrap();
                let writes = tool.name == "write_file";
                let (destructive, read_only) = if writes {
                    (json!(true), Value::Null)
                } else {
                    (Value::Null, json!(true))
                };
                assert_eq!(hints["destructiveHint"], destructive, "{}", tool.name);
                assert_eq!(hints["readOnlyHint"], read_only, "{}", tool.name);
                assert_eq!(hints["openWorldHint"], false, "{}", tool.name);
            }
            let templates = client.list_resource_templates().await.unwrap();
            assert_eq!(templates.len(), 1);
            assert_eq!(templates[0].uri_template, "file:///{+path}");
        }
    }
}

#[tokio::test]
async fn traversal_is_refused_by_every_tool() {
    let tree = Tree::new("traversal");
    let server = tree.server(true);
    for options in eras() {
        let client = connect(&server, options).await;
        for path in traversals(&tree) {
            assert_refused(&client, "read_file", json!({"path": path})).await;
            assert_refused(&client, "list_dir", json!({"path": path})).await;
            assert_refused(&client, "search", json!({"path": path, "pattern": "e"})).await;
            let write = json!({"path": path, "content": "pwned"});
            assert_refused(&client, "write_file", write).await;
        }
        tree.assert_outside_untouched();
    }
}

#[tokio::test]
async fn traversal_is_refused_by_resources_read() {
    let tree = Tree::new("resources-refused");
    let server = tree.server(false);
    let root = tree.root().display().to_string();
    let base = tree.base.display().to_string();
    let uris = [
        "file:///etc/passwd".to_owned(),
        "file:///C:/x".to_owned(),
        "file:///C:%5Cx".to_owned(),
        "file:///%5C%5Csrv%5Cshare".to_owned(),
        format!("file://{root}/../secret.txt"),
        format!("file://{root}/..%2Fsecret.txt"),
        format!("file://{root}/%2E%2E/secret.txt"),
        format!("file://{root}/..%5Csecret.txt"),
        format!("file://{root}/hello.txt%00"),
        format!("file://{root}/escape"),
        format!("file://{root}/escape_dir/leak.txt"),
        format!("file://{base}/secret.txt"),
        format!("file://{base}/root_evil/secret2.txt"),
    ];
    for options in eras() {
        let client = connect(&server, options).await;
        for uri in &uris {
            let e = rpc_error(client.read_resource(uri).await.unwrap_err());
            assert_eq!(e.code.0, -32602, "{uri}: {e:?}");
            assert!(e.message.starts_with("path refused: "), "{uri}: {e:?}");
        }
    }
}

#[tokio::test]
async fn resources_read_text_and_binary_files_within_the_root() {
    let tree = Tree::new("resources");
    let server = tree.server(false);
    let root = tree.root().display().to_string();
    for (options, modern) in eras().into_iter().zip([false, true]) {
        let client = connect(&server, options).await;
        for (name, mime, text) in [
            ("hello.txt", "text/plain", "hello\n"),
            ("notes/nested/deep.md", "text/markdown", "# deep\n"),
            ("HEAD~3..HEAD", "text/plain", "a range\n"),
            ("v1.0..v2.0/a.txt", "text/plain", "versions\n"),
            ("inner_link", "text/plain", "hello\n"),
        ] {
            let uri = format!("file://{root}/{name}");
            let r = client.read_resource(&uri).await.unwrap();
            let json = resource_json(&r);
            assert_eq!(json["uri"], uri);
            assert_eq!(json["mimeType"], mime, "{name}");
            assert_eq!(json["text"], text, "{name}");
        }

        let uri = format!("file://{root}/image.png");
        let json = resource_json(&client.read_resource(&uri).await.unwrap());
        assert_eq!(json["mimeType"], "image/png");
        assert_eq!(json["blob"], "AAEC//79");
        assert_eq!(json.get("text"), None);

        let e = rpc_error(
            client
                .read_resource(&format!("file://{root}/big.bin"))
                .await
                .unwrap_err(),
        );
        assert_eq!(e.code.0, -32602);
        assert!(e.message.contains("over the limit"), "{e:?}");
        assert!(e.message.contains("1 MiB"), "{e:?}");

        let e = rpc_error(
            client
                .read_resource(&format!("file://{root}/notes"))
                .await
                .unwrap_err(),
        );
        assert_eq!(e.code.0, -32602);
        assert!(e.message.contains("is a directory"), "{e:?}");

        let missing = format!("file://{root}/missing.txt");
        let e = rpc_error(client.read_resource(&missing).await.unwrap_err());
        assert_eq!(e.code.0, if modern { -32602 } else { -32002 });
        assert!(!e.message.starts_with("path refused"), "{e:?}");
    }
}

#[tokio::test]
async fn read_file_reads_text_binary_and_refuses_large_files() {
    let tree = Tree::new("read");
    let server = tree.server(false);
    for options in eras() {
        let client = connect(&server, options).await;
        for (path, expected) in [
            ("hello.txt".to_owned(), "hello\n"),
            ("./hello.txt".to_owned(), "hello\n"),
            (tree.at("hello.txt"), "hello\n"),
            ("notes/nested/deep.md".to_owned(), "# deep\n"),
            // Percent-decoding comes first, for ordinary paths too.
            ("notes%2Fnested%2Fdeep.md".to_owned(), "# deep\n"),
            ("HEAD~3..HEAD".to_owned(), "a range\n"),
            ("v1.0..v2.0/a.txt".to_owned(), "versions\n"),
            ("inner_link".to_owned(), "hello\n"),
        ] {
            let r = ok(&client, "read_file", json!({"path": path})).await;
            assert_eq!(text(&r), expected, "{path}");
        }

        let r = ok(&client, "read_file", json!({"path": "image.png"})).await;
        let block = serde_json::to_value(&r.content[0]).unwrap();
        assert_eq!(block["type"], "resource");
        assert_eq!(block["resource"]["blob"], "AAEC//79");
        assert_eq!(block["resource"]["mimeType"], "image/png");
        assert_eq!(
            block["resource"]["uri"],
            format!("file://{}", tree.at("image.png"))
        );

        let r = call(&client, "read_file", json!({"path": "big.bin"})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("over the limit"), "{}", text(&r));

        let r = call(&client, "read_file", json!({"path": "missing.txt"})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).starts_with("not found: "), "{}", text(&r));
    }
}

#[tokio::test]
async fn list_dir_shows_entries_without_following_links() {
    let tree = Tree::new("list");
    let server = tree.server(false);
    for options in eras() {
        let client = connect(&server, options).await;
        for path in ["", ".", &tree.at("")] {
            let r = ok(&client, "list_dir", json!({"path": path})).await;
            let listing = r.structured_content.unwrap();
            assert_eq!(listing["path"], tree.root().display().to_string());
            assert_eq!(listing["truncated"], false);
            let entries = listing["entries"].as_array().unwrap();
            let names: Vec<&str> = entries
                .iter()
                .map(|e| e["name"].as_str().unwrap())
                .collect();
            assert_eq!(
                names,
                [
                    "HEAD~3..HEAD",
                    "big.bin",
                    "dangling",
                    "escape",
                    "escape_dir",
                    "hello.txt",
                    "image.png",
                    "inner_link",
                    "many",
                    "notes",
                    "v1.0..v2.0"
                ]
            );
            let kind = |name: &str| entries.iter().find(|e| e["name"] == name).unwrap().clone();
            assert_eq!(
                kind("hello.txt"),
                json!({"name": "hello.txt", "kind": "file", "size": 6})
            );
            assert_eq!(kind("escape_dir")["kind"], "symlink");
            assert_eq!(kind("notes")["kind"], "directory");
        }
        let r = ok(&client, "list_dir", json!({"path": "v1.0..v2.0"})).await;
        assert_eq!(
            r.structured_content.unwrap()["entries"],
            json!([{"name": "a.txt", "kind": "file", "size": 9}])
        );
    }
}

#[tokio::test]
async fn search_matches_names_within_bounds_and_roots() {
    let tree = Tree::new("search");
    let server = tree.server(false);
    let find = async |client: &TestClient, path: &str, pattern: &str| {
        let r = ok(client, "search", json!({"path": path, "pattern": pattern})).await;
        r.structured_content.unwrap()
    };
    for options in eras() {
        let client = connect(&server, options).await;
        let deep = json!([tree.at("notes/nested/deep.md")]);
        assert_eq!(find(&client, "", "deep").await["matches"], deep);
        assert_eq!(find(&client, "", "DEEP").await["matches"], deep);
        assert_eq!(find(&client, "", "*.md").await["matches"], deep);
        assert_eq!(find(&client, "notes", "*p.?d").await["matches"], deep);
        assert_eq!(
            find(&client, "", "?ello*").await["matches"],
            json!([tree.at("hello.txt")])
        );
        assert_eq!(
            find(&client, "", "..").await["matches"],
            json!([tree.at("HEAD~3..HEAD"), tree.at("v1.0..v2.0")])
        );
        // A link resolving inside is listed; links out are neither listed nor followed.
        assert_eq!(
            find(&client, "", "link").await["matches"],
            json!([tree.at("inner_link")])
        );
        for pattern in ["leak", "escape", "secret", "dangling"] {
            let found = find(&client, "", pattern).await;
            assert_eq!(found["matches"], json!([]), "{pattern}");
            assert_eq!(found["truncated"], false);
        }
        let many = find(&client, "many", "f").await;
        assert_eq!(many["matches"].as_array().unwrap().len(), 100);
        assert_eq!(many["matches"][0], tree.at("many/f000"));
        assert_eq!(many["truncated"], true);
    }
}

#[tokio::test]
async fn write_file_only_with_allow_write() {
    let tree = Tree::new("write");
    let read_only = tree.server(false);
    let writable = tree.server(true);
    for options in eras() {
        // The previous era's client wrote it.
        let _ = fs::remove_file(tree.root().join("new.txt"));
        let client = connect(&read_only, options.clone()).await;
        let attempt = client
            .call_tool("write_file", json!({"path": "new.txt", "content": "x"}))
            .await;
        assert!(
            attempt.is_err() || attempt.unwrap().is_error == Some(true),
            "write_file is not callable without --allow-write"
        );
        assert!(!tree.root().join("new.txt").exists());

        let client = connect(&writable, options).await;
        let r = ok(
            &client,
            "write_file",
            json!({"path": "new.txt", "content": "fresh"}),
        )
        .await;
        assert!(text(&r).starts_with("wrote 5 bytes to "), "{}", text(&r));
        assert_eq!(
            fs::read_to_string(tree.root().join("new.txt")).unwrap(),
            "fresh"
        );
        let nested = tree.at("notes/nested/v1.0..v2.0.md");
        ok(
            &client,
            "write_file",
            json!({"path": nested, "content": "n"}),
        )
        .await;
        assert_eq!(fs::read_to_string(&nested).unwrap(), "n");
        // Through a link that stays inside: the link's target is written.
        ok(
            &client,
            "write_file",
            json!({"path": "inner_link", "content": "hi"}),
        )
        .await;
        assert_eq!(
            fs::read_to_string(tree.root().join("hello.txt")).unwrap(),
            "hi"
        );

        let r = call(
            &client,
            "write_file",
            json!({"path": "no/such/dir.txt", "content": "x"}),
        )
        .await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).starts_with("not found: "), "{}", text(&r));

        for path in ["escape", "escape_dir/new.txt", "dangling"] {
            assert_refused(&client, "write_file", json!({"path": path, "content": "x"})).await;
        }
        assert!(!tree.base.join("created_by_link.txt").exists());
        tree.assert_outside_untouched();
    }
}

fn file_root(path: &Path) -> Root {
    Root::new(format!("file://{}", path.display()))
}

#[tokio::test]
async fn legacy_client_roots_narrow_but_never_widen() {
    let tree = Tree::new("roots");
    let server = tree.server(false);
    let read = async |roots: Vec<Root>, path: String| {
        let client = connect(&server, ClientOptions::legacy().with_roots(roots)).await;
        call(&client, "read_file", json!({"path": path})).await
    };
    let notes = file_root(&tree.root().join("notes"));
    let deep = tree.at("notes/nested/deep.md");

    // A client root inside the server's narrows it, and becomes the base of relative paths.
    let r = read(vec![notes.clone()], deep.clone()).await;
    assert_eq!(text(&r), "# deep\n");
    let r = read(vec![notes.clone()], "nested/deep.md".into()).await;
    assert_eq!(text(&r), "# deep\n");
    let r = read(vec![notes.clone()], tree.at("hello.txt")).await;
    assert!(text(&r).starts_with("path refused: "), "{}", text(&r));

    // A wider client root leaves the server's as it is.
    let wide = file_root(&tree.base);
    let r = read(vec![wide.clone()], "hello.txt".into()).await;
    assert_eq!(text(&r), "hello\n");
    let r = read(vec![wide], format!("{}/secret.txt", tree.base.display())).await;
    assert!(text(&r).starts_with("path refused: "), "{}", text(&r));

    // Disjoint, unusable or no roots: nothing is allowed.
    for roots in [
        vec![file_root(&tree.base.join("outside"))],
        vec![
            Root::new("https://example.com/"),
            Root::new("file://host/x"),
        ],
        vec![],
    ] {
        let r = read(roots.clone(), "hello.txt".into()).await;
        assert!(
            text(&r).starts_with("path refused: "),
            "{roots:?}: {}",
            text(&r)
        );
    }

    // resources/read honours them too.
    let client = connect(
        &server,
        ClientOptions::legacy().with_roots(vec![notes.clone()]),
    )
    .await;
    let e = rpc_error(
        client
            .read_resource(&format!("file://{}", tree.at("hello.txt")))
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code.0, -32602);
    let r = client
        .read_resource(&format!("file://{deep}"))
        .await
        .unwrap();
    assert_eq!(resource_json(&r)["text"], "# deep\n");

    // Modern clients are not asked: the command line's roots apply.
    let client = connect(&server, ClientOptions::modern().with_roots(vec![notes])).await;
    let r = ok(&client, "read_file", json!({"path": "hello.txt"})).await;
    assert_eq!(text(&r), "hello\n");
}

#[test]
fn command_line() {
    use clap::Parser as _;
    let tree = Tree::new("command-line");
    let (a, b) = (tree.at("a"), tree.at("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let parse = |args: &[&str]| {
        filesystem::Args::try_parse_from(std::iter::once("filesystem").chain(args.iter().copied()))
    };
    let parsed = parse(&["--allow-write", &a, "--http", "127.0.0.1:1", &b]).unwrap();
    assert!(parsed.allow_write);
    assert_eq!(parsed.common.http(), Some("127.0.0.1:1"));
    let roots: Vec<_> = parsed.roots.iter().map(|r| r.path().to_owned()).collect();
    assert_eq!(
        roots,
        [
            Path::new(&a).canonicalize().unwrap(),
            Path::new(&b).canonicalize().unwrap()
        ]
    );
    // After `--`, a name that looks like a flag is a directory (here, one that is missing).
    let e = parse(&["--", "--allow-write"]).unwrap_err().to_string();
    assert!(e.contains("--allow-write: "), "{e}");
    for bad in [
        &[][..],
        &["--allow-write"],
        &["--http"],
        &["--read-only", &a],
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
}

#[tokio::test]
async fn binary_refuses_bad_command_lines() {
    let tree = Tree::new("binary-usage");
    let missing = tree.base.join("missing").display().to_string();
    let file = tree.at("hello.txt");
    for (args, says) in [
        (vec![], "<ROOT>"),
        (vec!["--bogus".to_owned(), tree.at("")], "'--bogus'"),
        (vec![missing.clone()], &*missing),
        (vec![file.clone()], "not a directory"),
    ] {
        let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_filesystem"))
            .args(&args)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output();
        let run = tokio::time::timeout(std::time::Duration::from_secs(60), run)
            .await
            .expect("a refused command line ends at once")
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(run.stdout.is_empty(), "{args:?} wrote to stdout");
    }
}

/// The built binary over stdio: `write_file` is listed only with `--allow-write`, and
/// stdout carries nothing but protocol messages.
#[tokio::test]
async fn binary_serves_stdio() {
    let tree = Tree::new("binary-stdio");
    for (flags, expected) in [
        (&[][..], &["read_file", "list_dir", "search"][..]),
        (
            &["--allow-write"],
            &["read_file", "list_dir", "search", "write_file"],
        ),
    ] {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_filesystem"))
            .args(flags)
            .arg(tree.root())
            .env("RUST_LOG", "trace")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let messages = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"../secret.txt"}}}"#,
        ];
        stdin
            .write_all((messages.join("\n") + "\n").as_bytes())
            .await
            .unwrap();
        drop(stdin);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let replies = tokio::time::timeout(std::time::Duration::from_secs(60), async {
            let mut replies = Vec::new();
            while let Some(line) = lines.next_line().await.unwrap() {
                replies.push(serde_json::from_str::<Value>(&line).expect("stdout is JSON"));
            }
            replies
        })
        .await
        .unwrap();
        let reply = |id: i64| replies.iter().find(|r| r["id"] == id).unwrap().clone();
        let tools = reply(2)["result"]["tools"].clone();
        let names: Vec<&str> = tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, expected);
        let refused = reply(3)["result"].clone();
        assert_eq!(refused["isError"], true);
        assert!(
            refused["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("path refused: ")
        );
        assert!(child.wait().await.unwrap().success());
    }
}
