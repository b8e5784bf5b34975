//! The source page of an ncu export (`ncu --import R --csv --page source
//! --print-source sass,cuda`): per CUDA source line, the SourceCounters
//! section's counters (shared wavefronts against the ideal, global sectors
//! against the ideal, warp-stall samples). The page is a sequence of blocks,
//! one per source file: `"File Path",path`, `"Function Name",name`, a header
//! row, then CUDA source rows (with a line number) interleaved with SASS
//! rows (empty line number). The SASS rows under a CUDA line split its
//! counters by instruction: global loads (LDG) from global stores (STG,
//! atomics), shared loads (LDS) from shared stores (STS), so a line such as
//! `out[i] = tile[j]` can say which of its accesses is the bad one.
//!
//! ncu 2025.3 does not escape quotes inside the source text, so a line such
//! as `extern "C" __global__ void f(int a, int b)` splits into extra fields;
//! such rows are re-joined by counting fields against the header.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use super::units::parse_number;
use crate::model::source::{SourceLine, Split};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceFile {
    pub path: String,
    pub function: String,
    pub lines: Vec<SourceLine>,
}

/// What a SASS instruction does to memory, from its opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    GlobalLoad,
    GlobalStore,
    SharedLoad,
    SharedStore,
    Other,
}

/// `@!P1  LDG.E R13, [R4.64]` → GlobalLoad; `STS [R15], R10` → SharedStore.
fn classify(sass: &str) -> Access {
    let mut tokens = sass.split_whitespace();
    let mut opcode = tokens.next().unwrap_or("");
    if opcode.starts_with('@') {
        opcode = tokens.next().unwrap_or("");
    }
    let base = opcode.split('.').next().unwrap_or("");
    match base {
        "LDG" | "LD" => Access::GlobalLoad,
        "STG" | "ST" | "RED" | "REDG" | "ATOMG" | "ATOM" => Access::GlobalStore,
        "LDS" | "LDSM" => Access::SharedLoad,
        "STS" | "ATOMS" => Access::SharedStore,
        _ => Access::Other,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum SourcePageError {
    Empty,
    NotSourcePage {
        found: String,
    },
    NoHeader {
        path: String,
    },
    /// The header has no counter column at all (a `--print-source cuda`
    /// export, or ncu ran without the SourceCounters section).
    NoCounters,
    BadLineNumber {
        row: usize,
        found: String,
    },
    Csv(String),
}

impl fmt::Display for SourcePageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HOW: &str = "export it with `ncu --import REPORT.ncu-rep --csv --page source --print-source sass,cuda`";
        match self {
            SourcePageError::Empty => write!(
                f,
                "the source page is empty: the kernel was built without line info (add -lineinfo) or ncu ran without --section SourceCounters"
            ),
            SourcePageError::NotSourcePage { found } => write!(
                f,
                "this is not a source page export (it starts with {found:?}, not \"File Path\"); {HOW}"
            ),
            SourcePageError::NoHeader { path } => {
                write!(f, "the block for {path} has no column header row; {HOW}")
            }
            SourcePageError::NoCounters => write!(
                f,
                "the source page has no counter columns: profile with --section SourceCounters and print both SASS and CUDA source; {HOW}"
            ),
            SourcePageError::BadLineNumber { row, found } => {
                write!(f, "line {row}: `{found}` is not a source line number")
            }
            SourcePageError::Csv(reason) => write!(f, "{reason}; {HOW}"),
        }
    }
}

impl std::error::Error for SourcePageError {}

const SAMPLES: &str = "Warp Stall Sampling (All Samples)";
const INSTRUCTIONS: &str = "Instructions Executed";
const WAVEFRONTS: &str = "L1 Wavefronts Shared";
const WAVEFRONTS_IDEAL: &str = "L1 Wavefronts Shared Ideal";
const WAVEFRONTS_EXCESSIVE: &str = "L1 Wavefronts Shared Excessive";
const SECTORS: &str = "L2 Theoretical Sectors Global";
const SECTORS_IDEAL: &str = "L2 Theoretical Sectors Global Ideal";
const SECTORS_EXCESSIVE: &str = "L2 Theoretical Sectors Global Excessive";
const ACCESS_OPERATION: &str = "Access Operation";
const ADDRESS_SPACE: &str = "Address Space";
const STALL_PREFIX: &str = "stall_";

/// Whether gpuprof reads the source page's column `name`: the counters
/// above, and every stall reason's samples (not their "(Not Issued)"
/// twins).
pub(crate) fn reads_column(name: &str) -> bool {
    [
        SAMPLES,
        INSTRUCTIONS,
        WAVEFRONTS,
        WAVEFRONTS_IDEAL,
        WAVEFRONTS_EXCESSIVE,
        SECTORS,
        SECTORS_IDEAL,
        SECTORS_EXCESSIVE,
        ACCESS_OPERATION,
        ADDRESS_SPACE,
    ]
    .contains(&name)
        || is_issued_stall(name)
}

/// A stall reason's column of samples (`stall_…`), not its
/// "(Not Issued)" twin.
fn is_issued_stall(name: &str) -> bool {
    name.starts_with(STALL_PREFIX) && !name.ends_with("(Not Issued)")
}

struct Columns {
    width: usize,
    by_name: BTreeMap<String, usize>,
    stalls: Vec<(String, usize)>,
}

impl Columns {
    fn new(header: &csv::StringRecord) -> Result<Columns, SourcePageError> {
        let mut by_name = BTreeMap::new();
        for (at, name) in header.iter().enumerate().filter(|(_, n)| reads_column(n)) {
            by_name.entry(name.to_string()).or_insert(at);
        }
        // Columns depend on the kernel: one without shared memory has no
        // shared-wavefront columns. Any counter column will do.
        if ![SAMPLES, INSTRUCTIONS, WAVEFRONTS, SECTORS]
            .iter()
            .any(|c| by_name.contains_key(*c))
        {
            return Err(SourcePageError::NoCounters);
        }
        let stalls = header
            .iter()
            .enumerate()
            .filter(|(_, name)| is_issued_stall(name))
            .map(|(at, name)| (name[STALL_PREFIX.len()..].to_string(), at))
            .collect();
        Ok(Columns {
            width: header.len(),
            by_name,
            stalls,
        })
    }

    /// The row's fields with a source text that ncu split at its commas
    /// joined back into field 1.
    fn realign(&self, record: &csv::StringRecord) -> Vec<String> {
        let fields: Vec<&str> = record.iter().collect();
        let extra = fields.len().saturating_sub(self.width);
        if extra == 0 {
            return fields.iter().map(|f| f.to_string()).collect();
        }
        let mut realigned = vec![fields[0].to_string(), fields[1..=1 + extra].join(",")];
        realigned.extend(fields[2 + extra..].iter().map(|f| f.to_string()));
        realigned
    }

    fn number(&self, fields: &[String], name: &str) -> Option<f64> {
        let at = *self.by_name.get(name)?;
        parse_number(fields.get(at)?).ok().flatten()
    }

    fn text(&self, fields: &[String], name: &str) -> String {
        self.by_name
            .get(name)
            .and_then(|at| fields.get(*at))
            .filter(|t| *t != "-")
            .cloned()
            .unwrap_or_default()
    }

    /// A CUDA source row's counters.
    fn source_line(&self, line: u32, fields: &[String]) -> SourceLine {
        let stalls = self
            .stalls
            .iter()
            .filter_map(|(name, at)| {
                let count = parse_number(fields.get(*at)?).ok().flatten()?;
                (count > 0.0).then(|| (name.clone(), count))
            })
            .collect();
        SourceLine {
            line,
            text: fields.get(1).cloned().unwrap_or_default(),
            warp_stall_samples: self.number(fields, SAMPLES),
            instructions_executed: self.number(fields, INSTRUCTIONS),
            shared_wavefronts: self.number(fields, WAVEFRONTS),
            shared_wavefronts_ideal: self.number(fields, WAVEFRONTS_IDEAL),
            shared_wavefronts_excessive: self.number(fields, WAVEFRONTS_EXCESSIVE),
            global_sectors: self.number(fields, SECTORS),
            global_sectors_ideal: self.number(fields, SECTORS_IDEAL),
            global_sectors_excessive: self.number(fields, SECTORS_EXCESSIVE),
            access_operation: self.text(fields, ACCESS_OPERATION),
            address_space: self.text(fields, ADDRESS_SPACE),
            stalls,
            by_instruction: Split::default(),
        }
    }

    /// Adds a SASS row's sectors or wavefronts to its CUDA line's split, by
    /// what the instruction does to memory.
    fn add_instruction(&self, split: &mut Split, fields: &[String]) {
        let sectors = (
            self.number(fields, SECTORS),
            self.number(fields, SECTORS_IDEAL),
        );
        let wavefronts = (
            self.number(fields, WAVEFRONTS),
            self.number(fields, WAVEFRONTS_IDEAL),
        );
        match classify(fields.get(3).map(String::as_str).unwrap_or("")) {
            Access::GlobalLoad => split.global_load_sectors.add(sectors.0, sectors.1),
            Access::GlobalStore => split.global_store_sectors.add(sectors.0, sectors.1),
            Access::SharedLoad => split.shared_load_wavefronts.add(wavefronts.0, wavefronts.1),
            Access::SharedStore => split
                .shared_store_wavefronts
                .add(wavefronts.0, wavefronts.1),
            Access::Other => {}
        }
    }
}

/// The file blocks read so far and the state of the one being read.
#[derive(Default)]
struct Page {
    files: Vec<SourceFile>,
    /// The open block's column header, once its row has been read.
    columns: Option<Columns>,
    /// SASS instruction addresses already counted.
    seen_addresses: HashSet<String>,
}

impl Page {
    /// Reads one row (numbered from 1) into the open file block.
    fn read_row(&mut self, row: usize, record: &csv::StringRecord) -> Result<(), SourcePageError> {
        let first = record.get(0).unwrap_or("");
        match first {
            "File Path" | "File Name" => {
                self.files.push(SourceFile {
                    path: record.get(1).unwrap_or("").to_string(),
                    function: String::new(),
                    lines: Vec::new(),
                });
                self.columns = None;
                return Ok(());
            }
            _ if self.files.is_empty() => {
                return Err(SourcePageError::NotSourcePage {
                    found: first.to_string(),
                });
            }
            _ => {}
        }
        let file = self.files.last_mut().expect("a file block is open");
        if first == "Function Name" {
            file.function = record.get(1).unwrap_or("").to_string();
            return Ok(());
        }
        if first == "Line No" {
            self.columns = Some(Columns::new(record)?);
            return Ok(());
        }
        let Some(columns) = &self.columns else {
            return Err(SourcePageError::NoHeader {
                path: file.path.clone(),
            });
        };
        if first.is_empty() {
            // A SASS row: add its counters to the CUDA line above it.
            let fields = columns.realign(record);
            // An export filtered by kernel name repeats SASS rows; count
            // each instruction address once.
            let address = fields.get(2).cloned().unwrap_or_default();
            if self.seen_addresses.insert(address)
                && let Some(line) = file.lines.last_mut()
            {
                columns.add_instruction(&mut line.by_instruction, &fields);
            }
            return Ok(());
        }
        let line = first
            .parse::<u32>()
            .map_err(|_| SourcePageError::BadLineNumber {
                row,
                found: first.to_string(),
            })?;
        file.lines
            .push(columns.source_line(line, &columns.realign(record)));
        Ok(())
    }
}

/// Parses a source-page export into one entry per source file block.
pub fn parse_source_page(text: &str) -> Result<Vec<SourceFile>, SourcePageError> {
    let body = text.trim_start_matches('\u{feff}');
    if body.trim().is_empty() {
        return Err(SourcePageError::Empty);
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(body.as_bytes());
    let mut page = Page::default();
    for (index, record) in reader.records().enumerate() {
        let row = index + 1;
        let record = record.map_err(|e| SourcePageError::Csv(format!("line {row}: {e}")))?;
        page.read_row(row, &record)?;
    }
    if page.files.iter().all(|f| f.lines.is_empty()) {
        return Err(if page.columns.is_none() && !page.files.is_empty() {
            SourcePageError::NoCounters
        } else {
            SourcePageError::Empty
        });
    }
    Ok(page.files)
}

/// The source pages of several launches exported at once, one text per
/// launch. ncu prints one block per launch and file, each opening with a
/// `"File Path"` and a `"Function Name"` line, and nothing between
/// launches: a launch ends where the function changes or a file comes
/// again. Two launches of one kernel from one file are told apart by that
/// repetition; the caller checks the count against the raw page's.
pub fn split_by_launch(text: &str) -> Vec<String> {
    let text = text.trim_start_matches('\u{feff}');
    // Each block: its file, its function and its text.
    let mut blocks: Vec<(&str, &str, String)> = Vec::new();
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        match line.strip_prefix("\"File Path\",") {
            Some(path) => {
                let function = lines
                    .peek()
                    .and_then(|next| next.strip_prefix("\"Function Name\","))
                    .unwrap_or("")
                    .trim_end();
                blocks.push((path.trim_end(), function, line.to_string()));
            }
            None => match blocks.last_mut() {
                Some((_, _, block)) => block.push_str(line),
                // Text before the first block (none in ncu's exports).
                None => blocks.push(("", "", line.to_string())),
            },
        }
    }
    let mut launches: Vec<(Vec<&str>, &str, String)> = Vec::new();
    for (path, function, block) in blocks {
        match launches.last_mut() {
            Some((paths, current, text)) if *current == function && !paths.contains(&path) => {
                paths.push(path);
                text.push_str(&block);
            }
            _ => launches.push((vec![path], function, block)),
        }
    }
    launches.into_iter().map(|(_, _, text)| text).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::source::Count;

    const TILED: &str = include_str!("../../tests/fixtures/h200-probe/source-sass-cuda-tiled.csv");

    fn line(files: &[SourceFile], number: u32) -> &SourceLine {
        files[0].lines.iter().find(|l| l.line == number).unwrap()
    }

    #[test]
    fn reads_the_tiled_transpose_lines() {
        let files = parse_source_page(TILED).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, "/work/main/kernels/transpose/tiled.cu");
        assert_eq!(files[0].function, "transpose_tiled");
        let numbers: Vec<u32> = files[0].lines.iter().map(|l| l.line).collect();
        assert_eq!(numbers, [7, 10, 11, 13, 14, 17, 18, 19, 21, 22, 25]);
    }

    #[test]
    fn the_transposed_tile_read_is_the_32_way_line() {
        let files = parse_source_page(TILED).unwrap();
        let read = line(&files, 22);
        assert!(read.text.contains("tile[threadIdx.x][threadIdx.y + j]"));
        assert_eq!(read.shared_wavefronts, Some(4194304.0));
        assert_eq!(read.shared_wavefronts_ideal, Some(131072.0));
        assert_eq!(read.shared_wavefronts_excessive, Some(4063232.0));
        assert_eq!(read.global_sectors, Some(524288.0));
        assert_eq!(read.global_sectors_excessive, Some(0.0));
        assert_eq!(read.address_space, "Global(4),Shared(4)");
        assert_eq!(read.warp_stall_samples, Some(996.0));
        let store = line(&files, 14);
        assert_eq!(store.shared_wavefronts, Some(131072.0));
        assert_eq!(store.shared_wavefronts_excessive, Some(0.0));
    }

    #[test]
    fn dashes_are_missing_values_and_stalls_are_by_reason() {
        let files = parse_source_page(TILED).unwrap();
        let signature = line(&files, 7);
        assert_eq!(signature.warp_stall_samples, Some(33.0));
        assert_eq!(signature.instructions_executed, Some(32768.0));
        assert!(
            signature
                .text
                .contains("float *out, int width, int height)"),
            "{}",
            signature.text
        );
        assert_eq!(signature.access_operation, "");
        assert_eq!(signature.address_space, "");
        assert_eq!(signature.shared_wavefronts_excessive, Some(0.0));
        let read = line(&files, 22);
        let total: f64 = read.stalls.values().sum();
        assert!(total > 0.0);
        assert!(read.stalls.values().all(|v| *v > 0.0));
    }

    #[test]
    fn sass_rows_split_a_line_by_direction() {
        let files = parse_source_page(TILED).unwrap();
        let read = &line(&files, 22).by_instruction;
        assert_eq!(
            read.shared_load_wavefronts,
            Count {
                actual: 4194304.0,
                ideal: 131072.0
            }
        );
        assert_eq!(read.shared_load_wavefronts.factor(), Some(32.0));
        assert_eq!(
            read.global_store_sectors,
            Count {
                actual: 524288.0,
                ideal: 524288.0
            }
        );
        assert_eq!(read.global_load_sectors, Count::default());
        let fill = &line(&files, 14).by_instruction;
        assert_eq!(fill.shared_store_wavefronts.factor(), Some(1.0));
        assert_eq!(fill.global_load_sectors.factor(), Some(1.0));
    }

    #[test]
    fn the_naive_transpose_store_is_the_strided_access() {
        let naive = include_str!("../../tests/fixtures/h200-transpose/source-1.csv");
        let files = parse_source_page(naive).unwrap();
        let copy = &files[0]
            .lines
            .iter()
            .find(|l| l.line == 12)
            .unwrap()
            .by_instruction;
        assert_eq!(copy.global_store_sectors.factor(), Some(8.0));
        assert_eq!(copy.global_load_sectors.factor(), Some(1.0));
    }

    #[test]
    fn opcodes_are_classified_with_or_without_predicates() {
        assert_eq!(
            classify("@!P1  LDG.E R13, desc[UR4][R4.64]"),
            Access::GlobalLoad
        );
        assert_eq!(
            classify("      STG.E desc[UR4][R2.64+0x60], R5"),
            Access::GlobalStore
        );
        assert_eq!(classify("@P0 LDS.128 R4, [R2]"), Access::SharedLoad);
        assert_eq!(classify("STS [R15+0x400], R8"), Access::SharedStore);
        assert_eq!(
            classify("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R5"),
            Access::GlobalStore
        );
        assert_eq!(classify("FFMA R1, R2, R3, R4"), Access::Other);
        assert_eq!(classify(""), Access::Other);
    }

    #[test]
    fn a_cuda_only_export_is_explained() {
        let cuda_only = include_str!("../../tests/fixtures/h200-probe/source-cuda-tiled.csv");
        let error = parse_source_page(cuda_only).unwrap_err();
        assert_eq!(error, SourcePageError::NoCounters);
        assert!(error.to_string().contains("sass,cuda"));
    }

    #[test]
    fn other_files_are_rejected() {
        let raw = include_str!("../../tests/fixtures/h200-probe/raw.csv");
        assert!(matches!(
            parse_source_page(raw),
            Err(SourcePageError::NotSourcePage { .. })
        ));
        assert_eq!(parse_source_page(""), Err(SourcePageError::Empty));
    }

    #[test]
    fn one_export_of_every_launch_splits_into_the_launches_in_order() {
        let all = include_str!("../../tests/fixtures/h200-source-all/source-all.csv");
        let launches = split_by_launch(all);
        assert_eq!(launches.len(), 8);
        let functions: Vec<&str> = launches
            .iter()
            .map(|page| page.lines().nth(1).unwrap_or_default())
            .collect();
        for (function, kernel) in functions.iter().zip(
            [
                "copy_reference",
                "transpose_naive",
                "transpose_tiled",
                "transpose_padded",
            ]
            .iter()
            .cycle(),
        ) {
            assert_eq!(*function, format!("\"Function Name\",\"{kernel}\""));
        }
        assert_eq!(launches.concat(), all, "nothing lost or reordered");
        for page in &launches {
            let files = parse_source_page(page).unwrap();
            assert_eq!(files.len(), 1, "one file a launch here");
        }
        // The same kernel launched twice in a row from one file (a
        // sequence's steps) makes two launches, not one.
        let copy = &launches[0];
        assert_eq!(split_by_launch(&format!("{copy}{copy}")).len(), 2);
    }
}
