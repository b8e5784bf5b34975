//! `gpuprof init --from FILE.cu`: a starting variants.toml for a user's own
//! file. Every kernel the file defines becomes a variant (a template named
//! by the instance its host code launches, or marked for its arguments to
//! be filled in), its parameter list becomes `args` (pointers as buffers:
//! `const` ones inputs, the others outputs; values as scalars), and its
//! geometry is taken from a `<<<…>>>` launch of the file where the numbers
//! are literal, else left as a default with the launch quoted beside it.

use std::fmt::Write;
use std::path::Path;

use crate::config::kernels::{self, Kernel, Launch};
use crate::config::signature::{self, CType, Parameter, Takes};

/// The variants.toml text for the CUDA file whose text is `source`, named
/// `shown` in errors and `relative` from the toml's folder.
pub fn suite_for(
    source: &str,
    (shown, relative): (&Path, &Path),
    suite_name: &str,
) -> Result<String, String> {
    let scanned = kernels::scan(source);
    if scanned.kernels.is_empty() {
        return Err(format!(
            "{} defines no __global__ function: give the .cu file that holds your kernels",
            shown.display()
        ));
    }
    let variants: Vec<(String, &Kernel)> = scanned
        .kernels
        .iter()
        .map(|k| (variant_name(&k.name), k))
        .collect();
    let mut text = header(
        relative,
        suite_name,
        &variants[0].0,
        scanned.host_code.as_deref(),
    );
    for (name, kernel) in &variants {
        let launch = scanned
            .launches
            .iter()
            .find(|l| kernels::entry_base(&l.callee) == kernel.name || l.callee == kernel.name);
        text.push_str(&variant(name, kernel, launch, relative, &scanned.integers));
    }
    Ok(text)
}

fn header(relative: &Path, suite_name: &str, baseline: &str, host: Option<&str>) -> String {
    let compiler = match host {
        Some(reason) => format!("nvcc compiles it ({reason})"),
        None => "NVRTC compiles it (device code only)".to_string(),
    };
    format!(
        "# A starting suite for {file}, written by `gpuprof init --from`.\n\
         # {compiler}.\n\
         # Fill in what is marked `fill in`: the problem sizes, each buffer's\n\
         # element count and each scalar's value, as numbers or expressions\n\
         # over N; then check it with `gpuprof report variants.toml --check`.\n\
         version = 1\n\n\
         [suite]\n\
         name = {}\n\
         description = {}\n\
         sizes = [1048576]                # fill in: the problem sizes, each binds N\n\
         baseline = {}\n",
        quoted(suite_name),
        quoted(&format!("kernels of {}", relative.display())),
        quoted(baseline),
        file = relative.display(),
    )
}

/// A variant name from a kernel name: `ns::reduce6` → `reduce6`.
fn variant_name(kernel: &str) -> String {
    kernel
        .rsplit("::")
        .next()
        .unwrap_or(kernel)
        .replace(['<', '>', ',', ' '], "_")
}

fn variant(
    name: &str,
    kernel: &Kernel,
    launch: Option<&Launch>,
    relative: &Path,
    integers: &[(String, i64)],
) -> String {
    let mut text = format!(
        "\n[[variant]]\nname = {}\nsource = {}\n",
        quoted(name),
        quoted(&relative.display().to_string())
    );
    let mut instance: Vec<String> = Vec::new();
    let _ = match (&kernel.template, launch) {
        (Some(parameters), Some(launch)) if launch.callee.contains('<') => {
            let (entry, unread) = launched_instance(&launch.callee, integers);
            instance = signature::instance_arguments(&entry).unwrap_or_default();
            match unread.is_empty() {
                true => writeln!(
                    text,
                    "entry = {}                # the instance the file launches",
                    quoted(&entry)
                ),
                false => writeln!(
                    text,
                    "entry = {}                # fill in: a number for {} (the file launches {}; template <{parameters}>)",
                    quoted(&entry),
                    unread.join(", "),
                    launch.callee
                ),
            }
        }
        (Some(parameters), _) => writeln!(
            text,
            "entry = {}                # fill in: a value for each of <{parameters}>",
            quoted(&format!("{}<…>", kernel.name))
        ),
        (None, _) => writeln!(text, "entry = {}", quoted(&kernel.name)),
    };
    text.push_str(&geometry(launch));
    text.push_str("args = [\n");
    match signature::parameters(&kernel.parameters, kernel.template.as_deref(), &instance) {
        Some(parameters) => {
            for (position, parameter) in parameters.iter().enumerate() {
                text.push_str(&argument(position, parameter));
            }
        }
        None => text.push_str(
            "  # fill in: the kernel takes a parameter pack; list one argument per value it is launched with\n",
        ),
    }
    text.push_str("]\n");
    text
}

/// The instance a launch names (`reduce<BLOCK, 2>`) with the names the
/// file gives an integer replaced by it (`reduce<256, 2>`), and the
/// arguments left that are neither numbers nor types.
fn launched_instance(callee: &str, integers: &[(String, i64)]) -> (String, Vec<String>) {
    let Ok(arguments) = signature::instance_arguments(callee) else {
        return (callee.to_string(), vec![callee.to_string()]);
    };
    let mut unread = Vec::new();
    let filled: Vec<String> = arguments
        .into_iter()
        .map(
            |argument| match integers.iter().rev().find(|(name, _)| *name == argument) {
                Some((_, value)) => value.to_string(),
                None => {
                    let plain = argument.parse::<i64>().is_ok()
                        || matches!(argument.as_str(), "true" | "false")
                        || signature::is_scalar_type(&argument);
                    if !plain {
                        unread.push(format!("`{argument}`"));
                    }
                    argument
                }
            },
        )
        .collect();
    let base = callee.split('<').next().unwrap_or(callee).trim();
    (format!("{base}<{}>", filled.join(", ")), unread)
}

/// `grid` and `block` from a launch whose configuration is literal.
fn geometry(launch: Option<&Launch>) -> String {
    let literal = |expression: &str| -> Option<String> {
        let inner = expression
            .strip_prefix("dim3(")
            .and_then(|rest| rest.strip_suffix(')'))
            .unwrap_or(expression);
        let numbers: Vec<&str> = inner.split(',').map(str::trim).collect();
        numbers
            .iter()
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            .then(|| format!("[{}]", numbers.join(", ")))
    };
    let launched = launch
        .map(|l| format!(" (the file launches <<<{}>>>)", l.config.join(", ")))
        .unwrap_or_default();
    let config = launch.map(|l| l.config.as_slice()).unwrap_or_default();
    let grid = config.first().and_then(|g| literal(g));
    let block = config.get(1).and_then(|b| literal(b));
    let threads = block
        .as_deref()
        .and_then(|b| b.trim_matches(['[', ']']).split(',').next())
        .unwrap_or("256")
        .trim()
        .to_string();
    let mut text = match &block {
        Some(block) => format!("block = {block}\n"),
        None => format!("block = [256]  # fill in: threads per block{launched}\n"),
    };
    match grid {
        Some(grid) => {
            let _ = writeln!(text, "grid = {grid}");
        }
        None => {
            let _ = writeln!(
                text,
                "grid = [\"cdiv(N, {threads})\"]  # fill in: blocks per grid, an expression over N{launched}"
            );
        }
    }
    if let Some(shared) = config.get(2).filter(|s| s.as_str() != "0") {
        let _ = writeln!(
            text,
            "shared_bytes = 0  # fill in: the file passes {shared}"
        );
    }
    text
}

/// `text` as a TOML string, escaped.
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// The parameter at `position` as an `args` entry: a pointer as a buffer
/// (an input when it points to `const`), a value as a scalar.
fn argument(position: usize, parameter: &Parameter) -> String {
    let name = quoted(
        &parameter
            .name()
            .unwrap_or_else(|| format!("arg{}", position + 1)),
    );
    let written = &parameter.written;
    let unknown = |what: &str| {
        format!(
            "  # fill in: `{written}` is a {what} gpuprof cannot make; gpuprof passes f32, f64, i32, u32, i64 and u64\n"
        )
    };
    match &parameter.takes {
        Takes::Pointer(pointee) => match pointee.and_then(CType::element) {
            Some(element) if points_to_const(written) => format!(
                "  {{ name = {name}, buffer = \"{element}\", count = \"N\", fill = \"random\" }},  # fill in: its element count\n"
            ),
            Some(element) => format!(
                "  {{ name = {name}, buffer = \"{element}\", count = \"N\", output = true }},  # fill in: its element count; if the kernel only reads it, write fill = \"random\" instead of output = true\n"
            ),
            None => unknown("pointer to a type"),
        },
        Takes::Value(c_type) => match c_type.element() {
            Some(element) if c_type.float => format!(
                "  {{ name = {name}, scalar = \"{element}\", value = 1 }},  # fill in: its value\n"
            ),
            Some(element) => format!(
                "  {{ name = {name}, scalar = \"{element}\", value = \"N\" }},  # fill in: its value\n"
            ),
            None => unknown("parameter type"),
        },
        Takes::Unknown => unknown("parameter type"),
    }
}

/// Whether the pointer declared as `written` points to `const` data
/// (`const float *in`, `float const *in`; not `float *const out`).
fn points_to_const(written: &str) -> bool {
    let pointee = written
        .rsplit_once('*')
        .map_or(written, |(before, _)| before);
    pointee
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == "const")
}
