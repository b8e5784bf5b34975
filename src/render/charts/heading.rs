//! What stands above a chart's plot: the title line and the legend of its
//! series (swatches that wrap onto more rows when needed), plus the series
//! markers (circle, square, triangle, diamond) that the legend shares with
//! the line chart's points.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{INK, LABEL_PX, WIDTH, font, text_style, text_width, truncate};
use super::{Area, Drawn};

const TITLE_MAX_CHARS: usize = 80;

pub(super) fn draw_title(root: &Area, title: &str) -> Drawn {
    let style = font(15.0)
        .style(FontStyle::Bold)
        .color(&INK)
        .pos(Pos::new(HPos::Left, VPos::Top));
    root.draw_text(&truncate(title, TITLE_MAX_CHARS), &style, (16, 12))?;
    Ok(())
}

pub(super) enum Swatch {
    Bar(RGBColor),
    /// colour and marker shape
    Line(RGBColor, usize),
}

/// A horizontal legend under the title, wrapping onto more rows when needed.
pub(super) struct Legend {
    items: Vec<(String, Swatch, (i32, i32))>,
    rows: u32,
}

const LEGEND_ROW: u32 = 18;
const LEGEND_MAX_CHARS: usize = 60;

impl Legend {
    pub(super) fn new(entries: Vec<(String, Swatch)>) -> Self {
        let (mut x, mut row) = (16.0, 0);
        let mut items = Vec::new();
        for (name, swatch) in entries {
            let name = truncate(&name, LEGEND_MAX_CHARS);
            let swatch_w = match swatch {
                Swatch::Bar(_) => 12.0,
                Swatch::Line(..) => 24.0,
            };
            let w = swatch_w + 6.0 + text_width(&name, LABEL_PX);
            if x > 16.0 && x + w > f64::from(WIDTH) - 16.0 {
                x = 16.0;
                row += 1;
            }
            items.push((name, swatch, (x.round() as i32, row)));
            x += w + 20.0;
        }
        let rows = if items.is_empty() { 0 } else { row as u32 + 1 };
        Legend { items, rows }
    }

    pub(super) fn height(&self) -> u32 {
        self.rows * LEGEND_ROW
    }

    pub(super) fn draw(&self, root: &Area, top: i32) -> Drawn {
        for (name, swatch, (x, row)) in &self.items {
            let cy = top + row * LEGEND_ROW as i32 + 8;
            let text_x = match swatch {
                Swatch::Bar(c) => {
                    root.draw(&Rectangle::new(
                        [(*x, cy - 6), (x + 12, cy + 6)],
                        c.filled(),
                    ))?;
                    x + 18
                }
                Swatch::Line(c, shape) => {
                    root.draw(&PathElement::new(
                        vec![(*x, cy), (x + 24, cy)],
                        c.stroke_width(2),
                    ))?;
                    draw_marker(root, (x + 12, cy), *shape, *c)?;
                    x + 30
                }
            };
            root.draw_text(
                name,
                &text_style(LABEL_PX, INK, HPos::Left, VPos::Center),
                (text_x, cy),
            )?;
        }
        Ok(())
    }
}

/// Circle, square, triangle or diamond by series, so lines differ by shape
/// as well as colour.
pub(super) fn draw_marker(
    root: &Area,
    (x, y): (i32, i32),
    shape: usize,
    colour: RGBColor,
) -> Drawn {
    let style = colour.filled();
    match shape % 4 {
        0 => root.draw(&Circle::new((x, y), 4, style))?,
        1 => root.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], style))?,
        2 => root.draw(&Polygon::new(
            vec![(x, y - 5), (x + 5, y + 4), (x - 5, y + 4)],
            style,
        ))?,
        _ => root.draw(&Polygon::new(
            vec![(x, y - 5), (x + 5, y), (x, y + 5), (x - 5, y)],
            style,
        ))?,
    }
    Ok(())
}
