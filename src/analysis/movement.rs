//! How far a derived metric moved between two steps, judged against a
//! threshold scaled to how the metric is measured. Counts of instructions,
//! requests, sectors and wavefronts (and the ratios between them, the
//! registers and the shared memory of a launch) are deterministic: ncu
//! counts them exactly, so a move of 1% is already real. Sampled metrics
//! (throughputs, occupancy, hit rates, DRAM bytes, which depend on what the
//! caches held) vary between replays, so they need 5% before a move counts.
//! Above the floor and below 10% a move is `Small`; from 10% it is `Clear`,
//! the size a move must have to explain a change of time. Times are judged
//! by their own noise in `stats`, not here.

use super::derived::{Key, Unit};

/// A move of 10% or more (of the larger of the two values) is clear.
pub const CLEAR: f64 = 0.10;

/// Below this a deterministic counter is taken as unchanged.
const COUNTER_FLOOR: f64 = 0.01;

/// Below this a sampled metric is taken as unchanged.
const SAMPLED_FLOOR: f64 = 0.05;

/// How much a metric moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Unchanged,
    Small,
    Clear,
}

/// A metric's move from one step to the next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Move {
    pub size: Size,
    /// Whether the value went up.
    pub up: bool,
    /// The change over the larger of the two values, in −1..1.
    pub relative: f64,
}

impl Move {
    /// Whether the metric got better, where the metric has a better side.
    pub fn better(&self, key: Key) -> Option<bool> {
        key.info()
            .lower_is_better
            .map(|lower_is_better| self.up != lower_is_better)
    }
}

/// The share below which `key` is taken as unchanged.
pub fn floor(key: Key) -> f64 {
    match (key, key.info().unit) {
        (Key::DramBytes | Key::ArithmeticIntensity, _) => SAMPLED_FLOOR,
        (_, Unit::Percent | Unit::Milliseconds | Unit::Nanoseconds) => SAMPLED_FLOOR,
        _ => COUNTER_FLOOR,
    }
}

/// How `key` moved from `before` to `after`.
pub fn between(key: Key, before: f64, after: f64) -> Move {
    let scale = before.abs().max(after.abs());
    let relative = if scale > 0.0 {
        (after - before) / scale
    } else {
        0.0
    };
    let size = if relative.abs() >= CLEAR {
        Size::Clear
    } else if relative.abs() >= floor(key) {
        Size::Small
    } else {
        Size::Unchanged
    };
    Move {
        size,
        up: relative > 0.0,
        relative,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_move_from_one_percent_sampled_metrics_from_five_and_all_clearly_from_ten() {
        let cases = [
            (Key::WarpInstructions, 100.0, 98.0, Size::Small),
            (Key::WarpInstructions, 100.0, 99.5, Size::Unchanged),
            (Key::DramBytes, 100.0, 98.0, Size::Unchanged),
            (Key::AchievedOccupancy, 80.0, 77.0, Size::Unchanged),
            (Key::AchievedOccupancy, 80.0, 75.0, Size::Small),
            (Key::DramBytes, 100.0, 90.1, Size::Small),
            (Key::DramBytes, 100.0, 90.0, Size::Clear),
            (Key::DramBytes, 0.0, 0.0, Size::Unchanged),
        ];
        for (key, before, after, size) in cases {
            assert_eq!(
                between(key, before, after).size,
                size,
                "{key:?} {before} → {after}"
            );
        }
        assert!(!between(Key::DramBytes, 100.0, 90.0).up);
    }

    #[test]
    fn better_follows_the_side_of_the_metric_and_neutral_metrics_have_none() {
        let down = between(Key::GlobalLoadRequests, 8.0, 2.0);
        assert_eq!(down.better(Key::GlobalLoadRequests), Some(true));
        let up = between(Key::AchievedOccupancy, 40.0, 80.0);
        assert_eq!(up.better(Key::AchievedOccupancy), Some(true));
        let more_registers = between(Key::RegistersPerThread, 32.0, 128.0);
        assert_eq!(more_registers.better(Key::RegistersPerThread), None);
    }
}
