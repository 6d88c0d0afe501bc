//! A `tracing` subscriber that keeps what it writes, for tests that check the server's logs.

// Each test target uses the part it needs.
#![allow(dead_code)]

use std::io::Write;
use std::sync::{Arc, Mutex};

use tracing::subscriber::DefaultGuard;

/// What the subscriber wrote so far.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// The log as text.
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    /// Forgets what was written.
    pub fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Installs, for this thread, a plain-text subscriber at DEBUG (the request spans' level)
/// that also logs span closes (with their fields); it stays until the guard is dropped.
pub fn capture() -> (Captured, DefaultGuard) {
    capture_at(tracing::Level::DEBUG)
}

/// As [`capture`], at `level`.
pub fn capture_at(level: tracing::Level) -> (Captured, DefaultGuard) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .finish();
    (captured, tracing::subscriber::set_default(subscriber))
}
