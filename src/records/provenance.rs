//! Where a run's engines came from and how fast the machine was: what run.json, summary.json,
//! games.pgn and report.html record of engines built from source (their commit, build
//! command and bench signature) and of `--scale-tc` (the factor each shard played with).

use crate::engine::EngineDescription;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// An engine built from source, or with a pinned bench: what the results record of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineProvenance {
    /// The repository (`src=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// The revision as named (`rev=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rev: Option<String>,
    /// The full commit hash it resolved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The build command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// The bench signature: the node count of `ENGINE bench`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<u64>,
    /// The bench's speed on the machine that played, nodes per second (run.json only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench_nps: Option<u64>,
    /// Whether this session found the build in the cache (run.json only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached: Option<bool>,
    /// How long the build took when it was made, seconds (run.json only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_seconds: Option<f64>,
}

impl EngineProvenance {
    /// What the saved config says of `engine` (source and bench signature), or `None` for an
    /// engine with neither.
    pub fn of(engine: &EngineDescription) -> Option<EngineProvenance> {
        if engine.source.is_none() && engine.bench.is_none() {
            return None;
        }
        let source = engine.source.as_ref();
        Some(EngineProvenance {
            repo: source.map(|s| s.repo.clone()),
            rev: source.map(|s| s.rev.clone()),
            commit: source.and_then(|s| s.commit.clone()),
            build: source.and_then(|s| s.build.clone()),
            bench: engine.bench,
            ..EngineProvenance::default()
        })
    }

    /// [`of`](Self::of) for every engine that has one, by name.
    pub fn of_engines(engines: &[EngineDescription]) -> BTreeMap<String, EngineProvenance> {
        engines
            .iter()
            .filter_map(|engine| Some((engine.name.clone(), Self::of(engine)?)))
            .collect()
    }
}

impl fmt::Display for EngineProvenance {
    /// `commit 1a2b3c4d... of REPO (rev main), build `make`, bench 1234567`, the parts known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(commit) = &self.commit {
            let mut part = format!("commit {commit}");
            if let Some(repo) = &self.repo {
                part += &format!(" of {repo}");
            }
            if let Some(rev) = &self.rev {
                part += &format!(" (rev {rev})");
            }
            parts.push(part);
        }
        if let Some(build) = &self.build {
            parts.push(format!("build `{build}`"));
        }
        if let Some(bench) = self.bench {
            parts.push(format!("bench {bench}"));
        }
        if let Some(nps) = self.bench_nps {
            parts.push(format!("{nps} nps"));
        }
        f.write_str(&parts.join(", "))
    }
}

/// The time control scaling of one session (`--scale-tc REFERENCE_NPS`), as OpenBench scales
/// by machine speed: both engines' clocks multiplied by `reference_nps / measured_nps`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockScale {
    /// The speed the time control is meant for, nodes per second.
    pub reference_nps: u64,
    /// The base engine's bench speed on this machine (the mean of `benches` run at once).
    pub measured_nps: u64,
    /// How many benches ran at once: the run's concurrency.
    pub benches: usize,
    /// The engine benched: the base (the last).
    pub engine: String,
    /// `reference_nps / measured_nps`.
    pub factor: f64,
}

impl fmt::Display for ClockScale {
    /// `x2.000 (reference 200000 nps / measured 100000 nps: base's bench, 2 at once)`; the
    /// factor with four significant digits ([`significant`]: `x0.0001000`, never `x0.000`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "x{} (reference {} nps / measured {} nps: {}'s bench, {} at once)",
            significant(self.factor, 4),
            self.reference_nps,
            self.measured_nps,
            self.engine,
            self.benches
        )
    }
}

/// `value` with `digits` significant digits (at least 1), trailing zeros kept: `2.000`,
/// `0.006667`, `1235` for 1234.56 at 4 digits; `0` for 0, and non-finite values as Rust writes
/// them. For factors and durations that may be far below 1, where a fixed number of decimals
/// prints `0.000`.
pub fn significant(value: f64, digits: u32) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let digits = i64::from(digits.max(1));
    // The decimal exponent of the leading digit (-4 for 0.0001234), at most ±324 for an f64.
    #[allow(clippy::cast_possible_truncation)]
    let exponent = value.abs().log10().floor() as i64;
    let decimals = usize::try_from(digits - 1 - exponent).unwrap_or(0);
    let text = format!("{value:.decimals$}");
    // Rounding may carry into a new leading digit (9.9996 at 4 digits is 10.000): one less.
    let rounded: f64 = text.parse().unwrap_or(value);
    #[allow(clippy::cast_possible_truncation)]
    let carried = rounded.abs().log10().floor() as i64 > exponent;
    match carried && decimals > 0 {
        true => format!("{value:.prec$}", prec = decimals - 1),
        false => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EngineKeys, EngineSource};
    use crate::time_control::TimeControl;

    #[test]
    fn factors_are_written_with_four_significant_digits() {
        // See: issue 28 (a factor of 8.6e-5 was written x0.000).
        let cases = [
            (2.0, "2.000"),
            (0.5, "0.5000"),
            (1000.0 / 150_000.0, "0.006667"),
            (8.6e-5, "0.00008600"),
            (1234.56, "1235"),
            (12_345.6, "12346"),
            (9.99996, "10.00"),
            (0.0999996, "0.1000"),
            (0.0, "0"),
        ];
        for (value, text) in cases {
            assert_eq!(significant(value, 4), text, "{value}");
        }
        let scale = ClockScale {
            reference_nps: 1000,
            measured_nps: 11_627_907,
            benches: 1,
            engine: "base".into(),
            factor: 1000.0 / 11_627_907.0,
        };
        assert_eq!(
            scale.to_string(),
            "x0.00008600 (reference 1000 nps / measured 11627907 nps: base's bench, 1 at once)"
        );
    }

    #[test]
    fn provenance_comes_from_the_saved_config() {
        let mut engine = EngineKeys::parse(&["src=/r/eng", "bin=e", "build=make", "rev=main"])
            .unwrap()
            .into_description(TimeControl::Depth(1))
            .unwrap();
        engine.name = "eng@1a2b3c4".into();
        engine.source = Some(EngineSource {
            commit: Some("1a2b3c4".repeat(5) + "1a2b3"),
            ..engine.source.unwrap()
        });
        engine.bench = Some(99);
        let plain = EngineKeys::parse(&["cmd=x"])
            .unwrap()
            .into_description(TimeControl::Depth(1))
            .unwrap();
        let all = EngineProvenance::of_engines(&[engine.clone(), plain]);
        assert_eq!(all.len(), 1);
        let eng = &all["eng@1a2b3c4"];
        assert_eq!(
            eng.to_string(),
            format!(
                "commit {} of /r/eng (rev main), build `make`, bench 99",
                engine.source.unwrap().commit.unwrap()
            )
        );
        let json = serde_json::to_value(eng).unwrap();
        assert_eq!(json.as_object().unwrap().len(), 5, "{json}");
        let scale = ClockScale {
            reference_nps: 200_000,
            measured_nps: 100_000,
            benches: 2,
            engine: "base".into(),
            factor: 2.0,
        };
        assert_eq!(
            scale.to_string(),
            "x2.000 (reference 200000 nps / measured 100000 nps: base's bench, 2 at once)"
        );
    }
}
