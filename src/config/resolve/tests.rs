//! Helpers shared by the tests of `resolve`, `values` and `args`, and the
//! tests of the suite-level and cross-variant rules.

use super::*;
use crate::config::parse;
use crate::config::plan::{Arg, ClockControl, Compare, Tolerance, Verify};
use crate::model::Change;
use crate::model::suite::Timing;
use crate::model::variant::Role;

/// Files "next to" the unit-test suites: their sources live in
/// tests/configs/errors/kernels/.
pub(crate) const PATH: &str = "tests/configs/errors/unit.toml";

pub(crate) const GEOMETRY: &str = "grid = [\"cdiv(N, 256)\"]\nblock = [256]";

pub(crate) const ARGS: &str = r#"args = [
  { name = "in",  buffer = "f32", count = "N", fill = "random" },
  { name = "out", buffer = "f32", count = "N", output = true },
  { name = "factor", scalar = "f32", value = "2" },
  { name = "n",   scalar = "i32", value = "N" },
]"#;

/// A variant's keys that launch a kernel taking any arguments, for tests
/// of what the arguments are rather than which a kernel takes.
pub(crate) const ANY_KERNEL: &str = "source = \"kernels/any.cu\"\nentry = \"any_arguments<>\"";

/// A suite at sizes 1024 and 4096 with baseline "plain": `suite` is added
/// to [suite], `defaults` to [defaults] (which runs the `scale` kernel),
/// and `variants` follows.
pub(crate) fn suite(suite: &str, defaults: &str, variants: &str) -> String {
    format!(
        "[suite]\nname = \"unit\"\nsizes = [1024, 4096]\nbaseline = \"plain\"\n{suite}\n\n\
             [defaults]\nsource = \"kernels/scale.cu\"\nentry = \"scale\"\n{defaults}\n\n\
             {variants}\n"
    )
}

/// The standard suite with variant "plain" given `keys`.
pub(crate) fn one_variant(keys: &str) -> String {
    suite(
        "",
        &format!("{GEOMETRY}\n{ARGS}"),
        &format!("[[variant]]\nname = \"plain\"\n{keys}"),
    )
}

/// The standard suite with variant "plain" taking `args` (lines of inline
/// tables), launching a kernel that takes any arguments.
pub(crate) fn with_args(args: &str) -> String {
    one_variant(&format!("{ANY_KERNEL}\nargs = [\n{args}\n]"))
}

pub(crate) fn ok(text: &str) -> Plan {
    match parse(text, Path::new(PATH)) {
        Ok(plan) => plan,
        Err(e) => panic!("{e}\n--- in\n{text}"),
    }
}

pub(crate) fn err(text: &str) -> ConfigError {
    match parse(text, Path::new(PATH)) {
        Ok(plan) => panic!("resolved to {plan:?}\n--- from\n{text}"),
        Err(e) => e,
    }
}

/// Asserts that `text` fails with `message`, pointing at the first
/// occurrence of `needle`, or where `»` stands in it.
#[track_caller]
pub(crate) fn fails(text: &str, message: &str, needle: &str) -> ConfigError {
    let e = err(text);
    assert_eq!(e.message(), message, "\n{e}");
    let (before, _) = needle.split_once('»').unwrap_or(("", needle));
    let offset = text
        .find(&needle.replace('»', ""))
        .unwrap_or_else(|| panic!("{needle:?} not in\n{text}"))
        + before.len();
    let line = text[..offset].matches('\n').count() + 1;
    let column = text[..offset]
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .chars()
        .count()
        + 1;
    assert_eq!((e.line(), e.column()), (Some(line), Some(column)), "\n{e}");
    e
}

pub(crate) fn help(e: &ConfigError) -> String {
    e.to_string()
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("= help: ").map(str::to_string))
        .unwrap_or_default()
}

#[test]
fn suite_defaults() {
    let plan = ok(&one_variant(""));
    assert_eq!(plan.suite.description, "");
    assert_eq!(plan.suite.seed, 1234);
    assert_eq!(
        plan.timing,
        Timing {
            warmup: 3,
            repetitions: 20,
            target_spread: Some(0.01),
            time_limit_s: Some(1.0),
        }
    );
    assert_eq!(plan.profile.clock_control, ClockControl::None);
    assert!(plan.suite.config_path.is_absolute());
    assert!(plan.suite.config_path.ends_with(PATH));
}

#[test]
fn defaults_fill_in_keys_and_a_variant_key_replaces_the_default_wholesale() {
    let defaults = format!(
        "{GEOMETRY}\n{ARGS}\ntolerance = {{ rel = 1e-3, abs = 1e-4 }}\nnotes = \"shared\"\n\
             compile_options = [\"-lineinfo\"]"
    );
    let variants = r#"[[variant]]
name = "plain"

[[variant]]
name = "other"
tolerance = { abs = 0.5 }
compile_options = []
block = [128]
args = [{ name = "out", buffer = "f32", count = "N", output = true }]
"#;
    let plan = ok(&suite("", &defaults, &format!("{variants}{ANY_KERNEL}\n")));
    let plain = plan.variant("plain").unwrap();
    assert_eq!(plain.notes, "shared");
    assert_eq!(plain.kernel().unwrap().compile_options, ["-lineinfo"]);
    assert_eq!(
        plain.tolerance,
        Tolerance {
            rel: 1e-3,
            abs: 1e-4
        }
    );
    assert_eq!(plain.instances[0].args.len(), 4);
    assert_eq!(plain.instances[0].block, [256, 1, 1]);
    let other = plan.variant("other").unwrap();
    assert_eq!(other.notes, "shared");
    assert!(other.kernel().unwrap().compile_options.is_empty());
    assert_eq!(
        other.tolerance,
        Tolerance {
            rel: 1e-5,
            abs: 0.5
        },
        "tolerance is replaced, not merged with the default"
    );
    assert_eq!(other.instances[0].args.len(), 1, "args are not merged");
    assert_eq!(other.instances[0].block, [128, 1, 1]);
    assert_eq!(
        other.instances[1].grid,
        [16, 1, 1],
        "grid still from [defaults]"
    );
}

#[test]
fn defaults_cannot_name_a_variant() {
    let text = suite(
        "",
        &format!("name = \"x\"\n{GEOMETRY}\n{ARGS}"),
        "[[variant]]\nname = \"plain\"",
    );
    fails(&text, "[defaults] cannot set `name`", "\"x\"");
}

#[test]
fn size_labels_bind_n_or_the_table_keys_in_file_order() {
    let text = one_variant(&format!(
        "{ANY_KERNEL}\ngrid = [1]\nargs = [{{ name = \"out\", buffer = \"f32\", count = \"C\", output = true }}]"
    ))
    .replace(
        "sizes = [1024, 4096]",
        "sizes = [64, { K = 2, M = 3 }, { M = 1, K = 9 }]\nconstants = { C = 5, A = 1 }",
    );
    let plan = ok(&text);
    let labels: Vec<&str> = plan.suite.sizes.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["N=64", "K=2, M=3", "M=1, K=9"]);
    let first: Vec<(&str, i64)> = plan.suite.sizes[0]
        .symbols
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(first, [("A", 1), ("C", 5), ("N", 64)]);
    assert_eq!(plan.suite.sizes[2].symbols["K"], 9);
    let sizes: Vec<&str> = plan.variants[0]
        .instances
        .iter()
        .map(|i| i.size.as_str())
        .collect();
    assert_eq!(sizes, labels);
}

#[test]
fn size_rules() {
    let with_sizes = |sizes: &str| one_variant("").replace("sizes = [1024, 4096]", sizes);
    fails(&with_sizes("sizes = []"), "the suite has no sizes", "[]");
    fails(
        &with_sizes("sizes = [64, { N = 64 }]"),
        "size N=64 is listed twice",
        "{ N = 64 }",
    );
    let e = fails(
        &with_sizes("sizes = [{ M = 1, N = 2 }, { N = 2, M = 1 }]"),
        "size N=2, M=1 is listed twice",
        "{ N = 2, M = 1 }",
    );
    assert_eq!(
        help(&e),
        "it binds the same symbols as size M=1, N=2: remove one of them"
    );
    fails(
        &with_sizes("sizes = [64, {}]"),
        "this size binds no symbols",
        "{}",
    );
    fails(
        &with_sizes("sizes = [{ tile-size = 4 }]"),
        "size symbol `tile-size` is not a name expressions can use",
        "tile-size",
    );
    fails(
        &with_sizes("sizes = [64]\nconstants = { TILE = 4, N = 2 }"),
        "constant `N` has the same name as a size symbol",
        "N = 2",
    );
    fails(
        &with_sizes("sizes = [64]\nconstants = { \"2x\" = 4 }"),
        "constant `2x` is not a name expressions can use",
        "\"2x\"",
    );
}

#[test]
fn suite_rules() {
    let named = |name: &str| one_variant("").replace("name = \"unit\"", name);
    assert_eq!(ok(&named("name = \"My_suite-2\"")).suite.name, "My_suite-2");
    let e = fails(
        &named("name = \"a.b\""),
        "suite name \"a.b\" may only contain letters, digits, '-' and '_'",
        "\"a.b\"",
    );
    assert!(help(&e).ends_with("e.g. \"a-b\""));
    fails(&named("name = \"\""), "the suite name is empty", "\"\"");
    assert_eq!(
        ok(&format!("version = 1\n{}", one_variant("")))
            .variants
            .len(),
        1
    );
    fails(
        &format!("version = 2\n{}", one_variant("")),
        "unknown version 2",
        "version = »2",
    );
    let with = |line: &str| {
        one_variant("").replace(
            "baseline = \"plain\"",
            &format!("baseline = \"plain\"\n{line}"),
        )
    };
    fails(
        &with("repetitions = 0"),
        "repetitions must be at least 1",
        "repetitions = »0",
    );
    let plan = ok(&with(
        "repetitions = 1\nwarmup = 0\nseed = 99\ndescription = \"d\"",
    ));
    assert_eq!(
        (plan.timing.repetitions, plan.timing.warmup, plan.suite.seed),
        (1, 0, 99)
    );
    assert_eq!(plan.suite.description, "d");
    let timed = ok(&with("target_spread = 0.005\ntime_limit = 3"));
    assert_eq!(
        (timed.timing.target_spread, timed.timing.time_limit_s),
        (Some(0.005), Some(3.0))
    );
    fails(
        &with("target_spread = 0"),
        "target_spread = 0 is outside 0.001–0.5",
        "target_spread = »0",
    );
    fails(
        &with("target_spread = 1.5"),
        "target_spread = 1.5 is outside 0.001–0.5",
        "target_spread = »1.5",
    );
    fails(
        &with("time_limit = 0"),
        "time_limit = 0 is not between 0 and 600 seconds",
        "time_limit = »0",
    );
    fails(
        &with("time_limit = 601.5"),
        "time_limit = 601.5 is not between 0 and 600 seconds",
        "time_limit = »601.5",
    );
    let profile =
        |value: &str| format!("[profile]\nclock_control = {value}\n\n{}", one_variant(""));
    assert_eq!(
        ok(&profile("\"base\"")).profile.clock_control,
        ClockControl::Base
    );
    assert_eq!(
        ok(&profile("\"none\"")).profile.clock_control,
        ClockControl::None
    );
    fails(
        &profile("\"locked\""),
        "unknown clock_control \"locked\"",
        "\"locked\"",
    );
}

#[test]
fn variant_name_rules() {
    let text = suite("", &format!("{GEOMETRY}\n{ARGS}"), "");
    fails(&text, "the suite has no variants", "[suite]");
    let text = suite(
        "",
        &format!("{GEOMETRY}\n{ARGS}"),
        "[[variant]]\nnotes = \"x\"",
    );
    fails(&text, "this [[variant]] has no name", "[[variant]]");
    let text = suite(
        "",
        &format!("{GEOMETRY}\n{ARGS}"),
        "[[variant]]\nname = \" \"",
    );
    fails(&text, "a variant name cannot be empty", "\" \"");
    let text = suite(
        "",
        &format!("{GEOMETRY}\n{ARGS}"),
        "[[variant]]\nname = \"plain\"\n\n[[variant]]\nname = \"Plain\"\n\n[[variant]]\nname = \"plain\" # again",
    );
    let e = fails(
        &text,
        "variant name \"plain\" is used twice",
        "\"plain\" # again",
    );
    let first = text[..text.find("name = \"plain\"").unwrap()]
        .matches('\n')
        .count()
        + 1;
    assert!(
        help(&e).ends_with(&format!("the one on line {first}")),
        "{e}"
    );
}

#[test]
fn the_baseline_must_be_a_variant_and_the_help_lists_the_nearest_first() {
    let text = suite(
        "",
        &format!("{GEOMETRY}\n{ARGS}"),
        "[[variant]]\nname = \"copy\"\n\n[[variant]]\nname = \"plan\"\n\n[[variant]]\nname = \"tiled\"",
    );
    let e = fails(&text, "baseline \"plain\" is not a variant", "\"plain\"");
    assert_eq!(
        help(&e),
        "the variants are: plan, copy, tiled (did you mean \"plan\"?)"
    );
}

#[test]
fn required_variant_keys() {
    for key in ["source", "entry", "grid", "block", "args"] {
        let defaults = format!("{GEOMETRY}\n{ARGS}")
            .lines()
            .filter(|l| !l.starts_with(key))
            .collect::<Vec<_>>()
            .join("\n");
        let defaults = if key == "args" {
            defaults
                .lines()
                .filter(|l| !l.starts_with("  {") && *l != "]")
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            defaults
        };
        let text = suite("", &defaults, "[[variant]]\nname = \"plain\"")
            .replace(&format!("{key} = \"kernels/scale.cu\"\n"), "")
            .replace(&format!("{key} = \"scale\"\n"), "");
        fails(
            &text,
            &format!("variant `plain` has no `{key}`"),
            "[[variant]]",
        );
    }
}

#[test]
fn sources_resolve_against_the_toml_folder_and_are_canonical() {
    let plan = ok(&one_variant("source = \"./kernels/../kernels/scale.cu\""));
    assert_eq!(
        plan.variants[0].kernel().unwrap().path,
        fs::canonicalize("tests/configs/errors/kernels/scale.cu").unwrap()
    );
    let e = fails(
        &one_variant("source = \"kernels/none.cu\""),
        "cannot read kernel source tests/configs/errors/kernels/none.cu: No such file or \
             directory (os error 2)",
        "\"kernels/none.cu\"",
    );
    assert_eq!(
        help(&e),
        "`source` is relative to the folder of the variants.toml (tests/configs/errors)"
    );
    let e = err(&one_variant("source = \"kernels\""));
    assert!(
        e.message()
            .starts_with("cannot read kernel source tests/configs/errors/kernels:")
    );
    fails(
        &one_variant("source = \"kernels/binary.cu\""),
        "kernel source tests/configs/errors/kernels/binary.cu contains a NUL byte (at byte 68)",
        "\"kernels/binary.cu\"",
    );
}

#[test]
fn sources_are_read_only_when_they_are_regular_files() {
    let folder = tempfile::tempdir().unwrap();
    let fifo = folder.path().join("fifo.cu");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
    for source in [fifo.to_str().unwrap(), "/dev/zero"] {
        let text = one_variant(&format!("source = \"{source}\"\nentry = \"k\""));
        let e = parse(&text, &folder.path().join("variants.toml")).unwrap_err();
        assert!(
            e.message()
                .ends_with("it is not a regular file (a folder, a FIFO or a device)"),
            "{source}: {e}"
        );
    }
    let suite = folder.path().join("utf16.toml");
    fs::write(&suite, b"\xff\xfe[\0s\0").unwrap();
    let e = crate::config::load(&suite).unwrap_err();
    assert!(
        e.message().ends_with("it is UTF-16 text; save it as UTF-8"),
        "{e}"
    );
}

#[test]
fn a_source_in_another_8_bit_encoding_is_read_with_its_kernels() {
    // A GBK comment ("kernel" in Chinese), as in many public kernel
    // collections: nvcc and NVRTC compile it, so gpuprof takes it too.
    let folder = tempfile::tempdir().unwrap();
    fs::write(
        folder.path().join("k.cu"),
        b"// \xba\xcb\xba\xaf\xca\xfd\nextern \"C\" __global__ void k(const float *in, float *out, float f, int n) {}\n",
    )
    .unwrap();
    let text = one_variant("source = \"k.cu\"\nentry = \"k\"");
    parse(&text, &folder.path().join("variants.toml")).unwrap();
    let wrong = one_variant("source = \"k.cu\"\nentry = \"kk\"");
    let e = parse(&wrong, &folder.path().join("variants.toml")).unwrap_err();
    assert!(e.to_string().contains("defines the kernels: k"), "{e}");
}

#[test]
fn entry_points_name_plain_extern_c_and_template_kernels_of_the_source() {
    for entry in ["scale", "scale_mangled", "scale_by<2>", "scale_by< 4 >"] {
        let args = match entry.starts_with("scale_by") {
            true => ARGS.replace(
                "  { name = \"factor\", scalar = \"f32\", value = \"2\" },\n",
                "",
            ),
            false => ARGS.to_string(),
        };
        let plan = ok(&one_variant(&format!("entry = \"{entry}\"\n{args}")));
        assert_eq!(plan.variants[0].kernel().unwrap().entry, entry);
    }
    let e = fails(
        &one_variant("entry = \"scale_by\""),
        "`scale_by` is a template: name the instance to run",
        "\"scale_by\"",
    );
    assert!(
        e.to_string()
            .contains("= note: it is declared `template <int Factor>`"),
        "{e}"
    );
    fails(
        &one_variant("entry = \"scale<2>\""),
        "`scale` is not a template",
        "\"scale<2>\"",
    );
    let e = err(&one_variant("entry = \"scal\""));
    assert!(
        e.to_string()
            .contains("defines the kernels: scale, scale_mangled, scale_by<int Factor>\n"),
        "{e}"
    );
    assert!(help(&e).starts_with("did you mean `scale`?"), "{e}");
    let e = err(&one_variant(
        "source = \"kernels/helpers.cu\"\nentry = \"twice\"",
    ));
    assert!(
        e.to_string().contains(
            "= note: tests/configs/errors/kernels/helpers.cu defines no __global__ function"
        ),
        "{e}"
    );
}

#[test]
fn a_kernel_of_an_included_header_is_pointed_to() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(folder.path().join("src")).unwrap();
    std::fs::write(
        folder.path().join("src/kernels.cuh"),
        "__global__ void scale(float *x) { x[0] = 1; }\n",
    )
    .unwrap();
    std::fs::write(
        folder.path().join("src/main.cu"),
        "#include \"kernels.cuh\"\nint main() { scale<<<1, 1>>>(nullptr); }\n",
    )
    .unwrap();
    let text = one_variant("source = \"src/main.cu\"\nentry = \"scale\"");
    let e = parse(&text, &folder.path().join("variants.toml")).unwrap_err();
    assert!(
        help(&e).ends_with(
            "which the file includes: give source = \"src/kernels.cuh\" (gpuprof compiles the kernel from it)"
        ),
        "{e}"
    );
}

#[test]
fn an_entry_the_scan_cannot_see_is_left_to_the_compiler_when_a_macro_declares_kernels() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(
        folder.path().join("k.cu"),
        "#define KERNEL(name) extern \"C\" __global__ void name(float *x)\nKERNEL(scale) { x[0] = 1; }\n",
    )
    .unwrap();
    let text = one_variant("source = \"k.cu\"\nentry = \"scale\"");
    let plan = parse(&text, &folder.path().join("variants.toml")).unwrap();
    assert_eq!(plan.variants[0].kernel().unwrap().entry, "scale");
}

#[test]
fn roles() {
    assert_eq!(ok(&one_variant("")).variants[0].role, Role::Step);
    assert_eq!(
        ok(&one_variant("role = \"step\"")).variants[0].role,
        Role::Step
    );
    let with_ceiling = format!(
        "{}\n[[variant]]\nname = \"copy\"\nrole = \"ceiling\"\n",
        one_variant("")
    );
    assert_eq!(ok(&with_ceiling).variants[1].role, Role::Ceiling);
    fails(
        &one_variant("role = \"ceiling\""),
        "the baseline `plain` is a ceiling",
        "\"plain\"",
    );
    fails(
        &one_variant("role = \"Ceiling\""),
        "unknown role \"Ceiling\"",
        "\"Ceiling\"",
    );
}

#[test]
fn changes_map_to_the_vocabulary_in_order() {
    let plan = ok(&one_variant(
        "changes = [\"work-per-thread\", \"alignment\", \"coalescing\"]",
    ));
    assert_eq!(
        plan.variants[0].changes,
        [Change::WorkPerThread, Change::Alignment, Change::Coalescing]
    );
    assert!(ok(&one_variant("")).variants[0].changes.is_empty());
    let e = fails(
        &one_variant("changes = [\"coalesing\"]"),
        "unknown change \"coalesing\"",
        "\"coalesing\"",
    );
    assert!(help(&e).starts_with("did you mean \"coalescing\"? the vocabulary is: coalescing, "));
    assert!(help(&e).ends_with("warp-tiling, parameter-tuning, other"));
    let e = err(&one_variant("changes = [\"swizzle\"]"));
    assert!(
        help(&e).starts_with("did you mean \"shared-memory-layout\"?"),
        "{e}"
    );
    let e = err(&one_variant("changes = [\"bank-conflicts\"]"));
    assert!(
        help(&e).starts_with("did you mean \"padding\" or \"shared-memory-layout\"?"),
        "{e}"
    );
    let plan = ok(&one_variant(
        "changes = [\"block-reordering\", \"other\"]\nnotes = \"fused the bias add\"",
    ));
    assert_eq!(
        plan.variants[0].changes,
        [Change::BlockReordering, Change::Other]
    );
    let e = err(&one_variant("changes = [\"unrolling\"]"));
    assert!(
        help(&e).starts_with("did you mean \"loop-unrolling\"?"),
        "{e}"
    );
    fails(
        &one_variant("changes = [\"padding\", \"padding\"]"),
        "change \"padding\" is listed twice",
        "\"padding\"]",
    );
}

fn two(plain: &str, other: &str) -> String {
    suite(
        "",
        &format!("{GEOMETRY}\n{ARGS}"),
        &format!(
            "[[variant]]\nname = \"plain\"\n{plain}\n\n[[variant]]\nname = \"other\"\n{other}"
        ),
    )
}

#[test]
fn verify_targets() {
    let plan = ok(&two("", ""));
    assert_eq!(plan.variants[0].verify, Verify::Skip, "the baseline itself");
    assert_eq!(plan.variants[1].verify, Verify::Against("plain".into()));
    let plan = ok(&two("verify = \"baseline\"", "verify = \"baseline\""));
    assert_eq!(plan.variants[0].verify, Verify::Skip);
    assert_eq!(plan.variants[1].verify, Verify::Against("plain".into()));
    let plan = ok(&two("verify = \"other\"", "verify = \"none\""));
    assert_eq!(plan.variants[0].verify, Verify::Against("other".into()));
    assert_eq!(plan.variants[1].verify, Verify::Skip);
    let e = fails(
        &two("", "verify = \"plian\""),
        "verify names \"plian\", which is not a variant",
        "\"plian\"",
    );
    assert!(help(&e).ends_with("the variants are: plain, other (did you mean \"plain\"?)"));
    fails(
        &two("", "verify = \"other\""),
        "variant `other` verifies against itself",
        "verify = »\"other\"",
    );
}

#[test]
fn verifying_against_itself_through_defaults_says_where_the_value_comes_from() {
    let text = suite(
        "",
        &format!("{GEOMETRY}\n{ARGS}\nverify = \"plain\""),
        "[[variant]]\nname = \"plain\"",
    );
    let e = fails(
        &text,
        "variant `plain` verifies against itself",
        "verify = »\"plain\"",
    );
    assert!(help(&e).ends_with("(the value comes from [defaults]: override it here)"));
}

#[test]
fn verification_cycles_are_refused() {
    let text = suite(
        "",
        &format!("{GEOMETRY}\n{ARGS}"),
        "[[variant]]\nname = \"plain\"\nverify = \"b\"\n\n[[variant]]\nname = \"a\"\n\n\
             [[variant]]\nname = \"b\"\nverify = \"c\"\n\n[[variant]]\nname = \"c\"\nverify = \"plain\"",
    );
    fails(
        &text,
        "verification goes round in a circle: plain → b → c → plain",
        "\"b\"",
    );
}

#[test]
fn tolerances() {
    let t = |keys: &str| ok(&one_variant(keys)).variants[0].tolerance;
    assert_eq!(
        t(""),
        Tolerance {
            rel: 1e-5,
            abs: 1e-6
        }
    );
    assert_eq!(
        t("tolerance = { rel = 0.01 }"),
        Tolerance {
            rel: 0.01,
            abs: 1e-6
        }
    );
    assert_eq!(
        t("tolerance = { abs = 0 }"),
        Tolerance {
            rel: 1e-5,
            abs: 0.0
        }
    );
    fails(
        &one_variant("tolerance = { rel = -1e-3 }"),
        "tolerance rel must be a finite number of 0 or more",
        "-1e-3",
    );
    fails(
        &one_variant("tolerance = { abs = nan }"),
        "tolerance abs must be a finite number of 0 or more",
        "nan",
    );
}

fn reference_and(other_args: &str) -> String {
    two("", &format!("{ANY_KERNEL}\nargs = [\n{other_args}\n]"))
}

#[test]
fn elementwise_outputs_must_match_the_reference_at_every_size() {
    let e = fails(
        &reference_and(
            r#"  { name = "in",  buffer = "f32", count = "N", fill = "random" },
  { name = "out", buffer = "f32", count = "min(N, 1024)", output = true },"#,
        ),
        "output `out` has 1024 elements in `other` but 4096 in `plain` (its reference) at N=4096",
        "\"min(N, 1024)\"",
    );
    assert!(help(&e).contains("compare = \"sum\""));
    fails(
        &reference_and(r#"  { name = "out", buffer = "u32", count = "N", output = true },"#),
        "output `out` is u32 in `other` but f32 in `plain`, which it verifies against",
        "\"u32\"",
    );
    let e = fails(
        &reference_and(r#"  { name = "result", buffer = "f32", count = "N", output = true },"#),
        "output `result` of `other` has no counterpart in `plain`, which it verifies against",
        "\"result\"",
    );
    assert!(
        e.to_string()
            .contains("= note: the outputs of `plain` are: out")
    );
    fails(
        &reference_and(r#"  { name = "in", buffer = "f32", count = "N", output = true },"#),
        "output `in` of `other` has no counterpart in `plain`, which it verifies against",
        "name = »\"in\", buffer = \"f32\", count = \"N\", output",
    );
    fails(
        &reference_and(r#"  { name = "in", buffer = "f32", count = "N", fill = 1 },"#),
        "variant `other` verifies against `plain` but has no outputs",
        "[[variant]]\nname = \"other\"",
    );
}

#[test]
fn sum_compared_outputs_only_need_the_same_name_and_a_type_of_the_same_kind() {
    let sum = |element: &str| {
        two(
            &format!(
                "{ANY_KERNEL}\nargs = [{{ name = \"out\", buffer = \"f32\", count = \"N\", output = true, compare = \"sum\" }}]"
            ),
            &format!(
                "{ANY_KERNEL}\nargs = [{{ name = \"out\", buffer = \"{element}\", count = \"N / 4\", output = true, compare = \"sum\" }}]"
            ),
        )
    };
    let plan = ok(&sum("f32"));
    let Arg::Buffer(out) = &plan.variants[1].instances[0].args[0] else {
        panic!("not a buffer");
    };
    assert_eq!((out.count, out.compare), (256, Compare::Sum));
    // Floats of two precisions compare; an integer output does not.
    ok(&sum("f64"));
    ok(&sum("f16"));
    fails(
        &sum("i32"),
        "output `out` is i32 in `other` but f32 in `plain`, which it verifies against",
        "buffer = »\"i32\", count = \"N / 4\"",
    );
}

#[test]
fn unverified_variants_need_no_matching_outputs() {
    let plan = ok(&two(
        "",
        &format!(
            "{ANY_KERNEL}\nverify = \"none\"\nargs = [{{ name = \"x\", buffer = \"f64\", count = 1, fill = 0 }}]"
        ),
    ));
    assert_eq!(plan.variants[1].verify, Verify::Skip);
}

#[test]
fn expression_errors_point_inside_the_string() {
    fails(
        &one_variant("grid = [\"N +* 2\"]"),
        "unexpected `*` in grid x of variant `plain`",
        "* 2",
    );
    fails(
        &one_variant("grid = ['N +* 2']"),
        "unexpected `*` in grid x of variant `plain`",
        "* 2",
    );
    fails(
        &one_variant("grid = [\"\"\"N +* 2\"\"\"]"),
        "unexpected `*` in grid x of variant `plain`",
        "* 2",
    );
    // With an escape the string's text differs from the file's: the
    // whole value is underlined instead.
    fails(
        &one_variant("grid = [\"N \\u002B* 2\"]"),
        "unexpected `*` in grid x of variant `plain`",
        "\"N \\u",
    );
}

#[test]
fn unknown_symbols_say_the_size_only_when_another_size_binds_them() {
    let text = one_variant(&format!("{ANY_KERNEL}\ngrid = [\"M\"]\nargs = []"))
        .replace("sizes = [1024, 4096]", "sizes = [{ M = 4, N = 8 }, 16]");
    let e = fails(
        &text,
        "unknown symbol `M` in grid x of variant `plain` at N=16",
        "M\"]",
    );
    assert_eq!(help(&e), "the symbols are: N");
    fails(
        &one_variant("grid = [\"Q\"]"),
        "unknown symbol `Q` in grid x of variant `plain`",
        "Q\"]",
    );
}

/// A GEMM suite at sizes 256 and 512: the kernel `naive` (the baseline)
/// with A, B and C (its fill `c_fill`, e.g. `, fill = "random"`), and the
/// ceiling `cublas` with `library` and its own `args` when given.
fn gemm(c_fill: &str, library: &str, args: &str) -> String {
    format!(
        r#"[suite]
name = "gemm"
sizes = [256, 512]
baseline = "naive"

[defaults]
grid = ["cdiv(N, 16)", "cdiv(N, 16)"]
block = [16, 16]
args = [
  {{ name = "A", buffer = "f32", count = "N*N", fill = "random" }},
  {{ name = "B", buffer = "f32", count = "N*N", fill = "random" }},
  {{ name = "C", buffer = "f32", count = "N*N", output = true{c_fill} }},
]

[[variant]]
name = "naive"
{ANY_KERNEL}

[[variant]]
name = "cublas"
role = "ceiling"
library = {{ routine = "cublas-sgemm", m = "N", n = "N", k = "N"{library} }}
{args}
"#
    )
}

fn library_of(plan: &Plan) -> crate::model::variant::Library {
    match plan.variant("cublas").unwrap().kind {
        crate::config::plan::VariantKind::Library { library } => library,
        ref other => panic!("cublas runs {other:?}"),
    }
}

#[test]
fn a_library_gemm_takes_alpha_and_beta_as_numbers_or_expressions() {
    use crate::model::variant::Library;
    assert_eq!(library_of(&ok(&gemm("", "", ""))), Library::CUBLAS_SGEMM);
    let fill = ", fill = \"random\"";
    assert_eq!(
        library_of(&ok(&gemm(fill, ", alpha = 0.5, beta = 3", ""))),
        Library::CublasSgemm {
            alpha: 0.5,
            beta: 3.0
        }
    );
    let plan = ok(&gemm(fill, ", alpha = \"1/4\", beta = \"2 - 3\"", ""));
    assert_eq!(
        library_of(&plan),
        Library::CublasSgemm {
            alpha: 0.25,
            beta: -1.0
        }
    );
    // The m, n and k are the size's as before; alpha alone leaves beta 0.
    assert_eq!(
        plan.variant("cublas").unwrap().instances[1].gemm,
        Some([512; 3])
    );
    assert_eq!(
        library_of(&ok(&gemm("", ", alpha = 2", ""))),
        Library::CublasSgemm {
            alpha: 2.0,
            beta: 0.0
        }
    );
}

#[test]
fn a_library_gemm_refuses_alpha_and_beta_that_are_not_one_f32() {
    fails(
        &gemm("", ", alpha = \"half\"", ""),
        "unknown symbol `half` in library `alpha`",
        "half\"",
    );
    fails(
        &gemm("", ", beta = 1e39", ""),
        "library `beta` is 1e39, but must be a finite number that fits an f32",
        "1e39",
    );
    let e = fails(
        &gemm("", ", alpha = \"N / 256\"", ""),
        "library `alpha` is 1 at N=256 but 2 at N=512",
        "\"N / 256\"",
    );
    assert!(help(&e).starts_with("one alpha serves every size"), "{e}");
    let e = err(&gemm("", ", alpha = true", ""));
    assert!(
        e.message().contains("a number or an expression string"),
        "{e}"
    );
}

#[test]
fn a_library_gemm_that_reads_c_starts_from_its_references_c() {
    // beta 0: cuBLAS does not read C, so C may be poisoned.
    ok(&gemm("", ", beta = 0", ""));
    let e = fails(
        &gemm("", ", beta = 3", ""),
        "cublas-sgemm with beta = 3 reads C, but `C` of variant `cublas` is poisoned",
        "\"C\"",
    );
    assert!(help(&e).contains("fill = \"random\""), "{e}");
    // The same fill as the reference's (here inherited from [defaults]).
    let random = ", fill = \"random\"";
    ok(&gemm(random, ", alpha = 0.5, beta = 3", ""));
    let own_args = |c: &str| {
        format!(
            "args = [\n  {{ name = \"A\", buffer = \"f32\", count = \"N*N\", fill = \"random\" }},\n  \
             {{ name = \"B\", buffer = \"f32\", count = \"N*N\", fill = \"random\" }},\n  \
             {{ name = \"C\", buffer = \"f32\", count = \"N*N\", output = true, {c} }},\n]"
        )
    };
    let text = gemm(random, ", beta = 3", &own_args("fill = \"zeros\""));
    let e = err(&text);
    assert_eq!(
        e.message(),
        "cublas-sgemm with beta = 3 reads C, but `C` starts filled with 0 in `cublas` and \
         random in [-1, 1) in `naive`, which it verifies against"
    );
    assert_eq!(e.line(), Some(text.lines().count() - 1), "{e}");
    fails(
        &gemm(
            random,
            ", beta = 3",
            &own_args("fill = \"random\", range = [0, 1]"),
        ),
        "cublas-sgemm with beta = 3 reads C, but `C` starts random in [0, 1) in `cublas` and \
         random in [-1, 1) in `naive`, which it verifies against",
        "\"C\", buffer = \"f32\", count = \"N*N\", output = true, fill = \"random\", range",
    );
    ok(&gemm(random, ", beta = 3", &own_args("fill = \"random\"")));
    // Unverified, it only needs C filled; with beta 0 the fills may differ.
    ok(&gemm(
        random,
        ", beta = 3",
        &format!("verify = \"none\"\n{}", own_args("fill = 1")),
    ));
    ok(&gemm(random, ", alpha = 2", &own_args("fill = \"zeros\"")));
}

#[test]
fn the_default_tolerance_is_the_one_outputs_widen_from() {
    // plan::Tolerance::for_element widens a key left at this default for
    // f16 and bf16 outputs: the two must stay the same numbers.
    assert_eq!(
        ok(&one_variant("")).variants[0].tolerance,
        Tolerance::DEFAULT
    );
    assert_eq!(
        ok(&one_variant("tolerance = { abs = 0.5 }")).variants[0]
            .tolerance
            .rel,
        Tolerance::DEFAULT.rel
    );
}

/// Variant "plain" launching `entry` of kernels/narrow.cu with `args`.
fn narrow(entry: &str, args: &str) -> String {
    one_variant(&format!(
        "source = \"kernels/narrow.cu\"\nentry = \"{entry}\"\nargs = [\n{args}\n]"
    ))
}

#[test]
fn narrow_element_types_are_checked_against_the_kernels_parameters() {
    let n = r#"{ name = "n", scalar = "i32", value = "N" }"#;
    ok(&narrow(
        "histogram",
        &format!(
            "{{ name = \"in\", buffer = \"u8\", count = \"N\", fill = \"random\" }},\n\
             {{ name = \"bins\", buffer = \"u32\", count = 256, output = true, fill = \"zeros\" }},\n\
             {{ name = \"bias\", scalar = \"u8\", value = 3 }},\n{n}"
        ),
    ));
    // An i8 buffer for `const unsigned char *` (signedness aside, as C
    // converts freely) and an i32 for an `unsigned char` value (wider: the
    // kernel reads its low byte) are taken.
    ok(&narrow(
        "histogram",
        &format!(
            "{{ name = \"in\", buffer = \"i8\", count = \"N\", fill = \"random\" }},\n\
             {{ name = \"bins\", buffer = \"u32\", count = 256, output = true, fill = \"zeros\" }},\n\
             {{ name = \"bias\", scalar = \"i32\", value = 3 }},\n{n}"
        ),
    ));
    let half = |buffers: &str, factor: &str| {
        narrow(
            "scale_half",
            &format!(
                "{{ name = \"in\", buffer = \"{buffers}\", count = \"N\", fill = \"random\" }},\n\
                 {{ name = \"out\", buffer = \"{buffers}\", count = \"N\", output = true }},\n\
                 {{ name = \"factor\", scalar = \"{factor}\", value = 2 }},\n{n}"
            ),
        )
    };
    ok(&half("f16", "f16"));
    let e = fails(
        &half("f16", "f32"),
        "scalar `factor` is an f32 (4-byte float), but parameter 3 of `scale_half` is `__half \
         factor`",
        "\"factor\", scalar = \"f32\", value = 2 ",
    );
    assert_eq!(help(&e), "declare scalar = \"f16\"");
    let e = fails(
        &half("f16", "bf16"),
        "scalar `factor` is a bf16 (2-byte float), but parameter 3 of `scale_half` is `__half \
         factor`",
        "\"factor\", scalar = \"bf16\"",
    );
    assert_eq!(help(&e), "declare scalar = \"f16\"");
    let e = fails(
        &half("u16", "f16"),
        "buffer `in` holds a u16 (2-byte integer), but parameter 1 of `scale_half` is `const \
         __half *in`",
        "\"in\", buffer = \"u16\"",
    );
    assert_eq!(
        help(&e),
        "declare buffer = \"f16\" to match the kernel's pointer"
    );
    let axpy = |a: &str, buffers: &str| {
        narrow(
            "axpy_bf16",
            &format!(
                "{{ name = \"a\", scalar = \"{a}\", value = 0.5 }},\n\
                 {{ name = \"x\", buffer = \"{buffers}\", count = \"N\", fill = \"random\" }},\n\
                 {{ name = \"y\", buffer = \"{buffers}\", count = \"N\", output = true, fill = 0 }},\n{n}"
            ),
        )
    };
    ok(&axpy("bf16", "bf16"));
    let e = fails(
        &axpy("bf16", "f16"),
        "buffer `x` holds an f16 (2-byte float), but parameter 2 of `axpy_bf16` is `const \
         __nv_bfloat16 *x`",
        "\"x\", buffer = \"f16\"",
    );
    assert_eq!(
        help(&e),
        "declare buffer = \"bf16\" to match the kernel's pointer"
    );
    // A scalar where the kernel takes a pointer names the pointee's type.
    let e = fails(
        &narrow(
            "scale_u16",
            &format!(
                "{{ name = \"in\", scalar = \"u16\", value = 1 }},\n\
                 {{ name = \"out\", buffer = \"u16\", count = \"N\", output = true }},\n\
                 {{ name = \"factor\", scalar = \"u16\", value = 3 }},\n{n}"
            ),
        ),
        "`in` is a scalar, but parameter 1 of `scale_u16` is `const unsigned short *in`",
        "\"in\", scalar",
    );
    assert!(help(&e).contains("buffer = \"u16\""), "{e}");
    let widen = |scale: &str, offset: &str| {
        narrow(
            "widen",
            &format!(
                "{{ name = \"in\", buffer = \"i8\", count = \"N\", fill = \"random\" }},\n\
                 {{ name = \"out\", buffer = \"i32\", count = \"N\", output = true }},\n\
                 {{ name = \"scale\", scalar = \"{scale}\", value = 2 }},\n\
                 {{ name = \"offset\", scalar = \"{offset}\", value = 1 }},\n{n}"
            ),
        )
    };
    ok(&widen("i16", "i8"));
    ok(&widen("i32", "i16"));
    let e = fails(
        &widen("i16", "f16"),
        "scalar `offset` is an f16 (2-byte float), but parameter 4 of `widen` is `signed char \
         offset`",
        "\"offset\", scalar = \"f16\"",
    );
    assert_eq!(help(&e), "declare scalar = \"i8\"");
}

#[test]
fn types_named_through_aliases_are_checked_as_what_they_stand_for() {
    let scale_real = |buffers: &str, factor: &str, either: &str| {
        narrow(
            "scale_real",
            &format!(
                "{{ name = \"in\", buffer = \"{buffers}\", count = \"N\", fill = \"random\" }},\n\
                 {{ name = \"out\", buffer = \"{buffers}\", count = \"N\", output = true }},\n\
                 {{ name = \"factor\", scalar = \"{factor}\", value = 2 }},\n\
                 {{ name = \"n\", scalar = \"u32\", value = \"N\" }},\n\
                 {{ name = \"either\", buffer = \"{either}\", count = \"N\", fill = 0 }}"
            ),
        )
    };
    ok(&scale_real("f64", "f64", "f32"));
    let e = fails(
        &scale_real("f32", "f64", "f32"),
        "buffer `in` holds an f32 (4-byte float), but parameter 1 of `scale_real` is `const real *in`",
        "\"in\", buffer = \"f32\"",
    );
    assert_eq!(
        help(&e),
        "declare buffer = \"f64\" to match the kernel's pointer"
    );
    fails(
        &scale_real("f64", "f32", "f32"),
        "scalar `factor` is an f32 (4-byte float), but parameter 3 of `scale_real` is `real factor`",
        "\"factor\", scalar = \"f32\", value = 2 ",
    );
    // `ELEM` is `__half` or `float` by a flag the scan does not follow:
    // either buffer is taken.
    ok(&scale_real("f64", "f64", "f16"));
}

#[test]
fn arguments_named_after_other_parameters_and_outputs_behind_const_are_refused() {
    let copy = |first: &str, second: &str| {
        narrow(
            "copy_out_in",
            &format!("{first},\n{second},\n{{ name = \"n\", scalar = \"i32\", value = \"N\" }}"),
        )
    };
    let odata = r#"{ name = "odata", buffer = "f32", count = "N", output = true }"#;
    let idata = r#"{ name = "idata", buffer = "f32", count = "N", fill = "random" }"#;
    ok(&copy(odata, idata));
    let e = fails(
        &copy(idata, odata),
        "variant `plain` passes `idata` as parameter 1 of `copy_out_in`, `float *odata`, but the \
         kernel declares `idata` as parameter 2",
        "\"idata\"",
    );
    assert_eq!(
        help(&e),
        "list the arguments in the order the kernel declares them: odata, idata, n"
    );
    // Names that match no parameter say nothing of the order; the output
    // still may not stand where the kernel only reads.
    let source = r#"{ name = "a", buffer = "f32", count = "N", fill = "random" }"#;
    let target = r#"{ name = "b", buffer = "f32", count = "N", output = true }"#;
    ok(&copy(target, source));
    fails(
        &copy(source, target),
        "output buffer `b` is passed only as parameter 2 of `copy_out_in`, `const float *idata`: \
         the kernel cannot write through a pointer to const",
        "\"b\", buffer",
    );
}

#[test]
fn a_sequence_output_read_through_const_by_one_step_is_written_by_another() {
    let steps = |second_writes: bool| {
        let (a, b) = match second_writes {
            true => ("out", "tmp"),
            false => ("tmp", "out"),
        };
        one_variant(&format!(
            "source = \"kernels/narrow.cu\"\nargs = [\n\
             {{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" }},\n\
             {{ name = \"tmp\", buffer = \"f32\", count = \"N\", fill = 0 }},\n\
             {{ name = \"out\", buffer = \"f32\", count = \"N\", output = true }},\n]\n\
             sequence = [\n\
             {{ entry = \"copy_out_in\", grid = [\"cdiv(N, 256)\"], block = [256], args = [{{ name = \"tmp\" }}, {{ name = \"in\" }}, {{ name = \"n\", scalar = \"i32\", value = \"N\" }}] }},\n\
             {{ entry = \"copy_out_in\", grid = [\"cdiv(N, 256)\"], block = [256], args = [{{ name = \"{a}\" }}, {{ name = \"{b}\" }}, {{ name = \"n\", scalar = \"i32\", value = \"N\" }}] }},\n]"
        ))
    };
    ok(&steps(true));
    // Steps ping-pong between the variant's buffers whatever their names.
    let n = r#"{ name = "n", scalar = "i32", value = "N" }"#;
    let step = |a: &str, b: &str| {
        format!(
            "{{ entry = \"copy_out_in\", grid = [\"cdiv(N, 256)\"], block = [256], args = [{{ name = \"{a}\" }}, {{ name = \"{b}\" }}, {n}] }}"
        )
    };
    ok(&one_variant(&format!(
        "source = \"kernels/narrow.cu\"\nargs = [\n\
         {{ name = \"odata\", buffer = \"f32\", count = \"N\", output = true }},\n\
         {{ name = \"idata\", buffer = \"f32\", count = \"N\", fill = \"random\" }},\n]\n\
         sequence = [\n{},\n{},\n]",
        step("odata", "idata"),
        step("idata", "odata")
    )));
    fails(
        &steps(false),
        "output buffer `out` is passed only as parameter 2 of `copy_out_in`, `const float *idata`: \
         the kernel cannot write through a pointer to const",
        "\"out\", buffer = \"f32\", count = \"N\", output = true },\n]\nsequence",
    );
}

#[test]
fn defines_the_source_sets_itself_or_that_rename_a_parameter_are_refused() {
    let strided = |keys: &str| {
        one_variant(&format!(
            "source = \"kernels/defines.cu\"\nentry = \"strided\"\n{keys}\nargs = [\n\
             {{ name = \"out\", buffer = \"f32\", count = \"N\", output = true }},\n\
             {{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" }},\n\
             {{ name = \"s\", scalar = \"i32\", value = 2 }},\n]"
        ))
    };
    ok(&strided("defines = { BLOCK = 128 }"));
    let e = fails(
        &strided("defines = { SIZE = \"N\" }"),
        "define SIZE is replaced by the file's own: tests/configs/errors/kernels/defines.cu:3 \
         defines SIZE outside an #ifndef SIZE",
        "SIZE = »\"N\" }",
    );
    assert!(help(&e).starts_with("guard the file's definition"), "{e}");
    fails(
        &strided("sweep = { SIZE = [1, 2] }"),
        "sweep parameter `SIZE` is passed as -DSIZE=…, but tests/configs/errors/kernels/defines.cu:3 \
         defines SIZE outside an #ifndef SIZE, and its value would win in every configuration",
        "SIZE = [1",
    );
    let e = fails(
        &strided("sweep = { s = [1, 2] }"),
        "sweep parameter `s` is passed as -Ds=…, which would rename the kernel's parameter `int s`",
        "{ »s = [1",
    );
    assert!(help(&e).contains("value = \"S\""), "{e}");
    // A define the file guards with #ifndef is the sweep's to set.
    let block = strided("").replace(
        "entry = \"strided\"",
        "entry = \"strided\"\nsweep = { BLOCK = [64, 128] }",
    );
    let plan = ok(&block.replace(
        "[[variant]]\nname = \"plain\"",
        "[[variant]]\nname = \"plain\"\n\n[[variant]]\nname = \"blocks\"",
    ));
    assert_eq!(plan.variants.len(), 3);
}

#[test]
fn a_template_argument_may_depend_on_the_size() {
    let scale_by = |entry: &str| {
        one_variant(&format!(
            "entry = \"{entry}\"\nargs = [\n\
             {{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" }},\n\
             {{ name = \"out\", buffer = \"f32\", count = \"N\", output = true }},\n\
             {{ name = \"n\", scalar = \"i32\", value = \"N\" }},\n]"
        ))
    };
    let plan = ok(&scale_by("scale_by<{N / 512}>"));
    let kernel = plan.variants[0].kernel().unwrap();
    assert_eq!(kernel.entry, "scale_by<{N / 512}>");
    let at: Vec<Vec<String>> = plan.variants[0]
        .instances
        .iter()
        .map(|i| kernel.entries_at(i))
        .collect();
    assert_eq!(at, [["scale_by<2>"], ["scale_by<8>"]]);
    // Without placeholders every size launches the variant's entry.
    let plain = ok(&scale_by("scale_by<2>"));
    assert!(
        plain.variants[0]
            .instances
            .iter()
            .all(|i| i.entries.is_empty())
    );
    fails(
        &scale_by("scale_by<{N / 3}>"),
        "`{N / 3}` in the entry is 341.3333333333333 at N=1024, but a template argument must be a whole number",
        "{»N / 3}",
    );
    let e = fails(
        &scale_by("scale_by<{M}>"),
        "unknown symbol `M` in `{M}` of the entry at N=1024",
        "{»M}",
    );
    assert!(
        help(&e).contains("an expression over the size symbols"),
        "{e}"
    );
}

#[test]
fn symbol_buffers_name_a_module_variable_and_fit_it() {
    let filter = |symbol: &str, count: &str| {
        one_variant(&format!(
            "source = \"kernels/symbols.cu\"\nentry = \"filter\"\nargs = [\n\
             {{ name = \"taps\", buffer = \"f32\", count = {count}, fill = \"random\", symbol = \"{symbol}\" }},\n\
             {{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" }},\n\
             {{ name = \"out\", buffer = \"f32\", count = \"N\", output = true }},\n\
             {{ name = \"n\", scalar = \"i32\", value = \"N\" }},\n]"
        ))
    };
    ok(&filter("c_filter", "4"));
    let e = fails(
        &filter("c_Filter", "4"),
        "buffer `taps` fills symbol `c_Filter`, which the source does not declare",
        "\"taps\"",
    );
    assert_eq!(help(&e), "did you mean symbol = \"c_filter\"?");
    fails(
        &filter("c_filter", "8"),
        "buffer `taps` holds 32 bytes at N=1024, but `c_filter` is 16 bytes (float[TAPS])",
        "\"taps\"",
    );
    // A symbol the scan does not see at all is left to the run.
    ok(&filter("table_from_a_header", "8"));
}

#[test]
fn a_step_missing_a_defaulted_parameter_is_told_which_and_why() {
    let text = one_variant(
        "source = \"kernels/narrow.cu\"\nargs = [\n\
         { name = \"data\", buffer = \"i32\", count = \"N\", output = true, fill = 1 },\n\
         { name = \"partial_sums\", buffer = \"i32\", count = \"N / 256\", fill = 0 },\n]\n\
         sequence = [\n\
         { entry = \"scan_step\", grid = [4], block = [256], args = [{ name = \"data\" }, { name = \"width\", scalar = \"i32\", value = 32 }, { name = \"partial_sums\" }] },\n\
         { entry = \"scan_step\", grid = [1], block = [4], args = [{ name = \"partial_sums\" }, { name = \"width\", scalar = \"i32\", value = 32 }] },\n]",
    );
    let e = err(&text);
    assert_eq!(
        e.message(),
        "`scan_step` takes 3 parameters but step 2 of variant `plain` passes 2 arguments"
    );
    // By position: the buffers of a step bear the variant's names.
    assert!(
        help(&e).starts_with("add an argument for `int *partial_sums = nullptr` to `args`"),
        "{e}"
    );
    assert!(
        help(&e).ends_with("a parameter's C++ default is not applied to a launch through the driver, so pass it (a buffer of one element where the kernel ignores a null pointer's place)"),
        "{e}"
    );
}
