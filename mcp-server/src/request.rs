//! What the transport knows about a request beyond its message: who sent it (the
//! principal an authentication layer vouched for) and, over HTTP, the HTTP request itself.
//!
//! The engine carries these to the handler's [`Context`](crate::Context) without reading
//! them: one `Arc` clone per request for each.

use std::sync::Arc;

use crate::principal::Principal;

/// The transport's facts about one request, carried by the engine to its context.
#[derive(Clone, Default)]
pub(crate) struct Caller {
    /// Who is calling, when the transport authenticated the request.
    pub(crate) principal: Option<Arc<Principal>>,
    /// The HTTP request the message came in (its body aside); `None` over stdio.
    #[cfg(feature = "http")]
    pub(crate) http: Option<HttpRequest>,
}

impl Caller {
    /// A caller known only by its principal (stdio, or a test client acting as one).
    pub(crate) fn principal(principal: Option<Arc<Principal>>) -> Caller {
        Caller {
            principal,
            #[cfg(feature = "http")]
            http: None,
        }
    }
}

/// The HTTP request a message came in, without its body: method, URI, headers and
/// extensions (what layers in front of the endpoint put there).
///
/// Take it as a handler parameter (`#[extract] request: HttpRequest`, or by its type alone in a
/// `#[tool]`) or read [`Context::http_request`](crate::Context::http_request). Over stdio
/// there is none: taking it there ends the request with an invalid-request error (-32600).
/// Behind the `auth` feature's `AuthLayer`, the `Authorization` header has been removed:
/// the token never reaches handlers (read the [`Principal`] instead).
///
/// Cloning is cheap: every request of one HTTP POST shares one copy.
///
/// # Examples
///
/// ```
/// use ferromcp::extract::HttpRequest;
/// use ferromcp::prelude::*;
///
/// struct Tenants;
///
/// #[ferromcp::server]
/// impl Tenants {
///     /// The tenant the request names in its `x-tenant` header.
///     #[tool]
///     fn tenant(&self, request: HttpRequest) -> String {
///         request
///             .headers()
///             .get("x-tenant")
///             .and_then(|v| v.to_str().ok())
///             .unwrap_or("none")
///             .to_owned()
///     }
/// }
/// # let _ = Server::builder(Tenants).build().unwrap();
/// ```
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
#[derive(Clone, Debug)]
pub struct HttpRequest(Arc<http::request::Parts>);

#[cfg(feature = "http")]
impl HttpRequest {
    /// Wraps the parts of a request the endpoint received.
    pub(crate) fn new(parts: Arc<http::request::Parts>) -> HttpRequest {
        HttpRequest(parts)
    }

    /// The HTTP method (`POST`, for a message).
    pub fn method(&self) -> &http::Method {
        &self.0.method
    }

    /// The request's URI, as the endpoint received it (under a nested router, the path
    /// that remains).
    pub fn uri(&self) -> &http::Uri {
        &self.0.uri
    }

    /// The request's headers (`Authorization` removed behind `AuthLayer`).
    pub fn headers(&self) -> &http::HeaderMap {
        &self.0.headers
    }

    /// The request's extensions: what the layers in front of the endpoint put there.
    pub fn extensions(&self) -> &http::Extensions {
        &self.0.extensions
    }
}
