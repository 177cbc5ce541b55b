//! One kernel: the entry ABI, the entry prologue, blocks with their `phi`s, and
//! terminators (plain and structured: both are written as their executable edges).
//!
//! **Entry ABI.** Bound globals become parameters in `(group, binding)` order: a storage
//! buffer is `ptr addrspace(S) noalias %g.NAME` followed by `i64 %g.NAME.bytes`, the byte
//! size of the binding (what `array_length` divides); a uniform or push-constant block is
//! one by-value parameter, `ptr byval(MEM) align A`. Private globals are entry allocas,
//! initialised from their constant; function-space allocas are entry allocas too.

use super::{internal, ModuleState};
use crate::lowering::{lowering, ArithOp, CompositeOp, Lowering, MatrixOp};
use crate::target::Invocation;
use crate::types::{self, const_literal};
use crate::{Error, Location};
use cranelift_entity::EntityRef;
use oxir_ir::data_layout::layout_of;
use oxir_ir::types::TypeData;
use oxir_ir::{
    AddressSpace, Block, BlockCall, Function, Global, Inst, InstData, Payload, TerminatorOp, Type,
    Value, ValueDef,
};
use std::collections::BTreeMap;
use std::fmt::Write;

/// A kernel parameter of the entry ABI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParam {
    /// The global it carries.
    pub global: Global,
    /// The LLVM parameter list entry (type, attributes and name).
    pub text: String,
    /// The operand the body uses for the global's address.
    pub address: String,
    /// The operand holding the binding's byte size (storage buffers only).
    pub bytes: Option<String>,
}

/// The entry-ABI parameters of every kernel of `module`, in `(group, binding)` order.
pub fn kernel_params(
    module: &oxir_ir::Module,
    target: &crate::TargetDesc,
) -> Result<Vec<KernelParam>, String> {
    let mut bound: Vec<(oxir_ir::ResourceBinding, Global)> = module
        .globals
        .iter()
        .filter_map(|(g, d)| d.binding.map(|b| (b, g)))
        .collect();
    bound.sort();
    let mut symbols = super::Symbols::default();
    let mut out = Vec::new();
    for (_, g) in bound {
        let data = &module.globals[g];
        let name = symbols.legalise(&data.name);
        let rules = module.layout_rules(data.space);
        match data.space {
            AddressSpace::Storage(_) => {
                let ptr = types::pointer(target.storage_space);
                out.push(KernelParam {
                    global: g,
                    text: format!("{ptr} noalias %g.{name}, i64 %g.{name}.bytes"),
                    address: format!("%g.{name}"),
                    bytes: Some(format!("%g.{name}.bytes")),
                });
            }
            AddressSpace::Uniform | AddressSpace::PushConstant => {
                let mem = types::mem(&module.types, data.ty, rules)?;
                let align = layout_of(&module.types, data.ty, rules)
                    .map_err(|e| e.to_string())?
                    .align;
                out.push(KernelParam {
                    global: g,
                    text: format!(
                        "{} byval({mem}) align {align} %g.{name}",
                        types::pointer(target.generic_space)
                    ),
                    address: format!("%g.{name}"),
                    bytes: None,
                });
            }
            AddressSpace::Function
            | AddressSpace::Private
            | AddressSpace::Workgroup
            | AddressSpace::Handle => {
                return Err(format!("bound global @{} in {}", data.name, data.space))
            }
        }
    }
    Ok(out)
}

/// The state of one function being written.
pub(crate) struct FnWriter<'s, 'a> {
    pub(crate) state: &'s mut ModuleState<'a>,
    pub(crate) func: &'a Function,
    pub(crate) out: String,
    tmp: u32,
    pub(crate) globals: BTreeMap<Global, String>,
    pub(crate) bytes: BTreeMap<Global, String>,
    pub(crate) workgroup_size: [u32; 3],
    pub(crate) at: Location,
}

impl<'s, 'a> FnWriter<'s, 'a> {
    pub(crate) fn fail(&self, message: impl Into<String>) -> Error {
        Error::Internal {
            location: self.at.clone(),
            message: message.into(),
        }
    }

    /// A fresh temporary name.
    pub(crate) fn fresh(&mut self) -> String {
        self.tmp += 1;
        format!("%t{}", self.tmp)
    }

    /// Appends one instruction line.
    pub(crate) fn line(&mut self, text: &str) {
        self.out.push_str("  ");
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// `%t = text`, returning `%t`.
    pub(crate) fn assign(&mut self, text: &str) -> String {
        let name = self.fresh();
        self.line(&format!("{name} = {text}"));
        name
    }

    /// Records an intrinsic or library declaration.
    pub(crate) fn declare(&mut self, ret: &str, name: &str, params: &[&str]) {
        let attrs = if name.starts_with("llvm.") {
            ""
        } else {
            " nounwind"
        };
        self.state.declarations.insert(format!(
            "declare {ret} @{name}({}){attrs}",
            params.join(", ")
        ));
    }

    /// Calls `name` (declared on first use) and returns the result.
    pub(crate) fn call(&mut self, ret: &str, name: &str, args: &[(&str, &str)]) -> String {
        let params: Vec<&str> = args.iter().map(|(t, _)| *t).collect();
        self.declare(ret, name, &params);
        let list: Vec<String> = args.iter().map(|(t, v)| format!("{t} {v}")).collect();
        self.assign(&format!("call {ret} @{name}({})", list.join(", ")))
    }

    pub(crate) fn type_of(&self, v: Value) -> Type {
        self.func.dfg.value_type(self.func.resolve(v))
    }

    pub(crate) fn type_data(&self, ty: Type) -> Result<&'a TypeData, Error> {
        self.state
            .module
            .types
            .try_get(ty)
            .ok_or_else(|| self.fail("invalid type"))
    }

    /// The register form of `ty`.
    pub(crate) fn reg(&self, ty: Type) -> Result<String, Error> {
        types::reg(&self.state.module.types, self.state.target, ty).map_err(|e| self.fail(e))
    }

    /// The operand spelling of `v`.
    pub(crate) fn op(&self, v: Value) -> Result<String, Error> {
        let v = self.func.resolve(v);
        match self.func.dfg.value_def(v) {
            ValueDef::Result(_) | ValueDef::Param(..) => Ok(format!("%{v}")),
            ValueDef::Const(c) => {
                const_literal(self.state.module, self.state.target, c).map_err(|e| self.fail(e))
            }
            ValueDef::Global(g) => self
                .globals
                .get(&g)
                .cloned()
                .ok_or_else(|| self.fail(format!("global {g} has no address here"))),
            ValueDef::Alias(_) | ValueDef::Detached => {
                Err(self.fail(format!("undefined value {v}")))
            }
        }
    }

    /// `T op` for `v`.
    pub(crate) fn typed(&self, v: Value) -> Result<String, Error> {
        Ok(format!("{} {}", self.reg(self.type_of(v))?, self.op(v)?))
    }

    /// The result name of `inst`.
    pub(crate) fn result(&self, inst: Inst) -> Result<String, Error> {
        self.func
            .dfg
            .inst_result(inst)
            .map(|v| format!("%{v}"))
            .ok_or_else(|| self.fail("instruction without a result"))
    }

    /// Binds `inst`'s result to the operand `value`: the last line's temporary is renamed
    /// when it defined `value`; otherwise (an operand passed through) a `freeze` copies.
    pub(crate) fn bind(&mut self, inst: Inst, ty: &str, value: &str) -> Result<(), Error> {
        let result = self.result(inst)?;
        let prefix = format!("  {value} = ");
        if value.starts_with("%t") {
            if let Some(start) = self.out.rfind(&prefix) {
                if !self.out[start..].trim_end().contains('\n') {
                    self.out
                        .replace_range(start..start + prefix.len(), &format!("  {result} = "));
                    return Ok(());
                }
            }
        }
        // `freeze` of a value that is never poison is a copy in LLVM.
        self.line(&format!("{result} = freeze {ty} {value}"));
        Ok(())
    }
}

/// Writes a kernel: `define`, the prologue, and the blocks.
pub(crate) fn write_kernel<'a>(
    state: &mut ModuleState<'a>,
    func: &'a Function,
    name: &str,
    workgroup_size: [u32; 3],
) -> Result<String, Error> {
    let module = state.module;
    let target = state.target;
    let params = kernel_params(module, target).map_err(internal)?;
    let mut w = FnWriter {
        state,
        func,
        out: String::new(),
        tmp: 0,
        globals: BTreeMap::new(),
        bytes: BTreeMap::new(),
        workgroup_size,
        at: Location {
            function: Some(func.name.clone()),
            block: None,
            instruction: None,
        },
    };
    for p in &params {
        w.globals.insert(p.global, p.address.clone());
        if let Some(bytes) = &p.bytes {
            w.bytes.insert(p.global, bytes.clone());
        }
    }
    let host = target.invocation == Invocation::HostContext;
    if !host {
        for (g, sym) in &w.state.workgroup {
            w.globals.insert(*g, format!("@{sym}"));
        }
    }
    let cc = target
        .kernel_cc
        .map(|c| format!("{c} "))
        .unwrap_or_default();
    let mut list: Vec<&str> = params.iter().map(|p| p.text.as_str()).collect();
    if host {
        list.insert(0, "ptr %ctx");
    }
    let [x, y, z] = workgroup_size;
    let mut head = String::new();
    let _ = writeln!(
        head,
        "\ndefine {cc}void @{name}({}) #0{} {{",
        list.join(", "),
        target
            .reqntid_attr
            .map(|a| format!(" \"{a}\"=\"{x},{y},{z}\""))
            .unwrap_or_default()
    );
    w.out.push_str("entry:\n");
    if host {
        workgroup_addresses(&mut w)?;
    }
    prologue(&mut w)?;
    let entry = func
        .entry_block()
        .ok_or_else(|| w.fail("kernel without a body"))?;
    w.line(&format!("br label %bb{}", entry.index()));
    let preds = predecessors(func);
    for block in func.layout.blocks() {
        write_block(&mut w, block, &preds)?;
    }
    w.out.push_str("}\n");
    head.push_str(&w.out);
    Ok(head)
}

/// Host kernel ABI: each workgroup variable's address, `workgroup_memory + offset`.
fn workgroup_addresses(w: &mut FnWriter<'_, '_>) -> Result<(), Error> {
    let layout = crate::host_abi::workgroup_layout(w.state.module).map_err(|e| w.fail(e))?;
    if layout.offsets.is_empty() {
        return Ok(());
    }
    let base = context_load(w, "ptr", crate::host_abi::WORKGROUP_MEMORY, 8);
    for (g, offset) in layout.offsets {
        let address = w.assign(&format!(
            "getelementptr inbounds i8, ptr {base}, i64 {offset}"
        ));
        w.globals.insert(g, address);
    }
    Ok(())
}

/// Host kernel ABI: loads the `ty` field at `offset` of the context (`%ctx`).
pub(crate) fn context_load(w: &mut FnWriter<'_, '_>, ty: &str, offset: u64, align: u32) -> String {
    let field = if offset == 0 {
        "%ctx".to_string()
    } else {
        w.assign(&format!(
            "getelementptr inbounds i8, ptr %ctx, i64 {offset}"
        ))
    };
    w.assign(&format!("load {ty}, ptr {field}, align {align}"))
}

/// Host kernel ABI: the C-ABI entry `oxir.host.NAME(ptr ctx, ptr args)` of kernel `name`,
/// which unpacks the parameters from the 64-bit slots of `args` and calls the kernel.
pub(crate) fn write_host_entry(
    module: &oxir_ir::Module,
    target: &crate::TargetDesc,
    name: &str,
) -> Result<String, Error> {
    let params = kernel_params(module, target).map_err(internal)?;
    let mut body = String::new();
    let mut args = vec!["ptr %ctx".to_string()];
    let mut slot = 0u64;
    let mut load = |body: &mut String, ty: &str| {
        let _ = writeln!(
            body,
            "  %s{slot}.p = getelementptr inbounds i8, ptr %args, i64 {}",
            slot * 8
        );
        let _ = writeln!(body, "  %s{slot} = load {ty}, ptr %s{slot}.p, align 8");
        slot += 1;
        format!("%s{}", slot - 1)
    };
    for p in &params {
        let mut text = p.text.clone();
        let address = load(&mut body, "ptr");
        if let Some(bytes) = &p.bytes {
            let size = load(&mut body, "i64");
            text = text.replace(bytes.as_str(), &size);
        }
        args.push(text.replace(p.address.as_str(), &address));
    }
    let prefix = crate::host_abi::ENTRY_PREFIX;
    Ok(format!(
        "\ndefine void @\"{prefix}{name}\"(ptr %ctx, ptr %args) #0 {{\nentry:\n{body}  call void @{name}({}) #0\n  ret void\n}}\n",
        args.join(", ")
    ))
}

/// Private globals and allocas, at the top of the entry block.
fn prologue(w: &mut FnWriter<'_, '_>) -> Result<(), Error> {
    let module = w.state.module;
    let target = w.state.target;
    for (g, data) in module.globals.iter() {
        if data.space != AddressSpace::Private {
            continue;
        }
        let rules = module.layout_rules(data.space);
        let mem = types::mem(&module.types, data.ty, rules).map_err(|e| w.fail(e))?;
        let align = layout_of(&module.types, data.ty, rules)
            .map_err(|e| w.fail(e.to_string()))?
            .align;
        let slot = w.assign(&format!("alloca {mem}, align {align}"));
        w.globals.insert(g, slot.clone());
        if let Some(init) = data.init {
            let value = const_literal(module, target, init).map_err(|e| w.fail(e))?;
            super::memory::store_value(w, &slot, data.ty, AddressSpace::Private, &value)?;
        }
    }
    for block in w.func.layout.blocks() {
        for inst in w.func.layout.block_insts(block) {
            let data = w.func.dfg.inst(inst);
            if let Lowering::Composite(CompositeOp::ExtractDynamic | CompositeOp::InsertDynamic) =
                lowering(data.opcode)
            {
                scratch(w, inst, data)?;
                continue;
            }
            if lowering(data.opcode) != Lowering::Memory(crate::lowering::MemoryOp::Alloca) {
                continue;
            }
            let result = w.result(inst)?;
            let ty = w
                .func
                .dfg
                .inst_result(inst)
                .map(|v| w.type_of(v))
                .ok_or_else(|| w.fail("alloca without a result"))?;
            let (space, pointee) = match w.type_data(ty)? {
                TypeData::Pointer { space, pointee } => (*space, *pointee),
                _ => return Err(w.fail("alloca of a non-pointer type")),
            };
            let rules = w.state.module.layout_rules(space);
            let mem = types::mem(&module.types, pointee, rules).map_err(|e| w.fail(e))?;
            let align = layout_of(&module.types, pointee, rules)
                .map_err(|e| w.fail(e.to_string()))?
                .align;
            w.line(&format!("{result} = alloca {mem}, align {align}"));
        }
    }
    Ok(())
}

/// The entry-block scratch slot of a dynamic index into an array or matrix value.
fn scratch(w: &mut FnWriter<'_, '_>, inst: Inst, data: &InstData) -> Result<(), Error> {
    let ty = data
        .args
        .first()
        .map(|&v| w.type_of(v))
        .ok_or_else(|| w.fail("dynamic index without operands"))?;
    if let TypeData::Vector { .. } = w.type_data(ty)? {
        return Ok(());
    }
    let rules = w.state.module.layout_rules(AddressSpace::Function);
    let types = &w.state.module.types;
    let mem = types::mem(types, ty, rules).map_err(|e| w.fail(e))?;
    let align = layout_of(types, ty, rules)
        .map_err(|e| w.fail(e.to_string()))?
        .align;
    let slot = super::composite::scratch_slot(inst);
    w.line(&format!("{slot} = alloca {mem}, align {align}"));
    Ok(())
}

/// One incoming edge of a block: the label it comes from and the arguments it passes.
struct Incoming {
    label: String,
    args: Vec<Value>,
}

/// Whether edge `k` of `edges` must go through a split block: another edge of the same
/// terminator reaches the same block with different arguments.
fn needs_split(edges: &[&BlockCall], k: usize) -> bool {
    let e = edges[k];
    !e.args.is_empty()
        && edges
            .iter()
            .any(|other| other.block == e.block && other.args != e.args)
}

fn edge_label(source: Block, edges: &[&BlockCall], k: usize) -> String {
    if needs_split(edges, k) {
        format!("bb{}.e{k}", source.index())
    } else {
        format!("bb{}", edges[k].block.index())
    }
}

fn source_label(source: Block, edges: &[&BlockCall], k: usize) -> String {
    if needs_split(edges, k) {
        format!("bb{}.e{k}", source.index())
    } else {
        format!("bb{}", source.index())
    }
}

/// The incoming edges of every block, one entry per CFG edge, in layout order.
fn predecessors(func: &Function) -> BTreeMap<Block, Vec<Incoming>> {
    let mut preds: BTreeMap<Block, Vec<Incoming>> = BTreeMap::new();
    for block in func.layout.blocks() {
        let Some(term) = func.terminator(block) else {
            continue;
        };
        let edges = func.dfg.inst(term).payload.edges();
        for (k, e) in edges.iter().enumerate() {
            preds.entry(e.block).or_default().push(Incoming {
                label: source_label(block, &edges, k),
                args: e.args.iter().map(|&v| func.resolve(v)).collect(),
            });
        }
    }
    preds
}

fn write_block(
    w: &mut FnWriter<'_, '_>,
    block: Block,
    preds: &BTreeMap<Block, Vec<Incoming>>,
) -> Result<(), Error> {
    w.at.block = Some(block);
    w.at.instruction = None;
    let _ = writeln!(w.out, "bb{}:", block.index());
    let params = w.func.dfg.block_params(block).to_vec();
    let incoming = preds.get(&block).map(Vec::as_slice).unwrap_or(&[]);
    for (i, &p) in params.iter().enumerate() {
        let ty = w.reg(w.type_of(p))?;
        let mut entries = Vec::new();
        for edge in incoming {
            let arg = edge
                .args
                .get(i)
                .copied()
                .ok_or_else(|| w.fail("edge without an argument"))?;
            entries.push(format!("[ {}, %{} ]", w.op(arg)?, edge.label));
        }
        w.line(&format!("%{p} = phi {ty} {}", entries.join(", ")));
    }
    for inst in w.func.layout.block_insts(block) {
        w.at.instruction = Some(inst);
        let data = w.func.dfg.inst(inst);
        match lowering(data.opcode) {
            Lowering::Terminator(op) => write_terminator(w, block, data, op)?,
            Lowering::Arith(op @ (ArithOp::Add | ArithOp::Sub)) if matrix_operand(w, data)? => {
                let add = op == ArithOp::Add;
                super::matrix::write_matrix(w, inst, data, MatrixOp::AddSub { add })?
            }
            Lowering::Arith(op) => super::arith::write_arith(w, inst, data, op)?,
            Lowering::Math(op) => super::arith::write_math(w, inst, data, op)?,
            Lowering::Elementary(name) => super::arith::write_elementary(w, inst, data, name)?,
            Lowering::Composite(op) => super::composite::write_composite(w, inst, data, op)?,
            Lowering::Matrix(op) => super::matrix::write_matrix(w, inst, data, op)?,
            Lowering::Memory(op) => super::memory::write_memory(w, inst, data, op)?,
            Lowering::Register(r) => super::memory::write_register(w, inst, r)?,
            Lowering::Subgroup(op) => super::subgroup::write_subgroup(w, inst, data, op)?,
            Lowering::Refused(why) => {
                return Err(w.fail(format!("refused op reached the writer: {why}")))
            }
        }
    }
    Ok(())
}

fn matrix_operand(w: &FnWriter<'_, '_>, data: &InstData) -> Result<bool, Error> {
    match data.args.first() {
        Some(&v) => Ok(matches!(
            w.type_data(w.type_of(v))?,
            TypeData::Matrix { .. }
        )),
        None => Ok(false),
    }
}

fn write_terminator(
    w: &mut FnWriter<'_, '_>,
    block: Block,
    data: &InstData,
    op: TerminatorOp,
) -> Result<(), Error> {
    let edges = data.payload.edges();
    let label = |k: usize| format!("label %{}", edge_label(block, &edges, k));
    match op {
        TerminatorOp::Br
        | TerminatorOp::Break
        | TerminatorOp::Continue
        | TerminatorOp::Loop
        | TerminatorOp::SimpleLoop => {
            let text = format!("br {}", label(0));
            w.line(&text);
        }
        TerminatorOp::CondBr | TerminatorOp::If => {
            let cond = data
                .args
                .first()
                .copied()
                .ok_or_else(|| w.fail("branch without a condition"))?;
            let text = format!("br i1 {}, {}, {}", w.op(cond)?, label(0), label(1));
            w.line(&text);
        }
        TerminatorOp::SwitchBr | TerminatorOp::Switch => {
            let table = match &data.payload {
                Payload::SwitchBranch(t) | Payload::Switch { table: t, .. } => t,
                _ => return Err(w.fail("switch without a table")),
            };
            let sel = data
                .args
                .first()
                .copied()
                .ok_or_else(|| w.fail("switch without a selector"))?;
            let sel_ty = w.type_of(sel);
            let scalar = match w.type_data(sel_ty)? {
                TypeData::Scalar(s) => *s,
                _ => return Err(w.fail("switch on a non-scalar")),
            };
            let ty = types::scalar(scalar);
            let mut text = format!("switch {ty} {}, {} [", w.op(sel)?, label(edges.len() - 1));
            for (k, (value, _)) in table.cases.iter().enumerate() {
                let _ = write!(
                    text,
                    " {ty} {}, {}",
                    types::scalar_literal(scalar, *value),
                    label(k)
                );
            }
            text.push_str(" ]");
            w.line(&text);
        }
        TerminatorOp::Return => w.line("ret void"),
        TerminatorOp::Unreachable => w.line("unreachable"),
        TerminatorOp::Discard => return Err(w.fail("discard")),
    }
    for (k, e) in edges.iter().enumerate() {
        if needs_split(&edges, k) {
            let _ = writeln!(w.out, "bb{}.e{k}:", block.index());
            w.line(&format!("br label %bb{}", e.block.index()));
        }
    }
    Ok(())
}
