//! The line chart of a metric over problem size: its layout (drawable
//! points, both axes with padding, x ticks thinned so that their labels do
//! not collide) and its drawing (one line per series, broken at gaps, with
//! a marker at every point).

use plotters::prelude::*;

use super::axis::{Axis, configure_mesh, min_max};
use super::heading::{Legend, Swatch, draw_marker, draw_title};
use super::numbers::compact;
use super::style::{LABEL_PX, MARGIN_LEFT, WIDTH, color, text_width};
use super::{Area, Drawn, LineChart};

pub(super) struct LinePlan {
    pub(super) height: u32,
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
    pub(super) fn new(chart: &LineChart) -> Option<Self> {
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
        let y_area = y.label_area();
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

pub(super) fn draw_line_chart(root: &Area, chart: &LineChart, plan: &LinePlan) -> Drawn {
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
