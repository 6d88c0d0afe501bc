//! A whole program in one line: [`run`](crate::run()) builds the server, reads the command
//! line and the environment, and serves, the same way for every server.
//!
//! ```no_run
//! use ferromcp::prelude::*;
//!
//! struct Echo;
//!
//! #[ferromcp::server(name = "echo")]
//! impl Echo {
//!     /// Returns its input.
//!     #[tool(read_only)]
//!     fn echo(&self, text: String) -> String {
//!         text
//!     }
//! }
//!
//! fn main() {
//!     ferromcp::run(Echo)
//! }
//! ```
//!
//! | command line | serves |
//! |---|---|
//! | `echo` | stdio, on a current-thread runtime (one client: least CPU) |
//! | `echo --http 127.0.0.1:8080` | Streamable HTTP at `http://127.0.0.1:8080/mcp` on a multi-thread runtime, until SIGINT or SIGTERM; the URL on stderr, how to connect Claude Code, Claude Desktop, VS Code and the Inspector on stdout |
//! | `echo --help`, `echo --version` | prints the usage or `echo 0.1.0` (the server's name and version) and exits 0 |
//! | `echo --foo` | prints one line, `error: unexpected argument '--foo' found; try '--help'`, and exits 2 |
//!
//! and `--redis URL` (with a runner given [`Runner::shared_stores`], as `ferromcp_redis::run`
//! does; without one, one `error: …` line naming the fix and exit status 2),
//! `--auth-issuer URL [--auth-audience URL]` (feature `auth`); see [`CommonArgs`].
//!
//! Logs go to stderr, filtered by `RUST_LOG` (default `info`; `RUST_LOG=ferromcp=debug`
//! adds one line per request). The environment is honoured: `FERROMCP_REQUEST_STATE_KEYS` and
//! `FERROMCP_REDIS_URL` (see [`env`](crate::env)). When the server cannot start or
//! serving fails, one `error: …` line goes to stderr and the exit status is 1.
//!
//! A server with flags of its own declares them with clap, flattening [`CommonArgs`], and
//! serves with a [`Runner`], which can also adjust the server's builder and the HTTP
//! options:
//!
//! ```no_run
//! use clap::Parser;
//! use ferromcp::prelude::*;
//! use ferromcp::run::{CommonArgs, Runner};
//!
//! struct Greeter {
//!     greeting: String,
//! }
//!
//! #[ferromcp::server]
//! impl Greeter {
//!     /// Greets someone.
//!     #[tool]
//!     fn greet(&self, name: String) -> String {
//!         format!("{}, {name}!", self.greeting)
//!     }
//! }
//!
//! /// Greets people.
//! #[derive(Parser)]
//! #[command(version, about)]
//! struct Args {
//!     #[command(flatten)]
//!     common: CommonArgs,
//!     /// The greeting.
//!     #[arg(long, default_value = "Hello")]
//!     greeting: String,
//! }
//!
//! fn main() {
//!     let args: Args = ferromcp::run::parse();
//!     Runner::new(args.common).serve_with(async move |setup| {
//!         let server = setup.builder(Greeter { greeting: args.greeting })?;
//!         Ok(server.tool_timeout(std::time::Duration::from_secs(10)).build()?)
//!     })
//! }
//! ```

mod args;
mod auth;
mod logging;
mod redis;
mod serve;

use std::sync::Arc;

use crate::env::EnvError;
use crate::http::HttpOptions;
use crate::observe::Observer;
use crate::store::SharedStores;
use crate::{McpServer, Server, ServerBuilder};

pub use args::{ArgsExit, CommonArgs, parse, parse_from};

/// Any error, boxed: what a [`Runner::serve_with`] setup may fail with (`?` converts).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why a server started by [`run`](crate::run()) or a [`Runner`] could not start or stopped
/// serving.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// An environment variable holds a value that cannot be used.
    #[error(transparent)]
    Env(#[from] EnvError),
    /// The observer of [`Runner::observer_from`] could not be made (an `OTEL_*` variable).
    #[error(transparent)]
    Telemetry(BoxError),
    /// `--redis` (or `FERROMCP_REDIS_URL`) was given to a runner that cannot connect it:
    /// it was given no [`Runner::shared_stores`]. The exit status is 2.
    #[error(
        "--redis (or FERROMCP_REDIS_URL) needs shared stores: serve with \
         Runner::shared_stores(ferromcp_redis::connect) or ferromcp_redis::run"
    )]
    NoSharedStores,
    /// The stores of `--redis` (or `FERROMCP_REDIS_URL`) could not be connected.
    #[error("redis at {url}: {source}")]
    Redis {
        /// Its URL.
        url: String,
        /// Why.
        source: BoxError,
    },
    /// The authorization flags cannot be used (a URL that is not https).
    #[error(transparent)]
    Auth(BoxError),
    /// The server could not be made (the setup's error).
    #[error(transparent)]
    Setup(BoxError),
    /// Binding the address, or reading or writing the transport, failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Serves `handler` as the command line and the environment ask (see the
/// [module docs](mod@crate::run)): `fn main() { ferromcp::run(MyServer) }` is a whole program.
///
/// Returns when serving ends (stdin closed, or SIGINT/SIGTERM over HTTP); exits the process
/// after `--help`, `--version` or a wrong command line (0, 0, 2), or with status 1 after
/// printing `error: …` when the server cannot start or serving fails.
pub fn run<S: McpServer>(handler: S) {
    Runner::for_server::<S>().serve(handler)
}

/// [`run`](crate::run()) for servers that need more: their own flags, a builder adjusted,
/// HTTP options. See the [module docs](mod@crate::run) for an example.
pub struct Runner {
    common: CommonArgs,
    http: serve::HttpSettings,
    observer: Option<MakeObserver>,
    shared_stores: Option<redis::Connect>,
}

/// Makes the server's observer, once serving starts.
type MakeObserver = Box<dyn FnOnce() -> Result<Arc<dyn Observer>, BoxError>>;

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("common", &self.common)
            .field("stdio_args", &self.http.stdio_args)
            .finish_non_exhaustive()
    }
}

/// What a [`Runner::serve_with`] setup makes the server with: a builder with the telemetry,
/// the shared task store and the `requestState` keys the command line and the environment
/// ask for.
pub struct Setup {
    observer: Option<Arc<dyn Observer>>,
    shared: redis::Shared,
    http: Option<String>,
}

impl std::fmt::Debug for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setup")
            .field("observed", &self.observer.is_some())
            .field("shared", &self.shared)
            .field("http", &self.http)
            .finish()
    }
}

impl Setup {
    /// A builder for `handler` (as [`Server::builder`]) set up as the command line and
    /// the environment ask.
    ///
    /// # Errors
    ///
    /// `FERROMCP_REQUEST_STATE_KEYS` cannot be used.
    pub fn builder<S: McpServer>(&self, handler: S) -> Result<ServerBuilder<S>, RunError> {
        self.configure(Server::builder(handler))
    }

    /// `builder` set up as the command line and the environment ask: the observer, the
    /// shared task store, the `requestState` keys.
    ///
    /// # Errors
    ///
    /// `FERROMCP_REQUEST_STATE_KEYS` cannot be used.
    pub fn configure<H>(&self, builder: ServerBuilder<H>) -> Result<ServerBuilder<H>, RunError> {
        let builder = self.shared.apply(builder);
        let builder = match &self.observer {
            Some(observer) => builder.observer(observer.clone()),
            None => builder,
        };
        Ok(builder.request_state_keys_from_env()?)
    }

    /// The address of `--http`, or `None` over stdio.
    pub fn http(&self) -> Option<&str> {
        self.http.as_deref()
    }
}

impl Runner {
    /// A runner for these parsed flags.
    pub fn new(common: CommonArgs) -> Runner {
        Runner {
            common,
            http: serve::HttpSettings {
                stdio_args: Vec::new(),
                auth: None,
                options: None,
            },
            observer: None,
            shared_stores: None,
        }
    }

    /// A runner for the process's command line, read as [`run`](crate::run()) reads it:
    /// [`CommonArgs`] under the name and version of `S`. Prints help, the version or the
    /// error and exits (0, 0, 2) when the command line asks for no serving.
    pub fn for_server<S: McpServer>() -> Runner {
        Runner::try_for_server::<S, _, _>(std::env::args_os()).unwrap_or_else(|e| e.exit())
    }

    /// [`for_server`](Self::for_server) with the command line given (the program name
    /// first).
    ///
    /// # Errors
    ///
    /// `--help` or `--version` was asked for, or the command line is wrong: what to print
    /// and the exit status.
    ///
    /// # Examples
    ///
    /// ```
    /// use ferromcp::prelude::*;
    /// use ferromcp::run::Runner;
    ///
    /// struct Demo;
    ///
    /// #[ferromcp::server(name = "demo", version = "1.2.3")]
    /// impl Demo {
    ///     /// Adds.
    ///     #[tool]
    ///     fn add(&self, a: i64, b: i64) -> i64 { a + b }
    /// }
    ///
    /// let version = Runner::try_for_server::<Demo, _, _>(["demo", "--version"]).unwrap_err();
    /// assert_eq!((version.code(), version.text()), (0, "demo 1.2.3\n"));
    /// let runner = Runner::try_for_server::<Demo, _, _>(["demo", "--http", "127.0.0.1:0"])?;
    /// assert_eq!(runner.common().http(), Some("127.0.0.1:0"));
    /// # Ok::<(), ferromcp::run::ArgsExit>(())
    /// ```
    pub fn try_for_server<S, I, T>(argv: I) -> Result<Runner, args::ArgsExit>
    where
        S: McpServer,
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let info = S::server_info();
        let command = args::common_command(&info.name, &info.version);
        Ok(Runner::new(args::parse_common(command, argv)?))
    }

    /// The flags this runner serves by.
    pub fn common(&self) -> &CommonArgs {
        &self.common
    }

    /// The arguments Claude Desktop is to start this program with over stdio, shown in the
    /// snippet printed when serving HTTP (default: none).
    pub fn stdio_args<A: Into<String>>(mut self, args: impl IntoIterator<Item = A>) -> Self {
        self.http.stdio_args = args.into_iter().map(Into::into).collect();
        self
    }

    /// Adjusts the HTTP options (allowed hosts and origins, limits, …) after those the
    /// flags set.
    pub fn http_options(
        mut self,
        adjust: impl FnOnce(HttpOptions) -> HttpOptions + 'static,
    ) -> Self {
        self.http.options = Some(Box::new(adjust));
        self
    }

    /// The server's observer ([`ServerBuilder::observer`]), made by `make` when serving
    /// starts, on the runtime: for telemetry configured by the environment, one line.
    /// When `make` fails, nothing is served: `error: …` and exit status 1.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use ferromcp::prelude::*;
    /// use ferromcp::run::Runner;
    ///
    /// struct Demo;
    ///
    /// #[ferromcp::server(name = "demo")]
    /// impl Demo {
    ///     /// Adds.
    ///     #[tool]
    ///     fn add(&self, a: i64, b: i64) -> i64 { a + b }
    /// }
    ///
    /// fn main() {
    ///     // With ferromcp-otel: `.observer_from(ferromcp_otel::Otel::from_env)`.
    ///     Runner::for_server::<Demo>()
    ///         .observer_from(|| Ok::<_, std::io::Error>(ferromcp::observe::Tracing))
    ///         .serve(Demo)
    /// }
    /// ```
    pub fn observer_from<O, E>(mut self, make: impl FnOnce() -> Result<O, E> + 'static) -> Self
    where
        O: Observer,
        E: Into<BoxError>,
    {
        self.observer = Some(Box::new(move || {
            make()
                .map(|o| Arc::new(o) as Arc<dyn Observer>)
                .map_err(Into::into)
        }));
        self
    }

    /// The stores that replicas share, connected by `connect` from the URL of `--redis`
    /// (or `FERROMCP_REDIS_URL`, over HTTP) when serving starts, on the runtime: the
    /// server keeps its tasks there and the HTTP endpoint its legacy sessions, stream
    /// events and change notifications. Without this, `--redis` stops the program with
    /// one line naming this method, exit status 2. When `connect` fails, nothing is
    /// served: `error: redis at URL: …` and exit status 1.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use ferromcp::prelude::*;
    /// use ferromcp::run::Runner;
    /// use ferromcp::store::{
    ///     MemoryEventStore, MemorySessionStore, MemoryTaskStore, NotificationBus,
    ///     SharedStores, StoreFuture,
    /// };
    ///
    /// struct Demo;
    ///
    /// #[ferromcp::server(name = "demo")]
    /// impl Demo {
    ///     /// Adds.
    ///     #[tool]
    ///     fn add(&self, a: i64, b: i64) -> i64 { a + b }
    /// }
    ///
    /// /// A bus with no one to tell.
    /// struct Alone;
    ///
    /// impl NotificationBus for Alone {
    ///     fn publish<'a>(&'a self, _: String) -> StoreFuture<'a, ()> {
    ///         Box::pin(async { Ok(()) })
    ///     }
    ///     fn subscribe<'a>(
    ///         &'a self,
    ///         messages: tokio::sync::mpsc::Sender<String>,
    ///     ) -> StoreFuture<'a, ()> {
    ///         Box::pin(async move { Ok(messages.closed().await) })
    ///     }
    /// }
    ///
    /// fn main() {
    ///     // With ferromcp-redis: `.shared_stores(ferromcp_redis::connect)`.
    ///     Runner::for_server::<Demo>()
    ///         .shared_stores(async |_url: String| {
    ///             Ok::<_, std::io::Error>(SharedStores::new(
    ///                 Arc::new(MemorySessionStore::new()),
    ///                 Arc::new(MemoryEventStore::new()),
    ///                 Arc::new(Alone),
    ///                 Arc::new(MemoryTaskStore::new(1_000)),
    ///             ))
    ///         })
    ///         .serve(Demo)
    /// }
    /// ```
    pub fn shared_stores<F, Fut, E>(mut self, connect: F) -> Self
    where
        F: FnOnce(String) -> Fut + 'static,
        Fut: Future<Output = Result<SharedStores, E>> + 'static,
        E: Into<BoxError>,
    {
        self.shared_stores = Some(Box::new(move |url| {
            Box::pin(async move { connect(url).await.map_err(Into::into) })
        }));
        self
    }

    /// Serves `handler`, as [`run`](crate::run()) does.
    pub fn serve<S: McpServer>(self, handler: S) {
        self.serve_with(async move |setup| Ok(setup.builder(handler)?.build()?))
    }

    /// Serves the server `make` returns, made on the runtime (so it may await: open a
    /// database, spawn tasks) from the [`Setup`]'s builder. Exits with status 1 after
    /// printing `error: …` when the server cannot be made or serving fails (2 for
    /// [`RunError::NoSharedStores`], a command line this program cannot serve).
    pub fn serve_with(self, make: impl AsyncFnOnce(Setup) -> Result<Server, BoxError>) {
        if let Err(e) = self.try_serve_with(make) {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr().lock(), "error: {e}");
            let status = if matches!(e, RunError::NoSharedStores) {
                2
            } else {
                1
            };
            std::process::exit(status);
        }
    }

    /// [`serve_with`](Self::serve_with), returning the error instead of exiting.
    ///
    /// # Errors
    ///
    /// The server could not be made, or serving failed.
    pub fn try_serve_with(
        self,
        make: impl AsyncFnOnce(Setup) -> Result<Server, BoxError>,
    ) -> Result<(), RunError> {
        logging::init();
        // The environment is checked before the server is made (a database opened, a task
        // spawned), so that a wrong variable costs nothing.
        ServerBuilder::new("", "").request_state_keys_from_env()?;
        let Runner {
            common,
            http,
            observer,
            shared_stores,
        } = self;
        let redis_url = common.redis.url(common.http().is_some())?;
        if redis_url.is_some() && shared_stores.is_none() {
            return Err(RunError::NoSharedStores);
        }
        serve::runtime(common.http().is_some())?.block_on(async {
            // Kept until serving ends: an exporter's last clone dropped exports what it
            // buffers.
            let observer = match observer {
                Some(make) => Some(make().map_err(RunError::Telemetry)?),
                None => None,
            };
            let shared = redis::connect(redis_url, shared_stores).await?;
            let setup = Setup {
                observer: observer.clone(),
                shared: shared.clone(),
                http: common.http().map(str::to_owned),
            };
            let server = make(setup).await.map_err(RunError::Setup)?;
            serve::serve(&server, &common, &shared, http).await
        })
    }
}
