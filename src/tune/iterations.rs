//! tune.csv: one row per finished iteration, appended and flushed as each iteration ends, so
//! that a tune killed at any point (even by `kill -9`) loses at most its iterations in flight,
//! and `--resume` rebuilds θ from the file alone.
//!
//! Columns: `iteration`, `first_game` (the iteration's games are games `first_game` to
//! `first_game + 2·pairs − 1` of games.csv), `wins` and `losses` (tune+'s, over those games),
//! `finished` (RFC 3339, UTC), then for each parameter NAME in declaration order
//! `theta[NAME]` (θ when the iteration started), `flip[NAME]` (Δ), `c_k[NAME]`, `a_k[NAME]`,
//! `plus[NAME]` and `minus[NAME]` (the values tune+ and tune− played). Reals are written as
//! the shortest decimals that read back as the same `f64`, so θ rebuilt from the file is
//! bit for bit the θ of the run that wrote it.
//!
//! **θ is a function of the finished iterations**: the parameters' start values, then each
//! finished iteration's update (see [`super::spsa::update`]) applied **in increasing
//! iteration number**, clipping after each. Rows are appended in the order iterations finish
//! (with `--concurrency` above one, not always the order of their numbers); the order of
//! application is the iteration number's, whatever the order of the rows, so that θ depends
//! on which iterations are finished and not on when they finished. Only clipping makes the
//! order matter at all (the increments add). This is also the order for tunes spread over
//! several machines sharing a run directory: each shard appends its own rows (its own
//! tune.csv), and θ is the same fold over the rows of every shard.

use super::params::TuneParam;
use super::spsa::{self, Perturbation};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The file name of the iterations log in a tune's run directory.
pub use crate::run_dir::TUNE_CSV;

/// The columns before the per-parameter ones.
const FIXED_COLUMNS: [&str; 5] = ["iteration", "first_game", "wins", "losses", "finished"];
/// The per-parameter columns, each written `FIELD[NAME]`.
const PARAM_COLUMNS: [&str; 6] = ["theta", "flip", "c_k", "a_k", "plus", "minus"];

/// A finished iteration: its perturbation (θ it started from, flips, gains, values played),
/// its games and result.
#[derive(Clone, Debug, PartialEq)]
pub struct IterationRecord {
    /// The perturbation, with the iteration number.
    pub step: Perturbation,
    /// The game id of its first game in games.csv.
    pub first_game: u64,
    /// tune+'s wins over the iteration's games.
    pub wins: u32,
    /// tune+'s losses over the iteration's games.
    pub losses: u32,
    /// When it finished (RFC 3339, UTC).
    pub finished: String,
}

/// The header of tune.csv for `params`.
pub fn header(params: &[TuneParam]) -> Vec<String> {
    let mut columns: Vec<String> = FIXED_COLUMNS.iter().map(|c| c.to_string()).collect();
    for param in params {
        columns.extend(
            PARAM_COLUMNS
                .iter()
                .map(|field| format!("{field}[{}]", param.name)),
        );
    }
    columns
}

/// The fields of `record`'s row.
fn row(record: &IterationRecord) -> Vec<String> {
    let step = &record.step;
    let mut fields = vec![
        step.iteration.to_string(),
        record.first_game.to_string(),
        record.wins.to_string(),
        record.losses.to_string(),
        record.finished.clone(),
    ];
    for index in 0..step.theta.len() {
        fields.extend([
            step.theta[index].to_string(),
            step.flips[index].to_string(),
            step.c_k[index].to_string(),
            step.a_k[index].to_string(),
            step.plus[index].to_string(),
            step.minus[index].to_string(),
        ]);
    }
    fields
}

/// The record of a row of `params.len()` parameters, or what is wrong with it.
fn parse_row(fields: &csv::StringRecord, params: usize) -> Result<IterationRecord, String> {
    let expected = FIXED_COLUMNS.len() + PARAM_COLUMNS.len() * params;
    if fields.len() != expected {
        return Err(format!("{} fields, expected {expected}", fields.len()));
    }
    fn number<T: std::str::FromStr>(fields: &csv::StringRecord, at: usize) -> Result<T, String> {
        let text = &fields[at];
        text.parse()
            .map_err(|_| format!("field {} '{text}' does not read", at + 1))
    }
    let mut step = Perturbation {
        iteration: number(fields, 0)?,
        theta: Vec::with_capacity(params),
        flips: Vec::with_capacity(params),
        c_k: Vec::with_capacity(params),
        a_k: Vec::with_capacity(params),
        plus: Vec::with_capacity(params),
        minus: Vec::with_capacity(params),
    };
    for index in 0..params {
        let at = FIXED_COLUMNS.len() + PARAM_COLUMNS.len() * index;
        let flip: i8 = number(fields, at + 1)?;
        if flip != 1 && flip != -1 {
            return Err(format!("field {} '{flip}' is not a flip (1 or -1)", at + 2));
        }
        step.theta.push(number(fields, at)?);
        step.flips.push(flip);
        step.c_k.push(number(fields, at + 2)?);
        step.a_k.push(number(fields, at + 3)?);
        step.plus.push(number(fields, at + 4)?);
        step.minus.push(number(fields, at + 5)?);
    }
    Ok(IterationRecord {
        step,
        first_game: number(fields, 1)?,
        wins: number(fields, 2)?,
        losses: number(fields, 3)?,
        finished: fields[4].to_string(),
    })
}

/// An error of tune.csv, naming the file (and line).
#[derive(Debug)]
pub struct IterationsError {
    /// The file.
    pub path: PathBuf,
    /// Its line, from 1, when one is at fault.
    pub line: Option<u64>,
    /// What is wrong.
    pub problem: String,
}

impl std::fmt::Display for IterationsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.problem),
            None => write!(f, "{}: {}", self.path.display(), self.problem),
        }
    }
}

impl std::error::Error for IterationsError {}

/// tune.csv open for appending.
#[derive(Debug)]
pub struct IterationsFile {
    path: PathBuf,
    file: File,
}

impl IterationsFile {
    /// Opens (or creates, with its header) `dir/tune.csv` for the tune of `params` over
    /// `iterations` iterations, returning it with the iterations already recorded, by
    /// iteration number. A last row cut off by a kill (no final newline) is removed first.
    ///
    /// # Errors
    /// An [`IterationsError`] when the file cannot be read or written, its header is not the
    /// one of `params` (another tune's file), a row does not read, an iteration is outside
    /// 1..=`iterations` or recorded twice.
    pub fn open(
        dir: &Path,
        params: &[TuneParam],
        iterations: u64,
    ) -> Result<(IterationsFile, BTreeMap<u64, IterationRecord>), IterationsError> {
        let path = crate::run_dir::RunDir::new(dir).tune_csv();
        let fail = |line: Option<u64>, problem: String| IterationsError {
            path: path.clone(),
            line,
            problem,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|e| fail(None, format!("cannot open: {e}")))?;
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.read_to_end(&mut bytes))
            .map_err(|e| fail(None, format!("cannot read: {e}")))?;
        let complete = bytes
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        if complete < bytes.len() {
            file.set_len(complete as u64)
                .map_err(|e| fail(None, format!("cannot cut its partial last row: {e}")))?;
            bytes.truncate(complete);
        }
        let mut log = IterationsFile {
            path: path.clone(),
            file,
        };
        if bytes.is_empty() {
            log.write_row(&header(params))?;
            return Ok((log, BTreeMap::new()));
        }
        let records = parse(&path, bytes, params, iterations)?;
        Ok((log, records))
    }

    /// The iterations recorded in the tune.csv at `path` (another shard's), read without
    /// writing: none when there is no such file yet; a last row without its final newline
    /// (being written, or cut off by a kill) is left out.
    ///
    /// # Errors
    /// As [`IterationsFile::open`], but for the writing.
    pub fn read(
        path: &Path,
        params: &[TuneParam],
        iterations: u64,
    ) -> Result<BTreeMap<u64, IterationRecord>, IterationsError> {
        let mut bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(e) => {
                return Err(IterationsError {
                    path: path.to_path_buf(),
                    line: None,
                    problem: format!("cannot read: {e}"),
                });
            }
        };
        bytes.truncate(
            bytes
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |at| at + 1),
        );
        if bytes.is_empty() {
            return Ok(BTreeMap::new());
        }
        parse(path, bytes, params, iterations)
    }

    /// Appends `record`'s row and flushes it to the operating system.
    ///
    /// # Errors
    /// An [`IterationsError`] when the write fails.
    pub fn append(&mut self, record: &IterationRecord) -> Result<(), IterationsError> {
        self.write_row(&row(record))
    }

    fn write_row(&mut self, fields: &[String]) -> Result<(), IterationsError> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let bytes = writer
            .write_record(fields)
            .map_err(std::io::Error::from)
            .and_then(|()| writer.into_inner().map_err(|e| e.into_error()));
        bytes
            .and_then(|bytes| {
                self.file.write_all(&bytes)?;
                self.file.flush()
            })
            .map_err(|e| IterationsError {
                path: self.path.clone(),
                line: None,
                problem: format!("cannot write: {e}"),
            })
    }
}

/// The records of tune.csv's complete rows `bytes` (header included), checked against the
/// tune of `params` over `iterations` iterations.
fn parse(
    path: &Path,
    bytes: Vec<u8>,
    params: &[TuneParam],
    iterations: u64,
) -> Result<BTreeMap<u64, IterationRecord>, IterationsError> {
    let fail = |line: Option<u64>, problem: String| IterationsError {
        path: path.to_path_buf(),
        line,
        problem,
    };
    let text = String::from_utf8(bytes).map_err(|_| fail(None, "not UTF-8".into()))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(crate::textfile::strip_bom(&text).as_bytes());
    let found: Vec<String> = reader
        .headers()
        .map_err(|e| fail(Some(1), e.to_string()))?
        .iter()
        .map(str::to_string)
        .collect();
    if found != header(params) {
        return Err(fail(
            Some(1),
            "its columns are not those of this tune's parameters (another tune's file?)"
                .to_string(),
        ));
    }
    let mut records = BTreeMap::new();
    for (index, fields) in reader.records().enumerate() {
        let line = index as u64 + 2;
        let fields = fields.map_err(|e| fail(Some(line), e.to_string()))?;
        let record = parse_row(&fields, params.len()).map_err(|e| fail(Some(line), e))?;
        let iteration = record.step.iteration;
        if !(1..=iterations).contains(&iteration) {
            return Err(fail(
                Some(line),
                format!("iteration {iteration} is not in 1..={iterations}"),
            ));
        }
        if records.insert(iteration, record).is_some() {
            return Err(fail(
                Some(line),
                format!("iteration {iteration} is recorded twice"),
            ));
        }
    }
    Ok(records)
}

/// θ after the finished iterations `records`: the start values, then each record's update in
/// increasing iteration number (see the module docs).
pub fn theta_after<'a>(
    params: &[TuneParam],
    records: impl IntoIterator<Item = &'a IterationRecord>,
) -> Vec<f64> {
    theta_path(params, records).pop().map_or_else(
        || params.iter().map(|p| p.start).collect(),
        |(_, theta)| theta,
    )
}

/// θ after each finished iteration, in increasing iteration number: `(iteration, θ)`, the
/// first entry `(0, start)`.
pub fn theta_path<'a>(
    params: &[TuneParam],
    records: impl IntoIterator<Item = &'a IterationRecord>,
) -> Vec<(u64, Vec<f64>)> {
    let mut sorted: Vec<&IterationRecord> = records.into_iter().collect();
    sorted.sort_by_key(|record| record.step.iteration);
    let mut theta: Vec<f64> = params.iter().map(|p| p.start).collect();
    let mut path = vec![(0, theta.clone())];
    for record in sorted {
        spsa::update(params, &mut theta, &record.step, record.wins, record.losses);
        path.push((record.step.iteration, theta.clone()));
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::params::parse_line;
    use crate::tune::spsa::{SpsaSettings, perturb};

    fn params() -> Vec<TuneParam> {
        [
            "Pawn, int, 100, 0, 200, 10, 0.002",
            "Scale, float, 1, 0, 2, 0.2, 0.002",
        ]
        .iter()
        .map(|line| parse_line(line).unwrap().unwrap())
        .collect()
    }

    fn record(iteration: u64, theta: &[f64], wins: u32, losses: u32) -> IterationRecord {
        let settings = SpsaSettings::new(10);
        IterationRecord {
            step: perturb(&settings, &params(), theta, iteration, 9),
            first_game: 16 * (iteration - 1) + 1,
            wins,
            losses,
            finished: "2026-01-02T03:04:05Z".into(),
        }
    }

    #[test]
    fn rows_read_back_bit_for_bit_and_theta_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let params = params();
        let (mut log, recorded) = IterationsFile::open(dir.path(), &params, 10).unwrap();
        assert!(recorded.is_empty());
        let first = record(1, &[100.0, 1.0], 11, 5);
        let theta = theta_after(&params, [&first]);
        let second = record(2, &theta, 3, 9);
        // Finished out of order: the second row is iteration 2, written first.
        log.append(&second).unwrap();
        log.append(&first).unwrap();
        drop(log);
        let text = std::fs::read_to_string(dir.path().join(TUNE_CSV)).unwrap();
        assert!(text.starts_with(
            "iteration,first_game,wins,losses,finished,theta[Pawn],flip[Pawn],c_k[Pawn],\
             a_k[Pawn],plus[Pawn],minus[Pawn],theta[Scale],"
        ));
        let (_, read) = IterationsFile::open(dir.path(), &params, 10).unwrap();
        assert_eq!(read.get(&1), Some(&first));
        assert_eq!(read.get(&2), Some(&second));
        // θ by hand (Python, the module docs' formulas; I = 10, seed 9). Iteration 1: Δ =
        // (−1, −1), a_1 = 0.5581209627866087 and 0.00022324838511464346, c_1 =
        // 12.618275345906707 and 0.25236550691813414, W − L = 6: θ moves by a·6/(c·Δ).
        // Iteration 2: Δ = (+1, +1), a_2 = 0.4372415214093174 and 0.00017489660856372696,
        // c_2 = 11.765109414662462 and 0.23530218829324923, W − L = −6.
        let after_first = [99.734_613_036_653_54, 0.994_692_260_733_070_8];
        let after_second = [99.511_627_509_193_3, 0.990_232_550_183_866_1];
        let close = |theta: &[f64], expected: &[f64; 2]| {
            theta.len() == 2
                && theta
                    .iter()
                    .zip(expected)
                    .all(|(a, b)| (a - b).abs() <= 1e-12 * b.abs())
        };
        assert!(close(&theta, &after_first), "{theta:?}");
        let rebuilt = theta_after(&params, read.values());
        assert!(close(&rebuilt, &after_second), "{rebuilt:?}");
        let path = theta_path(&params, read.values());
        assert_eq!(path.len(), 3);
        assert_eq!(path[0], (0, vec![100.0, 1.0]));
        assert_eq!(path[1].0, 1);
        assert!(close(&path[1].1, &after_first), "{path:?}");
        assert_eq!(path[2].0, 2);
        assert!(close(&path[2].1, &after_second), "{path:?}");
    }

    #[test]
    fn a_row_cut_off_by_a_kill_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let params = params();
        let (mut log, _) = IterationsFile::open(dir.path(), &params, 10).unwrap();
        log.append(&record(1, &[100.0, 1.0], 2, 1)).unwrap();
        drop(log);
        let path = dir.path().join(TUNE_CSV);
        let whole = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{whole}2,17,4,4,2026-01-02T0")).unwrap();
        let (mut log, read) = IterationsFile::open(dir.path(), &params, 10).unwrap();
        assert_eq!(read.keys().copied().collect::<Vec<_>>(), [1]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        log.append(&record(2, &[100.0, 1.0], 2, 1)).unwrap();
        let (_, read) = IterationsFile::open(dir.path(), &params, 10).unwrap();
        assert_eq!(read.keys().copied().collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn another_tunes_file_or_bad_rows_are_refused_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let params = params();
        let (mut log, _) = IterationsFile::open(dir.path(), &params, 10).unwrap();
        log.append(&record(1, &[100.0, 1.0], 2, 1)).unwrap();
        log.append(&record(1, &[100.0, 1.0], 2, 1)).unwrap();
        drop(log);
        let path = dir.path().join(TUNE_CSV);
        let err = IterationsFile::open(dir.path(), &params, 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}:3: iteration 1 is recorded twice", path.display())
        );
        let err = IterationsFile::open(dir.path(), &params[..1], 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}:1: its columns are not those of this tune's parameters (another tune's file?)",
                path.display()
            )
        );
        let header = header(&params).join(",");
        let mut fields = row(&record(1, &[100.0, 1.0], 2, 1));
        let row = fields.join(",");
        fields[6] = "0".into(); // Pawn's flip
        std::fs::write(&path, format!("{header}\n{}\n", fields.join(","))).unwrap();
        let err = IterationsFile::open(dir.path(), &params, 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}:2: field 7 '0' is not a flip (1 or -1)", path.display())
        );
        std::fs::write(&path, format!("{header}\n{row}\n")).unwrap();
        let err = IterationsFile::open(dir.path(), &params, 0).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}:2: iteration 1 is not in 1..=0", path.display())
        );
    }
}
