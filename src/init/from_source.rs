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

/// The variants.toml text for the CUDA file at `source`, whose path from
/// the toml's folder is `relative`.
pub fn suite_for(source: &str, relative: &Path, suite_name: &str) -> Result<String, String> {
    let scanned = kernels::scan(source);
    if scanned.kernels.is_empty() {
        return Err(format!(
            "{} defines no __global__ function: give the .cu file that holds your kernels",
            relative.display()
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
        text.push_str(&variant(name, kernel, launch, relative));
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

fn variant(name: &str, kernel: &Kernel, launch: Option<&Launch>, relative: &Path) -> String {
    let mut text = format!(
        "\n[[variant]]\nname = {}\nsource = {}\n",
        quoted(name),
        quoted(&relative.display().to_string())
    );
    let _ = match (&kernel.template, launch) {
        (Some(_), Some(launch)) if launch.callee.contains('<') => writeln!(
            text,
            "entry = {}                # the instance the file launches",
            quoted(&launch.callee)
        ),
        (Some(parameters), _) => writeln!(
            text,
            "entry = {}                # fill in: a value for each of <{parameters}>",
            quoted(&format!("{}<…>", kernel.name))
        ),
        (None, _) => writeln!(text, "entry = {}", quoted(&kernel.name)),
    };
    text.push_str(&geometry(launch));
    text.push_str("args = [\n");
    for parameter in parameters(&kernel.parameters) {
        text.push_str(&argument(&parameter));
    }
    text.push_str("]\n");
    text
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
    let mut text = match block {
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
                "grid = [\"cdiv(N, 256)\"]  # fill in: blocks per grid, an expression over N{launched}"
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

/// One parameter: its type (as written) and name.
struct Parameter {
    ty: String,
    name: String,
}

fn parameters(list: &str) -> Vec<Parameter> {
    list.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty() && *p != "void")
        .map(|p| {
            let split = p
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            Parameter {
                ty: p[..split].trim().to_string(),
                name: p[split..].to_string(),
            }
        })
        .collect()
}

/// A parameter as an `args` entry.
fn argument(parameter: &Parameter) -> String {
    let pointer = parameter.ty.contains('*');
    let base = parameter
        .ty
        .replace(['*', '&'], " ")
        .replace("const", " ")
        .replace("__restrict__", " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let element = match base.as_str() {
        "float" => Some("f32"),
        "double" => Some("f64"),
        "int" | "int32_t" => Some("i32"),
        "unsigned" | "unsigned int" | "uint32_t" => Some("u32"),
        "long long" | "int64_t" | "long" => Some("i64"),
        "size_t" | "unsigned long" | "unsigned long long" | "uint64_t" => Some("u64"),
        _ => None,
    };
    let name = quoted(&parameter.name);
    let unknown = |what: &str| {
        format!(
            "  # fill in: `{} {name}` is a {what} gpuprof cannot make; gpuprof passes f32, f64, i32, u32, i64 and u64\n",
            parameter.ty
        )
    };
    match (pointer, element) {
        (true, Some(element)) if parameter.ty.contains("const") => format!(
            "  {{ name = {name}, buffer = \"{element}\", count = \"N\", fill = \"random\" }},  # fill in: its element count\n"
        ),
        (true, Some(element)) => format!(
            "  {{ name = {name}, buffer = \"{element}\", count = \"N\", output = true }},  # fill in: its element count (add a fill if the kernel reads it first)\n"
        ),
        (false, Some(element)) => format!(
            "  {{ name = {name}, scalar = \"{element}\", value = \"N\" }},  # fill in: its value\n"
        ),
        (true, None) => unknown("pointer to a type"),
        (false, None) => unknown("parameter type"),
    }
}
