//! `ferromcp dev`: build and serve the current crate's server, and build and restart it
//! whenever its sources change.

pub(crate) mod cargo;

use std::path::PathBuf;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::time::Duration;

use clap::Args;
use notify_debouncer_mini::notify::RecursiveMode;

use crate::{CliError, out};

/// Build and run the server in the current crate over Streamable HTTP, and rebuild and
/// restart it when its sources change; prints how to connect clients.
///
/// Examples:
///   ferromcp dev
///   ferromcp dev --inspector
///   ferromcp dev --addr 127.0.0.1:9000 -- --some-flag-of-the-server
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct DevArgs {
    /// Serve at this address (http://ADDR/mcp)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    addr: String,
    /// Which binary of the crate to run (default: its only one, or the one named as the package)
    #[arg(long, value_name = "NAME")]
    bin: Option<String>,
    /// The crate's Cargo.toml (default: the current folder's)
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
    /// Build with --release
    #[arg(long)]
    release: bool,
    /// Also start the MCP Inspector (`npx @modelcontextprotocol/inspector`) against the server
    #[arg(long)]
    inspector: bool,
    /// Watch this path too (repeatable); the crate's src/ and Cargo.toml are always watched
    #[arg(long, value_name = "PATH")]
    watch: Vec<PathBuf>,
    /// Arguments for the server, after `--`
    #[arg(last = true, value_name = "ARGS")]
    args: Vec<String>,
}

/// Runs `ferromcp dev` until interrupted.
pub(crate) fn run(args: &DevArgs) -> Result<(), CliError> {
    let binary = cargo::locate(args.manifest_path.as_deref(), args.bin.as_deref())?;
    let (events, changes) = mpsc::channel();
    let mut debouncer = notify_debouncer_mini::new_debouncer(Duration::from_millis(300), events)
        .map_err(|e| CliError::Failed(format!("cannot watch files: {e}")))?;
    let mut watched = vec![binary.dir.join("src"), binary.dir.join("Cargo.toml")];
    watched.extend(args.watch.iter().cloned());
    for path in watched.iter().filter(|p| p.exists()) {
        debouncer
            .watcher()
            .watch(path, RecursiveMode::Recursive)
            .map_err(|e| CliError::Failed(format!("cannot watch {}: {e}", path.display())))?;
    }
    let url = format!("http://{}/mcp", args.addr);
    let mut server: Option<Child> = None;
    let mut inspector: Option<Child> = None;
    loop {
        match cargo::build(&binary, args.release) {
            Ok(executable) => {
                stop(&mut server);
                let mut child = start(&executable, &args.addr, &args.args)?;
                match wait_listening(&args.addr, &mut child) {
                    Ok(()) => out::note(format!("dev: serving {url} (pid {})", child.id())),
                    Err(error) => out::error(format!("{error}; waiting for the next change")),
                }
                server = Some(child);
                if inspector.is_none() {
                    connect_lines(&binary.name, &url, &executable);
                    if args.inspector {
                        inspector = Some(start_inspector(&url)?);
                    }
                }
            }
            Err(error) => out::error(format!("{error}; waiting for the next change")),
        }
        // Wait for a change; a watcher error or a closed channel ends dev.
        match changes.recv() {
            Ok(Ok(_)) => out::note("dev: sources changed, rebuilding"),
            Ok(Err(error)) => {
                stop(&mut server);
                stop(&mut inspector);
                return Err(CliError::Failed(format!("file watching failed: {error}")));
            }
            Err(_) => break,
        }
        // Changes that came in while building are covered by the build to come.
        while changes.try_recv().is_ok() {}
    }
    stop(&mut server);
    stop(&mut inspector);
    Ok(())
}

/// Starts the server at `addr`.
fn start(executable: &std::path::Path, addr: &str, args: &[String]) -> Result<Child, CliError> {
    Command::new(executable)
        .arg("--http")
        .arg(addr)
        .args(args)
        .spawn()
        .map_err(|e| CliError::io(executable, e))
}

/// Waits until the server accepts connections at `addr` (or exits, or 30 s pass).
fn wait_listening(addr: &str, child: &mut Child) -> Result<(), CliError> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        if std::net::TcpStream::connect(addr).is_ok() {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(CliError::Failed(format!("the server exited ({status})")));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(CliError::Failed(format!(
        "the server is not listening at {addr} after 30 s"
    )))
}

/// Starts the Inspector, connected to `url`.
fn start_inspector(url: &str) -> Result<Child, CliError> {
    Command::new("npx")
        .args(["-y", "@modelcontextprotocol/inspector", url])
        .spawn()
        .map_err(|e| CliError::Failed(format!("cannot start the Inspector with npx: {e}")))
}

/// Kills and reaps the process, if any.
fn stop(child: &mut Option<Child>) {
    if let Some(mut child) = child.take() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// How to connect clients to the dev server (and to the binary over stdio).
fn connect_lines(name: &str, url: &str, executable: &std::path::Path) {
    let exe = executable.display();
    out::line(format!("Connect clients to {url}:"));
    out::line(format!(
        "  Claude Code:    ferromcp install claude-code {name} --url {url}"
    ));
    out::line(format!(
        "  MCP Inspector:  npx @modelcontextprotocol/inspector {url}"
    ));
    out::line(format!(
        "  any client:     ferromcp install json {name} --url {url}"
    ));
    out::line("Over stdio (the client starts the binary; it is rebuilt in place):");
    out::line(format!(
        "  Claude Code:    ferromcp install claude-code {name} -- {exe}"
    ));
    out::line(format!(
        "  Claude Desktop: ferromcp install claude-desktop {name} -- {exe}"
    ));
}
