//! Ratings of a pool of engines by Bradley–Terry maximum likelihood (the
//! no-draw model of Ordo and BayesElo, without BayesElo's prior).
//!
//! Engine `i` has strength `beta_i` (natural units); it beats `j` with
//! probability `1 / (1 + exp(beta_j - beta_i))`, i.e. [`logistic_score`](super::logistic_score) of the
//! Elo difference `400 / ln 10 * (beta_i - beta_j)`. The strengths maximise the
//! log-likelihood `sum_ij w_ij ln P(i beats j)` (Newton's method with
//! backtracking; at the optimum every engine's expected score equals its
//! actual score). Error bars come from the observed information (the Hessian
//! `H`, a weighted graph Laplacian): the covariance of the mean-centred
//! strengths is the pseudo-inverse `H+ = (H + 11^T/n)^-1 - 11^T/n`, as in
//! BayesElo's `covariance` and Ordo's `-e` (Hessian) errors. LOS of `i` over
//! `j` is `Phi((r_i - r_j) / se(r_i - r_j))`.
//!
//! Colours are ignored (no first-move advantage term): feed colour-balanced
//! schedules.
//!
//! The maximum likelihood is infinite when some group of engines won every
//! game it played against the others (in particular an engine with a perfect
//! or zero score), and undefined when the pool splits into groups that never
//! met. See [`Bound`] and [`RatingsError::Disconnected`].

use std::fmt;

use serde::Serialize;

use super::linalg::Matrix;
use super::phi;

/// Elo per natural-log unit of a Bradley–Terry strength: `400 / ln 10`.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Result of the games between engines `i` and `j` (indices into the name
/// list), e.g. `i` as white (first player) and `j` as black. Several entries
/// for the same pair add up; the order of `i` and `j` does not matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PairResult {
    /// Index of the first engine.
    pub i: usize,
    /// Index of the second engine (`!= i`).
    pub j: usize,
    /// Games won by `i` against `j`.
    pub wins_i: u64,
    /// Games won by `j` against `i`.
    pub wins_j: u64,
}

/// What fixes the rating offset (the likelihood only sees differences).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Anchor {
    /// The ratings average to this value (0 by default; Ordo uses 2300).
    /// Standard errors are then relative to the pool mean.
    Mean(f64),
    /// The named engine gets exactly `rating`; standard errors are those of
    /// the difference to it (0 for the anchor itself).
    Engine {
        /// Name of the anchor engine.
        name: String,
        /// Its fixed rating, in Elo.
        rating: f64,
    },
}

impl Default for Anchor {
    fn default() -> Self {
        Self::Mean(0.0)
    }
}

/// Rating unit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub enum Scale {
    /// Logistic Elo, `400 * log10` of the odds: 75% is 190.85 Elo.
    #[default]
    Logistic,
    /// Ordo's default unit, where a 76% expected score is 202 points: logistic
    /// Elo times `202 / (400 log10(0.76 / 0.24)) = 1.008785`.
    Ordo,
}

impl Scale {
    /// Rating points per logistic Elo.
    pub fn factor(self) -> f64 {
        match self {
            Self::Logistic => 1.0,
            Self::Ordo => ORDO_POINTS_AT_76 / elo_at_76(),
        }
    }
}

const ORDO_POINTS_AT_76: f64 = 202.0;

fn elo_at_76() -> f64 {
    400.0 * (0.76f64 / 0.24).log10()
}

/// Options of [`rate`] and [`rate_matrix`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RatingOptions {
    /// Offset of the ratings.
    pub anchor: Anchor,
    /// Unit of the ratings and errors.
    pub scale: Scale,
}

/// Why an engine's rating is a regularized bound instead of a maximum
/// likelihood estimate.
///
/// Engines are grouped into the strongly connected components of the graph
/// "i beat j at least once". When a component of the pool holds several such
/// groups, some group won (or lost) every game against some other, and the
/// likelihood pushes them infinitely apart. To keep the ratings finite, every
/// pair of engines from different groups that played each other gets one
/// virtual draw (half a win each way, like BayesElo's virtual-draw prior, but
/// only on those pairs, so ordinary pools are untouched). A 10-0 engine thus
/// rates as 10.5-0.5, i.e. `400 log10(21) = 529` Elo above its opponent.
/// `games` and `wins` in [`EngineRating`] exclude the virtual games; the
/// standard errors are those of the regularized fit, so they understate how
/// little the data pin such a rating down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Bound {
    /// Its group lost no game against the other groups (e.g. a perfect score):
    /// the true estimate is higher, without limit; the value is a floor.
    Lower,
    /// Its group won no game against the other groups (e.g. a zero score):
    /// the true estimate is lower, without limit; the value is a ceiling.
    Upper,
    /// Its group won every game against some groups and lost every game
    /// against others: the distance to both is infinite and the value rests
    /// on the virtual draws alone.
    Between,
}

impl Bound {
    /// The mark written before a bounded rating: `>` (a floor), `<` (a ceiling), `~` (both).
    pub const fn mark(self) -> &'static str {
        match self {
            Bound::Lower => ">",
            Bound::Upper => "<",
            Bound::Between => "~",
        }
    }
}

/// Rating of one engine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineRating {
    /// Engine name.
    pub name: String,
    /// Rating (Elo, or Ordo points with [`Scale::Ordo`]), anchored as asked.
    pub rating: f64,
    /// One standard error of `rating`: relative to the pool mean with
    /// [`Anchor::Mean`], relative to the anchor engine with [`Anchor::Engine`].
    pub std_error: f64,
    /// Real games played.
    pub games: u64,
    /// Real games won.
    pub wins: u64,
    /// `Some` when the rating is a regularized bound (see [`Bound`]).
    pub bound: Option<Bound>,
}

/// Ratings of a pool, in the order of the input names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ratings {
    /// One entry per engine.
    pub engines: Vec<EngineRating>,
    /// `diff_std_error[i][j]`: one standard error of `rating_i - rating_j`
    /// (same unit as the ratings; 0 on the diagonal; anchor-independent).
    pub diff_std_error: Vec<Vec<f64>>,
    /// `los[i][j]`: probability that engine `i` is stronger than `j`,
    /// `Phi((r_i - r_j) / diff_std_error[i][j])`; 0.5 on the diagonal.
    pub los: Vec<Vec<f64>>,
}

/// Why ratings could not be computed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum RatingsError {
    /// The same name appears twice in the engine list.
    DuplicateName(String),
    /// A [`PairResult`] refers to an engine index `>= engines`.
    UnknownEngine {
        /// The bad index.
        index: usize,
        /// Number of engines.
        engines: usize,
    },
    /// An engine is paired with itself (a [`PairResult`] with `i == j`, or a
    /// non-zero diagonal entry of the win matrix).
    SelfPairing(String),
    /// The win matrix is not `engines x engines`.
    MatrixShape {
        /// Number of engines (expected rows and columns).
        engines: usize,
    },
    /// The anchor engine is not in the list.
    UnknownAnchor(String),
    /// The anchor rating is NaN or infinite.
    NonFiniteAnchor,
    /// The "who played whom" graph is not connected: ratings of different
    /// components are not comparable. Lists the components' engine names
    /// (engines without games are components of their own), each in input
    /// order; rate each component separately.
    Disconnected {
        /// Engine names per component.
        components: Vec<Vec<String>>,
    },
    /// The likelihood maximisation failed numerically (not expected for
    /// validated input; reported instead of returning NaN).
    NoConvergence,
}

impl fmt::Display for RatingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateName(name) => write!(f, "engine `{name}` is listed twice"),
            Self::UnknownEngine { index, engines } => {
                write!(
                    f,
                    "engine index {index} is out of range ({engines} engines)"
                )
            }
            Self::SelfPairing(name) => write!(f, "engine `{name}` is paired with itself"),
            Self::MatrixShape { engines } => {
                write!(f, "the win matrix must be {engines} x {engines}")
            }
            Self::UnknownAnchor(name) => write!(f, "anchor engine `{name}` is not in the pool"),
            Self::NonFiniteAnchor => write!(f, "the anchor rating must be a finite number"),
            Self::Disconnected { components } => {
                let groups: Vec<String> = components
                    .iter()
                    .map(|c| format!("{{{}}}", c.join(", ")))
                    .collect();
                write!(
                    f,
                    "the pool is not connected by games; components: {}",
                    groups.join(" ")
                )
            }
            Self::NoConvergence => write!(f, "the rating fit did not converge"),
        }
    }
}

impl std::error::Error for RatingsError {}

/// Rates a pool from pairwise results.
///
/// `names`: one name per engine (unique). `results`: games between pairs,
/// indexing `names`. Engines are returned in the order of `names`.
///
/// # Errors
/// [`RatingsError`]: duplicate names, bad indices or self-pairings, an
/// unknown or non-finite anchor, a disconnected pool.
pub fn rate<S: AsRef<str>>(
    names: &[S],
    results: &[PairResult],
    options: &RatingOptions,
) -> Result<Ratings, RatingsError> {
    let names = engine_names(names)?;
    let n = names.len();
    let mut wins = vec![vec![0u64; n]; n];
    for r in results {
        for index in [r.i, r.j] {
            if index >= n {
                return Err(RatingsError::UnknownEngine { index, engines: n });
            }
        }
        if r.i == r.j {
            return Err(RatingsError::SelfPairing(names[r.i].clone()));
        }
        wins[r.i][r.j] = wins[r.i][r.j].saturating_add(r.wins_i);
        wins[r.j][r.i] = wins[r.j][r.i].saturating_add(r.wins_j);
    }
    fit(names, &wins, options)
}

/// Rates a pool from a win matrix: `wins[i][j]` is the number of games engine
/// `i` won against engine `j` (`names.len()` square, zero diagonal).
///
/// # Errors
/// As [`rate`], plus [`RatingsError::MatrixShape`] for a non-square matrix.
pub fn rate_matrix<S: AsRef<str>>(
    names: &[S],
    wins: &[Vec<u64>],
    options: &RatingOptions,
) -> Result<Ratings, RatingsError> {
    let names = engine_names(names)?;
    let n = names.len();
    if wins.len() != n || wins.iter().any(|row| row.len() != n) {
        return Err(RatingsError::MatrixShape { engines: n });
    }
    if let Some(i) = (0..n).find(|&i| wins[i][i] != 0) {
        return Err(RatingsError::SelfPairing(names[i].clone()));
    }
    fit(names, wins, options)
}

fn engine_names<S: AsRef<str>>(names: &[S]) -> Result<Vec<String>, RatingsError> {
    let names: Vec<String> = names.iter().map(|s| s.as_ref().to_string()).collect();
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(RatingsError::DuplicateName(name.clone()));
        }
    }
    Ok(names)
}

/// Rates validated input: `wins[i][j]` games `i` won against `j`.
fn fit(
    names: Vec<String>,
    wins: &[Vec<u64>],
    options: &RatingOptions,
) -> Result<Ratings, RatingsError> {
    let anchor = resolve_anchor(&names, &options.anchor)?;
    let played = |i: usize, j: usize| wins[i][j] > 0 || wins[j][i] > 0;
    let components = components(names.len(), played);
    if components.len() > 1 {
        let components = components
            .iter()
            .map(|c| c.iter().map(|&i| names[i].clone()).collect())
            .collect();
        return Err(RatingsError::Disconnected { components });
    }
    let groups = win_groups(wins);
    let weights = regularized_wins(wins, &groups);
    let (strengths, covariance) = maximize_likelihood(&weights)?;
    let unit = ELO_PER_NAT * options.scale.factor();
    let diff_std_error = diff_std_errors(&covariance, unit);
    let (values, errors) = anchored(&strengths, &covariance, &diff_std_error, unit, anchor);
    let los = los_matrix(&values, &diff_std_error);
    let bounds = bounds(wins, &groups);
    let engines = names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let (games, won) = games_and_wins(wins, i);
            EngineRating {
                name,
                rating: values[i],
                std_error: errors[i],
                games,
                wins: won,
                bound: bounds[i],
            }
        })
        .collect();
    Ok(Ratings {
        engines,
        diff_std_error,
        los,
    })
}

/// Resolved [`Anchor`]: `(engine index or None for the mean, rating)`.
fn resolve_anchor(names: &[String], anchor: &Anchor) -> Result<(Option<usize>, f64), RatingsError> {
    let (index, rating) = match anchor {
        Anchor::Mean(rating) => (None, *rating),
        Anchor::Engine { name, rating } => {
            let index = names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| RatingsError::UnknownAnchor(name.clone()))?;
            (Some(index), *rating)
        }
    };
    if !rating.is_finite() {
        return Err(RatingsError::NonFiniteAnchor);
    }
    Ok((index, rating))
}

/// Connected components of the undirected graph on `0..n` with edges
/// `linked(i, j)`, each listed in increasing order, ordered by first member.
fn components(n: usize, linked: impl Fn(usize, usize) -> bool) -> Vec<Vec<usize>> {
    let mut assigned = vec![false; n];
    let mut result = Vec::new();
    for start in 0..n {
        if assigned[start] {
            continue;
        }
        let members: Vec<usize> = reachable(n, start, &linked)
            .into_iter()
            .enumerate()
            .filter_map(|(i, reached)| reached.then_some(i))
            .collect();
        for &i in &members {
            assigned[i] = true;
        }
        result.push(members);
    }
    result
}

/// Strongly connected components of "i beat j": `group[i]` is a group id;
/// engines `i`, `j` share a group iff each can be reached from the other by a
/// chain of wins.
fn win_groups(wins: &[Vec<u64>]) -> Vec<usize> {
    let n = wins.len();
    let beat = |i: usize, j: usize| wins[i][j] > 0;
    let reach: Vec<Vec<bool>> = (0..n).map(|i| reachable(n, i, &beat)).collect();
    (0..n)
        .map(|j| (0..n).find(|&i| reach[i][j] && reach[j][i]).unwrap_or(j))
        .collect()
}

/// Vertices of `0..n` reachable from `start` along directed edges `edge(i, j)`
/// (including `start`).
fn reachable(n: usize, start: usize, edge: &impl Fn(usize, usize) -> bool) -> Vec<bool> {
    let mut seen = vec![false; n];
    seen[start] = true;
    let mut stack = vec![start];
    while let Some(i) = stack.pop() {
        for (j, reached) in seen.iter_mut().enumerate() {
            if !*reached && edge(i, j) {
                *reached = true;
                stack.push(j);
            }
        }
    }
    seen
}

/// Real wins as `f64`, plus one virtual draw (1/2 win each way) on every
/// played pair whose engines lie in different win groups (see [`Bound`]).
fn regularized_wins(wins: &[Vec<u64>], groups: &[usize]) -> Vec<Vec<f64>> {
    let n = wins.len();
    let mut weights = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            let crosses = groups[i] != groups[j] && (wins[i][j] > 0 || wins[j][i] > 0);
            weights[i][j] = wins[i][j] as f64 + if crosses { 0.5 } else { 0.0 };
        }
    }
    weights
}

/// Bound flag of each engine from its group's real results against other groups.
fn bounds(wins: &[Vec<u64>], groups: &[usize]) -> Vec<Option<Bound>> {
    let n = wins.len();
    // Indexed by group id (an engine index): games won and lost across groups.
    let mut won = vec![0u64; n];
    let mut lost = vec![0u64; n];
    for i in 0..n {
        for j in (0..n).filter(|&j| groups[j] != groups[i]) {
            won[groups[i]] = won[groups[i]].saturating_add(wins[i][j]);
            lost[groups[i]] = lost[groups[i]].saturating_add(wins[j][i]);
        }
    }
    groups
        .iter()
        .map(|&g| match (won[g], lost[g]) {
            (0, 0) => None,
            (_, 0) => Some(Bound::Lower),
            (0, _) => Some(Bound::Upper),
            _ => Some(Bound::Between),
        })
        .collect()
}

/// `(games, wins)` of engine `i`, real games only.
fn games_and_wins(wins: &[Vec<u64>], i: usize) -> (u64, u64) {
    let won = wins[i].iter().fold(0u64, |t, &w| t.saturating_add(w));
    let lost = wins.iter().fold(0u64, |t, row| t.saturating_add(row[i]));
    (won.saturating_add(lost), won)
}

const MAX_NEWTON_STEPS: usize = 200;
const STEP_TOLERANCE: f64 = 1e-10;
const MAX_HALVINGS: usize = 60;

/// Maximum-likelihood strengths (natural units, summing to 0) and their
/// covariance `H+` for win weights `w[i][j]` of a connected pool whose win
/// graph is strongly connected (after regularization).
fn maximize_likelihood(w: &[Vec<f64>]) -> Result<(Vec<f64>, Matrix), RatingsError> {
    let n = w.len();
    let mut beta = vec![0.0; n];
    for _ in 0..MAX_NEWTON_STEPS {
        let (gradient, info) = gradient_and_information(w, &beta);
        let step = centred_information(&info)
            .cholesky()
            .ok_or(RatingsError::NoConvergence)?
            .solve(&gradient);
        let scale = backtrack(w, &beta, &step);
        for (b, s) in beta.iter_mut().zip(&step) {
            *b += scale * s;
        }
        if step.iter().all(|s| (scale * s).abs() < STEP_TOLERANCE) {
            let (_, info) = gradient_and_information(w, &beta);
            let covariance = pseudo_inverse(&info)?;
            return Ok((beta, covariance));
        }
    }
    Err(RatingsError::NoConvergence)
}

/// Largest step fraction `1, 1/2, 1/4, ...` that does not lower the likelihood.
fn backtrack(w: &[Vec<f64>], beta: &[f64], step: &[f64]) -> f64 {
    let current = log_likelihood(w, beta);
    let mut scale = 1.0;
    for _ in 0..MAX_HALVINGS {
        let trial: Vec<f64> = beta.iter().zip(step).map(|(b, s)| b + scale * s).collect();
        if log_likelihood(w, &trial) >= current - 1e-12 * current.abs() {
            return scale;
        }
        scale *= 0.5;
    }
    scale
}

/// Probability that strength `bi` beats `bj`.
fn win_probability(bi: f64, bj: f64) -> f64 {
    1.0 / (1.0 + (bj - bi).exp())
}

/// `sum_ij w_ij ln P(i beats j)`, computed stably as `-softplus(bj - bi)`.
fn log_likelihood(w: &[Vec<f64>], beta: &[f64]) -> f64 {
    let softplus = |x: f64| x.max(0.0) + (-x.abs()).exp().ln_1p();
    let mut total = 0.0;
    for (i, row) in w.iter().enumerate() {
        for (j, &wij) in row.iter().enumerate() {
            if wij > 0.0 {
                total -= wij * softplus(beta[j] - beta[i]);
            }
        }
    }
    total
}

/// Gradient `W_i - sum_j n_ij P_ij` of the log-likelihood and the information
/// matrix `H` (`H_ii = sum_j n_ij P_ij P_ji`, `H_ij = -n_ij P_ij P_ji`).
fn gradient_and_information(w: &[Vec<f64>], beta: &[f64]) -> (Vec<f64>, Matrix) {
    let n = w.len();
    let mut gradient = vec![0.0; n];
    let mut info = Matrix::zeros(n);
    for i in 0..n {
        for j in 0..n {
            let games = w[i][j] + w[j][i];
            if i == j || games == 0.0 {
                continue;
            }
            let p = win_probability(beta[i], beta[j]);
            gradient[i] += w[i][j] - games * p;
            let curvature = games * p * (1.0 - p);
            info[(i, i)] += curvature;
            info[(i, j)] -= curvature;
        }
    }
    (gradient, info)
}

/// `H + 11^T / n`: positive definite for a connected pool, and it maps
/// mean-zero vectors like `H`, so Newton steps keep the strengths centred.
fn centred_information(info: &Matrix) -> Matrix {
    let n = info.dim();
    let mut m = info.clone();
    for i in 0..n {
        for j in 0..n {
            m[(i, j)] += 1.0 / n as f64;
        }
    }
    m
}

/// Moore–Penrose pseudo-inverse of the information matrix:
/// `(H + 11^T/n)^-1 - 11^T/n`, the covariance of the mean-centred strengths.
fn pseudo_inverse(info: &Matrix) -> Result<Matrix, RatingsError> {
    let n = info.dim();
    let mut inv = centred_information(info)
        .cholesky()
        .ok_or(RatingsError::NoConvergence)?
        .inverse();
    for i in 0..n {
        for j in 0..n {
            inv[(i, j)] -= 1.0 / n as f64;
        }
    }
    Ok(inv)
}

/// Standard errors of all rating differences, in rating units.
fn diff_std_errors(covariance: &Matrix, unit: f64) -> Vec<Vec<f64>> {
    let n = covariance.dim();
    (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let var = covariance[(i, i)] + covariance[(j, j)] - 2.0 * covariance[(i, j)];
                    unit * var.max(0.0).sqrt()
                })
                .collect()
        })
        .collect()
}

/// Likelihood-of-superiority matrix from ratings and difference errors.
fn los_matrix(ratings: &[f64], diff_std_error: &[Vec<f64>]) -> Vec<Vec<f64>> {
    ratings
        .iter()
        .zip(diff_std_error)
        .map(|(ri, errors)| {
            ratings
                .iter()
                .zip(errors)
                .map(|(rj, &se)| if se > 0.0 { phi((ri - rj) / se) } else { 0.5 })
                .collect()
        })
        .collect()
}

/// Ratings and their standard errors under the anchor.
fn anchored(
    strengths: &[f64],
    covariance: &Matrix,
    diff_std_error: &[Vec<f64>],
    unit: f64,
    (anchor, value): (Option<usize>, f64),
) -> (Vec<f64>, Vec<f64>) {
    let n = strengths.len();
    match anchor {
        None => (
            strengths.iter().map(|b| value + unit * b).collect(),
            (0..n)
                .map(|i| unit * covariance[(i, i)].max(0.0).sqrt())
                .collect(),
        ),
        Some(a) => (
            strengths
                .iter()
                .map(|b| value + unit * (b - strengths[a]))
                .collect(),
            (0..n).map(|i| diff_std_error[i][a]).collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{assert_close, logistic_score};

    const ABC: [&str; 3] = ["A", "B", "C"];

    fn pair(i: usize, j: usize, wins_i: u64, wins_j: u64) -> PairResult {
        PairResult {
            i,
            j,
            wins_i,
            wins_j,
        }
    }

    /// Round robin of the vectors: A-B 60-40, A-C 70-30, B-C 55-45.
    fn round_robin() -> Vec<PairResult> {
        vec![pair(0, 1, 60, 40), pair(0, 2, 70, 30), pair(1, 2, 55, 45)]
    }

    fn rate_default(names: &[&str], results: &[PairResult]) -> Ratings {
        rate(names, results, &RatingOptions::default()).expect("ratable pool")
    }

    fn values(r: &Ratings) -> Vec<f64> {
        r.engines.iter().map(|e| e.rating).collect()
    }

    #[test]
    fn round_robin_matches_vectors() {
        let r = rate_default(&ABC, &round_robin());
        for (e, (elo, se)) in
            r.engines
                .iter()
                .zip([(72.02, 17.21), (-12.01, 16.70), (-60.01, 17.04)])
        {
            assert_close(e.rating, elo, 5e-3);
            assert_close(e.std_error, se, 5e-3);
            assert_eq!(e.games, 200);
            assert_eq!(e.bound, None);
        }
        assert_close(r.diff_std_error[0][1], 29.32, 5e-3);
        assert_close(r.diff_std_error[0][2], 29.91, 5e-3);
        assert_close(r.diff_std_error[1][2], 29.02, 5e-3);
        assert_close(r.diff_std_error[2][1], 29.02, 5e-3);
        assert_eq!(r.diff_std_error[1][1], 0.0);
        let wins: Vec<u64> = r.engines.iter().map(|e| e.wins).collect();
        assert_eq!(wins, [130, 95, 75]);
    }

    #[test]
    fn expected_scores_equal_observed_scores() {
        let r = rate_default(&ABC, &round_robin());
        let v = values(&r);
        let expected = |i: usize, j: usize| 100.0 * logistic_score(v[i] - v[j]);
        assert_close(expected(0, 1) + expected(0, 2), 130.0, 1e-6);
        assert_close(expected(1, 0) + expected(1, 2), 95.0, 1e-6);
        assert_close(expected(2, 0) + expected(2, 1), 75.0, 1e-6);
    }

    #[test]
    fn consistent_results_give_exact_differences() {
        let results = [pair(0, 1, 75, 25), pair(1, 2, 75, 25), pair(0, 2, 90, 10)];
        let v = values(&rate_default(&ABC, &results));
        let step = 400.0 * 3f64.log10();
        assert_close(step, 190.85, 5e-3);
        assert_close(v[0] - v[1], step, 1e-6);
        assert_close(v[1] - v[2], step, 1e-6);
        assert_close(v.iter().sum::<f64>(), 0.0, 1e-6);
    }

    #[test]
    fn win_matrix_input_agrees_with_pair_input() {
        let matrix = vec![vec![0, 60, 70], vec![40, 0, 55], vec![30, 45, 0]];
        let from_matrix = rate_matrix(&ABC, &matrix, &RatingOptions::default()).unwrap();
        // Same games split over both colours and listed in the other order.
        let split = [
            pair(1, 0, 20, 30),
            pair(0, 1, 30, 20),
            pair(2, 0, 30, 70),
            pair(1, 2, 55, 45),
        ];
        let from_pairs = rate_default(&ABC, &split);
        for (a, b) in values(&from_matrix).iter().zip(values(&from_pairs)) {
            assert_close(*a, b, 1e-9);
        }
    }

    #[test]
    fn los_matrix_is_consistent() {
        let r = rate_default(&ABC, &round_robin());
        assert_close(r.los[0][0], 0.5, 0.0);
        for i in 0..3 {
            for j in 0..3 {
                assert_close(r.los[i][j] + r.los[j][i], 1.0, 1e-12);
            }
        }
        let z = (72.02398439 + 12.01400286) / 29.31783276;
        assert_close(r.los[0][1], crate::stats::phi(z), 1e-6);
        assert!(r.los[0][2] > 0.99 && r.los[2][1] < 0.1);
    }

    #[test]
    fn anchors_shift_and_errors_follow() {
        let pool = Anchor::Mean(2300.0);
        let options = RatingOptions {
            anchor: pool,
            scale: Scale::Logistic,
        };
        let r = rate(&ABC, &round_robin(), &options).unwrap();
        assert_close(r.engines[0].rating, 2372.02, 5e-3);
        assert_close(r.engines[0].std_error, 17.21, 5e-3);

        let options = RatingOptions {
            anchor: Anchor::Engine {
                name: "B".into(),
                rating: 1000.0,
            },
            scale: Scale::Logistic,
        };
        let r = rate(&ABC, &round_robin(), &options).unwrap();
        assert_close(r.engines[1].rating, 1000.0, 1e-9);
        assert_close(r.engines[1].std_error, 0.0, 1e-9);
        assert_close(r.engines[0].rating, 1084.04, 5e-3);
        assert_close(r.engines[0].std_error, 29.32, 5e-3);
        assert_close(r.engines[2].std_error, 29.02, 5e-3);
        assert_close(r.diff_std_error[0][2], 29.91, 5e-3);
    }

    #[test]
    fn ordo_scale_matches_vectors() {
        assert_close(Scale::Ordo.factor(), 1.008785, 5e-7);
        let options = RatingOptions {
            anchor: Anchor::Mean(2300.0),
            scale: Scale::Ordo,
        };
        let v = values(&rate(&ABC, &round_robin(), &options).unwrap());
        assert_close(v[0], 2372.7, 0.05);
        assert_close(v[1], 2287.9, 0.05);
        assert_close(v[2], 2239.5, 0.05);
    }

    #[test]
    fn perfect_and_zero_scores_are_finite_bounds() {
        // A won all 10 against B; B and C split.
        let results = [pair(0, 1, 10, 0), pair(1, 2, 5, 5)];
        let r = rate_default(&ABC, &results);
        let v = values(&r);
        assert!(v.iter().all(|x| x.is_finite()));
        assert_eq!(r.engines[0].bound, Some(Bound::Lower));
        assert_eq!(r.engines[1].bound, Some(Bound::Upper));
        assert_eq!(r.engines[2].bound, Some(Bound::Upper));
        // One virtual draw: 10.5-0.5 between A and B.
        assert_close(v[0] - v[1], 400.0 * 21f64.log10(), 1e-6);
        assert_close(v[1], v[2], 1e-6);
        assert_eq!((r.engines[0].games, r.engines[0].wins), (10, 10));
        assert!(r.engines.iter().all(|e| e.std_error.is_finite()));
        assert!(r.los.iter().flatten().all(|p| p.is_finite()));
    }

    #[test]
    fn lone_loser_and_chain_of_groups_are_flagged() {
        let r = rate_default(&["X", "Y"], &[pair(0, 1, 0, 3)]);
        assert_eq!(r.engines[0].bound, Some(Bound::Upper));
        assert_eq!(r.engines[1].bound, Some(Bound::Lower));
        assert_close(
            r.engines[1].rating - r.engines[0].rating,
            400.0 * 7f64.log10(),
            1e-6,
        );

        // A beats B always, B beats C always.
        let r = rate_default(&ABC, &[pair(0, 1, 4, 0), pair(1, 2, 4, 0)]);
        let bounds: Vec<_> = r.engines.iter().map(|e| e.bound).collect();
        assert_eq!(
            bounds,
            [Some(Bound::Lower), Some(Bound::Between), Some(Bound::Upper)]
        );
        assert!(values(&r).windows(2).all(|w| w[0] > w[1]));
    }

    #[test]
    fn group_dominance_is_bounded_too() {
        // {A, B} split their games and both beat {C, D} every time; C-D split.
        let names = ["A", "B", "C", "D"];
        let results = [
            pair(0, 1, 5, 5),
            pair(2, 3, 5, 5),
            pair(0, 2, 6, 0),
            pair(1, 3, 6, 0),
        ];
        let r = rate_default(&names, &results);
        let bounds: Vec<_> = r.engines.iter().map(|e| e.bound).collect();
        assert_eq!(
            bounds,
            [
                Some(Bound::Lower),
                Some(Bound::Lower),
                Some(Bound::Upper),
                Some(Bound::Upper)
            ]
        );
        assert!(values(&r).iter().all(|v| v.is_finite()));
    }

    #[test]
    fn one_sided_pair_inside_a_cycle_is_a_plain_estimate() {
        // A beat B 3-0, but B beat C and C beat A: the MLE is finite.
        let results = [pair(0, 1, 3, 0), pair(1, 2, 2, 1), pair(2, 0, 2, 1)];
        let r = rate_default(&ABC, &results);
        assert!(r.engines.iter().all(|e| e.bound.is_none()));
        assert!(values(&r).iter().all(|v| v.is_finite()));
    }

    #[test]
    fn small_samples_are_finite() {
        let r = rate_default(&["X", "Y"], &[pair(0, 1, 1, 1)]);
        assert_close(r.engines[0].rating, 0.0, 1e-9);
        assert!(r.engines[0].std_error.is_finite() && r.engines[0].std_error > 0.0);
        let r = rate_default(&["X", "Y"], &[pair(0, 1, 2, 1)]);
        assert_close(
            r.engines[0].rating - r.engines[1].rating,
            400.0 * 2f64.log10(),
            1e-6,
        );
    }

    #[test]
    fn zero_games_and_tiny_pools() {
        let empty: [&str; 0] = [];
        let r = rate_default(&empty, &[]);
        assert!(r.engines.is_empty() && r.los.is_empty());
        let r = rate_default(&["solo"], &[]);
        assert_eq!(r.engines[0].rating, 0.0);
        assert_eq!(r.engines[0].std_error, 0.0);
        assert_eq!(r.engines[0].games, 0);
        let err = rate(&["X", "Y"], &[], &RatingOptions::default()).unwrap_err();
        assert_eq!(
            err,
            RatingsError::Disconnected {
                components: vec![vec!["X".into()], vec!["Y".into()]]
            }
        );
        // Zero-game entries do not connect engines.
        let err = rate(&["X", "Y"], &[pair(0, 1, 0, 0)], &RatingOptions::default());
        assert!(matches!(err, Err(RatingsError::Disconnected { .. })));
    }

    #[test]
    fn disconnected_pool_lists_components() {
        let names = ["A", "B", "C", "D", "E"];
        let results = [pair(0, 2, 3, 2), pair(1, 3, 1, 1), pair(3, 4, 2, 2)];
        let err = rate(&names, &results, &RatingOptions::default()).unwrap_err();
        let expected = vec![
            vec!["A".to_string(), "C".to_string()],
            vec!["B".to_string(), "D".to_string(), "E".to_string()],
        ];
        assert_eq!(
            err,
            RatingsError::Disconnected {
                components: expected
            }
        );
        assert_eq!(
            err.to_string(),
            "the pool is not connected by games; components: {A, C} {B, D, E}"
        );
    }

    #[test]
    fn invalid_inputs_are_errors() {
        let default = RatingOptions::default();
        assert_eq!(
            rate(&["A", "A"], &[], &default).unwrap_err(),
            RatingsError::DuplicateName("A".into())
        );
        assert_eq!(
            rate(&ABC, &[pair(0, 3, 1, 1)], &default).unwrap_err(),
            RatingsError::UnknownEngine {
                index: 3,
                engines: 3
            }
        );
        assert_eq!(
            rate(&ABC, &[pair(1, 1, 1, 1)], &default).unwrap_err(),
            RatingsError::SelfPairing("B".into())
        );
        assert_eq!(
            rate_matrix(&ABC, &[vec![0, 1], vec![1, 0]], &default).unwrap_err(),
            RatingsError::MatrixShape { engines: 3 }
        );
        let diagonal = vec![vec![0, 1, 1], vec![1, 2, 1], vec![1, 1, 0]];
        assert_eq!(
            rate_matrix(&ABC, &diagonal, &default).unwrap_err(),
            RatingsError::SelfPairing("B".into())
        );
        let unknown = RatingOptions {
            anchor: Anchor::Engine {
                name: "Z".into(),
                rating: 0.0,
            },
            scale: Scale::Logistic,
        };
        assert_eq!(
            rate(&ABC, &round_robin(), &unknown).unwrap_err(),
            RatingsError::UnknownAnchor("Z".into())
        );
        let nan = RatingOptions {
            anchor: Anchor::Mean(f64::NAN),
            scale: Scale::Logistic,
        };
        assert_eq!(
            rate(&ABC, &round_robin(), &nan).unwrap_err(),
            RatingsError::NonFiniteAnchor
        );
    }

    #[test]
    fn large_lopsided_pool_converges() {
        // Strengths 0, 300, ..., 2700 Elo, 1000 games per pair at the expected score.
        let n = 10;
        let names: Vec<String> = (0..n).map(|i| format!("E{i}")).collect();
        let mut results = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                let p = logistic_score(300.0 * (i as f64 - j as f64));
                #[allow(clippy::cast_possible_truncation)] // p is in [0, 1]
                let wins_i = (1000.0 * p).round() as u64;
                results.push(pair(i, j, wins_i, 1000 - wins_i));
            }
        }
        let r = rate(&names, &results, &RatingOptions::default()).unwrap();
        let v = values(&r);
        assert!(
            v.windows(2).all(|w| (w[1] - w[0] - 300.0).abs() < 15.0),
            "{v:?}"
        );
        assert!(r.engines.iter().all(|e| e.bound.is_none()));
    }
}
