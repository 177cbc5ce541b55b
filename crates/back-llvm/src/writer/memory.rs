//! Memory: pointer projection, loads and stores, `array_length`, atomics, barriers, and
//! special registers.
//!
//! **Addressing.** Every `access` is a byte offset from its base pointer computed by the
//! layout engine (`getelementptr i8`), under the rules of the pointer's address space
//! (std140 for uniform blocks, std430 elsewhere: the interpreter's and the SPIR-V
//! back-end's rules, so a buffer holds the same bytes on every target). LLVM's own layout
//! is never consulted.
//!
//! **Loads and stores** of scalars and vectors are one instruction with the alignment the
//! layout engine gives the type; bools are integers of their layout size in memory.
//! Matrices, arrays and structs are loaded and stored leaf by leaf at their offsets, so
//! padding bytes are never written.
//!
//! **Synchronisation.** Barriers are the target's control barrier, called with the
//! `convergent` attribute group; `storage_barrier` adds release and acquire fences at
//! workgroup scope; atomics are `monotonic` (WGSL's relaxed) at device scope on buffers
//! and workgroup scope on workgroup memory.

use super::function::FnWriter;
use super::robust::Use;
use crate::lowering::{AtomicOp, MemoryOp, Register};
use crate::target::Invocation;
use crate::types::{self, scalar};
use crate::Error;
use oxir_ir::data_layout::{layout_of, runtime_array_tail, TypeLayout};
use oxir_ir::types::{Scalar, ScalarKind, TypeData};
use oxir_ir::{AddressSpace, Global, Inst, InstData, Type, Value, ValueDef};

impl FnWriter<'_, '_> {
    pub(crate) fn layout(&self, ty: Type, space: AddressSpace) -> Result<TypeLayout, Error> {
        layout_of(
            &self.state.module.types,
            ty,
            self.state.module.layout_rules(space),
        )
        .map_err(|e| self.fail(e.to_string()))
    }

    /// The space and pointee of pointer value `p`.
    fn pointee(&self, p: Value) -> Result<(AddressSpace, Type), Error> {
        match self.type_data(self.type_of(p))? {
            TypeData::Pointer { space, pointee } => Ok((*space, *pointee)),
            _ => Err(self.fail("expected a pointer")),
        }
    }

    pub(crate) fn ptr_ty(&self, space: AddressSpace) -> Result<String, Error> {
        let n = self
            .state
            .target
            .address_space(space)
            .ok_or_else(|| self.fail("pointer into handle space"))?;
        Ok(types::pointer(n))
    }

    /// `ptr + offset` bytes (a constant).
    fn offset(&mut self, space: AddressSpace, ptr: &str, offset: u32) -> Result<String, Error> {
        if offset == 0 {
            return Ok(ptr.to_string());
        }
        let pty = self.ptr_ty(space)?;
        Ok(self.assign(&format!("getelementptr i8, {pty} {ptr}, i64 {offset}")))
    }
}

/// The memory form of a bool scalar or vector: integers of the layout's lane size.
fn bool_memory_type(w: &FnWriter<'_, '_>, ty: Type, layout: &TypeLayout) -> Result<String, Error> {
    Ok(match w.type_data(ty)? {
        TypeData::Vector { len, .. } => format!("<{len} x i{}>", layout.size / u32::from(*len) * 8),
        _ => format!("i{}", layout.size * 8),
    })
}

/// A matrix column's register type, alignment (the vector's, at most the matrix's) and
/// stride.
fn column(elem: Scalar, rows: u8, layout: &TypeLayout) -> (String, u32, u32) {
    let natural = u32::from(elem.bits / 8) * u32::from(rows).next_power_of_two();
    (
        format!("<{rows} x {}>", scalar(elem)),
        layout.align.min(natural),
        layout.stride.unwrap_or(0),
    )
}

/// Loads a `ty` from `ptr` (in `space`) in register form.
pub(crate) fn load_value(
    w: &mut FnWriter<'_, '_>,
    ptr: &str,
    ty: Type,
    space: AddressSpace,
) -> Result<String, Error> {
    let layout = w.layout(ty, space)?;
    let pty = w.ptr_ty(space)?;
    let rty = w.reg(ty)?;
    match w.type_data(ty)?.clone() {
        TypeData::Scalar(s) | TypeData::Vector { elem: s, .. } if s.kind == ScalarKind::Bool => {
            let mty = bool_memory_type(w, ty, &layout)?;
            let raw = w.assign(&format!("load {mty}, {pty} {ptr}, align {}", layout.align));
            Ok(w.assign(&format!("icmp ne {mty} {raw}, zeroinitializer")))
        }
        TypeData::Scalar(_) | TypeData::Vector { .. } | TypeData::Pointer { .. } => {
            Ok(w.assign(&format!("load {rty}, {pty} {ptr}, align {}", layout.align)))
        }
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            let (col_ty, col_align, stride) = column(elem, rows, &layout);
            let mut m = "poison".to_string();
            for c in 0..u32::from(columns) {
                let p = w.offset(space, ptr, c * stride)?;
                let col = w.assign(&format!("load {col_ty}, {pty} {p}, align {col_align}"));
                m = w.assign(&format!("insertvalue {rty} {m}, {col_ty} {col}, {c}"));
            }
            Ok(m)
        }
        TypeData::Array { elem, len, .. } => {
            let stride = layout.stride.unwrap_or(0);
            let ety = w.reg(elem)?;
            let mut a = "poison".to_string();
            for i in 0..len {
                let p = w.offset(space, ptr, i * stride)?;
                let e = load_value(w, &p, elem, space)?;
                a = w.assign(&format!("insertvalue {rty} {a}, {ety} {e}, {i}"));
            }
            Ok(a)
        }
        TypeData::Struct(st) => {
            let mut s = "poison".to_string();
            for (i, (m, &off)) in st.members.iter().zip(&layout.offsets).enumerate() {
                let p = w.offset(space, ptr, off)?;
                let e = load_value(w, &p, m.ty, space)?;
                let ety = w.reg(m.ty)?;
                s = w.assign(&format!("insertvalue {rty} {s}, {ety} {e}, {i}"));
            }
            Ok(s)
        }
        TypeData::Void
        | TypeData::RuntimeArray { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => {
            Err(w.fail(format!("load of {}", w.state.module.types.display(ty))))
        }
    }
}

/// Stores `value` (register form of `ty`) to `ptr` in `space`.
pub(crate) fn store_value(
    w: &mut FnWriter<'_, '_>,
    ptr: &str,
    ty: Type,
    space: AddressSpace,
    value: &str,
) -> Result<(), Error> {
    let layout = w.layout(ty, space)?;
    let pty = w.ptr_ty(space)?;
    let rty = w.reg(ty)?;
    match w.type_data(ty)?.clone() {
        TypeData::Scalar(s) | TypeData::Vector { elem: s, .. } if s.kind == ScalarKind::Bool => {
            let mty = bool_memory_type(w, ty, &layout)?;
            let raw = w.assign(&format!("zext {rty} {value} to {mty}"));
            w.line(&format!(
                "store {mty} {raw}, {pty} {ptr}, align {}",
                layout.align
            ));
        }
        TypeData::Scalar(_) | TypeData::Vector { .. } | TypeData::Pointer { .. } => {
            w.line(&format!(
                "store {rty} {value}, {pty} {ptr}, align {}",
                layout.align
            ));
        }
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            let (col_ty, col_align, stride) = column(elem, rows, &layout);
            for c in 0..u32::from(columns) {
                let p = w.offset(space, ptr, c * stride)?;
                let col = w.assign(&format!("extractvalue {rty} {value}, {c}"));
                w.line(&format!(
                    "store {col_ty} {col}, {pty} {p}, align {col_align}"
                ));
            }
        }
        TypeData::Array { elem, len, .. } => {
            let stride = layout.stride.unwrap_or(0);
            for i in 0..len {
                let p = w.offset(space, ptr, i * stride)?;
                let e = w.assign(&format!("extractvalue {rty} {value}, {i}"));
                store_value(w, &p, elem, space, &e)?;
            }
        }
        TypeData::Struct(st) => {
            for (i, (m, &off)) in st.members.iter().zip(&layout.offsets).enumerate() {
                let p = w.offset(space, ptr, off)?;
                let e = w.assign(&format!("extractvalue {rty} {value}, {i}"));
                store_value(w, &p, m.ty, space, &e)?;
            }
        }
        TypeData::Void
        | TypeData::RuntimeArray { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => {
            return Err(w.fail(format!("store of {}", w.state.module.types.display(ty))))
        }
    }
    Ok(())
}

/// Where a pointer is projected next: a type, or a matrix column's lanes.
enum Cursor {
    Ty(Type),
    /// A matrix column's elements (how many, if indexable).
    Column(Scalar, Option<u64>),
}

/// `access base, indices...` as one byte-offset `getelementptr`.
fn access(w: &mut FnWriter<'_, '_>, inst: Inst, data: &InstData) -> Result<(), Error> {
    let base = data.args[0];
    let (space, pointee) = w.pointee(base)?;
    let pty = w.ptr_ty(space)?;
    let mut cursor = Cursor::Ty(pointee);
    let mut constant: u64 = 0;
    let mut dynamic: Option<String> = None;
    let mut in_range = Vec::new();
    for &index in &data.args[1..] {
        let mut bound = None;
        let (stride, next) = match cursor {
            Cursor::Column(s, rows) => {
                bound = rows;
                (u32::from(s.bits / 8), None)
            }
            Cursor::Ty(ty) => {
                let layout = w.layout(ty, space)?;
                match w.type_data(ty)?.clone() {
                    TypeData::Struct(st) => {
                        let i = constant_index(w, index)?;
                        let off = layout
                            .offsets
                            .get(i as usize)
                            .copied()
                            .ok_or_else(|| w.fail("member index out of range"))?;
                        constant += u64::from(off);
                        let member = st
                            .members
                            .get(i as usize)
                            .map(|m| m.ty)
                            .ok_or_else(|| w.fail("member index out of range"))?;
                        cursor = Cursor::Ty(member);
                        continue;
                    }
                    TypeData::Array { elem, len, .. } => {
                        bound = Some(u64::from(len));
                        (layout.stride.unwrap_or(0), Some(Cursor::Ty(elem)))
                    }
                    TypeData::RuntimeArray { elem, .. } => {
                        (layout.stride.unwrap_or(0), Some(Cursor::Ty(elem)))
                    }
                    TypeData::Vector { len, .. } => {
                        bound = Some(u64::from(len));
                        (layout.size / u32::from(len), None)
                    }
                    TypeData::Matrix {
                        elem,
                        columns,
                        rows,
                    } => {
                        bound = Some(u64::from(columns));
                        let rows = Some(u64::from(rows));
                        (layout.stride.unwrap_or(0), Some(Cursor::Column(elem, rows)))
                    }
                    _ => return Err(w.fail("access into a non-composite")),
                }
            }
        };
        cursor = next.unwrap_or(Cursor::Column(Scalar::U32, None));
        match w.func.dfg.value_def(w.func.resolve(index)) {
            ValueDef::Const(_) => {
                let i = constant_index(w, index)?;
                if w.state.target.robust_access && bound.is_some_and(|b| i >= b) {
                    in_range.push("false".to_string());
                }
                constant = constant.wrapping_add(i.wrapping_mul(u64::from(stride)));
            }
            _ => {
                let ish = w.shape_of(index)?;
                let wide = match ish.elem.bits {
                    64 => w.op(index)?,
                    _ => {
                        let ext = if ish.signed() { "sext" } else { "zext" };
                        let op = w.op(index)?;
                        w.assign(&format!("{ext} {} {op} to i64", ish.ty))
                    }
                };
                if let Some(b) = bound.filter(|_| w.state.target.robust_access) {
                    in_range.push(w.assign(&format!("icmp ult i64 {wide}, {b}")));
                }
                let scaled = w.assign(&format!("mul i64 {wide}, {stride}"));
                dynamic = Some(match dynamic {
                    None => scaled,
                    Some(d) => w.assign(&format!("add i64 {d}, {scaled}")),
                });
            }
        }
    }
    let total = match dynamic {
        None => constant.to_string(),
        Some(d) if constant == 0 => d,
        Some(d) => w.assign(&format!("add i64 {d}, {constant}")),
    };
    let b = w.op(base)?;
    let r = w.assign(&format!("getelementptr i8, {pty} {b}, i64 {total}"));
    let r = super::robust::null_unless(w, &pty, &r, &in_range);
    w.finish(inst, &pty, &r)
}

/// The value of a constant index (sign-extended for signed types).
fn constant_index(w: &FnWriter<'_, '_>, v: Value) -> Result<u64, Error> {
    match w.func.dfg.value_def(w.func.resolve(v)) {
        ValueDef::Const(c) => w
            .state
            .module
            .const_scalar_value(c)
            .map(|(_, bits)| bits)
            .ok_or_else(|| w.fail("non-scalar index constant")),
        _ => Err(w.fail("struct member index is not a constant")),
    }
}

/// The global a pointer is projected from.
pub(crate) fn root_global(w: &FnWriter<'_, '_>, mut p: Value) -> Result<Global, Error> {
    for _ in 0..1024 {
        match w.func.dfg.value_def(w.func.resolve(p)) {
            ValueDef::Global(g) => return Ok(g),
            ValueDef::Result(i) if w.func.dfg.inst(i).opcode == oxir_ir::Opcode::Access => {
                p = w.func.dfg.inst(i).args[0];
            }
            _ => break,
        }
    }
    Err(w.fail("array_length of a pointer not projected from a storage buffer"))
}

pub(crate) fn write_memory(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    op: MemoryOp,
) -> Result<(), Error> {
    match op {
        MemoryOp::Alloca => Ok(()),
        MemoryOp::Load => {
            let p = data.args[0];
            let (space, ty) = w.pointee(p)?;
            let ptr = super::robust::checked(w, p, ty, space, Use::Read)?;
            let v = load_value(w, &ptr, ty, space)?;
            let rty = w.reg(ty)?;
            w.finish(inst, &rty, &v)
        }
        MemoryOp::Store => {
            let p = data.args[0];
            let (space, ty) = w.pointee(p)?;
            let ptr = super::robust::checked(w, p, ty, space, Use::Write)?;
            let v = w.op(data.args[1])?;
            store_value(w, &ptr, ty, space, &v)
        }
        MemoryOp::Access => access(w, inst, data),
        MemoryOp::ArrayLength => {
            let g = root_global(w, data.args[0])?;
            let bytes = w
                .bytes
                .get(&g)
                .cloned()
                .ok_or_else(|| w.fail("array_length of a non-storage global"))?;
            let gty = w.state.module.globals[g].ty;
            let (offset, stride) = runtime_array_tail(
                &w.state.module.types,
                gty,
                w.state.module.layout_rules(w.state.module.globals[g].space),
            )
            .map_err(|e| w.fail(e.to_string()))?
            .ok_or_else(|| w.fail("array_length of a sized buffer"))?;
            let tail = w.call(
                "i64",
                "llvm.usub.sat.i64",
                &[("i64", &bytes), ("i64", &offset.to_string())],
            );
            let n = w.assign(&format!("udiv i64 {tail}, {}", stride.max(1)));
            let r = w.assign(&format!("trunc i64 {n} to i32"));
            w.finish(inst, "i32", &r)
        }
        MemoryOp::Atomic(a) => atomic(w, inst, data, a),
        MemoryOp::WorkgroupBarrier => {
            barrier(w);
            Ok(())
        }
        MemoryOp::StorageBarrier => {
            let scope = crate::target::scope_clause(w.state.target.workgroup_scope);
            w.line(&format!("fence{scope} release"));
            barrier(w);
            w.line(&format!("fence{scope} acquire"));
            Ok(())
        }
        MemoryOp::WorkgroupUniformLoad => {
            let p = data.args[0];
            let (space, ty) = w.pointee(p)?;
            let ptr = super::robust::checked(w, p, ty, space, Use::Read)?;
            barrier(w);
            let v = load_value(w, &ptr, ty, space)?;
            barrier(w);
            let rty = w.reg(ty)?;
            w.finish(inst, &rty, &v)
        }
    }
}

/// The workgroup control barrier, `convergent` (attribute group `#0`): the target's
/// intrinsic, or the host context's callback.
fn barrier(w: &mut FnWriter<'_, '_>) {
    if w.state.target.invocation == Invocation::HostContext {
        let f = super::function::context_load(w, "ptr", crate::host_abi::BARRIER, 8);
        w.line(&format!("call void {f}(ptr %ctx) #0"));
        return;
    }
    let (name, args) = w.state.target.barrier;
    let params: Vec<&str> = args
        .split(", ")
        .filter(|a| !a.is_empty())
        .map(|a| a.split(' ').next().unwrap_or(""))
        .collect();
    w.declare("void", name, &params);
    w.line(&format!("call void @{name}({args}) #0"));
}

fn atomic(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    op: AtomicOp,
) -> Result<(), Error> {
    let p = data.args[0];
    let (space, ty) = w.pointee(p)?;
    let pty = w.ptr_ty(space)?;
    let ptr = super::robust::checked(w, p, ty, space, Use::Write)?;
    let sh = w.shape(ty)?;
    let align = w.layout(ty, space)?.align;
    let scope = w.state.target.syncscope(space);
    let t = sh.ty.clone();
    match op {
        AtomicOp::Load => {
            let r = w.assign(&format!(
                "load atomic {t}, {pty} {ptr}{scope} monotonic, align {align}"
            ));
            w.finish(inst, &t, &r)
        }
        AtomicOp::Store => {
            let v = w.op(data.args[1])?;
            w.line(&format!(
                "store atomic {t} {v}, {pty} {ptr}{scope} monotonic, align {align}"
            ));
            Ok(())
        }
        AtomicOp::CompareExchange => {
            let cmp = w.op(data.args[1])?;
            let new = w.op(data.args[2])?;
            let pair = w.assign(&format!("cmpxchg {pty} {ptr}, {t} {cmp}, {t} {new}{scope} monotonic monotonic, align {align}"));
            let r = w.assign(&format!("extractvalue {{ {t}, i1 }} {pair}, 0"));
            w.finish(inst, &t, &r)
        }
        AtomicOp::Rmw { signed, unsigned } => {
            let name = if sh.signed() { signed } else { unsigned };
            let v = w.op(data.args[1])?;
            let r = w.assign(&format!(
                "atomicrmw {name} {pty} {ptr}, {t} {v}{scope} monotonic, align {align}"
            ));
            if w.func.dfg.inst_result(inst).is_some() {
                w.finish(inst, &t, &r)
            } else {
                Ok(())
            }
        }
    }
}

/// Reads `{prefix}{name}`, or the host context's field of that register.
fn sreg(w: &mut FnWriter<'_, '_>, name: &str) -> Result<String, Error> {
    match w.state.target.invocation {
        Invocation::Intrinsics => {
            let full = format!("{}{name}", w.state.target.sreg_prefix);
            Ok(w.call("i32", &full, &[]))
        }
        Invocation::HostContext => {
            let offset = crate::host_abi::register_offset(name)
                .ok_or_else(|| w.fail(format!("no host register {name}")))?;
            Ok(super::function::context_load(w, "i32", offset, 4))
        }
    }
}

fn sreg3(w: &mut FnWriter<'_, '_>, name: &str) -> Result<[String; 3], Error> {
    let mut out: [String; 3] = Default::default();
    for (lane, c) in out.iter_mut().zip(["x", "y", "z"]) {
        *lane = sreg(w, &format!("{name}.{c}"))?;
    }
    Ok(out)
}

/// The linear index of the thread within its workgroup, x fastest.
fn local_index(w: &mut FnWriter<'_, '_>, size: [u32; 3]) -> Result<String, Error> {
    let t = sreg3(w, "tid")?;
    let zy = w.assign(&format!("mul i32 {}, {}", t[2], size[1]));
    let row = w.assign(&format!("add i32 {zy}, {}", t[1]));
    let rows = w.assign(&format!("mul i32 {row}, {}", size[0]));
    Ok(w.assign(&format!("add i32 {rows}, {}", t[0])))
}

fn vec3(w: &mut FnWriter<'_, '_>, lanes: &[String; 3]) -> String {
    let mut v = "poison".to_string();
    for (i, l) in lanes.iter().enumerate() {
        v = w.assign(&format!("insertelement <3 x i32> {v}, i32 {l}, i32 {i}"));
    }
    v
}

pub(crate) fn write_register(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    r: Register,
) -> Result<(), Error> {
    let size = w.workgroup_size;
    let (ty, v) = match r {
        Register::ThreadId => {
            let l = sreg3(w, "tid")?;
            ("<3 x i32>", vec3(w, &l))
        }
        Register::WorkgroupId => {
            let l = sreg3(w, "ctaid")?;
            ("<3 x i32>", vec3(w, &l))
        }
        Register::NumWorkgroups => {
            let l = sreg3(w, "nctaid")?;
            ("<3 x i32>", vec3(w, &l))
        }
        Register::WorkgroupSize => (
            "<3 x i32>",
            format!("<i32 {}, i32 {}, i32 {}>", size[0], size[1], size[2]),
        ),
        Register::DispatchId => {
            let tid = sreg3(w, "tid")?;
            let cta = sreg3(w, "ctaid")?;
            let mut lanes: [String; 3] = Default::default();
            for k in 0..3 {
                let base = w.assign(&format!("mul i32 {}, {}", cta[k], size[k]));
                lanes[k] = w.assign(&format!("add i32 {base}, {}", tid[k]));
            }
            ("<3 x i32>", vec3(w, &lanes))
        }
        Register::DispatchSize => {
            let n = sreg3(w, "nctaid")?;
            let mut lanes: [String; 3] = Default::default();
            for k in 0..3 {
                lanes[k] = w.assign(&format!("mul i32 {}, {}", n[k], size[k]));
            }
            ("<3 x i32>", vec3(w, &lanes))
        }
        Register::LocalInvocationIndex => ("i32", local_index(w, size)?),
        Register::SubgroupInvocationId => ("i32", sreg(w, "laneid")?),
        Register::SubgroupSize => ("i32", sreg(w, "warpsize")?),
        // Warps are runs of `warpsize` consecutive linear thread indices.
        Register::SubgroupId => {
            let index = local_index(w, size)?;
            let warp = sreg(w, "warpsize")?;
            ("i32", w.assign(&format!("udiv i32 {index}, {warp}")))
        }
        Register::NumSubgroups => {
            let invocations = size.iter().map(|&d| u64::from(d)).product::<u64>();
            // The verifier caps a workgroup at 1024 invocations.
            let invocations = u32::try_from(invocations)
                .map_err(|_| w.fail("a workgroup of more than 2^32 invocations"))?;
            let warp = sreg(w, "warpsize")?;
            let last = w.assign(&format!("sub i32 {warp}, 1"));
            let padded = w.assign(&format!("add i32 {last}, {invocations}"));
            ("i32", w.assign(&format!("udiv i32 {padded}, {warp}")))
        }
    };
    w.finish(inst, ty, &v)
}
