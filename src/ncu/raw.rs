//! The raw page of an ncu export (`ncu --import R --csv --page raw`): a
//! header row of column names, a row of units, then one row per profiled
//! launch. Columns depend on what was collected, so fields are read by
//! header name; numbers are normalised to base units.

use std::collections::BTreeMap;
use std::fmt;

use std::sync::Arc;

use super::units::{parse_number, to_base};

/// One field of one launch: a number in base units, or text. Names and
/// units are shared between launches (an export has hundreds of columns),
/// and across threads: the pipeline exports one report while ncu makes the
/// next.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Number { value: f64, unit: Arc<str> },
    Text(String),
}

impl Value {
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Number { value, .. } => Some(*value),
            Value::Text(_) => None,
        }
    }
}

/// One profiled launch from the raw page.
#[derive(Debug, Clone, PartialEq)]
pub struct RawLaunch {
    /// ncu's result ID (0-based, in profiling order).
    pub id: u64,
    /// As ncu prints it: `transpose_naive` for `extern "C"` kernels, a
    /// demangled signature otherwise.
    pub kernel_name: String,
    pub block_size: String,
    pub grid_size: String,
    /// Every other non-empty column by header name.
    pub values: BTreeMap<Arc<str>, Value>,
}

impl RawLaunch {
    pub fn number(&self, metric: &str) -> Option<f64> {
        self.values.get(metric).and_then(Value::number)
    }
}

/// Why a raw-page CSV could not be read; Display says what to do.
#[derive(Debug, Clone, PartialEq)]
pub enum RawPageError {
    Empty,
    NotCsv(String),
    WrongPage {
        found: String,
    },
    MissingColumn(&'static str),
    /// The second row is a launch, not the units row.
    NoUnitsRow,
    RaggedRow {
        row: usize,
        fields: usize,
        expected: usize,
    },
    BadField {
        row: usize,
        column: String,
        reason: String,
    },
}

impl fmt::Display for RawPageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HOW: &str = "export it with `ncu --import REPORT.ncu-rep --csv --page raw > raw.csv`";
        match self {
            RawPageError::Empty => write!(f, "the file is empty; {HOW}"),
            RawPageError::NotCsv(reason) => write!(f, "this is not ncu CSV ({reason}); {HOW}"),
            RawPageError::WrongPage { found } => {
                write!(f, "this is not the raw page ({found}); {HOW}")
            }
            RawPageError::MissingColumn(column) => {
                write!(f, "the header has no {column:?} column; {HOW}")
            }
            RawPageError::NoUnitsRow => write!(
                f,
                "line 2 is a launch, not the units row ncu writes under the header: without it the values' units are unknown; {HOW}"
            ),
            RawPageError::RaggedRow {
                row,
                fields,
                expected,
            } => write!(
                f,
                "line {row} has {fields} fields but the header has {expected}: the file is truncated or was edited; {HOW}"
            ),
            RawPageError::BadField {
                row,
                column,
                reason,
            } => {
                write!(f, "line {row}, column {column:?}: {reason}")
            }
        }
    }
}

impl std::error::Error for RawPageError {}

const REQUIRED: [&str; 4] = ["ID", "Kernel Name", "Block Size", "Grid Size"];

/// Parses a raw-page CSV export.
pub fn parse_raw_page(text: &str) -> Result<Vec<RawLaunch>, RawPageError> {
    let body = text.trim_start_matches('\u{feff}');
    if body.trim().is_empty() {
        return Err(RawPageError::Empty);
    }
    if body.starts_with("==PROF==")
        || body.starts_with("==WARNING==")
        || body.starts_with("==ERROR==")
    {
        return Err(RawPageError::NotCsv(
            "it starts with ncu's own log lines, so it was printed while profiling and mixes the program's output into the CSV"
                .into(),
        ));
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(body.as_bytes());
    let mut records = reader.records();
    let header = next_record(&mut records, 1)?.ok_or(RawPageError::Empty)?;
    let header: Vec<String> = header.iter().map(str::to_string).collect();
    check_raw_header(&header)?;
    let required = required_positions(&header)?;
    let units = next_record(&mut records, 2)?.ok_or(RawPageError::NotCsv(
        "there is a header but no units row and no launches".into(),
    ))?;
    check_width(&units, header.len(), 2)?;
    // ncu's units row leaves the ID empty; a number there is a launch, and
    // without the units each value would be read in the wrong unit.
    if !units.get(required[0]).unwrap_or("").trim().is_empty() {
        return Err(RawPageError::NoUnitsRow);
    }
    let columns = Columns::new(header, required, &units);
    let mut launches = Vec::new();
    let mut line = 2;
    while let Some(record) = next_record(&mut records, line + 1)? {
        line += 1;
        check_width(&record, columns.header.len(), line)?;
        launches.push(columns.launch(&record, line)?);
    }
    Ok(launches)
}

/// That the header row is the raw page's: it starts with "ID" and is not
/// the details page.
fn check_raw_header(header: &[String]) -> Result<(), RawPageError> {
    // Fields are read by name, so the columns may come in any order; the
    // details page has an "ID" too, but a row per metric.
    match header.iter().any(|h| h == "ID") {
        _ if header.iter().all(|h| h.trim().is_empty()) => Err(RawPageError::Empty),
        true if header.iter().any(|h| h == "Metric Name") => Err(RawPageError::WrongPage {
            found: "it is the details page, with one row per metric".into(),
        }),
        true => Ok(()),
        false => Err(RawPageError::WrongPage {
            found: format!(
                "its header has no \"ID\" column and starts with {:?}",
                header.first().map(String::as_str).unwrap_or("")
            ),
        }),
    }
}

/// Where each of the [`REQUIRED`] columns stands in the header.
fn required_positions(header: &[String]) -> Result<[usize; 4], RawPageError> {
    let position = |name: &'static str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or(RawPageError::MissingColumn(name))
    };
    Ok([
        position(REQUIRED[0])?,
        position(REQUIRED[1])?,
        position(REQUIRED[2])?,
        position(REQUIRED[3])?,
    ])
}

/// The raw page's columns: their names, where the required ones stand, and
/// each one's conversion to base units, worked out once.
struct Columns {
    header: Vec<String>,
    /// ID, kernel name, block size and grid size, as in [`REQUIRED`].
    required: [usize; 4],
    /// Per column: its shared name, the scale to base units, the base unit.
    conversions: Vec<(Arc<str>, f64, Arc<str>)>,
}

impl Columns {
    fn new(header: Vec<String>, required: [usize; 4], units: &csv::StringRecord) -> Columns {
        let conversions = header
            .iter()
            .zip(units.iter())
            .map(|(name, unit)| {
                let (scale, base) = to_base(1.0, unit);
                (Arc::from(name.as_str()), scale, Arc::from(base.as_str()))
            })
            .collect();
        Columns {
            header,
            required,
            conversions,
        }
    }

    /// One launch row, read on line `line` of the file.
    fn launch(&self, record: &csv::StringRecord, line: usize) -> Result<RawLaunch, RawPageError> {
        let [id_at, name_at, block_at, grid_at] = self.required;
        let field = |at: usize| record.get(at).unwrap_or("").to_string();
        let id = field(id_at)
            .trim()
            .parse::<u64>()
            .map_err(|_| RawPageError::BadField {
                row: line,
                column: "ID".into(),
                reason: format!("`{}` is not a result ID", field(id_at)),
            })?;
        let mut values = BTreeMap::new();
        for (at, raw) in record.iter().enumerate() {
            if self.required.contains(&at) || raw.trim().is_empty() {
                continue;
            }
            let bad = |reason: String| RawPageError::BadField {
                row: line,
                column: self.header[at].clone(),
                reason,
            };
            let (name, scale, unit) = &self.conversions[at];
            let value = match parse_number(raw).map_err(bad)? {
                Some(number) => Value::Number {
                    value: number * scale,
                    unit: Arc::clone(unit),
                },
                None => Value::Text(raw.to_string()),
            };
            values.insert(Arc::clone(name), value);
        }
        Ok(RawLaunch {
            id,
            kernel_name: field(name_at),
            block_size: field(block_at),
            grid_size: field(grid_at),
            values,
        })
    }
}

fn next_record(
    records: &mut csv::StringRecordsIter<'_, &[u8]>,
    line: usize,
) -> Result<Option<csv::StringRecord>, RawPageError> {
    match records.next() {
        None => Ok(None),
        Some(Ok(record)) => Ok(Some(record)),
        Some(Err(error)) => Err(RawPageError::NotCsv(format!("line {line}: {error}"))),
    }
}

fn check_width(
    record: &csv::StringRecord,
    expected: usize,
    row: usize,
) -> Result<(), RawPageError> {
    if record.len() == expected {
        Ok(())
    } else {
        Err(RawPageError::RaggedRow {
            row,
            fields: record.len(),
            expected,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::metrics;

    const RAW: &str = include_str!("../../tests/fixtures/h200-probe/raw.csv");
    const RAW_BASE: &str = include_str!("../../tests/fixtures/h200-probe/raw-base-units.csv");

    #[test]
    fn reads_the_four_probe_launches_in_order() {
        let launches = parse_raw_page(RAW).unwrap();
        let names: Vec<&str> = launches.iter().map(|l| l.kernel_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "copy_reference",
                "transpose_naive",
                "transpose_tiled",
                "transpose_padded"
            ]
        );
        assert_eq!(
            launches.iter().map(|l| l.id).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert_eq!(launches[0].block_size, "(32, 8, 1)");
        assert_eq!(launches[0].grid_size, "(64, 64, 1)");
    }

    #[test]
    fn every_metric_of_the_fixed_set_is_present_as_a_number() {
        for launch in parse_raw_page(RAW).unwrap() {
            for metric in metrics::METRICS {
                assert!(
                    launch.number(metric.name).is_some(),
                    "{} lacks {}",
                    launch.kernel_name,
                    metric.name
                );
            }
        }
    }

    #[test]
    fn values_are_in_base_units() {
        let naive = &parse_raw_page(RAW).unwrap()[1];
        assert_eq!(naive.number(metrics::DURATION), Some(71744.0));
        assert_eq!(naive.number(metrics::GLOBAL_STORE_SECTORS), Some(4187806.0));
        assert_eq!(naive.number(metrics::GLOBAL_STORE_REQUESTS), Some(131072.0));
        assert_eq!(naive.number(metrics::DRAM_BYTES_READ), Some(18920960.0));
        let tiled = &parse_raw_page(RAW).unwrap()[2];
        assert_eq!(tiled.number(metrics::STATIC_SHARED_PER_BLOCK), Some(4096.0));
        assert_eq!(
            tiled.number(metrics::SHARED_LOAD_WAVEFRONTS),
            Some(4223165.0)
        );
    }

    #[test]
    fn display_units_and_base_units_exports_agree() {
        let display = parse_raw_page(RAW).unwrap();
        let base = parse_raw_page(RAW_BASE).unwrap();
        assert_eq!(display.len(), base.len());
        let mut compared = 0;
        for (a, b) in display.iter().zip(&base) {
            for (name, value) in &a.values {
                let (Some(x), Some(y)) = (value.number(), b.number(name)) else {
                    continue;
                };
                let scale = x.abs().max(y.abs()).max(1e-9);
                // Display units print 6 significant decimals, base units 2.
                assert!(
                    (x - y).abs() / scale < 1e-4 || (x - y).abs() < 0.01,
                    "{name}: {x} vs {y}"
                );
                compared += 1;
            }
        }
        assert!(compared > 1000, "only {compared} values compared");
    }

    #[test]
    fn text_columns_stay_text() {
        let launch = &parse_raw_page(RAW).unwrap()[0];
        assert_eq!(
            launch.values.get("device__attribute_display_name"),
            Some(&Value::Text("NVIDIA H200".into()))
        );
    }

    #[test]
    fn truncated_file_names_the_line() {
        let cut = &RAW[..RAW.len() - 500];
        let error = parse_raw_page(cut).unwrap_err();
        assert!(
            matches!(error, RawPageError::RaggedRow { row: 6, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("line 6"));
    }

    #[test]
    fn wrong_pages_and_non_csv_are_explained() {
        let source = include_str!("../../tests/fixtures/h200-probe/source-cuda-tiled.csv");
        let error = parse_raw_page(source).unwrap_err();
        assert!(matches!(error, RawPageError::WrongPage { .. }), "{error}");
        assert!(error.to_string().contains("--page raw"));
        let log = include_str!("../../tests/fixtures/h200-probe/ncu-stdout.txt");
        assert!(matches!(parse_raw_page(log), Err(RawPageError::NotCsv(_))));
        assert_eq!(parse_raw_page(" \n"), Err(RawPageError::Empty));
    }

    #[test]
    fn a_localized_number_is_an_error_naming_row_and_column() {
        let localized = RAW.replacen("\"131,072\"", "\"131.072,5\"", 1);
        let error = parse_raw_page(&localized).unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("line 3, column "), "{text}");
        assert!(text.contains("LC_ALL=C"), "{text}");
    }
}
