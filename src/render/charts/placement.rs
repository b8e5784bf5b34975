//! Label placement for the roofline: pixel boxes and their overlaps, and a
//! [`Labeller`] that puts each text at the candidate anchor where it
//! collides least with what is already drawn and stays clear of other
//! points, then draws all the texts it placed.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{PLOTTERS_FONT_SCALE, text_width};
use super::{Area, Drawn};

/// Axis-aligned pixel box, for label placement.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bounds {
    pub(super) x0: f64,
    pub(super) y0: f64,
    pub(super) x1: f64,
    pub(super) y1: f64,
}

impl Bounds {
    pub(super) fn around((x, y): (i32, i32), r: f64) -> Self {
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
pub(super) struct Labeller {
    pub(super) plot: Bounds,
    pub(super) points: Vec<(i32, i32)>,
    pub(super) taken: Vec<Bounds>,
    texts: Vec<(String, Anchor, TextStyle<'static>)>,
}

const TEXT_H: f64 = 15.0;

impl Labeller {
    /// A labeller for the plot box `plot`, with the markers of `points`
    /// already taken.
    pub(super) fn new(plot: Bounds, points: Vec<(i32, i32)>) -> Self {
        Labeller {
            plot,
            taken: points.iter().map(|p| Bounds::around(*p, 7.0)).collect(),
            points,
            texts: Vec::new(),
        }
    }

    /// `own`: the point the text labels, which it may sit next to.
    pub(super) fn add(
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

    pub(super) fn draw(&self, root: &Area) -> Drawn {
        for (text, (at, pos), style) in &self.texts {
            root.draw_text(text, &style.pos(Pos::new(pos.0, pos.1)), *at)?;
        }
        Ok(())
    }
}
