//! The one gate every path of the `filesystem` example passes through (SECURITY.md row 17),
//! and the roots it checks against.
//!
//! [`guard`] takes a path as the client wrote it (a tool argument, or the path of a
//! `file:///` URI) and either refuses it or returns a canonical path under an allowed root:
//!
//! 1. percent-decode once (`%2E%2E` is `..`, `%2F` is `/`, `%5C` is `\`); not UTF-8 → refused;
//! 2. a NUL byte → refused;
//! 3. a UNC path (`\\srv\share`, `//srv/share`) or a Windows drive (`C:\x`, `C:x`) → refused;
//! 4. `..` as a path component, with both `/` and `\` as separators → refused (a name
//!    that merely contains `..`, such as `HEAD~3..HEAD` or `v1.0..v2.0`, is fine);
//! 5. an absolute path that is not, component by component, under a root → refused; a
//!    relative path is taken relative to the first root;
//! 6. canonicalize, resolving every symbolic link (for a write: the parent directory, and
//!    the target too if it exists), and refuse the result unless it is under a canonical
//!    root. A symbolic link in a root that points outside is refused here.
//!
//! Checking the decoded value component by component, and only then the canonical result,
//! avoids both classic mistakes: the string-prefix check (`/srv/root_evil` "starts with"
//! `/srv/root`, CVE-2025-53110) and the check before symlinks are resolved
//! (CVE-2025-53109). What remains is the race between the check and the use: a local user
//! who can swap a directory for a symbolic link in between can still escape; serving a tree
//! that untrusted local users write to needs `openat2(RESOLVE_BENEATH)` or a sandbox.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A directory the server may serve: as it was named (made absolute) and canonicalized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedRoot {
    named: PathBuf,
    canonical: PathBuf,
}

impl AllowedRoot {
    /// The directory at `path`, which must exist.
    ///
    /// # Errors
    ///
    /// `path` does not exist, cannot be resolved, or is not a directory.
    pub fn new(path: &Path) -> io::Result<Self> {
        let named = std::path::absolute(path)?;
        let canonical = named.canonicalize()?;
        if !canonical.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "not a directory",
            ));
        }
        Ok(AllowedRoot { named, canonical })
    }

    /// The canonical path.
    pub fn path(&self) -> &Path {
        &self.canonical
    }
}

/// What the caller will do with the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read a file or list a directory: the path must exist.
    Read,
    /// Create or replace a file: its parent directory must exist.
    Write,
}

/// Why [`guard`] did not return a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// The path is not allowed; the message says why.
    Refused(String),
    /// The path is allowed but nothing is there.
    NotFound(String),
    /// The file system failed while resolving the path.
    Io(String),
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Refused(why) => write!(f, "path refused: {why}"),
            PathError::NotFound(path) => write!(f, "not found: {path}"),
            PathError::Io(e) => f.write_str(e),
        }
    }
}

/// Resolves `raw` to a canonical path under one of `roots`, or says why not (see the
/// module docs for the rules, in order).
///
/// # Errors
///
/// [`PathError::Refused`] when any rule refuses the path, [`PathError::NotFound`] when an
/// allowed path names nothing (for a write: when its directory does not exist).
pub fn guard(raw: &str, roots: &[AllowedRoot], access: Access) -> Result<PathBuf, PathError> {
    let refuse = |why: &str| Err(PathError::Refused(format!("{raw:?}: {why}")));
    let Some(first) = roots.first() else {
        return refuse("no directory is allowed (the client's roots share none with the server's)");
    };
    let Some(path) = percent_decode(raw) else {
        return refuse("it is not UTF-8 once percent-decoded");
    };
    if path.contains('\0') {
        return refuse("it contains a NUL byte");
    }
    if path.starts_with("\\\\") || path.starts_with("//") {
        return refuse("UNC paths are not allowed");
    }
    if has_drive(&path) {
        return refuse("Windows drive paths are not allowed");
    }
    if path.split(['/', '\\']).any(|c| c == "..") {
        return refuse("`..` is not allowed as a path component");
    }
    let candidate = if path.starts_with('/') {
        let candidate = PathBuf::from(&path);
        let under = |r: &AllowedRoot| {
            candidate.starts_with(&r.named) || candidate.starts_with(&r.canonical)
        };
        if !roots.iter().any(under) {
            return refuse("it is outside the allowed directories");
        }
        candidate
    } else {
        first.canonical.join(&path)
    };
    let resolved = match access {
        Access::Read => canonicalize(&candidate)?,
        Access::Write => canonicalize_for_write(&candidate, raw)?,
    };
    if !contains(roots, &resolved) {
        return refuse("it resolves outside the allowed directories (through a symbolic link)");
    }
    Ok(resolved)
}

/// Whether the canonical path `path` is one of `roots` or under one, component by
/// component.
pub fn contains(roots: &[AllowedRoot], path: &Path) -> bool {
    roots.iter().any(|r| path.starts_with(&r.canonical))
}

/// The part of `roots` that the client's roots (`file://` URIs, from `roots/list`) also
/// cover: a client root inside a server root narrows it, a server root inside a client
/// root stays, and anything else is dropped — a client can narrow what the server serves,
/// never widen it. Client roots that are not local `file://` directories count for nothing,
/// so an empty or unusable list leaves no directory allowed.
pub fn within_client_roots(roots: &[AllowedRoot], client: &[&str]) -> Vec<AllowedRoot> {
    let client: Vec<AllowedRoot> = client
        .iter()
        .filter_map(|uri| AllowedRoot::new(&file_uri_path(uri)?).ok())
        .collect();
    let mut out: Vec<AllowedRoot> = Vec::new();
    for server in roots {
        for client in &client {
            let narrower = if client.canonical.starts_with(&server.canonical) {
                client
            } else if server.canonical.starts_with(&client.canonical) {
                server
            } else {
                continue;
            };
            if !out.iter().any(|r| r.canonical == narrower.canonical) {
                out.push(narrower.clone());
            }
        }
    }
    out
}

/// The local path of a `file://` URI (empty or `localhost` authority), checked like any
/// client path: decoded, no NUL, no `..`, absolute.
fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let scheme = uri.get(..7)?;
    if !scheme.eq_ignore_ascii_case("file://") {
        return None;
    }
    let rest = uri.get(7..)?;
    let slash = rest.find('/')?;
    let (host, path) = rest.split_at(slash);
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = percent_decode(path)?;
    let bad = path.contains('\0') || path.split(['/', '\\']).any(|c| c == "..");
    (!bad).then(|| PathBuf::from(path))
}

/// Decodes every well-formed `%XX` triplet once; other `%` signs stay as they are. `None`
/// if the result is not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    fn hex(b: Option<&u8>) -> Option<u8> {
        (*b? as char).to_digit(16).map(|d| d as u8)
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%'
            && let (Some(hi), Some(lo)) = (hex(bytes.get(i + 1)), hex(bytes.get(i + 2)))
        {
            out.push(hi << 4 | lo);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `C:`, `C:\x`, `C:/x` or `/C:/x` (the path of `file:///C:/x`).
fn has_drive(path: &str) -> bool {
    let path = path.strip_prefix('/').unwrap_or(path).as_bytes();
    matches!(path, [letter, b':', ..] if letter.is_ascii_alphabetic())
}

fn canonicalize(path: &Path) -> Result<PathBuf, PathError> {
    path.canonicalize().map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => PathError::NotFound(path.display().to_string()),
        _ => PathError::Io(format!("{}: {e}", path.display())),
    })
}

/// The parent is canonicalized (it must exist); an existing target is canonicalized too, so
/// that a symbolic link is judged by where it points, and a dangling one is refused rather
/// than followed to create a file wherever it points.
fn canonicalize_for_write(path: &Path, raw: &str) -> Result<PathBuf, PathError> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(PathError::Refused(format!("{raw:?}: it names no file")));
    };
    let target = canonicalize(parent)?.join(name);
    match std::fs::symlink_metadata(&target) {
        Ok(meta) => match target.canonicalize() {
            Ok(resolved) => Ok(resolved),
            Err(_) if meta.is_symlink() => Err(PathError::Refused(format!(
                "{raw:?}: it is a symbolic link to nowhere"
            ))),
            Err(e) => Err(PathError::Io(format!("{}: {e}", target.display()))),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(target),
        Err(e) => Err(PathError::Io(format!("{}: {e}", target.display()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_once_and_keeps_stray_percent_signs() {
        assert_eq!(percent_decode("%2E%2E%2fetc").as_deref(), Some("../etc"));
        assert_eq!(percent_decode("%252E").as_deref(), Some("%2E"));
        assert_eq!(percent_decode("100%").as_deref(), Some("100%"));
        assert_eq!(percent_decode("%zz%4").as_deref(), Some("%zz%4"));
        assert_eq!(percent_decode("%FF"), None);
    }

    #[test]
    fn drives_and_file_uris() {
        for drive in ["C:", "C:\\x", "c:/x", "/C:/x", "C:x"] {
            assert!(has_drive(drive), "{drive}");
        }
        for name in ["CC:x", "x", "/tmp/a:b", ""] {
            assert!(!has_drive(name), "{name}");
        }
        assert_eq!(file_uri_path("file:///a%20b"), Some(PathBuf::from("/a b")));
        assert_eq!(
            file_uri_path("FILE://localhost/a"),
            Some(PathBuf::from("/a"))
        );
        assert_eq!(file_uri_path("file://host/a"), None);
        assert_eq!(file_uri_path("file:///a/%2E%2E/b"), None);
        assert_eq!(file_uri_path("https://x/a"), None);
    }
}
