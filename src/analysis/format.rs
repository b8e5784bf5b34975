//! Number formatting shared by the explanations (analysis) and the tables
//! and chart values (render): one place decides how a time, a byte count
//! or a ratio reads. The charts' axis ticks and the roofline's key and ridge
//! label are the exception: `render::charts` writes those in its own,
//! shorter SI form ("10k", "4.8 TB/s") so that they fit between grid lines.

/// `4187806` → `4,187,806`.
pub fn count(value: f64) -> String {
    if !value.is_finite() {
        return "–".into();
    }
    let rounded = value.round();
    if (value - rounded).abs() > 1e-9 && value.abs() < 1000.0 {
        return significant(value, 3);
    }
    let digits = format!("{:.0}", rounded.abs());
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if rounded < 0.0 {
        format!("-{grouped}")
    } else {
        grouped
    }
}

/// `count` and `noun`, the noun in the plural unless the count is one:
/// "1 size", "2 sizes".
pub fn counted(count: usize, noun: &str) -> String {
    format!("{count} {noun}{}", if count == 1 { "" } else { "s" })
}

/// `names` joined by commas, or, when there are more than four, the first
/// three and how many more: "a, b, c and 25 more".
pub fn names_briefly(names: &[String]) -> String {
    match names.len() {
        0..=4 => names.join(", "),
        count => format!("{} and {} more", names[..3].join(", "), count - 3),
    }
}

/// `text` with its first letter in upper case.
pub fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Three significant digits without exponent: `31.95` → `32.0`, `1.068` → `1.07`.
pub fn significant(value: f64, digits: usize) -> String {
    if !value.is_finite() {
        return "–".into();
    }
    if value == 0.0 {
        return "0".into();
    }
    let magnitude = value.abs().log10().floor() as i64;
    let decimals = (digits as i64 - 1 - magnitude).max(0) as usize;
    format!("{value:.decimals$}")
}

pub fn ratio(value: f64) -> String {
    significant(value, 3)
}

pub fn percent(value: f64) -> String {
    format!("{}%", significant(value, 3))
}

/// A share (0.85) as a percentage (`85.0%`).
pub fn share(fraction: f64) -> String {
    percent(fraction * 100.0)
}

/// ncu's waves per SM as a number of waves: ncu prints it to two
/// decimals, so a grid far smaller than one wave reads 0, shown as
/// `under 0.01`.
pub fn waves(waves: f64) -> String {
    match waves < 0.005 {
        true => "under 0.01".into(),
        false => ratio(waves),
    }
}

/// ncu's waves per SM as a share of one wave (`24.0%`; `under 0.5%` where
/// ncu printed 0, see [`waves`]).
pub fn wave_share(waves: f64) -> String {
    match waves < 0.005 {
        true => "under 0.5%".into(),
        false => share(waves),
    }
}

pub fn speedup(value: f64) -> String {
    format!("{}×", significant(value, 3))
}

/// Milliseconds in the unit that reads best: `0.0704` → `70.4 µs`.
pub fn milliseconds(ms: f64) -> String {
    nanoseconds(ms * 1e6)
}

pub fn nanoseconds(ns: f64) -> String {
    let (value, unit) = if ns.abs() >= 1e9 {
        (ns / 1e9, "s")
    } else if ns.abs() >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns.abs() >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    format!("{} {unit}", significant(value, 3))
}

fn scaled(value: f64, unit: &str) -> String {
    let prefixes = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, prefix) in prefixes {
        if value.abs() >= scale {
            return format!("{} {prefix}{unit}", significant(value / scale, 3));
        }
    }
    format!("{} {unit}", significant(value, 3))
}

/// Decimal bytes: `16781312` → `16.8 MB`.
pub fn bytes(value: f64) -> String {
    scaled(value, "B")
}

pub fn bytes_per_second(value: f64) -> String {
    scaled(value, "B/s")
}

pub fn flops_per_second(value: f64) -> String {
    scaled(value, "FLOP/s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_of_names_are_cut_to_three_and_a_count() {
        let names =
            |count: usize| -> Vec<String> { (1..=count).map(|i| format!("v{i}")).collect() };
        assert_eq!(names_briefly(&names(1)), "v1");
        assert_eq!(names_briefly(&names(4)), "v1, v2, v3, v4");
        assert_eq!(names_briefly(&names(28)), "v1, v2, v3 and 25 more");
    }

    #[test]
    fn numbers_read_like_a_person_wrote_them() {
        assert_eq!(count(4187806.0), "4,187,806");
        assert_eq!(count(131072.0), "131,072");
        assert_eq!(count(999.0), "999");
        assert_eq!(count(-1234.0), "-1,234");
        assert_eq!(count(0.5), "0.500");
        assert_eq!(ratio(31.9509), "32.0");
        assert_eq!(ratio(1.0681), "1.07");
        assert_eq!(ratio(0.0), "0");
        assert_eq!(percent(85.811), "85.8%");
        assert_eq!(share(0.8512), "85.1%");
        assert_eq!(speedup(3.2215), "3.22×");
        assert_eq!(milliseconds(0.0704), "70.4 µs");
        assert_eq!(milliseconds(2.5), "2.50 ms");
        assert_eq!(nanoseconds(11552.0), "11.6 µs");
        assert_eq!(bytes(16781312.0), "16.8 MB");
        assert_eq!(bytes(4096.0), "4.10 kB");
        assert_eq!(bytes_per_second(4.3e12), "4.30 TB/s");
        assert_eq!(flops_per_second(25.1e12), "25.1 TFLOP/s");
        assert_eq!(count(f64::NAN), "–");
    }
}
