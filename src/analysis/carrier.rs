//! Where a change shows in the code: for the counter a change's verdict
//! rests on, the source line whose per-line count moved most the way the
//! kernel's total moved. Lines of the two steps are matched by their code
//! (whitespace aside); a line only one step has counts from zero. This is
//! what turns "warp instructions fell" into "the fall is on `naive` line 14
//! (`if (tid % (2 * s) == 0)`), 50.3 M → gone".

use super::derived::Key;
use super::format;
use super::lines::normalized;
use crate::model::source::SourceLine;

/// Reads one counter of a source line.
type LineCount = fn(&SourceLine) -> Option<f64>;

/// The per-line counter behind a derived metric, with its words.
fn per_line(key: Key) -> Option<(LineCount, &'static str)> {
    match key {
        Key::WarpInstructions => Some((|l| l.instructions_executed, "instructions executed")),
        Key::GlobalLoadSectorsPerRequest
        | Key::GlobalStoreSectorsPerRequest
        | Key::GlobalExcessSectors
        | Key::GlobalLoadExcessSectors
        | Key::GlobalStoreExcessSectors
        | Key::GlobalLoadRequests
        | Key::DramBytes => Some((|l| l.global_sectors, "global sectors")),
        Key::SharedLoadWavefrontsPerInstruction
        | Key::SharedStoreWavefrontsPerInstruction
        | Key::SharedExcessWavefronts
        | Key::SharedLoadExcessWavefronts
        | Key::SharedStoreExcessWavefronts
        | Key::SharedLoadInstructions => Some((|l| l.shared_wavefronts, "shared wavefronts")),
        _ => None,
    }
}

/// One source statement's count in each step, matched by its code.
struct Matched<'a> {
    before: Option<&'a SourceLine>,
    after: Option<&'a SourceLine>,
    delta: f64,
}

/// The sentence naming the line that carries the move of `key` from the
/// previous step (`previous_name`, `before`) to this one (`after`), when
/// that line's own move is at least a quarter of the kernel's.
pub fn carrier(
    key: Key,
    previous_name: &str,
    before: &[SourceLine],
    after: &[SourceLine],
) -> Option<String> {
    let (count, what) = per_line(key)?;
    let total = |lines: &[SourceLine]| lines.iter().filter_map(count).sum::<f64>();
    let change = total(after) - total(before);
    if change == 0.0 {
        return None;
    }
    let mut matched: Vec<Matched> = Vec::new();
    for line in before.iter().filter(|l| count(l).is_some()) {
        let twin = after.iter().find(|a| {
            !line.text.trim().is_empty() && normalized(&a.text) == normalized(&line.text)
        });
        matched.push(Matched {
            before: Some(line),
            after: twin,
            delta: twin.and_then(count).unwrap_or(0.0) - count(line).unwrap_or(0.0),
        });
    }
    for line in after.iter().filter(|l| count(l).is_some()) {
        if !matched
            .iter()
            .any(|m| m.after.is_some_and(|a| a.line == line.line))
        {
            matched.push(Matched {
                before: None,
                after: Some(line),
                delta: count(line).unwrap_or(0.0),
            });
        }
    }
    let top = matched
        .iter()
        .filter(|m| m.delta.signum() == change.signum())
        .max_by(|a, b| a.delta.abs().total_cmp(&b.delta.abs()))?;
    let share = top.delta / change;
    if share < 0.25 {
        return None;
    }
    let direction = if change < 0.0 { "fall" } else { "rise" };
    let value = |line: Option<&SourceLine>| {
        line.and_then(count)
            .map(format::count)
            .unwrap_or_else(|| "none".into())
    };
    let place = match (top.before, top.after) {
        (Some(b), Some(a)) => format!(
            "`{previous_name}` line {} (`{}`), now line {}",
            b.line,
            b.text.trim(),
            a.line
        ),
        (Some(b), None) => format!(
            "`{previous_name}` line {} (`{}`), gone from this step",
            b.line,
            b.text.trim()
        ),
        (None, Some(a)) => format!("line {} (`{}`), new in this step", a.line, a.text.trim()),
        (None, None) => return None,
    };
    Some(format!(
        "Line by line, the largest part of the kernel's {direction} in {what} ({}) is on {place}: {} → {}.",
        format::count(change.abs()),
        value(top.before),
        value(top.after)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(number: u32, text: &str, instructions: f64) -> SourceLine {
        SourceLine {
            line: number,
            text: text.into(),
            instructions_executed: Some(instructions),
            ..SourceLine::default()
        }
    }

    #[test]
    fn the_line_that_lost_its_instructions_carries_the_fall() {
        // A modulo test replaced by index arithmetic: the loop's other
        // lines barely change.
        let before = [
            line(10, "for (int s = 1; s < n; s *= 2) {", 1000.0),
            line(11, "if (tid % (2 * s) == 0)", 8000.0),
            line(12, "sdata[tid] += sdata[tid + s];", 3000.0),
        ];
        let after = [
            line(10, "for (int s = 1; s < n; s *= 2) {", 1000.0),
            line(11, "int index = 2 * s * tid;", 1500.0),
            line(12, "if (index < n)", 1000.0),
            line(13, "sdata[index] += sdata[index + s];", 3000.0),
            line(15, "sdata[tid] += sdata[tid + s];", 0.0),
        ];
        let text = carrier(Key::WarpInstructions, "interleaved", &before, &after).unwrap();
        assert_eq!(
            text,
            "Line by line, the largest part of the kernel's fall in instructions executed (5,500) is on `interleaved` line 11 (`if (tid % (2 * s) == 0)`), gone from this step: 8,000 → none."
        );
    }

    #[test]
    fn a_spread_out_move_or_a_counter_without_lines_names_no_line() {
        let before: Vec<SourceLine> = (0..8)
            .map(|i| line(i, &format!("x{i} += 1;"), 100.0))
            .collect();
        let after: Vec<SourceLine> = (0..8)
            .map(|i| line(i, &format!("x{i} += 1;"), 90.0))
            .collect();
        assert_eq!(carrier(Key::WarpInstructions, "a", &before, &after), None);
        assert_eq!(carrier(Key::AchievedOccupancy, "a", &before, &after), None);
    }
}
