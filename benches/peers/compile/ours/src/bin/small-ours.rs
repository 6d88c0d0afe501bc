//! The start-up comparison's small server (benches/peers/startup.py): the peer run's two
//! tools, `echo` and `add`, on our SDK with only what a stdio server needs (this crate's
//! dependencies: ferromcp without features), no logging set up, as rmcp's counterpart in
//! ../../../rmcp/src/bin/small-rmcp.rs. stdio on a current-thread runtime, as the quickstart
//! and docs/stdio.md serve it; `--multi-thread` on tokio's default runtime instead.
use ferromcp::prelude::*;

pub struct Small;

#[ferromcp::server(name = "small-ours")]
impl Small {
    /// Returns the text unchanged.
    #[tool]
    fn echo(&self, text: String) -> String {
        text
    }

    /// Adds two integers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder(Small).build()?;
    let runtime = match std::env::args().nth(1).as_deref() {
        None => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        Some("--multi-thread") => tokio::runtime::Runtime::new()?,
        Some(other) => return Err(format!("unknown argument `{other}`").into()),
    };
    Ok(runtime.block_on(server.serve_stdio())?)
}
