//! The loops around a launch in a user's host code, for `gpuprof init
//! --from`: the `for` loops whose body holds the `<<<…>>>` launch a
//! variant is drafted from, and the `while` loops simple enough to read as
//! one (a variable the condition tests, changed once, by a statement of
//! the body after the launch); and the `repeat` of a sequence step
//! translated from their headers: `for (k = 2; k <= n; k <<= 1)` is
//! `{ for = "k", from = 2, while = "k <= N", next = "k * 2" }`. Only the
//! loops whose variable the launch uses (in its arguments or geometry, or
//! in the header of such a loop inside them) repeat it; any other loop
//! around it (a timing loop) is noted in a comment and left out. A piece
//! of a header that cannot be translated is written `FILL_IN`, which
//! `--check` refuses, under a `# fill in:` line that quotes the header and
//! says what to write.
//!
//! An `if` inside those loops whose branch holds the launch is the step's
//! `when` ([`when`]): its condition translated as a loop's (comparisons
//! joined by `&&`), negated in its `else` where it is one comparison, the
//! conditions of nested ones joined by `&&`; a loop variable such a
//! condition tests repeats the launch too. A condition gpuprof cannot say
//! (`||`, `!`, a call, the `else` of several comparisons) is left to a
//! `# fill in:` line that quotes the `if`. A `break` or `return` in a
//! repeating loop's body is not translated: gpuprof's loops have none, and
//! a `# fill in:` line quotes the loop and says to fold it into the loop's
//! `while`. An `if` around the repeating loops is only noted.

use std::ops::Range;

use super::expression::Reader;
use super::from_source::{is_identifier, quoted};
use crate::config::kernels::{literal, skip_until};

/// A host variable a launch passes to a pointer parameter, and that
/// parameter's name.
pub(super) type PassedPointer = (String, String);

/// Another launch of the file: its offset, and how it is written
/// (`Fan2<<<dimGrid, dimBlock>>>`).
pub(super) type OtherLaunch = (usize, String);

/// What a loop header's piece that cannot be translated is written as.
const PLACEHOLDER: &str = "\"FILL_IN\"";

/// A source's text with its comments, string and character literals and
/// preprocessor lines blanked, so that only code is read (offsets stay the
/// source's, `Launch::at`), and its loop statements.
pub(super) struct Code {
    chars: Vec<char>,
    headers: Vec<Header>,
    ifs: Vec<IfStatement>,
}

/// An `if` statement, as the file writes it.
struct IfStatement {
    /// `if (stride >= SHARED_SIZE_LIMIT)`, whitespace made single spaces.
    written: String,
    condition: String,
    /// The offset of its keyword.
    start: usize,
    /// The offsets of its statement, and of its `else`'s where it has one.
    then: Range<usize>,
    otherwise: Option<Range<usize>>,
}

/// A branch of an `if` that holds the launch: the `if` as written, its C
/// condition, and whether the launch is in its `else`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Branch {
    written: String,
    condition: String,
    otherwise: bool,
}

/// A loop statement, as the file writes it.
struct Header {
    /// `for (k = 2; k <= n; k <<= 1)`, whitespace made single spaces.
    written: String,
    /// The offset of its keyword.
    start: usize,
    /// The offsets of its body.
    body: Range<usize>,
    kind: Kind,
}

enum Kind {
    For {
        init: String,
        condition: String,
        step: String,
    },
    While {
        condition: String,
    },
    DoWhile {
        condition: String,
    },
}

/// A loop gpuprof reads: its variable, and as C expressions its first
/// value, the condition it goes on under and its next value (`None` where
/// the header does not say, or not so that gpuprof can read it).
pub(super) struct Loop {
    written: String,
    /// The offsets of its body.
    body: Range<usize>,
    pub(super) variable: String,
    from: Option<String>,
    condition: Option<String>,
    next: Option<String>,
}

/// The loops around a launch: those that repeat it, outermost first, a
/// comment line on each other one (and on an `if` around them, a `break`
/// or `return` in them), and the branches of the `if`s inside them that
/// hold the launch, outermost first.
#[derive(Default)]
pub(super) struct Around {
    pub(super) loops: Vec<Loop>,
    pub(super) notes: Vec<String>,
    pub(super) branches: Vec<Branch>,
}

/// A step's `when` translated from the `if`s around its launch: the TOML
/// value (`None` where no condition could be), and the comment lines that
/// say where it comes from and what is left to fill in.
pub(super) struct When {
    pub(super) value: Option<String>,
    pub(super) notes: Vec<String>,
}

/// The loops a launch is repeated over: their variables, and the values
/// of N and of each variable at the loops' first turn (where it has one).
pub(super) struct Turn {
    pub(super) variables: Vec<String>,
    pub(super) values: Vec<(String, f64)>,
}

/// A `repeat` translated from loops: a line per loop, the `# fill in:`
/// lines for the pieces that could not be, and the first turn.
pub(super) struct Repeat {
    pub(super) lines: Vec<String>,
    pub(super) notes: Vec<String>,
    pub(super) turn: Turn,
}

/// The loops around the launch at `at`: those whose variable it uses
/// (`used`: the names its arguments and geometry use), or the header of
/// such a loop inside them does, or the condition of an `if` inside a loop
/// whose branch holds the launch, repeat it. `names` gives the names a C
/// text uses (through the variables' initializers). A repeating loop whose
/// body swaps two of `buffers` (the launch's pointer arguments, each with
/// the name of the parameter it is passed as) between launches gets a
/// note on writing the ping-pong as a group; one whose body has a `break`
/// or `return`, a note on folding it into its `while`.
pub(super) fn around(
    code: &Code,
    at: usize,
    (mut used, buffers, others): (Vec<String>, &[PassedPointer], &[OtherLaunch]),
    names: impl Fn(&str) -> Vec<String>,
) -> Around {
    let mut around = Around::default();
    let branches = code.branches_around(at);
    // Which branch of an `if` inside a loop runs can change from turn to
    // turn: the variables its condition tests repeat the launch.
    if let Some(outermost) = code.headers_around(at).first() {
        for (statement, _) in branches.iter().filter(|(s, _)| s.start > outermost.start) {
            used.extend(names(&statement.condition));
        }
    }
    for header in code.headers_around(at).into_iter().rev() {
        match code.read(header, at) {
            Some(one) if used.contains(&one.variable) => {
                for piece in one.pieces() {
                    used.extend(names(piece));
                }
                if let Some((a, b)) = code.swapped(&header.body, buffers) {
                    around.notes.insert(0, header.ping_pong(a, b));
                }
                around.loops.insert(0, one);
            }
            Some(_) => {
                let note = match code.swapped(&header.body, buffers) {
                    Some((a, b)) => header.swaps_only(a, b),
                    None => header.unused(),
                };
                around.notes.insert(0, note);
            }
            None => {
                let tested = names(header.condition());
                let note = match tested.iter().any(|name| used.contains(name)) {
                    true => header.unread(),
                    false => header.unused(),
                };
                around.notes.insert(0, note);
            }
        }
    }
    let Some(outermost) = around.loops.first().map(|l| l.body.clone()) else {
        return around;
    };
    for (statement, otherwise) in branches {
        match outermost.contains(&statement.start) {
            true => around.branches.push(statement.branch(otherwise)),
            false => around.notes.push(statement.outside(otherwise)),
        }
    }
    for one in &around.loops {
        if let Some((stops, under)) = code.stop_in(one) {
            around.notes.push(one.stopped(stops, under));
        }
    }
    let beside: Vec<&str> = others
        .iter()
        .filter(|(at, _)| outermost.contains(at))
        .map(|(_, written)| written.as_str())
        .collect();
    if let Some(one) = around.loops.first()
        && !beside.is_empty()
    {
        around.notes.push(one.shares_turns(&beside));
    }
    around
}

/// The `when` of a step launched in the `branches` (outermost first), over
/// the `loops`' variables and what `reader` reads.
pub(super) fn when(branches: &[Branch], reader: &Reader, loops: &[String]) -> When {
    let mut when = When {
        value: None,
        notes: Vec::new(),
    };
    let (mut compared, mut from, mut used) = (Vec::new(), Vec::new(), Vec::new());
    let mut over: Vec<&str> = loops.iter().rev().map(String::as_str).collect();
    over.push("N");
    let over = over.join(", ");
    for branch in branches {
        let mut seen = Vec::new();
        let read = comparisons(&branch.condition, loops, reader, &mut seen);
        let said = match (read, branch.otherwise) {
            (Some(read), false) => Some(read),
            (Some(read), true) => match &read[..] {
                [(left, operator, right)] => {
                    Some(vec![(left.clone(), negation(operator), right.clone())])
                }
                _ => {
                    when.notes.push(branch.else_of_several(&over));
                    None
                }
            },
            (None, _) => {
                when.notes.push(branch.unread(&over));
                None
            }
        };
        if let Some(said) = said {
            compared.extend(said.into_iter().map(|(l, op, r)| format!("{l} {op} {r}")));
            from.push(branch.quoted());
            for one in seen {
                if !used.contains(&one) {
                    used.push(one);
                }
            }
        }
    }
    if !compared.is_empty() {
        let marked = match used.is_empty() {
            true => "",
            false => "fill in: ",
        };
        when.notes.insert(
            0,
            format!(
                "# {marked}when: from the file's {}{}\n",
                from.join(" and "),
                reader.taken(&used)
            ),
        );
        when.value = Some(quoted(&compared.join(" && ")));
    }
    when
}

/// The comparison that holds where `operator`'s does not.
fn negation(operator: &str) -> &'static str {
    match operator {
        "<" => ">=",
        ">=" => "<",
        "<=" => ">",
        ">" => "<=",
        "==" => "!=",
        _ => "==",
    }
}

/// `loops` (outermost first) as a `repeat`, their C expressions read by
/// `reader`, at N = `n`.
pub(super) fn repeat(loops: &[Loop], reader: &Reader, n: f64) -> Repeat {
    let mut repeat = Repeat {
        lines: Vec::new(),
        notes: Vec::new(),
        turn: Turn::once(n),
    };
    for one in loops {
        let outer = repeat.turn.variables.clone();
        repeat.turn.variables.push(one.variable.clone());
        let read = one.translated(&outer, &repeat.turn, reader);
        if let Some(first) = read.first {
            repeat.turn.values.push((one.variable.clone(), first));
        }
        let unread = read.unread();
        let marked = match unread.is_empty() && read.used.is_empty() {
            true => "",
            false => "fill in: ",
        };
        let value = |piece: Option<String>| piece.unwrap_or(PLACEHOLDER.to_string());
        repeat.lines.push(format!(
            "{{ for = {}, from = {}, while = {}, next = {} }},  # {marked}from the file's {}{}",
            quoted(&one.variable),
            value(read.from),
            value(read.condition),
            value(read.next),
            one.written,
            reader.taken(&read.used),
        ));
        if !unread.is_empty() {
            repeat
                .notes
                .push(one.advice(&unread, &repeat.turn.variables));
        }
    }
    repeat
}

/// A loop's header in gpuprof's language: each piece as a TOML value
/// (`None` where it cannot be translated), the host variables taken as N
/// that they use, and the loop variable's first value.
struct Translated {
    from: Option<String>,
    condition: Option<String>,
    next: Option<String>,
    used: Vec<(String, String)>,
    first: Option<f64>,
}

impl Translated {
    /// The keys of the pieces that could not be translated.
    fn unread(&self) -> Vec<&'static str> {
        [
            (&self.from, "from"),
            (&self.condition, "while"),
            (&self.next, "next"),
        ]
        .into_iter()
        .filter_map(|(piece, key)| piece.is_none().then_some(key))
        .collect()
    }
}

/// The C condition `text` (comparisons joined by `&&`; a bare value is
/// compared with 0) in gpuprof's language.
fn condition(
    text: &str,
    loops: &[String],
    reader: &Reader,
    used: &mut Vec<(String, String)>,
) -> Option<String> {
    let compared = comparisons(text, loops, reader, used)?;
    let written: Vec<String> = compared
        .into_iter()
        .map(|(left, operator, right)| format!("{left} {operator} {right}"))
        .collect();
    Some(written.join(" && "))
}

/// The comparisons of the C condition `text` (joined by `&&`; a bare
/// value is compared with 0), each side in gpuprof's language.
fn comparisons(
    text: &str,
    loops: &[String],
    reader: &Reader,
    used: &mut Vec<(String, String)>,
) -> Option<Vec<(String, &'static str, String)>> {
    pieces(unwrapped(text), "&&")
        .iter()
        .map(|part| {
            let part = unwrapped(part);
            let (left, operator, right) = comparison(part).unwrap_or((part, "!=", "0"));
            let left = reader.expr(left, loops, used)?;
            let right = reader.expr(right, loops, used)?;
            Some((left.shown(), operator, right.shown()))
        })
        .collect()
}

/// The first comparison of `text` outside brackets: its left side, its
/// operator and its right side (`<<` and `>>` are shifts).
fn comparison(text: &str) -> Option<(&str, &'static str, &str)> {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    while i < bytes.len() {
        let next = bytes.get(i + 1).copied();
        let operator = match (bytes[i], next) {
            (b'(' | b'[', _) => {
                depth += 1;
                None
            }
            (b')' | b']', _) => {
                depth -= 1;
                None
            }
            _ if depth > 0 => None,
            (b'<', Some(b'<')) | (b'>', Some(b'>')) => {
                i += 2;
                continue;
            }
            (b'<', Some(b'=')) => Some("<="),
            (b'>', Some(b'=')) => Some(">="),
            (b'=', Some(b'=')) => Some("=="),
            (b'!', Some(b'=')) => Some("!="),
            (b'<', _) => Some("<"),
            (b'>', _) => Some(">"),
            _ => None,
        };
        if let Some(operator) = operator {
            return Some((&text[..i], operator, &text[i + operator.len()..]));
        }
        i += 1;
    }
    None
}

/// `text` without parentheses around all of it.
fn unwrapped(text: &str) -> &str {
    let mut text = text.trim();
    while let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        // `(a) + (b)` is not wrapped.
        let mut depth = 0i32;
        let balanced = inner.chars().all(|c| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            depth >= 0
        });
        if !balanced {
            break;
        }
        text = inner.trim();
    }
    text
}

/// `text` split at each `separator` outside brackets, empty pieces kept.
fn pieces<'t>(text: &'t str, separator: &str) -> Vec<&'t str> {
    let mut found = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if depth == 0 && text[i..].starts_with(separator) && i >= start => {
                found.push(text[start..i].trim());
                start = i + separator.len();
            }
            _ => {}
        }
    }
    found.push(text[start..].trim());
    found
}

/// The byte offset of the `=` of an assignment in `text` (`=`, `+=`,
/// `<<=`; not `==`, `<=`, `!=`), outside brackets.
fn assignment(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'=' if depth == 0 => {
                let before = |k: usize| i.checked_sub(k).map(|k| bytes[k]);
                let compares = match before(1) {
                    Some(b'=' | b'!') => true,
                    Some(c @ (b'<' | b'>')) => before(2) != Some(c),
                    _ => false,
                };
                if !compares && bytes.get(i + 1) != Some(&b'=') {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The variable a loop's step changes and, where C's operator has a
/// meaning in gpuprof's language, its next value as a C expression: `k
/// <<= 1` is `k << (1)`, `j = j >> 1` is `j >> 1`, `k++` is `k + 1`.
fn stepped(step: &str) -> Option<(String, Option<String>)> {
    let step = step.trim();
    for (twice, sign) in [("++", '+'), ("--", '-')] {
        let changed = step.strip_prefix(twice).or(step.strip_suffix(twice));
        if let Some(variable) = changed.map(str::trim).filter(|v| is_identifier(v)) {
            return Some((variable.to_string(), Some(format!("{variable} {sign} 1"))));
        }
    }
    let at = assignment(step)?;
    let left = step[..at].trim_end();
    let operator = ["<<", ">>", "+", "-", "*", "/", "%", "&", "|", "^"]
        .into_iter()
        .find(|op| left.ends_with(op));
    let variable = left[..left.len() - operator.map_or(0, str::len)].trim();
    if !is_identifier(variable) {
        return None;
    }
    let value = step[at + 1..].trim();
    let next = match operator {
        None => Some(value.to_string()),
        Some("&" | "|" | "^") => None,
        Some(op) => Some(format!("{variable} {op} ({value})")),
    };
    Some((variable.to_string(), next))
}

/// `int k = 2` (or `k = 2`): the variable a loop's init sets and the C
/// expression it sets it to.
fn declared(init: &str) -> Option<(String, String)> {
    let at = assignment(init)?;
    let variable = init[..at].split_whitespace().last()?;
    is_identifier(variable).then(|| (variable.to_string(), init[at + 1..].trim().to_string()))
}

/// The names `text` uses that are not called (`min(a, b)`: a, b).
fn identifiers(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            // A number, `0x10u` too.
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            continue;
        }
        if !(chars[i].is_ascii_alphabetic() || chars[i] == '_') {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        let called = chars[i..].iter().find(|c| !c.is_whitespace()) == Some(&'(');
        let word: String = chars[start..i].iter().collect();
        if !called && !found.contains(&word) {
            found.push(word);
        }
    }
    found
}

/// `source`'s characters with its comments, string and character literals
/// and preprocessor lines made spaces (its line breaks kept).
fn blanked(source: &str) -> Vec<char> {
    let mut chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    let mut line_start = true;
    while i < chars.len() {
        let c = chars[i];
        // The scanner's own reading of comments and literals, so that both
        // see the same code.
        let end = match (c, chars.get(i + 1)) {
            ('/', Some('/')) => skip_until(&chars, i, "\n"),
            ('/', Some('*')) => skip_until(&chars, i + 2, "*/") + 2,
            ('"' | '\'', _) => literal(&chars, i).1,
            ('#', _) if line_start => directive_end(&chars, i),
            _ => {
                line_start = c == '\n' || (line_start && c.is_whitespace());
                i += 1;
                continue;
            }
        }
        .min(chars.len());
        for blank in &mut chars[i..end] {
            if *blank != '\n' {
                *blank = ' ';
            }
        }
        i = end;
    }
    chars
}

impl Code {
    /// `source` read for its loop statements.
    pub(super) fn new(source: &str) -> Code {
        let mut code = Code {
            chars: blanked(source),
            headers: Vec::new(),
            ifs: Vec::new(),
        };
        code.headers = (0..code.chars.len())
            .filter_map(|i| code.header_at(i))
            .collect();
        code.ifs = (0..code.chars.len())
            .filter_map(|i| code.if_at(i))
            .collect();
        code
    }

    /// Whether the statement holding offset `at` is a `case` (or the
    /// `default`) of a `switch`: `case 256: reduce<256><<<…>>>(…);`, one
    /// of the instances a value chooses between when the program runs.
    pub(super) fn in_a_case(&self, at: usize) -> bool {
        let at = at.min(self.chars.len());
        let start = self.chars[..at]
            .iter()
            .rposition(|c| matches!(c, ';' | '{' | '}'))
            .map_or(0, |i| i + 1);
        let statement: String = self.chars[start..at].iter().collect();
        let statement = statement.trim_start();
        statement.starts_with("case ") || statement.starts_with("default")
    }

    /// Whether an `if` puts offsets `a` and `b` in its two branches: one
    /// in its statement, the other in its `else` (`if (block_size == 16)
    /// MatrixMul<16><<<…>>>(…); else MatrixMul<32><<<…>>>(…);`), so
    /// that one of them runs, chosen when the program runs.
    pub(super) fn in_other_branches(&self, a: usize, b: usize) -> bool {
        self.ifs.iter().any(|statement| {
            statement.otherwise.as_ref().is_some_and(|otherwise| {
                statement.then.contains(&a) && otherwise.contains(&b)
                    || statement.then.contains(&b) && otherwise.contains(&a)
            })
        })
    }

    /// The `if` statement whose keyword starts at `i`, if one does.
    fn if_at(&self, i: usize) -> Option<IfStatement> {
        self.word_at(i, "if").then_some(())?;
        let open = self.skip_space(i + 2);
        (self.chars.get(open) == Some(&'(')).then_some(())?;
        let close = self.group_end(open);
        let condition = self.text(open + 1..close.saturating_sub(1));
        let then_start = self.skip_space(close);
        let then = then_start..self.statement_end(then_start);
        let after = self.skip_space(then.end);
        let otherwise = self.word_at(after, "else").then(|| {
            let start = self.skip_space(after + 4);
            start..self.statement_end(start)
        });
        Some(IfStatement {
            written: format!("if ({condition})"),
            condition,
            start: i,
            then,
            otherwise,
        })
    }

    /// The `if` statements with a branch that holds offset `at`, outermost
    /// first, each with whether it is the `else`.
    fn branches_around(&self, at: usize) -> Vec<(&IfStatement, bool)> {
        self.ifs
            .iter()
            .filter_map(|statement| match &statement.otherwise {
                _ if statement.then.contains(&at) => Some((statement, false)),
                Some(otherwise) if otherwise.contains(&at) => Some((statement, true)),
                _ => None,
            })
            .collect()
    }

    /// The first `break` of the loop `one` (not of a loop or `switch`
    /// inside it) or `return` in its body, with the branch of the
    /// innermost `if` inside the loop that holds it, if any.
    fn stop_in(&self, one: &Loop) -> Option<(&'static str, Option<Branch>)> {
        let body = one.body.clone();
        let inner = |at: usize| {
            let looped = self
                .headers
                .iter()
                .any(|h| h.start >= body.start && h.body.contains(&at));
            let switched = body.clone().any(|k| {
                k < at && self.word_at(k, "switch") && (k..self.statement_end(k)).contains(&at)
            });
            looped || switched
        };
        let (at, stops) = body.clone().find_map(|k| {
            if self.word_at(k, "return") {
                Some((k, "return"))
            } else if self.word_at(k, "break") && !inner(k) {
                Some((k, "break;"))
            } else {
                None
            }
        })?;
        let under = self
            .branches_around(at)
            .into_iter()
            .rfind(|(statement, _)| body.contains(&statement.start))
            .map(|(statement, otherwise)| statement.branch(otherwise));
        Some((stops, under))
    }

    /// The loop statements whose body holds offset `at`, outermost first.
    fn headers_around(&self, at: usize) -> Vec<&Header> {
        self.headers
            .iter()
            .filter(|header| header.body.contains(&at))
            .collect()
    }

    /// The loop statement whose keyword starts at `i`, if one does.
    fn header_at(&self, i: usize) -> Option<Header> {
        if self.word_at(i, "do") {
            return self.do_while_at(i);
        }
        let keyword = ["for", "while"].into_iter().find(|w| self.word_at(i, w))?;
        let open = self.skip_space(i + keyword.len());
        (self.chars.get(open) == Some(&'(')).then_some(())?;
        let close = self.group_end(open);
        let body_start = self.skip_space(close);
        // `while (…);` ends a `do`, which its `do` reads.
        (self.chars.get(body_start) != Some(&';')).then_some(())?;
        let inside = self.text(open + 1..close.saturating_sub(1));
        let kind = match keyword {
            "for" => match pieces(&inside, ";").as_slice() {
                [init, condition, step] => Kind::For {
                    init: init.to_string(),
                    condition: condition.to_string(),
                    step: step.to_string(),
                },
                _ => return None,
            },
            _ => Kind::While {
                condition: inside.clone(),
            },
        };
        Some(Header {
            written: format!("{keyword} ({inside})"),
            start: i,
            body: body_start..self.statement_end(body_start),
            kind,
        })
    }

    /// `do … while (condition);` starting at `i`.
    fn do_while_at(&self, i: usize) -> Option<Header> {
        let body_start = self.skip_space(i + 2);
        let body_end = self.statement_end(body_start);
        let keyword = self.skip_space(body_end);
        self.word_at(keyword, "while").then_some(())?;
        let open = self.skip_space(keyword + 5);
        (self.chars.get(open) == Some(&'(')).then_some(())?;
        let condition = self.text(open + 1..self.group_end(open).saturating_sub(1));
        Some(Header {
            written: format!("do … while ({condition})"),
            start: i,
            body: body_start..body_end,
            kind: Kind::DoWhile { condition },
        })
    }

    /// The loop `header` as gpuprof reads it, for the launch at `at`.
    fn read(&self, header: &Header, at: usize) -> Option<Loop> {
        match &header.kind {
            Kind::For {
                init,
                condition,
                step,
            } => self.read_for(header, init, condition, step),
            Kind::While { condition } => self.read_while(header, condition, at),
            Kind::DoWhile { .. } => None,
        }
    }

    /// A `for` loop: its variable is the one its step changes (or its
    /// init sets); an empty init leaves its first value to the last
    /// assignment before the loop.
    fn read_for(&self, header: &Header, init: &str, condition: &str, step: &str) -> Option<Loop> {
        let steps = pieces(step, ",");
        let stepped = steps.first().and_then(|s| stepped(s));
        let declared: Vec<(String, String)> = pieces(init, ",")
            .iter()
            .filter_map(|d| declared(d))
            .collect();
        let variable = stepped
            .as_ref()
            .map(|(v, _)| v.clone())
            .or_else(|| declared.first().map(|(v, _)| v.clone()))?;
        let from = match declared.iter().find(|(v, _)| *v == variable) {
            Some((_, value)) => Some(value.clone()),
            None if init.is_empty() => self.assigned_before(header.start, &variable),
            None => None,
        };
        Some(Loop {
            written: header.written.clone(),
            body: header.body.clone(),
            from,
            condition: (!condition.is_empty()).then(|| condition.to_string()),
            next: stepped
                .filter(|_| steps.len() == 1)
                .and_then(|(_, next)| next),
            variable,
        })
    }

    /// A `while` loop read as a `for`: a variable its condition tests,
    /// changed once in its braced body, by a statement of the body itself
    /// (not of an `if`) after the launch at `at`; its first value is the
    /// last assignment before the loop.
    fn read_while(&self, header: &Header, condition: &str, at: usize) -> Option<Loop> {
        (self.chars.get(header.body.start) == Some(&'{')).then_some(())?;
        identifiers(condition).into_iter().find_map(|variable| {
            let [update] = self.changes(&header.body, &variable)[..] else {
                return None;
            };
            (update > at && self.top_level(&header.body, update)).then_some(())?;
            let statement = self.text(update..self.statement_end(update));
            let (changed, next) = stepped(statement.trim_end_matches(';'))?;
            (changed == variable).then(|| Loop {
                written: header.written.clone(),
                body: header.body.clone(),
                from: self.assigned_before(header.start, &variable),
                condition: Some(condition.to_string()),
                next,
                variable,
            })
        })
    }

    /// Where the statements that change `variable` in `body` start: an
    /// assignment to it (`=`, `+=`, `<<=`), or `++`/`--` before or after it.
    /// Two of `buffers` that `body` swaps: `std::swap(a, b)`, or `a = b;`
    /// (the middle of a swap through a temporary).
    fn swapped<'b>(
        &self,
        body: &Range<usize>,
        buffers: &'b [PassedPointer],
    ) -> Option<(&'b PassedPointer, &'b PassedPointer)> {
        let text = self.text(body.clone());
        let known = |name: &str| buffers.iter().find(|(variable, _)| variable == name);
        let call = regex::Regex::new(r"\b(?:std::)?swap\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)").ok()?;
        let assigned = regex::Regex::new(r"(?:^|[;{}\s])(\w+)\s*=\s*(\w+)\s*;").ok()?;
        call.captures_iter(&text)
            .chain(assigned.captures_iter(&text))
            .filter(|c| c[1] != c[2])
            .find_map(|c| Some((known(&c[1])?, known(&c[2])?)))
    }

    fn changes(&self, body: &Range<usize>, variable: &str) -> Vec<usize> {
        let mut found = Vec::new();
        for i in body.clone().filter(|&i| self.word_at(i, variable)) {
            let after = self.skip_space(i + variable.len());
            let rest: String = self.chars[after..self.chars.len().min(after + 4)]
                .iter()
                .collect();
            let before: String = self.chars[i.saturating_sub(2)..i].iter().collect();
            let assigned = assignment(&rest).is_some_and(|at| at < 3)
                || rest.starts_with("++")
                || rest.starts_with("--");
            if before == "++" || before == "--" {
                found.push(i - 2);
            } else if assigned {
                found.push(i);
            }
        }
        found
    }

    /// Whether the statement at `at` is one of `body`'s own.
    fn top_level(&self, body: &Range<usize>, at: usize) -> bool {
        let mut depth = 0i32;
        for &c in &self.chars[body.start + 1..at] {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
        }
        let before = self.chars[..at].iter().rev().find(|c| !c.is_whitespace());
        depth == 0 && matches!(before, Some('{' | ';' | '}'))
    }

    /// The C expression of the last assignment to `variable` before
    /// offset `before` (`int s = n;`, `s = n;`).
    fn assigned_before(&self, before: usize, variable: &str) -> Option<String> {
        (0..before).rev().find_map(|i| {
            if !self.word_at(i, variable) {
                return None;
            }
            let equals = self.skip_space(i + variable.len());
            let assigns =
                self.chars.get(equals) == Some(&'=') && self.chars.get(equals + 1) != Some(&'=');
            assigns.then(|| self.expression_from(equals + 1))
        })
    }

    /// The expression starting at `start`, up to a `;` or `,` outside
    /// brackets or a bracket it does not open.
    fn expression_from(&self, start: usize) -> String {
        let mut depth = 0i32;
        let end = (start..self.chars.len())
            .find(|&k| {
                match self.chars[k] {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' if depth == 0 => return true,
                    ')' | ']' | '}' => depth -= 1,
                    ';' | ',' if depth == 0 => return true,
                    _ => {}
                }
                false
            })
            .unwrap_or(self.chars.len());
        self.text(start..end)
    }

    /// The offset after the statement that starts at `start` (a block,
    /// a loop or `if` with its body, or up to its `;`).
    fn statement_end(&self, start: usize) -> usize {
        let i = self.skip_space(start);
        if self.chars.get(i) == Some(&'{') {
            return self.group_end(i);
        }
        if let Some(keyword) = ["for", "while", "switch", "if"]
            .into_iter()
            .find(|w| self.word_at(i, w))
        {
            let end = self.statement_end(self.group_end(self.skip_space(i + keyword.len())));
            let after = self.skip_space(end);
            return match keyword == "if" && self.word_at(after, "else") {
                true => self.statement_end(after + 4),
                false => end,
            };
        }
        if self.word_at(i, "do") {
            return self.do_while_at(i).map_or(self.chars.len(), |header| {
                let close = self.skip_space(header.body.end);
                let open = self.skip_space(close + 5);
                self.group_end(open) + 1
            });
        }
        let mut depth = 0i32;
        for k in i..self.chars.len() {
            match self.chars[k] {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth == 0 => return k,
                ')' | ']' | '}' => depth -= 1,
                ';' if depth == 0 => return k + 1,
                _ => {}
            }
        }
        self.chars.len()
    }

    /// The offset after the bracket that closes the one at `open`.
    fn group_end(&self, open: usize) -> usize {
        let mut depth = 0i32;
        for k in open..self.chars.len() {
            match self.chars[k] {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return k + 1;
                    }
                }
                _ => {}
            }
        }
        self.chars.len()
    }

    fn skip_space(&self, from: usize) -> usize {
        (from..self.chars.len())
            .find(|&k| !self.chars[k].is_whitespace())
            .unwrap_or(self.chars.len())
    }

    /// Whether the word `word` starts at `i` (not inside a longer name).
    fn word_at(&self, i: usize, word: &str) -> bool {
        let name = |k: usize| {
            self.chars
                .get(k)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
        };
        let length = word.chars().count();
        self.chars
            .get(i..i + length)
            .is_some_and(|here| here.iter().copied().eq(word.chars()))
            && !(i > 0 && name(i - 1))
            && !name(i + length)
    }

    /// The code in `range`, whitespace made single spaces.
    fn text(&self, range: Range<usize>) -> String {
        let end = range.end.min(self.chars.len());
        let start = range.start.min(end);
        let text: String = self.chars[start..end].iter().collect();
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// The offset of the end of the preprocessor line starting at `i`, its
/// continuations included.
fn directive_end(chars: &[char], i: usize) -> usize {
    let mut k = i;
    loop {
        k = skip_until(chars, k, "\n");
        if k == 0 || k >= chars.len() || chars[k - 1] != '\\' {
            return k;
        }
        k += 1;
    }
}

impl Header {
    /// Its condition as written.
    fn condition(&self) -> &str {
        match &self.kind {
            Kind::For { condition, .. }
            | Kind::While { condition }
            | Kind::DoWhile { condition } => condition,
        }
    }

    /// The comment on a loop around the launch that does not change it.
    fn unused(&self) -> String {
        format!(
            "# the file launches it inside {}, whose variable neither its arguments nor its geometry use: drafted as one launch\n",
            self.written
        )
    }

    /// The comment on a loop around the launch whose turns differ only in
    /// swapping the buffers `a` and `b` (an iterative solver's sweeps).
    fn swaps_only(&self, a: &PassedPointer, b: &PassedPointer) -> String {
        format!(
            "# the file launches it inside {}, swapping {} and {} (passed as `{}` and `{}`) each turn: drafted as one launch, one of its sweeps; to time them all, make this variant a sequence whose repeated group launches it twice, the second time with `{}` and `{}` exchanged (see docs/variants-toml.md)\n",
            self.written, a.0, b.0, a.1, b.1, a.1, b.1
        )
    }

    /// The comment on a repeating loop that swaps the buffers `a` and `b`
    /// (each a host variable and the parameter it is passed as) between
    /// launches.
    fn ping_pong(&self, a: &PassedPointer, b: &PassedPointer) -> String {
        format!(
            "# fill in: the file swaps {} and {} (passed as `{}` and `{}`) inside {}: as drafted, every turn passes them the same way; write a turn as a group of two launches, the second with `{}` and `{}` exchanged, repeated half as often: {{ repeat = [...], steps = [{{ entry, grid, block, args }}, {{ ... }}] }} (see docs/variants-toml.md)\n",
            a.0, b.0, a.1, b.1, self.written, a.1, b.1
        )
    }

    /// The comment on a loop around the launch that may change it, and
    /// that gpuprof cannot read.
    fn unread(&self) -> String {
        format!(
            "# fill in: the file launches it inside {}, which gpuprof cannot read as a loop: if its turns launch it differently, make this variant a sequence whose step repeats it (repeat = [{{ for, from, while, next }}], see docs/variants-toml.md)\n",
            self.written
        )
    }
}

impl IfStatement {
    /// Its branch (the `else` where `otherwise`).
    fn branch(&self, otherwise: bool) -> Branch {
        Branch {
            written: self.written.clone(),
            condition: self.condition.clone(),
            otherwise,
        }
    }

    /// The comment on it where its branch holds the repeating loops.
    fn outside(&self, otherwise: bool) -> String {
        let (holds, branch) = match otherwise {
            true => ("does not hold", "in the else of"),
            false => ("holds", "inside"),
        };
        format!(
            "# the file runs these loops {branch} {}, around them: the sizes should be ones where it {holds}\n",
            self.written
        )
    }
}

impl Branch {
    /// `if (c)`, or `the else of if (c)`, quoted.
    fn quoted(&self) -> String {
        match self.otherwise {
            true => format!("else of {}", self.written),
            false => self.written.clone(),
        }
    }

    /// The `# fill in:` line on a condition gpuprof cannot translate;
    /// `over` names the symbols it may use.
    fn unread(&self, over: &str) -> String {
        let wanted = match self.otherwise {
            true => "where it does not hold",
            false => "where it holds",
        };
        format!(
            "# fill in: when: the file launches it in the {}, which gpuprof cannot translate; write when = \"CONDITION\" on the step, {wanted}: comparisons over {over} joined by && (no ||, no !)\n",
            self.quoted()
        )
    }

    /// The `# fill in:` line on the `else` of several comparisons, which
    /// one `when` cannot say.
    fn else_of_several(&self, over: &str) -> String {
        format!(
            "# fill in: when: the file launches it in the {}, where one of its comparisons fails, which one when (comparisons over {over} joined by &&, no ||) cannot say: write this step once per comparison, each with when = that comparison negated and the ones before it as they are\n",
            self.quoted()
        )
    }
}

impl Loop {
    /// The `# fill in:` line on it where its body has `stops` (`break;`
    /// or `return`), `under` the branch of an `if` inside it or not.
    fn stopped(&self, stops: &str, under: Option<Branch>) -> String {
        let place = match under {
            Some(branch) => format!(" in the {}", branch.quoted()),
            None => String::new(),
        };
        format!(
            "# fill in: loop {}: the file's {} ends early (`{stops}`{place}), and gpuprof's loops have no break: fold it into the loop's while, and the if into each branch's when (where the last turn is the first one where the if holds, the loop goes on while it did not hold at the turn before: tests/gpu/cs-sorting-networks/variants.toml writes cuda-samples' bitonic sort, which breaks after its first stride below SHARED_SIZE_LIMIT, as while = \"stride > 0 && 2 * stride >= SHARED_SIZE_LIMIT\")\n",
            self.variable, self.written
        )
    }

    /// The `# fill in:` line on it where its body launches `beside` too
    /// (another kernel each turn, or this one again with other
    /// arguments): the draft repeats one launch of the turn.
    fn shares_turns(&self, beside: &[&str]) -> String {
        format!(
            "# fill in: the file's {} launches {} in the same turns: this draft repeats only this launch; to run a turn as the program does, make one variant whose step groups the turn's launches in order, steps = [{{ entry, grid, block, args }}, {{ ... }}], each with its own when where an if chooses it (see docs/variants-toml.md)\n",
            self.written,
            beside.join(" and ")
        )
    }

    /// Its header in gpuprof's language: its first value over N and the
    /// `outer` loops' variables, its condition and next value over those
    /// of `turn` (its own last), evaluated at the first turn.
    fn translated(&self, outer: &[String], turn: &Turn, reader: &Reader) -> Translated {
        let mut used = Vec::new();
        let loops = &turn.variables;
        let from = self
            .from
            .as_deref()
            .and_then(|c| reader.expr(c, outer, &mut used));
        let condition = self
            .condition
            .as_deref()
            .and_then(|c| condition(c, loops, reader, &mut used));
        let next = self
            .next
            .as_deref()
            .and_then(|c| reader.expr(c, loops, &mut used));
        Translated {
            first: from.as_ref().and_then(|f| f.value_at(&turn.values)),
            from: from.map(|e| e.toml()),
            condition: condition.map(|c| quoted(&c)),
            next: next.map(|e| e.toml()),
            used,
        }
    }

    /// The C texts of its header that it reads.
    pub(super) fn pieces(&self) -> impl Iterator<Item = &str> {
        [&self.from, &self.condition, &self.next]
            .into_iter()
            .filter_map(|piece| piece.as_deref())
    }

    /// The `# fill in:` line for the pieces of its header (`unread`:
    /// `from`, `while`, `next`) written `FILL_IN`; `loops` are the
    /// variables down to its own.
    fn advice(&self, unread: &[&str], loops: &[String]) -> String {
        let over = |own: bool| {
            let mut symbols: Vec<&str> = loops[..loops.len() - usize::from(!own)]
                .iter()
                .rev()
                .map(String::as_str)
                .collect();
            symbols.push("N");
            symbols.join(", ")
        };
        let wanted: Vec<String> = unread
            .iter()
            .map(|key| match *key {
                "from" => format!("from = its first value, an expression over {}", over(false)),
                "while" => format!(
                    "while = the condition it goes on under, comparisons over {} joined by &&",
                    over(true)
                ),
                _ => format!(
                    "next = its next value, an expression over {} (C's j >>= 1 is floor(j / 2), k <<= 1 is k * 2, k++ is k + 1)",
                    over(true)
                ),
            })
            .collect();
        format!(
            "# fill in: loop {}: gpuprof cannot read all of the file's {}; write {}\n",
            self.variable,
            self.written,
            wanted.join("; ")
        )
    }
}

impl Turn {
    /// No loops: N alone.
    pub(super) fn once(n: f64) -> Turn {
        Turn {
            variables: Vec::new(),
            values: vec![("N".to_string(), n)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Code, around, comparison, declared, identifiers, stepped};

    /// The loops around the first `launch(` of `source` whose variables the
    /// names of `used` hold: the variables of those that repeat it, and
    /// the notes on the others.
    fn loops_of(source: &str, used: &[&str]) -> (Vec<String>, Vec<String>) {
        let at = source.find("launch(").unwrap();
        let used = used.iter().map(|u| u.to_string()).collect();
        let found = around(&Code::new(source), at, (used, &[], &[]), identifiers);
        let variables = found.loops.iter().map(|l| l.variable.clone()).collect();
        (variables, found.notes)
    }

    #[test]
    fn loops_are_found_past_comments_literals_and_unbraced_bodies() {
        let source = r#"
            // for (int x = 0; x < 9; x++) { in a comment
            #define LOOP for (;;) {
            void f(int n) {
                printf("for (;;) {");
                for (int r = 0; r < 3; r++) { warm(); }
                for (int i = 0; i < n; i++)
                    for (int j = i; j < n; j += 2)   /* inner */
                        if (j % 2) launch(j); else other(j);
                done();
            }
        "#;
        let (variables, notes) = loops_of(source, &["j"]);
        // j's first value is i: the outer loop repeats it too.
        assert_eq!(variables, ["i", "j"]);
        assert!(notes.is_empty(), "{notes:?}");
        // Whether the if launches it changes with j: the loops repeat it.
        assert_eq!(loops_of(source, &["n"]).0, ["i", "j"]);
        let (variables, notes) = loops_of(
            &source.replace("if (j % 2) launch(j); else other(j);", "launch(j);"),
            &["n"],
        );
        assert!(variables.is_empty());
        assert_eq!(
            notes,
            [
                "# the file launches it inside for (int i = 0; i < n; i++), whose variable neither its arguments nor its geometry use: drafted as one launch\n",
                "# the file launches it inside for (int j = i; j < n; j += 2), whose variable neither its arguments nor its geometry use: drafted as one launch\n",
            ]
        );
    }

    #[test]
    fn a_break_is_noted_on_the_loop_it_ends_and_an_if_around_the_loops_only_noted() {
        let source = r#"
            void f(int n, int mode) {
                if (mode == 1)
                for (int k = 2; k <= n; k *= 2) {
                    for (int t = 0; t < 3; t++) { if (t == k) break; }
                    switch (k) { case 4: break; default: break; }
                    if (k > 64) { launch(k); if (k == n) break; }
                }
            }
        "#;
        let at = source.find("launch(").unwrap();
        let found = around(
            &Code::new(source),
            at,
            (vec!["k".to_string()], &[], &[]),
            identifiers,
        );
        assert_eq!(found.loops.len(), 1);
        assert_eq!(
            found.notes,
            [
                "# the file runs these loops inside if (mode == 1), around them: the sizes should be ones where it holds\n",
                "# fill in: loop k: the file's for (int k = 2; k <= n; k *= 2) ends early (`break;` in the if (k == n)), and gpuprof's loops have no break: fold it into the loop's while, and the if into each branch's when (where the last turn is the first one where the if holds, the loop goes on while it did not hold at the turn before: tests/gpu/cs-sorting-networks/variants.toml writes cuda-samples' bitonic sort, which breaks after its first stride below SHARED_SIZE_LIMIT, as while = \"stride > 0 && 2 * stride >= SHARED_SIZE_LIMIT\")\n",
            ]
        );
        let branches: Vec<(&str, bool)> = found
            .branches
            .iter()
            .map(|b| (b.written.as_str(), b.otherwise))
            .collect();
        assert_eq!(branches, [("if (k > 64)", false)]);
        // Without the last break, the inner loop's and the switch's are
        // not this loop's.
        let source = source.replace("if (k == n) break;", "");
        let found = around(
            &Code::new(&source),
            at,
            (vec!["k".to_string()], &[], &[]),
            identifiers,
        );
        assert_eq!(found.notes.len(), 1, "{:?}", found.notes);
    }

    #[test]
    fn a_do_while_or_a_while_changed_before_the_launch_is_not_read() {
        let source = "void f(int s) { do { launch(s); s /= 2; } while (s > 1); }";
        let (variables, notes) = loops_of(source, &["s"]);
        assert!(variables.is_empty());
        assert_eq!(
            notes,
            [
                "# fill in: the file launches it inside do … while (s > 1), which gpuprof cannot read as a loop: if its turns launch it differently, make this variant a sequence whose step repeats it (repeat = [{ for, from, while, next }], see docs/variants-toml.md)\n"
            ]
        );
        let source = "void f(int s) { while (s > 1) { s >>= 1; launch(s); } }";
        assert!(loops_of(source, &["s"]).0.is_empty());
        let source = "void f(int n) { int s = n; while (s > 1) { launch(s); s >>= 1; } }";
        assert_eq!(loops_of(source, &["s"]).0, ["s"]);
    }

    #[test]
    fn steps_are_read_as_next_values() {
        let next = |step: &str| stepped(step).and_then(|(_, next)| next);
        for (step, expected) in [
            ("k <<= 1", "k << (1)"),
            ("k *= 2", "k * (2)"),
            ("k = k * 2", "k * 2"),
            ("k++", "k + 1"),
            ("++k", "k + 1"),
            ("k--", "k - 1"),
            ("k += s", "k + (s)"),
            ("j >>= 1", "j >> (1)"),
            ("j /= 2", "j / (2)"),
            ("j = j >> 1", "j >> 1"),
        ] {
            assert_eq!(next(step).as_deref(), Some(expected), "{step}");
        }
        assert_eq!(stepped("k ^= 3"), Some(("k".to_string(), None)));
        assert_eq!(stepped("advance(k)"), None);
        assert_eq!(
            declared("unsigned int s = n"),
            Some(("s".to_string(), "n".to_string()))
        );
        assert_eq!(declared("k == 2"), None);
    }

    #[test]
    fn a_comparison_is_told_from_a_shift() {
        assert_eq!(comparison("k <= n"), Some(("k ", "<=", " n")));
        assert_eq!(comparison("k < (1 << s)"), Some(("k ", "<", " (1 << s)")));
        assert_eq!(comparison("x << 2 > y"), Some(("x << 2 ", ">", " y")));
        assert_eq!(comparison("s != 0"), Some(("s ", "!=", " 0")));
        assert_eq!(comparison("s"), None);
    }
}
