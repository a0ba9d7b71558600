//! The report as JSON: summary.json in a run directory, and `bt-arena elo --json`.
//!
//! The JSON is the serde form of [`Summary`] (field names and shapes are documented on the
//! types of [`report`](super::report)), pretty-printed, with a final newline.

use super::summary::Summary;
use crate::records::RecordsError;
use crate::records::{Existing, write_json};
use std::path::Path;

/// `summary` as pretty JSON with a final newline: the text of summary.json.
pub fn summary_json(summary: &Summary) -> String {
    // Strings, numbers (non-finite ones become null), options and lists: nothing that
    // serde_json refuses.
    let json = serde_json::to_string_pretty(summary).expect("a Summary always serializes");
    json + "\n"
}

/// Writes `summary` as pretty JSON to `dir/summary.json`, atomically: to a temporary file in
/// `dir`, synced, then renamed over the old summary ([`write_json`]).
///
/// # Errors
/// [`RecordsError::Io`] when the temporary file cannot be created, written or renamed.
pub fn write_summary(dir: &Path, summary: &Summary) -> Result<(), RecordsError> {
    let path = crate::run_dir::RunDir::new(dir).summary_json();
    write_json(&path, summary, Existing::Replace).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::tests::{alpha_beta, sprt};

    #[test]
    fn summary_json_is_written_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let summary = Summary::compute(&alpha_beta(), &[], Some(&sprt()));
        write_summary(dir.path(), &summary).unwrap();
        write_summary(dir.path(), &summary).unwrap();
        let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(entries.len(), 1);
        let text = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["games"], 9);
        assert_eq!(
            json["pairs"][0]["pentanomial"],
            serde_json::json!([1, 0, 1, 0, 2])
        );
        assert_eq!(json["pairs"][0]["model"], "pentanomial");
        assert_eq!(json["standings"][0]["name"], "alpha");
        let err = write_summary(&dir.path().join("missing"), &summary).unwrap_err();
        assert!(err.to_string().contains("missing"), "{err}");
    }

    /// `bt-arena elo --json` prints what summary.json holds: pretty JSON, a final newline.
    #[test]
    fn the_file_holds_the_printed_json() {
        let summary = Summary::compute(&alpha_beta(), &[], Some(&sprt()));
        let text = summary_json(&summary);
        assert!(
            text.starts_with("{\n  \"games\": 9,\n  \"engines\": [\n    \"alpha\",\n"),
            "{text}"
        );
        assert!(text.ends_with("\n}\n"), "{text}");
        let dir = tempfile::tempdir().unwrap();
        write_summary(dir.path(), &summary).unwrap();
        let written = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
        assert_eq!(written, text);
    }
}
