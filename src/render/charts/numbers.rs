//! How numbers read on the charts: three significant digits and SI
//! prefixes, for axis ticks ("10k", "100T") and the roofline's key and
//! ridge ("4.8 TB/s"). The report's tables and explanations format their
//! numbers with `analysis::format` instead; the charts keep their own,
//! shorter forms because tick labels must fit between grid lines.

/// Three significant digits, trailing zeros dropped: 12.5, 0.0125, 1250.
pub(super) fn sig3(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

const SI: [(f64, &str); 6] = [
    (1e18, "E"),
    (1e15, "P"),
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
];

fn si_parts(v: f64) -> (String, &'static str) {
    SI.iter()
        .find(|(scale, _)| v.abs() >= *scale)
        .map_or((sig3(v), ""), |(scale, prefix)| (sig3(v / scale), prefix))
}

/// Tick-style number: 0.01, 1, 10k, 100T.
pub(super) fn compact(v: f64) -> String {
    let (number, prefix) = si_parts(v);
    format!("{number}{prefix}")
}

/// Quantity with a unit: "67 TFLOP/s", "4.8 TB/s".
pub(super) fn si_unit(v: f64, unit: &str) -> String {
    let (number, prefix) = si_parts(v);
    format!("{number} {prefix}{unit}")
}
