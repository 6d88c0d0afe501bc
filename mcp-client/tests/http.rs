//! The client against the example servers over Streamable HTTP, in both eras: 2026-07-28
//! (stateless, `server/discover`, routing headers) and 2025 sessions (`Mcp-Session-Id`,
//! SSE answers, server-to-client requests on the answer's stream).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::{Arc, Mutex};

use common::{Roots, eras, http_example, text};
use ferromcp_client::types::{CallToolRequestParams, ClientCapabilities, RootsCapability};
use ferromcp_client::{CallOptions, Client, Error, HttpTransport, ProtocolVersion};
use serde_json::json;

#[tokio::test]
async fn quickstart_over_http_in_each_era() {
    let (_server, url) = http_example("quickstart").await;
    for (options, version) in eras() {
        let client = Client::connect_http(HttpTransport::new(&url), options)
            .await
            .unwrap();
        assert_eq!(client.protocol_version(), version);
        let tools = client.list_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "add"), "{tools:?}");
        let sum = client
            .call_tool("add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(text(&sum), "5", "{version}");
        let readme = client.read_resource("quickstart://readme").await.unwrap();
        assert_eq!(readme.contents.len(), 1);
        let e = client
            .call_tool("no_such_tool", json!({}))
            .await
            .unwrap_err();
        assert_eq!(e.rpc().map(|r| r.code.0), Some(-32602), "{version}: {e:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn everything_over_http_progress_and_roots_in_each_era() {
    let (_server, url) = http_example("everything").await;
    for (options, version) in eras() {
        let caps = ClientCapabilities {
            roots: Some(RootsCapability::default()),
            ..Default::default()
        };
        let options = options.capabilities(caps).handler(Roots("file:///srv"));
        let client = Client::connect_http(HttpTransport::new(&url), options)
            .await
            .unwrap();
        let seen = Arc::new(Mutex::new(0));
        let counter = seen.clone();
        let call = CallOptions::new().on_progress(move |_| *counter.lock().unwrap() += 1);
        let params = CallToolRequestParams::new("test_tool_with_progress");
        client.call_tool_with(params, call).await.unwrap();
        assert_eq!(*seen.lock().unwrap(), 3, "{version}");

        let roots = client
            .call_tool("test_input_required_result_list_roots", json!({}))
            .await
            .unwrap();
        assert_eq!(
            text(&roots),
            "The client has 1 roots: file:///srv",
            "{version}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn nothing_listening_is_a_connection_error() {
    // Port 9 (discard) on localhost: nothing answers HTTP there.
    let e = Client::connect_http(
        HttpTransport::new("http://127.0.0.1:9/mcp"),
        ferromcp_client::ClientOptions::new(),
    )
    .await
    .unwrap_err();
    assert!(e.is_connection(), "{e:?}");
}

#[tokio::test]
async fn a_wrong_path_is_an_http_error() {
    let (_server, url) = http_example("quickstart").await;
    let url = url.replace("/mcp", "/nope");
    let options =
        ferromcp_client::ClientOptions::new().protocol_version(ProtocolVersion::V2025_11_25);
    let e = Client::connect_http(HttpTransport::new(url), options)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Http { status: 404, .. }), "{e:?}");
}
