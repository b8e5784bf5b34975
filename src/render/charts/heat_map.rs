//! The heat map of a sweep over two parameters: one cell per pair of
//! values, coloured from the palette's blue (the best value) to near white
//! (the worst) on a log scale, each cell labelled with its value; a pair
//! without a value (skipped by the constraint, failed) is a grey cell
//! labelled with why. Laid out in pixel coordinates on plotters' backend.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::heading::draw_title;
use super::style::{INK, LABEL_PX, MUTED, PALETTE, WIDTH, text_style, text_width, truncate};
use super::{Area, Drawn, HeatMap};

const TOP: i32 = 56;
const CELL_HEIGHT: i32 = 34;
const LABEL_GAP: i32 = 8;
/// The lightest colour, the worst value's.
const PALE: RGBColor = RGBColor(240, 244, 248);
const EMPTY: RGBColor = RGBColor(221, 221, 221);

/// The chart's height for `rows` rows of cells.
pub(super) fn height(rows: usize) -> u32 {
    (TOP + CELL_HEIGHT * rows as i32 + 3 * LABEL_GAP + 2 * LABEL_PX as i32 + 12) as u32
}

pub(super) fn draw_heat_map(root: &Area, chart: &HeatMap) -> Drawn {
    root.fill(&WHITE)?;
    draw_title(root, chart.title)?;
    let values: Vec<f64> = chart
        .cells
        .iter()
        .flatten()
        .flatten()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let lowest = values.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let label_width = chart
        .y_values
        .iter()
        .map(|v| text_width(v, LABEL_PX))
        .fold(text_width(chart.y_label, LABEL_PX), f64::max) as i32;
    let left = 16 + label_width + LABEL_GAP;
    let columns = chart.x_values.len().max(1) as i32;
    let cell_width = ((WIDTH as i32 - left - 16) / columns).max(1);
    let label = |text: &str, colour: RGBColor, h: HPos, (x, y): (i32, i32)| {
        root.draw_text(
            &truncate(text, 24),
            &text_style(LABEL_PX, colour, h, VPos::Center),
            (x, y),
        )
    };
    label(chart.y_label, MUTED, HPos::Left, (16, TOP - LABEL_GAP))?;
    for (row, (y_value, cells)) in chart.y_values.iter().zip(chart.cells).enumerate() {
        let top = TOP + row as i32 * CELL_HEIGHT;
        label(
            y_value,
            INK,
            HPos::Right,
            (left - LABEL_GAP, top + CELL_HEIGHT / 2),
        )?;
        for (column, cell) in cells.iter().enumerate() {
            let x = left + column as i32 * cell_width;
            let corners = [
                (x + 1, top + 1),
                (x + cell_width - 1, top + CELL_HEIGHT - 1),
            ];
            let centre = (x + cell_width / 2, top + CELL_HEIGHT / 2);
            match cell {
                Some(value) => {
                    let share = shade(*value, lowest, highest);
                    root.draw(&Rectangle::new(corners, blend(share).filled()))?;
                    let ink = if share < 0.5 { WHITE } else { INK };
                    label(&(chart.format)(*value), ink, HPos::Center, centre)?;
                }
                None => {
                    root.draw(&Rectangle::new(corners, EMPTY.filled()))?;
                    label(chart.missing, MUTED, HPos::Center, centre)?;
                }
            }
        }
    }
    let bottom = TOP + CELL_HEIGHT * chart.y_values.len() as i32;
    for (column, x_value) in chart.x_values.iter().enumerate() {
        let x = left + column as i32 * cell_width + cell_width / 2;
        label(x_value, INK, HPos::Center, (x, bottom + LABEL_GAP + 6))?;
    }
    let middle = left + (columns * cell_width) / 2;
    label(
        chart.x_label,
        MUTED,
        HPos::Center,
        (middle, bottom + 2 * LABEL_GAP + LABEL_PX as i32 + 6),
    )?;
    Ok(())
}

/// Where `value` lies between `lowest` (0) and `highest` (1), on a log
/// scale; 0 when all values are one.
fn shade(value: f64, lowest: f64, highest: f64) -> f64 {
    if highest <= lowest || value <= 0.0 {
        return 0.0;
    }
    ((value.ln() - lowest.ln()) / (highest.ln() - lowest.ln())).clamp(0.0, 1.0)
}

/// The palette's blue at 0, [`PALE`] at 1.
fn blend(share: f64) -> RGBColor {
    let mix = |from: u8, to: u8| (from as f64 + (to as f64 - from as f64) * share).round() as u8;
    let RGBColor(r, g, b) = PALETTE[0];
    RGBColor(mix(r, PALE.0), mix(g, PALE.1), mix(b, PALE.2))
}

#[cfg(test)]
mod tests {
    use super::super::{HeatMap, heat_map};

    fn chart(cells: &[Vec<Option<f64>>]) -> String {
        heat_map(&HeatMap {
            title: "Sweep <t>",
            x_label: "BLOCK",
            y_label: "ITEMS & more",
            x_values: &["128".into(), "256".into()],
            y_values: &["1".into(), "4".into()],
            cells,
            missing: "no time",
            format: &|v| format!("{v:.2}×"),
        })
    }

    #[test]
    fn every_cell_is_labelled_and_caller_text_is_escaped() {
        let svg = chart(&[vec![Some(1.44), Some(1.01)], vec![Some(1.0), None]]);
        for text in [
            "1.44×",
            "1.01×",
            "1.00×",
            "no time",
            "BLOCK",
            "Sweep &lt;t&gt;",
            "ITEMS &amp; more",
        ] {
            assert!(svg.contains(text), "{text} missing from {svg}");
        }
        assert!(!svg.contains("<t>"));
        // The best cell is the palette's blue, the worst near white.
        assert!(svg.contains("#0072B2"), "{svg}");
        assert!(svg.contains("#F0F4F8"), "{svg}");
    }

    #[test]
    fn a_map_without_values_or_of_the_wrong_shape_says_so() {
        assert!(chart(&[vec![None, None], vec![None, None]]).contains("no data"));
        assert!(chart(&[vec![Some(1.0)]]).contains("no data"));
    }
}
