//! The text printer. The grammar is documented in `docs/text-format.md`.
//!
//! Names are entity indices (`v12`, `block3`, `c4`), so diagnostics and text agree and
//! numbering is deterministic; the parser keeps value and block numbers, so
//! `print(parse(print(m))) == print(m)`. Values that are aliases print as the value they
//! resolve to.
//!
//! Two views of a function body:
//! - **flat**: blocks in layout order, each label at column 0;
//! - **structured**: blocks nested under the structured terminator that owns them — an
//!   `if`'s arms, a `loop`'s prepare / body / update blocks, a `switch`'s cases and default,
//!   a `simple_loop`'s body — inside `{ ... }`, followed at the construct's level by its
//!   merge block. Blocks reached by plain branches follow their predecessor at the same
//!   level; blocks reached from nowhere come last. The order depends only on the entry
//!   block and the terminators, never on the layout, so the view round-trips too.
//!
//! Indentation stops growing at [`MAX_INDENT_LEVELS`] levels (128 spaces), so the output
//! is linear in the module's size however deep the nesting.
//!
//! The printer never panics on a corrupted module: invalid indices print as `<invalid …>`.

use crate::constants::ConstKind;
use crate::dfg::ValueDef;
use crate::entities::{Block, Func, Inst, Type, Value};
use crate::function::{AbiParam, Function, FunctionKind};
use crate::instructions::{BlockCall, Payload, SwitchTable};
use crate::metadata::Metadata;
use crate::module::Module;
use crate::types::{quote, Scalar, ScalarKind, TypeData};
use cranelift_entity::SecondaryMap;
use std::fmt::Write;

/// The deepest indentation the printer writes, in levels of four spaces: deeper blocks
/// and braces are printed at this level, so the output stays linear in the module's size
/// (a 5,000-deep nest would otherwise take 700 MB of spaces). The text format ignores
/// indentation, so the output parses back to the same module.
pub const MAX_INDENT_LEVELS: usize = 32;

/// How function bodies are laid out.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum View {
    /// Blocks in layout order.
    #[default]
    Flat,
    /// Blocks nested under the structured constructs that own them.
    Structured,
}

/// Prints the whole module.
pub fn print_module(module: &Module, view: View) -> String {
    let mut out = String::new();
    let mut printer = Printer {
        module,
        out: &mut out,
    };
    printer.module(view);
    out
}

/// Prints one function.
pub fn print_function(module: &Module, func: Func, view: View) -> String {
    let mut out = String::new();
    let mut printer = Printer {
        module,
        out: &mut out,
    };
    printer.function(func, view);
    out
}

/// Prints one instruction as it appears in the text form (without indentation).
pub fn print_inst(module: &Module, func: &Function, inst: Inst) -> String {
    let mut out = String::new();
    let mut printer = Printer {
        module,
        out: &mut out,
    };
    printer.inst(func, inst);
    out
}

/// Formats the bits of a scalar constant in the text form.
pub fn format_scalar(scalar: Scalar, bits: u64) -> String {
    match scalar.kind {
        ScalarKind::Bool => (if bits != 0 { "true" } else { "false" }).to_string(),
        ScalarKind::Sint => (bits as i64).to_string(),
        ScalarKind::Uint => bits.to_string(),
        ScalarKind::Float => {
            let (value, finite) = match scalar.bits {
                16 => {
                    let h = half::f16::from_bits(bits as u16);
                    (f64::from(h.to_f32()), h.is_finite())
                }
                32 => {
                    let f = f32::from_bits(bits as u32);
                    return format_float(
                        f.is_finite(),
                        f.is_nan(),
                        || format!("{f:?}"),
                        bits,
                        8,
                        f.is_sign_negative(),
                    );
                }
                _ => {
                    let f = f64::from_bits(bits);
                    return format_float(
                        f.is_finite(),
                        f.is_nan(),
                        || format!("{f:?}"),
                        bits,
                        16,
                        f.is_sign_negative(),
                    );
                }
            };
            let h = half::f16::from_bits(bits as u16);
            format_float(
                finite,
                h.is_nan(),
                || format!("{:?}", value as f32),
                bits,
                4,
                h.is_sign_negative(),
            )
        }
    }
}

fn format_float(
    finite: bool,
    nan: bool,
    decimal: impl FnOnce() -> String,
    bits: u64,
    hex_digits: usize,
    negative: bool,
) -> String {
    if finite {
        decimal()
    } else if nan {
        format!("nan(0x{bits:0hex_digits$x})")
    } else if negative {
        "-inf".to_string()
    } else {
        "inf".to_string()
    }
}

struct Printer<'a> {
    module: &'a Module,
    out: &'a mut String,
}

impl Printer<'_> {
    fn ty(&self, ty: Type) -> String {
        self.module.types.display(ty).to_string()
    }

    fn module(&mut self, view: View) {
        let m = self.module;
        let mut wrote_section = false;
        if m.layouts != crate::module::BufferLayouts::default() {
            let _ = writeln!(self.out, "layout uniform {}\n", m.layouts.uniform);
        }
        for (_, data) in m.types.iter() {
            if let TypeData::Struct(st) = data {
                let _ = write!(self.out, "struct %{}", st.name);
                if let Some(align) = st.align {
                    let _ = write!(self.out, " align({align})");
                }
                self.out.push_str(" {");
                for (i, member) in st.members.iter().enumerate() {
                    self.out.push_str(if i == 0 { " " } else { ", " });
                    let _ = write!(self.out, "{}: {}", member.name, self.ty(member.ty));
                    if let Some(offset) = member.offset {
                        let _ = write!(self.out, " @ {offset}");
                    }
                }
                self.out
                    .push_str(if st.members.is_empty() { "}\n" } else { " }\n" });
                wrote_section = true;
            }
        }
        if wrote_section && !m.consts.is_empty() {
            self.out.push('\n');
        }
        for (c, data) in m.consts.iter() {
            let _ = write!(self.out, "const {c}: {} = ", self.ty(data.ty));
            match &data.kind {
                ConstKind::Scalar(bits) => match m.types.try_get(data.ty) {
                    Some(TypeData::Scalar(s)) => self.out.push_str(&format_scalar(*s, *bits)),
                    _ => {
                        let _ = write!(self.out, "bits(0x{bits:x})");
                    }
                },
                ConstKind::Composite(elements) => {
                    self.out.push('[');
                    for (i, e) in elements.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        let _ = write!(self.out, "{e}");
                    }
                    self.out.push(']');
                }
                ConstKind::Zero => self.out.push_str("zero"),
                ConstKind::Undef => self.out.push_str("undef"),
            }
            self.out.push('\n');
            wrote_section = true;
        }
        if wrote_section && !m.globals.is_empty() {
            self.out.push('\n');
        }
        for (_, g) in m.globals.iter() {
            let _ = write!(
                self.out,
                "global @{}: {} {}",
                g.name,
                g.space,
                self.ty(g.ty)
            );
            if let Some(b) = g.binding {
                let _ = write!(self.out, " binding({}, {})", b.group, b.binding);
            }
            if let Some(init) = g.init {
                let _ = write!(self.out, " = {init}");
            }
            self.out.push('\n');
            wrote_section = true;
        }
        for (func, _) in m.functions.iter() {
            if wrote_section {
                self.out.push('\n');
            }
            self.function(func, view);
            wrote_section = true;
        }
    }

    fn abi_param(&mut self, p: &AbiParam) {
        self.out.push_str(&self.ty(p.ty));
        if let Some(b) = p.binding {
            let _ = write!(self.out, " {b}");
        }
        if p.invariant {
            self.out.push_str(" invariant");
        }
    }

    fn function(&mut self, func: Func, view: View) {
        let Some(f) = self.module.functions.get(func) else {
            let _ = writeln!(self.out, "; <invalid {func}>");
            return;
        };
        let _ = write!(self.out, "{} @{}", f.kind.keyword(), f.name);
        self.out.push('(');
        for (i, p) in f.signature.params.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.abi_param(p);
        }
        self.out.push(')');
        match f.signature.returns.as_slice() {
            [] => {}
            [one] => {
                self.out.push_str(" -> ");
                self.abi_param(one);
            }
            many => {
                self.out.push_str(" -> (");
                for (i, p) in many.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.abi_param(p);
                }
                self.out.push(')');
            }
        }
        if let FunctionKind::Kernel {
            workgroup_size,
            workgroup_spec_ids,
        } = f.kind
        {
            self.out.push_str(" workgroup_size(");
            for (i, (size, id)) in workgroup_size.iter().zip(workgroup_spec_ids).enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                let _ = write!(self.out, "{size}");
                if let Some(id) = id {
                    let _ = write!(self.out, " spec_id {id}");
                }
            }
            self.out.push(')');
        }
        self.metadata(&f.metadata);
        if f.kind == FunctionKind::External && f.layout.entry_block().is_none() {
            self.out.push('\n');
            return;
        }
        self.out.push_str(" {\n");
        match view {
            View::Flat => {
                for block in f.layout.blocks() {
                    self.block(f, block, 0);
                }
            }
            View::Structured => self.structured_body(f),
        }
        self.out.push_str("}\n");
    }

    fn metadata(&mut self, md: &Metadata) {
        if md.is_empty() {
            return;
        }
        let mut items: Vec<String> = Vec::new();
        if md.no_inline {
            items.push("no_inline".into());
        }
        if md.signature_constraint {
            items.push("signature_constraint".into());
        }
        if let Some(kind) = md.reg2mem_spill {
            items.push(format!("reg2mem_spill = {}", kind.name()));
        }
        if let Some(name) = &md.name {
            items.push(format!("name = {}", quote(name)));
        }
        if let Some(loc) = &md.location {
            items.push(format!(
                "loc = {}:{}:{}",
                quote(&loc.file),
                loc.line,
                loc.column
            ));
        }
        for comment in &md.comments {
            items.push(format!("comment = {}", quote(comment)));
        }
        let _ = write!(self.out, " [{}]", items.join(", "));
    }

    /// Indents by `depth` levels, at most [`MAX_INDENT_LEVELS`].
    fn indent(&mut self, depth: usize) {
        for _ in 0..depth.min(MAX_INDENT_LEVELS) {
            self.out.push_str("    ");
        }
    }

    /// Prints a block label, its parameters and its instructions at `depth`.
    fn block(&mut self, f: &Function, block: Block, depth: usize) {
        self.indent(depth);
        let _ = write!(self.out, "{block}");
        if let Some(data) = f.dfg.blocks.get(block) {
            if !data.params.is_empty() {
                self.out.push('(');
                for (i, &p) in data.params.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    let ty = f.dfg.values.get(p).map(|d| d.ty);
                    let ty = ty.map(|t| self.ty(t)).unwrap_or_else(|| "<invalid>".into());
                    let _ = write!(self.out, "{p}: {ty}");
                }
                self.out.push(')');
            }
        }
        self.out.push_str(":\n");
        for inst in f.layout.block_insts(block) {
            self.indent(depth + 1);
            self.inst(f, inst);
            self.out.push('\n');
        }
    }

    fn value(&mut self, f: &Function, v: Value) {
        let resolved = f.dfg.resolve(v);
        match f.dfg.values.get(resolved).map(|d| d.def) {
            Some(ValueDef::Const(c)) => {
                let _ = write!(self.out, "{c}");
            }
            Some(ValueDef::Global(g)) => match self.module.globals.get(g) {
                Some(data) => {
                    let _ = write!(self.out, "@{}", data.name);
                }
                None => {
                    let _ = write!(self.out, "<invalid {g}>");
                }
            },
            _ => {
                let _ = write!(self.out, "{resolved}");
            }
        }
    }

    fn values(&mut self, f: &Function, values: &[Value]) {
        for (i, &v) in values.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.value(f, v);
        }
    }

    fn block_call(&mut self, f: &Function, call: &BlockCall) {
        let _ = write!(self.out, "{}", call.block);
        if !call.args.is_empty() {
            self.out.push('(');
            self.values(f, &call.args);
            self.out.push(')');
        }
    }

    fn switch_table(&mut self, f: &Function, selector: Option<Value>, table: &SwitchTable) {
        let scalar = selector
            .and_then(|s| f.dfg.values.get(f.dfg.resolve(s)))
            .and_then(|d| self.module.types.try_get(d.ty))
            .and_then(TypeData::as_scalar);
        self.out.push_str(", [");
        for (i, (label, dest)) in table.cases.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match scalar {
                Some(s) if s.is_signed() => {
                    let _ = write!(self.out, "{}", *label as i64);
                }
                _ => {
                    let _ = write!(self.out, "{label}");
                }
            }
            self.out.push_str(": ");
            self.block_call(f, dest);
        }
        self.out.push_str("], default ");
        self.block_call(f, &table.default);
    }

    fn inst(&mut self, f: &Function, inst: Inst) {
        let Some(data) = f.dfg.insts.get(inst) else {
            let _ = write!(self.out, "<invalid {inst}>");
            return;
        };
        if let Some(result) = f.dfg.inst_result(inst) {
            let ty = f.dfg.values.get(result).map(|d| d.ty);
            let ty = ty.map(|t| self.ty(t)).unwrap_or_else(|| "<invalid>".into());
            let _ = write!(self.out, "{result}: {ty} = ");
        }
        self.out.push_str(data.opcode.mnemonic());
        let args = &data.args;
        match &data.payload {
            Payload::None => {
                if !args.is_empty() {
                    self.out.push(' ');
                    self.values(f, args);
                }
            }
            Payload::Indices(indices) => {
                self.out.push(' ');
                self.values(f, args);
                for index in indices.iter() {
                    let _ = write!(self.out, ", {index}");
                }
            }
            Payload::Callee(callee) => {
                match self.module.functions.get(*callee) {
                    Some(c) => {
                        let _ = write!(self.out, " @{}(", c.name);
                    }
                    None => {
                        let _ = write!(self.out, " <invalid {callee}>(");
                    }
                }
                self.values(f, args);
                self.out.push(')');
            }
            Payload::Message(message) => {
                let _ = write!(self.out, " {}", quote(message));
                for &v in args.iter() {
                    self.out.push_str(", ");
                    self.value(f, v);
                }
            }
            Payload::Jump(dest) => {
                self.out.push(' ');
                self.block_call(f, dest);
            }
            Payload::CondBranch {
                then_dest,
                else_dest,
            } => {
                self.out.push(' ');
                self.values(f, args);
                self.out.push_str(", ");
                self.block_call(f, then_dest);
                self.out.push_str(", ");
                self.block_call(f, else_dest);
            }
            Payload::SwitchBranch(table) => {
                self.out.push(' ');
                self.values(f, args);
                self.switch_table(f, args.first().copied(), table);
            }
            Payload::If {
                then_dest,
                else_dest,
                merge,
            } => {
                self.out.push(' ');
                self.values(f, args);
                self.out.push_str(", then ");
                self.block_call(f, then_dest);
                self.out.push_str(", else ");
                self.block_call(f, else_dest);
                match merge {
                    Some(m) => {
                        let _ = write!(self.out, ", merge {m}");
                    }
                    None => self.out.push_str(", merge none"),
                }
            }
            Payload::Loop {
                prepare,
                body,
                update,
                merge,
            } => {
                self.out.push_str(" prepare ");
                self.block_call(f, prepare);
                let _ = write!(self.out, ", body {body}, update {update}, merge {merge}");
            }
            Payload::SimpleLoop { body, merge } => {
                self.out.push_str(" body ");
                self.block_call(f, body);
                let _ = write!(self.out, ", merge {merge}");
            }
            Payload::Switch { table, merge } => {
                self.out.push(' ');
                self.values(f, args);
                self.switch_table(f, args.first().copied(), table);
                let _ = write!(self.out, ", merge {merge}");
            }
        }
        if let Some(md) = f.dfg.metadata(inst) {
            self.metadata(md);
        }
    }

    /// The structured view (see the module docs). Iterative, so deep nesting and long
    /// branch chains cannot overflow the stack.
    fn structured_body(&mut self, f: &Function) {
        enum Task {
            Block(Block, usize),
            Close(usize),
        }
        // Blocks with a structural role are printed by the construct that owns them.
        let mut is_role: SecondaryMap<Block, bool> = SecondaryMap::new();
        for block in f.layout.blocks() {
            if let Some(term) = f.terminator(block) {
                for role in f.dfg.inst(term).payload.roles() {
                    is_role[role] = true;
                }
            }
        }
        let mut printed: SecondaryMap<Block, bool> = SecondaryMap::new();
        let in_layout = |b: Block| f.layout.is_block_inserted(b);
        let mut stack: Vec<Task> = Vec::new();
        let mut pending: Vec<Task> = Vec::new();
        let entry = f.layout.entry_block();
        let leftovers = entry.into_iter().chain(f.layout.blocks());
        for start in leftovers {
            if printed[start] {
                continue;
            }
            stack.push(Task::Block(start, 0));
            while let Some(task) = stack.pop() {
                let (block, depth) = match task {
                    Task::Close(depth) => {
                        self.indent(2 * depth + 1);
                        self.out.push_str("}\n");
                        continue;
                    }
                    Task::Block(b, d) => (b, d),
                };
                if printed[block] || !in_layout(block) {
                    continue;
                }
                printed[block] = true;
                // Nested blocks sit one level inside their construct's brace.
                self.block(f, block, 2 * depth);
                let Some(term) = f.terminator(block) else {
                    continue;
                };
                let payload = &f.dfg.inst(term).payload;
                pending.clear();
                let structured = f.dfg.inst(term).opcode.is_structured();
                if structured {
                    // Reopen the terminator line to add the brace.
                    if self.out.ends_with('\n') {
                        self.out.pop();
                    }
                    self.out.push_str(" {\n");
                    let mut children: Vec<Block> = Vec::new();
                    match payload {
                        Payload::Loop {
                            prepare,
                            body,
                            update,
                            ..
                        } => {
                            children.extend([prepare.block, *body, *update]);
                        }
                        _ => children.extend(payload.edges().iter().map(|e| e.block)),
                    }
                    for child in children {
                        if !printed[child] && Some(child) != payload.merge() {
                            pending.push(Task::Block(child, depth + 1));
                        }
                    }
                    pending.push(Task::Close(depth));
                    if let Some(merge) = payload.merge() {
                        pending.push(Task::Block(merge, depth));
                    }
                } else {
                    for edge in payload.edges() {
                        let target = edge.block;
                        if !printed[target] && !is_role[target] {
                            pending.push(Task::Block(target, depth));
                        }
                    }
                }
                stack.extend(pending.drain(..).rev());
            }
        }
    }
}
