//! Tokens of the text form, produced on demand, with 1-based line and column positions.
//!
//! Newlines are tokens: an instruction, a declaration and a block label each occupy one
//! line. `;` starts a comment that runs to the end of the line. Tokens borrow their text
//! from the input, so lexing allocates only for strings with escapes.

use std::borrow::Cow;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok<'a> {
    /// Identifiers, keywords, mnemonics and entity names (`v3`, `block2`, `c0`).
    Ident(&'a str),
    /// `@name`
    Global(&'a str),
    /// `%Name`
    Struct(&'a str),
    /// An integer literal; negative literals are stored as their two's complement and
    /// flagged.
    Int {
        bits: u64,
        negative: bool,
    },
    /// A float literal, kept as text so each width parses it exactly.
    Float(&'a str),
    Str(Cow<'a, str>),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Less,
    Greater,
    Comma,
    Colon,
    Equals,
    Arrow,
    At,
    Newline,
    Eof,
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Global(s) => write!(f, "`@{s}`"),
            Tok::Struct(s) => write!(f, "`%{s}`"),
            Tok::Int {
                bits,
                negative: true,
            } => write!(f, "`{}`", *bits as i64),
            Tok::Int { bits, .. } => write!(f, "`{bits}`"),
            Tok::Float(s) => write!(f, "`{s}`"),
            Tok::Str(_) => f.write_str("a string"),
            Tok::LParen => f.write_str("`(`"),
            Tok::RParen => f.write_str("`)`"),
            Tok::LBracket => f.write_str("`[`"),
            Tok::RBracket => f.write_str("`]`"),
            Tok::LBrace => f.write_str("`{`"),
            Tok::RBrace => f.write_str("`}`"),
            Tok::Less => f.write_str("`<`"),
            Tok::Greater => f.write_str("`>`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::Colon => f.write_str("`:`"),
            Tok::Equals => f.write_str("`=`"),
            Tok::Arrow => f.write_str("`->`"),
            Tok::At => f.write_str("`@`"),
            Tok::Newline => f.write_str("end of line"),
            Tok::Eof => f.write_str("end of input"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    pub line: u32,
    /// Byte offset of the token's first character in the input.
    pub offset: usize,
}

/// The 1-based column (in characters) of byte `offset` of `src`.
pub fn column_of(src: &str, offset: usize) -> u32 {
    let offset = offset.min(src.len());
    let offset = (0..=offset)
        .rev()
        .find(|&o| src.is_char_boundary(o))
        .unwrap_or(0);
    let line_start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    src[line_start..offset].chars().count() as u32 + 1
}

/// A lexing error: message and position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

/// A streaming lexer over the input text.
#[derive(Clone)]
pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    finished: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer {
            src,
            pos: 0,
            line: 1,
            finished: false,
        }
    }

    fn column_of(&self, offset: usize) -> u32 {
        column_of(self.src, offset)
    }

    fn ident_end(&self, from: usize) -> usize {
        let bytes = self.src.as_bytes();
        let mut end = from;
        while end < bytes.len() && is_ident_byte(bytes[end]) {
            end += 1;
        }
        end
    }

    /// The next token. After the input ends it yields a `Newline` and then `Eof` forever.
    pub fn next_token(&mut self) -> Result<Token<'a>, LexError> {
        let bytes = self.src.as_bytes();
        loop {
            let start = self.pos;
            let Some(&b) = bytes.get(start) else {
                let tok = if self.finished {
                    Tok::Eof
                } else {
                    Tok::Newline
                };
                self.finished = true;
                return Ok(Token {
                    tok,
                    line: self.line,
                    offset: self.src.len(),
                });
            };
            let line = self.line;
            let err = |message: String| LexError {
                line,
                column: column_of(self.src, start),
                message,
            };
            let token = |tok| {
                Ok(Token {
                    tok,
                    line,
                    offset: start,
                })
            };
            match b {
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    return token(Tok::Newline);
                }
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b';' => {
                    while self.pos < bytes.len() && bytes[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>' | b',' | b':' | b'=' => {
                    self.pos += 1;
                    return token(match b {
                        b'(' => Tok::LParen,
                        b')' => Tok::RParen,
                        b'[' => Tok::LBracket,
                        b']' => Tok::RBracket,
                        b'{' => Tok::LBrace,
                        b'}' => Tok::RBrace,
                        b'<' => Tok::Less,
                        b'>' => Tok::Greater,
                        b',' => Tok::Comma,
                        b':' => Tok::Colon,
                        _ => Tok::Equals,
                    });
                }
                b'@' | b'%' => {
                    let end = self.ident_end(start + 1);
                    if end == start + 1 {
                        if b == b'@' {
                            self.pos += 1;
                            return token(Tok::At);
                        }
                        return Err(err("expected a struct name after `%`".into()));
                    }
                    self.pos = end;
                    let name = &self.src[start + 1..end];
                    return token(if b == b'@' {
                        Tok::Global(name)
                    } else {
                        Tok::Struct(name)
                    });
                }
                b'"' => {
                    return self.string(start).map(|s| Token {
                        tok: Tok::Str(s),
                        line,
                        offset: start,
                    })
                }
                b'-' if bytes.get(start + 1) == Some(&b'>') => {
                    self.pos += 2;
                    return token(Tok::Arrow);
                }
                b'-' | b'0'..=b'9' => {
                    return self.number(start).map(|tok| Token {
                        tok,
                        line,
                        offset: start,
                    })
                }
                b if is_ident_start(b) => {
                    let end = self.ident_end(start);
                    self.pos = end;
                    return token(Tok::Ident(&self.src[start..end]));
                }
                _ => {
                    let c = self.src[start..].chars().next().unwrap_or('?');
                    return Err(err(format!("unexpected character `{}`", c.escape_debug())));
                }
            }
        }
    }

    fn error_here(&self, offset: usize, message: String) -> LexError {
        LexError {
            line: self.line,
            column: self.column_of(offset),
            message,
        }
    }

    fn string(&mut self, start: usize) -> Result<Cow<'a, str>, LexError> {
        let bytes = self.src.as_bytes();
        let body = start + 1;
        let mut i = body;
        // Fast path: no escapes.
        while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\\' && bytes[i] != b'\n' {
            i += 1;
        }
        if bytes.get(i) == Some(&b'"') {
            self.pos = i + 1;
            return Ok(Cow::Borrowed(&self.src[body..i]));
        }
        let mut value = String::from(&self.src[body..i]);
        loop {
            match bytes.get(i) {
                None | Some(b'\n') => {
                    return Err(self.error_here(start, "unterminated string".into()))
                }
                Some(b'"') => break,
                Some(b'\\') => {
                    let escape = bytes.get(i + 1).copied();
                    match escape {
                        Some(b'"') => value.push('"'),
                        Some(b'\\') => value.push('\\'),
                        Some(b'n') => value.push('\n'),
                        Some(b't') => value.push('\t'),
                        Some(b'u') => {
                            let rest = &self.src[i + 2..];
                            let close = rest.find('}').filter(|&c| c <= 9);
                            let code = match close {
                                Some(end) if rest.starts_with('{') => {
                                    u32::from_str_radix(&rest[1..end], 16).ok()
                                }
                                _ => None,
                            };
                            let Some(ch) = code.and_then(char::from_u32) else {
                                return Err(self
                                    .error_here(i, "invalid `\\u{...}` escape in string".into()));
                            };
                            value.push(ch);
                            i += close.unwrap_or(0) + 1;
                        }
                        _ => return Err(self.error_here(i, "unknown escape in string".into())),
                    }
                    i += 2;
                }
                Some(_) => {
                    let ch = self.src[i..].chars().next().unwrap_or('?');
                    value.push(ch);
                    i += ch.len_utf8();
                }
            }
        }
        self.pos = i + 1;
        Ok(Cow::Owned(value))
    }

    fn number(&mut self, start: usize) -> Result<Tok<'a>, LexError> {
        let bytes = self.src.as_bytes();
        let negative = bytes[start] == b'-';
        let digits_start = start + usize::from(negative);
        if negative && bytes.get(digits_start).copied().is_some_and(is_ident_start) {
            let end = self.ident_end(digits_start);
            if &self.src[digits_start..end] == "inf" {
                self.pos = end;
                return Ok(Tok::Float(&self.src[start..end]));
            }
            return Err(self.error_here(start, format!("unexpected `{}`", &self.src[start..end])));
        }
        let hex = bytes.get(digits_start) == Some(&b'0')
            && matches!(bytes.get(digits_start + 1), Some(b'x' | b'X'));
        if hex {
            let mut end = digits_start + 2;
            while end < bytes.len() && bytes[end].is_ascii_hexdigit() {
                end += 1;
            }
            let digits = &self.src[digits_start + 2..end];
            let value = u64::from_str_radix(digits, 16).map_err(|_| {
                self.error_here(start, format!("invalid hexadecimal literal `0x{digits}`"))
            })?;
            self.pos = end;
            return int_token(value, negative)
                .ok_or_else(|| self.error_here(start, "integer literal out of range".into()));
        }
        let mut end = digits_start;
        let mut is_float = false;
        while end < bytes.len() {
            let b = bytes[end];
            if b.is_ascii_digit() {
                end += 1;
            } else if b == b'.' && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
                is_float = true;
                end += 1;
            } else if (b == b'e' || b == b'E')
                && bytes
                    .get(end + 1)
                    .is_some_and(|&n| n.is_ascii_digit() || n == b'-' || n == b'+')
            {
                is_float = true;
                end += 2;
            } else {
                break;
            }
        }
        if end == digits_start {
            return Err(self.error_here(start, "expected a number after `-`".into()));
        }
        let literal = &self.src[start..end];
        self.pos = end;
        if is_float {
            return Ok(Tok::Float(literal));
        }
        let value: u64 = self.src[digits_start..end].parse().map_err(|_| {
            self.error_here(start, format!("integer literal `{literal}` out of range"))
        })?;
        int_token(value, negative).ok_or_else(|| {
            self.error_here(start, format!("integer literal `{literal}` out of range"))
        })
    }
}

fn int_token<'a>(magnitude: u64, negative: bool) -> Option<Tok<'a>> {
    if negative {
        if magnitude > 1u64 << 63 {
            return None;
        }
        Some(Tok::Int {
            bits: magnitude.wrapping_neg(),
            negative: true,
        })
    } else {
        Some(Tok::Int {
            bits: magnitude,
            negative: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Tok<'_>> {
        let mut lexer = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token().unwrap().tok;
            let done = t == Tok::Eof;
            out.push(t);
            if done {
                return out;
            }
        }
    }

    #[test]
    fn lexes_numbers_names_and_punctuation() {
        assert_eq!(
            toks("v1: f32 = add v0, c2 ; comment\n"),
            vec![
                Tok::Ident("v1"),
                Tok::Colon,
                Tok::Ident("f32"),
                Tok::Equals,
                Tok::Ident("add"),
                Tok::Ident("v0"),
                Tok::Comma,
                Tok::Ident("c2"),
                Tok::Newline,
                Tok::Newline,
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("-5")[0],
            Tok::Int {
                bits: (-5i64) as u64,
                negative: true
            }
        );
        assert_eq!(toks("1.5e-3")[0], Tok::Float("1.5e-3"));
        assert_eq!(toks("-inf")[0], Tok::Float("-inf"));
        assert_eq!(
            toks("0xff")[0],
            Tok::Int {
                bits: 255,
                negative: false
            }
        );
        assert_eq!(toks("->")[0], Tok::Arrow);
        assert_eq!(toks("%S.1")[0], Tok::Struct("S.1"));
        assert_eq!(
            toks("\"a\\\"b\\u{41}\"")[0],
            Tok::Str(Cow::Owned("a\"bA".into()))
        );
        assert_eq!(toks("\"plain\"")[0], Tok::Str(Cow::Borrowed("plain")));
    }

    #[test]
    fn reports_positions_of_errors() {
        let mut lexer = Lexer::new("v0\n  $");
        let mut result = lexer.next_token();
        while let Ok(t) = &result {
            assert_ne!(t.tok, Tok::Eof, "expected an error");
            result = lexer.next_token();
        }
        let e = result.unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert!(Lexer::new("\"open").next_token().is_err());
        assert!(Lexer::new("99999999999999999999").next_token().is_err());
    }
}
