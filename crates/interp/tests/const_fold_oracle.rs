//! `const-fold` against the interpreter: for every opcode `const-fold` evaluates lane by
//! lane, every scalar type the type rules accept, and edge inputs (±0, ±1, ±inf, NaN,
//! subnormals, MIN/MAX, -1, shift amounts 0 / width-1 / width / width+1), a one-
//! instruction callable is built, folded, and either left alone or folded to exactly the
//! constant the interpreter computes on the unfolded instruction. The test also fails
//! when ordinary cases stop folding, or when the cases the safety rule forbids (float
//! division, NaN and subnormal operands, `sqrt`, `fma`) fold.

use oxir_interp::{Buffers, Options, StageInputs, Val};
use oxir_ir::builder::FunctionBuilder;
use oxir_ir::scalar_semantics::{from_f64, lane_op, LaneOp};
use oxir_ir::{
    AbiParam, FunctionKind, Module, Opcode, Payload, Scalar, ScalarKind, Signature, Type,
};
use oxir_passes::passes::const_fold;

fn edges(s: Scalar) -> Vec<u64> {
    let w = u64::from(s.bits);
    let c = |b: u64| oxir_ir::constants::canonical_scalar_bits(s, b);
    match s.kind {
        ScalarKind::Bool => vec![0, 1],
        ScalarKind::Sint => vec![
            0,
            1,
            c(u64::MAX),
            c(1 << (w - 1)),
            c((1 << (w - 1)) - 1),
            2,
            7,
            w - 1,
            w,
            w + 1,
        ],
        ScalarKind::Uint => vec![
            0,
            1,
            c(u64::MAX),
            c(u64::MAX - 1),
            2,
            7,
            w - 1,
            w,
            w + 1,
            c(1 << (w - 1)),
        ],
        ScalarKind::Float => {
            let f = |v: f64| from_f64(s, v);
            let min_sub = 1u64; // the smallest positive subnormal's bits
            let nan = match s.bits {
                16 => 0x7e00,
                32 => 0x7fc0_0000,
                _ => 0x7ff8_0000_0000_0000,
            };
            vec![
                f(0.0),
                f(-0.0),
                f(1.0),
                f(-1.0),
                f(f64::INFINITY),
                f(f64::NEG_INFINITY),
                nan,
                min_sub,
                f(0.5),
                f(2.5),
                f(3.0),
                f(0.1),
                f(-7.25),
            ]
        }
    }
}

struct Case {
    op: Opcode,
    s: Scalar,
    inputs: Vec<(Scalar, u64)>,
    result: Option<Scalar>,
}

#[derive(Default)]
struct Tally {
    built: usize,
    folded: usize,
    kept: usize,
    /// (op, operand scalar) pairs with at least one fold.
    folded_pairs: std::collections::BTreeSet<(String, String)>,
    /// Folds that the safety rules forbid.
    forbidden: Vec<String>,
}

/// Builds `callable @f() -> R { v = op consts; return v }`; `None` when the builder's type
/// rules refuse the operands.
fn build(case: &Case) -> Option<Module> {
    let mut m = Module::new();
    let f = FunctionBuilder::create_function(
        &mut m,
        "f",
        FunctionKind::Callable,
        Signature {
            params: vec![],
            returns: vec![],
        },
    );
    let mut b = FunctionBuilder::new(&mut m, f);
    let entry = b.entry_block()?;
    b.switch_to_block(entry);
    let args: Vec<_> = case
        .inputs
        .iter()
        .map(|&(s, bits)| {
            let c = b.module_mut().const_scalar(s, bits);
            let ty: Type = b.module_mut().types.scalar(s);
            b.function_mut().dfg.const_value(c, ty)
        })
        .collect();
    let result_ty = case.result.map(|r| b.module_mut().types.scalar(r));
    let (_, v) = b.try_ins(case.op, &args, Payload::None, result_ty).ok()?;
    let v = v?;
    let ty = b.function().dfg.value_type(v);
    b.function_mut().signature.returns = vec![AbiParam::new(ty)];
    b.ret(&[v]);
    oxir_ir::verifier::verify_module(&m, &Default::default())
        .succeeded()
        .then_some(m)
}

fn run(m: &Module) -> Option<Vec<Val>> {
    oxir_interp::run_single(
        m,
        "f",
        &StageInputs::default(),
        &mut Buffers::new(),
        &Options::default(),
    )
    .ok()
    .flatten()
}

fn check(case: &Case, tally: &mut Tally) {
    let Some(module) = build(case) else {
        return;
    };
    tally.built += 1;
    let expected =
        run(&module).unwrap_or_else(|| panic!("interpreter failed on {}", describe(case)));
    let mut folded = module.clone();
    let info = const_fold::run_on_module(&mut folded);
    if info.folded_lane_count == 0 {
        assert_eq!(
            oxir_ir::printer::print_module(&folded, Default::default()),
            oxir_ir::printer::print_module(&module, Default::default()),
            "kept but changed: {}",
            describe(case)
        );
        tally.kept += 1;
        return;
    }
    tally.folded += 1;
    tally
        .folded_pairs
        .insert((case.op.mnemonic().to_string(), case.s.name().to_string()));
    let f = &folded.functions[folded.function_by_name("f").unwrap()];
    assert_eq!(
        f.placed_inst_count(),
        1,
        "only the return is left: {}",
        describe(case)
    );
    let ret = f.terminator(f.entry_block().unwrap()).unwrap();
    let value = f.dfg.inst(ret).args[0];
    let oxir_ir::ValueDef::Const(c) = f.dfg.value_def(value) else {
        panic!("folded to a non-constant: {}", describe(case));
    };
    let (_, bits) = folded.const_scalar_value(c).unwrap();
    assert_eq!(
        vec![Val::S(bits)],
        expected,
        "folded constant differs: {}",
        describe(case)
    );
    assert_eq!(run(&folded), Some(expected), "{}", describe(case));
    if forbidden(case) {
        tally.forbidden.push(describe(case));
    }
}

/// Folds the safety rules rule out, decided here independently of the pass.
fn forbidden(case: &Case) -> bool {
    let float_in = case.inputs.iter().any(|&(s, _)| s.is_float());
    let nan_or_subnormal = case.inputs.iter().any(|&(s, b)| {
        s.is_float() && {
            let v = oxir_ir::scalar_semantics::to_f64(s, b);
            v.is_nan()
                || (v != 0.0 && v.abs() < 2f64.powi(-14) && s.bits == 16)
                || (v != 0.0 && v.abs() < 2f64.powi(-126) && s.bits == 32)
                || (v != 0.0 && v.abs() < f64::MIN_POSITIVE)
        }
    });
    let approximated = matches!(case.op, Opcode::Sqrt | Opcode::Fma | Opcode::InverseSqrt)
        || case.op.is_elementary_function();
    let float_division = matches!(case.op, Opcode::Div | Opcode::Rem) && float_in;
    nan_or_subnormal || approximated || float_division
}

fn describe(case: &Case) -> String {
    format!(
        "{} on {} {:x?} -> {:?}",
        case.op,
        case.s.name(),
        case.inputs,
        case.result.map(|r| r.name())
    )
}

fn shift_like(op: Opcode) -> bool {
    matches!(op, Opcode::Shl | Opcode::Shr | Opcode::Rotl | Opcode::Rotr)
}

fn cases_for(op: Opcode, s: Scalar, out: &mut Vec<Case>) {
    let e = edges(s);
    let Some(lane) = lane_op(op) else { return };
    let mut push = |inputs: Vec<(Scalar, u64)>, result: Option<Scalar>| {
        out.push(Case {
            op,
            s,
            inputs,
            result,
        })
    };
    match lane {
        LaneOp::Unary(_) | LaneOp::BoolReduce { .. } => {
            for &a in &e {
                push(vec![(s, a)], None);
            }
        }
        LaneOp::Binary(_) => {
            for &a in &e {
                for &b in &e {
                    push(vec![(s, a), (s, b)], None);
                }
                if shift_like(op) {
                    for b in [0, 31, 32, 33] {
                        push(vec![(s, a), (Scalar::U32, b)], None);
                    }
                }
            }
        }
        LaneOp::Ternary(_) => {
            let few: Vec<u64> = e.iter().copied().take(8).collect();
            for &a in &few {
                for &b in &few {
                    for &c in &few {
                        push(vec![(s, a), (s, b), (s, c)], None);
                    }
                }
            }
        }
        LaneOp::ExtractBits => {
            for &a in &e {
                for (o, c) in [(0, 1), (3, 4), (31, 1), (31, 2), (0, 32), (40, 3)] {
                    push(vec![(s, a), (Scalar::U32, o), (Scalar::U32, c)], None);
                }
            }
        }
        LaneOp::InsertBits => {
            for &a in &e {
                for (o, c) in [(0, 1), (3, 4), (31, 2), (0, 32)] {
                    push(
                        vec![(s, a), (s, 0x5a), (Scalar::U32, o), (Scalar::U32, c)],
                        None,
                    );
                }
            }
        }
        LaneOp::Convert | LaneOp::Bitcast => {
            for to in Scalar::ALL {
                for &a in &e {
                    push(vec![(s, a)], Some(to));
                }
            }
        }
        LaneOp::Ldexp => {
            for &a in &e {
                for x in [0i32, 3, -3, 128, -149] {
                    push(vec![(s, a), (Scalar::I32, i64::from(x) as u64)], None);
                }
            }
        }
        // `frexp` and `modf` produce structs: no lane fold to compare.
        LaneOp::Select | LaneOp::Frexp | LaneOp::Modf => {}
    }
}

#[test]
fn folded_lanes_equal_the_interpreter_or_are_not_folded() {
    let mut tally = Tally::default();
    for &op in Opcode::ALL {
        for s in Scalar::ALL {
            let mut cases = Vec::new();
            cases_for(op, s, &mut cases);
            for case in &cases {
                check(case, &mut tally);
            }
        }
    }
    eprintln!(
        "{} cases built, {} folded, {} kept",
        tally.built, tally.folded, tally.kept
    );
    assert!(
        tally.forbidden.is_empty(),
        "forbidden folds:\n{}",
        tally.forbidden.join("\n")
    );
    assert!(tally.built > 20_000, "only {} cases built", tally.built);
    // Ordinary cases fold: every integer lane op on every integer type it accepts, and
    // the exact float operations on every float type.
    let must_fold: &[(&str, &[&str])] = &[
        (
            "add",
            &[
                "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64",
            ],
        ),
        ("mul", &["i32", "u64", "f32", "f64"]),
        ("div", &["i32", "u32", "i64"]),
        ("rem", &["i32", "u32"]),
        ("shl", &["i32", "u32", "i64"]),
        ("shr", &["i32", "u32"]),
        ("lt", &["i32", "u32", "f32"]),
        ("eq", &["bool", "i32", "f64"]),
        ("min", &["i32", "f32"]),
        ("floor", &["f32", "f16"]),
        ("convert", &["i32", "f32", "bool"]),
        ("bitcast", &["i32", "f32"]),
        ("count_ones", &["u32"]),
        ("extract_bits", &["i32", "u32"]),
        ("not", &["bool", "i32"]),
        ("any", &["bool"]),
    ];
    for (op, types) in must_fold {
        for ty in *types {
            assert!(
                tally
                    .folded_pairs
                    .contains(&(op.to_string(), ty.to_string())),
                "{op} on {ty} never folds"
            );
        }
    }
    for op in ["sqrt", "fma", "sin", "pow", "inverse_sqrt", "fract"] {
        assert!(
            !tally.folded_pairs.iter().any(|(o, _)| o == op),
            "{op} folded"
        );
    }
    assert!(
        !tally.folded_pairs.contains(&("div".into(), "f32".into())),
        "float division folded"
    );
}
