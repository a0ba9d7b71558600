//! What defines a tune, saved as `tune.json` in its run directory so that `--resume` continues
//! it exactly.

use super::params::{self, ParamsError, TuneParam};
use super::spsa::SpsaSettings;
use crate::engine::EngineDescription;
use crate::records::moves::CommentDetail;
use crate::run::header::{RunHeader, SettingError};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The file a tune's config is saved to, in its run directory.
pub use crate::run_dir::TUNE_JSON;

/// The name of the side playing θ + c_k·Δ.
pub const PLUS: &str = "tune+";
/// The name of the side playing θ − c_k·Δ.
pub const MINUS: &str = "tune-";

/// Everything that defines a tune.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneConfig {
    /// The settings every kind of run shares: event, rules, book, seed, concurrency (several
    /// iterations may be in flight), the run directory, shard or worker (flattened: the same
    /// fields in tune.json).
    #[serde(flatten)]
    pub run: RunHeader,
    /// The engine both sides run, with its limit and fixed options; the tuned options are
    /// set on top of them before each game.
    pub engine: EngineDescription,
    /// The tuned parameters, in declaration order.
    pub params: Vec<TuneParam>,
    /// The SPSA schedule.
    pub spsa: SpsaSettings,
    /// L, the iterations allowed in flight: iteration i starts from θ after exactly
    /// iterations 1..i−L (see [`super::schedule`]); part of the tune's identity.
    #[serde(default = "one")]
    pub lag: u64,
    /// How much the move comments of games.pgn say.
    #[serde(default)]
    pub pgn_comments: CommentDetail,
    /// Fields that are none of the above: refused by [`validate`](TuneConfig::validate).
    #[serde(flatten, skip_serializing)]
    pub unknown: std::collections::BTreeMap<String, serde_json::Value>,
}

fn one() -> u64 {
    1
}

/// The default lag: what `concurrency` workers on each of `shards` machines can keep busy
/// with iterations of `pairs` game pairs, `shards · ⌈concurrency / (2 · pairs)⌉`, at most the
/// `iterations`.
pub fn default_lag(concurrency: usize, shards: u32, pairs: u32, iterations: u64) -> u64 {
    let games = 2 * u64::from(pairs.max(1));
    let lag = u64::from(shards.max(1)) * (concurrency.max(1) as u64).div_ceil(games);
    lag.clamp(1, iterations.max(1))
}

impl TuneConfig {
    /// The two sides as engines of a tournament: `tune+` and `tune-`, both `engine` with its
    /// own options (the tuned ones are set before each game). A CodinGame bot, whose tuned
    /// values are placeholders of its arguments, also gets each parameter's start value as an
    /// option, so that its arguments are whole when it starts (its games' own values replace
    /// them).
    pub fn sides(&self) -> [EngineDescription; 2] {
        let mut engine = self.engine.clone();
        if engine.proto.is_bot() {
            for param in &self.params {
                if engine.options.get(&param.name).is_none() {
                    engine
                        .options
                        .set(&param.name, &param.format_value(param.start));
                }
            }
        }
        [PLUS, MINUS].map(|name| EngineDescription {
            name: name.to_string(),
            ..engine.clone()
        })
    }

    /// The directory this process writes: `out`, `out/shard-K` for shard K, `out/worker-ID`
    /// for a worker.
    pub fn dir(&self) -> PathBuf {
        self.run.dir()
    }

    /// Whether several processes play the tune (shards or workers), each in its own
    /// directory of `out`, reading each other's iterations.
    pub fn is_spread(&self) -> bool {
        self.run.is_spread()
    }

    /// Whether iteration `iteration` (from 1) is this process's to play: every iteration on
    /// one machine; iteration i is shard ((i − 1) mod N)'s of N.
    pub fn plays(&self, iteration: u64) -> bool {
        self.run.shard.is_none_or(|shard| {
            iteration.saturating_sub(1) % u64::from(shard.count()) == u64::from(shard.index())
        })
    }

    /// Checks the settings: the schedule ([`SpsaSettings::validate`]), at least one
    /// parameter, a concurrency of at least 1, a lag within the iterations.
    ///
    /// # Errors
    /// [`SettingError`] naming the setting.
    pub fn validate(&self) -> Result<(), SettingError> {
        if let Some(field) = self.unknown.keys().next() {
            return Err(SettingError::UnknownField(field.clone()));
        }
        self.spsa.validate()?;
        if self.params.is_empty() {
            return Err(SettingError::Missing {
                what: "no parameter to tune",
                how: "give --params FILE or --param",
            });
        }
        if self.run.concurrency == 0 {
            return Err(SettingError::Zero("--concurrency"));
        }
        if self.lag == 0 || self.lag > self.spsa.iterations.max(1) {
            return Err(SettingError::OutOfRange {
                setting: "--lag",
                min: "1".into(),
                max: format!("the iterations ({})", self.spsa.iterations),
                given: self.lag.to_string(),
            });
        }
        Ok(())
    }

    /// Checks the parameters against the options the engine declares
    /// ([`params::check_against`]).
    ///
    /// # Errors
    /// As [`params::check_against`].
    pub fn check_params(
        &self,
        declared: &[crate::protocol::OptionDecl],
    ) -> Result<(), ParamsError> {
        params::check_against(&self.params, declared)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;
    use crate::run::header::RunHeader;
    use std::path::Path;

    /// A valid tune of one parameter writing to `out`, for tests.
    pub(crate) fn config(out: &Path) -> TuneConfig {
        TuneConfig {
            run: RunHeader {
                event: "tune".into(),
                rules: Default::default(),
                openings: Default::default(),
                seed: 3,
                concurrency: 1,
                out: out.to_path_buf(),
                log: false,
                shard: None,
                worker: None,
                lease_ms: None,
                ..RunHeader::default()
            },
            engine: EngineKeys::parse(&["cmd=/bin/engine"])
                .unwrap()
                .into_description(TimeControl::Nodes(500))
                .unwrap(),
            params: vec![
                crate::tune::params::parse_line("Pawn, int, 100, 0, 200, 10, 0.002")
                    .unwrap()
                    .unwrap(),
            ],
            spsa: crate::tune::SpsaSettings::new(4),
            lag: 1,
            pgn_comments: Default::default(),
            unknown: Default::default(),
        }
    }
}
