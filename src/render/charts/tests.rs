//! Tests of the charts through their entry points (bars, values, whiskers,
//! legends, escaping, log axes, empty inputs, roofline arrows, labels and
//! skipped points) and of the layout helpers (label wrapping, axis ticks,
//! the roofline's axes), plus the `write_*_example(s)` tests, which write
//! example SVGs of each kind to target/chart-examples/ for looking at.

use super::axis::Axis;
use super::bars::MISSING;
use super::category_labels::{CategoryLabels, wrap_label};
use super::numbers::{compact, si_unit, sig3};
use super::style::FONT_STACK;
use super::svg::escape;
use super::*;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

/// The text content of every `<text>` element, trimmed (plotters writes one per line).
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|chunk| {
            let body = &chunk[chunk.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_string())
        })
        .collect()
}

/// Parses the whole document; panics on malformed XML or mismatched tags.
fn assert_well_formed(svg: &str) {
    let mut reader = quick_xml::Reader::from_str(svg);
    let mut depth = 0usize;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(quick_xml::events::Event::Start(_)) => depth += 1,
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(_) => {}
            Err(err) => panic!("malformed SVG: {err}\n{svg}"),
        }
    }
    assert_eq!(depth, 0, "unclosed elements");
}

fn plain(v: f64) -> String {
    format!("{v:.1}")
}

fn series(name: &str, values: &[Option<f64>]) -> BarSeries {
    BarSeries {
        name: name.to_string(),
        values: values.to_vec(),
        whiskers: Vec::new(),
    }
}

fn bars<'a>(
    categories: &'a [String],
    marks: &'a [Mark],
    series: &'a [BarSeries],
    log_y: bool,
) -> BarChart<'a> {
    BarChart {
        title: "Kernel time",
        y_label: "time (µs)",
        categories,
        marks,
        series,
        log_y,
        reference_line: None,
        y_max: None,
        format: &plain,
    }
}

/// `<rect`s that are not bars: the background and one legend swatch per series.
fn bar_rects(svg: &str, series: usize) -> usize {
    count(svg, "<rect") - 1 - series
}

#[test]
fn one_bar_per_present_value() {
    let categories = names(&["naive", "coalesced", "padded-32x33"]);
    let series = [
        series("1024²", &[Some(10.0), None, Some(3.0)]),
        series("4096²", &[Some(160.0), Some(40.0), None]),
    ];
    let svg = bar_chart(&bars(&categories, &[], &series, false));
    assert_eq!(bar_rects(&svg, 2), 4);
    // four bars, at most twelve: each gets its value label
    let t = texts(&svg);
    for v in ["10.0", "3.0", "160.0", "40.0"] {
        assert!(t.iter().any(|s| s == v), "missing value label {v} in {t:?}");
    }
    assert_eq!(
        t.iter().filter(|s| *s == MISSING).count(),
        2,
        "absent values say n/a"
    );
}

#[test]
fn a_value_hundreds_of_digits_wide_keeps_room_for_the_plot() {
    // `plain` writes 1.3e306 out in full: 307 digits of tick label.
    let categories = names(&["corrupt", "fine"]);
    let huge = [series("N=2048", &[Some(1.3e306), Some(9.6)])];
    for log_y in [false, true] {
        let svg = bar_chart(&bars(&categories, &[], &huge, log_y));
        assert_well_formed(&svg);
        assert_eq!(bar_rects(&svg, 1), 2);
    }
    let line = [LineSeries {
        name: "corrupt".into(),
        points: vec![Some(1.3e306), Some(9.6)],
    }];
    let svg = line_chart(&LineChart {
        title: "Scaling",
        x_label: "n",
        y_label: "time",
        x_values: &[1.0, 2.0],
        x_tick_labels: &[],
        series: &line,
        log_x: false,
        log_y: false,
        format: &plain,
    });
    assert_well_formed(&svg);
    assert_eq!(
        count(&svg, "<circle"),
        2 + 1,
        "two points plus the legend marker"
    );
}

#[test]
fn value_labels_only_when_few_bars() {
    let many = names(&["a", "b", "c", "d", "e", "f", "g"]);
    let two = [series("x", &[Some(1.3); 7]), series("y", &[Some(2.7); 7])];
    let svg = bar_chart(&bars(&many, &[], &two, false));
    assert_eq!(bar_rects(&svg, 2), 14);
    assert!(!texts(&svg).iter().any(|t| t == "1.3" || t == "2.7"));
    let svg = bar_chart(&bars(&many[..6], &[], &two, false));
    assert_eq!(texts(&svg).iter().filter(|t| *t == "2.7").count(), 6);
}

#[test]
fn reference_line_is_dashed_and_labelled() {
    let categories = names(&["a", "b"]);
    let speedups = [series("speedup", &[Some(1.0), Some(3.0)])];
    let chart = BarChart {
        reference_line: Some((1.0, "baseline")),
        y_max: None,
        ..bars(&categories, &[], &speedups, true)
    };
    let svg = bar_chart(&chart);
    assert!(texts(&svg).iter().any(|t| t == "baseline"));
    assert!(
        svg.contains("stroke=\"#666666\""),
        "the dashes are drawn in the muted grey"
    );
}

#[test]
fn whiskers_are_drawn_when_given() {
    let categories = names(&["a", "b", "c"]);
    let plain_series = [series("t", &[Some(1.0), Some(2.0), Some(3.0)])];
    let mut with = plain_series.clone();
    with[0].whiskers = vec![Some((0.8, 1.3)), None, Some((2.5, 3.5))];
    let without = bar_chart(&bars(&categories, &[], &plain_series, false));
    let whiskered = bar_chart(&bars(&categories, &[], &with, false));
    assert_eq!(
        count(&whiskered, "<polyline") - count(&without, "<polyline"),
        2
    );
}

#[test]
fn legend_names_every_series() {
    let categories = names(&["a", "b"]);
    let series = [
        series("small 256²", &[Some(1.0), Some(2.0)]),
        series("large 8192²", &[Some(3.0), None]),
    ];
    let t = texts(&bar_chart(&bars(&categories, &[], &series, false)));
    assert!(t.iter().any(|s| s == "small 256²"));
    assert!(t.iter().any(|s| s == "large 8192²"));

    let lines = [LineSeries {
        name: "padded & vectorized".to_string(),
        points: vec![Some(1.0), Some(2.0)],
    }];
    let svg = line_chart(&LineChart {
        title: "Scaling",
        x_label: "n",
        y_label: "GB/s",
        x_values: &[1.0, 2.0],
        x_tick_labels: &[],
        series: &lines,
        log_x: false,
        log_y: false,
        format: &plain,
    });
    assert!(texts(&svg).iter().any(|s| s == "padded &amp; vectorized"));
}

#[test]
fn caller_text_is_escaped_everywhere() {
    let evil = "<script>alert(1)</script>";
    let categories = names(&[evil, "ok"]);
    let series = [series(evil, &[Some(1.0), Some(2.0)])];
    let chart = BarChart {
        title: evil,
        y_label: evil,
        reference_line: Some((1.5, evil)),
        y_max: None,
        format: &|v| format!("<{v}>&\""),
        ..bars(&categories, &[Mark::Wrong], &series, false)
    };
    let points = [RooflinePoint {
        label: evil.to_string(),
        intensity: 1.0,
        performance: 1e12,
        ceiling: false,
    }];
    let roof = roofline(&Roofline {
        title: evil,
        points: &points,
        peak_flops: 1e13,
        peak_bandwidth: 1e12,
        measured_bandwidth: None,
        arrows: &[],
    });
    for svg in [bar_chart(&chart), roof.svg, message_svg(evil, evil)] {
        assert_well_formed(&svg);
        assert!(!svg.contains("<script"), "raw <script> in {svg}");
        assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(svg.contains(&format!("<title>{}</title>", escape(evil))));
    }
}

#[test]
fn svg_is_self_contained_and_titled() {
    let categories = names(&["a"]);
    let series = [series("t", &[Some(1.0)])];
    let svg = bar_chart(&bars(&categories, &[], &series, false));
    assert!(svg.starts_with("<svg "));
    assert!(svg.contains("<title>Kernel time</title>"));
    assert!(svg.contains(&format!("font-family=\"{FONT_STACK}\"")));
    assert!(svg.trim_end().ends_with("</svg>"));
    for external in ["<image", "href", "url(", "@import", "@font-face"] {
        assert!(!svg.contains(external), "{external} in output");
    }
}

#[test]
fn log_axis_skips_zero_negative_and_nan() {
    let categories = names(&["zero", "negative", "nan", "fine", "inf"]);
    let mut s = series(
        "speedup",
        &[
            Some(0.0),
            Some(-2.0),
            Some(f64::NAN),
            Some(4.0),
            Some(f64::INFINITY),
        ],
    );
    s.whiskers = vec![None, None, None, Some((-1.0, 5.0)), None];
    let series = [s];
    let chart = BarChart {
        reference_line: Some((0.0, "baseline")),
        y_max: None,
        ..bars(&categories, &[], &series, true)
    };
    let svg = bar_chart(&chart);
    assert_eq!(bar_rects(&svg, 1), 1);
    assert!(
        !texts(&svg).iter().any(|t| t == "baseline"),
        "a zero reference line has no place on a log axis"
    );

    let lines = [LineSeries {
        name: "bw".to_string(),
        points: vec![Some(0.0), Some(5.0), Some(-1.0), Some(7.0), Some(8.0)],
    }];
    let svg = line_chart(&LineChart {
        title: "Scaling",
        x_label: "n",
        y_label: "GB/s",
        x_values: &[1.0, 2.0, 4.0, 0.0, 16.0],
        x_tick_labels: &[],
        series: &lines,
        log_x: true,
        log_y: true,
        format: &plain,
    });
    // only x = 2 and x = 16 are drawable: two markers, and no line across the gaps
    assert_eq!(
        count(&svg, "<circle"),
        2 + 1,
        "two points plus the legend marker"
    );
    let blue_lines = "stroke=\"#0072B2\" stroke-width=\"2\" points";
    assert_eq!(
        count(&svg, blue_lines),
        1,
        "only the legend swatch: no line across gaps"
    );
}

#[test]
fn empty_inputs_say_no_data() {
    let series = [series("t", &[None, None])];
    let categories = names(&["a", "b"]);
    let cases = [
        bar_chart(&bars(&[], &[], &[], false)),
        bar_chart(&bars(&categories, &[], &series, false)),
        bar_chart(&bars(&categories, &[], &[], false)),
        line_chart(&LineChart {
            title: "Scaling",
            x_label: "n",
            y_label: "y",
            x_values: &[1.0, 2.0],
            x_tick_labels: &[],
            series: &[LineSeries {
                name: "x".to_string(),
                points: vec![None, None],
            }],
            log_x: false,
            log_y: false,
            format: &plain,
        }),
        line_chart(&LineChart {
            title: "Scaling",
            x_label: "n",
            y_label: "y",
            x_values: &[],
            x_tick_labels: &[],
            series: &[],
            log_x: true,
            log_y: true,
            format: &plain,
        }),
        roofline(&Roofline {
            title: "Roofline",
            points: &[],
            peak_flops: 1e13,
            peak_bandwidth: 1e12,
            measured_bandwidth: None,
            arrows: &[(0, 1)],
        })
        .svg,
    ];
    for svg in cases {
        assert!(texts(&svg).iter().any(|t| t == NO_DATA), "{svg}");
        assert!(svg.contains("<title>"));
    }
}

#[test]
fn drawing_errors_become_a_message_svg() {
    let svg = render("Broken <chart>", (WIDTH, 200), |_| {
        Err("backend said no".into())
    });
    assert_well_formed(&svg);
    assert!(
        texts(&svg)
            .iter()
            .any(|t| t == "chart could not be drawn: backend said no")
    );
    assert!(svg.contains("<title>Broken &lt;chart&gt;</title>"));
}

#[test]
fn marks_tag_ceiling_and_wrong() {
    let categories = names(&["cub-copy", "naive", "broken"]);
    let series = [series("t", &[Some(1.0), Some(2.0), Some(3.0)])];
    let marks = [Mark::Ceiling, Mark::Normal, Mark::Wrong];
    let svg = bar_chart(&bars(&categories, &marks, &series, false));
    let t = texts(&svg);
    assert!(t.iter().any(|s| s == "ceiling"));
    assert!(t.iter().any(|s| s == "wrong"));
    // each marked bar gets an outline rectangle on top of its fill
    assert_eq!(bar_rects(&svg, 1), 3 + 2);
    assert!(svg.contains("stroke=\"#D55E00\""));
}

#[test]
fn long_labels_wrap_then_rotate() {
    assert_eq!(
        wrap_label("padded-32x33", 54.0, 12.0),
        Some(names(&["padded-", "32x33"]))
    );
    assert_eq!(wrap_label("naive", 54.0, 12.0), Some(names(&["naive"])));
    assert_eq!(wrap_label("vectorizedfloat4", 54.0, 12.0), None);
    // Capitals, `=` and digits are measured wide: a sweep configuration
    // wraps at its commas into lines that each fit the slot.
    let configuration = wrap_label("blocktile[BM=64,BN=128,BK=8,TM=8,TN=8]", 130.0, 12.0).unwrap();
    assert_eq!(
        configuration,
        names(&["blocktile[BM=64,", "BN=128,BK=8,", "TM=8,TN=8]"])
    );

    let few = CategoryLabels::new(&names(&["naive", "padded-32x33"]), &[], 300.0);
    assert!(!few.rotated);
    let many: Vec<String> = (0..20).map(|i| format!("variant-number-{i}")).collect();
    let crowded = CategoryLabels::new(&many, &[], 30.0);
    assert!(crowded.rotated);
    let svg = bar_chart(&bars(&many, &[], &[series("t", &[Some(1.0); 20])], false));
    assert_eq!(
        count(&svg, "rotate(270"),
        20 + 1,
        "labels and the y axis title"
    );
    assert_eq!(
        texts(&svg)
            .iter()
            .filter(|t| t.starts_with("variant-number-"))
            .count(),
        20
    );
}

fn steps() -> Vec<RooflinePoint> {
    let p = |label: &str, intensity: f64, performance: f64, ceiling: bool| RooflinePoint {
        label: label.to_string(),
        intensity,
        performance,
        ceiling,
    };
    vec![
        p("naive", 0.25, 0.6e12, false),
        p("smem-tiled", 2.0, 6.5e12, false),
        p("register-blocked 8x8", 16.0, 31e12, false),
        p("vectorized-float4", 24.0, 44e12, false),
        p("cuBLAS", 40.0, 55e12, true),
        p("transpose-copy", 0.0, 0.0, false),
    ]
}

fn h200<'a>(points: &'a [RooflinePoint], arrows: &'a [(usize, usize)]) -> Roofline<'a> {
    Roofline {
        title: "Roofline: SGEMM variants on H200",
        points,
        peak_flops: 60e12,
        peak_bandwidth: 4.8e12,
        measured_bandwidth: Some(4.1e12),
        arrows,
    }
}

#[test]
fn roofline_draws_one_arrow_per_valid_step() {
    let points = steps();
    // 0→1, 1→2, 2→3 drawn; 3→5 ends at a skipped point, 7 does not exist, 2→2 is no step
    let arrows = [(0, 1), (1, 2), (2, 3), (3, 5), (6, 7), (2, 2)];
    let out = roofline(&h200(&points, &arrows));
    assert_eq!(count(&out.svg, "<polygon"), 3);
    // five placed points: a filled marker each (ceiling: hollow) on a white halo
    assert_eq!(
        count(&out.svg, "<circle"),
        5 * 2 + 2,
        "points plus the ridge marker"
    );
}

#[test]
fn roofline_labels_ridge_and_roofs() {
    let points = steps();
    let out = roofline(&h200(&points, &[]));
    let t = texts(&out.svg);
    assert_eq!(sig3(60e12 / 4.8e12), "12.5");
    assert!(t.iter().any(|s| s == "ridge 12.5 FLOP/byte"), "{t:?}");
    assert!(t.iter().any(|s| s == "peak: 60 TFLOP/s, 4.8 TB/s DRAM"));
    assert!(t.iter().any(|s| s == "measured copy: 4.1 TB/s"));
    for label in [
        "naive",
        "smem-tiled",
        "register-blocked 8x8",
        "cuBLAS (ceiling)",
    ] {
        assert!(t.iter().any(|s| s == label), "missing {label}");
    }
}

#[test]
fn roofline_skips_zero_intensity_and_says_so() {
    let mut points = steps();
    points.push(RooflinePoint {
        label: "nan".to_string(),
        intensity: 1.0,
        performance: f64::NAN,
        ceiling: false,
    });
    let out = roofline(&h200(&points, &[]));
    assert_eq!(out.skipped, names(&["transpose-copy", "nan"]));
    assert!(!texts(&out.svg).iter().any(|s| s == "transpose-copy"));
    assert!(
        texts(&out.svg)
            .iter()
            .any(|s| s.starts_with("Not placed") && s.ends_with("transpose-copy, nan"))
    );

    let copies = [RooflinePoint {
        label: "copy".to_string(),
        intensity: 0.0,
        performance: 0.0,
        ceiling: false,
    }];
    let only_copies = roofline(&h200(&copies, &[]));
    assert_eq!(only_copies.skipped, names(&["copy"]));
    assert!(texts(&only_copies.svg).iter().any(|t| t == NO_DATA));
}

#[test]
fn roofline_axes_contain_points_and_ridge() {
    let points = steps();
    let chart = h200(&points, &[]);
    let placed: Vec<(usize, &RooflinePoint)> = points.iter().enumerate().take(5).collect();
    let plan = RooflinePlan::new(&chart, &placed, &[]);
    for p in &points[..5] {
        assert!(plan.x.lo < p.intensity && p.intensity < plan.x.hi);
        assert!(plan.y.lo < p.performance && p.performance < plan.y.hi);
    }
    let ridge_measured = 60e12 / 4.1e12;
    assert!(plan.x.hi > ridge_measured && plan.y.hi > 60e12);
}

#[test]
fn unknown_peaks_draw_points_without_roof() {
    let points = steps();
    let chart = Roofline {
        peak_flops: 0.0,
        peak_bandwidth: f64::NAN,
        ..h200(&points, &[])
    };
    let out = roofline(&chart);
    let t = texts(&out.svg);
    assert!(!t.iter().any(|s| s.starts_with("ridge")));
    assert!(t.iter().any(|s| s.starts_with("Device peaks unknown")));
    assert!(t.iter().any(|s| s == "naive"));
}

#[test]
fn axis_ticks_are_nice() {
    assert_eq!(
        Axis::linear(0.0, 9.3).ticks,
        vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    );
    assert_eq!(
        Axis::log(0.1, 30.0, true).ticks,
        vec![0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
    );
    let sparse = Axis::log(1e-2, 1e16, false).ticks;
    assert_eq!(
        sparse,
        [1e-2, 1e1, 1e4, 1e7, 1e10, 1e13, 1e16],
        "every third decade"
    );
    assert_eq!(compact(2.5e12), "2.5T");
    let whole = |v: f64| format!("{v:.0}");
    assert_eq!(
        Axis::log(0.1, 30.0, true).labelled(&whole).labels[..3],
        ["0.1", "0.2", "0.5"]
    );
    assert_eq!(
        Axis::linear(0.0, 9.3).labelled(&whole).labels[..2],
        ["0", "2"]
    );
    assert_eq!(compact(0.01), "0.01");
    assert_eq!(si_unit(4.8e12, "B/s"), "4.8 TB/s");
}

/// Where the example charts are written, for looking at.
fn example_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/chart-examples")
}

/// Checks that `svg` is well-formed and writes it to the examples as `name`.
fn write(name: &str, svg: &str) {
    let dir = example_dir();
    std::fs::create_dir_all(&dir).expect("create target/chart-examples");
    assert_well_formed(svg);
    std::fs::write(dir.join(name), svg).expect("write example svg");
}

/// Writes timing and speedup bar charts of six variants to
/// target/chart-examples/ for looking at.
#[test]
fn write_bar_examples() {
    let variants = names(&[
        "naive",
        "coalesced",
        "smem-tiled",
        "padded-32x33",
        "vectorized-float4",
        "cub-copy",
    ]);
    let marks = [
        Mark::Normal,
        Mark::Normal,
        Mark::Normal,
        Mark::Normal,
        Mark::Wrong,
        Mark::Ceiling,
    ];
    let timing = |name: &str, scale: f64| {
        let base = [412.0, 131.0, 98.0, 71.0, 66.0, 58.0];
        BarSeries {
            name: name.to_string(),
            values: base.iter().map(|v| Some(v * scale)).collect(),
            whiskers: base
                .iter()
                .map(|v| Some((v * scale * 0.96, v * scale * 1.07)))
                .collect(),
        }
    };
    let sizes = [timing("4096×4096", 1.0), timing("8192×8192", 4.1)];
    write(
        "bars-time.svg",
        &bar_chart(&BarChart {
            title: "Kernel time per variant (median of 50 runs, whiskers min–max)",
            y_label: "time (µs)",
            categories: &variants,
            marks: &marks,
            series: &sizes,
            log_y: false,
            reference_line: None,
            y_max: None,
            format: &|v| format!("{v:.0}"),
        }),
    );

    let speedup = [BarSeries {
        name: "speedup over naive, 8192×8192".to_string(),
        values: vec![
            Some(1.0),
            Some(3.1),
            Some(4.2),
            Some(5.8),
            Some(6.2),
            Some(7.1),
        ],
        whiskers: Vec::new(),
    }];
    write(
        "bars-speedup-log.svg",
        &bar_chart(&BarChart {
            title: "Speedup over naive",
            y_label: "speedup",
            categories: &variants,
            marks: &marks,
            series: &speedup,
            log_y: true,
            reference_line: Some((1.0, "baseline")),
            y_max: None,
            format: &|v| format!("{v:.1}×"),
        }),
    );
}

/// Writes bar charts whose labels must wrap or turn, and the "no data"
/// chart, to target/chart-examples/ for looking at.
#[test]
fn write_crowded_bar_examples() {
    let many: Vec<String> = (0..16)
        .map(|i| format!("tile-{}x{}-unroll{}", 8 << (i % 3), 8 << (i % 2), i % 4 + 1))
        .collect();
    let many_series = [BarSeries {
        name: "DRAM throughput".to_string(),
        values: (0..16)
            .map(|i| (i != 5).then(|| 900.0 + 230.0 * f64::from(i % 7)))
            .collect(),
        whiskers: Vec::new(),
    }];
    write(
        "bars-many.svg",
        &bar_chart(&BarChart {
            title: "DRAM throughput of the tuning sweep",
            y_label: "GB/s",
            categories: &many,
            marks: &[],
            series: &many_series,
            log_y: false,
            reference_line: Some((4100.0, "copy 4.1 TB/s")),
            y_max: None,
            format: &|v| format!("{v:.0}"),
        }),
    );

    let eight = names(&[
        "naive",
        "coalesced-reads",
        "coalesced-writes",
        "smem-tiled-32x32",
        "padded-32x33",
        "swizzled-xor",
        "vectorized-float4",
        "cub-device-copy",
    ]);
    let eight_marks = [Mark::Normal; 7]
        .into_iter()
        .chain([Mark::Ceiling])
        .collect::<Vec<_>>();
    let bank = |name: &str, f: f64| BarSeries {
        name: name.to_string(),
        values: (0..8)
            .map(|i| Some(f * (32.0 / f64::from(i + 1)).max(1.0)))
            .collect(),
        whiskers: Vec::new(),
    };
    let waves = [
        bank("loads", 1.0),
        bank("stores", 1.4),
        bank("atomics", 0.4),
    ];
    write(
        "bars-wrapped-log.svg",
        &bar_chart(&BarChart {
            title: "Shared-memory bank conflicts per request",
            y_label: "ways",
            categories: &eight,
            marks: &eight_marks,
            series: &waves,
            log_y: true,
            reference_line: Some((1.0, "conflict-free")),
            y_max: None,
            format: &|v| format!("{v:.0}"),
        }),
    );
    write("no-data.svg", &bar_chart(&bars(&[], &[], &[], false)));
}

/// Writes a line chart over seven sizes, one line with a gap, to
/// target/chart-examples/ for looking at.
#[test]
fn write_line_example() {
    let x_values = [256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0];
    let x_tick_labels: Vec<String> = x_values.iter().map(|x| format!("{x}²")).collect();
    let curve = |name: &str, peak: f64, gap: Option<usize>| LineSeries {
        name: name.to_string(),
        points: (0..x_values.len())
            .map(|i| (Some(i) != gap).then(|| peak * (1.0 - 0.8 * 0.5f64.powi(i as i32))))
            .collect(),
    };
    let lines = [
        curve("naive", 610.0, None),
        curve("coalesced", 2300.0, None),
        curve("padded-32x33", 3600.0, Some(4)),
        curve("cub-copy", 4050.0, None),
    ];
    write(
        "lines-scaling.svg",
        &line_chart(&LineChart {
            title: "Effective bandwidth by matrix size",
            x_label: "matrix size (elements)",
            y_label: "GB/s",
            x_values: &x_values,
            x_tick_labels: &x_tick_labels,
            series: &lines,
            log_x: true,
            log_y: false,
            format: &|v| format!("{v:.0}"),
        }),
    );
}

/// Writes a roofline with steps and a crowded memory-bound one to
/// target/chart-examples/ for looking at.
#[test]
fn write_roofline_examples() {
    let points = steps();
    let out = roofline(&h200(&points, &[(0, 1), (1, 2), (2, 3)]));
    write("roofline.svg", &out.svg);

    let stencil: Vec<RooflinePoint> = [
        ("stencil-naive", 0.11, 0.42e12),
        ("stencil-smem", 0.31, 1.2e12),
        ("stencil-smem-halo2", 0.36, 1.35e12),
        ("stencil-temporal-blocking-4", 1.3, 4.6e12),
        ("stencil-temporal-blocking-8", 2.4, 8.1e12),
        ("fused-reduction", 0.5, 0.9e12),
    ]
    .iter()
    .map(|&(label, intensity, performance)| RooflinePoint {
        label: label.to_string(),
        intensity,
        performance,
        ceiling: false,
    })
    .collect();
    let crowded = roofline(&Roofline {
        title: "Roofline: stencil variants (memory bound)",
        arrows: &[(0, 1), (1, 2), (2, 3), (3, 4)],
        ..h200(&stencil, &[])
    });
    write("roofline-crowded.svg", &crowded.svg);
    assert!(example_dir().join("roofline.svg").exists());
}

#[test]
fn a_percentage_axis_stops_at_its_maximum() {
    let categories = names(&["a", "b"]);
    let occupancy = [series("N=1024", &[Some(98.0), Some(60.0)])];
    let mut chart = bars(&categories, &[], &occupancy, false);
    let unbounded = texts(&bar_chart(&chart));
    assert!(unbounded.iter().any(|t| t == "125.0"), "{unbounded:?}");
    chart.y_max = Some(100.0);
    let capped = texts(&bar_chart(&chart));
    assert!(capped.iter().any(|t| t == "100.0"), "{capped:?}");
    assert!(!capped.iter().any(|t| t == "125.0"), "{capped:?}");
}

#[test]
fn twelve_series_get_twelve_colours() {
    let colours: std::collections::BTreeSet<String> = (0..12)
        .map(|s| format!("{:?}", super::style::color(s)))
        .collect();
    assert_eq!(colours.len(), 12);
}
