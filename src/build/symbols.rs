//! Finding a kernel in a CUBIN by the name the suite gave it. nvcc names
//! no kernel for us: its CUBIN holds mangled symbols
//! (`_Z7reduce6ILj256ELb1EEvPKfPfj`), so the entry functions are read from
//! the ELF (each has a `.nv.info.<symbol>` section), demangled, and matched
//! against the entry with spacing, integer suffixes (`256u`), `true` /
//! `false` and the spellings of common types (`half`, `uint32_t`,
//! `unsigned`) made alike on both sides.

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

/// A C++ symbol as C++ reads it with its parameters
/// (`reduce6<256u, true>(float const*, float*, unsigned int)`); `None` for
/// a C symbol, which carries no parameter types.
pub fn demangled_with_parameters(symbol: &str) -> Option<String> {
    let options = DemangleOptions::new().no_return_type();
    Symbol::new(symbol)
        .ok()?
        .demangle_with_options(&options)
        .ok()
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
    let compact: String = canonical_types(name)
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

/// Type names a demangler spells otherwise, as it spells them: the fixed
/// width integers of a 64-bit Linux host (`int64_t` is `long`), the CUDA
/// headers' 2-byte floats (`half` is `__half`), `uint`, and integer types
/// with words a demangler leaves out (`unsigned` is `unsigned int`,
/// `long int` is `long`).
const SPELLED_AS: [(&str, &str); 16] = [
    ("half", "__half"),
    ("nv_bfloat16", "__nv_bfloat16"),
    ("uint", "unsigned int"),
    ("int8_t", "signed char"),
    ("uint8_t", "unsigned char"),
    ("int16_t", "short"),
    ("uint16_t", "unsigned short"),
    ("int32_t", "int"),
    ("uint32_t", "unsigned int"),
    ("int64_t", "long"),
    ("uint64_t", "unsigned long"),
    ("size_t", "unsigned long"),
    ("ptrdiff_t", "long"),
    ("intptr_t", "long"),
    ("uintptr_t", "unsigned long"),
    ("ushort", "unsigned short"),
];

/// `name` with each type spelled as a demangler spells it
/// ([`SPELLED_AS`]; `std::` before one dropped; `unsigned` alone given its
/// `int`, `signed` left out except before `char`, and `int` after `short`
/// or `long` left out).
fn canonical_types(name: &str) -> String {
    let pieces: Vec<&str> = {
        let mut pieces = Vec::new();
        let mut start = 0;
        let mut in_word = false;
        for (at, c) in name.char_indices() {
            let word_char = c.is_alphanumeric() || c == '_';
            if at > start && word_char != in_word {
                pieces.push(&name[start..at]);
                start = at;
            }
            in_word = word_char;
        }
        pieces.push(&name[start..]);
        pieces
    };
    let is_word = |p: &str| p.starts_with(|c: char| c.is_alphabetic() || c == '_');
    let next_word = |from: usize| pieces[from..].iter().find(|p| p.trim() != "").copied();
    let mut out = String::with_capacity(name.len());
    for (at, piece) in pieces.iter().enumerate() {
        if !is_word(piece) {
            if *piece == "::" && at > 0 && pieces[at - 1] == "std" {
                continue;
            }
            out.push_str(piece);
            continue;
        }
        let following = next_word(at + 1);
        match *piece {
            "std" if following == Some("::") => {}
            "unsigned" if !matches!(following, Some("int" | "char" | "short" | "long")) => {
                out.push_str("unsigned int");
            }
            "signed" if following != Some("char") => {
                if !matches!(following, Some("int" | "short" | "long")) {
                    out.push_str("int");
                }
            }
            "int" if out.trim_end().ends_with("long") || out.trim_end().ends_with("short") => {}
            word => out.push_str(
                SPELLED_AS
                    .iter()
                    .find(|(spelling, _)| *spelling == word)
                    .map_or(word, |(_, demangled)| demangled),
            ),
        }
    }
    out
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
        let typed = [
            "_Z3mulI6__halfEvPT_S2_S2_".to_string(),
            "_Z4scanIjLi8EEvPT_".to_string(),
            "_Z4scanImLi8EEvPT_".to_string(),
            "_Z4scanIaLi8EEvPT_".to_string(),
            "_Z4scanIxLi8EEvPT_".to_string(),
        ];
        assert_eq!(demangled(&typed[0]), "mul<__half>");
        for (entry, index) in [
            ("mul<half>", 0),
            ("mul<__half>", 0),
            ("scan<unsigned, 8>", 1),
            ("scan<uint32_t, 8>", 1),
            ("scan<unsigned int, 8>", 1),
            ("scan<std::size_t, 8>", 2),
            ("scan<unsigned long int, 8>", 2),
            ("scan<int8_t, 8>", 3),
            ("scan<long long, 8>", 4),
        ] {
            assert_eq!(find(&typed, entry), Ok(typed[index].clone()), "{entry}");
        }
        assert!(find(&typed, "scan<int, 8>").is_err());
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
