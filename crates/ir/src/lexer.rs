//! Tokens of the text form, with 1-based line and column positions.
//!
//! Newlines are tokens: an instruction, a declaration and a block label each occupy one
//! line. `;` starts a comment that runs to the end of the line.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Identifiers, keywords, mnemonics and entity names (`v3`, `block2`, `c0`).
    Ident(String),
    /// `@name`
    Global(String),
    /// `%Name`
    Struct(String),
    /// An integer literal; negative literals are stored as their two's complement and
    /// flagged.
    Int { bits: u64, negative: bool },
    /// A float literal, kept as text so each width parses it exactly.
    Float(String),
    Str(String),
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

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Global(s) => write!(f, "`@{s}`"),
            Tok::Struct(s) => write!(f, "`%{s}`"),
            Tok::Int { bits, negative: true } => write!(f, "`{}`", *bits as i64),
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
pub struct Token {
    pub tok: Tok,
    pub line: u32,
    pub column: u32,
}

/// A lexing error: message and position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Splits `text` into tokens. The last token is always `Eof`.
pub fn tokenize(text: &str) -> Result<Vec<Token>, LexError> {
    let mut tokens = Vec::with_capacity(text.len() / 4 + 1);
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0usize;
    let mut line = 1u32;
    let mut line_start = 0usize;
    while i < chars.len() {
        let (offset, c) = chars[i];
        let column = (offset - line_start) as u32 + 1;
        let err = |message: String| LexError { line, column, message };
        let mut push = |tok| tokens.push(Token { tok, line, column });
        match c {
            '\n' => {
                push(Tok::Newline);
                i += 1;
                line += 1;
                line_start = offset + 1;
            }
            ' ' | '\t' | '\r' => i += 1,
            ';' => {
                while i < chars.len() && chars[i].1 != '\n' {
                    i += 1;
                }
            }
            '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | ',' | ':' | '=' => {
                push(match c {
                    '(' => Tok::LParen,
                    ')' => Tok::RParen,
                    '[' => Tok::LBracket,
                    ']' => Tok::RBracket,
                    '{' => Tok::LBrace,
                    '}' => Tok::RBrace,
                    '<' => Tok::Less,
                    '>' => Tok::Greater,
                    ',' => Tok::Comma,
                    ':' => Tok::Colon,
                    _ => Tok::Equals,
                });
                i += 1;
            }
            '@' | '%' => {
                let start = i + 1;
                let mut j = start;
                while j < chars.len() && is_ident_char(chars[j].1) {
                    j += 1;
                }
                if j == start {
                    if c == '@' {
                        push(Tok::At);
                        i += 1;
                        continue;
                    }
                    return Err(err("expected a struct name after `%`".into()));
                }
                let name: String = chars[start..j].iter().map(|&(_, ch)| ch).collect();
                push(if c == '@' { Tok::Global(name) } else { Tok::Struct(name) });
                i = j;
            }
            '"' => {
                let mut value = String::new();
                let mut j = i + 1;
                loop {
                    let Some(&(_, ch)) = chars.get(j) else {
                        return Err(err("unterminated string".into()));
                    };
                    match ch {
                        '"' => break,
                        '\n' => return Err(err("unterminated string".into())),
                        '\\' => {
                            let Some(&(_, esc)) = chars.get(j + 1) else {
                                return Err(err("unterminated escape in string".into()));
                            };
                            match esc {
                                '"' => value.push('"'),
                                '\\' => value.push('\\'),
                                'n' => value.push('\n'),
                                't' => value.push('\t'),
                                'u' => {
                                    // \u{XXXX}
                                    let rest: String = chars[j + 2..].iter().take(10).map(|&(_, ch)| ch).collect();
                                    let close = rest.find('}');
                                    let code = match (rest.starts_with('{'), close) {
                                        (true, Some(end)) => u32::from_str_radix(&rest[1..end], 16).ok(),
                                        _ => None,
                                    };
                                    let Some(ch) = code.and_then(char::from_u32) else {
                                        return Err(err("invalid `\\u{...}` escape in string".into()));
                                    };
                                    value.push(ch);
                                    j += close.unwrap_or(0) + 1;
                                }
                                other => return Err(err(format!("unknown escape `\\{other}` in string"))),
                            }
                            j += 2;
                        }
                        other => {
                            value.push(other);
                            j += 1;
                        }
                    }
                }
                push(Tok::Str(value));
                i = j + 1;
            }
            '-' if chars.get(i + 1).is_some_and(|&(_, n)| n == '>') => {
                push(Tok::Arrow);
                i += 2;
            }
            c if c == '-' || c.is_ascii_digit() => {
                let negative = c == '-';
                let start = if negative { i + 1 } else { i };
                let mut j = start;
                // `-inf`
                if negative && chars.get(j).is_some_and(|&(_, ch)| is_ident_start(ch)) {
                    let mut k = j;
                    while k < chars.len() && is_ident_char(chars[k].1) {
                        k += 1;
                    }
                    let word: String = chars[j..k].iter().map(|&(_, ch)| ch).collect();
                    if word == "inf" {
                        push(Tok::Float("-inf".into()));
                        i = k;
                        continue;
                    }
                    return Err(err(format!("unexpected `-{word}`")));
                }
                let hex = chars.get(j).is_some_and(|&(_, ch)| ch == '0')
                    && chars.get(j + 1).is_some_and(|&(_, ch)| ch == 'x' || ch == 'X');
                if hex {
                    j += 2;
                    let digits_start = j;
                    while j < chars.len() && chars[j].1.is_ascii_hexdigit() {
                        j += 1;
                    }
                    let digits: String = chars[digits_start..j].iter().map(|&(_, ch)| ch).collect();
                    let value = u64::from_str_radix(&digits, 16)
                        .map_err(|_| err(format!("invalid hexadecimal literal `0x{digits}`")))?;
                    push(int_token(value, negative).ok_or_else(|| err("integer literal out of range".into()))?);
                    i = j;
                    continue;
                }
                let mut is_float = false;
                while j < chars.len() {
                    let ch = chars[j].1;
                    if ch.is_ascii_digit() {
                        j += 1;
                    } else if ch == '.' && chars.get(j + 1).is_some_and(|&(_, n)| n.is_ascii_digit()) {
                        is_float = true;
                        j += 1;
                    } else if (ch == 'e' || ch == 'E')
                        && chars.get(j + 1).is_some_and(|&(_, n)| n.is_ascii_digit() || n == '-' || n == '+')
                    {
                        is_float = true;
                        j += 2;
                    } else {
                        break;
                    }
                }
                if j == start {
                    return Err(err("expected a number after `-`".into()));
                }
                let literal: String = chars[i..j].iter().map(|&(_, ch)| ch).collect();
                if is_float {
                    push(Tok::Float(literal));
                } else {
                    let digits = &literal[usize::from(negative)..];
                    let value: u64 = digits
                        .parse()
                        .map_err(|_| err(format!("integer literal `{literal}` out of range")))?;
                    push(int_token(value, negative).ok_or_else(|| err(format!("integer literal `{literal}` out of range")))?);
                }
                i = j;
            }
            c if is_ident_start(c) => {
                let mut j = i;
                while j < chars.len() && is_ident_char(chars[j].1) {
                    j += 1;
                }
                let word: String = chars[i..j].iter().map(|&(_, ch)| ch).collect();
                push(Tok::Ident(word));
                i = j;
            }
            other => return Err(err(format!("unexpected character `{}`", other.escape_debug()))),
        }
    }
    let column = (text.len() - line_start) as u32 + 1;
    tokens.push(Token { tok: Tok::Newline, line, column });
    tokens.push(Token { tok: Tok::Eof, line, column });
    Ok(tokens)
}

fn int_token(magnitude: u64, negative: bool) -> Option<Tok> {
    if negative {
        if magnitude > 1u64 << 63 {
            return None;
        }
        Some(Tok::Int { bits: magnitude.wrapping_neg(), negative: true })
    } else {
        Some(Tok::Int { bits: magnitude, negative: false })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Tok> {
        tokenize(text).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_numbers_names_and_punctuation() {
        assert_eq!(
            toks("v1: f32 = add v0, c2 ; comment\n"),
            vec![
                Tok::Ident("v1".into()),
                Tok::Colon,
                Tok::Ident("f32".into()),
                Tok::Equals,
                Tok::Ident("add".into()),
                Tok::Ident("v0".into()),
                Tok::Comma,
                Tok::Ident("c2".into()),
                Tok::Newline,
                Tok::Newline,
                Tok::Eof
            ]
        );
        assert_eq!(toks("-5")[0], Tok::Int { bits: (-5i64) as u64, negative: true });
        assert_eq!(toks("1.5e-3")[0], Tok::Float("1.5e-3".into()));
        assert_eq!(toks("-inf")[0], Tok::Float("-inf".into()));
        assert_eq!(toks("0xff")[0], Tok::Int { bits: 255, negative: false });
        assert_eq!(toks("->")[0], Tok::Arrow);
        assert_eq!(toks("%S.1")[0], Tok::Struct("S.1".into()));
        assert_eq!(toks("\"a\\\"b\\u{41}\"")[0], Tok::Str("a\"bA".into()));
    }

    #[test]
    fn reports_positions_of_errors() {
        let e = tokenize("v0\n  $").unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert!(tokenize("\"open").is_err());
        assert!(tokenize("99999999999999999999").is_err());
    }
}
