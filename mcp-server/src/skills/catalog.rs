//! The skills a server serves at one moment, indexed for the methods: entries by
//! `SKILL.md` URI, files by URI, directories by URI.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use ferromcp_core::types::Resource;
use serde_json::{Value, json};

use super::skill::{SKILL_MD, SkillFile, mime_type};
use super::{Skill, SkillsError};

/// The MIME type of a directory resource.
pub(crate) const DIRECTORY: &str = "inode/directory";

/// Per-skill caps, checked when a skill is loaded or added.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) max_file_size: u64,
    pub(crate) max_skill_size: u64,
    pub(crate) max_files: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_size: 4 * 1024 * 1024,
            // SEP-2640's limits: what every conforming host accepts.
            max_skill_size: 16 * 1024 * 1024,
            max_files: 512,
        }
    }
}

impl Limits {
    pub(crate) fn check_file(&self, skill: &str, file: &str, size: u64) -> Result<(), SkillsError> {
        if size > self.max_file_size {
            return Err(SkillsError::invalid(
                skill,
                format!(
                    "file `{file}` is {size} bytes, over the limit of {} bytes per file",
                    self.max_file_size
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn check_skill(
        &self,
        skill: &str,
        files: usize,
        total: u64,
    ) -> Result<(), SkillsError> {
        if files > self.max_files {
            return Err(SkillsError::invalid(
                skill,
                format!("it has more than {} files", self.max_files),
            ));
        }
        if total > self.max_skill_size {
            return Err(SkillsError::invalid(
                skill,
                format!(
                    "its files add up to {total} bytes, over the limit of {} bytes per skill",
                    self.max_skill_size
                ),
            ));
        }
        Ok(())
    }

    fn check(&self, skill: &Skill) -> Result<(), SkillsError> {
        if let Some((file, size)) = skill.largest_file() {
            self.check_file(skill.path(), file, size)?;
        }
        self.check_skill(skill.path(), skill.files().count(), skill.size())
    }
}

/// Makes `skills` servable: the second of two at one path and the skills over a limit are
/// refused, each alone; then each nested skill's files become files of the skills that
/// enclose it too (SEP-2640: a skill's `resources` are complete), and an enclosing skill
/// that is over a limit with them is refused.
pub(crate) fn sift(mut skills: Vec<Skill>, limits: &Limits) -> (Vec<Skill>, Vec<SkillsError>) {
    skills.sort_by(|a, b| a.path().cmp(b.path()));
    let mut refused = Vec::new();
    let mut unique: Vec<Skill> = Vec::with_capacity(skills.len());
    for skill in skills {
        if unique.last().is_some_and(|k| k.path() == skill.path()) {
            refused.push(SkillsError::Duplicate(skill.path().to_owned()));
        } else if let Err(e) = limits.check(&skill) {
            refused.push(e);
        } else {
            unique.push(skill);
        }
    }
    // Only what is served is absorbed: an outer skill lists no file of a refused one.
    let nested = unique.clone();
    let mut kept = Vec::with_capacity(unique.len());
    for mut outer in unique {
        let prefix = format!("{}/", outer.path());
        for inner in nested.iter().filter(|s| s.path().starts_with(&prefix)) {
            let within = inner.path()[prefix.len()..].to_owned();
            outer.absorb(&within, inner);
        }
        match limits.check(&outer) {
            Ok(()) => kept.push(outer),
            Err(e) => refused.push(e),
        }
    }
    (kept, refused)
}

/// Where a file is: its skill (an index into `Catalog::skills`) and its path in it.
struct Located {
    skill: usize,
    file: String,
}

/// The skills a server serves, as one immutable snapshot.
#[derive(Default)]
pub(crate) struct Catalog {
    skills: Vec<Arc<Skill>>,
    /// Each skill's `skills/list` entry, in `skills` order.
    entries: Vec<Value>,
    /// `SKILL.md` URI → index into `skills`.
    by_uri: HashMap<String, usize>,
    files: HashMap<String, Located>,
    /// Directory URI → its direct children, by URI.
    dirs: BTreeMap<String, BTreeMap<String, Resource>>,
}

impl Catalog {
    /// A catalog of `skills`, sifted already ([`sift`]).
    pub(crate) fn new(skills: Vec<Skill>) -> Catalog {
        let mut catalog = Catalog::default();
        for (index, skill) in skills.into_iter().enumerate() {
            catalog.by_uri.insert(skill.uri(), index);
            for (file, bytes) in skill.file_entries() {
                catalog.files.insert(
                    skill.file_uri(file),
                    Located {
                        skill: index,
                        file: file.to_owned(),
                    },
                );
                catalog.add_to_dirs(&format!("{}/{file}", skill.path()), bytes);
            }
            catalog.entries.push(entry(&skill));
            catalog.skills.push(Arc::new(skill));
        }
        catalog
    }

    /// Adds the file at `path` (from the namespace's root) to its directory, and each of
    /// its folders to theirs.
    fn add_to_dirs(&mut self, path: &str, file: &SkillFile) {
        let segments: Vec<&str> = path.split('/').collect();
        for depth in 1..segments.len() {
            let dir = format!("skill://{}", segments[..depth].join("/"));
            let child = format!("{dir}/{}", segments[depth]);
            let name = segments[depth];
            let mut resource = Resource::new(&child, name);
            if depth + 1 == segments.len() {
                let text = std::str::from_utf8(&file.bytes).is_ok();
                resource.mime_type = Some(mime_type(name, text).to_owned());
                resource.size = Some(file.bytes.len() as u64);
            } else {
                resource.mime_type = Some(DIRECTORY.to_owned());
            }
            self.dirs.entry(dir).or_default().insert(child, resource);
        }
    }

    pub(crate) fn skills(&self) -> &[Arc<Skill>] {
        &self.skills
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub(crate) fn skill(&self, uri: &str) -> Option<&Arc<Skill>> {
        self.by_uri.get(uri).map(|&i| &self.skills[i])
    }

    /// The entry of the skill whose `SKILL.md` is at `uri`.
    pub(crate) fn entry(&self, uri: &str) -> Option<&Value> {
        self.by_uri.get(uri).map(|&i| &self.entries[i])
    }

    /// The file at `uri`, with the skill it belongs to.
    pub(crate) fn file(&self, uri: &str) -> Option<(&Skill, &SkillFile)> {
        let located = self.files.get(uri)?;
        let skill = &self.skills[located.skill];
        let file = skill
            .file_entries()
            .find(|(path, _)| *path == located.file)
            .map(|(_, file)| file)?;
        Some((skill, file))
    }

    /// Every file's URI.
    pub(crate) fn file_uris(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Every file's URI and digest.
    pub(crate) fn digests(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files
            .keys()
            .filter_map(|uri| Some((uri.as_str(), self.digest(uri)?)))
    }

    /// The digest of the file at `uri`.
    pub(crate) fn digest(&self, uri: &str) -> Option<&str> {
        self.file(uri).map(|(_, file)| file.digest.as_str())
    }

    /// The direct children of the directory at `uri`.
    pub(crate) fn directory(&self, uri: &str) -> Option<impl ExactSizeIterator<Item = &Resource>> {
        self.dirs.get(uri).map(|children| children.values())
    }
}

/// A skill's `skills/list` and `skills/get` entry.
fn entry(skill: &Skill) -> Value {
    let resources: Vec<Value> = skill
        .file_entries()
        .map(|(file, bytes)| {
            json!({
                "uri": skill.file_uri(file),
                "digest": bytes.digest,
                "size": bytes.bytes.len(),
            })
        })
        .collect();
    json!({
        "uri": skill.uri(),
        "frontmatter": skill.frontmatter(),
        "resources": resources,
    })
}

/// The `resources/list` entry of a skill's `SKILL.md`: name and description from its
/// front matter (SEP-2640's resource metadata).
pub(crate) fn skill_md_resource(skill: &Skill) -> Resource {
    let mut resource = Resource::new(skill.uri(), skill.name());
    resource.description = Some(skill.description().to_owned());
    resource.mime_type = Some(mime_type(SKILL_MD, true).to_owned());
    resource.size = skill
        .file_entries()
        .find(|(path, _)| *path == SKILL_MD)
        .map(|(_, file)| file.bytes.len() as u64);
    resource
}
