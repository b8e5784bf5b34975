//! The numeric axes of every chart: [`Axis`], linear or log with ticks at
//! chosen, readable positions and labels that never read alike, mapped for
//! plotters through its `Ranged` trait; and the grid, axis lines, tick
//! labels and axis titles drawn from two such axes in the common style.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, KeyPointWeight, Ranged};
use plotters::prelude::*;

use super::Drawn;
use super::numbers::compact;
use super::style::{AXIS, GRID, INK, LABEL_PX, WIDTH, font, text_width};

/// A numeric axis with chosen tick positions: linear or log, mapped here so
/// that ticks, grid lines and labels sit exactly where the chart wants them.
#[derive(Clone, Debug)]
pub(super) struct Axis {
    log: bool,
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) ticks: Vec<f64>,
    /// one per tick once [`Axis::labelled`]
    pub(super) labels: Vec<String>,
}

impl Axis {
    pub(super) fn pinned(log: bool, lo: f64, hi: f64, ticks: Vec<f64>) -> Self {
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
    pub(super) fn labelled(mut self, format: &dyn Fn(f64) -> String) -> Self {
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

    /// The pixels left of the plot for this axis's tick labels and title:
    /// the widest label and 34 px, but never more than a quarter of the
    /// chart, so that a label hundreds of digits long (a corrupt timing)
    /// cannot squeeze the plot to nothing.
    pub(super) fn label_area(&self) -> u32 {
        ((self.widest_label() + 34.0).ceil() as u32).min(WIDTH / 4)
    }

    /// From `lo` to `hi` widened to whole 1-2-2.5-5 steps, about five ticks.
    pub(super) fn linear(lo: f64, hi: f64) -> Self {
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
    pub(super) fn log(lo: f64, hi: f64, fine: bool) -> Self {
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
    pub(super) fn fraction(&self, v: f64) -> f64 {
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

pub(super) fn min_max(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        })
}

pub(super) type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>;

/// Grid, axes, tick labels and axis titles in the common style. Grid lines
/// and labels sit at the axes' own ticks, so an axis without ticks has none.
pub(super) fn configure_mesh(
    cc: &mut Chart,
    (x_desc, y_desc): (&str, &str),
    (x, y): (&Axis, &Axis),
) -> Drawn {
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
