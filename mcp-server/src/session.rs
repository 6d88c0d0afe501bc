//! The legacy session a request belongs to, and the typed state a server keeps per session
//! (see docs/state.md).
//!
//! State lives in the session and ends with it. It is kept as JSON as well, so that a
//! shared session store carries it to whichever instance serves the session's next request.
//! The 2026-07-28 era has no sessions: there, state the client returns to is named by a
//! handle passed as an argument.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use ferromcp_core::error::ErrorObject;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::context::Context;
use crate::extract::FromContext;
use crate::peer::data::{DataError, MAX_SESSION_DATA};
use crate::peer::session::LegacySession;

/// A type a server keeps per session, with [`SessionState`] or [`Session::update`].
///
/// It is stored as JSON under [`KEY`](Self::KEY), so that it can move between instances
/// that share a session store; [`Default`] is its value in a new session.
///
/// # Examples
///
/// ```
/// use ferromcp::session::SessionData;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Default, Serialize, Deserialize)]
/// struct Counter {
///     count: u64,
/// }
///
/// impl SessionData for Counter {
///     const KEY: &'static str = "counter";
/// }
/// ```
pub trait SessionData: Serialize + DeserializeOwned + Default + Send + Sync + 'static {
    /// The value's key in the session: the same on every instance and in every build that
    /// serves the session (a rolling deploy shares sessions between two builds), and
    /// unique among the server's session types.
    const KEY: &'static str;
}

/// Why a session's state was not changed.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The request has no session (2026-07-28): pass a handle as an argument instead
    /// (docs/state.md).
    #[error(
        "this request has no session (2026-07-28 is stateless): pass a handle as an argument, see docs/state.md"
    )]
    Stateless,
    /// The session's state would outgrow its limit (bytes of JSON, all types together).
    #[error("the session's state would outgrow its limit of {limit} bytes")]
    TooLarge {
        /// The limit, in bytes of JSON.
        limit: usize,
    },
    /// The value did not serialize as JSON.
    #[error("the session's state did not serialize")]
    Serialize(#[source] serde_json::Error),
}

/// The legacy (2025) session a request belongs to: its id and its state.
///
/// Take it as a handler parameter, or read [`Context::session`]. Over stdio the pipe is
/// the session (no id); in the 2026-07-28 era there is none, and taking it ends the
/// request with an invalid-request error (-32600) that points to docs/state.md.
#[derive(Clone)]
pub struct Session {
    legacy: Arc<LegacySession>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// The session's `Mcp-Session-Id` over HTTP; `None` over stdio.
    pub fn id(&self) -> Option<&str> {
        self.legacy.http_id()
    }

    /// The session's `T`: `T::default()` until it is first updated (or when what is stored
    /// no longer reads as `T`, after a change of type; logged).
    pub fn get<T: SessionData + Clone>(&self) -> T {
        self.legacy.data().get::<T>(T::KEY)
    }

    /// Changes the session's `T` with `f` and returns what `f` returns. A shared session
    /// store sees the change before the request's answer.
    ///
    /// # Errors
    ///
    /// [`SessionError::TooLarge`] when the session's state would then outgrow 64 KiB of
    /// JSON, [`SessionError::Serialize`] when `T` does not serialize: in both cases the
    /// state is left as it was.
    pub fn update<T: SessionData, R>(
        &self,
        f: impl FnOnce(&mut T) -> R,
    ) -> Result<R, SessionError> {
        let out = self
            .legacy
            .data()
            .update::<T, R>(T::KEY, f)
            .map_err(|e| match e {
                DataError::TooLarge => SessionError::TooLarge {
                    limit: MAX_SESSION_DATA,
                },
                DataError::Serialize(e) => SessionError::Serialize(e),
            })?;
        self.legacy.changed();
        Ok(out)
    }
}

impl Context {
    /// The legacy session of this request; `None` in the 2026-07-28 era, which has none.
    pub fn session(&self) -> Option<Session> {
        self.legacy_session().map(|legacy| Session {
            legacy: legacy.clone(),
        })
    }
}

fn stateless() -> ErrorObject {
    ErrorObject::invalid_request(SessionError::Stateless.to_string())
}

impl FromContext for Session {
    fn from_context(ctx: &Context) -> Result<Self, ErrorObject> {
        ctx.session().ok_or_else(stateless)
    }
}

/// The session's `T`, as a handler parameter: [`Session::get`] and [`Session::update`]
/// for one type.
///
/// Taking it in the 2026-07-28 era ends the request with an invalid-request error (-32600)
/// that points to docs/state.md.
///
/// # Examples
///
/// ```
/// use ferromcp::prelude::*;
/// use ferromcp::session::{SessionData, SessionError, SessionState};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Default, Serialize, Deserialize)]
/// struct Counter {
///     count: u64,
/// }
///
/// impl SessionData for Counter {
///     const KEY: &'static str = "counter";
/// }
///
/// struct Counting;
///
/// #[ferromcp::server]
/// impl Counting {
///     /// Adds one to this session's count.
///     #[tool]
///     fn increment(&self, counter: SessionState<Counter>) -> Result<String, SessionError> {
///         counter.update(|c| { c.count += 1; c.count.to_string() })
///     }
/// }
/// # let _ = Server::builder(Counting).build().unwrap();
/// ```
pub struct SessionState<T: SessionData> {
    session: Session,
    _type: PhantomData<fn() -> T>,
}

impl<T: SessionData> SessionState<T> {
    /// The session's `T` ([`Session::get`]).
    pub fn get(&self) -> T
    where
        T: Clone,
    {
        self.session.get::<T>()
    }

    /// Changes the session's `T` ([`Session::update`]).
    ///
    /// # Errors
    ///
    /// As [`Session::update`].
    pub fn update<R>(&self, f: impl FnOnce(&mut T) -> R) -> Result<R, SessionError> {
        self.session.update::<T, R>(f)
    }

    /// The session itself.
    pub fn session(&self) -> &Session {
        &self.session
    }
}

impl<T: SessionData> Clone for SessionState<T> {
    fn clone(&self) -> Self {
        SessionState {
            session: self.session.clone(),
            _type: PhantomData,
        }
    }
}

impl<T: SessionData> fmt::Debug for SessionState<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionState")
            .field("key", &T::KEY)
            .field("session", &self.session)
            .finish()
    }
}

impl<T: SessionData> FromContext for SessionState<T> {
    fn from_context(ctx: &Context) -> Result<Self, ErrorObject> {
        let session = Session::from_context(ctx)?;
        Ok(SessionState {
            session,
            _type: PhantomData,
        })
    }
}
