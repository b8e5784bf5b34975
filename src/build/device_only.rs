//! A kernel file's device code alone, for `device_only = true`: the file
//! as written with its host-only parts blanked out (spaces, every line
//! kept, so the compiler's messages and the profiler's source lines keep
//! the file's line numbers). A PyTorch or pybind11 extension (`#include
//! <torch/extension.h>`, `torch::Tensor` bindings, `PYBIND11_MODULE`) or
//! a file whose `main` needs a library gpuprof does not have then
//! compiles with its kernels as they are. Left out, at file scope and in
//! namespaces: functions and declarations with no CUDA device word
//! (`__global__`, `__device__`, `__constant__`, …; `__host__` alone is
//! host code) and not `constexpr`; and calls of macros at file scope
//! (`TORCH_BINDING(f32)`, `PYBIND11_MODULE(name, m) { … }`), except of
//! macros of the file or of the headers beside it that define device
//! code. Types, variables, templates of types,
//! preprocessor lines and everything device-side stay. The headers such
//! a file includes that are found nowhere are left to the compiler run,
//! which stands an empty header in for each (`nvcc`).

use std::ops::Range;

use crate::config::kernels::{Located, Token, group_end, tokenize};

/// Words that mark a declaration as device code (or both sides':
/// `__host__ __device__`; `__host__` alone is host code).
const DEVICE_WORDS: [&str; 7] = [
    "__global__",
    "__device__",
    "__constant__",
    "__shared__",
    "__managed__",
    "__launch_bounds__",
    "constexpr",
];

/// Words that start a declaration of a type or a name, kept whole.
const TYPE_WORDS: [&str; 7] = [
    "struct",
    "class",
    "union",
    "enum",
    "typedef",
    "using",
    "static_assert",
];

/// The file's text with its host-only parts blanked, and what was left
/// out: by the line (from 1) it starts on, what it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeviceCode {
    pub(crate) text: String,
    pub(crate) left_out: Vec<(usize, String)>,
}

/// `text` (a kernel file) with its host-only parts blanked out; calls of
/// macros that define device code, the file's own or those of `headers`
/// (the texts of the headers it includes), stay.
pub(crate) fn device_code(text: &str, headers: &[String]) -> DeviceCode {
    let chars: Vec<char> = text.chars().collect();
    let (tokens, mut directives) = tokenize(&chars);
    for header in headers {
        let header: Vec<char> = header.chars().collect();
        directives.extend(tokenize(&header).1);
    }
    let device_macros = device_macros(&directives);
    let mut regions: Vec<(Range<usize>, String)> = Vec::new();
    file_scope(&tokens, 0..tokens.len(), &device_macros, &mut regions);
    let mut blanked = chars.clone();
    let mut left_out = Vec::new();
    for (range, what) in regions {
        let from = tokens[range.start].1;
        let last = &tokens[range.end - 1];
        let to = last.1
            + match &last.0 {
                Token::Ident(word) => word.chars().count(),
                _ => 1,
            };
        blank(&mut blanked, from..to.min(chars.len()));
        let line = 1 + chars[..from].iter().filter(|&&c| c == '\n').count();
        left_out.push((line, what));
    }
    DeviceCode {
        text: blanked.into_iter().collect(),
        left_out,
    }
}

/// The file's function-like macros whose body declares device code
/// (`#define KERNEL(name) __global__ void name(float *x)`): calls of them
/// stay.
fn device_macros(directives: &[String]) -> Vec<String> {
    directives
        .iter()
        .filter_map(|directive| {
            let rest = directive.strip_prefix("define")?.trim_start();
            let open = rest.find('(')?;
            let name = &rest[..open];
            let device = DEVICE_WORDS
                .iter()
                .chain(&["template", "struct", "class"])
                .any(|word| rest[open..].contains(word));
            (device && !name.contains(char::is_whitespace)).then(|| name.to_string())
        })
        .collect()
}

/// The declarations of `tokens[range]`, a file's or a namespace's scope,
/// that are left out, into `regions`; namespaces and `extern "C" { … }`
/// blocks are walked into.
fn file_scope(
    tokens: &[Located],
    range: Range<usize>,
    device_macros: &[String],
    regions: &mut Vec<(Range<usize>, String)>,
) {
    let mut i = range.start;
    while i < range.end {
        let opens_block = match &tokens[i].0 {
            Token::Punct(';') => {
                i += 1;
                continue;
            }
            Token::Ident(word) if word == "namespace" => (i + 1..range.end)
                .find(|&k| punct(tokens, k, '{') || punct(tokens, k, ';'))
                .filter(|&k| punct(tokens, k, '{')),
            Token::Ident(word) if word == "extern" => {
                let linkage = matches!(tokens.get(i + 1), Some((Token::Str(_), _)));
                (linkage && punct(tokens, i + 2, '{')).then_some(i + 2)
            }
            _ => None,
        };
        if let Some(open) = opens_block {
            let end = group_end(tokens, open).min(range.end);
            file_scope(
                tokens,
                open + 1..end.saturating_sub(1),
                device_macros,
                regions,
            );
            i = end;
            continue;
        }
        let (end, left_out) = declaration(tokens, i, range.end, device_macros);
        if let Some(what) = left_out {
            regions.push((i..end, what));
        }
        i = end.max(i + 1);
    }
}

/// The declaration that starts at `start` (before `hi`): the index after
/// it, and what it is where it is left out.
fn declaration(
    tokens: &[Located],
    start: usize,
    hi: usize,
    device_macros: &[String],
) -> (usize, Option<String>) {
    // A macro's call at file scope: `NAME(…)`, maybe with a block or `;`.
    if let Token::Ident(name) = &tokens[start].0
        && punct(tokens, start + 1, '(')
        && !TYPE_WORDS.contains(&name.as_str())
    {
        let after = group_end(tokens, start + 1).min(hi);
        let end = match () {
            _ if punct(tokens, after, '{') => group_end(tokens, after).min(hi),
            _ if punct(tokens, after, ';') => after + 1,
            _ => after,
        };
        let kept = device_macros.contains(name);
        return (end, (!kept).then(|| format!("the macro call {name}(…)")));
    }
    let mut k = start;
    if matches!(&tokens[k].0, Token::Ident(w) if w == "template") && punct(tokens, k + 1, '<') {
        k = angle_end(tokens, k + 1, hi);
    }
    let first_word = match &tokens.get(k).map(|t| &t.0) {
        Some(Token::Ident(word)) => word.clone(),
        _ => String::new(),
    };
    // The head runs to the body's `{` or the `;`, past brackets.
    let (mut parameters, mut assigned) = (None, false);
    let mut j = k;
    while j < hi {
        match tokens[j].0 {
            Token::Punct('(') if parameters.is_none() && !assigned => {
                parameters = Some(j);
                j = group_end(tokens, j);
                continue;
            }
            Token::Punct('(' | '[') => {
                j = group_end(tokens, j);
                continue;
            }
            Token::Punct('{' | ';') => break,
            Token::Punct('=') => assigned = true,
            _ => {}
        }
        j += 1;
    }
    let body = punct(tokens, j, '{');
    let end = match body {
        true => {
            let close = group_end(tokens, j).min(hi);
            close + usize::from(punct(tokens, close, ';'))
        }
        false => (j + 1).min(hi),
    };
    let device = tokens[start..j]
        .iter()
        .any(|(t, _)| matches!(t, Token::Ident(w) if DEVICE_WORDS.contains(&w.as_str())));
    let kept = device || assigned || TYPE_WORDS.contains(&first_word.as_str());
    let Some(open) = parameters.filter(|_| !kept) else {
        return (end, None);
    };
    let name = match open.checked_sub(1).map(|p| &tokens[p].0) {
        Some(Token::Ident(name)) => name.clone(),
        _ => "operator".to_string(),
    };
    let what = match body {
        true => format!("the host function {name}"),
        false => format!("the host declaration of {name}"),
    };
    (end, Some(what))
}

/// The index after the `>` that closes the `<` at `open` (brackets inside
/// skipped), at most `hi`.
fn angle_end(tokens: &[Located], open: usize, hi: usize) -> usize {
    let mut depth = 0usize;
    let mut k = open;
    while k < hi {
        match tokens[k].0 {
            Token::Punct('(' | '[' | '{') => {
                k = group_end(tokens, k);
                continue;
            }
            Token::Punct('<') => depth += 1,
            Token::Punct('>') => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
        k += 1;
    }
    hi
}

/// Whether token `k` is the punctuation `c`.
fn punct(tokens: &[Located], k: usize, c: char) -> bool {
    matches!(tokens.get(k), Some((Token::Punct(p), _)) if *p == c)
}

/// Spaces over `chars[range]`, except line ends and preprocessor lines
/// (with their continuations), which stay.
fn blank(chars: &mut [char], range: Range<usize>) {
    let mut line_start = range.start == 0 || chars[range.start - 1] == '\n';
    let mut directive = false;
    for i in range {
        let c = chars[i];
        if c == '\n' {
            directive &= i > 0 && chars[i - 1] == '\\'
                || (i > 1 && chars[i - 1] == '\r' && chars[i - 2] == '\\');
            line_start = true;
            continue;
        }
        if line_start && c == '#' {
            directive = true;
        }
        line_start &= c.is_whitespace();
        if !directive && c != '\r' {
            chars[i] = ' ';
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torch_extension_keeps_its_kernels_and_loses_its_bindings() {
        let source = r#"#include <torch/extension.h>
#include <cuda_fp16.h>
#define HALF2(v) (reinterpret_cast<half2 *>(&(v))[0])
#define KERNEL(name) __global__ void name(float *x) { x[0] = 1; }
namespace {
constexpr int kThreads = 256;
}
struct Pair { float a, b; };
__device__ __forceinline__ float twice(float v) { return 2 * v; }
template <typename T>
__global__ void relu(T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > T(0) ? x[i] : T(0);
}
KERNEL(ones)
#define TORCH_BINDING(name, T)                 \
  void name(torch::Tensor x, torch::Tensor y) {  \
    relu<T><<<1, 1>>>(x.data_ptr<T>(), y.data_ptr<T>(), 1); \
  }
TORCH_BINDING(relu_f32, float)
TORCH_BINDING(relu_f16, half)
torch::Tensor scale(torch::Tensor x);
void launch(torch::Tensor x) {
#ifdef DEBUG
  printf("launch\n");
#endif
  relu<float><<<1, 1>>>(nullptr, nullptr, 0);
}
template <typename T> void launch_t(T *x) { relu<T><<<1, 1>>>(x, x, 0); }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("relu_f32", &relu_f32, "relu_f32");
}
"#;
        let device = device_code(source, &[]);
        assert_eq!(
            device.left_out,
            [
                (20, "the macro call TORCH_BINDING(…)".to_string()),
                (21, "the macro call TORCH_BINDING(…)".to_string()),
                (22, "the host declaration of scale".to_string()),
                (23, "the host function launch".to_string()),
                (29, "the host function launch_t".to_string()),
                (30, "the macro call PYBIND11_MODULE(…)".to_string()),
            ]
        );
        // Every line stays, and the device code is as written.
        assert_eq!(device.text.lines().count(), source.lines().count());
        let kept: Vec<&str> = device.text.lines().map(str::trim_end).collect();
        for line in [
            "#include <torch/extension.h>",
            "constexpr int kThreads = 256;",
            "struct Pair { float a, b; };",
            "__device__ __forceinline__ float twice(float v) { return 2 * v; }",
            "  if (i < n) y[i] = x[i] > T(0) ? x[i] : T(0);",
            "KERNEL(ones)",
            "#ifdef DEBUG",
            "#endif",
        ] {
            assert!(kept.contains(&line), "{line}\n{}", device.text);
        }
        for gone in [
            "TORCH_BINDING(relu_f32",
            "launch",
            "m.def",
            "scale",
            "printf",
        ] {
            let still = kept.iter().any(|l| !l.starts_with('#') && l.contains(gone));
            assert!(!still, "{gone}\n{}", device.text);
        }
    }

    #[test]
    fn a_header_macro_that_defines_a_kernel_stays_and_host_alone_goes() {
        let header = "#define ELEMENTWISE(name, op) \\\n  __global__ void name(float *x) { x[0] = op(x[0]); }\n";
        let source = "#include \"ops.h\"\nELEMENTWISE(twice, 2 *)\n__host__ void setup(torch::Tensor t) {}\n__host__ __device__ float both(float v) { return v; }\n";
        let kept = device_code(source, &[header.to_string()]);
        assert_eq!(kept.left_out, [(3, "the host function setup".to_string())]);
        // Without the header, its macro's call is taken for host code.
        let alone = device_code(source, &[]);
        assert_eq!(
            alone.left_out[0],
            (2, "the macro call ELEMENTWISE(…)".to_string())
        );
    }
}
