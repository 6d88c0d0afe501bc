//! What the resource server is and whom it trusts.

use http::Uri;

/// A configuration mistake, reported when the configuration is built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthConfigError {
    /// The URI is not an absolute `https://` URI (or `http://` on a loopback host) without a
    /// fragment.
    #[error(
        "{what} must be an absolute https:// URI without a fragment (http:// only on localhost, 127.0.0.1 or [::1]), found `{uri}`"
    )]
    InvalidUri {
        /// Which setting.
        what: &'static str,
        /// The value given.
        uri: String,
    },
    /// HMAC algorithms need a shared secret; an issuer's published keys are public.
    #[error("{0:?} is not allowed: HMAC keys are secret, an issuer's published keys are public")]
    SymmetricAlgorithm(jsonwebtoken::Algorithm),
    /// No algorithm is allowed at all.
    #[error("the algorithm allow-list is empty")]
    NoAlgorithm,
}

/// Which `aud` values a token must carry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AudiencePolicy {
    /// The canonical URI must be one of the token's audiences (the default).
    #[default]
    Contains,
    /// The token's only audience must be the canonical URI: a token also valid at other
    /// resources is refused.
    Exactly,
    /// One of these must be among the token's audiences (for a server known to its
    /// authorization server by another identifier).
    AnyOf(Vec<String>),
}

impl AudiencePolicy {
    pub(crate) fn accepts(&self, resource: &str, audiences: &[String]) -> bool {
        match self {
            AudiencePolicy::Contains => audiences.iter().any(|a| a == resource),
            AudiencePolicy::Exactly => audiences.len() == 1 && audiences[0] == resource,
            AudiencePolicy::AnyOf(allowed) => audiences.iter().any(|a| allowed.contains(a)),
        }
    }
}

/// The resource server's settings: its canonical URI, the authorization servers whose
/// tokens it accepts, the audience policy, and the scopes.
///
/// # Examples
///
/// ```
/// use ferromcp::auth::{AudiencePolicy, AuthConfig};
///
/// let config = AuthConfig::new("https://mcp.example.com/mcp", "https://auth.example.com")
///     .unwrap()
///     .audience(AudiencePolicy::Exactly)
///     .required_scopes(["mcp"])
///     .scopes_supported(["mcp", "incidents:write"]);
/// assert_eq!(config.resource(), "https://mcp.example.com/mcp");
///
/// let err = AuthConfig::new("http://mcp.example.com/mcp", "https://auth.example.com").unwrap_err();
/// assert!(err.to_string().contains("https://"));
/// ```
#[derive(Debug, Clone)]
pub struct AuthConfig {
    pub(crate) resource: String,
    pub(crate) resource_path: String,
    pub(crate) issuers: Vec<String>,
    pub(crate) audience: AudiencePolicy,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) scopes_supported: Vec<String>,
    pub(crate) resource_name: Option<String>,
    pub(crate) resource_documentation: Option<String>,
}

impl AuthConfig {
    /// A resource server known as `resource` (its canonical URI, the MCP endpoint's URL as
    /// clients use it, e.g. `https://mcp.example.com/mcp`) that accepts tokens from the
    /// authorization server `issuer`.
    ///
    /// # Errors
    ///
    /// Either URI is not `https://` (or `http://` on a loopback host), is relative, or has a
    /// fragment.
    pub fn new(
        resource: impl Into<String>,
        issuer: impl Into<String>,
    ) -> Result<AuthConfig, AuthConfigError> {
        let resource = resource.into();
        let uri = checked_uri("the canonical URI", &resource)?;
        let issuer = issuer.into();
        checked_uri("the issuer", &issuer)?;
        Ok(AuthConfig {
            resource_path: uri.path().trim_end_matches('/').to_owned(),
            resource,
            issuers: vec![issuer],
            audience: AudiencePolicy::default(),
            required_scopes: Vec::new(),
            scopes_supported: Vec::new(),
            resource_name: None,
            resource_documentation: None,
        })
    }

    /// Also accepts tokens from `issuer`.
    ///
    /// # Errors
    ///
    /// The issuer is not an `https://` URI (or `http://` on a loopback host).
    pub fn authorization_server(
        mut self,
        issuer: impl Into<String>,
    ) -> Result<AuthConfig, AuthConfigError> {
        let issuer = issuer.into();
        checked_uri("the issuer", &issuer)?;
        self.issuers.push(issuer);
        Ok(self)
    }

    /// Which audiences a token must carry (default: [`AudiencePolicy::Contains`]).
    #[must_use]
    pub fn audience(mut self, policy: AudiencePolicy) -> AuthConfig {
        self.audience = policy;
        self
    }

    /// Scopes every request needs, named in the `401` challenge (never `offline_access`,
    /// which is dropped) and answered with `403 insufficient_scope` when missing.
    #[must_use]
    pub fn required_scopes<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> AuthConfig {
        self.required_scopes = scopes
            .into_iter()
            .map(Into::into)
            .filter(|s| s != "offline_access")
            .collect();
        self
    }

    /// The scopes listed in the metadata's `scopes_supported` (the required ones are always
    /// listed). When not set, the metadata lists the required scopes and every scope the
    /// server's tools, resources and prompts declare (`#[tool(scopes = [...])]`,
    /// [`Registry::require_scopes`](crate::registry::Registry::require_scopes)), sorted.
    #[must_use]
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> AuthConfig {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The metadata's human-readable `resource_name`.
    #[must_use]
    pub fn resource_name(mut self, name: impl Into<String>) -> AuthConfig {
        self.resource_name = Some(name.into());
        self
    }

    /// The metadata's `resource_documentation` URL.
    #[must_use]
    pub fn resource_documentation(mut self, url: impl Into<String>) -> AuthConfig {
        self.resource_documentation = Some(url.into());
        self
    }

    /// The canonical URI.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The trusted issuers.
    pub fn issuers(&self) -> &[String] {
        &self.issuers
    }

    /// The metadata's `scopes_supported`: the required scopes, then the configured ones;
    /// when none are configured, the required and the `declared` ones, sorted, each once.
    pub(crate) fn supported_scopes(&self, declared: Option<Vec<String>>) -> Vec<String> {
        let mut scopes = self.required_scopes.clone();
        match declared {
            Some(declared) if self.scopes_supported.is_empty() => {
                scopes.extend(declared);
                scopes.sort_unstable();
                scopes.dedup();
            }
            _ => {
                for s in &self.scopes_supported {
                    if !scopes.contains(s) {
                        scopes.push(s.clone());
                    }
                }
            }
        }
        scopes
    }

    /// The protected-resource metadata document (RFC 9728), offering `scopes`.
    pub(crate) fn metadata(&self, scopes: &[String]) -> serde_json::Value {
        let mut doc = serde_json::json!({
            "resource": self.resource,
            "authorization_servers": self.issuers,
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
        });
        if let Some(name) = &self.resource_name {
            doc["resource_name"] = name.as_str().into();
        }
        if let Some(url) = &self.resource_documentation {
            doc["resource_documentation"] = url.as_str().into();
        }
        doc
    }

    /// The metadata's path-inserted well-known path (`/.well-known/oauth-protected-resource/mcp`).
    pub(crate) fn metadata_path(&self) -> String {
        format!("{ROOT_METADATA_PATH}{}", self.resource_path)
    }

    /// The metadata's URL, for `resource_metadata` in challenges.
    pub(crate) fn metadata_url(&self) -> String {
        let origin_end = self
            .resource
            .find("://")
            .and_then(|i| self.resource[i + 3..].find('/').map(|j| i + 3 + j))
            .unwrap_or(self.resource.len());
        format!("{}{}", &self.resource[..origin_end], self.metadata_path())
    }
}

pub(crate) const ROOT_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// `uri` parsed, if it is absolute, has no fragment, and is https (or http on loopback).
pub(crate) fn checked_uri(what: &'static str, uri: &str) -> Result<Uri, AuthConfigError> {
    let invalid = || AuthConfigError::InvalidUri {
        what,
        uri: uri.to_owned(),
    };
    if uri.contains('#') {
        return Err(invalid());
    }
    let parsed: Uri = uri.parse().map_err(|_| invalid())?;
    let host = parsed.host().ok_or_else(invalid)?;
    match parsed.scheme_str() {
        Some("https") => Ok(parsed),
        Some("http") if is_loopback(host) => Ok(parsed),
        _ => Err(invalid()),
    }
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host == "[::1]"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_uris_must_be_https_outside_loopback() {
        for ok in [
            "https://mcp.example.com/mcp",
            "http://127.0.0.1:8080/mcp",
            "http://localhost/mcp",
            "http://[::1]:9/mcp",
        ] {
            assert!(
                AuthConfig::new(ok, "https://as.example.com").is_ok(),
                "{ok}"
            );
        }
        for bad in [
            "http://mcp.example.com/mcp",
            "/mcp",
            "https://mcp.example.com/mcp#frag",
            "ftp://mcp.example.com/mcp",
            "http://127.0.0.1.example.com/mcp",
        ] {
            assert!(
                AuthConfig::new(bad, "https://as.example.com").is_err(),
                "{bad}"
            );
        }
        assert!(AuthConfig::new("https://mcp.example.com/mcp", "http://as.example.com").is_err());
    }

    #[test]
    fn the_metadata_url_inserts_the_well_known_path() {
        let c = AuthConfig::new(
            "https://mcp.example.com:8443/tenant/mcp/",
            "https://as.example.com",
        )
        .unwrap();
        assert_eq!(
            c.metadata_url(),
            "https://mcp.example.com:8443/.well-known/oauth-protected-resource/tenant/mcp"
        );
        let root = AuthConfig::new("https://mcp.example.com", "https://as.example.com").unwrap();
        assert_eq!(
            root.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn audience_policies() {
        let us = "https://mcp.example.com/mcp";
        let both = vec![us.to_owned(), "https://other.example.com".to_owned()];
        assert!(AudiencePolicy::Contains.accepts(us, &both));
        assert!(!AudiencePolicy::Exactly.accepts(us, &both));
        assert!(AudiencePolicy::Exactly.accepts(us, &[us.to_owned()]));
        assert!(!AudiencePolicy::Contains.accepts(us, &["https://other.example.com".to_owned()]));
        assert!(!AudiencePolicy::Contains.accepts(us, &[]));
        assert!(AudiencePolicy::AnyOf(vec!["api://mcp".into()]).accepts(us, &["api://mcp".into()]));
    }

    #[test]
    fn offline_access_is_never_required() {
        let c = AuthConfig::new("https://mcp.example.com/mcp", "https://as.example.com")
            .unwrap()
            .required_scopes(["mcp", "offline_access"]);
        assert_eq!(c.required_scopes, ["mcp"]);
    }
}
