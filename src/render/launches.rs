//! Which launches of a `sequence` share a row of a table. A sequence whose
//! steps are repeated by loops launches dozens or hundreds of kernels at
//! one size (a bitonic sort of 2^15 elements: 120 launches of one kernel),
//! and a table with a row per launch is then a wall of identical lines.
//! This is the one place that decides, for the plan table of
//! `gpuprof report --check` and for the report's table of a run's
//! launches: a sequence of at most [`MAX_ROWS`] launches keeps a row per
//! launch, as it always had; a longer one gets a row per run of
//! consecutive launches of the same kernel. It also says how such a row
//! names the launches it stands for ("3–122", "×120") and how it shows a
//! value that is not the same for all of them ("64×1×1 … 1×1×1"). What a
//! row's numbers are (a total, a mean) is its table's business.

use std::ops::Range;

/// The most launches a sequence may have and still be listed a row each.
pub const MAX_ROWS: usize = 8;

/// One row of a sequence's table: launches `first .. first + count`
/// (counted from 0), consecutive launches of one kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub first: usize,
    pub count: usize,
}

impl Row {
    /// The indices of the row's launches in the sequence.
    pub fn range(&self) -> Range<usize> {
        self.first..self.first + self.count
    }

    /// Whether the row stands for more than one launch.
    pub fn collapsed(&self) -> bool {
        self.count > 1
    }

    /// The launches' numbers as the tables show them, counted from 1:
    /// "7", or "3–122" for a collapsed row.
    pub fn numbers(&self) -> String {
        match self.count {
            0 | 1 => (self.first + 1).to_string(),
            count => format!("{}–{}", self.first + 1, self.first + count),
        }
    }

    /// How many launches, after the kernel's name: "×120", or nothing for
    /// a row of one launch.
    pub fn times(&self) -> String {
        match self.count {
            0 | 1 => String::new(),
            count => format!("×{count}"),
        }
    }
}

/// The rows of a sequence of `launches`, whose kernel `kernel` names: a
/// row per launch for a short sequence (at most [`MAX_ROWS`]), else a row
/// per run of consecutive launches of one kernel. The rows cover every
/// launch once, in order.
pub fn rows<'a, T, K: PartialEq>(launches: &'a [T], kernel: impl Fn(&'a T) -> K) -> Vec<Row> {
    if launches.len() <= MAX_ROWS {
        return (0..launches.len())
            .map(|first| Row { first, count: 1 })
            .collect();
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut previous: Option<K> = None;
    for (index, launch) in launches.iter().enumerate() {
        let this = kernel(launch);
        match (rows.last_mut(), &previous) {
            (Some(row), Some(before)) if *before == this => row.count += 1,
            _ => rows.push(Row {
                first: index,
                count: 1,
            }),
        }
        previous = Some(this);
    }
    rows
}

/// One value of a row's launches (each launch's grid, say, already
/// written out): the value when every launch has the same; "first … last"
/// when it changes and never comes back to a value it left (a grid that
/// shrinks launch by launch); else "first … last (N values)", so that a
/// value that goes and comes back (64, 32, 64) is not read as a range.
pub fn span(values: &[String]) -> String {
    let (Some(first), Some(last)) = (values.first(), values.last()) else {
        return String::new();
    };
    let mut changes: Vec<&String> = values.iter().collect();
    changes.dedup();
    if changes.len() == 1 {
        return first.clone();
    }
    let mut distinct = changes.clone();
    distinct.sort();
    distinct.dedup();
    match distinct.len() == changes.len() {
        true => format!("{first} … {last}"),
        false => format!("{first} … {last} ({} values)", distinct.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernels(names: &str) -> Vec<char> {
        names.chars().collect()
    }

    fn shown(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|row| {
                format!("{} {}", row.numbers(), row.times())
                    .trim()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn a_short_sequence_keeps_a_row_per_launch_even_of_one_kernel() {
        let rows = rows(&kernels("abbbbbbb"), |k| *k);
        assert_eq!(rows.len(), MAX_ROWS);
        assert_eq!(shown(&rows), ["1", "2", "3", "4", "5", "6", "7", "8"]);
        assert!(rows.iter().all(|row| !row.collapsed()));
        assert!(super::rows(&kernels(""), |k| *k).is_empty());
    }

    #[test]
    fn a_long_sequence_gets_a_row_per_run_of_one_kernel() {
        // copy, 120 bitonic steps, a final check: the bitonic sort at 2^15.
        let mut launches = vec!['c'];
        launches.extend(std::iter::repeat_n('s', 120));
        launches.push('v');
        let rows = rows(&launches, |k| *k);
        assert_eq!(shown(&rows), ["1", "2–121 ×120", "122"]);
        assert_eq!(rows[1].range(), 1..121);
        assert!(rows[1].collapsed() && !rows[0].collapsed());
    }

    #[test]
    fn runs_are_of_consecutive_launches_only_and_cover_every_launch_once() {
        let launches = kernels("aabbbabaaa");
        let rows = rows(&launches, |k| *k);
        assert_eq!(shown(&rows), ["1–2 ×2", "3–5 ×3", "6", "7", "8–10 ×3"]);
        let covered: Vec<usize> = rows.iter().flat_map(Row::range).collect();
        assert_eq!(covered, (0..launches.len()).collect::<Vec<_>>());
        // Two kernels taking turns have no runs: a row per launch still.
        assert_eq!(rows_of("ababababab").len(), 10);
    }

    fn rows_of(names: &str) -> Vec<Row> {
        rows(&kernels(names), |k| *k)
    }

    fn strings(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| v.to_string()).collect()
    }

    #[test]
    fn a_value_that_differs_within_a_row_is_shown_as_a_range_or_says_it_varies() {
        assert_eq!(span(&strings(&["128×1×1"; 120])), "128×1×1");
        assert_eq!(
            span(&strings(&["64×1×1", "32×1×1", "16×1×1", "1×1×1"])),
            "64×1×1 … 1×1×1"
        );
        assert_eq!(span(&strings(&["4 kB", "4 kB", "0 B"])), "4 kB … 0 B");
        // Going and coming back is not a range from first to last.
        assert_eq!(
            span(&strings(&["64×1×1", "32×1×1", "64×1×1"])),
            "64×1×1 … 64×1×1 (2 values)"
        );
        assert_eq!(span(&[]), "");
    }
}
