//! Lifecycle hooks (`ServerBuilder::hooks`): the handshake's answer adjusted per client, in
//! both eras.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ferromcp::hooks::{ClientView, Handshake, Hooks};
use ferromcp::testing::{ClientOptions, TestClient};
use ferromcp::{Era, ServerBuilder};
use serde_json::json;

struct ByClient;

impl Hooks for ByClient {
    fn on_initialize(&self, client: &ClientView<'_>, answer: &mut Handshake<'_>) {
        let name = client.info.map_or("nobody", |i| i.name.as_str());
        *answer.instructions = Some(format!("hello, {name} ({:?})", client.version.era()));
        answer.extra.insert("x-greeted".into(), json!(name));
        if let Some(info) = answer.server_info.as_deref_mut() {
            info.title = Some("Greeter".into());
        }
    }
}

#[tokio::test]
async fn on_initialize_adjusts_initialize_and_discover_per_client() {
    let server = ServerBuilder::new("hooked", "1.0.0")
        .instructions("the default")
        .hooks(ByClient)
        .build();

    let legacy = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let init = legacy.initialize_result().unwrap();
    assert_eq!(
        init.instructions.as_deref(),
        Some("hello, ferromcp-testing (Legacy)")
    );
    assert_eq!(init.capabilities.extra["x-greeted"], "ferromcp-testing");
    assert_eq!(init.server_info.title.as_deref(), Some("Greeter"));
    // The version is still the one agreed on.
    assert_eq!(init.protocol_version, "2025-11-25");

    let modern = TestClient::connect(&server, ClientOptions::modern())
        .await
        .unwrap();
    let discover = modern.request("server/discover", None).await.unwrap();
    assert_eq!(
        discover["instructions"],
        format!("hello, ferromcp-testing ({:?})", Era::Modern)
    );
    assert_eq!(discover["capabilities"]["x-greeted"], "ferromcp-testing");
}

#[tokio::test]
async fn without_hooks_the_answer_is_the_configured_one() {
    let server = ServerBuilder::new("plain", "1.0.0")
        .instructions("the default")
        .build();
    let legacy = TestClient::connect(&server, ClientOptions::legacy())
        .await
        .unwrap();
    let init = legacy.initialize_result().unwrap();
    assert_eq!(init.instructions.as_deref(), Some("the default"));
}
