//! Composite values (construct, splat, extract, insert, shuffle, dynamic lane access)
//! and conversions.
//!
//! Vectors are LLVM vectors (lanes by `extractelement` / `insertelement`); matrices,
//! arrays and structs are aggregates (`extractvalue` / `insertvalue`); a literal index
//! path that ends inside a vector projects the aggregate part first. Dynamic indices are
//! written for vectors only (the preflight refuses the others).

use super::arith::Shape;
use super::function::FnWriter;
use crate::lowering::CompositeOp;
use crate::types::scalar;
use crate::Error;
use oxir_ir::types::{ScalarKind, TypeData};
use oxir_ir::{Inst, InstData, Payload, Type, Value};

fn indices(data: &InstData) -> &[u32] {
    match &data.payload {
        Payload::Indices(i) => i,
        _ => &[],
    }
}

/// Splits a literal index path over `ty` into the aggregate part and an optional final
/// vector lane, with the register type reached by the aggregate part.
fn split_path(
    w: &FnWriter<'_, '_>,
    ty: Type,
    path: &[u32],
) -> Result<(Vec<u32>, Option<u32>, String), Error> {
    let mut current = ty;
    let mut aggregate = Vec::new();
    for (k, &i) in path.iter().enumerate() {
        match w.type_data(current)? {
            TypeData::Vector { .. } if k + 1 == path.len() => {
                return Ok((aggregate, Some(i), w.reg(current)?));
            }
            TypeData::Matrix { elem, rows, .. } => {
                aggregate.push(i);
                let column = format!("<{rows} x {}>", scalar(*elem));
                return match &path[k + 1..] {
                    [] => Ok((aggregate, None, column)),
                    [lane] => Ok((aggregate, Some(*lane), column)),
                    _ => Err(w.fail("index path continues past a matrix element")),
                };
            }
            TypeData::Array { elem, .. } => {
                aggregate.push(i);
                current = *elem;
            }
            TypeData::Struct(st) => {
                aggregate.push(i);
                current = st
                    .members
                    .get(i as usize)
                    .map(|m| m.ty)
                    .ok_or_else(|| w.fail("member index out of range"))?;
            }
            _ => return Err(w.fail("index into a non-composite")),
        }
    }
    Ok((aggregate, None, w.reg(current)?))
}

fn path_text(path: &[u32]) -> String {
    path.iter().map(|i| format!(", {i}")).collect()
}

pub(crate) fn write_composite(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    op: CompositeOp,
) -> Result<(), Error> {
    let result_ty = w
        .func
        .dfg
        .inst_result(inst)
        .map(|v| w.type_of(v))
        .ok_or_else(|| w.fail("composite without a result"))?;
    let rty = w.reg(result_ty)?;
    let first = *data
        .args
        .first()
        .ok_or_else(|| w.fail("composite without operands"))?;
    let r = match op {
        CompositeOp::Construct => construct(w, result_ty, &data.args)?,
        CompositeOp::Splat => {
            let sh = w.shape(result_ty)?;
            let one = w.assign(&format!(
                "insertelement {rty} poison, {}, i32 0",
                w.typed(first)?
            ));
            let n = sh.lanes.unwrap_or(1);
            w.assign(&format!(
                "shufflevector {rty} {one}, {rty} poison, <{n} x i32> zeroinitializer"
            ))
        }
        CompositeOp::Extract => {
            let src_ty = w.type_of(first);
            let (agg, lane, _) = split_path(w, src_ty, indices(data))?;
            let mut v = w.op(first)?;
            let mut vty = w.reg(src_ty)?;
            if !agg.is_empty() {
                let (_, _, reached) = split_path(w, src_ty, &agg)?;
                v = w.assign(&format!("extractvalue {vty} {v}{}", path_text(&agg)));
                vty = reached;
            }
            if let Some(l) = lane {
                v = w.assign(&format!("extractelement {vty} {v}, i32 {l}"));
            }
            v
        }
        CompositeOp::Insert => {
            let (agg, lane, reached) = split_path(w, result_ty, indices(data))?;
            let base = w.op(first)?;
            let value = w.typed(data.args[1])?;
            match lane {
                None => w.assign(&format!(
                    "insertvalue {rty} {base}, {value}{}",
                    path_text(&agg)
                )),
                Some(l) => {
                    let vty = reached;
                    if agg.is_empty() {
                        w.assign(&format!("insertelement {rty} {base}, {value}, i32 {l}"))
                    } else {
                        let col =
                            w.assign(&format!("extractvalue {rty} {base}{}", path_text(&agg)));
                        let col = w.assign(&format!("insertelement {vty} {col}, {value}, i32 {l}"));
                        w.assign(&format!(
                            "insertvalue {rty} {base}, {vty} {col}{}",
                            path_text(&agg)
                        ))
                    }
                }
            }
        }
        CompositeOp::Shuffle => {
            let a = w.typed(first)?;
            let b = w.typed(data.args[1])?;
            let lanes: Vec<String> = indices(data).iter().map(|i| format!("i32 {i}")).collect();
            w.assign(&format!(
                "shufflevector {a}, {b}, <{} x i32> <{}>",
                lanes.len(),
                lanes.join(", ")
            ))
        }
        CompositeOp::ExtractDynamic | CompositeOp::InsertDynamic if !is_vector(w, first)? => {
            spilled_dynamic(w, inst, data, op == CompositeOp::InsertDynamic)?
        }
        CompositeOp::ExtractDynamic => {
            let index = w.typed(data.args[1])?;
            w.assign(&format!("extractelement {}, {index}", w.typed(first)?))
        }
        CompositeOp::InsertDynamic => {
            let value = w.typed(data.args[1])?;
            let index = w.typed(data.args[2])?;
            w.assign(&format!(
                "insertelement {}, {value}, {index}",
                w.typed(first)?
            ))
        }
    };
    w.finish(inst, &rty, &r)
}

fn is_vector(w: &FnWriter<'_, '_>, v: Value) -> Result<bool, Error> {
    Ok(matches!(
        w.type_data(w.type_of(v))?,
        TypeData::Vector { .. }
    ))
}

/// The scratch slot the prologue allocates for a dynamic index into an array or matrix.
pub(crate) fn scratch_slot(inst: Inst) -> String {
    format!("%scratch.{inst}")
}

/// `extract_dynamic` / `insert_dynamic` on an array or matrix: the value goes through its
/// entry-block scratch slot, the index clamped to the last element (an index out of range
/// reads or writes the last element, never outside the slot).
fn spilled_dynamic(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    insert: bool,
) -> Result<String, Error> {
    use super::memory::{load_value, store_value};
    use oxir_ir::AddressSpace;
    let first = data.args[0];
    let ty = w.type_of(first);
    let (elem, len, stride) = element_layout(w, ty)?;
    let slot = scratch_slot(inst);
    let value = w.op(first)?;
    store_value(w, &slot, ty, AddressSpace::Function, &value)?;
    let index_value = data.args[if insert { 2 } else { 1 }];
    let ish = w.shape_of(index_value)?;
    let index = w.op(index_value)?;
    let wide = match ish.elem.bits {
        64 => index,
        _ => w.assign(&format!("zext {} {index} to i64", ish.ty)),
    };
    let clamped = w.call(
        "i64",
        "llvm.umin.i64",
        &[
            ("i64", &wide),
            ("i64", &(u64::from(len.max(1)) - 1).to_string()),
        ],
    );
    let offset = w.assign(&format!("mul i64 {clamped}, {stride}"));
    let at = w.assign(&format!("getelementptr i8, ptr {slot}, i64 {offset}"));
    if insert {
        let element = w.op(data.args[1])?;
        store_value(w, &at, elem, AddressSpace::Function, &element)?;
        load_value(w, &slot, ty, AddressSpace::Function)
    } else {
        load_value(w, &at, elem, AddressSpace::Function)
    }
}

/// The element type, count and stride (std430) of an array or matrix type.
fn element_layout(w: &FnWriter<'_, '_>, ty: Type) -> Result<(Type, u32, u32), Error> {
    let types = &w.state.module.types;
    let layout = oxir_ir::data_layout::layout_of(
        types,
        ty,
        w.state.module.layout_rules(oxir_ir::AddressSpace::Function),
    )
    .map_err(|e| w.fail(e.to_string()))?;
    let stride = layout
        .stride
        .ok_or_else(|| w.fail("dynamic index into a type without a stride"))?;
    match w.type_data(ty)? {
        TypeData::Array { elem, len, .. } => Ok((*elem, *len, stride)),
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            let column = types
                .iter()
                .find(|(_, d)| {
                    **d == TypeData::Vector {
                        elem: *elem,
                        len: *rows,
                    }
                })
                .map(|(t, _)| t)
                .ok_or_else(|| w.fail("matrix column type not interned"))?;
            Ok((column, u32::from(*columns), stride))
        }
        _ => Err(w.fail("dynamic index into a non-composite")),
    }
}

/// `construct`: a vector from scalars and vectors (their lanes in order), a matrix from
/// columns or from scalars, an array or struct from one value per element.
fn construct(w: &mut FnWriter<'_, '_>, ty: Type, args: &[Value]) -> Result<String, Error> {
    let rty = w.reg(ty)?;
    match w.type_data(ty)?.clone() {
        TypeData::Vector { elem, .. } => {
            let lanes = flatten_lanes(w, args)?;
            let mut v = "poison".to_string();
            for (i, lane) in lanes.iter().enumerate() {
                v = w.assign(&format!(
                    "insertelement {rty} {v}, {} {lane}, i32 {i}",
                    scalar(elem)
                ));
            }
            Ok(v)
        }
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            let col_ty = format!("<{rows} x {}>", scalar(elem));
            let is_columns = args.len() == usize::from(columns);
            let mut m = "poison".to_string();
            if is_columns {
                for (i, &c) in args.iter().enumerate() {
                    m = w.assign(&format!("insertvalue {rty} {m}, {}, {i}", w.typed(c)?));
                }
                return Ok(m);
            }
            let lanes = flatten_lanes(w, args)?;
            for c in 0..usize::from(columns) {
                let mut col = "poison".to_string();
                for r in 0..usize::from(rows) {
                    let lane = lanes
                        .get(c * usize::from(rows) + r)
                        .ok_or_else(|| w.fail("too few matrix elements"))?;
                    col = w.assign(&format!(
                        "insertelement {col_ty} {col}, {} {lane}, i32 {r}",
                        scalar(elem)
                    ));
                }
                m = w.assign(&format!("insertvalue {rty} {m}, {col_ty} {col}, {c}"));
            }
            Ok(m)
        }
        TypeData::Array { .. } | TypeData::Struct(_) => {
            let mut v = "poison".to_string();
            for (i, &a) in args.iter().enumerate() {
                v = w.assign(&format!("insertvalue {rty} {v}, {}, {i}", w.typed(a)?));
            }
            Ok(v)
        }
        _ => Err(w.fail("construct of a non-composite")),
    }
}

/// The scalar lanes of `args` (scalars as they are, vectors lane by lane).
fn flatten_lanes(w: &mut FnWriter<'_, '_>, args: &[Value]) -> Result<Vec<String>, Error> {
    let mut lanes = Vec::new();
    for &a in args {
        let sh = w.shape_of(a)?;
        let op = w.op(a)?;
        match sh.lanes {
            None => lanes.push(op),
            Some(n) => {
                for i in 0..n {
                    lanes.push(w.assign(&format!("extractelement {} {op}, i32 {i}", sh.ty)));
                }
            }
        }
    }
    Ok(lanes)
}

/// `convert` (value conversion) or `bitcast` of `v` to the result type of `inst`.
pub(crate) fn write_conversion(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    v: Value,
    convert: bool,
) -> Result<(), Error> {
    let to_ty = w
        .func
        .dfg
        .inst_result(inst)
        .map(|r| w.type_of(r))
        .ok_or_else(|| w.fail("conversion without a result"))?;
    let from = w.shape_of(v)?;
    let to = w.shape(to_ty)?;
    let x = w.op(v)?;
    let (f, t) = (&from.ty, &to.ty);
    if !convert {
        let r = w.assign(&format!("bitcast {f} {x} to {t}"));
        return w.finish(inst, t, &r);
    }
    use ScalarKind::{Bool, Float, Sint, Uint};
    let (fk, tk) = (from.elem.kind, to.elem.kind);
    let (fb, tb) = (from.elem.bits, to.elem.bits);
    let r = match (fk, tk) {
        (Float, Bool) => w.assign(&format!("fcmp une {f} {x}, {}", from.fconst(0.0))),
        (Sint | Uint | Bool, Bool) => w.assign(&format!(
            "icmp ne {f} {x}, {}",
            from.splat(if fk == Bool { "false" } else { "0" })
        )),
        (Float, Float) if fb == tb => x,
        (Float, Float) if fb < tb => w.assign(&format!("fpext {f} {x} to {t}")),
        (Float, Float) => w.assign(&format!("fptrunc {f} {x} to {t}")),
        (Float, Sint | Uint) => {
            let name = format!(
                "llvm.fpto{}i.sat.{}.{}",
                if tk == Sint { "s" } else { "u" },
                to.suffix(),
                from.suffix()
            );
            w.call(t, &name, &[(f, &x)])
        }
        (Sint, Float) => w.assign(&format!("sitofp {f} {x} to {t}")),
        (Uint | Bool, Float) => w.assign(&format!("uitofp {f} {x} to {t}")),
        (Sint | Uint | Bool, Sint | Uint) => {
            let from_bits = if fk == Bool { 1 } else { fb };
            match from_bits.cmp(&tb) {
                std::cmp::Ordering::Equal => x,
                std::cmp::Ordering::Greater => w.assign(&format!("trunc {f} {x} to {t}")),
                std::cmp::Ordering::Less if fk == Sint => w.assign(&format!("sext {f} {x} to {t}")),
                std::cmp::Ordering::Less => w.assign(&format!("zext {f} {x} to {t}")),
            }
        }
    };
    let _: &Shape = &to;
    w.finish(inst, t, &r)
}
