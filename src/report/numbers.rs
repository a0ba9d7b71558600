//! Numbers written for people, in the forms a reader expects: a count with its thousands
//! grouped (`680,200`), a p-value in fixed decimals (`0.042`, scientific only below 0.001),
//! and a signed change with no `-0.00`.

/// `n` with its thousands grouped by commas: `680200` → `680,200`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A p-value: three decimals from 0.001 up (`1.000`, `0.042`) and for 0, else two significant
/// digits in scientific notation (`2.1e-5`), as statistics packages print them.
pub fn p_value(p: f64) -> String {
    match p {
        p if p.is_nan() => "-".to_string(),
        p if p >= 0.001 || p == 0.0 => format!("{p:.3}"),
        p => format!("{p:.1e}"),
    }
}

/// A signed change of `x`: two decimals (`+0.62`, `-1.25`) from 0.005 up; smaller ones with
/// the decimals that show their first two significant digits (`-0.0012`), so a step never
/// reads `-0.00`; exactly 0 as `0.00`.
pub fn signed_change(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return match x.is_nan() {
            true => "-".to_string(),
            false if x == 0.0 => "0.00".to_string(),
            false => format!("{x:+}"),
        };
    }
    match x.abs() {
        a if a >= 0.005 => format!("{x:+.2}"),
        a => {
            // The decimals that show two significant digits.
            let mut decimals: i32 = 2;
            while decimals < 17 && a * 10f64.powi(decimals) < 10.0 {
                decimals += 1;
            }
            let decimals = usize::try_from(decimals).unwrap_or(2);
            format!("{x:+.decimals$}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(680_200), "680,200");
        assert_eq!(grouped(12_345_678), "12,345,678");
    }

    #[test]
    fn p_values_read_in_decimals_and_tiny_ones_in_scientific_notation() {
        assert_eq!(p_value(1.0), "1.000");
        assert_eq!(p_value(0.0421), "0.042");
        assert_eq!(p_value(0.001), "0.001");
        assert_eq!(p_value(0.000_021), "2.1e-5");
        assert_eq!(p_value(0.0), "0.000");
    }

    #[test]
    fn a_small_change_never_reads_minus_zero() {
        assert_eq!(signed_change(0.62), "+0.62");
        assert_eq!(signed_change(-1.25), "-1.25");
        assert_eq!(signed_change(-0.0012), "-0.0012");
        assert_eq!(signed_change(0.004), "+0.0040");
        assert_eq!(signed_change(0.0), "0.00");
        assert_eq!(signed_change(-0.0), "0.00");
    }
}
