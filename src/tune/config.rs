//! What defines a tune, saved as `tune.json` in its run directory so that `--resume` continues
//! it exactly.

use super::params::{self, ParamsError, TuneParam};
use super::spsa::SpsaSettings;
use crate::engine::EngineDescription;
use crate::openings::spec::OpeningsSpec;
use crate::records::moves::CommentDetail;
use crate::rules::Rules;
use crate::run_dir::{RunDir, Shard};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file a tune's config is saved to, in its run directory.
pub use crate::run_dir::TUNE_JSON;

/// The name of the side playing θ + c_k·Δ.
pub const PLUS: &str = "tune+";
/// The name of the side playing θ − c_k·Δ.
pub const MINUS: &str = "tune-";

/// Everything that defines a tune.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneConfig {
    /// Event name (the PGN `Event` tag).
    pub event: String,
    /// The engine both sides run, with its limit and fixed options; the tuned options are
    /// set on top of them before each game.
    pub engine: EngineDescription,
    /// The tuned parameters, in declaration order.
    pub params: Vec<TuneParam>,
    /// The SPSA schedule.
    pub spsa: SpsaSettings,
    /// The rule set.
    pub rules: Rules,
    /// Openings: each game pair of an iteration takes the next one.
    pub openings: OpeningsSpec,
    /// The seed of every draw: flips, rounding offsets, the opening order.
    pub seed: u64,
    /// Games played at the same time (several iterations may be in flight).
    pub concurrency: usize,
    /// L, the iterations allowed in flight: iteration i starts from θ after exactly
    /// iterations 1..i−L (see [`super::runner`]); part of the tune's identity.
    #[serde(default = "one")]
    pub lag: u64,
    /// The run directory.
    pub out: PathBuf,
    /// Write each engine's protocol traffic to `<out>/logs/`.
    pub log: bool,
    /// How much the move comments of games.pgn say.
    pub pgn_comments: CommentDetail,
    /// The shard of a tune spread over machines sharing `out` (see [`super::shard`]); its
    /// files are then in `out/shard-K`. Absent from a tune on one machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// `--worker`: this process is a worker of a tune of workers, claiming its iterations
    /// one at a time ([`crate::arena::claims`]); its id (`HOST-PID-RANDOM`) names its
    /// directory `out/worker-ID`. Not part of the tune's identity. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    /// A tune of workers' lease, ms (`--lease`): a claim on an iteration whose heartbeat has
    /// not moved for this long is taken over. Part of the tune's identity; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_ms: Option<u64>,
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
        if let Some(worker) = &self.worker {
            return RunDir::new(&self.out).worker(worker).root().to_path_buf();
        }
        RunDir::process(&self.out, self.shard).root().to_path_buf()
    }

    /// Whether several processes play the tune (shards or workers), each in its own
    /// directory of `out`, reading each other's iterations.
    pub fn is_spread(&self) -> bool {
        self.shard.is_some() || self.worker.is_some()
    }

    /// Whether iteration `iteration` (from 1) is this process's to play: every iteration on
    /// one machine; iteration i is shard ((i − 1) mod N)'s of N.
    pub fn plays(&self, iteration: u64) -> bool {
        self.shard.is_none_or(|shard| {
            iteration.saturating_sub(1) % u64::from(shard.count()) == u64::from(shard.index())
        })
    }

    /// The settings every shard or worker of a tune must share, as JSON: the config but
    /// `out`, `concurrency`, `log` and `worker` (a process's own), with `shard` replaced by
    /// the number of shards.
    pub fn identity(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Some(fields) = value.as_object_mut() {
            for own in ["out", "concurrency", "log", "worker"] {
                fields.remove(own);
            }
            fields.insert("shard".to_string(), self.shard.map(|s| s.count()).into());
        }
        value
    }

    /// Checks the settings: the schedule ([`SpsaSettings::validate`]), at least one
    /// parameter, a concurrency of at least 1.
    ///
    /// # Errors
    /// A message naming the setting.
    pub fn validate(&self) -> Result<(), String> {
        self.spsa.validate()?;
        if self.params.is_empty() {
            return Err("no parameter to tune: give --params FILE or --param".to_string());
        }
        if self.concurrency == 0 {
            return Err("--concurrency must be at least 1".to_string());
        }
        if self.lag == 0 || self.lag > self.spsa.iterations.max(1) {
            return Err(format!(
                "--lag must be from 1 to the iterations ({}), not {}",
                self.spsa.iterations, self.lag
            ));
        }
        Ok(())
    }

    /// Writes the config as `tune.json` in `dir`, atomically.
    ///
    /// # Errors
    /// As [`crate::records::write_json`].
    pub fn save(&self, dir: &Path) -> Result<(), crate::records::RecordsError> {
        crate::records::write_json(
            &RunDir::new(dir).tune_json(),
            self,
            crate::records::Existing::Replace,
        )?;
        Ok(())
    }

    /// Reads the config saved in the run directory `dir`.
    ///
    /// # Errors
    /// A message naming the file when it cannot be read or is not a tune's config.
    pub fn read(dir: &Path) -> Result<TuneConfig, String> {
        let path = RunDir::new(dir).tune_json();
        let text = crate::textfile::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let config: TuneConfig = serde_json::from_str(&text)
            .map_err(|e| format!("bad tune config {}: {e}", path.display()))?;
        config
            .validate()
            .map_err(|e| format!("bad tune config {}: {e}", path.display()))?;
        Ok(config)
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

    /// A valid tune of one parameter writing to `out`, for tests.
    pub(crate) fn config(out: &Path) -> TuneConfig {
        TuneConfig {
            event: "tune".into(),
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
            rules: Default::default(),
            openings: Default::default(),
            seed: 3,
            concurrency: 1,
            lag: 1,
            out: out.to_path_buf(),
            log: false,
            pgn_comments: Default::default(),
            shard: None,
            worker: None,
            lease_ms: None,
        }
    }
}
