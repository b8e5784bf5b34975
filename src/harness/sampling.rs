//! When to stop sampling and in what order the variants of a size take
//! their turns, without the GPU: [`Collected`] keeps a run's cold and hot
//! samples turn by turn, putting aside those taken while the SM clock was
//! throttled, and says when the run may stop (each kind has the minimum
//! count and its median is known to within the target, the half-width of
//! its 95% interval from the samples' spread; or the time limit or the
//! most samples gpuprof keeps came first); [`round_robin`] gives every
//! unfinished run one turn per round, in order, until all are done.

use crate::model::timing::{Clock, Stop, median_uncertainty, relative_spread};

use super::clock::{THROTTLE_THRESHOLD, throttled};

/// The most samples of each kind kept per run (results.json keeps them
/// all).
pub const MAX_SAMPLES: usize = 2_000;

/// What a run's samples must reach before it stops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Goal {
    pub min_samples: usize,
    pub target_spread: f64,
    pub time_limit_s: f64,
}

/// One turn's samples, in milliseconds, and the lowest SM clock read
/// while it ran (None without NVML).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Turn {
    pub cold: Vec<f64>,
    pub hot: Vec<f64>,
    pub sm_mhz: Option<u32>,
    pub seconds: f64,
}

/// Cold and hot samples, and the SM clock of each turn they came from
/// (where NVML read one).
#[derive(Debug, Clone, PartialEq, Default)]
struct Samples {
    cold: Vec<f64>,
    hot: Vec<f64>,
    clocks: Vec<u32>,
}

/// The samples of one run so far.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Collected {
    kept: Samples,
    /// Samples of turns on a throttled clock, kept aside.
    throttled: Samples,
    pub seconds: f64,
}

impl Collected {
    /// Adds a turn, aside when its clock was below the threshold of
    /// `max_mhz`.
    pub fn add(&mut self, turn: Turn, max_mhz: Option<u32>) {
        self.seconds += turn.seconds;
        let into = match (turn.sm_mhz, max_mhz) {
            (Some(mhz), Some(max)) if throttled(mhz, max) => &mut self.throttled,
            _ => &mut self.kept,
        };
        into.cold.extend(turn.cold);
        into.hot.extend(turn.hot);
        into.clocks.extend(turn.sm_mhz);
    }

    /// Whether every turn so far ran throttled: its samples are then the
    /// only ones there are, and are used.
    fn throttled_throughout(&self) -> bool {
        self.kept.cold.is_empty() && self.kept.hot.is_empty() && !self.throttled.clocks.is_empty()
    }

    /// The samples that count: those at full clock, or every one when all
    /// were throttled.
    fn counted(&self) -> &Samples {
        match self.throttled_throughout() {
            true => &self.throttled,
            false => &self.kept,
        }
    }

    /// The cold and hot samples that count.
    pub fn effective(&self) -> (&[f64], &[f64]) {
        let counted = self.counted();
        (&counted.cold, &counted.hot)
    }

    /// Why the run may stop now, if it may.
    pub fn stop(&self, goal: &Goal) -> Option<Stop> {
        let (cold, hot) = self.effective();
        let settled = |samples: &[f64]| {
            samples.len() >= goal.min_samples
                && relative_spread(samples)
                    .is_some_and(|s| median_uncertainty(s, samples.len()) <= goal.target_spread)
        };
        if settled(cold) && settled(hot) {
            Some(Stop::SpreadReached)
        } else if cold.len().max(hot.len()) >= MAX_SAMPLES {
            Some(Stop::SampleLimit)
        } else if self.seconds >= goal.time_limit_s {
            Some(Stop::TimeLimit)
        } else {
            None
        }
    }

    /// Samples left out for a throttled clock.
    pub fn left_out(&self) -> u32 {
        match self.throttled_throughout() {
            true => 0,
            false => (self.throttled.cold.len() + self.throttled.hot.len()) as u32,
        }
    }

    /// The clock seen during the samples that count, or why none was read.
    pub fn clock(&self, nvml: Result<u32, &str>) -> Clock {
        let max_mhz = match nvml {
            Ok(max) => max,
            Err(reason) => {
                return Clock::Unavailable {
                    reason: reason.to_string(),
                };
            }
        };
        let mut seen = self.counted().clocks.clone();
        if seen.is_empty() {
            return Clock::Unavailable {
                reason: "NVML gave no SM clock while the samples ran".into(),
            };
        }
        seen.sort_unstable();
        Clock::Read {
            median_mhz: seen[seen.len() / 2],
            lowest_mhz: seen[0],
            max_mhz,
            threshold: THROTTLE_THRESHOLD,
            throttled_throughout: self.throttled_throughout(),
        }
    }

    /// The kept samples, cold then hot.
    pub fn into_samples(self) -> (Vec<f64>, Vec<f64>) {
        let counted = match self.throttled_throughout() {
            true => self.throttled,
            false => self.kept,
        };
        (counted.cold, counted.hot)
    }
}

/// Gives every run that is not `done` one turn per round, in order, until
/// all are done; stops at the first error.
pub fn round_robin<T, E>(
    runs: &mut [T],
    done: impl Fn(&T) -> bool,
    mut turn: impl FnMut(&mut T) -> Result<(), E>,
) -> Result<(), E> {
    while runs.iter().any(|r| !done(r)) {
        for run in runs.iter_mut() {
            if !done(run) {
                turn(run)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOAL: Goal = Goal {
        min_samples: 4,
        target_spread: 0.01,
        time_limit_s: 1.0,
    };

    fn turn(ms: f64, jitter: f64, sm_mhz: Option<u32>) -> Turn {
        let samples = vec![ms, ms * (1.0 + jitter), ms * (1.0 - jitter)];
        Turn {
            cold: samples.iter().map(|s| s * 2.0).collect(),
            hot: samples,
            sm_mhz,
            seconds: 0.125,
        }
    }

    #[test]
    fn a_steady_run_stops_once_both_kinds_have_the_minimum_count() {
        let mut run = Collected::default();
        run.add(turn(1.0, 0.001, Some(1980)), Some(1980));
        assert_eq!(run.stop(&GOAL), None, "3 samples of each, 4 needed");
        run.add(turn(1.0, 0.001, Some(1980)), Some(1980));
        assert_eq!(run.stop(&GOAL), Some(Stop::SpreadReached));
    }

    #[test]
    fn a_run_with_some_spread_stops_once_its_median_is_known_to_the_target() {
        // A relative spread of 1.5% (MAD × 1.4826): the median is known
        // to 1% after about 14 samples.
        let mut run = Collected::default();
        let mut turns = 0;
        while run.stop(&GOAL).is_none() {
            run.add(turn(1.0, 0.01, Some(1980)), Some(1980));
            turns += 1;
        }
        assert_eq!(run.stop(&GOAL), Some(Stop::SpreadReached));
        let count = run.effective().1.len();
        assert!(
            (12..=18).contains(&count),
            "{count} samples in {turns} turns"
        );
    }

    #[test]
    fn a_noisy_run_stops_at_its_time_limit() {
        let mut run = Collected::default();
        for _ in 0..7 {
            run.add(turn(1.0, 0.2, None), None);
            assert_eq!(run.stop(&GOAL), None);
        }
        run.add(turn(1.0, 0.2, None), None);
        assert_eq!(run.stop(&GOAL), Some(Stop::TimeLimit));
        let unlimited = Goal {
            time_limit_s: 1e9,
            ..GOAL
        };
        while run.stop(&unlimited).is_none() {
            run.add(turn(1.0, 0.2, None), None);
        }
        assert_eq!(run.stop(&unlimited), Some(Stop::SampleLimit));
        assert_eq!(run.effective().1.len(), MAX_SAMPLES.div_ceil(3) * 3);
    }

    #[test]
    fn throttled_turns_are_left_out_and_counted() {
        let mut run = Collected::default();
        run.add(turn(1.0, 0.001, Some(1980)), Some(1980));
        run.add(turn(1.5, 0.001, Some(1400)), Some(1980));
        run.add(turn(1.0, 0.001, Some(1900)), Some(1980));
        assert_eq!(run.left_out(), 6);
        assert_eq!(run.effective().1.len(), 6);
        assert_eq!(run.stop(&GOAL), Some(Stop::SpreadReached));
        assert_eq!(
            run.clock(Ok(1980)),
            Clock::Read {
                median_mhz: 1980,
                lowest_mhz: 1900,
                max_mhz: 1980,
                threshold: 0.9,
                throttled_throughout: false
            }
        );
        let (cold, hot) = run.into_samples();
        assert!(hot.iter().all(|s| *s < 1.01) && cold.len() == 6);
    }

    #[test]
    fn a_run_throttled_throughout_keeps_its_samples_and_says_so() {
        let mut run = Collected::default();
        run.add(turn(1.5, 0.001, Some(1400)), Some(1980));
        run.add(turn(1.5, 0.001, Some(1300)), Some(1980));
        assert_eq!(run.left_out(), 0);
        assert_eq!(run.stop(&GOAL), Some(Stop::SpreadReached));
        assert!(matches!(
            run.clock(Ok(1980)),
            Clock::Read {
                throttled_throughout: true,
                lowest_mhz: 1300,
                ..
            }
        ));
        assert_eq!(run.into_samples().1.len(), 6);
    }

    #[test]
    fn without_nvml_nothing_is_left_out_and_the_reason_is_kept() {
        let mut run = Collected::default();
        run.add(turn(1.0, 0.001, None), None);
        assert_eq!(run.left_out(), 0);
        assert_eq!(
            run.clock(Err("libnvidia-ml.so.1 could not be loaded")),
            Clock::Unavailable {
                reason: "libnvidia-ml.so.1 could not be loaded".into()
            }
        );
    }

    #[test]
    fn rounds_visit_every_unfinished_run_in_order() {
        // Run `a` needs 1 turn, `b` 3, `c` 2.
        let mut runs = [('a', 1), ('b', 3), ('c', 2)];
        let mut order = String::new();
        round_robin(
            &mut runs,
            |(_, left)| *left == 0,
            |(name, left)| {
                order.push(*name);
                *left -= 1;
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        assert_eq!(order, "abcbcb");
        let mut failing = [('a', 2), ('b', 2)];
        let mut turns = 0;
        let outcome = round_robin(
            &mut failing,
            |(_, left)| *left == 0,
            |(name, left)| {
                turns += 1;
                *left -= 1;
                if *name == 'b' { Err(*name) } else { Ok(()) }
            },
        );
        assert_eq!((outcome, turns), (Err('b'), 2));
    }
}
