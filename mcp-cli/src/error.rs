//! The command's errors and the exit status each one gives.

use std::path::PathBuf;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum CliError {
    /// The command line asks for something that cannot be done (exit 2).
    #[error("{0}")]
    Usage(String),
    /// A file could not be read, written or created.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A config file is not what it should be (not JSON, not an object, …).
    #[error("{path}: {message}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// An entry of that name is already there (exit 3).
    #[error("{0}")]
    Exists(String),
    /// A program the command ran failed.
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> CliError {
        CliError::Io {
            path: path.into(),
            source,
        }
    }

    /// The process exit status for this error.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Exists(_) => 3,
            _ => 1,
        }
    }
}
