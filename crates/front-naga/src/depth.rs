//! A lexical bound on how deeply naga will recurse over a WGSL or GLSL source, checked
//! before naga sees the text.
//!
//! naga's parsers and validator recurse once per level of an expression tree or of nested
//! statements; an input deep enough overflows the stack, which aborts the process (no
//! `catch_unwind` can stop it). [`check`] estimates the depth from the tokens alone and
//! refuses an input above [`MAX_NESTING`], which keeps naga well inside
//! [`crate::contain::STACK_BYTES`] (the measurements are in that constant's docs).
//!
//! **The estimate** at each token is the sum, over the brackets open there and the top
//! level, of
//! - 1 per open bracket (`(`, `[`, `{`);
//! - the operator characters (`+ - * / % & | ^ ! ~ < > = . ? :`) and the keywords
//!   `if for while do switch loop` since the last `,`, `;` or closed `{ }` block at that
//!   bracket level — an operator chain `1 + 1 + ...` is a left-deep tree as deep as it is
//!   long, `if (a) if (b) ...` nests without braces in GLSL; a two-character operator
//!   counts twice;
//! - the `else if` pairs at that bracket level since it opened — an else-if chain nests
//!   each `if` in the previous one's `else`, across the `;` and `}` of its arms.
//!
//! It is an upper bound on the depth of the trees naga builds, never below it, so
//! a shader can be refused that naga would have read (a chain of 5,000 operators in one
//! expression, say); no real shader comes near [`MAX_NESTING`].
//!
//! Skipped: whitespace, identifiers, numbers (a number's `.` and exponent sign are part of
//! it), `//` and `/* */` comments (nested in WGSL, as WGSL nests them) and, in GLSL,
//! preprocessor lines. What this does NOT see: GLSL macro expansion (a macro that expands
//! to a deep expression is counted as the identifier it is).

use crate::contain::unlocated;
use crate::error::{FrontendError, FrontendStage};

/// The deepest estimate the front-end lets through (see the module docs).
pub const MAX_NESTING: usize = 4096;

/// Keywords of statements that nest the statement after them (without braces in GLSL).
const STATEMENT_KEYWORDS: [&str; 6] = ["if", "for", "while", "do", "switch", "loop"];

/// The languages [`check`] reads: their comments differ.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Language {
    Wgsl,
    Glsl,
}

/// One bracket level (or the top level) being scanned.
#[derive(Default)]
struct Level {
    operators: usize,
    else_ifs: usize,
}

/// Refuses `source` (named `path`) when its estimated nesting exceeds [`MAX_NESTING`].
pub(crate) fn check(source: &str, language: Language, path: &str) -> Result<(), FrontendError> {
    let (depth, offset) = deepest(source, language);
    if depth > MAX_NESTING {
        return Err(too_deep(source, offset, depth, path));
    }
    Ok(())
}

/// The nesting estimate of a WGSL source (see the module docs).
pub fn wgsl_nesting(source: &str) -> usize {
    deepest(source, Language::Wgsl).0
}

/// The nesting estimate of a GLSL source (see the module docs).
pub fn glsl_nesting(source: &str) -> usize {
    deepest(source, Language::Glsl).0
}

/// The largest estimate over `source`'s tokens, and the offset of the token it is first
/// reached at.
fn deepest(source: &str, language: Language) -> (usize, usize) {
    let mut deepest = (0, 0);
    let mut scanner = Scanner::new(source, language);
    let mut levels = vec![Level::default()];
    let mut depth = 0usize;
    let mut previous_word = "";
    while let Some(token) = scanner.next_token() {
        let top = levels.len() - 1;
        match token.kind {
            TokenKind::Open => {
                levels.push(Level::default());
                depth += 1;
            }
            TokenKind::Close(closer) if top > 0 => {
                let level = levels.pop().unwrap_or_default();
                depth -= level.operators + level.else_ifs + 1;
                if closer == b'}' {
                    depth -= std::mem::take(&mut levels[top - 1].operators);
                }
            }
            TokenKind::Separator => depth -= std::mem::take(&mut levels[top].operators),
            TokenKind::Operator => {
                levels[top].operators += 1;
                depth += 1;
            }
            TokenKind::Word(word) => {
                if word == "if" && previous_word == "else" {
                    levels[top].else_ifs += 1;
                    depth += 1;
                } else if STATEMENT_KEYWORDS.contains(&word) {
                    levels[top].operators += 1;
                    depth += 1;
                }
                previous_word = word;
            }
            TokenKind::Close(_) => {}
        }
        if !matches!(token.kind, TokenKind::Word(_)) {
            previous_word = "";
        }
        if depth > deepest.0 {
            deepest = (depth, token.offset);
        }
    }
    deepest
}

fn too_deep(source: &str, offset: usize, depth: usize, path: &str) -> FrontendError {
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let summary = format!(
        "nesting too deep for naga: {depth} levels at {line}:{column} (operators in one \
         expression, brackets and else-if chains count one level each); the limit is \
         {MAX_NESTING}"
    );
    let mut error = unlocated(path, FrontendStage::Limit, summary);
    error.rendered = format!("{path}:{line}:{column}: error: {}\n", error.summary);
    error.location = Some((
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    ));
    error
}

enum TokenKind<'a> {
    Open,
    /// The closing bracket's byte.
    Close(u8),
    Separator,
    Operator,
    Word(&'a str),
}

struct Token<'a> {
    kind: TokenKind<'a>,
    offset: usize,
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    language: Language,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str, language: Language) -> Self {
        Scanner {
            text,
            bytes: text.as_bytes(),
            at: 0,
            language,
        }
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.at + ahead).copied().unwrap_or(0)
    }

    /// The next token that matters to the estimate; `None` at the end.
    fn next_token(&mut self) -> Option<Token<'a>> {
        loop {
            let start = self.at;
            let byte = *self.bytes.get(start)?;
            let kind = match byte {
                b'/' if self.peek(1) == b'/' => {
                    self.skip_line();
                    continue;
                }
                b'/' if self.peek(1) == b'*' => {
                    self.skip_block_comment();
                    continue;
                }
                b'#' if self.language == Language::Glsl => {
                    self.skip_line();
                    continue;
                }
                b'(' | b'[' | b'{' => TokenKind::Open,
                b')' | b']' | b'}' => TokenKind::Close(byte),
                b',' | b';' => TokenKind::Separator,
                b'.' if self.peek(1).is_ascii_digit() => {
                    self.skip_number();
                    continue;
                }
                b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'!' | b'~' | b'<'
                | b'>' | b'=' | b'.' | b'?' | b':' => TokenKind::Operator,
                b'0'..=b'9' => {
                    self.skip_number();
                    continue;
                }
                _ if byte == b'_' || byte.is_ascii_alphabetic() || !byte.is_ascii() => {
                    return Some(self.word());
                }
                _ => {
                    self.at += 1;
                    continue;
                }
            };
            self.at += 1;
            return Some(Token {
                kind,
                offset: start,
            });
        }
    }

    fn word(&mut self) -> Token<'a> {
        let start = self.at;
        while self.at < self.bytes.len() {
            let byte = self.bytes[self.at];
            if !(byte == b'_' || byte.is_ascii_alphanumeric() || !byte.is_ascii()) {
                break;
            }
            self.at += 1;
        }
        Token {
            kind: TokenKind::Word(self.text.get(start..self.at).unwrap_or("")),
            offset: start,
        }
    }

    /// A number: digits, letters (suffixes, hex digits, exponents), `.` and `_`; the sign
    /// of an exponent is left as an operator (counting it only over-estimates).
    fn skip_number(&mut self) {
        while self.at < self.bytes.len() {
            let byte = self.bytes[self.at];
            if !(byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'_') {
                break;
            }
            self.at += 1;
        }
    }

    /// To the end of the line; a GLSL preprocessor line continues past a `\` newline.
    fn skip_line(&mut self) {
        while self.at < self.bytes.len() {
            let byte = self.bytes[self.at];
            self.at += 1;
            if byte == b'\\' && self.language == Language::Glsl && self.peek(0) == b'\n' {
                self.at += 1;
            } else if byte == b'\n' {
                return;
            }
        }
    }

    /// A `/* */` comment, nested in WGSL; an unterminated one runs to the end.
    fn skip_block_comment(&mut self) {
        self.at += 2;
        let mut open = 1usize;
        while self.at < self.bytes.len() {
            if self.peek(0) == b'*' && self.peek(1) == b'/' {
                self.at += 2;
                open -= 1;
                if open == 0 {
                    return;
                }
            } else if self.peek(0) == b'/'
                && self.peek(1) == b'*'
                && self.language == Language::Wgsl
            {
                self.at += 2;
                open += 1;
            } else {
                self.at += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wgsl(text: &str) -> usize {
        deepest(text, Language::Wgsl).0
    }

    fn glsl(text: &str) -> usize {
        deepest(text, Language::Glsl).0
    }

    #[test]
    fn an_operator_chain_counts_each_operator_until_the_statement_ends() {
        assert_eq!(wgsl("a = 1 + 2 + 3;"), 3);
        assert_eq!(wgsl("a = 1 + 2; b = 3;"), 2);
        assert_eq!(wgsl("f(1 + 2, 3 + 4 + 5)"), 3);
    }

    #[test]
    fn brackets_add_to_the_operators_before_them() {
        assert_eq!(wgsl("x = (((y)))"), 4);
        assert_eq!(wgsl("x = a + (b + (c))"), 5);
        assert_eq!(wgsl("a[b[c[0]]]"), 3);
    }

    #[test]
    fn numbers_comments_and_preprocessor_lines_are_skipped() {
        assert_eq!(wgsl("x 1.5e3 0x1p4 .25 // + + + +\n"), 0);
        assert_eq!(wgsl("/* a /* nested + */ + + */ x"), 0);
        assert_eq!(glsl("/* a /* */ + x"), 1, "GLSL comments do not nest");
        assert_eq!(glsl("#define A (1 + 2 + \\\n 3)\nx"), 0);
    }

    #[test]
    fn else_if_chains_and_unbraced_ifs_nest() {
        let chain = "if (a) x; else if (b) x; else if (c) x; else if (d) x;";
        assert_eq!(glsl(chain), 4);
        assert_eq!(glsl("if (a) if (b) if (c) x;"), 4);
        assert_eq!(wgsl("if a { x; } if b { y; } if c { z; }"), 2);
    }

    #[test]
    fn the_estimate_is_refused_above_the_limit_with_a_location() {
        let text = format!(
            "fn f() {{\n  x = {};\n}}",
            vec!["1"; MAX_NESTING + 5].join("+")
        );
        let error = check(&text, Language::Wgsl, "deep.wgsl").unwrap_err();
        assert_eq!(error.stage, FrontendStage::Limit);
        assert_eq!(error.location.map(|l| l.0), Some(2));
        assert!(
            error.rendered.starts_with("deep.wgsl:2:"),
            "{}",
            error.rendered
        );
        let fine = format!("x = {};", vec!["1"; MAX_NESTING].join("+"));
        assert!(check(&fine, Language::Wgsl, "fine.wgsl").is_ok());
    }
}
