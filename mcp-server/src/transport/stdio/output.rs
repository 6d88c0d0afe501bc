//! The writing side of the stdio transport.

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// The output side, written by the serving loop itself: responses of requests answered on
/// the spot go straight in, and messages from requests running as tasks (and notifications)
/// come through the outbound queue. A write error ends the serving; later writes are dropped.
pub(super) struct Output<W> {
    writer: tokio::io::BufWriter<W>,
    error: Option<std::io::Error>,
    dirty: bool,
}

impl<W: AsyncWrite + Unpin> Output<W> {
    /// Writes to `output` through a 64 KiB buffer.
    pub(super) fn new(output: W) -> Self {
        Output {
            writer: tokio::io::BufWriter::with_capacity(64 * 1024, output),
            error: None,
            dirty: false,
        }
    }

    /// Whether a write failed (the serving then ends).
    pub(super) fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Flushes what is buffered; the first write error, if there was one.
    pub(super) async fn finish(&mut self) -> std::io::Result<()> {
        self.flush().await;
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    pub(super) async fn write(&mut self, message: &str) {
        if self.error.is_some() {
            return;
        }
        let written = async {
            self.writer.write_all(message.as_bytes()).await?;
            self.writer.write_all(b"\n").await
        }
        .await;
        self.dirty = true;
        if let Err(e) = written {
            self.error = Some(e);
        }
    }

    /// Writes whatever the queue holds now (in order), without waiting for more.
    pub(super) async fn drain(&mut self, rx: &mut mpsc::Receiver<String>) {
        while let Ok(message) = rx.try_recv() {
            self.write(&message).await;
        }
    }

    pub(super) async fn flush(&mut self) {
        if !self.dirty || self.error.is_some() {
            return;
        }
        self.dirty = false;
        if let Err(e) = self.writer.flush().await {
            self.error = Some(e);
        }
    }

    /// Runs `work` while writing what the queue receives meanwhile, so a task that waits on
    /// a full queue can always finish.
    pub(super) async fn while_draining<F: std::future::Future>(
        &mut self,
        rx: &mut mpsc::Receiver<String>,
        work: F,
    ) -> F::Output {
        let mut work = std::pin::pin!(work);
        loop {
            tokio::select! {
                biased;
                out = &mut work => return out,
                Some(message) = rx.recv() => {
                    self.write(&message).await;
                    self.drain(rx).await;
                    self.flush().await;
                }
            }
        }
    }
}
