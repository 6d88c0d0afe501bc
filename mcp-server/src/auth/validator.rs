//! The seam between the layer and whatever knows what a token means.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crate::principal::Principal;

/// The future a [`TokenValidator`] returns.
pub type ValidateFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Principal, TokenError>> + Send + 'a>>;

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is not valid (bad signature, expired, unknown, revoked, …): 401
    /// `invalid_token`. The reason goes to the client as `error_description`, so it must
    /// not contain the token.
    #[error("{0}")]
    Invalid(String),
    /// The token could not be checked now (the authorization server is unreachable): 503.
    #[error("token validation unavailable: {0}")]
    Unavailable(String),
}

/// Turns a bearer token into the [`Principal`] it stands for.
///
/// Fill in the issuer, the audiences and the expiry: the [`AuthLayer`](super::AuthLayer)
/// checks them against its [`AuthConfig`](super::AuthConfig) whatever the validator, so a
/// validator that leaves them out has its tokens refused.
///
/// # Examples
///
/// ```
/// use ferromcp::Principal;
/// use ferromcp::auth::{TokenError, TokenValidator, ValidateFuture};
///
/// /// Tokens listed in a table, as a test double or for a closed deployment.
/// struct Table(Vec<(String, Principal)>);
///
/// impl TokenValidator for Table {
///     fn validate<'a>(&'a self, token: &'a str) -> ValidateFuture<'a> {
///         Box::pin(async move {
///             self.0
///                 .iter()
///                 .find(|(t, _)| t == token)
///                 .map(|(_, p)| p.clone())
///                 .ok_or_else(|| TokenError::Invalid("unknown token".into()))
///         })
///     }
/// }
/// ```
pub trait TokenValidator: Send + Sync + 'static {
    /// The principal `token` stands for.
    ///
    /// # Errors
    ///
    /// [`TokenError::Invalid`] for a token to refuse, [`TokenError::Unavailable`] when it
    /// cannot be checked now.
    fn validate<'a>(&'a self, token: &'a str) -> ValidateFuture<'a>;

    /// How long the layer may reuse a validation before asking again; `None` (the default)
    /// means until the token expires. Validators of revocable tokens keep it short.
    fn cache_ttl(&self) -> Option<Duration> {
        None
    }
}

impl<V: TokenValidator + ?Sized> TokenValidator for std::sync::Arc<V> {
    fn validate<'a>(&'a self, token: &'a str) -> ValidateFuture<'a> {
        (**self).validate(token)
    }

    fn cache_ttl(&self) -> Option<Duration> {
        (**self).cache_ttl()
    }
}
