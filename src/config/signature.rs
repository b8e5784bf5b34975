//! A kernel's declaration read as what a launch must give it: its template
//! parameters (how many arguments an instance takes, and which are types
//! the instance fills in) and its function parameters (how many, which take
//! a pointer and which a value, and of what scalar type), and whether an
//! argument fits a parameter (`mismatch`, one rule for the config's check
//! and the build's). Read from the text the source scan kept (`kernels`),
//! or from a compiled kernel's demangled symbol (`compiled_parameters`),
//! not by a C++ parser: the file's type aliases of scalar and vector types
//! are followed (`typedef float real;`), a pointer to a CUDA vector type
//! takes the elements that pack into it, and a type it cannot name (a
//! struct, a template parameter left open, an alias defined two ways under
//! `#ifdef`) is left unchecked rather than guessed. It also gives a scalar
//! type's size, for `sizeof` in the launch expressions `init --from` reads.

use crate::config::plan::ElementType;

/// A scalar type of C++ as a launch passes it: its size and whether it is
/// a floating-point type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CType {
    pub(crate) bytes: usize,
    pub(crate) float: bool,
    pub(crate) unsigned: bool,
}

/// What one function parameter takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Takes {
    /// A pointer (or an array, which is one); the pointee's type when it is
    /// a scalar type named here.
    Pointer(Option<CType>),
    /// A value of a scalar type named here.
    Value(CType),
    /// Something else (a struct, a vector type, a reference, a type left
    /// open): not checked.
    Unknown,
}

/// One function parameter: as written, as the compiler reads it (the
/// instance's template arguments and the file's type aliases put in), and
/// what it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parameter {
    pub(crate) written: String,
    pub(crate) resolved: String,
    pub(crate) takes: Takes,
}

impl Parameter {
    /// The element type gpuprof passes for it, of the same kind and size:
    /// the pointee's for a pointer, the value's otherwise (`char` is an
    /// `i8`, `bool` a `u8`, `short` an `i16`); for a 2-byte float, `bf16`
    /// where the declaration names `__nv_bfloat16`, else `f16`.
    pub(crate) fn element(&self) -> Option<ElementType> {
        let c_type = match self.takes {
            Takes::Pointer(Some(c_type)) | Takes::Value(c_type) => c_type,
            Takes::Pointer(None) | Takes::Unknown => return None,
        };
        Some(match (c_type.float, c_type.bytes, c_type.unsigned) {
            (true, 2, _) => self.two_byte_float().unwrap_or(ElementType::F16),
            (true, 4, _) => ElementType::F32,
            (true, 8, _) => ElementType::F64,
            (false, 1, false) => ElementType::I8,
            (false, 1, true) => ElementType::U8,
            (false, 2, false) => ElementType::I16,
            (false, 2, true) => ElementType::U16,
            (false, 4, false) => ElementType::I32,
            (false, 4, true) => ElementType::U32,
            (false, 8, false) => ElementType::I64,
            (false, 8, true) => ElementType::U64,
            _ => return None,
        })
    }

    /// Which 2-byte float the declaration names once its template
    /// parameters and aliases are filled in: `f16` for `half`/`__half`,
    /// `bf16` for `__nv_bfloat16`; None when its text says neither.
    pub(crate) fn two_byte_float(&self) -> Option<ElementType> {
        let mut resolved = self.resolved.clone();
        if let Some(name) = self.name()
            && let Some(at) = resolved.rfind(&name)
        {
            resolved.replace_range(at..at + name.len(), "");
        }
        if resolved.contains("bfloat16") {
            Some(ElementType::Bf16)
        } else if resolved.contains("half") {
            Some(ElementType::F16)
        } else {
            None
        }
    }

    /// Whether it points to const data (`const float *in`, `float const
    /// a[]`): a kernel cannot write through it. A `const` pointer to
    /// writable data (`float *const out`) is not.
    pub(crate) fn points_to_const(&self) -> bool {
        if !matches!(self.takes, Takes::Pointer(_)) {
            return false;
        }
        let declared = without_default(&self.resolved);
        let pointee = declared
            .find(['*', '['])
            .map_or(declared, |at| &declared[..at]);
        words(pointee).iter().any(|w| w == "const")
    }

    /// The size in bytes of the vector type it points to (`uint4 *` is
    /// 16), when it points to one of CUDA's vector types.
    pub(crate) fn vector_pointee_bytes(&self) -> Option<usize> {
        if !matches!(self.takes, Takes::Pointer(_)) {
            return None;
        }
        let declared = without_default(&self.resolved);
        let pointee = declared
            .find(['*', '['])
            .map_or(declared, |at| &declared[..at]);
        vector_bytes(pointee)
    }

    /// The name the declaration gives it (`n` of `const int n = 4`,
    /// `a` of `float a[]`), if any.
    pub(crate) fn name(&self) -> Option<String> {
        declared_name(&self.written)
    }
}

/// The name a parameter's declaration `written` gives it (`n` of `const
/// int n = 4`, `a` of `float a[]` or of `const float * __restrict__ a`);
/// `None` for an unnamed one (`float *`, `int`, `float * const`).
pub(crate) fn declared_name(written: &str) -> Option<String> {
    let declared = without_default(written);
    let declared = declared.split('[').next().unwrap_or(declared);
    let name = match declared.rfind('*') {
        Some(star) => words(&declared[star + 1..]).pop(),
        None => {
            let mut words = words(declared);
            (words.len() > 1).then(|| words.pop()).flatten()
        }
    };
    name.filter(|name| !QUALIFIERS.contains(&name.as_str()))
}

/// An argument as a launch passes it, for [`mismatch`]: a buffer of an
/// element type (a pointer to it) or a scalar of one.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Passed<'a> {
    Buffer { name: &'a str, element: ElementType },
    Scalar { name: &'a str, element: ElementType },
}

/// What is wrong with passing `passed` to `parameter`, and how to fix it:
/// a buffer where the kernel takes a value or the other way round, a
/// buffer whose elements are not what the pointer reads, a scalar the
/// parameter does not read right. `None` when it fits, or when the
/// parameter's type is not one this reads.
pub(crate) fn mismatch(passed: Passed, parameter: &Parameter) -> Option<(String, String)> {
    match (passed, &parameter.takes) {
        (Passed::Buffer { name, .. }, Takes::Value(_)) => Some((
            format!("`{name}` is a buffer"),
            format!(
                "the kernel takes a value there: pass a scalar, {{ name = \"{name}\", scalar = \"{}\", value = \"…\" }}",
                parameter.element().map(ElementType::name).unwrap_or("…")
            ),
        )),
        (Passed::Scalar { name, .. }, Takes::Pointer(_)) => Some((
            format!("`{name}` is a scalar"),
            format!(
                "the kernel takes a pointer there: pass a buffer, {{ name = \"{name}\", buffer = \"{}\", count = \"…\" }}",
                parameter.element().map_or("…", ElementType::name)
            ),
        )),
        (Passed::Buffer { name, element }, Takes::Pointer(Some(pointee)))
            if !holds(element, *pointee, parameter) =>
        {
            Some((
                format!("buffer `{name}` holds {}", described(element)),
                format!(
                    "declare buffer = \"{}\" to match the kernel's pointer",
                    parameter.element().map_or("…", ElementType::name)
                ),
            ))
        }
        (Passed::Scalar { name, element }, Takes::Value(c_type))
            if !passes(element, *c_type, parameter) =>
        {
            let help = match parameter.element().map(ElementType::name) {
                Some(element) => format!("declare scalar = \"{element}\""),
                None => format!(
                    "no scalar type of gpuprof ({}) passes a {}-byte {}: launch it from a kernel that takes one of those",
                    ElementType::ALL.map(ElementType::name).join(", "),
                    c_type.bytes,
                    match c_type.float {
                        true => "float",
                        false => "integer",
                    }
                ),
            };
            Some((format!("scalar `{name}` is {}", described(element)), help))
        }
        _ => None,
    }
}

/// Whether a buffer of `element` is what a pointer to `pointee` reads:
/// the same kind and size (signedness aside, as C converts freely), and
/// for a 2-byte float the same one of f16 and bf16 where the text says.
fn holds(element: ElementType, pointee: CType, parameter: &Parameter) -> bool {
    if !matches!(pointee.bytes, 1 | 2 | 4 | 8) {
        return true;
    }
    // A vector type is how kernels load wide (a `uint4*` over an 8-bit
    // image reads 16 pixels at once): any element that packs into it.
    if let Some(bytes) = parameter.vector_pointee_bytes() {
        return bytes % element.size_bytes() == 0;
    }
    let same_kind = pointee.float == element.is_float() && pointee.bytes == element.size_bytes();
    same_kind && (!pointee.float || pointee.bytes != 2 || same_half(element, parameter))
}

/// Whether a 2-byte float `element` is the one `parameter` declares (true
/// when the text does not say).
fn same_half(element: ElementType, parameter: &Parameter) -> bool {
    parameter
        .two_byte_float()
        .is_none_or(|declared| declared == element)
}

/// Whether a scalar of `element` is read right by a parameter of
/// `c_type`: a float of the same size (and the same 2-byte float), or an
/// integer at least as wide (the kernel reads its low bytes; the value was
/// checked to fit when it is small).
fn passes(element: ElementType, c_type: CType, parameter: &Parameter) -> bool {
    match (element.is_float(), c_type.float) {
        (true, true) => {
            element.size_bytes() == c_type.bytes
                && (c_type.bytes != 2 || same_half(element, parameter))
        }
        (false, false) => element.size_bytes() >= c_type.bytes,
        _ => false,
    }
}

/// `an f32 (4-byte float)`, `a u8 (1-byte integer)`.
fn described(element: ElementType) -> String {
    let kind = match element.is_float() {
        true => "float",
        false => "integer",
    };
    format!(
        "{} ({}-byte {kind})",
        element.with_article(),
        element.size_bytes()
    )
}

/// The parameters of a compiled kernel as its demangled symbol lists them
/// (`residual_forward_kernel1(__nv_bfloat16*, __nv_bfloat16 const*,
/// __nv_bfloat16 const*, int)`): the types the compiler saw after every
/// typedef, macro and template argument, so a check against them holds
/// where the source's text could not be read. `None` for a symbol without
/// parameters in it (an `extern "C"` kernel's plain name).
pub(crate) fn compiled_parameters(demangled: &str) -> Option<Vec<Parameter>> {
    let close = demangled.rfind(')')?;
    let mut depth = 0i32;
    let mut open = None;
    for (at, c) in demangled[..=close].char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    open = Some(at);
                    break;
                }
            }
            _ => {}
        }
    }
    let list = &demangled[open? + 1..close];
    parameters(list, None, &[], &[])
}

/// The scalar types by their spellings, words sorted, after [`scalar`]
/// has made them canonical: size, float, unsigned; for a 64-bit Linux host
/// and its device code (`long` is 8 bytes).
const SCALARS: [(&[&str], usize, bool, bool); 29] = [
    (&["float"], 4, true, false),
    (&["double"], 8, true, false),
    (&["half"], 2, true, false),
    (&["__half"], 2, true, false),
    (&["__nv_bfloat16"], 2, true, false),
    (&["bool"], 1, false, true),
    (&["char"], 1, false, false),
    (&["char", "unsigned"], 1, false, true),
    (&["int8_t"], 1, false, false),
    (&["uint8_t"], 1, false, true),
    (&["short"], 2, false, false),
    (&["short", "unsigned"], 2, false, true),
    (&["int16_t"], 2, false, false),
    (&["uint16_t"], 2, false, true),
    (&["int"], 4, false, false),
    (&["signed"], 4, false, false),
    (&["unsigned"], 4, false, true),
    (&["int", "unsigned"], 4, false, true),
    (&["uint"], 4, false, true),
    (&["int32_t"], 4, false, false),
    (&["uint32_t"], 4, false, true),
    (&["long"], 8, false, false),
    (&["long", "unsigned"], 8, false, true),
    (&["int64_t"], 8, false, false),
    (&["uint64_t"], 8, false, true),
    (&["size_t"], 8, false, true),
    (&["ptrdiff_t"], 8, false, false),
    (&["intptr_t"], 8, false, false),
    (&["uintptr_t"], 8, false, true),
];

/// Words that qualify a type without changing what a launch passes.
const QUALIFIERS: [&str; 7] = [
    "const",
    "volatile",
    "__restrict__",
    "__restrict",
    "restrict",
    "register",
    "__grid_constant__",
];

/// The scalar type the words `words` spell (qualifiers already left out),
/// made canonical first: `std::` dropped, `int` dropped beside `long` or
/// `short`, `long long` made `long`, `signed` dropped beside another word.
fn scalar(words: &[String]) -> Option<CType> {
    let mut words: Vec<&str> = words
        .iter()
        .map(|w| w.strip_prefix("std::").unwrap_or(w))
        .collect();
    if words.iter().any(|w| *w == "long" || *w == "short") {
        words.retain(|w| *w != "int");
    }
    if words.len() > 1 {
        words.retain(|w| *w != "signed");
    }
    words.sort_unstable();
    words.dedup_by(|a, b| *a == "long" && *b == "long");
    SCALARS
        .iter()
        .find(|(spelling, ..)| *spelling == words.as_slice())
        .map(|&(_, bytes, float, unsigned)| CType {
            bytes,
            float,
            unsigned,
        })
}

/// Whether `text` spells a scalar type (`float`, `unsigned int`).
pub(crate) fn is_scalar_type(text: &str) -> bool {
    scalar(&words(text)).is_some()
}

/// Whether `text` spells a whole-number scalar type (`size_t`, `unsigned
/// long`, `int64_t`) or one of the file's `aliases` of one: a cast to it
/// (`(size_t)n * n`) changes no count of elements.
pub(crate) fn is_integer_type(text: &str, aliases: &[(String, String)]) -> bool {
    let resolved = words_and_stars(&substitute(text, aliases));
    !resolved.contains('*') && type_of(&words(&resolved)).is_some_and(|c| !c.float)
}

/// Whether `text` spells a floating-point scalar type (`float`, `double`,
/// `half`).
pub(crate) fn is_float_type(text: &str) -> bool {
    let resolved = words_and_stars(text);
    !resolved.contains('*') && type_of(&words(&resolved)).is_some_and(|c| c.float)
}

/// The alias a compiled parameter type names: a parameter written with
/// one name the file's text cannot resolve (`const real *`, `real` a
/// `typedef` under `#ifdef USE_DP`) and compiled as a scalar or vector
/// type behind as many pointers (`float const*`) gives `(real, float)`.
/// `None` where the written type is not one name with qualifiers and
/// pointers, or the compiled one no scalar.
pub(crate) fn alias_compiled(written: &str, compiled: &str) -> Option<(String, String)> {
    let unqualified = |text: &str| -> (Vec<String>, usize) {
        let kept = words(text)
            .into_iter()
            .filter(|w| !QUALIFIERS.contains(&w.as_str()))
            .collect();
        (kept, text.matches('*').count())
    };
    let (name, stars) = unqualified(written);
    let (target, compiled_stars) = unqualified(compiled);
    let [name] = name.as_slice() else {
        return None;
    };
    let target = target.join(" ");
    (stars == compiled_stars && *name != target && size_of(&target, &[]).is_some())
        .then(|| (name.clone(), target))
}

/// The size in bytes of the type `text` spells, as `sizeof` gives it:
/// a scalar type (`uint32_t` → 4, `unsigned long long` → 8), one of the
/// file's scalar `aliases` ([`scalar_aliases`]), or a pointer to either
/// (8); `None` for any other type or an expression.
pub(crate) fn size_of(text: &str, aliases: &[(String, String)]) -> Option<usize> {
    let resolved = words_and_stars(&substitute(text, aliases));
    if !spells_scalar_or_pointer(&resolved) {
        return None;
    }
    match resolved.contains('*') {
        true => Some(8),
        false => type_of(&words(&resolved))
            .map(|c| c.bytes)
            .or_else(|| vector_bytes(&resolved)),
    }
}

/// The size in bytes of `text` when it names one of CUDA's vector types,
/// qualifiers aside (`const uint4` is 16).
fn vector_bytes(text: &str) -> Option<usize> {
    let kept: Vec<String> = words(text)
        .into_iter()
        .filter(|w| !QUALIFIERS.contains(&w.as_str()))
        .collect();
    let [name] = kept.as_slice() else {
        return None;
    };
    vector_type(name).map(|(component, lanes)| component.bytes * lanes)
}

/// `a, f<b, c>(d), e` → [`a`, `f<b, c>(d)`, `e`], each with whitespace
/// made one space. With `angle_brackets`, `<` and `>` outside parentheses
/// nest like brackets (template arguments and parameter lists hold no
/// comparisons there); without, they are operators (a launch
/// configuration).
pub(crate) fn split_top_level(text: &str, angle_brackets: bool) -> Vec<String> {
    let mut parts = vec![String::new()];
    let (mut depth, mut angles) = (0i32, 0i32);
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '<' if angle_brackets && depth == 0 => angles += 1,
            '>' if angle_brackets && depth == 0 => angles -= 1,
            ',' if depth == 0 && angles == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    parts
        .iter()
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect()
}

/// The identifiers of `text` (with `::` kept inside qualified names), in
/// order.
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            current.push(c);
        } else if c == ':' && chars.get(i + 1) == Some(&':') && !current.is_empty() {
            current.push_str("::");
            i += 1;
        } else if !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        i += 1;
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// `text` up to its first `=` outside brackets (a default value cut off).
fn without_default(text: &str) -> &str {
    let mut depth = 0i32;
    for (at, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            '=' if depth == 0 => return text[..at].trim_end(),
            _ => {}
        }
    }
    text
}

/// One template parameter: its name, whether it is a type (`typename T`,
/// `class T`), whether it has a default, whether it is a pack.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TemplateParameter {
    name: String,
    is_type: bool,
    has_default: bool,
    is_pack: bool,
}

/// The template parameter list `typename T, int BM = 64, typename... Ts`.
fn template_parameters(list: &str) -> Vec<TemplateParameter> {
    split_top_level(list, true)
        .iter()
        .map(|written| {
            let declared = without_default(written);
            let words = words(declared);
            TemplateParameter {
                name: words.last().cloned().unwrap_or_default(),
                is_type: matches!(
                    words.first().map(String::as_str),
                    Some("typename" | "class")
                ),
                has_default: declared.len() < written.len(),
                is_pack: declared.contains("..."),
            }
        })
        .collect()
}

/// Arguments for every parameter of the template list `template` where
/// the file fixes none: each one's default (`int BLOCK = 256` gives
/// `256`), with the arguments chosen before it put in (`VEC = 16 /
/// sizeof(T)` gives `16 / sizeof(float)`), else `float` for a type;
/// `None` when a value parameter has no default. A pack takes nothing.
pub(crate) fn default_instance_arguments(template: &str) -> Option<Vec<String>> {
    let mut chosen: Vec<(String, String)> = Vec::new();
    for (written, parameter) in split_top_level(template, true)
        .iter()
        .zip(template_parameters(template))
    {
        if parameter.is_pack {
            continue;
        }
        let default = written[without_default(written).len()..]
            .trim_start()
            .strip_prefix('=')
            .map(|value| value.trim().to_string());
        let value = match (default, parameter.is_type) {
            (Some(value), _) => chosen.iter().fold(value, |text, (name, argument)| {
                replace_word(&text, name, argument)
            }),
            (None, true) => "float".to_string(),
            (None, false) => return None,
        };
        chosen.push((parameter.name, value));
    }
    Some(chosen.into_iter().map(|(_, value)| value).collect())
}

/// Whether each parameter of the template list `template` is a type
/// (`typename T`, `class U`), in order.
pub(crate) fn type_parameters(template: &str) -> Vec<bool> {
    template_parameters(template)
        .iter()
        .map(|parameter| parameter.is_type)
        .collect()
}

/// The names of the type parameters of the template list `template`
/// (`typename T, int BLOCK` → `[T]`), in order.
pub(crate) fn type_parameter_names(template: &str) -> Vec<String> {
    template_parameters(template)
        .into_iter()
        .filter(|parameter| parameter.is_type)
        .map(|parameter| parameter.name)
        .collect()
}

/// `text` with the whole word `name` replaced by `value`.
fn replace_word(text: &str, name: &str, value: &str) -> String {
    regex::Regex::new(&format!(r"\b{}\b", regex::escape(name)))
        .map(|word| word.replace_all(text, regex::NoExpand(value)).into_owned())
        .unwrap_or_else(|_| text.to_string())
}

/// The first of `arguments` that is plainly of the wrong kind for its
/// parameter of the list `template`: a number or `true`/`false` for a
/// type parameter, or a scalar type for a value parameter; its position
/// (from 0) and the parameter as declared. Arguments that could be either
/// (a name, an expression) are left to the compiler.
pub(crate) fn template_kind_mismatch(
    template: &str,
    arguments: &[String],
) -> Option<(usize, String)> {
    let declared = split_top_level(template, true);
    template_parameters(template)
        .iter()
        .zip(&declared)
        .zip(arguments)
        .enumerate()
        .take_while(|(_, ((parameter, _), _))| !parameter.is_pack)
        .find_map(|(at, ((parameter, written), argument))| {
            let argument = argument.trim();
            let a_value = argument.starts_with(|c: char| c.is_ascii_digit() || c == '-')
                || matches!(argument, "true" | "false");
            let wrong = match parameter.is_type {
                true => a_value,
                false => is_scalar_type(argument),
            };
            wrong.then(|| (at, written.clone()))
        })
}

/// The template arguments an entry gives (`reduce<256, float>` →
/// [`256`, `float`]), or why they cannot be read.
pub(crate) fn instance_arguments(entry: &str) -> Result<Vec<String>, String> {
    let Some(open) = entry.find('<') else {
        return Ok(Vec::new());
    };
    let rest = &entry[open + 1..];
    let (mut angles, mut parentheses) = (1i32, 0i32);
    for (at, c) in rest.char_indices() {
        match c {
            '(' => parentheses += 1,
            ')' => parentheses -= 1,
            '<' if parentheses == 0 => angles += 1,
            '>' if parentheses == 0 => angles -= 1,
            _ => {}
        }
        if angles == 0 {
            return match rest[at + 1..].trim().is_empty() {
                true => Ok(split_top_level(&rest[..at], true)),
                false => Err(format!(
                    "`{}` follows the template arguments",
                    rest[at + 1..].trim()
                )),
            };
        }
    }
    Err("its `<` is never closed by a `>`".into())
}

/// How many template arguments the list `template` accepts: at least the
/// parameters without a default, at most all of them (no limit with a
/// pack).
pub(crate) fn template_arity(template: &str) -> (usize, Option<usize>) {
    let parameters = template_parameters(template);
    let required = parameters
        .iter()
        .filter(|p| !p.has_default && !p.is_pack)
        .count();
    match parameters.iter().any(|p| p.is_pack) {
        true => (required, None),
        false => (required, Some(parameters.len())),
    }
}

/// The parameters of a kernel whose parameter list is `parameters`, with
/// the type parameters of its `template` list replaced by the arguments
/// `instance` gives them, then the file's type `aliases` (from
/// [`scalar_aliases`]) by what they stand for; `None` when the list holds
/// a pack (`Ts... args`), whose length the text does not fix.
pub(crate) fn parameters(
    parameters: &str,
    template: Option<&str>,
    instance: &[String],
    aliases: &[(String, String)],
) -> Option<Vec<Parameter>> {
    let substitutions: Vec<(String, String)> = template
        .map(template_parameters)
        .unwrap_or_default()
        .into_iter()
        .zip(instance)
        .filter(|(p, _)| p.is_type && !p.is_pack)
        .map(|(p, argument)| (p.name, argument.clone()))
        .collect();
    let list = split_top_level(parameters, true);
    if list.iter().any(|p| p.contains("...")) {
        return None;
    }
    if list.len() == 1 && words(&list[0]) == ["void"] && !list[0].contains('*') {
        return Some(Vec::new());
    }
    Some(
        list.into_iter()
            .map(|written| {
                let instance = substitute(without_default(&written), &substitutions);
                let resolved = substitute(&instance, aliases);
                Parameter {
                    takes: takes(&resolved),
                    resolved,
                    written,
                }
            })
            .collect(),
    )
}

/// The type aliases of a file that name a scalar type, a vector type or a
/// pointer to either (what the argument check reads), each with the type it stands for once
/// aliases of aliases are followed: `typedef float real;`, `using idx_t =
/// unsigned int;`, `#define DTYPE double`, from `candidates` (every
/// `(name, type as written)` the scan found, in order). A name given two
/// different types (the branches of an `#ifdef`) is left out: which one
/// the compiler sees depends on flags the scan does not follow.
pub(crate) fn scalar_aliases(candidates: &[(String, String)]) -> Vec<(String, String)> {
    let mut distinct: Vec<(String, String)> = Vec::new();
    let mut conflicting: Vec<&str> = Vec::new();
    for (name, target) in candidates {
        let target = words_and_stars(target);
        match distinct.iter().find(|(known, _)| known == name) {
            Some((_, known)) if *known != target => conflicting.push(name),
            Some(_) => {}
            None => distinct.push((name.clone(), target)),
        }
    }
    distinct.retain(|(name, _)| !conflicting.contains(&name.as_str()));
    distinct
        .iter()
        .filter_map(|(name, target)| {
            let others: Vec<(String, String)> = distinct
                .iter()
                .filter(|(other, _)| other != name)
                .cloned()
                .collect();
            let mut resolved = target.clone();
            for _ in 0..distinct.len() {
                let next = substitute(&resolved, &others);
                if next == resolved {
                    break;
                }
                resolved = next;
            }
            spells_scalar_or_pointer(&resolved).then(|| (name.clone(), resolved))
        })
        .collect()
}

/// `text` as its words and `*`s, one space apart (`const  float*` →
/// `const float *`), so that two spellings of one type compare equal.
fn words_and_stars(text: &str) -> String {
    let mut pieces: Vec<String> = Vec::new();
    for part in text.split('*') {
        pieces.push(part.split_whitespace().collect::<Vec<_>>().join(" "));
        pieces.push("*".into());
    }
    pieces.pop();
    pieces
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `text` is a scalar type, one of CUDA's vector types or a
/// pointer to either, qualifiers aside (`const float *`, `unsigned int`,
/// `uint4`), and nothing else.
fn spells_scalar_or_pointer(text: &str) -> bool {
    let plain = text
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '*' || c.is_whitespace());
    plain && pointee_of(&words(text)).is_some()
}

/// `text` with each identifier named in `substitutions` replaced by its
/// value.
fn substitute(text: &str, substitutions: &[(String, String)]) -> String {
    if substitutions.is_empty() {
        return text.to_string();
    }
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match substitutions.iter().find(|(name, _)| name == word) {
            Some((_, value)) => out.push_str(value),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// What the parameter declared as `text` (no default) takes.
fn takes(text: &str) -> Takes {
    if text.contains('&') {
        return Takes::Unknown;
    }
    let outside_templates = {
        let mut depth = 0i32;
        text.chars()
            .filter(|c| {
                match c {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    _ => return depth == 0,
                }
                false
            })
            .collect::<String>()
    };
    let stars = outside_templates.matches('*').count();
    if let Some(at) = outside_templates.find('[') {
        // `float a[]`: the words before `[` are the type and the name.
        let mut type_words = words(&outside_templates[..at]);
        type_words.pop();
        return match stars {
            0 => Takes::Pointer(pointee_of(&type_words)),
            _ => Takes::Pointer(None),
        };
    }
    match stars {
        0 => {
            let mut type_words: Vec<String> = words(&outside_templates);
            type_words.retain(|w| !QUALIFIERS.contains(&w.as_str()));
            // The last word is the parameter's name unless the type is
            // all there is (an unnamed parameter).
            if type_words.len() > 1 && scalar(&type_words).is_none() {
                type_words.pop();
            }
            type_of(&type_words).map_or(Takes::Unknown, Takes::Value)
        }
        1 => {
            let before = &outside_templates[..outside_templates.find('*').unwrap_or(0)];
            Takes::Pointer(pointee_of(&words(before)))
        }
        _ => Takes::Pointer(None),
    }
}

/// The scalar type a pointer to `type_words` reads its elements as: the
/// type itself, or for one of CUDA's vector types its component (`uint4`
/// is four `unsigned int`s, `half2` two `__half`s), which is what a buffer
/// of gpuprof's element types holds.
fn pointee_of(type_words: &[String]) -> Option<CType> {
    type_of(type_words).or_else(|| {
        let kept: Vec<&String> = type_words
            .iter()
            .filter(|w| !QUALIFIERS.contains(&w.as_str()))
            .collect();
        let [name] = kept.as_slice() else {
            return None;
        };
        vector_component(name)
    })
}

/// The component type of one of CUDA's vector types (`float4`, `uchar2`,
/// `longlong2`, `double4_16a`, `__half2`, `__nv_bfloat162`).
fn vector_component(name: &str) -> Option<CType> {
    vector_type(name).map(|(component, _)| component)
}

/// One of CUDA's vector types: its component type and how many lanes.
fn vector_type(name: &str) -> Option<(CType, usize)> {
    let name = name.strip_prefix("std::").unwrap_or(name);
    let name = name
        .strip_suffix("_16a")
        .or_else(|| name.strip_suffix("_32a"))
        .unwrap_or(name);
    let two_byte_float = |base: &str| match base {
        "half" | "__half" => scalar(&["half".to_string()]),
        "__nv_bfloat16" | "nv_bfloat16" => scalar(&["__nv_bfloat16".to_string()]),
        _ => None,
    };
    if let Some(base) = name.strip_suffix('2')
        && let Some(component) = two_byte_float(base)
    {
        return Some((component, 2));
    }
    let lanes = name
        .chars()
        .last()?
        .to_digit(10)
        .filter(|d| (1..=4).contains(d))? as usize;
    let base = name.strip_suffix(['1', '2', '3', '4'])?;
    let (unsigned, base) = match base.strip_prefix('u') {
        Some(rest) if !rest.is_empty() => (true, rest),
        _ => (false, base),
    };
    let spelled: &[&str] = match base {
        "char" if !unsigned => &["signed", "char"],
        "char" => &["unsigned", "char"],
        "short" | "int" | "long" => &[base],
        "longlong" => &["long", "long"],
        "float" | "double" if !unsigned => &[base],
        _ => return None,
    };
    let mut words: Vec<String> = spelled.iter().map(|w| w.to_string()).collect();
    if unsigned && base != "char" {
        words.insert(0, "unsigned".into());
    }
    scalar(&words).map(|component| (component, lanes))
}

/// The scalar type spelled by `type_words`, qualifiers left out.
fn type_of(type_words: &[String]) -> Option<CType> {
    let kept: Vec<String> = type_words
        .iter()
        .filter(|w| !QUALIFIERS.contains(&w.as_str()))
        .cloned()
        .collect();
    scalar(&kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_the_file_does_not_fix_takes_its_defaults_and_float() {
        assert_eq!(
            default_instance_arguments("typename T, size_t BLOCK_SIZE = 256"),
            Some(vec!["float".to_string(), "256".to_string()])
        );
        assert_eq!(
            default_instance_arguments("class T = __half, typename... Rest"),
            Some(vec!["__half".to_string()])
        );
        assert_eq!(default_instance_arguments("typename T, int BM"), None);
        assert_eq!(
            default_instance_arguments("typename T, size_t VEC = 128 / sizeof(T) / 8"),
            Some(vec![
                "float".to_string(),
                "128 / sizeof(float) / 8".to_string()
            ])
        );
        assert_eq!(
            type_parameters("typename T, int N, class U"),
            [true, false, true]
        );
    }

    fn c_type(bytes: usize, float: bool) -> CType {
        CType {
            bytes,
            float,
            unsigned: false,
        }
    }

    fn value(bytes: usize, float: bool) -> Takes {
        Takes::Value(c_type(bytes, float))
    }

    fn pointer(bytes: usize, float: bool) -> Takes {
        Takes::Pointer(Some(c_type(bytes, float)))
    }

    fn kind(takes: &Takes) -> Takes {
        match takes {
            Takes::Value(c) => value(c.bytes, c.float),
            Takes::Pointer(Some(c)) => pointer(c.bytes, c.float),
            other => other.clone(),
        }
    }

    /// What each parameter takes, signedness left out.
    fn read(list: &str) -> Vec<Takes> {
        parameters(list, None, &[], &[])
            .unwrap()
            .iter()
            .map(|p| kind(&p.takes))
            .collect()
    }

    #[test]
    fn pointers_values_and_their_scalar_types() {
        assert_eq!(
            read("float *odata, const float* __restrict__ idata, int width, unsigned int n"),
            [
                pointer(4, true),
                pointer(4, true),
                value(4, false),
                value(4, false)
            ]
        );
        assert_eq!(
            read("size_t m, std::size_t k, unsigned long long int a, long int b, double x"),
            [
                value(8, false),
                value(8, false),
                value(8, false),
                value(8, false),
                value(8, true)
            ]
        );
        assert_eq!(
            read("float a[], int b[16], float **c, float4 *d, float4 v, const Params p, int &r"),
            [
                pointer(4, true),
                pointer(4, false),
                Takes::Pointer(None),
                pointer(4, true),
                Takes::Unknown,
                Takes::Unknown,
                Takes::Unknown
            ]
        );
        assert_eq!(
            read("int, float, const int n = 4, bool flag, __half h"),
            [
                value(4, false),
                value(4, true),
                value(4, false),
                value(1, false),
                value(2, true)
            ]
        );
        assert_eq!(read(""), []);
        assert_eq!(read("void"), []);
        assert_eq!(parameters("int n, Ts... rest", None, &[], &[]), None);
    }

    #[test]
    fn template_arguments_of_the_wrong_kind_are_found() {
        let list = "class T, unsigned int blockSize, bool nIsPow2";
        let arguments = |text: &str| instance_arguments(text).unwrap();
        assert_eq!(
            template_kind_mismatch(list, &arguments("reduce6<int, 256, true>")),
            None
        );
        assert_eq!(
            template_kind_mismatch(list, &arguments("reduce6<256, int, true>")),
            Some((0, "class T".to_string()))
        );
        assert_eq!(
            template_kind_mismatch(list, &arguments("reduce6<T2, float, true>")),
            Some((1, "unsigned int blockSize".to_string()))
        );
        // Names and expressions could be either: left to the compiler.
        assert_eq!(
            template_kind_mismatch(list, &arguments("reduce6<Elem, BLOCK * 2, IS_POW2>")),
            None
        );
    }

    #[test]
    fn pointers_to_vector_types_read_their_component() {
        let element = |list: &str| {
            parameters(list, None, &[], &[]).unwrap()[0]
                .element()
                .map(ElementType::name)
        };
        assert_eq!(element("uint4 *d_Dst"), Some("u32"));
        assert_eq!(element("const float4 *__restrict__ x"), Some("f32"));
        assert_eq!(element("char4 *c"), Some("i8"));
        assert_eq!(element("uchar2 *c"), Some("u8"));
        assert_eq!(element("ushort4 *c"), Some("u16"));
        assert_eq!(element("longlong2 *c"), Some("i64"));
        assert_eq!(element("ulong2 *c"), Some("u64"));
        assert_eq!(element("double4_16a *c"), Some("f64"));
        assert_eq!(element("const half2 *h"), Some("f16"));
        assert_eq!(element("__nv_bfloat162 *h"), Some("bf16"));
        // A vector pointer loads wide: any element that packs into it (an
        // 8-bit image read 16 pixels at a time through `uint4 *`).
        let takes = |list: &str, element: ElementType| {
            let parameter = &parameters(list, None, &[], &[]).unwrap()[0];
            mismatch(Passed::Buffer { name: "b", element }, parameter).is_none()
        };
        assert!(takes("const uint4 *img", ElementType::U8));
        assert!(takes("float4 *x", ElementType::F32));
        assert!(!takes("float3 *x", ElementType::F64));
        assert!(!takes("float *x", ElementType::U8));
        // A vector taken by value is no scalar; an unknown name is unknown.
        assert_eq!(element("float4 v"), None);
        assert_eq!(element("ufloat4 *x"), None);
        assert_eq!(element("Point4 *p"), None);
    }

    #[test]
    fn element_types_for_scalar_types() {
        let element = |list: &str| {
            parameters(list, None, &[], &[]).unwrap()[0]
                .element()
                .map(ElementType::name)
        };
        assert_eq!(element("unsigned int n"), Some("u32"));
        assert_eq!(element("size_t n"), Some("u64"));
        assert_eq!(element("long long n"), Some("i64"));
        assert_eq!(element("short n"), Some("i16"));
        assert_eq!(element("const unsigned char *pixels"), Some("u8"));
        assert_eq!(element("const double *x"), Some("f64"));
        assert_eq!(element("__half h"), Some("f16"));
        assert_eq!(element("const __nv_bfloat16 *x"), Some("bf16"));
        assert_eq!(element("float4 *v"), Some("f32"));
    }

    #[test]
    fn parameters_are_named_by_their_last_word() {
        let named = parameters(
            "const int n = 4, float a[16], float *, int, T *out",
            None,
            &[],
            &[],
        )
        .unwrap()
        .iter()
        .map(Parameter::name)
        .collect::<Vec<_>>();
        assert_eq!(
            named,
            [
                Some("n".into()),
                Some("a".into()),
                None,
                None,
                Some("out".into())
            ]
        );
    }

    #[test]
    fn type_parameters_take_the_instance_arguments() {
        let list = "size_t m, T alpha, T const* A, TOut *C";
        let template = "typename T, int BM, typename TOut = T";
        let filled =
            parameters(list, Some(template), &["double".into(), "64".into()], &[]).unwrap();
        let takes: Vec<Takes> = filled.iter().map(|p| kind(&p.takes)).collect();
        assert_eq!(
            takes,
            [
                value(8, false),
                value(8, true),
                pointer(8, true),
                Takes::Pointer(None)
            ]
        );
        let open = parameters(list, Some(template), &[], &[]).unwrap();
        assert_eq!(open[1].takes, Takes::Unknown);
    }

    #[test]
    fn type_aliases_are_followed_and_ambiguous_ones_left_out() {
        let candidates: Vec<(String, String)> = [
            ("real", "float"),
            ("real_t", "real"),
            ("index_t", "unsigned  int"),
            ("cptr", "const real_t*"),
            ("DTYPE", "double"),
            ("DTYPE", "float"),
            ("Vec", "float4"),
            ("BLOCK", "256"),
            ("half_t", "__nv_bfloat16"),
        ]
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .to_vec();
        let aliases = scalar_aliases(&candidates);
        assert_eq!(
            aliases,
            [
                ("real".to_string(), "float".to_string()),
                ("real_t".into(), "float".into()),
                ("index_t".into(), "unsigned int".into()),
                ("cptr".into(), "const float *".into()),
                ("Vec".into(), "float4".into()),
                ("half_t".into(), "__nv_bfloat16".into()),
            ]
        );
        let list = "const real_t *in, cptr other, index_t n, T scale, half_t *h, DTYPE *d";
        let filled = parameters(list, Some("typename T"), &["real".into()], &aliases).unwrap();
        let takes: Vec<Takes> = filled.iter().map(|p| kind(&p.takes)).collect();
        assert_eq!(
            takes,
            [
                pointer(4, true),
                pointer(4, true),
                value(4, false),
                value(4, true),
                pointer(2, true),
                Takes::Pointer(None)
            ]
        );
        assert_eq!(filled[4].element(), Some(ElementType::Bf16));
        assert_eq!(filled[0].written, "const real_t *in");
    }

    #[test]
    fn sizes_of_scalar_types_aliases_and_pointers() {
        let aliases = [
            ("real".to_string(), "double".to_string()),
            ("word".to_string(), "unsigned int".to_string()),
        ];
        for (text, size) in [
            ("uint32_t", Some(4)),
            ("unsigned long long", Some(8)),
            ("const float", Some(4)),
            ("std::int8_t", Some(1)),
            ("__half", Some(2)),
            ("real", Some(8)),
            (" word ", Some(4)),
            ("float *", Some(8)),
            ("float4", Some(16)),
            ("const uchar3", Some(3)),
            ("n", None),
            ("x + 1", None),
        ] {
            assert_eq!(size_of(text, &aliases), size, "{text}");
        }
    }

    #[test]
    fn template_arguments_and_arity() {
        assert_eq!(
            instance_arguments("gemm<float, 128, (N > 2)>").unwrap(),
            ["float", "128", "(N > 2)"]
        );
        assert_eq!(instance_arguments("plain").unwrap(), Vec::<String>::new());
        assert!(instance_arguments("reduce<256").is_err());
        assert!(instance_arguments("reduce<256>x").is_err());
        assert_eq!(
            template_arity("const int BM, const int BN, int BK = 8"),
            (2, Some(3))
        );
        assert_eq!(template_arity("typename T, int... Sizes"), (1, None));
    }
}
