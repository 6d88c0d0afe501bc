//! Serving for [`run`](crate::run()): the runtime each transport wants, and over HTTP the
//! address announced on stderr and how to connect clients printed on stdout.

use std::io::Write as _;

use super::{CommonArgs, RunError, redis::Shared};
use crate::Server;
use crate::http::HttpOptions;

/// What a server adds to the HTTP serving: the Desktop snippet's arguments, the resource
/// server's configuration, any other options.
pub(super) struct HttpSettings {
    pub(super) stdio_args: Vec<String>,
    pub(super) auth: Option<super::auth::Configure>,
    pub(super) options: Option<Box<dyn FnOnce(HttpOptions) -> HttpOptions>>,
}

/// The runtime for the transport: one thread for stdio's one client, which it serves with
/// the least CPU (docs/stdio.md); every core for HTTP's many.
pub(super) fn runtime(http: bool) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = if http {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    builder.enable_all().build()
}

/// Serves `server` over stdio, or over HTTP at `--http` until SIGINT or SIGTERM.
pub(super) async fn serve(
    server: &Server,
    common: &CommonArgs,
    shared: &Shared,
    settings: HttpSettings,
) -> Result<(), RunError> {
    let Some(addr) = common.http() else {
        return Ok(server.serve_stdio().await?);
    };
    // Bound here so that what is printed carries the real port, `--http 127.0.0.1:0` too.
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let mut options = shared.http(HttpOptions::default());
    options = common.auth.http(options, &url, settings.auth)?;
    if let Some(adjust) = settings.options {
        options = adjust(options);
    }
    // The line `Server::serve_http` writes, for whoever started the server; a closed
    // stderr or stdout is no reason not to serve.
    let _ = writeln!(std::io::stderr().lock(), "MCP server listening on {url}");
    let _ = writeln!(
        std::io::stdout().lock(),
        "{}",
        connect_help(&server.info().name, &url, &settings.stdio_args)
    );
    Ok(server.serve_http_on(listener).options(options).await?)
}

/// How to connect Claude Code, Claude Desktop, VS Code and the MCP Inspector to the server
/// `name` at `url`; Desktop starts this program over stdio with `stdio_args`.
pub(super) fn connect_help(name: &str, url: &str, stdio_args: &[String]) -> String {
    let program = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .map_or_else(|| name.to_owned(), |p| p.display().to_string());
    let desktop = serde_json::json!({
        "mcpServers": {name: {"command": program, "args": stdio_args}}
    });
    let vscode = serde_json::json!({"servers": {name: {"type": "http", "url": url}}});
    format!(
        "{name}: MCP over Streamable HTTP at {url}\n\
         \n\
         Claude Code:\n  claude mcp add --transport http {name} {url}\n\
         \n\
         Claude Desktop starts its servers over stdio; in claude_desktop_config.json:\n{}\n\
         (clients that take a URL use {url})\n\
         \n\
         VS Code, .vscode/mcp.json:\n  {vscode}\n\
         \n\
         MCP Inspector:\n  npx @modelcontextprotocol/inspector {url}\n",
        indent(&serde_json::to_string_pretty(&desktop).unwrap_or_default()),
    )
}

/// `text` indented by two spaces.
fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    /// The snippets name the server and its URL, and the JSON ones parse.
    #[test]
    fn connect_help_names_the_server_and_its_url() {
        let url = "http://127.0.0.1:8080/mcp";
        let help = super::connect_help("demo", url, &["--db".into(), "x".into()]);
        assert!(help.starts_with("demo: MCP over Streamable HTTP at http://127.0.0.1:8080/mcp\n"));
        assert!(help.contains(&format!("  claude mcp add --transport http demo {url}\n")));
        assert!(help.contains(&format!("  npx @modelcontextprotocol/inspector {url}\n")));
        let start = help.find("  {\n").unwrap();
        let end = start + help[start..].find("\n  }\n").unwrap() + 4;
        let desktop: serde_json::Value = serde_json::from_str(&help[start..end]).unwrap();
        assert_eq!(
            desktop["mcpServers"]["demo"]["args"],
            serde_json::json!(["--db", "x"])
        );
    }
}
