//! End-to-end tests of [`load`] over the suites in tests/configs/: the valid
//! suites resolve to the expected plans, and every `.toml` in
//! tests/configs/errors/ fails with exactly the diagnostic in its insta
//! snapshot, tests/configs/errors/snapshots/NAME.snap. A changed diagnostic
//! fails with a diff; `cargo insta review` (or `INSTA_UPDATE=always cargo
//! test`, then `git diff`) accepts it.

use std::fs;
use std::path::{Path, PathBuf};

use super::plan::{
    Arg, Buffer, ClockControl, Compare, ElementType, Fill, Instance, LinesAt, Scalar, Tolerance,
    Verify,
};
use super::{Plan, load, parse};
use crate::model::Change;
use crate::model::variant::Role;

fn plan(path: &str) -> Plan {
    match load(Path::new(path)) {
        Ok(plan) => plan,
        Err(e) => panic!("{path} should load:\n{e}"),
    }
}

fn canonical(path: &str) -> PathBuf {
    fs::canonicalize(path).unwrap()
}

fn buffer(arg: &Arg) -> &Buffer {
    match arg {
        Arg::Buffer(b) => b,
        Arg::Scalar(s) => panic!("{} is a scalar", s.name),
    }
}

fn scalar(arg: &Arg) -> &Scalar {
    match arg {
        Arg::Scalar(s) => s,
        Arg::Buffer(b) => panic!("{} is a buffer", b.name),
    }
}

#[test]
fn the_transpose_suite_resolves_to_the_expected_plan() {
    let plan = plan("tests/configs/valid/variants.toml");
    let suite = &plan.suite;
    assert_eq!(suite.name, "transpose");
    assert_eq!(
        suite.description,
        "float32 matrix transpose, 32x8 threads per 32x32 tile"
    );
    assert_eq!(
        suite.config_path,
        canonical("tests/configs/valid/variants.toml")
    );
    assert_eq!(suite.baseline, "naive");
    assert_eq!(suite.seed, 7);
    assert_eq!((plan.timing.warmup, plan.timing.repetitions), (3, 5));
    assert_eq!(plan.profile.clock_control, ClockControl::Base);

    let labels: Vec<&str> = suite.sizes.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["N=1000", "N=2048"]);
    let symbols: Vec<(&str, i64)> = suite.sizes[1]
        .symbols
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(symbols, [("N", 2048), ("ROWS", 8), ("TILE", 32)]);

    let names: Vec<&str> = plan.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["naive", "tiled", "padded", "copy"]);

    let naive = plan.variant("naive").unwrap();
    assert_eq!(naive.role, Role::Step);
    let naive_kernel = naive.kernel().unwrap();
    assert_eq!(
        naive_kernel.path,
        canonical("tests/configs/valid/kernels/naive.cu")
    );
    assert!(naive_kernel.path.is_absolute());
    assert_eq!(naive_kernel.entry, "transpose_naive");
    assert!(naive.changes.is_empty());
    assert!(naive_kernel.compile_options.is_empty());
    assert_eq!(naive.notes, "one thread per element");
    assert_eq!(
        naive.verify,
        Verify::Skip,
        "the baseline verifies against nothing"
    );
    assert_eq!(
        naive.tolerance,
        Tolerance {
            rel: 1e-5,
            abs: 1e-6
        }
    );
    let small = &naive.instances[0];
    assert_eq!(small.size, "N=1000");
    assert_eq!(small.grid, [32, 32, 1], "cdiv(1000, 32) and ceil(1000/32)");
    assert_eq!(small.block, [32, 8, 1]);
    assert_eq!(small.shared_bytes, 0);
    assert_eq!(small.bytes, Some(8e6));
    assert_eq!(small.flops, Some(0.0));
    assert_eq!(small.args.len(), 4);
    assert_eq!(
        buffer(&small.args[0]),
        &Buffer {
            name: "in".into(),
            element: ElementType::F32,
            count: 1_000_000,
            fill: Fill::Random {
                low: -1.0,
                high: 1.0
            },
            output: false,
            compare: Compare::Elementwise,
            symbol: None,
        }
    );
    let out = buffer(&small.args[1]);
    assert_eq!((out.fill, out.output), (Fill::Poison, true));
    assert_eq!(
        scalar(&small.args[3]),
        &Scalar {
            name: "height".into(),
            element: ElementType::I32,
            value: 1000.0
        }
    );
    let large = &naive.instances[1];
    assert_eq!(large.size, "N=2048");
    assert_eq!(large.grid, [64, 64, 1]);
    assert_eq!(buffer(&large.args[1]).count, 2048 * 2048);
    assert_eq!(large.bytes, Some(2.0 * 2048.0 * 2048.0 * 4.0));

    let tiled = plan.variant("tiled").unwrap();
    assert_eq!(
        tiled.changes,
        [Change::Coalescing, Change::SharedMemoryTiling]
    );
    assert_eq!(tiled.verify, Verify::Against("naive".into()));
    assert_eq!(tiled.instances[0].shared_bytes, 4096);
    assert_eq!(
        tiled.tolerance,
        Tolerance {
            rel: 0.0,
            abs: 1e-6
        },
        "a partial tolerance keeps the other default"
    );

    let padded = plan.variant("padded").unwrap();
    assert_eq!(padded.verify, Verify::Against("tiled".into()));
    assert_eq!(padded.changes, [Change::Padding]);
    let padded_kernel = padded.kernel().unwrap();
    assert_eq!(padded_kernel.compile_options, ["--use_fast_math"]);
    assert_eq!(padded_kernel.path, tiled.kernel().unwrap().path);
    assert_eq!(padded_kernel.entry, "transpose_padded");
    assert_eq!(padded.instances[1].shared_bytes, 0);

    let copy = plan.variant("copy").unwrap();
    assert_eq!(copy.role, Role::Ceiling);
    assert_eq!(copy.verify, Verify::Skip);
    let grids: Vec<[u32; 3]> = copy.instances.iter().map(|i| i.grid).collect();
    assert_eq!(grids, [[3907, 1, 1], [16384, 1, 1]]);
    assert_eq!(copy.instances[0].block, [256, 1, 1]);
    let args = &copy.instances[0].args;
    assert_eq!(
        args.len(),
        3,
        "a variant's args replace the defaults wholesale"
    );
    assert_eq!(buffer(&args[0]).fill, Fill::Constant { value: 1.5 });
    assert_eq!(buffer(&args[1]).fill, Fill::Constant { value: 0.0 });
    assert_eq!(
        (scalar(&args[2]).element, scalar(&args[2]).value),
        (ElementType::U64, 1e6)
    );
    assert_eq!(
        copy.instances[0].bytes,
        Some(8e6),
        "inherited from [defaults]"
    );
}

#[test]
fn the_row_sums_suite_resolves_to_the_expected_plan() {
    let plan = plan("tests/configs/valid/rows.toml");
    assert_eq!(plan.suite.name, "row_sums");
    assert_eq!(plan.suite.description, "");
    assert_eq!(plan.suite.seed, 1234);
    assert_eq!((plan.timing.warmup, plan.timing.repetitions), (0, 20));
    assert_eq!(plan.profile.clock_control, ClockControl::None);
    let labels: Vec<&str> = plan.suite.sizes.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(
        labels,
        ["M=1024, N=512", "N=100, M=3"],
        "keys in file order"
    );
    assert!(plan.suite.sizes.iter().all(|s| s.symbols["BLOCK"] == 128));

    let rows = plan.variant("rows").unwrap();
    assert_eq!(rows.verify, Verify::Skip);
    assert_eq!(
        rows.tolerance,
        Tolerance {
            rel: 1e-9,
            abs: 0.0
        }
    );
    let Instance {
        grid,
        block,
        shared_bytes,
        args,
        bytes,
        flops,
        ..
    } = &rows.instances[0];
    assert_eq!(
        (*grid, *block, *shared_bytes),
        ([1024, 1, 1], [128, 1, 1], 1024)
    );
    assert_eq!((*bytes, *flops), (None, Some(524288.0)));
    let matrix = buffer(&args[0]);
    assert_eq!((matrix.element, matrix.count), (ElementType::F64, 524288));
    assert_eq!(
        matrix.fill,
        Fill::Random {
            low: 0.0,
            high: 10.0
        }
    );
    let partials = buffer(&args[2]);
    assert_eq!((partials.count, partials.compare), (4096, Compare::Sum));
    assert_eq!(
        (scalar(&args[4]).element, scalar(&args[4]).value),
        (ElementType::F32, 0.5)
    );
    assert_eq!(rows.instances[1].grid, [3, 1, 1]);
    assert_eq!(buffer(&rows.instances[1].args[2]).count, 3);

    let shuffle = plan.variant("shuffle").unwrap();
    assert_eq!(shuffle.verify, Verify::Against("rows".into()));
    assert_eq!(
        shuffle.changes,
        [Change::WarpShuffle, Change::ConstantMemory]
    );
    let args = &shuffle.instances[0].args;
    assert_eq!(args.len(), 6);
    assert_eq!(
        buffer(&args[2]).count,
        1024,
        "sum-compared counts may differ"
    );
    let weights = buffer(&args[3]);
    assert_eq!(weights.symbol.as_deref(), Some("c_weights"));
    assert_eq!(
        (weights.element, weights.fill),
        (ElementType::I32, Fill::Constant { value: 1.0 })
    );
    assert_eq!(scalar(&args[5]).value, 0.5);
    assert_eq!(shuffle.instances[1].grid, [3, 1, 1]);
}

#[test]
fn parse_resolves_sources_against_the_folder_of_the_given_path() {
    let path = "tests/configs/valid/variants.toml";
    let text = fs::read_to_string(path).unwrap();
    assert_eq!(parse(&text, Path::new(path)), load(Path::new(path)));
    let error = parse(&text, Path::new("elsewhere/variants.toml")).unwrap_err();
    assert_eq!(
        error.message(),
        "cannot read kernel source elsewhere/kernels/naive.cu: No such file or directory (os error 2)"
    );
}

#[test]
fn lines_at_names_a_size_by_label_or_value_or_leaves_the_choice() {
    let path = "tests/configs/valid/variants.toml";
    let text = fs::read_to_string(path).unwrap();
    assert_eq!(plan(path).profile.lines_at, LinesAt::Auto);
    let with = |value: &str| {
        let text = text.replace("[profile]\n", &format!("[profile]\nlines_at = {value}\n"));
        parse(&text, Path::new(path)).map(|plan| plan.profile.lines_at)
    };
    assert_eq!(with("\"every\""), Ok(LinesAt::Every));
    assert_eq!(with("\"auto\""), Ok(LinesAt::Auto));
    assert_eq!(with("\"N=2048\""), Ok(LinesAt::Size("N=2048".into())));
    assert_eq!(with("\"N = 1000\""), Ok(LinesAt::Size("N=1000".into())));
    assert_eq!(with("\"2048\""), Ok(LinesAt::Size("N=2048".into())));
    let error = with("\"N=4096\"").unwrap_err();
    assert_eq!(
        error.message(),
        "lines_at \"N=4096\" is not one of the suite's sizes"
    );
}

#[test]
fn a_file_that_cannot_be_read_says_so_and_what_to_do() {
    let error = load(Path::new("tests/configs/missing.toml")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "error: cannot read tests/configs/missing.toml: No such file or directory (os error 2)\n  \
         = help: give the path of an existing, readable variants.toml (see docs/variants-toml.md)"
    );
}

#[test]
fn the_plan_survives_a_json_round_trip() {
    let plan = plan("tests/configs/valid/rows.toml");
    let json = serde_json::to_string(&plan).unwrap();
    assert_eq!(serde_json::from_str::<Plan>(&json).unwrap(), plan);
}

#[test]
fn every_error_file_fails_with_its_snapshotted_diagnostic() {
    let folder = Path::new("tests/configs/errors");
    let mut cases: Vec<PathBuf> = fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "only {} error files", cases.len());
    let root = env!("CARGO_MANIFEST_DIR");
    for case in &cases {
        let name = case.file_stem().unwrap().to_str().unwrap();
        let error = match load(case) {
            Ok(_) => panic!("{} loaded without an error", case.display()),
            Err(e) => e,
        };
        // Absolute paths differ between checkouts; none is expected, but
        // one would snapshot as [ROOT] rather than as this machine's path.
        let diagnostic = error.to_string().replace(root, "[ROOT]");
        insta::with_settings!({
            snapshot_path => "../../tests/configs/errors/snapshots",
            prepend_module_to_snapshot => false,
            input_file => case,
        }, {
            insta::assert_snapshot!(name, diagnostic);
        });
    }
    for entry in fs::read_dir(folder.join("snapshots")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "snap") {
            continue; // a pending .snap.new, left by a failed comparison
        }
        let stem = path.file_stem().unwrap().to_str().unwrap();
        assert!(
            folder.join(format!("{stem}.toml")).exists(),
            "{} is not the snapshot of a .toml in {}",
            path.display(),
            folder.display()
        );
    }
}

#[test]
fn the_matmul_suite_calls_cublas_as_its_ceiling() {
    let plan = crate::config::load(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/matmul/variants.toml"
    )))
    .unwrap();
    let cublas = plan.variant("cublas").unwrap();
    assert_eq!(
        cublas.kind,
        crate::config::plan::VariantKind::Library {
            library: crate::model::variant::Library::CUBLAS_SGEMM
        }
    );
    assert_eq!(cublas.role, Role::Ceiling);
    assert_eq!(
        cublas.instances.last().unwrap().gemm,
        Some([4096, 4096, 4096])
    );
    assert_eq!(
        cublas.verify,
        crate::config::plan::Verify::Against("naive".into())
    );
    assert!(
        plan.variants
            .iter()
            .filter(|v| v.name != "cublas")
            .all(|v| v.kernel().is_some() && v.instances[0].gemm.is_none())
    );
}

#[test]
fn a_sweep_becomes_one_variant_per_kept_configuration() {
    let plan = plan("tests/configs/valid/sweep.toml");
    let names: Vec<&str> = plan.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "plain",
            "items[ITEMS=1,BLOCK=128]",
            "items[ITEMS=1,BLOCK=256]",
            "items[ITEMS=4,BLOCK=128]",
            "defined[ITEMS=2,BLOCK=64]",
        ]
    );
    let tuned = plan.variant("items[ITEMS=4,BLOCK=128]").unwrap();
    assert_eq!(tuned.kernel().unwrap().entry, "copy_items<4>");
    assert_eq!(tuned.instances[0].grid, [8, 1, 1]);
    assert_eq!(tuned.instances[0].block, [128, 1, 1]);
    assert_eq!(tuned.instances[0].size, "N=4096");
    // Template arguments are not defines too: a macro named like the
    // kernel's template parameter would break its source.
    assert!(tuned.instances[0].defines.is_empty());
    let point = tuned.sweep.as_ref().unwrap();
    assert_eq!(point.group, "items");
    assert_eq!(
        point.parameters,
        [("ITEMS".into(), 4), ("BLOCK".into(), 128)]
    );
    let defined = plan.variant("defined[ITEMS=2,BLOCK=64]").unwrap();
    assert_eq!(
        defined.instances[0].defines,
        [("BLOCK".to_string(), 64), ("ITEMS".to_string(), 2)]
    );
    assert_eq!(plan.sweeps.len(), 2);
    assert_eq!(plan.sweeps[0].parameters, ["ITEMS", "BLOCK"]);
    assert_eq!(
        plan.sweeps[0].skipped,
        [crate::model::sweep::SkippedConfiguration {
            parameters: vec![("ITEMS".into(), 4), ("BLOCK".into(), 256)],
            reason: "ITEMS * BLOCK <= 512 is false (1024 <= 512)".into(),
        }]
    );
    assert_eq!(
        plan.profile.sweeps,
        super::plan::SweepProfiling::Extremes { best: 1, worst: 1 }
    );
    assert!(plan.variant("plain").unwrap().sweep.is_none());
}
