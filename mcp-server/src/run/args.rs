//! The command line every server shares, and how a command line that does not serve
//! (help, version, a mistake) ends the program.

use std::ffi::OsString;

use clap::{ArgMatches, Args, Command, FromArgMatches, Parser};

/// The flags [`run`](crate::run()) takes, to flatten into a server's own clap command line
/// (`#[command(flatten)] common: ferromcp::run::CommonArgs`) so that every server takes them
/// the same way:
///
/// - `--http ADDR`: serve Streamable HTTP at `http://ADDR/mcp` (port 0 picks a free port)
///   instead of stdio;
/// - `--redis URL` (with `--http`; or `FERROMCP_REDIS_URL`): share legacy sessions, stream
///   events, change notifications and tasks with other replicas, through the stores
///   [`Runner::shared_stores`](super::Runner::shared_stores) connects (ferromcp-redis);
/// - `--auth-issuer URL [--auth-audience URL]` (feature `auth`, with `--http`): every
///   request needs a bearer token from that OAuth authorization server.
///
/// # Examples
///
/// ```
/// use clap::Parser;
///
/// #[derive(Parser)]
/// #[command(version)]
/// struct Args {
///     #[command(flatten)]
///     common: ferromcp::run::CommonArgs,
///     /// Answer in capitals.
///     #[arg(long)]
///     shout: bool,
/// }
///
/// let args = Args::try_parse_from(["demo", "--shout", "--http", "127.0.0.1:0"])?;
/// assert!(args.shout);
/// assert_eq!(args.common.http(), Some("127.0.0.1:0"));
/// # Ok::<(), clap::Error>(())
/// ```
#[derive(Debug, Clone, Default, Args)]
pub struct CommonArgs {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (port 0 picks a free port)
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    #[command(flatten)]
    pub(super) redis: super::redis::RedisArgs,
    #[command(flatten)]
    pub(super) auth: super::auth::AuthArgs,
}

impl CommonArgs {
    /// The address of `--http`, or `None` to serve stdio.
    pub fn http(&self) -> Option<&str> {
        self.http.as_deref()
    }
}

/// Why a command line ends the program without serving: help or version text (exit 0, on
/// stdout), or a mistake (exit 2, one line on stderr).
#[derive(Debug)]
pub struct ArgsExit {
    code: u8,
    text: String,
}

impl ArgsExit {
    /// The exit status: 0 for help and version, 2 for a mistake.
    pub fn code(&self) -> u8 {
        self.code
    }

    /// What is printed: the help or version text, or the one-line error.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Prints the text (help and version on stdout, an error on stderr) and exits.
    pub fn exit(self) -> ! {
        use std::io::Write as _;
        // A closed stream is no reason to change the exit status.
        let _ = if self.code == 0 {
            write!(std::io::stdout().lock(), "{}", self.text)
        } else {
            writeln!(std::io::stderr().lock(), "{}", self.text)
        };
        std::process::exit(i32::from(self.code))
    }
}

impl From<clap::Error> for ArgsExit {
    /// Help and version as clap renders them; any other error cut to its first paragraph,
    /// on one line (`error: unexpected argument '--foo' found; try '--help'`).
    fn from(e: clap::Error) -> ArgsExit {
        let rendered = e.render().to_string();
        if !e.use_stderr() {
            return ArgsExit {
                code: 0,
                text: rendered,
            };
        }
        let first = rendered.split("\n\n").next().unwrap_or_default();
        let mut line = first.split_whitespace().collect::<Vec<_>>().join(" ");
        if !line.starts_with("error:") {
            line.insert_str(0, "error: ");
        }
        ArgsExit {
            code: 2,
            text: format!("{line}; try '--help'"),
        }
    }
}

/// Parses `argv` (the program name first, as [`std::env::args_os`] gives it) into `A`.
///
/// # Errors
///
/// `--help` or `--version` was asked for, or the command line is wrong: what to print and
/// the exit status.
///
/// # Examples
///
/// ```
/// use ferromcp::run::{CommonArgs, parse_from};
///
/// #[derive(Debug, clap::Parser)]
/// struct Args {
///     #[command(flatten)]
///     common: CommonArgs,
/// }
///
/// let wrong = parse_from::<Args, _, _>(["demo", "--foo"]).unwrap_err();
/// assert_eq!(wrong.code(), 2);
/// assert_eq!(wrong.text(), "error: unexpected argument '--foo' found; try '--help'");
/// ```
pub fn parse_from<A, I, T>(argv: I) -> Result<A, ArgsExit>
where
    A: Parser,
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    Ok(A::try_parse_from(argv)?)
}

/// Parses the process's command line into `A`, or prints help, the version or the error
/// and exits (0, 0, 2).
pub fn parse<A: Parser>() -> A {
    parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit())
}

/// The command of [`run`](crate::run()): [`CommonArgs`] under the server's name and version.
pub(super) fn common_command(name: &str, version: &str) -> Command {
    // The doc comment of `CommonArgs` would be the command's description: set it after.
    CommonArgs::augment_args(Command::new(name.to_owned()))
        .version(version.to_owned())
        .about(format!(
            "The MCP server {name}: stdio, or Streamable HTTP with --http"
        ))
        .long_about(None)
}

/// [`parse_from`] for [`run`](crate::run()): [`CommonArgs`] under `command`.
pub(super) fn parse_common<I, T>(command: Command, argv: I) -> Result<CommonArgs, ArgsExit>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut matches: ArgMatches = command.try_get_matches_from(argv)?;
    Ok(CommonArgs::from_arg_matches_mut(&mut matches)?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{common_command, parse_common};

    /// `run`'s command line, as `run` reads it (`std::env::args_os()`).
    fn parse(argv: &[&str]) -> Result<super::CommonArgs, super::ArgsExit> {
        parse_common(common_command("demo", "1.2.3"), argv)
    }

    #[test]
    fn no_argument_is_stdio_and_http_takes_an_address() {
        assert_eq!(parse(&["demo"]).unwrap().http(), None);
        let http = parse(&["demo", "--http", "127.0.0.1:0"]).unwrap();
        assert_eq!(http.http(), Some("127.0.0.1:0"));
        assert_eq!(
            parse(&["demo", "--http=[::1]:80"]).unwrap().http(),
            Some("[::1]:80")
        );
    }

    #[test]
    fn help_and_version_exit_0_with_their_text() {
        for flag in ["--help", "-h"] {
            let help = parse(&["demo", flag]).unwrap_err();
            assert_eq!(help.code(), 0);
            assert!(
                help.text().contains("Usage: demo [OPTIONS]"),
                "{}",
                help.text()
            );
            assert!(help.text().contains("--http <ADDR>"), "{}", help.text());
        }
        let version = parse(&["demo", "--version"]).unwrap_err();
        assert_eq!((version.code(), version.text()), (0, "demo 1.2.3\n"));
    }

    #[test]
    fn a_mistake_is_one_line_and_exit_2() {
        for (argv, expected) in [
            (
                &["demo", "--foo"][..],
                "error: unexpected argument '--foo' found; try '--help'",
            ),
            (
                &["demo", "extra"],
                "error: unexpected argument 'extra' found; try '--help'",
            ),
            (
                &["demo", "--http"],
                "error: a value is required for '--http <ADDR>' but none was supplied; try '--help'",
            ),
        ] {
            let wrong = parse(argv).unwrap_err();
            assert_eq!((wrong.code(), wrong.text()), (2, expected), "{argv:?}");
        }
        let twice = parse(&["demo", "--http", "a", "--http", "b"]).unwrap_err();
        assert_eq!(twice.code(), 2);
        assert!(!twice.text().contains('\n'), "{}", twice.text());
    }
}
