//! What a CUDA source declares, read before any compiler runs: its
//! `__global__` functions (with their namespace, their template parameter
//! list and whether they are `extern "C"`), whether a macro may declare
//! more of them, and whether the file holds host code (a `main`, a
//! `<<<…>>>` launch, a host header), which NVRTC cannot compile; and the
//! headers it includes. It lets the config check name a wrong `entry` and
//! the kernels the file does define, lets the build choose its compiler,
//! and lets the build cache follow the user's headers. A light tokenizer, not a C++
//! parser: comments, string and character literals are skipped, and
//! preprocessor lines are read only for `#include` and `#define`.

use super::signature::split_top_level;

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
}

/// One `kernel<<<grid, block[, shared]>>>` launch, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launch {
    /// What is launched: `reduce6<256, true>`, `naiveCopy`.
    pub(crate) callee: String,
    /// The launch configuration's expressions: grid, block, shared memory, stream.
    pub(crate) config: Vec<String>,
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
enum Token {
    Ident(String),
    /// A string literal's contents.
    Str(String),
    Punct(char),
}

/// A token and the character offset where it starts.
type Located = (Token, usize);

/// Attribute-like macros that may stand between `__global__` and the name,
/// each followed by a parenthesized argument list.
const ATTRIBUTES: [&str; 5] = [
    "__launch_bounds__",
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

pub(crate) fn scan(source: &str) -> Kernels {
    let chars: Vec<char> = source.chars().collect();
    let (tokens, directives) = tokenize(&chars);
    let mut found = Kernels {
        declared_by_macro: directives
            .iter()
            .any(|d| d.starts_with("define") && d.contains("__global__")),
        host_code: host_header(&directives),
        integers: defined_integers(&directives)
            .chain(constant_integers(&tokens))
            .collect(),
        ..Kernels::default()
    };
    let mut scopes: Vec<Scope> = Vec::new();
    // The current declaration started with `template <…>`.
    let mut template: Option<String> = None;
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
            }
            Token::Ident(word) if word == "__global__" => {
                if let Some((name, open)) = function_name(&tokens[i + 1..]) {
                    let kernel = Kernel {
                        name: qualified(&scopes, &name),
                        template: template.take(),
                        parameters: parameters_at(&tokens, i + 1 + open),
                    };
                    if !found.kernels.iter().any(|k| k.name == kernel.name) {
                        found.kernels.push(kernel);
                    }
                }
            }
            Token::Ident(word) if word == "main" && scopes.is_empty() => {
                if matches!(tokens.get(i + 1), Some((Token::Punct('('), _))) {
                    found.host_code.get_or_insert("it defines `main`".into());
                }
            }
            Token::Punct('<') if is_launch(&tokens, i) => {
                found
                    .host_code
                    .get_or_insert("it launches kernels (`<<<…>>>`)".into());
                found.launches.extend(launch_at(&tokens, &chars, i));
                i += 3;
                continue;
            }
            Token::Punct('{') => {
                scopes.push(Scope::Other);
                template = None;
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

/// `#define NAME <integer>` lines.
fn defined_integers(directives: &[String]) -> impl Iterator<Item = (String, i64)> + '_ {
    directives.iter().filter_map(|d| {
        let rest = d.strip_prefix("define")?;
        let mut words = rest.trim().splitn(2, char::is_whitespace);
        let name = words.next()?;
        let value = integer_literal(words.next()?)?;
        let plain = name.chars().all(|c| c.is_alphanumeric() || c == '_');
        plain.then(|| (name.to_string(), value))
    })
}

/// `const TYPE NAME = <integer>;` and `constexpr` ones.
fn constant_integers(tokens: &[Located]) -> impl Iterator<Item = (String, i64)> + '_ {
    (1..tokens.len().saturating_sub(2)).filter_map(move |i| {
        let (Token::Ident(name), _) = &tokens[i] else {
            return None;
        };
        let assigned = matches!(tokens[i + 1].0, Token::Punct('='))
            && matches!(tokens.get(i + 3), Some((Token::Punct(';'), _)));
        let Token::Ident(value) = &tokens[i + 2].0 else {
            return None;
        };
        let constant = tokens[i.saturating_sub(4)..i]
            .iter()
            .rev()
            .take_while(|(t, _)| !matches!(t, Token::Punct(';' | '{' | '}')))
            .any(|(t, _)| matches!(t, Token::Ident(w) if w == "const" || w == "constexpr"));
        (assigned && constant)
            .then(|| integer_literal(value))
            .flatten()
            .map(|value| (name.clone(), value))
    })
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

/// `<<<` at `i`, not part of a shift or a template: three `<` in a row.
fn is_launch(tokens: &[Located], i: usize) -> bool {
    (1..3).all(
        |k| matches!(tokens.get(i + k), Some((Token::Punct('<'), at)) if *at == tokens[i].1 + k),
    )
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
    let close = (at + 3..tokens.len().saturating_sub(2)).find(|&k| {
        (0..3).all(|j| matches!(tokens[k + j], (Token::Punct('>'), o) if o == tokens[k].1 + j))
    })?;
    let inside: String = chars[tokens[at].1 + 3..tokens[close].1].iter().collect();
    Some(Launch {
        callee: callee.split_whitespace().collect(),
        config: split_top_level(&inside, false),
    })
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
fn tokenize(chars: &[char]) -> (Vec<Located>, Vec<String>) {
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
                if chars[i] == '\\' && chars.get(i + 1) == Some(&'\n') {
                    i += 2;
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
fn skip_until(chars: &[char], from: usize, end: &str) -> usize {
    let end: Vec<char> = end.chars().collect();
    (from..chars.len())
        .find(|&i| chars[i..].starts_with(&end))
        .unwrap_or(chars.len())
}

/// A string or character literal starting at `start`: its contents and
/// the index after its closing quote.
fn literal(chars: &[char], start: usize) -> (String, usize) {
    let quote = chars[start];
    let mut text = String::new();
    let mut i = start + 1;
    while i < chars.len() && chars[i] != quote && chars[i] != '\n' {
        if chars[i] == '\\' {
            i += 1;
        }
        if let Some(&ch) = chars.get(i) {
            text.push(ch);
        }
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
            const int THREADS = 128;
            int main() { constexpr unsigned int PER_THREAD = 4u; const float *p; n = 5; }
        "#;
        assert_eq!(
            scan(source).integers,
            [
                ("BLOCK_SIZE".to_string(), 256),
                ("MASK".to_string(), 255),
                ("THREADS".to_string(), 128),
                ("PER_THREAD".to_string(), 4)
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
        assert_eq!(
            kernels.launches,
            [
                Launch {
                    callee: "tiled<32>".into(),
                    config: vec!["n / 32".into(), "32".into()],
                },
                Launch {
                    callee: "k::plain".into(),
                    config: vec![
                        "dim3(4, 2)".into(),
                        "dim3(32, 8)".into(),
                        "0".into(),
                        "stream".into()
                    ],
                },
            ]
        );
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
        ];
        for (source, reason) in cases {
            assert_eq!(scan(source).host_code.as_deref(), Some(reason), "{source}");
        }
    }
}
