//! Finding a kernel in a CUBIN by the name the suite gave it. nvcc names
//! no kernel for us: its CUBIN holds mangled symbols
//! (`_Z7reduce6ILj256ELb1EEvPKfPfj`), so the entry functions are read from
//! the ELF (each has a `.nv.info.<symbol>` section), demangled, and matched
//! against the entry with spacing, integer suffixes (`256u`) and `true` /
//! `false` made alike on both sides.

use cpp_demangle::{DemangleOptions, Symbol};
use object::{Object, ObjectSection};

/// The entry functions (kernels) of a CUBIN, by symbol.
pub fn kernels_in(cubin: &[u8]) -> Result<Vec<String>, String> {
    let file =
        object::File::parse(cubin).map_err(|e| format!("the CUBIN could not be read: {e}"))?;
    Ok(file
        .sections()
        .filter_map(|section| {
            section
                .name()
                .ok()
                .and_then(|name| name.strip_prefix(".nv.info."))
                .map(str::to_string)
        })
        .collect())
}

/// A symbol as C++ reads it, without return type or parameters:
/// `reduce6<256u, true>`; a C symbol as it is.
pub fn demangled(symbol: &str) -> String {
    let options = DemangleOptions::new().no_params().no_return_type();
    Symbol::new(symbol)
        .ok()
        .and_then(|parsed| parsed.demangle_with_options(&options).ok())
        .unwrap_or_else(|| symbol.to_string())
}

/// The symbol among `symbols` that `entry` names (`reduce6<256, true>`,
/// `ns::kernel`, `copy`); the kernels there are otherwise, demangled.
pub fn find(symbols: &[String], entry: &str) -> Result<String, Vec<String>> {
    let wanted = comparable(entry);
    let readable: Vec<String> = symbols.iter().map(|s| demangled(s)).collect();
    match readable.iter().position(|name| comparable(name) == wanted) {
        Some(index) => Ok(symbols[index].clone()),
        None => Err(readable),
    }
}

/// `entry` with what may differ between how people and demanglers write it
/// taken out: spaces, anonymous namespaces (the file's own code names their
/// kernels without one), integer suffixes, C-style casts of numbers and
/// `true` / `false`.
fn comparable(name: &str) -> String {
    let compact: String = name
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .replace("(anonymousnamespace)::", "");
    let casts = regex::Regex::new(r"\([A-Za-z_:]+\)(-?\d)").expect("a valid pattern");
    let suffixes =
        regex::Regex::new(r"(\d)(?:[uU][lL]{0,2}|[lL]{1,2}[uU]?)\b").expect("a valid pattern");
    let booleans = regex::Regex::new(r"\b(true|false)\b").expect("a valid pattern");
    let without_casts = casts.replace_all(&compact, "$1");
    let without_suffixes = suffixes.replace_all(&without_casts, "$1");
    booleans
        .replace_all(&without_suffixes, |c: &regex::Captures| match &c[1] {
            "true" => "1",
            _ => "0",
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_match_demangled_symbols_however_they_are_spelled() {
        let symbols = [
            "_Z7reduce6ILj256ELb1EEvPKfPfj".to_string(),
            "_ZN2ns6reduceILi256ELb1EEEvPKfPfi".to_string(),
            "_Z5plainPf".to_string(),
            "copy_reference".to_string(),
            "_ZN12_GLOBAL__N_16hiddenEPf".to_string(),
            "_ZN2ns12_GLOBAL__N_15innerEPf".to_string(),
        ];
        assert_eq!(demangled(&symbols[0]), "reduce6<(unsigned int)256, true>");
        for (entry, index) in [
            ("reduce6<256, true>", 0),
            ("reduce6<256u,true>", 0),
            ("reduce6<256, 1>", 0),
            ("ns::reduce<256, true>", 1),
            ("plain", 2),
            ("copy_reference", 3),
            ("hidden", 4),
            ("ns::inner", 5),
        ] {
            assert_eq!(find(&symbols, entry), Ok(symbols[index].clone()), "{entry}");
        }
        let missing = find(&symbols, "reduce6<128, true>").unwrap_err();
        assert_eq!(
            missing,
            [
                "reduce6<(unsigned int)256, true>",
                "ns::reduce<256, true>",
                "plain",
                "copy_reference",
                "(anonymous namespace)::hidden",
                "ns::(anonymous namespace)::inner"
            ]
        );
    }
}
