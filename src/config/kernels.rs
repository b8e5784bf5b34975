//! What a CUDA source declares, read before any compiler runs: its
//! `__global__` functions (with their namespace, their template parameter
//! list and whether they are `extern "C"`), whether a macro may declare
//! more of them, and whether the file holds host code (a `main`, a
//! `<<<…>>>` launch, a host header), which NVRTC cannot compile; and the
//! headers it includes. It lets the config check name a wrong `entry` and
//! the kernels the file does define, lets the build choose its compiler,
//! and lets the build cache follow the user's headers. For `gpuprof init
//! --from` it also keeps each kernel's body, reads from it which pointer
//! parameters the kernel reads and writes (`pointer_use`) and in how many
//! dimensions it indexes (`index_dimensions`), and keeps what the host
//! code launches with: the launches' arguments, its `dim3` variables, the
//! kernels it assigns to function pointers, its integer variables (and
//! the defaults its structs give their integer members, which a host
//! reads its sizes from) and the arguments of its allocations (what
//! sizes its buffers). It
//! keeps the file's type aliases of scalar types (`typedef float real;`),
//! with which both read parameter lists. A light tokenizer, not a C++ parser: comments, string and character
//! literals are skipped, and preprocessor lines are read only for
//! `#include` and `#define`.

use super::inline_asm;
use super::signature;
use super::signature::{is_float_type, is_scalar_type, scalar_aliases, split_top_level};
use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// The kernels of one source file and what else the scan saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Kernels {
    /// Every `__global__` function defined or declared, in source order,
    /// without repeats.
    pub(crate) kernels: Vec<Kernel>,
    /// A `#define` whose body holds `__global__`: kernels the scan cannot
    /// name may exist, so an unknown entry is not refused.
    pub(crate) declared_by_macro: bool,
    /// Why the file needs a host compiler (nvcc), when it does.
    pub(crate) host_code: Option<String>,
    /// The `<<<…>>>` launches of its host code, in source order.
    pub(crate) launches: Vec<Launch>,
    /// Names the file gives an integer: `#define BLOCK 256` and
    /// `const int THREADS = 128;` (at any scope), in source order.
    pub(crate) integers: Vec<(String, i64)>,
    /// The character offset of each of `integers`' definitions (0 for a
    /// `#define` or a header's: they hold everywhere), in the same order.
    pub(crate) integers_at: Vec<usize>,
    /// Names the file gives `true` or `false`: `const bool FAST = false;`.
    pub(crate) booleans: Vec<(String, bool)>,
    /// The kernel instances the file instantiates explicitly (`template
    /// __global__ void sgemm_v2<32>(…);` gives `sgemm_v2<32>`), in order.
    pub(crate) instantiated: Vec<String>,
    /// The `dim3` variables its host code declares, in source order.
    pub(crate) dim3s: Vec<Dim3>,
    /// `std::vector<float> h(n, 1.0f);`, `thrust::device_vector<float>
    /// d(n)`: the vectors the file declares with a count, by name, with
    /// the count as written (what `h.size()` gives), in source order.
    pub(crate) vectors: Vec<(String, String)>,
    /// `name = &function;` and `name = function;` (a function pointer
    /// given a kernel, maybe): the variable and the name it is given.
    pub(crate) assignments: Vec<(String, String)>,
    /// The integer members its structs and classes give a default
    /// (`struct Options { int size = 1 << 12; };`), by name with the
    /// default as written ([`Kernels::read_members_at_their_defaults`]).
    pub(crate) member_defaults: Vec<(String, String)>,
    /// `int blocks = (n + 255) / 256;`: integer variables declared with an
    /// initializer (not constants), by name, with the initializer as written.
    pub(crate) initializers: Vec<(String, String)>,
    /// The character offset of each of `initializers`, in the same order.
    pub(crate) initializers_at: Vec<usize>,
    /// `float alpha = 1.0f, beta = 0.0f;`: floating-point variables of the
    /// host code declared with an initializer, as written.
    pub(crate) float_initializers: Vec<(String, String)>,
    /// The character offset of each of `float_initializers`.
    pub(crate) float_initializers_at: Vec<usize>,
    /// The arguments of its allocations, as written: of calls to a
    /// function whose name holds `alloc` (`cudaMalloc(&d, n *
    /// sizeof(float))`, `malloc`, `cudaMallocManaged`, `cudaHostAlloc`) and
    /// the sizes of `new T[n]`: the names there size the file's buffers.
    pub(crate) allocations: Vec<String>,
    /// Variables the host code asks CUDA to choose when it runs
    /// (`cudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, k)`), by
    /// name, with the function that sets them.
    pub(crate) chosen_at_run_time: Vec<(String, String)>,
    /// The device buffers its host code fills from a host array it draws
    /// from `rand() % K`, shifted by a constant (`h[i] = 'a' + rand() %
    /// 26;` then `cudaMemcpy(d, h, …)`): the device variable, the range
    /// (`low`, then `high` excluded) and the expression as written.
    pub(crate) random_fills: Vec<RandomFill>,
    /// The device buffers its host code allocates, by variable, with the
    /// bytes as written (`cudaMalloc((void **)&d_in, n * sizeof(float))`
    /// gives `("d_in", "n * sizeof(float)")`).
    pub(crate) device_allocations: Vec<(String, String)>,
    /// The character offset of each of `device_allocations` (0 for one
    /// made through a helper: it holds everywhere), in the same order.
    pub(crate) device_allocations_at: Vec<usize>,
    /// A host function's pointer parameters with what every call passes
    /// them (`void run(float *d, …)` called as `run(d_in, …)`: `("d",
    /// "d_in")`), to follow a buffer through a wrapper to its allocation.
    pub(crate) passed_pointers: Vec<(String, String)>,
    /// The type aliases that stand for a scalar or vector type or a
    /// pointer to one (`typedef float real;`, `using idx_t = int;`,
    /// `#define DTYPE double`, `typedef uint4 data_t;`), with the type
    /// each stands for.
    pub(crate) aliases: Vec<(String, String)>,
    /// Each host function template's body (character offsets) with the
    /// scalar types its first call outside it gives its type parameters
    /// (`template <typename T> void runTest(…)` called as
    /// `runTest<float>(…)`: `T` is `float` inside it).
    pub(crate) host_template_types: Vec<(Range<usize>, TypeChoices)>,
    /// The macros it `#define`s outside an `#ifndef` of the same name, by
    /// name with the line (from 1) of the first: a `-D` of that name is
    /// replaced by the file's own value.
    pub(crate) unguarded_defines: Vec<(String, usize)>,
    /// The macros it `#define`s only inside an `#ifndef` of the same name
    /// (`#ifndef N` / `#define N 1024` / `#endif`), which a `-D` sets.
    pub(crate) guarded_defines: Vec<String>,
    /// The host code's pointer variables and parameters with the type they
    /// point to, as written (`float *in, *out;` gives `in` and `out`
    /// `float`), so that a template kernel launched without its arguments
    /// (`scale<<<g, b>>>(in, out, n)`) has them deduced.
    pub(crate) host_pointers: Vec<(String, String)>,
    /// Function-like macros and functions whose body is one `return` of
    /// an expression (`#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))`,
    /// `int div_up(int a, int b) { return (a + b - 1) / b; }`), which a
    /// launch's geometry may call.
    pub(crate) expression_functions: Vec<ExpressionFunction>,
    /// The module variables it declares (`__constant__ float c_Kernel[17];`,
    /// `__device__ int counter;`), which a buffer with `symbol` fills.
    pub(crate) variables: Vec<ModuleVariable>,
    /// The `__device__` functions it defines (helpers a kernel hands its
    /// pointers to: `load_tile(As, A, …)`), to follow a pointer into.
    pub(crate) functions: Vec<DeviceFunction>,
}

/// A `__device__` function the file defines: its name, its parameters'
/// names in order (`None` for an unnamed one) and its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeviceFunction {
    pub(crate) name: String,
    pub(crate) parameters: Vec<Option<String>>,
    pub(crate) body: String,
}

/// A function-like macro, or a function that returns one expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExpressionFunction {
    pub(crate) name: String,
    pub(crate) parameters: Vec<String>,
    /// What it stands for, as written.
    pub(crate) body: String,
}

impl ExpressionFunction {
    /// Its body with each parameter replaced by `(argument)`; `None` when
    /// the argument count differs.
    pub(crate) fn applied(&self, arguments: &[String]) -> Option<String> {
        (arguments.len() == self.parameters.len()).then_some(())?;
        let chars: Vec<char> = self.body.chars().collect();
        let mut out = String::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i].is_ascii_alphabetic() || chars[i] == '_' {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                match self.parameters.iter().position(|p| *p == word) {
                    Some(at) => out.push_str(&format!("({})", arguments[at])),
                    None => out.push_str(&word),
                }
                continue;
            }
            out.push(chars[i]);
            i += 1;
        }
        Some(out)
    }
}

/// `#define NAME(a, b) BODY` lines of `directives` and functions whose
/// body is `{ return EXPRESSION; }`, in order.
fn expression_functions(directives: &[String], tokens: &[Located]) -> Vec<ExpressionFunction> {
    let macros = directives
        .iter()
        .filter_map(|directive| function_like_macro(directive));
    let functions = (1..tokens.len()).filter_map(|i| {
        let Token::Ident(name) = &tokens[i].0 else {
            return None;
        };
        let close = group_end(tokens, i + 1);
        let returns = is(tokens, i + 1, '(')
            && is(tokens, close, '{')
            && matches!(&tokens.get(close + 1)?.0, Token::Ident(w) if w == "return")
            && matches!(&tokens[i - 1].0, Token::Ident(w) if !CONTROL_WORDS.contains(&w.as_str()));
        if !returns {
            return None;
        }
        let (body, end) = expression_at(tokens, close + 2);
        (is(tokens, end, ';') && is(tokens, end + 1, '}')).then_some(())?;
        let parameters = top_level_parts(tokens, i + 1)
            .into_iter()
            .map(|part| match part.last() {
                Some((Token::Ident(name), _)) => Some(name.clone()),
                _ => None,
            })
            .collect::<Option<Vec<String>>>()?;
        Some(ExpressionFunction {
            name: name.clone(),
            parameters,
            body,
        })
    });
    macros.chain(functions).collect()
}

/// A `#define NAME(a, b) body` directive (without its `#`) as a function:
/// its name, its parameters and its body without a trailing comment.
fn function_like_macro(directive: &str) -> Option<ExpressionFunction> {
    let rest = directive.strip_prefix("define")?.trim_start();
    let open = rest.find('(')?;
    let name = &rest[..open];
    let close = open + rest[open..].find(')')?;
    let is_name = |text: &str| {
        text.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && text.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    let parameters: Vec<String> = rest[open + 1..close]
        .split(',')
        .map(|p| p.trim().to_string())
        .collect();
    let body = rest[close + 1..]
        .split("//")
        .next()?
        .split("/*")
        .next()?
        .trim();
    (is_name(name) && parameters.iter().all(|p| is_name(p)) && !body.is_empty()).then(|| {
        ExpressionFunction {
            name: name.to_string(),
            parameters,
            body: body.to_string(),
        }
    })
}

/// One `__constant__` or `__device__` variable of a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModuleVariable {
    pub(crate) name: String,
    /// Its element type as written (`float`, `unsigned int`).
    pub(crate) element: String,
    /// Its array length as written (`KERNEL_LENGTH`), if it is an array.
    pub(crate) length: Option<String>,
}

impl ModuleVariable {
    /// How many elements it holds: 1, or its array length worked out over
    /// the file's `integers` (a whole number of at least 1); `None` where
    /// the length does not evaluate.
    pub(crate) fn elements(&self, integers: &[(String, i64)]) -> Option<u64> {
        let Some(length) = &self.length else {
            return Some(1);
        };
        let known: std::collections::BTreeMap<String, i64> = integers.iter().cloned().collect();
        integer_literal(length)
            .or_else(|| integer_expression(length, &known))
            .filter(|n| *n >= 1)
            .map(|n| n as u64)
    }
}

/// One `dim3 name(a, b)` (or `dim3 name = dim3(a, b)`, `dim3 name{a, b}`,
/// `dim3 name = n`) declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dim3 {
    pub(crate) name: String,
    /// Its dimensions' expressions, as written.
    pub(crate) values: Vec<String>,
    /// The character offset of the declaration.
    pub(crate) at: usize,
}

/// One `kernel<<<grid, block[, shared]>>>` launch, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launch {
    /// What is launched: `reduce6<256, true>`, `naiveCopy`.
    pub(crate) callee: String,
    /// The launch configuration's expressions: grid, block, shared memory, stream.
    pub(crate) config: Vec<String>,
    /// The arguments it passes the kernel, as written.
    pub(crate) arguments: Vec<String>,
    /// The character offset of its `<<<`.
    pub(crate) at: usize,
}

/// One `__global__` function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Kernel {
    /// The qualified name: `reduce6`, `ns::transpose`.
    pub(crate) name: String,
    /// The template parameter list, as written (`unsigned int blockSize,
    /// bool nIsPow2`), for a template.
    pub(crate) template: Option<String>,
    /// The parameter list, as written (whitespace made single spaces).
    pub(crate) parameters: String,
    /// The source text between the braces of its definition (`None` for a
    /// declaration the file never defines).
    pub(crate) body: Option<String>,
}

impl Kernel {
    /// The kernel as the config error lists it: `reduce6<unsigned int
    /// blockSize, bool nIsPow2>` for a template.
    pub(crate) fn shown(&self) -> String {
        match &self.template {
            Some(parameters) => format!("{}<{parameters}>", self.name),
            None => self.name.clone(),
        }
    }
}

impl Kernels {
    /// The kernel an `entry` names: `name`, `ns::name` or a template
    /// instance `name<args>`; matched by its qualified name.
    pub(crate) fn find(&self, entry: &str) -> Option<&Kernel> {
        let base = entry_base(entry);
        self.kernels.iter().find(|k| k.name == base)
    }
}

/// The name part of an entry, without template arguments or spaces:
/// `ns::reduce<256, true>` → `ns::reduce`.
pub(crate) fn entry_base(entry: &str) -> String {
    entry
        .split('<')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// Whether an entry names a template instance (`name<…>`).
pub(crate) fn is_instance(entry: &str) -> bool {
    entry.contains('<')
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    Ident(String),
    /// A string literal's contents.
    Str(String),
    Punct(char),
}

/// A token and the character offset where it starts.
pub(crate) type Located = (Token, usize);

/// Attribute-like macros that may stand between `__global__` and the name,
/// each followed by a parenthesized argument list.
const ATTRIBUTES: [&str; 7] = [
    "__launch_bounds__",
    "__cluster_dims__",
    "__maxnreg__",
    "__attribute__",
    "__declspec",
    "__align__",
    "alignas",
];

/// Headers NVRTC compiles (device-side headers of the toolkit and its
/// bundled libraries); any other `#include <…>` is a host header.
const DEVICE_HEADERS: [&str; 12] = [
    "cooperative_groups.h",
    "cooperative_groups/",
    "cuda_fp16.h",
    "cuda_bf16.h",
    "cuda_fp8.h",
    "cuda/",
    "cub/",
    "mma.h",
    "cuda_pipeline",
    "cuda_awbarrier",
    "thrust/",
    "crt/",
];

/// What a brace opened.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scope {
    ExternC,
    Namespace(String),
    Other,
}

impl Kernels {
    /// The scan as the code at character offset `at` (a launch) sees it:
    /// of the integers, initializers and allocations a name is given more
    /// than once (`constexpr int BM = 32;` in one host function, `= 128` in
    /// the next; `cudaMalloc(&dx, n * …)` in one, `(&dx, options.size *
    /// …)` in the next), the nearest definition before `at` is found first
    /// by a search from the end; one given only further down still is
    /// found.
    pub(crate) fn scoped_at(&self, at: usize) -> Kernels {
        fn reordered<T: Clone>(items: &[T], offsets: &[usize], at: usize) -> (Vec<T>, Vec<usize>) {
            let offset = |k: usize| offsets.get(k).copied().unwrap_or(0);
            let (after, before): (Vec<usize>, Vec<usize>) =
                (0..items.len()).partition(|&k| offset(k) > at);
            after
                .into_iter()
                .chain(before)
                .map(|k| (items[k].clone(), offset(k)))
                .unzip()
        }
        let mut scoped = self.clone();
        (scoped.integers, scoped.integers_at) = reordered(&self.integers, &self.integers_at, at);
        (scoped.initializers, scoped.initializers_at) =
            reordered(&self.initializers, &self.initializers_at, at);
        (scoped.float_initializers, scoped.float_initializers_at) =
            reordered(&self.float_initializers, &self.float_initializers_at, at);
        (scoped.device_allocations, scoped.device_allocations_at) =
            reordered(&self.device_allocations, &self.device_allocations_at, at);
        // Inside a host function template, its type parameters are the
        // types its callers give them (`sizeof(T)` in its allocations).
        for (body, types) in &self.host_template_types {
            if body.contains(&at) {
                for (name, chosen) in types.iter().rev() {
                    scoped.aliases.insert(0, (name.clone(), chosen.clone()));
                }
            }
        }
        scoped
    }
}

/// [`scan`] of the file at `path` whose text is `source`, its integer
/// constants preceded by those of the headers it includes with quotes
/// beside itself (`#define KERNEL_LENGTH 17` in "common.h" sizes its
/// arrays and launches too); the file's own come last, so they win. The
/// headers' type aliases are added where the file has none of that name.
pub(crate) fn scan_file(path: &std::path::Path, source: &str) -> Kernels {
    let mut found = scan(source);
    let headers: Vec<Kernels> = crate::build::headers::local_headers(path, source)
        .iter()
        .map(|(_, text)| scan(text))
        .collect();
    // A type its headers alias (a struct of two halves in a `.cuh`), where
    // the file does not alias that name itself.
    for alias in headers.iter().flat_map(|header| &header.aliases) {
        if !found.aliases.iter().any(|(name, _)| *name == alias.0) {
            found.aliases.push(alias.clone());
        }
    }
    let mut integers: Vec<(String, i64)> = headers
        .into_iter()
        .flat_map(|header| header.integers)
        .collect();
    let mut integers_at = vec![0; integers.len()];
    integers.append(&mut found.integers);
    integers_at.append(&mut found.integers_at);
    found.integers = integers;
    found.integers_at = integers_at;
    found
}

/// Whether `text` is a C identifier (`d_in`, `_n2`), as gpuprof's own
/// names are too.
pub(crate) fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(crate) fn scan(source: &str) -> Kernels {
    let chars: Vec<char> = source.chars().collect();
    let (tokens, directives) = tokenize(&chars);
    let defined = defined_integers(&directives);
    let constants = constant_integers(&tokens, &defined);
    let mut found = Kernels {
        declared_by_macro: directives
            .iter()
            .any(|d| d.starts_with("define") && d.contains("__global__")),
        integers: defined
            .iter()
            .cloned()
            .chain(constants.iter().map(|(n, v, _)| (n.clone(), *v)))
            .collect(),
        integers_at: std::iter::repeat_n(0, defined.len())
            .chain(constants.iter().map(|(.., at)| *at))
            .collect(),
        booleans: constant_booleans(&tokens),
        ..Kernels::default()
    };
    let mut scopes: Vec<Scope> = Vec::new();
    // The current declaration started with `template <…>`.
    let mut template: Option<String> = None;
    // Host function templates: name, parameter list, the body's `{`.
    let mut host_templates: Vec<(String, String, usize)> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].0 {
            Token::Ident(word) if word == "extern" => {
                if matches!(tokens.get(i + 1), Some((Token::Str(s), _)) if s == "C") {
                    // A block's kernels are named as if it were not there.
                    if matches!(tokens.get(i + 2), Some((Token::Punct('{'), _))) {
                        scopes.push(Scope::ExternC);
                        i += 3;
                        continue;
                    }
                    i += 2;
                    continue;
                }
            }
            Token::Ident(word) if word == "namespace" => {
                if let Some((name, open)) = namespace_at(&tokens, i + 1) {
                    scopes.push(Scope::Namespace(name));
                    i = open + 1;
                    continue;
                }
            }
            Token::Ident(word) if word == "template" => {
                if let Some((parameters, end)) = template_at(&tokens, i + 1) {
                    template = Some(parameters);
                    i = end;
                    continue;
                }
                if let Some((name, arguments)) = explicit_instance(&tokens, i + 1) {
                    found
                        .instantiated
                        .push(format!("{}<{arguments}>", qualified(&scopes, &name)));
                }
            }
            Token::Ident(word) if word == "__global__" => {
                if let Some((name, open)) = function_name(&tokens[i + 1..]) {
                    let kernel = Kernel {
                        name: qualified(&scopes, &name),
                        template: template.take(),
                        parameters: parameters_at(&tokens, i + 1 + open),
                        body: body_after(&tokens, &chars, skip_group(&tokens, i + 1 + open)),
                    };
                    // A prototype first (`__global__ void Fan1(float *m, …);`):
                    // the definition's parameter names are the ones its body
                    // uses, so it replaces the prototype.
                    match found.kernels.iter_mut().find(|k| k.name == kernel.name) {
                        Some(declared) if declared.body.is_none() && kernel.body.is_some() => {
                            *declared = kernel
                        }
                        Some(_) => {}
                        None => found.kernels.push(kernel),
                    }
                }
            }
            Token::Ident(word) if word == "__device__" => {
                if let Some((name, open)) = function_name(&tokens[i + 1..])
                    && let Some(body) =
                        body_after(&tokens, &chars, skip_group(&tokens, i + 1 + open))
                {
                    found.functions.push(DeviceFunction {
                        name,
                        parameters: parameter_names(&tokens, i + 1 + open),
                        body,
                    });
                }
            }
            Token::Ident(word) if word == "main" && scopes.is_empty() => {
                if matches!(tokens.get(i + 1), Some((Token::Punct('('), _))) {
                    found.host_code.get_or_insert("it defines `main`".into());
                }
            }
            Token::Punct('<') if is_launch(&tokens, &chars, i) => {
                found
                    .host_code
                    .get_or_insert("it launches kernels (`<<<…>>>`)".into());
                found.launches.extend(launch_at(&tokens, &chars, i));
                i += 3;
                continue;
            }
            Token::Punct('{') => {
                if let Some(parameters) = template.take()
                    && let Some(name) = defined_function_before(&tokens, i)
                {
                    host_templates.push((name, parameters, i));
                }
                scopes.push(Scope::Other);
            }
            Token::Punct('}') => {
                scopes.pop();
                template = None;
            }
            Token::Punct(';') => template = None,
            _ => {}
        }
        i += 1;
    }
    found.host_template_types = host_templates
        .iter()
        .filter_map(|(name, parameters, open)| {
            let end = group_end(&tokens, *open);
            let types = types_of_first_call(&tokens, name, parameters, *open..end)?;
            Some((tokens[*open].1..tokens[end - 1].1 + 1, types))
        })
        .collect();
    found.dim3s = dim3_declarations(&tokens);
    found.vectors = vector_declarations(&tokens);
    found.member_defaults = member_defaults(&tokens);
    found.assignments = function_assignments(&tokens);
    let device = device_bodies(&tokens);
    found
        .assignments
        .extend(kernels_passed_to_host_parameters(&tokens, &device));
    // A launch inside a kernel (dynamic parallelism) is the GPU's own, not
    // the host's.
    let device_text: Vec<Range<usize>> = device
        .iter()
        .filter(|body| !body.is_empty())
        .map(|body| tokens[body.start].1..tokens[body.end - 1].1 + 1)
        .collect();
    found
        .launches
        .retain(|launch| !device_text.iter().any(|body| body.contains(&launch.at)));
    (found.initializers, found.initializers_at) =
        declared_initializers(&tokens, &device, &INTEGER_WORDS)
            .into_iter()
            .unzip();
    // `const real x0 = 100.0;` of `typedef float real;` (or of `double`
    // under an `#ifdef`: an alias every declaration of which is a
    // floating-point type) is a float scalar too.
    let declared_aliases = alias_declarations(&tokens, &directives);
    let float_aliases = declared_aliases.iter().filter(|(name, _)| {
        declared_aliases
            .iter()
            .filter(|(other, _)| other == name)
            .all(|(_, target)| is_float_type(target))
    });
    let float_words: Vec<&str> = FLOAT_WORDS
        .iter()
        .copied()
        .chain(float_aliases.map(|(name, _)| name.as_str()))
        .collect();
    (found.float_initializers, found.float_initializers_at) =
        declared_initializers(&tokens, &device, &float_words)
            .into_iter()
            .unzip();
    found.host_pointers = host_pointers(&tokens, &device);
    found.initializers.extend(passed_to_host_parameters(
        &tokens,
        &device,
        integer_parameter,
    ));
    found.allocations = allocations(&tokens);
    found.chosen_at_run_time = chosen_at_run_time(&tokens);
    (found.device_allocations, found.device_allocations_at) =
        device_allocations(&tokens).into_iter().unzip();
    found.random_fills = random_fills(source, &found.integers);
    // A helper that allocates what its caller hands it (`void
    // alloc(float **d, size_t bytes) { cudaMalloc(d, bytes); }` called as
    // `alloc(&d_a, n * sizeof(float))`, or through a reference `T &ptr`):
    // the caller's variable is allocated with the helper's bytes, whose
    // parameter holds what the caller passes.
    for (parameter, passed) in passed_to_host_parameters(&tokens, &device, allocated_parameter) {
        let variable = passed.trim().trim_start_matches('&').trim();
        let bytes = found
            .device_allocations
            .iter()
            .find(|(name, _)| *name == parameter)
            .map(|(_, bytes)| bytes.clone());
        if let Some(bytes) = bytes
            && is_identifier(variable)
        {
            found.device_allocations.push((variable.to_string(), bytes));
            found.device_allocations_at.push(0);
        }
    }
    found.passed_pointers = passed_to_host_parameters(&tokens, &device, pointer_parameter);
    found.aliases = scalar_aliases(&declared_aliases);
    (found.unguarded_defines, found.guarded_defines) = defines_by_guard(source);
    found.variables = module_variables(&tokens);
    found.expression_functions = expression_functions(&directives, &tokens);
    // A function-like macro a kernel hands a pointer to (`CP_ASYNC_CG(dst,
    // &src[i], 16)`, which expands to inline assembly) is followed like a
    // function.
    found.functions.extend(
        directives
            .iter()
            .filter_map(|directive| function_like_macro(directive))
            .map(|defined| DeviceFunction {
                name: defined.name,
                parameters: defined.parameters.into_iter().map(Some).collect(),
                body: defined.body,
            }),
    );
    // `main` or a launch is the plainer reason; a header whose name
    // NVRTC does not provide may be the user's own.
    found.host_code = found.host_code.or_else(|| host_header(&directives));
    found
}

/// An integer literal as C++ writes it (`256`, `0x100`, `256u`, `(64)`).
fn integer_literal(text: &str) -> Option<i64> {
    let text = text.trim();
    let text = text
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(text)
        .trim();
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => digits.parse().ok(),
    }
}

/// `#define NAME <integer>` lines (a comment after the value left out),
/// and `#define NAME <expression>` over integers and names defined before
/// it (`(4 * SHARED_MEMORY_BANKS)`, `(1 << 20)`, `(SIZE / 2)`), with the
/// value C gives it (`integer_expression`).
fn defined_integers(directives: &[String]) -> Vec<(String, i64)> {
    let mut known: std::collections::BTreeMap<String, i64> = std::collections::BTreeMap::new();
    let mut found = Vec::new();
    for (name, value) in object_like_defines(directives) {
        let Some(value) = integer_literal(value).or_else(|| integer_expression(value, &known))
        else {
            continue;
        };
        known.insert(name.to_string(), value);
        found.push((name.to_string(), value));
    }
    found
}

/// The object-like `#define NAME BODY` lines of `directives`, in order, as
/// (NAME, BODY) with a comment after the body cut off; a function-like
/// macro (`#define F(x) …`) or one without a body is none.
fn object_like_defines(directives: &[String]) -> impl Iterator<Item = (&str, &str)> {
    directives.iter().filter_map(|directive| {
        let rest = directive.strip_prefix("define")?.trim();
        let (name, body) = rest.split_once(char::is_whitespace)?;
        let body = body.split("//").next()?.split("/*").next()?.trim();
        (name.chars().all(|c| c.is_alphanumeric() || c == '_') && !body.is_empty())
            .then_some((name, body))
    })
}

/// The value of a C integer expression over `known` names, as C computes
/// it: literals (decimal, hex, their `U`/`L` suffixes dropped), `+ - * /
/// %` with division truncated, shifts, `& ^ | ~` and parentheses; `None`
/// for anything else (a cast, a call, a name not known) or an overflow.
fn integer_expression(text: &str, known: &std::collections::BTreeMap<String, i64>) -> Option<i64> {
    let chars: Vec<char> = text.chars().collect();
    let mut reader = IntegerReader {
        chars: &chars,
        at: 0,
        known,
    };
    let value = reader.binary(0)?;
    reader.skip_spaces();
    (reader.at == chars.len()).then_some(value)
}

/// A precedence-climbing reader of one C integer expression.
struct IntegerReader<'a> {
    chars: &'a [char],
    at: usize,
    known: &'a std::collections::BTreeMap<String, i64>,
}

impl IntegerReader<'_> {
    fn skip_spaces(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
    }

    /// The binary operator next, with its precedence (C's, higher binds
    /// tighter) and its length, if it binds at least as tight as `least`.
    fn operator(&mut self, least: u8) -> Option<(char, u8, usize)> {
        self.skip_spaces();
        let c = *self.chars.get(self.at)?;
        let next = self.chars.get(self.at + 1).copied();
        let (op, precedence, length) = match (c, next) {
            ('<', Some('<')) => ('<', 4, 2),
            ('>', Some('>')) => ('>', 4, 2),
            ('&', Some('&')) | ('|', Some('|')) => return None,
            ('*' | '/' | '%', _) => (c, 6, 1),
            ('+' | '-', _) => (c, 5, 1),
            ('&', _) => (c, 3, 1),
            ('^', _) => (c, 2, 1),
            ('|', _) => (c, 1, 1),
            _ => return None,
        };
        (precedence >= least).then_some((op, precedence, length))
    }

    fn binary(&mut self, least: u8) -> Option<i64> {
        let mut left = self.unary()?;
        while let Some((op, precedence, length)) = self.operator(least) {
            self.at += length;
            let right = self.binary(precedence + 1)?;
            left = match op {
                '*' => left.checked_mul(right)?,
                '/' => left.checked_div(right)?,
                '%' => left.checked_rem(right)?,
                '+' => left.checked_add(right)?,
                '-' => left.checked_sub(right)?,
                '<' => left.checked_mul(1i64.checked_shl(u32::try_from(right).ok()?)?)?,
                '>' => left.checked_shr(u32::try_from(right).ok()?)?,
                '&' => left & right,
                '^' => left ^ right,
                _ => left | right,
            };
        }
        Some(left)
    }

    fn unary(&mut self) -> Option<i64> {
        self.skip_spaces();
        let c = *self.chars.get(self.at)?;
        match c {
            '-' | '+' | '~' => {
                self.at += 1;
                let operand = self.unary()?;
                Some(match c {
                    '-' => operand.checked_neg()?,
                    '~' => !operand,
                    _ => operand,
                })
            }
            '(' => {
                self.at += 1;
                let value = self.binary(0)?;
                self.skip_spaces();
                (self.chars.get(self.at) == Some(&')')).then_some(())?;
                self.at += 1;
                Some(value)
            }
            _ => {
                let start = self.at;
                while self
                    .chars
                    .get(self.at)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    self.at += 1;
                }
                let word: String = self.chars[start..self.at].iter().collect();
                match word.chars().next()?.is_ascii_digit() {
                    true => integer_literal(&word),
                    false => self.known.get(&word).copied(),
                }
            }
        }
    }
}

/// The constants `tokens` declare (`const int a = …;`, `constexpr bool
/// b = false, c = …;`, at any scope): each name with its initializer as
/// written, in source order.
fn constant_declarations(tokens: &[Located]) -> Vec<(String, String, usize)> {
    let mut found = Vec::new();
    for i in 1..tokens.len().saturating_sub(2) {
        let (Token::Ident(name), _) = &tokens[i] else {
            continue;
        };
        // `const int a = …` or a later declarator, `const int a = 1, b = …`.
        let declared = matches!(tokens[i - 1].0, Token::Ident(_) | Token::Punct(','));
        let constant = tokens[statement_start(tokens, i)..i]
            .iter()
            .any(|(t, _)| matches!(t, Token::Ident(w) if w == "const" || w == "constexpr"));
        if !declared || !constant || !plain_assignment(tokens, i + 1) {
            continue;
        }
        let (text, end) = expression_at(tokens, i + 2);
        if is(tokens, end, ';') || is(tokens, end, ',') {
            found.push((name.clone(), text, tokens[i].1));
        }
    }
    found
}

/// The integer constants of [`constant_declarations`] whose value the
/// scan can work out from literals, `defined` macros and earlier
/// constants.
fn constant_integers(tokens: &[Located], defined: &[(String, i64)]) -> Vec<(String, i64, usize)> {
    let mut known: std::collections::BTreeMap<String, i64> = defined.iter().cloned().collect();
    let mut found = Vec::new();
    for (name, text, at) in constant_declarations(tokens) {
        if let Some(value) = integer_literal(&text).or_else(|| integer_expression(&text, &known)) {
            known.insert(name.clone(), value);
            found.push((name, value, at));
        }
    }
    found
}

/// The constants of [`constant_declarations`] initialized with `true` or
/// `false` (`const bool ENABLE_DOUBLE_BUFFER = false;`, a template
/// argument of the launch).
fn constant_booleans(tokens: &[Located]) -> Vec<(String, bool)> {
    constant_declarations(tokens)
        .into_iter()
        .filter_map(|(name, text, _)| match text.trim() {
            "true" => Some((name, true)),
            "false" => Some((name, false)),
            _ => None,
        })
        .collect()
}

/// One `#include` of a source: the header as written and whether it was
/// quoted (`"…"`, searched beside the including file first) or not (`<…>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Include {
    pub(crate) header: String,
    pub(crate) quoted: bool,
}

/// The `#include` lines of `source`, in order, wherever they are
/// (conditional ones too).
pub(crate) fn includes(source: &str) -> Vec<Include> {
    let chars: Vec<char> = source.chars().collect();
    let (_, directives) = tokenize(&chars);
    directives
        .iter()
        .filter_map(|d| {
            let rest = d.strip_prefix("include")?.trim();
            let (quoted, close) = match rest.chars().next()? {
                '"' => (true, '"'),
                '<' => (false, '>'),
                _ => return None,
            };
            let header = rest[1..].split(close).next()?.trim();
            (!header.is_empty()).then(|| Include {
                header: header.to_string(),
                quoted,
            })
        })
        .collect()
}

/// `name` inside the namespaces open in `scopes`. An anonymous namespace
/// adds nothing: its kernels are named as if it were not there, as code in
/// the same file names them.
fn qualified(scopes: &[Scope], name: &str) -> String {
    let mut parts: Vec<&str> = scopes
        .iter()
        .filter_map(|s| match s {
            Scope::Namespace(n) if !n.is_empty() => Some(n.as_str()),
            _ => None,
        })
        .collect();
    parts.push(name);
    parts.join("::")
}

/// After `namespace`: its name (empty when anonymous; `a::b` for a nested
/// declaration) and the index of its `{`.
fn namespace_at(tokens: &[Located], start: usize) -> Option<(String, usize)> {
    let mut name = String::new();
    for (offset, (token, _)) in tokens[start..].iter().enumerate() {
        match token {
            Token::Ident(part) => name.push_str(part),
            Token::Punct(':') => name.push(':'),
            Token::Punct('{') => return Some((name, start + offset)),
            _ => return None,
        }
    }
    None
}

/// The kernel and template arguments of an explicit instantiation whose
/// tokens follow `template` from `start` (`__global__ void sgemm_v2<32>(int
/// M, …);` gives `sgemm_v2` and `32`); `None` for anything else.
fn explicit_instance(tokens: &[Located], start: usize) -> Option<(String, String)> {
    let mut kernel = false;
    for k in start..tokens.len() {
        match &tokens[k].0 {
            Token::Ident(word) if word == "__global__" => kernel = true,
            Token::Ident(name) if kernel && is(tokens, k + 1, '<') => {
                let (arguments, end) = template_at(tokens, k + 1)?;
                return is(tokens, end, '(').then(|| (name.clone(), arguments));
            }
            Token::Punct(';' | '{' | '}' | '(') => return None,
            _ => {}
        }
    }
    None
}

/// Type parameters by name, each with the type chosen for it.
pub(crate) type TypeChoices = Vec<(String, String)>;

/// The name of the function whose body opens with the `{` at `open`
/// (`void runTest(int deviceId, int nMB) {`, a `const` member too), or
/// `None` where the brace opens something else.
fn defined_function_before(tokens: &[Located], open: usize) -> Option<String> {
    let mut close = open.checked_sub(1)?;
    if matches!(&tokens[close].0, Token::Ident(word) if word == "const") {
        close = close.checked_sub(1)?;
    }
    let at = group_start(tokens, close).filter(|_| is(tokens, close, ')'))?;
    match &tokens[at.checked_sub(1)?].0 {
        Token::Ident(name) if !CONTROL_WORDS.contains(&name.as_str()) => Some(name.clone()),
        _ => None,
    }
}

/// The scalar types a call of the host function template `name` outside
/// its own `body` gives its type parameters (`runTest<float>(…)` with
/// `template <typename T>`: `[(T, float)]`): the first call's, or of
/// several that differ the one of floats; `None` where no call names them
/// or a type is no scalar gpuprof sizes.
fn types_of_first_call(
    tokens: &[Located],
    name: &str,
    parameters: &str,
    body: Range<usize>,
) -> Option<TypeChoices> {
    let names = signature::type_parameter_names(parameters);
    let kinds = signature::type_parameters(parameters);
    let calls: Vec<TypeChoices> = (0..tokens.len())
        .filter(|k| !body.contains(k))
        .filter(|&k| matches!(&tokens[k].0, Token::Ident(word) if word == name))
        .filter_map(|k| {
            let (arguments, end) = template_at(tokens, k + 1)?;
            is(tokens, end, '(').then_some(())?;
            let arguments = split_top_level(&arguments, true);
            let types: Vec<String> = arguments
                .iter()
                .zip(&kinds)
                .filter(|(_, is_type)| **is_type)
                .map(|(argument, _)| argument.clone())
                .collect();
            let pairs: Vec<(String, String)> = names.iter().cloned().zip(types).collect();
            (!pairs.is_empty()
                && pairs
                    .iter()
                    .all(|(_, chosen)| signature::size_of(chosen, &[]).is_some()))
            .then_some(pairs)
        })
        .collect();
    // Called with several (`runTest<double>` where a flag asks for it,
    // else `runTest<float>`), the one of floats where there is one: the
    // type gpuprof takes where nothing fixes it.
    let floats = calls
        .iter()
        .find(|pairs| pairs.iter().all(|(_, chosen)| chosen == "float"));
    floats.or(calls.first()).cloned()
}

/// After `template`: the parameter list between `<` and its `>`, as
/// written with runs of whitespace made one space, and the index after `>`.
fn template_at(tokens: &[Located], start: usize) -> Option<(String, usize)> {
    let (Token::Punct('<'), _) = tokens.get(start)? else {
        return None;
    };
    let mut depth = 0usize;
    for (offset, (token, _)) in tokens[start..].iter().enumerate() {
        match token {
            Token::Punct('<') => depth += 1,
            Token::Punct('>') => {
                depth -= 1;
                if depth == 0 {
                    let close = start + offset;
                    return Some((text_of(&tokens[start + 1..close]), close + 1));
                }
            }
            Token::Punct(';' | '{' | '}') => return None,
            _ => {}
        }
    }
    None
}

/// `<<<` at `i`, not part of a shift or a template: three `<` in a row,
/// adjacent or apart by whitespace only (`<< <`, as Visual Studio formats
/// a launch; nvcc reads it as `<<<`, and C++ has no other meaning for it).
fn is_launch(tokens: &[Located], chars: &[char], i: usize) -> bool {
    triple(tokens, chars, i, '<')
}

/// Whether tokens `i`, `i + 1` and `i + 2` are each `c`, with nothing but
/// whitespace between them.
fn triple(tokens: &[Located], chars: &[char], i: usize, c: char) -> bool {
    (0..3).all(|k| is(tokens, i + k, c))
        && (1..3).all(|k| {
            chars[tokens[i + k - 1].1 + 1..tokens[i + k].1]
                .iter()
                .all(|c| c.is_whitespace())
        })
}

/// The first `#include <…>` of a header NVRTC cannot compile, as the reason
/// the file needs nvcc.
fn host_header(directives: &[String]) -> Option<String> {
    directives.iter().find_map(|d| {
        let rest = d.strip_prefix("include")?.trim();
        let header = rest.strip_prefix('<')?.split('>').next()?.trim();
        let device = DEVICE_HEADERS.iter().any(|h| header.starts_with(h));
        (!device).then(|| format!("it includes the host header <{header}>"))
    })
}

/// The text between the `(` at token `open` and its `)`, without comments
/// and with runs of whitespace made one space.
fn parameters_at(tokens: &[Located], open: usize) -> String {
    let end = skip_group(tokens, open);
    match end > open + 1 {
        true => text_of(&tokens[open + 1..end - 1]),
        false => String::new(),
    }
}

/// The names of the parameters in the list whose `(` is at `open`, in
/// order ([`signature::declared_name`]; `None` for an unnamed one).
fn parameter_names(tokens: &[Located], open: usize) -> Vec<Option<String>> {
    let written = parameters_at(tokens, open);
    match written.trim().is_empty() {
        true => Vec::new(),
        false => split_top_level(&written, true)
            .iter()
            .map(|parameter| super::signature::declared_name(parameter))
            .collect(),
    }
}

/// The source text of `tokens`: one space wherever the source had
/// whitespace or a comment between two of them (none before a comma or a
/// closing bracket).
fn text_of(tokens: &[Located]) -> String {
    let mut text = String::new();
    let mut previous_end: Option<usize> = None;
    for (token, at) in tokens {
        let (piece, length) = match token {
            Token::Ident(word) => (word.clone(), Some(word.chars().count())),
            Token::Punct(c) => (c.to_string(), Some(1)),
            Token::Str(literal) => (format!("{literal:?}"), None),
        };
        let closes = matches!(token, Token::Punct(',' | ')' | ']'));
        if previous_end.is_some_and(|end| end != *at) && !closes {
            text.push(' ');
        }
        text.push_str(&piece);
        previous_end = length.map(|length| at + length);
    }
    text
}

/// The launch whose `<<<` starts at token `at`: the callee written before
/// it and the configuration up to `>>>`, split at its top-level commas.
fn launch_at(tokens: &[Located], chars: &[char], at: usize) -> Option<Launch> {
    let mut start = at.checked_sub(1)?;
    if tokens[start].0 == Token::Punct('>') {
        let mut depth = 0usize;
        loop {
            match tokens[start].0 {
                Token::Punct('>') => depth += 1,
                Token::Punct('<') => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
            start = start.checked_sub(1)?;
        }
        start = start.checked_sub(1)?;
    }
    while start >= 2
        && tokens[start - 1].0 == Token::Punct(':')
        && tokens[start - 2].0 == Token::Punct(':')
    {
        start = start.checked_sub(3)?;
    }
    let Token::Ident(_) = tokens[start].0 else {
        return None;
    };
    let callee: String = chars[tokens[start].1..tokens[at].1].iter().collect();
    // The first `>>>` (or `>> >`) outside brackets: one inside parentheses
    // closes templates (`sizeof(A<B<C<int> > >)`).
    let mut close = at + 3;
    loop {
        match tokens.get(close)?.0 {
            Token::Punct('(' | '[' | '{') => {
                close = group_end(tokens, close);
                continue;
            }
            Token::Punct('>') if triple(tokens, chars, close, '>') => break,
            Token::Punct(';') => return None,
            _ => {}
        }
        close += 1;
    }
    let inside: String = chars[tokens[at + 2].1 + 1..tokens[close].1]
        .iter()
        .collect();
    let arguments = match tokens.get(close + 3) {
        Some((Token::Punct('('), _)) => split_top_level(&parameters_at(tokens, close + 3), false),
        _ => Vec::new(),
    };
    Some(Launch {
        callee: callee.split_whitespace().collect(),
        config: split_top_level(&inside, false),
        arguments,
        at: tokens[at].1,
    })
}

/// The source text between the braces of a definition whose parameter list
/// ends before token `after`; `None` for a declaration (a `;` first).
fn body_after(tokens: &[Located], chars: &[char], after: usize) -> Option<String> {
    let Range { start: open, end } = body_tokens(tokens, after)?;
    let to = match end > open + 1 && end <= tokens.len() {
        true => tokens[end - 1].1,
        false => chars.len(),
    };
    Some(
        chars[tokens[open].1 + 1..to.max(tokens[open].1 + 1)]
            .iter()
            .collect(),
    )
}

/// The tokens of the function body that follows token `after` (its
/// parameter list's end), from its `{` to past its `}`: `None` for a
/// declaration (a `;` first).
fn body_tokens(tokens: &[Located], after: usize) -> Option<Range<usize>> {
    let open = (after..tokens.len())
        .take_while(|&k| !matches!(tokens[k].0, Token::Punct(';' | '}' | '=' | ',')))
        .find(|&k| tokens[k].0 == Token::Punct('{'))?;
    Some(open..group_end(tokens, open))
}

/// The bracket that closes `open`, and the one that opens `close`.
fn partner(c: char) -> Option<char> {
    match c {
        '(' => Some(')'),
        '[' => Some(']'),
        '{' => Some('}'),
        ')' => Some('('),
        ']' => Some('['),
        '}' => Some('{'),
        _ => None,
    }
}

/// Index after the group that the bracket at `open` (`(`, `[` or `{`)
/// opens; the length when it never closes; `open` when no group starts
/// there.
pub(crate) fn group_end(tokens: &[Located], open: usize) -> usize {
    let Some((Token::Punct(c @ ('(' | '[' | '{')), _)) = tokens.get(open) else {
        return open;
    };
    let close = partner(*c).unwrap_or(*c);
    let mut depth = 0usize;
    for (offset, (token, _)) in tokens[open..].iter().enumerate() {
        match token {
            Token::Punct(t) if t == c => depth += 1,
            Token::Punct(t) if *t == close => {
                depth -= 1;
                if depth == 0 {
                    return open + offset + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// Index of the bracket that opens the group closed at `close`.
fn group_start(tokens: &[Located], close: usize) -> Option<usize> {
    let Some((Token::Punct(c @ (')' | ']' | '}')), _)) = tokens.get(close) else {
        return None;
    };
    let open = partner(*c)?;
    let mut depth = 0usize;
    for k in (0..=close).rev() {
        match tokens[k].0 {
            Token::Punct(t) if t == *c => depth += 1,
            Token::Punct(t) if t == open => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The text inside the group that the bracket at `open` opens.
fn inner_text(tokens: &[Located], open: usize) -> String {
    let end = group_end(tokens, open);
    match end > open + 1 {
        true => text_of(&tokens[open + 1..end - 1]),
        false => String::new(),
    }
}

/// Whether token `k` is the punctuation `c`.
fn is(tokens: &[Located], k: usize, c: char) -> bool {
    matches!(tokens.get(k), Some((Token::Punct(p), _)) if *p == c)
}

/// Whether token `k` is the punctuation `c` written right after token `k - 1`.
fn joined(tokens: &[Located], k: usize, c: char) -> bool {
    k > 0 && is(tokens, k, c) && tokens[k].1 == tokens[k - 1].1 + 1
}

/// The tokens from `start` up to the first `,` or `;` outside brackets, as
/// text, and the index of that `,` or `;`.
fn expression_at(tokens: &[Located], start: usize) -> (String, usize) {
    let mut k = start;
    while k < tokens.len() {
        match tokens[k].0 {
            Token::Punct('(' | '[' | '{') => {
                k = group_end(tokens, k);
                continue;
            }
            Token::Punct(',' | ';' | ')' | ']' | '}') => break,
            _ => {}
        }
        k += 1;
    }
    (text_of(&tokens[start..k.min(tokens.len())]), k)
}

/// `std::vector<float> h(n, 1.0f);`, `vector<pair<int, int>> v(n)`,
/// thrust's `device_vector<float> d(n)` and `host_vector`: each vector
/// declared with a count, with the count as written.
fn vector_declarations(tokens: &[Located]) -> Vec<(String, String)> {
    const VECTORS: [&str; 3] = ["vector", "device_vector", "host_vector"];
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        if !matches!(&tokens[i].0, Token::Ident(w) if VECTORS.contains(&w.as_str())) {
            continue;
        }
        // Past the element type's `<…>`, nested ones too.
        let Some((_, mut k)) = template_at(tokens, i + 1) else {
            continue;
        };
        // Each declarator, `h(n, 1.0f), g(n)`.
        while let (Some((Token::Ident(name), _)), Some((Token::Punct('('), _))) =
            (tokens.get(k), tokens.get(k + 1))
        {
            let end = group_end(tokens, k + 1);
            // Not a copy of a range (`copy(h.begin(), h.end())`), nor a
            // function returning a vector (`make(int n) {`, `make(int n);`).
            let function = matches!(tokens.get(end), Some((Token::Punct('{'), _)))
                || matches!(tokens.get(k + 2), Some((Token::Ident(w), _)) if is_scalar_type(w) || w == "const");
            if let Some(count) = split_top_level(&inner_text(tokens, k + 1), false)
                .into_iter()
                .next()
                .filter(|count| !count.is_empty() && !count.contains("begin") && !function)
            {
                found.push((name.clone(), count));
            }
            k = end;
            match tokens.get(k) {
                Some((Token::Punct(','), _)) => k += 1,
                _ => break,
            }
        }
    }
    found
}

/// `dim3 grid(a, b), threads(c, d);`, `dim3 g = dim3(a, b);`,
/// `dim3 g{a, b};` and `dim3 g = n;`: each variable with its expressions.
fn dim3_declarations(tokens: &[Located]) -> Vec<Dim3> {
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        if !matches!(&tokens[i].0, Token::Ident(w) if w == "dim3") {
            continue;
        }
        let mut k = i + 1;
        while let Some((Token::Ident(name), at)) = tokens.get(k) {
            let (values, next) = match tokens.get(k + 1).map(|t| &t.0) {
                Some(Token::Punct('(' | '{')) => (
                    split_top_level(&inner_text(tokens, k + 1), false),
                    group_end(tokens, k + 1),
                ),
                Some(Token::Punct('=')) => {
                    let value = k + 2;
                    let braced = match tokens.get(value).map(|t| &t.0) {
                        Some(Token::Ident(w)) if w == "dim3" => Some(value + 1),
                        Some(Token::Punct('{')) => Some(value),
                        _ => None,
                    };
                    match braced.filter(|&open| {
                        matches!(tokens.get(open), Some((Token::Punct('(' | '{'), _)))
                    }) {
                        Some(open) => (
                            split_top_level(&inner_text(tokens, open), false),
                            group_end(tokens, open),
                        ),
                        None => {
                            let (text, end) = expression_at(tokens, value);
                            (vec![text], end)
                        }
                    }
                }
                _ => (Vec::new(), k + 1),
            };
            if !values.is_empty() {
                found.push(Dim3 {
                    name: name.clone(),
                    values,
                    at: *at,
                });
            }
            match tokens.get(next) {
                Some((Token::Punct(','), _)) => k = next + 1,
                _ => break,
            }
        }
    }
    found
}

/// Whether the `=` at token `k` assigns (not `==`, `<=`, `+=` …).
fn plain_assignment(tokens: &[Located], k: usize) -> bool {
    is(tokens, k, '=')
        && !joined(tokens, k + 1, '=')
        && !(k > 0
            && tokens[k - 1].1 + 1 == tokens[k].1
            && matches!(tokens[k - 1].0, Token::Punct(c) if "=!<>+-*/%&|^".contains(c)))
}

/// `kernel = &copy;`, `kernel = copy;` and `void (*kernel)(float *) =
/// &copy;`: the variable and the (possibly qualified) name given it.
fn function_assignments(tokens: &[Located]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for i in 1..tokens.len() {
        if !plain_assignment(tokens, i) {
            continue;
        }
        let mut k = i + 1;
        if is(tokens, k, '&') {
            k += 1;
        }
        let mut value = String::new();
        while let Some((Token::Ident(part), _)) = tokens.get(k) {
            value.push_str(part);
            if is(tokens, k + 1, ':') && is(tokens, k + 2, ':') {
                value.push_str("::");
                k += 3;
            } else {
                k += 1;
                break;
            }
        }
        if value.is_empty() || value.ends_with(':') || !is(tokens, k, ';') {
            continue;
        }
        let variable = match &tokens[i - 1].0 {
            Token::Ident(name) => Some(name.clone()),
            // `(*name)(…) =`: the declarator of a function pointer.
            Token::Punct(')') => group_start(tokens, i - 1)
                .and_then(|open| open.checked_sub(1))
                .filter(|&close| is(tokens, close, ')'))
                .and_then(|close| group_start(tokens, close))
                .filter(|&open| is(tokens, open + 1, '*'))
                .and_then(|open| match &tokens.get(open + 2)?.0 {
                    Token::Ident(name) if is(tokens, open + 3, ')') => Some(name.clone()),
                    _ => None,
                }),
            _ => None,
        };
        if let Some(variable) = variable {
            found.push((variable, value));
        }
    }
    found
}

/// The type word right before a floating-point variable's name.
const FLOAT_WORDS: [&str; 2] = ["float", "double"];

/// The type word right before an integer variable's name.
const INTEGER_WORDS: [&str; 11] = [
    "int", "unsigned", "signed", "long", "short", "size_t", "int32_t", "int64_t", "uint32_t",
    "uint64_t", "uint",
];

/// The `#define`s of `source` that no `#ifndef NAME` (or `#if
/// !defined(NAME)`) around them guards, by name with the line of the first,
/// in source order; then the names every `#define` of which such a guard
/// holds. An `#else` of a guard is no guard: its branch is the one taken
/// when the name is defined.
fn defines_by_guard(source: &str) -> (Vec<(String, usize)>, Vec<String>) {
    let mut found: Vec<(String, usize)> = Vec::new();
    let mut guarded: Vec<String> = Vec::new();
    // For each open conditional, the name it guards (when it does).
    let mut open: Vec<Option<String>> = Vec::new();
    let mut continued = false;
    for (index, line) in source.lines().enumerate() {
        let is_directive = !continued && line.trim_start().starts_with('#');
        continued = line.trim_end().ends_with('\\');
        if !is_directive {
            continue;
        }
        let directive = line.trim_start()[1..].trim_start();
        let (keyword, rest) = directive
            .split_once(|c: char| c.is_whitespace() || c == '(' || c == '!')
            .map_or((directive, ""), |(k, _)| (k, directive[k.len()..].trim()));
        let first_word = |text: &str| -> String {
            text.trim_start_matches(|c: char| !(c.is_alphanumeric() || c == '_'))
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        };
        match keyword {
            "ifndef" => open.push(Some(first_word(rest))),
            "if" => open.push(
                rest.strip_prefix('!')
                    .map(str::trim_start)
                    .and_then(|r| r.strip_prefix("defined"))
                    .map(first_word),
            ),
            "ifdef" => open.push(None),
            "else" | "elif" | "elifdef" | "elifndef" => {
                if let Some(top) = open.last_mut() {
                    *top = None;
                }
            }
            "endif" => {
                open.pop();
            }
            "define" => {
                let name = first_word(rest);
                if name.is_empty() {
                    continue;
                }
                match open.iter().flatten().any(|guard| *guard == name) {
                    true if !guarded.contains(&name) => guarded.push(name),
                    true => {}
                    false if !found.iter().any(|(n, _)| *n == name) => {
                        found.push((name, index + 1))
                    }
                    false => {}
                }
            }
            _ => {}
        }
    }
    guarded.retain(|name| !found.iter().any(|(n, _)| n == name));
    (found, guarded)
}

/// The `__constant__` and `__device__` variables declared at any scope:
/// the qualifier, type words, a name, an optional `[length]`, then `;`,
/// `=` or `,` (a `__device__` function, with `(` after its name, is none).
fn module_variables(tokens: &[Located]) -> Vec<ModuleVariable> {
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        let (Token::Ident(word), _) = &tokens[i] else {
            continue;
        };
        if word != "__constant__" && word != "__device__" {
            continue;
        }
        let mut words: Vec<&str> = Vec::new();
        let mut k = i + 1;
        while let Some((Token::Ident(w), _)) = tokens.get(k) {
            words.push(w);
            k += 1;
        }
        let Some((name, type_words)) = words.split_last() else {
            continue;
        };
        let type_words: Vec<&str> = type_words
            .iter()
            .copied()
            .filter(|w| {
                !matches!(
                    *w,
                    "static" | "const" | "volatile" | "__device__" | "__constant__" | "extern"
                )
            })
            .collect();
        let length = match tokens.get(k) {
            Some((Token::Punct('['), _)) => {
                let close = group_end(tokens, k);
                let text = text_of(&tokens[k + 1..close.saturating_sub(1).max(k + 1)]);
                k = close;
                Some(text)
            }
            _ => None,
        };
        let ends = matches!(tokens.get(k), Some((Token::Punct(';' | '=' | ','), _)));
        if ends && !type_words.is_empty() && !found.iter().any(|v: &ModuleVariable| v.name == *name)
        {
            found.push(ModuleVariable {
                name: name.to_string(),
                element: type_words.join(" "),
                length,
            });
        }
    }
    found
}

/// Every `typedef TYPE NAME;`, `using NAME = TYPE;` and object-like
/// `#define NAME TEXT` of the file, as `(NAME, TYPE or TEXT)`: the
/// directives first, then the declarations, each in source order, then
/// the structs of one scalar type ([`struct_aliases`]). Function pointer
/// typedefs are left out.
fn alias_declarations(tokens: &[Located], directives: &[String]) -> Vec<(String, String)> {
    let defines =
        object_like_defines(directives).map(|(name, text)| (name.to_string(), text.to_string()));
    let declared = (0..tokens.len()).filter_map(|i| {
        let word = match &tokens[i].0 {
            Token::Ident(word) if word == "typedef" || word == "using" => word,
            _ => return None,
        };
        let end = i + tokens[i..]
            .iter()
            .position(|(t, _)| matches!(t, Token::Punct(';' | '{' | '}' | '(')))?;
        if !matches!(tokens[end].0, Token::Punct(';')) {
            return None;
        }
        match word.as_str() {
            "typedef" => match &tokens[end - 1].0 {
                Token::Ident(name) if end >= i + 3 => {
                    Some((name.clone(), text_of(&tokens[i + 1..end - 1])))
                }
                _ => None,
            },
            _ => match (&tokens.get(i + 1)?.0, &tokens.get(i + 2)?.0) {
                (Token::Ident(name), Token::Punct('=')) if end > i + 3 => {
                    Some((name.clone(), text_of(&tokens[i + 3..end])))
                }
                _ => None,
            },
        }
    });
    defines
        .chain(declared)
        .chain(struct_aliases(tokens))
        .collect()
}

/// The structs whose data members are one to four scalars of one type
/// (`typedef struct { float x, y, z; } Vec3;`, `struct Pair { int a; int
/// b; };`, a complex number of two `half`s with its constructor and
/// operators), each named (its tag and its typedef name) with the CUDA
/// vector type of the same components (`float3`, `half2`; the scalar
/// itself for one member): a pointer to one is a buffer of that scalar,
/// so many to an element. Member functions and static members do not
/// change the layout; a struct with anything else among its data
/// (arrays, pointers, mixed types, an `__align__`, a virtual function) is
/// left out.
fn struct_aliases(tokens: &[Located]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        if !matches!(&tokens[i].0, Token::Ident(w) if w == "struct") {
            continue;
        }
        let (tag, open) = match (tokens.get(i + 1), tokens.get(i + 2)) {
            (Some((Token::Ident(tag), _)), Some((Token::Punct('{'), _))) => (Some(tag), i + 2),
            (Some((Token::Punct('{'), _)), _) => (None, i + 1),
            _ => continue,
        };
        // The `}` that closes it (none in a file cut short).
        let close = group_end(tokens, open) - 1;
        if group_start(tokens, close) != Some(open) {
            continue;
        }
        let Some(vector) = data_members(&tokens[open + 1..close])
            .and_then(|members| homogeneous_members(&members))
        else {
            continue;
        };
        let typedef_name = match (tokens.get(close + 1), tokens.get(close + 2)) {
            (Some((Token::Ident(name), _)), Some((Token::Punct(';'), _)))
                if i > 0 && matches!(&tokens[i - 1].0, Token::Ident(w) if w == "typedef") =>
            {
                Some(name)
            }
            _ => None,
        };
        for name in tag.into_iter().chain(typedef_name) {
            found.push((name.clone(), vector.clone()));
        }
    }
    found
}

/// The declarations of a struct's data members among `body`, the tokens
/// between its braces, each with its `;`: member functions (with their
/// bodies), static members and access specifiers left out. `None` for a
/// struct with a virtual function (its objects hold a hidden pointer).
fn data_members(body: &[Located]) -> Option<Vec<Located>> {
    let word = |k: usize, w: &str| matches!(body.get(k), Some((Token::Ident(x), _)) if x == w);
    if (0..body.len()).any(|k| word(k, "virtual")) {
        return None;
    }
    let mut kept = Vec::new();
    let mut declaration: Vec<Located> = Vec::new();
    let mut k = 0;
    while k < body.len() {
        let token = &body[k];
        match token.0 {
            // `public:`, `private:`, `protected:`.
            Token::Ident(ref w)
                if matches!(w.as_str(), "public" | "private" | "protected")
                    && is(body, k + 1, ':') =>
            {
                k += 2;
                continue;
            }
            // A member function's body ends its declaration.
            Token::Punct('{') => {
                declaration.clear();
                k = group_end(body, k);
                continue;
            }
            Token::Punct(';') => {
                let function = declaration
                    .iter()
                    .any(|(t, _)| matches!(t, Token::Punct('(')));
                let is_static = declaration
                    .iter()
                    .any(|(t, _)| matches!(t, Token::Ident(w) if w == "static"));
                if !function && !is_static && !declaration.is_empty() {
                    kept.append(&mut declaration);
                    kept.push(token.clone());
                }
                declaration.clear();
            }
            _ => declaration.push(token.clone()),
        }
        k += 1;
    }
    Some(kept)
}

/// The CUDA vector type (or scalar, for one member) that `members`, the
/// tokens between a struct's braces, lay out: one to four names of one
/// scalar type, in one declaration or several.
fn homogeneous_members(members: &[Located]) -> Option<String> {
    let mut type_words: Option<Vec<String>> = None;
    let mut lanes = 0;
    for declaration in members.split(|(t, _)| matches!(t, Token::Punct(';'))) {
        if declaration.is_empty() {
            continue;
        }
        let words: Vec<&str> = declaration
            .iter()
            .map(|(t, _)| match t {
                Token::Ident(w) => Some(w.as_str()),
                Token::Punct(',') => Some(","),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let first_name = words.iter().position(|w| *w == ",").unwrap_or(words.len()) - 1;
        let (written, names) = words.split_at(first_name);
        // `float x, y, z`: names apart from commas, one by one.
        let names_ok = names
            .iter()
            .enumerate()
            .all(|(k, w)| (k % 2 == 1) == (*w == ","));
        if written.is_empty() || !names_ok || names.len() % 2 == 0 {
            return None;
        }
        let written: Vec<String> = written.iter().map(|w| w.to_string()).collect();
        match &type_words {
            Some(known) if *known != written => return None,
            _ => type_words = Some(written),
        }
        lanes += names.len().div_ceil(2);
    }
    let written = type_words?.join(" ");
    let base = match written.as_str() {
        "float" | "double" | "int" | "short" | "char" => written.clone(),
        // Two halves are a `half2`; there is no `half3` or `half4`.
        "half" | "__half" if lanes == 2 => "half".into(),
        "__nv_bfloat16" | "nv_bfloat16" if lanes == 2 => "__nv_bfloat16".into(),
        "unsigned" | "unsigned int" => "uint".into(),
        "unsigned short" => "ushort".into(),
        "unsigned char" => "uchar".into(),
        "long long" => "longlong".into(),
        "unsigned long long" => "ulonglong".into(),
        _ => return None,
    };
    match lanes {
        1 => Some(written),
        2..=4 => Some(format!("{base}{lanes}")),
        _ => None,
    }
}

/// The arguments of allocation calls (a function whose name holds `alloc`,
/// any case) and the sizes of `new T[…]`, in source order.
fn allocations(tokens: &[Located]) -> Vec<String> {
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        let Token::Ident(word) = &tokens[i].0 else {
            continue;
        };
        if word.to_ascii_lowercase().contains("alloc") && is(tokens, i + 1, '(') {
            found.push(inner_text(tokens, i + 1));
        } else if word == "new" {
            let mut k = i + 1;
            while matches!(tokens.get(k), Some((Token::Ident(_), _))) || is(tokens, k, ':') {
                k += 1;
            }
            if is(tokens, k, '[') && k > i + 1 {
                found.push(inner_text(tokens, k));
            }
        }
    }
    found
}

/// The variables whose address the host code hands to CUDA's occupancy
/// calculator (`cudaOccupancyMaxPotentialBlockSize(&minGridSize,
/// &blockSize, kernel, 0, n)`), with the function's name.
fn chosen_at_run_time(tokens: &[Located]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        let Token::Ident(function) = &tokens[i].0 else {
            continue;
        };
        if !function.starts_with("cudaOccupancy") || !is(tokens, i + 1, '(') {
            continue;
        }
        for part in top_level_parts(tokens, i + 1) {
            if let [(Token::Punct('&'), _), (Token::Ident(name), _)] = part {
                found.push((name.clone(), function.clone()));
            }
        }
    }
    found
}

/// `int blocks = (n + 255) / 256;`: variables of the host code declared
/// with one of the types `words` and their initializers, with the
/// character offset of each. Those inside `device` (the token ranges of
/// device functions' bodies) are the GPU's own (a kernel's `for (int
/// stride = 1; …)`), never what the host passes.
fn declared_initializers(
    tokens: &[Located],
    device: &[Range<usize>],
    words: &[&str],
) -> Vec<((String, String), usize)> {
    let mut found = Vec::new();
    for i in 1..tokens.len() {
        let Token::Ident(name) = &tokens[i].0 else {
            continue;
        };
        if device.iter().any(|body| body.contains(&i)) || !plain_assignment(tokens, i + 1) {
            continue;
        }
        // `int n = …`, or a later declarator of one (`size_t sA = (size_t)M
        // * K, sB = (size_t)K * N;`).
        let declared = match &tokens[i - 1].0 {
            Token::Ident(before) => words.contains(&before.as_str()),
            Token::Punct(',') => declares(tokens, statement_start(tokens, i), words),
            _ => false,
        };
        if !declared {
            continue;
        }
        let (text, end) = expression_at(tokens, i + 2);
        if (is(tokens, end, ';') || is(tokens, end, ',')) && !text.is_empty() {
            found.push(((name.clone(), text), tokens[i].1));
        }
    }
    found
}

/// The integer members a `struct` or `class` of `tokens` gives a default
/// (`struct Options { int size = 1 << 12; };`), by name with the default
/// as written: a configuration whose fields the command line may
/// override, read where the host sizes its problem (`options.size`).
fn member_defaults(tokens: &[Located]) -> Vec<(String, String)> {
    // Each type's body, and the bodies of its member functions within it.
    let (mut bodies, mut functions): (Vec<Range<usize>>, Vec<Range<usize>>) = (vec![], vec![]);
    for k in 0..tokens.len() {
        let opens_a_type = matches!(&tokens[k].0, Token::Ident(w) if w == "struct" || w == "class")
            && matches!(tokens.get(k + 1), Some((Token::Ident(_), _)));
        if !opens_a_type {
            continue;
        }
        // `struct Name {` or `struct Name : Base {`, not `struct Name x;`.
        let Some(open) = (k + 2..tokens.len())
            .take_while(|&j| !is(tokens, j, ';') && !is(tokens, j, '('))
            .find(|&j| is(tokens, j, '{'))
        else {
            continue;
        };
        let end = group_end(tokens, open);
        let mut inner = open + 1;
        while inner < end {
            match is(tokens, inner, '{') {
                true => {
                    let closed = group_end(tokens, inner);
                    functions.push(inner..closed);
                    inner = closed;
                }
                false => inner += 1,
            }
        }
        bodies.push(open..end);
    }
    declared_initializers(tokens, &functions, &INTEGER_WORDS)
        .into_iter()
        .filter(|(_, at)| {
            let k = tokens.iter().position(|(_, offset)| offset == at);
            k.is_some_and(|k| bodies.iter().any(|body| body.contains(&k)))
        })
        .map(|(declared, _)| declared)
        // A member that starts at 0 (`int rows = 0;`) is one the program
        // fills in, not a size it runs at.
        .filter(|(_, default)| {
            let digits = default.trim().trim_end_matches(['u', 'U', 'l', 'L']);
            !(digits == "0" || digits.starts_with('-'))
        })
        .collect()
}

impl Kernels {
    /// Gives each member of a configuration that the host's initializers
    /// read (`const int size = options.size;`, `std::max(256, cfg->n)`) the
    /// default `defaults` give it (a scan's `member_defaults`), as an initializer
    /// of the member's whole name (`options.size`, read as one word by
    /// `init`'s `member_read`): the program runs at it unless its command line
    /// says otherwise, as it runs at `4096` of `argc > 1 ? atoi(argv[1]) :
    /// 4096`. A member that two types default differently stays unknown.
    pub(crate) fn read_members_at_their_defaults(&mut self, defaults: &[(String, String)]) {
        static MEMBER: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"\b([A-Za-z_]\w*)\s*(\.|->)\s*([A-Za-z_]\w*)\b(\s*\()?")
                .expect("a valid pattern")
        });
        let default_of = |member: &str| {
            let mut given = defaults.iter().filter(|(name, _)| name == member);
            let (_, first) = given.next()?;
            given
                .all(|(_, other)| other == first)
                .then(|| first.clone())
        };
        let mut read: Vec<(String, String)> = Vec::new();
        for (_, initial) in &self.initializers {
            for found in MEMBER.captures_iter(initial) {
                let whole = format!("{}{}{}", &found[1], &found[2], &found[3]);
                if found.get(4).is_none()
                    && !read.iter().any(|(name, _)| *name == whole)
                    && let Some(default) = default_of(&found[3])
                {
                    read.push((whole, default));
                }
            }
        }
        self.initializers_at
            .extend(std::iter::repeat_n(0, read.len()));
        self.initializers.extend(read);
    }
}

/// Whether the statement from token `start` declares variables of one of
/// the types `words`, its first declarator initialized: `const size_t sA
/// = …`, `int a = 1`.
fn declares(tokens: &[Located], start: usize, words: &[&str]) -> bool {
    let Some(assigned) = (start..tokens.len())
        .take_while(|&k| !is(tokens, k, ';'))
        .find(|&k| plain_assignment(tokens, k))
    else {
        return false;
    };
    let declared_type = &tokens[start..assigned.saturating_sub(1)];
    !declared_type.is_empty()
        && declared_type
            .iter()
            .all(|(token, _)| matches!(token, Token::Ident(_) | Token::Punct(':')))
        && declared_type
            .iter()
            .any(|(token, _)| matches!(token, Token::Ident(w) if words.contains(&w.as_str())))
}

/// `float *in, *out;`, `const half* x = …`, `void run(double *d)`: each
/// pointer declared outside device code, with the type it points to (its
/// words before the first `*`, `const` left out).
fn host_pointers(tokens: &[Located], device: &[Range<usize>]) -> Vec<(String, String)> {
    let type_before = |end: usize| -> Option<String> {
        let mut start = end;
        while start > 0 && matches!(tokens[start - 1].0, Token::Ident(_)) {
            start -= 1;
        }
        let words: Vec<&str> = tokens[start..end]
            .iter()
            .filter_map(|(token, _)| match token {
                Token::Ident(w) if !matches!(w.as_str(), "const" | "static" | "volatile") => {
                    Some(w.as_str())
                }
                _ => None,
            })
            .collect();
        (!words.is_empty()).then(|| words.join(" "))
    };
    let mut found = Vec::new();
    for i in 1..tokens.len() {
        let Token::Ident(name) = &tokens[i].0 else {
            continue;
        };
        let declares = matches!(
            tokens.get(i + 1),
            Some((Token::Punct('=' | ',' | ';' | ')' | '['), _))
        );
        if !declares || !is(tokens, i - 1, '*') || device.iter().any(|b| b.contains(&i)) {
            continue;
        }
        let mut star = i - 1;
        while star > 0 && is(tokens, star - 1, '*') {
            star -= 1;
        }
        let pointee = match star.checked_sub(1).map(|k| &tokens[k].0) {
            Some(Token::Ident(_)) => type_before(star),
            // `float *in, *out`: the type that starts the declaration.
            Some(Token::Punct(',')) => {
                let start = statement_start(tokens, star);
                (start..star)
                    .find(|&k| is(tokens, k, '*'))
                    .filter(|&first_star| first_star > start)
                    .and_then(type_before)
            }
            _ => None,
        };
        if let Some(pointee) = pointee {
            found.push((name.clone(), pointee));
        }
    }
    found
}

/// Words that open a statement with a parenthesized head and a body
/// (`if (n > 0) {`), never a function's definition or call.
const CONTROL_WORDS: [&str; 6] = ["if", "while", "for", "switch", "catch", "return"];

/// `void run(float *d, int n) { … }` called as `run(d_a, size);`: each
/// parameter of a host function that `kind` names (an integer one, or a
/// pointer), with what the calls outside
/// device code pass it when they all pass the same (`("n", "size")`),
/// read as if the function began `int n = size;`, so that a launch inside
/// a wrapper is followed to the values its caller gives. A parameter its
/// calls pass under its own name (`run(d, n)` for `int n`) adds nothing:
/// the caller's variable is already the name's.
fn passed_to_host_parameters(
    tokens: &[Located],
    device: &[Range<usize>],
    kind: fn(&[Located]) -> Option<&str>,
) -> Vec<(String, String)> {
    host_parameters_as_called(tokens, device, kind)
        .into_iter()
        .filter_map(|(name, passed)| {
            let first = passed.first()?.clone();
            (first != name && passed.iter().all(|p| *p == first)).then_some((name, first))
        })
        .collect()
}

/// `float run(void (*kernel)(float *, int), …)` called as
/// `run(vectorAddNoUnroll, …)` and `run(vectorAddUnroll, …)`: each
/// function-pointer parameter of a host function with every name its
/// calls pass it, read as if the function began `kernel =
/// vectorAddNoUnroll;` (a launch of `kernel<<<…>>>` inside it launches
/// each kernel a call passes).
fn kernels_passed_to_host_parameters(
    tokens: &[Located],
    device: &[Range<usize>],
) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (name, passed) in host_parameters_as_called(tokens, device, function_pointer_parameter) {
        for value in passed {
            let value = value.trim().trim_start_matches('&').trim().to_string();
            let pair = (name.clone(), value);
            if is_identifier(&pair.1) && !found.contains(&pair) {
                found.push(pair);
            }
        }
    }
    found
}

/// The name of a function-pointer parameter (`void (*kernel)(float *,
/// int)`).
fn function_pointer_parameter(parameter: &[Located]) -> Option<&str> {
    let open = parameter
        .iter()
        .position(|(token, _)| matches!(token, Token::Punct('(')))?;
    match (&parameter.get(open + 1)?.0, &parameter.get(open + 2)?.0) {
        (Token::Punct('*'), Token::Ident(name)) if is(parameter, open + 3, ')') => {
            Some(name.as_str())
        }
        _ => None,
    }
}

/// Each parameter of a host function that `kind` names, with what each
/// call outside device code passes it, in order, where every call passes
/// as many arguments as the function takes.
fn host_parameters_as_called(
    tokens: &[Located],
    device: &[Range<usize>],
    kind: fn(&[Located]) -> Option<&str>,
) -> Vec<(String, Vec<String>)> {
    let in_device = |k: usize| device.iter().any(|body| body.contains(&k));
    let mut found = Vec::new();
    for i in 1..tokens.len() {
        let Token::Ident(function) = &tokens[i].0 else {
            continue;
        };
        let close = group_end(tokens, i + 1);
        let defines = is(tokens, i + 1, '(')
            && is(tokens, close, '{')
            && !in_device(i)
            && match &tokens[i - 1].0 {
                Token::Ident(word) => !CONTROL_WORDS.contains(&word.as_str()),
                Token::Punct(c) => matches!(c, '*' | '&'),
                Token::Str(_) => false,
            };
        if !defines {
            continue;
        }
        let parameters = top_level_parts(tokens, i + 1);
        // A call in its own body (a recursion's `reduce(data, stride)`)
        // passes its own locals, not what its callers give it.
        let own_body = close..group_end(tokens, close);
        // A call's `(`: right after the name, or after the template
        // arguments of a function template's call (`run<float>(n)`).
        // (Not a kernel's launch, `name<<<…>>>(…)`.)
        let call_open = |k: usize| match is(tokens, k + 1, '(') {
            true => Some(k + 1),
            false if is(tokens, k + 2, '<') => None,
            false => template_at(tokens, k + 1)
                .map(|(_, end)| end)
                .filter(|&end| is(tokens, end, '(')),
        };
        let calls: Vec<Vec<String>> = (0..tokens.len())
            .filter(|&k| {
                k != i
                    && k > 0
                    && !own_body.contains(&k)
                    && matches!(&tokens[k].0, Token::Ident(word) if word == function)
                    && !in_device(k)
                    && match &tokens[k - 1].0 {
                        Token::Ident(word) => word == "return",
                        Token::Punct(c) => !matches!(c, '.' | '>' | ':' | '*' | '&'),
                        Token::Str(_) => false,
                    }
            })
            .filter_map(|k| {
                Some(
                    top_level_parts(tokens, call_open(k)?)
                        .into_iter()
                        .map(text_of)
                        .collect(),
                )
            })
            .collect();
        if calls.is_empty() || calls.iter().any(|call| call.len() != parameters.len()) {
            continue;
        }
        for (at, parameter) in parameters.iter().enumerate() {
            let Some(name) = kind(parameter) else {
                continue;
            };
            let passed = calls.iter().map(|call| call[at].clone()).collect();
            found.push((name.to_string(), passed));
        }
    }
    found
}

/// The tokens of each top-level comma-separated part inside the group
/// that the bracket at `open` opens (none for an empty group).
fn top_level_parts(tokens: &[Located], open: usize) -> Vec<&[Located]> {
    let end = group_end(tokens, open);
    let mut parts = Vec::new();
    let mut start = open + 1;
    let mut k = start;
    while k + 1 < end {
        match tokens[k].0 {
            Token::Punct('(' | '[' | '{') => {
                k = group_end(tokens, k);
                continue;
            }
            Token::Punct(',') => {
                parts.push(&tokens[start..k]);
                start = k + 1;
            }
            _ => {}
        }
        k += 1;
    }
    if end > open + 1 && start < end - 1 {
        parts.push(&tokens[start..end - 1]);
    }
    parts
}

/// The name of a parameter declared as a pointer (`float *d`, `const
/// half* __restrict__ x`).
fn pointer_parameter(parameter: &[Located]) -> Option<&str> {
    let star = parameter
        .iter()
        .position(|(token, _)| matches!(token, Token::Punct('*')))?;
    declared_name(parameter).filter(|_| star > 0)
}

/// The name of a parameter through which a function hands back what it
/// allocates: a pointer to a pointer (`float **d`) or a reference (`T
/// &ptr`, `float *&d`).
fn allocated_parameter(parameter: &[Located]) -> Option<&str> {
    let stars = parameter
        .iter()
        .filter(|(token, _)| matches!(token, Token::Punct('*')))
        .count();
    let reference = parameter
        .iter()
        .any(|(token, _)| matches!(token, Token::Punct('&')));
    declared_name(parameter).filter(|_| stars >= 2 || reference)
}

/// The name a parameter declares, its last word, where it has no default,
/// array bounds or parameter list (`int (*f)(int)`).
fn declared_name(parameter: &[Located]) -> Option<&str> {
    match parameter.last() {
        Some((Token::Ident(name), _))
            if !parameter
                .iter()
                .any(|(t, _)| matches!(t, Token::Punct('=' | '[' | '('))) =>
        {
            Some(name)
        }
        _ => None,
    }
}

/// `cudaMalloc(&d, bytes)`, `cudaMalloc((void **)&d, bytes)`,
/// `cudaMallocManaged(&d, bytes)`: each device allocation's variable and
/// its bytes as written, with the character offset of the call; in a helper handed a pointer to the pointer
/// (`cudaMalloc(d, bytes)`, `cudaMalloc((void **)d, bytes)`), the name
/// it is handed as.
fn device_allocations(tokens: &[Located]) -> Vec<((String, String), usize)> {
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        let Token::Ident(word) = &tokens[i].0 else {
            continue;
        };
        if !matches!(word.as_str(), "cudaMalloc" | "cudaMallocManaged") || !is(tokens, i + 1, '(') {
            continue;
        }
        let parts = top_level_parts(tokens, i + 1);
        let [target, bytes, ..] = parts.as_slice() else {
            continue;
        };
        // The variable whose address is taken: the name after the last
        // `&`; else the pointer to it a helper was handed, last.
        let name = match target
            .iter()
            .rposition(|(t, _)| matches!(t, Token::Punct('&')))
        {
            Some(amp) => target.get(amp + 1),
            None => target.last(),
        };
        if let Some((Token::Ident(name), _)) = name {
            found.push(((name.clone(), text_of(bytes)), tokens[i].1));
        }
    }
    found
}

/// A device buffer the host code fills with values drawn from a range
/// ([`Kernels::random_fills`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RandomFill {
    pub(crate) device: String,
    pub(crate) low: i64,
    /// Excluded.
    pub(crate) high: i64,
    pub(crate) written: String,
}

/// The device buffers `source` copies host arrays into
/// (`cudaMemcpy(d_in, h_in.data(), …)`) whose elements it draws from
/// `rand() % K` shifted by a constant (`h_in[i] = 'a' + rand() % 26;`,
/// `generate(begin(h_in), end(h_in), [] { return rand() % 10; })`, `for
/// (auto &x : h_in) x = rand() % 10;`), K and the shift a number, a
/// character or one of the file's `integers`.
fn random_fills(source: &str, integers: &[(String, i64)]) -> Vec<RandomFill> {
    static COPY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bcudaMemcpy(?:Async)?\s*\(\s*(?:\([^()]*\)\s*)?(\w+)\s*,\s*(?:\([^()]*\)\s*)?&?\s*(\w+)")
            .expect("a valid pattern")
    });
    // Each way of filling an array, its name captured first and the
    // expression drawn last, in the order they are tried for an array.
    static FILLS: LazyLock<[Regex; 3]> = LazyLock::new(|| {
        [
            r"\b(\w+)\s*\[[^\]]*\]\s*=\s*([^;]*\brand\s*\(\s*\)[^;]*);",
            r"\bgenerate\s*\(\s*(?:std\s*::\s*)?(?:begin\s*\(\s*(\w+)\s*\)|(\w+)\s*\.\s*begin\s*\(\s*\))[^;]*?\breturn\s+([^;]*\brand\s*\(\s*\)[^;]*);",
            r"\bfor\s*\(\s*\w+\s*&\s*\w+\s*:\s*(\w+)\s*\)\s*\{?\s*\w+\s*=\s*([^;]*\brand\s*\(\s*\)[^;]*);",
        ]
        .map(|pattern| Regex::new(pattern).expect("a valid pattern"))
    });
    if !source.contains("rand") {
        return Vec::new();
    }
    // Per way, every array's fills in order: its name and the expression.
    // The search goes on right after each name, so a fill inside another's
    // expression (`a[i] = b[i] = rand() % 4;`) is found too.
    let filled: Vec<Vec<(&str, &str)>> = FILLS
        .iter()
        .map(|fill| {
            let mut arrays = Vec::new();
            let mut at = 0;
            while let Some(captures) = fill.captures_at(source, at) {
                let mut groups = captures.iter().skip(1).flatten();
                let Some(array) = groups.next() else {
                    break;
                };
                at = array.end();
                arrays.extend(groups.last().map(|drawn| (array.as_str(), drawn.as_str())));
            }
            arrays
        })
        .collect();
    let mut found = Vec::new();
    for copy in COPY.captures_iter(source) {
        let (device, host) = (&copy[1], &copy[2]);
        let drawn = filled.iter().find_map(|arrays| {
            let (_, written) = arrays.iter().find(|(array, _)| *array == host)?;
            let written = written.trim().to_string();
            let (low, high) = drawn_range(&written, integers)?;
            Some(RandomFill {
                device: device.to_string(),
                low,
                high,
                written,
            })
        });
        found.extend(drawn);
    }
    found
}

/// The range of `rand() % K`, shifted by a constant (`'a' + rand() % 26`,
/// `(rand() % 10) + 1`, through casts to an integer type): `low` and
/// `high` excluded.
fn drawn_range(expression: &str, integers: &[(String, i64)]) -> Option<(i64, i64)> {
    static CAST: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\(\s*(?:(?:unsigned|signed)\s+)?(?:char|short|int|long|u?int(?:8|16|32|64)_t)\s*\)",
        )
        .expect("a valid pattern")
    });
    static DRAWN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:('.'|\d+|[A-Za-z_]\w*)\+)?\(?rand\(\)%(\d+|[A-Za-z_]\w*)\)?(?:\+('.'|\d+|[A-Za-z_]\w*))?$")
            .expect("a valid pattern")
    });
    let bare: String = CAST
        .replace_all(expression, "")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut bare = bare.as_str();
    while bare.starts_with('(')
        && bare.ends_with(')')
        && bare[1..bare.len() - 1].matches('(').count()
            == bare[1..bare.len() - 1].matches(')').count()
    {
        bare = &bare[1..bare.len() - 1];
    }
    let captures = DRAWN.captures(bare)?;
    let value = |text: &str| -> Option<i64> {
        match text.strip_prefix('\'').and_then(|c| c.strip_suffix('\'')) {
            Some(character) => character.chars().next().map(|c| c as i64),
            None => text.parse().ok().or_else(|| {
                integers
                    .iter()
                    .rev()
                    .find(|(name, _)| name == text)
                    .map(|(_, value)| *value)
            }),
        }
    };
    if captures.get(1).is_some() && captures.get(3).is_some() {
        return None;
    }
    let low = match captures.get(1).or(captures.get(3)) {
        Some(shift) => value(shift.as_str())?,
        None => 0,
    };
    let count = value(&captures[2])?;
    (count > 0).then(|| (low, low + count))
}

/// The name of a parameter declared as a plain integer (`int n`, `const
/// size_t count`), not a pointer, reference or array.
fn integer_parameter(parameter: &[Located]) -> Option<&str> {
    let declared = parameter
        .iter()
        .position(|(token, _)| matches!(token, Token::Punct('=')))
        .map_or(parameter, |default| &parameter[..default]);
    let integer = declared
        .iter()
        .any(|(token, _)| matches!(token, Token::Ident(w) if INTEGER_WORDS.contains(&w.as_str())));
    let plain = declared
        .iter()
        .all(|(token, _)| matches!(token, Token::Ident(_)));
    match declared.last() {
        Some((Token::Ident(name), _)) if integer && plain && declared.len() > 1 => Some(name),
        _ => None,
    }
}

/// The token ranges of the bodies of the file's `__global__` and
/// `__device__` functions.
fn device_bodies(tokens: &[Located]) -> Vec<Range<usize>> {
    let mut bodies = Vec::new();
    for (i, (token, _)) in tokens.iter().enumerate() {
        let Token::Ident(word) = token else {
            continue;
        };
        if word != "__global__" && word != "__device__" {
            continue;
        }
        let Some((_, open)) = function_name(&tokens[i + 1..]) else {
            continue;
        };
        bodies.extend(body_tokens(tokens, skip_group(tokens, i + 1 + open)));
    }
    bodies
}

/// How a kernel's body uses one of its pointer parameters, as far as a
/// scan of its tokens can tell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PointerUse {
    /// An element is read: `x = p[i]`, `p[i] += x`, `*(p + i)` in a value,
    /// `atomicAdd(&p[i], x)`.
    pub(crate) read: bool,
    /// An element is written: `p[i] = x`, `*p = x`, `*(p + i) = x`,
    /// `reinterpret_cast<float4 *>(&p[i])[0] = v`, `FLOAT4(p[i]) = v` (a
    /// macro over the element), `p[i]++`,
    /// `atomicAdd(&p[i], x)`.
    pub(crate) written: bool,
    /// The pointer itself is passed on where the scan cannot follow it (to
    /// a function, into another variable): reads or writes may hide there.
    pub(crate) escapes: bool,
}

/// How `body` (a kernel's body) uses its pointer parameter `name`.
/// Arithmetic on the pointer itself (`p += BK;`, `p = p + 1;`) and tests
/// of it (`if (p)`) touch no element and count for nothing. A pointer
/// handed to one of the file's `functions` (`load_tile(As, A, k)`) is
/// followed into it, as the parameter it becomes.
pub(crate) fn pointer_use(body: &str, name: &str, functions: &[DeviceFunction]) -> PointerUse {
    pointer_use_within(
        body,
        name,
        &Callees {
            functions,
            depth: 0,
        },
    )
}

/// The `__device__` functions a pointer may be followed into, and how
/// many calls deep the scan already is.
struct Callees<'a> {
    functions: &'a [DeviceFunction],
    depth: usize,
}

/// Calls followed at most into `__device__` functions (a recursive one
/// stops there).
const MOST_CALLS_DEEP: usize = 4;

impl Callees<'_> {
    /// What the functions named `callee` do with their parameter at
    /// `argument`: every overload that has one, together; `None` where
    /// none is known or one is too deep to follow.
    fn uses(&self, callee: &str, argument: usize) -> Option<PointerUse> {
        if self.depth >= MOST_CALLS_DEEP {
            return None;
        }
        let deeper = Callees {
            functions: self.functions,
            depth: self.depth + 1,
        };
        let mut together: Option<PointerUse> = None;
        for function in self.functions.iter().filter(|f| f.name == callee) {
            let parameter = function.parameters.get(argument)?.as_deref()?;
            let uses = pointer_use_within(&function.body, parameter, &deeper);
            let so_far = together.get_or_insert_with(PointerUse::default);
            so_far.read |= uses.read;
            so_far.written |= uses.written;
            so_far.escapes |= uses.escapes;
        }
        together
    }
}

fn pointer_use_within(body: &str, name: &str, callees: &Callees) -> PointerUse {
    let chars: Vec<char> = body.chars().collect();
    let (tokens, _) = tokenize(&chars);
    let mut found = PointerUse::default();
    // The pointer, then each local pointer declared from it (`float *x =
    // d_x + blockDim.x * blockIdx.x;`), whose uses are the pointer's.
    let mut names = vec![name.to_string()];
    let mut next = 0;
    while next < names.len() && next < MOST_POINTER_ALIASES {
        let current = names[next].clone();
        next += 1;
        for i in 0..tokens.len() {
            if !matches!(&tokens[i].0, Token::Ident(w) if *w == current) {
                continue;
            }
            if names_another_thing(&tokens, i) {
                continue;
            }
            if let Some(alias) = occurrence(&tokens, i, &current, callees, &mut found)
                && !names.contains(&alias)
            {
                names.push(alias);
            }
        }
    }
    found
}

/// Local pointers followed at most from one pointer parameter.
const MOST_POINTER_ALIASES: usize = 8;

/// Whether the name at `i` is another thing than the variable it spells:
/// a member (`s.name`, `s->name`) or a qualified name (`ns::name`,
/// `name::x`).
fn names_another_thing(tokens: &[Located], i: usize) -> bool {
    let member = i > 0 && (is(tokens, i - 1, '.') || is(tokens, i - 1, ':'))
        || (i > 1
            && is(tokens, i - 1, '>')
            && joined(tokens, i - 1, '>')
            && is(tokens, i - 2, '-'));
    member || (is(tokens, i + 1, ':') && is(tokens, i + 2, ':'))
}

/// Whether the kernel's integer parameter `name` sizes what it indexes
/// of its `pointers` (its pointer parameters): it stands in a subscript
/// of one (`A[row * cols + c]`), or is compared with a thread's index or
/// a variable that stands in one (`if (i < n)`, `for (j = 0; j <
/// mask_width; j++) … mask[j]`). A count of repetitions (`for (k = 0; k <
/// iters; ++k)` over a `k` that indexes no buffer, or only a shared
/// array) does not.
pub(crate) fn bounds_an_index(body: &str, name: &str, pointers: &[String]) -> bool {
    let chars: Vec<char> = body.chars().collect();
    let (tokens, _) = tokenize(&chars);
    let mut subscripted: Vec<&str> = Vec::new();
    // Each open bracket: whether it subscripts one of `pointers`.
    let mut open: Vec<bool> = Vec::new();
    for (k, (token, _)) in tokens.iter().enumerate() {
        match token {
            Token::Punct('[') => open.push(
                open.last() == Some(&true)
                    || k > 0 && matches!(&tokens[k - 1].0, Token::Ident(p) if pointers.contains(p)),
            ),
            Token::Punct(']') => {
                open.pop();
            }
            Token::Ident(word) if open.last() == Some(&true) => subscripted.push(word),
            _ => {}
        }
    }
    if subscripted.contains(&name) {
        return true;
    }
    let thread_locals = thread_locals(&tokens);
    let indexes = |word: &str| {
        subscripted.contains(&word)
            || thread_locals.contains(&word)
            || matches!(word, "threadIdx" | "blockIdx" | "blockDim")
    };
    let compared = |k: usize| is(&tokens, k, '<') || is(&tokens, k, '>');
    (0..tokens.len()).any(|k| {
        if !matches!(&tokens[k].0, Token::Ident(w) if w == name) {
            return false;
        }
        // The other side of `x < name` (back to the statement's start or
        // an opening parenthesis), or of `name > x`, `name <= x`.
        let before =
            k >= 1 && compared(k - 1) || k >= 2 && is(&tokens, k - 1, '=') && compared(k - 2);
        let after = compared(k + 1);
        let side: Vec<&Token> = match (before, after) {
            (true, _) => tokens[..k]
                .iter()
                .rev()
                .skip(1)
                // (`&&` and `||` end a comparison's side.)
                .take_while(|(t, _)| {
                    !matches!(t, Token::Punct(';' | '(' | '{' | '}' | ',' | '&' | '|'))
                })
                .map(|(t, _)| t)
                .collect(),
            (false, true) => tokens[k + 1..]
                .iter()
                .skip(1)
                .take_while(|(t, _)| {
                    !matches!(t, Token::Punct(';' | ')' | '{' | '}' | ',' | '&' | '|'))
                })
                .map(|(t, _)| t)
                .collect(),
            (false, false) => return false,
        };
        side.iter()
            .any(|t| matches!(t, Token::Ident(w) if indexes(w)))
    })
}

/// The local variables a kernel works out from its thread's place in the
/// grid (`int j = blockIdx.y * blockDim.y + threadIdx.y;`, and those worked
/// out from them): a bound they are compared with (`j < ny`) bounds the
/// grid's threads, though the subscript reads them through another
/// (`c[i + j * nx]`). A position within the block alone (`c =
/// threadIdx.x`) is not one, nor a name also set from something else
/// (`for (int x = -radius; …)` beside another scope's `x`).
fn thread_locals(tokens: &[Located]) -> Vec<&str> {
    // Each assignment `v = …;` (not `==`, `<=`, `+=`): v and the names
    // on its right.
    let mut assignments: Vec<(&str, Vec<&str>)> = Vec::new();
    for k in 1..tokens.len() {
        if let Token::Ident(variable) = &tokens[k - 1].0
            && plain_assignment(tokens, k)
        {
            let names = tokens[k + 1..]
                .iter()
                .take_while(|(t, _)| !matches!(t, Token::Punct(';' | '{' | '}')))
                .filter_map(|(t, _)| match t {
                    Token::Ident(w) => Some(w.as_str()),
                    _ => None,
                })
                .collect();
            assignments.push((variable.as_str(), names));
        }
    }
    let mut locals: Vec<&str> = Vec::new();
    loop {
        let more: Vec<&str> = assignments
            .iter()
            .filter(|(variable, names)| {
                !locals.contains(variable)
                    && names.iter().any(|w| *w == "blockIdx" || locals.contains(w))
            })
            .map(|(variable, _)| *variable)
            .collect();
        if more.is_empty() {
            break;
        }
        locals.extend(more);
    }
    let from_threads = |names: &[&str]| {
        names
            .iter()
            .any(|w| matches!(*w, "blockIdx" | "threadIdx") || locals.contains(w))
    };
    locals
        .iter()
        .copied()
        .filter(|local| {
            assignments
                .iter()
                .filter(|(variable, _)| variable == local)
                .all(|(_, names)| from_threads(names))
        })
        .collect()
}

/// Whether the kernel reads its integer parameter `name` only as a
/// stride: every use multiplies a subscript of one of `pointers` that
/// adds nothing to the product (`in[i * stride]`), so it spaces the
/// elements a thread reads and is no side of the problem (a row's
/// length, `A[row * cols + c]`, has a column added to it; a bound is
/// compared, `i < n`).
pub(crate) fn only_strides_an_index(body: &str, name: &str, pointers: &[String]) -> bool {
    let chars: Vec<char> = body.chars().collect();
    let (tokens, _) = tokenize(&chars);
    // Each open bracket: where it opened, if it subscripts one of `pointers`.
    let mut open: Vec<Option<usize>> = Vec::new();
    let mut uses = 0;
    for (k, (token, _)) in tokens.iter().enumerate() {
        match token {
            Token::Punct('[') => open.push(
                (k > 0 && matches!(&tokens[k - 1].0, Token::Ident(p) if pointers.contains(p)))
                    .then_some(k),
            ),
            Token::Punct(']') => {
                open.pop();
            }
            Token::Ident(word) if word == name => {
                let Some(&Some(start)) = open.last() else {
                    return false;
                };
                let end = group_end(&tokens, start);
                let subscript = &tokens[start + 1..end.saturating_sub(1).max(start + 1)];
                let multiplied = is(&tokens, k - 1, '*') || is(&tokens, k + 1, '*');
                let mut depth = 0i32;
                let adds = subscript.iter().any(|(t, _)| match t {
                    Token::Punct('(' | '[') => {
                        depth += 1;
                        false
                    }
                    Token::Punct(')' | ']') => {
                        depth -= 1;
                        false
                    }
                    Token::Punct('+' | '-') => depth == 0,
                    _ => false,
                });
                if !multiplied || adds {
                    return false;
                }
                uses += 1;
            }
            _ => {}
        }
    }
    uses > 0
}

/// Whether a block reads a row of its own: an index that multiplies the
/// block's index by one of `strides` (the kernel's integer parameters),
/// `A[blockIdx.x * cols + c]` or `A[row * cols + c]` after `int row =
/// blockIdx.x;`. Such a block's one result is its row's (a row sum, a
/// matrix-vector product a block per row), not a share of the grid's.
pub(crate) fn block_reads_a_row(body: &str, strides: &[String]) -> bool {
    let chars: Vec<char> = body.chars().collect();
    let (tokens, _) = tokenize(&chars);
    let block_variables = block_index_variables(&tokens);
    let stride_at =
        |k: usize| matches!(tokens.get(k), Some((Token::Ident(w), _)) if strides.contains(w));
    // The tokens the block's index takes from `k` on: 3 for
    // `blockIdx.x`, 1 for a variable holding it.
    let block_at = |k: usize| match tokens.get(k) {
        _ if block_index_at(&tokens, k) => Some(3),
        Some((Token::Ident(v), _)) if block_variables.contains(v) => Some(1),
        _ => None,
    };
    (0..tokens.len()).any(|k| match block_at(k) {
        Some(taken) => {
            (is(&tokens, k + taken, '*') && stride_at(k + taken + 1))
                || (k >= 2 && is(&tokens, k - 1, '*') && stride_at(k - 2))
        }
        None => false,
    })
}

/// How a kernel writes an output of partial results, where that is the
/// only way it uses it ([`partial_output`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Partial {
    /// Only at `name[blockIdx.x]` (or an index variable that holds
    /// `blockIdx.x`): each block one partial result (a reduction's
    /// per-block sums).
    PerBlock,
    /// Only its first element (`atomicAdd(name, sum)`, `*name += v`,
    /// `name[0] = v`): one result for the whole grid.
    One,
}

/// Whether the kernel sums in the buffer `name` in place, a tree step at a
/// time (`idata[tid] += idata[tid + stride];`, or `+ 512` unrolled,
/// through `name` or a local
/// pointer into it, `int *idata = g_idata + blockIdx.x * blockDim.x;`):
/// what is left in it depends on the order the kernel sums in, so it is
/// scratch, not an answer.
pub(crate) fn reduces_in_place(body: &str, name: &str) -> bool {
    let local = regex::Regex::new(&format!(
        r"\*\s*([A-Za-z_]\w*)\s*=\s*\(?\s*{}\b",
        regex::escape(name)
    ))
    .expect("a valid pattern");
    let names: Vec<String> = std::iter::once(name.to_string())
        .chain(local.captures_iter(body).map(|c| c[1].to_string()))
        .collect();
    names.iter().any(|array| {
        let step = regex::Regex::new(&format!(
            r"\b{0}\s*\[\s*([^\[\];]+?)\s*\]\s*\+=\s*{0}\s*\[\s*([^\[\];]+?)\s*\]",
            regex::escape(array)
        ))
        .expect("a valid pattern");
        step.captures_iter(body).any(|c| {
            c[2].strip_prefix(&c[1]).is_some_and(|rest| {
                let rest = rest.trim_start();
                rest.strip_prefix('+').is_some_and(|offset| {
                    let offset = offset.trim();
                    is_identifier(offset) || offset.parse::<u32>().is_ok()
                })
            })
        })
    })
}

/// Whether the kernel writes the pointer `name` only as partial results
/// (`d_out[blockIdx.x] = sdata[0];`, `atomicAdd(&d_out[bid], sum)` from
/// each warp, `atomicAdd(d_sum, sum)`) and uses it in no other way, and
/// whether it adds to what is there (`+=`, an atomic: `true`) or assigns
/// it (`false`).
pub(crate) fn partial_output(body: &str, name: &str) -> Option<(Partial, bool)> {
    let chars: Vec<char> = body.chars().collect();
    let (tokens, _) = tokenize(&chars);
    let block_variables = block_index_variables(&tokens);
    let (mut kind, mut accumulates) = (None, false);
    for i in 0..tokens.len() {
        if !matches!(&tokens[i].0, Token::Ident(w) if w == name) {
            continue;
        }
        if names_another_thing(&tokens, i) {
            continue;
        }
        // `atomicAdd(` ends `back` tokens before the name.
        let atomic_at = |back: usize| {
            i > back
                && is(&tokens, i - back, '(')
                && matches!(&tokens[i - back - 1].0, Token::Ident(f) if f.starts_with("atomic"))
        };
        let (this, after) = if is(&tokens, i + 1, '[') {
            let close = group_end(&tokens, i + 1);
            let index: Vec<&Token> = tokens[i + 2..close.saturating_sub(1)]
                .iter()
                .map(|(t, _)| t)
                .collect();
            let this = match index.as_slice() {
                [Token::Ident(b), Token::Punct('.'), Token::Ident(x)]
                    if b == "blockIdx" && x == "x" =>
                {
                    Partial::PerBlock
                }
                [Token::Ident(v)] if block_variables.contains(v) => Partial::PerBlock,
                [Token::Ident(zero)] if zero == "0" => Partial::One,
                _ => return None,
            };
            // `atomicAdd(&name[…], …)`.
            let atomic =
                i >= 1 && is(&tokens, i - 1, '&') && atomic_at(2) && is(&tokens, close, ',');
            (
                this,
                assignment_at(&tokens, close).or(atomic.then_some(true))?,
            )
        } else if atomic_at(1) && is(&tokens, i + 1, ',') {
            // `atomicAdd(name, …)`.
            (Partial::One, true)
        } else if i >= 1 && is(&tokens, i - 1, '*') {
            // `*name = v`, `*name += v` (a product cannot be assigned to,
            // so a `*` before an assigned name dereferences it, after a
            // condition's `)` too).
            (Partial::One, assignment_at(&tokens, i + 1)?)
        } else {
            return None;
        };
        if kind.is_some_and(|k| k != this) {
            return None;
        }
        kind = Some(this);
        accumulates |= after;
    }
    kind.map(|kind| (kind, accumulates))
}

/// Whether the kernel uses the pointer `name` only to add to its elements
/// with an atomic, at whatever index (`atomicAdd(&hist[bin], 1)`,
/// `atomicAdd(hist + bin, 1)`, `atomicSub(count, 1)`): a histogram's bins
/// or a set of counters, which start from zero.
pub(crate) fn only_added_to(body: &str, name: &str) -> bool {
    let chars: Vec<char> = body.chars().collect();
    let (tokens, _) = tokenize(&chars);
    let adds_at = |at: usize| {
        matches!(&tokens[at].0, Token::Ident(f)
            if ["atomicAdd", "atomicSub", "atomicInc"].iter().any(|add| f.starts_with(add)))
    };
    let mut used = false;
    for i in 0..tokens.len() {
        if !matches!(&tokens[i].0, Token::Ident(w) if w == name) || names_another_thing(&tokens, i)
        {
            continue;
        }
        // `atomicAdd(&name[…], …)`, or `atomicAdd(name, …)` and
        // `atomicAdd(name + …, …)`.
        let added = match i >= 3 && is(&tokens, i - 1, '&') && is(&tokens, i + 1, '[') {
            true => {
                is(&tokens, i - 2, '(')
                    && adds_at(i - 3)
                    && is(&tokens, group_end(&tokens, i + 1), ',')
            }
            false => {
                i >= 2
                    && is(&tokens, i - 1, '(')
                    && adds_at(i - 2)
                    && (is(&tokens, i + 1, ',') || is(&tokens, i + 1, '+'))
            }
        };
        if !added {
            return false;
        }
        used = true;
    }
    used
}

/// The first subscript the kernel computes from values it reads from the
/// pointer `name`, directly (`x[col_idx[j]]`) or through the variables
/// assigned them (`pos = a[i] - 'a';` then `bins[pos / DIV]`; `start =
/// row_ptr[row];` then the `j` of `for (int j = start; …)` in `val[j]`),
/// as written: those values must keep the index inside its array, which
/// random contents need not do.
pub(crate) fn indexes_with(body: &str, name: &str) -> Option<String> {
    let chars: Vec<char> = body.chars().collect();
    let (tokens, _) = tokenize(&chars);
    let reads = |within: Range<usize>, carriers: &[String]| {
        within.into_iter().any(|k| match &tokens[k].0 {
            Token::Ident(_) if names_another_thing(&tokens, k) => false,
            Token::Ident(w) if w == name => is(&tokens, k + 1, '['),
            Token::Ident(w) => carriers.contains(w),
            _ => false,
        })
    };
    // The variables that carry its values: assigned (`v = …;`, `v += …;`,
    // `int v = …,`) from an expression that reads it or another carrier,
    // until no more are found.
    let mut carriers: Vec<String> = Vec::new();
    loop {
        let known = carriers.len();
        for k in 1..tokens.len() {
            if !is(&tokens, k, '=') || is(&tokens, k + 1, '=') {
                continue;
            }
            let target = match &tokens[k - 1].0 {
                Token::Punct('+' | '-' | '*' | '/' | '|' | '&' | '^') if k >= 2 => k - 2,
                _ => k - 1,
            };
            let Token::Ident(variable) = &tokens[target].0 else {
                continue;
            };
            if variable == name || carriers.contains(variable) {
                continue;
            }
            let mut depth = 0usize;
            let mut end = k + 1;
            while end < tokens.len() {
                match &tokens[end].0 {
                    // A block (`if (…) {`) after an initializer that lost
                    // its `;` (an exercise's `FIXME`) ends it as well.
                    Token::Punct('{') if depth == 0 && end > k + 1 => break,
                    Token::Punct('(' | '[' | '{') => depth += 1,
                    Token::Punct(')' | ']' | '}') if depth == 0 => break,
                    Token::Punct(')' | ']' | '}') => depth -= 1,
                    Token::Punct(';') => break,
                    Token::Punct(',') if depth == 0 => break,
                    _ => {}
                }
                end += 1;
            }
            if reads(k + 1..end, &carriers) {
                carriers.push(variable.clone());
            }
        }
        if carriers.len() == known || carriers.len() > MOST_POINTER_ALIASES {
            break;
        }
    }
    (0..tokens.len()).find_map(|k| {
        let Token::Ident(_) = &tokens[k].0 else {
            return None;
        };
        if !is(&tokens, k + 1, '[') {
            return None;
        }
        let close = group_end(&tokens, k + 1);
        (close > k + 3 && reads(k + 2..close - 1, &carriers)).then(|| {
            let (start, end) = (tokens[k].1, tokens[close - 1].1 + 1);
            chars[start..end].iter().collect()
        })
    })
}

/// Whether `blockIdx.x` starts at token `k` (three tokens).
fn block_index_at(tokens: &[Located], k: usize) -> bool {
    matches!(tokens.get(k), Some((Token::Ident(b), _)) if b == "blockIdx")
        && is(tokens, k + 1, '.')
        && matches!(tokens.get(k + 2), Some((Token::Ident(x), _)) if x == "x")
}

/// The variables a body declares to hold the block's index and never
/// assigns again (`const int bid = blockIdx.x;`).
fn block_index_variables(tokens: &[Located]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for k in 1..tokens.len() {
        let holds_block =
            is(tokens, k, '=') && block_index_at(tokens, k + 1) && is(tokens, k + 4, ';');
        let declared = k >= 2 && matches!(&tokens[k - 2].0, Token::Ident(_));
        if let (true, true, Token::Ident(variable)) = (holds_block, declared, &tokens[k - 1].0) {
            found.push(variable.clone());
        }
    }
    // One assigned anywhere else is not the block's index throughout.
    found.retain(|variable| {
        let assignments = (0..tokens.len())
            .filter(|&k| matches!(&tokens[k].0, Token::Ident(w) if w == variable))
            .filter(|&k| {
                assignment_at(tokens, k + 1).is_some()
                    || increment_at(tokens, k + 1)
                    || (k > 0 && increment_at(tokens, k - 1))
            })
            .count();
        assignments == 1
    });
    found
}

/// The dimensions a kernel's body indexes: of its block (`threadIdx`,
/// `blockDim`) and of its grid (`blockIdx`, `gridDim`), each 1 to 3.
pub(crate) fn index_dimensions(body: &str) -> (usize, usize) {
    let chars: Vec<char> = body.chars().collect();
    let (tokens, _) = tokenize(&chars);
    let (mut block, mut grid) = (1, 1);
    for i in 0..tokens.len().saturating_sub(2) {
        let (Token::Ident(base), Token::Ident(axis)) = (&tokens[i].0, &tokens[i + 2].0) else {
            continue;
        };
        if !is(&tokens, i + 1, '.') {
            continue;
        }
        let dimensions = match axis.as_str() {
            "y" => 2,
            "z" => 3,
            _ => continue,
        };
        match base.as_str() {
            "threadIdx" | "blockDim" => block = block.max(dimensions),
            "blockIdx" | "gridDim" => grid = grid.max(dimensions),
            _ => {}
        }
    }
    (block, grid)
}

/// The names among `names` (a kernel's integer parameters) that its body
/// treats as one side of a problem it indexes through one flat index: a
/// name multiplied by anything (`idx < M * N`, `out[n * M + m]`) or that
/// an index is divided by or taken the remainder of (`idx / N`, `idx %
/// N`). A count the body only compares with (`idx < n`) is not one; where
/// the body has sides, a name it never uses is taken as one too (`M` of
/// a copy that indexes `m * N + n` alone).
pub(crate) fn sides_of_a_flat_index(body: &str, names: &[String]) -> Vec<String> {
    let chars: Vec<char> = body.chars().collect();
    let (tokens, _) = tokenize(&chars);
    let mut sides: Vec<String> = Vec::new();
    for (k, (token, _)) in tokens.iter().enumerate() {
        let Token::Ident(word) = token else {
            continue;
        };
        if !names.contains(word) || sides.contains(word) {
            continue;
        }
        let multiplied_after = is(&tokens, k + 1, '*') && !joined(&tokens, k + 2, '=');
        let before = k
            .checked_sub(1)
            .filter(|&p| ['*', '/', '%'].iter().any(|&c| is(&tokens, p, c)));
        let operand_before = before.is_some_and(|p| !is_unary(&tokens, p, '*'));
        if multiplied_after || operand_before {
            sides.push(word.clone());
        }
    }
    if !sides.is_empty() {
        let used = |name: &String| {
            tokens
                .iter()
                .any(|(token, _)| matches!(token, Token::Ident(word) if word == name))
        };
        sides.extend(names.iter().filter(|name| !used(name)).cloned());
    }
    sides
}

/// Whether the `*` or `&` at token `k` is a unary operator (a dereference,
/// an address), not a product, a bitwise and or half of `&&`.
fn is_unary(tokens: &[Located], k: usize, c: char) -> bool {
    if !is(tokens, k, c) || (c == '&' && and_and(tokens, k)) {
        return false;
    }
    match k.checked_sub(1).map(|p| &tokens[p].0) {
        None => true,
        Some(Token::Punct(p)) => !matches!(p, ')' | ']'),
        Some(Token::Ident(word)) => matches!(word.as_str(), "return" | "case"),
        Some(Token::Str(_)) => false,
    }
}

/// Whether token `k` is half of `&&`.
fn and_and(tokens: &[Located], k: usize) -> bool {
    is(tokens, k, '&')
        && (joined(tokens, k + 1, '&')
            || (k > 0 && is(tokens, k - 1, '&') && joined(tokens, k, '&')))
}

/// An assignment operator at token `k`: whether it is compound (`+=`,
/// `<<=`: it reads too); `None` for none (`==`, `<=` are comparisons).
fn assignment_at(tokens: &[Located], k: usize) -> Option<bool> {
    let Some((Token::Punct(c), _)) = tokens.get(k) else {
        return None;
    };
    match c {
        '=' => (!joined(tokens, k + 1, '=')).then_some(false),
        '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' => {
            (joined(tokens, k + 1, '=') && !joined(tokens, k + 2, '=')).then_some(true)
        }
        '<' | '>' => {
            (joined(tokens, k + 1, *c) && joined(tokens, k + 2, '=') && !joined(tokens, k + 3, '='))
                .then_some(true)
        }
        _ => None,
    }
}

/// `++` or `--` at token `k`.
fn increment_at(tokens: &[Located], k: usize) -> bool {
    ['+', '-']
        .iter()
        .any(|&c| is(tokens, k, c) && joined(tokens, k + 1, c))
}

/// The first token of a cast that ends right before token `lo`: `(float4 *)`
/// (a C cast: type words and `*` in parentheses that follow no name).
fn c_cast_before(tokens: &[Located], lo: usize) -> Option<usize> {
    let open = group_start(tokens, lo.checked_sub(1)?)?;
    let inside = &tokens[open + 1..lo - 1];
    let typed = !inside.is_empty()
        && inside.iter().any(|(t, _)| *t == Token::Punct('*'))
        && inside
            .iter()
            .all(|(t, _)| matches!(t, Token::Ident(_) | Token::Punct('*' | ':')));
    let after_name = open > 0
        && matches!(
            tokens[open - 1].0,
            Token::Ident(_) | Token::Punct(')' | ']')
        );
    (typed && !after_name).then_some(open)
}

/// The first token of `reinterpret_cast<…>` (or another `…_cast`) whose
/// argument's `(` is at `open`.
fn named_cast_before(tokens: &[Located], open: usize) -> Option<usize> {
    let start = template_arguments_before(tokens, open)?.checked_sub(1)?;
    matches!(&tokens[start].0, Token::Ident(w) if w.ends_with("_cast")).then_some(start)
}

/// The `<` that opens the template arguments which end right before the
/// `(` at `open` (`load_tile<BM, BK>(`, `reinterpret_cast<float4 *>(`).
fn template_arguments_before(tokens: &[Located], open: usize) -> Option<usize> {
    let mut k = open.checked_sub(1).filter(|&k| is(tokens, k, '>'))?;
    let mut depth = 0usize;
    loop {
        match tokens[k].0 {
            Token::Punct('>') => depth += 1,
            Token::Punct('<') => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            Token::Punct(';' | '{' | '}') => return None,
            _ => {}
        }
        k = k.checked_sub(1)?;
    }
}

/// The function a template call whose `(` is at `open` calls
/// (`load_tile<BM, BK>(`), by its name.
fn template_callee(tokens: &[Located], open: usize) -> Option<&str> {
    let k = template_arguments_before(tokens, open)?;
    match &tokens.get(k.checked_sub(1)?)?.0 {
        Token::Ident(name) if !member_call(tokens, k - 1) => Some(name),
        _ => None,
    }
}

/// Whether the name at `k` is called as a member (`s.f(`, `s->f(`).
fn member_call(tokens: &[Located], k: usize) -> bool {
    k > 0 && is(tokens, k - 1, '.') || (k > 1 && is(tokens, k - 1, '>') && is(tokens, k - 2, '-'))
}

/// Whether the `(` at `open` is a call's or a statement's (`f(`, `if (`,
/// `a[i](`, an inline assembly operand's `"l"(`), not a pair of
/// parentheses around an expression.
fn opens_call(tokens: &[Located], open: usize) -> bool {
    open > 0
        && matches!(
            tokens[open - 1].0,
            Token::Ident(_) | Token::Punct(')' | ']') | Token::Str(_)
        )
}

/// For the `(` at `open` of an inline assembly operand (`asm volatile("…"
/// : "=f"(v) : "l"(p))`), the statement's template and the operand's
/// number in it.
fn asm_operand(tokens: &[Located], open: usize) -> Option<(String, usize)> {
    if !matches!(tokens.get(open.checked_sub(1)?)?.0, Token::Str(_)) {
        return None;
    }
    let statement = enclosing_paren(tokens, open - 1)?;
    let mut keyword = statement.checked_sub(1)?;
    while matches!(&tokens[keyword].0, Token::Ident(w) if w.contains("volatile") || w == "__inline__")
    {
        keyword = keyword.checked_sub(1)?;
    }
    if !matches!(&tokens[keyword].0, Token::Ident(w) if w == "asm" || w == "__asm__" || w == "__asm")
    {
        return None;
    }
    let mut template = String::new();
    let mut k = statement + 1;
    while let Some((Token::Str(piece), _)) = tokens.get(k) {
        template.push_str(piece);
        k += 1;
    }
    let mut operand = 0;
    while k + 1 < open {
        if matches!(tokens[k].0, Token::Str(_)) && is(tokens, k + 1, '(') {
            operand += 1;
            k = group_end(tokens, k + 1);
            continue;
        }
        k += 1;
    }
    Some((template, operand))
}

/// Whether the call whose `(` is at `open` and `)` at `close` is assigned
/// to, after subscripts (`FLOAT4(c[i]) = v`, `FETCH(c[i])[0] += v`,
/// `HALF2(c[i])++`): a function-like macro over an element that casts its
/// address (`#define FLOAT4(p) (reinterpret_cast<float4 *>(&(p))[0])`),
/// or a function returning a reference to it, through which the element
/// is written. A member's call (`s.at(i) = v`) and a statement's
/// parentheses (`if (…)`) are not.
fn call_assigned(tokens: &[Located], open: usize, close: usize) -> bool {
    let Some(callee) = open.checked_sub(1) else {
        return false;
    };
    let plain = matches!(&tokens[callee].0, Token::Ident(w)
        if !matches!(w.as_str(), "if" | "while" | "for" | "switch" | "return" | "sizeof"))
        && !(callee > 0 && (is(tokens, callee - 1, '.') || is(tokens, callee - 1, ':')))
        && !(callee > 1 && is(tokens, callee - 1, '>') && is(tokens, callee - 2, '-'));
    let mut k = close + 1;
    while is(tokens, k, '[') {
        k = group_end(tokens, k);
    }
    plain && (assignment_at(tokens, k).is_some() || increment_at(tokens, k))
}

/// The `(` whose group holds token `k` (`None` at a statement's start).
fn enclosing_paren(tokens: &[Located], k: usize) -> Option<usize> {
    let mut j = k.checked_sub(1)?;
    loop {
        match tokens[j].0 {
            Token::Punct(')' | ']' | '}') if group_start(tokens, j).is_some() => {
                j = group_start(tokens, j)?;
            }
            Token::Punct('(') => return Some(j),
            Token::Punct(';' | '{' | '}' | '[') => return None,
            _ => {}
        }
        j = j.checked_sub(1)?;
    }
}

/// With `tokens[lo..hi]` a pointer inside parentheses that hold only a sum
/// with it (`(p + i * n)`), the inside of those parentheses.
fn pointer_sum(tokens: &[Located], lo: usize, hi: usize) -> Option<(usize, usize)> {
    let open = enclosing_paren(tokens, lo)?;
    let close = group_end(tokens, open).checked_sub(1)?;
    if close < hi || !is(tokens, close, ')') {
        return None;
    }
    let mut k = open + 1;
    while k < close {
        match &tokens[k].0 {
            Token::Punct('(' | '[') => {
                k = group_end(tokens, k);
                continue;
            }
            Token::Punct(c) if !"+-*/%.".contains(*c) => return None,
            _ => {}
        }
        k += 1;
    }
    Some((open + 1, close))
}

/// Functions that read (`__ldg`, WMMA's `load_matrix_sync`) or write
/// (`__stcs`, `memcpy`'s destination) through a pointer they are given.
fn pointer_call(function: &str, argument: usize) -> Option<PointerUse> {
    let read = PointerUse {
        read: true,
        ..PointerUse::default()
    };
    let written = PointerUse {
        written: true,
        ..PointerUse::default()
    };
    match (function, argument) {
        ("atomicExch", 0) => Some(written),
        (f, 0) if f.starts_with("atomic") => Some(PointerUse {
            read: true,
            written: true,
            escapes: false,
        }),
        ("__ldg" | "__ldca" | "__ldcg" | "__ldcs" | "__ldlu" | "__ldcv", 0) => Some(read),
        ("__stwb" | "__stcg" | "__stcs" | "__stwt", 0) => Some(written),
        ("memcpy" | "memset" | "memcpy_async" | "__pipeline_memcpy_async", 0) => Some(written),
        ("memcpy" | "memcpy_async" | "__pipeline_memcpy_async", 1) => Some(read),
        // WMMA's fragments: `load_matrix_sync(frag, p, ld)`,
        // `store_matrix_sync(p, frag, ld, layout)`.
        ("load_matrix_sync", 1) => Some(read),
        ("store_matrix_sync", 0) => Some(written),
        ("if" | "while" | "switch" | "sizeof" | "for", _) => Some(PointerUse::default()),
        _ => None,
    }
}

/// What the occurrence of the pointer `name` at token `i` does.
fn occurrence(
    tokens: &[Located],
    i: usize,
    name: &str,
    callees: &Callees,
    found: &mut PointerUse,
) -> Option<String> {
    // Grow the expression around it while it stays one access: subscripts,
    // `*` and `&`, casts, parentheses and sums with the pointer.
    let (mut lo, mut hi, mut level) = (i, i + 1, 0i32);
    loop {
        if is(tokens, hi, '[') {
            hi = group_end(tokens, hi);
            level += 1;
        } else if is(tokens, hi, '-') && joined(tokens, hi + 1, '>') {
            hi += 2 + usize::from(matches!(tokens.get(hi + 2), Some((Token::Ident(_), _))));
            level += 1;
        } else if level >= 1
            && is(tokens, hi, '.')
            && matches!(tokens.get(hi + 1), Some((Token::Ident(_), _)))
        {
            hi += 2;
        } else if lo > 0 && is_unary(tokens, lo - 1, '*') {
            lo -= 1;
            level += 1;
        } else if lo > 0 && is_unary(tokens, lo - 1, '&') {
            lo -= 1;
            level -= 1;
        } else if let Some(open) = c_cast_before(tokens, lo) {
            lo = open;
        } else if lo > 0 && is(tokens, lo - 1, '(') && group_end(tokens, lo - 1) == hi + 1 {
            match named_cast_before(tokens, lo - 1) {
                Some(start) => lo = start,
                // `(const char *)(p + off)`: parentheses after a cast.
                None if c_cast_before(tokens, lo - 1).is_some() => lo -= 1,
                None if opens_call(tokens, lo - 1) => {
                    match level >= 1 && call_assigned(tokens, lo - 1, hi) {
                        true => lo -= 2,
                        false => break,
                    }
                }
                None => lo -= 1,
            }
            hi += 1;
        } else if let Some((inner_lo, inner_hi)) =
            pointer_sum(tokens, lo, hi).filter(|_| level == 0)
        {
            (lo, hi) = (inner_lo, inner_hi);
        } else {
            break;
        }
    }
    let assignment = assignment_at(tokens, hi);
    let increment = increment_at(tokens, hi) || (lo >= 2 && increment_at(tokens, lo - 2));
    if level >= 1 {
        match assignment {
            Some(compound) => {
                found.written = true;
                found.read |= compound;
            }
            None if increment => {
                found.written = true;
                found.read = true;
            }
            None => found.read = true,
        }
        return None;
    }
    if level < 0 {
        found.escapes = true;
        return None;
    }
    // The pointer's value: moved (`p += BK;`) or tested, which touches no
    // element; given to a function; or copied, which the scan cannot follow.
    if assignment.is_some() || increment {
        return None;
    }
    let start = statement_start(tokens, lo);
    if matches!(&tokens[start].0, Token::Ident(w) if w == name)
        && assignment_at(tokens, start + 1).is_some()
    {
        return None;
    }
    if let Some(open) = enclosing_paren(tokens, lo)
        .filter(|&open| opens_call(tokens, open) || template_callee(tokens, open).is_some())
    {
        let argument = tokens[open + 1..lo]
            .iter()
            .scan(0i32, |depth, (t, _)| {
                match t {
                    Token::Punct('(' | '[' | '{') => *depth += 1,
                    Token::Punct(')' | ']' | '}') => *depth -= 1,
                    _ => {}
                }
                Some(*depth == 0 && *t == Token::Punct(','))
            })
            .filter(|&comma| comma)
            .count();
        let called = match &tokens[open - 1].0 {
            Token::Ident(function) => pointer_call(function, argument).or_else(|| {
                (!member_call(tokens, open - 1))
                    .then(|| callees.uses(function, argument))
                    .flatten()
            }),
            Token::Str(_) => asm_operand(tokens, open).map(|(template, operand)| {
                let (read, written, escapes) = inline_asm::operand_use(&template, operand);
                PointerUse {
                    read,
                    written,
                    escapes,
                }
            }),
            _ => {
                template_callee(tokens, open).and_then(|function| callees.uses(function, argument))
            }
        };
        match called {
            Some(uses) => {
                found.read |= uses.read;
                found.written |= uses.written;
            }
            None => found.escapes = true,
        }
        found.escapes |= called.is_some_and(|uses| uses.escapes);
        return None;
    }
    let compared = |k: usize| match tokens.get(k) {
        Some((Token::Punct('<' | '>' | '?' | '|' | '!'), _)) => true,
        Some((Token::Punct('='), _)) => {
            joined(tokens, k + 1, '=')
                || (joined(tokens, k, '=')
                    && matches!(tokens[k - 1].0, Token::Punct('=' | '!' | '<' | '>')))
        }
        _ => and_and(tokens, k),
    };
    if compared(hi) || (lo > 0 && compared(lo - 1)) {
        return None;
    }
    // Copied into a local pointer it declares (`float *x = p + off;`): the
    // uses of that pointer are this one's.
    let declared = lo >= 3
        && is(tokens, lo - 1, '=')
        && is(tokens, lo - 3, '*')
        && matches!(
            tokens.get(hi),
            Some((Token::Punct(';' | ',' | '+' | '-'), _))
        );
    if let (true, Token::Ident(alias)) = (declared, &tokens[lo.saturating_sub(2)].0) {
        return Some(alias.clone());
    }
    found.escapes = true;
    None
}

/// The first token of the statement that holds token `k`.
fn statement_start(tokens: &[Located], k: usize) -> usize {
    let mut j = k;
    while j > 0 {
        match tokens[j - 1].0 {
            Token::Punct(')' | ']') => match group_start(tokens, j - 1) {
                Some(open) => j = open,
                None => return j,
            },
            Token::Punct(';' | '{' | '}' | '(') => return j,
            _ => j -= 1,
        }
    }
    0
}

/// The declared name in the tokens after `__global__` (the first
/// identifier followed by `(`, skipping attribute macros and their
/// arguments) and the index of its `(`.
fn function_name(tokens: &[Located]) -> Option<(String, usize)> {
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].0 {
            Token::Ident(word) if ATTRIBUTES.contains(&word.as_str()) => {
                i = skip_group(tokens, i + 1);
                continue;
            }
            Token::Ident(word) if matches!(tokens.get(i + 1), Some((Token::Punct('('), _))) => {
                return Some((word.clone(), i + 1));
            }
            Token::Punct(';' | '{' | '}' | '(') => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Index after the parenthesized group starting at `start` (or `start` if
/// there is none).
fn skip_group(tokens: &[Located], start: usize) -> usize {
    if !matches!(tokens.get(start), Some((Token::Punct('('), _))) {
        return start;
    }
    let mut depth = 0usize;
    for (offset, (token, _)) in tokens[start..].iter().enumerate() {
        match token {
            Token::Punct('(') => depth += 1,
            Token::Punct(')') => {
                depth -= 1;
                if depth == 0 {
                    return start + offset + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The tokens of `chars` with their offsets, and the preprocessor lines
/// (without `#`, continuations joined).
pub(crate) fn tokenize(chars: &[char]) -> (Vec<Located>, Vec<String>) {
    let mut tokens = Vec::new();
    let mut directives = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if line_start && c == '#' {
            let mut directive = String::new();
            i += 1;
            while i < chars.len() && chars[i] != '\n' {
                // A line continued, with Unix or Windows line ends.
                let continued = match (chars.get(i + 1), chars.get(i + 2)) {
                    (Some('\n'), _) => Some(2),
                    (Some('\r'), Some('\n')) => Some(3),
                    _ => None,
                };
                if let (true, Some(length)) = (chars[i] == '\\', continued) {
                    i += length;
                    directive.push(' ');
                    continue;
                }
                directive.push(chars[i]);
                i += 1;
            }
            directives.push(directive.trim().to_string());
            continue;
        }
        line_start = false;
        i = match (c, chars.get(i + 1)) {
            ('/', Some('/')) => skip_until(chars, i, "\n"),
            ('/', Some('*')) => skip_until(chars, i + 2, "*/") + 2,
            ('"' | '\'', _) => {
                let (text, end) = literal(chars, i);
                if c == '"' {
                    tokens.push((Token::Str(text), i));
                }
                end
            }
            _ if c.is_alphanumeric() || c == '_' => {
                let start = i;
                let mut end = i;
                while end < chars.len() && (chars[end].is_alphanumeric() || chars[end] == '_') {
                    end += 1;
                }
                tokens.push((Token::Ident(chars[start..end].iter().collect()), start));
                end
            }
            _ => {
                tokens.push((Token::Punct(c), i));
                i + 1
            }
        };
    }
    (tokens, directives)
}

/// The index where `end` starts at or after `from` (the length if never).
pub(crate) fn skip_until(chars: &[char], from: usize, end: &str) -> usize {
    let end: Vec<char> = end.chars().collect();
    (from..chars.len())
        .find(|&i| chars[i..].starts_with(&end))
        .unwrap_or(chars.len())
}

/// A string or character literal starting at `start`: its contents (with
/// `\n`, `\t` and escaped characters decoded) and the index after its
/// closing quote.
pub(crate) fn literal(chars: &[char], start: usize) -> (String, usize) {
    let quote = chars[start];
    let mut text = String::new();
    let mut i = start + 1;
    while i < chars.len() && chars[i] != quote && chars[i] != '\n' {
        if chars[i] == '\\' {
            i += 1;
            // The escapes of whitespace stay whitespace (an inline assembly
            // template's instructions are split at them).
            match chars.get(i) {
                Some('n') => text.push('\n'),
                Some('t') => text.push('\t'),
                Some(&ch) => text.push(ch),
                None => {}
            }
            i += 1;
            continue;
        }
        text.push(chars[i]);
        i += 1;
    }
    (text, i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(kernels: &Kernels) -> Vec<String> {
        kernels.kernels.iter().map(Kernel::shown).collect()
    }

    #[test]
    fn vectors_declared_with_a_count_keep_it_for_their_size() {
        let found = scan(
            "int main() { int n = 8;\n\
             std::vector<float> hx(n, 1.0f), hy(2 * n);\n\
             std::vector<std::pair<int, int>> pairs(n + 1);\n\
             std::vector<int> listed{1, 2, 3}; std::vector<int> empty;\n\
             std::vector<float> copy(hx.begin(), hx.end()); }\n\
             std::vector<float> make(int m) { return std::vector<float>(m); }\n\
             std::vector<float> declared(const int m);",
        );
        assert_eq!(
            found.vectors,
            [
                ("hx".to_string(), "n".to_string()),
                ("hy".to_string(), "2 * n".to_string()),
                ("pairs".to_string(), "n + 1".to_string()),
            ]
        );
    }

    #[test]
    fn a_kernels_own_variables_are_not_host_initializers() {
        let found = scan(
            "__global__ void merge(float *d, unsigned stride) {\n\
               for (unsigned int stride = 1; stride < 64; stride <<= 1) { d[stride] = 0; }\n\
             }\n\
             __device__ int lane() { int width = 32; return width; }\n\
             void run(float *d, int n) {\n\
               unsigned int stride = n / 2;\n\
               int width = 64;\n\
               merge<<<1, 1>>>(d, stride);\n\
             }\n",
        );
        assert_eq!(
            found.initializers,
            [
                ("stride".to_string(), "n / 2".to_string()),
                ("width".to_string(), "64".to_string())
            ]
        );
    }

    #[test]
    fn every_declarator_of_an_integer_declaration_is_an_initializer() {
        let found = scan(
            "int main() {\n\
               size_t sA = (size_t)M * K, sB = (size_t)K * N;\n\
               const int blocks = 2048, iters = 1024;\n\
               run(a, b = 3);\n\
             }\n",
        );
        assert_eq!(
            found.initializers,
            [
                ("sA".to_string(), "(size_t)M * K".to_string()),
                ("sB".to_string(), "(size_t)K * N".to_string()),
                ("blocks".to_string(), "2048".to_string()),
                ("iters".to_string(), "1024".to_string()),
            ]
        );
    }

    #[test]
    fn a_kernel_declared_before_its_definition_takes_the_definitions_parameters() {
        let found = scan(
            "__global__ void fan(float *m, float *a, int size);\n\
             int main() { fan<<<1, 1>>>(0, 0, 4); }\n\
             __global__ void fan(float *m_cuda, float *a_cuda, int size) { m_cuda[0] = a_cuda[0]; }\n",
        );
        assert_eq!(found.kernels.len(), 1);
        let fan = &found.kernels[0];
        assert_eq!(fan.parameters, "float *m_cuda, float *a_cuda, int size");
        assert_eq!(
            fan.body.as_deref().map(str::trim),
            Some("m_cuda[0] = a_cuda[0];")
        );
    }

    #[test]
    fn extern_c_declarations_and_blocks() {
        let source = r#"
            extern "C" __global__ void one(float *a) { a[0] = 1; }
            extern "C" {
                __global__ void two(int n) {}
                __device__ int helper(int x) { return x; }
                __global__ void __launch_bounds__(256, 2) three() {}
            }
            __global__ void four() {}
            extern "C" __device__ void not_a_kernel() {}
            template <int T> __global__ void five(float *x) {}
        "#;
        let kernels = scan(source);
        assert_eq!(
            names(&kernels),
            ["one", "two", "three", "four", "five<int T>"]
        );
        assert_eq!(kernels.host_code, None);
    }

    #[test]
    fn cluster_dimensions_and_register_caps_are_not_the_kernel_name() {
        let source = r#"
            template <int M> __global__ void __cluster_dims__(2, 1, 1) clustered(float *x) {}
            __global__ void __maxnreg__(64) capped(float *x) {}
            __global__ void __launch_bounds__(128) __maxnreg__(32) both(float *x) {}
        "#;
        assert_eq!(names(&scan(source)), ["clustered<int M>", "capped", "both"]);
    }

    #[test]
    fn templates_namespaces_and_their_instances() {
        let source = r#"
            template <unsigned int blockSize,
                      bool nIsPow2>
            __global__ void reduce6(const float *g_idata, float *g_odata, unsigned int n) {}
            namespace gemm { namespace v2 {
                template <const int BM, const int BN> __global__ void
                __launch_bounds__((BM * BN) / 64, 1) sgemm2D(int M, float *A) {}
            } }
            template <typename T> __device__ T helper(T x) { return x; }
            __global__ void after(int n /* elements */, // the count
                                  float *out) {}
            namespace { __global__ void hidden(int n) {} }
            namespace outer { namespace { __global__ void inner(int n) {} } }
        "#;
        let kernels = scan(source);
        assert_eq!(
            names(&kernels),
            [
                "reduce6<unsigned int blockSize, bool nIsPow2>",
                "gemm::v2::sgemm2D<const int BM, const int BN>",
                "after",
                "hidden",
                "outer::inner",
            ]
        );
        assert_eq!(
            kernels.find("after").map(|k| k.parameters.as_str()),
            Some("int n, float *out"),
            "comments are left out of the parameters"
        );
        assert_eq!(
            kernels.find("reduce6<256, true>").map(|k| k.name.as_str()),
            Some("reduce6")
        );
        assert!(kernels.find("gemm::v2::sgemm2D<128, 128>").is_some());
        assert!(
            kernels.find("sgemm2D<128, 128>").is_none(),
            "namespaces are part of the name"
        );
        assert!(is_instance("reduce6<256, true>") && !is_instance("after"));
    }

    #[test]
    fn integers_the_file_names() {
        let source = r#"
            #define BLOCK_SIZE 256
            #define N (32 * 1024)
            #define MASK 0xffu
            #define BANKS 16
            #define THREADBLOCK (4 * BANKS) // threads per block
            #define HALF (BANKS / 3)
            #define WARP (1U << 5)
            const int THREADS = 128;
            int main() { constexpr unsigned int PER_THREAD = 4u; const float *p; n = 5;
                const int SIZE = 1024 * BLOCK_SIZE, HALF_SIZE = SIZE / 2; }
        "#;
        assert_eq!(
            scan(source).integers,
            [
                ("BLOCK_SIZE".to_string(), 256),
                ("N".to_string(), 32768),
                ("MASK".to_string(), 255),
                ("BANKS".to_string(), 16),
                ("THREADBLOCK".to_string(), 64),
                // C's integer division: 16 / 3 is 5.
                ("HALF".to_string(), 5),
                ("WARP".to_string(), 32),
                ("THREADS".to_string(), 128),
                ("PER_THREAD".to_string(), 4),
                ("SIZE".to_string(), 262144),
                ("HALF_SIZE".to_string(), 131072),
            ]
        );
    }

    #[test]
    fn type_aliases_the_file_declares() {
        let source = r#"
            #define DTYPE float // the element type
            #define SQUARE(x) ((x) * (x))
            using namespace std;
            typedef struct { float x, y; } point;
            typedef void (*callback)(int);
            typedef unsigned long long u64_t;
            using real = DTYPE;
            template <class T> using ptr = T *;
            namespace ns { typedef const real *input_t; }
        "#;
        assert_eq!(
            scan(source).aliases,
            [
                ("DTYPE".to_string(), "float".to_string()),
                ("u64_t".into(), "unsigned long long".into()),
                ("real".into(), "float".into()),
                ("input_t".into(), "const float *".into()),
                // A struct of one scalar type is laid out as the vector type.
                ("point".into(), "float2".into()),
            ]
        );
    }

    #[test]
    fn a_parameter_that_bounds_an_index_is_found() {
        let pointers: Vec<String> = ["x", "y", "dst", "src", "in", "mask", "A", "out"]
            .map(String::from)
            .to_vec();
        for (body, name, expected) in [
            (
                "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i];",
                "n",
                true,
            ),
            (
                "for (size_t i = idx; i < n; i += stride) dst[i] = src[i];",
                "n",
                true,
            ),
            (
                "for (int j = 0; j < mask_width; j++) acc += in[start + j] * mask[j];",
                "mask_width",
                true,
            ),
            ("acc += A[row * cols + c];", "cols", true),
            ("if (n > threadIdx.x) out[0] = 1;", "n", true),
            (
                "for (int k = 0; k < iters; ++k) acc += tile[(threadIdx.x * S) % 1056];",
                "iters",
                false,
            ),
            ("out[threadIdx.x] = scale * iters;", "iters", false),
            (
                "for (int k = 0; k < iters; ++k) acc += smem[(lane * 2 + k) % 1056];",
                "iters",
                false,
            ),
            // A bound of a position in the grid the subscript reads
            // through another name: ny and nz bound j and k.
            (
                "int i = blockIdx.x * blockDim.x + threadIdx.x; int j = blockIdx.y * blockDim.y + threadIdx.y; int k = blockIdx.z * blockDim.z + threadIdx.z; if (i < nx && j < ny && k < nz) { int idx = i + j * nx + k * nx * ny; out[idx] = 1; }",
                "nz",
                true,
            ),
            // A position within the block is no grid's: `classes` is a
            // row's length, each block's threads striding over it.
            (
                "int tid = threadIdx.x; for (int c = tid; c < classes; c += blockDim.x) acc += 1.0f; out[blockIdx.x] = acc;",
                "classes",
                false,
            ),
            // Nor is a name also set from something else, nor the other
            // side of an `&&`.
            (
                "unsigned x = blockIdx.x * blockDim.x + threadIdx.x; if (x < width && height > radius) { for (int x = -radius; x <= radius; x++) acc += 1.0f; out[0] = acc; }",
                "radius",
                false,
            ),
        ] {
            assert_eq!(bounds_an_index(body, name, &pointers), expected, "{body}");
        }
    }

    #[test]
    fn a_block_that_reads_a_row_of_its_own_is_found() {
        let strides = vec!["cols".to_string(), "n".to_string()];
        for (body, expected) in [
            ("acc += A[blockIdx.x * cols + c];", true),
            ("int row = blockIdx.x; acc += A[row * cols + c];", true),
            ("acc += A[n * blockIdx.x + c];", true),
            (
                "sdata[tid] = in[blockIdx.x * blockDim.x + threadIdx.x];",
                false,
            ),
            ("sdata[tid] = in[blockIdx.x * 256 + threadIdx.x];", false),
            (
                "int row = blockIdx.x; row += 1; acc += A[row * cols];",
                false,
            ),
        ] {
            assert_eq!(block_reads_a_row(body, &strides), expected, "{body}");
        }
    }

    #[test]
    fn partial_results_are_the_only_use_of_a_partial_output() {
        use Partial::{One, PerBlock};
        let cases = [
            (
                "if (t == 0) out[blockIdx.x] = s[0];",
                Some((PerBlock, false)),
            ),
            ("atomicAdd(&out[blockIdx.x], v);", Some((PerBlock, true))),
            (
                "const int bid = blockIdx.x; if (tid == 0) out[bid] = s[0];",
                Some((PerBlock, false)),
            ),
            ("atomicAdd(out, v);", Some((One, true))),
            ("if (lane == 0) atomicAdd(&out[0], v);", Some((One, true))),
            ("if (t == 0) *out += v;", Some((One, true))),
            ("if (t == 0) out[0] = s[0];", Some((One, false))),
            ("p->out = 1; out[blockIdx.x] = 2;", Some((PerBlock, false))),
            // Compared, written elsewhere, mixed, or through a reassigned
            // index: not only partial results.
            ("if (v > out[blockIdx.x]) out[blockIdx.x] = v;", None),
            ("out[threadIdx.x] = 0; out[blockIdx.x] = 1;", None),
            ("out[blockIdx.x] = 1; atomicAdd(out, 2);", None),
            ("int bid = blockIdx.x; bid += 1; out[bid] = 1;", None),
            ("float x = *out;", None),
            ("atomicAdd(&total, out[0]);", None),
        ];
        for (body, expected) in cases {
            assert_eq!(partial_output(body, "out"), expected, "{body}");
        }
    }

    #[test]
    fn structs_of_one_scalar_type_are_vector_types() {
        let source = r#"
            typedef struct { float x,y,z; } Vec3;
            struct Pixel { unsigned char r; unsigned char g; unsigned char b; unsigned char a; };
            typedef struct Wrapped { double v; } Wrapped_t;
            struct Mixed { float x; int y; };
            struct Wide { float v[4]; };
            struct Five { int a, b, c, d, e; };
            struct __align__(16) Aligned { float x, y, z, w; };
            struct Method { float x; float get() { return x; } };
            struct cuHalfComplex {
                half r;
                half i;
                __host__ __device__ cuHalfComplex(half a, half b) : r(a), i(b) {}
                __device__ cuHalfComplex operator*(const cuHalfComplex& a) {
                    return cuHalfComplex(r*a.r - i*a.i, i*a.r + r*a.i);
                }
            public:
                static const int parts = 2;
            };
            struct Virtual { float x; virtual float get() { return x; } };
            struct Halves { half a, b, c; };
        "#;
        assert_eq!(
            scan(source).aliases,
            [
                ("Vec3".to_string(), "float3".to_string()),
                ("Pixel".into(), "uchar4".into()),
                ("Wrapped".into(), "double".into()),
                ("Wrapped_t".into(), "double".into()),
                // Member functions and static members take no room.
                ("Method".into(), "float".into()),
                ("cuHalfComplex".into(), "half2".into()),
            ]
        );
    }

    #[test]
    fn defines_a_flag_cannot_reach() {
        let source = "#define SIZE 16384\n\
                      #ifndef BLOCK\n#define BLOCK 256\n#endif\n\
                      #if !defined(TILE)\n#  define TILE 32\n#else\n#define OTHER 1\n#endif\n\
                      #ifdef USE_FAST\n#define FAST 1\n#endif\n\
                      #define LONG(x) \\\n  #define NOT_A_LINE\n\
                      #define SIZE 1\n";
        assert_eq!(
            scan(source).unguarded_defines,
            [
                ("SIZE".to_string(), 1),
                ("OTHER".into(), 8),
                ("FAST".into(), 11),
                ("LONG".into(), 13),
            ]
        );
        assert_eq!(scan(source).guarded_defines, ["BLOCK", "TILE"]);
    }

    #[test]
    fn module_variables_with_their_types_and_lengths() {
        let source = r#"
            #define KERNEL_LENGTH 17
            __constant__ float c_Kernel[KERNEL_LENGTH];
            __device__ unsigned int counter = 0;
            static __device__ __constant__ int table[2 * 8] = {0};
            __device__ float helper(float x) { return x; }
            __global__ void k(float *x) { __shared__ float tile[32]; }
        "#;
        let variables = scan(source).variables;
        let listed: Vec<(&str, &str, Option<&str>)> = variables
            .iter()
            .map(|v| (v.name.as_str(), v.element.as_str(), v.length.as_deref()))
            .collect();
        assert_eq!(
            listed,
            [
                ("c_Kernel", "float", Some("KERNEL_LENGTH")),
                ("counter", "unsigned int", None),
                ("table", "int", Some("2 * 8")),
            ]
        );
    }

    #[test]
    fn comments_strings_and_macros() {
        let source = r#"
            // extern "C" __global__ void commented(
            /* extern "C" __global__ void block_comment( */
            #define KERNEL(name) extern "C" __global__ void name( \
                int x)
            const char *s = "extern \"C\" __global__ void in_string(";
            extern "C" __global__
            void
            real(int a) {}
        "#;
        let kernels = scan(source);
        assert_eq!(names(&kernels), ["real"]);
        assert!(kernels.declared_by_macro);
        assert!(!scan("#define N 4\n__global__ void k() {}").declared_by_macro);
    }

    #[test]
    fn linkage_declarations_and_blocks_hide_no_kernel() {
        let source = r#"
            extern "C" int counter;
            __global__ void after_declaration() {}
            extern "C" { __global__ void inside() { if (1) { } } }
            __global__ void after_block() {}
            extern "C" __global__ void declared(int);
            extern "C" __global__ void declared(int) {}
            extern "C++" __global__ void cxx() {}
        "#;
        let kernels = scan(source);
        assert_eq!(
            names(&kernels),
            [
                "after_declaration",
                "inside",
                "after_block",
                "declared",
                "cxx"
            ]
        );
    }

    #[test]
    fn parameter_lists_and_the_launches_of_host_code() {
        let source = r#"
            template <int TILE> __global__ void tiled(float *out,
                                                     const float *in, int n) {}
            namespace k { __global__ void plain(double *x) {} }
            int main() {
                tiled<32><<<n / 32, 32>>>(out, in, n);
                k::plain<<<dim3(4, 2), dim3(32, 8), 0, stream>>>(x);
                int shift = 1 << 3;
            }
        "#;
        let kernels = scan(source);
        let parameters: Vec<&str> = kernels
            .kernels
            .iter()
            .map(|k| k.parameters.as_str())
            .collect();
        assert_eq!(
            parameters,
            ["float *out, const float *in, int n", "double *x"]
        );
        let launches: Vec<(&str, Vec<&str>, Vec<&str>)> = kernels
            .launches
            .iter()
            .map(|l| {
                (
                    l.callee.as_str(),
                    l.config.iter().map(String::as_str).collect(),
                    l.arguments.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            launches,
            [
                ("tiled<32>", vec!["n / 32", "32"], vec!["out", "in", "n"]),
                (
                    "k::plain",
                    vec!["dim3(4, 2)", "dim3(32, 8)", "0", "stream"],
                    vec!["x"]
                ),
            ]
        );
        assert!(kernels.launches[0].at < kernels.launches[1].at);
    }

    #[test]
    fn launches_with_whitespace_inside_their_brackets() {
        let source = r#"
            __global__ void k(unsigned int *out, int n) {}
            void run() {
                k << <gridSz, blockSz >> >(out, n);
                k<< < dim3(4), 32, sizeof(A<B<int> >) >> > (out, n);
                int shifted = a << 2 < b, x = c >> 1 > d;
                std::vector<std::vector<std::pair<int, int> > > v;
            }
        "#;
        let kernels = scan(source);
        let launches: Vec<(&str, Vec<&str>, Vec<&str>)> = kernels
            .launches
            .iter()
            .map(|l| {
                (
                    l.callee.as_str(),
                    l.config.iter().map(String::as_str).collect(),
                    l.arguments.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            launches,
            [
                ("k", vec!["gridSz", "blockSz"], vec!["out", "n"]),
                (
                    "k",
                    vec!["dim3(4)", "32", "sizeof(A<B<int> >)"],
                    vec!["out", "n"]
                ),
            ]
        );
        assert_eq!(
            kernels.host_code.as_deref(),
            Some("it launches kernels (`<<<…>>>`)")
        );
        let no_launch = "void f() { int x = a << 2 < b; y = c >> 1 > d; }";
        assert!(scan(no_launch).launches.is_empty());
    }

    #[test]
    fn host_code_is_recognised_by_main_launches_and_host_headers() {
        let device_only = "#include <cooperative_groups.h>\n#include <cuda_fp16.h>\n#include \"local.cuh\"\n__global__ void k() { int a = 1 << 2; }";
        assert_eq!(scan(device_only).host_code, None);
        let cases = [
            (
                "#include <cstdio>\n__global__ void k() {}",
                "it includes the host header <cstdio>",
            ),
            (
                "__global__ void k() {}\nint main() { return 0; }",
                "it defines `main`",
            ),
            (
                "__global__ void k() {}\nvoid run() { k<<<1, 1>>>(); }",
                "it launches kernels (`<<<…>>>`)",
            ),
            (
                "#include <helper_cuda.h>\n__global__ void k() {}\nint main() { return 0; }",
                "it defines `main`",
            ),
        ];
        for (source, reason) in cases {
            assert_eq!(scan(source).host_code.as_deref(), Some(reason), "{source}");
        }
    }
    #[test]
    fn kernel_bodies_are_kept_with_their_definition() {
        let source = r#"
            __global__ void declared(float *out);
            __global__ void declared(float *out) { out[0] = 1; /* } */ }
            __global__ void only_declared(int n);
            __global__ void __launch_bounds__(256) bounded(int *x) { if (x) { x[0] = 2; } }
        "#;
        let kernels = scan(source);
        let bodies: Vec<Option<&str>> = kernels
            .kernels
            .iter()
            .map(|k| k.body.as_deref().map(str::trim))
            .collect();
        assert_eq!(
            bodies,
            [
                Some("out[0] = 1; /* } */"),
                None,
                Some("if (x) { x[0] = 2; }")
            ]
        );
    }

    #[test]
    fn defines_with_a_comment_after_the_value() {
        let source =
            "#define TILE_DIM   32 // the tile\n#define ROWS 8 /* rows */\n#define F(a) (a)\n";
        assert_eq!(
            scan(source).integers,
            [("TILE_DIM".to_string(), 32), ("ROWS".to_string(), 8)]
        );
    }

    #[test]
    fn dim3_variables_function_pointers_and_integer_variables() {
        let source = r#"
            __global__ void copy(float *o, float *i, int w, int h) {}
            int main() {
                void (*kernel)(float *, float *, int, int);
                dim3 grid(size_x / TILE_DIM, size_y / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);
                dim3 other = dim3(4, 2);
                dim3 braced{8, 8, 1};
                dim3 single = n / 256;
                dim3 unset;
                int blocks = (n + 255) / 256;
                kernel = &copy;
                auto second = copy;
                void (*third)(float *, float *, int, int) = &copy;
                if (kernel == &copy) {}
                kernel<<<grid, threads>>>(d_o, d_i, size_x, size_y);
            }
        "#;
        let scanned = scan(source);
        let dim3s: Vec<(&str, Vec<&str>)> = scanned
            .dim3s
            .iter()
            .map(|d| {
                (
                    d.name.as_str(),
                    d.values.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            dim3s,
            [
                ("grid", vec!["size_x / TILE_DIM", "size_y / TILE_DIM"]),
                ("threads", vec!["TILE_DIM", "BLOCK_ROWS"]),
                ("other", vec!["4", "2"]),
                ("braced", vec!["8", "8", "1"]),
                ("single", vec!["n / 256"]),
            ]
        );
        let pairs = |v: &[(String, String)]| -> Vec<(String, String)> { v.to_vec() };
        assert_eq!(
            pairs(&scanned.assignments),
            [
                ("kernel".to_string(), "copy".to_string()),
                ("second".to_string(), "copy".to_string()),
                ("third".to_string(), "copy".to_string()),
            ]
        );
        assert_eq!(
            pairs(&scanned.initializers),
            [("blocks".to_string(), "(n + 255) / 256".to_string())]
        );
    }

    #[test]
    fn a_launch_inside_a_kernel_is_not_the_hosts() {
        let source = r#"
            __global__ void nest(int size) {
                if (threadIdx.x == 0 && size > 1) nest<<<1, size / 2>>>(size / 2);
            }
            int main() { nest<<<grid, block>>>(64); }
        "#;
        let launches = scan(source).launches;
        assert_eq!(launches.len(), 1, "{launches:?}");
        assert_eq!(launches[0].config, ["grid", "block"]);
    }

    #[test]
    fn a_host_functions_integer_parameters_take_what_its_calls_pass() {
        let source = r#"
            __global__ void k(float *p, int n) { if (n) p[0] = 1; }
            void launch_k(float *p, int n, const size_t rows, int *flags, int same, int differs) {
                k<<<n / 256, 256>>>(p, n);
            }
            int helper(int count);
            int main() {
                int size = 1 << 20;
                launch_k(d, size, 2 * size, f, same, 1);
                if (size > 0) { launch_k(d, size, 2 * size, f, same, 2); }
                obj.launch_k(x, 7, 7, f, 7, 7);
                return helper(size);
            }
            int helper(int count) { return count; }
        "#;
        let scanned = scan(source);
        let pairs: Vec<(&str, &str)> = scanned
            .initializers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        // A pointer, a parameter passed its own name and one passed two
        // different values add nothing; a method of the same name is no call.
        assert_eq!(
            pairs,
            [
                ("size", "1 << 20"),
                ("n", "size"),
                ("rows", "2 * size"),
                ("count", "size"),
            ]
        );
    }

    #[test]
    fn the_arguments_of_allocations() {
        let source = r#"
            int main() {
                float *h = (float *)malloc(SIZE * sizeof(float));
                cudaMalloc((void **)&d, N * sizeof(float));
                cudaMallocManaged(&m, count * sizeof(int));
                int *a = new int[len], *b = new std::uint32_t[2 * len];
                Thing *t = new Thing(5);
                cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
            }
        "#;
        assert_eq!(
            scan(source).allocations,
            [
                "SIZE * sizeof(float)",
                "(void **)&d, N * sizeof(float)",
                "&m, count * sizeof(int)",
                "len",
                "2 * len",
            ]
        );
    }

    #[test]
    fn index_dimensions_follow_y_and_z() {
        assert_eq!(
            index_dimensions("int i = blockIdx.x * blockDim.x + threadIdx.x;"),
            (1, 1)
        );
        assert_eq!(
            index_dimensions("int x = threadIdx.x; int y = blockIdx.y * blockDim.y + threadIdx.y;"),
            (2, 2)
        );
        assert_eq!(
            index_dimensions("int row = blockIdx.y; int c = threadIdx.x;"),
            (1, 2)
        );
        assert_eq!(
            index_dimensions("int z = threadIdx.z + blockIdx.z;"),
            (3, 3)
        );
    }

    #[test]
    fn the_sides_of_a_flat_index_are_multiplied_or_divided_by() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let sides = |body: &str, list: &[&str]| sides_of_a_flat_index(body, &names(list));
        // A copy of M×N elements, a row-read transpose, a bias added by
        // column: the count it only compares with is no side.
        assert_eq!(
            sides(
                "size_t idx = blockDim.x * blockIdx.x + threadIdx.x; if (idx < M * N) out[idx] = in[idx];",
                &["M", "N"]
            ),
            names(&["M", "N"])
        );
        assert_eq!(
            sides(
                "size_t m = idx / N; size_t n = idx % N; if (m < M && n < N) out[n * M + m] = in[m * N + n];",
                &["M", "N"]
            ),
            names(&["N", "M"])
        );
        assert_eq!(
            sides(
                "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < total) out[i] += bias[i % n];",
                &["total", "n"]
            ),
            names(&["n"])
        );
        // A dereference, a compound assignment, a count divided: no side.
        assert!(sides("if (i < n) { *p = n; s *= 2; int q = n / 4; }", &["n"]).is_empty());
        // Beside a side, an unused parameter is one too.
        assert_eq!(
            sides(
                "size_t m = idx / N, n = idx % N; out[m * N + n] = in[m * N + n];",
                &["M", "N"]
            ),
            names(&["N", "M"])
        );
        assert!(sides("out[i] = in[i];", &["n"]).is_empty());
    }

    #[test]
    fn pointer_parameters_read_written_or_both() {
        // (body, parameter, read, written, escapes)
        let cases = [
            ("out[i] = in[i];", "out", false, true, false),
            ("out[i] = in[i];", "in", true, false, false),
            ("C[i] = alpha * t + beta * C[i];", "C", true, true, false),
            ("C[i] += x;", "C", true, true, false),
            ("p[i] <<= 1;", "p", true, true, false),
            (
                "x = p[i] >= 1 && p[j] <= 2 && p[k] == 3 && p[l] != 4;",
                "p",
                true,
                false,
                false,
            ),
            ("*p = 1;", "p", false, true, false),
            ("*(p + i * n) = 1;", "p", false, true, false),
            ("x = *(p + i);", "p", true, false, false),
            ("x = a && *p;", "p", true, false, false),
            ("x = a * p[i] & p[j];", "p", true, false, false),
            (
                "reinterpret_cast<float4 *>(&p[i * K + j])[0] = v;",
                "p",
                false,
                true,
                false,
            ),
            (
                "float4 v = reinterpret_cast<float4 *>(&p[i])[0];",
                "p",
                true,
                false,
                false,
            ),
            (
                "reinterpret_cast<float4 *>(&s[i])[0] = reinterpret_cast<float4 *>(&p[i])[0];",
                "p",
                true,
                false,
                false,
            ),
            ("((float4 *)p)[i] = v;", "p", false, true, false),
            ("p[i]++;", "p", true, true, false),
            ("--p[i];", "p", true, true, false),
            ("p[i].x = 1;", "p", false, true, false),
            ("atomicAdd(&p[i], v);", "p", true, true, false),
            ("atomicAdd(p + i, v);", "p", true, true, false),
            ("atomicExch(&p[i], v);", "p", false, true, false),
            ("x = __ldg(&p[i]);", "p", true, false, false),
            ("A += BLOCKSIZE * K; x = A[0];", "A", true, false, false),
            ("p = p + 1; p[0] = x;", "p", false, true, false),
            ("p++; ++p; p[0] = 1;", "p", false, true, false),
            (
                "if (p != nullptr && p[0] > 1) { q[0] = 1; }",
                "p",
                true,
                false,
                false,
            ),
            (
                "for (int i = 0; i < n; i++) out[i] = 0;",
                "out",
                false,
                true,
                false,
            ),
            (
                "if (x) out[i] = 0; else out[i] = 1;",
                "out",
                false,
                true,
                false,
            ),
            ("tile[p[i]] = 1;", "p", true, false, false),
            ("x = c ? p[i] : 0;", "p", true, false, false),
            (
                "s.p[i] = 1; t->p[0] = 2; ns::p(3);",
                "p",
                false,
                false,
                false,
            ),
            ("helper(p, n);", "p", false, false, true),
            // A local pointer declared from it is followed.
            ("float *q = p + i; *q = 1;", "p", false, true, false),
            (
                "float* x = p + blockDim.x * blockIdx.x; x[t] += x[t + o];",
                "p",
                true,
                true,
                false,
            ),
            (
                "const float *row = &p[r * K]; v = row[k];",
                "p",
                true,
                false,
                false,
            ),
            (
                "float *q = p; float *r = q + 1; helper(r);",
                "p",
                false,
                false,
                true,
            ),
            ("q = p + i; *q = 1;", "p", false, false, true),
            ("x = helper(p[i]);", "p", true, false, false),
            ("FLOAT4(p[i]) = v;", "p", false, true, false),
            (
                "FETCH_FLOAT4(p[OFFSET(a, b, n)])[0] += v;",
                "p",
                true,
                true,
                false,
            ),
            (
                "float4 t = FETCH_FLOAT4(p[i]); FETCH_FLOAT4(p[i]) = t;",
                "p",
                true,
                true,
                false,
            ),
            ("HALF2(p[i])++;", "p", true, true, false),
            ("x = HALF2(p[i]) == v;", "p", true, false, false),
            ("s.at(p[i]) = 1; if (p[i]) x = 1;", "p", true, false, false),
            ("x = sizeof(p);", "p", false, false, false),
            (
                "wmma::load_matrix_sync(a, p + k, K); wmma::store_matrix_sync(q + n, c, N, wmma::mem_row_major);",
                "p",
                true,
                false,
                false,
            ),
            (
                "wmma::store_matrix_sync(p + n, c, N, wmma::mem_row_major);",
                "p",
                false,
                true,
                false,
            ),
            (
                "const char *q = (const char *)(p + off); x = *(const float *)(q + 4);",
                "p",
                true,
                false,
                false,
            ),
            ("", "p", false, false, false),
        ];
        for (body, name, read, written, escapes) in cases {
            assert_eq!(
                pointer_use(body, name, &[]),
                PointerUse {
                    read,
                    written,
                    escapes
                },
                "{body}"
            );
        }
    }

    #[test]
    fn a_pointer_handed_to_a_device_function_is_followed_into_it() {
        let source = "
            template <int BM, int BK>
            __device__ __forceinline__ void load_tile(float *dst, const float * __restrict__ src, int ld) {
                dst[threadIdx.x] = src[threadIdx.x * ld];
            }
            __device__ void store(float *out, float v) { out[threadIdx.x] = v; }
            __device__ void bump(float *acc) { acc[0] += 1.0f; }
            __device__ void recurse(float *p, int n) { if (n) recurse(p, n - 1); }
            __device__ void pass_on(float *q, float v) { store(q, v); }
            __device__ void mystery(float *p, int n);
            __device__ float counter;
            __global__ void k(float *a, float *b, float *c, float *d, float *e, float *f, float *g) {
                __shared__ float tile[256];
                load_tile<64, 8>(tile, a, 4);
                store(b + blockIdx.x * 256, tile[0]);
                bump(c);
                recurse(d, 3);
                pass_on(e, 1.0f);
                mystery(f, 2);
                s.store(g, 1.0f);
            }
        ";
        let scanned = scan(source);
        let names: Vec<(&str, Vec<Option<&str>>)> = scanned
            .functions
            .iter()
            .map(|f| {
                let parameters = f.parameters.iter().map(Option::as_deref).collect();
                (f.name.as_str(), parameters)
            })
            .collect();
        assert_eq!(
            names,
            [
                ("load_tile", vec![Some("dst"), Some("src"), Some("ld")]),
                ("store", vec![Some("out"), Some("v")]),
                ("bump", vec![Some("acc")]),
                ("recurse", vec![Some("p"), Some("n")]),
                ("pass_on", vec![Some("q"), Some("v")]),
            ]
        );
        let body = scanned.kernels[0].body.as_deref().unwrap();
        let uses = |name: &str| {
            let found = pointer_use(body, name, &scanned.functions);
            (found.read, found.written, found.escapes)
        };
        assert_eq!(uses("a"), (true, false, false), "read by load_tile");
        assert_eq!(uses("b"), (false, true, false), "written by store");
        assert_eq!(uses("c"), (true, true, false), "added to by bump");
        // Followed as deep as it goes, then handed on.
        assert_eq!(uses("d"), (false, false, true), "recursion");
        assert_eq!(uses("e"), (false, true, false), "through pass_on to store");
        assert_eq!(uses("f"), (false, false, true), "only declared");
        assert_eq!(uses("g"), (false, false, true), "a member's call");
        // Without the functions, every one is handed on.
        assert!(pointer_use(body, "a", &[]).escapes);
    }

    #[test]
    fn a_pointer_given_to_inline_assembly_is_read_or_written_by_its_instructions() {
        let source = r#"
            #define CP_ASYNC_CG(dst, src, bytes) \
                asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], %2, %3;\n" \
                             ::"r"(dst), "l"(src), "n"(bytes), "n"(bytes))
            __device__ __forceinline__ void ldg32_nc(float &reg, const void *ptr, bool guard) {
                asm volatile("{.reg .pred p;\n"
                             " setp.ne.b32 p, %2, 0;\n"
                             " @p ld.global.nc.f32 %0, [%1];}\n"
                             : "=f"(reg)
                             : "l"(ptr), "r"((int)guard));
            }
            __device__ __forceinline__ void stg128(float a, float b, const void *ptr) {
                asm volatile("st.global.v2.f32 [%2], {%0, %1};" :: "f"(a), "f"(b), "l"(ptr));
            }
            __global__ void k(const float *A, float *B, float *C, float *Q, float *D) {
                __shared__ float s[128];
                const char *A_ldg_ptr = (const char *)(A + blockIdx.x * 128);
                float r;
                ldg32_nc(r, A_ldg_ptr + threadIdx.x * sizeof(float), true);
                stg128(r, r, B + threadIdx.x);
                CP_ASYNC_CG(smem_addr, &Q[threadIdx.x * 4], 16);
                asm volatile("mov.b64 %0, %1;" : "=l"(addr) : "l"(D));
                C[0] = r;
            }
        "#;
        // The same with Windows line ends (a macro continued over `\\\r\n`).
        for source in [source.to_string(), source.replace('\n', "\r\n")] {
            let scanned = scan(&source);
            let body = scanned.kernels[0].body.as_deref().unwrap();
            let uses = |name: &str| {
                let found = pointer_use(body, name, &scanned.functions);
                (found.read, found.written, found.escapes)
            };
            assert_eq!(
                uses("A"),
                (true, false, false),
                "ld.global.nc through a cast alias"
            );
            assert_eq!(uses("B"), (false, true, false), "st.global");
            assert_eq!(
                uses("Q"),
                (true, false, false),
                "cp.async's source, in a macro"
            );
            assert_eq!(uses("D"), (false, false, true), "moved into a register");
        }
    }

    #[test]
    fn parameter_names_skip_qualifiers_defaults_and_arrays() {
        let source = "__device__ void f(const float * __restrict__ a, int, float b[16], \
                      Pair<int, 4> p, float *, int n = 3) {}";
        let names = &scan(source).functions[0].parameters;
        assert_eq!(
            names.iter().map(Option::as_deref).collect::<Vec<_>>(),
            [Some("a"), None, Some("b"), Some("p"), None, Some("n")]
        );
    }

    #[test]
    fn values_read_from_a_buffer_that_index_an_array_are_found_through_the_variables_that_carry_them()
     {
        let histogram = "int tid = blockIdx.x * blockDim.x + threadIdx.x; int pos;\n\
            for (int i = tid; i < N; i += gridDim.x * blockDim.x) {\n\
              pos = a[i] - 'a';\n\
              atomicAdd(&bins[(pos / DIV)], 1);\n\
            }";
        assert_eq!(
            indexes_with(histogram, "a").as_deref(),
            Some("bins[(pos / DIV)]")
        );
        assert!(only_added_to(histogram, "bins"));
        let spmv = "int row = blockIdx.x * blockDim.x + threadIdx.x; float dot = 0;\n\
            int start = row_ptr[row], end = row_ptr[row + 1];\n\
            for (int j = start; j < end; j++) dot += val[j] * x[col[j]];\n\
            y[row] = dot;";
        assert_eq!(indexes_with(spmv, "row_ptr").as_deref(), Some("val[j]"));
        assert_eq!(indexes_with(spmv, "col").as_deref(), Some("x[col[j]]"));
        // A value summed, stored or compared indexes nothing.
        for (body, name) in [
            (spmv, "val"),
            (spmv, "x"),
            (
                "float sum = 0.0f; for (size_t i = 0; i < ds; i++) sum += A[idx * ds + i]; sums[idx] = sum;",
                "A",
            ),
            (
                "int idx = FIXME\n if (idx < ds){ float sum = 0.0f; for (size_t i = 0; i < ds; i++) sum += A[FIXME] sums[idx] = sum; }",
                "A",
            ),
            (
                "float v = in[i]; s[threadIdx.x] = v; if (v > m) m = v; out[blockIdx.x] = s[0];",
                "in",
            ),
        ] {
            assert_eq!(indexes_with(body, name), None, "{name} in {body}");
        }
        // Added to at one element, or read as well: not only added to.
        assert!(only_added_to("atomicAdd(total, v);", "total"));
        assert!(only_added_to("atomicAdd(counts + warp, 1);", "counts"));
        assert!(!only_added_to(
            "atomicAdd(&bins[b], 1); if (bins[0] > 3) return;",
            "bins"
        ));
        assert!(!only_added_to("atomicMax(&best[0], v);", "best"));
        assert!(!only_added_to("int x = 0;", "bins"));
    }

    #[test]
    fn host_arrays_drawn_from_rand_give_the_range_of_the_device_buffer_they_are_copied_into() {
        let source = "const int LETTERS = 26;\n\
            int main() { std::vector<char> h_text(n); std::vector<int> h_v(n), h_w(n), h_x(n);\n\
              generate(begin(h_text), end(h_text), []() { return 'a' + (rand() % LETTERS); });\n\
              for (int i = 0; i < n; i++) h_v[i] = (int)(rand() % 10) + 1;\n\
              for (auto &x : h_w) x = rand() % 100 + 'a';\n\
              for (int i = 0; i < n; i++) h_x[i] = rand() / (float)RAND_MAX;\n\
              cudaMemcpy(d_text, h_text.data(), n, cudaMemcpyHostToDevice);\n\
              cudaMemcpy((void *)d_v, &h_v[0], bytes, cudaMemcpyHostToDevice);\n\
              cudaMemcpy(d_w, h_w.data(), bytes, cudaMemcpyHostToDevice);\n\
              cudaMemcpy(d_x, h_x.data(), bytes, cudaMemcpyHostToDevice);\n\
              cudaMemcpy(h_v.data(), d_v, bytes, cudaMemcpyDeviceToHost); }";
        let fills: Vec<(String, i64, i64)> = scan(source)
            .random_fills
            .into_iter()
            .map(|fill| (fill.device, fill.low, fill.high))
            .collect();
        assert_eq!(
            fills,
            [
                ("d_text".to_string(), 97, 123),
                ("d_v".to_string(), 1, 11),
                ("d_w".to_string(), 97, 197),
            ]
        );
        // Neither a product nor a shift on both sides is a range.
        for expression in ["rand() % 10 * 2", "1 + rand() % 10 + 2", "rand()"] {
            assert_eq!(drawn_range(expression, &[]), None, "{expression}");
        }
    }
}
