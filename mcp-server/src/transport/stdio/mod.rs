//! The stdio transport: one compact JSON message per line on stdin and stdout, nothing else
//! on stdout.
//!
//! - Lines longer than the server's message limit are skipped up to the next newline and
//!   answered with -32600; lines that are not JSON get -32700; the server goes on.
//! - A request whose handler completes without waiting is answered before the next line is
//!   read; one that waits becomes its own task.
//! - Requests run concurrently up to the server's in-flight limit; at the limit the reader
//!   stops reading (backpressure), so memory stays bounded however fast the client writes.
//! - On end of input, requests in flight finish and every response is written before
//!   `serve_stdio` returns.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};
use tracing::Instrument as _;

use crate::engine::Engine;
use crate::principal::Principal;

mod lines;
mod output;
#[cfg(unix)]
mod pipes;
mod session;

#[cfg(feature = "fuzzing")]
pub(crate) use lines::{Line, LineReader};

/// Serves `server` over the process's stdin and stdout until stdin closes. The engine is
/// owned (a clone), so the future can be spawned or boxed without a wrapper.
pub(crate) async fn serve_stdio(engine: Engine) -> std::io::Result<()> {
    let engine = &engine;
    #[cfg(unix)]
    {
        let input: Box<dyn AsyncRead + Unpin + Send> = match pipes::stdin() {
            Some(pipe) => Box::new(pipe),
            None => Box::new(tokio::io::stdin()),
        };
        let output: Box<dyn AsyncWrite + Unpin + Send> = match pipes::stdout() {
            Some(pipe) => Box::new(pipe),
            None => Box::new(tokio::io::stdout()),
        };
        serve_io(engine, input, output).await
    }
    #[cfg(not(unix))]
    {
        serve_io(engine, tokio::io::stdin(), tokio::io::stdout()).await
    }
}

/// Serves `server` over any byte streams with stdio framing (one JSON message per line)
/// until `input` ends; every response is written before it returns.
pub(crate) async fn serve_io<R, W>(engine: &Engine, input: R, output: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_io_as(engine, input, output, None).await
}

/// [`serve_io`] with every request made by `principal`, as if an authentication layer had
/// vouched for it (the test client's `with_principal`).
pub(crate) async fn serve_io_as<R, W>(
    engine: &Engine,
    input: R,
    output: W,
    principal: Option<Arc<Principal>>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // The process's one session: every request span is its child.
    let span = tracing::info_span!("mcp.session", network.transport = "pipe");
    session::serve_in_session(engine, input, output, principal)
        .instrument(span)
        .await
}
