//! Bad input never panics: a table of malformed ncu CSV exports and
//! results.json files, each with the error it must give, and property tests
//! that mutate the real H200 exports (cut, flip bytes, splice in quotes,
//! commas and huge numbers) and feed them to every reader.

use gpuprof::model::read_results;
use gpuprof::ncu::raw::parse_raw_page;
use gpuprof::ncu::source::parse_source_page;
use proptest::prelude::*;

const RAW: &str = include_str!("fixtures/h200-probe/raw.csv");
const SOURCE: &str = include_str!("fixtures/h200-transpose/source-2.csv");
const RESULTS: &str = include_str!("../examples/transpose/results.json");

fn line(text: &str, index: usize) -> &str {
    text.lines().nth(index).unwrap()
}

#[test]
fn malformed_raw_pages_are_explained() {
    let header = line(RAW, 0);
    let units = line(RAW, 1);
    let row = line(RAW, 2);
    let cases: Vec<(&str, String, &str)> = vec![
        ("empty", String::new(), "the file is empty"),
        ("blank lines", "\n\n  \n".into(), "the file is empty"),
        ("only a header", format!("{header}\n"), "no units row"),
        (
            "truncated row",
            format!("{header}\n{units}\n{}", &row[..row.len() / 2]),
            "line 3 has",
        ),
        (
            "a details page",
            include_str!("fixtures/h200-probe/details.csv").into(),
            "this is not the raw page",
        ),
        ("a source page", SOURCE.into(), "this is not the raw page"),
        (
            "ncu's log",
            include_str!("fixtures/h200-probe/ncu-stdout.txt").into(),
            "this is not ncu CSV",
        ),
        (
            "missing Kernel Name",
            RAW.replacen("\"Kernel Name\"", "\"Kernel\"", 1),
            "no \"Kernel Name\" column",
        ),
        (
            "decimal comma",
            RAW.replacen("\"131,072\"", "\"131072,5\"", 1),
            "LC_ALL=C",
        ),
        (
            "localized thousands",
            RAW.replacen("\"1,980,000\"", "\"1.980.000,0\"", 1),
            "LC_ALL=C",
        ),
        (
            "non-numeric ID",
            RAW.replacen("\"0\",\"", "\"zero\",\"", 1),
            "is not a result ID",
        ),
        (
            "huge number",
            RAW.replacen("\"131,072\"", "\"1e999\"", 1),
            "is not a finite number",
        ),
        (
            "unbalanced quote",
            format!("{header}\n{units}\n\"0,{row}"),
            "is not a result ID",
        ),
        (
            "no units row",
            format!("{header}\n{row}\n{row}"),
            "line 2 is a launch, not the units row",
        ),
        (
            "grouped by spaces",
            RAW.replacen("\"131,072\"", "\"131 072\"", 1),
            "LC_ALL=C",
        ),
        (
            "grouped by apostrophes",
            RAW.replacen("\"131,072\"", "\"131'072\"", 1),
            "LC_ALL=C",
        ),
    ];
    assert!(cases.len() >= 16);
    for (name, text, expected) in cases {
        let error = parse_raw_page(&text).expect_err(name).to_string();
        assert!(error.contains(expected), "{name}: {error}");
    }
}

#[test]
fn columns_in_another_order_read_the_same() {
    // Fields are read by name: an export whose first column is not "ID"
    // gives the same launches.
    let records: Vec<Vec<String>> = RAW
        .lines()
        .map(|l| {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(l.as_bytes());
            reader
                .records()
                .next()
                .unwrap()
                .unwrap()
                .iter()
                .map(str::to_string)
                .collect()
        })
        .collect();
    let rotated: String = records
        .iter()
        .map(|fields| {
            let mut fields = fields.clone();
            fields.rotate_left(3);
            let quoted: Vec<String> = fields.iter().map(|f| format!("\"{f}\"")).collect();
            quoted.join(",") + "\n"
        })
        .collect();
    assert_eq!(
        parse_raw_page(&rotated).unwrap(),
        parse_raw_page(RAW).unwrap()
    );
}

#[test]
fn unknown_metrics_and_wrong_types_are_kept_as_text_or_ignored() {
    // A user's export with columns gpuprof does not know parses; the
    // unknown column is just another value, the known ones still read.
    let renamed = RAW.replacen("gpu__time_duration.sum", "my__custom_metric.sum", 1);
    let launches = parse_raw_page(&renamed).unwrap();
    assert!(launches[0].number("gpu__time_duration.sum").is_none());
    assert!(launches[0].number("my__custom_metric.sum").is_some());
    let texted = RAW.replacen("\"20\",", "\"twenty\",", 1);
    assert!(
        parse_raw_page(&texted).is_ok(),
        "a word where a number was is text, not a crash"
    );
}

#[test]
fn malformed_source_pages_are_explained() {
    let cases: Vec<(&str, String, &str)> = vec![
        ("empty", String::new(), "empty"),
        ("raw page", RAW.into(), "not a source page"),
        (
            "cuda only",
            include_str!("fixtures/h200-probe/source-cuda-tiled.csv").into(),
            "no counter columns",
        ),
        (
            "bad line number",
            SOURCE.replacen("\n\"7\",", "\n\"seven\",", 1),
            "is not a source line number",
        ),
        (
            "no header",
            "\"File Path\",\"a.cu\"\n\"12\",\"x = 1;\"\n".into(),
            "has no column header row",
        ),
    ];
    for (name, text, expected) in cases {
        let error = parse_source_page(&text).expect_err(name).to_string();
        assert!(error.contains(expected), "{name}: {error}");
    }
}

#[test]
fn malformed_results_are_explained() {
    let cases: Vec<(&str, String, &str)> = vec![
        ("empty", String::new(), "results.json is written by"),
        (
            "truncated",
            RESULTS[..RESULTS.len() / 3].into(),
            "results.json is written by",
        ),
        (
            "not an object",
            "[1, 2, 3]".into(),
            "not a gpuprof results.json",
        ),
        (
            "no version",
            "{\"suite\": {}}".into(),
            "not a gpuprof results.json",
        ),
        (
            "newer version",
            RESULTS.replacen("\"schema_version\": 1", "\"schema_version\": 3", 1),
            "schema version 3",
        ),
        (
            "version as text",
            RESULTS.replacen("\"schema_version\": 1", "\"schema_version\": \"1\"", 1),
            "not a gpuprof results.json",
        ),
        (
            "wrong type",
            RESULTS.replacen("\"seed\": 1234", "\"seed\": \"many\"", 1),
            "invalid type",
        ),
        (
            "negative count",
            RESULTS.replacen("\"repetitions\": 30", "\"repetitions\": -1", 1),
            "invalid value",
        ),
        (
            "huge number",
            RESULTS.replacen("\"repetitions\": 30", "\"repetitions\": 1e999", 1),
            "results.json is written by",
        ),
        (
            "missing field",
            RESULTS.replacen("\"baseline\": \"naive\",", "", 1),
            "missing field `baseline`",
        ),
        (
            "unknown role",
            RESULTS.replacen("\"role\": \"ceiling\"", "\"role\": \"boss\"", 1),
            "unknown variant `boss`",
        ),
    ];
    for (name, text, expected) in cases {
        let error = read_results(&text).expect_err(name).to_string();
        assert!(error.contains(expected), "{name}: {error}");
    }
}

/// Mutations of a real text: cut it, flip bytes, or splice in characters
/// that CSV and JSON readers trip on.
fn mutated(text: &'static str) -> impl Strategy<Value = String> {
    let len = text.len();
    (
        0..len,
        0..len,
        prop::sample::select(vec![
            "\"", ",", "\n", "1e308", "-", "nan", "{", "]", "\u{feff}", "",
        ]),
        0u8..4,
    )
        .prop_map(move |(a, b, splice, mode)| {
            let (start, end) = (a.min(b), a.max(b));
            let mut bytes = text.as_bytes().to_vec();
            match mode {
                0 => bytes.truncate(end),
                1 => {
                    for byte in &mut bytes[start..end.min(start + 8)] {
                        *byte ^= 0x5a;
                    }
                }
                2 => {
                    bytes.splice(start..start, splice.bytes());
                }
                _ => {
                    bytes.drain(start..end.min(start + 64));
                }
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn the_raw_page_reader_never_panics(text in mutated(RAW)) {
        let _ = parse_raw_page(&text);
    }

    #[test]
    fn the_source_page_reader_never_panics(text in mutated(SOURCE)) {
        let _ = parse_source_page(&text);
    }

    #[test]
    fn the_results_reader_and_the_report_never_panic(text in mutated(RESULTS)) {
        if let Ok(results) = read_results(&text) {
            let analysis = gpuprof::analysis::analyze(&results);
            let _ = gpuprof::render::markdown(&gpuprof::render::view(&results, &analysis));
        }
    }
}
