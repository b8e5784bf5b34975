//! Which charts the report shows and what goes into each: speedup and time
//! per variant (with the spread of the timing samples), one grouped bar
//! chart per key counter across variants, scaling over problem size when
//! there are several sizes, the roofline when the kernels do
//! floating-point work, and a heat map of each sweep over two parameters. Turns Results + Analysis into chart inputs; the
//! drawing is `charts`.

use super::charts::{
    self, BarChart, BarSeries, HeatMap, LineChart, LineSeries, Mark, Roofline, RooflinePoint,
};
use super::view::ChartView;
use crate::analysis::derived::{Key, Unit};
use crate::analysis::sweeps::SweepAnalysis;
use crate::analysis::{Analysis, RunAnalysis, Status, VariantAnalysis, format};
use crate::model::Results;
use crate::model::variant::Role;

/// Counters drawn as grouped bars, when any variant has a non-zero value,
/// with what good looks like on each. A count per request or instruction
/// is drawn against ncu's ideal for its access width where the source
/// counters give it (see [`key_metric`]).
const KEY_METRICS: [(Key, &str); 6] = [
    (
        Key::GlobalStoreSectorsPerRequest,
        "4 is ideal for 4-byte accesses, 8 for 8-byte and 16 for 16-byte ones",
    ),
    (
        Key::GlobalLoadSectorsPerRequest,
        "4 is ideal for 4-byte accesses, 8 for 8-byte and 16 for 16-byte ones",
    ),
    (
        Key::SharedLoadWavefrontsPerInstruction,
        "1 is conflict-free for 4-byte accesses; 8- and 16-byte accesses need 2 and 4",
    ),
    (
        Key::AchievedOccupancy,
        "the share of the SM's warp slots in use; higher hides latency better, up to what the kernel needs",
    ),
    (
        Key::DramThroughput,
        "the share of the DRAM peak during the kernel; near 100% a memory-bound kernel is done",
    ),
    (
        Key::SharedLoadsPerFma,
        "fewer is better: each shared value feeds more FMAs",
    ),
];

/// What good looks like on a chart of accesses over ncu's ideal.
const OVER_IDEAL_NOTE: &str = "1 is ncu's ideal for the access width the code uses, so scalar and vector accesses compare; each run's table keeps the raw count per request";

fn run_at<'a>(variant: &'a VariantAnalysis, size: &str) -> Option<&'a RunAnalysis> {
    variant.runs.iter().find(|r| r.size == size)
}

fn mark(variant: &VariantAnalysis, size: Option<&str>) -> Mark {
    let wrong = variant
        .runs
        .iter()
        .filter(|r| size.is_none_or(|s| r.size == s))
        .any(|r| matches!(r.status, Status::Wrong { .. }));
    match (variant.role, wrong) {
        (_, true) => Mark::Wrong,
        (Role::Ceiling, false) => Mark::Ceiling,
        (Role::Step, false) => Mark::Normal,
    }
}

/// The folder beside report.md that holds its charts, one SVG file each,
/// named by [`chart_file_name`].
pub const CHARTS_FOLDER: &str = "charts";

/// `01-speedup-over-the-baseline.svg`: the chart's place in the report
/// (from 1, two digits at least) and its title in lower-case ASCII letters
/// and digits, other runs of characters as one `-`.
pub fn chart_file_name(index: usize, title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.truncate(48);
    let slug = slug.trim_end_matches('-');
    let slug = if slug.is_empty() { "chart" } else { slug };
    format!("{:02}-{slug}.svg", index + 1)
}

/// Whether `name` is one [`chart_file_name`] gives: the only files in
/// `charts/` that gpuprof removes.
pub fn is_chart_file_name(name: &str) -> bool {
    let Some((number, rest)) = name.split_once('-') else {
        return false;
    };
    let Some(slug) = rest.strip_suffix(".svg") else {
        return false;
    };
    number.len() >= 2
        && number.bytes().all(|b| b.is_ascii_digit())
        && !slug.is_empty()
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Every chart of the report, each with the path of its SVG file beside
/// report.md.
pub fn figures(results: &Results, analysis: &Analysis) -> Vec<ChartView> {
    let mut charts = drawn(results, analysis);
    for (index, chart) in charts.iter_mut().enumerate() {
        chart.file = format!("{CHARTS_FOLDER}/{}", chart_file_name(index, &chart.title));
    }
    charts
}

fn drawn(results: &Results, analysis: &Analysis) -> Vec<ChartView> {
    let sizes: Vec<String> = results
        .suite
        .sizes
        .iter()
        .map(|s| s.label.clone())
        .collect();
    let names: Vec<String> = analysis.variants.iter().map(|v| v.name.clone()).collect();
    let marks: Vec<Mark> = analysis.variants.iter().map(|v| mark(v, None)).collect();
    let mut figures = vec![speedup(results, analysis, &sizes, &names, &marks)];
    if let Some(focus) = &analysis.focus_size {
        figures.push(time_at(analysis, focus, &names));
    }
    figures.extend(
        KEY_METRICS
            .into_iter()
            .filter_map(|(key, note)| key_metric(analysis, key, note, &sizes, &names, &marks)),
    );
    if sizes.len() > 1 {
        figures.push(scaling(results, analysis, &sizes));
    }
    if let Some(roofline) = roofline(results, analysis) {
        figures.push(roofline);
    }
    figures.extend(analysis.sweeps.iter().filter_map(sweep_heat_map));
    figures
}

/// A sweep over exactly two parameters: each configuration's time over
/// the best's, the first parameter down and the second across.
fn sweep_heat_map(sweep: &SweepAnalysis) -> Option<ChartView> {
    let [down, across] = sweep.parameters.as_slice() else {
        return None;
    };
    let values_of = |index: usize| -> Vec<i64> {
        let mut values: Vec<i64> = sweep
            .configurations
            .iter()
            .map(|c| &c.parameters)
            .chain(sweep.skipped.iter().map(|s| &s.parameters))
            .filter_map(|parameters| parameters.get(index).map(|(_, v)| *v))
            .collect();
        values.sort_unstable();
        values.dedup();
        values
    };
    let (rows, columns) = (values_of(0), values_of(1));
    let cells: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|row| {
            columns
                .iter()
                .map(|column| {
                    sweep
                        .configurations
                        .iter()
                        .find(|c| {
                            c.parameters.first().map(|(_, v)| v) == Some(row)
                                && c.parameters.get(1).map(|(_, v)| v) == Some(column)
                        })
                        .and_then(|c| c.times_slower)
                })
                .collect()
        })
        .collect();
    let title = format!("Sweep {} at {}", sweep.group, sweep.size);
    let text = |values: &[i64]| values.iter().map(i64::to_string).collect::<Vec<_>>();
    Some(ChartView {
        caption: format!(
            "Darker is faster: each configuration's median time over the best's ({}, 1.00×), {down} down and {across} across; grey cells were skipped by the constraint or did not run correctly.",
            sweep.best.as_deref().unwrap_or("none")
        ),
        file: String::new(),
        detail: false,
        sweep_group: Some(sweep.group.clone()),
        svg: charts::heat_map(&HeatMap {
            title: &title,
            x_label: across,
            y_label: down,
            x_values: &text(&columns),
            y_values: &text(&rows),
            cells: &cells,
            missing: "no time",
            format: &format::speedup,
        }),
        title,
    })
}

/// The baseline's median time over each variant's, one series per size.
fn speedup(
    results: &Results,
    analysis: &Analysis,
    sizes: &[String],
    names: &[String],
    marks: &[Mark],
) -> ChartView {
    let speedups: Vec<BarSeries> = sizes
        .iter()
        .map(|size| speedups_at(results, analysis, size))
        .collect();
    ChartView {
        title: "Speedup over the baseline".into(),
        caption: format!(
            "Higher is better: the median time of `{}` over each variant's median, per size; whiskers span the slowest to the fastest launch. Bars marked \"wrong\" failed verification and are not speedups.",
            results.suite.baseline
        ),
        file: String::new(),
        detail: false,
        sweep_group: None,
        svg: charts::bar_chart(&BarChart {
            title: "Speedup over the baseline",
            y_label: "speedup (×)",
            categories: names,
            marks,
            series: &speedups,
            log_y: true,
            reference_line: Some((1.0, "baseline")),
            y_max: None,
            format: &|v| format::speedup(v),
        }),
    }
}

/// Every variant's speedup at one size (the baseline's own bar is 1 when it
/// was timed), whiskers from its slowest and fastest launch.
fn speedups_at(results: &Results, analysis: &Analysis, size: &str) -> BarSeries {
    let baseline = analysis
        .variants
        .iter()
        .find(|v| v.name == results.suite.baseline)
        .and_then(|v| run_at(v, size))
        .and_then(|r| r.timing);
    BarSeries {
        name: size.to_string(),
        values: analysis
            .variants
            .iter()
            .map(|v| {
                run_at(v, size)
                    .and_then(|r| r.vs_baseline.map(|s| s.ratio))
                    .or_else(|| {
                        (v.name == results.suite.baseline && baseline.is_some()).then_some(1.0)
                    })
            })
            .collect(),
        whiskers: analysis
            .variants
            .iter()
            .map(|v| {
                let timing = run_at(v, size)?.timing?;
                let base = baseline?.median_ms;
                Some((base / timing.max_ms, base / timing.min_ms))
            })
            .collect(),
    }
}

/// Every variant's median time at the focus size, whiskers from its fastest
/// to its slowest launch.
fn time_at(analysis: &Analysis, focus: &str, names: &[String]) -> ChartView {
    let focus_marks: Vec<Mark> = analysis
        .variants
        .iter()
        .map(|v| mark(v, Some(focus)))
        .collect();
    let times = [BarSeries {
        name: focus.to_string(),
        values: analysis
            .variants
            .iter()
            .map(|v| run_at(v, focus).and_then(|r| r.timing).map(|t| t.median_ms))
            .collect(),
        whiskers: analysis
            .variants
            .iter()
            .map(|v| {
                run_at(v, focus)
                    .and_then(|r| r.timing)
                    .map(|t| (t.min_ms, t.max_ms))
            })
            .collect(),
    }];
    let title = format!("Time at {focus}");
    ChartView {
        caption: "Lower is better: the median of the timed launches; whiskers span the fastest to the slowest launch."
            .into(),
        file: String::new(),
        detail: false,
        sweep_group: None,
        svg: charts::bar_chart(&BarChart {
            title: &title,
            y_label: "time",
            categories: names,
            marks: &focus_marks,
            series: &times,
            log_y: spans_decades(&times),
            reference_line: None,
            y_max: None,
            format: &|v| format::milliseconds(v),
        }),
        title,
    }
}

/// One counter per variant and size, or None when no variant has a
/// non-zero value of it.
fn key_metric(
    analysis: &Analysis,
    key: Key,
    note: &str,
    sizes: &[String],
    names: &[String],
    marks: &[Mark],
) -> Option<ChartView> {
    let measured = |key: Key| {
        analysis
            .variants
            .iter()
            .flat_map(|v| &v.runs)
            .any(|r| r.derived.get(key).is_some())
    };
    let (key, note, ideal) = match key.over_ideal() {
        Some(over_ideal) if measured(over_ideal) => (over_ideal, OVER_IDEAL_NOTE, Some(1.0)),
        _ => (key, note, None),
    };
    let series: Vec<BarSeries> = sizes
        .iter()
        .map(|size| BarSeries {
            name: size.clone(),
            values: analysis
                .variants
                .iter()
                .map(|v| run_at(v, size).and_then(|r| r.derived.get(key)))
                .collect(),
            whiskers: Vec::new(),
        })
        .collect();
    let informative = series
        .iter()
        .flat_map(|s| &s.values)
        .any(|v| v.is_some_and(|v| v > 0.0));
    if !informative {
        return None;
    }
    let label = key.info().label;
    Some(ChartView {
        title: label.to_string(),
        caption: format!(
            "{} per variant and size (ncu): {note}.",
            format::capitalize(label)
        ),
        file: String::new(),
        detail: true,
        sweep_group: None,
        svg: charts::bar_chart(&BarChart {
            title: label,
            y_label: label,
            categories: names,
            marks,
            series: &series,
            log_y: false,
            reference_line: ideal.map(|at| (at, "ideal")),
            y_max: (key.info().unit == Unit::Percent).then_some(100.0),
            format: &|v| key.format(v),
        }),
    })
}

/// Bandwidth (or time, without declared bytes) over problem size.
fn scaling(results: &Results, analysis: &Analysis, sizes: &[String]) -> ChartView {
    let x_values: Vec<f64> = results
        .suite
        .sizes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            s.symbols
                .values()
                .next()
                .map(|v| *v as f64)
                .unwrap_or(i as f64 + 1.0)
        })
        .collect();
    let symbol = results
        .suite
        .sizes
        .first()
        .and_then(|s| s.symbols.keys().next().cloned())
        .unwrap_or_default();
    let with_bytes = analysis
        .variants
        .iter()
        .flat_map(|v| &v.runs)
        .any(|r| r.bytes_per_second.is_some());
    let series: Vec<LineSeries> = analysis
        .variants
        .iter()
        .map(|v| LineSeries {
            name: v.name.clone(),
            points: sizes
                .iter()
                .map(|size| {
                    let run = run_at(v, size)?;
                    if with_bytes {
                        run.bytes_per_second
                    } else {
                        run.timing.map(|t| t.median_ms)
                    }
                })
                .collect(),
        })
        .collect();
    let (title, y_label, caption): (&str, &str, &str) = if with_bytes {
        (
            "Bandwidth over problem size",
            "achieved bandwidth",
            "Higher is better, up to the DRAM peak: declared bytes over the median time at each size. Sizes whose data fits in L2 can exceed the DRAM peak.",
        )
    } else {
        (
            "Time over problem size",
            "median time",
            "Lower is better: the median time at each size.",
        )
    };
    let format: &dyn Fn(f64) -> String = if with_bytes {
        &|v| format::bytes_per_second(v)
    } else {
        &|v| format::milliseconds(v)
    };
    ChartView {
        title: title.into(),
        caption: caption.into(),
        file: String::new(),
        detail: false,
        sweep_group: None,
        svg: charts::line_chart(&LineChart {
            title,
            x_label: &symbol,
            y_label,
            x_values: &x_values,
            x_tick_labels: sizes,
            series: &series,
            log_x: true,
            log_y: true,
            format,
        }),
    }
}

/// Counted FLOPs over DRAM bytes against counted FLOPs per second of
/// kernel time, at the focus size, with an arrow for every step.
fn roofline(results: &Results, analysis: &Analysis) -> Option<ChartView> {
    let focus = analysis.focus_size.as_ref()?;
    let device = results.device.as_ref()?;
    let peak_flops = device.peak_fp32_flops_per_second?;
    let mut points = Vec::new();
    let mut index_of = std::collections::BTreeMap::new();
    for variant in &analysis.variants {
        let Some(run) = run_at(variant, focus) else {
            continue;
        };
        let (Some(flops), Some(intensity), Some(duration)) = (
            run.derived.get(Key::CountedFlops),
            run.derived.get(Key::ArithmeticIntensity),
            run.derived.get(Key::KernelDuration),
        ) else {
            continue;
        };
        index_of.insert(variant.name.clone(), points.len());
        points.push(RooflinePoint {
            label: variant.name.clone(),
            intensity,
            performance: flops / (duration * 1e-9),
            ceiling: variant.role == Role::Ceiling,
        });
    }
    if !points
        .iter()
        .any(|p| p.intensity > 0.0 && p.performance > 0.0)
    {
        return None;
    }
    let arrows: Vec<(usize, usize)> = analysis
        .steps
        .windows(2)
        .filter_map(|pair| Some((*index_of.get(&pair[0])?, *index_of.get(&pair[1])?)))
        .collect();
    let measured_bandwidth = analysis
        .variants
        .iter()
        .filter(|v| v.role == Role::Ceiling)
        .filter_map(|v| run_at(v, focus))
        // Only memory ceilings (a copy) make a bandwidth roof; a library
        // GEMM's bytes over time is not a bandwidth limit.
        .filter(|r| r.flops_per_second.is_none())
        .filter_map(|r| r.bytes_per_second)
        .reduce(f64::max);
    let title = format!("Roofline at {focus}");
    let drawn = charts::roofline(&Roofline {
        title: &title,
        points: &points,
        peak_flops,
        peak_bandwidth: device.peak_dram_bytes_per_second,
        measured_bandwidth,
        arrows: &arrows,
    });
    let roofs = match measured_bandwidth {
        Some(_) => {
            "roofs from the clocks' peaks and, dashed, the copy ceiling's measured bandwidth"
        }
        None => "roofs from the clocks' peaks",
    };
    Some(ChartView {
        title,
        caption: format!(
            "Up is better, to the roof: FP32 operations counted by ncu over DRAM bytes (x) and over kernel time (y); {roofs}. Arrows follow the chain of steps."
        ),
        file: String::new(),
        detail: false,
        sweep_group: None,
        svg: drawn.svg,
    })
}

/// Whether bars differ by more than 20×, so that a log axis reads better.
fn spans_decades(series: &[BarSeries]) -> bool {
    let values: Vec<f64> = series
        .iter()
        .flat_map(|s| s.values.iter().flatten().copied())
        .filter(|v| *v > 0.0)
        .collect();
    let (low, high) = values
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(*v), h.max(*v)));
    !values.is_empty() && high / low > 20.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_files_are_named_by_place_and_title_in_plain_ascii() {
        assert_eq!(
            chart_file_name(0, "Speedup over the baseline"),
            "01-speedup-over-the-baseline.svg"
        );
        assert_eq!(
            chart_file_name(2, "global store sectors / request"),
            "03-global-store-sectors-request.svg"
        );
        assert_eq!(
            chart_file_name(11, "Time at N=8192"),
            "12-time-at-n-8192.svg"
        );
        assert_eq!(chart_file_name(99, "Время «ядра»"), "100-chart.svg");
        let long = chart_file_name(4, &"bandwidth over size ".repeat(8));
        assert!(long.len() <= "05-".len() + 48 + ".svg".len(), "{long}");
        for name in [
            chart_file_name(0, "Speedup over the baseline"),
            chart_file_name(99, "Время"),
            long,
        ] {
            assert!(is_chart_file_name(&name), "{name}");
        }
        for other in [
            "1-speedup.svg",
            "01-.svg",
            "01-Speedup.svg",
            "notes.svg",
            "01-a.png",
            "ab-c.svg",
        ] {
            assert!(!is_chart_file_name(other), "{other}");
        }
    }
}
