//! The roofline: its layout (which points have a place on log–log axes,
//! axes that hold the points and the ridge, the footnote on what was not
//! placed or drawn) and its drawing (the peak and measured roofs with their
//! key and ridge marker, the arrows between optimization steps, the points
//! and their labels, placed by `placement`, and the footnote).

use std::fmt::Write as _;

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{Axis, Chart, configure_mesh, min_max};
use super::heading::draw_title;
use super::numbers::{compact, si_unit, sig3};
use super::placement::{Bounds, Labeller};
use super::style::{
    GRID, INK, LABEL_PX, LINE_PX, MARGIN_LEFT, MUTED, PALETTE, RIDGE_GUIDE, ROOF, text_style,
    text_width, truncate,
};
use super::{Area, Drawn, Roofline, RooflinePoint};

const ROOF_X_AREA: u32 = 42;
const FOOTNOTE_MAX_CHARS: usize = 110;
const ARROW_GAP: f64 = 9.0;
const ARROW_HEAD: f64 = 9.0;
/// How far the ridge label tries to stay from points, leaving room for theirs.
const RIDGE_LABEL_CLEARANCE: f64 = 60.0;
const POINT_LABEL_CLEARANCE: f64 = 14.0;
const POINT_LABEL_MAX_CHARS: usize = 40;

pub(super) struct RooflinePlan {
    pub(super) height: u32,
    /// (index into the input, point) of every point that is placed
    placed: Vec<(usize, RooflinePoint)>,
    pub(super) x: Axis,
    pub(super) y: Axis,
    /// peak roof, if the peaks are usable
    roof: Option<(f64, f64)>,
    measured: Option<f64>,
    footnote: Vec<String>,
}

impl RooflinePlan {
    pub(super) fn new(
        chart: &Roofline,
        placed: &[(usize, &RooflinePoint)],
        skipped: &[String],
    ) -> Self {
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

pub(super) fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

pub(super) fn draw_roofline(root: &Area, chart: &Roofline, plan: &RooflinePlan) -> Drawn {
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
    let plot = Bounds {
        x0: f64::from(xr.start),
        y0: f64::from(yr.start),
        x1: f64::from(xr.end),
        y1: f64::from(yr.end),
    };
    let mut labels = Labeller::new(plot, points);
    for (from, to) in &arrows {
        labels.taken.extend(trace(*from, *to));
    }

    if let Some((flops, bandwidth)) = plan.roof {
        draw_roofs(root, &mut cc, plan, flops, bandwidth, &mut labels)?;
    }
    for (from, to) in &arrows {
        draw_arrow(root, *from, *to)?;
    }
    draw_points(root, &plan.placed, &labels.points)?;
    label_points(&plan.placed, &mut labels);
    labels.draw(root)?;
    draw_footnote(root, &plan.footnote)
}

/// The placed points at their pixels: the reference (ceiling) hollow and
/// muted, the others filled, each on a white halo.
fn draw_points(root: &Area, placed: &[(usize, RooflinePoint)], pixels: &[(i32, i32)]) -> Drawn {
    for ((_, point), &(px, py)) in placed.iter().zip(pixels) {
        if point.ceiling {
            root.draw(&Circle::new((px, py), 5, WHITE.filled()))?;
            root.draw(&Circle::new((px, py), 5, MUTED.stroke_width(2)))?;
        } else {
            root.draw(&Circle::new((px, py), 6, WHITE.filled()))?;
            root.draw(&Circle::new((px, py), 5, PALETTE[0].filled()))?;
        }
    }
    Ok(())
}

/// Each placed point's label, at the one of eight spots around its marker
/// that the labeller finds clearest.
fn label_points(placed: &[(usize, RooflinePoint)], labels: &mut Labeller) {
    for (k, (_, point)) in placed.iter().enumerate() {
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
}

/// The footnote lines at the bottom of the chart, in the room the plot
/// left for them.
fn draw_footnote(root: &Area, footnote: &[String]) -> Drawn {
    let (_, height) = root.dim_in_pixel();
    for (i, line) in footnote.iter().enumerate() {
        let y = height as i32 - (footnote.len() - i) as i32 * LINE_PX - 6;
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
