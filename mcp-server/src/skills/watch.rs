//! Watching the folder: a cheap look at every file's size and modification time, and a
//! reload when they changed. It polls: no operating-system notifications are used.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tokio_util::sync::CancellationToken;

use super::Skills;
use crate::server::Server;

/// The shortest interval between two looks: a shorter one is raised to it.
const MIN_INTERVAL: Duration = Duration::from_millis(100);

/// What a look at the folder sees: every entry's path, size and modification time.
type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

impl Skills {
    /// Reloads ([`reload`](Skills::reload)) whenever the folder changes. It polls: it
    /// looks at each file's size and modification time now, then every `every` (at least
    /// 100 ms; a walk of the folder; the files are read again only when something
    /// changed). The future ends when `stop` is cancelled (it holds a clone of `server`
    /// until then), or when dropped; it ends at once for skills with no folder.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use ferromcp::ServerBuilder;
    /// use ferromcp::skills::Skills;
    /// use ferromcp::CancellationToken;
    ///
    /// # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    /// let skills = Skills::from_dir("skills")?;
    /// let server = ServerBuilder::new("docs", "1.0.0").extension(skills.clone())?.build();
    /// let stop = CancellationToken::new();
    /// let watcher = tokio::spawn(skills.watch(server.clone(), Duration::from_secs(2), stop.clone()));
    /// server.serve_stdio().await?;
    /// stop.cancel();
    /// watcher.await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn watch(
        self,
        server: Server,
        every: Duration,
        stop: CancellationToken,
    ) -> impl Future<Output = ()> + Send {
        let dir = self.shared.settings.dir.clone();
        // The first look is taken now, so that a change made after this call is seen.
        let first = dir.as_deref().map(|dir| {
            let mut seen = Vec::new();
            fingerprint(dir, 0, &mut seen);
            seen
        });
        async move {
            let (Some(dir), Some(mut seen)) = (dir, first) else {
                return;
            };
            let mut tick = tokio::time::interval(every.max(MIN_INTERVAL));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            tick.tick().await;
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    _ = tick.tick() => {}
                }
                let now = look(&dir).await;
                if now != seen {
                    seen = now;
                    self.reload_off_thread(&server).await;
                }
            }
        }
    }

    async fn reload_off_thread(&self, server: &Server) {
        let skills = self.clone();
        let server = server.clone();
        match tokio::task::spawn_blocking(move || skills.reload(&server)).await {
            Ok(Ok(reload)) => {
                tracing::info!(
                    added = reload.added.len(),
                    removed = reload.removed.len(),
                    changed = reload.changed.len(),
                    "skills reloaded"
                );
                for refused in &reload.refused {
                    tracing::warn!(%refused, "skill not served");
                }
            }
            Ok(Err(error)) => tracing::warn!(%error, "skills not reloaded"),
            Err(error) => tracing::warn!(%error, "skills reload failed"),
        }
    }
}

/// The folder's fingerprint, taken off the runtime's threads.
async fn look(dir: &Path) -> Fingerprint {
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut seen = Vec::new();
        fingerprint(&dir, 0, &mut seen);
        seen
    })
    .await
    .unwrap_or_default()
}

fn fingerprint(dir: &Path, depth: usize, seen: &mut Fingerprint) {
    // As deep as a load looks (a link cycle ends here too).
    if depth > super::folder::MAX_DEPTH {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        seen.push((path.clone(), meta.len(), meta.modified().ok()));
        if meta.is_dir() {
            fingerprint(&path, depth + 1, seen);
        }
    }
}
