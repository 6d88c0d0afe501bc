//! DELETE: ends a legacy session, here and in the session store.

use std::sync::Arc;

use axum::body::Body;
use axum::response::Response;
use http::{Request, StatusCode};

use super::Endpoint;
use crate::transport::http::reply;

impl Endpoint {
    /// DELETE: ends a legacy session.
    pub(crate) async fn delete(self: Arc<Self>, request: Request<Body>) -> Response {
        let (parts, _) = request.into_parts();
        let session = match self.stream_session(&parts).await {
            Ok(s) => s,
            Err(r) => return r,
        };
        if let Err(r) = self.remove_shared(session.id()).await {
            return r;
        }
        if let Some(session) = self.store.remove(session.id()) {
            session.end();
        }
        reply::empty(StatusCode::OK)
    }
}
