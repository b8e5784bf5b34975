//! Finding a kernel in a CUBIN by the name the suite gave it. nvcc names
//! no kernel for us: its CUBIN holds mangled symbols
//! (`_Z7reduce6ILj256ELb1EEvPKfPfj`), so the entry functions are read from
//! the ELF (each has a `.nv.info.<symbol>` section), demangled, and matched
//! against the entry with spacing, integer suffixes (`256u`), `true` /
//! `false` and the spellings of common types (`half`, `uint32_t`,
//! `unsigned`) made alike on both sides; failing that, the one instance of
//! the template whose leading arguments are the entry's (defaulted ones
//! left out) and of the same value (`128 / sizeof(float) / 8` is 4).

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
    let exact = readable.iter().position(|name| comparable(name) == wanted);
    match exact.or_else(|| by_leading_arguments(&readable, entry)) {
        Some(index) => Ok(symbols[index].clone()),
        None => Err(readable),
    }
}

/// Without an exact match: the one instance of the same template whose
/// leading arguments are the entry's, each alike or of the same value
/// (`k<float, 32>` is `k<float, 32ul, 0ul>` where the template gives the
/// last a default; `128 / sizeof(float) / 8` is `4ul`).
fn by_leading_arguments(readable: &[String], entry: &str) -> Option<usize> {
    let base = |name: &str| comparable(name.split('<').next().unwrap_or(name));
    let wanted = crate::config::signature::instance_arguments(entry).ok()?;
    if wanted.is_empty() {
        return None;
    }
    let same = |ours: &str, theirs: &str| {
        comparable(ours) == comparable(theirs)
            || value_of(ours).is_some_and(|value| value_of(theirs) == Some(value))
    };
    let matching: Vec<usize> = (0..readable.len())
        .filter(|&index| base(&readable[index]) == base(entry))
        .filter(|&index| {
            let theirs =
                crate::config::signature::instance_arguments(&readable[index]).unwrap_or_default();
            theirs.len() >= wanted.len()
                && wanted
                    .iter()
                    .zip(&theirs)
                    .all(|(ours, theirs)| same(ours, theirs))
        })
        .collect();
    match matching.as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// The value of a template argument written as arithmetic on numbers and
/// the sizes of scalar types (`128 / sizeof(float) / 8`), or a number with
/// a cast or suffix (`(unsigned long)4`, `4ul`).
fn value_of(argument: &str) -> Option<f64> {
    let sizeof = regex::Regex::new(r"sizeof\(([^()]*)\)").expect("a valid pattern");
    let sized = sizeof.replace_all(argument, |c: &regex::Captures| {
        crate::config::signature::size_of(&c[1], &[])
            .map_or_else(|| c[0].to_string(), |bytes| bytes.to_string())
    });
    let text = comparable(&sized);
    let expression = crate::config::expr::parse(&text).ok()?;
    expression.eval(&text, &Default::default()).ok()
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
    fn an_instance_without_its_defaulted_arguments_or_written_as_arithmetic_is_found() {
        let symbols = [
            "_Z20transpose_shm_kernelIfLm32ELm16ELm0EEvPT_PKS0_ii".to_string(),
            "_Z22vectorized_copy_kernelIfLm4EEvPKT_PS0_m".to_string(),
        ];
        assert_eq!(
            demangled(&symbols[0]),
            "transpose_shm_kernel<float, (unsigned long)32, (unsigned long)16, (unsigned long)0>"
        );
        for (entry, index) in [
            ("transpose_shm_kernel<float, 32, 16>", 0),
            ("transpose_shm_kernel<float, 32>", 0),
            ("vectorized_copy_kernel<float, 128 / sizeof(float) / 8>", 1),
            ("vectorized_copy_kernel<float, 2 * 2>", 1),
            (
                "vectorized_copy_kernel<float, 16 / sizeof(unsigned int)>",
                1,
            ),
            ("vectorized_copy_kernel<float, sizeof(half) * 2>", 1),
        ] {
            assert_eq!(find(&symbols, entry), Ok(symbols[index].clone()), "{entry}");
        }
        for entry in [
            "transpose_shm_kernel<float, 16>",
            "transpose_shm_kernel<double, 32, 16>",
            "vectorized_copy_kernel<float, 128 / sizeof(double) / 8>",
        ] {
            assert!(find(&symbols, entry).is_err(), "{entry}");
        }
        // Two instances that the entry's leading arguments both fit: none.
        let two = [
            "_Z20transpose_shm_kernelIfLm32ELm16ELm0EEvPT_PKS0_ii".to_string(),
            "_Z20transpose_shm_kernelIfLm32ELm16ELm1EEvPT_PKS0_ii".to_string(),
        ];
        assert!(find(&two, "transpose_shm_kernel<float, 32, 16>").is_err());
        assert!(find(&two, "transpose_shm_kernel<float, 32, 16, 1>").is_ok());
    }

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
