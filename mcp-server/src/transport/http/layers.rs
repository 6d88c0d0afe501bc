//! The endpoint's request checks as tower layers, applied in this order by
//! [`Server::http_router`](crate::Server::http_router) and usable on any axum router:
//! [`HostOriginLayer`] (DNS rebinding protection, 403), [`BodyLimitLayer`] (413, counted
//! while the body streams) and [`MediaTypeLayer`] (415 / 406 for POST).
//!
//! Each refuses with a JSON-RPC error body before the request body is read. Each is a
//! tower-http [`ValidateRequest`] run by its [`ValidateRequestHeader`] service: the check
//! is a plain function of the request, and the inner service's future is not boxed.

use axum::body::Body;
use axum::response::Response;
use ferromcp_core::error::ErrorObject;
use http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::Limited;
use tower::Layer;
use tower_http::validate_request::{ValidateRequest, ValidateRequestHeader};

use super::origin::{Guard, HostPolicy, OriginPolicy};
use super::reply;

/// Refuses (403) a request whose `Host` or `Origin` is not allowed: the DNS rebinding
/// protection the spec requires of local servers.
///
/// # Examples
///
/// ```
/// use ferromcp::http::{HostOriginLayer, HostPolicy, OriginPolicy};
///
/// let app: axum::Router = axum::Router::new()
///     .route("/health", axum::routing::get(|| async { "ok" }))
///     .layer(HostOriginLayer::new(HostPolicy::Loopback, OriginPolicy::Loopback));
/// # let _ = app;
/// ```
#[derive(Debug, Clone)]
pub struct HostOriginLayer(Guard);

impl<S> Layer<S> for HostOriginLayer {
    type Service = ValidateRequestHeader<S, HostOriginLayer>;

    fn layer(&self, inner: S) -> Self::Service {
        ValidateRequestHeader::custom(inner, self.clone())
    }
}

impl HostOriginLayer {
    /// A guard allowing these hosts and origins.
    pub fn new(hosts: HostPolicy, origins: OriginPolicy) -> HostOriginLayer {
        HostOriginLayer(Guard { hosts, origins })
    }
}

impl ValidateRequest<Body> for HostOriginLayer {
    type ResponseBody = Body;

    fn validate(&mut self, request: &mut Request<Body>) -> Result<(), Response> {
        let authority = request.uri().authority().map(|a| a.as_str());
        self.0
            .check(request.headers(), authority)
            .map_err(|refusal| {
                tracing::warn!(%refusal, "request refused");
                reply::forbidden(refusal.to_string())
            })
    }
}

/// The body limit a [`BodyLimitLayer`] put on a request, for the handler's 413.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyLimit(pub(crate) usize);

/// Limits request bodies to a number of bytes: a declared `Content-Length` over the limit
/// is refused at once (413); otherwise the body is counted while it streams and reading
/// it fails past the limit, whatever the headers said.
///
/// # Examples
///
/// ```
/// use ferromcp::http::BodyLimitLayer;
///
/// let app: axum::Router = axum::Router::new()
///     .route("/upload", axum::routing::post(|body: String| async move { body.len().to_string() }))
///     .layer(BodyLimitLayer::new(64 * 1024));
/// # let _ = app;
/// ```
#[derive(Debug, Clone)]
pub struct BodyLimitLayer(BodyLimit);

impl<S> Layer<S> for BodyLimitLayer {
    type Service = ValidateRequestHeader<S, BodyLimitLayer>;

    fn layer(&self, inner: S) -> Self::Service {
        ValidateRequestHeader::custom(inner, self.clone())
    }
}

impl BodyLimitLayer {
    /// A limit of `max` bytes.
    pub fn new(max: usize) -> BodyLimitLayer {
        BodyLimitLayer(BodyLimit(max))
    }
}

impl ValidateRequest<Body> for BodyLimitLayer {
    type ResponseBody = Body;

    fn validate(&mut self, request: &mut Request<Body>) -> Result<(), Response> {
        let max = self.0.0;
        let declared = request
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > max as u64) {
            return Err(reply::too_large(max));
        }
        let body = std::mem::take(request.body_mut());
        *request.body_mut() = Body::new(Limited::new(body, max));
        request.extensions_mut().insert(self.0);
        Ok(())
    }
}

/// The media types of a POST: the body is JSON, and the client can read a JSON or SSE answer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonPost;

/// Refuses a POST whose `Content-Type` is not `application/json` (415), or whose
/// `Accept` admits neither `application/json` nor `text/event-stream` (406). Other
/// methods pass.
///
/// # Examples
///
/// ```
/// use ferromcp::http::MediaTypeLayer;
///
/// let app: axum::Router = axum::Router::new()
///     .route("/rpc", axum::routing::post(|body: String| async move { body }))
///     .layer(MediaTypeLayer::new());
/// # let _ = app;
/// ```
#[derive(Debug, Clone)]
pub struct MediaTypeLayer(JsonPost);

impl<S> Layer<S> for MediaTypeLayer {
    type Service = ValidateRequestHeader<S, MediaTypeLayer>;

    fn layer(&self, inner: S) -> Self::Service {
        ValidateRequestHeader::custom(inner, self.clone())
    }
}

impl MediaTypeLayer {
    /// The check of MCP POST requests.
    pub fn new() -> MediaTypeLayer {
        MediaTypeLayer(JsonPost)
    }
}

impl Default for MediaTypeLayer {
    fn default() -> Self {
        MediaTypeLayer::new()
    }
}

impl ValidateRequest<Body> for MediaTypeLayer {
    type ResponseBody = Body;

    fn validate(&mut self, request: &mut Request<Body>) -> Result<(), Response> {
        if request.method() != Method::POST {
            return Ok(());
        }
        let headers = request.headers();
        if !is_json_content_type(headers) {
            return Err(reply::error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                None,
                &ErrorObject::invalid_request(
                    "Unsupported Media Type: Content-Type must be application/json",
                ),
            ));
        }
        if headers.contains_key(ACCEPT)
            && !accepts(headers, "application/json")
            && !accepts(headers, "text/event-stream")
        {
            return Err(reply::error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                &ErrorObject::invalid_request(
                    "Not Acceptable: accept application/json or text/event-stream",
                ),
            ));
        }
        Ok(())
    }
}

/// Whether `Accept` admits `media` (directly or by a wildcard).
pub(crate) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| {
            v.split(',').any(|item| {
                let item = item
                    .split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase();
                item == media
                    || item == "*/*"
                    || item
                        .strip_suffix("/*")
                        .is_some_and(|t| media.starts_with(t))
            })
        })
}

fn is_json_content_type(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}
