//! Skills (feature `skills`): the `io.modelcontextprotocol/skills` extension (SEP-2640),
//! which serves [Agent Skills](https://agentskills.io) — a `SKILL.md` with YAML front matter
//! and the files beside it — to clients that load them into a model's context.
//!
//! [`Skills`] is the extension: install it with
//! [`ServerBuilder::extension`](crate::ServerBuilder::extension). It answers
//! `skills/list` (paged, with 2026 cache hints) and `skills/get` with each skill's entry —
//! its `SKILL.md` URI, its front matter as written, and every file with its `sha256` digest
//! and size, so that a client can verify what it reads — and, unless turned off,
//! `resources/directory/read`. The files themselves are resources of the server's
//! [`Registry`], read with `resources/read` like any other:
//! each `SKILL.md` is listed by `resources/list` (name and description from its front
//! matter), the other files are read through the template `skill://{+path}`, whose path
//! is checked like every template variable (a `..` is refused with -32602).
//!
//! Skills come from a folder ([`Skills::from_dir`]), from code ([`Skill::new`]), or both
//! ([`Skills::builder`]); they are checked when loaded (names, paths, sizes).
//! [`Skills::reload`] reads the folder again and tells clients what changed;
//! [`Skills::watch`] does it whenever the folder changes. See docs/skills.md.
//!
//! # Examples
//!
//! ```
//! use ferromcp::ServerBuilder;
//! use ferromcp::skills::{Skill, Skills};
//!
//! let skill = Skill::new(
//!     "git-workflow",
//!     "---\nname: git-workflow\ndescription: Follow the team's Git conventions\n---\n\nRebase, never merge.\n",
//! )?;
//! let server = ServerBuilder::new("docs", "1.0.0")
//!     .extension(Skills::new([skill])?)?
//!     .build();
//! # let _ = server;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod catalog;
mod error;
mod folder;
mod methods;
mod reload;
mod skill;
mod visible;
mod watch;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use ferromcp_core::ProtocolVersion;
use ferromcp_core::types::{CacheHints, JSONObject};

use crate::extension::{Extension, ExtensionError, Install};
use crate::registry::{Registry, RegistryEvent};
use catalog::{Catalog, Limits};

pub use error::SkillsError;
pub use reload::Reload;
pub use skill::{Skill, is_valid_name};

/// The extension's identifier, the key of its settings in `capabilities.extensions`.
pub const ID: &str = "io.modelcontextprotocol/skills";

/// The Skills extension: a catalog of skills and the methods that serve it. Cheap to
/// clone; clones share the catalog, so keep one to [`reload`](Skills::reload) it.
///
/// # Examples
///
/// ```no_run
/// use ferromcp::ServerBuilder;
/// use ferromcp::skills::Skills;
///
/// let skills = Skills::from_dir("skills")?;
/// let server = ServerBuilder::new("docs", "1.0.0").extension(skills.clone())?.build();
/// // Later, when the folder changed:
/// let reload = skills.reload(&server)?;
/// println!("{} skills added", reload.added.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Skills {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Skills {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skills")
            .field("dir", &self.shared.settings.dir)
            .field("skills", &self.uris())
            .finish_non_exhaustive()
    }
}

/// What the methods and the resource handler share.
pub(crate) struct Shared {
    /// The settings, and the folder and skills built in code a reload reads again.
    settings: SkillsBuilder,
    catalog: RwLock<Arc<Catalog>>,
    /// Held through a reload: two at once would publish their changes interleaved.
    reloading: Mutex<()>,
    /// A receiver of the events of the registry this extension was installed in: its
    /// identity, to refuse a reload against another (a `Registry` is not shared).
    installed: Mutex<Option<tokio::sync::broadcast::Receiver<RegistryEvent>>>,
}

impl Shared {
    /// Whether `registry` is the one this extension was installed in.
    fn installed_in(&self, registry: &Registry) -> bool {
        crate::sync::lock(&self.installed)
            .as_ref()
            .is_some_and(|mine| mine.same_channel(&registry.subscribe()))
    }

    fn catalog(&self) -> Arc<Catalog> {
        match self.catalog.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

impl Skills {
    /// The skills in the folder `dir`: each folder beneath it that holds a `SKILL.md` is a
    /// skill, at the path from `dir` to it (`dir/acme/refunds/SKILL.md` is served as
    /// `skill://acme/refunds/SKILL.md`), with every file beneath that folder. Names that
    /// start with `.` are skipped; symbolic links are followed only inside `dir`.
    ///
    /// # Errors
    ///
    /// The folder cannot be read, or a skill in it is invalid ([`SkillsError::Invalid`]:
    /// its front matter, name or a path breaks the rules, a file is over 4 MiB or the
    /// skill over 16 MiB or 512 files; [`SkillsError::Io`]). See
    /// [`SkillsBuilder`] to change the limits.
    pub fn from_dir(dir: impl Into<PathBuf>) -> Result<Skills, SkillsError> {
        Skills::builder().dir(dir).build()
    }

    /// The skills `skills`, built in code.
    ///
    /// # Errors
    ///
    /// Two skills at one path ([`SkillsError::Duplicate`]), or a skill over the limits.
    pub fn new(skills: impl IntoIterator<Item = Skill>) -> Result<Skills, SkillsError> {
        let mut builder = Skills::builder();
        builder.code.extend(skills);
        builder.build()
    }

    /// A builder: a folder and skills built in code together, limits, paging and caching.
    pub fn builder() -> SkillsBuilder {
        SkillsBuilder {
            dir: None,
            code: Vec::new(),
            limits: Limits::default(),
            directory_read: true,
            page_size: 100,
            cache: CacheHints::default(),
        }
    }

    /// The URIs of the skills served now (each `SKILL.md`'s), in order.
    pub fn uris(&self) -> Vec<String> {
        self.shared
            .catalog()
            .skills()
            .iter()
            .map(|s| s.uri())
            .collect()
    }
}

impl Extension for Skills {
    fn id(&self) -> &str {
        ID
    }

    /// `{"directoryRead": true}`, or `{}` when directory reads are turned off.
    fn settings(&self, _version: ProtocolVersion) -> Option<JSONObject> {
        let mut settings = JSONObject::new();
        if self.shared.settings.directory_read {
            settings.insert("directoryRead".into(), true.into());
        }
        Some(settings)
    }

    /// Refused when these skills (or a clone) are installed in another server already: a
    /// reload publishes to one registry.
    fn install(self: Arc<Self>, install: &mut Install<'_>) -> Result<(), ExtensionError> {
        let mut installed = crate::sync::lock(&self.shared.installed);
        if installed.as_ref().is_some_and(|other| !other.is_closed()) {
            return Err(ExtensionError::Failed(Box::new(
                SkillsError::InstalledElsewhere,
            )));
        }
        methods::install(&self.shared, install)?;
        *installed = Some(install.registry().subscribe());
        Ok(())
    }
}

/// Configures [`Skills`]: made by [`Skills::builder`].
///
/// # Examples
///
/// ```
/// use ferromcp::skills::{Skill, Skills};
/// use ferromcp::types::{CacheHints, CacheScope};
///
/// let skill = Skill::new("notes", "---\nname: notes\ndescription: Take notes\n---\n")?;
/// let skills = Skills::builder()
///     .skill(skill)
///     .max_file_size(1024 * 1024)
///     .page_size(20)
///     .cache(CacheHints { ttl_ms: 60_000, cache_scope: CacheScope::Public })
///     .build()?;
/// assert_eq!(skills.uris(), ["skill://notes/SKILL.md"]);
/// # Ok::<(), ferromcp::skills::SkillsError>(())
/// ```
#[derive(Debug)]
pub struct SkillsBuilder {
    dir: Option<PathBuf>,
    /// The skills built in code, kept across reloads.
    code: Vec<Skill>,
    limits: Limits,
    directory_read: bool,
    page_size: usize,
    cache: CacheHints,
}

impl SkillsBuilder {
    /// Serves the skills of the folder `dir` (as [`Skills::from_dir`] reads it), read by
    /// [`build`](Self::build) and again by each [`Skills::reload`].
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// Serves `skill`, built in code.
    pub fn skill(mut self, skill: Skill) -> Self {
        self.code.push(skill);
        self
    }

    /// The largest file a skill may have, in bytes (default 4 MiB). Keep it under the
    /// server's `max_response_size`: a binary file is sent base64-encoded, a third larger.
    pub fn max_file_size(mut self, bytes: u64) -> Self {
        self.limits.max_file_size = bytes;
        self
    }

    /// The most a skill's files may add up to, in bytes (default, and SEP-2640's limit,
    /// 16 MiB: what every host accepts).
    pub fn max_skill_size(mut self, bytes: u64) -> Self {
        self.limits.max_skill_size = bytes;
        self
    }

    /// Whether to answer `resources/directory/read` and declare `directoryRead: true`
    /// (default: yes).
    pub fn directory_read(mut self, on: bool) -> Self {
        self.directory_read = on;
        self
    }

    /// Entries per page of `skills/list` and `resources/directory/read` (default 100).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// The 2026 caching hints of `skills/list` and `skills/get` (default: stale at once,
    /// private).
    pub fn cache(mut self, hints: CacheHints) -> Self {
        self.cache = hints;
        self
    }

    /// The extension, with its skills loaded and checked.
    ///
    /// # Errors
    ///
    /// As [`Skills::from_dir`] and [`Skills::new`]: the first problem found.
    pub fn build(self) -> Result<Skills, SkillsError> {
        let (catalog, mut refused) = reload::load(self.dir.as_deref(), &self.code, &self.limits)?;
        if !refused.is_empty() {
            return Err(refused.swap_remove(0));
        }
        Ok(Skills {
            shared: Arc::new(Shared {
                settings: self,
                catalog: RwLock::new(Arc::new(catalog)),
                reloading: Mutex::new(()),
                installed: Mutex::new(None),
            }),
        })
    }
}
