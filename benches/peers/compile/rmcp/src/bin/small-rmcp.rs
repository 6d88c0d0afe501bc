//! The start-up comparison's small server (benches/peers/startup.py): the peer run's two
//! tools, `echo` and `add`, on rmcp with only its stdio server features (this crate's
//! dependencies), as ../../../ours/src/bin/small-ours.rs. With no argument it runs as rmcp's
//! README and examples do (`#[tokio::main]`, tokio's multi-thread runtime, and
//! `rmcp::transport::stdio()`); `--best` on a current-thread runtime with
//! `rmcp::transport::stdio_pipes()`, the configuration in which it starts fastest.
use rmcp::ServiceExt;

#[path = "../../../../rmcp-server/src/tools.rs"]
mod tools;

use tools::Bench;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let best = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--best") => true,
        Some(other) => return Err(format!("unknown argument `{other}`").into()),
    };
    let runtime = if best {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
    } else {
        tokio::runtime::Runtime::new()?
    };
    runtime.block_on(async {
        let server = if best {
            Bench::new().serve(rmcp::transport::stdio_pipes()).await?
        } else {
            Bench::new().serve(rmcp::transport::stdio()).await?
        };
        server.waiting().await?;
        Ok(())
    })
}
