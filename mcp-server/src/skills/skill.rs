//! One skill: its path, its `SKILL.md` front matter and its files, each with its digest.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use ferromcp_core::types::JSONObject;
use sha2::{Digest, Sha256};

use super::SkillsError;

/// The file every skill has at its root.
pub(crate) const SKILL_MD: &str = "SKILL.md";

/// One skill: a `SKILL.md` whose YAML front matter names and describes it, and the files
/// beside it. Its URI is `skill://<path>/SKILL.md`, where the last segment of `path` is
/// the front matter's `name`; the other segments, if any, are a prefix of the server's
/// choosing (`acme/billing/refunds`).
///
/// Loaded from a folder by [`Skills::from_dir`](super::Skills::from_dir), or built in code
/// with [`new`](Skill::new) and [`file`](Skill::file).
///
/// # Examples
///
/// ```
/// use ferromcp::skills::Skill;
///
/// let skill = Skill::new(
///     "acme/refunds",
///     "---\nname: refunds\ndescription: Refund an order per company policy\n---\n\n# Refunds\n",
/// )?
/// .file("examples/email.md", "Dear customer, …")?;
/// assert_eq!(skill.name(), "refunds");
/// assert_eq!(skill.uri(), "skill://acme/refunds/SKILL.md");
/// assert_eq!(skill.files().collect::<Vec<_>>(), ["SKILL.md", "examples/email.md"]);
/// # Ok::<(), ferromcp::skills::SkillsError>(())
/// ```
#[derive(Clone)]
pub struct Skill {
    path: String,
    frontmatter: JSONObject,
    files: BTreeMap<String, SkillFile>,
}

/// A file of a skill: its bytes and their digest.
#[derive(Clone)]
pub(crate) struct SkillFile {
    pub(crate) bytes: Arc<[u8]>,
    /// `sha256:<64 lowercase hex>` of `bytes`.
    pub(crate) digest: String,
}

impl SkillFile {
    fn new(bytes: Vec<u8>) -> SkillFile {
        let digest = format!("sha256:{:x}", Sha256::digest(&bytes));
        SkillFile {
            bytes: bytes.into(),
            digest,
        }
    }
}

impl fmt::Debug for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skill")
            .field("path", &self.path)
            .field("files", &self.files.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Skill {
    /// A skill at `path` whose `SKILL.md` is `skill_md`.
    ///
    /// # Errors
    ///
    /// [`SkillsError::Invalid`] when `SKILL.md` does not begin with YAML front matter
    /// holding a `name` and a `description` (non-empty strings), when `name` breaks the
    /// Agent Skills naming rules (1-64 characters of `a-z`, `0-9` and `-`, no `-` at either
    /// end nor twice in a row), when it differs from the last segment of `path`, or when a
    /// segment of `path` is empty, `.`, `..` or has a character other than `A-Z a-z 0-9 . _
    /// ~ -`.
    pub fn new(path: impl Into<String>, skill_md: impl Into<String>) -> Result<Skill, SkillsError> {
        let path = path.into();
        let skill_md = skill_md.into();
        check_path(&path).map_err(|problem| SkillsError::invalid(&path, problem))?;
        let frontmatter =
            front_matter(&skill_md).map_err(|problem| SkillsError::invalid(&path, problem))?;
        let name = frontmatter
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or_default();
        if !is_valid_name(name) {
            return Err(SkillsError::invalid(
                &path,
                format!(
                    "the name `{name}` breaks the naming rules: 1-64 characters of a-z, 0-9 \
                     and `-`, with no `-` at either end nor two in a row"
                ),
            ));
        }
        let last = path.rsplit('/').next().unwrap_or_default();
        if last != name {
            return Err(SkillsError::invalid(
                &path,
                format!(
                    "the last segment of the skill's path must be its name: found `{last}`, \
                     the front matter says `{name}`"
                ),
            ));
        }
        let mut files = BTreeMap::new();
        files.insert(SKILL_MD.to_owned(), SkillFile::new(skill_md.into_bytes()));
        Ok(Skill {
            path,
            frontmatter,
            files,
        })
    }

    /// Adds the file at `path` (relative to the skill's root, `/`-separated, such as
    /// `references/FORMS.md`) with `contents`.
    ///
    /// # Errors
    ///
    /// [`SkillsError::Invalid`] when a segment of `path` is empty, `.`, `..` or has a
    /// character other than `A-Z a-z 0-9 . _ ~ -`, or when the skill has a file at `path`
    /// already.
    pub fn file(
        mut self,
        path: impl Into<String>,
        contents: impl Into<Vec<u8>>,
    ) -> Result<Skill, SkillsError> {
        let file = path.into();
        check_path(&file).map_err(|problem| {
            SkillsError::invalid(&self.path, format!("file `{file}`: {problem}"))
        })?;
        if self.files.contains_key(&file) {
            return Err(SkillsError::invalid(
                &self.path,
                format!("the skill has a file `{file}` already"),
            ));
        }
        self.files.insert(file, SkillFile::new(contents.into()));
        Ok(self)
    }

    /// The skill's name: the front matter's `name`, the last segment of its path.
    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or_default()
    }

    /// The skill's path (`acme/billing/refunds`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The URI of its `SKILL.md`: `skill://<path>/SKILL.md`.
    pub fn uri(&self) -> String {
        self.file_uri(SKILL_MD)
    }

    /// The front matter of its `SKILL.md`, as JSON.
    pub fn frontmatter(&self) -> &JSONObject {
        &self.frontmatter
    }

    /// The description from its front matter.
    pub fn description(&self) -> &str {
        self.frontmatter
            .get("description")
            .and_then(|d| d.as_str())
            .unwrap_or_default()
    }

    /// The paths of its files, relative to its root, in order (`SKILL.md` among them).
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// The sum of its files' sizes, in bytes.
    pub fn size(&self) -> u64 {
        self.files.values().map(|f| f.bytes.len() as u64).sum()
    }

    pub(crate) fn file_uri(&self, file: &str) -> String {
        format!("skill://{}/{file}", self.path)
    }

    pub(crate) fn file_entries(&self) -> impl Iterator<Item = (&str, &SkillFile)> {
        self.files.iter().map(|(path, file)| (path.as_str(), file))
    }

    pub(crate) fn largest_file(&self) -> Option<(&str, u64)> {
        self.file_entries()
            .map(|(path, file)| (path, file.bytes.len() as u64))
            .max_by_key(|(_, size)| *size)
    }

    /// The skill's files as another skill's: under the prefix `within` (a nested skill's
    /// files, seen from the skill that encloses it).
    pub(crate) fn absorb(&mut self, within: &str, nested: &Skill) {
        for (path, file) in nested.file_entries() {
            self.files.insert(format!("{within}/{path}"), file.clone());
        }
    }
}

/// Whether `name` follows the Agent Skills naming rules: 1-64 characters of `a-z`, `0-9`
/// and `-`, with no `-` at either end nor two in a row.
///
/// # Examples
///
/// ```
/// use ferromcp::skills::is_valid_name;
///
/// assert!(is_valid_name("pdf-processing"));
/// assert!(!is_valid_name("PDF"));
/// assert!(!is_valid_name("pdf--processing"));
/// assert!(!is_valid_name("-pdf"));
/// ```
pub fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Why `path` (a skill's path, or a file's within its skill) cannot appear in a `skill://`
/// URI as it is.
fn check_path(path: &str) -> Result<(), String> {
    for segment in path.split('/') {
        if segment.is_empty() || segment == "." || segment == ".." {
            return Err(format!(
                "`{path}` has an empty, `.` or `..` segment: paths stay within the skill"
            ));
        }
        if let Some(c) = segment
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '~' | '-')))
        {
            return Err(format!(
                "`{path}` has the character {c:?}, which a skill:// URI would have to escape: \
                 use A-Z a-z 0-9 . _ ~ - only"
            ));
        }
    }
    Ok(())
}

/// The YAML front matter at the start of `text` (after an optional byte-order mark),
/// between a `---` line and the next `---` line, as a JSON object with non-empty string
/// `name` and `description`. YAML 1.2's core schema: `yes` and `no` are strings.
pub(crate) fn front_matter(text: &str) -> Result<JSONObject, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("SKILL.md must begin with a `---` line that opens its YAML front matter")?;
    let mut end = None;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line
            .trim_end_matches(['\n', '\r'])
            .trim_end_matches([' ', '\t'])
            == "---"
        {
            end = Some(offset);
            break;
        }
        offset += line.len();
    }
    let yaml = end
        .map(|end| &rest[..end])
        .ok_or("SKILL.md's front matter has no closing `---` line")?;
    let options = serde_saphyr::options! { strict_booleans: true };
    let value: serde_json::Value =
        serde_saphyr::from_str_with_options(yaml, options).map_err(|e| {
            let e = e.to_string();
            format!(
                "SKILL.md's front matter is not valid YAML: {}",
                e.lines().next().unwrap_or_default()
            )
        })?;
    let serde_json::Value::Object(object) = value else {
        return Err("SKILL.md's front matter must be a YAML mapping".into());
    };
    for field in ["name", "description"] {
        if object
            .get(field)
            .and_then(|v| v.as_str())
            .is_none_or(str::is_empty)
        {
            return Err(format!(
                "SKILL.md's front matter needs a non-empty string `{field}`"
            ));
        }
    }
    Ok(object)
}

/// The MIME type a skill file is served with, from its extension.
pub(crate) fn mime_type(path: &str, text: bool) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or_default();
    let extension = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "sql" => "application/sql",
        "py" => "text/x-python",
        "sh" => "application/x-sh",
        "js" | "mjs" => "text/javascript",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        _ if text => "text/plain",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_yaml_1_2_between_two_fences() {
        let fm = front_matter(
            "\u{feff}---\r\nname: a\ndescription: b\nflag: yes\nmetadata:\n  v: \"1.0\"\n--- \n# body\n---\n",
        )
        .unwrap();
        assert_eq!(fm["flag"], "yes");
        assert_eq!(fm["metadata"]["v"], "1.0");
        assert_eq!(fm.len(), 4);
    }

    #[test]
    fn front_matter_problems_are_named() {
        for (text, says) in [
            ("# no front matter", "must begin with a `---` line"),
            ("---\nname: a\n", "no closing `---` line"),
            ("---\n- a\n---\n", "must be a YAML mapping"),
            ("---\nname: a\n---\n", "non-empty string `description`"),
            ("---\nname: [a\n---\n", "not valid YAML"),
        ] {
            let e = front_matter(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["a", "pdf-processing", "x9", &"a".repeat(64)] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in ["", "A", "a_b", "-a", "a-", "a--b", "ü", &"a".repeat(65)] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn paths_stay_within_the_skill_and_need_no_escaping() {
        for good in ["a", "a/b.md", "refs/v1.0~x_y-z"] {
            assert_eq!(check_path(good), Ok(()), "{good}");
        }
        for bad in [
            "", "a//b", "../a", "a/./b", "a/..", "/a", "a b", "a%2Fb", "a\\b",
        ] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn mime_types_come_from_the_file_name_alone() {
        assert_eq!(mime_type("skill://a/SKILL.md", true), "text/markdown");
        assert_eq!(mime_type("skill://v1.0/notes", true), "text/plain");
        assert_eq!(
            mime_type("skill://v1.0/logo", false),
            "application/octet-stream"
        );
        assert_eq!(mime_type("data.JSON", true), "application/json");
    }

    #[test]
    fn digests_are_sha256_of_the_bytes_in_lowercase_hex() {
        let file = SkillFile::new(b"abc".to_vec());
        assert_eq!(
            file.digest,
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
