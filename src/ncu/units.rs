//! Numbers as Nsight Compute prints them: thousands separators (`131,072`)
//! and display units chosen per column (`us`, `Mbyte`, `Kbyte/block`,
//! `Tbyte/s`, `Ghz`). Everything is normalised to base units (ns, byte,
//! byte/s, hz) so that an export made with or without `--print-units base`
//! reads the same.

/// A number from an ncu CSV field: `Ok(None)` for text fields
/// (`PolicySpread`, `(32, 8, 1)`) and empty or `n/a` fields, `Err` with the
/// reason for a field that looks numeric but is not in ncu's format (a
/// decimal comma from a localized export, for instance).
pub fn parse_number(field: &str) -> Result<Option<f64>, String> {
    let trimmed = field.trim();
    if looks_like_ncu_number(trimmed) {
        if trimmed.contains(',') && !has_thousands_grouping(trimmed) {
            return Err(localized(trimmed));
        }
        let digits: String = trimmed.chars().filter(|c| *c != ',').collect();
        return match digits.parse::<f64>() {
            Ok(value) if value.is_finite() => Ok(Some(value)),
            _ => Err(format!("`{trimmed}` is not a finite number")),
        };
    }
    if looks_like_grouped_digits(trimmed) || looks_like_decimal_comma(trimmed) {
        return Err(localized(trimmed));
    }
    Ok(None)
}

fn localized(text: &str) -> String {
    format!(
        "`{text}` is not a number in ncu's format (digits grouped by commas, a point before decimals); \
         it looks like a localized export: export again with LC_ALL=C"
    )
}

/// `[-+]digits-and-commas[.digits][e[-+]digits]` with at least one digit.
fn looks_like_ncu_number(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (unsigned, None),
    };
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let exponent_ok = exponent.is_none_or(|e| {
        let digits = e.strip_prefix(['-', '+']).unwrap_or(e);
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
    });
    integer.chars().all(|c| c.is_ascii_digit() || c == ',')
        && fraction.chars().all(|c| c.is_ascii_digit())
        && (integer.chars().any(|c| c.is_ascii_digit()) || !fraction.is_empty())
        && exponent_ok
}

/// `1 234`, `1'234` or `1 234` (no-break space): digits grouped by a space
/// or an apostrophe, the way a localized export writes them.
fn looks_like_grouped_digits(text: &str) -> bool {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    unsigned.contains([' ', '\'', '\u{a0}', '\u{202f}'])
        && unsigned.chars().next().is_some_and(|c| c.is_ascii_digit())
        && unsigned.chars().all(|c| {
            c.is_ascii_digit() || matches!(c, ' ' | '\'' | '\u{a0}' | '\u{202f}' | '.' | ',')
        })
}

/// `1.234,56` or `0,5`: digits and points, one comma, digits.
fn looks_like_decimal_comma(text: &str) -> bool {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    match unsigned.split_once(',') {
        Some((before, after)) => {
            !before.is_empty()
                && !after.is_empty()
                && before.chars().all(|c| c.is_ascii_digit() || c == '.')
                && after.chars().all(|c| c.is_ascii_digit())
        }
        None => false,
    }
}

/// `131,072` and `1,954,954,594.02` are grouped; `1,5` and `1.234,5` are not.
fn has_thousands_grouping(text: &str) -> bool {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let integer = unsigned.split('.').next().unwrap_or("");
    if unsigned[integer.len()..].contains(',') {
        return false;
    }
    let mut groups = integer.split(',');
    let first = groups.next().unwrap_or("");
    (1..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_digit())
        && groups.all(|g| g.len() == 3 && g.chars().all(|c| c.is_ascii_digit()))
}

/// Converts `value` in `unit` to base units, returning the base unit's name.
/// Units gpuprof does not know are returned unchanged.
pub fn to_base(value: f64, unit: &str) -> (f64, String) {
    let (numerator, per) = match unit.split_once('/') {
        Some((n, d)) => (n, Some(d)),
        None => (unit, None),
    };
    let (scale, base) = scale_of(numerator);
    match per {
        None => (value * scale, base.to_string()),
        Some(denominator) => match scale_of(denominator) {
            // Rates are per second, not per nanosecond.
            (denominator_scale, "ns") => (
                value * scale / (denominator_scale / 1e9),
                format!("{base}/s"),
            ),
            (denominator_scale, denominator_base) => (
                value * scale / denominator_scale,
                format!("{base}/{denominator_base}"),
            ),
        },
    }
}

fn scale_of(unit: &str) -> (f64, &str) {
    const TIME: [(&str, f64); 8] = [
        ("ns", 1.0),
        ("nsecond", 1.0),
        ("us", 1e3),
        ("usecond", 1e3),
        ("ms", 1e6),
        ("msecond", 1e6),
        ("s", 1e9),
        ("second", 1e9),
    ];
    if let Some((_, scale)) = TIME.iter().find(|(name, _)| *name == unit) {
        return (*scale, "ns");
    }
    for (base, canonical) in [("byte", "byte"), ("hz", "hz"), ("Hz", "hz")] {
        if let Some(prefix) = unit.strip_suffix(base) {
            let scale = match prefix {
                "" => 1.0,
                "K" | "k" => 1e3,
                "M" => 1e6,
                "G" => 1e9,
                "T" => 1e12,
                "P" => 1e15,
                _ => continue,
            };
            return (scale, canonical);
        }
    }
    (1.0, unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_with_thousands_separators() {
        assert_eq!(parse_number("131,072"), Ok(Some(131072.0)));
        assert_eq!(parse_number("1,954,954,594.02"), Ok(Some(1954954594.02)));
        assert_eq!(parse_number("0.000000"), Ok(Some(0.0)));
        assert_eq!(parse_number("-3.5"), Ok(Some(-3.5)));
        assert_eq!(parse_number("-1,024"), Ok(Some(-1024.0)));
        assert_eq!(parse_number("1e3"), Ok(Some(1000.0)));
    }

    #[test]
    fn text_fields_are_not_numbers() {
        for text in [
            "",
            "n/a",
            "PolicySpread",
            "(32, 8, 1)",
            "all",
            "-",
            "NVIDIA H200",
            "127.0.0.1",
            "1..2",
        ] {
            assert_eq!(parse_number(text), Ok(None), "{text:?}");
        }
    }

    #[test]
    fn localized_and_broken_numbers_are_errors() {
        for text in ["1,5", "1.234,56", "12,34", "1,2345", "0,000001", "1e999"] {
            let error = parse_number(text).unwrap_err();
            assert!(error.contains(text.trim()), "{error}");
        }
        assert!(parse_number("1.234,56").unwrap_err().contains("LC_ALL=C"));
    }

    #[test]
    fn display_units_become_base_units() {
        assert_eq!(to_base(11.552, "us"), (11552.0, "ns".to_string()));
        assert_eq!(
            to_base(16.781312, "Mbyte"),
            (16781312.0, "byte".to_string())
        );
        assert_eq!(
            to_base(4.096, "Kbyte/block"),
            (4096.0, "byte/block".to_string())
        );
        assert_eq!(to_base(1.5, "Ghz"), (1.5e9, "hz".to_string()));
        assert_eq!(to_base(2.5, "Tbyte/s"), (2.5e12, "byte/s".to_string()));
        assert_eq!(to_base(3.0, "Gbyte/second"), (3e9, "byte/s".to_string()));
        assert_eq!(to_base(3.0, "sector"), (3.0, "sector".to_string()));
        assert_eq!(to_base(7.0, ""), (7.0, String::new()));
    }
}
