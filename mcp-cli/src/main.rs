//! `ferromcp`: the developer's command for MCP servers written with the `ferromcp` crate.
//!
//! See `ferromcp --help` and docs/cli.md.

mod bundle;
mod dev;
mod error;
mod fsutil;
mod install;
mod json;
mod new;
mod out;
mod server_json;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub(crate) use error::CliError;

/// Start, run, install and ship MCP servers written with ferromcp.
#[derive(Debug, Parser)]
#[command(name = "ferromcp", version, about, long_about = None, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    New(new::NewArgs),
    Install(install::InstallArgs),
    Dev(dev::DevArgs),
    Bundle(bundle::BundleArgs),
    ServerJson(server_json::ServerJsonArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::New(args) => new::run(&args),
        Command::Install(args) => install::run(args),
        Command::Dev(args) => dev::run(&args),
        Command::Bundle(args) => bundle::run(&args),
        Command::ServerJson(args) => server_json::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            out::error(&error);
            ExitCode::from(error.exit_code())
        }
    }
}
