//! The charts' look, shared by every chart: the SVG width, font stack and
//! label sizes, the palette and the greys, and the text helpers built on
//! them (fonts and text styles, the estimated width of a text, cutting a
//! text to a number of characters).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub(super) const WIDTH: u32 = 760;
pub(super) const FONT_STACK: &str = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, Liberation Sans, sans-serif";
/// plotters' SVG backend writes `font-size` as the requested size / 1.24.
pub(super) const PLOTTERS_FONT_SCALE: f64 = 1.24;
pub(super) const LABEL_PX: f64 = 12.0;
pub(super) const LINE_PX: i32 = 15;
pub(super) const MARGIN_LEFT: u32 = 12;

/// Okabe–Ito, ordered so the first colours are the most distinct on white,
/// then five of Paul Tol's muted scheme that stay apart from them, so that
/// twelve series get twelve colours; vermillion is kept for
/// [`Mark::Wrong`](super::Mark::Wrong).
pub(super) const PALETTE: [RGBColor; 12] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
    RGBColor(136, 34, 85),
    RGBColor(153, 153, 51),
    RGBColor(51, 34, 136),
    RGBColor(68, 170, 153),
    RGBColor(170, 170, 170),
];
pub(super) const WRONG: RGBColor = RGBColor(213, 94, 0);
pub(super) const INK: RGBColor = RGBColor(34, 34, 34);
pub(super) const MUTED: RGBColor = RGBColor(102, 102, 102);
pub(super) const GRID: RGBColor = RGBColor(230, 230, 230);
pub(super) const AXIS: RGBColor = RGBColor(140, 140, 140);
pub(super) const ROOF: RGBColor = RGBColor(40, 40, 40);
pub(super) const RIDGE_GUIDE: RGBColor = RGBColor(175, 175, 175);

pub(super) fn color(series: usize) -> RGBColor {
    PALETTE[series % PALETTE.len()]
}

pub(super) fn font(px: f64) -> FontDesc<'static> {
    // The size whose division by the backend's scale gives `px` exactly, so
    // the SVG says font-size="12" rather than "12.000000000000002".
    let size = px * PLOTTERS_FONT_SCALE;
    let size = [size, size.next_down(), size.next_up()]
        .into_iter()
        .find(|s| s / PLOTTERS_FONT_SCALE == px)
        .unwrap_or(size);
    FontDesc::new(FontFamily::Name(FONT_STACK), size, FontStyle::Normal)
}

pub(super) fn text_style(px: f64, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    font(px).color(&colour).pos(Pos::new(h, v))
}

/// The estimated width of `text` at `px`: the sum of its glyphs'
/// advances, taken on the wide side of the font stack (DejaVu Sans, the
/// usual fallback on Linux), so that a label measured to fit does fit.
pub(super) fn text_width(text: &str, px: f64) -> f64 {
    text.chars().map(advance_em).sum::<f64>() * px
}

/// A glyph's advance in em, by kind: capitals, `=` and digits are wider
/// than the average letter (configuration names such as
/// `sgemm[BM=128,TN=8]` are mostly those), punctuation narrower.
fn advance_em(glyph: char) -> f64 {
    match glyph {
        'i' | 'l' | 'j' | '!' | '|' | '\'' | '.' | ',' | ':' | ';' => 0.32,
        ' ' | 'f' | 't' | 'r' | '[' | ']' | '(' | ')' | '{' | '}' | '-' | '/' => 0.42,
        'm' | 'w' | 'M' | 'W' | '%' | '@' => 0.98,
        '=' | '+' | '<' | '>' | '~' | '#' | '&' => 0.84,
        'A'..='Z' => 0.74,
        '0'..='9' | '_' | '*' => 0.64,
        'a'..='z' => 0.62,
        _ => 0.8,
    }
}

pub(super) fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        text.to_string()
    } else {
        let kept: String = text.chars().take(max_chars - 1).collect();
        format!("{kept}…")
    }
}
