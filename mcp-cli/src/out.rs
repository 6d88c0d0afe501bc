//! What the command prints: results on stdout, messages on stderr (written, not `print!`ed,
//! so a closed pipe is not a panic).

use std::fmt::Display;
use std::io::Write;

/// Writes `text` and a newline to stdout.
pub(crate) fn line(text: impl Display) {
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

/// Writes `text` to stdout as it is.
pub(crate) fn raw(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Writes `warning: …` to stderr.
pub(crate) fn warn(text: impl Display) {
    let _ = writeln!(std::io::stderr().lock(), "warning: {text}");
}

/// Writes a note to stderr.
pub(crate) fn note(text: impl Display) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Writes `error: …` to stderr.
pub(crate) fn error(text: impl Display) {
    let _ = writeln!(std::io::stderr().lock(), "error: {text}");
}
