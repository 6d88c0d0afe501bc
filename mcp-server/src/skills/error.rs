//! Why a skill or a catalog of skills was refused.

use std::path::PathBuf;

/// Why a skill, a folder of skills or a reload was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillsError {
    /// A skill breaks a rule of SEP-2640 or of the Agent Skills format: its name, its
    /// `SKILL.md` front matter, a file's path or size.
    #[error("skill `{skill}`: {problem}")]
    Invalid {
        /// The skill's path (`acme/billing/refunds`), or its folder when it has none yet.
        skill: String,
        /// What is wrong and how to fix it.
        problem: String,
    },
    /// Two skills have the same path.
    #[error("two skills are served at `{0}`")]
    Duplicate(String),
    /// [`Skills::reload`](super::Skills::reload) was given a server these skills are not
    /// installed in.
    #[error(
        "the skills are not installed in this server: reload the server they were installed in"
    )]
    NotInstalledHere,
    /// These skills (or a clone) are installed in another server already: a reload
    /// publishes to one server's registry. Build another [`Skills`](super::Skills).
    #[error("the skills are installed in another server already: build a Skills per server")]
    InstalledElsewhere,
    /// A file or folder could not be read.
    #[error("cannot read `{}`", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
}

impl SkillsError {
    pub(crate) fn invalid(skill: impl Into<String>, problem: impl Into<String>) -> SkillsError {
        SkillsError::Invalid {
            skill: skill.into(),
            problem: problem.into(),
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> SkillsError {
        SkillsError::Io {
            path: path.into(),
            source,
        }
    }
}
