//! Skills from a folder: every folder under the root that holds a `SKILL.md` is a skill,
//! at the path from the root to it, with every file beneath it.
//!
//! Entries whose names start with `.` are skipped (`.git`, `.DS_Store`). A symbolic link
//! is followed only when it leads inside the root. Only regular files are read: a skill
//! with anything else in it (a FIFO, a device, a socket) is refused. Sizes are checked
//! before a file is read, and each file is read no further than its limit, so an
//! oversized file (or one growing meanwhile) is refused without being loaded.

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::skill::SKILL_MD;
use super::{Limits, Skill, SkillsError};

/// How deep folders may nest under the root (a link cycle inside it ends here).
pub(crate) const MAX_DEPTH: usize = 32;

/// The skills under `root`, and the problems of those that were refused (each refused
/// skill alone: the others load).
///
/// # Errors
///
/// The root itself cannot be read.
pub(crate) fn load(
    root: &Path,
    limits: &Limits,
) -> Result<(Vec<Skill>, Vec<SkillsError>), SkillsError> {
    let canonical = fs::canonicalize(root).map_err(|e| SkillsError::io(root, e))?;
    let mut walk = Walk {
        root: canonical.clone(),
        limits,
        skills: Vec::new(),
        refused: Vec::new(),
    };
    if canonical.join(SKILL_MD).is_file() {
        walk.refused.push(SkillsError::invalid(
            root.display().to_string(),
            "the skills folder itself has a SKILL.md: put each skill in a folder of its own",
        ));
    }
    walk.find(&canonical, "", 0)?;
    Ok((walk.skills, walk.refused))
}

/// What a look at the folder sees: every entry a load would look at (by the same rules:
/// dot-entries skipped, links followed only inside the root, as deep as a load looks),
/// with its size and modification time.
pub(crate) type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// The fingerprint of the folder `root`: empty when it cannot be read.
pub(crate) fn fingerprint(root: &Path, limits: &Limits) -> Fingerprint {
    let mut seen = Vec::new();
    if let Ok(canonical) = fs::canonicalize(root) {
        let walk = Walk {
            root: canonical.clone(),
            limits,
            skills: Vec::new(),
            refused: Vec::new(),
        };
        walk.look(&canonical, "", 0, &mut seen);
    }
    seen
}

struct Walk<'a> {
    root: PathBuf,
    limits: &'a Limits,
    skills: Vec<Skill>,
    refused: Vec<SkillsError>,
}

/// One entry of a folder, links resolved.
struct Entry {
    name: String,
    path: PathBuf,
    is_dir: bool,
    /// A regular file (neither a folder nor a FIFO, device or socket).
    is_file: bool,
    len: u64,
    modified: Option<SystemTime>,
}

impl Walk<'_> {
    /// Finds the skills in `dir` (at `rel` from the root) and beneath it.
    fn find(&mut self, dir: &Path, rel: &str, depth: usize) -> Result<(), SkillsError> {
        let entries = match self.entries(dir, rel, depth) {
            Ok(entries) => entries,
            Err(e) if depth == 0 => return Err(e),
            Err(e) => {
                self.refused.push(e);
                return Ok(());
            }
        };
        if !rel.is_empty() && entries.iter().any(|e| e.name == SKILL_MD && e.is_file) {
            match self.skill(dir, rel) {
                Ok(skill) => self.skills.push(skill),
                Err(e) => self.refused.push(e),
            }
        }
        for entry in entries.into_iter().filter(|e| e.is_dir) {
            let child = join(rel, &entry.name);
            self.find(&entry.path, &child, depth + 1)?;
        }
        Ok(())
    }

    /// Adds each entry in `dir` (at `rel` from the root) and beneath it to `seen`. A
    /// folder a load would refuse is seen as its entry in its parent only.
    fn look(&self, dir: &Path, rel: &str, depth: usize, seen: &mut Fingerprint) {
        let Ok(entries) = self.entries(dir, rel, depth) else {
            return;
        };
        for entry in entries {
            seen.push((entry.path.clone(), entry.len, entry.modified));
            if entry.is_dir {
                self.look(&entry.path, &join(rel, &entry.name), depth + 1, seen);
            }
        }
    }

    /// The entries of `dir`, by name, dot-entries left out, links inside the root resolved.
    fn entries(&self, dir: &Path, rel: &str, depth: usize) -> Result<Vec<Entry>, SkillsError> {
        if depth > MAX_DEPTH {
            return Err(SkillsError::invalid(
                rel,
                format!("folders nest more than {MAX_DEPTH} deep (a link cycle?)"),
            ));
        }
        let mut entries = Vec::new();
        for entry in fs::read_dir(dir).map_err(|e| SkillsError::io(dir, e))? {
            let entry = entry.map_err(|e| SkillsError::io(dir, e))?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Err(SkillsError::invalid(
                    rel,
                    format!("the name of `{}` is not UTF-8", entry.path().display()),
                ));
            };
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            let meta = fs::metadata(&path).map_err(|e| SkillsError::io(&path, e))?;
            let link = fs::symlink_metadata(&path).map_err(|e| SkillsError::io(&path, e))?;
            if link.file_type().is_symlink() {
                let target = fs::canonicalize(&path).map_err(|e| SkillsError::io(&path, e))?;
                if !target.starts_with(&self.root) {
                    return Err(SkillsError::invalid(
                        join(rel, &name),
                        "a symbolic link leads outside the skills folder",
                    ));
                }
            }
            entries.push(Entry {
                name,
                path,
                is_dir: meta.is_dir(),
                is_file: meta.is_file(),
                len: meta.len(),
                modified: meta.modified().ok(),
            });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    /// The skill in `dir`, at `rel` from the root.
    fn skill(&self, dir: &Path, rel: &str) -> Result<Skill, SkillsError> {
        let mut files = Vec::new();
        let mut total = 0;
        self.files(dir, rel, "", 0, &mut files, &mut total)?;
        let skill_md = self.read(rel, SKILL_MD, &dir.join(SKILL_MD))?;
        let skill_md = String::from_utf8(skill_md)
            .map_err(|_| SkillsError::invalid(rel, "SKILL.md is not UTF-8"))?;
        let mut skill = Skill::new(rel, skill_md)?;
        for (file, path) in files {
            let bytes = self.read(rel, &file, &path)?;
            skill = skill.file(file, bytes)?;
        }
        Ok(skill)
    }

    /// The bytes of the regular file at `path` (`file` in `skill`), read no further than
    /// the limit per file: a file grown over it since it was listed is refused.
    fn read(&self, skill: &str, file: &str, path: &Path) -> Result<Vec<u8>, SkillsError> {
        let io = |e| SkillsError::io(path, e);
        // Opening a FIFO would block: look before opening, and again at what was opened.
        if !fs::metadata(path).map_err(io)?.is_file() {
            return Err(not_a_file(skill, file));
        }
        let opened = fs::File::open(path).map_err(io)?;
        if !opened.metadata().map_err(io)?.is_file() {
            return Err(not_a_file(skill, file));
        }
        let limit = self.limits.max_file_size;
        let mut bytes = Vec::new();
        opened
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
        self.limits.check_file(skill, file, bytes.len() as u64)?;
        Ok(bytes)
    }

    /// Collects the files beneath `dir` (at `within` from the skill's root) but `SKILL.md`
    /// at the root, checking their number and sizes before any is read.
    fn files(
        &self,
        dir: &Path,
        skill: &str,
        within: &str,
        depth: usize,
        files: &mut Vec<(String, PathBuf)>,
        total: &mut u64,
    ) -> Result<(), SkillsError> {
        for entry in self.entries(dir, &join(skill, within), depth)? {
            let file = join(within, &entry.name);
            if entry.is_dir {
                self.files(&entry.path, skill, &file, depth + 1, files, total)?;
                continue;
            }
            if !entry.is_file {
                return Err(not_a_file(skill, &file));
            }
            *total += entry.len;
            self.limits.check_file(skill, &file, entry.len)?;
            if file != SKILL_MD {
                files.push((file, entry.path));
            }
            // `SKILL.md` and the files so far.
            self.limits.check_skill(skill, files.len() + 1, *total)?;
        }
        Ok(())
    }
}

fn not_a_file(skill: &str, file: &str) -> SkillsError {
    SkillsError::invalid(
        skill,
        format!("`{file}` is neither a regular file nor a folder (a FIFO, device or socket?)"),
    )
}

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_owned()
    } else {
        format!("{rel}/{name}")
    }
}
