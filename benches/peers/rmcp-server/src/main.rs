//! The two benchmark tools (`echo`, `add`) on the official Rust SDK, rmcp, with its macros
//! and default settings, for mcp-bench to drive (benches/peers/README.md).
//!
//! ```text
//! rmcp-server                               stdio (rmcp::transport::stdio)
//! rmcp-server --pipes                       stdio through rmcp::transport::stdio_pipes
//! rmcp-server --http ADDR                   Streamable HTTP, default config: sessions, SSE
//! rmcp-server --http ADDR --stateless       no sessions, SSE responses
//! rmcp-server --http ADDR --json            no sessions, JSON responses
//! rmcp-server --http ADDR --nodelay         (with any of these) TCP_NODELAY on every connection
//! ```
//!
//! rmcp only answers with `application/json` when `legacy_session_mode` is off, so `--json`
//! implies `--stateless`. Requests negotiating 2026-07-28 are always served without a
//! session, whatever the flags.

use axum::serve::ListenerExt;
use rmcp::{
    ServiceExt,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};

mod tools;

use tools::Bench;

struct Options {
    http: Option<String>,
    json: bool,
    stateless: bool,
    pipes: bool,
    nodelay: bool,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        http: None,
        json: false,
        stateless: false,
        pipes: false,
        nodelay: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => options.http = Some(args.next().ok_or("--http needs ADDR")?),
            "--json" => options.json = true,
            "--stateless" => options.stateless = true,
            "--pipes" => options.pipes = true,
            "--nodelay" => options.nodelay = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if options.http.is_none() && (options.json || options.stateless || options.nodelay) {
        return Err("--json, --stateless and --nodelay need --http ADDR".into());
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = parse_args().map_err(|e| {
        format!(
            "{e}\nusage: rmcp-server [--pipes] | --http ADDR [--stateless] [--json] [--nodelay]"
        )
    })?;
    match options.http {
        None if options.pipes => {
            Bench::new()
                .serve(rmcp::transport::stdio_pipes())
                .await?
                .waiting()
                .await?;
        }
        None => {
            Bench::new()
                .serve(rmcp::transport::stdio())
                .await?
                .waiting()
                .await?;
        }
        Some(addr) => {
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(!(options.stateless || options.json))
                .with_json_response(options.json);
            let service: StreamableHttpService<Bench, LocalSessionManager> =
                StreamableHttpService::new(|| Ok(Bench::new()), Default::default(), config);
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            eprintln!(
                "rmcp-server listening on http://{}/mcp",
                listener.local_addr()?
            );
            // axum::serve leaves Nagle on, as rmcp's examples run it.
            let nodelay = options.nodelay;
            let listener = listener.tap_io(move |tcp| {
                if nodelay {
                    let _ = tcp.set_nodelay(true);
                }
            });
            axum::serve(listener, router).await?;
        }
    }
    Ok(())
}
