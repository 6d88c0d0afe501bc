//! Loading the catalog, and reloading it: what changed is published to the registry (the
//! `SKILL.md` resources, hence `list_changed`) and announced (`resources/updated` for each
//! file whose content changed or that is gone).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::catalog::{self, Catalog, Limits, skill_md_resource};
use super::methods::Files;
use super::{Shared, Skill, Skills, SkillsError, folder};
use crate::registry::Registry;
use crate::server::Server;

/// What [`Skills::reload`] changed, each skill named by the URI of its `SKILL.md`.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Reload {
    /// Skills served now that were not before.
    pub added: Vec<String>,
    /// Skills no longer served.
    pub removed: Vec<String>,
    /// Skills whose front matter or files changed.
    pub changed: Vec<String>,
    /// Skills refused (not served), each with why; the others are served.
    pub refused: Vec<SkillsError>,
}

impl Reload {
    /// Whether nothing was added, removed or changed.
    pub fn is_unchanged(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The catalog of the folder `dir` and the skills built in code, with the skills refused.
pub(crate) fn load(
    dir: Option<&Path>,
    code: &[Skill],
    limits: &Limits,
) -> Result<(Catalog, Vec<SkillsError>), SkillsError> {
    let mut skills = code.to_vec();
    let mut refused = Vec::new();
    if let Some(dir) = dir {
        let (found, bad) = folder::load(dir, limits)?;
        skills.extend(found);
        refused.extend(bad);
    }
    let (kept, bad) = catalog::sift(skills, limits);
    refused.extend(bad);
    Ok((Catalog::new(kept), refused))
}

impl Skills {
    /// Reads the folder again and serves what it holds now (the skills built in code stay).
    /// Clients are told: `notifications/resources/list_changed` when a skill was added,
    /// removed or changed (its `SKILL.md` is a listed resource), and
    /// `notifications/resources/updated` for each file whose content changed or that is
    /// gone. A skill that became invalid is refused alone ([`Reload::refused`]); the
    /// others are served.
    ///
    /// `server` is the server this extension was installed in; another is refused. The
    /// folder is read here, with blocking file I/O: from async code, call it through
    /// `tokio::task::spawn_blocking` (as [`watch`](Skills::watch) does).
    ///
    /// # Errors
    ///
    /// The folder itself cannot be read: nothing changes.
    /// [`SkillsError::NotInstalledHere`]: `server` is not the one these skills were
    /// installed in.
    pub fn reload(&self, server: &Server) -> Result<Reload, SkillsError> {
        let shared = &self.shared;
        if !shared.installed_in(server.registry()) {
            return Err(SkillsError::NotInstalledHere);
        }
        let _one_at_a_time = crate::sync::lock(&shared.reloading);
        let settings = &shared.settings;
        let (catalog, refused) = load(settings.dir.as_deref(), &settings.code, &settings.limits)?;
        let new = Arc::new(catalog);
        let old = shared.catalog();
        let mut reload = diff(&old, &new);
        reload.refused = refused;
        publish(server.registry(), shared, &old, &new, &mut reload);
        Ok(reload)
    }
}

fn diff(old: &Catalog, new: &Catalog) -> Reload {
    let before: HashMap<String, &Skill> =
        old.skills().iter().map(|s| (s.uri(), s.as_ref())).collect();
    let mut reload = Reload::default();
    for skill in new.skills() {
        let uri = skill.uri();
        match before.get(&uri) {
            None => reload.added.push(uri),
            Some(_) if old.entry(&uri) != new.entry(&uri) => reload.changed.push(uri),
            Some(_) => {}
        }
    }
    let now: std::collections::HashSet<String> = new.skills().iter().map(|s| s.uri()).collect();
    reload.removed = before
        .into_keys()
        .filter(|uri| !now.contains(uri))
        .collect();
    reload.removed.sort();
    reload
}

/// Serves `new`: the catalog and the `SKILL.md` resources of the skills added, removed and
/// changed are replaced at once (one registry batch, one `list_changed`), then each file
/// whose content changed or that is gone is announced.
fn publish(
    registry: &Registry,
    shared: &Arc<Shared>,
    old: &Catalog,
    new: &Arc<Catalog>,
    reload: &mut Reload,
) {
    let published = registry.batch(|batch| {
        for uri in reload.removed.iter().chain(&reload.changed) {
            batch.remove_resource(uri);
        }
        for uri in reload.added.iter().chain(&reload.changed) {
            let Some(skill) = new.skill(uri) else {
                continue;
            };
            // A refused resource leaves the batch as it was: the others are served.
            if let Err(e) = batch.add_resource(skill_md_resource(skill), Files(shared.clone())) {
                reload
                    .refused
                    .push(SkillsError::invalid(skill.path(), e.to_string()));
            }
        }
        // Inside the batch, so that no request sees the new catalog with the old resources
        // for longer than it takes to publish them.
        let mut guard = match shared.catalog.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        *guard = new.clone();
        Ok(())
    });
    debug_assert!(published.is_ok(), "the batch refuses nothing as a whole");
    for (uri, digest) in old.digests() {
        if new.digest(uri) != Some(digest) {
            registry.notify_resource_updated(uri);
        }
    }
}
