//! Skills from a folder: every folder under the root that holds a `SKILL.md` is a skill,
//! at the path from the root to it, with every file beneath it.
//!
//! Entries whose names start with `.` are skipped (`.git`, `.DS_Store`). A symbolic link
//! is followed only when it leads inside the root; sizes are checked before a file is
//! read, so an oversized file is refused without being loaded.

use std::fs;
use std::path::{Path, PathBuf};

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
    len: u64,
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
        if !rel.is_empty() && entries.iter().any(|e| e.name == SKILL_MD && !e.is_dir) {
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
                len: meta.len(),
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
        let skill_md = fs::read(dir.join(SKILL_MD)).map_err(|e| SkillsError::io(dir, e))?;
        let skill_md = String::from_utf8(skill_md)
            .map_err(|_| SkillsError::invalid(rel, "SKILL.md is not UTF-8"))?;
        let mut skill = Skill::new(rel, skill_md)?;
        for (file, path) in files {
            let bytes = fs::read(&path).map_err(|e| SkillsError::io(&path, e))?;
            skill = skill.file(file, bytes)?;
        }
        Ok(skill)
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

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_owned()
    } else {
        format!("{rel}/{name}")
    }
}
