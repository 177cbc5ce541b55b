//! Float → integer conversion: the writer's instruction sequence, evaluated here
//! instruction by instruction with SPIR-V's defined semantics, gives exactly the
//! interpreter's result (`oxir_interp::scalar::convert`) for NaN, ±infinity, values out of
//! range, the boundaries and ordinary values. An `OpConvertFTo{S,U}` applied to a value
//! whose truncation does not fit (undefined in SPIR-V) fails the test, as does any
//! instruction this evaluator does not know (the sequence is pinned to the ops below).
//! f32 and f64 sources use `NClamp`; the test checks that too (`clamped_sources_use_nclamp`).

use oxir_ir::types::{Scalar, ScalarKind};
use oxir_spirv::{compile, Options, TargetEnv};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::Op;
use std::collections::HashMap;

#[derive(Copy, Clone, Debug, PartialEq)]
enum V {
    F(f64),
    I(i128),
    B(bool),
}

fn type_name(s: Scalar) -> String {
    let k = match s.kind {
        ScalarKind::Float => "f",
        ScalarKind::Sint => "i",
        ScalarKind::Uint => "u",
        ScalarKind::Bool => "bool",
    };
    format!("{k}{}", s.bits)
}

/// A kernel that loads one value of `buffer_from`, converts it to `from` when that differs
/// (a narrower float), then to `to`, and stores it. The buffers are one-element arrays
/// indexed by the constant 0, so the bounds checks prove every access in range and the
/// body is the conversion alone.
fn module(buffer_from: Scalar, from: Scalar, to: Scalar) -> oxir_ir::Module {
    let (bf, f, t) = (type_name(buffer_from), type_name(from), type_name(to));
    let narrow = if bf == f {
        String::new()
    } else {
        format!("    v9: {f} = convert v1\n")
    };
    let src = if bf == f { "v1" } else { "v9" };
    let text = format!(
        "const c0: u32 = 0\n\
         global @src: storage(read) array<{bf}, 1> binding(0, 0)\n\
         global @dst: storage(read_write) array<{t}, 1> binding(0, 1)\n\
         kernel @main() workgroup_size(1, 1, 1) {{\n\
         block0:\n\
         \x20   v0: ptr<storage(read), {bf}> = access @src, c0\n\
         \x20   v1: {bf} = load v0\n\
         {narrow}\
         \x20   v2: {t} = convert {src}\n\
         \x20   v3: ptr<storage(read_write), {t}> = access @dst, c0\n\
         \x20   store v3, v2\n\
         \x20   return\n\
         }}\n"
    );
    oxir_ir::parser::parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Evaluates the kernel's body with `input` as the value loaded from `@src`; returns the
/// value stored to `@dst`.
fn evaluate(words: &[u32], input: f64) -> V {
    let m = rspirv::dr::load_words(words).unwrap();
    // Result id -> (width, signedness or float).
    let mut types: HashMap<u32, (u32, Option<bool>)> = HashMap::new();
    let mut env: HashMap<u32, V> = HashMap::new();
    for inst in &m.types_global_values {
        match inst.class.opcode {
            Op::TypeInt => {
                let (Operand::LiteralBit32(w), Operand::LiteralBit32(s)) =
                    (&inst.operands[0], &inst.operands[1])
                else {
                    panic!()
                };
                types.insert(inst.result_id.unwrap(), (*w, Some(*s == 1)));
            }
            Op::TypeFloat => {
                let Operand::LiteralBit32(w) = &inst.operands[0] else {
                    panic!()
                };
                types.insert(inst.result_id.unwrap(), (*w, None));
            }
            Op::Constant => {
                let (w, signed) = types[&inst.result_type.unwrap()];
                let bits = match inst.operands[0] {
                    Operand::LiteralBit32(b) => u64::from(b),
                    Operand::LiteralBit64(b) => b,
                    ref o => panic!("{o:?}"),
                };
                let v = match (w, signed) {
                    (16, None) => V::F(f64::from(half_to_f32(bits as u16))),
                    (32, None) => V::F(f64::from(f32::from_bits(bits as u32))),
                    (_, None) => V::F(f64::from_bits(bits)),
                    (w, Some(true)) => V::I(i128::from(((bits << (64 - w)) as i64) >> (64 - w))),
                    (_, Some(false)) => V::I(i128::from(bits)),
                };
                env.insert(inst.result_id.unwrap(), v);
            }
            _ => {}
        }
    }
    let get = |env: &HashMap<u32, V>, o: &Operand| -> V {
        let Operand::IdRef(id) = o else {
            panic!("{o:?}")
        };
        *env.get(id).unwrap_or_else(|| panic!("%{id} has no value"))
    };
    let mut stored = None;
    let body: Vec<&Instruction> = m.functions[0]
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .collect();
    for inst in body {
        let r = inst.result_id;
        let ops = &inst.operands;
        let v = match inst.class.opcode {
            Op::AccessChain | Op::Return => None,
            Op::Load => Some(V::F(input)),
            Op::Store => {
                stored = Some(get(&env, &ops[1]));
                None
            }
            Op::FConvert => {
                let V::F(x) = get(&env, &ops[0]) else {
                    panic!()
                };
                let (w, _) = types[&inst.result_type.unwrap()];
                assert!(
                    w != 16 || x.is_nan() || f64::from(half_to_f32(f32_to_half(x as f32))) == x,
                    "test inputs must be exact in f16"
                );
                Some(V::F(x))
            }
            Op::IsNan => {
                let V::F(x) = get(&env, &ops[0]) else {
                    panic!()
                };
                Some(V::B(x.is_nan()))
            }
            Op::FOrdLessThanEqual | Op::FOrdGreaterThanEqual => {
                let (V::F(x), V::F(y)) = (get(&env, &ops[0]), get(&env, &ops[1])) else {
                    panic!()
                };
                Some(V::B(if inst.class.opcode == Op::FOrdLessThanEqual {
                    x <= y
                } else {
                    x >= y
                }))
            }
            Op::ExtInst => {
                // Only GLSL.std.450 NClamp (81): min(max(x, lo), hi) with NMin / NMax's
                // rule, so NaN gives `lo`.
                let Operand::LiteralExtInstInteger(81) = ops[1] else {
                    panic!("unexpected extended instruction {:?}", ops[1])
                };
                let (V::F(x), V::F(lo), V::F(hi)) =
                    (get(&env, &ops[2]), get(&env, &ops[3]), get(&env, &ops[4]))
                else {
                    panic!()
                };
                Some(V::F(if x.is_nan() { lo } else { x.max(lo).min(hi) }))
            }
            Op::LogicalOr => {
                let (V::B(x), V::B(y)) = (get(&env, &ops[0]), get(&env, &ops[1])) else {
                    panic!()
                };
                Some(V::B(x || y))
            }
            Op::Select => {
                let V::B(c) = get(&env, &ops[0]) else {
                    panic!()
                };
                Some(if c {
                    get(&env, &ops[1])
                } else {
                    get(&env, &ops[2])
                })
            }
            Op::ConvertFToS | Op::ConvertFToU => {
                let V::F(x) = get(&env, &ops[0]) else {
                    panic!()
                };
                let (w, _) = types[&inst.result_type.unwrap()];
                assert!(!x.is_nan(), "OpConvertFTo* of NaN (undefined)");
                let t = x.trunc() as i128;
                let (lo, hi) = if inst.class.opcode == Op::ConvertFToS {
                    (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
                } else {
                    (0, (1i128 << w) - 1)
                };
                assert!(
                    (lo..=hi).contains(&t) && x.is_finite(),
                    "OpConvertFTo* of {x} to {w} bits (undefined)"
                );
                Some(V::I(t))
            }
            other => panic!("unexpected instruction {other:?} in the conversion"),
        };
        if let (Some(r), Some(v)) = (r, v) {
            env.insert(r, v);
        }
    }
    stored.expect("a store")
}

fn half_to_f32(h: u16) -> f32 {
    let bits = oxir_interp::scalar::to_f64(Scalar::F16, u64::from(h));
    bits as f32
}

fn f32_to_half(x: f32) -> u16 {
    oxir_interp::scalar::from_f64(Scalar::F16, f64::from(x)) as u16
}

fn input_bits(s: Scalar, x: f64) -> u64 {
    oxir_interp::scalar::from_f64(s, x)
}

#[test]
fn float_to_int_matches_the_interpreter_for_every_input_class() {
    let ints = [Scalar::I32, Scalar::U32, Scalar::I64, Scalar::U64];
    let mut checked = 0;
    for (buffer_from, from) in [
        (Scalar::F32, Scalar::F32),
        (Scalar::F64, Scalar::F64),
        (Scalar::F32, Scalar::F16),
    ] {
        for to in ints {
            let words = compile(
                &module(buffer_from, from, to),
                &Options {
                    target_env: TargetEnv::Vulkan1_1,
                    ..Options::default()
                },
            )
            .unwrap_or_else(|e| panic!("{} -> {}: {e}", type_name(from), type_name(to)));
            let mut inputs = vec![
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0,
                -0.0,
                0.5,
                -0.5,
                -0.99,
                3.75,
                -3.75,
                65504.0,
                -65504.0,
            ];
            if from != Scalar::F16 {
                inputs.extend([
                    2147483647.0,
                    2147483648.0,
                    -2147483648.0,
                    -2147483649.0,
                    2147483520.0,
                    4294967295.0,
                    4294967296.0,
                    4294967040.0,
                    9.3e18,
                    -9.3e18,
                    1.8e19,
                    1.9e19,
                    9223372036854775807.0,
                    -9223372036854775808.0,
                    1e30,
                    -1e30,
                ]);
            }
            for x in inputs {
                // The value as the source type holds it.
                let bits = input_bits(from, x);
                let held = oxir_interp::scalar::to_f64(from, bits);
                let want = oxir_interp::scalar::convert(from, to, bits);
                let want = if to.kind == ScalarKind::Sint {
                    i128::from(((want << (64 - to.bits)) as i64) >> (64 - to.bits))
                } else {
                    i128::from(want)
                };
                let got = evaluate(&words, held);
                assert_eq!(
                    got,
                    V::I(want),
                    "{} -> {} of {held}",
                    type_name(from),
                    type_name(to)
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

/// f32 and f64 sources are clamped with `NClamp` (6 instructions for f32 → i32, 4 with a
/// select fewer when the bound below MAX + 1 already truncates to MAX, as f64 → i32);
/// an f16 source keeps the compare-and-select sequence (its bounds may be infinities).
#[test]
fn clamped_sources_use_nclamp() {
    let count = |from: Scalar, to: Scalar| {
        let m = module(from, from, to);
        let words = compile(&m, &Options::default()).unwrap();
        let m = rspirv::dr::load_words(&words).unwrap();
        let body: Vec<Op> = m.functions[0]
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .map(|i| i.class.opcode)
            .collect();
        (
            body.iter().filter(|&&o| o == Op::ExtInst).count(),
            body.iter().filter(|&&o| o == Op::Select).count(),
        )
    };
    assert_eq!(count(Scalar::F32, Scalar::I32), (1, 2));
    assert_eq!(count(Scalar::F64, Scalar::I32), (1, 1));
    assert_eq!(count(Scalar::F16, Scalar::I32), (0, 3));
}
