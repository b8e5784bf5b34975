//! The grouped bar chart: its layout (which bars are drawable, the y axis
//! and its headroom, margins, whether value and "n/a" labels fit) and its
//! drawing (bars with ceiling and wrong-result outlines, whiskers, the
//! dashed reference line, value labels and "n/a" for missing values). The
//! category names under the bars are laid out by `category_labels`.

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{Axis, Chart, configure_mesh, min_max};
use super::category_labels::CategoryLabels;
use super::heading::{Legend, Swatch, draw_title};
use super::style::{
    INK, LABEL_PX, MARGIN_LEFT, MUTED, WIDTH, WRONG, color, text_style, text_width, truncate,
};
use super::{Area, BarChart, BarSeries, Drawn, Mark};

const MAX_VALUE_LABELS: usize = 12;
const GROUP_WIDTH: f64 = 0.8;
const REFERENCE_MAX_CHARS: usize = 20;
const VALUE_PX: f64 = 11.5;
pub(super) const MISSING: &str = "n/a";
const MISSING_PX: f64 = 10.5;

pub(super) struct BarPlan {
    pub(super) height: u32,
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
    pub(super) fn new(chart: &BarChart) -> Option<Self> {
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
            let top = hi.max(0.0) * headroom;
            let top = chart.y_max.map_or(top, |most| top.min(most).max(hi));
            Axis::linear(lo.min(0.0), top)
        }
        .labelled(chart.format);
        let y_area = y.label_area();
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

pub(super) fn draw_bar_chart(root: &Area, chart: &BarChart, plan: &BarPlan) -> Drawn {
    root.fill(&WHITE)?;
    draw_title(root, chart.title)?;
    plan.legend.draw(root, 40)?;
    let n = chart.categories.len();
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

    for &bar in &plan.bars {
        draw_bar(&mut cc, chart, plan, base, bar)?;
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
        draw_value_labels(root, &cc, chart, plan)?;
    }
    if plan.missing_labels {
        draw_missing_labels(root, &cc, chart, plan, base)?;
    }

    let centres: Vec<i32> = (0..n)
        .map(|c| cc.backend_coord(&(c as f64 + 0.5, plan.y.lo)).0)
        .collect();
    plan.labels.draw(root, &centres, ys.end + 8)?;
    Ok(())
}

/// Bar `s` of category `c`, from `base` up (or down) to `v`: filled (faint
/// for the ceiling), outlined when its category is marked, and with its
/// whisker when the series has one there.
fn draw_bar(
    cc: &mut Chart,
    chart: &BarChart,
    plan: &BarPlan,
    base: f64,
    (c, s, v): (usize, usize, f64),
) -> Drawn {
    let (x0, x1) = bar_extent(c, s, chart.series.len());
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
    Ok(())
}

/// Each bar's value, formatted by the caller, above the bar or its whisker.
fn draw_value_labels(root: &Area, cc: &Chart, chart: &BarChart, plan: &BarPlan) -> Drawn {
    let k = chart.series.len();
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
    Ok(())
}

/// "n/a" at the foot of every bar slot that has no drawable value.
fn draw_missing_labels(
    root: &Area,
    cc: &Chart,
    chart: &BarChart,
    plan: &BarPlan,
    base: f64,
) -> Drawn {
    let k = chart.series.len();
    for c in 0..chart.categories.len() {
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
    Ok(())
}
