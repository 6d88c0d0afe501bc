//! Logs of a server started by [`run`](crate::run()): to stderr (stdout carries the protocol
//! over stdio), filtered by `RUST_LOG`, `info` when it is unset or unusable.

use tracing_subscriber::EnvFilter;

/// Installs the stderr subscriber, unless the program installed one already.
pub(super) fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // An installed subscriber is the program's choice: keep it.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .try_init();
}
