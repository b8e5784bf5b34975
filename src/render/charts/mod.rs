//! SVG charts for the report: grouped bar charts (per-variant timings and
//! speedups, with whiskers, ceiling and wrong-result marks), line charts
//! (how a metric scales with problem size), the roofline and the heat map
//! of a sweep over two parameters. Each chart is a
//! pure function from caller-formatted data to one self-contained SVG string:
//! no I/O, no fonts, no external references, every caller text escaped.
//! Drawing goes through plotters' SVG backend; category labels, legends,
//! point labels and roofline arrows are laid out here in pixel coordinates on
//! the same backend. A chart that cannot be drawn, or has nothing to draw,
//! comes back as a small SVG that says so, never as a panic.
//!
//! This file owns the charts' inputs and the four entry points,
//! [`bar_chart`], [`line_chart`], [`roofline()`] and [`heat_map`]; each
//! chart's layout and drawing live in `bars` (with `category_labels`),
//! `lines`, `heat_map` and `roofline`
//! (with `placement`, which places its labels), on the shared `axis`,
//! `heading` (title, legend, markers), `style` (sizes, colours, fonts),
//! `numbers` (tick and label numbers) and `svg` (the document around a
//! chart).
//!
//! One signature differs from the first sketch: [`roofline()`] returns a
//! [`RooflineSvg`] (the SVG plus the labels of the points it could not
//! place) rather than a bare `String`. A kernel with no floating-point work
//! (intensity 0, e.g. a transpose or a copy) has no position on a log–log
//! roofline; clamping it to the axis edge would draw a point at a made-up
//! intensity, so such points are skipped, named in a footnote under the
//! chart and returned so the report can show them elsewhere.

use std::error::Error;

use plotters::coord::Shift;
use plotters::prelude::*;

mod axis;
mod bars;
mod category_labels;
mod heading;
mod heat_map;
mod lines;
mod numbers;
mod placement;
mod roofline;
mod style;
mod svg;
#[cfg(test)]
mod tests;

use bars::{BarPlan, draw_bar_chart};
use heat_map::draw_heat_map;
use lines::{LinePlan, draw_line_chart};
use roofline::{RooflinePlan, draw_roofline, positive};
use style::WIDTH;
use svg::{message_svg, render};

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
    /// the most a value can be (100 for a percentage): the linear axis
    /// never runs past it
    pub y_max: Option<f64>,
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

/// A value over two parameters: one cell per pair of their values.
pub struct HeatMap<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub x_values: &'a [String],
    pub y_values: &'a [String],
    /// `cells[row][column]`, a row per y value and a column per x value;
    /// `None` where there is no value.
    pub cells: &'a [Vec<Option<f64>>],
    /// The label of a cell without a value, e.g. "skipped".
    pub missing: &'a str,
    /// formats a cell's value, e.g. |v| format!("{v:.2}×")
    pub format: &'a dyn Fn(f64) -> String,
}

const NO_DATA: &str = "no data";

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

pub fn heat_map(chart: &HeatMap) -> String {
    let drawable = !chart.x_values.is_empty()
        && chart.cells.len() == chart.y_values.len()
        && chart
            .cells
            .iter()
            .all(|row| row.len() == chart.x_values.len())
        && chart.cells.iter().flatten().any(Option::is_some);
    match drawable {
        true => render(
            chart.title,
            (WIDTH, heat_map::height(chart.y_values.len())),
            |root| draw_heat_map(root, chart),
        ),
        false => message_svg(chart.title, NO_DATA),
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
