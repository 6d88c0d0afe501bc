//! [`Server`]: a registry plus its configuration, ready to be served over any transport.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use mcp_core::ProtocolVersion;
use mcp_core::types::{CacheHints, Implementation};

use crate::engine::seal::{MIN_KEY_LEN, Sealer};
use crate::registry::{ListSettings, Registry, RegistryError};

/// What `#[server]` implements for an annotated `impl` block: the server's identity and the
/// registration of its tools, resources, prompts and completions.
pub trait McpServer: Send + Sync + Sized + 'static {
    /// Name, version and title sent to clients (`serverInfo`).
    fn server_info() -> Implementation;

    /// Usage instructions for the model, sent to clients.
    fn instructions() -> Option<&'static str> {
        None
    }

    /// Adds every primitive of this server to `registry`.
    ///
    /// # Errors
    ///
    /// A duplicate or invalid registration.
    fn register(this: Arc<Self>, registry: &Registry) -> Result<(), RegistryError>;
}

/// A server's configuration; build it with [`ServerBuilder`].
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) versions: Vec<ProtocolVersion>,
    pub(crate) tool_timeout: Duration,
    pub(crate) client_request_timeout: Duration,
    pub(crate) list_cache: CacheHints,
    pub(crate) read_cache: CacheHints,
    pub(crate) discover_cache: CacheHints,
    pub(crate) max_in_flight: usize,
    pub(crate) max_message_size: usize,
    pub(crate) max_response_size: usize,
}

pub(crate) struct Inner {
    pub(crate) config: Config,
    pub(crate) registry: Registry,
    pub(crate) sealer: Sealer,
    state: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

/// An MCP server: its registry, configuration and shared state. Cheap to clone; clones share
/// everything.
///
/// # Examples
///
/// ```
/// use mcp_server::{Server, registry::tool_fn};
/// use mcp_server::types::Tool;
///
/// let server = Server::builder("demo", "1.0.0").build();
/// let schema = serde_json::json!({"type": "object"}).as_object().unwrap().clone();
/// server
///     .registry()
///     .add_tool(Tool::new("hello", schema), tool_fn(|_: serde_json::Value, _ctx| async { "hi" }), None)
///     .unwrap();
/// assert_eq!(server.registry().tool_names(), ["hello"]);
/// ```
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.config.info)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server for a `#[server]` type, with default settings.
    ///
    /// # Errors
    ///
    /// The type's primitives collide (the macros rule this out at compile time for one
    /// `impl` block).
    pub fn new<S: McpServer>(handler: S) -> Result<Server, RegistryError> {
        ServerBuilder::from_handler::<S>().handler(handler)
    }

    /// A builder for a server with this name and version and no primitives yet.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(Implementation::new(name, version))
    }

    /// The tools, resources, prompts and completions; change them at run time and clients
    /// are notified.
    pub fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    /// The name, version and title sent to clients.
    pub fn info(&self) -> &Implementation {
        &self.inner.config.info
    }

    /// Shared state of type `T` registered with [`ServerBuilder::state`].
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.inner
            .state
            .get(&TypeId::of::<T>())
            .cloned()
            .and_then(|s| s.downcast::<T>().ok())
    }

    pub(crate) fn config(&self) -> &Config {
        &self.inner.config
    }
}

/// Configures a [`Server`].
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use mcp_server::Server;
///
/// let server = Server::builder("notes", "1.0.0")
///     .instructions("Use `search` before `read`.")
///     .tool_timeout(Duration::from_secs(30))
///     .page_size(50)
///     .build();
/// assert_eq!(server.info().name, "notes");
/// ```
#[derive(Debug)]
pub struct ServerBuilder {
    config: Config,
    keys: Vec<Vec<u8>>,
    state_ttl: Duration,
    page_size: usize,
    state: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl ServerBuilder {
    fn new(info: Implementation) -> ServerBuilder {
        ServerBuilder {
            config: Config {
                info,
                instructions: None,
                versions: ProtocolVersion::ALL.to_vec(),
                tool_timeout: Duration::from_secs(60),
                client_request_timeout: Duration::from_secs(300),
                list_cache: CacheHints::default(),
                read_cache: CacheHints::default(),
                discover_cache: CacheHints::default(),
                max_in_flight: 64,
                max_message_size: 4 * 1024 * 1024,
                max_response_size: 10 * 1024 * 1024,
            },
            keys: Vec::new(),
            state_ttl: Duration::from_secs(600),
            page_size: 100,
            state: HashMap::new(),
        }
    }

    /// A builder taking its name, version and instructions from a `#[server]` type.
    pub fn from_handler<S: McpServer>() -> ServerBuilder {
        let mut b = ServerBuilder::new(S::server_info());
        b.config.instructions = S::instructions().map(str::to_owned);
        b
    }

    /// Usage instructions for the model.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.config.instructions = Some(instructions.into());
        self
    }

    /// A human-readable display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.config.info.title = Some(title.into());
        self
    }

    /// The protocol revisions to serve (default: all four). A client asking for another one
    /// gets the newest of these (legacy `initialize`) or -32022 (modern).
    pub fn protocol_versions(mut self, versions: &[ProtocolVersion]) -> Self {
        self.config.versions = versions.to_vec();
        self
    }

    /// How long a tool call may run before it ends with an error (default 60 s); a tool can
    /// set its own.
    pub fn tool_timeout(mut self, timeout: Duration) -> Self {
        self.config.tool_timeout = timeout;
        self
    }

    /// How long to wait for a legacy client's answer to elicitation, sampling or roots
    /// (default 300 s).
    pub fn client_request_timeout(mut self, timeout: Duration) -> Self {
        self.config.client_request_timeout = timeout;
        self
    }

    /// The number of entries per list page (default 100).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// 2026 caching hints for list results (default: stale at once, private).
    pub fn list_cache(mut self, hints: CacheHints) -> Self {
        self.config.list_cache = hints;
        self
    }

    /// 2026 caching hints for `resources/read` results (default: stale at once, private).
    pub fn read_cache(mut self, hints: CacheHints) -> Self {
        self.config.read_cache = hints;
        self
    }

    /// 2026 caching hints for `server/discover` (default: stale at once, private).
    pub fn discover_cache(mut self, hints: CacheHints) -> Self {
        self.config.discover_cache = hints;
        self
    }

    /// How many requests of one client run at once (default 64): over stdio, beyond it the
    /// transport stops reading until one finishes (backpressure); over HTTP, a legacy
    /// session's request beyond it gets `503` with `Retry-After` (the endpoint's own cap
    /// across all clients is `HttpOptions::max_in_flight`, feature `http`).
    pub fn max_in_flight(mut self, n: usize) -> Self {
        self.config.max_in_flight = n.max(1);
        self
    }

    /// The largest incoming message, in bytes (default 4 MiB).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.config.max_message_size = bytes;
        self
    }

    /// The largest response, in bytes (default 10 MiB); a larger one becomes an error.
    pub fn max_response_size(mut self, bytes: usize) -> Self {
        self.config.max_response_size = bytes;
        self
    }

    /// Keys for sealing the 2026 `requestState` (each at least 32 bytes; the first seals,
    /// all open). Give every instance behind a load balancer the same keys. Default: one
    /// random key per process.
    ///
    /// # Errors
    ///
    /// A key shorter than 32 bytes, or no key.
    pub fn request_state_keys(mut self, keys: Vec<Vec<u8>>) -> Result<Self, KeyError> {
        if keys.is_empty() {
            return Err(KeyError::Empty);
        }
        if let Some(short) = keys.iter().find(|k| k.len() < MIN_KEY_LEN) {
            return Err(KeyError::TooShort(short.len()));
        }
        self.keys = keys;
        Ok(self)
    }

    /// How long a sealed `requestState` stays valid (default 600 s).
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// Shared application state, available to handlers through
    /// [`Context::state`](crate::Context::state) and the `State<T>` parameter.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// The server, with no primitives yet.
    pub fn build(self) -> Server {
        let keys = if self.keys.is_empty() {
            vec![Sealer::random_key()]
        } else {
            self.keys
        };
        Server {
            inner: Arc::new(Inner {
                registry: Registry::new(ListSettings {
                    page_size: self.page_size,
                }),
                sealer: Sealer::new(keys, self.state_ttl),
                config: self.config,
                state: self.state,
            }),
        }
    }

    /// The server, with `handler`'s primitives registered.
    ///
    /// # Errors
    ///
    /// A duplicate or invalid registration.
    pub fn handler<S: McpServer>(self, handler: S) -> Result<Server, RegistryError> {
        let server = self.build();
        S::register(Arc::new(handler), server.registry())?;
        Ok(server)
    }
}

/// A `requestState` key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// No key was given.
    #[error("at least one requestState key is needed")]
    Empty,
    /// A key is shorter than 32 bytes.
    #[error("requestState keys must be at least 32 bytes (found {0})")]
    TooShort(usize),
}
