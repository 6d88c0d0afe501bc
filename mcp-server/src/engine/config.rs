//! [`Engine`]: what one server's protocol engine holds — its configuration, registry,
//! `requestState` sealer and shared state — behind one cheap handle.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{CacheHints, Implementation};
use serde_json::value::RawValue;

use super::seal::Sealer;
use super::tasks::Tasks;
use crate::context::Host;
use crate::custom::Custom;
use crate::extension::Extensions;
use crate::observe::Observer;
use crate::registry::Registry;

/// A server's configuration, set by `ServerBuilder`.
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    /// Newest first, each once (`ServerBuilder::protocol_versions`).
    pub(crate) versions: Vec<ProtocolVersion>,
    pub(crate) tool_timeout: Duration,
    pub(crate) client_request_timeout: Duration,
    pub(crate) list_cache: CacheHints,
    pub(crate) read_cache: CacheHints,
    pub(crate) discover_cache: CacheHints,
    pub(crate) max_in_flight: usize,
    pub(crate) max_message_size: usize,
    pub(crate) max_response_size: usize,
    /// What requests, sessions, tasks and messages are reported to.
    pub(crate) observer: Arc<dyn Observer>,
    /// Custom methods (`ServerBuilder::method`).
    pub(crate) custom: Custom,
    /// Installed extensions (`ServerBuilder::extension`), declared in the capabilities.
    pub(crate) extensions: Extensions,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("info", &self.info)
            .field("versions", &self.versions)
            .field("tool_timeout", &self.tool_timeout)
            .finish_non_exhaustive()
    }
}

/// Application state by type, shared by every request.
pub(crate) type StateMap = HashMap<TypeId, Arc<dyn Any + Send + Sync>>;

struct Inner {
    config: Config,
    /// `config.info` as JSON, written once: every 2026 result carries it.
    server_info: Box<RawValue>,
    registry: Registry,
    sealer: Sealer,
    state: StateMap,
    tasks: Tasks,
}

/// The protocol engine of one server. Transports hand it messages and frame its replies;
/// `Server` is its public face. Cheap to clone; clones share everything.
#[derive(Clone)]
pub(crate) struct Engine {
    inner: Arc<Inner>,
}

impl Engine {
    pub(crate) fn new(
        config: Config,
        registry: Registry,
        sealer: Sealer,
        state: StateMap,
        tasks: Tasks,
    ) -> Engine {
        // An `Implementation` is strings and JSON values: it always serializes.
        let server_info = ferromcp_core::jsonrpc::to_string(&config.info)
            .ok()
            .and_then(|json| RawValue::from_string(json).ok())
            .unwrap_or_else(|| RawValue::NULL.to_owned());
        Engine {
            inner: Arc::new(Inner {
                config,
                server_info,
                registry,
                sealer,
                state,
                tasks,
            }),
        }
    }

    pub(crate) fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The server's self-description as JSON (2026 `serverInfo`).
    pub(crate) fn server_info(&self) -> &RawValue {
        &self.inner.server_info
    }

    pub(crate) fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    pub(crate) fn sealer(&self) -> &Sealer {
        &self.inner.sealer
    }

    /// The server's tasks: their store and the ones running here.
    pub(crate) fn tasks(&self) -> &Tasks {
        &self.inner.tasks
    }

    /// Shared state of type `T`.
    pub(crate) fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.inner.state(TypeId::of::<T>())?.downcast::<T>().ok()
    }

    /// This engine as a request context's host.
    pub(crate) fn host(&self) -> Arc<dyn Host> {
        self.inner.clone()
    }

    /// The engine a context's host is. Every context is made by an engine, so the host is
    /// always one.
    pub(crate) fn from_host(host: Arc<dyn Host>) -> Engine {
        match host.into_any().downcast::<Inner>() {
            Ok(inner) => Engine { inner },
            Err(_) => unreachable!("every Context is made by an Engine"),
        }
    }
}

impl Host for Inner {
    fn state(&self, type_id: TypeId) -> Option<Arc<dyn Any + Send + Sync>> {
        self.state.get(&type_id).cloned()
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }

    fn observer(&self) -> &dyn Observer {
        &*self.config.observer
    }
}
