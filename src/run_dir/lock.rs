//! One bt-arena writes a run directory at a time: `<dir>/.lock`, held with `flock` for as
//! long as the file is open.

use std::path::{Path, PathBuf};

/// Why a run directory cannot be locked.
#[derive(Debug)]
pub enum LockError {
    /// Another bt-arena is running on the directory.
    Busy(PathBuf),
    /// The lock file cannot be created or locked.
    Io {
        /// The lock file.
        path: PathBuf,
        /// `cannot create`, `cannot lock`.
        action: &'static str,
        /// The operating system's reason.
        source: std::io::Error,
    },
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Busy(dir) => write!(
                f,
                "another bt-arena is running on {} (it holds {}/.lock)",
                dir.display(),
                dir.display()
            ),
            LockError::Io {
                path,
                action,
                source,
            } => write!(f, "{action} {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for LockError {}

/// Locks `dir` for this process (`<dir>/.lock`, created with the directory when missing):
/// one bt-arena writes a run directory at a time. The lock lasts as long as the file.
///
/// # Errors
/// [`LockError::Busy`] when another process holds it; [`LockError::Io`] when it cannot be
/// created or locked.
pub fn lock_directory(dir: &Path) -> Result<std::fs::File, LockError> {
    let path = super::RunDir::new(dir).lock();
    let io = |action, source| LockError::Io {
        path: path.clone(),
        action,
        source,
    };
    let file = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::File::create(&path))
        .map_err(|e| io("cannot create", e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(LockError::Busy(dir.to_path_buf())),
        Err(std::fs::TryLockError::Error(e)) => Err(io("cannot lock", e)),
    }
}
