//! `cargo bench`: how fast gpuprof reads and renders, against the sizes a
//! user meets. Parses a raw-page export of 10,000 launches (the H200 probe's
//! four real rows repeated, IDs renumbered) and renders a report of 20
//! variants × 4 sizes (the recorded transpose suite, copied), best of five,
//! and prints the times with per-item rates and their ratio to a 1-launch /
//! 1-variant baseline.

use std::time::{Duration, Instant};

use gpuprof::model::read_results;
use gpuprof::ncu::raw::parse_raw_page;

fn best_of<T>(runs: usize, mut work: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(work());
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn raw_export(launches: usize) -> String {
    let probe = include_str!("../tests/fixtures/h200-probe/raw.csv");
    let mut lines = probe.lines();
    let mut text = format!("{}\n{}\n", lines.next().unwrap(), lines.next().unwrap());
    let rows: Vec<&str> = lines.collect();
    for id in 0..launches {
        let row = rows[id % rows.len()];
        let rest = row.split_once(',').unwrap().1;
        text.push_str(&format!("\"{id}\",{rest}\n"));
    }
    text
}

fn main() {
    let small = raw_export(1);
    let large = raw_export(10_000);
    let one = best_of(5, || parse_raw_page(&small).unwrap());
    let many = best_of(5, || parse_raw_page(&large).unwrap());

    let recorded = read_results(include_str!("../examples/transpose/results.json")).unwrap();
    let mut wide = recorded.clone();
    wide.variants = (0..20)
        .map(|i| {
            let mut variant = recorded.variants[i % recorded.variants.len()].clone();
            variant.name = format!("{}-{i}", variant.name);
            let runs = variant.runs.clone();
            variant.runs = (0..4).map(|s| runs[s % runs.len()].clone()).collect();
            for (s, run) in variant.runs.iter_mut().enumerate() {
                run.size = format!("N={}", 1024 << s);
            }
            variant
        })
        .collect();
    wide.suite.baseline = wide.variants[1].name.clone();
    wide.suite.sizes = (0..4)
        .map(|s| gpuprof::model::suite::Size {
            label: format!("N={}", 1024 << s),
            symbols: [("N".to_string(), 1024 << s)].into(),
        })
        .collect();
    let mut single = wide.clone();
    single.variants.truncate(1);
    single.suite.sizes.truncate(1);
    single.variants[0].runs.truncate(1);
    single.suite.baseline = single.variants[0].name.clone();
    let render = |results: &gpuprof::model::Results| {
        let analysis = gpuprof::analysis::analyze(results);
        gpuprof::render::html(&gpuprof::render::view(results, &analysis)).unwrap()
    };
    let render_one = best_of(5, || render(&single));
    let render_wide = best_of(5, || render(&wide));
    let bytes = render(&wide).len();

    println!(
        "{:<42} {:>10} {:>14} {:>10}",
        "work", "time", "per item", "× 1 item"
    );
    println!(
        "{:<42} {:>8.1}ms {:>12.1}µs {:>10}",
        "parse raw page, 1 launch",
        one.as_secs_f64() * 1e3,
        one.as_secs_f64() * 1e6,
        "1"
    );
    println!(
        "{:<42} {:>8.1}ms {:>12.1}µs {:>10.0}",
        "parse raw page, 10,000 launches",
        many.as_secs_f64() * 1e3,
        many.as_secs_f64() * 1e6 / 10_000.0,
        many.as_secs_f64() / one.as_secs_f64()
    );
    println!(
        "{:<42} {:>8.1}ms {:>12.1}µs {:>10}",
        "analyse + render, 1 variant × 1 size",
        render_one.as_secs_f64() * 1e3,
        render_one.as_secs_f64() * 1e6,
        "1"
    );
    println!(
        "{:<42} {:>8.1}ms {:>12.1}µs {:>10.1}",
        "analyse + render, 20 variants × 4 sizes",
        render_wide.as_secs_f64() * 1e3,
        render_wide.as_secs_f64() * 1e6 / 80.0,
        render_wide.as_secs_f64() / render_one.as_secs_f64()
    );
    println!("(the 20 × 4 report is {:.1} MB)", bytes as f64 / 1e6);
}
