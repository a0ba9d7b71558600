//! Reading the text files users hand in (opening books, perft suites, tournament configs,
//! games.csv) as editors save them: a UTF-8 byte-order mark (U+FEFF) at the very start, which
//! some editors and spreadsheet programs write, marks the encoding and is not part of the text.
//!
//! For users (`docs/guide/rules.md`, "Files"): files are UTF-8, and a byte-order mark at the
//! start is skipped.
//!
//! games.csv itself goes through the csv crate, whose reader skips the mark already; the
//! header check before appending to a games.csv uses [`strip_bom`].

use std::io;
use std::path::Path;

/// The byte-order mark.
const BOM: char = '\u{feff}';

/// `text` without a byte-order mark at its start (only there: U+FEFF elsewhere is text).
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// The UTF-8 text of the file at `path`, without a byte-order mark at its start.
///
/// # Errors
/// As [`std::fs::read_to_string`]: the file cannot be read, or is not UTF-8.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    let mut text = std::fs::read_to_string(path)?;
    if text.starts_with(BOM) {
        text.drain(..BOM.len_utf8());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_leading_mark_is_dropped() {
        assert_eq!(strip_bom("\u{feff}startpos"), "startpos");
        assert_eq!(strip_bom("startpos\u{feff}"), "startpos\u{feff}");
        assert_eq!(strip_bom("\u{feff}\u{feff}x"), "\u{feff}x");
        assert_eq!(strip_bom(""), "");
    }

    #[test]
    fn files_are_read_without_their_mark() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.epd");
        std::fs::write(&path, "\u{feff}startpos\n").unwrap();
        assert_eq!(read_to_string(&path).unwrap(), "startpos\n");
        std::fs::write(&path, "startpos\n").unwrap();
        assert_eq!(read_to_string(&path).unwrap(), "startpos\n");
        let missing = read_to_string(&dir.path().join("missing.epd")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }
}
