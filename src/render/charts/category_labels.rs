//! The category names under a bar chart's bars: wrapped at separators when
//! they fit their slot, else turned vertical and cut, with the "ceiling"
//! and "wrong" tags of marked categories.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{INK, LABEL_PX, LINE_PX, MUTED, WRONG, font, text_style, text_width, truncate};
use super::{Area, Drawn, Mark};

/// Category names under the bars: centred and wrapped at `-`, `_`, `.`, `/`
/// or spaces when they fit their slot in at most three lines (at 12 px, else
/// at 11 px), otherwise vertical (read bottom to top) and cut at
/// [`ROTATED_MAX_CHARS`]. Marked categories get a "ceiling" or "wrong" tag
/// line (a suffix when vertical).
pub(super) struct CategoryLabels {
    pub(super) rotated: bool,
    px: f64,
    lines: Vec<Vec<String>>,
    marks: Vec<Mark>,
    pub(super) area: u32,
}

const ROTATED_MAX_CHARS: usize = 24;
const MAX_LABEL_LINES: usize = 3;

impl CategoryLabels {
    pub(super) fn new(categories: &[String], marks: &[Mark], slot_px: f64) -> Self {
        let marks: Vec<Mark> = (0..categories.len())
            .map(|c| marks.get(c).copied().unwrap_or(Mark::Normal))
            .collect();
        let tagged = marks.iter().any(|m| *m != Mark::Normal);
        let horizontal = [LABEL_PX, LABEL_PX - 1.0].into_iter().find_map(|px| {
            let max_px = slot_px - 4.0;
            if tagged && text_width("ceiling", px) > max_px {
                return None;
            }
            let lines = categories
                .iter()
                .map(|c| wrap_label(c, max_px, px).filter(|l| l.len() <= MAX_LABEL_LINES))
                .collect::<Option<Vec<_>>>()?;
            Some((px, lines))
        });
        match horizontal {
            Some((px, lines)) => {
                let rows = lines.iter().map(Vec::len).max().unwrap_or(1) + usize::from(tagged);
                CategoryLabels {
                    rotated: false,
                    px,
                    lines,
                    marks,
                    area: 10 + rows as u32 * LINE_PX as u32,
                }
            }
            None => {
                let lines: Vec<Vec<String>> = categories
                    .iter()
                    .zip(&marks)
                    .map(|(c, m)| {
                        vec![format!(
                            "{}{}",
                            truncate(c, ROTATED_MAX_CHARS),
                            tag_suffix(*m)
                        )]
                    })
                    .collect();
                let widest = lines
                    .iter()
                    .map(|l| text_width(&l[0], LABEL_PX))
                    .fold(0.0, f64::max);
                CategoryLabels {
                    rotated: true,
                    px: LABEL_PX,
                    lines,
                    marks,
                    area: (widest + 10.0).ceil() as u32,
                }
            }
        }
    }

    pub(super) fn draw(&self, root: &Area, centres: &[i32], top: i32) -> Drawn {
        let rows = self.lines.iter().map(Vec::len).max().unwrap_or(1) as i32;
        for ((lines, mark), &cx) in self.lines.iter().zip(&self.marks).zip(centres) {
            let ink = match mark {
                Mark::Normal => INK,
                Mark::Ceiling => MUTED,
                Mark::Wrong => WRONG,
            };
            if self.rotated {
                let style = font(self.px)
                    .transform(FontTransform::Rotate270)
                    .color(&ink)
                    .pos(Pos::new(HPos::Right, VPos::Center));
                root.draw_text(&lines[0], &style, (cx, top))?;
                continue;
            }
            for (i, line) in lines.iter().enumerate() {
                let style = text_style(self.px, INK, HPos::Center, VPos::Top);
                root.draw_text(line, &style, (cx, top + i as i32 * LINE_PX))?;
            }
            let tag = match mark {
                Mark::Normal => continue,
                Mark::Ceiling => font(self.px).style(FontStyle::Italic).color(&ink),
                Mark::Wrong => font(self.px).style(FontStyle::Bold).color(&ink),
            };
            let text = tag_suffix(*mark)
                .trim_start_matches(" (")
                .trim_end_matches(')');
            root.draw_text(
                text,
                &tag.pos(Pos::new(HPos::Center, VPos::Top)),
                (cx, top + rows * LINE_PX),
            )?;
        }
        Ok(())
    }
}

fn tag_suffix(mark: Mark) -> &'static str {
    match mark {
        Mark::Normal => "",
        Mark::Ceiling => " (ceiling)",
        Mark::Wrong => " (wrong)",
    }
}

/// Greedy wrap at separators; `None` when a piece alone is wider than `max_chars`.
pub(super) fn wrap_label(label: &str, max_px: f64, px: f64) -> Option<Vec<String>> {
    let fits = |line: &str| text_width(line, px) <= max_px;
    let mut pieces: Vec<String> = Vec::new();
    let mut piece = String::new();
    for ch in label.chars() {
        piece.push(ch);
        if matches!(ch, '-' | '_' | '.' | '/' | ' ' | ',') {
            pieces.push(std::mem::take(&mut piece));
        }
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for piece in pieces {
        let joined = format!("{line}{piece}");
        if !line.is_empty() && !fits(joined.trim_end()) {
            lines.push(line.trim_end().to_string());
            line = piece;
        } else {
            line = joined;
        }
    }
    if !line.trim_end().is_empty() || lines.is_empty() {
        lines.push(line.trim_end().to_string());
    }
    lines.iter().all(|l| fits(l)).then_some(lines)
}
