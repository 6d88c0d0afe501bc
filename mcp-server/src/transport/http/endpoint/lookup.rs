//! Legacy sessions shared by several instances behind a load balancer: what a session needs
//! to continue on another instance is written to a [`SessionStore`] (Redis, with
//! `ferromcp-redis`), and an instance that gets a request for a session it does not hold
//! restores it from there, without a new `initialize`.
//!
//! The hot path stays local: an instance that holds a session serves it from memory, and
//! writes it through only when it changed (initialize, log level, subscriptions, the
//! server's per-session values). It
//! re-reads the shared record (which also refreshes its time to live) at most once per
//! [`HttpOptions::shared_session_recheck`](crate::http::HttpOptions::shared_session_recheck), so
//! what another instance changed or deleted is seen here within that bound.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::response::Response;
use ferromcp_core::ProtocolVersion;
use ferromcp_core::jsonrpc::RequestId;
use ferromcp_core::types::{ClientCapabilities, Implementation};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Endpoint;
use crate::engine::seal::caller_binding;
use crate::peer::session::{Connection, LegacySession, Negotiated, Transport};
use crate::peer::sink::Sink;
use crate::principal::Principal;
use crate::store::{SessionStore, StoreError};
use crate::transport::http::reply;
use crate::transport::http::session::{HttpSession, SharedStreams};

/// What a shared store keeps of a legacy session.
#[derive(Debug, Serialize, Deserialize)]
struct SessionRecord {
    /// The negotiated protocol version.
    v: ProtocolVersion,
    /// The client's capabilities.
    caps: ClientCapabilities,
    /// The client's `clientInfo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    info: Option<Implementation>,
    /// The log level: 0 never set, otherwise level index + 1.
    #[serde(default)]
    log: u8,
    /// The resource subscriptions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    subs: Vec<String>,
    /// The principal it is bound to: SHA-256 of issuer and subject (never the names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
    /// The server's per-session values (`SessionState`), by key, as JSON.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    data: BTreeMap<String, Value>,
}

impl SessionRecord {
    fn of(legacy: &LegacySession, owner: Option<&Principal>) -> Option<SessionRecord> {
        let negotiated = legacy.negotiated()?;
        Some(SessionRecord {
            v: negotiated.version,
            caps: (*negotiated.capabilities).clone(),
            info: negotiated.client_info.as_deref().cloned(),
            log: legacy.log_level_raw(),
            subs: legacy.subscriptions(),
            owner: caller_binding(owner),
            data: legacy.data().snapshot(),
        })
    }
}

/// `503` with `Retry-After`: the shared store is down.
fn unavailable(request: Option<&RequestId>, error: &StoreError) -> Response {
    tracing::warn!(%error, "a legacy request needs the shared session store, which failed");
    reply::busy(request, "the session store is unreachable; retry shortly")
}

impl Endpoint {
    fn shared_ttl(&self) -> Duration {
        self.options.session_idle_timeout
    }

    /// Where a new or restored session writes its stream events: the event store, if any.
    pub(crate) fn shared_streams(&self) -> SharedStreams {
        self.options
            .events
            .clone()
            .map(|store| (store, self.shared_ttl()))
    }

    /// The shared record of session `id` (its expiry reset); an unreadable one counts as
    /// none.
    #[allow(clippy::result_large_err)]
    async fn load_record(
        &self,
        shared: &dyn SessionStore,
        id: &str,
        request: Option<&RequestId>,
    ) -> Result<Option<SessionRecord>, Response> {
        match shared.load(id, self.shared_ttl()).await {
            Ok(Some(text)) => Ok(serde_json::from_str::<SessionRecord>(&text).ok()),
            Ok(None) => Ok(None),
            Err(e) => Err(unavailable(request, &e)),
        }
    }

    /// Checks a session this instance holds against the shared store, when its last check
    /// is older than the recheck window: another instance may have changed or ended it.
    #[allow(clippy::result_large_err)]
    pub(crate) async fn recheck(
        &self,
        shared: &dyn SessionStore,
        session: Arc<HttpSession>,
        request: Option<&RequestId>,
    ) -> Result<Arc<HttpSession>, Response> {
        if session.shared.fresh(self.options.shared_recheck) {
            return Ok(session);
        }
        let Some(record) = self.load_record(shared, session.id(), request).await? else {
            // Deleted or expired elsewhere.
            if let Some(gone) = self.store.remove(session.id()) {
                gone.end();
            }
            return Err(reply::session_not_found(request));
        };
        if let Some(legacy) = session.conn.session() {
            legacy.adopt(record.log, record.subs);
            legacy.data().adopt(record.data);
            session
                .shared
                .saved
                .store(legacy.revision(), Ordering::Release);
        }
        session.shared.checked_now();
        Ok(session)
    }

    /// The session `id` from the shared store, bound to the caller, now held here too.
    #[allow(clippy::result_large_err)]
    pub(crate) async fn restore(
        self: &Arc<Self>,
        shared: &dyn SessionStore,
        id: &str,
        caller: Option<&Principal>,
        request: Option<&RequestId>,
    ) -> Result<Arc<HttpSession>, Response> {
        let record = self.load_record(shared, id, request).await?;
        // Another principal's session is answered as an unknown one.
        let Some(record) = record.filter(|r| r.owner == caller_binding(caller)) else {
            return Err(reply::session_not_found(request));
        };
        // A concurrent request may have restored it meanwhile.
        if let Some(held) = self.store.get(id) {
            return Ok(held);
        }
        self.ensure_background();
        let conn = Arc::new(Connection::new(
            Sink::Discard,
            self.engine.config().client_request_timeout,
            Transport::Tcp,
        ));
        conn.decide(false);
        let Some(legacy) = conn.session() else {
            return Err(reply::session_not_found(request));
        };
        legacy.initialize(Negotiated {
            version: record.v,
            capabilities: Arc::new(record.caps),
            client_info: record.info.map(Arc::new),
        });
        // Held here from now on: it counts here, and its time here is recorded when it
        // ends here.
        legacy.observe(&self.engine.config().observer, record.v, Transport::Tcp);
        legacy.adopt(record.log, record.subs);
        legacy.data().adopt(record.data);
        let session = Arc::new(HttpSession::restored(
            id.to_owned(),
            conn,
            caller.cloned().map(Arc::new),
            self.shared_streams(),
        ));
        session
            .shared
            .saved
            .store(legacy.revision(), Ordering::Release);
        session.shared.checked_now();
        self.store.insert(session.clone());
        Ok(session)
    }

    /// Writes a session through to the shared store if it changed since it was last
    /// written. On failure the session must be re-read before it is trusted again.
    pub(crate) async fn write_through(&self, session: &HttpSession) -> Result<(), StoreError> {
        let Some(shared) = self.options.shared.as_deref() else {
            return Ok(());
        };
        let Some(legacy) = session.conn.session() else {
            return Ok(());
        };
        let revision = legacy.revision();
        if revision == session.shared.saved.load(Ordering::Acquire) {
            return Ok(());
        }
        let Some(record) = SessionRecord::of(&legacy, session.principal()) else {
            return Ok(());
        };
        let text = serde_json::to_string(&record).map_err(StoreError::malformed)?;
        match shared.save(session.id(), text, self.shared_ttl()).await {
            Ok(()) => {
                session.shared.saved.store(revision, Ordering::Release);
                session.shared.checked_now();
                Ok(())
            }
            Err(e) => {
                session.shared.forget();
                Err(e)
            }
        }
    }

    /// [`write_through`](Self::write_through) for a request's answer: a failure replaces
    /// the answer with 503 (the client retries; the change is re-applied then).
    pub(crate) async fn persist(
        &self,
        session: &HttpSession,
        request: Option<&RequestId>,
        response: Response,
    ) -> Response {
        match self.write_through(session).await {
            Ok(()) => response,
            Err(e) => unavailable(request, &e),
        }
    }

    /// DELETE with a shared store: the shared record goes first, so no instance restores
    /// the session afterwards.
    pub(crate) async fn remove_shared(&self, id: &str) -> Result<(), Response> {
        match self.options.shared.as_deref() {
            Some(shared) => shared.remove(id).await.map_err(|e| unavailable(None, &e)),
            None => Ok(()),
        }
    }
}
