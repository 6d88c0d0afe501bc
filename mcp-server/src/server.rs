//! [`Server`]: a registry plus its configuration, ready to be served over any transport.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{CacheHints, Implementation};

use crate::context::Context;
use crate::engine::seal::{MIN_KEY_LEN, Sealer};
use crate::engine::tasks::{MemoryTaskStore, TaskLimits, TaskStore, Tasks};
use crate::engine::{Config, Engine, StateMap};
use crate::registry::{Definitions, ListSettings, Registry, RegistryError};

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

/// An MCP server: its registry, configuration and shared state. Cheap to clone; clones share
/// everything.
///
/// # Examples
///
/// ```
/// use ferromcp::{ServerBuilder, registry::tool_fn};
/// use ferromcp::types::Tool;
///
/// let server = ServerBuilder::new("demo", "1.0.0").build();
/// let schema = serde_json::json!({"type": "object"}).as_object().unwrap().clone();
/// server
///     .registry()
///     .add_tool(Tool::new("hello", schema), tool_fn(|_: serde_json::Value, _ctx| async { "hi" }), None)
///     .unwrap();
/// assert_eq!(server.registry().tool_names(), ["hello"]);
/// ```
#[derive(Clone)]
pub struct Server {
    engine: Engine,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.engine.config().info)
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
        Server::builder(handler).build()
    }

    /// A builder for a server of a `#[server]` type: its name, version and instructions come
    /// from the type, its primitives are registered by [`build`](ServerBuilder::build), and
    /// everything else can be set before. (A server assembled by hand, with no such type,
    /// starts from [`ServerBuilder::new`].)
    ///
    /// # Examples
    ///
    /// ```
    /// # use ferromcp::prelude::*;
    /// # struct Notes;
    /// # #[ferromcp::server(name = "notes")]
    /// # impl Notes {
    /// #     /// Counts.
    /// #     #[tool]
    /// #     fn count(&self) -> String { "0".into() }
    /// # }
    /// let server = Server::builder(Notes)
    ///     .tool_timeout(std::time::Duration::from_secs(30))
    ///     .build()?;
    /// assert_eq!(server.registry().tool_names(), ["count"]);
    /// # Ok::<(), ferromcp::registry::RegistryError>(())
    /// ```
    pub fn builder<S: McpServer>(handler: S) -> ServerBuilder<S> {
        let mut builder = ServerBuilder::with_info(S::server_info(), handler);
        builder.config.instructions = S::instructions().map(str::to_owned);
        builder
    }

    /// The tools, resources, prompts and completions; change them at run time and clients
    /// are notified.
    pub fn registry(&self) -> &Registry {
        self.engine.registry()
    }

    /// Every enabled tool, resource, template and prompt as the lists show them to a client
    /// of `version` ([`Registry::definitions`]).
    pub fn definitions(&self, version: ProtocolVersion) -> Definitions {
        self.registry().definitions(version)
    }

    /// The name, version and title sent to clients.
    pub fn info(&self) -> &Implementation {
        &self.engine.config().info
    }

    /// Shared state of type `T` registered with [`ServerBuilder::state`].
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.engine.state::<T>()
    }

    /// The engine this server is the face of; what transports drive.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }
}

impl Context {
    /// The server serving this request: its registry (change it at run time and clients are
    /// notified) and shared state.
    pub fn server(&self) -> Server {
        Server {
            engine: Engine::from_host(self.host()),
        }
    }
}

/// Configures a [`Server`]: made by [`Server::builder`] for a `#[server]` type (`H`), or by
/// [`ServerBuilder::new`] for a server assembled by hand.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use ferromcp::ServerBuilder;
///
/// let server = ServerBuilder::new("notes", "1.0.0")
///     .instructions("Use `search` before `read`.")
///     .tool_timeout(Duration::from_secs(30))
///     .page_size(50)
///     .build();
/// assert_eq!(server.info().name, "notes");
/// ```
pub struct ServerBuilder<H = ()> {
    pub(crate) config: Config,
    keys: Vec<Vec<u8>>,
    state_ttl: Duration,
    page_size: usize,
    state: StateMap,
    task_store: Option<Arc<dyn TaskStore>>,
    task_limits: TaskLimits,
    /// The registrations of the types added with [`include`](ServerBuilder::include), in
    /// order.
    included: Vec<Registration>,
    /// The new server's registry, made first so that extensions can add to it
    /// ([`ServerBuilder::extension`]).
    pub(crate) registry: Registry,
    handler: H,
}

/// An included type's registration, run by `build` into the new server's registry.
type Registration = Box<dyn FnOnce(&Registry) -> Result<(), RegistryError> + Send + Sync>;

impl<H> std::fmt::Debug for ServerBuilder<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("config", &self.config)
            .field("page_size", &self.page_size)
            .finish_non_exhaustive()
    }
}

/// Versions as the server keeps them: newest first, each once, the order `server/discover`
/// and -32022 list them in.
fn newest_first(versions: &[ProtocolVersion]) -> Vec<ProtocolVersion> {
    let mut versions = versions.to_vec();
    versions.sort_unstable_by(|a, b| b.cmp(a));
    versions.dedup();
    versions
}

impl<H> ServerBuilder<H> {
    fn with_info(info: Implementation, handler: H) -> ServerBuilder<H> {
        ServerBuilder {
            config: Config {
                info,
                instructions: None,
                versions: newest_first(&ProtocolVersion::ALL),
                tool_timeout: Duration::from_secs(60),
                client_request_timeout: Duration::from_secs(300),
                list_cache: CacheHints::default(),
                read_cache: CacheHints::default(),
                discover_cache: CacheHints::default(),
                max_in_flight: 64,
                max_message_size: 4 * 1024 * 1024,
                max_response_size: 10 * 1024 * 1024,
                observer: Arc::new(crate::observe::Tracing),
                custom: Default::default(),
                extensions: Default::default(),
            },
            keys: Vec::new(),
            state_ttl: Duration::from_secs(600),
            page_size: 100,
            state: HashMap::new(),
            task_store: None,
            task_limits: TaskLimits::default(),
            included: Vec::new(),
            registry: Registry::new(ListSettings { page_size: 100 }),
            handler,
        }
    }

    /// Usage instructions for the model.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.config.instructions = Some(instructions.into());
        self
    }

    /// The name sent to clients (`serverInfo.name`), in place of the one given so far.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.config.info.name = name.into();
        self
    }

    /// The version sent to clients (`serverInfo.version`), in place of the one given so far.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.config.info.version = version.into();
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
        self.config.versions = newest_first(versions);
        self
    }

    /// How long a tool call may run before it ends with an error (default 60 s); a tool can
    /// set its own.
    pub fn tool_timeout(mut self, timeout: Duration) -> Self {
        self.config.tool_timeout = timeout;
        self
    }

    /// What every request, legacy session, task and outgoing message is reported to
    /// ([`observe`](crate::observe)), in place of the default [`observe::Tracing`]
    /// (`tracing` spans and events). `(observe::Tracing, other)` keeps the default too.
    ///
    /// [`observe::Tracing`]: crate::observe::Tracing
    pub fn observer(mut self, observer: impl crate::observe::Observer) -> Self {
        self.config.observer = Arc::new(observer);
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
    /// across all clients is `HttpOptions::max_in_flight`, feature `http`). Per stdio
    /// connection and per legacy HTTP session, it also bounds the custom notification and
    /// hook handlers running at once: a notification beyond it is dropped (logged at warn).
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

    /// Where tasks are kept (default: a [`MemoryTaskStore`] for 10,000 tasks). See
    /// docs/tasks.md.
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.task_store = Some(Arc::new(store));
        self
    }

    /// How many tasks may run at once in this process (default 1,000); past it, a call
    /// that would start a task fails with an error saying so.
    pub fn max_running_tasks(mut self, n: usize) -> Self {
        self.task_limits.max_running = n.max(1);
        self
    }

    /// How long a task is kept after it is created when the client does not say (default
    /// one hour), and the longest a client may ask for (default one day). A task still
    /// running at the end of its time to live is stopped and fails.
    pub fn task_ttl(mut self, default: Duration, max: Duration) -> Self {
        self.task_limits.max_ttl = max.max(Duration::from_millis(1));
        self.task_limits.default_ttl = default.min(self.task_limits.max_ttl);
        self
    }

    /// Shared application state, available to handlers through
    /// [`Context::state`](crate::Context::state) and the `State<T>` parameter.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// The engine of the server being built, with no primitives yet.
    fn engine(self) -> (Engine, H) {
        let keys = if self.keys.is_empty() {
            vec![Sealer::random_key()]
        } else {
            self.keys
        };
        let mut registry = self.registry;
        registry.set_page_size(self.page_size);
        let engine = Engine::new(
            self.config,
            registry,
            Sealer::new(keys, self.state_ttl),
            self.state,
            Tasks::new(
                self.task_store
                    .unwrap_or_else(|| Arc::new(MemoryTaskStore::default())),
                TaskLimits {
                    page_size: self.page_size,
                    ..self.task_limits
                },
            ),
        );
        (engine, self.handler)
    }
}

impl ServerBuilder {
    /// A builder for a server with this name and version and no primitives yet: a server
    /// assembled by hand, whose tools, resources and prompts are added through
    /// [`Server::registry`] once built. A `#[server]` type starts from [`Server::builder`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::ServerBuilder;
    ///
    /// let server = ServerBuilder::new("plugins", "1.0.0").build();
    /// assert_eq!(server.info().name, "plugins");
    /// assert!(server.registry().tool_names().is_empty());
    /// ```
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::with_info(Implementation::new(name, version), ())
    }

    /// The server, with no primitives yet.
    pub fn build(self) -> Server {
        Server {
            engine: self.engine().0,
        }
    }
}

impl<S: McpServer> ServerBuilder<S> {
    /// The server, with the handler's primitives registered.
    ///
    /// # Errors
    ///
    /// A duplicate or invalid registration (the macros rule this out at compile time for one
    /// `impl` block), or an installed extension's [`check`](crate::extension::Extension::check)
    /// failing on the finished registry ([`RegistryError::Extension`]).
    pub fn build(mut self) -> Result<Server, RegistryError> {
        let included = std::mem::take(&mut self.included);
        let (engine, handler) = self.engine();
        S::register(Arc::new(handler), engine.registry())?;
        for register in included {
            engine.registry().register_included(register)?;
        }
        engine.config().extensions.check(engine.registry())?;
        Ok(Server { engine })
    }

    /// Adds the tools, resources, prompts and completions of another `#[server]` type, an
    /// instance of its own (its `&self`), after this type's, in the order of the calls.
    /// Everything else is this server's: the [`state`](ServerBuilder::state) is shared by
    /// all, and the included type's name, version, title and instructions are ignored. Its
    /// `#[server(scopes = …)]` apply to its own items only (those without scopes of their
    /// own). A name or URI taken twice makes [`build`](ServerBuilder::build) fail.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::prelude::*;
    ///
    /// struct Notes;
    ///
    /// #[ferromcp::server(name = "notes")]
    /// impl Notes {
    ///     /// Lists the notes.
    ///     #[tool]
    ///     fn list(&self) -> String { "none".into() }
    /// }
    ///
    /// struct Admin;
    ///
    /// #[ferromcp::server(name = "ignored")]
    /// impl Admin {
    ///     /// Deletes every note.
    ///     #[tool(destructive)]
    ///     fn purge(&self) -> String { "done".into() }
    /// }
    ///
    /// let server = Server::builder(Notes).include(Admin).build()?;
    /// assert_eq!(server.info().name, "notes");
    /// assert_eq!(server.registry().tool_names(), ["list", "purge"]);
    /// # Ok::<(), ferromcp::registry::RegistryError>(())
    /// ```
    pub fn include<T: McpServer>(mut self, other: T) -> Self {
        let other = Arc::new(other);
        self.included
            .push(Box::new(move |registry| T::register(other, registry)));
        self
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
