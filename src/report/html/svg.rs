//! The charts of report.html as inline SVG, drawn from numbers computed elsewhere
//! ([`crate::report::Summary`], [`crate::report::series`]): bars with error whiskers, a line over games with a
//! band and reference lines, and bar histograms. Every text is escaped here.

use std::fmt::Write;

/// Colours of the series, in order (colour-blind safe, Okabe–Ito).
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000",
];

/// `text` with `&`, `<`, `>`, `"` and `'` escaped for HTML and SVG.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A linear map from a value range onto a pixel range.
#[derive(Clone, Copy, Debug)]
struct Scale {
    from: (f64, f64),
    to: (f64, f64),
}

impl Scale {
    fn new(from: (f64, f64), to: (f64, f64)) -> Scale {
        let from = if from.1 > from.0 {
            from
        } else {
            (from.0 - 1.0, from.0 + 1.0)
        };
        Scale { from, to }
    }

    fn at(self, value: f64) -> f64 {
        let t = (value - self.from.0) / (self.from.1 - self.from.0);
        self.to.0 + t * (self.to.1 - self.to.0)
    }
}

/// About `count` round tick values covering `[lo, hi]`.
fn ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = span / count.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|step| *step >= raw)
        .unwrap_or(10.0 * magnitude);
    let (first, last) = ((lo / step).ceil(), (hi / step).floor());
    std::iter::successors(Some(first), |k| Some(k + 1.0))
        .take_while(|k| *k <= last)
        .map(|k| k * step)
        .collect()
}

/// A tick label: no decimals for whole numbers, else up to two.
fn label(value: f64) -> String {
    if (value - value.round()).abs() < 1e-9 {
        // `+ 0.0` prints -0 as 0.
        format!("{:.0}", value.round() + 0.0)
    } else {
        format!("{value:.2}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// The opening `<svg>` tag of a `width`×`height` chart titled `title` (for screen readers).
fn open(width: f64, height: f64, class: &str, title: &str) -> String {
    format!(
        "<svg class=\"chart {class}\" viewBox=\"0 0 {width:.0} {height:.0}\" width=\"{width:.0}\" \
         height=\"{height:.0}\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\
         <title>{}</title>",
        escape(title)
    )
}

/// One bar of [`rating_bars`]: a name, an estimate and its 95% half-width.
pub struct RatingBar<'a> {
    /// The label on the left.
    pub name: &'a str,
    /// The estimate, Elo; `None` draws no bar (shown as `-`).
    pub elo: Option<f64>,
    /// Half-width of its 95% interval, Elo; `None` for a bound (no whiskers, no ±).
    pub error95: Option<f64>,
    /// Text before the number, e.g. `>` for a bound.
    pub note: &'a str,
}

/// An `<svg>` element titled `title`: horizontal bars from 0 to each estimate with whiskers
/// over its 95% interval, one row per bar, the value (`+381.7 ± 242.2`, or `>+381.7` for a
/// bound, which has no interval) on the right, a zero
/// line and an Elo axis from -R to R (R the widest interval's reach, at least 50 and at most
/// 1300 Elo).
pub fn rating_bars(title: &str, bars: &[RatingBar<'_>]) -> String {
    let (width, left, right, row) = (760.0, 170.0, 130.0, 28.0);
    let height = 40.0 + row * bars.len() as f64;
    let reach = bars
        .iter()
        .filter_map(|b| b.elo.map(|e| e.abs() + b.error95.unwrap_or(0.0)))
        .fold(50.0f64, f64::max)
        .min(1300.0);
    let x = Scale::new((-reach, reach), (left, width - right));
    let mut svg = open(width, height, "ratings", title);
    axis_x(
        &mut svg,
        x,
        (-reach, reach),
        16.0,
        height - 22.0,
        "Elo",
        false,
    );
    for (k, bar) in bars.iter().enumerate() {
        let y = 20.0 + row * k as f64;
        let mid = y + row / 2.0;
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"name\">{}</text>",
            left - 8.0,
            mid + 4.0,
            escape(bar.name)
        );
        let Some(elo) = bar.elo else {
            let _ = write!(
                svg,
                "<text x=\"{}\" y=\"{}\">-</text>",
                x.at(0.0) + 4.0,
                mid + 4.0
            );
            continue;
        };
        let colour = PALETTE[k % PALETTE.len()];
        let (a, b) = (x.at(0.0).min(x.at(elo)), x.at(0.0).max(x.at(elo)));
        let _ = write!(
            svg,
            "<rect x=\"{a:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{colour}\" \
             opacity=\"0.75\"/>",
            y + 5.0,
            (b - a).max(1.0),
            row - 10.0
        );
        if let Some(error95) = bar.error95 {
            let (lo, hi) = (x.at(elo - error95), x.at(elo + error95));
            let _ = write!(
                svg,
                "<path d=\"M{lo:.1} {mid:.1}H{hi:.1}M{lo:.1} {:.1}V{:.1}M{hi:.1} {:.1}V{:.1}\" \
                 stroke=\"#222\" stroke-width=\"1.5\" class=\"whisker\"/>",
                mid - 6.0,
                mid + 6.0,
                mid - 6.0,
                mid + 6.0
            );
        }
        let interval = bar.error95.map_or(String::new(), |e| format!(" ± {e:.1}"));
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" class=\"value\">{}{elo:+.1}{interval}</text>",
            width - right + 6.0,
            mid + 4.0,
            escape(bar.note),
        );
    }
    svg.push_str("</svg>");
    svg
}

/// An x axis at `y` with ticks over `[lo, hi]` and grid lines up to `top`; its name at its
/// right end, above the axis, or with `name_below` under the tick labels (where no line of the
/// plot, such as a bound at 0, can run through it; the chart needs 30 px below the axis).
fn axis_x(
    svg: &mut String,
    x: Scale,
    (lo, hi): (f64, f64),
    top: f64,
    y: f64,
    name: &str,
    name_below: bool,
) {
    let _ = write!(
        svg,
        "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#888\"/>",
        x.at(lo),
        x.at(hi)
    );
    for tick in ticks(lo, hi, 8) {
        let at = x.at(tick);
        let zero = if tick == 0.0 { " zero" } else { "" };
        let _ = write!(
            svg,
            "<line x1=\"{at:.1}\" x2=\"{at:.1}\" y1=\"{top}\" y2=\"{y}\" class=\"grid{zero}\"/>\
             <text x=\"{at:.1}\" y=\"{}\" text-anchor=\"middle\" class=\"tick\">{}</text>",
            y + 14.0,
            label(tick)
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"end\" class=\"axis\">{}</text>",
        x.at(hi),
        if name_below { y + 28.0 } else { y - 4.0 },
        escape(name)
    );
}

/// A horizontal reference line of [`line_chart`].
pub struct RefLine<'a> {
    /// Its value.
    pub value: f64,
    /// Its label, drawn at the right end.
    pub label: &'a str,
    /// Its colour.
    pub colour: &'a str,
}

/// What [`line_chart`] draws: the series, a band around it, reference lines and a marked x.
pub struct LineChart<'a> {
    /// For screen readers.
    pub title: &'a str,
    /// `(x, y)` points, x increasing.
    pub points: &'a [(f64, f64)],
    /// `(low, high)` at each point, shaded.
    pub band: Option<&'a [(f64, f64)]>,
    /// Horizontal lines.
    pub lines: &'a [RefLine<'a>],
    /// An x marked with a vertical line (e.g. where the SPRT decided), and its label.
    pub mark: Option<(f64, &'a str)>,
    /// Name of the x axis, written at its right end.
    pub x_name: &'a str,
    /// Name of the y axis, written at its top.
    pub y_name: &'a str,
    /// Colour of the line.
    pub colour: &'a str,
    /// The points (and band) at an x below this one are not drawn, once a point has reached
    /// it: an estimate's first games swing widely (one game pair gives an Elo of hundreds),
    /// and would squash the rest of the line or run off the plot. 0: every point is drawn.
    pub settle_x: f64,
}

/// Least vertical distance between two reference-line labels, pixels (a label is 11 px high).
const LABEL_GAP: f64 = 12.0;

/// An `<svg>` element: a line over `x` (games, from 0) with an optional shaded band,
/// reference lines and a marked x; the line starts at [`LineChart::settle_x`] (once a point
/// reached it), and so does the x axis, the y range covers it and the lines, and what lies outside is cut at the
/// plot's edge. The y axis's name stands above the plot, where no line runs through it; the
/// reference lines' labels are moved apart so that they never overlap. Without points it says
/// `no games yet`.
pub fn line_chart(chart: &LineChart<'_>) -> String {
    let (width, height) = (560.0, 260.0);
    let (left, right, top, bottom) = (48.0, 70.0, 26.0, 34.0);
    let mut svg = open(width, height, "line", chart.title);
    if chart.points.is_empty() {
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">no games yet</text></svg>",
            width / 2.0,
            height / 2.0
        );
        return svg;
    }
    // The first point drawn; every point when none has settled.
    let settled = chart
        .points
        .iter()
        .position(|p| p.0 >= chart.settle_x)
        .unwrap_or(0);
    let points = &chart.points[settled..];
    // The x axis starts where the line does: from 0, or from the first point drawn once the
    // early ones are left out (an Elo line from game 20 left the plot's first half empty).
    let x_min = match settled {
        0 => 0.0,
        _ => points.first().map_or(0.0, |p| p.0),
    };
    let x_max = chart.points.last().map_or(1.0, |p| p.0).max(x_min + 1.0);
    let band = chart.band.map(|band| &band[settled.min(band.len())..]);
    let mut ys: Vec<f64> = points.iter().map(|p| p.1).collect();
    ys.extend(chart.lines.iter().map(|l| l.value));
    if let Some(band) = band {
        ys.extend(band.iter().flat_map(|b| [b.0, b.1]));
    }
    ys.retain(|y| y.is_finite());
    let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pad = ((hi - lo) * 0.05).max(0.5);
    let (lo, hi) = (lo - pad, hi + pad);
    let x = Scale::new((x_min, x_max), (left, width - right));
    let y = Scale::new((lo, hi), (height - bottom, top));
    let plot = Plot {
        x,
        y,
        left,
        right: width - right,
        top,
        bottom: height - bottom,
    };
    y_axis(&mut svg, plot, lo, hi);
    axis_x(
        &mut svg,
        x,
        (x_min, x_max),
        top,
        height - bottom,
        chart.x_name,
        true,
    );
    // Above the plot: a line starting high at the left would run through it inside.
    let _ = write!(
        svg,
        "<text x=\"{left}\" y=\"{}\" class=\"axis\">{}</text>",
        top - 8.0,
        escape(chart.y_name)
    );
    // The series and its band in a viewport of the plot's height, which cuts what lies
    // outside the y range (the same coordinates: its viewBox is the part of the chart it
    // covers).
    let _ = write!(
        svg,
        "<svg x=\"0\" y=\"{top}\" width=\"{width}\" height=\"{plot_height}\" \
         viewBox=\"0 {top} {width} {plot_height}\" class=\"plot\">",
        plot_height = height - bottom - top
    );
    if let Some(band) = band {
        draw_band(&mut svg, plot, points, band, chart.colour);
    }
    let path: Vec<String> = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", x.at(p.0), y.at(p.1)))
        .collect();
    let _ = write!(
        svg,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" \
         class=\"series\"/></svg>",
        path.join(" "),
        chart.colour
    );
    let ats: Vec<f64> = chart.lines.iter().map(|l| y.at(l.value)).collect();
    let label_ats = spread(
        &ats,
        top + LABEL_GAP / 2.0,
        height - bottom - LABEL_GAP / 2.0,
    );
    for ((line, at), label_at) in chart.lines.iter().zip(ats).zip(label_ats) {
        draw_ref_line(&mut svg, plot, line, at, label_at);
    }
    if let Some((at, text)) = chart.mark {
        draw_mark(&mut svg, plot, at, text);
    }
    svg.push_str("</svg>");
    svg
}

/// Positions for labels wanted at `ats` (pixels, any order): each as near its own as it can
/// be, at least [`LABEL_GAP`] from every other, within `[low, high]` when they fit there.
fn spread(ats: &[f64], low: f64, high: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..ats.len()).collect();
    order.sort_by(|&a, &b| ats[a].total_cmp(&ats[b]));
    let mut placed = vec![0.0; ats.len()];
    // Downwards from the top, each below the one before; then back up from the bottom edge.
    let mut floor = low;
    for &i in &order {
        placed[i] = ats[i].max(floor);
        floor = placed[i] + LABEL_GAP;
    }
    let mut ceiling = high;
    for &i in order.iter().rev() {
        placed[i] = placed[i].min(ceiling);
        ceiling = placed[i] - LABEL_GAP;
    }
    placed
}

/// The drawing area of a [`line_chart`]: its scales and its edges, pixels.
#[derive(Clone, Copy, Debug)]
struct Plot {
    x: Scale,
    y: Scale,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

/// Horizontal grid lines with their labels on the left at round values over `[lo, hi]`.
fn y_axis(svg: &mut String, plot: Plot, lo: f64, hi: f64) {
    for tick in ticks(lo, hi, 6) {
        let at = plot.y.at(tick);
        let zero = if tick == 0.0 { " zero" } else { "" };
        let _ = write!(
            svg,
            "<line x1=\"{}\" x2=\"{:.1}\" y1=\"{at:.1}\" y2=\"{at:.1}\" class=\"grid{zero}\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" class=\"tick\">{}</text>",
            plot.left,
            plot.right,
            plot.left - 4.0,
            at + 4.0,
            label(tick)
        );
    }
}

/// The band `(low, high)` at each of `points`, shaded in `colour`.
fn draw_band(
    svg: &mut String,
    plot: Plot,
    points: &[(f64, f64)],
    band: &[(f64, f64)],
    colour: &str,
) {
    let (x, y) = (plot.x, plot.y);
    let upper = points
        .iter()
        .zip(band)
        .map(|(p, b)| format!("{:.1},{:.1}", x.at(p.0), y.at(b.1)));
    let lower = points
        .iter()
        .zip(band)
        .rev()
        .map(|(p, b)| format!("{:.1},{:.1}", x.at(p.0), y.at(b.0)));
    let all: Vec<String> = upper.chain(lower).collect();
    let _ = write!(
        svg,
        "<polygon points=\"{}\" fill=\"{colour}\" opacity=\"0.18\" class=\"band\"/>",
        all.join(" ")
    );
}

/// A dashed horizontal line across the plot, labelled at its right end.
/// `at` is the line's y and `label_at` its label's, pixels.
fn draw_ref_line(svg: &mut String, plot: Plot, line: &RefLine<'_>, at: f64, label_at: f64) {
    let _ = write!(
        svg,
        "<line x1=\"{}\" x2=\"{:.1}\" y1=\"{at:.1}\" y2=\"{at:.1}\" stroke=\"{}\" \
         stroke-dasharray=\"6 4\" class=\"bound\"/><text x=\"{:.1}\" y=\"{:.1}\" \
         class=\"tick\" fill=\"{}\">{}</text>",
        plot.left,
        plot.right,
        line.colour,
        plot.right + 4.0,
        label_at + 4.0,
        line.colour,
        escape(line.label)
    );
}

/// A dotted vertical line at `at` on the x scale, labelled `text` on its left, or on its
/// right when the label would not fit inside the plot on the left (a mark near the y axis,
/// whose tick labels it would cover).
fn draw_mark(svg: &mut String, plot: Plot, at: f64, text: &str) {
    let px = plot.x.at(at);
    // Half way up: the reference lines are labelled on the right, the axis at the bottom, and
    // a series that decided there is at a bound, not half way.
    let label_y = (plot.top + plot.bottom) / 2.0;
    let (label_x, anchor) = if px - 3.0 - text_width(text) >= plot.left {
        (px - 3.0, "end")
    } else {
        (px + 3.0, "start")
    };
    let _ = write!(
        svg,
        "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{}\" y2=\"{:.1}\" stroke=\"#555\" \
         stroke-dasharray=\"2 3\"/><text x=\"{label_x:.1}\" y=\"{label_y:.1}\" \
         text-anchor=\"{anchor}\" class=\"tick\">{}</text>",
        plot.top,
        plot.bottom,
        escape(text)
    );
}

/// The width of `text` (digits and signs) written in a chart's 11 px tick font, pixels, with a
/// pixel to spare each side (a digit is at most 0.7 em wide in the fonts the page names).
fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * 7.7 + 2.0
}

/// An `<svg>` element `width` pixels wide titled `title`: a vertical bar per count of `counts`
/// (scaled to the largest), the label of the same index of `labels` under it (none when
/// empty) and the count over it (left out for a 0 when there are more than 8 bars, and where
/// it would overlap the count before it); no text reaches past the chart's edges.
pub fn bars(title: &str, labels: &[String], counts: &[u64], colour: &str, width: u32) -> String {
    let (height, bottom, top) = (150.0, 30.0, 16.0);
    let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let slot = f64::from(width) / counts.len().max(1) as f64;
    let mut svg = open(f64::from(width), height, "bars", title);
    // The right end of the last count written: a count that would overlap it is left out
    // (narrow bars; the bar's height and the table say it).
    let mut written_to = f64::NEG_INFINITY;
    for (k, (&count, text)) in counts.iter().zip(labels).enumerate() {
        let h = (height - bottom - top) * count as f64 / max;
        let x0 = slot * k as f64;
        let _ = write!(
            svg,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{colour}\"/>",
            x0 + slot * 0.12,
            height - bottom - h,
            slot * 0.76
        );
        // Centred over its bar, but never past the chart's edges (a count wider than the first
        // or last bar would lose its outer digits); so are the labels under them.
        let half = text_width(&count.to_string()) / 2.0;
        let centre = (x0 + slot / 2.0).clamp(half, (f64::from(width) - half).max(half));
        if (count > 0 || counts.len() <= 8) && centre - half >= written_to {
            written_to = centre + half;
            let _ = write!(
                svg,
                "<text x=\"{centre:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"tick\">{count}</text>",
                height - bottom - h - 3.0
            );
        }
        if !text.is_empty() {
            let half = text_width(text) / 2.0;
            let centre = (x0 + slot / 2.0).clamp(half, (f64::from(width) - half).max(half));
            let _ = write!(
                svg,
                "<text x=\"{centre:.1}\" y=\"{}\" text-anchor=\"middle\" class=\"tick\">{}</text>",
                height - bottom + 14.0,
                escape(text)
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 100.0, 5), [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(ticks(-2.94, 2.94, 6), [-2.0, -1.0, 0.0, 1.0, 2.0]);
        assert_eq!(label(2.5), "2.5");
        assert_eq!(label(-40.0), "-40");
    }

    #[test]
    fn names_are_escaped_and_bars_have_whiskers() {
        let svg = rating_bars(
            "Elo",
            &[
                RatingBar {
                    name: "<a & b>",
                    elo: Some(100.0),
                    error95: Some(30.0),
                    note: "",
                },
                RatingBar {
                    name: "c",
                    elo: None,
                    error95: None,
                    note: "",
                },
                // A bound: its bar, no whiskers, no ±.
                RatingBar {
                    name: "d",
                    elo: Some(-441.4),
                    error95: None,
                    note: "<",
                },
            ],
        );
        assert!(svg.contains("&lt;a &amp; b&gt;"), "{svg}");
        assert!(!svg.contains("<a &"));
        assert_eq!(svg.matches("class=\"whisker\"").count(), 1);
        assert!(svg.contains(">+100.0 ± 30.0</text>"));
        assert!(svg.contains(">&lt;-441.4</text>"), "{svg}");
    }

    #[test]
    fn a_line_chart_draws_band_bounds_and_mark() {
        let points = [(1.0, 0.5), (2.0, 1.5), (4.0, 3.0)];
        let band = [(0.0, 1.0), (1.0, 2.0), (2.5, 3.5)];
        let lines = [
            RefLine {
                value: -2.94,
                label: "H0",
                colour: "#c00",
            },
            RefLine {
                value: 2.94,
                label: "H1",
                colour: "#070",
            },
        ];
        let svg = line_chart(&LineChart {
            title: "LLR",
            points: &points,
            band: Some(&band),
            lines: &lines,
            mark: Some((4.0, "H1 accepted")),
            x_name: "games",
            y_name: "LLR",
            colour: PALETTE[0],
            settle_x: 0.0,
        });
        assert_eq!(svg.matches("class=\"bound\"").count(), 2);
        assert_eq!(svg.matches("class=\"band\"").count(), 1);
        assert!(svg.contains("H1 accepted"));
        assert!(svg.ends_with("</svg>"));
        let empty = line_chart(&LineChart {
            title: "x",
            points: &[],
            band: None,
            lines: &[],
            mark: None,
            x_name: "",
            y_name: "",
            colour: "#000",
            settle_x: 0.0,
        });
        assert!(empty.contains("no games yet"));
    }

    #[test]
    fn labels_are_spread_apart_within_the_plot() {
        assert_eq!(spread(&[100.0, 101.0], 0.0, 200.0), [100.0, 112.0]);
        // Near the bottom edge they move up, in their order.
        assert_eq!(spread(&[196.0, 195.0], 0.0, 200.0), [200.0, 188.0]);
        // Apart already: left where they are.
        assert_eq!(spread(&[50.0, 10.0], 0.0, 200.0), [50.0, 10.0]);
    }

    /// Tick labels of a chart's y axis (those left of the plot).
    fn y_ticks(svg: &str) -> Vec<f64> {
        svg.split("text-anchor=\"end\" class=\"tick\">")
            .skip(1)
            .filter_map(|rest| rest.split('<').next()?.parse().ok())
            .collect()
    }

    #[test]
    fn the_y_range_follows_the_settled_series_and_cuts_the_early_swing() {
        let points = [(2.0, 1200.0), (4.0, -400.0), (20.0, 10.0), (40.0, 12.0)];
        let lines = [
            RefLine {
                value: 0.0,
                label: "elo0",
                colour: "#b00",
            },
            RefLine {
                value: 5.0,
                label: "elo1",
                colour: "#070",
            },
        ];
        let chart = |settle_x| {
            line_chart(&LineChart {
                title: "Elo",
                points: &points,
                band: None,
                lines: &lines,
                mark: None,
                x_name: "games",
                y_name: "Elo",
                colour: PALETTE[0],
                settle_x,
            })
        };
        let settled = y_ticks(&chart(20.0));
        assert!(!settled.is_empty());
        assert!(
            settled.iter().all(|&t| (-1.0..=13.0).contains(&t)),
            "{settled:?}"
        );
        let all = y_ticks(&chart(0.0));
        assert!(all.iter().any(|&t| t >= 1000.0), "{all:?}");
        // The labels of elo0 and elo1 (5 Elo apart on a scale of 13) are 12 px apart at least.
        let svg = chart(20.0);
        let label_y = |label: &str| -> f64 {
            let end = svg.find(&format!(">{label}</text>")).unwrap();
            let start = svg[..end].rfind(" y=\"").unwrap() + 4;
            svg[start..].split('"').next().unwrap().parse().unwrap()
        };
        assert!((label_y("elo0") - label_y("elo1")).abs() >= LABEL_GAP - 1e-9);
        // The early swing is not drawn: the series starts at game 20; the rest is inside a
        // viewport that cuts it at the plot's edges.
        let series = svg.split("class=\"series\"").next().unwrap();
        let points = series.rsplit("points=\"").next().unwrap();
        let points = points.split('"').next().unwrap();
        assert_eq!(points.split_whitespace().count(), 2, "{points}");
        // The x axis starts at the first point drawn: at the plot's left edge (issue 39: the
        // axis from game 0 left the first half of the plot empty).
        let first_x: f64 = points.split(',').next().unwrap().parse().unwrap();
        assert_eq!(first_x, 48.0, "{points}");
        assert!(svg.contains(">20</text>"), "no tick at game 20: {svg}");
        assert_eq!(svg.matches("class=\"plot\"").count(), 1);
        assert_eq!(svg.matches("<svg").count(), 2);
    }
}
