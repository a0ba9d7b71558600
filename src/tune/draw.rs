//! The random draws of a tune, each one keyed by (seed, iteration, stream, index) rather than
//! taken from one sequential stream: iteration k of a tune draws the same flips and rounding
//! offsets whether it is played first, after a resume, or on another shard.
//!
//! A draw is SplitMix64's output function (Steele, Lea and Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014; the `splitmix64.c` of Vigna) applied in turn
//! to the seed, the iteration, the stream and the index:
//!
//! ```text
//! mix(x) = z ^ (z >> 31), where z = x + 0x9E3779B97F4A7C15,
//!                               z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9,
//!                               z = (z ^ (z >> 27)) * 0x94D049BB133111EB   (mod 2^64)
//! draw(seed, k, stream, i) = mix(mix(mix(mix(seed) ^ k) ^ stream) ^ i)
//! ```
//!
//! Its output is fixed by that definition, not by a crate's version, so that a tune.csv begun
//! by one build of bt-arena is continued with the same draws by any later one (the tests pin
//! exact values).

/// The stream of the flips Δ = ±1, one per parameter (index = the parameter's position).
pub const FLIPS: u64 = 1;
/// The stream of the rounding offsets u ∈ [0, 1), one per parameter.
pub const ROUNDING: u64 = 2;

/// SplitMix64's step: adds the golden-ratio increment to `x` and scrambles the sum.
const fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The 64 random bits of draw `index` of `stream` in `iteration` of the tune seeded `seed`.
pub const fn bits(seed: u64, iteration: u64, stream: u64, index: u64) -> u64 {
    mix(mix(mix(mix(seed) ^ iteration) ^ stream) ^ index)
}

/// The flip Δ ∈ {−1, +1} of parameter `index` in `iteration`: the top bit of its draw.
pub const fn flip(seed: u64, iteration: u64, index: u64) -> i8 {
    if bits(seed, iteration, FLIPS, index) >> 63 == 0 {
        1
    } else {
        -1
    }
}

/// The rounding offset u ∈ [0, 1) of parameter `index` in `iteration`: the top 53 bits of its
/// draw over 2^53 (every value a multiple of 2^-53).
pub fn unit(seed: u64, iteration: u64, index: u64) -> f64 {
    (bits(seed, iteration, ROUNDING, index) >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_is_splitmix64() {
        // splitmix64.c seeded 0: its first outputs are mix(0), mix(γ), ... (γ the increment).
        assert_eq!(mix(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(mix(0x9E37_79B9_7F4A_7C15), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn draws_are_pinned_and_depend_on_every_key() {
        // Pinned: a change here changes every tune's draws (and breaks resuming old ones).
        assert_eq!(bits(1, 1, FLIPS, 0), 0x3ea0_a763_95d9_1588);
        let keys = [
            (1, 1, FLIPS, 0),
            (2, 1, FLIPS, 0),
            (1, 2, FLIPS, 0),
            (1, 1, ROUNDING, 0),
            (1, 1, FLIPS, 1),
        ];
        let values: Vec<u64> = keys.iter().map(|&(s, k, t, i)| bits(s, k, t, i)).collect();
        for (i, a) in values.iter().enumerate() {
            assert!(values[i + 1..].iter().all(|b| a != b), "{values:x?}");
        }
    }

    #[test]
    fn flips_and_offsets_are_fair_over_many_iterations() {
        let n = 100_000;
        let plus = (1..=n).filter(|&k| flip(7, k, 3) == 1).count();
        assert!((49_000..51_000).contains(&plus), "{plus}");
        let units: Vec<f64> = (1..=n).map(|k| unit(7, k, 3)).collect();
        assert!(units.iter().all(|u| (0.0..1.0).contains(u)));
        let mean = units.iter().sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
    }
}
