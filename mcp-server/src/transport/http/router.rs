//! The endpoint's axum router: the check layers around its three handlers.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use http::Request;

use super::endpoint::Endpoint;
use super::layers::{BodyLimitLayer, HostOriginLayer, MediaTypeLayer};

impl Endpoint {
    /// The endpoint at `/`: Host/Origin guard, then body limit, then media type, then the
    /// handlers.
    pub(crate) fn router(self: &Arc<Self>) -> Router {
        self.routes().layer(self.guard())
    }

    /// The endpoint without its Host/Origin guard, for a server that puts the guard in
    /// front of everything else it does (`serve_http*`: before authentication).
    pub(crate) fn routes(self: &Arc<Self>) -> Router {
        if tokio::runtime::Handle::try_current().is_ok() {
            self.ensure_bus();
        }
        Router::new()
            .route("/", post(handle_post).get(handle_get).delete(handle_delete))
            .layer(MediaTypeLayer::new())
            .layer(BodyLimitLayer::new(self.options.max_body_size))
            .with_state(self.clone())
    }

    /// The Host/Origin guard of these options.
    pub(crate) fn guard(&self) -> HostOriginLayer {
        HostOriginLayer::new(self.options.hosts.clone(), self.options.origins.clone())
    }
}

async fn handle_post(State(endpoint): State<Arc<Endpoint>>, request: Request<Body>) -> Response {
    endpoint.ensure_bus();
    endpoint.post(request).await
}

async fn handle_get(State(endpoint): State<Arc<Endpoint>>, request: Request<Body>) -> Response {
    endpoint.ensure_bus();
    endpoint.get(request).await
}

async fn handle_delete(State(endpoint): State<Arc<Endpoint>>, request: Request<Body>) -> Response {
    endpoint.delete(request).await
}
