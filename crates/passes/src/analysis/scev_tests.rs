use super::*;
use oxir_ir::parser::parse_module;
use oxir_ir::random_modules::Rng;

fn module(text: &str) -> Module {
    parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn value(n: usize) -> Value {
    use cranelift_entity::EntityRef;
    Value::new(n)
}

const COUNTED: &str = "
const c0: u32 = 0
const c1: u32 = 1
const c2: u32 = 10
const c3: u32 = 3
callable @f(u32) -> u32 {
block0(v0: u32):
    br block1(c0, c0)
block1(v1: u32, v2: u32):
    v3: bool = lt v1, c2
    cond_br v3, block2, block3
block2:
    v4: u32 = mul v1, c3
    v5: u32 = add v4, v0
    v6: u32 = add v2, v5
    v7: u32 = add v1, c1
    br block1(v7, v6)
block3:
    return v2
}
";

#[test]
fn recurrences_fold_through_add_and_mul() {
    let m = module(COUNTED);
    let f = m.functions.values().next().unwrap();
    let loops = LoopInfo::new(f);
    let lp = loops.loops().next().unwrap();
    let mut se = ScalarEvolution::new(&m, f, &loops);
    assert_eq!(se.get(value(1)).constant_rec(lp), Some((0, 1)));
    // v4 = 3 * {0, +, 1} = {0, +, 3}
    assert_eq!(se.get(value(4)).constant_rec(lp), Some((0, 3)));
    // v5 = {0, +, 3} + v0 = {0 + v0, +, 3}: start not constant, step is.
    match se.get(value(5)) {
        Scev::AddRec { lp: l, start, step } => {
            assert_eq!(l, lp);
            assert_eq!(*step, Scev::Constant(3));
            assert_eq!(
                *start,
                Scev::Add(
                    Box::new(Scev::Constant(0)),
                    Box::new(Scev::Unknown(value(0)))
                )
            );
        }
        other => panic!("v5 is {other:?}"),
    }
    // v2 accumulates a non-invariant amount: not a recurrence.
    assert_eq!(se.get(value(2)), Scev::Unknown(value(2)));
    assert_eq!(se.get(value(7)).constant_rec(lp), Some((1, 1)));
    assert_eq!(se.trip_count(lp), Some(10));
    let test = se.exit_test(lp).unwrap();
    assert_eq!(
        (test.stay, test.then_stays, test.iv),
        (StayPredicate::Lt, true, value(1))
    );
    assert_eq!(se.get(test.bound), Scev::Constant(10));
}

fn counted(
    ty: &str,
    start: &str,
    step_op: &str,
    step: &str,
    cmp: &str,
    bound: &str,
    swap_targets: bool,
) -> String {
    let targets = if swap_targets {
        "block3, block2"
    } else {
        "block2, block3"
    };
    format!(
        "
const c0: {ty} = {start}
const c1: {ty} = {step}
const c2: {ty} = {bound}
callable @f() -> {ty} {{
block0:
    br block1(c0)
block1(v1: {ty}):
    v3: bool = {cmp} v1, c2
    cond_br v3, {targets}
block2:
    v7: {ty} = {step_op} v1, c1
    br block1(v7)
block3:
    return v1
}}
"
    )
}

fn trip(text: &str) -> Option<u64> {
    let m = module(text);
    let f = m.functions.values().next().unwrap();
    let loops = LoopInfo::new(f);
    let lp = loops.loops().next().unwrap();
    ScalarEvolution::new(&m, f, &loops).trip_count(lp)
}

#[test]
fn trip_counts_of_text_loops() {
    assert_eq!(
        trip(&counted("u32", "0", "add", "1", "lt", "10", false)),
        Some(10)
    );
    assert_eq!(
        trip(&counted("u32", "10", "add", "1", "lt", "10", false)),
        Some(0)
    );
    assert_eq!(
        trip(&counted("u32", "0", "add", "3", "lt", "10", false)),
        Some(4)
    );
    assert_eq!(
        trip(&counted("u32", "0", "add", "1", "le", "10", false)),
        Some(11)
    );
    assert_eq!(
        trip(&counted("i32", "10", "sub", "1", "gt", "0", false)),
        Some(10)
    );
    assert_eq!(
        trip(&counted("i32", "10", "add", "-2", "ge", "-1", false)),
        Some(6)
    );
    assert_eq!(
        trip(&counted("u32", "0", "add", "2", "ne", "8", false)),
        Some(4)
    );
    // `ge v1, c2` on the then edge leaving: stays while v1 < 7.
    assert_eq!(
        trip(&counted("u32", "0", "add", "1", "ge", "7", true)),
        Some(7)
    );
    // Never meets the bound exactly, wraps, steps the wrong way, or never ends.
    assert_eq!(
        trip(&counted("u32", "0", "add", "3", "ne", "10", false)),
        None
    );
    assert_eq!(
        trip(&counted("u8", "250", "add", "10", "lt", "255", false)),
        None
    );
    assert_eq!(
        trip(&counted("u32", "5", "sub", "1", "lt", "10", false)),
        None
    );
    assert_eq!(
        trip(&counted("u32", "0", "add", "0", "lt", "10", false)),
        None
    );
    assert_eq!(
        trip(&counted("u8", "0", "add", "1", "le", "255", false)),
        None
    );
    assert_eq!(
        trip(&counted("i8", "0", "add", "1", "lt", "127", false)),
        Some(127)
    );
}

#[test]
fn loops_that_are_not_counted() {
    // Two exits (a `break` on a value): no counted test.
    let text = "
const c0: u32 = 0
const c1: u32 = 1
const c2: u32 = 10
callable @f(u32) -> u32 {
block0(v0: u32):
    br block1(c0)
block1(v1: u32):
    v3: bool = lt v1, c2
    cond_br v3, block2, block3
block2:
    v4: bool = eq v1, v0
    cond_br v4, block3, block4
block4:
    v7: u32 = add v1, c1
    br block1(v7)
block3:
    return v0
}
";
    assert_eq!(trip(text), None);
    // The bound changes in the loop.
    let text = "
const c0: u32 = 0
const c1: u32 = 1
callable @f(u32) -> u32 {
block0(v0: u32):
    br block1(c0, v0)
block1(v1: u32, v2: u32):
    v3: bool = lt v1, v2
    cond_br v3, block2, block3
block2:
    v7: u32 = add v1, c1
    v8: u32 = add v2, c1
    br block1(v7, v8)
block3:
    return v1
}
";
    let m = module(text);
    let f = m.functions.values().next().unwrap();
    let loops = LoopInfo::new(f);
    let lp = loops.loops().next().unwrap();
    let mut se = ScalarEvolution::new(&m, f, &loops);
    // Both are recurrences, but neither side is invariant.
    assert_eq!(se.get(value(2)).constant_rec(lp), None);
    assert!(matches!(se.get(value(2)), Scev::AddRec { .. }));
    assert_eq!(se.exit_test(lp), None);
}

#[test]
fn nested_loops_have_recurrences_per_loop() {
    let text = "
const c0: u32 = 0
const c1: u32 = 1
const c2: u32 = 4
const c3: u32 = 5
callable @f() -> u32 {
block0:
    br block1(c0, c0)
block1(v1: u32, v2: u32):
    v3: bool = lt v1, c2
    cond_br v3, block2(c0, v2), block5
block2(v4: u32, v5: u32):
    v6: bool = lt v4, c3
    cond_br v6, block3, block4
block3:
    v7: u32 = add v5, v1
    v8: u32 = add v4, c1
    br block2(v8, v7)
block4:
    v9: u32 = add v1, c1
    br block1(v9, v5)
block5:
    return v2
}
";
    let m = module(text);
    let f = m.functions.values().next().unwrap();
    let loops = LoopInfo::new(f);
    let outer = loops.loop_with_header(Block::from_u32(1)).unwrap();
    let inner = loops.loop_with_header(Block::from_u32(2)).unwrap();
    let mut se = ScalarEvolution::new(&m, f, &loops);
    assert_eq!(se.trip_count(outer), Some(4));
    assert_eq!(se.trip_count(inner), Some(5));
    // The outer induction variable is invariant in the inner loop.
    let v1 = se.get(value(1));
    assert!(se.is_invariant(&v1, inner) && !se.is_invariant(&v1, outer));
    // v5 += v1 in the inner loop: {v2', +, v1}, a recurrence with a non-constant step.
    match se.get(value(5)) {
        Scev::AddRec { lp, step, .. } => {
            assert_eq!(lp, inner);
            assert_eq!(step.constant_rec(outer), Some((0, 1)));
        }
        other => panic!("{other:?}"),
    }
}

/// Simulates `x stay b` with wrapping arithmetic: the number of stays, or `None` after
/// `limit` steps.
fn simulate(
    stay: StayPredicate,
    scalar: Scalar,
    a: u64,
    s: u64,
    b: u64,
    limit: u64,
) -> Option<u64> {
    let mut x = canonical_scalar_bits(scalar, a);
    for k in 0..limit {
        let (xv, bv) = (value_of(scalar, x), value_of(scalar, b));
        let holds = match stay {
            StayPredicate::Lt => xv < bv,
            StayPredicate::Le => xv <= bv,
            StayPredicate::Gt => xv > bv,
            StayPredicate::Ge => xv >= bv,
            StayPredicate::Eq => xv == bv,
            StayPredicate::Ne => xv != bv,
        };
        if !holds {
            return Some(k);
        }
        x = canonical_scalar_bits(scalar, x.wrapping_add(s));
    }
    None
}

#[test]
fn closed_form_agrees_with_simulation_and_never_guesses() {
    let preds = [
        StayPredicate::Lt,
        StayPredicate::Le,
        StayPredicate::Gt,
        StayPredicate::Ge,
        StayPredicate::Eq,
        StayPredicate::Ne,
    ];
    let scalars = [
        Scalar {
            kind: ScalarKind::Uint,
            bits: 8,
        },
        Scalar {
            kind: ScalarKind::Sint,
            bits: 8,
        },
        Scalar {
            kind: ScalarKind::Uint,
            bits: 32,
        },
        Scalar {
            kind: ScalarKind::Sint,
            bits: 64,
        },
        Scalar {
            kind: ScalarKind::Uint,
            bits: 64,
        },
    ];
    let mut rng = Rng::new(7);
    let (mut known, mut unknown) = (0, 0);
    for _ in 0..20_000 {
        let stay = preds[rng.below(preds.len())];
        let scalar = scalars[rng.below(scalars.len())];
        let pick = |rng: &mut Rng| match rng.below(4) {
            0 => rng.below(20) as u64,
            1 => (rng.below(20) as u64).wrapping_neg(),
            2 => rng.next_u64(),
            _ => u64::MAX - rng.below(300) as u64,
        };
        let (a, b) = (pick(&mut rng), pick(&mut rng));
        let s = match rng.below(3) {
            0 => rng.below(7) as u64,
            1 => (rng.below(7) as u64).wrapping_neg(),
            _ => pick(&mut rng),
        };
        match stays(stay, scalar, a, s, b) {
            Some(k) => {
                known += 1;
                // Small counts are checked step by step; large ones by their end point.
                if k < 1000 {
                    assert_eq!(
                        simulate(stay, scalar, a, s, b, 1001),
                        Some(k),
                        "{stay:?} {scalar:?} {a} {s} {b}"
                    );
                } else {
                    let (va, vs) = (value_of(scalar, a), step_of(scalar, s));
                    let last = va + i128::from(k) * vs;
                    let (lo, hi) = range_of(scalar);
                    assert!(lo <= last && last <= hi);
                }
            }
            None => unknown += 1,
        }
    }
    assert!(
        known > 5000 && unknown > 1000,
        "known {known}, unknown {unknown}"
    );
    // Exhaustive over u8 / i8 with small steps: every loop that ends without wrapping
    // has its count.
    for scalar in &scalars[..2] {
        for a in 0..=255u64 {
            for s in [1u64, 2, 3, 255, 254] {
                for b in [0u64, 1, 7, 127, 128, 200, 255] {
                    for stay in preds {
                        let sim = simulate(stay, *scalar, a, s, b, 600);
                        let closed = stays(stay, *scalar, a, s, b);
                        if let Some(k) = closed {
                            assert_eq!(sim, Some(k), "{stay:?} {scalar:?} a={a} s={s} b={b}");
                        }
                        if let (StayPredicate::Lt, Some(k)) = (stay, sim) {
                            let (va, vs) = (value_of(*scalar, a), step_of(*scalar, s));
                            if vs > 0 && va + i128::from(k) * vs <= range_of(*scalar).1 {
                                assert_eq!(closed, sim, "{scalar:?} a={a} s={s} b={b}");
                            }
                        }
                    }
                }
            }
        }
    }
}
