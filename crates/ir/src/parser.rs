//! The text parser: reads both views the printer writes (see `docs/text-format.md`).
//!
//! The parser keeps the text's value and block numbers (`v7` becomes value index 7), so
//! printing a parsed module gives back the text it came from; numbers that the text skips
//! become detached placeholders. Names are checked here (defined once, declared before use
//! for types, constants and globals; functions may be called before they are defined);
//! everything else — types of operands, dominance, structure — is the verifier's job, so
//! the parser accepts any module the printer can write, valid or not.
//!
//! Errors carry the 1-based line and column of the offending token. The parser never
//! panics; nesting depth and entity numbers are bounded so hostile input cannot exhaust
//! the stack or memory.
//!
//! [`parse_module_with_lines`] also returns [`SourceLines`]: the line each type,
//! constant, global, function, block and instruction comes from, so that a verifier error's
//! [`Location`] can be pointed back at the text.

use crate::constants::{ConstData, ConstKind};
use crate::dfg::ValueDef;
use crate::entities::{Block, Const, Func, Global, Inst, Type, Value};
use crate::function::{
    AbiParam, Builtin, Function, FunctionKind, Interpolation, InterpolationKind, Sampling,
    Signature, StageBinding,
};
use crate::instructions::{BlockCall, InstData, Payload, SwitchTable};
use crate::lexer::{column_of, LexError, Lexer, Tok, Token};
use crate::metadata::{Metadata, SourceLocation, SpillKind};
use crate::module::{GlobalData, Module, ResourceBinding};
use crate::ops::{Format, Opcode};
use crate::types::{
    AddressSpace, SampledKind, Scalar, ScalarKind, StorageAccess, StructMember, StructType,
    TexelFormat, TextureDim, TextureShape, TypeData, MAX_TYPE_NESTING,
};
use crate::verifier::Location;
use cranelift_entity::{EntityRef, SecondaryMap};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::collections::VecDeque;
use std::fmt;

/// A parse error at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line where the error was found, counting from 1.
    pub line: u32,
    /// The column where the error was found, counting from 1.
    pub column: u32,
    /// What was wrong, without the position.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// The 1-based source line of each entity a parsed module got from its text; 0 where the
/// text did not name it (types and values the parser made on its own).
#[derive(Clone, Debug, Default)]
pub struct SourceLines {
    /// The first line that spells the type (a struct's declaration).
    types: SecondaryMap<Type, u32>,
    /// The first declaration of the constant (equal constants are interned into one).
    consts: SecondaryMap<Const, u32>,
    globals: SecondaryMap<Global, u32>,
    functions: SecondaryMap<Func, FunctionLines>,
}

/// Lines of one function: its header, block labels and instructions.
#[derive(Clone, Debug, Default)]
struct FunctionLines {
    header: u32,
    blocks: SecondaryMap<Block, u32>,
    insts: SecondaryMap<Inst, u32>,
}

impl SourceLines {
    /// The line a verifier error at `location` points to: the instruction, the block label,
    /// the function header or the declaration; `None` for the module as a whole and for
    /// entities the text did not name.
    pub fn line_of(&self, location: &Location) -> Option<u32> {
        let line = match *location {
            Location::Module => 0,
            Location::Type(ty) => self.types.get(ty).copied().unwrap_or(0),
            Location::Const(c) => self.consts.get(c).copied().unwrap_or(0),
            Location::Global(g) => self.globals.get(g).copied().unwrap_or(0),
            Location::Function(func) => self.function(func).map_or(0, |f| f.header),
            Location::Block(func, block) => self
                .function(func)
                .and_then(|f| f.blocks.get(block).copied())
                .unwrap_or(0),
            Location::Inst(func, _, inst) => self
                .function(func)
                .and_then(|f| f.insts.get(inst).copied())
                .unwrap_or(0),
        };
        (line != 0).then_some(line)
    }

    fn function(&self, func: Func) -> Option<&FunctionLines> {
        self.functions.get(func)
    }
}

/// Parses a module from its text form.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    parse_module_with_lines(text).map(|(module, _)| module)
}

/// Parses a module from its text form, with the source line of each of its entities.
pub fn parse_module_with_lines(text: &str) -> Result<(Module, SourceLines), ParseError> {
    // Entity numbers are bounded by the input size (with headroom for modules whose
    // numbering has gaps after optimisation), so `v4294967295` cannot allocate 4G values;
    // they stay below the numbers reserved for deferred operands.
    let entity_limit = text
        .len()
        .saturating_mul(8)
        .max(1 << 20)
        .min(DEFERRED_BASE as usize);
    let mut module = Module::new();
    let void = module.types.void();
    let mut parser = Parser {
        src: text,
        lexer: Lexer::new(text),
        buf: VecDeque::with_capacity(4),
        prev: None,
        lex_error: None,
        module,
        void,
        consts: HashMap::new(),
        globals: HashMap::new(),
        functions: HashMap::new(),
        pending_calls: Vec::new(),
        deferred: Vec::new(),
        deferred_consts: HashMap::new(),
        deferred_globals: HashMap::new(),
        entity_limit,
        lines: SourceLines::default(),
    };
    parser.refill();
    let result = parser.module();
    if let Some(e) = parser.lex_error.take() {
        return Err(ParseError {
            line: e.line,
            column: e.column,
            message: e.message,
        });
    }
    result.map(|()| (parser.module, parser.lines))
}

/// Value numbers from here up stand for constants and globals used in the function being
/// parsed; they are replaced by real values when the function ends, so on-demand values
/// never take a number the text names later.
const DEFERRED_BASE: u32 = 0x7000_0000;

#[derive(Copy, Clone)]
enum Deferred {
    Const(Const, Type),
    Global(Global, Type),
}

struct PendingCall {
    func: Func,
    inst: Inst,
    callee: String,
    line: u32,
    column: u32,
}

struct Parser<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    /// Lookahead: always at least two tokens after `refill`.
    buf: VecDeque<Token<'a>>,
    /// The last consumed token, for errors that point at it and for `unbump`.
    prev: Option<Token<'a>>,
    lex_error: Option<LexError>,
    module: Module,
    void: Type,
    consts: HashMap<u32, Const>,
    globals: HashMap<String, Global>,
    functions: HashMap<String, Func>,
    pending_calls: Vec<PendingCall>,
    deferred: Vec<Deferred>,
    deferred_consts: HashMap<Const, u32>,
    deferred_globals: HashMap<Global, u32>,
    entity_limit: usize,
    lines: SourceLines,
}

type PResult<T> = Result<T, ParseError>;

/// Splits an entity name such as `v12` into its number when it has the given prefix.
fn entity_number(word: &str, prefix: &str) -> Option<u32> {
    let digits = word.strip_prefix(prefix)?;
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    digits.parse().ok()
}

impl<'a> Parser<'a> {
    // --- token helpers -------------------------------------------------------------------

    fn refill(&mut self) {
        while self.buf.len() < 2 {
            let token = match self.lexer.next_token() {
                Ok(t) => t,
                Err(e) => {
                    let line = e.line;
                    self.lex_error.get_or_insert(e);
                    Token {
                        tok: Tok::Eof,
                        line,
                        offset: self.src.len(),
                    }
                }
            };
            let eof = token.tok == Tok::Eof;
            self.buf.push_back(token);
            if eof && self.buf.len() < 2 {
                let again = self.buf.back().cloned().expect("just pushed");
                self.buf.push_back(again);
            }
        }
    }

    fn peek(&self) -> &Tok<'a> {
        &self.buf[0].tok
    }

    fn peek_at(&self, ahead: usize) -> &Tok<'a> {
        &self.buf[ahead.min(self.buf.len() - 1)].tok
    }

    fn bump(&mut self) -> Tok<'a> {
        let token = self.buf.pop_front().expect("lookahead is filled");
        let tok = token.tok.clone();
        if tok == Tok::Eof {
            self.buf.push_front(token.clone());
        }
        self.prev = Some(token);
        self.refill();
        tok
    }

    /// Steps back over the token `bump` just consumed.
    fn unbump(&mut self) {
        if let Some(token) = self.prev.take() {
            self.buf.push_front(token);
        }
    }

    fn error_at<T>(&self, token: &Token<'a>, message: impl Into<String>) -> PResult<T> {
        if let Some(e) = &self.lex_error {
            return Err(ParseError {
                line: e.line,
                column: e.column,
                message: e.message.clone(),
            });
        }
        Err(ParseError {
            line: token.line,
            column: column_of(self.src, token.offset),
            message: message.into(),
        })
    }

    fn error<T>(&self, message: impl Into<String>) -> PResult<T> {
        self.error_at(&self.buf[0], message)
    }

    fn position(&self) -> (u32, u32) {
        (self.buf[0].line, column_of(self.src, self.buf[0].offset))
    }

    fn unexpected<T>(&self, expected: &str) -> PResult<T> {
        self.error(format!("expected {expected}, found {}", self.peek()))
    }

    fn expect(&mut self, tok: Tok) -> PResult<()> {
        if *self.peek() == tok {
            self.bump();
            Ok(())
        } else {
            self.unexpected(&tok.to_string())
        }
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == tok {
            self.bump();
            true
        } else {
            false
        }
    }

    fn is_keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Ident(w) if *w == word)
    }

    fn expect_keyword(&mut self, word: &str) -> PResult<()> {
        if self.is_keyword(word) {
            self.bump();
            Ok(())
        } else {
            self.unexpected(&format!("`{word}`"))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<&'a str> {
        match self.peek().clone() {
            Tok::Ident(w) => {
                self.bump();
                Ok(w)
            }
            _ => self.unexpected(what),
        }
    }

    fn uint(&mut self, what: &str) -> PResult<u64> {
        match *self.peek() {
            Tok::Int {
                bits,
                negative: false,
            } => {
                self.bump();
                Ok(bits)
            }
            _ => self.unexpected(what),
        }
    }

    fn u32(&mut self, what: &str) -> PResult<u32> {
        let value = self.uint(what)?;
        u32::try_from(value)
            .or_else(|_| self.error(format!("{what} {value} does not fit in 32 bits")))
    }

    fn end_of_line(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Newline => {
                self.bump();
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => self.unexpected("end of line"),
        }
    }

    fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.bump();
        }
    }

    // --- module --------------------------------------------------------------------------

    fn module(&mut self) -> PResult<()> {
        loop {
            self.skip_newlines();
            match self.peek().clone() {
                Tok::Eof => break,
                Tok::Ident(word) => match word {
                    "layout" => self.layout_decl()?,
                    "struct" => self.struct_decl()?,
                    "const" => self.const_decl()?,
                    "global" => self.global_decl()?,
                    "kernel" | "vertex" | "fragment" | "callable" | "external" => {
                        self.function()?
                    }
                    _ => {
                        return self
                            .unexpected("`layout`, `struct`, `const`, `global` or a function")
                    }
                },
                _ => return self.unexpected("`layout`, `struct`, `const`, `global` or a function"),
            }
        }
        for call in std::mem::take(&mut self.pending_calls) {
            let Some(&callee) = self.functions.get(&call.callee) else {
                return Err(ParseError {
                    line: call.line,
                    column: call.column,
                    message: format!("call to undefined function `@{}`", call.callee),
                });
            };
            self.module.functions[call.func]
                .dfg
                .inst_mut(call.inst)
                .payload = Payload::Callee(callee);
        }
        Ok(())
    }

    fn check_fresh_symbol(&self, name: &str) -> PResult<()> {
        if self.globals.contains_key(name) || self.functions.contains_key(name) {
            return self.error(format!("`@{name}` is already defined"));
        }
        Ok(())
    }

    /// `layout uniform RULES`: the rules of the module's uniform buffers (std140 or std430).
    fn layout_decl(&mut self) -> PResult<()> {
        self.expect_keyword("layout")?;
        let space = self.ident("`uniform`")?;
        if space != "uniform" {
            return self.error(format!(
                "`layout` sets the rules of `uniform` buffers only, not `{space}`"
            ));
        }
        let name = self.ident("a layout rule set (`std140` or `std430`)")?;
        let rules = match crate::data_layout::LayoutRules::from_name(name) {
            Some(
                rules @ (crate::data_layout::LayoutRules::Std140
                | crate::data_layout::LayoutRules::Std430),
            ) => rules,
            Some(_) | None => {
                return self.error(format!(
                    "uniform buffers are laid out by `std140` or `std430`, not `{name}`"
                ))
            }
        };
        self.module.layouts.uniform = rules;
        Ok(())
    }

    fn struct_decl(&mut self) -> PResult<()> {
        let line = self.buf[0].line;
        self.expect_keyword("struct")?;
        let name = match self.bump() {
            Tok::Struct(name) => name,
            _ => {
                self.unbump();
                return self.unexpected("a struct name `%Name`");
            }
        };
        if self.module.types.struct_by_name(name).is_some() {
            return self.error(format!("struct `%{name}` is already defined"));
        }
        let mut align = None;
        if self.is_keyword("align") {
            self.bump();
            self.expect(Tok::LParen)?;
            align = Some(self.u32("an alignment")?);
            self.expect(Tok::RParen)?;
        }
        self.expect(Tok::LBrace)?;
        let mut members = Vec::new();
        if !self.eat(&Tok::RBrace) {
            loop {
                let member_name = self.ident("a member name")?;
                self.expect(Tok::Colon)?;
                let ty = self.ty()?;
                let offset = if self.eat(&Tok::At) {
                    Some(self.u32("a member offset")?)
                } else {
                    None
                };
                members.push(StructMember {
                    name: member_name.to_string(),
                    ty,
                    offset,
                });
                if self.eat(&Tok::Comma) {
                    continue;
                }
                self.expect(Tok::RBrace)?;
                break;
            }
        }
        let declared = self.module.types.declare_struct(StructType {
            name: name.to_string(),
            members,
            align,
        });
        if self.module.types.struct_by_name(name) != Some(declared) {
            return self.error(format!(
                "struct `%{name}` duplicates the body of an earlier struct"
            ));
        }
        self.lines.types[declared] = line;
        self.end_of_line()
    }

    fn const_decl(&mut self) -> PResult<()> {
        let line = self.buf[0].line;
        self.expect_keyword("const")?;
        let word = self.ident("a constant name `cN`")?;
        let Some(number) = entity_number(word, "c") else {
            self.unbump();
            return self.error(format!("expected a constant name `cN`, found `{word}`"));
        };
        if self.consts.contains_key(&number) {
            self.unbump();
            return self.error(format!("constant `{word}` is already defined"));
        }
        self.expect(Tok::Colon)?;
        let ty = self.ty()?;
        self.expect(Tok::Equals)?;
        let kind = match self.peek().clone() {
            Tok::Ident("zero") => {
                self.bump();
                ConstKind::Zero
            }
            Tok::Ident("undef") => {
                self.bump();
                ConstKind::Undef
            }
            Tok::Ident("bits") => {
                self.bump();
                self.expect(Tok::LParen)?;
                let bits = self.uint("raw bits")?;
                self.expect(Tok::RParen)?;
                ConstKind::Scalar(bits)
            }
            Tok::LBracket => {
                self.bump();
                let mut elements = Vec::new();
                if !self.eat(&Tok::RBracket) {
                    loop {
                        elements.push(self.const_ref()?);
                        if self.eat(&Tok::Comma) {
                            continue;
                        }
                        self.expect(Tok::RBracket)?;
                        break;
                    }
                }
                ConstKind::Composite(elements)
            }
            _ => {
                let Some(TypeData::Scalar(scalar)) = self.module.types.try_get(ty).cloned() else {
                    return self.unexpected(
                        "`zero`, `undef`, `bits(..)` or `[...]` for a non-scalar constant",
                    );
                };
                ConstKind::Scalar(self.scalar_literal(scalar)?)
            }
        };
        let c = self.module.consts.intern(ConstData { ty, kind });
        self.consts.insert(number, c);
        record_first(&mut self.lines.consts[c], line);
        self.end_of_line()
    }

    fn const_ref(&mut self) -> PResult<Const> {
        let word = self.ident("a constant `cN`")?;
        match entity_number(word, "c").and_then(|n| self.consts.get(&n)) {
            Some(&c) => Ok(c),
            None => {
                self.unbump();
                self.error(format!("undefined constant `{word}`"))
            }
        }
    }

    /// A literal of `scalar`, as canonical bits.
    fn scalar_literal(&mut self, scalar: Scalar) -> PResult<u64> {
        let tok = self.peek().clone();
        let bits = match (scalar.kind, &tok) {
            (ScalarKind::Bool, Tok::Ident(w)) if *w == "true" => 1,
            (ScalarKind::Bool, Tok::Ident(w)) if *w == "false" => 0,
            (ScalarKind::Sint | ScalarKind::Uint, Tok::Int { bits, negative }) => {
                let width = u32::from(scalar.bits);
                let fits = if scalar.is_signed() {
                    let v = *bits as i64;
                    if *negative || width == 64 {
                        width == 64 || v >= -(1i64 << (width - 1))
                    } else {
                        *bits < (1u64 << (width - 1))
                    }
                } else {
                    !*negative && (width == 64 || *bits < (1u64 << width))
                };
                if !fits {
                    return self.error(format!("literal {tok} does not fit in {}", scalar.name()));
                }
                crate::constants::canonical_scalar_bits(scalar, *bits)
            }
            (ScalarKind::Float, Tok::Int { bits, negative }) => {
                let value = if *negative {
                    (*bits as i64) as f64
                } else {
                    *bits as f64
                };
                float_bits(scalar, &value.to_string()).unwrap_or(0)
            }
            (ScalarKind::Float, Tok::Float(text)) => match float_bits(scalar, text) {
                Some(bits) => bits,
                None => return self.error(format!("invalid {} literal `{text}`", scalar.name())),
            },
            (ScalarKind::Float, Tok::Ident(w)) if *w == "inf" => {
                float_bits(scalar, "inf").unwrap_or(0)
            }
            (ScalarKind::Float, Tok::Ident(w)) if *w == "nan" => {
                self.bump();
                self.expect(Tok::LParen)?;
                let bits = self.uint("NaN payload bits")?;
                if self.peek() != &Tok::RParen {
                    return self.unexpected("`)`");
                }
                let canonical = crate::constants::canonical_scalar_bits(scalar, bits);
                if canonical != bits {
                    return self.error(format!(
                        "NaN bits 0x{bits:x} do not fit in {}",
                        scalar.name()
                    ));
                }
                canonical
            }
            _ => return self.unexpected(&format!("a {} literal", scalar.name())),
        };
        self.bump();
        Ok(bits)
    }

    fn global_decl(&mut self) -> PResult<()> {
        let line = self.buf[0].line;
        self.expect_keyword("global")?;
        let name = match self.peek().clone() {
            Tok::Global(name) => name,
            _ => return self.unexpected("a global name `@name`"),
        };
        self.check_fresh_symbol(name)?;
        self.bump();
        self.expect(Tok::Colon)?;
        let space = self.address_space()?;
        let ty = self.ty()?;
        let mut binding = None;
        if self.is_keyword("binding") {
            self.bump();
            self.expect(Tok::LParen)?;
            let group = self.u32("a group")?;
            self.expect(Tok::Comma)?;
            let number = self.u32("a binding")?;
            self.expect(Tok::RParen)?;
            binding = Some(ResourceBinding {
                group,
                binding: number,
            });
        }
        let init = if self.eat(&Tok::Equals) {
            Some(self.const_ref()?)
        } else {
            None
        };
        let g = self.module.add_global(GlobalData {
            name: name.to_string(),
            space,
            ty,
            init,
            binding,
        });
        self.globals.insert(name.to_string(), g);
        self.lines.globals[g] = line;
        self.end_of_line()
    }

    // --- types ---------------------------------------------------------------------------

    fn address_space(&mut self) -> PResult<AddressSpace> {
        let word = self.ident("an address space")?;
        Ok(match word {
            "function" => AddressSpace::Function,
            "private" => AddressSpace::Private,
            "workgroup" => AddressSpace::Workgroup,
            "uniform" => AddressSpace::Uniform,
            "push_constant" => AddressSpace::PushConstant,
            "handle" => AddressSpace::Handle,
            "storage" => {
                self.expect(Tok::LParen)?;
                let access = self.storage_access()?;
                self.expect(Tok::RParen)?;
                AddressSpace::Storage(access)
            }
            _ => {
                self.unbump();
                return self.error(format!("unknown address space `{word}`"));
            }
        })
    }

    fn storage_access(&mut self) -> PResult<StorageAccess> {
        let word = self.ident("`read`, `write` or `read_write`")?;
        match StorageAccess::from_name(word) {
            Some(access) => Ok(access),
            None => {
                self.unbump();
                self.error(format!("unknown access mode `{word}`"))
            }
        }
    }

    fn ty(&mut self) -> PResult<Type> {
        self.ty_at_depth(0)
    }

    fn scalar_param(&mut self) -> PResult<Scalar> {
        self.expect(Tok::Less)?;
        let word = self.ident("a scalar type")?;
        let Some(scalar) = Scalar::from_name(word) else {
            self.unbump();
            return self.error(format!("expected a scalar type, found `{word}`"));
        };
        self.expect(Tok::Greater)?;
        Ok(scalar)
    }

    /// A type, noting the line it is first spelled on.
    fn ty_at_depth(&mut self, depth: u32) -> PResult<Type> {
        let line = self.buf[0].line;
        let ty = self.type_expression(depth)?;
        record_first(&mut self.lines.types[ty], line);
        Ok(ty)
    }

    fn type_expression(&mut self, depth: u32) -> PResult<Type> {
        if depth > MAX_TYPE_NESTING {
            return self.error("type nesting is too deep");
        }
        let word = match self.peek().clone() {
            Tok::Struct(name) => {
                return match self.module.types.struct_by_name(name) {
                    Some(ty) => {
                        self.bump();
                        Ok(ty)
                    }
                    None => self.error(format!("undefined struct `%{name}`")),
                };
            }
            Tok::Ident(word) => word,
            _ => return self.unexpected("a type"),
        };
        self.bump();
        if word == "void" {
            return Ok(self.module.types.void());
        }
        if let Some(scalar) = Scalar::from_name(word) {
            return Ok(self.module.types.scalar(scalar));
        }
        if let Some(len) = word.strip_prefix("vec").and_then(|n| n.parse::<u8>().ok()) {
            let elem = self.scalar_param()?;
            return Ok(self.module.types.vector(elem, len));
        }
        if let Some(shape) = word.strip_prefix("mat") {
            let dims: Vec<u8> = shape.split('x').filter_map(|d| d.parse().ok()).collect();
            if let [columns, rows] = dims[..] {
                let elem = self.scalar_param()?;
                return Ok(self.module.types.matrix(elem, columns, rows));
            }
        }
        match word {
            "array" => {
                self.expect(Tok::Less)?;
                let elem = self.ty_at_depth(depth + 1)?;
                // `array<T>`, `array<T, N>`, `array<T, stride S>`, `array<T, N, stride S>`.
                let mut len = None;
                let mut stride = None;
                while self.eat(&Tok::Comma) {
                    if stride.is_some() {
                        return self.unexpected("`>` after an array's stride");
                    }
                    if self.is_keyword("stride") {
                        self.bump();
                        stride = Some(self.u32("an array stride")?);
                    } else if len.is_none() {
                        len = Some(self.u32("an array length")?);
                    } else {
                        return self.unexpected("`stride` or `>`");
                    }
                }
                let ty = match len {
                    Some(len) => self.module.types.strided_array(elem, len, stride),
                    None => self.module.types.strided_runtime_array(elem, stride),
                };
                self.expect(Tok::Greater)?;
                Ok(ty)
            }
            "ptr" => {
                self.expect(Tok::Less)?;
                let space = self.address_space()?;
                self.expect(Tok::Comma)?;
                let pointee = self.ty_at_depth(depth + 1)?;
                self.expect(Tok::Greater)?;
                Ok(self.module.types.pointer(space, pointee))
            }
            "sampler" => Ok(self
                .module
                .types
                .intern(TypeData::Sampler { comparison: false })),
            "sampler_comparison" => Ok(self
                .module
                .types
                .intern(TypeData::Sampler { comparison: true })),
            "opaque" => {
                self.expect(Tok::Less)?;
                let name = match self.bump() {
                    Tok::Str(s) => s,
                    _ => {
                        self.unbump();
                        return self.unexpected("a quoted opaque type name");
                    }
                };
                self.expect(Tok::Greater)?;
                Ok(self
                    .module
                    .types
                    .intern(TypeData::Opaque(name.into_owned())))
            }
            _ => {
                if let Some(rest) = word.strip_prefix("texture_storage_") {
                    let shape = self.texture_shape(rest, word)?;
                    self.expect(Tok::Less)?;
                    let format_word = self.ident("a texel format")?;
                    let Some(format) = TexelFormat::from_name(format_word) else {
                        self.unbump();
                        return self.error(format!("unknown texel format `{format_word}`"));
                    };
                    self.expect(Tok::Comma)?;
                    let access = self.storage_access()?;
                    self.expect(Tok::Greater)?;
                    return Ok(self.module.types.intern(TypeData::StorageTexture {
                        shape,
                        format,
                        access,
                    }));
                }
                if let Some(rest) = word.strip_prefix("texture_") {
                    let shape = self.texture_shape(rest, word)?;
                    self.expect(Tok::Less)?;
                    let kind_word = self.ident("`f32`, `i32`, `u32` or `depth`")?;
                    let Some(kind) = SampledKind::from_name(kind_word) else {
                        self.unbump();
                        return self.error(format!("unknown sampled kind `{kind_word}`"));
                    };
                    self.expect(Tok::Greater)?;
                    return Ok(self.module.types.intern(TypeData::Texture { shape, kind }));
                }
                self.unbump();
                self.error(format!("unknown type `{word}`"))
            }
        }
    }

    fn texture_shape(&self, spec: &str, word: &str) -> PResult<TextureShape> {
        let (multisampled, rest) = match spec.strip_prefix("ms_") {
            Some(rest) => (true, rest),
            None => (false, spec),
        };
        let (arrayed, dim_name) = match rest.strip_suffix("_array") {
            Some(dim) => (true, dim),
            None => (false, rest),
        };
        match TextureDim::from_name(dim_name) {
            Some(dim) => Ok(TextureShape {
                dim,
                arrayed,
                multisampled,
            }),
            None => {
                let token = self.prev.clone().unwrap_or_else(|| self.buf[0].clone());
                self.error_at(&token, format!("unknown texture type `{word}`"))
            }
        }
    }

    // --- functions -----------------------------------------------------------------------

    fn stage_binding(&mut self) -> PResult<Option<StageBinding>> {
        if self.is_keyword("builtin") {
            self.bump();
            self.expect(Tok::LParen)?;
            let name = self.ident("a built-in name")?;
            let Some(builtin) = Builtin::from_name(name) else {
                self.unbump();
                return self.error(format!("unknown built-in `{name}`"));
            };
            self.expect(Tok::RParen)?;
            return Ok(Some(StageBinding::Builtin(builtin)));
        }
        if self.is_keyword("location") {
            self.bump();
            self.expect(Tok::LParen)?;
            let location = self.u32("a location")?;
            let mut interpolation = None;
            if self.eat(&Tok::Comma) {
                let kind_word = self.ident("an interpolation kind")?;
                let Some(kind) = InterpolationKind::from_name(kind_word) else {
                    self.unbump();
                    return self.error(format!("unknown interpolation `{kind_word}`"));
                };
                self.expect(Tok::Comma)?;
                let sampling_word = self.ident("a sampling mode")?;
                let Some(sampling) = Sampling::from_name(sampling_word) else {
                    self.unbump();
                    return self.error(format!("unknown sampling `{sampling_word}`"));
                };
                interpolation = Some(Interpolation { kind, sampling });
            }
            self.expect(Tok::RParen)?;
            return Ok(Some(StageBinding::Location {
                location,
                interpolation,
            }));
        }
        Ok(None)
    }

    fn abi_param(&mut self) -> PResult<AbiParam> {
        let ty = self.ty()?;
        let binding = self.stage_binding()?;
        let invariant = self.is_keyword("invariant");
        if invariant {
            self.bump();
        }
        Ok(AbiParam {
            ty,
            binding,
            invariant,
        })
    }

    fn metadata(&mut self) -> PResult<Metadata> {
        let mut md = Metadata::default();
        if !self.eat(&Tok::LBracket) {
            return Ok(md);
        }
        loop {
            let key = self.ident("a metadata item")?;
            match key {
                "no_inline" => md.no_inline = true,
                "signature_constraint" => md.signature_constraint = true,
                "reg2mem_spill" => {
                    self.expect(Tok::Equals)?;
                    let kind = self.ident("`block_param` or `cross_block`")?;
                    md.reg2mem_spill = match SpillKind::from_name(kind) {
                        Some(k) => Some(k),
                        None => {
                            self.unbump();
                            return self.error(format!("unknown spill kind `{kind}`"));
                        }
                    };
                }
                "name" | "comment" => {
                    self.expect(Tok::Equals)?;
                    let text = match self.bump() {
                        Tok::Str(s) => s,
                        _ => {
                            self.unbump();
                            return self.unexpected("a string");
                        }
                    };
                    if key == "name" {
                        md.name = Some(text.into_owned());
                    } else {
                        md.comments.push(text.into_owned());
                    }
                }
                "loc" => {
                    self.expect(Tok::Equals)?;
                    let file = match self.bump() {
                        Tok::Str(s) => s,
                        _ => {
                            self.unbump();
                            return self.unexpected("a quoted file name");
                        }
                    };
                    self.expect(Tok::Colon)?;
                    let line = self.u32("a line")?;
                    self.expect(Tok::Colon)?;
                    let column = self.u32("a column")?;
                    md.location = Some(SourceLocation {
                        file: file.into_owned(),
                        line,
                        column,
                    });
                }
                _ => {
                    self.unbump();
                    return self.error(format!("unknown metadata `{key}`"));
                }
            }
            if self.eat(&Tok::Comma) {
                continue;
            }
            self.expect(Tok::RBracket)?;
            return Ok(md);
        }
    }

    fn function(&mut self) -> PResult<()> {
        let line = self.buf[0].line;
        let keyword = self.ident("a function kind")?;
        let name = match self.peek().clone() {
            Tok::Global(name) => name,
            _ => return self.unexpected("a function name `@name`"),
        };
        self.check_fresh_symbol(name)?;
        self.bump();
        self.expect(Tok::LParen)?;
        let mut signature = Signature::default();
        if !self.eat(&Tok::RParen) {
            loop {
                signature.params.push(self.abi_param()?);
                if self.eat(&Tok::Comma) {
                    continue;
                }
                self.expect(Tok::RParen)?;
                break;
            }
        }
        if self.eat(&Tok::Arrow) {
            if self.eat(&Tok::LParen) {
                loop {
                    signature.returns.push(self.abi_param()?);
                    if self.eat(&Tok::Comma) {
                        continue;
                    }
                    self.expect(Tok::RParen)?;
                    break;
                }
            } else {
                signature.returns.push(self.abi_param()?);
            }
        }
        let kind = match keyword {
            "kernel" => {
                self.expect_keyword("workgroup_size")?;
                self.expect(Tok::LParen)?;
                let mut workgroup_size = [0; 3];
                let mut workgroup_spec_ids = [None; 3];
                for i in 0..3 {
                    if i > 0 {
                        self.expect(Tok::Comma)?;
                    }
                    workgroup_size[i] = self.u32("a workgroup size")?;
                    if self.is_keyword("spec_id") {
                        self.bump();
                        workgroup_spec_ids[i] = Some(self.u32("a specialization id")?);
                    }
                }
                self.expect(Tok::RParen)?;
                FunctionKind::Kernel {
                    workgroup_size,
                    workgroup_spec_ids,
                }
            }
            "vertex" => FunctionKind::Vertex,
            "fragment" => FunctionKind::Fragment,
            "callable" => FunctionKind::Callable,
            _ => FunctionKind::External,
        };
        let metadata = self.metadata()?;
        let mut function = Function::new(name, kind, signature);
        function.metadata = metadata;
        let func = self.module.add_function(function);
        self.functions.insert(name.to_string(), func);
        self.lines.functions[func].header = line;
        if kind == FunctionKind::External && *self.peek() != Tok::LBrace {
            return self.end_of_line();
        }
        self.expect(Tok::LBrace)?;
        self.end_of_line()?;
        let result = self.body(func);
        self.resolve_deferred(func);
        result
    }

    /// Replaces the deferred operand numbers of `func` by the real values of their
    /// constants and globals.
    fn resolve_deferred(&mut self, func: Func) {
        if self.deferred.is_empty() {
            return;
        }
        let dfg = &mut self.module.functions[func].dfg;
        let real: Vec<Value> = self
            .deferred
            .iter()
            .map(|d| match *d {
                Deferred::Const(c, ty) => dfg.const_value(c, ty),
                Deferred::Global(g, ty) => dfg.global_value(g, ty),
            })
            .collect();
        for data in dfg.insts.values_mut() {
            data.map_values(|v| match (v.index() as u32).checked_sub(DEFERRED_BASE) {
                Some(k) => real[k as usize],
                None => v,
            });
        }
        self.deferred.clear();
        self.deferred_consts.clear();
        self.deferred_globals.clear();
    }

    fn defer(&mut self, item: Deferred) -> Value {
        let next = self.deferred.len() as u32;
        let index = match item {
            Deferred::Const(c, _) => *self.deferred_consts.entry(c).or_insert(next),
            Deferred::Global(g, _) => *self.deferred_globals.entry(g).or_insert(next),
        };
        if index == next {
            self.deferred.push(item);
        }
        Value::new((DEFERRED_BASE + index) as usize)
    }

    fn ensure_value(&mut self, func: Func, number: u32) -> PResult<Value> {
        if number as usize >= self.entity_limit {
            return self.error(format!(
                "value number v{number} is too large for this input"
            ));
        }
        let void = self.void;
        let dfg = &mut self.module.functions[func].dfg;
        while dfg.values.len() <= number as usize {
            dfg.make_detached_value(void);
        }
        Ok(Value::new(number as usize))
    }

    fn ensure_block(&mut self, func: Func, number: u32) -> PResult<Block> {
        if number as usize >= self.entity_limit {
            return self.error(format!(
                "block number block{number} is too large for this input"
            ));
        }
        let dfg = &mut self.module.functions[func].dfg;
        while dfg.blocks.len() <= number as usize {
            dfg.make_block();
        }
        Ok(Block::new(number as usize))
    }

    fn block_ref(&mut self, func: Func) -> PResult<Block> {
        let word = self.ident("a block `blockN`")?;
        match entity_number(word, "block") {
            Some(n) => self.ensure_block(func, n),
            None => {
                self.unbump();
                self.error(format!("expected a block `blockN`, found `{word}`"))
            }
        }
    }

    fn block_call(&mut self, func: Func) -> PResult<BlockCall> {
        let block = self.block_ref(func)?;
        let mut call = BlockCall::new(block);
        if self.eat(&Tok::LParen) && !self.eat(&Tok::RParen) {
            loop {
                call.args.push(self.operand(func)?);
                if self.eat(&Tok::Comma) {
                    continue;
                }
                self.expect(Tok::RParen)?;
                break;
            }
        }
        Ok(call)
    }

    /// A value operand: `vN`, `cN` or `@global`.
    fn operand(&mut self, func: Func) -> PResult<Value> {
        match self.peek().clone() {
            Tok::Global(name) => {
                let Some(&g) = self.globals.get(name) else {
                    return self.error(format!("undefined global `@{name}`"));
                };
                self.bump();
                let ptr = self.module.global_pointer_type(g);
                Ok(self.defer(Deferred::Global(g, ptr)))
            }
            Tok::Ident(word) => {
                if let Some(n) = entity_number(word, "v") {
                    let v = self.ensure_value(func, n)?;
                    self.bump();
                    return Ok(v);
                }
                if let Some(n) = entity_number(word, "c") {
                    let Some(&c) = self.consts.get(&n) else {
                        return self.error(format!("undefined constant `{word}`"));
                    };
                    self.bump();
                    let ty = self.module.consts.get(c).ty;
                    return Ok(self.defer(Deferred::Const(c, ty)));
                }
                self.unexpected("a value (`vN`, `cN` or `@global`)")
            }
            _ => self.unexpected("a value (`vN`, `cN` or `@global`)"),
        }
    }

    fn define_value(&mut self, func: Func, word: &str) -> PResult<Value> {
        let Some(n) = entity_number(word, "v") else {
            return self.error(format!("expected a value name `vN`, found `{word}`"));
        };
        let v = self.ensure_value(func, n)?;
        if self.module.functions[func].dfg.values[v].def != ValueDef::Detached {
            return self.error(format!("value `{word}` is defined twice"));
        }
        Ok(v)
    }

    fn body(&mut self, func: Func) -> PResult<()> {
        let mut current: Option<Block> = None;
        let mut depth = 0u32;
        loop {
            self.skip_newlines();
            match self.peek().clone() {
                Tok::RBrace => {
                    self.bump();
                    if depth == 0 {
                        return self.end_of_line();
                    }
                    depth -= 1;
                    self.end_of_line()?;
                }
                Tok::Eof => return self.error("unexpected end of input inside a function body"),
                Tok::Ident(word) if entity_number(word, "block").is_some() => {
                    let line = self.buf[0].line;
                    let block = self.block_ref(func)?;
                    if self.module.functions[func].layout.is_block_inserted(block) {
                        self.unbump();
                        return self.error(format!("block `{word}` is defined twice"));
                    }
                    self.module.functions[func].layout.append_block(block);
                    self.lines.functions[func].blocks[block] = line;
                    if self.eat(&Tok::LParen) && !self.eat(&Tok::RParen) {
                        loop {
                            let name = self.ident("a parameter `vN`")?;
                            self.unbump();
                            let v = self.define_value(func, name)?;
                            self.bump();
                            self.expect(Tok::Colon)?;
                            let ty = self.ty()?;
                            self.module.functions[func]
                                .dfg
                                .attach_block_param(block, v, ty);
                            if self.eat(&Tok::Comma) {
                                continue;
                            }
                            self.expect(Tok::RParen)?;
                            break;
                        }
                    }
                    self.expect(Tok::Colon)?;
                    self.end_of_line()?;
                    current = Some(block);
                }
                Tok::Ident(_) => {
                    let Some(block) = current else {
                        return self.error(
                            "instruction outside a block: expected a block label `blockN:`",
                        );
                    };
                    if self.instruction(func, block)? {
                        depth += 1;
                        if depth > 1 << 16 {
                            return self.error("structured nesting is too deep");
                        }
                    }
                }
                _ => return self.unexpected("a block label, an instruction or `}`"),
            }
        }
    }

    /// Parses one instruction line into `block`. Returns whether it opened a `{`.
    fn instruction(&mut self, func: Func, block: Block) -> PResult<bool> {
        let line = self.buf[0].line;
        let mut result: Option<(Value, Type)> = None;
        if let (Tok::Ident(word), Tok::Colon) = (self.peek().clone(), self.peek_at(1).clone()) {
            let v = self.define_value(func, word)?;
            self.bump();
            self.bump();
            let ty = self.ty()?;
            self.expect(Tok::Equals)?;
            result = Some((v, ty));
        }
        let mnemonic = self.ident("an opcode")?;
        let Some(opcode) = Opcode::from_mnemonic(mnemonic) else {
            self.unbump();
            return self.error(format!("unknown opcode `{mnemonic}`"));
        };
        let mut args: SmallVec<[Value; 3]> = SmallVec::new();
        let mut pending_callee = None;
        let payload = match opcode.info().format {
            Format::Plain => {
                if !matches!(
                    self.peek(),
                    Tok::Newline | Tok::Eof | Tok::LBracket | Tok::LBrace
                ) {
                    loop {
                        args.push(self.operand(func)?);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
                Payload::None
            }
            Format::Indices => {
                let mut indices = Vec::new();
                loop {
                    match self.peek().clone() {
                        Tok::Int {
                            bits,
                            negative: false,
                        } => {
                            let Ok(index) = u32::try_from(bits) else {
                                return self.error(format!("index {bits} does not fit in 32 bits"));
                            };
                            self.bump();
                            indices.push(index);
                        }
                        _ if indices.is_empty() => args.push(self.operand(func)?),
                        _ => return self.unexpected("a literal index"),
                    }
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
                Payload::Indices(indices.into_boxed_slice())
            }
            Format::Call => {
                let name = match self.peek().clone() {
                    Tok::Global(name) => name,
                    _ => return self.unexpected("a callee `@name`"),
                };
                let (line, column) = self.position();
                pending_callee = Some((name.to_string(), line, column));
                self.bump();
                self.expect(Tok::LParen)?;
                if !self.eat(&Tok::RParen) {
                    loop {
                        args.push(self.operand(func)?);
                        if self.eat(&Tok::Comma) {
                            continue;
                        }
                        self.expect(Tok::RParen)?;
                        break;
                    }
                }
                // Resolved after the whole module is read.
                Payload::Callee(Func::new(0))
            }
            Format::Message => {
                let message = match self.bump() {
                    Tok::Str(s) => s,
                    _ => {
                        self.unbump();
                        return self.unexpected("a quoted message");
                    }
                };
                while self.eat(&Tok::Comma) {
                    args.push(self.operand(func)?);
                }
                Payload::Message(message.into_owned().into_boxed_str())
            }
            Format::Jump => Payload::Jump(self.block_call(func)?),
            Format::CondBranch => {
                args.push(self.operand(func)?);
                self.expect(Tok::Comma)?;
                let then_dest = self.block_call(func)?;
                self.expect(Tok::Comma)?;
                let else_dest = self.block_call(func)?;
                Payload::CondBranch {
                    then_dest,
                    else_dest,
                }
            }
            Format::SwitchBranch => {
                args.push(self.operand(func)?);
                Payload::SwitchBranch(Box::new(self.switch_table(func)?))
            }
            Format::If => {
                args.push(self.operand(func)?);
                self.expect(Tok::Comma)?;
                self.expect_keyword("then")?;
                let then_dest = self.block_call(func)?;
                self.expect(Tok::Comma)?;
                self.expect_keyword("else")?;
                let else_dest = self.block_call(func)?;
                self.expect(Tok::Comma)?;
                self.expect_keyword("merge")?;
                let merge = if self.is_keyword("none") {
                    self.bump();
                    None
                } else {
                    Some(self.block_ref(func)?)
                };
                Payload::If {
                    then_dest,
                    else_dest,
                    merge,
                }
            }
            Format::Loop => {
                self.expect_keyword("prepare")?;
                let prepare = self.block_call(func)?;
                self.expect(Tok::Comma)?;
                self.expect_keyword("body")?;
                let body = self.block_ref(func)?;
                self.expect(Tok::Comma)?;
                self.expect_keyword("update")?;
                let update = self.block_ref(func)?;
                self.expect(Tok::Comma)?;
                self.expect_keyword("merge")?;
                let merge = self.block_ref(func)?;
                Payload::Loop {
                    prepare,
                    body,
                    update,
                    merge,
                }
            }
            Format::SimpleLoop => {
                self.expect_keyword("body")?;
                let body = self.block_call(func)?;
                self.expect(Tok::Comma)?;
                self.expect_keyword("merge")?;
                let merge = self.block_ref(func)?;
                Payload::SimpleLoop { body, merge }
            }
            Format::Switch => {
                args.push(self.operand(func)?);
                let table = self.switch_table(func)?;
                self.expect(Tok::Comma)?;
                self.expect_keyword("merge")?;
                let merge = self.block_ref(func)?;
                Payload::Switch {
                    table: Box::new(table),
                    merge,
                }
            }
        };
        let metadata = self.metadata()?;
        let opens_brace = self.eat(&Tok::LBrace);
        self.end_of_line()?;
        let f = &mut self.module.functions[func];
        let inst = f.dfg.make_inst(InstData {
            opcode,
            args,
            payload,
        });
        if let Some((v, ty)) = result {
            f.dfg.attach_result(inst, v, ty);
        }
        f.dfg.set_metadata(inst, metadata);
        f.layout.append_inst(inst, block);
        self.lines.functions[func].insts[inst] = line;
        if let Some((callee, line, column)) = pending_callee {
            self.pending_calls.push(PendingCall {
                func,
                inst,
                callee,
                line,
                column,
            });
        }
        Ok(opens_brace)
    }

    fn switch_table(&mut self, func: Func) -> PResult<SwitchTable> {
        self.expect(Tok::Comma)?;
        self.expect(Tok::LBracket)?;
        let mut cases = Vec::new();
        if !self.eat(&Tok::RBracket) {
            loop {
                let label = match *self.peek() {
                    Tok::Int { bits, .. } => bits,
                    _ => return self.unexpected("a case label"),
                };
                self.bump();
                self.expect(Tok::Colon)?;
                cases.push((label, self.block_call(func)?));
                if self.eat(&Tok::Comma) {
                    continue;
                }
                self.expect(Tok::RBracket)?;
                break;
            }
        }
        self.expect(Tok::Comma)?;
        self.expect_keyword("default")?;
        let default = self.block_call(func)?;
        Ok(SwitchTable { cases, default })
    }
}

/// Sets `slot` to `line` unless an earlier line is already there.
fn record_first(slot: &mut u32, line: u32) {
    if *slot == 0 {
        *slot = line;
    }
}

/// Parses a float literal of `scalar`'s width into its bit pattern, exactly.
fn float_bits(scalar: Scalar, text: &str) -> Option<u64> {
    match scalar.bits {
        16 => {
            let value: f32 = text.parse().ok()?;
            Some(u64::from(half::f16::from_f32(value).to_bits()))
        }
        32 => {
            let value: f32 = text.parse().ok()?;
            Some(u64::from(value.to_bits()))
        }
        _ => {
            let value: f64 = text.parse().ok()?;
            Some(value.to_bits())
        }
    }
}
