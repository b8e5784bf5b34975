//! C expressions of a user's host code in gpuprof's expression language,
//! for `gpuprof init --from`. [`translate`] puts in what the file's names
//! stand for (the host variables taken as N, the file's constants, its
//! variables' initializers, `sizeof` of scalar types, a vector's
//! `.size()`) and keeps the variables of the loops around a launch as
//! themselves; [`Expr`] reads the result, simplifies it (`(n + 255) /
//! 256` is `cdiv(N, 256)`), evaluates it as the suite would and writes it
//! back as a TOML value.
//! `min` and `max` (`std::` too) are the suite's own.
//! C's shifts become what they compute (`k << 1` is `k * 2`, `j >> 1` is
//! `floor(j / 2)`), and so does its integer division where a loop
//! variable takes part in it ([`Expr::floored`]): a loop variable must
//! stay a whole number, and the suite's division is exact.

use std::fmt::Write;

use crate::config::kernels;
use crate::config::kernels::Kernels;
use crate::config::signature;

use super::from_source::{default_of, quoted};

/// How many names deep [`translate`] follows initializers, functions and
/// `min`/`max` (`nb = std::max(8, size - na)` over `na = std::max(8, size
/// / 2)` over `size` is six): a bound on a file's cycles, not on its
/// chains.
const DEEPEST: usize = 8;

/// The C expression `expression` in gpuprof's expression language: the
/// host variables of `mapped` (recorded in `used`) become the value the
/// suite gives the scalar they are passed as (N), the variables of the
/// loops around the launch (`loops`) stay themselves, the file's integer
/// constants become their values, its integer variables their
/// initializers, `sizeof` of a scalar type (or of one of the file's
/// aliases of one) its size; casts to whole-number types are left out;
/// shifts are kept for [`Expr::parse`]. `None` when a name or an operator
/// has no such meaning (`sizeof` of a struct, a comparison, a cast to
/// another type, a variable the file sets elsewhere).
pub(super) fn translate(
    expression: &str,
    mapped: &[(String, String, &str)],
    loops: &[String],
    scanned: &Kernels,
    used: &mut Vec<(String, String)>,
    depth: usize,
) -> Option<String> {
    let chars: Vec<char> = expression.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let mut word: String = chars[start..i].iter().collect();
            // `options.size` of a configuration given a default: one name.
            if let Some((member, end)) = member_read(&chars, i, &word, scanned) {
                (word, i) = (member, end);
            }
            if word == "static_cast" {
                // `static_cast<size_t>(n) * n`: the operand, cast to a
                // whole-number type.
                let open = past_spaces(&chars, i);
                (chars.get(open) == Some(&'<')).then_some(())?;
                let shut = open + chars[open..].iter().position(|&c| c == '>')?;
                let target: String = chars[open + 1..shut].iter().collect();
                signature::is_integer_type(&target, &scanned.aliases).then_some(())?;
                let paren = past_spaces(&chars, shut + 1);
                (chars.get(paren) == Some(&'(')).then_some(())?;
                let close = closing(&chars, paren)?;
                let operand: String = chars[paren + 1..close].iter().collect();
                let inner = translate(&operand, mapped, loops, scanned, used, depth + 1)?;
                let _ = write!(out, "({inner})");
                i = close + 1;
                continue;
            }
            if word == "sizeof" {
                // `sizeof(uint32_t)`, `sizeof(real)`: the type's size.
                let open = past_spaces(&chars, i);
                (chars.get(open) == Some(&'(')).then_some(())?;
                let close = closing(&chars, open)?;
                let inner: String = chars[open + 1..close].iter().collect();
                let bytes = signature::size_of(&inner, &scanned.aliases)?;
                let _ = write!(out, "{bytes}");
                i = close + 1;
                continue;
            }
            let next = past_spaces(&chars, i);
            if chars.get(next) == Some(&'(')
                && let Some(function) = scanned
                    .expression_functions
                    .iter()
                    .find(|f| f.name == word)
                    .filter(|_| depth < DEEPEST)
            {
                // `CEIL_DIV(n, 32)`, `div_up(n, 32)`: its body, over the
                // arguments.
                let close = closing(&chars, next)?;
                let inside: String = chars[next + 1..close].iter().collect();
                let arguments = signature::split_top_level(&inside, false);
                let body = function.applied(&arguments)?;
                let inner = translate(&body, mapped, loops, scanned, used, depth + 1)?;
                let _ = write!(out, "({inner})");
                i = close + 1;
                continue;
            }
            // `std::min(…)`: the name after `std::` is read alone.
            if word == "std" && chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
                i += 2;
                continue;
            }
            if matches!(word.as_str(), "min" | "max") && chars.get(next) == Some(&'(') {
                // `min((n + 255) / 256, 2048)`, a grid capped for a
                // grid-stride loop: the suite's own min and max.
                let close = closing(&chars, next)?;
                let inside: String = chars[next + 1..close].iter().collect();
                let [first, second] = signature::split_top_level(&inside, false).try_into().ok()?;
                let first = translate(&first, mapped, loops, scanned, used, depth + 1)?;
                let second = translate(&second, mapped, loops, scanned, used, depth + 1)?;
                let _ = write!(out, "{word}({first}, {second})");
                i = close + 1;
                continue;
            }
            if let Some(after) = size_call(&chars, i)
                && let Some((_, count)) = scanned.vectors.iter().rev().find(|(v, _)| *v == word)
                && depth < DEEPEST
            {
                // `h.size()` of `std::vector<float> h(n, 1.0f);`: its count.
                let inner = translate(count, mapped, loops, scanned, used, depth + 1)?;
                let _ = write!(out, "({inner})");
                i = after;
                continue;
            }
            if let Some(axis) = member_axis(&chars, i)
                && let Some(dim3) = scanned.dim3s.iter().rev().find(|d| d.name == word)
                && depth < DEEPEST
            {
                // `grid.x / 2`: the dim3's dimension, 1 where it has none.
                let value = dim3.values.get(axis).map_or("1", String::as_str);
                let inner = translate(value, mapped, loops, scanned, used, depth + 1)?;
                let _ = write!(out, "({inner})");
                i += 2;
                continue;
            }
            if loops.contains(&word) {
                out.push_str(&word);
            } else if let Some((variable, parameter, value)) =
                mapped.iter().find(|(v, ..)| *v == word)
            {
                note_used(used, (variable.clone(), parameter.clone()));
                let _ = write!(out, "({value})");
            } else if let Some((_, value)) = scanned.integers.iter().rev().find(|(n, _)| *n == word)
            {
                // A constant worked out from a name taken as N (`const int
                // blocks = (n + 255) / 256;` under `const int n = 1 << 22;`)
                // follows N; any other is its value.
                match following_n(&word, mapped, loops, scanned, depth) {
                    Some((inner, taken)) => {
                        for pair in taken {
                            note_used(used, pair);
                        }
                        let _ = write!(out, "({inner})");
                    }
                    None => {
                        let _ = write!(out, "{value}");
                    }
                }
            } else if let Some((_, initial)) = scanned
                .initializers
                .iter()
                .rfind(|(n, _)| *n == word)
                .filter(|_| depth < DEEPEST)
            {
                let initial = default_of(initial);
                let inner = translate(initial, mapped, loops, scanned, used, depth + 1)?;
                let _ = write!(out, "({inner})");
            } else {
                return None;
            }
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let literal: String = chars[start..i].iter().collect();
            let digits = literal.trim_end_matches(['u', 'U', 'l', 'L']);
            let value = match digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
                Some(hex) => i64::from_str_radix(hex, 16).ok()?,
                None => digits.parse::<i64>().ok()?,
            };
            let _ = write!(out, "{value}");
            continue;
        }
        // `(size_t)n * n`, `(long long)rows * cols`: a cast to a
        // whole-number type changes no count, so it is left out.
        if c == '('
            && let Some(close) = closing(&chars, i)
            && signature::is_integer_type(
                &chars[i + 1..close].iter().collect::<String>(),
                &scanned.aliases,
            )
        {
            i = close + 1;
            continue;
        }
        // `<<` and `>>`; a lone `<` compares.
        if matches!(c, '<' | '>') && chars.get(i + 1) == Some(&c) {
            out.extend([c, c]);
            i += 2;
            continue;
        }
        // A lone `&` masks (`k & 1`); `&&` joins conditions, not values.
        if c == '&' && chars.get(i + 1) == Some(&'&') {
            return None;
        }
        if !matches!(c, '+' | '-' | '*' | '/' | '%' | '&' | '(' | ')' | ' ') {
            return None;
        }
        out.push(c);
        i += 1;
    }
    Some(out.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The initializer of the file's constant `name` in gpuprof's
/// expression language, with the names taken as N it used, where it uses
/// any: the constant then stands for an expression of N.
fn following_n(
    name: &str,
    mapped: &[(String, String, &str)],
    loops: &[String],
    scanned: &Kernels,
    depth: usize,
) -> Option<(String, Vec<(String, String)>)> {
    if depth >= DEEPEST {
        return None;
    }
    let (_, initial) = scanned.initializers.iter().rev().find(|(n, _)| n == name)?;
    let mut taken = Vec::new();
    let inner = translate(
        default_of(initial),
        mapped,
        loops,
        scanned,
        &mut taken,
        depth + 1,
    )?;
    (!taken.is_empty()).then_some((inner, taken))
}

/// Where `.size()` ends, when it follows at `at` (spaces allowed
/// between its parts).
fn size_call(chars: &[char], at: usize) -> Option<usize> {
    let mut k = at;
    for part in [".", "size", "(", ")"] {
        k = past_spaces(chars, k);
        let word: Vec<char> = part.chars().collect();
        (chars.get(k..k + word.len()) == Some(&word[..])).then_some(())?;
        k += word.len();
    }
    Some(k)
}

/// The index of the first character at or after `at` that is not
/// whitespace.
fn past_spaces(chars: &[char], at: usize) -> usize {
    at + chars[at.min(chars.len())..]
        .iter()
        .take_while(|c| c.is_whitespace())
        .count()
}

/// The member `word` is read through at character `at` of `chars`, just
/// past `word` (`options.size`, `cfg->n`), as one name with the index
/// past it, where the scan gave that name an initializer
/// ([`Kernels::read_members_at_their_defaults`]).
pub(super) fn member_read(
    chars: &[char],
    at: usize,
    word: &str,
    scanned: &Kernels,
) -> Option<(String, usize)> {
    let op = past_spaces(chars, at);
    let (arrow, after) = match (chars.get(op), chars.get(op + 1)) {
        (Some('.'), _) => (".", op + 1),
        (Some('-'), Some('>')) => ("->", op + 2),
        _ => return None,
    };
    let start = past_spaces(chars, after);
    let end = start
        + chars[start.min(chars.len())..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
            .count();
    let member: String = chars[start..end].iter().collect();
    let whole = format!("{word}{arrow}{member}");
    (kernels::is_identifier(&member) && scanned.initializers.iter().any(|(name, _)| *name == whole))
        .then_some((whole, end))
}

/// Records that `pair` (a host variable and the parameter it is passed
/// as) was taken as N, once per variable.
fn note_used(used: &mut Vec<(String, String)>, pair: (String, String)) {
    if !used.iter().any(|(v, _)| *v == pair.0) {
        used.push(pair);
    }
}

/// The index of the `)` that closes the `(` at `open`.
fn closing(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    (open..chars.len()).find(|&k| {
        match chars[k] {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        depth == 0
    })
}

/// The axis (0 to 2) of a `.x`, `.y` or `.z` member written at `at`.
fn member_axis(chars: &[char], at: usize) -> Option<usize> {
    (chars.get(at) == Some(&'.')).then_some(())?;
    let axis = ['x', 'y', 'z']
        .iter()
        .position(|a| chars.get(at + 1) == Some(a))?;
    let more = chars
        .get(at + 2)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_');
    (!more).then_some(axis)
}

/// How the C expressions of a launch are read: the host variables taken
/// as a value of the suite (N), each with the parameter it is passed as
/// and that value, and the file's scan.
pub(super) struct Reader<'a> {
    pub(super) mapped: &'a [(String, String, &'a str)],
    pub(super) scanned: &'a Kernels,
}

impl Reader<'_> {
    /// The C expression `c` in gpuprof's language, the variables of
    /// `loops` kept and C's integer division over them floored; the
    /// mapped variables it uses are added to `used`.
    pub(super) fn expr(
        &self,
        c: &str,
        loops: &[String],
        used: &mut Vec<(String, String)>,
    ) -> Option<Expr> {
        let mut seen = Vec::new();
        let text = translate(c, self.mapped, loops, self.scanned, &mut seen, 0)?;
        let expr = Expr::parse(&text)?.simplified().floored(loops);
        for one in seen {
            if !used.contains(&one) {
                used.push(one);
            }
        }
        Some(expr)
    }

    /// `, n taken as N` for the mapped variables of `used` (`, count
    /// (passed as n) taken as N` where the parameter is named otherwise;
    /// `, M, N taken as N, total taken as N*N` where their values differ),
    /// or nothing.
    pub(super) fn taken(&self, used: &[(String, String)]) -> String {
        let value_of = |variable: &str| {
            self.mapped
                .iter()
                .find(|(v, ..)| v == variable)
                .map_or("N", |(.., value)| *value)
        };
        let mut groups: Vec<(&str, Vec<&(String, String)>)> = Vec::new();
        for one in used {
            let value = value_of(&one.0);
            match groups.iter_mut().find(|(v, _)| *v == value) {
                Some((_, members)) => members.push(one),
                None => groups.push((value, vec![one])),
            }
        }
        let mut text = String::new();
        for (value, members) in groups {
            let variables: Vec<&str> = members.iter().map(|(v, _)| v.as_str()).collect();
            let parameters: Vec<&str> = members.iter().map(|(_, p)| p.as_str()).collect();
            let _ = match variables == parameters {
                true => write!(text, ", {} taken as {value}", variables.join(", ")),
                false => write!(
                    text,
                    ", {} (passed as {}) taken as {value}",
                    variables.join(", "),
                    parameters.join(", ")
                ),
            };
        }
        text
    }
}

/// An expression in gpuprof's language: numbers, symbols (N, loop
/// variables), `+ - * / %` with exact division, `cdiv`, `floor`, `pow`,
/// `min`, `max`.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Expr {
    Number(f64),
    Symbol(String),
    Negate(Box<Expr>),
    Binary(char, Box<Expr>, Box<Expr>),
    Cdiv(Box<Expr>, Box<Expr>),
    Floor(Box<Expr>),
    Pow(Box<Expr>, Box<Expr>),
    /// `min(a, b)` (`false`) or `max(a, b)` (`true`).
    Extreme(bool, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// Parses `text` (numbers, names, `+ - * / %`, `<< >>`, a mask of
    /// low bits `& 1`, parentheses, `min(a, b)` and `max(a, b)`).
    pub(super) fn parse(text: &str) -> Option<Expr> {
        let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut at = 0;
        let expr = Expr::mask(&chars, &mut at)?;
        (at == chars.len()).then_some(expr)
    }

    /// `a & m`, where `m` is a mask of low bits (2^k - 1), is `a % 2^k`
    /// (for the non-negative counts a launch computes); any other `&` is
    /// not read.
    fn mask(chars: &[char], at: &mut usize) -> Option<Expr> {
        let mut expr = Expr::shift(chars, at)?;
        while chars.get(*at) == Some(&'&') {
            *at += 1;
            let Expr::Number(mask) = Expr::shift(chars, at)? else {
                return None;
            };
            let modulus = mask + 1.0;
            (mask >= 1.0 && (modulus as u64).is_power_of_two()).then_some(())?;
            expr = Expr::Binary('%', Box::new(expr), Box::new(Expr::Number(modulus)));
        }
        Some(expr)
    }

    /// `a << b` is `a * pow(2, b)`, `a >> b` is `floor(a / pow(2, b))`.
    fn shift(chars: &[char], at: &mut usize) -> Option<Expr> {
        let mut expr = Expr::sum(chars, at)?;
        while let Some(&op @ ('<' | '>')) = chars.get(*at) {
            (chars.get(*at + 1) == Some(&op)).then_some(())?;
            *at += 2;
            let power = Expr::Pow(Box::new(Expr::Number(2.0)), Box::new(Expr::sum(chars, at)?));
            expr = match op {
                '<' => Expr::Binary('*', Box::new(expr), Box::new(power)),
                _ => Expr::Floor(Box::new(Expr::Binary('/', Box::new(expr), Box::new(power)))),
            };
        }
        Some(expr)
    }

    fn sum(chars: &[char], at: &mut usize) -> Option<Expr> {
        let mut expr = Expr::product(chars, at)?;
        while let Some(&op @ ('+' | '-')) = chars.get(*at) {
            *at += 1;
            expr = Expr::Binary(op, Box::new(expr), Box::new(Expr::product(chars, at)?));
        }
        Some(expr)
    }

    fn product(chars: &[char], at: &mut usize) -> Option<Expr> {
        let mut expr = Expr::unary(chars, at)?;
        while let Some(&op @ ('*' | '/' | '%')) = chars.get(*at) {
            *at += 1;
            expr = Expr::Binary(op, Box::new(expr), Box::new(Expr::unary(chars, at)?));
        }
        Some(expr)
    }

    fn unary(chars: &[char], at: &mut usize) -> Option<Expr> {
        match chars.get(*at)? {
            '-' => {
                *at += 1;
                Some(Expr::Negate(Box::new(Expr::unary(chars, at)?)))
            }
            '(' => {
                *at += 1;
                let expr = Expr::mask(chars, at)?;
                (chars.get(*at) == Some(&')')).then(|| *at += 1)?;
                Some(expr)
            }
            c if c.is_ascii_alphabetic() || *c == '_' => {
                let start = *at;
                while chars
                    .get(*at)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    *at += 1;
                }
                let name: String = chars[start..*at].iter().collect();
                if matches!(name.as_str(), "min" | "max") && chars.get(*at) == Some(&'(') {
                    *at += 1;
                    let first = Expr::mask(chars, at)?;
                    (chars.get(*at) == Some(&',')).then(|| *at += 1)?;
                    let second = Expr::mask(chars, at)?;
                    (chars.get(*at) == Some(&')')).then(|| *at += 1)?;
                    return Some(Expr::Extreme(
                        name == "max",
                        Box::new(first),
                        Box::new(second),
                    ));
                }
                if name == "floor" && chars.get(*at) == Some(&'(') {
                    // A side kept in proportion to N, `floor(N * 9 / 16)`.
                    *at += 1;
                    let inner = Expr::mask(chars, at)?;
                    (chars.get(*at) == Some(&')')).then(|| *at += 1)?;
                    return Some(Expr::Floor(Box::new(inner)));
                }
                Some(Expr::Symbol(name))
            }
            c if c.is_ascii_digit() => {
                let start = *at;
                while chars.get(*at).is_some_and(char::is_ascii_digit) {
                    *at += 1;
                }
                let digits: String = chars[start..*at].iter().collect();
                digits.parse().ok().map(Expr::Number)
            }
            _ => None,
        }
    }

    /// Its value at N = `n`, with exact division as the suite computes it.
    pub(super) fn value(&self, n: f64) -> Option<f64> {
        self.value_at(&[("N".to_string(), n)])
    }

    /// Its value with its symbols given `values`; `None` where one is not.
    pub(super) fn value_at(&self, values: &[(String, f64)]) -> Option<f64> {
        Some(match self {
            Expr::Number(value) => *value,
            Expr::Symbol(name) => values.iter().find(|(n, _)| n == name)?.1,
            Expr::Negate(operand) => -operand.value_at(values)?,
            Expr::Cdiv(a, b) => {
                let divisor = b.value_at(values)?;
                (divisor != 0.0).then_some(())?;
                (a.value_at(values)? / divisor).ceil()
            }
            Expr::Floor(operand) => operand.value_at(values)?.floor(),
            Expr::Pow(a, b) => a.value_at(values)?.powf(b.value_at(values)?),
            Expr::Extreme(max, a, b) => {
                let (a, b) = (a.value_at(values)?, b.value_at(values)?);
                match max {
                    true => a.max(b),
                    false => a.min(b),
                }
            }
            Expr::Binary(op, a, b) => {
                let (a, b) = (a.value_at(values)?, b.value_at(values)?);
                match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    _ if b == 0.0 => return None,
                    '/' => a / b,
                    _ => a % b,
                }
            }
        })
    }

    /// Whether it names any of `names`, or (`None`) any symbol at all.
    fn names(&self, names: Option<&[String]>) -> bool {
        match self {
            Expr::Number(_) => false,
            Expr::Symbol(name) => names.is_none_or(|names| names.contains(name)),
            Expr::Negate(operand) | Expr::Floor(operand) => operand.names(names),
            Expr::Binary(_, a, b) | Expr::Cdiv(a, b) | Expr::Pow(a, b) | Expr::Extreme(_, a, b) => {
                a.names(names) || b.names(names)
            }
        }
    }

    fn uses_symbols(&self) -> bool {
        self.names(None)
    }

    /// Whether it uses one of the loop variables `loops`.
    pub(super) fn loops_over(&self, loops: &[String]) -> bool {
        self.names(Some(loops))
    }

    /// Whether its value is a whole number wherever its symbols are.
    fn whole(&self) -> bool {
        match self {
            Expr::Number(value) => value.fract() == 0.0,
            Expr::Symbol(_) | Expr::Cdiv(..) | Expr::Floor(_) => true,
            Expr::Negate(operand) => operand.whole(),
            Expr::Binary('+' | '-' | '*' | '%', a, b) | Expr::Extreme(_, a, b) => {
                a.whole() && b.whole()
            }
            Expr::Binary(..) | Expr::Pow(..) => false,
        }
    }

    /// C's rounding-up idiom `(x + b - 1) / b` as `cdiv(x, b)`: in the
    /// suite's exact division its quotient is rarely whole; a part without
    /// symbols whose value is whole as that value; `floor` of a whole
    /// number as the number.
    pub(super) fn simplified(self) -> Expr {
        // `2 * (1024 / 2)` is 1024, `pow(2, 20)` is 1048576.
        if let Some(value) = (!self.uses_symbols())
            .then(|| self.value(0.0))
            .flatten()
            .filter(|v| v.fract() == 0.0 && v.abs() < 1e15)
        {
            return Expr::Number(value);
        }
        // A quotient that is a part of another expression is C's integer
        // division, so it is floored: `((n - 1) / 1024 + 1) / 2` is
        // `cdiv(floor((N - 1) / 1024), 2)`. Only the outermost keeps the
        // suite's exact division, which the check refuses when not whole.
        let part = |e: Expr| Box::new(e.simplified().floored_if_divided());
        match self {
            Expr::Binary(op, a, b) => Expr::quotient(op, *part(*a), *part(*b)),
            Expr::Negate(operand) => Expr::Negate(part(*operand)),
            Expr::Floor(operand) => match operand.simplified() {
                whole if whole.whole() => whole,
                operand => Expr::Floor(Box::new(operand)),
            },
            Expr::Cdiv(a, b) => Expr::Cdiv(part(*a), part(*b)),
            Expr::Pow(a, b) => Expr::Pow(part(*a), part(*b)),
            Expr::Extreme(max, a, b) => Expr::Extreme(max, part(*a), part(*b)),
            other => other,
        }
    }

    /// `floor(self)` when it is a quotient that may not be whole.
    fn floored_if_divided(self) -> Expr {
        match self {
            Expr::Binary('/', ..) if !self.whole() => Expr::Floor(Box::new(self)),
            other => other,
        }
    }

    /// `a op b` of simplified parts, a division of the rounding-up idiom
    /// as `cdiv`.
    fn quotient(op: char, a: Expr, b: Expr) -> Expr {
        let divisor = (!b.uses_symbols()).then(|| b.value(0.0)).flatten();
        if let (Some(divisor), '/') = (divisor.filter(|d| *d >= 1.0), op) {
            let mut terms = Vec::new();
            a.clone().terms(true, &mut terms);
            let (constant, rest): (Vec<_>, Vec<_>) = terms
                .into_iter()
                .partition(|(_, term)| !term.uses_symbols());
            let added: Option<f64> = constant
                .iter()
                .map(|(plus, term)| term.value(0.0).map(|v| if *plus { v } else { -v }))
                .sum();
            if !rest.is_empty() && added == Some(divisor - 1.0) {
                return Expr::Cdiv(Box::new(Expr::summed(rest)), Box::new(b));
            }
        }
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    /// With C's integer division where one of `loops` takes part in a
    /// quotient: `floor(a / b)`, as a loop variable's value must stay whole.
    fn floored(self, loops: &[String]) -> Expr {
        let floor = |e: Expr| Box::new(e.floored(loops));
        match self {
            Expr::Binary('/', a, b) => {
                let quotient = Expr::Binary('/', floor(*a), floor(*b));
                match quotient.names(Some(loops)) {
                    true => Expr::Floor(Box::new(quotient)),
                    false => quotient,
                }
            }
            Expr::Floor(operand) => match operand.floored(loops) {
                floored @ Expr::Floor(_) => floored,
                operand => Expr::Floor(Box::new(operand)),
            },
            Expr::Binary(op, a, b) => Expr::Binary(op, floor(*a), floor(*b)),
            Expr::Negate(operand) => Expr::Negate(floor(*operand)),
            Expr::Cdiv(a, b) => Expr::Cdiv(floor(*a), floor(*b)),
            Expr::Pow(a, b) => Expr::Pow(floor(*a), floor(*b)),
            Expr::Extreme(max, a, b) => Expr::Extreme(max, floor(*a), floor(*b)),
            other => other,
        }
    }

    /// The terms of a sum, each with whether it is added.
    fn terms(self, plus: bool, into: &mut Vec<(bool, Expr)>) {
        match self {
            Expr::Binary('+', a, b) => {
                a.terms(plus, into);
                b.terms(plus, into);
            }
            Expr::Binary('-', a, b) => {
                a.terms(plus, into);
                b.terms(!plus, into);
            }
            other => into.push((plus, other)),
        }
    }

    fn summed(terms: Vec<(bool, Expr)>) -> Expr {
        let mut terms = terms.into_iter();
        let Some((plus, first)) = terms.next() else {
            return Expr::Number(0.0);
        };
        let first = match plus {
            true => first,
            false => Expr::Negate(Box::new(first)),
        };
        terms.fold(first, |sum, (plus, term)| {
            Expr::Binary(if plus { '+' } else { '-' }, Box::new(sum), Box::new(term))
        })
    }

    fn precedence(&self) -> u8 {
        match self {
            Expr::Binary('+' | '-', ..) => 1,
            Expr::Binary(..) => 2,
            Expr::Negate(_) => 3,
            _ => 4,
        }
    }

    /// As text, with the parentheses it needs.
    pub(super) fn shown(&self) -> String {
        let wrap = |e: &Expr, parentheses: bool| match parentheses {
            true => format!("({})", e.shown()),
            false => e.shown(),
        };
        match self {
            Expr::Number(value) => format!("{value}"),
            Expr::Symbol(name) => name.clone(),
            Expr::Negate(operand) => format!("-{}", wrap(operand, operand.precedence() < 3)),
            Expr::Cdiv(a, b) => format!("cdiv({}, {})", a.shown(), b.shown()),
            Expr::Floor(operand) => format!("floor({})", operand.shown()),
            Expr::Pow(a, b) => format!("pow({}, {})", a.shown(), b.shown()),
            Expr::Extreme(max, a, b) => format!(
                "{}({}, {})",
                if *max { "max" } else { "min" },
                a.shown(),
                b.shown()
            ),
            Expr::Binary(op, a, b) => {
                let own = self.precedence();
                format!(
                    "{} {op} {}",
                    wrap(a, a.precedence() < own),
                    wrap(b, b.precedence() <= own)
                )
            }
        }
    }

    /// As a TOML value: a number, or a string over its symbols.
    pub(super) fn toml(&self) -> String {
        match (self.uses_symbols(), self.value(0.0)) {
            (false, Some(value)) => format!("{value}"),
            _ => quoted(&self.shown()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Expr;

    /// `text` parsed, simplified and floored over the loop variables `loops`.
    fn read(text: &str, loops: &[&str]) -> String {
        let loops: Vec<String> = loops.iter().map(|l| l.to_string()).collect();
        Expr::parse(text)
            .unwrap()
            .simplified()
            .floored(&loops)
            .shown()
    }

    #[test]
    fn shifts_and_integer_division_over_loop_variables_become_what_c_computes() {
        assert_eq!(read("1 << 20", &[]), "1048576");
        assert_eq!(read("k << 1", &["k"]), "k * 2");
        assert_eq!(read("k << s", &["k", "s"]), "k * pow(2, s)");
        assert_eq!(read("k >> 1", &["k"]), "floor(k / 2)");
        assert_eq!(read("(s + 511) / 512", &["s"]), "cdiv(s, 512)");
        assert_eq!(read("(s + 511) >> 9", &["s"]), "cdiv(s, 512)");
        assert_eq!(read("s / 2", &["s"]), "floor(s / 2)");
        // Over N alone the division stays exact, as the suite's sizes divide.
        assert_eq!(read("N / 512", &["k"]), "N / 512");
        assert_eq!(read("(N) >> 8", &[]), "floor(N / 256)");
        // A mask of low bits is a remainder; another mask is not read.
        assert_eq!(read("(k & 1)", &["k"]), "k % 2");
        assert_eq!(read("k & 255", &["k"]), "k % 256");
        assert!(Expr::parse("k & 6").is_none());
        assert!(Expr::parse("k & j").is_none());
    }

    #[test]
    fn min_and_max_of_the_file_are_the_suites() {
        let scanned = crate::config::kernels::scan("int main() { int threads = 256; }");
        let mapped = [("n".to_string(), "n".to_string(), "N")];
        let translated = |text: &str| {
            super::translate(text, &mapped, &[], &scanned, &mut Vec::new(), 0)
                .and_then(|t| Expr::parse(&t))
                .map(|e| e.simplified().shown())
        };
        assert_eq!(
            translated("std::min((n + threads - 1) / threads, 2048)").as_deref(),
            Some("min(cdiv(N, 256), 2048)")
        );
        // Inside a min or max a quotient is C's integer division.
        assert_eq!(
            translated("max(n / 4, 1)").as_deref(),
            Some("max(floor(N / 4), 1)")
        );
        assert_eq!(translated("min(n, 2, 3)"), None, "min of three");
    }

    #[test]
    fn values_bind_n_and_loop_variables() {
        let quotient = Expr::parse("k >> 1").unwrap();
        assert_eq!(quotient.value_at(&[("k".to_string(), 7.0)]), Some(3.0));
        assert_eq!(quotient.value(7.0), None, "k is not bound");
        assert_eq!(Expr::parse("N * 4").unwrap().value(8.0), Some(32.0));
    }
}
