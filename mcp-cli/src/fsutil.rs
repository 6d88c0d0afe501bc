//! Writing config files safely: the old file kept as `FILE.bak`, the new one written to a
//! temporary file beside it and renamed over it, so a crash leaves one or the other whole.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::CliError;

/// Reads `path`, or `None` if it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, CliError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(CliError::io(path, error)),
    }
}

/// The backup's path: `FILE.bak`.
pub(crate) fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}

/// Replaces `path` with `text` atomically, after copying the old file (if any) to
/// `FILE.bak`; creates missing parent folders. The new file keeps the old one's permissions.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<(), CliError> {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| CliError::io(&parent, e))?;
    let old = std::fs::metadata(path).ok();
    if old.is_some() {
        let backup = backup_path(path);
        std::fs::copy(path, &backup).map_err(|e| CliError::io(&backup, e))?;
    }
    let mut temp =
        tempfile::NamedTempFile::new_in(&parent).map_err(|e| CliError::io(&parent, e))?;
    temp.write_all(text.as_bytes())
        .map_err(|e| CliError::io(temp.path(), e))?;
    temp.as_file()
        .sync_all()
        .map_err(|e| CliError::io(temp.path(), e))?;
    if let Some(old) = old {
        std::fs::set_permissions(temp.path(), old.permissions())
            .map_err(|e| CliError::io(temp.path(), e))?;
    }
    temp.persist(path)
        .map_err(|e| CliError::io(path, e.error))?;
    Ok(())
}
