//! The tower layer: metadata, challenges, validation, the principal on the request.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::SystemTime;

use axum::body::Body;
use axum::response::Response;
use http::header::{AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderValue, Method, Request, StatusCode};
use tokio::time::Instant;
use tower::{Layer, Service};

use super::bearer::{Bearer, bearer_token, has_query_token};
use super::cache::{self, TokenCache};
use super::config::{AuthConfig, ROOT_METADATA_PATH};
use super::validator::{TokenError, TokenValidator};
use crate::engine::Engine;
use crate::principal::{InsufficientScope, Principal};
use crate::server::Server;

/// Validated tokens kept at most (each entry is a principal and its claims).
const CACHE_CAPACITY: usize = 10_000;

/// Protects the services it wraps with bearer tokens: serves the protected-resource metadata
/// (RFC 9728) at `/.well-known/oauth-protected-resource/<path of the canonical URI>` and at
/// `/.well-known/oauth-protected-resource`, refuses every other request without a valid
/// token, and puts the token's [`Principal`] in the request's extensions.
///
/// What it answers:
///
/// | request | status | `WWW-Authenticate` |
/// |---|---|---|
/// | no `Authorization` header, or another scheme | 401 | `Bearer resource_metadata="…", scope="…"` (the [required scopes](AuthConfig::required_scopes), else the metadata's `scopes_supported`; no `scope` when that is empty) |
/// | `access_token` in the query string, several `Authorization` headers, a malformed bearer token | 400 | `Bearer error="invalid_request", …` |
/// | a token the validator refuses, expired, from another issuer, for another audience | 401 | `Bearer error="invalid_token", …` |
/// | a valid token without the [required scopes](AuthConfig::required_scopes), or without the scopes of the tool, resource or prompt called ([`Registry::require_scopes`](crate::registry::Registry::require_scopes)) | 403 | `Bearer error="insufficient_scope", scope="…", …` |
/// | the validator cannot reach the authorization server | 503 | — |
///
/// A validation is reused until the token expires (or for the validator's
/// [`cache_ttl`](TokenValidator::cache_ttl)), keyed by a keyed hash of the token. Tokens are
/// never logged and never passed on: the `Authorization` header is removed before the inner
/// service runs.
///
/// Wrap the router that serves both the MCP path and the root, so the metadata's well-known
/// URIs reach the layer; with `serve_http*`, use [`HttpOptions::auth`](crate::http::HttpOptions::auth).
///
/// The metadata's `scopes_supported` (unless [configured](AuthConfig::scopes_supported)) and
/// the `401` challenge's `scope` name the scopes the server's tools, resources and prompts
/// declare: `serve_http*` hands the layer its server; on a router of your own, hand it
/// with [`for_server`](Self::for_server).
///
/// # Examples
///
/// ```
/// use ferromcp::Principal;
/// use ferromcp::auth::{AuthConfig, AuthLayer, TokenError, ValidateFuture};
///
/// struct OneToken;
/// impl ferromcp::auth::TokenValidator for OneToken {
///     fn validate<'a>(&'a self, token: &'a str) -> ValidateFuture<'a> {
///         Box::pin(async move {
///             if token != "let-me-in" {
///                 return Err(TokenError::Invalid("unknown token".into()));
///             }
///             Ok(Principal::new("ana")
///                 .with_issuer("https://auth.example.com")
///                 .with_audiences(["https://mcp.example.com/mcp"])
///                 .with_expiry(std::time::SystemTime::now() + std::time::Duration::from_secs(60)))
///         })
///     }
/// }
///
/// let config = AuthConfig::new("https://mcp.example.com/mcp", "https://auth.example.com").unwrap();
/// let app: axum::Router = axum::Router::new()
///     .route("/mcp", axum::routing::post(|| async { "hello" }))
///     .layer(AuthLayer::new(config, OneToken));
/// # let _ = app;
/// ```
#[derive(Clone)]
pub struct AuthLayer {
    shared: Arc<Shared>,
    /// The server whose declared scopes are offered, when known.
    declared: Option<Engine>,
}

struct Shared {
    config: AuthConfig,
    validator: Box<dyn TokenValidator>,
    cache: TokenCache,
    metadata_path: String,
    metadata_url: String,
}

impl std::fmt::Debug for AuthLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthLayer")
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

impl AuthLayer {
    /// A layer checking tokens with `validator` against `config`.
    pub fn new(config: AuthConfig, validator: impl TokenValidator) -> AuthLayer {
        AuthLayer {
            shared: Arc::new(Shared {
                metadata_path: config.metadata_path(),
                metadata_url: config.metadata_url(),
                cache: TokenCache::new(CACHE_CAPACITY),
                validator: Box::new(validator),
                config,
            }),
            declared: None,
        }
    }

    /// Offers the scopes `server`'s tools, resources and prompts declare: the metadata's
    /// `scopes_supported` lists them (unless [configured](AuthConfig::scopes_supported)),
    /// and so does the `401` challenge's `scope` (unless there are
    /// [required scopes](AuthConfig::required_scopes)). Read at each request, so items
    /// added at run time count. `serve_http*` does this for the server it serves.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::auth::{AuthConfig, AuthLayer, JwtValidator};
    /// use ferromcp::http::HttpOptions;
    /// use ferromcp::prelude::*;
    ///
    /// struct Incidents;
    ///
    /// #[ferromcp::server]
    /// impl Incidents {
    ///     /// Resolves an incident.
    ///     #[tool(scopes = ["incidents:write"])]
    ///     fn resolve(&self, id: u32) -> String {
    ///         format!("resolved {id}")
    ///     }
    /// }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(Incidents)?;
    /// let config = AuthConfig::new("https://mcp.example.com/mcp", "https://auth.example.com")?;
    /// let auth = AuthLayer::new(config, JwtValidator::new("https://auth.example.com")?)
    ///     .for_server(&server);
    /// let app = server
    ///     .http_router(HttpOptions::default(), ferromcp::CancellationToken::new())
    ///     .layer(auth);
    /// # let _ = app;
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn for_server(mut self, server: &Server) -> AuthLayer {
        self.declared = Some(server.engine().clone());
        self
    }

    /// The configuration.
    pub fn config(&self) -> &AuthConfig {
        &self.shared.config
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> AuthService<S> {
        AuthService {
            inner,
            shared: self.shared.clone(),
            declared: self.declared.clone(),
            memo: None,
        }
    }
}

impl AuthLayer {
    /// The service for the requests of one HTTP connection (`serve_http*`): it remembers
    /// the connection's last accepted `Authorization` header, so a keep-alive client that
    /// sends the same token again costs a comparison of the header instead of its parsing,
    /// hashing and a cache lookup. It offers the scopes `engine`'s items declare.
    pub(crate) fn for_connection<S>(&self, inner: S, engine: &Engine) -> AuthService<S> {
        AuthService {
            inner,
            shared: self.shared.clone(),
            declared: Some(engine.clone()),
            memo: Some(Arc::default()),
        }
    }
}

/// The last `Authorization` header a connection was accepted with, its principal, and
/// until when that holds (the token's cache lifetime). The header lives as long as the
/// connection that keeps sending it; the token cache itself never stores a token.
#[derive(Default)]
struct ConnectionMemo(std::sync::Mutex<Option<(HeaderValue, Arc<Principal>, Instant)>>);

impl ConnectionMemo {
    fn recall(&self, header: &HeaderValue) -> Option<Arc<Principal>> {
        let memo = crate::sync::lock(&self.0);
        match &*memo {
            Some((last, principal, until))
                if same_bytes(last.as_bytes(), header.as_bytes()) && Instant::now() < *until =>
            {
                Some(principal.clone())
            }
            _ => None,
        }
    }

    fn remember(&self, header: &HeaderValue, principal: &Arc<Principal>, until: Instant) {
        *crate::sync::lock(&self.0) = Some((header.clone(), principal.clone(), until));
    }
}

/// Whether two headers are equal, in time that depends on their length only: behind a
/// proxy that reuses one upstream connection for many clients, the memo holds another
/// client's token, and how long a comparison takes must say nothing about it.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// The service an [`AuthLayer`] wraps around `S`.
#[derive(Clone)]
pub struct AuthService<S> {
    inner: S,
    shared: Arc<Shared>,
    declared: Option<Engine>,
    /// Per connection, when the SDK's own server made it.
    memo: Option<Arc<ConnectionMemo>>,
}

impl<S> std::fmt::Debug for AuthService<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthService").finish_non_exhaustive()
    }
}

/// The future of an [`AuthService`].
pub type AuthFuture = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

impl<S> Service<Request<Body>> for AuthService<S>
where
    S: Service<Request<Body>, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = AuthFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> AuthFuture {
        let shared = self.shared.clone();
        let memo = self.memo.clone();
        let declared = self.declared.clone();
        // The clone is the one polled ready; keep it for this call (tower's usual dance).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let path = request.uri().path();
            let declared = declared.as_ref();
            if path == shared.metadata_path || path == ROOT_METADATA_PATH {
                return Ok(shared.serve_metadata(request.method(), declared));
            }
            // The body is not `Sync`: validation borrows the head only.
            let (mut parts, body) = request.into_parts();
            match shared.authenticate(&parts, memo.as_deref(), declared).await {
                Ok(principal) => {
                    parts.headers.remove(AUTHORIZATION);
                    parts.extensions.insert((*principal).clone());
                    let mut response = inner.call(Request::from_parts(parts, body)).await?;
                    // The endpoint refused an item for missing scopes: say which, so the
                    // client can step up.
                    if let Some(InsufficientScope(scopes)) =
                        response.extensions_mut().remove::<InsufficientScope>()
                    {
                        let challenge = insufficient_scope(&shared.metadata_url, &scopes);
                        *response.status_mut() = StatusCode::FORBIDDEN;
                        if let Some(v) = challenge.headers().get(WWW_AUTHENTICATE) {
                            response.headers_mut().insert(WWW_AUTHENTICATE, v.clone());
                        }
                    }
                    Ok(response)
                }
                Err(refusal) => Ok(refusal),
            }
        })
    }
}

impl Shared {
    /// The metadata's `scopes_supported`.
    fn supported_scopes(&self, declared: Option<&Engine>) -> Vec<String> {
        let declared = declared.map(|engine| engine.registry().declared_scopes());
        self.config.supported_scopes(declared)
    }

    /// The `401` challenge's `, scope="…"`, or nothing: the required scopes, else what the
    /// metadata offers (what a client would ask for from it anyway), never
    /// `offline_access`.
    fn scope_param(&self, declared: Option<&Engine>) -> String {
        let scopes = if self.config.required_scopes.is_empty() {
            self.supported_scopes(declared)
        } else {
            self.config.required_scopes.clone()
        };
        let scopes: Vec<&str> = scopes
            .iter()
            .map(String::as_str)
            .filter(|s| *s != "offline_access")
            .collect();
        if scopes.is_empty() {
            return String::new();
        }
        format!(", scope=\"{}\"", quoted(&scopes.join(" ")))
    }

    fn serve_metadata(&self, method: &Method, declared: Option<&Engine>) -> Response {
        if method != Method::GET && method != Method::HEAD {
            let mut r = plain(StatusCode::METHOD_NOT_ALLOWED);
            r.headers_mut()
                .insert(http::header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            return r;
        }
        let scopes = self.supported_scopes(declared);
        let mut r = Response::new(Body::from(self.config.metadata(&scopes).to_string()));
        let h = r.headers_mut();
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
        r
    }

    /// The request's principal, or the finished refusal.
    async fn authenticate(
        &self,
        request: &http::request::Parts,
        memo: Option<&ConnectionMemo>,
        declared: Option<&Engine>,
    ) -> Result<Arc<Principal>, Response> {
        let refuse = |status, code, why: &str| self.error_challenge(status, code, why, declared);
        let invalid_request = |why| refuse(StatusCode::BAD_REQUEST, "invalid_request", why);
        if has_query_token(request.uri.query()) {
            return Err(invalid_request(
                "access tokens are not accepted in the query string",
            ));
        }
        let mut values = request.headers.get_all(AUTHORIZATION).iter();
        let Some(value) = values.next() else {
            return Err(self.challenge(declared));
        };
        if values.next().is_some() {
            return Err(invalid_request("more than one Authorization header"));
        }
        if let Some(principal) = memo.and_then(|m| m.recall(value)) {
            return Ok(principal);
        }
        let token = match bearer_token(value) {
            Bearer::Token(t) => t,
            Bearer::OtherScheme => return Err(self.challenge(declared)),
            Bearer::Malformed => return Err(invalid_request("malformed bearer token")),
        };
        let key = self.cache.key(token);
        let (principal, until) = match self.cache.get(&key) {
            Some(hit) => hit,
            None => {
                let principal = match self.shared_validate(token).await {
                    Ok(p) => Arc::new(p),
                    Err(TokenError::Unavailable(why)) => {
                        tracing::warn!(reason = %why, "token validation unavailable");
                        let mut r = plain(StatusCode::SERVICE_UNAVAILABLE);
                        r.headers_mut()
                            .insert(http::header::RETRY_AFTER, HeaderValue::from_static("5"));
                        return Err(r);
                    }
                    Err(e) => {
                        tracing::debug!(reason = %e, "bearer token refused");
                        let why = e.to_string();
                        return Err(refuse(StatusCode::UNAUTHORIZED, "invalid_token", &why));
                    }
                };
                let until = cache::valid_until(&principal, self.validator.cache_ttl());
                self.cache.insert(key, principal.clone(), until);
                (principal, until)
            }
        };
        let missing: Vec<&str> = self
            .config
            .required_scopes
            .iter()
            .filter(|s| !principal.has_scope(s))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(insufficient_scope(
                &self.metadata_url,
                &self.config.required_scopes,
            ));
        }
        if let Some(memo) = memo {
            memo.remember(value, &principal, until);
        }
        Ok(principal)
    }

    /// The validator's answer, held to the configuration: a known issuer, an accepted
    /// audience, not expired.
    async fn shared_validate(&self, token: &str) -> Result<Principal, TokenError> {
        let p = self.validator.validate(token).await?;
        if !p
            .issuer()
            .is_some_and(|iss| self.config.issuers.iter().any(|i| i == iss))
        {
            return Err(TokenError::Invalid(
                "the token's issuer is not trusted here".into(),
            ));
        }
        if !self
            .config
            .audience
            .accepts(&self.config.resource, p.audiences())
        {
            return Err(TokenError::Invalid(
                "the token was not issued for this resource".into(),
            ));
        }
        match p.expires_at() {
            Some(exp) if exp > SystemTime::now() => Ok(p),
            Some(_) => Err(TokenError::Invalid("the token has expired".into())),
            None => Err(TokenError::Invalid("the token has no expiry".into())),
        }
    }

    /// 401 without an error code: the client sent no credentials (RFC 6750 §3.1).
    fn challenge(&self, declared: Option<&Engine>) -> Response {
        let value = format!(
            "Bearer resource_metadata=\"{}\"{}",
            quoted(&self.metadata_url),
            self.scope_param(declared)
        );
        with_challenge(StatusCode::UNAUTHORIZED, value)
    }

    fn error_challenge(
        &self,
        status: StatusCode,
        code: &str,
        why: &str,
        declared: Option<&Engine>,
    ) -> Response {
        let value = format!(
            "Bearer error=\"{code}\", error_description=\"{}\", resource_metadata=\"{}\"{}",
            quoted(why),
            quoted(&self.metadata_url),
            self.scope_param(declared)
        );
        with_challenge(status, value)
    }
}

/// 403 `insufficient_scope` naming every scope the operation needs.
pub(crate) fn insufficient_scope(metadata_url: &str, scopes: &[String]) -> Response {
    let scopes: Vec<&str> = scopes
        .iter()
        .map(String::as_str)
        .filter(|s| *s != "offline_access")
        .collect();
    let value = format!(
        "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\"",
        quoted(&scopes.join(" ")),
        quoted(metadata_url)
    );
    with_challenge(StatusCode::FORBIDDEN, value)
}

fn with_challenge(status: StatusCode, value: String) -> Response {
    let mut r = plain(status);
    if let Ok(v) = HeaderValue::from_str(&value) {
        r.headers_mut().insert(WWW_AUTHENTICATE, v);
    }
    r
}

fn plain(status: StatusCode) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = status;
    r
}

/// A quoted-string's content: `"` and `\` escaped, control characters dropped.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().filter(|c| !c.is_control()) {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_compare_whole() {
        assert!(same_bytes(b"Bearer abc", b"Bearer abc"));
        assert!(!same_bytes(b"Bearer abc", b"Bearer abd"));
        assert!(!same_bytes(b"Bearer abc", b"Bearer ab"));
        assert!(same_bytes(b"", b""));
    }

    #[test]
    fn challenge_values_are_quoted() {
        assert_eq!(quoted("a\"b\\c\nd"), "a\\\"b\\\\cd");
    }
}
