//! Subgroup collectives on NVPTX: every subgroup op with every operand type the IR's type
//! rules admit (32-bit integers, `f32`, `f16`, their vectors, and `bool` where the op
//! takes one) is written, passes `opt-22 -passes=verify`, goes through `llc-22` for sm_70
//! (with `-mattr=+ptx62`, as the driver passes), sm_80 and sm_90, and the PTX is accepted
//! by `ptxas` for the same GPU. The ops sit in a divergent branch so the active mask is
//! not the whole warp. Nothing here runs the PTX (no GPU in the tests); what the lowering
//! computes is argued in the writer's `subgroup` module against the interpreter.
//!
//! The host target refuses every subgroup op, naming it and its location.

mod tools;

use oxir_ir::{Opcode, SubgroupOp};
use oxir_llvm::{write_module, Error, TargetDesc};

/// Value types of shuffles, broadcasts and float-or-integer reductions.
const VALUES: &[&str] = &[
    "i32",
    "u32",
    "f32",
    "f16",
    "vec2<i32>",
    "vec3<u32>",
    "vec4<f32>",
    "vec2<f16>",
];

/// Integer types of the bitwise reductions.
const INTEGERS: &[&str] = &["i32", "u32", "vec2<i32>", "vec4<u32>"];

/// Operand types of `all_equal`.
const EQUALS: &[&str] = &[
    "bool",
    "vec3<bool>",
    "i32",
    "u32",
    "f32",
    "f16",
    "vec4<f32>",
];

/// The `u32` form a value of `ty` is stored in (bools as `u32` lanes).
fn stored(ty: &str) -> String {
    ty.replace("bool", "u32")
}

/// A kernel of 64 invocations (two warps): the odd invocations load a `ty`, apply `op`
/// (with `lane` as the second operand when it takes one) and store the result.
fn kernel(op: Opcode, ty: Option<&str>, result: &str) -> String {
    let sop = op.subgroup_op().expect("a subgroup op");
    let lane = if sop == SubgroupOp::Broadcast {
        "c3"
    } else {
        "v0"
    };
    let mut body = String::new();
    let mut args = String::new();
    if let Some(ty) = ty {
        let st = stored(ty);
        body.push_str(&format!(
            "    v3: ptr<storage(read_write), {st}> = access @src, v0\n    v4: {st} = load v3\n"
        ));
        if st == ty {
            args.push_str(" v4");
        } else {
            body.push_str(&format!("    v5: {ty} = convert v4\n"));
            args.push_str(" v5");
        }
        if sop.takes_lane() {
            args.push_str(&format!(", {lane}"));
        }
    }
    let rs = stored(result);
    body.push_str(&format!("    v6: {result} = {op}{args}\n"));
    let out = if rs == result {
        "v6"
    } else {
        body.push_str(&format!("    v7: {rs} = convert v6\n"));
        "v7"
    };
    let src = ty.map(stored).unwrap_or_else(|| "u32".into());
    format!(
        "const c0: u32 = 0\nconst c1: u32 = 1\nconst c3: u32 = 3\n\
         global @src: storage(read_write) array<{src}> binding(0, 0)\n\
         global @dst: storage(read_write) array<{rs}> binding(0, 1)\n\
         kernel @main() workgroup_size(64, 1, 1) {{\n\
         block0:\n    v0: u32 = local_invocation_index\n    v1: u32 = and v0, c1\n\
         \x20   v2: bool = ne v1, c0\n    cond_br v2, block1, block2\n\
         block1:\n{body}\
         \x20   v8: ptr<storage(read_write), {rs}> = access @dst, v0\n    store v8, {out}\n    br block2\n\
         block2:\n    return\n}}\n"
    )
}

/// Every subgroup op with every admitted operand type: (label, module text).
fn instances() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for &op in Opcode::ALL.iter().filter(|op| op.is_subgroup()) {
        let sop = op.subgroup_op().expect("a subgroup op");
        let cases: Vec<(Option<&str>, String)> = match sop {
            SubgroupOp::Ballot => vec![(Some("bool"), "vec4<u32>".into())],
            SubgroupOp::Elect => vec![(None, "bool".into())],
            SubgroupOp::All | SubgroupOp::Any => vec![(Some("bool"), "bool".into())],
            SubgroupOp::AllEqual => EQUALS.iter().map(|t| (Some(*t), "bool".into())).collect(),
            SubgroupOp::Arithmetic { op: a, .. } if a.is_bitwise() => {
                INTEGERS.iter().map(|t| (Some(*t), t.to_string())).collect()
            }
            SubgroupOp::BroadcastFirst
            | SubgroupOp::Broadcast
            | SubgroupOp::Shuffle
            | SubgroupOp::ShuffleXor
            | SubgroupOp::ShuffleUp
            | SubgroupOp::ShuffleDown
            | SubgroupOp::Arithmetic { .. } => {
                VALUES.iter().map(|t| (Some(*t), t.to_string())).collect()
            }
        };
        for (ty, result) in cases {
            out.push((
                format!("{op} {}", ty.unwrap_or("-")),
                kernel(op, ty, &result),
            ));
        }
    }
    out
}

/// The GPUs checked, with the `llc` flags the driver passes for them.
const ARCHES: &[(&str, &[&str])] = &[
    ("sm_70", &["-mattr=+ptx62"]),
    ("sm_80", &[]),
    ("sm_90", &[]),
];

#[test]
fn every_subgroup_op_and_type_assembles_with_ptxas() {
    let tools = match (tools::opt(), tools::llc(), tools::ptxas()) {
        (Some(o), Some(l), Some(p)) => Some((o, l, p)),
        _ => None,
    };
    let target = TargetDesc::nvptx();
    let cases = instances();
    let mut failures = Vec::new();
    let mut assembled = 0;
    for (label, text) in &cases {
        let m =
            oxir_ir::parser::parse_module(text).unwrap_or_else(|e| panic!("{label}: {e}\n{text}"));
        let ll = match write_module(&m, &target) {
            Ok(ll) => ll,
            Err(e) => {
                failures.push(format!("{label}: {e}"));
                continue;
            }
        };
        if write_module(&m, &target).as_ref() != Ok(&ll) {
            failures.push(format!("{label}: output is not deterministic"));
        }
        // Every collective runs over the active mask, never a constant full mask.
        let full = ll.contains(".sync(i32 -1") || ll.contains(".i32(i32 -1");
        if !ll.contains("call i32 @llvm.nvvm.activemask()") || full {
            failures.push(format!("{label}: not over the active mask\n{ll}"));
        }
        let Some((opt, llc, ptxas)) = &tools else {
            continue;
        };
        if let Err(e) = tools::verify(opt, &ll) {
            failures.push(format!("{label}: opt -passes=verify: {e}\n{ll}"));
            continue;
        }
        let mut ok = true;
        for (arch, flags) in ARCHES {
            let checked = tools::ptx_with(llc, &ll, arch, flags)
                .map_err(|e| format!("llc {arch}: {e}"))
                .and_then(|ptx| {
                    tools::assemble(ptxas, &ptx, arch).map_err(|e| format!("ptxas {arch}: {e}"))
                });
            if let Err(e) = checked {
                failures.push(format!("{label}: {e}\n{ll}"));
                ok = false;
                break;
            }
        }
        if ok {
            assembled += 1;
        }
    }
    eprintln!(
        "{} subgroup modules written, {assembled} assembled by ptxas (sm_70, sm_80, sm_90)",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// What the lowering writes for each family, in the text (the semantics are the
/// interpreter's; see the writer's `subgroup` module).
#[test]
fn subgroup_ops_use_the_warp_intrinsics() {
    let target = TargetDesc::nvptx();
    let write = |op: Opcode, ty: Option<&str>, result: &str| {
        let text = kernel(op, ty, result);
        let m = oxir_ir::parser::parse_module(&text).unwrap();
        write_module(&m, &target).unwrap()
    };
    let ballot = write(Opcode::SubgroupBallot, Some("bool"), "vec4<u32>");
    assert!(ballot.contains("@llvm.nvvm.vote.ballot.sync(i32 %"));
    assert!(ballot.contains("insertelement <4 x i32> zeroinitializer"));
    assert!(write(Opcode::SubgroupAll, Some("bool"), "bool").contains("@llvm.nvvm.vote.all.sync"));
    assert!(write(Opcode::SubgroupAny, Some("bool"), "bool").contains("@llvm.nvvm.vote.any.sync"));
    let elect = write(Opcode::SubgroupElect, None, "bool");
    assert!(elect.contains("@llvm.cttz.i32") && elect.contains("laneid"));
    let equal = write(Opcode::SubgroupAllEqual, Some("f32"), "bool");
    assert!(equal.contains("fcmp oeq float") && equal.contains("vote.all.sync"));
    assert!(!equal.contains("match"));
    // A shuffle reads one computed lane and gives zero for an inactive or absent one.
    let up = write(Opcode::SubgroupShuffleUp, Some("f32"), "f32");
    assert_eq!(up.matches("@llvm.nvvm.shfl.sync.idx.i32(i32 %").count(), 1);
    assert!(up.contains("float 0x0000000000000000"));
    // A float sum: 32 steps in lane order, one shuffle and one fadd each after the first.
    let sum = write(Opcode::SubgroupAdd, Some("f32"), "f32");
    assert_eq!(
        sum.matches("call i32 @llvm.nvvm.shfl.sync.idx.i32").count(),
        32
    );
    assert_eq!(sum.matches("fadd float").count(), 31);
    // A vec2<f16> moves lane by lane, each half widened to 32 bits.
    let h = write(
        Opcode::SubgroupBroadcastFirst,
        Some("vec2<f16>"),
        "vec2<f16>",
    );
    assert_eq!(h.matches("zext i16").count(), 2);
}

#[test]
fn the_host_target_refuses_subgroup_ops_by_name() {
    for (label, text) in instances() {
        let m = oxir_ir::parser::parse_module(&text).unwrap();
        match write_module(&m, &TargetDesc::host()) {
            Err(Error::Unsupported { what, location }) => {
                let op = label.split(' ').next().unwrap();
                assert!(
                    what.starts_with(&format!("{op}: no subgroups on this target")),
                    "{label}: {what}"
                );
                assert_eq!(location.function.as_deref(), Some("main"), "{label}");
                assert!(location.block.is_some() && location.instruction.is_some());
            }
            other => panic!("{label}: the host target accepted a subgroup op: {other:?}"),
        }
    }
}
