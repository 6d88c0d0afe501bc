//! The Skills extension (SEP-2640) over the test client, in 2026-07-28 and 2025-11-25:
//! entries and their digests, paging, `skills/get`, the files as resources, directory
//! reads, reloads, and the input that is refused.

#![cfg(all(feature = "testing", feature = "skills"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use ferromcp::Principal;
use ferromcp::error::ErrorCode;
use ferromcp::registry::{Listed, RegistryEvent};
use ferromcp::skills::{ID, Skill, Skills, SkillsError};
use ferromcp::testing::{ClientOptions, TestClient, TestClientError};
use ferromcp::{ProtocolVersion, Server, ServerBuilder};
use serde_json::json;
use sha2::{Digest, Sha256};

/// A folder of its own under the system's temporary folder, removed on drop.
struct Folder(PathBuf);

impl Folder {
    fn new() -> Folder {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("ferromcp-skills-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Folder(path)
    }

    fn write(&self, file: &str, contents: impl AsRef<[u8]>) -> &Folder {
        let path = self.0.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
        self
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const PDF: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: Apache-2.0\nmetadata:\n  version: \"2.1\"\n  reviewed: yes\n---\n\n# PDF processing\n\nSee references/FORMS.md.\n";
const FORMS: &str = "# Forms\n\nFill every field.\n";
const REFUNDS: &str =
    "---\nname: refunds\ndescription: Process refunds per company policy\n---\n\nBe kind.\n";

/// Two skills: `pdf-processing` (with a reference, a nested template folder and a binary
/// file) and `acme/billing/refunds`.
fn folder() -> Folder {
    let folder = Folder::new();
    folder
        .write("pdf-processing/SKILL.md", PDF)
        .write("pdf-processing/references/FORMS.md", FORMS)
        .write("pdf-processing/templates/regional/eu.md", "EU\n")
        .write("pdf-processing/assets/logo.bin", [0u8, 159, 146, 150])
        .write("pdf-processing/.DS_Store", "skipped")
        .write("acme/billing/refunds/SKILL.md", REFUNDS)
        .write("acme/README.md", "not in a skill: not served");
    folder
}

fn server(skills: Skills) -> Server {
    ServerBuilder::new("skills", "1.0.0")
        .extension(skills)
        .unwrap()
        .build()
}

fn eras() -> [ClientOptions; 2] {
    [
        ClientOptions::modern(),
        ClientOptions::version(ProtocolVersion::V2025_11_25),
    ]
}

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(bytes))
}

/// The JSON-RPC error `method` is answered with.
async fn refused(
    client: &TestClient,
    method: &str,
    params: serde_json::Value,
) -> (ErrorCode, String) {
    match client.request(method, Some(params)).await {
        Err(TestClientError::Rpc(e)) => (e.code, e.message),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// What `resources/directory/read` answers for `uri`.
async fn read_dir(client: &TestClient, uri: &str) -> serde_json::Value {
    client
        .request("resources/directory/read", Some(json!({ "uri": uri })))
        .await
        .unwrap()
}

/// The `uri` of each object in the array `items`.
fn uris_of(items: &serde_json::Value) -> Vec<&str> {
    let items = items.as_array().unwrap();
    items.iter().map(|i| i["uri"].as_str().unwrap()).collect()
}

/// The bytes `resources/read` serves for `uri`.
async fn read_bytes(client: &TestClient, uri: &str) -> Vec<u8> {
    let result = client
        .request("resources/read", Some(json!({ "uri": uri })))
        .await
        .unwrap();
    let content = &result["contents"][0];
    assert_eq!(content["uri"], uri);
    match (content["text"].as_str(), content["blob"].as_str()) {
        (Some(text), _) => text.as_bytes().to_vec(),
        (_, Some(blob)) => base64::engine::general_purpose::STANDARD
            .decode(blob)
            .unwrap(),
        _ => panic!("no contents: {result}"),
    }
}

#[tokio::test]
async fn entries_carry_the_front_matter_and_every_file_verified_on_read() {
    let folder = folder();
    let server = server(Skills::from_dir(folder.path()).unwrap());
    for options in eras() {
        let modern = options.protocol_version() == ProtocolVersion::V2026_07_28;
        let client = TestClient::connect(&server, options).await.unwrap();
        let list = client.request("skills/list", None).await.unwrap();
        assert_eq!(list.get("nextCursor"), None);
        assert_eq!(list.get("ttlMs").is_some(), modern, "{list}");
        assert_eq!(list.get("cacheScope").is_some(), modern, "{list}");
        let skills = list["skills"].as_array().unwrap();
        assert_eq!(
            uris_of(&list["skills"]),
            [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://pdf-processing/SKILL.md"
            ]
        );
        let pdf = &skills[1];
        assert_eq!(
            pdf["frontmatter"],
            json!({
                "name": "pdf-processing",
                "description": "Extract, fill, and assemble PDF documents",
                "license": "Apache-2.0",
                "metadata": {"version": "2.1", "reviewed": "yes"}
            })
        );
        assert_eq!(
            uris_of(&pdf["resources"]),
            [
                "skill://pdf-processing/SKILL.md",
                "skill://pdf-processing/assets/logo.bin",
                "skill://pdf-processing/references/FORMS.md",
                "skill://pdf-processing/templates/regional/eu.md",
            ]
        );
        // Verification on read: what is served is what the entry describes.
        for skill in skills {
            for resource in skill["resources"].as_array().unwrap() {
                let bytes = read_bytes(&client, resource["uri"].as_str().unwrap()).await;
                assert_eq!(resource["digest"], digest(&bytes), "{resource}");
                assert_eq!(resource["size"], bytes.len(), "{resource}");
            }
        }
        assert_eq!(
            read_bytes(&client, "skill://pdf-processing/SKILL.md").await,
            PDF.as_bytes()
        );
    }
}

#[tokio::test]
async fn the_extension_is_declared_with_resources_in_both_eras() {
    let folder = folder();
    let server = server(Skills::from_dir(folder.path()).unwrap());
    let modern = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let discover = modern.request("server/discover", None).await.unwrap();
    let legacy = TestClient::connect(
        &server,
        ClientOptions::version(ProtocolVersion::V2025_11_25),
    )
    .await
    .unwrap();
    let initialize = serde_json::to_value(legacy.initialize_result().unwrap()).unwrap();
    for capabilities in [&discover["capabilities"], &initialize["capabilities"]] {
        assert_eq!(
            capabilities["extensions"][ID],
            json!({"directoryRead": true}),
            "{capabilities}"
        );
        assert!(capabilities["resources"].is_object(), "{capabilities}");
    }
}

#[tokio::test]
async fn skill_md_is_a_listed_markdown_resource_named_from_its_front_matter() {
    let folder = folder();
    let server = server(Skills::from_dir(folder.path()).unwrap());
    for options in eras() {
        let client = TestClient::connect(&server, options).await.unwrap();
        let resources = client.list_resources().await.unwrap();
        let pdf = resources
            .iter()
            .find(|r| r.uri == "skill://pdf-processing/SKILL.md")
            .unwrap();
        assert_eq!(pdf.name, "pdf-processing");
        assert_eq!(
            pdf.description.as_deref(),
            Some("Extract, fill, and assemble PDF documents")
        );
        assert_eq!(pdf.mime_type.as_deref(), Some("text/markdown"));
        assert_eq!(pdf.size, Some(PDF.len() as u64));
        let read = client
            .read_resource("skill://pdf-processing/SKILL.md")
            .await
            .unwrap();
        let read = serde_json::to_value(read).unwrap();
        assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
        let templates = client.list_resource_templates().await.unwrap();
        assert!(
            templates
                .iter()
                .any(|t| t.uri_template == "skill://{+path}")
        );
    }
}

#[tokio::test]
async fn skills_list_pages_whole_entries_and_refuses_a_foreign_cursor() {
    let folder = folder();
    let skills = Skills::builder()
        .dir(folder.path())
        .page_size(1)
        .build()
        .unwrap();
    let server = server(skills);
    for options in eras() {
        let client = TestClient::connect(&server, options).await.unwrap();
        let first = client.request("skills/list", None).await.unwrap();
        assert_eq!(first["skills"].as_array().unwrap().len(), 1);
        let cursor = first["nextCursor"].as_str().unwrap();
        let second = client
            .request("skills/list", Some(json!({ "cursor": cursor })))
            .await
            .unwrap();
        assert_eq!(
            second["skills"][0]["uri"],
            "skill://pdf-processing/SKILL.md"
        );
        assert_eq!(
            second["skills"][0]["resources"].as_array().unwrap().len(),
            4
        );
        assert_eq!(second.get("nextCursor"), None);
        let (code, _) = refused(&client, "skills/list", json!({"cursor": "not-ours"})).await;
        assert_eq!(code, ErrorCode::INVALID_PARAMS);
    }
}

#[tokio::test]
async fn skills_get_answers_one_entry_and_minus_32602_for_anything_else() {
    let folder = folder();
    let server = server(Skills::from_dir(folder.path()).unwrap());
    for options in eras() {
        let modern = options.protocol_version() == ProtocolVersion::V2026_07_28;
        let client = TestClient::connect(&server, options).await.unwrap();
        let list = client.request("skills/list", None).await.unwrap();
        let uri = "skill://acme/billing/refunds/SKILL.md";
        let get = client
            .request("skills/get", Some(json!({ "uri": uri })))
            .await
            .unwrap();
        assert_eq!(get["skill"], list["skills"][0]);
        assert_eq!(get.get("nextCursor"), None);
        assert_eq!(get.get("ttlMs").is_some(), modern, "{get}");
        for unknown in [
            "skill://nope/SKILL.md",
            "skill://acme/billing/refunds/../refunds/SKILL.md",
            "skill://pdf-processing/references/FORMS.md",
            "skill://acme/billing",
        ] {
            let (code, message) = refused(&client, "skills/get", json!({ "uri": unknown })).await;
            assert_eq!(code, ErrorCode::INVALID_PARAMS, "{unknown}");
            assert!(message.contains("no skill is served at"), "{message}");
        }
    }
}

#[tokio::test]
async fn skills_get_and_directory_reads_refuse_overlong_uris_and_echo_little() {
    let folder = folder();
    let server = server(Skills::from_dir(folder.path()).unwrap());
    let client = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let limit = ferromcp_core::uri_template::MAX_URI_LEN;
    for method in ["skills/get", "resources/directory/read"] {
        let overlong = format!("skill://{}", "a".repeat(limit));
        let (code, message) = refused(&client, method, json!({ "uri": overlong })).await;
        assert_eq!(code, ErrorCode::INVALID_PARAMS, "{method}");
        assert_eq!(message, "the URI is too long", "{method}");
        let long = format!("skill://{}", "a".repeat(10_000));
        let (code, message) = refused(&client, method, json!({ "uri": long })).await;
        assert_eq!(code, ErrorCode::INVALID_PARAMS, "{method}");
        assert!(message.len() < 1_000, "{method}: {} bytes", message.len());
    }
}

#[tokio::test]
async fn directories_list_their_direct_children() {
    let folder = folder();
    let server = server(Skills::from_dir(folder.path()).unwrap());
    for options in eras() {
        let client = TestClient::connect(&server, options).await.unwrap();
        let root = read_dir(&client, "skill://pdf-processing").await;
        let children: Vec<_> = root["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["name"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
            .collect();
        assert_eq!(
            children,
            [
                ("SKILL.md", "text/markdown"),
                ("assets", "inode/directory"),
                ("references", "inode/directory"),
                ("templates", "inode/directory"),
            ]
        );
        let nested = read_dir(&client, "skill://pdf-processing/templates").await;
        assert_eq!(
            nested["resources"][0]["uri"],
            "skill://pdf-processing/templates/regional"
        );
        // The organizational prefix is a directory too.
        let prefix = read_dir(&client, "skill://acme/billing").await;
        assert_eq!(
            prefix["resources"][0]["uri"],
            "skill://acme/billing/refunds"
        );
        for (uri, says) in [
            (
                "skill://pdf-processing/SKILL.md",
                "is not a directory resource",
            ),
            (
                "skill://pdf-processing/nothing",
                "is not a directory this server serves",
            ),
            (
                "skill://pdf-processing/..",
                "is not a directory this server serves",
            ),
        ] {
            let (code, message) =
                refused(&client, "resources/directory/read", json!({ "uri": uri })).await;
            assert_eq!(code, ErrorCode::INVALID_PARAMS, "{uri}");
            assert!(message.contains(says), "{uri}: {message}");
        }
    }
}

/// The skills of [`folder`] and the nested `guide/chapters/intro` in code; `visible_if`
/// shows the `pdf-processing` and `intro` skills (their `SKILL.md`s) to `ops` only.
fn hiding_server() -> Server {
    let folder = folder();
    let intro = "---\nname: intro\ndescription: The introduction\n---\n";
    let guide = "---\nname: guide\ndescription: The guide\n---\n";
    let skills = Skills::builder()
        .dir(folder.path())
        .skill(Skill::new("guide", guide).unwrap())
        .skill(Skill::new("guide/chapters/intro", intro).unwrap())
        .build()
        .unwrap();
    ServerBuilder::new("skills", "1.0.0")
        .extension(skills)
        .unwrap()
        .visible_if(|item, client| match item {
            Listed::Resource(r) if r.uri.contains("pdf-processing") || r.uri.contains("intro") => {
                client.principal.is_some_and(|p| p.subject() == "ops")
            }
            _ => true,
        })
        .build()
}

/// The refusal of `method` for `uri`, with the URI in its message replaced by `<uri>`.
async fn refusal(client: &TestClient, method: &str, uri: &str) -> (ErrorCode, String) {
    let (code, message) = refused(client, method, json!({ "uri": uri })).await;
    (code, message.replace(uri, "<uri>"))
}

#[tokio::test]
async fn a_skill_hidden_from_a_client_is_as_unknown_to_it() {
    let server = hiding_server();
    for options in eras() {
        let ops = options.clone().with_principal(Principal::new("ops"));
        let client = TestClient::connect(&server, options).await.unwrap();
        let list = client.request("skills/list", None).await.unwrap();
        assert_eq!(
            uris_of(&list["skills"]),
            [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://guide/SKILL.md"
            ]
        );
        let hidden = [
            ("skills/get", "skill://pdf-processing/SKILL.md"),
            ("skills/get", "skill://guide/chapters/intro/SKILL.md"),
            ("resources/directory/read", "skill://pdf-processing"),
            (
                "resources/directory/read",
                "skill://pdf-processing/references",
            ),
            ("resources/directory/read", "skill://guide/chapters"),
            ("resources/read", "skill://pdf-processing/SKILL.md"),
            (
                "resources/read",
                "skill://pdf-processing/references/FORMS.md",
            ),
        ];
        for (method, uri) in hidden {
            let unknown = uri
                .replace("pdf-processing", "nope")
                .replace("intro", "nope");
            assert_eq!(
                refusal(&client, method, uri).await,
                refusal(&client, method, &unknown).await,
                "{method} {uri}"
            );
        }
        // The guide is shown without the files of the skill nested in it.
        let guide = json!({"uri": "skill://guide/SKILL.md"});
        let guide = client.request("skills/get", Some(guide)).await.unwrap();
        assert_eq!(guide["skill"]["resources"].as_array().unwrap().len(), 1);
        let root = read_dir(&client, "skill://guide").await;
        assert_eq!(root["resources"].as_array().unwrap().len(), 1, "{root}");
        // Whom the predicate shows it to sees it all.
        let ops = TestClient::connect(&server, ops).await.unwrap();
        let list = ops.request("skills/list", None).await.unwrap();
        assert_eq!(list["skills"].as_array().unwrap().len(), 4);
        let root = read_dir(&ops, "skill://guide").await;
        assert_eq!(root["resources"].as_array().unwrap().len(), 2, "{root}");
        let forms = "skill://pdf-processing/references/FORMS.md";
        assert_eq!(read_bytes(&ops, forms).await, FORMS.as_bytes());
    }
}

#[tokio::test]
async fn without_directory_reads_the_settings_are_empty_and_the_method_unknown() {
    let folder = folder();
    let skills = Skills::builder()
        .dir(folder.path())
        .directory_read(false)
        .build()
        .unwrap();
    let server = server(skills);
    let client = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let discover = client.request("server/discover", None).await.unwrap();
    assert_eq!(discover["capabilities"]["extensions"][ID], json!({}));
    let uri = json!({"uri": "skill://pdf-processing"});
    let (code, _) = refused(&client, "resources/directory/read", uri).await;
    assert_eq!(code, ErrorCode::METHOD_NOT_FOUND);
}

#[tokio::test]
async fn a_read_escaping_the_skill_is_refused_and_nothing_else_is_affected() {
    let folder = folder();
    let server = server(Skills::from_dir(folder.path()).unwrap());
    for options in eras() {
        let client = TestClient::connect(&server, options).await.unwrap();
        for uri in [
            "skill://pdf-processing/../../etc/passwd",
            "skill://pdf-processing/%2E%2E/%2E%2E/etc/passwd",
            "skill://pdf-processing/references/..%2F..%2FSKILL.md",
        ] {
            let (code, message) = refused(&client, "resources/read", json!({ "uri": uri })).await;
            assert_eq!(code, ErrorCode::INVALID_PARAMS, "{uri}");
            assert!(message.contains("refused"), "{uri}: {message}");
        }
        // Files outside every skill are not served.
        let error = client
            .read_resource("skill://acme/README.md")
            .await
            .unwrap_err();
        assert!(matches!(error, TestClientError::Rpc(_)));
        assert_eq!(
            read_bytes(&client, "skill://pdf-processing/references/FORMS.md").await,
            FORMS.as_bytes()
        );
    }
}

#[test]
fn skill_paths_with_dot_dot_are_refused_when_built() {
    let error = Skill::new("../refunds", REFUNDS).unwrap_err();
    assert!(error.to_string().contains("`..` segment"), "{error}");
    let skill = Skill::new("refunds", REFUNDS).unwrap();
    let error = skill.file("../../etc/passwd", "x").unwrap_err();
    assert!(matches!(error, SkillsError::Invalid { .. }), "{error}");
    let error = Skill::new("acme/other", REFUNDS).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("must be its name: found `other`"),
        "{error}"
    );
}

#[test]
fn an_oversized_file_or_skill_is_refused_with_its_size() {
    let folder = folder();
    folder.write("pdf-processing/assets/big.bin", vec![7u8; 2048]);
    let error = Skills::builder()
        .dir(folder.path())
        .max_file_size(1024)
        .build()
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("skill `pdf-processing`: file `assets/big.bin` is 2048 bytes, over the limit of 1024 bytes per file"),
        "{message}"
    );
    let error = Skills::builder()
        .dir(folder.path())
        .max_skill_size(1000)
        .build()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("over the limit of 1000 bytes per skill"),
        "{error}"
    );
}

#[test]
fn front_matter_and_names_are_checked_when_a_folder_is_loaded() {
    for (skill_md, says) in [
        ("# no front matter\n", "must begin with a `---` line"),
        (
            "---\nname: other\ndescription: d\n---\n",
            "must be its name",
        ),
        (
            "---\nname: Bad--Name\ndescription: d\n---\n",
            "breaks the naming rules",
        ),
        ("---\nname: skill\n---\n", "non-empty string `description`"),
    ] {
        let folder = Folder::new();
        folder.write("skill/SKILL.md", skill_md);
        let error = Skills::from_dir(folder.path()).unwrap_err();
        assert!(error.to_string().contains(says), "{skill_md:?}: {error}");
    }
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_folder_is_refused() {
    let outside = Folder::new();
    outside.write("secret.txt", "secret");
    let folder = folder();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        folder.path().join("pdf-processing/references/secret.txt"),
    )
    .unwrap();
    let error = Skills::from_dir(folder.path()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("leads outside the skills folder"),
        "{error}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_fifo_in_a_skill_is_refused_without_being_read() {
    let folder = folder();
    let fifo = folder.path().join("pdf-processing/references/pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Reading a FIFO with no writer blocks forever: load on a thread, so that a broken
    // loader fails the test instead of hanging it.
    let (sender, receiver) = std::sync::mpsc::channel();
    let dir = folder.path().to_owned();
    std::thread::spawn(move || sender.send(Skills::from_dir(dir).map(|_| ())));
    let loaded = receiver
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the load returns");
    let error = loaded.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`references/pipe` is neither a regular file"),
        "{error}"
    );
}

/// The URI and digest of each file `skills/get` lists for `skill://guide/SKILL.md`.
async fn guide_files(server: &Server) -> Vec<(String, String)> {
    let client = TestClient::connect(server, ClientOptions::modern())
        .await
        .unwrap();
    let get = client
        .request("skills/get", Some(json!({"uri": "skill://guide/SKILL.md"})))
        .await
        .unwrap();
    get["skill"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let text = |key: &str| r[key].as_str().unwrap().to_owned();
            (text("uri"), text("digest"))
        })
        .collect()
}

#[tokio::test]
async fn skills_built_in_code_include_their_nested_skills_files() {
    let outer = Skill::new(
        "guide",
        "---\nname: guide\ndescription: The whole guide\n---\n",
    )
    .unwrap()
    .file("notes.txt", "notes")
    .unwrap();
    let inner = Skill::new(
        "guide/chapters/intro",
        "---\nname: intro\ndescription: The introduction\n---\n",
    )
    .unwrap();
    let server = server(Skills::new([outer, inner]).unwrap());
    let files: Vec<_> = guide_files(&server)
        .await
        .into_iter()
        .map(|(uri, _)| uri)
        .collect();
    assert_eq!(
        files,
        [
            "skill://guide/SKILL.md",
            "skill://guide/chapters/intro/SKILL.md",
            "skill://guide/notes.txt",
        ]
    );
    let duplicate = Skills::new([
        Skill::new("a", "---\nname: a\ndescription: d\n---\n").unwrap(),
        Skill::new("a", "---\nname: a\ndescription: e\n---\n").unwrap(),
    ])
    .unwrap_err();
    assert!(matches!(duplicate, SkillsError::Duplicate(path) if path == "a"));
}

#[tokio::test]
async fn a_refused_duplicate_adds_nothing_to_the_skill_enclosing_it() {
    let folder = Folder::new();
    let intro = "---\nname: intro\ndescription: The introduction\n---\n";
    let skills = Skills::builder()
        .dir(folder.path())
        .skill(Skill::new("guide", "---\nname: guide\ndescription: The guide\n---\n").unwrap())
        .skill(Skill::new("guide/intro", intro).unwrap())
        .build()
        .unwrap();
    let server = server(skills.clone());
    folder
        .write(
            "guide/intro/SKILL.md",
            "---\nname: intro\ndescription: Another introduction\n---\n",
        )
        .write("guide/intro/extra.txt", "not served");
    let reload = skills.reload(&server).unwrap();
    assert!(
        matches!(&reload.refused[..], [SkillsError::Duplicate(path)] if path == "guide/intro"),
        "{:?}",
        reload.refused
    );
    let files = guide_files(&server).await;
    assert_eq!(
        files[1..],
        [(
            "skill://guide/intro/SKILL.md".to_owned(),
            digest(intro.as_bytes())
        )]
    );
}

#[tokio::test]
async fn a_reload_serves_the_folder_as_it_is_now_and_tells_clients() {
    let folder = folder();
    let skills = Skills::from_dir(folder.path()).unwrap();
    let server = server(skills.clone());
    let client = TestClient::connect(
        &server,
        ClientOptions::version(ProtocolVersion::V2025_11_25),
    )
    .await
    .unwrap();
    client
        .request(
            "resources/subscribe",
            Some(json!({"uri": "skill://pdf-processing/references/FORMS.md"})),
        )
        .await
        .unwrap();

    assert!(skills.reload(&server).unwrap().is_unchanged());

    folder
        .write(
            "notes/SKILL.md",
            "---\nname: notes\ndescription: Take notes\n---\n",
        )
        .write("pdf-processing/references/FORMS.md", "# Forms, revised\n")
        .write("broken/SKILL.md", "no front matter");
    std::fs::remove_dir_all(folder.path().join("acme")).unwrap();
    let reload = skills.reload(&server).unwrap();
    assert_eq!(reload.added, ["skill://notes/SKILL.md"]);
    assert_eq!(reload.removed, ["skill://acme/billing/refunds/SKILL.md"]);
    assert_eq!(reload.changed, ["skill://pdf-processing/SKILL.md"]);
    assert_eq!(reload.refused.len(), 1, "{:?}", reload.refused);
    assert!(reload.refused[0].to_string().starts_with("skill `broken`"));
    assert_eq!(
        skills.uris(),
        ["skill://notes/SKILL.md", "skill://pdf-processing/SKILL.md"]
    );

    // A round trip makes sure the notifications, sent before its reply, have arrived.
    client.request("ping", None).await.unwrap();
    let notifications = client.notifications();
    let methods: Vec<_> = notifications
        .iter()
        .map(|n| n["method"].as_str().unwrap())
        .collect();
    assert!(
        methods.contains(&"notifications/resources/list_changed"),
        "{methods:?}"
    );
    assert!(
        notifications
            .iter()
            .any(|n| n["method"] == "notifications/resources/updated"
                && n["params"]["uri"] == "skill://pdf-processing/references/FORMS.md"),
        "{notifications:?}"
    );
    let list = client.request("skills/list", None).await.unwrap();
    assert_eq!(list["skills"].as_array().unwrap().len(), 2);
    assert_eq!(
        read_bytes(&client, "skill://pdf-processing/references/FORMS.md").await,
        b"# Forms, revised\n"
    );
    let resources = client.list_resources().await.unwrap();
    assert!(resources.iter().any(|r| r.uri == "skill://notes/SKILL.md"));
    assert!(!resources.iter().any(|r| r.uri.starts_with("skill://acme")));
    let gone = json!({"uri": "skill://acme/billing/refunds/SKILL.md"});
    let (code, _) = refused(&client, "skills/get", gone).await;
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
}

/// The `SKILL.md` resources `server` lists.
fn listed_skills(server: &Server) -> Vec<String> {
    let definitions = server.definitions(ProtocolVersion::V2025_11_25);
    definitions.resources.into_iter().map(|r| r.uri).collect()
}

#[test]
fn a_reload_publishes_the_new_set_at_once_and_announces_it_once() {
    let folder = Folder::new();
    let write = |prefix: &str| {
        (0..20)
            .map(|i| {
                let name = format!("{prefix}{i:02}");
                let md = format!("---\nname: {name}\ndescription: d\n---\n");
                folder.write(&format!("{name}/SKILL.md"), md);
                format!("skill://{name}/SKILL.md")
            })
            .collect::<Vec<_>>()
    };
    let before = write("a");
    let skills = Skills::from_dir(folder.path()).unwrap();
    let server = server(skills.clone());
    assert_eq!(listed_skills(&server), before);
    std::fs::remove_dir_all(folder.path()).unwrap();
    let after = write("b");
    let mut events = server.registry().subscribe();
    // A reader lists the resources until the reload is over: each list it sees is the
    // whole set before or the whole set after.
    let done = std::sync::atomic::AtomicBool::new(false);
    let seen = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut seen = Vec::new();
            while !done.load(Ordering::Acquire) {
                seen.push(listed_skills(&server));
            }
            seen
        });
        let reload = skills.reload(&server).unwrap();
        assert_eq!(reload.added, after);
        done.store(true, Ordering::Release);
        reader.join().unwrap()
    });
    for list in seen {
        assert!(list == before || list == after, "a mix: {list:?}");
    }
    let mut changed = 0;
    while let Ok(event) = events.try_recv() {
        changed += usize::from(event == RegistryEvent::ResourcesChanged);
    }
    assert_eq!(changed, 1);
}

#[test]
fn a_reload_against_another_server_is_refused_and_changes_nothing() {
    let folder = folder();
    let skills = Skills::from_dir(folder.path()).unwrap();
    let _installed = server(skills.clone());
    let other = ServerBuilder::new("other", "1.0.0").build();
    let error = skills.reload(&other).unwrap_err();
    assert!(matches!(error, SkillsError::NotInstalledHere), "{error}");
    assert!(
        other
            .definitions(ProtocolVersion::V2025_11_25)
            .resources
            .is_empty()
    );
    // A clone shares the catalog, so it is refused by a second server too.
    let twice = ServerBuilder::new("twice", "1.0.0")
        .extension(skills.clone())
        .unwrap_err();
    let source = std::error::Error::source(&twice).unwrap();
    assert!(
        source.to_string().contains("installed in another server"),
        "{source}"
    );
}

#[tokio::test]
async fn a_watcher_reloads_when_the_folder_changes() {
    let folder = folder();
    let skills = Skills::from_dir(folder.path()).unwrap();
    let server = server(skills.clone());
    let mut events = server.registry().subscribe();
    let stop = ferromcp::CancellationToken::new();
    let watcher = tokio::spawn(skills.clone().watch(
        server.clone(),
        std::time::Duration::from_millis(10),
        stop.clone(),
    ));
    folder.write(
        "notes/SKILL.md",
        "---\nname: notes\ndescription: Take notes\n---\n",
    );
    // The reload adds the new skill's SKILL.md to the registry; the deadline only keeps a
    // broken watcher from hanging the test.
    let changed = tokio::time::timeout(std::time::Duration::from_secs(60), events.recv()).await;
    assert!(matches!(changed, Ok(Ok(_))), "{changed:?}");
    assert!(skills.uris().contains(&"skill://notes/SKILL.md".to_owned()));
    stop.cancel();
    watcher.await.unwrap();
}

#[tokio::test]
async fn a_watcher_with_a_zero_interval_runs_and_stops_when_cancelled() {
    let folder = folder();
    let skills = Skills::from_dir(folder.path()).unwrap();
    let server = server(skills.clone());
    let stop = ferromcp::CancellationToken::new();
    let watcher = tokio::spawn(skills.watch(server, std::time::Duration::ZERO, stop.clone()));
    tokio::task::yield_now().await;
    stop.cancel();
    // It ends (without panicking on the zero interval) once cancelled.
    watcher.await.unwrap();
}
