//! Every HTTP response the endpoint builds: the one place where a refusal gets its status,
//! its JSON-RPC error code and its headers.

use axum::body::Body;
use axum::response::Response;
use ferromcp_core::error::ErrorObject;
use ferromcp_core::jsonrpc::{RequestId, WireErrorResponse};
use http::header::{CACHE_CONTROL, CONTENT_TYPE};
use http::{HeaderValue, StatusCode};

use super::sse::SseBody;
use crate::engine::Status;

pub(crate) fn json(status: StatusCode, json: String) -> Response {
    let mut response = Response::new(Body::from(json));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

pub(crate) fn error(status: StatusCode, id: Option<&RequestId>, error: &ErrorObject) -> Response {
    let body =
        ferromcp_core::jsonrpc::to_string(&WireErrorResponse::new(id, error)).unwrap_or_default();
    json(status, body)
}

pub(crate) fn empty(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

pub(crate) fn sse(body: SseBody) -> Response {
    let mut response = Response::new(Body::new(body));
    let h = response.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

pub(crate) fn bad_request(id: Option<&RequestId>, message: impl Into<String>) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        id,
        &ErrorObject::invalid_request(message),
    )
}

pub(crate) fn forbidden(reason: impl Into<String>) -> Response {
    error(StatusCode::FORBIDDEN, None, &ErrorObject::transport(reason))
}

pub(crate) fn session_not_found(id: Option<&RequestId>) -> Response {
    error(StatusCode::NOT_FOUND, id, &ErrorObject::session_not_found())
}

pub(crate) fn session_required(id: Option<&RequestId>) -> Response {
    bad_request(id, "Bad Request: Mcp-Session-Id header is required")
}

pub(crate) fn method_not_allowed() -> Response {
    let mut r = error(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        &ErrorObject::transport("Method not allowed."),
    );
    r.headers_mut()
        .insert(http::header::ALLOW, HeaderValue::from_static("POST"));
    r
}

pub(crate) fn too_large(max: usize) -> Response {
    let mut r = error(
        StatusCode::PAYLOAD_TOO_LARGE,
        None,
        &ErrorObject::invalid_request(format!("Payload Too Large: the limit is {max} bytes")),
    );
    // The rest of the body is not read: the connection cannot carry another request.
    r.headers_mut()
        .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
    r
}

pub(crate) fn body_timeout() -> Response {
    let mut r = error(
        StatusCode::REQUEST_TIMEOUT,
        None,
        &ErrorObject::invalid_request("Request Timeout: the body did not arrive in time"),
    );
    r.headers_mut()
        .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// `503` with `Retry-After`: the server is at its in-flight limit, or shutting down.
pub(crate) fn busy(id: Option<&RequestId>, why: &str) -> Response {
    let mut r = error(
        StatusCode::SERVICE_UNAVAILABLE,
        id,
        &ErrorObject::transport(format!("Service Unavailable: {why}")),
    );
    r.headers_mut()
        .insert(http::header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// The HTTP status of an engine response: modern-era errors carry their class; legacy-era
/// JSON-RPC errors are always 200.
pub(crate) fn status(status: &Status, modern: bool) -> StatusCode {
    match status {
        // A step-up challenge, in both eras.
        Status::InsufficientScope(_) => StatusCode::FORBIDDEN,
        _ if !modern => StatusCode::OK,
        Status::Ok => StatusCode::OK,
        Status::BadRequest => StatusCode::BAD_REQUEST,
        Status::NotFound => StatusCode::NOT_FOUND,
    }
}

/// An engine response as JSON; a refusal for missing scopes carries them in the response's
/// extensions, for the authentication layer's `WWW-Authenticate` challenge.
pub(crate) fn engine(response: crate::engine::Response, modern: bool) -> Response {
    let mut r = json(status(&response.status, modern), response.json);
    if let Status::InsufficientScope(scopes) = response.status {
        r.extensions_mut()
            .insert(crate::principal::InsufficientScope(scopes));
    }
    r
}
