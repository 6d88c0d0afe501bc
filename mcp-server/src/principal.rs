//! Who is calling: the authenticated principal a request carries from the HTTP layer that
//! checked its credentials to the handler's [`Context`](crate::Context).

use std::sync::Arc;
use std::time::SystemTime;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The authenticated caller of a request: the subject of a validated access token (or of
/// whatever your own authentication layer checked), with the token's issuer, scopes, client
/// and claims.
///
/// The `auth` feature's `AuthLayer` puts one in each request's extensions; a layer of your
/// own may do the same. Legacy HTTP sessions and modern `requestState` are bound to the
/// principal (issuer and subject) that created them, and handlers read it with
/// [`Context::principal`](crate::Context::principal) or take it as a parameter
/// (`#[extract] caller: Principal`).
///
/// # Examples
///
/// ```
/// use ferromcp::Principal;
///
/// let alice = Principal::new("alice")
///     .with_issuer("https://auth.example.com")
///     .with_scopes(["incidents:read", "incidents:write"]);
/// assert!(alice.has_scope("incidents:write"));
/// assert!(alice.is_same_as(&Principal::new("alice").with_issuer("https://auth.example.com")));
/// assert!(!alice.is_same_as(&Principal::new("alice")));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Principal(Arc<Inner>);

/// Shared, so that a principal is cheap to copy onto each request (the claims can be large).
#[derive(Debug, Clone, PartialEq)]
struct Inner {
    subject: String,
    issuer: Option<String>,
    scopes: Vec<String>,
    client_id: Option<String>,
    audiences: Vec<String>,
    expires_at: Option<SystemTime>,
    claims: Map<String, Value>,
}

impl Principal {
    /// A principal with this subject and nothing else known about it.
    pub fn new(subject: impl Into<String>) -> Principal {
        Principal(Arc::new(Inner {
            subject: subject.into(),
            issuer: None,
            scopes: Vec::new(),
            client_id: None,
            audiences: Vec::new(),
            expires_at: None,
            claims: Map::new(),
        }))
    }

    fn edit(&mut self) -> &mut Inner {
        Arc::make_mut(&mut self.0)
    }

    /// Sets the issuer that vouches for the subject (a token's `iss`).
    #[must_use]
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Principal {
        self.edit().issuer = Some(issuer.into());
        self
    }

    /// Sets the scopes granted (a token's `scope`, split on spaces).
    #[must_use]
    pub fn with_scopes<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Principal {
        self.edit().scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the OAuth client the token was issued to (`client_id` / `azp`).
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Principal {
        self.edit().client_id = Some(client_id.into());
        self
    }

    /// Sets the audiences the token was issued for (`aud`).
    #[must_use]
    pub fn with_audiences<S: Into<String>>(
        mut self,
        audiences: impl IntoIterator<Item = S>,
    ) -> Principal {
        self.edit().audiences = audiences.into_iter().map(Into::into).collect();
        self
    }

    /// Sets when the credential stops being valid (`exp`).
    #[must_use]
    pub fn with_expiry(mut self, expires_at: SystemTime) -> Principal {
        self.edit().expires_at = Some(expires_at);
        self
    }

    /// Sets the raw claims (a JWT's payload, an introspection response).
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Principal {
        self.edit().claims = claims;
        self
    }

    /// The subject (`sub`): who the caller is, as the issuer names them.
    pub fn subject(&self) -> &str {
        &self.0.subject
    }

    /// The issuer (`iss`), when known.
    pub fn issuer(&self) -> Option<&str> {
        self.0.issuer.as_deref()
    }

    /// The scopes granted.
    pub fn scopes(&self) -> &[String] {
        &self.0.scopes
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.0.scopes.iter().any(|s| s == scope)
    }

    /// The OAuth client the credential was issued to, when known.
    pub fn client_id(&self) -> Option<&str> {
        self.0.client_id.as_deref()
    }

    /// The audiences the credential was issued for.
    pub fn audiences(&self) -> &[String] {
        &self.0.audiences
    }

    /// When the credential expires, when known.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.0.expires_at
    }

    /// The raw claims.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.0.claims
    }

    /// The claims as your own type.
    ///
    /// # Errors
    ///
    /// The claims do not deserialize into `T`.
    pub fn claims_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_value(Value::Object(self.0.claims.clone()))
    }

    /// Whether `other` is the same caller: same issuer and same subject. Scopes, expiry and
    /// claims may differ (a refreshed token is the same caller).
    pub fn is_same_as(&self, other: &Principal) -> bool {
        self.0.subject == other.0.subject && self.0.issuer == other.0.issuer
    }
}

/// On an HTTP response: the request was refused because the caller lacks some of these
/// scopes (all that the operation needs). The `auth` feature's layer turns it into a
/// `WWW-Authenticate: Bearer error="insufficient_scope"` challenge.
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "auth"), allow(dead_code))]
pub(crate) struct InsufficientScope(pub(crate) Arc<[String]>);
