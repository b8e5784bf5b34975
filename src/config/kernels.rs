//! Finds the `__global__` functions a CUDA source declares, and which of
//! them are `extern "C"` (either `extern "C" __global__ void f(` or inside an
//! `extern "C" { ... }` block), so that a wrong `entry` is reported before
//! NVRTC is ever run. A light tokenizer, not a C++ parser: comments, string
//! and character literals and preprocessor lines are skipped.

/// The kernels of one source file, each list in source order without repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Kernels {
    /// `extern "C"` `__global__` functions: what NVRTC can look up by name.
    pub(crate) extern_c: Vec<String>,
    /// `__global__` functions with C++ linkage (mangled names).
    pub(crate) mangled: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    /// A string literal's contents.
    Str(String),
    Punct(char),
}

/// Attribute-like macros that may stand between `__global__` and the name,
/// each followed by a parenthesized argument list.
const ATTRIBUTES: [&str; 5] = [
    "__launch_bounds__",
    "__attribute__",
    "__declspec",
    "__align__",
    "alignas",
];

pub(crate) fn scan(source: &str) -> Kernels {
    let tokens = tokenize(source);
    let mut kernels = Kernels::default();
    // One entry per open `{`: whether it opened an `extern "C"` block.
    let mut braces: Vec<bool> = Vec::new();
    // The current declaration started with `extern "C"`.
    let mut declaration_is_c = false;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Ident(word) if word == "extern" => {
                if matches!(tokens.get(i + 1), Some(Token::Str(s)) if s == "C") {
                    if tokens.get(i + 2) == Some(&Token::Punct('{')) {
                        braces.push(true);
                        i += 3;
                        continue;
                    }
                    declaration_is_c = true;
                    i += 2;
                    continue;
                }
            }
            Token::Ident(word) if word == "__global__" => {
                if let Some(name) = function_name(&tokens[i + 1..]) {
                    let is_c = declaration_is_c || braces.iter().any(|&c| c);
                    let list = if is_c {
                        &mut kernels.extern_c
                    } else {
                        &mut kernels.mangled
                    };
                    if !list.contains(&name) {
                        list.push(name);
                    }
                }
            }
            Token::Punct('{') => {
                braces.push(false);
                declaration_is_c = false;
            }
            Token::Punct('}') => {
                braces.pop();
                declaration_is_c = false;
            }
            Token::Punct(';') => declaration_is_c = false,
            _ => {}
        }
        i += 1;
    }
    kernels
}

/// The declared name in the tokens after `__global__`: the first identifier
/// followed by `(`, skipping attribute macros and their arguments.
fn function_name(tokens: &[Token]) -> Option<String> {
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Ident(word) if ATTRIBUTES.contains(&word.as_str()) => {
                i = skip_group(tokens, i + 1);
                continue;
            }
            Token::Ident(word) if tokens.get(i + 1) == Some(&Token::Punct('(')) => {
                return Some(word.clone());
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
fn skip_group(tokens: &[Token], start: usize) -> usize {
    if tokens.get(start) != Some(&Token::Punct('(')) {
        return start;
    }
    let mut depth = 0usize;
    for (offset, token) in tokens[start..].iter().enumerate() {
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

fn tokenize(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
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
            // A preprocessor line, with its backslash continuations.
            while i < chars.len() && chars[i] != '\n' {
                if chars[i] == '\\' && chars.get(i + 1) == Some(&'\n') {
                    i += 1;
                }
                i += 1;
            }
            continue;
        }
        line_start = false;
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == '"' || c == '\'' {
            let mut text = String::new();
            i += 1;
            while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if let Some(&ch) = chars.get(i) {
                    text.push(ch);
                }
                i += 1;
            }
            i += 1;
            if c == '"' {
                tokens.push(Token::Str(text));
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Ident(chars[start..i].iter().collect()));
            continue;
        }
        tokens.push(Token::Punct(c));
        i += 1;
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
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
        assert_eq!(kernels.extern_c, c(&["one", "two", "three"]));
        assert_eq!(kernels.mangled, c(&["four", "five"]));
    }

    #[test]
    fn comments_strings_and_preprocessor_lines_are_ignored() {
        let source = r#"
            // extern "C" __global__ void commented(
            /* extern "C" __global__ void block_comment( */
            #define KERNEL extern "C" __global__ void from_macro( \
                int x)
            const char *s = "extern \"C\" __global__ void in_string(";
            extern "C" __global__
            void
            real(int a) {}
        "#;
        let kernels = scan(source);
        assert_eq!(kernels.extern_c, c(&["real"]));
        assert!(kernels.mangled.is_empty());
    }

    #[test]
    fn linkage_does_not_leak_past_the_declaration_or_block() {
        let source = r#"
            extern "C" int counter;
            __global__ void after_declaration() {}
            extern "C" { __global__ void inside() { if (1) { } } }
            __global__ void after_block() {}
            extern "C" __global__ void declared(int);
            extern "C" __global__ void declared(int) {}
        "#;
        let kernels = scan(source);
        assert_eq!(kernels.extern_c, c(&["inside", "declared"]));
        assert_eq!(kernels.mangled, c(&["after_declaration", "after_block"]));
    }

    #[test]
    fn extern_cxx_is_not_c() {
        let kernels = scan("extern \"C++\" __global__ void k() {}");
        assert_eq!(kernels.mangled, c(&["k"]));
    }
}
