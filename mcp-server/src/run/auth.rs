//! OAuth for [`run`](crate::run()): with feature `auth` and `--auth-issuer URL`, the HTTP
//! endpoint is a resource server of that authorization server; without the feature,
//! nothing.

use super::RunError;
use crate::http::HttpOptions;

/// `--auth-issuer URL [--auth-audience URL]`.
#[cfg(feature = "auth")]
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct AuthArgs {
    /// Over HTTP, every request needs a bearer token from this OAuth authorization server
    #[arg(long, value_name = "URL", requires = "http")]
    auth_issuer: Option<String>,
    /// The canonical URI tokens must be issued for (default: the server's own
    /// http://ADDR/mcp)
    #[arg(long, value_name = "URL", requires = "auth_issuer")]
    auth_audience: Option<String>,
}

/// No flags without feature `auth`.
#[cfg(not(feature = "auth"))]
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct AuthArgs {}

/// How a server adjusts the resource server's configuration (scopes, resource name).
#[cfg(feature = "auth")]
pub(super) type Configure = Box<dyn FnOnce(crate::auth::AuthConfig) -> crate::auth::AuthConfig>;

impl AuthArgs {
    /// `options` behind an [`AuthLayer`](crate::auth::AuthLayer) checking tokens of
    /// `--auth-issuer` (JWTs against its keys) issued for `--auth-audience`, by default the
    /// endpoint's `url`; `options` unchanged without `--auth-issuer`.
    #[cfg(feature = "auth")]
    pub(super) fn http(
        &self,
        options: HttpOptions,
        url: &str,
        configure: Option<Configure>,
    ) -> Result<HttpOptions, RunError> {
        use crate::auth::{AuthConfig, AuthLayer, JwtValidator};
        let Some(issuer) = &self.auth_issuer else {
            return Ok(options);
        };
        let audience = self.auth_audience.as_deref().unwrap_or(url);
        let invalid = |e: crate::auth::AuthConfigError| RunError::Auth(e.into());
        let mut config = AuthConfig::new(audience, issuer).map_err(invalid)?;
        if let Some(configure) = configure {
            config = configure(config);
        }
        let validator = JwtValidator::new(issuer).map_err(invalid)?;
        Ok(options.auth(AuthLayer::new(config, validator)))
    }

    /// No checks without feature `auth`.
    #[cfg(not(feature = "auth"))]
    pub(super) fn http(
        &self,
        options: HttpOptions,
        _url: &str,
        _configure: Option<Configure>,
    ) -> Result<HttpOptions, RunError> {
        Ok(options)
    }
}

/// Nothing to configure without feature `auth`.
#[cfg(not(feature = "auth"))]
pub(super) type Configure = std::convert::Infallible;

#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
impl super::Runner {
    /// Adjusts the resource server's configuration when `--auth-issuer` is given: its
    /// `scopes_supported`, `resource_name`, … (see [`AuthConfig`](crate::auth::AuthConfig)).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use ferromcp::prelude::*;
    /// # struct Demo;
    /// # #[ferromcp::server]
    /// # impl Demo {
    /// #     /// Adds.
    /// #     #[tool]
    /// #     fn add(&self, a: i64, b: i64) -> i64 { a + b }
    /// # }
    /// ferromcp::run::Runner::for_server::<Demo>()
    ///     .auth_config(|config| config.resource_name("Demo"))
    ///     .serve(Demo)
    /// ```
    pub fn auth_config(
        mut self,
        configure: impl FnOnce(crate::auth::AuthConfig) -> crate::auth::AuthConfig + 'static,
    ) -> Self {
        self.http.auth = Some(Box::new(configure));
        self
    }
}
