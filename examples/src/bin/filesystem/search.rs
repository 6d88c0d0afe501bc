//! The `search` tool's walk: breadth first under a directory, matching names by glob or
//! substring, within bounds on what it visits and returns.

use std::collections::VecDeque;
use std::path::Path;

use super::Matches;
use super::path_guard::{self, AllowedRoot};

/// At most this many matches per `search`.
const MAX_MATCHES: usize = 100;
/// `search` stops after looking at this many directory entries.
const MAX_VISITED: usize = 20_000;

/// Walks `dir` breadth first without following symbolic links; a symbolic link is a match
/// only if it resolves inside `roots`.
pub(super) fn find(dir: &Path, pattern: &str, roots: &[AllowedRoot]) -> Matches {
    let matcher = NameMatcher::new(pattern);
    let mut matches = Vec::new();
    let mut queue = VecDeque::from([dir.to_path_buf()]);
    let mut visited = 0;
    while let Some(dir) = queue.pop_front() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<_> = read.filter_map(Result::ok).collect();
        names.sort_by_key(|e| e.file_name());
        for entry in names {
            visited += 1;
            if visited > MAX_VISITED || matches.len() == MAX_MATCHES {
                return Matches {
                    matches,
                    truncated: true,
                };
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let shown = !kind.is_symlink()
                || path
                    .canonicalize()
                    .is_ok_and(|p| path_guard::contains(roots, &p));
            if shown && matcher.matches(&entry.file_name().to_string_lossy()) {
                matches.push(path.display().to_string());
            }
            if kind.is_dir() {
                queue.push_back(path);
            }
        }
    }
    Matches {
        matches,
        truncated: false,
    }
}

/// A glob (`*`, `?`) on the whole name, or a case-insensitive substring.
enum NameMatcher {
    Glob(Vec<char>),
    Substring(String),
}

impl NameMatcher {
    fn new(pattern: &str) -> Self {
        if pattern.contains(['*', '?']) {
            NameMatcher::Glob(pattern.chars().collect())
        } else {
            NameMatcher::Substring(pattern.to_lowercase())
        }
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            NameMatcher::Substring(s) => name.to_lowercase().contains(s.as_str()),
            NameMatcher::Glob(p) => glob(p, &name.chars().collect::<Vec<_>>()),
        }
    }
}

/// Glob matching with backtracking to the last `*` only: linear in practice, quadratic at
/// worst, never exponential.
fn glob(pattern: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || Some(&c) == name.get(n) => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    star = Some((sp, sn + 1));
                    p = sp + 1;
                    n = sn + 1;
                }
                None => return false,
            },
        }
    }
    pattern
        .get(p..)
        .is_some_and(|rest| rest.iter().all(|&c| c == '*'))
}
