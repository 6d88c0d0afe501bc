//! JWT access tokens (RFC 9068) checked against the issuer's published keys.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, UNIX_EPOCH};

use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use tokio::time::Instant;

use super::config::{AuthConfigError, checked_uri};
use super::fetch;
use super::validator::{TokenError, TokenValidator, ValidateFuture};
use crate::principal::Principal;

/// Validates JWT access tokens signed by one issuer: finds the issuer's key set through its
/// metadata (RFC 8414, or OpenID Connect Discovery), checks the signature with
/// [`jsonwebtoken`], then `iss`, `exp` and `nbf` (with leeway for clock skew on `nbf`; the
/// [`AuthLayer`](super::AuthLayer) holds `exp` strictly).
///
/// - Algorithms: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384 and EdDSA by
///   default; `none` never, and HMAC never (the keys are public, so anyone could sign).
/// - The key set is kept for [`jwks_ttl`](Self::jwks_ttl) (5 min); a token naming a key
///   (`kid`) not in it triggers one refetch (key rotation), at most once per
///   [`min_refetch_interval`](Self::min_refetch_interval) (30 s), so a flood of made-up key
///   ids costs the issuer nothing.
/// - When the issuer cannot be reached, the expired set goes on being used for up to
///   [`jwks_stale_if_error`](Self::jwks_stale_if_error) (1 h), and the issuer is asked again
///   at most once per refetch interval; without a set to use, tokens get 503 at once.
/// - The audience is the [`AuthLayer`](super::AuthLayer)'s to check: the principal carries
///   the token's `aud`.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use ferromcp::auth::{Algorithm, JwtValidator};
///
/// let validator = JwtValidator::new("https://auth.example.com")
///     .unwrap()
///     .algorithms(&[Algorithm::RS256, Algorithm::ES256])
///     .unwrap()
///     .leeway(Duration::from_secs(30));
/// assert!(JwtValidator::new("https://auth.example.com").unwrap().algorithms(&[Algorithm::HS256]).is_err());
/// # let _ = validator;
/// ```
pub struct JwtValidator {
    issuer: String,
    jwks_uri: Option<String>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    jwks_ttl: Duration,
    min_refetch_interval: Duration,
    stale_if_error: Duration,
    client: reqwest::Client,
    keys: RwLock<Option<Arc<KeySet>>>,
    /// Serializes fetches, so concurrent first-seen tokens cause one.
    fetching: tokio::sync::Mutex<()>,
    /// When the last fetch failed: the issuer is not asked again before the refetch interval.
    failed: std::sync::Mutex<Option<Instant>>,
}

impl std::fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtValidator")
            .field("issuer", &self.issuer)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

struct KeySet {
    by_kid: HashMap<String, Key>,
    without_kid: Vec<Key>,
    fetched: Instant,
}

struct Key {
    key: DecodingKey,
    alg: Option<Algorithm>,
}

const PUBLIC_KEY_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

impl JwtValidator {
    /// A validator of tokens whose `iss` is `issuer`; the key set is found through the
    /// issuer's metadata on first use.
    ///
    /// # Errors
    ///
    /// The issuer is not an `https://` URI (or `http://` on a loopback host).
    pub fn new(issuer: impl Into<String>) -> Result<JwtValidator, AuthConfigError> {
        let issuer = issuer.into();
        checked_uri("the issuer", &issuer)?;
        Ok(JwtValidator {
            issuer,
            jwks_uri: None,
            algorithms: PUBLIC_KEY_ALGORITHMS.to_vec(),
            leeway: Duration::from_secs(60),
            jwks_ttl: Duration::from_secs(300),
            min_refetch_interval: Duration::from_secs(30),
            stale_if_error: Duration::from_secs(3600),
            client: fetch::client(),
            keys: RwLock::new(None),
            fetching: tokio::sync::Mutex::new(()),
            failed: std::sync::Mutex::new(None),
        })
    }

    /// Uses this key set URL instead of the one the issuer's metadata names.
    ///
    /// # Errors
    ///
    /// The URL is not `https://` (or `http://` on a loopback host).
    pub fn jwks_uri(mut self, url: impl Into<String>) -> Result<JwtValidator, AuthConfigError> {
        let url = url.into();
        checked_uri("the JWKS URI", &url)?;
        self.jwks_uri = Some(url);
        Ok(self)
    }

    /// The algorithms accepted.
    ///
    /// # Errors
    ///
    /// The list is empty or names an HMAC algorithm.
    pub fn algorithms(mut self, algorithms: &[Algorithm]) -> Result<JwtValidator, AuthConfigError> {
        if let Some(alg) = algorithms
            .iter()
            .find(|a| !PUBLIC_KEY_ALGORITHMS.contains(a))
        {
            return Err(AuthConfigError::SymmetricAlgorithm(*alg));
        }
        if algorithms.is_empty() {
            return Err(AuthConfigError::NoAlgorithm);
        }
        self.algorithms = algorithms.to_vec();
        Ok(self)
    }

    /// Clock skew allowed on `nbf`, for a token used just after an issuer whose clock runs
    /// ahead issued it (default 60 s).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> JwtValidator {
        self.leeway = leeway;
        self
    }

    /// How long a fetched key set is used before it is fetched again (default 5 min).
    #[must_use]
    pub fn jwks_ttl(mut self, ttl: Duration) -> JwtValidator {
        self.jwks_ttl = ttl;
        self
    }

    /// The least time between two fetches caused by unknown key ids (default 30 s).
    #[must_use]
    pub fn min_refetch_interval(mut self, interval: Duration) -> JwtValidator {
        self.min_refetch_interval = interval;
        self
    }

    /// How long past its [`jwks_ttl`](Self::jwks_ttl) a key set is still used while the
    /// issuer cannot be reached (default 1 h), so that an outage of the authorization server
    /// does not refuse every token. A key the issuer removed in that time (a revoked one)
    /// keeps working until the issuer answers again or the allowance runs out: `Duration::ZERO`
    /// refuses tokens (503) as soon as the set expires and cannot be fetched.
    #[must_use]
    pub fn jwks_stale_if_error(mut self, allowance: Duration) -> JwtValidator {
        self.stale_if_error = allowance;
        self
    }

    fn current(&self) -> Option<Arc<KeySet>> {
        self.keys.read().ok().and_then(|k| k.clone())
    }

    fn failed_recently(&self) -> bool {
        crate::sync::lock(&self.failed).is_some_and(|t| t.elapsed() < self.min_refetch_interval)
    }

    /// The held set, expired but within its stale allowance, when the issuer cannot give a
    /// new one; else `error`.
    fn stale_or(&self, error: TokenError) -> Result<Arc<KeySet>, TokenError> {
        let allowance = self.jwks_ttl.saturating_add(self.stale_if_error);
        match self.current().filter(|s| s.fetched.elapsed() < allowance) {
            Some(set) => {
                tracing::warn!(reason = %error, "the issuer's key set could not be fetched; using the one held");
                Ok(set)
            }
            None => Err(error),
        }
    }

    /// The key set: the one held if fresh, else a new fetch. With `refresh`, fetches again
    /// if the held set is older than the refetch interval.
    async fn key_set(&self, refresh: bool) -> Result<Arc<KeySet>, TokenError> {
        let usable = |set: &KeySet| {
            let age = set.fetched.elapsed();
            age < self.jwks_ttl && !(refresh && age >= self.min_refetch_interval)
        };
        if let Some(set) = self.current().filter(|s| usable(s)) {
            return Ok(set);
        }
        let unreachable = || {
            TokenError::Unavailable(
                "the issuer's key set could not be fetched; retrying after the refetch interval"
                    .into(),
            )
        };
        // After a failed fetch the issuer is not asked again before the refetch interval:
        // requests do not queue behind one timed-out fetch after another.
        if self.failed_recently() {
            return self.stale_or(unreachable());
        }
        let _one_at_a_time = self.fetching.lock().await;
        // Another task may have fetched, or failed to, while this one waited.
        if let Some(set) = self.current() {
            let fresh = set.fetched.elapsed() < self.min_refetch_interval.min(self.jwks_ttl);
            if usable(&set) || fresh {
                return Ok(set);
            }
        }
        if self.failed_recently() {
            return self.stale_or(unreachable());
        }
        match self.fetch().await {
            Ok(set) => {
                let set = Arc::new(set);
                if let Ok(mut held) = self.keys.write() {
                    *held = Some(set.clone());
                }
                *crate::sync::lock(&self.failed) = None;
                Ok(set)
            }
            Err(e) => {
                *crate::sync::lock(&self.failed) = Some(Instant::now());
                self.stale_or(e)
            }
        }
    }

    async fn fetch(&self) -> Result<KeySet, TokenError> {
        let url = match &self.jwks_uri {
            Some(u) => u.clone(),
            None => {
                let metadata = fetch::discover(&self.client, &self.issuer).await?;
                let url = metadata
                    .get("jwks_uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        TokenError::Unavailable("the issuer publishes no jwks_uri".into())
                    })?;
                checked_uri("the JWKS URI", url)
                    .map_err(|e| TokenError::Unavailable(e.to_string()))?;
                url.to_owned()
            }
        };
        let doc = fetch::get_json(&self.client, &url, "JWKS").await?;
        let mut set = KeySet {
            by_kid: HashMap::new(),
            without_kid: Vec::new(),
            fetched: Instant::now(),
        };
        let keys = doc
            .get("keys")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for value in keys {
            // Keys this crate cannot use (other types, encryption keys) are skipped.
            let Ok(jwk) = serde_json::from_value::<Jwk>(value) else {
                continue;
            };
            if matches!(jwk.common.public_key_use, Some(ref u) if *u != PublicKeyUse::Signature) {
                continue;
            }
            let Ok(key) = DecodingKey::from_jwk(&jwk) else {
                continue;
            };
            if key.family() == jsonwebtoken::AlgorithmFamily::Hmac {
                continue;
            }
            let alg = jwk
                .common
                .key_algorithm
                .and_then(|a| a.to_string().parse::<Algorithm>().ok());
            let key = Key { key, alg };
            match jwk.common.key_id {
                Some(kid) => {
                    set.by_kid.insert(kid, key);
                }
                None => set.without_kid.push(key),
            }
        }
        Ok(set)
    }

    fn pick<'s>(set: &'s KeySet, kid: Option<&str>, alg: Algorithm) -> Option<&'s Key> {
        let fits = |k: &&Key| k.key.family() == alg.family() && k.alg.is_none_or(|a| a == alg);
        match kid {
            Some(kid) => set.by_kid.get(kid).filter(fits),
            None => {
                let mut candidates = set.by_kid.values().chain(&set.without_kid).filter(fits);
                let only = candidates.next();
                // Without a kid, the key must be unambiguous.
                if candidates.next().is_some() {
                    None
                } else {
                    only
                }
            }
        }
    }

    async fn check(&self, token: &str) -> Result<Principal, TokenError> {
        let invalid = |why: &str| TokenError::Invalid(why.into());
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| invalid("the token is not a JWT with a supported algorithm"))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(invalid("the token's algorithm is not allowed"));
        }
        let kid = header.kid.as_deref();
        let mut set = self.key_set(false).await?;
        if Self::pick(&set, kid, header.alg).is_none()
            && kid.is_some_and(|k| !set.by_kid.contains_key(k))
        {
            set = self.key_set(true).await?;
        }
        let key = Self::pick(&set, kid, header.alg)
            .ok_or_else(|| invalid("no key of the issuer verifies this token"))?;

        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp", "iss"]);
        validation.set_issuer(&[&self.issuer]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation)
            .map_err(|e| {
                use jsonwebtoken::errors::ErrorKind as K;
                match e.kind() {
                    K::ExpiredSignature => invalid("the token has expired"),
                    K::ImmatureSignature => invalid("the token is not valid yet"),
                    K::InvalidIssuer => invalid("the token's issuer is not trusted here"),
                    K::InvalidSignature => invalid("the token's signature does not verify"),
                    K::MissingRequiredClaim(_) => invalid("the token lacks a required claim"),
                    _ => invalid("the token is invalid"),
                }
            })?;
        principal_from_claims(data.claims, Some(&self.issuer))
    }
}

impl TokenValidator for JwtValidator {
    fn validate<'a>(&'a self, token: &'a str) -> ValidateFuture<'a> {
        Box::pin(self.check(token))
    }
}

/// A principal from JWT claims or an introspection response: `sub` (or the client, for a
/// client's own token), `iss`, `scope` / `scp`, `client_id` / `azp`, `aud`, `exp`.
pub(crate) fn principal_from_claims(
    claims: Map<String, Value>,
    default_issuer: Option<&str>,
) -> Result<Principal, TokenError> {
    let text = |k: &str| claims.get(k).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id").or_else(|| text("azp"));
    let subject = text("sub")
        .or_else(|| client_id.clone())
        .ok_or_else(|| TokenError::Invalid("the token names no subject".into()))?;
    let issuer = text("iss").or_else(|| default_issuer.map(str::to_owned));
    let scopes: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) => s
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        (_, Some(Value::Array(a))) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        (_, Some(Value::String(s))) => s
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let audiences: Vec<String> = match claims.get("aud") {
        Some(Value::String(a)) => vec![a.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let expiry = claims
        .get("exp")
        .and_then(Value::as_u64)
        .map(|s| UNIX_EPOCH + Duration::from_secs(s));
    let mut p = Principal::new(subject)
        .with_scopes(scopes)
        .with_audiences(audiences);
    if let Some(i) = issuer {
        p = p.with_issuer(i);
    }
    if let Some(c) = client_id {
        p = p.with_client_id(c);
    }
    if let Some(e) = expiry {
        p = p.with_expiry(e);
    }
    Ok(p.with_claims(claims))
}
