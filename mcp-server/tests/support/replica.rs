//! One instance of a server for the shared-session tests: a `hi` tool, and an endpoint
//! that shares legacy sessions through a `SessionStore`.

// Each test target uses the part it needs.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use ferromcp::Principal;
use ferromcp::http::HttpOptions;
use ferromcp::registry::tool_fn;
use ferromcp::store::SessionStore;
use ferromcp::types::Tool;
use ferromcp::{Server, ServerBuilder};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The server (its own registry, as each replica has) and its router at `/mcp`, sharing
/// `store`, re-reading a held session once its last contact is `recheck` old. A request's
/// `x-user` header becomes its principal, as an authentication layer would.
pub fn instance(store: Arc<dyn SessionStore>, recheck: Duration) -> (Server, axum::Router) {
    instance_with(store, recheck, HttpOptions::default())
}

/// [`instance`] with `options` for the rest.
pub fn instance_with(
    store: Arc<dyn SessionStore>,
    recheck: Duration,
    options: HttpOptions,
) -> (Server, axum::Router) {
    let server = ServerBuilder::new("shared-test", "1.0.0").build();
    let schema = json!({"type": "object"}).as_object().cloned().unwrap();
    server
        .registry()
        .add_tool(
            Tool::new("hi", schema),
            tool_fn(|_: Value, _| async { "hello" }),
            None,
        )
        .unwrap();
    let options = options.session_store(store).shared_session_recheck(recheck);
    let router = axum::Router::new()
        .nest_service(
            "/mcp",
            server.http_router(options, CancellationToken::new()),
        )
        .layer(axum::middleware::from_fn(
            |mut req: axum::extract::Request, next: axum::middleware::Next| async move {
                let user = req
                    .headers()
                    .get("x-user")
                    .map(|v| v.to_str().unwrap().to_owned());
                if let Some(user) = user {
                    req.extensions_mut().insert(Principal::new(user));
                }
                next.run(req).await
            },
        ));
    (server, router)
}
