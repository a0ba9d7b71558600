//! The parameters of a tune: read from OpenBench's or fishtest's lines (a file, or `--param`
//! flags), checked on their own and then against the options the engine declares.
//!
//! - OpenBench's format, one parameter a line: `NAME, int|float, VALUE, MIN, MAX, C_END,
//!   R_END` (OpenBench `spsa_utils.py`, `create_spsa_run`).
//! - fishtest's six fields, as Stockfish's `TUNE()` prints them: `NAME,VALUE,MIN,MAX,C_END,
//!   R_END`, an integer parameter.
//!
//! Fields are separated by commas, spaces around them ignored; `#` starts a comment, to the end
//! of the line, so that blank lines and comment lines are skipped. VALUE, MIN and MAX of an `int` parameter are integers; C_END (the
//! perturbation at the last iteration) and R_END (the learning rate at the last iteration)
//! are reals.

use crate::protocol::{OptionDecl, OptionKind};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// An integer parameter (a spin option, or a string option taking integers) or a real one
/// (a string option).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    /// Sent as a whole number; rounded with OpenBench's rule (see [`super::spsa`]).
    Int,
    /// Sent as a real number.
    Float,
}

impl ParamKind {
    /// `int` or `float`, as OpenBench writes it.
    pub const fn name(self) -> &'static str {
        match self {
            ParamKind::Int => "int",
            ParamKind::Float => "float",
        }
    }
}

/// One tuned parameter: an engine option, its start, range and gains at the last iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneParam {
    /// The engine option's name.
    pub name: String,
    /// Integer or real.
    pub kind: ParamKind,
    /// The value the tune starts from.
    pub start: f64,
    /// The smallest value played.
    pub min: f64,
    /// The largest value played.
    pub max: f64,
    /// The perturbation c_k at the last iteration (in the parameter's units), > 0.
    pub c_end: f64,
    /// The learning rate r_k = a_k / c_k² at the last iteration, > 0.
    pub r_end: f64,
    /// Where the parameter was declared, for error messages (not saved).
    #[serde(skip)]
    pub origin: Option<Origin>,
}

impl TuneParam {
    /// `value` as the engine gets it: a whole number for an integer parameter (`value` is
    /// one after rounding), else the shortest decimal that reads back as `value`.
    pub fn format_value(&self, value: f64) -> String {
        match self.kind {
            // `+ 0.0` writes -0 as 0.
            ParamKind::Int => format!("{:.0}", value.round() + 0.0),
            ParamKind::Float => format!("{value}"),
        }
    }

    /// The parameter as an OpenBench input line with `value` as its VALUE (rounded for an
    /// integer parameter, as OpenBench's "optimal values" are): the line that starts the next
    /// tune from `value`.
    pub fn openbench_line(&self, value: f64) -> String {
        let number = |x: f64| self.format_value(x);
        format!(
            "{}, {}, {}, {}, {}, {}, {}",
            self.name,
            self.kind.name(),
            number(value),
            number(self.min),
            number(self.max),
            self.c_end,
            self.r_end
        )
    }
}

/// Where a parameter was declared: a line of a file, or a `--param` flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Line `line` (1-based) of `path`.
    File {
        /// The parameters file.
        path: PathBuf,
        /// Its line, from 1.
        line: usize,
    },
    /// The `index`-th `--param` flag (from 1).
    Flag {
        /// Which flag, from 1.
        index: usize,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { path, line } => write!(f, "{}:{line}", path.display()),
            Origin::Flag { index } => write!(f, "--param #{index}"),
        }
    }
}

/// A parameter refused, naming where it was declared, its text and the problem.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamsError {
    /// The file and line, or the flag; `None` for a parameter read back from a saved tune.
    pub origin: Option<Origin>,
    /// The parameter's text, or its name once parsed.
    pub text: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            // The text once: a problem that quotes it (`no option 'Knight'`) stands alone.
            Some(origin) if self.problem.contains(&format!("'{}'", self.text)) => {
                write!(f, "{origin}: {}", self.problem)
            }
            Some(origin) => write!(f, "{origin}: {} ('{}')", self.problem, self.text),
            None => write!(f, "parameter '{}': {}", self.text, self.problem),
        }
    }
}

impl std::error::Error for ParamsError {}

/// Parses one declaration in either format, up to a `#` comment; `Ok(None)` for a blank or
/// comment line.
///
/// # Errors
/// [`ParamsError`] (without its origin, which the caller knows): the wrong number of fields
/// (an OpenBench line one short named as such), a kind other than `int` or `float`, a number
/// that does not read (or is not whole where it must be), MIN ≥ MAX, VALUE outside [MIN,
/// MAX], C_END or R_END not positive.
pub fn parse_line(text: &str) -> Result<Option<TuneParam>, ParamsError> {
    parse_declaration(text).map_err(|problem| ParamsError {
        origin: None,
        text: text.trim().to_string(),
        problem,
    })
}

/// [`parse_line`]'s work, its refusal in words.
fn parse_declaration(text: &str) -> Result<Option<TuneParam>, String> {
    let text = text
        .split_once('#')
        .map_or(text, |(before, _)| before)
        .trim();
    if text.is_empty() {
        return Ok(None);
    }
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    let (name, kind, numbers) = match fields.as_slice() {
        // Six fields read as fishtest's would take the kind for VALUE.
        [_, kind @ ("int" | "float"), rest @ ..] if rest.len() < 5 => {
            return Err(format!(
                "{} fields: an OpenBench line ('{kind}' is its kind) has 7, NAME, int|float, \
                 VALUE, MIN, MAX, C_END, R_END; {} missing",
                fields.len(),
                ["VALUE", "MIN", "MAX", "C_END", "R_END"][rest.len()..].join(", ")
            ));
        }
        [name, kind, rest @ ..] if rest.len() == 5 => {
            let kind = match *kind {
                "int" => ParamKind::Int,
                "float" => ParamKind::Float,
                other => return Err(format!("the kind is 'int' or 'float', not '{other}'")),
            };
            (*name, kind, rest)
        }
        [name, rest @ ..] if rest.len() == 5 => (*name, ParamKind::Int, rest),
        _ => {
            return Err(format!(
                "{} fields: expected NAME, int|float, VALUE, MIN, MAX, C_END, R_END (OpenBench) \
                 or NAME,VALUE,MIN,MAX,C_END,R_END (fishtest)",
                fields.len()
            ));
        }
    };
    if name.is_empty() {
        return Err("the name is empty".to_string());
    }
    let number = |field: &str, what: &str, whole: bool| -> Result<f64, String> {
        let value: f64 = field
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("{what} '{field}' is not a number"))?;
        if whole && value.fract() != 0.0 {
            return Err(format!(
                "{what} '{field}' is not an integer, as an int parameter's must be"
            ));
        }
        Ok(value)
    };
    let whole = kind == ParamKind::Int;
    let start = number(numbers[0], "VALUE", whole)?;
    let min = number(numbers[1], "MIN", whole)?;
    let max = number(numbers[2], "MAX", whole)?;
    let c_end = number(numbers[3], "C_END", false)?;
    let r_end = number(numbers[4], "R_END", false)?;
    if min > max {
        return Err(format!("MIN {min} is greater than MAX {max}"));
    }
    if min == max {
        return Err(format!(
            "MIN and MAX are both {min}: the parameter cannot move, so θ+ and θ− would be \
             the same and nothing would be measured"
        ));
    }
    if !(min..=max).contains(&start) {
        return Err(format!(
            "VALUE {start} is outside [MIN, MAX] = [{min}, {max}]"
        ));
    }
    if c_end <= 0.0 {
        return Err(format!("C_END {c_end} must be positive"));
    }
    if r_end <= 0.0 {
        return Err(format!(
            "R_END {r_end} must be positive (with 0 the parameter never moves)"
        ));
    }
    Ok(Some(TuneParam {
        name: name.to_string(),
        kind,
        start,
        min,
        max,
        c_end,
        r_end,
        origin: None,
    }))
}

/// Parses `text`, the contents of the parameters file `path`, one declaration a line.
///
/// # Errors
/// The first [`ParamsError`], naming `path` and the line: a line [`parse_line`] refuses, or a
/// name declared twice (names compare case-insensitively, as option names do).
pub fn parse_file(path: &Path, text: &str) -> Result<Vec<TuneParam>, ParamsError> {
    let lines = text.lines().enumerate().map(|(index, line)| {
        let origin = Origin::File {
            path: path.to_path_buf(),
            line: index + 1,
        };
        (origin, line)
    });
    parse_all(lines)
}

/// Parses `--param` flags, each one declaration.
///
/// # Errors
/// As [`parse_file`], naming the flag (`--param #2`).
pub fn parse_flags<S: AsRef<str>>(flags: &[S]) -> Result<Vec<TuneParam>, ParamsError> {
    let flags = flags
        .iter()
        .enumerate()
        .map(|(index, flag)| (Origin::Flag { index: index + 1 }, flag.as_ref()));
    parse_all(flags)
}

/// Reads the parameters file `path` ([`parse_file`]).
///
/// # Errors
/// A [`ParamsError`] naming the file when it cannot be read, or as [`parse_file`].
pub fn read_file(path: &Path) -> Result<Vec<TuneParam>, ParamsError> {
    let text = crate::textfile::read_to_string(path).map_err(|err| ParamsError {
        origin: None,
        text: path.display().to_string(),
        problem: format!("cannot read the parameters file: {err}"),
    })?;
    parse_file(path, &text)
}

fn parse_all<'a>(
    lines: impl Iterator<Item = (Origin, &'a str)>,
) -> Result<Vec<TuneParam>, ParamsError> {
    let mut params: Vec<TuneParam> = Vec::new();
    for (origin, text) in lines {
        let refuse = |problem: String| ParamsError {
            origin: Some(origin.clone()),
            text: text.trim().to_string(),
            problem,
        };
        let Some(mut param) = parse_declaration(text).map_err(refuse)? else {
            continue;
        };
        if let Some(first) = params
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(&param.name))
        {
            let at = first
                .origin
                .as_ref()
                .map_or_else(String::new, |o| format!(" at {o}"));
            return Err(refuse(format!(
                "'{}' is declared twice (first{at})",
                param.name
            )));
        }
        param.origin = Some(origin);
        params.push(param);
    }
    Ok(params)
}

/// Checks every parameter against the options the engine declares: each must be a spin
/// option (an `int` parameter whose [MIN, MAX] lies within the spin's range) or a string
/// option (either kind).
///
/// # Errors
/// The first [`ParamsError`], naming the parameter's file and line (or flag): an option the
/// engine does not declare, a `float` parameter for a spin option, a range beyond the spin's,
/// or an option of another type (check, combo, button).
pub fn check_against(params: &[TuneParam], declared: &[OptionDecl]) -> Result<(), ParamsError> {
    for param in params {
        let refuse = |problem: String| ParamsError {
            origin: param.origin.clone(),
            text: param.name.clone(),
            problem,
        };
        let Some(decl) = declared.iter().find(|d| d.is_named(&param.name)) else {
            return Err(refuse(format!(
                "the engine declares no option '{}'",
                param.name
            )));
        };
        match &decl.kind {
            OptionKind::Spin { .. } if param.kind == ParamKind::Float => {
                return Err(refuse(format!(
                    "'{}' is a spin option (an integer): declare it int, not float",
                    decl.name
                )));
            }
            OptionKind::Spin { min, max, .. }
                if param.min < *min as f64 || param.max > *max as f64 =>
            {
                return Err(refuse(format!(
                    "[MIN, MAX] = [{}, {}] is not within the engine's range of '{}', [{min}, {max}]",
                    param.min, param.max, decl.name
                )));
            }
            OptionKind::Spin { .. } | OptionKind::String { .. } => {}
            _ => {
                return Err(refuse(format!(
                    "'{}' is declared as `{decl}`: only spin (int) and string (int or float) \
                     options can be tuned",
                    decl.name
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> String {
        parse_line(text).expect_err(text).problem
    }

    #[test]
    fn openbench_and_fishtest_lines_read_alike() {
        let openbench = parse_line("Pawn, int, 100, 50, 200, 10, 0.002")
            .unwrap()
            .unwrap();
        let fishtest = parse_line("Pawn,100,50,200,10,0.002").unwrap().unwrap();
        assert_eq!(openbench, fishtest);
        assert_eq!(
            openbench,
            TuneParam {
                name: "Pawn".into(),
                kind: ParamKind::Int,
                start: 100.0,
                min: 50.0,
                max: 200.0,
                c_end: 10.0,
                r_end: 0.002,
                origin: None,
            }
        );
        let float = parse_line("  Scale , float, 0.5, 0.25, 2.0, 0.05, 0.002  ")
            .unwrap()
            .unwrap();
        assert_eq!(
            (float.kind, float.start, float.min, float.max),
            (ParamKind::Float, 0.5, 0.25, 2.0)
        );
        // Stockfish's TUNE() prints C_END as (max-min)/20.0.
        let tune = parse_line("Tempo,10,-20,40,3,0.0020").unwrap().unwrap();
        assert_eq!((tune.c_end, tune.r_end), (3.0, 0.002));
        assert_eq!(parse_line("   "), Ok(None));
        assert_eq!(parse_line("# NAME, int, ..."), Ok(None));
        // See: issue 28 (a trailing comment was read as part of R_END).
        assert_eq!(
            parse_line("Tempo,10,-20,40,3,0.0020  # the side to move's bonus"),
            Ok(Some(tune))
        );
        assert_eq!(parse_line("  # indented comment"), Ok(None));
    }

    #[test]
    fn bad_lines_are_refused_saying_why() {
        assert_eq!(
            refusal("Pawn, int, 100, 200, 50, 10, 0.002"),
            "MIN 200 is greater than MAX 50"
        );
        assert_eq!(
            refusal("Pawn,300,50,200,10,0.002"),
            "VALUE 300 is outside [MIN, MAX] = [50, 200]"
        );
        assert_eq!(
            refusal("Pawn,100,50,200,0,0.002"),
            "C_END 0 must be positive"
        );
        assert_eq!(
            refusal("Pawn,100,50,200,-1.5,0.002"),
            "C_END -1.5 must be positive"
        );
        assert_eq!(
            refusal("Pawn,100,50,200,10,0"),
            "R_END 0 must be positive (with 0 the parameter never moves)"
        );
        assert_eq!(
            refusal("Pawn,100.5,50,200,10,0.002"),
            "VALUE '100.5' is not an integer, as an int parameter's must be"
        );
        assert_eq!(
            refusal("Pawn, double, 1, 0, 2, 0.1, 0.002"),
            "the kind is 'int' or 'float', not 'double'"
        );
        assert_eq!(
            refusal("Pawn, 100, 50"),
            "3 fields: expected NAME, int|float, VALUE, MIN, MAX, C_END, R_END (OpenBench) \
             or NAME,VALUE,MIN,MAX,C_END,R_END (fishtest)"
        );
        assert_eq!(
            refusal("Pawn,x,50,200,10,0.002"),
            "VALUE 'x' is not a number"
        );
        assert_eq!(
            refusal("Pawn,inf,50,200,10,0.002"),
            "VALUE 'inf' is not a number"
        );
        assert_eq!(refusal(",100,50,200,10,0.002"), "the name is empty");
        // See: issue 28 (MIN = MAX played θ+ = θ− in every game; a missing R_END was read as
        // fishtest's line with VALUE 'int').
        assert_eq!(
            refusal("Pawn, int, 100, 100, 100, 10, 0.002"),
            "MIN and MAX are both 100: the parameter cannot move, so θ+ and θ− would be the \
             same and nothing would be measured"
        );
        assert_eq!(
            refusal("Tempo, int, 30, -20, 40, 3"),
            "6 fields: an OpenBench line ('int' is its kind) has 7, NAME, int|float, VALUE, \
             MIN, MAX, C_END, R_END; R_END missing"
        );
        assert_eq!(
            refusal("Scale, float, 0.5, 0.25"),
            "4 fields: an OpenBench line ('float' is its kind) has 7, NAME, int|float, VALUE, \
             MIN, MAX, C_END, R_END; MAX, C_END, R_END missing"
        );
    }

    #[test]
    fn a_file_error_names_the_file_and_line() {
        let path = Path::new("weights.txt");
        let text =
            "# start\nPawn, int, 100, 50, 200, 10, 0.002\n\nTempo, int, 10, 40, 20, 2, 0.002\n";
        let err = parse_file(path, text).unwrap_err();
        assert_eq!(
            err.to_string(),
            "weights.txt:4: MIN 40 is greater than MAX 20 ('Tempo, int, 10, 40, 20, 2, 0.002')"
        );
        let twice = "Pawn,100,50,200,10,0.002\npawn,100,50,200,10,0.002\n";
        assert_eq!(
            parse_file(path, twice).unwrap_err().to_string(),
            "weights.txt:2: 'pawn' is declared twice (first at weights.txt:1) \
             ('pawn,100,50,200,10,0.002')"
        );
        let good = parse_file(path, "# x\nPawn,100,50,200,10,0.002\n").unwrap();
        assert_eq!(
            good[0].origin,
            Some(Origin::File {
                path: path.into(),
                line: 2
            })
        );
        let flags = ["Pawn,100,50,200,10,0.002", "Tempo,10,0,20,0,0.002"];
        assert_eq!(
            parse_flags(&flags).unwrap_err().to_string(),
            "--param #2: C_END 0 must be positive ('Tempo,10,0,20,0,0.002')"
        );
    }

    #[test]
    fn parameters_are_checked_against_the_engine_options() {
        let declared = [
            OptionDecl::spin("Pawn", 100, 0, 1000),
            OptionDecl {
                name: "Scale".into(),
                kind: OptionKind::String {
                    default: "1.0".into(),
                },
            },
            OptionDecl {
                name: "Ponder".into(),
                kind: OptionKind::Check { default: false },
            },
        ];
        let path = Path::new("p.txt");
        let check = |text: &str| {
            let params = parse_file(path, text).unwrap();
            check_against(&params, &declared).map_err(|e| e.to_string())
        };
        assert_eq!(
            check(
                "pawn,100,50,200,10,0.002\nScale, float, 1, 0.5, 2, 0.1, 0.002\nScale2,1,0,2,1,0.002"
            ),
            Err("p.txt:3: the engine declares no option 'Scale2'".to_string())
        );
        assert_eq!(
            check("Pawn, float, 100, 50, 200, 10, 0.002"),
            Err(
                "p.txt:1: 'Pawn' is a spin option (an integer): declare it int, not float"
                    .to_string()
            )
        );
        assert_eq!(
            check("Pawn, int, 100, -50, 200, 10, 0.002"),
            Err(
                "p.txt:1: [MIN, MAX] = [-50, 200] is not within the engine's range of 'Pawn', \
                 [0, 1000]"
                    .to_string()
            )
        );
        assert_eq!(
            check("Ponder,0,0,1,1,0.002"),
            Err(
                "p.txt:1: 'Ponder' is declared as `option name Ponder type check default false`: \
                 only spin (int) and string (int or float) options can be tuned"
                    .to_string()
            )
        );
        assert_eq!(
            check("Pawn,100,50,200,10,0.002\nScale,1,0,2,1,0.002"),
            Ok(())
        );
    }

    #[test]
    fn values_are_formatted_for_the_engine_and_for_openbench() {
        let int = parse_line("Pawn,100,50,200,10,0.002").unwrap().unwrap();
        assert_eq!(int.format_value(103.0), "103");
        assert_eq!(int.format_value(-0.2), "0");
        assert_eq!(int.format_value(-3.0), "-3");
        assert_eq!(
            int.openbench_line(117.6),
            "Pawn, int, 118, 50, 200, 10, 0.002"
        );
        let float = parse_line("Scale, float, 0.5, 0.25, 2, 0.05, 0.002")
            .unwrap()
            .unwrap();
        assert_eq!(float.format_value(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(
            float.openbench_line(0.75),
            "Scale, float, 0.75, 0.25, 2, 0.05, 0.002"
        );
    }
}
