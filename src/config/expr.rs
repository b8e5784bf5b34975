//! The expression language of geometry, counts, scalar values, `bytes` and
//! `flops`: a tokenizer and recursive-descent parser from a string to an
//! [`Expr`], and its evaluation in f64 over the symbols of one problem size.
//! Division is exact; rounding is explicit (`ceil`, `floor`, `cdiv`). A
//! [`Condition`] (a sweep's `constraint`) is comparisons of two expressions
//! joined by `&&`. Every error carries the byte range inside the expression string it is about, so
//! the caller can point a caret at it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;

use super::suggest;

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expr {
    node: Node,
}

#[derive(Debug, Clone, PartialEq)]
struct Node {
    kind: NodeKind,
    /// The node's text in the expression string.
    span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
enum NodeKind {
    Number(f64),
    Symbol(String),
    Negate(Box<Node>),
    Binary(BinaryOp, Box<Node>, Box<Node>),
    Call(Function, Vec<Node>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BinaryOp {
    Add,
    Subtract,
    Multiply,
    Divide,
    Remainder,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Function {
    Ceil,
    Floor,
    Min,
    Max,
    Pow,
    Sqrt,
    Log2,
    Cdiv,
}

const FUNCTIONS: [(Function, &str, usize); 8] = [
    (Function::Ceil, "ceil", 1),
    (Function::Floor, "floor", 1),
    (Function::Min, "min", 2),
    (Function::Max, "max", 2),
    (Function::Pow, "pow", 2),
    (Function::Sqrt, "sqrt", 1),
    (Function::Log2, "log2", 1),
    (Function::Cdiv, "cdiv", 2),
];

/// The most tokens an expression may have: a longer one is refused rather
/// than risking the stack (its tree is as deep as its operator chain).
const MAX_TOKENS: usize = 4096;

/// Deeper nesting than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 64;

/// Something wrong with an expression, at `span` (bytes of the expression string).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExprError {
    pub(crate) span: Range<usize>,
    pub(crate) kind: ExprErrorKind,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ExprErrorKind {
    /// The text is not an expression.
    Syntax { message: String, help: String },
    /// A symbol the size does not bind; `known` are the ones it does.
    UnknownSymbol { name: String, known: Vec<String> },
    /// `divisor` (its text) is zero.
    DivisionByZero { divisor: String },
    /// A function outside its domain, e.g. `sqrt` of a negative number.
    Domain { message: String },
    /// `text` evaluates to an infinity or NaN.
    NotFinite { text: String },
}

impl ExprError {
    fn syntax(
        span: Range<usize>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> ExprError {
        ExprError {
            span,
            kind: ExprErrorKind::Syntax {
                message: message.into(),
                help: help.into(),
            },
        }
    }

    pub(crate) fn message(&self) -> String {
        match &self.kind {
            ExprErrorKind::Syntax { message, .. } => message.clone(),
            ExprErrorKind::UnknownSymbol { name, .. } => format!("unknown symbol `{name}`"),
            ExprErrorKind::DivisionByZero { divisor } => {
                format!("division by zero: `{divisor}` is 0")
            }
            ExprErrorKind::Domain { message } => message.clone(),
            ExprErrorKind::NotFinite { text } => format!("`{text}` is not a finite number"),
        }
    }

    pub(crate) fn help(&self) -> String {
        match &self.kind {
            ExprErrorKind::Syntax { help, .. } => help.clone(),
            ExprErrorKind::UnknownSymbol { name, known } => {
                let mut help = if known.is_empty() {
                    "no symbols are bound: add sizes or constants to [suite]".to_string()
                } else {
                    format!("the symbols are: {}", known.join(", "))
                };
                if let Some(best) = suggest::closest(name, known) {
                    let _ = write!(help, " (did you mean `{best}`?)");
                }
                help
            }
            ExprErrorKind::DivisionByZero { .. } => {
                "make sure the divisor is not 0 at any size, e.g. with max(divisor, 1)".to_string()
            }
            ExprErrorKind::Domain { .. } => {
                "sqrt needs a value of 0 or more and log2 a value above 0".to_string()
            }
            ExprErrorKind::NotFinite { .. } => {
                "the result must be finite: look for an overflow (a huge pow) or an undefined \
                 operation"
                    .to_string()
            }
        }
    }
}

fn function_list() -> String {
    FUNCTIONS
        .iter()
        .map(|(_, name, arity)| {
            let params = if *arity == 1 { "x" } else { "a, b" };
            format!("{name}({params})")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(f64),
    Ident(String),
    Op(char),
    LeftParen,
    RightParen,
    Comma,
}

fn describe(token: &Token) -> String {
    match token {
        Token::Number(n) => format!("number `{n}`"),
        Token::Ident(name) => format!("`{name}`"),
        Token::Op(c) => format!("`{c}`"),
        Token::LeftParen => "`(`".to_string(),
        Token::RightParen => "`)`".to_string(),
        Token::Comma => "`,`".to_string(),
    }
}

fn tokenize(text: &str) -> Result<Vec<(Token, Range<usize>)>, ExprError> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if c.is_ascii_digit() || c == '.' {
            let end = number_end(text, start);
            let literal = &text[start..end];
            let value: f64 = literal.parse().map_err(|_| {
                ExprError::syntax(
                    start..end,
                    format!("`{literal}` is not a number"),
                    "write numbers like 32, 0.5 or 1e6",
                )
            })?;
            if !value.is_finite() {
                return Err(ExprError::syntax(
                    start..end,
                    format!("`{literal}` is too large"),
                    "numbers must fit an f64",
                ));
            }
            tokens.push((Token::Number(value), start..end));
            while chars.peek().is_some_and(|&(i, _)| i < end) {
                chars.next();
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let end = text[start..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(text.len(), |i| start + i);
            tokens.push((Token::Ident(text[start..end].to_string()), start..end));
            while chars.peek().is_some_and(|&(i, _)| i < end) {
                chars.next();
            }
            continue;
        }
        let end = start + c.len_utf8();
        let token = match c {
            '+' | '-' | '*' | '/' | '%' => {
                if c == '*' && text[end..].starts_with('*') {
                    return Err(ExprError::syntax(
                        start..end + 1,
                        "unexpected `**`",
                        "there is no power operator: write pow(a, b)",
                    ));
                }
                Token::Op(c)
            }
            '(' => Token::LeftParen,
            ')' => Token::RightParen,
            ',' => Token::Comma,
            '^' => {
                return Err(ExprError::syntax(
                    start..end,
                    "unexpected `^`",
                    "there is no power operator: write pow(a, b)",
                ));
            }
            _ => {
                return Err(ExprError::syntax(
                    start..end,
                    format!("unexpected character `{c}`"),
                    format!(
                        "expressions use numbers, symbols, + - * / %, parentheses and the \
                         functions {}",
                        function_list()
                    ),
                ));
            }
        };
        tokens.push((token, start..end));
        chars.next();
    }
    Ok(tokens)
}

/// End of the number literal starting at `start`: digits, an optional
/// fraction and an optional exponent.
fn number_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = start;
    let digits = |i: &mut usize| {
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
    };
    digits(&mut i);
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        digits(&mut i);
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            i = j;
            digits(&mut i);
        }
    }
    i
}

/// Parses `text`, e.g. `"ceil(N / TILE)"`.
pub(crate) fn parse(text: &str) -> Result<Expr, ExprError> {
    let tokens = tokenize(text)?;
    // A flat chain of operators builds a tree as deep as it is long, which
    // evaluation walks recursively: bound the length, as the nesting is.
    if tokens.len() > MAX_TOKENS {
        return Err(ExprError::syntax(
            0..text.len(),
            format!(
                "an expression of {} tokens is longer than gpuprof reads",
                tokens.len()
            ),
            format!("write it in at most {MAX_TOKENS} tokens: a size or a count needs a few dozen"),
        ));
    }
    if tokens.is_empty() {
        return Err(ExprError::syntax(
            0..text.len(),
            "empty expression",
            "write a number or an expression such as \"ceil(N/32)\"",
        ));
    }
    let mut parser = Parser {
        tokens,
        position: 0,
        end: text.len(),
        depth: 0,
    };
    let node = parser.expression()?;
    if let Some((token, span)) = parser.peek() {
        let help = if matches!(token, Token::RightParen) {
            "this `)` has no matching `(`"
        } else {
            "expected an operator (+ - * / %) or the end of the expression"
        };
        return Err(ExprError::syntax(
            span.clone(),
            format!("unexpected {}", describe(token)),
            help,
        ));
    }
    Ok(Expr { node })
}

struct Parser {
    tokens: Vec<(Token, Range<usize>)>,
    position: usize,
    /// Length of the text, for errors at its end.
    end: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&(Token, Range<usize>)> {
        self.tokens.get(self.position)
    }

    fn next(&mut self) -> Option<(Token, Range<usize>)> {
        let token = self.tokens.get(self.position).cloned();
        self.position += 1;
        token
    }

    fn peek_op(&self, ops: &[char]) -> Option<char> {
        match self.peek() {
            Some((Token::Op(c), _)) if ops.contains(c) => Some(*c),
            _ => None,
        }
    }

    /// expression := term (('+' | '-') term)*
    fn expression(&mut self) -> Result<Node, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let span = self.peek().map_or(self.end..self.end, |(_, s)| s.clone());
            return Err(ExprError::syntax(
                span,
                "expression nests too deeply",
                format!("use at most {MAX_DEPTH} levels of parentheses and function calls"),
            ));
        }
        let mut node = self.term()?;
        while let Some(op) = self.peek_op(&['+', '-']) {
            self.next();
            let rhs = self.term()?;
            let op = if op == '+' {
                BinaryOp::Add
            } else {
                BinaryOp::Subtract
            };
            node = binary(op, node, rhs);
        }
        self.depth -= 1;
        Ok(node)
    }

    /// term := unary (('*' | '/' | '%') unary)*
    fn term(&mut self) -> Result<Node, ExprError> {
        let mut node = self.unary()?;
        while let Some(op) = self.peek_op(&['*', '/', '%']) {
            self.next();
            let rhs = self.unary()?;
            let op = match op {
                '*' => BinaryOp::Multiply,
                '/' => BinaryOp::Divide,
                _ => BinaryOp::Remainder,
            };
            node = binary(op, node, rhs);
        }
        Ok(node)
    }

    /// unary := '-' unary | primary
    fn unary(&mut self) -> Result<Node, ExprError> {
        if self.peek_op(&['-']).is_some() {
            let (_, minus) = self.next().unwrap_or((Token::Op('-'), 0..0));
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(ExprError::syntax(
                    minus,
                    "expression nests too deeply",
                    format!("use at most {MAX_DEPTH} unary minus signs in a row"),
                ));
            }
            let operand = self.unary()?;
            self.depth -= 1;
            let span = minus.start..operand.span.end;
            return Ok(Node {
                kind: NodeKind::Negate(Box::new(operand)),
                span,
            });
        }
        self.primary()
    }

    /// primary := number | symbol | function '(' arguments ')' | '(' expression ')'
    fn primary(&mut self) -> Result<Node, ExprError> {
        let Some((token, span)) = self.next() else {
            return Err(ExprError::syntax(
                self.end..self.end,
                "the expression ends too early",
                "expected a number, a symbol, a function call or `(` here",
            ));
        };
        match token {
            Token::Number(value) => Ok(Node {
                kind: NodeKind::Number(value),
                span,
            }),
            Token::Ident(name) => {
                if matches!(self.peek(), Some((Token::LeftParen, _))) {
                    self.call(&name, span)
                } else {
                    Ok(Node {
                        kind: NodeKind::Symbol(name),
                        span,
                    })
                }
            }
            Token::LeftParen => {
                let inner = self.expression()?;
                match self.next() {
                    Some((Token::RightParen, close)) => Ok(Node {
                        kind: inner.kind,
                        span: span.start..close.end,
                    }),
                    _ => Err(ExprError::syntax(
                        span,
                        "this `(` is never closed",
                        "add the matching `)`",
                    )),
                }
            }
            other => Err(ExprError::syntax(
                span,
                format!("unexpected {}", describe(&other)),
                "expected a number, a symbol, a function call or `(` here",
            )),
        }
    }

    fn call(&mut self, name: &str, name_span: Range<usize>) -> Result<Node, ExprError> {
        let Some(&(function, _, arity)) = FUNCTIONS.iter().find(|(_, n, _)| *n == name) else {
            let names: Vec<&str> = FUNCTIONS.iter().map(|(_, n, _)| *n).collect();
            let mut help = format!("the functions are: {}", function_list());
            if let Some(best) = suggest::closest(name, &names) {
                let _ = write!(help, " (did you mean `{best}`?)");
            }
            return Err(ExprError::syntax(
                name_span,
                format!("unknown function `{name}`"),
                help,
            ));
        };
        let (_, open) = self.next().unwrap_or((Token::LeftParen, name_span.clone()));
        let mut arguments = Vec::new();
        let close = if let Some((Token::RightParen, close)) = self.peek().cloned() {
            self.next();
            close
        } else {
            loop {
                arguments.push(self.expression()?);
                match self.next() {
                    Some((Token::Comma, _)) => continue,
                    Some((Token::RightParen, close)) => break close,
                    Some((token, span)) => {
                        return Err(ExprError::syntax(
                            span,
                            format!(
                                "unexpected {} in the arguments of `{name}`",
                                describe(&token)
                            ),
                            "separate arguments with `,` and close the call with `)`",
                        ));
                    }
                    None => {
                        return Err(ExprError::syntax(
                            open,
                            format!("the call of `{name}` is never closed"),
                            "add the matching `)`",
                        ));
                    }
                }
            }
        };
        let span = name_span.start..close.end;
        if arguments.len() != arity {
            let expected = if arity == 1 {
                "1 argument".to_string()
            } else {
                format!("{arity} arguments")
            };
            return Err(ExprError::syntax(
                span,
                format!("`{name}` takes {expected}, not {}", arguments.len()),
                format!("the functions are: {}", function_list()),
            ));
        }
        Ok(Node {
            kind: NodeKind::Call(function, arguments),
            span,
        })
    }
}

fn binary(op: BinaryOp, lhs: Node, rhs: Node) -> Node {
    let span = lhs.span.start..rhs.span.end;
    Node {
        kind: NodeKind::Binary(op, Box::new(lhs), Box::new(rhs)),
        span,
    }
}

impl Expr {
    /// Whether the value depends on a symbol (and so may differ between sizes).
    pub(crate) fn uses_symbols(&self) -> bool {
        fn walk(node: &Node) -> bool {
            match &node.kind {
                NodeKind::Number(_) => false,
                NodeKind::Symbol(_) => true,
                NodeKind::Negate(operand) => walk(operand),
                NodeKind::Binary(_, lhs, rhs) => walk(lhs) || walk(rhs),
                NodeKind::Call(_, arguments) => arguments.iter().any(walk),
            }
        }
        walk(&self.node)
    }

    /// The expression's value with `symbols` bound. `text` is the string the
    /// expression was parsed from, quoted in error messages.
    pub(crate) fn eval(
        &self,
        text: &str,
        symbols: &BTreeMap<String, i64>,
    ) -> Result<f64, ExprError> {
        Evaluator { text, symbols }.eval(&self.node)
    }
}

/// Comparisons of expressions, all of which must hold: `BM*BN/TM <= 1024
/// && BM % TM == 0`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Condition {
    comparisons: Vec<Comparison>,
}

#[derive(Debug, Clone, PartialEq)]
struct Comparison {
    left: Side,
    operator: &'static str,
    right: Side,
}

/// One side of a comparison: its expression, its text, and where the text
/// starts in the condition (the expression's spans are relative to it).
#[derive(Debug, Clone, PartialEq)]
struct Side {
    expr: Expr,
    text: String,
    offset: usize,
}

impl Side {
    fn parse(text: &str, offset: usize) -> Result<Side, ExprError> {
        Ok(Side {
            expr: parse(text).map_err(|e| shift(e, offset))?,
            text: text.to_string(),
            offset,
        })
    }

    fn eval(&self, symbols: &BTreeMap<String, i64>) -> Result<f64, ExprError> {
        self.expr
            .eval(&self.text, symbols)
            .map_err(|e| shift(e, self.offset))
    }
}

/// The comparison operators, longest first so that `<=` is not read as `<`.
const COMPARISONS: [&str; 6] = ["<=", ">=", "==", "!=", "<", ">"];

/// Parses `text` as comparisons joined by `&&`, e.g. `"BM * BN <= 4096"`.
pub(crate) fn parse_condition(text: &str) -> Result<Condition, ExprError> {
    let mut comparisons = Vec::new();
    let mut offset = 0;
    for part in text.split("&&") {
        comparisons.push(parse_comparison(part, offset)?);
        offset += part.len() + 2;
    }
    Ok(Condition { comparisons })
}

/// One comparison: `part` of a condition, starting at byte `offset` of it.
fn parse_comparison(part: &str, offset: usize) -> Result<Comparison, ExprError> {
    let found = COMPARISONS
        .iter()
        .filter_map(|op| part.find(op).map(|at| (at, *op)))
        .min_by_key(|(at, op)| (*at, std::cmp::Reverse(op.len())));
    let Some((at, operator)) = found else {
        return Err(ExprError::syntax(
            offset..offset + part.len(),
            format!("`{}` compares nothing", part.trim()),
            "a constraint compares expressions with <= >= == != < >, joined by &&, e.g. \"BM * BN / TM <= 1024\"",
        ));
    };
    let right_start = at + operator.len();
    Ok(Comparison {
        left: Side::parse(&part[..at], offset)?,
        operator,
        right: Side::parse(&part[right_start..], offset + right_start)?,
    })
}

/// `error`, about a piece of a condition that starts at byte `by`, about the whole.
fn shift(mut error: ExprError, by: usize) -> ExprError {
    error.span = error.span.start + by..error.span.end + by;
    error
}

impl Condition {
    /// `None` when every comparison holds with `symbols` bound, else the
    /// first that does not, with its values: `BM * BN <= 4096 is false
    /// (8192 <= 4096)`.
    pub(crate) fn failing(
        &self,
        symbols: &BTreeMap<String, i64>,
    ) -> Result<Option<String>, ExprError> {
        for comparison in &self.comparisons {
            let left = comparison.left.eval(symbols)?;
            let right = comparison.right.eval(symbols)?;
            let holds = match comparison.operator {
                "<=" => left <= right,
                ">=" => left >= right,
                "==" => left == right,
                "!=" => left != right,
                "<" => left < right,
                _ => left > right,
            };
            if !holds {
                let operator = comparison.operator;
                return Ok(Some(format!(
                    "{} {operator} {} is false ({} {operator} {})",
                    comparison.left.text.trim(),
                    comparison.right.text.trim(),
                    number(left),
                    number(right)
                )));
            }
        }
        Ok(None)
    }
}

/// A value as a constraint's reason shows it: whole numbers without a fraction.
fn number(value: f64) -> String {
    match value.fract() == 0.0 && value.abs() < 1e15 {
        true => format!("{}", value as i64),
        false => format!("{value}"),
    }
}

struct Evaluator<'a> {
    text: &'a str,
    symbols: &'a BTreeMap<String, i64>,
}

impl Evaluator<'_> {
    fn eval(&self, node: &Node) -> Result<f64, ExprError> {
        let value = match &node.kind {
            NodeKind::Number(value) => *value,
            NodeKind::Symbol(name) => match self.symbols.get(name) {
                Some(&value) => value as f64,
                None => {
                    return Err(ExprError {
                        span: node.span.clone(),
                        kind: ExprErrorKind::UnknownSymbol {
                            name: name.clone(),
                            known: self.symbols.keys().cloned().collect(),
                        },
                    });
                }
            },
            NodeKind::Negate(operand) => -self.eval(operand)?,
            NodeKind::Binary(op, lhs, rhs) => {
                let a = self.eval(lhs)?;
                let b = self.eval(rhs)?;
                match op {
                    BinaryOp::Add => a + b,
                    BinaryOp::Subtract => a - b,
                    BinaryOp::Multiply => a * b,
                    BinaryOp::Divide => a / self.nonzero(b, rhs)?,
                    BinaryOp::Remainder => a % self.nonzero(b, rhs)?,
                }
            }
            NodeKind::Call(function, arguments) => {
                let values = arguments
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<Vec<f64>, _>>()?;
                let x = values.first().copied().unwrap_or(f64::NAN);
                let y = values.get(1).copied().unwrap_or(f64::NAN);
                match function {
                    Function::Ceil => x.ceil(),
                    Function::Floor => x.floor(),
                    Function::Min => x.min(y),
                    Function::Max => x.max(y),
                    Function::Pow => x.powf(y),
                    Function::Sqrt if x < 0.0 => {
                        return Err(self.domain(&arguments[0], "sqrt", x));
                    }
                    Function::Sqrt => x.sqrt(),
                    Function::Log2 if x <= 0.0 => {
                        return Err(self.domain(&arguments[0], "log2", x));
                    }
                    Function::Log2 => x.log2(),
                    Function::Cdiv => (x / self.nonzero(y, &arguments[1])?).ceil(),
                }
            }
        };
        if value.is_finite() {
            Ok(value)
        } else {
            Err(ExprError {
                span: node.span.clone(),
                kind: ExprErrorKind::NotFinite {
                    text: self.text[node.span.clone()].to_string(),
                },
            })
        }
    }

    fn nonzero(&self, value: f64, node: &Node) -> Result<f64, ExprError> {
        if value == 0.0 {
            Err(ExprError {
                span: node.span.clone(),
                kind: ExprErrorKind::DivisionByZero {
                    divisor: self.text[node.span.clone()].to_string(),
                },
            })
        } else {
            Ok(value)
        }
    }

    fn domain(&self, argument: &Node, function: &str, value: f64) -> ExprError {
        ExprError {
            span: argument.span.clone(),
            kind: ExprErrorKind::Domain {
                message: format!(
                    "{function} of {value}: `{}` is out of its domain",
                    &self.text[argument.span.clone()]
                ),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    }

    fn eval_at(text: &str, pairs: &[(&str, i64)]) -> Result<f64, ExprError> {
        parse(text)?.eval(text, &symbols(pairs))
    }

    #[test]
    fn a_flat_chain_of_fifty_thousand_terms_is_refused_not_a_stack_overflow() {
        let text = vec!["1"; 50_000].join(" + ");
        let error = parse(&text).unwrap_err();
        assert_eq!(
            error.message(),
            "an expression of 99999 tokens is longer than gpuprof reads"
        );
        let long_but_fine = vec!["N"; 400].join(" + ");
        assert_eq!(value(&long_but_fine), 40_000.0);
    }

    fn value(text: &str) -> f64 {
        match eval_at(text, &[("N", 100), ("TILE", 32)]) {
            Ok(v) => v,
            Err(e) => panic!("{text}: {}", e.message()),
        }
    }

    fn error(text: &str) -> ExprError {
        match eval_at(text, &[("N", 100), ("TILE", 32)]) {
            Ok(v) => panic!("{text} evaluated to {v}"),
            Err(e) => e,
        }
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(value("1 + 2 * 3"), 7.0);
        assert_eq!(value("(1 + 2) * 3"), 9.0);
        assert_eq!(value("10 - 4 - 3"), 3.0);
        assert_eq!(value("64 / 4 / 2"), 8.0);
        assert_eq!(value("2 * N % 7"), 4.0);
        assert_eq!(value("1 + N % 7 * 2"), 5.0);
    }

    #[test]
    fn unary_minus() {
        assert_eq!(value("-3"), -3.0);
        assert_eq!(value("--3"), 3.0);
        assert_eq!(value("2 * -N"), -200.0);
        assert_eq!(value("-N + 1"), -99.0);
        assert_eq!(value("-(N - 1)"), -99.0);
    }

    #[test]
    fn numbers_and_symbols() {
        assert_eq!(value("N*N*4"), 40000.0);
        assert_eq!(value("TILE"), 32.0);
        assert_eq!(value("1e3 + 0.5 + .5"), 1001.0);
        assert_eq!(value("2.5E-1"), 0.25);
    }

    #[test]
    fn functions() {
        assert_eq!(value("ceil(N/64)"), 2.0);
        assert_eq!(value("floor(N/64)"), 1.0);
        assert_eq!(value("min(N, TILE)"), 32.0);
        assert_eq!(value("max(N, TILE)"), 100.0);
        assert_eq!(value("pow(2, 10)"), 1024.0);
        assert_eq!(value("sqrt(N)"), 10.0);
        assert_eq!(value("log2(1024)"), 10.0);
        assert_eq!(value("cdiv(N, 64)"), 2.0);
        assert_eq!(value("cdiv(128, 64)"), 2.0);
        assert_eq!(value("max(1, min(2, 3)) + ceil(-0.5)"), 2.0);
    }

    #[test]
    fn division_is_exact() {
        assert_eq!(value("N/64"), 1.5625);
        assert_eq!(value("N/8*8"), 100.0);
        assert_eq!(value("7 % 4"), 3.0);
    }

    #[test]
    fn division_by_zero_points_at_the_divisor() {
        let e = error("N / (N - 100)");
        assert_eq!(e.span, 4..13);
        assert_eq!(e.message(), "division by zero: `(N - 100)` is 0");
        assert_eq!(error("N % 0").span, 4..5);
        let e = error("cdiv(N, TILE - 32)");
        assert_eq!(e.span, 8..17);
        assert!(matches!(e.kind, ExprErrorKind::DivisionByZero { .. }));
    }

    #[test]
    fn unknown_symbols_list_the_known_ones() {
        let e = error("N * TILES");
        assert_eq!(e.span, 4..9);
        assert_eq!(e.message(), "unknown symbol `TILES`");
        assert_eq!(e.help(), "the symbols are: N, TILE (did you mean `TILE`?)");
        let e = parse("M").unwrap().eval("M", &BTreeMap::new()).unwrap_err();
        assert_eq!(
            e.help(),
            "no symbols are bound: add sizes or constants to [suite]"
        );
    }

    #[test]
    fn syntax_errors_carry_the_column() {
        let cases: [(&str, Range<usize>, &str); 12] = [
            ("ceil(N/32", 4..5, "the call of `ceil` is never closed"),
            ("(N + 1", 0..1, "this `(` is never closed"),
            ("N + 1)", 5..6, "unexpected `)`"),
            ("N */ 2", 3..4, "unexpected `/`"),
            ("N +", 3..3, "the expression ends too early"),
            ("", 0..0, "empty expression"),
            ("N ^ 2", 2..3, "unexpected `^`"),
            ("N ** 2", 2..4, "unexpected `**`"),
            ("N $ 2", 2..3, "unexpected character `$`"),
            ("2 N", 2..3, "unexpected `N`"),
            ("ciel(N)", 0..4, "unknown function `ciel`"),
            ("min(N)", 0..6, "`min` takes 2 arguments, not 1"),
        ];
        for (text, span, message) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(
                (e.span.clone(), e.message().as_str()),
                (span, message),
                "{text}"
            );
        }
        assert_eq!(
            parse("ciel(N)").unwrap_err().help(),
            "the functions are: ceil(x), floor(x), min(a, b), max(a, b), pow(a, b), sqrt(x), \
             log2(x), cdiv(a, b) (did you mean `ceil`?)"
        );
        assert_eq!(
            parse("sqrt(1, 2)").unwrap_err().message(),
            "`sqrt` takes 1 argument, not 2"
        );
        assert_eq!(parse("max()").unwrap_err().span, 0..5);
        assert_eq!(parse("max(1; 2)").unwrap_err().span, 5..6);
        assert_eq!(
            parse("1e999").unwrap_err().message(),
            "`1e999` is too large"
        );
        assert_eq!(parse("1.2.3").unwrap_err().span, 3..5);
    }

    #[test]
    fn domain_and_overflow_errors() {
        let e = error("sqrt(N - 200)");
        assert_eq!(e.span, 5..12);
        assert_eq!(e.message(), "sqrt of -100: `N - 200` is out of its domain");
        assert_eq!(error("log2(0)").span, 5..6);
        let e = error("pow(10, 400) + 1");
        assert_eq!(e.span, 0..12);
        assert_eq!(e.message(), "`pow(10, 400)` is not a finite number");
    }

    #[test]
    fn uses_symbols_sees_through_operators_and_calls() {
        assert!(!parse("ceil(3 / 2) * -4").unwrap().uses_symbols());
        assert!(parse("max(1, -(2 + N))").unwrap().uses_symbols());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = format!("{}1{}", "(".repeat(500), ")".repeat(500));
        assert_eq!(
            parse(&text).unwrap_err().message(),
            "expression nests too deeply"
        );
        let text = format!("{}1", "-".repeat(500));
        assert_eq!(
            parse(&text).unwrap_err().message(),
            "expression nests too deeply"
        );
        assert_eq!(
            value(&format!("{}1{}", "(".repeat(20), ")".repeat(20))),
            1.0
        );
    }

    #[test]
    fn a_condition_says_which_comparison_fails_and_with_what_values() {
        let condition = parse_condition("BM * BN / TM <= 1024 && BM % TM == 0").unwrap();
        let symbols = |bm: i64, bn: i64, tm: i64| {
            [
                ("BM".to_string(), bm),
                ("BN".to_string(), bn),
                ("TM".to_string(), tm),
            ]
            .into()
        };
        assert_eq!(condition.failing(&symbols(64, 64, 4)).unwrap(), None);
        assert_eq!(
            condition.failing(&symbols(128, 128, 8)).unwrap().unwrap(),
            "BM * BN / TM <= 1024 is false (2048 <= 1024)"
        );
        assert_eq!(
            condition.failing(&symbols(6, 4, 4)).unwrap().unwrap(),
            "BM % TM == 0 is false (2 == 0)"
        );
        let error = condition.failing(&symbols(0, 1, 0)).unwrap_err();
        assert_eq!(error.message(), "division by zero: `TM` is 0");
        assert_eq!(error.span, 10..12);
        let error = parse_condition("BM <= 1024 && BM +").unwrap_err();
        assert_eq!(
            (error.message(), error.span),
            ("`BM +` compares nothing".into(), 13..18)
        );
        let error = parse_condition("BM <= 1024 && BM <= 2 *").unwrap_err();
        assert_eq!(error.span.start, 23);
    }
}
