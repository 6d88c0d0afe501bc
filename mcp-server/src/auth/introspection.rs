//! Opaque tokens, asked about at the authorization server (RFC 7662).

use std::time::Duration;

use base64::Engine as _;
use serde_json::Value;

use super::config::{AuthConfigError, checked_uri};
use super::fetch;
use super::jwt::principal_from_claims;
use super::validator::{TokenError, TokenValidator, ValidateFuture};
use crate::principal::Principal;

/// Validates opaque tokens by asking the authorization server's introspection endpoint
/// (RFC 7662), authenticated as a client of it (`client_secret_basic`).
///
/// An answer is reused for [`cache_ttl`](Self::cache_ttl) (30 s by default, never past the
/// token's expiry): a revoked token is refused at most that long after its revocation.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use ferromcp::auth::IntrospectionValidator;
///
/// let validator = IntrospectionValidator::new("https://auth.example.com", "ferromcp", "s3cret")
///     .unwrap()
///     .cache_ttl(Duration::from_secs(10));
/// # let _ = validator;
/// ```
pub struct IntrospectionValidator {
    issuer: String,
    endpoint: tokio::sync::OnceCell<String>,
    authorization: String,
    cache_ttl: Duration,
    client: reqwest::Client,
}

impl std::fmt::Debug for IntrospectionValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionValidator")
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

impl IntrospectionValidator {
    /// A validator asking `issuer` (its endpoint found through its metadata on first use),
    /// as the client `client_id` with `client_secret`.
    ///
    /// # Errors
    ///
    /// The issuer is not an `https://` URI (or `http://` on a loopback host).
    pub fn new(
        issuer: impl Into<String>,
        client_id: &str,
        client_secret: &str,
    ) -> Result<IntrospectionValidator, AuthConfigError> {
        let issuer = issuer.into();
        checked_uri("the issuer", &issuer)?;
        // RFC 6749 §2.3.1: both are form-encoded before they are joined.
        let credentials = format!(
            "{}:{}",
            fetch::form_encode(client_id),
            fetch::form_encode(client_secret)
        );
        Ok(IntrospectionValidator {
            issuer,
            endpoint: tokio::sync::OnceCell::new(),
            authorization: format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(credentials)
            ),
            cache_ttl: Duration::from_secs(30),
            client: fetch::client(),
        })
    }

    /// Uses this introspection endpoint instead of the one the issuer's metadata names.
    ///
    /// # Errors
    ///
    /// The URL is not `https://` (or `http://` on a loopback host).
    pub fn endpoint(
        self,
        url: impl Into<String>,
    ) -> Result<IntrospectionValidator, AuthConfigError> {
        let url = url.into();
        checked_uri("the introspection endpoint", &url)?;
        Ok(IntrospectionValidator {
            endpoint: tokio::sync::OnceCell::new_with(Some(url)),
            ..self
        })
    }

    /// How long an answer is reused (default 30 s; zero asks every time).
    #[must_use]
    pub fn cache_ttl(mut self, ttl: Duration) -> IntrospectionValidator {
        self.cache_ttl = ttl;
        self
    }

    async fn endpoint_url(&self) -> Result<&str, TokenError> {
        self.endpoint
            .get_or_try_init(|| async {
                let metadata = fetch::discover(&self.client, &self.issuer).await?;
                let url = metadata
                    .get("introspection_endpoint")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        TokenError::Unavailable(
                            "the issuer publishes no introspection_endpoint".into(),
                        )
                    })?;
                checked_uri("the introspection endpoint", url)
                    .map_err(|e| TokenError::Unavailable(e.to_string()))?;
                Ok(url.to_owned())
            })
            .await
            .map(String::as_str)
    }

    async fn check(&self, token: &str) -> Result<Principal, TokenError> {
        let endpoint = self.endpoint_url().await?;
        let body = format!(
            "token={}&token_type_hint=access_token",
            fetch::form_encode(token)
        );
        let response = self
            .client
            .post(endpoint)
            .header(http::header::AUTHORIZATION, &self.authorization)
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(http::header::ACCEPT, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| TokenError::Unavailable(format!("introspection: {}", e.without_url())))?;
        let Value::Object(answer) = fetch::json(response, "introspection").await? else {
            return Err(TokenError::Unavailable(
                "introspection: not a JSON object".into(),
            ));
        };
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(TokenError::Invalid("the token is not active".into()));
        }
        if answer
            .get("iss")
            .and_then(Value::as_str)
            .is_some_and(|iss| iss != self.issuer)
        {
            return Err(TokenError::Invalid(
                "the token's issuer is not trusted here".into(),
            ));
        }
        if answer
            .get("nbf")
            .and_then(Value::as_u64)
            .is_some_and(|nbf| {
                std::time::UNIX_EPOCH + Duration::from_secs(nbf) > std::time::SystemTime::now()
            })
        {
            return Err(TokenError::Invalid("the token is not valid yet".into()));
        }
        principal_from_claims(answer, Some(&self.issuer))
    }
}

impl TokenValidator for IntrospectionValidator {
    fn validate<'a>(&'a self, token: &'a str) -> ValidateFuture<'a> {
        Box::pin(self.check(token))
    }

    fn cache_ttl(&self) -> Option<Duration> {
        Some(self.cache_ttl)
    }
}
