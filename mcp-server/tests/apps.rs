//! MCP Apps (`ferromcp::apps`): the extension declared in both eras, a UI-bound tool's
//! `_meta.ui` (from `#[tool(ui = …)]` and by hand), the `ui://` resource with its MIME type
//! and `_meta.ui`, each validated against the schema `@modelcontextprotocol/ext-apps`
//! publishes (vendored in spec/ext-apps); the text answer for clients without the
//! extension; bad URIs, missing resources and wrong MIME types refused.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ferromcp::apps::{self, Apps, AppsError, Csp, Permission, ToolUi, UiResource, Visibility};
use std::sync::Arc;

use ferromcp::error::ErrorCode;
use ferromcp::extension::{Extension, ExtensionError, Install};
use ferromcp::http::HttpOptions;
use ferromcp::prelude::*;
use ferromcp::registry::{RegistryError, resource_fn, tool_fn};
use ferromcp::testing::{ClientOptions, HttpTestClient, TestClient, TestClientError};
use ferromcp::types::Resource;
use serde_json::{Value, json};

const TABLE: &str = "ui://orders/table.html";
const PLAIN: &str = "2 open orders: #1 (3 items), #2 (1 item)";
const SHOWN: &str = "2 open orders, shown in the table";
const HTML: &str = "<!doctype html><title>Orders</title><table id=orders></table>";

struct Orders;

#[ferromcp::server(name = "orders")]
impl Orders {
    /// Lists the open orders.
    #[tool(ui = "ui://orders/table.html")]
    async fn list_orders(&self, ctx: Context) -> String {
        if apps::client_supports_apps(&ctx) {
            SHOWN.into()
        } else {
            PLAIN.into()
        }
    }

    /// Refreshes the table's rows; called by the app only.
    #[tool(ui = "ui://orders/table.html", visibility = ["app"])]
    async fn refresh_rows(&self) -> String {
        "[]".into()
    }

    /// A tool of both, with `_meta` of its own.
    #[tool(visibility = ["model", "app"], meta = json!({"com.example/rank": 1}))]
    async fn count_orders(&self) -> String {
        "2".into()
    }
}

fn table() -> UiResource {
    UiResource::html(TABLE, HTML)
        .name("Orders table")
        .csp(
            Csp::new()
                .connect_domains(["https://api.example.com"])
                .resource_domains(["https://cdn.example.com"])
                .frame_domains(["https://www.youtube.com"])
                .base_uri_domains(["https://cdn.example.com"]),
        )
        .permissions([Permission::ClipboardWrite, Permission::Camera])
        .domain("orders.example.com")
        .prefers_border(true)
}

fn server() -> Server {
    let server = Server::builder(Orders)
        .extension(Apps::new().resource(table()))
        .unwrap()
        .build()
        .unwrap();
    apps::check(server.registry()).unwrap();
    server
}

/// The schema `@modelcontextprotocol/ext-apps` publishes, definition `name`.
fn ext_apps_errors(name: &str, instance: &Value) -> Vec<String> {
    let root: Value = serde_json::from_str(include_str!("../spec/ext-apps/schema.json")).unwrap();
    let schema = json!({
        "$schema": root["$schema"],
        "$ref": format!("#/$defs/{name}"),
        "$defs": root["$defs"],
    });
    let validator = jsonschema::validator_for(&schema).unwrap();
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect()
}

fn assert_valid(name: &str, instance: &Value) {
    let errors = ext_apps_errors(name, instance);
    assert!(errors.is_empty(), "{name} {instance}: {errors:?}");
}

fn apps_client(options: ClientOptions) -> ClientOptions {
    let mut settings = serde_json::Map::new();
    settings.insert("mimeTypes".into(), json!([apps::MIME_TYPE]));
    assert_valid("McpUiClientCapabilities", &Value::Object(settings.clone()));
    options.with_extension_settings(apps::ID, settings)
}

async fn capabilities(client: &TestClient) -> Value {
    match client.initialize_result() {
        Some(init) => serde_json::to_value(&init.capabilities).unwrap(),
        None => client.request("server/discover", None).await.unwrap()["capabilities"].clone(),
    }
}

fn eras() -> [ClientOptions; 2] {
    [ClientOptions::legacy(), ClientOptions::modern()]
}

#[tokio::test]
async fn the_extension_is_declared_in_both_eras() {
    let server = server();
    for options in eras() {
        let client = TestClient::connect(&server, options).await.unwrap();
        assert_eq!(
            capabilities(&client).await["extensions"][apps::ID],
            json!({})
        );
    }
}

#[tokio::test]
async fn ui_bound_tools_carry_a_valid_meta_ui() {
    let server = server();
    for options in eras() {
        let client = TestClient::connect(&server, apps_client(options))
            .await
            .unwrap();
        let tools = client.list_tools().await.unwrap();
        let meta = |name: &str| {
            let tool = tools.iter().find(|t| t.name == name).unwrap();
            serde_json::to_value(tool.meta.as_ref().unwrap()).unwrap()
        };
        let list = meta("list_orders");
        assert_eq!(list["ui"], json!({"resourceUri": TABLE}));
        assert_eq!(list[apps::LEGACY_RESOURCE_URI_KEY], TABLE);
        let refresh = meta("refresh_rows");
        assert_eq!(
            refresh["ui"],
            json!({"resourceUri": TABLE, "visibility": ["app"]})
        );
        let count = meta("count_orders");
        assert_eq!(count["ui"], json!({"visibility": ["model", "app"]}));
        assert_eq!(count["com.example/rank"], 1);
        assert!(count.get(apps::LEGACY_RESOURCE_URI_KEY).is_none());
        for m in [list, refresh, count] {
            assert_valid("McpUiToolMeta", &m["ui"]);
        }
    }
}

#[tokio::test]
async fn the_ui_resource_is_html_for_apps_with_a_valid_meta_ui() {
    let server = server();
    let expected = json!({
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://cdn.example.com"],
            "frameDomains": ["https://www.youtube.com"],
            "baseUriDomains": ["https://cdn.example.com"],
        },
        "permissions": {"clipboardWrite": {}, "camera": {}},
        "domain": "orders.example.com",
        "prefersBorder": true,
    });
    for options in eras() {
        let client = TestClient::connect(&server, apps_client(options))
            .await
            .unwrap();
        let resources = client.list_resources().await.unwrap();
        let listed = resources.iter().find(|r| r.uri == TABLE).unwrap();
        assert_eq!(
            listed.mime_type.as_deref(),
            Some("text/html;profile=mcp-app")
        );
        assert_eq!(listed.name, "Orders table");
        let listed_ui = listed.meta.as_ref().unwrap().get("ui").unwrap();
        assert_eq!(listed_ui, &expected);
        assert_valid("McpUiResourceMeta", listed_ui);

        let read = client.read_resource(TABLE).await.unwrap();
        let contents = serde_json::to_value(&read.contents[0]).unwrap();
        assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
        assert_eq!(contents["text"], HTML);
        assert_eq!(contents["_meta"]["ui"], expected);
        assert_valid("McpUiResourceMeta", &contents["_meta"]["ui"]);
    }
}

#[tokio::test]
async fn a_minimal_resource_has_an_empty_valid_meta_ui() {
    let resource = UiResource::html("ui://x/y.html", HTML);
    assert_eq!(resource.to_meta(), json!({}));
    assert_valid("McpUiResourceMeta", &resource.to_meta());
}

#[tokio::test]
async fn clients_without_the_extension_get_the_text() {
    let server = server();
    for options in eras() {
        let with = TestClient::connect(&server, apps_client(options.clone()))
            .await
            .unwrap();
        let shown = with.call_tool("list_orders", json!({})).await.unwrap();
        assert_eq!(shown.content[0].as_text(), Some(SHOWN));

        let without = TestClient::connect(&server, options.clone()).await.unwrap();
        let plain = without.call_tool("list_orders", json!({})).await.unwrap();
        assert_eq!(plain.content[0].as_text(), Some(PLAIN));

        // A client declaring the extension for other MIME types only cannot render ours.
        let mut other = serde_json::Map::new();
        other.insert("mimeTypes".into(), json!(["text/uri-list"]));
        let elsewhere =
            TestClient::connect(&server, options.with_extension_settings(apps::ID, other))
                .await
                .unwrap();
        let plain = elsewhere.call_tool("list_orders", json!({})).await.unwrap();
        assert_eq!(plain.content[0].as_text(), Some(PLAIN));
    }
}

fn failure(error: ExtensionError) -> String {
    match error {
        ExtensionError::Failed(source) => source.to_string(),
        other => panic!("expected Failed, got {other:?}"),
    }
}

#[test]
fn a_resource_uri_without_the_ui_scheme_is_refused() {
    let error = ServerBuilder::new("s", "1")
        .extension(Apps::new().resource(UiResource::html("https://example.com/t.html", HTML)))
        .unwrap_err();
    assert_eq!(
        failure(error),
        "`https://example.com/t.html` is not a ui:// URI: an app's resource is named `ui://…`"
    );
}

#[test]
fn an_unreadable_html_file_is_refused() {
    let error = ServerBuilder::new("s", "1")
        .extension(Apps::new().resource(UiResource::file(TABLE, "/nonexistent/table.html")))
        .unwrap_err();
    assert!(failure(error).starts_with("the HTML of `ui://orders/table.html` could not be read"));
}

#[tokio::test]
async fn an_html_file_is_served() {
    let dir = std::env::temp_dir().join(format!("ferromcp-apps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("table.html");
    let html = format!("{HTML}<!-- from {} -->", path.display());
    std::fs::write(&path, &html).unwrap();
    let server = Server::builder(Orders)
        .extension(Apps::new().resource(UiResource::file(TABLE, &path)))
        .unwrap()
        .build()
        .unwrap();
    // Read once, at install: the file may go.
    std::fs::remove_dir_all(&dir).unwrap();
    let client = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let read = client.read_resource(TABLE).await.unwrap();
    let contents = serde_json::to_value(&read.contents[0]).unwrap();
    assert_eq!(contents["text"], html);
}

#[tokio::test]
async fn html_built_at_run_time_is_served() {
    let html = format!("{HTML}<p>{}</p>", 2 + 2);
    let server = Server::builder(Orders)
        .extension(Apps::new().resource(UiResource::html(TABLE, html.clone())))
        .unwrap()
        .build()
        .unwrap();
    let client = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let read = client.read_resource(TABLE).await.unwrap();
    let contents = serde_json::to_value(&read.contents[0]).unwrap();
    assert_eq!(contents["text"], html);
}

#[test]
fn a_tool_pointing_at_a_missing_resource_is_refused() {
    // The `#[server]` type's tools are registered by `build`, which then runs the check.
    let error = Server::builder(Orders)
        .extension(Apps::new())
        .unwrap()
        .build()
        .unwrap_err();
    assert_eq!(
        error,
        RegistryError::Extension {
            id: apps::ID.into(),
            message: "tool `list_orders` points at `ui://orders/table.html`, which is not a registered resource".into(),
        }
    );
    // The same check, by hand, on a registry filled after `build`.
    let server = ServerBuilder::new("s", "1").build();
    let mut tool = ferromcp::types::Tool::new("list_orders", Default::default());
    ToolUi::new(TABLE).apply(&mut tool);
    server
        .registry()
        .add_tool(tool, tool_fn(|_: Value, _ctx| async { "t" }), None)
        .unwrap();
    let error = apps::check(server.registry()).unwrap_err();
    assert!(matches!(error, AppsError::MissingResource { .. }));

    // A tool registered before the extension (by another one) is checked when it is
    // installed.
    let error = ServerBuilder::new("s", "1")
        .extension(Panel)
        .unwrap()
        .extension(Apps::new())
        .unwrap_err();
    assert_eq!(
        failure(error),
        "tool `panel` points at `ui://elsewhere/x.html`, which is not a registered resource"
    );
}

/// A third-party extension adding a tool bound to a UI no one registers.
struct Panel;

impl Extension for Panel {
    fn id(&self) -> &str {
        "com.example/panel"
    }

    fn install(self: Arc<Self>, install: &mut Install<'_>) -> Result<(), ExtensionError> {
        let mut tool = ferromcp::types::Tool::new("panel", Default::default());
        ToolUi::new("ui://elsewhere/x.html").apply(&mut tool);
        install
            .registry()
            .add_tool(tool, tool_fn(|_: Value, _ctx| async { "p" }), None)?;
        Ok(())
    }
}

#[test]
fn a_tool_pointing_at_a_resource_of_another_mime_type_is_refused() {
    let server = ServerBuilder::new("s", "1").build();
    let mut resource = Resource::new(TABLE, "table");
    resource.mime_type = Some("text/html".into());
    server
        .registry()
        .add_resource(
            resource,
            resource_fn(Some("text/html"), |_, _, _| async { HTML }),
        )
        .unwrap();
    let mut tool = ferromcp::types::Tool::new("t", Default::default());
    ToolUi::new(TABLE)
        .visibility([Visibility::Model])
        .apply(&mut tool);
    server
        .registry()
        .add_tool(tool, tool_fn(|_: Value, _ctx| async { "t" }), None)
        .unwrap();
    let error = apps::check(server.registry()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `t` points at `ui://orders/table.html`, served as `text/html`: an app is served as `text/html;profile=mcp-app`"
    );
}

#[test]
fn a_tool_pointing_at_a_non_ui_uri_is_refused() {
    let server = ServerBuilder::new("s", "1").build();
    let mut tool = ferromcp::types::Tool::new("t", Default::default());
    ToolUi::new("https://example.com/t.html").apply(&mut tool);
    server
        .registry()
        .add_tool(tool, tool_fn(|_: Value, _ctx| async { "t" }), None)
        .unwrap();
    assert!(matches!(
        apps::check(server.registry()),
        Err(AppsError::NotUiUri(uri)) if uri == "https://example.com/t.html"
    ));
}

#[test]
fn a_duplicate_resource_uri_is_a_registry_error() {
    let error = ServerBuilder::new("s", "1")
        .extension(Apps::new().resource(table()).resource(table()))
        .unwrap_err();
    assert!(matches!(error, ExtensionError::Registry(_)), "{error:?}");
}

#[tokio::test]
async fn malformed_client_settings_read_as_no_apps() {
    let server = server();
    for options in eras() {
        // `mimeTypes` that is not a list: no view, the text, and the session goes on.
        let mut odd = serde_json::Map::new();
        odd.insert("mimeTypes".into(), json!(apps::MIME_TYPE));
        assert!(
            !ext_apps_errors("McpUiClientCapabilities", &Value::Object(odd.clone())).is_empty()
        );
        let client = TestClient::connect(
            &server,
            options.clone().with_extension_settings(apps::ID, odd),
        )
        .await
        .unwrap();
        let plain = client.call_tool("list_orders", json!({})).await.unwrap();
        assert_eq!(plain.content[0].as_text(), Some(PLAIN));
        assert_eq!(client.list_tools().await.unwrap().len(), 3);

        // Settings of `{}` (no MIME types listed): taken as supporting apps.
        let bare = TestClient::connect(&server, options.with_extension(apps::ID))
            .await
            .unwrap();
        let shown = bare.call_tool("list_orders", json!({})).await.unwrap();
        assert_eq!(shown.content[0].as_text(), Some(SHOWN));
    }
}

/// `ui://` resources are static: a read of any other `ui://` URI — one that climbs out of
/// the app's folder with `..` (raw or percent-encoded), an absolute path, a file beside
/// the app's HTML on disk — is "resource not found" with the era's code and the URI as
/// sent, and the session goes on serving the app.
#[tokio::test]
async fn a_ui_uri_escaping_the_apps_folder_is_not_found_and_the_session_goes_on() {
    let dir = std::env::temp_dir().join(format!("ferromcp-apps-escape-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("orders")).unwrap();
    std::fs::write(dir.join("orders/table.html"), HTML).unwrap();
    std::fs::write(dir.join("orders/secret.txt"), "secret").unwrap();
    std::fs::write(dir.join("secret.txt"), "secret").unwrap();
    let server = Server::builder(Orders)
        .extension(Apps::new().resource(UiResource::file(TABLE, dir.join("orders/table.html"))))
        .unwrap()
        .build()
        .unwrap();
    let absolute = format!("ui://{}", dir.join("secret.txt").display());
    for (options, code) in [
        (ClientOptions::legacy(), ErrorCode::RESOURCE_NOT_FOUND),
        (ClientOptions::modern(), ErrorCode::INVALID_PARAMS),
    ] {
        let client = TestClient::connect(&server, apps_client(options))
            .await
            .unwrap();
        for uri in [
            "ui://orders/secret.txt",
            "ui://orders/../secret.txt",
            "ui://orders/%2e%2e/secret.txt",
            "ui://orders/%2E%2E%2Fsecret.txt",
            "ui://orders/table.html/../../../etc/passwd",
            "ui://orders/./table.html",
            "ui:///etc/passwd",
            absolute.as_str(),
        ] {
            let error = match client.read_resource(uri).await {
                Err(TestClientError::Rpc(e)) => e,
                other => panic!("{uri}: expected a JSON-RPC error, got {other:?}"),
            };
            assert_eq!(error.code, code, "{uri}");
            assert_eq!(error.message, format!("resource not found: {uri}"));
            assert_eq!(error.data.unwrap()["uri"], uri);
        }
        let read = client.read_resource(TABLE).await.unwrap();
        assert_eq!(
            serde_json::to_value(&read.contents[0]).unwrap()["text"],
            HTML
        );
        let shown = client.call_tool("list_orders", json!({})).await.unwrap();
        assert_eq!(shown.content[0].as_text(), Some(SHOWN));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The text `answer` carries, or a panic naming what it carries instead.
fn answer_text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text result: {answer}"))
}

/// A 2025-11-25 `initialize` with `capabilities`, and a 2026 `list_orders` call with them
/// in its envelope.
fn handshakes(capabilities: &Value) -> (Value, Value) {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "odd", "version": "1"},
    }});
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "list_orders",
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "odd", "version": "1"},
        },
    }});
    (initialize, call)
}

/// Over HTTP, in both eras: settings that are an object of the wrong shape read as no apps
/// (the text, no error); settings that are not an object, and capabilities that are not an
/// object, are refused with -32602 naming what was wrong, and the client's next, good
/// request is served.
#[tokio::test]
async fn a_malformed_apps_declaration_gets_the_text_or_a_clear_error_and_nothing_breaks() {
    let server = server();
    let endpoint = server.http_router(HttpOptions::default(), ferromcp::CancellationToken::new());
    let router = axum::Router::new().nest_service("/mcp", endpoint);
    let (initialize, call) =
        handshakes(&json!({"extensions": {apps::ID: {"mimeTypes": [5, null]}}}));
    let legacy = HttpTestClient::new(router.clone(), ClientOptions::legacy());
    let init = legacy.post(&initialize).await.message();
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    legacy
        .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let mut legacy_call = call.clone();
    legacy_call["params"]["_meta"] = json!({});
    let answer = legacy.post(&legacy_call).await.message();
    assert_eq!(answer_text(&answer), PLAIN);
    let modern = HttpTestClient::new(router.clone(), ClientOptions::modern());
    let answer = modern.post(&call).await.message();
    assert_eq!(answer_text(&answer), PLAIN);

    for (settings, kind) in [(json!(null), "null"), (json!([]), "an array")] {
        let named = format!("the settings of extension `{}` must be an object", apps::ID);
        let (initialize, call) = handshakes(&json!({"extensions": {apps::ID: settings}}));
        let legacy = HttpTestClient::new(router.clone(), apps_client(ClientOptions::legacy()));
        let modern = HttpTestClient::new(router.clone(), apps_client(ClientOptions::modern()));
        for refused in [
            legacy.post(&initialize).await.message(),
            modern.post(&call).await.message(),
        ] {
            assert_eq!(refused["error"]["code"], -32602, "{refused}");
            let message = refused["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(&named) && message.contains(&format!("not {kind}")),
                "{message}"
            );
        }
        let client = legacy.connect().await.unwrap();
        let shown = client.call_tool("list_orders", json!({})).await.unwrap();
        assert_eq!(shown.content[0].as_text(), Some(SHOWN));
    }

    let (initialize, call) = handshakes(&json!("apps"));
    let legacy = HttpTestClient::new(router.clone(), apps_client(ClientOptions::legacy()));
    let refused = legacy.post(&initialize).await.message();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("expected struct ClientCapabilities"),
        "{message}"
    );
    let client = legacy.connect().await.unwrap();
    let shown = client.call_tool("list_orders", json!({})).await.unwrap();
    assert_eq!(shown.content[0].as_text(), Some(SHOWN));

    let modern = HttpTestClient::new(router, apps_client(ClientOptions::modern()));
    let refused = modern.post(&call).await.message();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("invalid `_meta`:"), "{message}");
    assert!(
        message.contains("expected struct ClientCapabilities"),
        "{message}"
    );
    let answer = modern
        .send_request(
            "tools/call",
            Some(json!({"name": "list_orders", "arguments": {}})),
        )
        .await
        .message();
    assert_eq!(answer_text(&answer), SHOWN);
}
