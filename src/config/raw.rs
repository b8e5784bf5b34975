//! The serde mirror of variants.toml: exactly the keys the file may contain
//! (unknown keys are refused by `deny_unknown_fields`), with the source span
//! of every value a later error may point at. Nothing is checked or defaulted
//! here beyond what TOML types say; `resolve` does that.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Unexpected, Visitor};
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a variants.toml document")]
pub(crate) struct RawFile {
    pub(crate) version: Option<Spanned<i64>>,
    pub(crate) suite: Spanned<RawSuite>,
    pub(crate) profile: Option<RawProfile>,
    pub(crate) defaults: Option<Spanned<RawVariant>>,
    #[serde(default)]
    pub(crate) variant: Vec<Spanned<RawVariant>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a [suite] table with name, sizes and baseline")]
pub(crate) struct RawSuite {
    pub(crate) name: Spanned<String>,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) sizes: Spanned<Vec<Spanned<RawSize>>>,
    pub(crate) constants: Option<SymbolTable>,
    pub(crate) baseline: Spanned<String>,
    pub(crate) warmup: Option<u32>,
    pub(crate) repetitions: Option<Spanned<u32>>,
    pub(crate) target_spread: Option<Spanned<f64>>,
    pub(crate) time_limit: Option<Spanned<f64>>,
    pub(crate) seed: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a [profile] table")]
pub(crate) struct RawProfile {
    pub(crate) clock_control: Option<Spanned<String>>,
    pub(crate) lines_at: Option<Spanned<String>>,
    pub(crate) sweeps: Option<Spanned<toml::Value>>,
}

/// A `[[variant]]` or the `[defaults]` (where `name` is refused later, so
/// that the error can say why). Every key is optional because any of them
/// may come from `[defaults]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a table of variant keys")]
pub(crate) struct RawVariant {
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) source: Option<Spanned<String>>,
    pub(crate) entry: Option<Spanned<String>>,
    pub(crate) role: Option<Spanned<String>>,
    pub(crate) changes: Option<Vec<Spanned<String>>>,
    pub(crate) notes: Option<Spanned<String>>,
    pub(crate) verify: Option<Spanned<String>>,
    pub(crate) tolerance: Option<RawTolerance>,
    pub(crate) grid: Option<Spanned<Vec<Spanned<ExprSource>>>>,
    pub(crate) block: Option<Spanned<Vec<Spanned<ExprSource>>>>,
    pub(crate) shared_bytes: Option<Spanned<ExprSource>>,
    pub(crate) compile_options: Option<Vec<Spanned<String>>>,
    pub(crate) compiler: Option<Spanned<String>>,
    pub(crate) device_only: Option<Spanned<bool>>,
    pub(crate) include_dirs: Option<Vec<Spanned<String>>>,
    pub(crate) defines: Option<Spanned<BTreeMap<String, Spanned<ExprSource>>>>,
    pub(crate) sequence: Option<Spanned<Vec<Spanned<RawStep>>>>,
    pub(crate) args: Option<Vec<Spanned<RawArg>>>,
    pub(crate) bytes: Option<Spanned<ExprSource>>,
    pub(crate) flops: Option<Spanned<ExprSource>>,
    pub(crate) library: Option<Spanned<RawLibrary>>,
    pub(crate) command: Option<Spanned<Vec<Spanned<String>>>>,
    pub(crate) build: Option<Vec<String>>,
    pub(crate) kernel: Option<Spanned<String>>,
    pub(crate) launches: Option<Spanned<i64>>,
    pub(crate) expect: Option<Spanned<String>>,
    pub(crate) sweep: Option<Spanned<SweepTable>>,
    pub(crate) constraint: Option<Spanned<String>>,
}

/// One launch of a `sequence`: a kernel of the variant's source, its
/// geometry, and its arguments: `{ name = "in" }` passes the variant's
/// buffer of that name, a scalar is written as in `args`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(
    expecting = "a launch such as { entry = \"reduce<256>\", grid = [\"cdiv(N, 512)\"], block = [256], args = [{ name = \"in\" }, { name = \"n\", scalar = \"i32\", value = \"N\" }] }"
)]
pub(crate) struct RawStep {
    pub(crate) entry: Option<Spanned<String>>,
    pub(crate) grid: Option<Spanned<Vec<Spanned<ExprSource>>>>,
    pub(crate) block: Option<Spanned<Vec<Spanned<ExprSource>>>>,
    pub(crate) shared_bytes: Option<Spanned<ExprSource>>,
    pub(crate) args: Option<Vec<Spanned<RawArg>>>,
    /// A group: steps launched in order, in place of a launch of its own
    /// (the body of a loop that launches two kernels per turn).
    pub(crate) steps: Option<Spanned<Vec<Spanned<RawStep>>>>,
    /// Loops, outermost first: the step is launched once per value of
    /// their variables (a reduction until one block is left, a bitonic
    /// sort's stages).
    pub(crate) repeat: Option<Spanned<Vec<Spanned<RawLoop>>>>,
    /// A condition over the size symbols (and loop variables): the step is
    /// launched only where it holds.
    pub(crate) when: Option<Spanned<String>>,
}

impl RawStep {
    /// The entries of the launches this step makes, in order (a group's
    /// steps' in turn).
    pub(crate) fn entries(&self) -> Vec<&Spanned<String>> {
        match &self.steps {
            Some(steps) => steps
                .get_ref()
                .iter()
                .flat_map(|s| s.get_ref().entries())
                .collect(),
            None => self.entry.iter().collect(),
        }
    }

    /// Each entry of this step's launches, to be rewritten in place.
    pub(crate) fn entries_mut(&mut self) -> Vec<&mut Spanned<String>> {
        match &mut self.steps {
            Some(steps) => steps
                .get_mut()
                .iter_mut()
                .flat_map(|s| s.get_mut().entries_mut())
                .collect(),
            None => self.entry.iter_mut().collect(),
        }
    }
}

/// `{ for = "k", from = 2, while = "k <= N", next = "k * 2" }`: a loop
/// variable, its first value, the condition under which the loop goes on,
/// and its next value.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(
    expecting = "a loop such as { for = \"k\", from = 2, while = \"k <= N\", next = \"k * 2\" }"
)]
pub(crate) struct RawLoop {
    #[serde(rename = "for")]
    pub(crate) variable: Spanned<String>,
    pub(crate) from: Spanned<ExprSource>,
    #[serde(rename = "while")]
    pub(crate) condition: Spanned<String>,
    pub(crate) next: Spanned<ExprSource>,
}

/// `library = { routine = "cublas-sgemm", m = "N", n = "N", k = "N" }`,
/// optionally with `alpha` and `beta` (C = alpha·A·B + beta·C; 1 and 0).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(
    expecting = "a table such as { routine = \"cublas-sgemm\", m = \"N\", n = \"N\", k = \"N\" }"
)]
pub(crate) struct RawLibrary {
    pub(crate) routine: Spanned<String>,
    pub(crate) m: Spanned<ExprSource>,
    pub(crate) n: Spanned<ExprSource>,
    pub(crate) k: Spanned<ExprSource>,
    pub(crate) alpha: Option<Spanned<ExprSource>>,
    pub(crate) beta: Option<Spanned<ExprSource>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a table such as { rel = 1e-5, abs = 1e-6 }")]
pub(crate) struct RawTolerance {
    pub(crate) rel: Option<Spanned<f64>>,
    pub(crate) abs: Option<Spanned<f64>>,
}

/// One kernel parameter: a buffer or a scalar (which one, and which keys
/// go with it, is checked in `resolve`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(
    expecting = "an argument table such as { name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" }"
)]
pub(crate) struct RawArg {
    pub(crate) name: Spanned<String>,
    pub(crate) buffer: Option<Spanned<String>>,
    pub(crate) scalar: Option<Spanned<String>>,
    pub(crate) count: Option<Spanned<ExprSource>>,
    pub(crate) fill: Option<Spanned<RawFill>>,
    pub(crate) range: Option<Spanned<Vec<f64>>>,
    pub(crate) output: Option<Spanned<bool>>,
    pub(crate) compare: Option<Spanned<String>>,
    pub(crate) symbol: Option<Spanned<String>>,
    pub(crate) value: Option<Spanned<ExprSource>>,
    /// In a sequence step, the element of the variant's buffer the step
    /// passes (`offset = "blockSize"` for `d_data + blockSize`).
    pub(crate) offset: Option<Spanned<ExprSource>>,
}

/// A value that is a number or an expression string.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ExprSource {
    Number(f64),
    Text(String),
}

impl<'de> Deserialize<'de> for ExprSource {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ExprVisitor;
        impl Visitor<'_> for ExprVisitor {
            type Value = ExprSource;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number or an expression string such as \"ceil(N/32)\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ExprSource, E> {
                Ok(ExprSource::Number(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ExprSource, E> {
                Ok(ExprSource::Number(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<ExprSource, E> {
                Ok(ExprSource::Number(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ExprSource, E> {
                Ok(ExprSource::Text(v.to_string()))
            }
        }
        deserializer.deserialize_any(ExprVisitor)
    }
}

/// `fill = "random" | "zeros" | NUMBER`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum RawFill {
    Random,
    Zeros,
    Number(f64),
}

impl<'de> Deserialize<'de> for RawFill {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FillVisitor;
        impl Visitor<'_> for FillVisitor {
            type Value = RawFill;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"random\", \"zeros\" or a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawFill, E> {
                Ok(RawFill::Number(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawFill, E> {
                Ok(RawFill::Number(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawFill, E> {
                Ok(RawFill::Number(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawFill, E> {
                match v {
                    "random" => Ok(RawFill::Random),
                    "zeros" => Ok(RawFill::Zeros),
                    _ => Err(E::invalid_value(Unexpected::Str(v), &self)),
                }
            }
        }
        deserializer.deserialize_any(FillVisitor)
    }
}

/// One entry of `sizes`: an integer (binds `N`) or a table of symbols.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RawSize {
    Whole(i64),
    Table(SymbolTable),
}

impl<'de> Deserialize<'de> for RawSize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SizeVisitor;
        impl<'de> Visitor<'de> for SizeVisitor {
            type Value = RawSize;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer such as 2048 or a table such as { M = 1024, N = 512 }")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawSize, E> {
                Ok(RawSize::Whole(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawSize, E> {
                i64::try_from(v)
                    .map(RawSize::Whole)
                    .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawSize, A::Error> {
                SymbolTable::from_map(map).map(RawSize::Table)
            }
        }
        deserializer.deserialize_any(SizeVisitor)
    }
}

/// A table of integer symbols (`{ M = 1024, N = 512 }`) in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct SymbolTable {
    pub(crate) entries: Vec<(Spanned<String>, Spanned<i64>)>,
}

impl SymbolTable {
    fn from_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<SymbolTable, A::Error> {
        let mut entries: Vec<(Spanned<String>, Spanned<i64>)> = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        // The toml crate hands tables over sorted by key; the spans give the
        // order they were written in.
        entries.sort_by_key(|(key, _)| key.span().start);
        Ok(SymbolTable { entries })
    }
}

impl<'de> Deserialize<'de> for SymbolTable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TableVisitor;
        impl<'de> Visitor<'de> for TableVisitor {
            type Value = SymbolTable;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of integers such as { TILE = 32 }")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SymbolTable, A::Error> {
                SymbolTable::from_map(map)
            }
        }
        deserializer.deserialize_map(TableVisitor)
    }
}

/// `sweep = { BM = [64, 128], TM = [4, 8] }`: each parameter's values in
/// file order, as written (whether they are integers is checked in
/// `resolve`, so that the error can point at the value).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct SweepTable {
    pub(crate) entries: Vec<SweepParameter>,
}

/// A sweep parameter's name and its values, each where it is written.
pub(crate) type SweepParameter = (Spanned<String>, Spanned<Vec<Spanned<toml::Value>>>);

impl<'de> Deserialize<'de> for SweepTable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SweepVisitor;
        impl<'de> Visitor<'de> for SweepVisitor {
            type Value = SweepTable;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of value lists such as { BM = [64, 128], TM = [4, 8] }")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SweepTable, A::Error> {
                let mut entries: Vec<SweepParameter> = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                entries.sort_by_key(|(key, _)| key.span().start);
                Ok(SweepTable { entries })
            }
        }
        deserializer.deserialize_map(SweepVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(extra: &str) -> Result<RawSuite, toml::de::Error> {
        toml::from_str(&format!("name = \"s\"\nbaseline = \"b\"\n{extra}"))
    }

    #[test]
    fn sizes_are_integers_or_tables_in_file_order() {
        let s = suite("sizes = [2048, { N = 512, M = 1024 }]").unwrap();
        let sizes = s.sizes.into_inner();
        assert_eq!(sizes[0].get_ref(), &RawSize::Whole(2048));
        let RawSize::Table(table) = sizes[1].get_ref() else {
            panic!("not a table: {:?}", sizes[1]);
        };
        let keys: Vec<(&str, i64)> = table
            .entries
            .iter()
            .map(|(k, v)| (k.get_ref().as_str(), *v.get_ref()))
            .collect();
        assert_eq!(keys, [("N", 512), ("M", 1024)]);
    }

    #[test]
    fn a_size_of_another_type_says_what_is_expected() {
        let e = suite("sizes = [\"big\"]").unwrap_err();
        assert_eq!(
            e.message(),
            "invalid type: string \"big\", expected an integer such as 2048 or a table such as \
             { M = 1024, N = 512 }"
        );
        let e = suite("sizes = [{ N = 1.5 }]").unwrap_err();
        assert_eq!(
            e.message(),
            "invalid type: floating point `1.5`, expected i64"
        );
    }

    #[test]
    fn constants_keep_file_order_and_spans() {
        let text = "name = \"s\"\nbaseline = \"b\"\nsizes = [1]\nconstants = { Z = 1, A = 2 }";
        let s: RawSuite = toml::from_str(text).unwrap();
        let constants = s.constants.unwrap();
        let (key, value) = &constants.entries[0];
        assert_eq!(key.get_ref(), "Z");
        assert_eq!(&text[key.span()], "Z");
        assert_eq!(&text[value.span()], "1");
        assert_eq!(constants.entries[1].0.get_ref(), "A");
    }

    #[test]
    fn expressions_are_numbers_or_strings() {
        let v: RawVariant = toml::from_str("grid = [1, 2.5, \"N/2\"]").unwrap();
        let grid: Vec<ExprSource> = v
            .grid
            .unwrap()
            .into_inner()
            .into_iter()
            .map(Spanned::into_inner)
            .collect();
        assert_eq!(
            grid,
            [
                ExprSource::Number(1.0),
                ExprSource::Number(2.5),
                ExprSource::Text("N/2".into())
            ]
        );
        let e = toml::from_str::<RawVariant>("bytes = true").unwrap_err();
        assert_eq!(
            e.message(),
            "invalid type: boolean `true`, expected a number or an expression string such as \
             \"ceil(N/32)\""
        );
    }

    #[test]
    fn fill_is_random_zeros_or_a_number() {
        let arg = |fill: &str| {
            toml::from_str::<RawArg>(&format!("name = \"a\"\nfill = {fill}"))
                .map(|a| a.fill.map(Spanned::into_inner))
        };
        assert_eq!(arg("\"random\"").unwrap(), Some(RawFill::Random));
        assert_eq!(arg("\"zeros\"").unwrap(), Some(RawFill::Zeros));
        assert_eq!(arg("3").unwrap(), Some(RawFill::Number(3.0)));
        assert_eq!(arg("-0.5").unwrap(), Some(RawFill::Number(-0.5)));
        assert_eq!(
            arg("\"ones\"").unwrap_err().message(),
            "invalid value: string \"ones\", expected \"random\", \"zeros\" or a number"
        );
    }

    #[test]
    fn tables_of_the_wrong_type_say_what_is_expected_in_words() {
        let e = toml::from_str::<RawFile>("suite = 3").unwrap_err();
        assert_eq!(
            e.message(),
            "invalid type: integer `3`, expected a [suite] table with name, sizes and baseline"
        );
        let e = toml::from_str::<RawVariant>("args = [\"in\"]").unwrap_err();
        assert!(e.message().ends_with("expected an argument table such as { name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" }"), "{}", e.message());
        let e = toml::from_str::<RawVariant>("tolerance = 0.1").unwrap_err();
        assert!(
            e.message()
                .ends_with("expected a table such as { rel = 1e-5, abs = 1e-6 }")
        );
    }

    #[test]
    fn unknown_keys_are_refused_at_every_level() {
        for (text, key) in [
            ("bogus = 1\n[suite]\nname = \"s\"", "bogus"),
            ("[profile]\nclock = \"base\"", "clock"),
            ("[[variant]]\nnmae = \"a\"", "nmae"),
            ("[defaults]\nargs = [{ name = \"a\", cuont = 1 }]", "cuont"),
            (
                "[defaults]\ntolerance = { rel = 1, relative = 2 }",
                "relative",
            ),
        ] {
            let e = toml::from_str::<RawFile>(text).unwrap_err();
            assert!(
                e.message().starts_with(&format!("unknown field `{key}`")),
                "{text}: {}",
                e.message()
            );
        }
    }
}
