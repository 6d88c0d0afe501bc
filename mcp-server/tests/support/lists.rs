//! What a test client is offered, reduced to what the tests compare.

// Each test target uses the part it needs.
#![allow(dead_code)]

use ferromcp::testing::TestClient;

/// The names of the tools `client` lists, in the order listed, every page followed.
pub async fn tool_names(client: &TestClient) -> Vec<String> {
    let tools = client.list_tools().await.unwrap();
    tools.into_iter().map(|t| t.name).collect()
}
