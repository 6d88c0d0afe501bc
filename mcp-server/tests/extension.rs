//! Extensions (`ServerBuilder::extension`): a third-party extension declares itself in the
//! capabilities of both eras and adds a custom method and a tool through the server's own
//! paths, over stdio and Streamable HTTP; what the client declared reaches handlers and hooks;
//! bad identifiers and clashes are refused when the server is built.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support {
    pub mod lists;
}

use std::sync::Arc;

use ferromcp::custom::{MethodError, method_fn};
use ferromcp::error::ErrorObject;
use ferromcp::extension::{Extension, ExtensionError, Install};
use ferromcp::hooks::{ClientView, Handshake, Hooks};
use ferromcp::http::HttpOptions;
use ferromcp::registry::{RegistryError, tool_fn};
use ferromcp::testing::{ClientOptions, HttpTestClient, TestClient};
use ferromcp::types::{JSONObject, Tool};
use ferromcp::{CancellationToken, Context, ProtocolVersion, Server, ServerBuilder};
use serde_json::{Value, json};
use support::lists::tool_names;

const ECHO: &str = "com.example/echo";

fn object(value: Value) -> JSONObject {
    value.as_object().cloned().unwrap()
}

/// `com.example/echo`, written as a third party would: a custom method that echoes its
/// text with what the client declared, and a tool that shouts for clients that declared
/// the extension. It declares `{"prefix": …}`, from 2025-06-18 on.
struct Echo {
    prefix: String,
}

#[derive(serde::Deserialize)]
struct EchoParams {
    text: String,
}

impl Extension for Echo {
    fn id(&self) -> &str {
        ECHO
    }

    fn settings(&self, version: ProtocolVersion) -> Option<JSONObject> {
        (version >= ProtocolVersion::V2025_06_18).then(|| object(json!({"prefix": self.prefix})))
    }

    fn install(self: Arc<Self>, install: &mut Install<'_>) -> Result<(), ExtensionError> {
        assert_eq!(install.id(), ECHO);
        let this = self.clone();
        install.method(
            "com.example/echo",
            method_fn(move |p: EchoParams, ctx: Context| {
                let prefix = this.prefix.clone();
                async move {
                    Ok::<_, ErrorObject>(json!({
                        "echo": format!("{prefix}{}", p.text),
                        "client": ctx.client_extension(ECHO),
                    }))
                }
            }),
        )?;
        install.registry().add_tool(
            Tool::new("shout", object(json!({"type": "object"}))),
            tool_fn(|_: Value, ctx: Context| async move {
                if ctx.client_supports(ECHO) {
                    "HELLO"
                } else {
                    "hello"
                }
            }),
            None,
        )?;
        Ok(())
    }
}

fn echo() -> Echo {
    Echo {
        prefix: "> ".into(),
    }
}

fn server() -> Server {
    ServerBuilder::new("ext", "1.0.0")
        .extension(echo())
        .unwrap()
        .build()
}

/// Every way a client reaches the server: stdio and HTTP, 2025-11-25 and 2026-07-28.
async fn clients(server: &Server, declare: Option<JSONObject>) -> Vec<(&'static str, TestClient)> {
    let options = |o: ClientOptions| match &declare {
        Some(settings) => o.with_extension_settings(ECHO, settings.clone()),
        None => o,
    };
    let router = || {
        let endpoint = server.http_router(HttpOptions::default(), CancellationToken::new());
        axum::Router::new().nest_service("/mcp", endpoint)
    };
    let mut clients = Vec::new();
    for (how, o) in [
        ("stdio 2025-11-25", ClientOptions::legacy()),
        ("stdio 2026", ClientOptions::modern()),
    ] {
        clients.push((how, TestClient::connect(server, options(o)).await.unwrap()));
    }
    for (how, o) in [
        ("http 2025-11-25", ClientOptions::legacy()),
        ("http 2026", ClientOptions::modern()),
    ] {
        let client = HttpTestClient::new(router(), options(o));
        clients.push((how, client.connect().await.unwrap()));
    }
    clients
}

/// The capabilities the server declared to `client`: `initialize`'s (2025) or
/// `server/discover`'s (2026).
async fn declared(client: &TestClient) -> Value {
    match client.initialize_result() {
        Some(init) => serde_json::to_value(&init.capabilities).unwrap(),
        None => client.request("server/discover", None).await.unwrap()["capabilities"].clone(),
    }
}

#[tokio::test]
async fn the_extension_is_declared_with_its_settings_in_both_eras() {
    let server = server();
    for (how, client) in clients(&server, None).await {
        let caps = declared(&client).await;
        assert_eq!(
            caps["extensions"],
            json!({ECHO: {"prefix": "> "}}),
            "{how}: {caps}"
        );
    }
}

#[tokio::test]
async fn the_settings_follow_the_revision_and_2024_11_05_gets_no_extensions() {
    let server = server();
    for (version, expected) in [
        (ProtocolVersion::V2024_11_05, None),
        // `Echo` declines to declare itself to 2025-03-26.
        (ProtocolVersion::V2025_03_26, None),
        (
            ProtocolVersion::V2025_06_18,
            Some(json!({ECHO: {"prefix": "> "}})),
        ),
    ] {
        let client = TestClient::connect(&server, ClientOptions::version(version))
            .await
            .unwrap();
        let caps = declared(&client).await;
        assert_eq!(
            caps.get("extensions"),
            expected.as_ref(),
            "{version}: {caps}"
        );
    }
}

#[tokio::test]
async fn the_extensions_method_and_tool_answer_over_every_transport_and_era() {
    let server = server();
    let settings = object(json!({"color": "blue"}));
    for (how, client) in clients(&server, Some(settings.clone())).await {
        let answer = client
            .request("com.example/echo", Some(json!({"text": "hi"})))
            .await
            .unwrap_or_else(|e| panic!("{how}: {e:?}"));
        assert_eq!(answer["echo"], "> hi", "{how}");
        assert_eq!(answer["client"], Value::Object(settings.clone()), "{how}");
        let shout = client.call_tool("shout", json!({})).await.unwrap();
        assert_eq!(shout.content[0].as_text(), Some("HELLO"), "{how}");
    }
}

#[tokio::test]
async fn a_client_that_did_not_declare_the_extension_gets_the_plain_answer() {
    let server = server();
    for (how, client) in clients(&server, None).await {
        let answer = client
            .request("com.example/echo", Some(json!({"text": "hi"})))
            .await
            .unwrap();
        assert_eq!(answer["client"], Value::Null, "{how}");
        let shout = client.call_tool("shout", json!({})).await.unwrap();
        assert_eq!(shout.content[0].as_text(), Some("hello"), "{how}");
    }
}

/// The tool of an extension is an ordinary tool: listed with the server's own.
#[tokio::test]
async fn the_extensions_tool_is_listed_with_the_servers_own() {
    let server = server();
    let schema = object(json!({"type": "object"}));
    server
        .registry()
        .add_tool(
            Tool::new("own", schema),
            tool_fn(|_: Value, _| async { "own" }),
            None,
        )
        .unwrap();
    for (how, client) in clients(&server, None).await {
        assert_eq!(tool_names(&client).await, ["shout", "own"], "{how}");
    }
}

/// Settings that are not an object: the handshake (2025) or request (2026) that carries
/// them is refused with -32602 naming the extension, and the same client's next, good one
/// is served.
#[tokio::test]
async fn malformed_client_settings_are_refused_and_break_nothing() {
    let server = server();
    let endpoint = server.http_router(HttpOptions::default(), CancellationToken::new());
    let router = axum::Router::new().nest_service("/mcp", endpoint);
    let malformed = json!({"extensions": {ECHO: "yes", "com.example/other": {}}, "roots": {}});
    let named = "the settings of extension `com.example/echo` must be an object (`{}` for none), not a string";
    let refused = |answer: &serde_json::Value| {
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(named), "{message}");
    };

    let legacy = HttpTestClient::new(router.clone(), ClientOptions::legacy());
    let init = legacy
        .post(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": malformed,
                "clientInfo": {"name": "odd", "version": "1"},
            }}),
        )
        .await;
    refused(&init.message());
    let client = legacy.connect().await.unwrap();
    let answer = client.call_tool("shout", json!({})).await.unwrap();
    assert_eq!(answer.content[0].as_text(), Some("hello"));

    let modern = HttpTestClient::new(router, ClientOptions::modern());
    let mut call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "shout", "arguments": {}}});
    call["params"]["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": malformed,
        "io.modelcontextprotocol/clientInfo": {"name": "odd", "version": "1"},
    });
    refused(&modern.post(&call).await.message());
    let answer = modern
        .send_request(
            "tools/call",
            Some(json!({"name": "shout", "arguments": {}})),
        )
        .await
        .message();
    assert_eq!(answer["result"]["content"][0]["text"], "hello", "{answer}");
}

/// A hook sees what the client declared through `ClientView::extension`.
#[tokio::test]
async fn a_hook_reads_the_clients_declaration() {
    struct Hint;

    impl Hooks for Hint {
        fn on_initialize(&self, client: &ClientView<'_>, answer: &mut Handshake<'_>) {
            let color = client.extension(ECHO).and_then(|s| s.get("color"));
            *answer.instructions = Some(format!("color: {color:?}"));
        }
    }

    let server = ServerBuilder::new("ext", "1.0.0")
        .extension(echo())
        .unwrap()
        .hooks(Hint)
        .build();
    let settings = object(json!({"color": "blue"}));
    for (how, client) in clients(&server, Some(settings)).await {
        let instructions = match client.initialize_result() {
            Some(init) => init.instructions.clone().unwrap(),
            None => {
                let discover = client.request("server/discover", None).await.unwrap();
                discover["instructions"].as_str().unwrap().to_owned()
            }
        };
        assert_eq!(instructions, r#"color: Some(String("blue"))"#, "{how}");
    }
}

/// The tasks extension and installed ones share `capabilities.extensions` in 2026; in 2025
/// tasks keep their own member.
#[tokio::test]
async fn tasks_and_installed_extensions_are_declared_together() {
    let server = server();
    let tool: Tool = serde_json::from_value(json!({
        "name": "slow", "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "optional"}
    }))
    .unwrap();
    server
        .registry()
        .add_tool(tool, tool_fn(|_: Value, _| async { "done" }), None)
        .unwrap();
    let modern = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let caps = declared(&modern).await;
    assert_eq!(
        caps["extensions"],
        json!({ECHO: {"prefix": "> "}, "io.modelcontextprotocol/tasks": {}}),
        "{caps}"
    );
    let legacy = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let caps = declared(&legacy).await;
    assert_eq!(
        caps["extensions"],
        json!({ECHO: {"prefix": "> "}}),
        "{caps}"
    );
    assert!(caps["tasks"].is_object(), "{caps}");
}

struct Named(&'static str);

impl Extension for Named {
    fn id(&self) -> &str {
        self.0
    }
}

#[test]
fn invalid_duplicate_and_reserved_ids_are_refused() {
    for bad in [
        "echo",
        "example/echo",
        "com.example/",
        "com.example/a/b",
        "",
    ] {
        let err = ServerBuilder::new("ext", "1.0.0")
            .extension(Named(bad))
            .unwrap_err();
        assert!(
            matches!(&err, ExtensionError::InvalidId(id) if id == bad),
            "{bad}: {err:?}"
        );
        assert!(err.to_string().contains("vendor-prefix/name"), "{err}");
    }
    let err = ServerBuilder::new("ext", "1.0.0")
        .extension(echo())
        .unwrap()
        .extension(Named(ECHO))
        .unwrap_err();
    assert!(
        matches!(&err, ExtensionError::Duplicate(id) if id == ECHO),
        "{err:?}"
    );
    let err = ServerBuilder::new("ext", "1.0.0")
        .extension(Named("io.modelcontextprotocol/tasks"))
        .unwrap_err();
    assert!(matches!(err, ExtensionError::Reserved(_)), "{err:?}");
}

#[test]
fn a_method_or_tool_taken_already_is_refused_when_the_extension_is_installed() {
    let own = method_fn(|(): (), _ctx: Context| async { Ok::<_, ErrorObject>(json!({})) });
    let err = ServerBuilder::new("ext", "1.0.0")
        .method("com.example/echo", own)
        .unwrap()
        .extension(echo())
        .unwrap_err();
    assert!(
        matches!(&err, ExtensionError::Method(MethodError::Duplicate(m)) if m == "com.example/echo"),
        "{err:?}"
    );

    /// Another extension with a tool of the same name.
    struct Shout;

    impl Extension for Shout {
        fn id(&self) -> &str {
            "org.other/shout"
        }

        fn install(self: Arc<Self>, install: &mut Install<'_>) -> Result<(), ExtensionError> {
            install.registry().add_tool(
                Tool::new("shout", object(json!({"type": "object"}))),
                tool_fn(|_: Value, _| async { "!" }),
                None,
            )?;
            Ok(())
        }
    }

    let err = ServerBuilder::new("ext", "1.0.0")
        .extension(echo())
        .unwrap()
        .extension(Shout)
        .unwrap_err();
    assert!(
        matches!(&err, ExtensionError::Registry(RegistryError::DuplicateTool(t)) if t == "shout"),
        "{err:?}"
    );
}

/// What the server sends with an extension installed is what every revision's official
/// schema accepts: `capabilities.extensions` in the 2025 revisions is a member their
/// schemas allow, and 2024-11-05 (checked strictly) gets none.
#[tokio::test]
async fn every_revisions_handshake_and_lists_conform_with_an_extension() {
    ferromcp::testing::assert_conformant(&server()).await;
}

#[test]
fn an_extensions_own_failure_is_reported_with_its_cause() {
    struct Broken;

    impl Extension for Broken {
        fn id(&self) -> &str {
            "com.example/broken"
        }

        fn install(self: Arc<Self>, _install: &mut Install<'_>) -> Result<(), ExtensionError> {
            let missing = std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder");
            Err(ExtensionError::Failed(missing.into()))
        }
    }

    let err = ServerBuilder::new("ext", "1.0.0")
        .extension(Broken)
        .unwrap_err();
    assert_eq!(err.to_string(), "the extension could not be installed");
    let cause = std::error::Error::source(&err).unwrap();
    assert_eq!(cause.to_string(), "no such folder");
}

/// A 2024-11-05 client cannot have meant an extension (its revision has none, and the
/// server declared none to it): what it sends there is not read as a declaration.
#[tokio::test]
async fn a_2024_11_05_clients_declaration_is_not_read() {
    let server = server();
    let options = ClientOptions::version(ProtocolVersion::V2024_11_05)
        .with_extension_settings(ECHO, object(json!({"color": "blue"})));
    let client = TestClient::connect(&server, options).await.unwrap();
    let answer = client
        .request("com.example/echo", Some(json!({"text": "hi"})))
        .await
        .unwrap();
    assert_eq!(answer["client"], Value::Null, "{answer}");
    let shout = client.call_tool("shout", json!({})).await.unwrap();
    assert_eq!(shout.content[0].as_text(), Some("hello"));
}
