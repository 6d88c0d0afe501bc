//! Extractors: handler parameters filled from the request rather than from the client's
//! arguments, and never part of an input schema.
//!
//! In a `#[tool]`, a parameter whose type implements [`FromContext`] is an extractor (an
//! alias or a re-export included), whatever it is called; every other parameter is an
//! argument. In resources, prompts and completions, a parameter is an extractor when its
//! type's last path segment is `Context` or `State`, or when it is marked `#[extract]`.
//! Extractors may appear anywhere in the parameter list and can be destructured
//! (`State(db): State<Db>`).
//!
//! # Examples
//!
//! ```
//! use ferromcp::extract::{FromContext, State};
//! use ferromcp::error::ErrorObject;
//! use ferromcp::prelude::*;
//!
//! struct Db { prefix: String }
//!
//! /// The id of the client that sent the request, or `anonymous`.
//! struct ClientName(String);
//!
//! impl FromContext for ClientName {
//!     fn from_context(ctx: &Context) -> Result<Self, ErrorObject> {
//!         Ok(ClientName(ctx.client_info().map_or("anonymous".into(), |i| i.name.clone())))
//!     }
//! }
//!
//! struct Greeter;
//!
//! #[ferromcp::server]
//! impl Greeter {
//!     /// Greets the caller.
//!     #[tool]
//!     fn greet(&self, State(db): State<Db>, #[extract] client: ClientName, name: String) -> String {
//!         format!("{}{name} (via {})", db.prefix, client.0)
//!     }
//! }
//!
//! let server = Server::builder(Greeter)
//!     .state(Db { prefix: "Hello, ".into() })
//!     .build()
//!     .unwrap();
//! assert_eq!(server.registry().tool_names(), ["greet"]);
//! ```

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use ferromcp_core::error::ErrorObject;
use ferromcp_core::types::RequestMetaObject;
use tokio_util::sync::CancellationToken;

use crate::context::Context;
use crate::principal::Principal;
#[cfg(feature = "http")]
pub use crate::request::HttpRequest;

/// A value a handler can take from the request being served.
///
/// Implement it for your own types (authenticated user, request-scoped services, …): a
/// parameter of such a type is filled from the request (in a `#[tool]` or a `#[prompt]`, by
/// its type alone; in a `#[resource]`, when it is named after no template variable; in a
/// `#[completion]`, when it is not the partial `String`). `#[extract]` says so explicitly.
/// An `Err` ends the request with that JSON-RPC error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from the request context",
    label = "this parameter is an extractor, but `{Self}` does not implement `FromContext`",
    note = "extractors are `Context`, `State<T>` and types implementing `ferromcp::extract::FromContext`; a parameter is one when it is marked #[extract] or sits beside an #[args] struct, in a #[resource] when it is named after no variable of the URI template, in a #[completion] when it is not the partial `String`"
)]
pub trait FromContext: Sized {
    /// The value for the request `ctx` serves.
    ///
    /// # Errors
    ///
    /// The value is not available: the request ends with this error.
    fn from_context(ctx: &Context) -> Result<Self, ErrorObject>;
}

impl FromContext for Context {
    fn from_context(ctx: &Context) -> Result<Self, ErrorObject> {
        Ok(ctx.clone())
    }
}

impl FromContext for CancellationToken {
    fn from_context(ctx: &Context) -> Result<Self, ErrorObject> {
        Ok(ctx.cancellation_token())
    }
}

/// The caller, as the HTTP request's authentication established it (see
/// [`Context::principal`]). Taking it on a request without one (stdio, unauthenticated HTTP)
/// ends the request with an invalid-request error (-32600).
impl FromContext for Principal {
    fn from_context(ctx: &Context) -> Result<Self, ErrorObject> {
        ctx.principal()
            .cloned()
            .ok_or_else(|| ErrorObject::invalid_request("this request has no authenticated caller"))
    }
}

/// The HTTP request the message came in (see [`Context::http_request`]). Taking it on a
/// request that came another way (stdio) ends the request with an invalid-request error
/// (-32600).
#[cfg(feature = "http")]
impl FromContext for HttpRequest {
    fn from_context(ctx: &Context) -> Result<Self, ErrorObject> {
        ctx.http_request().cloned().ok_or_else(|| {
            ErrorObject::invalid_request(
                "this request did not come over HTTP: there is no HTTP request to read",
            )
        })
    }
}

/// The request's `_meta` (see [`Context::meta`]), copied; empty when the request had none.
/// [`Context::meta`] reads it without a copy.
impl FromContext for RequestMetaObject {
    fn from_context(ctx: &Context) -> Result<Self, ErrorObject> {
        Ok(ctx.meta().cloned().unwrap_or_default())
    }
}

/// Shared application state of type `T`, registered with
/// [`ServerBuilder::state`](crate::ServerBuilder::state).
///
/// Taking `State<T>` when no `T` was registered ends the request with an internal error
/// (-32603) naming `T`.
pub struct State<T: ?Sized>(pub Arc<T>);

impl<T: Send + Sync + 'static> FromContext for State<T> {
    fn from_context(ctx: &Context) -> Result<Self, ErrorObject> {
        ctx.state::<T>().map(State).ok_or_else(|| {
            ErrorObject::internal_error(format!(
                "no shared state of type `{}` is registered (add it with ServerBuilder::state)",
                std::any::type_name::<T>()
            ))
        })
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(self.0.clone())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&self.0).finish()
    }
}
