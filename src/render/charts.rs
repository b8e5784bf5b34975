//! SVG charts for the report: grouped bar charts (per-variant timings and
//! speedups, with whiskers, ceiling and wrong-result marks), line charts
//! (how a metric scales with problem size) and the roofline. Each chart is a
//! pure function from caller-formatted data to one self-contained SVG string:
//! no I/O, no fonts, no external references, every caller text escaped.
//! Drawing goes through plotters' SVG backend; category labels, legends,
//! point labels and roofline arrows are laid out here in pixel coordinates on
//! the same backend. A chart that cannot be drawn, or has nothing to draw,
//! comes back as a small SVG that says so, never as a panic.
//!
//! One signature differs from the first sketch: [`roofline`] returns a
//! [`RooflineSvg`] (the SVG plus the labels of the points it could not
//! place) rather than a bare `String`. A kernel with no floating-point work
//! (intensity 0, e.g. a transpose or a copy) has no position on a log–log
//! roofline; clamping it to the axis edge would draw a point at a made-up
//! intensity, so such points are skipped, named in a footnote under the
//! chart and returned so the report can show them elsewhere.

use std::error::Error;
use std::fmt::Write as _;
use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, KeyPointWeight, Ranged};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One bar per category per series, e.g. categories = variants, series = problem sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct BarSeries {
    pub name: String,
    pub values: Vec<Option<f64>>,
    /// optional (low, high) whisker per category, e.g. min..max of timing samples
    pub whiskers: Vec<Option<(f64, f64)>>,
}

/// How a category is drawn in a bar chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Normal,
    /// The reference variant: bars drawn muted and outlined, tagged "ceiling".
    Ceiling,
    /// Failed verification: bars outlined in red, tagged "wrong".
    Wrong,
}

pub struct BarChart<'a> {
    pub title: &'a str,
    pub y_label: &'a str,
    pub categories: &'a [String],
    /// one per category; missing entries count as [`Mark::Normal`]
    pub marks: &'a [Mark],
    pub series: &'a [BarSeries],
    pub log_y: bool,
    /// horizontal dashed reference line with a label, e.g. (1.0, "baseline")
    pub reference_line: Option<(f64, &'a str)>,
    /// formats tick and value labels, e.g. |v| format!("{v:.1}×")
    pub format: &'a dyn Fn(f64) -> String,
}

/// One line; one y per x position, `None` = gap.
#[derive(Clone, Debug, PartialEq)]
pub struct LineSeries {
    pub name: String,
    pub points: Vec<Option<f64>>,
}

pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub x_values: &'a [f64],
    /// one per x value; missing entries are formatted as plain numbers
    pub x_tick_labels: &'a [String],
    pub series: &'a [LineSeries],
    pub log_x: bool,
    pub log_y: bool,
    /// formats y tick labels
    pub format: &'a dyn Fn(f64) -> String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RooflinePoint {
    pub label: String,
    /// FLOP per DRAM byte
    pub intensity: f64,
    /// FLOP/s
    pub performance: f64,
    /// the reference variant, drawn hollow and muted
    pub ceiling: bool,
}

pub struct Roofline<'a> {
    pub title: &'a str,
    pub points: &'a [RooflinePoint],
    pub peak_flops: f64,
    /// byte/s, datasheet-style peak
    pub peak_bandwidth: f64,
    /// byte/s of a copy kernel, drawn as a second, dashed roof
    pub measured_bandwidth: Option<f64>,
    /// arrows from point i to point j showing how each optimization step moved
    pub arrows: &'a [(usize, usize)],
}

/// The roofline SVG and the labels of the points that have no place on it
/// (intensity or performance zero, negative or not finite), in input order.
#[derive(Clone, Debug, PartialEq)]
pub struct RooflineSvg {
    pub svg: String,
    pub skipped: Vec<String>,
}

const WIDTH: u32 = 760;
const FONT_STACK: &str = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, Liberation Sans, sans-serif";
/// plotters' SVG backend writes `font-size` as the requested size / 1.24.
const PLOTTERS_FONT_SCALE: f64 = 1.24;
/// Average advance of a sans-serif glyph in em; generous, so labels fit in wide fonts.
const GLYPH_EM: f64 = 0.56;
const LABEL_PX: f64 = 12.0;
const LINE_PX: i32 = 15;
const MARGIN_LEFT: u32 = 12;
const NO_DATA: &str = "no data";
const MAX_VALUE_LABELS: usize = 12;

/// Okabe–Ito, ordered so the first colours are the most distinct on white;
/// vermillion is kept for [`Mark::Wrong`].
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];
const WRONG: RGBColor = RGBColor(213, 94, 0);
const INK: RGBColor = RGBColor(34, 34, 34);
const MUTED: RGBColor = RGBColor(102, 102, 102);
const GRID: RGBColor = RGBColor(230, 230, 230);
const AXIS: RGBColor = RGBColor(140, 140, 140);
const ROOF: RGBColor = RGBColor(40, 40, 40);
const RIDGE_GUIDE: RGBColor = RGBColor(175, 175, 175);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Drawn = Result<(), Box<dyn Error>>;

pub fn bar_chart(chart: &BarChart) -> String {
    match BarPlan::new(chart) {
        Some(plan) => render(chart.title, (WIDTH, plan.height), |root| {
            draw_bar_chart(root, chart, &plan)
        }),
        None => message_svg(chart.title, NO_DATA),
    }
}

pub fn line_chart(chart: &LineChart) -> String {
    match LinePlan::new(chart) {
        Some(plan) => render(chart.title, (WIDTH, plan.height), |root| {
            draw_line_chart(root, chart, &plan)
        }),
        None => message_svg(chart.title, NO_DATA),
    }
}

pub fn roofline(chart: &Roofline) -> RooflineSvg {
    let (placed, skipped): (Vec<_>, Vec<_>) = chart
        .points
        .iter()
        .enumerate()
        .partition(|(_, p)| positive(p.intensity) && positive(p.performance));
    let skipped: Vec<String> = skipped.into_iter().map(|(_, p)| p.label.clone()).collect();
    let svg = if placed.is_empty() {
        message_svg(chart.title, NO_DATA)
    } else {
        let plan = RooflinePlan::new(chart, &placed, &skipped);
        render(chart.title, (WIDTH, plan.height), |root| {
            draw_roofline(root, chart, &plan)
        })
    };
    RooflineSvg { svg, skipped }
}

fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

// ---------------------------------------------------------------- bar chart

struct BarPlan {
    height: u32,
    /// (category, series, value) of every bar that is drawn
    bars: Vec<(usize, usize, f64)>,
    y: Axis,
    legend: Legend,
    labels: CategoryLabels,
    top: u32,
    left: u32,
    right: u32,
    y_area: u32,
    value_labels: bool,
    /// whether "n/a" fits under a bar slot that has no drawable value
    missing_labels: bool,
    reference: Option<(f64, String)>,
}

impl BarPlan {
    fn new(chart: &BarChart) -> Option<Self> {
        let n = chart.categories.len();
        let drawable = |v: f64| v.is_finite() && (!chart.log_y || v > 0.0);
        let bars: Vec<(usize, usize, f64)> = (0..n)
            .flat_map(|c| {
                chart
                    .series
                    .iter()
                    .enumerate()
                    .filter_map(move |(s, series)| {
                        let v = series.values.get(c).copied().flatten()?;
                        drawable(v).then_some((c, s, v))
                    })
            })
            .collect();
        if bars.is_empty() {
            return None;
        }
        let reference = chart
            .reference_line
            .filter(|(v, _)| drawable(*v))
            .map(|(v, label)| (v, truncate(label, REFERENCE_MAX_CHARS)));
        let mut extent: Vec<f64> = bars.iter().map(|b| b.2).collect();
        for &(c, s, _) in &bars {
            if let Some((lo, hi)) = whisker(&chart.series[s], c) {
                extent.extend([lo, hi].into_iter().filter(|v| drawable(*v)));
            }
        }
        extent.extend(reference.iter().map(|r| r.0));
        let (lo, hi) = min_max(&extent);
        let value_labels_wanted = bars.len() <= MAX_VALUE_LABELS;
        let y = if chart.log_y {
            let floor = 10f64.powf((lo / 1.5).log10().floor());
            let headroom = if value_labels_wanted { 2.0 } else { 1.4 };
            Axis::log(floor, hi * headroom, true)
        } else {
            let headroom = if value_labels_wanted { 1.12 } else { 1.04 };
            Axis::linear(lo.min(0.0), hi.max(0.0) * headroom)
        }
        .labelled(chart.format);
        let y_area = (y.widest_label() + 34.0).ceil() as u32;
        let right = reference
            .as_ref()
            .map_or(18.0, |(_, label)| text_width(label, LABEL_PX) + 14.0)
            .ceil() as u32;
        let left = MARGIN_LEFT;
        let legend = Legend::new(
            chart
                .series
                .iter()
                .enumerate()
                .map(|(s, series)| (series.name.clone(), Swatch::Bar(color(s))))
                .collect(),
        );
        let top = 40 + legend.height() + 10;
        let plot_w = f64::from(WIDTH - left - y_area - right);
        let labels = CategoryLabels::new(chart.categories, chart.marks, plot_w / n as f64);
        let height = (top + 240 + labels.area).clamp(320, 420);
        let per_series = chart.series.len().max(1) as f64;
        let bar_px = plot_w / n as f64 * GROUP_WIDTH / per_series;
        let widest_value = bars
            .iter()
            .map(|b| text_width(&(chart.format)(b.2), VALUE_PX))
            .fold(0.0, f64::max);
        Some(BarPlan {
            height,
            bars,
            y,
            legend,
            labels,
            top,
            left,
            right,
            y_area,
            value_labels: value_labels_wanted && widest_value <= bar_px + 6.0,
            missing_labels: text_width(MISSING, MISSING_PX) <= bar_px + 4.0,
            reference,
        })
    }
}

const GROUP_WIDTH: f64 = 0.8;
const REFERENCE_MAX_CHARS: usize = 20;
const VALUE_PX: f64 = 11.5;
const MISSING: &str = "n/a";
const MISSING_PX: f64 = 10.5;

fn whisker(series: &BarSeries, category: usize) -> Option<(f64, f64)> {
    series
        .whiskers
        .get(category)
        .copied()
        .flatten()
        .filter(|(lo, hi)| lo.is_finite() && hi.is_finite())
        .map(|(lo, hi)| (lo.min(hi), lo.max(hi)))
}

/// The x extent (in category units) of bar `s` of `k` in category `c`.
fn bar_extent(c: usize, s: usize, k: usize) -> (f64, f64) {
    let width = GROUP_WIDTH / k as f64;
    let pad = if k > 1 { width * 0.07 } else { 0.0 };
    let x0 = c as f64 + (1.0 - GROUP_WIDTH) / 2.0 + s as f64 * width;
    (x0 + pad, x0 + width - pad)
}

fn draw_bar_chart(root: &Area, chart: &BarChart, plan: &BarPlan) -> Drawn {
    root.fill(&WHITE)?;
    draw_title(root, chart.title)?;
    plan.legend.draw(root, 40)?;
    let n = chart.categories.len();
    let k = chart.series.len();
    let x = Axis::pinned(false, 0.0, n as f64, Vec::new());
    let no_labels = x.clone();
    let mut cc = ChartBuilder::on(root)
        .margin_top(plan.top)
        .margin_left(plan.left)
        .margin_right(plan.right)
        .margin_bottom(6)
        .x_label_area_size(plan.labels.area)
        .y_label_area_size(plan.y_area)
        .build_cartesian_2d(x, plan.y.clone())?;
    configure_mesh(&mut cc, ("", chart.y_label), (&no_labels, &plan.y))?;
    // A linear axis always spans 0; bars on a log axis rise from its bottom.
    let base = if chart.log_y { plan.y.lo } else { 0.0 };

    for &(c, s, v) in &plan.bars {
        let (x0, x1) = bar_extent(c, s, k);
        let colour = color(s);
        let mark = chart.marks.get(c).copied().unwrap_or(Mark::Normal);
        let fill = match mark {
            Mark::Ceiling => colour.mix(0.22).filled(),
            Mark::Normal | Mark::Wrong => colour.filled(),
        };
        cc.draw_series(std::iter::once(Rectangle::new([(x0, base), (x1, v)], fill)))?;
        let outline = match mark {
            Mark::Normal => None,
            Mark::Ceiling => Some(colour.stroke_width(1)),
            Mark::Wrong => Some(WRONG.stroke_width(2)),
        };
        if let Some(style) = outline {
            cc.draw_series(std::iter::once(Rectangle::new(
                [(x0, base), (x1, v)],
                style,
            )))?;
        }
        if let Some((lo, hi)) = whisker(&chart.series[s], c) {
            let clamp = |w: f64| {
                if chart.log_y && w <= 0.0 {
                    plan.y.lo
                } else {
                    w
                }
            };
            let (lo, hi) = (clamp(lo), clamp(hi));
            let mid = (x0 + x1) / 2.0;
            let cap = (x1 - x0) * 0.22;
            let path = vec![
                (mid - cap, lo),
                (mid + cap, lo),
                (mid, lo),
                (mid, hi),
                (mid - cap, hi),
                (mid + cap, hi),
            ];
            cc.draw_series(std::iter::once(PathElement::new(path, INK.stroke_width(1))))?;
        }
    }

    let (xs, ys) = cc.plotting_area().get_pixel_range();
    if let Some((value, label)) = &plan.reference {
        cc.draw_series(std::iter::once(DashedPathElement::new(
            vec![(0.0, *value), (n as f64, *value)],
            6,
            4,
            MUTED.stroke_width(1),
        )))?;
        let (_, py) = cc.backend_coord(&(0.0, *value));
        root.draw_text(
            label,
            &text_style(LABEL_PX, MUTED, HPos::Left, VPos::Center),
            (xs.end + 6, py),
        )?;
    }

    if plan.value_labels {
        for &(c, s, v) in &plan.bars {
            let (x0, x1) = bar_extent(c, s, k);
            let top = whisker(&chart.series[s], c).map_or(v, |(_, hi)| hi.max(v));
            let (px, py) = cc.backend_coord(&((x0 + x1) / 2.0, top));
            root.draw_text(
                &(chart.format)(v),
                &text_style(VALUE_PX, INK, HPos::Center, VPos::Bottom),
                (px, py - 3),
            )?;
        }
    }

    if plan.missing_labels {
        for c in 0..n {
            for s in 0..k {
                if plan.bars.iter().any(|b| (b.0, b.1) == (c, s)) {
                    continue;
                }
                let (x0, x1) = bar_extent(c, s, k);
                let (px, py) = cc.backend_coord(&((x0 + x1) / 2.0, base));
                root.draw_text(
                    MISSING,
                    &text_style(MISSING_PX, MUTED, HPos::Center, VPos::Bottom),
                    (px, py - 3),
                )?;
            }
        }
    }

    let centres: Vec<i32> = (0..n)
        .map(|c| cc.backend_coord(&(c as f64 + 0.5, plan.y.lo)).0)
        .collect();
    plan.labels.draw(root, &centres, ys.end + 8)?;
    Ok(())
}

/// Category names under the bars: centred and wrapped at `-`, `_`, `.`, `/`
/// or spaces when they fit their slot in at most three lines (at 12 px, else
/// at 11 px), otherwise vertical (read bottom to top) and cut at
/// [`ROTATED_MAX_CHARS`]. Marked categories get a "ceiling" or "wrong" tag
/// line (a suffix when vertical).
struct CategoryLabels {
    rotated: bool,
    px: f64,
    lines: Vec<Vec<String>>,
    marks: Vec<Mark>,
    area: u32,
}

const ROTATED_MAX_CHARS: usize = 24;
const MAX_LABEL_LINES: usize = 3;

impl CategoryLabels {
    fn new(categories: &[String], marks: &[Mark], slot_px: f64) -> Self {
        let marks: Vec<Mark> = (0..categories.len())
            .map(|c| marks.get(c).copied().unwrap_or(Mark::Normal))
            .collect();
        let tagged = marks.iter().any(|m| *m != Mark::Normal);
        let horizontal = [LABEL_PX, LABEL_PX - 1.0].into_iter().find_map(|px| {
            let max_chars = ((slot_px - 4.0) / (px * GLYPH_EM)).floor().max(1.0) as usize;
            if tagged && max_chars < "ceiling".len() {
                return None;
            }
            let lines = categories
                .iter()
                .map(|c| wrap_label(c, max_chars).filter(|l| l.len() <= MAX_LABEL_LINES))
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

    fn draw(&self, root: &Area, centres: &[i32], top: i32) -> Drawn {
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
fn wrap_label(label: &str, max_chars: usize) -> Option<Vec<String>> {
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
        if !line.is_empty() && joined.trim_end().chars().count() > max_chars {
            lines.push(line.trim_end().to_string());
            line = piece;
        } else {
            line = joined;
        }
    }
    if !line.trim_end().is_empty() || lines.is_empty() {
        lines.push(line.trim_end().to_string());
    }
    lines
        .iter()
        .all(|l| l.chars().count() <= max_chars)
        .then_some(lines)
}

fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        text.to_string()
    } else {
        let kept: String = text.chars().take(max_chars - 1).collect();
        format!("{kept}…")
    }
}

// --------------------------------------------------------------- line chart

struct LinePlan {
    height: u32,
    /// per series, the (x, y) of each drawable position; `None` breaks the line
    points: Vec<Vec<Option<(f64, f64)>>>,
    x: Axis,
    y: Axis,
    legend: Legend,
    top: u32,
    y_area: u32,
}

const LINE_X_AREA: u32 = 42;
const LINE_MARGIN_RIGHT: u32 = 24;

impl LinePlan {
    fn new(chart: &LineChart) -> Option<Self> {
        let x_ok = |x: f64| x.is_finite() && (!chart.log_x || x > 0.0);
        let y_ok = |y: f64| y.is_finite() && (!chart.log_y || y > 0.0);
        let points: Vec<Vec<Option<(f64, f64)>>> = chart
            .series
            .iter()
            .map(|series| {
                chart
                    .x_values
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| {
                        let y = series.points.get(i).copied().flatten()?;
                        (x_ok(x) && y_ok(y)).then_some((x, y))
                    })
                    .collect()
            })
            .collect();
        let ys: Vec<f64> = points.iter().flatten().flatten().map(|p| p.1).collect();
        if ys.is_empty() {
            return None;
        }
        let xs: Vec<f64> = chart
            .x_values
            .iter()
            .copied()
            .filter(|x| x_ok(*x))
            .collect();
        let (x_lo, x_hi) = min_max(&xs);
        let (y_lo, y_hi) = min_max(&ys);
        let legend = Legend::new(
            chart
                .series
                .iter()
                .enumerate()
                .map(|(s, series)| (series.name.clone(), Swatch::Line(color(s), s)))
                .collect(),
        );
        let top = 40 + legend.height() + 10;
        let y = if chart.log_y {
            Axis::log(y_lo / 1.25, y_hi * 1.25, true)
        } else {
            Axis::linear(y_lo.min(0.0), y_hi * 1.06)
        }
        .labelled(chart.format);
        let y_area = (y.widest_label() + 34.0).ceil() as u32;
        let (x_lo, x_hi) = if chart.log_x {
            let pad = if x_hi > x_lo { 1.12 } else { 2.0 };
            (x_lo / pad, x_hi * pad)
        } else {
            let pad = if x_hi > x_lo {
                (x_hi - x_lo) * 0.04
            } else {
                1.0
            };
            (x_lo - pad, x_hi + pad)
        };
        let plot_w = f64::from(WIDTH - MARGIN_LEFT - y_area - LINE_MARGIN_RIGHT);
        let all = Axis::pinned(chart.log_x, x_lo, x_hi, Vec::new());
        let ticks = thin_ticks(&all, &xs, |v| x_tick_label(chart, v), plot_w);
        let x = Axis::pinned(chart.log_x, x_lo, x_hi, ticks).labelled(&|v| x_tick_label(chart, v));
        Some(LinePlan {
            height: top + 290 + LINE_X_AREA,
            points,
            x,
            y,
            legend,
            top,
            y_area,
        })
    }
}

fn x_tick_label(chart: &LineChart, x: f64) -> String {
    chart
        .x_values
        .iter()
        .position(|v| *v == x)
        .and_then(|i| chart.x_tick_labels.get(i).cloned())
        .unwrap_or_else(|| compact(x))
}

/// The x values whose labels do not collide with the previous kept label.
fn thin_ticks(axis: &Axis, xs: &[f64], label: impl Fn(f64) -> String, plot_w: f64) -> Vec<f64> {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    let mut kept: Vec<f64> = Vec::new();
    let mut last: Option<(f64, f64)> = None;
    for x in sorted {
        let px = axis.fraction(x) * plot_w;
        let half = text_width(&label(x), LABEL_PX) / 2.0;
        if last.is_none_or(|(lx, lh)| px - lx >= lh + half + 10.0) {
            kept.push(x);
            last = Some((px, half));
        }
    }
    kept
}

fn draw_line_chart(root: &Area, chart: &LineChart, plan: &LinePlan) -> Drawn {
    root.fill(&WHITE)?;
    draw_title(root, chart.title)?;
    plan.legend.draw(root, 40)?;
    let mut cc = ChartBuilder::on(root)
        .margin_top(plan.top)
        .margin_left(MARGIN_LEFT)
        .margin_right(LINE_MARGIN_RIGHT)
        .margin_bottom(6)
        .x_label_area_size(LINE_X_AREA)
        .y_label_area_size(plan.y_area)
        .build_cartesian_2d(plan.x.clone(), plan.y.clone())?;
    configure_mesh(&mut cc, (chart.x_label, chart.y_label), (&plan.x, &plan.y))?;
    for (s, points) in plan.points.iter().enumerate() {
        let colour = color(s);
        for run in points.split(Option::is_none) {
            let run: Vec<(f64, f64)> = run.iter().flatten().copied().collect();
            if run.len() > 1 {
                cc.draw_series(std::iter::once(PathElement::new(
                    run,
                    colour.stroke_width(2),
                )))?;
            }
        }
        for &(x, y) in points.iter().flatten() {
            draw_marker(root, cc.backend_coord(&(x, y)), s, colour)?;
        }
    }
    Ok(())
}

// ----------------------------------------------------------------- roofline

struct RooflinePlan {
    height: u32,
    /// (index into the input, point) of every point that is placed
    placed: Vec<(usize, RooflinePoint)>,
    x: Axis,
    y: Axis,
    /// peak roof, if the peaks are usable
    roof: Option<(f64, f64)>,
    measured: Option<f64>,
    footnote: Vec<String>,
}

const ROOF_X_AREA: u32 = 42;
const FOOTNOTE_MAX_CHARS: usize = 110;

impl RooflinePlan {
    fn new(chart: &Roofline, placed: &[(usize, &RooflinePoint)], skipped: &[String]) -> Self {
        let usable = positive(chart.peak_flops)
            && positive(chart.peak_bandwidth)
            && positive(chart.peak_flops / chart.peak_bandwidth);
        let roof = usable.then_some((chart.peak_flops, chart.peak_bandwidth));
        let measured = chart
            .measured_bandwidth
            .filter(|b| roof.is_some() && positive(*b) && positive(chart.peak_flops / b));
        let mut xs: Vec<f64> = placed.iter().map(|(_, p)| p.intensity).collect();
        let mut ys: Vec<f64> = placed.iter().map(|(_, p)| p.performance).collect();
        if let Some((flops, bandwidth)) = roof {
            xs.push(flops / bandwidth);
            xs.extend(measured.map(|m| flops / m));
            ys.push(flops);
        }
        let (x_lo, x_hi) = min_max(&xs);
        let (y_lo, y_hi) = min_max(&ys);
        let x = Axis::log(
            10f64.powf((x_lo / 2.0).log10().floor()),
            10f64.powf((x_hi * 3.0).log10().ceil()),
            false,
        )
        .labelled(&compact);
        let y = Axis::log(10f64.powf((y_lo / 2.0).log10().floor()), y_hi * 3.0, false)
            .labelled(&compact);
        let mut footnote = Vec::new();
        if roof.is_none() {
            footnote.push("Device peaks unknown: no roof drawn.".to_string());
        }
        if !skipped.is_empty() {
            const SHOWN: usize = 6;
            let mut names = skipped
                .iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if skipped.len() > SHOWN {
                let _ = write!(names, " and {} more", skipped.len() - SHOWN);
            }
            let line =
                format!("Not placed (no floating-point work or no valid measurement): {names}");
            footnote.push(truncate(&line, FOOTNOTE_MAX_CHARS));
        }
        RooflinePlan {
            height: 470 + footnote.len() as u32 * (LINE_PX as u32 + 4),
            placed: placed.iter().map(|(i, p)| (*i, (*p).clone())).collect(),
            x,
            y,
            roof,
            measured,
            footnote,
        }
    }

    /// The roof min(peak, x × bandwidth) as a path clipped to the axes.
    fn roof_path(&self, flops: f64, bandwidth: f64) -> Vec<(f64, f64)> {
        let ridge = flops / bandwidth;
        let start = self.x.lo.max(self.y.lo / bandwidth);
        let mut path = Vec::new();
        if start < ridge {
            path.push((start, start * bandwidth));
        }
        path.push((ridge.max(self.x.lo), flops));
        path.push((self.x.hi, flops));
        path
    }
}

/// Axis-aligned pixel box, for label placement.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Bounds {
    fn around((x, y): (i32, i32), r: f64) -> Self {
        let (x, y) = (f64::from(x), f64::from(y));
        Bounds {
            x0: x - r,
            y0: y - r,
            x1: x + r,
            y1: y + r,
        }
    }

    /// The box a text of `w`×`h` occupies when drawn at `at` with `pos`.
    fn of_text((x, y): (i32, i32), pos: (HPos, VPos), w: f64, h: f64) -> Self {
        let (x, y) = (f64::from(x), f64::from(y));
        let x0 = match pos.0 {
            HPos::Left => x,
            HPos::Center => x - w / 2.0,
            HPos::Right => x - w,
        };
        let y0 = match pos.1 {
            VPos::Top => y,
            VPos::Center => y - h / 2.0,
            VPos::Bottom => y - h,
        };
        Bounds {
            x0,
            y0,
            x1: x0 + w,
            y1: y0 + h,
        }
    }

    fn overlap(&self, other: &Bounds) -> f64 {
        let w = self.x1.min(other.x1) - self.x0.max(other.x0);
        let h = self.y1.min(other.y1) - self.y0.max(other.y0);
        if w > 0.0 && h > 0.0 { w * h } else { 0.0 }
    }

    /// Area of `self` outside `outer`.
    fn outside(&self, outer: &Bounds) -> f64 {
        (self.x1 - self.x0) * (self.y1 - self.y0) - self.overlap(outer)
    }

    fn distance(&self, (x, y): (i32, i32)) -> f64 {
        let (x, y) = (f64::from(x), f64::from(y));
        let dx = (self.x0 - x).max(x - self.x1).max(0.0);
        let dy = (self.y0 - y).max(y - self.y1).max(0.0);
        dx.hypot(dy)
    }
}

/// Where a text goes, and how it is anchored there.
type Anchor = ((i32, i32), (HPos, VPos));

/// Places the roofline's texts one by one, each where it collides least
/// with markers, lines, the plot edge and texts placed before it, and then
/// keeps farthest (up to a clearance) from points it does not belong to, so
/// that a label is not read as another point's.
struct Labeller {
    plot: Bounds,
    points: Vec<(i32, i32)>,
    taken: Vec<Bounds>,
    texts: Vec<(String, Anchor, TextStyle<'static>)>,
}

const TEXT_H: f64 = 15.0;

impl Labeller {
    /// `own`: the point the text labels, which it may sit next to.
    fn add(
        &mut self,
        text: String,
        style: TextStyle<'static>,
        candidates: &[Anchor],
        own: Option<usize>,
        clearance: f64,
    ) {
        let w = text_width(&text, style.font.get_size() / PLOTTERS_FONT_SCALE);
        let score = |&(at, pos): &Anchor| {
            let b = Bounds::of_text(at, pos, w, TEXT_H);
            let collision =
                self.taken.iter().map(|t| b.overlap(t)).sum::<f64>() + 10.0 * b.outside(&self.plot);
            let nearest = (self.points.iter().enumerate())
                .filter(|(i, _)| Some(*i) != own)
                .map(|(_, p)| b.distance(*p))
                .fold(f64::INFINITY, f64::min);
            (collision, (clearance - nearest).max(0.0))
        };
        let best = candidates
            .iter()
            .map(|c| (score(c), *c))
            .min_by(|(a, _), (b, _)| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        if let Some((_, anchor)) = best {
            self.taken
                .push(Bounds::of_text(anchor.0, anchor.1, w, TEXT_H));
            self.texts.push((text, anchor, style));
        }
    }

    fn draw(&self, root: &Area) -> Drawn {
        for (text, (at, pos), style) in &self.texts {
            root.draw_text(text, &style.pos(Pos::new(pos.0, pos.1)), *at)?;
        }
        Ok(())
    }
}

const ARROW_GAP: f64 = 9.0;
const ARROW_HEAD: f64 = 9.0;
/// How far the ridge label tries to stay from points, leaving room for theirs.
const RIDGE_LABEL_CLEARANCE: f64 = 60.0;
const POINT_LABEL_CLEARANCE: f64 = 14.0;
const POINT_LABEL_MAX_CHARS: usize = 40;

fn draw_roofline(root: &Area, chart: &Roofline, plan: &RooflinePlan) -> Drawn {
    root.fill(&WHITE)?;
    draw_title(root, chart.title)?;
    let bottom = 6 + plan.footnote.len() as u32 * (LINE_PX as u32 + 4);
    let mut cc = ChartBuilder::on(root)
        .margin_top(46)
        .margin_left(MARGIN_LEFT)
        .margin_right(24)
        .margin_bottom(bottom)
        .x_label_area_size(ROOF_X_AREA)
        .y_label_area_size(76)
        .build_cartesian_2d(plan.x.clone(), plan.y.clone())?;
    let descs = (
        "Arithmetic intensity (FLOP per DRAM byte)",
        "Performance (FLOP/s)",
    );
    configure_mesh(&mut cc, descs, (&plan.x, &plan.y))?;
    let (xr, yr) = cc.plotting_area().get_pixel_range();
    let points: Vec<(i32, i32)> = plan
        .placed
        .iter()
        .map(|(_, p)| cc.backend_coord(&(p.intensity, p.performance)))
        .collect();
    let arrows = arrow_segments(chart.arrows, &plan.placed, &points);
    let mut labels = Labeller {
        plot: Bounds {
            x0: f64::from(xr.start),
            y0: f64::from(yr.start),
            x1: f64::from(xr.end),
            y1: f64::from(yr.end),
        },
        taken: points.iter().map(|p| Bounds::around(*p, 7.0)).collect(),
        points,
        texts: Vec::new(),
    };
    for (from, to) in &arrows {
        labels.taken.extend(trace(*from, *to));
    }

    if let Some((flops, bandwidth)) = plan.roof {
        draw_roofs(root, &mut cc, plan, flops, bandwidth, &mut labels)?;
    }
    for (from, to) in &arrows {
        draw_arrow(root, *from, *to)?;
    }
    for ((_, point), &(px, py)) in plan.placed.iter().zip(&labels.points) {
        if point.ceiling {
            root.draw(&Circle::new((px, py), 5, WHITE.filled()))?;
            root.draw(&Circle::new((px, py), 5, MUTED.stroke_width(2)))?;
        } else {
            root.draw(&Circle::new((px, py), 6, WHITE.filled()))?;
            root.draw(&Circle::new((px, py), 5, PALETTE[0].filled()))?;
        }
    }
    for (k, (_, point)) in plan.placed.iter().enumerate() {
        let (px, py) = labels.points[k];
        let label = truncate(&point.label, POINT_LABEL_MAX_CHARS);
        let (text, ink) = if point.ceiling {
            (format!("{label} (ceiling)"), MUTED)
        } else {
            (label, INK)
        };
        let candidates = [
            ((px + 9, py), (HPos::Left, VPos::Center)),
            ((px - 9, py), (HPos::Right, VPos::Center)),
            ((px, py - 9), (HPos::Center, VPos::Bottom)),
            ((px, py + 9), (HPos::Center, VPos::Top)),
            ((px + 7, py - 7), (HPos::Left, VPos::Bottom)),
            ((px + 7, py + 7), (HPos::Left, VPos::Top)),
            ((px - 7, py - 7), (HPos::Right, VPos::Bottom)),
            ((px - 7, py + 7), (HPos::Right, VPos::Top)),
        ];
        let style = text_style(LABEL_PX, ink, HPos::Left, VPos::Top);
        labels.add(text, style, &candidates, Some(k), POINT_LABEL_CLEARANCE);
    }
    labels.draw(root)?;

    let (_, height) = root.dim_in_pixel();
    for (i, line) in plan.footnote.iter().enumerate() {
        let y = height as i32 - (plan.footnote.len() - i) as i32 * LINE_PX - 6;
        root.draw_text(
            line,
            &text_style(LABEL_PX, MUTED, HPos::Left, VPos::Top),
            (16, y),
        )?;
    }
    Ok(())
}

/// The peak roof (solid), the measured one (dashed), their key, and the
/// ridge marker with its label and a guide down to the x axis; lines and key
/// become obstacles for the labels placed after them.
fn draw_roofs(
    root: &Area,
    cc: &mut Chart,
    plan: &RooflinePlan,
    flops: f64,
    bandwidth: f64,
    labels: &mut Labeller,
) -> Drawn {
    let ridge = flops / bandwidth;
    let ridge_px = cc.backend_coord(&(ridge, flops));
    let floor_px = cc.backend_coord(&(ridge, plan.y.lo));
    root.draw(&DashedPathElement::new(
        vec![ridge_px, floor_px],
        3,
        3,
        RIDGE_GUIDE.stroke_width(1),
    ))?;
    let roofs: Vec<Vec<(f64, f64)>> = std::iter::once(bandwidth)
        .chain(plan.measured)
        .map(|bw| plan.roof_path(flops, bw))
        .collect();
    for (i, path) in roofs.iter().enumerate().rev() {
        if i == 0 {
            cc.draw_series(std::iter::once(PathElement::new(
                path.clone(),
                ROOF.stroke_width(2),
            )))?;
        } else {
            let dashes = DashedPathElement::new(path.clone(), 7, 5, MUTED.stroke_width(2));
            cc.draw_series(std::iter::once(dashes))?;
        }
        let pixels: Vec<(f64, f64)> = path
            .iter()
            .map(|p| {
                let (x, y) = cc.backend_coord(p);
                (f64::from(x), f64::from(y))
            })
            .collect();
        for pair in pixels.windows(2) {
            labels.taken.extend(trace(pair[0], pair[1]));
        }
    }
    root.draw(&Circle::new(ridge_px, 4, WHITE.filled()))?;
    root.draw(&Circle::new(ridge_px, 4, ROOF.stroke_width(2)))?;
    draw_roof_key(root, plan, flops, bandwidth, labels)?;

    let (rx, ry) = ridge_px;
    labels.add(
        format!("ridge {} FLOP/byte", sig3(ridge)),
        text_style(LABEL_PX, ROOF, HPos::Left, VPos::Top),
        &[
            ((rx - 8, ry - 6), (HPos::Right, VPos::Bottom)),
            ((rx + 8, ry + 6), (HPos::Left, VPos::Top)),
            ((rx + 8, ry - 6), (HPos::Left, VPos::Bottom)),
        ],
        None,
        RIDGE_LABEL_CLEARANCE,
    );
    Ok(())
}

/// The roofs' key, in the plot's top-left corner: above the sloped roof, a
/// region no honest measurement reaches, so it never hides a point.
fn draw_roof_key(
    root: &Area,
    plan: &RooflinePlan,
    flops: f64,
    bandwidth: f64,
    labels: &mut Labeller,
) -> Drawn {
    let rows: Vec<(String, bool)> = std::iter::once((
        format!(
            "peak: {}, {} DRAM",
            si_unit(flops, "FLOP/s"),
            si_unit(bandwidth, "B/s")
        ),
        true,
    ))
    .chain(
        plan.measured
            .map(|m| (format!("measured copy: {}", si_unit(m, "B/s")), false)),
    )
    .collect();
    let text_w = rows
        .iter()
        .map(|r| text_width(&r.0, LABEL_PX))
        .fold(0.0, f64::max);
    let (x0, y0) = (labels.plot.x0 as i32 + 10, labels.plot.y0 as i32 + 8);
    let (w, h) = ((text_w + 48.0).ceil() as i32, rows.len() as i32 * 18 + 8);
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        WHITE.filled(),
    ))?;
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        GRID.stroke_width(1),
    ))?;
    for (i, (text, solid)) in rows.iter().enumerate() {
        let cy = y0 + 13 + i as i32 * 18;
        let swatch = vec![(x0 + 8, cy), (x0 + 34, cy)];
        if *solid {
            root.draw(&PathElement::new(swatch, ROOF.stroke_width(2)))?;
        } else {
            root.draw(&DashedPathElement::new(swatch, 6, 4, MUTED.stroke_width(2)))?;
        }
        let style = text_style(
            LABEL_PX,
            if *solid { ROOF } else { MUTED },
            HPos::Left,
            VPos::Center,
        );
        root.draw_text(text, &style, (x0 + 40, cy))?;
    }
    labels.taken.push(Bounds {
        x0: f64::from(x0),
        y0: f64::from(y0),
        x1: f64::from(x0 + w),
        y1: f64::from(y0 + h),
    });
    Ok(())
}

/// Small boxes every few pixels along a segment, so labels keep off lines.
fn trace(from: (f64, f64), to: (f64, f64)) -> impl Iterator<Item = Bounds> {
    let steps = ((to.0 - from.0).hypot(to.1 - from.1) / 6.0).ceil().max(1.0) as usize;
    (0..=steps).map(move |i| {
        let t = i as f64 / steps as f64;
        let (x, y) = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
        Bounds::around((x.round() as i32, y.round() as i32), 2.0)
    })
}

/// Pixel segments for the arrows that join two distinct placed points far
/// enough apart to show, shortened so they start and end beside the markers.
fn arrow_segments(
    arrows: &[(usize, usize)],
    placed: &[(usize, RooflinePoint)],
    pixel: &[(i32, i32)],
) -> Vec<((f64, f64), (f64, f64))> {
    let find = |i: usize| {
        placed
            .iter()
            .position(|(orig, _)| *orig == i)
            .map(|k| (f64::from(pixel[k].0), f64::from(pixel[k].1)))
    };
    arrows
        .iter()
        .filter(|(i, j)| i != j)
        .filter_map(|&(i, j)| {
            let (a, b) = (find(i)?, find(j)?);
            let len = (b.0 - a.0).hypot(b.1 - a.1);
            (len > 2.0 * ARROW_GAP + ARROW_HEAD).then(|| {
                let (dx, dy) = ((b.0 - a.0) / len, (b.1 - a.1) / len);
                (
                    (a.0 + dx * ARROW_GAP, a.1 + dy * ARROW_GAP),
                    (b.0 - dx * ARROW_GAP, b.1 - dy * ARROW_GAP),
                )
            })
        })
        .collect()
}

fn draw_arrow(root: &Area, from: (f64, f64), to: (f64, f64)) -> Drawn {
    let len = (to.0 - from.0).hypot(to.1 - from.1);
    let (dx, dy) = ((to.0 - from.0) / len, (to.1 - from.1) / len);
    let px = |x: f64, y: f64| (x.round() as i32, y.round() as i32);
    let neck = (to.0 - dx * ARROW_HEAD, to.1 - dy * ARROW_HEAD);
    let ink = RGBColor(85, 85, 85);
    root.draw(&PathElement::new(
        vec![px(from.0, from.1), px(neck.0 + dx, neck.1 + dy)],
        ink.stroke_width(2),
    ))?;
    let half = ARROW_HEAD * 0.45;
    root.draw(&Polygon::new(
        vec![
            px(to.0, to.1),
            px(neck.0 - dy * half, neck.1 + dx * half),
            px(neck.0 + dy * half, neck.1 - dx * half),
        ],
        ink.filled(),
    ))?;
    Ok(())
}

// ------------------------------------------------------------------- shared

/// A numeric axis with chosen tick positions: linear or log, mapped here so
/// that ticks, grid lines and labels sit exactly where the chart wants them.
#[derive(Clone, Debug)]
struct Axis {
    log: bool,
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    /// one per tick once [`Axis::labelled`]
    labels: Vec<String>,
}

impl Axis {
    fn pinned(log: bool, lo: f64, hi: f64, ticks: Vec<f64>) -> Self {
        Axis {
            log,
            lo,
            hi,
            ticks,
            labels: Vec::new(),
        }
    }

    /// Tick labels from `format`, unless it makes two ticks read alike (say
    /// "{v:.0}" on a log axis reaching 0.1): then plain compact numbers.
    fn labelled(mut self, format: &dyn Fn(f64) -> String) -> Self {
        let labels: Vec<String> = self.ticks.iter().map(|t| format(*t)).collect();
        let distinct = labels
            .iter()
            .enumerate()
            .all(|(i, l)| !labels[..i].contains(l));
        self.labels = if distinct {
            labels
        } else {
            self.ticks.iter().map(|t| compact(*t)).collect()
        };
        self
    }

    fn label(&self, v: f64) -> String {
        self.ticks
            .iter()
            .position(|t| *t == v)
            .and_then(|i| self.labels.get(i).cloned())
            .unwrap_or_else(|| compact(v))
    }

    fn widest_label(&self) -> f64 {
        self.labels
            .iter()
            .map(|l| text_width(l, LABEL_PX))
            .fold(0.0, f64::max)
    }

    /// From `lo` to `hi` widened to whole 1-2-2.5-5 steps, about five ticks.
    fn linear(lo: f64, hi: f64) -> Self {
        let hi = if hi > lo { hi } else { lo + 1.0 };
        let step = nice_step(hi - lo);
        let (first, last) = ((lo / step).floor(), (hi / step).ceil());
        let ticks = (0..=(last - first) as i64)
            .map(|i| (first + i as f64) * step)
            .collect();
        Axis::pinned(false, first * step, last * step, ticks)
    }

    /// Ticks at decades (every few decades when there are many), and at
    /// 2 and 5 as well when `fine` and the range spans at most three decades.
    fn log(lo: f64, hi: f64, fine: bool) -> Self {
        let hi = if hi > lo { hi } else { lo * 10.0 };
        let (e0, e1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let decades = e1 - e0;
        let multiples: &[f64] = if fine && decades <= 3 {
            &[1.0, 2.0, 5.0]
        } else {
            &[1.0]
        };
        let stride = (decades + 6) / 7;
        let inside = |t: f64| t >= lo * (1.0 - 1e-9) && t <= hi * (1.0 + 1e-9);
        let mut ticks: Vec<f64> = (e0..=e1)
            .filter(|e| (e - e0) % stride.max(1) == 0)
            .flat_map(|e| multiples.iter().map(move |m| m * 10f64.powi(e)))
            .filter(|t| inside(*t))
            .collect();
        if ticks.len() < 2 {
            let linear = Axis::linear(lo, hi);
            ticks = linear
                .ticks
                .into_iter()
                .filter(|t| *t > 0.0 && inside(*t))
                .collect();
        }
        Axis::pinned(true, lo, hi, ticks)
    }

    /// Position of `v` from 0 (lo) to 1 (hi).
    fn fraction(&self, v: f64) -> f64 {
        if self.log {
            (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let t = self.fraction(*value);
        let t = if t.is_finite() {
            t.clamp(-1.0, 2.0)
        } else {
            0.0
        };
        (f64::from(limit.0) + t * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        match hint.weight() {
            KeyPointWeight::Bold => self.ticks.clone(),
            KeyPointWeight::Any => Vec::new(),
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

fn nice_step(span: f64) -> f64 {
    let raw = span / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .find(|m| raw <= m * magnitude * (1.0 + 1e-9))
        .unwrap_or(10.0);
    step * magnitude
}

fn min_max(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        })
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>;

/// Grid, axes, tick labels and axis titles in the common style. Grid lines
/// and labels sit at the axes' own ticks, so an axis without ticks has none.
fn configure_mesh(cc: &mut Chart, (x_desc, y_desc): (&str, &str), (x, y): (&Axis, &Axis)) -> Drawn {
    let format_x = |v: &f64| x.label(*v);
    let format_y = |v: &f64| y.label(*v);
    cc.configure_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .axis_style(AXIS)
        .set_all_tick_mark_size(4)
        .label_style(font(LABEL_PX).color(&INK))
        .axis_desc_style(font(12.5).color(&INK))
        .x_label_formatter(&format_x)
        .y_label_formatter(&format_y)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()?;
    Ok(())
}

const TITLE_MAX_CHARS: usize = 80;

fn draw_title(root: &Area, title: &str) -> Drawn {
    let style = font(15.0)
        .style(FontStyle::Bold)
        .color(&INK)
        .pos(Pos::new(HPos::Left, VPos::Top));
    root.draw_text(&truncate(title, TITLE_MAX_CHARS), &style, (16, 12))?;
    Ok(())
}

enum Swatch {
    Bar(RGBColor),
    /// colour and marker shape
    Line(RGBColor, usize),
}

/// A horizontal legend under the title, wrapping onto more rows when needed.
struct Legend {
    items: Vec<(String, Swatch, (i32, i32))>,
    rows: u32,
}

const LEGEND_ROW: u32 = 18;
const LEGEND_MAX_CHARS: usize = 60;

impl Legend {
    fn new(entries: Vec<(String, Swatch)>) -> Self {
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

    fn height(&self) -> u32 {
        self.rows * LEGEND_ROW
    }

    fn draw(&self, root: &Area, top: i32) -> Drawn {
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
fn draw_marker(root: &Area, (x, y): (i32, i32), shape: usize, colour: RGBColor) -> Drawn {
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

fn color(series: usize) -> RGBColor {
    PALETTE[series % PALETTE.len()]
}

fn font(px: f64) -> FontDesc<'static> {
    // The size whose division by the backend's scale gives `px` exactly, so
    // the SVG says font-size="12" rather than "12.000000000000002".
    let size = px * PLOTTERS_FONT_SCALE;
    let size = [size, size.next_down(), size.next_up()]
        .into_iter()
        .find(|s| s / PLOTTERS_FONT_SCALE == px)
        .unwrap_or(size);
    FontDesc::new(FontFamily::Name(FONT_STACK), size, FontStyle::Normal)
}

fn text_style(px: f64, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    font(px).color(&colour).pos(Pos::new(h, v))
}

fn text_width(text: &str, px: f64) -> f64 {
    text.chars().count() as f64 * px * GLYPH_EM
}

/// Three significant digits, trailing zeros dropped: 12.5, 0.0125, 1250.
fn sig3(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

const SI: [(f64, &str); 6] = [
    (1e18, "E"),
    (1e15, "P"),
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
];

fn si_parts(v: f64) -> (String, &'static str) {
    SI.iter()
        .find(|(scale, _)| v.abs() >= *scale)
        .map_or((sig3(v), ""), |(scale, prefix)| (sig3(v / scale), prefix))
}

/// Tick-style number: 0.01, 1, 10k, 100T.
fn compact(v: f64) -> String {
    let (number, prefix) = si_parts(v);
    format!("{number}{prefix}")
}

/// Quantity with a unit: "67 TFLOP/s", "4.8 TB/s".
fn si_unit(v: f64, unit: &str) -> String {
    let (number, prefix) = si_parts(v);
    format!("{number} {prefix}{unit}")
}

/// Draws into a fresh SVG document; a drawing error becomes a message SVG.
fn render(title: &str, size: (u32, u32), draw: impl FnOnce(&Area) -> Drawn) -> String {
    let mut svg = String::new();
    let outcome = {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw(&root).and_then(|()| root.present().map_err(Into::into))
    };
    match outcome {
        Ok(()) => with_title(svg, title),
        Err(err) => message_svg(title, &format!("chart could not be drawn: {err}")),
    }
}

/// Adds the accessible `<title>`, `role` and the font stack to plotters' `<svg>` tag.
fn with_title(svg: String, title: &str) -> String {
    let Some(end) = svg.find('>') else {
        return svg;
    };
    let mut out = String::with_capacity(svg.len() + title.len() + 160);
    out.push_str(&svg[..end]);
    let _ = write!(
        out,
        " role=\"img\" font-family=\"{FONT_STACK}\">\n<title>{}</title>",
        escape(title)
    );
    out.push_str(&svg[end + 1..]);
    out
}

/// A small SVG with the chart title and one line of text instead of a chart.
fn message_svg(title: &str, message: &str) -> String {
    let (title, message) = (escape(title), escape(message));
    format!(
        "<svg width=\"{WIDTH}\" height=\"96\" viewBox=\"0 0 {WIDTH} 96\" \
         xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" font-family=\"{FONT_STACK}\">\n\
         <title>{title}</title>\n\
         <rect x=\"0.5\" y=\"0.5\" width=\"{}\" height=\"95\" fill=\"#FAFAFA\" stroke=\"#DDDDDD\"/>\n\
         <text x=\"16\" y=\"32\" font-size=\"15\" font-weight=\"bold\" fill=\"#222222\">{title}</text>\n\
         <text x=\"16\" y=\"64\" font-size=\"13\" fill=\"#666666\">{message}</text>\n\
         </svg>\n",
        WIDTH - 1
    )
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn count(svg: &str, needle: &str) -> usize {
        svg.matches(needle).count()
    }

    /// The text content of every `<text>` element, trimmed (plotters writes one per line).
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|chunk| {
                let body = &chunk[chunk.find('>')? + 1..];
                Some(body[..body.find("</text>")?].trim().to_string())
            })
            .collect()
    }

    /// Parses the whole document; panics on malformed XML or mismatched tags.
    fn assert_well_formed(svg: &str) {
        let mut reader = quick_xml::Reader::from_str(svg);
        let mut depth = 0usize;
        loop {
            match reader.read_event() {
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(quick_xml::events::Event::Start(_)) => depth += 1,
                Ok(quick_xml::events::Event::End(_)) => depth -= 1,
                Ok(_) => {}
                Err(err) => panic!("malformed SVG: {err}\n{svg}"),
            }
        }
        assert_eq!(depth, 0, "unclosed elements");
    }

    fn plain(v: f64) -> String {
        format!("{v:.1}")
    }

    fn series(name: &str, values: &[Option<f64>]) -> BarSeries {
        BarSeries {
            name: name.to_string(),
            values: values.to_vec(),
            whiskers: Vec::new(),
        }
    }

    fn bars<'a>(
        categories: &'a [String],
        marks: &'a [Mark],
        series: &'a [BarSeries],
        log_y: bool,
    ) -> BarChart<'a> {
        BarChart {
            title: "Kernel time",
            y_label: "time (µs)",
            categories,
            marks,
            series,
            log_y,
            reference_line: None,
            format: &plain,
        }
    }

    /// `<rect`s that are not bars: the background and one legend swatch per series.
    fn bar_rects(svg: &str, series: usize) -> usize {
        count(svg, "<rect") - 1 - series
    }

    #[test]
    fn one_bar_per_present_value() {
        let categories = names(&["naive", "coalesced", "padded-32x33"]);
        let series = [
            series("1024²", &[Some(10.0), None, Some(3.0)]),
            series("4096²", &[Some(160.0), Some(40.0), None]),
        ];
        let svg = bar_chart(&bars(&categories, &[], &series, false));
        assert_eq!(bar_rects(&svg, 2), 4);
        // four bars, at most twelve: each gets its value label
        let t = texts(&svg);
        for v in ["10.0", "3.0", "160.0", "40.0"] {
            assert!(t.iter().any(|s| s == v), "missing value label {v} in {t:?}");
        }
        assert_eq!(
            t.iter().filter(|s| *s == MISSING).count(),
            2,
            "absent values say n/a"
        );
    }

    #[test]
    fn value_labels_only_when_few_bars() {
        let many = names(&["a", "b", "c", "d", "e", "f", "g"]);
        let two = [series("x", &[Some(1.3); 7]), series("y", &[Some(2.7); 7])];
        let svg = bar_chart(&bars(&many, &[], &two, false));
        assert_eq!(bar_rects(&svg, 2), 14);
        assert!(!texts(&svg).iter().any(|t| t == "1.3" || t == "2.7"));
        let svg = bar_chart(&bars(&many[..6], &[], &two, false));
        assert_eq!(texts(&svg).iter().filter(|t| *t == "2.7").count(), 6);
    }

    #[test]
    fn reference_line_is_dashed_and_labelled() {
        let categories = names(&["a", "b"]);
        let speedups = [series("speedup", &[Some(1.0), Some(3.0)])];
        let chart = BarChart {
            reference_line: Some((1.0, "baseline")),
            ..bars(&categories, &[], &speedups, true)
        };
        let svg = bar_chart(&chart);
        assert!(texts(&svg).iter().any(|t| t == "baseline"));
        assert!(
            svg.contains("stroke=\"#666666\""),
            "the dashes are drawn in the muted grey"
        );
    }

    #[test]
    fn whiskers_are_drawn_when_given() {
        let categories = names(&["a", "b", "c"]);
        let plain_series = [series("t", &[Some(1.0), Some(2.0), Some(3.0)])];
        let mut with = plain_series.clone();
        with[0].whiskers = vec![Some((0.8, 1.3)), None, Some((2.5, 3.5))];
        let without = bar_chart(&bars(&categories, &[], &plain_series, false));
        let whiskered = bar_chart(&bars(&categories, &[], &with, false));
        assert_eq!(
            count(&whiskered, "<polyline") - count(&without, "<polyline"),
            2
        );
    }

    #[test]
    fn legend_names_every_series() {
        let categories = names(&["a", "b"]);
        let series = [
            series("small 256²", &[Some(1.0), Some(2.0)]),
            series("large 8192²", &[Some(3.0), None]),
        ];
        let t = texts(&bar_chart(&bars(&categories, &[], &series, false)));
        assert!(t.iter().any(|s| s == "small 256²"));
        assert!(t.iter().any(|s| s == "large 8192²"));

        let lines = [LineSeries {
            name: "padded & vectorized".to_string(),
            points: vec![Some(1.0), Some(2.0)],
        }];
        let svg = line_chart(&LineChart {
            title: "Scaling",
            x_label: "n",
            y_label: "GB/s",
            x_values: &[1.0, 2.0],
            x_tick_labels: &[],
            series: &lines,
            log_x: false,
            log_y: false,
            format: &plain,
        });
        assert!(texts(&svg).iter().any(|s| s == "padded &amp; vectorized"));
    }

    #[test]
    fn caller_text_is_escaped_everywhere() {
        let evil = "<script>alert(1)</script>";
        let categories = names(&[evil, "ok"]);
        let series = [series(evil, &[Some(1.0), Some(2.0)])];
        let chart = BarChart {
            title: evil,
            y_label: evil,
            reference_line: Some((1.5, evil)),
            format: &|v| format!("<{v}>&\""),
            ..bars(&categories, &[Mark::Wrong], &series, false)
        };
        let points = [RooflinePoint {
            label: evil.to_string(),
            intensity: 1.0,
            performance: 1e12,
            ceiling: false,
        }];
        let roof = roofline(&Roofline {
            title: evil,
            points: &points,
            peak_flops: 1e13,
            peak_bandwidth: 1e12,
            measured_bandwidth: None,
            arrows: &[],
        });
        for svg in [bar_chart(&chart), roof.svg, message_svg(evil, evil)] {
            assert_well_formed(&svg);
            assert!(!svg.contains("<script"), "raw <script> in {svg}");
            assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
            assert!(svg.contains(&format!("<title>{}</title>", escape(evil))));
        }
    }

    #[test]
    fn svg_is_self_contained_and_titled() {
        let categories = names(&["a"]);
        let series = [series("t", &[Some(1.0)])];
        let svg = bar_chart(&bars(&categories, &[], &series, false));
        assert!(svg.starts_with("<svg "));
        assert!(svg.contains("<title>Kernel time</title>"));
        assert!(svg.contains(&format!("font-family=\"{FONT_STACK}\"")));
        assert!(svg.trim_end().ends_with("</svg>"));
        for external in ["<image", "href", "url(", "@import", "@font-face"] {
            assert!(!svg.contains(external), "{external} in output");
        }
    }

    #[test]
    fn log_axis_skips_zero_negative_and_nan() {
        let categories = names(&["zero", "negative", "nan", "fine", "inf"]);
        let mut s = series(
            "speedup",
            &[
                Some(0.0),
                Some(-2.0),
                Some(f64::NAN),
                Some(4.0),
                Some(f64::INFINITY),
            ],
        );
        s.whiskers = vec![None, None, None, Some((-1.0, 5.0)), None];
        let series = [s];
        let chart = BarChart {
            reference_line: Some((0.0, "baseline")),
            ..bars(&categories, &[], &series, true)
        };
        let svg = bar_chart(&chart);
        assert_eq!(bar_rects(&svg, 1), 1);
        assert!(
            !texts(&svg).iter().any(|t| t == "baseline"),
            "a zero reference line has no place on a log axis"
        );

        let lines = [LineSeries {
            name: "bw".to_string(),
            points: vec![Some(0.0), Some(5.0), Some(-1.0), Some(7.0), Some(8.0)],
        }];
        let svg = line_chart(&LineChart {
            title: "Scaling",
            x_label: "n",
            y_label: "GB/s",
            x_values: &[1.0, 2.0, 4.0, 0.0, 16.0],
            x_tick_labels: &[],
            series: &lines,
            log_x: true,
            log_y: true,
            format: &plain,
        });
        // only x = 2 and x = 16 are drawable: two markers, and no line across the gaps
        assert_eq!(
            count(&svg, "<circle"),
            2 + 1,
            "two points plus the legend marker"
        );
        let blue_lines = "stroke=\"#0072B2\" stroke-width=\"2\" points";
        assert_eq!(
            count(&svg, blue_lines),
            1,
            "only the legend swatch: no line across gaps"
        );
    }

    #[test]
    fn empty_inputs_say_no_data() {
        let series = [series("t", &[None, None])];
        let categories = names(&["a", "b"]);
        let cases = [
            bar_chart(&bars(&[], &[], &[], false)),
            bar_chart(&bars(&categories, &[], &series, false)),
            bar_chart(&bars(&categories, &[], &[], false)),
            line_chart(&LineChart {
                title: "Scaling",
                x_label: "n",
                y_label: "y",
                x_values: &[1.0, 2.0],
                x_tick_labels: &[],
                series: &[LineSeries {
                    name: "x".to_string(),
                    points: vec![None, None],
                }],
                log_x: false,
                log_y: false,
                format: &plain,
            }),
            line_chart(&LineChart {
                title: "Scaling",
                x_label: "n",
                y_label: "y",
                x_values: &[],
                x_tick_labels: &[],
                series: &[],
                log_x: true,
                log_y: true,
                format: &plain,
            }),
            roofline(&Roofline {
                title: "Roofline",
                points: &[],
                peak_flops: 1e13,
                peak_bandwidth: 1e12,
                measured_bandwidth: None,
                arrows: &[(0, 1)],
            })
            .svg,
        ];
        for svg in cases {
            assert!(texts(&svg).iter().any(|t| t == NO_DATA), "{svg}");
            assert!(svg.contains("<title>"));
        }
    }

    #[test]
    fn drawing_errors_become_a_message_svg() {
        let svg = render("Broken <chart>", (WIDTH, 200), |_| {
            Err("backend said no".into())
        });
        assert_well_formed(&svg);
        assert!(
            texts(&svg)
                .iter()
                .any(|t| t == "chart could not be drawn: backend said no")
        );
        assert!(svg.contains("<title>Broken &lt;chart&gt;</title>"));
    }

    #[test]
    fn marks_tag_ceiling_and_wrong() {
        let categories = names(&["cub-copy", "naive", "broken"]);
        let series = [series("t", &[Some(1.0), Some(2.0), Some(3.0)])];
        let marks = [Mark::Ceiling, Mark::Normal, Mark::Wrong];
        let svg = bar_chart(&bars(&categories, &marks, &series, false));
        let t = texts(&svg);
        assert!(t.iter().any(|s| s == "ceiling"));
        assert!(t.iter().any(|s| s == "wrong"));
        // each marked bar gets an outline rectangle on top of its fill
        assert_eq!(bar_rects(&svg, 1), 3 + 2);
        assert!(svg.contains("stroke=\"#D55E00\""));
    }

    #[test]
    fn long_labels_wrap_then_rotate() {
        assert_eq!(
            wrap_label("padded-32x33", 8),
            Some(names(&["padded-", "32x33"]))
        );
        assert_eq!(wrap_label("naive", 8), Some(names(&["naive"])));
        assert_eq!(wrap_label("vectorizedfloat4", 8), None);

        let few = CategoryLabels::new(&names(&["naive", "padded-32x33"]), &[], 300.0);
        assert!(!few.rotated);
        let many: Vec<String> = (0..20).map(|i| format!("variant-number-{i}")).collect();
        let crowded = CategoryLabels::new(&many, &[], 30.0);
        assert!(crowded.rotated);
        let svg = bar_chart(&bars(&many, &[], &[series("t", &[Some(1.0); 20])], false));
        assert_eq!(
            count(&svg, "rotate(270"),
            20 + 1,
            "labels and the y axis title"
        );
        assert_eq!(
            texts(&svg)
                .iter()
                .filter(|t| t.starts_with("variant-number-"))
                .count(),
            20
        );
    }

    fn steps() -> Vec<RooflinePoint> {
        let p = |label: &str, intensity: f64, performance: f64, ceiling: bool| RooflinePoint {
            label: label.to_string(),
            intensity,
            performance,
            ceiling,
        };
        vec![
            p("naive", 0.25, 0.6e12, false),
            p("smem-tiled", 2.0, 6.5e12, false),
            p("register-blocked 8x8", 16.0, 31e12, false),
            p("vectorized-float4", 24.0, 44e12, false),
            p("cuBLAS", 40.0, 55e12, true),
            p("transpose-copy", 0.0, 0.0, false),
        ]
    }

    fn h200<'a>(points: &'a [RooflinePoint], arrows: &'a [(usize, usize)]) -> Roofline<'a> {
        Roofline {
            title: "Roofline: SGEMM variants on H200",
            points,
            peak_flops: 60e12,
            peak_bandwidth: 4.8e12,
            measured_bandwidth: Some(4.1e12),
            arrows,
        }
    }

    #[test]
    fn roofline_draws_one_arrow_per_valid_step() {
        let points = steps();
        // 0→1, 1→2, 2→3 drawn; 3→5 ends at a skipped point, 7 does not exist, 2→2 is no step
        let arrows = [(0, 1), (1, 2), (2, 3), (3, 5), (6, 7), (2, 2)];
        let out = roofline(&h200(&points, &arrows));
        assert_eq!(count(&out.svg, "<polygon"), 3);
        // five placed points: a filled marker each (ceiling: hollow) on a white halo
        assert_eq!(
            count(&out.svg, "<circle"),
            5 * 2 + 2,
            "points plus the ridge marker"
        );
    }

    #[test]
    fn roofline_labels_ridge_and_roofs() {
        let points = steps();
        let out = roofline(&h200(&points, &[]));
        let t = texts(&out.svg);
        assert_eq!(sig3(60e12 / 4.8e12), "12.5");
        assert!(t.iter().any(|s| s == "ridge 12.5 FLOP/byte"), "{t:?}");
        assert!(t.iter().any(|s| s == "peak: 60 TFLOP/s, 4.8 TB/s DRAM"));
        assert!(t.iter().any(|s| s == "measured copy: 4.1 TB/s"));
        for label in [
            "naive",
            "smem-tiled",
            "register-blocked 8x8",
            "cuBLAS (ceiling)",
        ] {
            assert!(t.iter().any(|s| s == label), "missing {label}");
        }
    }

    #[test]
    fn roofline_skips_zero_intensity_and_says_so() {
        let mut points = steps();
        points.push(RooflinePoint {
            label: "nan".to_string(),
            intensity: 1.0,
            performance: f64::NAN,
            ceiling: false,
        });
        let out = roofline(&h200(&points, &[]));
        assert_eq!(out.skipped, names(&["transpose-copy", "nan"]));
        assert!(!texts(&out.svg).iter().any(|s| s == "transpose-copy"));
        assert!(
            texts(&out.svg)
                .iter()
                .any(|s| s.starts_with("Not placed") && s.ends_with("transpose-copy, nan"))
        );

        let copies = [RooflinePoint {
            label: "copy".to_string(),
            intensity: 0.0,
            performance: 0.0,
            ceiling: false,
        }];
        let only_copies = roofline(&h200(&copies, &[]));
        assert_eq!(only_copies.skipped, names(&["copy"]));
        assert!(texts(&only_copies.svg).iter().any(|t| t == NO_DATA));
    }

    #[test]
    fn roofline_axes_contain_points_and_ridge() {
        let points = steps();
        let chart = h200(&points, &[]);
        let placed: Vec<(usize, &RooflinePoint)> = points.iter().enumerate().take(5).collect();
        let plan = RooflinePlan::new(&chart, &placed, &[]);
        for p in &points[..5] {
            assert!(plan.x.lo < p.intensity && p.intensity < plan.x.hi);
            assert!(plan.y.lo < p.performance && p.performance < plan.y.hi);
        }
        let ridge_measured = 60e12 / 4.1e12;
        assert!(plan.x.hi > ridge_measured && plan.y.hi > 60e12);
    }

    #[test]
    fn unknown_peaks_draw_points_without_roof() {
        let points = steps();
        let chart = Roofline {
            peak_flops: 0.0,
            peak_bandwidth: f64::NAN,
            ..h200(&points, &[])
        };
        let out = roofline(&chart);
        let t = texts(&out.svg);
        assert!(!t.iter().any(|s| s.starts_with("ridge")));
        assert!(t.iter().any(|s| s.starts_with("Device peaks unknown")));
        assert!(t.iter().any(|s| s == "naive"));
    }

    #[test]
    fn axis_ticks_are_nice() {
        assert_eq!(
            Axis::linear(0.0, 9.3).ticks,
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(
            Axis::log(0.1, 30.0, true).ticks,
            vec![0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
        );
        let sparse = Axis::log(1e-2, 1e16, false).ticks;
        assert_eq!(
            sparse,
            [1e-2, 1e1, 1e4, 1e7, 1e10, 1e13, 1e16],
            "every third decade"
        );
        assert_eq!(compact(2.5e12), "2.5T");
        let whole = |v: f64| format!("{v:.0}");
        assert_eq!(
            Axis::log(0.1, 30.0, true).labelled(&whole).labels[..3],
            ["0.1", "0.2", "0.5"]
        );
        assert_eq!(
            Axis::linear(0.0, 9.3).labelled(&whole).labels[..2],
            ["0", "2"]
        );
        assert_eq!(compact(0.01), "0.01");
        assert_eq!(si_unit(4.8e12, "B/s"), "4.8 TB/s");
    }

    /// Writes one example of each chart to target/chart-examples/ for looking at.
    #[test]
    fn write_examples() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/chart-examples");
        std::fs::create_dir_all(&dir).expect("create target/chart-examples");
        let write = |name: &str, svg: &str| {
            assert_well_formed(svg);
            std::fs::write(dir.join(name), svg).expect("write example svg");
        };

        let variants = names(&[
            "naive",
            "coalesced",
            "smem-tiled",
            "padded-32x33",
            "vectorized-float4",
            "cub-copy",
        ]);
        let marks = [
            Mark::Normal,
            Mark::Normal,
            Mark::Normal,
            Mark::Normal,
            Mark::Wrong,
            Mark::Ceiling,
        ];
        let timing = |name: &str, scale: f64| {
            let base = [412.0, 131.0, 98.0, 71.0, 66.0, 58.0];
            BarSeries {
                name: name.to_string(),
                values: base.iter().map(|v| Some(v * scale)).collect(),
                whiskers: base
                    .iter()
                    .map(|v| Some((v * scale * 0.96, v * scale * 1.07)))
                    .collect(),
            }
        };
        let sizes = [timing("4096×4096", 1.0), timing("8192×8192", 4.1)];
        write(
            "bars-time.svg",
            &bar_chart(&BarChart {
                title: "Kernel time per variant (median of 50 runs, whiskers min–max)",
                y_label: "time (µs)",
                categories: &variants,
                marks: &marks,
                series: &sizes,
                log_y: false,
                reference_line: None,
                format: &|v| format!("{v:.0}"),
            }),
        );

        let speedup = [BarSeries {
            name: "speedup over naive, 8192×8192".to_string(),
            values: vec![
                Some(1.0),
                Some(3.1),
                Some(4.2),
                Some(5.8),
                Some(6.2),
                Some(7.1),
            ],
            whiskers: Vec::new(),
        }];
        write(
            "bars-speedup-log.svg",
            &bar_chart(&BarChart {
                title: "Speedup over naive",
                y_label: "speedup",
                categories: &variants,
                marks: &marks,
                series: &speedup,
                log_y: true,
                reference_line: Some((1.0, "baseline")),
                format: &|v| format!("{v:.1}×"),
            }),
        );

        let many: Vec<String> = (0..16)
            .map(|i| format!("tile-{}x{}-unroll{}", 8 << (i % 3), 8 << (i % 2), i % 4 + 1))
            .collect();
        let many_series = [BarSeries {
            name: "DRAM throughput".to_string(),
            values: (0..16)
                .map(|i| (i != 5).then(|| 900.0 + 230.0 * f64::from(i % 7)))
                .collect(),
            whiskers: Vec::new(),
        }];
        write(
            "bars-many.svg",
            &bar_chart(&BarChart {
                title: "DRAM throughput of the tuning sweep",
                y_label: "GB/s",
                categories: &many,
                marks: &[],
                series: &many_series,
                log_y: false,
                reference_line: Some((4100.0, "copy 4.1 TB/s")),
                format: &|v| format!("{v:.0}"),
            }),
        );

        let x_values = [256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0];
        let x_tick_labels: Vec<String> = x_values.iter().map(|x| format!("{x}²")).collect();
        let curve = |name: &str, peak: f64, gap: Option<usize>| LineSeries {
            name: name.to_string(),
            points: (0..x_values.len())
                .map(|i| (Some(i) != gap).then(|| peak * (1.0 - 0.8 * 0.5f64.powi(i as i32))))
                .collect(),
        };
        let lines = [
            curve("naive", 610.0, None),
            curve("coalesced", 2300.0, None),
            curve("padded-32x33", 3600.0, Some(4)),
            curve("cub-copy", 4050.0, None),
        ];
        write(
            "lines-scaling.svg",
            &line_chart(&LineChart {
                title: "Effective bandwidth by matrix size",
                x_label: "matrix size (elements)",
                y_label: "GB/s",
                x_values: &x_values,
                x_tick_labels: &x_tick_labels,
                series: &lines,
                log_x: true,
                log_y: false,
                format: &|v| format!("{v:.0}"),
            }),
        );

        let points = steps();
        let out = roofline(&h200(&points, &[(0, 1), (1, 2), (2, 3)]));
        write("roofline.svg", &out.svg);

        let stencil: Vec<RooflinePoint> = [
            ("stencil-naive", 0.11, 0.42e12),
            ("stencil-smem", 0.31, 1.2e12),
            ("stencil-smem-halo2", 0.36, 1.35e12),
            ("stencil-temporal-blocking-4", 1.3, 4.6e12),
            ("stencil-temporal-blocking-8", 2.4, 8.1e12),
            ("fused-reduction", 0.5, 0.9e12),
        ]
        .iter()
        .map(|&(label, intensity, performance)| RooflinePoint {
            label: label.to_string(),
            intensity,
            performance,
            ceiling: false,
        })
        .collect();
        let crowded = roofline(&Roofline {
            title: "Roofline: stencil variants (memory bound)",
            arrows: &[(0, 1), (1, 2), (2, 3), (3, 4)],
            ..h200(&stencil, &[])
        });
        write("roofline-crowded.svg", &crowded.svg);

        let eight = names(&[
            "naive",
            "coalesced-reads",
            "coalesced-writes",
            "smem-tiled-32x32",
            "padded-32x33",
            "swizzled-xor",
            "vectorized-float4",
            "cub-device-copy",
        ]);
        let eight_marks = [Mark::Normal; 7]
            .into_iter()
            .chain([Mark::Ceiling])
            .collect::<Vec<_>>();
        let bank = |name: &str, f: f64| BarSeries {
            name: name.to_string(),
            values: (0..8)
                .map(|i| Some(f * (32.0 / f64::from(i + 1)).max(1.0)))
                .collect(),
            whiskers: Vec::new(),
        };
        let waves = [
            bank("loads", 1.0),
            bank("stores", 1.4),
            bank("atomics", 0.4),
        ];
        write(
            "bars-wrapped-log.svg",
            &bar_chart(&BarChart {
                title: "Shared-memory bank conflicts per request",
                y_label: "ways",
                categories: &eight,
                marks: &eight_marks,
                series: &waves,
                log_y: true,
                reference_line: Some((1.0, "conflict-free")),
                format: &|v| format!("{v:.0}"),
            }),
        );
        write("no-data.svg", &bar_chart(&bars(&[], &[], &[], false)));
        assert!(dir.join("roofline.svg").exists());
    }
}
