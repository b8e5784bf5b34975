//! `gpuprof report --shard i/n`: which sizes of a suite one shard runs. The
//! unit is a size (every variant of one size in one shard, so that their
//! timings come from one GPU); sizes are dealt out greedily, longest
//! first, by their estimated cost (from a previous results.json's
//! timings when given, else equal), the same way for the same inputs so
//! that every shard computes the same split on its own. Also `--shard
//! auto` from a Slurm job array's variables.

use std::collections::HashMap;
use std::path::Path;

use crate::config::Plan;
use crate::error::Error;
use crate::model::results::Results;
use crate::model::timing;

/// Estimated seconds ncu spends on one profiled launch (its replay
/// passes, the export and the per-line counters), beyond its timings.
const PROFILED_LAUNCH_SECONDS: f64 = 2.0;

/// Shard `index` of `count`, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    pub index: u32,
    pub count: u32,
}

impl ShardSpec {
    /// Checks that `index` is one of `1..=count`.
    pub fn new(index: u32, count: u32) -> Result<ShardSpec, String> {
        match (count, index) {
            (0, _) => {
                Err("a suite is split into at least 1 shard: give --shard i/n with n ≥ 1".into())
            }
            (_, 0) => Err(format!(
                "shards count from 1: give --shard 1/{count} to --shard {count}/{count}"
            )),
            (n, i) if i > n => Err(format!(
                "shard {i} of {n} does not exist: give --shard 1/{n} to --shard {n}/{n}"
            )),
            _ => Ok(ShardSpec { index, count }),
        }
    }

    /// The shard of this Slurm array task: `SLURM_ARRAY_TASK_ID` counted
    /// from `SLURM_ARRAY_TASK_MIN` (0 when absent) in steps of
    /// `SLURM_ARRAY_TASK_STEP` (1), of `SLURM_ARRAY_TASK_COUNT` tasks (or
    /// as many as MIN to MAX hold).
    pub fn from_slurm(variable: impl Fn(&str) -> Option<String>) -> Result<ShardSpec, Error> {
        let number = |name: &str| -> Result<Option<u32>, Error> {
            variable(name)
                .map(|text| {
                    text.trim().parse::<u32>().map_err(|_| {
                        Error::Input(format!(
                            "--shard auto: {name}={text:?} is not a whole number"
                        ))
                    })
                })
                .transpose()
        };
        let id = number("SLURM_ARRAY_TASK_ID")?.ok_or_else(|| {
            Error::Input(
                "--shard auto reads SLURM_ARRAY_TASK_ID, which is not set: run it as a task of a Slurm job array (sbatch --array=1-N), or give --shard i/n".into(),
            )
        })?;
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
        let count = match (
            number("SLURM_ARRAY_TASK_COUNT")?,
            number("SLURM_ARRAY_TASK_MAX")?,
        ) {
            (Some(count), _) => count,
            (None, Some(max)) if max >= min => (max - min) / step + 1,
            _ => {
                return Err(Error::Input(
                    "--shard auto needs SLURM_ARRAY_TASK_COUNT (or SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_MAX) besides SLURM_ARRAY_TASK_ID".into(),
                ));
            }
        };
        if id < min || (id - min) % step != 0 {
            return Err(Error::Input(format!(
                "--shard auto: SLURM_ARRAY_TASK_ID={id} is not a task of the array from {min} in steps of {step}"
            )));
        }
        ShardSpec::new((id - min) / step + 1, count).map_err(|why| {
            Error::Input(format!(
                "--shard auto (from the SLURM_ARRAY_TASK_* variables): {why}"
            ))
        })
    }
}

/// Deals sizes (by index) out to `count` shards: the most costly first,
/// each to the shard with the least cost so far (the lower shard on a
/// tie); each shard's sizes in suite order. Equal costs deal the sizes in
/// order: size k to shard k mod count.
pub fn balance(costs: &[f64], count: u32) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|a, b| costs[*b].total_cmp(&costs[*a]).then(a.cmp(b)));
    let mut shards = vec![(0.0f64, Vec::new()); count as usize];
    for size in order {
        let lightest = (0..shards.len())
            .min_by(|a, b| shards[*a].0.total_cmp(&shards[*b].0).then(a.cmp(b)))
            .expect("at least one shard");
        shards[lightest].0 += costs[size].max(0.0);
        shards[lightest].1.push(size);
    }
    shards
        .into_iter()
        .map(|(_, mut sizes)| {
            sizes.sort_unstable();
            sizes
        })
        .collect()
}

/// Estimated seconds per size of `labels` from `previous`: for each run,
/// its median time × its sample count, plus a constant per profiled
/// launch. A size `previous` lacks costs the mean of those it has (1 when
/// it has none).
pub fn estimated_costs(labels: &[String], previous: &Results) -> Vec<f64> {
    let mut by_size: HashMap<&str, f64> = HashMap::new();
    for run in previous.variants.iter().flat_map(|v| &v.runs) {
        let samples = run.samples_ms.len() + run.cold_samples_ms.len();
        let seconds = timing::median(&run.samples_ms).unwrap_or(0.0) * samples as f64 / 1e3
            + f64::from(u8::from(run.profile.is_some())) * PROFILED_LAUNCH_SECONDS;
        *by_size.entry(run.size.as_str()).or_default() += seconds;
    }
    let known: Vec<f64> = labels
        .iter()
        .filter_map(|l| by_size.get(l.as_str()).copied())
        .collect();
    let fallback = match known.is_empty() {
        true => 1.0,
        false => known.iter().sum::<f64>() / known.len() as f64,
    };
    labels
        .iter()
        .map(|l| by_size.get(l.as_str()).copied().unwrap_or(fallback))
        .collect()
}

/// The share of `plan` that `spec` runs, and what it was balanced by.
pub(super) struct Share {
    pub sizes: Vec<usize>,
    pub balanced_by: String,
}

/// Splits `plan`'s sizes into `spec.count` shards, by the timings of
/// `balance_from` when given, and returns shard `spec.index`'s.
pub(super) fn share(
    plan: &Plan,
    spec: ShardSpec,
    balance_from: Option<&Path>,
) -> Result<Share, Error> {
    let labels: Vec<String> = plan.suite.sizes.iter().map(|s| s.label.clone()).collect();
    let (costs, balanced_by) = match balance_from {
        Some(path) => {
            let previous = super::read_saved(path)?;
            let hash = super::plan::sha256_of_file(path).unwrap_or_default();
            (
                estimated_costs(&labels, &previous),
                format!("the timings of a results.json with SHA-256 {hash}"),
            )
        }
        None => (
            vec![1.0; labels.len()],
            "equal weights, in size order".to_string(),
        ),
    };
    let mut shards = balance(&costs, spec.count);
    Ok(Share {
        sizes: shards.swap_remove(spec.index as usize - 1),
        balanced_by,
    })
}

/// `plan` cut to the sizes of `sizes` (indices in suite order). Per-line
/// counters asked for at a size of another shard are taken at the size
/// this shard chooses.
pub(super) fn restrict(plan: &Plan, sizes: &[usize]) -> Plan {
    let mut plan = plan.clone();
    let keep = |index: &usize| sizes.contains(index);
    plan.suite.sizes = take(&plan.suite.sizes, keep);
    for variant in &mut plan.variants {
        variant.instances = take(&variant.instances, keep);
    }
    if let crate::config::plan::LinesAt::Size(label) = &plan.profile.lines_at
        && !plan.suite.sizes.iter().any(|s| &s.label == label)
    {
        plan.profile.lines_at = crate::config::plan::LinesAt::Auto;
    }
    plan
}

fn take<T: Clone>(items: &[T], keep: impl Fn(&usize) -> bool) -> Vec<T> {
    items
        .iter()
        .enumerate()
        .filter(|(index, _)| keep(index))
        .map(|(_, item)| item.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_costs_deal_the_sizes_in_order() {
        assert_eq!(balance(&[1.0; 5], 2), [vec![0, 2, 4], vec![1, 3]]);
        assert_eq!(balance(&[1.0; 2], 3), [vec![0], vec![1], vec![]]);
        assert_eq!(balance(&[], 2), [Vec::<usize>::new(), vec![]]);
    }

    #[test]
    fn the_longest_sizes_go_first_to_the_lightest_shard() {
        // 8 alone balances 1 + 2 + 3 + 2.
        assert_eq!(
            balance(&[1.0, 8.0, 2.0, 3.0, 2.0], 2),
            [vec![1], vec![0, 2, 3, 4]]
        );
        assert_eq!(
            balance(&[5.0, 4.0, 3.0, 3.0, 3.0], 2),
            [vec![0, 3], vec![1, 2, 4]]
        );
        // The same inputs, the same split.
        let costs = [0.3, 2.5, 2.5, 0.3, 9.0, 1.0];
        assert_eq!(balance(&costs, 3), balance(&costs, 3));
    }

    #[test]
    fn every_size_goes_to_exactly_one_shard() {
        let costs: Vec<f64> = (0..17).map(|i| f64::from((i * 7) % 5)).collect();
        for count in 1..6 {
            let mut all: Vec<usize> = balance(&costs, count).concat();
            all.sort_unstable();
            assert_eq!(all, (0..17).collect::<Vec<_>>());
        }
    }

    #[test]
    fn shard_numbers_out_of_range_are_refused_with_the_range() {
        assert_eq!(ShardSpec::new(2, 2), Ok(ShardSpec { index: 2, count: 2 }));
        assert_eq!(
            ShardSpec::new(3, 2).unwrap_err(),
            "shard 3 of 2 does not exist: give --shard 1/2 to --shard 2/2"
        );
        assert!(ShardSpec::new(0, 2).unwrap_err().contains("count from 1"));
        assert!(ShardSpec::new(1, 0).is_err());
    }

    #[test]
    fn slurm_array_ids_count_from_their_minimum() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let from = |pairs| ShardSpec::from_slurm(env(pairs));
        assert_eq!(
            from(&[
                ("SLURM_ARRAY_TASK_ID", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_MIN", "0")
            ])
            .unwrap(),
            ShardSpec { index: 1, count: 4 }
        );
        assert_eq!(
            from(&[
                ("SLURM_ARRAY_TASK_ID", "12"),
                ("SLURM_ARRAY_TASK_MIN", "10"),
                ("SLURM_ARRAY_TASK_MAX", "13")
            ])
            .unwrap(),
            ShardSpec { index: 3, count: 4 }
        );
        assert_eq!(
            from(&[
                ("SLURM_ARRAY_TASK_ID", "5"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "7"),
                ("SLURM_ARRAY_TASK_STEP", "2")
            ])
            .unwrap(),
            ShardSpec { index: 3, count: 4 }
        );
        assert!(
            from(&[])
                .unwrap_err()
                .to_string()
                .contains("SLURM_ARRAY_TASK_ID, which is not set")
        );
        assert!(
            from(&[
                ("SLURM_ARRAY_TASK_ID", "x"),
                ("SLURM_ARRAY_TASK_COUNT", "2")
            ])
            .is_err()
        );
        assert!(
            from(&[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_COUNT", "2"),
                ("SLURM_ARRAY_TASK_MIN", "1")
            ])
            .is_err()
        );
    }

    #[test]
    fn costs_come_from_the_timings_and_profiles_of_a_previous_run() {
        let previous =
            crate::model::read_results(include_str!("../../examples/transpose/results.json"))
                .unwrap();
        let labels: Vec<String> = previous
            .suite
            .sizes
            .iter()
            .map(|s| s.label.clone())
            .collect();
        let costs = estimated_costs(&labels, &previous);
        assert_eq!(costs.len(), 2);
        assert!(costs.iter().all(|c| *c > 0.0), "{costs:?}");
        // A size the previous run lacks weighs what the known ones do.
        let unknown = estimated_costs(&[labels[0].clone(), "N=1".to_string()], &previous);
        assert_eq!(unknown, [costs[0], costs[0]]);
        assert_eq!(estimated_costs(&["N=1".to_string()], &previous), [1.0]);
    }
}
