//! Files written whole or not at all: summary.json, config.json, a run's identity.json and
//! sprt.json, run.json and report.html. A reader (another shard, a browser reloading the page)
//! sees the old file or the new one, never a part of one.

use serde::Serialize;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// What [`write_atomically`] and [`write_json`] do when the file exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Replace it (rename over it).
    Replace,
    /// Keep it and write nothing: the file is created only if no file has its name, also
    /// when several processes (on several machines sharing the directory over NFS) race to
    /// create it.
    Keep,
}

/// Writes `value` as pretty JSON (and a newline) to `path`, atomically, as
/// [`write_atomically`] does. Returns `false` when an existing file was kept.
///
/// # Errors
/// The I/O error when the temporary file cannot be created, written, renamed or linked.
pub fn write_json(path: &Path, value: &impl Serialize, existing: Existing) -> io::Result<bool> {
    write_atomically(path, existing, |file| {
        // Buffered: serde writes each token by itself.
        let mut out = io::BufWriter::new(file);
        serde_json::to_writer_pretty(&mut out, value)?;
        out.write_all(b"\n")?;
        out.flush()
    })
}

/// Writes `path` whole or not at all: `contents` writes to a temporary file in the same
/// directory, which is made readable like the other results files (0644), synced, then
/// renamed to `path` ([`Existing::Replace`]) or linked to it only if no file has that name
/// ([`Existing::Keep`]: a hard link, which is atomic over NFS where `O_EXCL` and `flock` may
/// not be). Returns `false` when an existing file was kept.
///
/// # Errors
/// The I/O error when the temporary file cannot be created, written, renamed or linked.
pub fn write_atomically(
    path: &Path,
    existing: Existing,
    contents: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<bool> {
    let dir = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    contents(file.as_file_mut())?;
    {
        // The temporary file starts as 0600.
        use std::os::unix::fs::PermissionsExt;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    file.as_file().sync_all()?;
    match existing {
        Existing::Replace => file.persist(path).map(|_| true),
        Existing::Keep => match file.persist_noclobber(path) {
            Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            written => written.map(|_| true),
        },
    }
    .map_err(|e| e.error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_file_is_not_replaced_and_a_replaced_one_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        assert!(write_json(&path, &[1], Existing::Keep).unwrap());
        assert!(!write_json(&path, &[2], Existing::Keep).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[\n  1\n]\n");
        assert!(write_json(&path, &[3], Existing::Replace).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[\n  3\n]\n");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644);
        let err = write_json(&dir.path().join("no/x.json"), &1, Existing::Keep).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound, "{err}");
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn contents_that_fail_to_write_leave_the_old_file_and_no_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.json");
        std::fs::write(&path, "old\n").unwrap();
        for existing in [Existing::Replace, Existing::Keep] {
            let err = write_atomically(&path, existing, |file| {
                file.write_all(b"half a new fi")?;
                Err(io::Error::new(io::ErrorKind::StorageFull, "no space left"))
            })
            .unwrap_err();
            assert_eq!(
                err.kind(),
                io::ErrorKind::StorageFull,
                "{existing:?}: {err}"
            );
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                "old\n",
                "{existing:?}"
            );
            let names: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|entry| entry.unwrap().file_name())
                .collect();
            assert_eq!(names, ["summary.json"], "{existing:?}");
        }
        // A file that did not exist is not created.
        let new = dir.path().join("report.html");
        let failed = write_atomically(&new, Existing::Replace, |_| Err(io::Error::other("x")));
        assert!(failed.is_err());
        assert!(!new.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
