//! Subgroup collectives on NVIDIA warps ([`Subgroups::Warp32`](crate::Subgroups)): a
//! subgroup is a warp of 32 lanes, and the *active lanes* of an op are the lanes of
//! `llvm.nvvm.activemask` read at that op (the interpreter's active lanes: the
//! invocations of the subgroup that reach the same op instance). Every collective runs
//! over that mask, so lanes that took another branch or have finished take no part.
//!
//! - `ballot`: `llvm.nvvm.vote.ballot.sync` in `.x`, zero in `.y`, `.z`, `.w` (a warp has
//!   32 lanes); `all` / `any`: `llvm.nvvm.vote.all.sync` / `vote.any.sync`.
//! - `elect`: the lane whose id is the lowest set bit of the mask (`llvm.cttz`).
//! - Moving a value between lanes is always `llvm.nvvm.shfl.sync.idx.i32` with clamp 31
//!   (no segments) from a lane computed here: floats are bitcast, `f16` and `bool` widened
//!   to 32 bits, vectors moved component by component.
//! - `broadcast_first`: from the lowest active lane. `broadcast`, `shuffle`,
//!   `shuffle_xor`, `shuffle_up`, `shuffle_down`: the source lane is `k`, `lane ^ k`,
//!   `lane - k`, `lane + k` in unsigned 32-bit arithmetic as in the interpreter; a source
//!   that is out of range (≥ 32, or below 0 / past 31 for up / down) or not in the active
//!   mask gives zero, as in the interpreter. (PTX's `shfl.up` / `down` / `bfly` would give
//!   the lane's own value instead, and reading an inactive lane is undefined in PTX, so
//!   such lanes read themselves and the result is replaced by zero.)
//! - `all_equal`: each lane compares its value with the lowest active lane's (`fcmp oeq`
//!   for floats: NaN is unequal to everything, `-0 == +0`, as the `eq` opcode), then
//!   `vote.all.sync`. Not `match.all.sync`, which compares bits (and needs sm_70).
//! - Reductions and scans combine the active lanes **in lane order**, one lane after
//!   another, exactly as the interpreter: 32 steps, step `i` reads lane `i` (every lane
//!   reads it, with one shuffle) and, when lane `i` is active, the running value becomes
//!   `v_i` (for the lowest active lane) or `acc op v_i`. An inclusive scan keeps the running
//!   value after its own step, an exclusive one the value before it (the identity of the
//!   op when no active lane is below). Float sums and products therefore round exactly as
//!   the interpreter's `((v0 + v1) + v2) + ...`; a log-step tree would round differently.
//!   Integer and min/max reductions are order-independent, but take the same path.
//!
//! Not checked by execution here: no GPU runs the PTX in the tests (`ptxas` assembles it).
//! The active mask is `activemask`'s: on sm_70 and later (independent thread scheduling)
//! lanes of one warp on the same path are normally, not provably, reconverged at the op;
//! the mask is whatever lanes execute it together, which is what CUDA's
//! `__activemask()` idiom gives too.

use super::arith::{min_max, Shape};
use super::function::FnWriter;
use crate::types::{scalar, scalar_literal};
use crate::Error;
use oxir_ir::scalar_semantics::subgroup_identity;
use oxir_ir::types::{Scalar, ScalarKind};
use oxir_ir::{Inst, InstData, SubgroupArith, SubgroupOp, SubgroupScan};

/// Lanes of a warp.
const WARP: u32 = 32;

const SHUFFLE: &str = "llvm.nvvm.shfl.sync.idx.i32";

pub(crate) fn write_subgroup(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    op: SubgroupOp,
) -> Result<(), Error> {
    let mask = w.call("i32", "llvm.nvvm.activemask", &[]);
    match op {
        SubgroupOp::Ballot => {
            let p = w.op(w.first_operand(data)?)?;
            let bits = w.call(
                "i32",
                "llvm.nvvm.vote.ballot.sync",
                &[("i32", &mask), ("i1", &p)],
            );
            let r = w.assign(&format!(
                "insertelement <4 x i32> zeroinitializer, i32 {bits}, i32 0"
            ));
            w.finish(inst, "<4 x i32>", &r)
        }
        SubgroupOp::Elect => {
            let lane = lane_id(w);
            let first = first_lane(w, &mask);
            let r = w.assign(&format!("icmp eq i32 {lane}, {first}"));
            w.finish(inst, "i1", &r)
        }
        SubgroupOp::All | SubgroupOp::Any => {
            let p = w.op(w.first_operand(data)?)?;
            let name = if op == SubgroupOp::All {
                "llvm.nvvm.vote.all.sync"
            } else {
                "llvm.nvvm.vote.any.sync"
            };
            let r = w.call("i1", name, &[("i32", &mask), ("i1", &p)]);
            w.finish(inst, "i1", &r)
        }
        SubgroupOp::AllEqual => {
            let v = w.first_operand(data)?;
            let sh = w.shape_of(v)?;
            let x = w.op(v)?;
            let first = first_lane(w, &mask);
            let x0 = shuffle(w, &sh, &mask, &x, &first)?;
            let cmp = if sh.is_float() { "fcmp oeq" } else { "icmp eq" };
            let mut eq = w.assign(&format!("{cmp} {} {x}, {x0}", sh.ty));
            if let Some(n) = sh.lanes {
                let bools = sh.bool_ty();
                eq = w.call(
                    "i1",
                    &format!("llvm.vector.reduce.and.v{n}i1"),
                    &[(&bools, &eq)],
                );
            }
            let r = w.call(
                "i1",
                "llvm.nvvm.vote.all.sync",
                &[("i32", &mask), ("i1", &eq)],
            );
            w.finish(inst, "i1", &r)
        }
        SubgroupOp::BroadcastFirst => {
            let v = w.first_operand(data)?;
            let sh = w.shape_of(v)?;
            let x = w.op(v)?;
            let first = first_lane(w, &mask);
            let r = shuffle(w, &sh, &mask, &x, &first)?;
            w.finish(inst, &sh.ty, &r)
        }
        SubgroupOp::Broadcast
        | SubgroupOp::Shuffle
        | SubgroupOp::ShuffleXor
        | SubgroupOp::ShuffleUp
        | SubgroupOp::ShuffleDown => gather(w, inst, data, op, &mask),
        SubgroupOp::Arithmetic { op, scan } => arithmetic(w, inst, data, op, scan, &mask),
    }
}

/// `%laneid`, the lane's subgroup invocation id.
fn lane_id(w: &mut FnWriter<'_, '_>) -> String {
    let name = format!("{}laneid", w.state.target.sreg_prefix);
    w.call("i32", &name, &[])
}

/// The lowest lane of `mask` (never empty: the lane running the op is in it).
fn first_lane(w: &mut FnWriter<'_, '_>, mask: &str) -> String {
    w.call("i32", "llvm.cttz.i32", &[("i32", mask), ("i1", "true")])
}

/// `x` of shape `sh` as lane `src` holds it (`src` must be in `mask`).
fn shuffle(
    w: &mut FnWriter<'_, '_>,
    sh: &Shape,
    mask: &str,
    x: &str,
    src: &str,
) -> Result<String, Error> {
    let Some(n) = sh.lanes else {
        return shuffle_scalar(w, sh.elem, mask, x, src);
    };
    let elem = scalar(sh.elem);
    let mut v = "poison".to_string();
    for i in 0..n {
        let e = w.assign(&format!("extractelement {} {x}, i32 {i}", sh.ty));
        let moved = shuffle_scalar(w, sh.elem, mask, &e, src)?;
        v = w.assign(&format!(
            "insertelement {} {v}, {elem} {moved}, i32 {i}",
            sh.ty
        ));
    }
    Ok(v)
}

/// One scalar through `shfl.sync.idx`, widened to (and narrowed back from) 32 bits.
fn shuffle_scalar(
    w: &mut FnWriter<'_, '_>,
    elem: Scalar,
    mask: &str,
    x: &str,
    src: &str,
) -> Result<String, Error> {
    let wide = match (elem.kind, elem.bits) {
        (ScalarKind::Bool, _) => w.assign(&format!("zext i1 {x} to i32")),
        (ScalarKind::Float, 32) => w.assign(&format!("bitcast float {x} to i32")),
        (ScalarKind::Float, 16) => {
            let h = w.assign(&format!("bitcast half {x} to i16"));
            w.assign(&format!("zext i16 {h} to i32"))
        }
        (ScalarKind::Sint | ScalarKind::Uint, 32) => x.to_string(),
        (ScalarKind::Float | ScalarKind::Sint | ScalarKind::Uint, bits) => {
            return Err(w.fail(format!(
                "a {bits}-bit subgroup value (the preflight refuses them)"
            )))
        }
    };
    let got = w.call(
        "i32",
        SHUFFLE,
        &[("i32", mask), ("i32", &wide), ("i32", src), ("i32", "31")],
    );
    Ok(match (elem.kind, elem.bits) {
        (ScalarKind::Bool, _) => w.assign(&format!("trunc i32 {got} to i1")),
        (ScalarKind::Float, 16) => {
            let h = w.assign(&format!("trunc i32 {got} to i16"));
            w.assign(&format!("bitcast i16 {h} to half"))
        }
        (ScalarKind::Float, _) => w.assign(&format!("bitcast i32 {got} to float")),
        (ScalarKind::Sint | ScalarKind::Uint, _) => got,
    })
}

/// Zero in every lane of `sh`.
fn zero(sh: &Shape) -> String {
    if sh.is_float() {
        sh.fconst(0.0)
    } else {
        sh.splat("0")
    }
}

/// `broadcast` / `shuffle*`: the value of the computed source lane, zero where that lane
/// is out of range or inactive.
fn gather(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    op: SubgroupOp,
    mask: &str,
) -> Result<(), Error> {
    let v = w.first_operand(data)?;
    let sh = w.shape_of(v)?;
    let x = w.op(v)?;
    let k = data
        .args
        .get(1)
        .copied()
        .ok_or_else(|| w.fail("a subgroup shuffle without its lane operand"))?;
    let k = w.op(k)?;
    let lane = lane_id(w);
    let (src, in_range) = match op {
        SubgroupOp::ShuffleXor => {
            let s = w.assign(&format!("xor i32 {lane}, {k}"));
            let ok = w.assign(&format!("icmp ult i32 {s}, {WARP}"));
            (s, ok)
        }
        SubgroupOp::ShuffleUp => {
            let s = w.assign(&format!("sub i32 {lane}, {k}"));
            let ok = w.assign(&format!("icmp ule i32 {k}, {lane}"));
            (s, ok)
        }
        SubgroupOp::ShuffleDown => {
            // `lane + k < 32` without wrapping: `k < 32 - lane`.
            let s = w.assign(&format!("add i32 {lane}, {k}"));
            let room = w.assign(&format!("sub i32 {WARP}, {lane}"));
            let ok = w.assign(&format!("icmp ult i32 {k}, {room}"));
            (s, ok)
        }
        SubgroupOp::Broadcast
        | SubgroupOp::Shuffle
        | SubgroupOp::Ballot
        | SubgroupOp::Elect
        | SubgroupOp::BroadcastFirst
        | SubgroupOp::All
        | SubgroupOp::Any
        | SubgroupOp::AllEqual
        | SubgroupOp::Arithmetic { .. } => {
            let ok = w.assign(&format!("icmp ult i32 {k}, {WARP}"));
            (k, ok)
        }
    };
    let low = w.assign(&format!("and i32 {src}, {}", WARP - 1));
    let shifted = w.assign(&format!("lshr i32 {mask}, {low}"));
    let bit = w.assign(&format!("and i32 {shifted}, 1"));
    let active = w.assign(&format!("icmp ne i32 {bit}, 0"));
    let valid = w.assign(&format!("and i1 {in_range}, {active}"));
    let from = w.assign(&format!("select i1 {valid}, i32 {low}, i32 {lane}"));
    let got = shuffle(w, &sh, mask, &x, &from)?;
    let r = w.assign(&format!(
        "select i1 {valid}, {ty} {got}, {ty} {}",
        zero(&sh),
        ty = sh.ty
    ));
    w.finish(inst, &sh.ty, &r)
}

/// `acc op v` for one step of a reduction or scan.
fn combine(w: &mut FnWriter<'_, '_>, sh: &Shape, op: SubgroupArith, acc: &str, v: &str) -> String {
    let f = sh.is_float();
    match op {
        SubgroupArith::Add => w.binop(if f { "fadd" } else { "add" }, sh, acc, v),
        SubgroupArith::Mul => w.binop(if f { "fmul" } else { "mul" }, sh, acc, v),
        SubgroupArith::Min => min_max(w, sh, true, acc, v),
        SubgroupArith::Max => min_max(w, sh, false, acc, v),
        SubgroupArith::And => w.binop("and", sh, acc, v),
        SubgroupArith::Or => w.binop("or", sh, acc, v),
        SubgroupArith::Xor => w.binop("xor", sh, acc, v),
    }
}

/// A reduction or scan in lane order (see the module docs).
fn arithmetic(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    op: SubgroupArith,
    scan: SubgroupScan,
    mask: &str,
) -> Result<(), Error> {
    let v = w.first_operand(data)?;
    let sh = w.shape_of(v)?;
    let x = w.op(v)?;
    let ty = sh.ty.clone();
    let identity = sh.splat(&scalar_literal(sh.elem, subgroup_identity(op, sh.elem)));
    let lane = lane_id(w);
    // The running value over the active lanes below step `i`, and whether there is one.
    let mut acc = identity.clone();
    let mut have = "false".to_string();
    let mut mine = identity;
    for i in 0..WARP {
        let bit = w.assign(&format!(
            "and i32 {mask}, {}",
            scalar_literal(Scalar::U32, 1u64 << i)
        ));
        let active = w.assign(&format!("icmp ne i32 {bit}, 0"));
        // An inactive lane `i` is not read (PTX leaves that undefined): each lane reads
        // itself, and the value is not used.
        let from = w.assign(&format!("select i1 {active}, i32 {i}, i32 {lane}"));
        let vi = shuffle(w, &sh, mask, &x, &from)?;
        let start = if i == 0 {
            vi
        } else {
            let c = combine(w, &sh, op, &acc, &vi);
            w.assign(&format!("select i1 {have}, {ty} {c}, {ty} {vi}"))
        };
        let next = w.assign(&format!("select i1 {active}, {ty} {start}, {ty} {acc}"));
        match scan {
            SubgroupScan::Reduce => {}
            SubgroupScan::Inclusive | SubgroupScan::Exclusive => {
                let here = w.assign(&format!("icmp eq i32 {lane}, {i}"));
                let kept = if scan == SubgroupScan::Inclusive {
                    &next
                } else {
                    &acc
                };
                mine = w.assign(&format!("select i1 {here}, {ty} {kept}, {ty} {mine}"));
            }
        }
        have = if i == 0 {
            active
        } else {
            w.assign(&format!("or i1 {have}, {active}"))
        };
        acc = next;
    }
    let r = match scan {
        SubgroupScan::Reduce => acc,
        SubgroupScan::Inclusive | SubgroupScan::Exclusive => mine,
    };
    w.finish(inst, &ty, &r)
}
