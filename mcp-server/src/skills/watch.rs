//! Watching the folder: a cheap look at every file's size and modification time, and a
//! reload when they changed. It polls: no operating-system notifications are used.

use std::path::Path;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::Skills;
use super::catalog::Limits;
use super::folder::{self, Fingerprint};
use crate::server::Server;

/// The shortest interval between two looks: a shorter one is raised to it.
const MIN_INTERVAL: Duration = Duration::from_millis(100);

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
        let limits = self.shared.settings.limits;
        // The first look is taken now, so that a change made after this call is seen.
        let first = dir.as_deref().map(|dir| folder::fingerprint(dir, &limits));
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
                let now = look(&dir, limits).await;
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
async fn look(dir: &Path, limits: Limits) -> Fingerprint {
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || folder::fingerprint(&dir, &limits))
        .await
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_fingerprint_follows_no_link_out_of_the_folder_and_skips_dot_entries() {
        let base = std::env::temp_dir().join(format!("ferromcp-watch-{}", std::process::id()));
        let (root, outside) = (base.join("skills"), base.join("outside"));
        let _ = std::fs::remove_dir_all(&base);
        for dir in [root.join("x/.git"), outside.clone()] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(root.join("x/SKILL.md"), "skill").unwrap();
        std::fs::write(root.join("x/.git/HEAD"), "head").unwrap();
        std::fs::write(outside.join("secret"), "secret").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("x/l")).unwrap();
        let seen = folder::fingerprint(&root, &Limits::default());
        let _ = std::fs::remove_dir_all(&base);
        let names: Vec<_> = seen
            .iter()
            .map(|(path, ..)| path.file_name().unwrap().to_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["x"], "{seen:?}");
    }
}
