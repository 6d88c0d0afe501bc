//! An OAuth 2.1 resource server for the HTTP endpoint (feature `auth`): protected-resource
//! metadata (RFC 9728), bearer tokens checked on every request, audience binding (RFC 8707)
//! and scope challenges, as the MCP authorization specification asks of remote servers.
//!
//! - [`AuthConfig`]: the server's canonical URI, the authorization servers it trusts, the
//!   audience policy and the scopes every request needs.
//! - [`TokenValidator`]: turns a bearer token into a [`Principal`](crate::Principal).
//!   [`JwtValidator`] checks signed JWTs against the issuer's published keys;
//!   [`IntrospectionValidator`] asks the authorization server about opaque tokens
//!   (RFC 7662); or implement it yourself.
//! - [`AuthLayer`]: the tower layer that serves the metadata, answers `401` / `403` with the
//!   `WWW-Authenticate` challenges clients use to find the authorization server and step
//!   up, and puts the [`Principal`](crate::Principal) on the request for the endpoint
//!   (legacy sessions are bound to it) and for handlers.
//!
//! Authorization applies to HTTP only: a stdio server takes its credentials from its
//! environment.
//!
//! # Examples
//!
//! ```no_run
//! use ferromcp::auth::{AuthConfig, AuthLayer, JwtValidator};
//! use ferromcp::http::HttpOptions;
//!
//! # async fn run(server: ferromcp::Server) -> Result<(), Box<dyn std::error::Error>> {
//! let config = AuthConfig::new("https://mcp.example.com/mcp", "https://auth.example.com")?
//!     .required_scopes(["mcp"]);
//! let validator = JwtValidator::new("https://auth.example.com")?;
//! let options = HttpOptions::default().auth(AuthLayer::new(config, validator));
//! server.serve_http("0.0.0.0:8080").options(options).await?;
//! # Ok(())
//! # }
//! ```

mod bearer;
mod cache;
mod config;
mod fetch;
mod introspection;
mod jwt;
mod layer;
mod validator;

pub use config::{AudiencePolicy, AuthConfig, AuthConfigError};
pub use introspection::IntrospectionValidator;
pub use jsonwebtoken::Algorithm;
pub use jwt::JwtValidator;
pub use layer::{AuthFuture, AuthLayer, AuthService};
pub use validator::{TokenError, TokenValidator, ValidateFuture};
