//! Instruction semantics against hand-computed values, edge cases included (NaN,
//! infinities, -0.0, overflow, shifts ≥ width, division by zero, out-of-range
//! conversions). Each case is a one-instruction `.oxir` kernel storing its result.

use oxir_interp::Buffers;

/// Evaluates `op` on constant operands of the given types and returns the result's
/// low 32 (or 64) bits as stored in memory (bools converted to u32).
fn eval(op: &str, result: &str, operands: &[(&str, &str)]) -> u64 {
    let mut text = String::new();
    let store_ty = if result == "bool" { "u32" } else { result };
    text.push_str(&format!(
        "global @out: storage(read_write) array<{store_ty}, 4> binding(0, 0)\nconst c99: u32 = 0\n"
    ));
    for (i, (ty, v)) in operands.iter().enumerate() {
        text.push_str(&format!("const c{i}: {ty} = {}\n", v));
    }
    let args: Vec<String> = (0..operands.len()).map(|i| format!("c{i}")).collect();
    text.push_str("kernel @main() workgroup_size(1, 1, 1) {\nblock0:\n");
    text.push_str(&format!("    v0: {result} = {op} {}\n", args.join(", ")));
    let stored = if result == "bool" {
        text.push_str("    v1: u32 = convert v0\n");
        "v1"
    } else {
        "v0"
    };
    text.push_str(&format!(
        "    v2: ptr<storage(read_write), {store_ty}> = access @out, c99\n    store v2, {stored}\n    return\n}}\n"
    ));
    let module = oxir_ir::parser::parse_module(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let report = oxir_ir::verifier::verify_module(&module, &Default::default());
    assert!(report.succeeded(), "{text}\n{:?}", report.errors);
    let mut buffers = Buffers::new();
    oxir_interp::dispatch(
        &module,
        "main",
        [1, 1, 1],
        &mut buffers,
        &Default::default(),
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let bytes = &buffers[&(0, 0)];
    let mut raw = [0u8; 8];
    let n = match store_ty {
        "i64" | "u64" | "f64" => 8,
        "i16" | "u16" | "f16" => 2,
        _ => 4,
    };
    raw[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(raw)
}

fn i32op(op: &str, a: i32, b: i32) -> i32 {
    eval(
        op,
        "i32",
        &[("i32", &a.to_string()), ("i32", &b.to_string())],
    ) as u32 as i32
}

fn u32op(op: &str, a: u32, b: u32) -> u32 {
    eval(
        op,
        "u32",
        &[("u32", &a.to_string()), ("u32", &b.to_string())],
    ) as u32
}

fn fstr(x: f32) -> String {
    if x.is_nan() {
        "nan(0x7fc00000)".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{x:?}")
    }
}

fn f32op(op: &str, args: &[f32]) -> f32 {
    let strs: Vec<String> = args.iter().map(|&x| fstr(x)).collect();
    let operands: Vec<(&str, &str)> = strs.iter().map(|s| ("f32", s.as_str())).collect();
    f32::from_bits(eval(op, "f32", &operands) as u32)
}

fn fcmp(op: &str, a: f32, b: f32) -> bool {
    eval(op, "bool", &[("f32", &fstr(a)), ("f32", &fstr(b))]) != 0
}

fn conv(from: &str, value: &str, to: &str) -> u64 {
    eval("convert", to, &[(from, value)])
}

#[test]
fn integer_arithmetic_wraps() {
    assert_eq!(i32op("add", i32::MAX, 1), i32::MIN);
    assert_eq!(i32op("sub", i32::MIN, 1), i32::MAX);
    assert_eq!(i32op("mul", 65536, 65536), 0);
    assert_eq!(i32op("mul", -3, 7), -21);
    assert_eq!(u32op("add", u32::MAX, 1), 0);
    assert_eq!(u32op("sub", 3, 5), 4294967294);
    assert_eq!(
        eval("neg", "i32", &[("i32", "-2147483648")]) as u32,
        0x8000_0000
    );
    assert_eq!(
        eval("abs", "i32", &[("i32", "-2147483648")]) as u32,
        0x8000_0000
    );
    assert_eq!(eval("abs", "i32", &[("i32", "-5")]) as u32, 5);
    assert_eq!(eval("sign", "i32", &[("i32", "-5")]) as u32 as i32, -1);
    assert_eq!(eval("add", "u8", &[("u8", "200"), ("u8", "100")]) as u8, 44);
    assert_eq!(
        eval(
            "add",
            "i64",
            &[("i64", "9223372036854775807"), ("i64", "1")]
        ),
        1 << 63
    );
}

#[test]
fn integer_division_is_wgsl() {
    assert_eq!(i32op("div", 7, 0), 7);
    assert_eq!(i32op("div", i32::MIN, -1), i32::MIN);
    assert_eq!(i32op("div", -7, 2), -3);
    assert_eq!(i32op("rem", -7, 2), -1);
    assert_eq!(i32op("rem", 7, -2), 1);
    assert_eq!(i32op("rem", 7, 0), 0);
    assert_eq!(i32op("rem", i32::MIN, -1), 0);
    assert_eq!(u32op("div", 7, 0), 7);
    assert_eq!(u32op("div", u32::MAX, 2), 0x7fff_ffff);
    assert_eq!(u32op("rem", 7, 0), 0);
    assert_eq!(
        eval(
            "div",
            "i64",
            &[("i64", "-9223372036854775808"), ("i64", "-1")]
        ),
        1 << 63
    );
}

#[test]
fn shifts_are_masked_to_the_width() {
    assert_eq!(u32op("shl", 1, 33), 2);
    assert_eq!(u32op("shl", 1, 32), 1);
    assert_eq!(u32op("shl", 0xffff_ffff, 4), 0xffff_fff0);
    assert_eq!(u32op("shr", 0x8000_0000, 31), 1);
    assert_eq!(u32op("shr", 0x8000_0000, 63), 1);
    assert_eq!(i32op("shr", -8, 1), -4);
    assert_eq!(i32op("shr", -8, 33), -4);
    assert_eq!(i32op("shl", 1, 31), i32::MIN);
    assert_eq!(u32op("rotl", 0x8000_0001, 1), 3);
    assert_eq!(u32op("rotr", 3, 1), 0x8000_0001);
    assert_eq!(u32op("rotl", 0x1234_5678, 32), 0x1234_5678);
    assert_eq!(eval("shl", "u8", &[("u8", "1"), ("u8", "9")]) as u8, 2);
}

#[test]
fn bit_operations() {
    let un = |op: &str, v: &str| eval(op, "u32", &[("u32", v)]) as u32;
    assert_eq!(un("count_ones", "4294967295"), 32);
    assert_eq!(un("count_leading_zeros", "0"), 32);
    assert_eq!(un("count_leading_zeros", "1"), 31);
    assert_eq!(un("count_trailing_zeros", "0"), 32);
    assert_eq!(un("count_trailing_zeros", "8"), 3);
    assert_eq!(un("reverse_bits", "1"), 0x8000_0000);
    assert_eq!(un("not", "0"), u32::MAX);
    assert_eq!(u32op("and", 0b1100, 0b1010), 0b1000);
    assert_eq!(u32op("or", 0b1100, 0b1010), 0b1110);
    assert_eq!(u32op("xor", 0b1100, 0b1010), 0b0110);
    let xb = |ty: &str, e: &str, o: &str, c: &str| {
        eval("extract_bits", ty, &[(ty, e), ("u32", o), ("u32", c)]) as u32
    };
    assert_eq!(xb("u32", "240", "4", "4"), 15);
    assert_eq!(xb("i32", "240", "4", "4") as i32, -1);
    assert_eq!(xb("u32", "240", "4", "0"), 0);
    assert_eq!(xb("u32", "4294967295", "30", "8"), 3); // count clamped to 32 - 30
    assert_eq!(xb("u32", "4294967295", "40", "8"), 0); // offset clamped to 32
    let ib = eval(
        "insert_bits",
        "u32",
        &[
            ("u32", "0"),
            ("u32", "4294967295"),
            ("u32", "4"),
            ("u32", "8"),
        ],
    ) as u32;
    assert_eq!(ib, 0xff0);
    assert_eq!(eval("not", "bool", &[("bool", "true")]), 0);
}

#[test]
fn comparisons_signed_unsigned_and_nan() {
    assert_eq!(eval("lt", "bool", &[("i32", "-1"), ("i32", "0")]), 1);
    assert_eq!(
        eval("lt", "bool", &[("u32", "4294967295"), ("u32", "0")]),
        0
    );
    assert_eq!(eval("ge", "bool", &[("u32", "5"), ("u32", "5")]), 1);
    assert!(!fcmp("eq", f32::NAN, f32::NAN));
    assert!(fcmp("ne", f32::NAN, f32::NAN));
    assert!(!fcmp("lt", f32::NAN, 1.0));
    assert!(!fcmp("ge", f32::NAN, 1.0));
    assert!(fcmp("eq", -0.0, 0.0));
    assert!(fcmp("lt", f32::NEG_INFINITY, f32::MIN));
    assert_eq!(eval("is_nan", "bool", &[("f32", "nan(0x7fc00000)")]), 1);
    assert_eq!(eval("is_inf", "bool", &[("f32", "-inf")]), 1);
    assert_eq!(eval("is_inf", "bool", &[("f32", "1.0")]), 0);
}

#[test]
fn float_arithmetic_is_ieee() {
    assert_eq!(f32op("div", &[1.0, 0.0]), f32::INFINITY);
    assert_eq!(f32op("div", &[-1.0, 0.0]), f32::NEG_INFINITY);
    assert_eq!(f32op("div", &[1.0, -0.0]), f32::NEG_INFINITY);
    assert!(f32op("div", &[0.0, 0.0]).is_nan());
    assert!(f32op("sub", &[f32::INFINITY, f32::INFINITY]).is_nan());
    assert_eq!(f32op("add", &[-0.0, 0.0]).to_bits(), 0);
    assert_eq!(f32op("mul", &[-0.0, 1.0]).to_bits(), 0x8000_0000);
    assert_eq!(f32op("add", &[f32::MAX, f32::MAX]), f32::INFINITY);
    // Round to nearest even: 1 + 2^-24 is exactly between 1 and the next float.
    assert_eq!(f32op("add", &[1.0, 5.9604645e-8]), 1.0);
    assert_eq!(f32op("add", &[0.1, 0.2]), 0.1f32 + 0.2f32);
    assert_eq!(f32op("rem", &[-7.5, 2.0]), -1.5);
    assert!(f32op("sqrt", &[-1.0]).is_nan());
    assert_eq!(f32op("sqrt", &[-0.0]).to_bits(), 0x8000_0000);
    assert_eq!(f32op("neg", &[0.0]).to_bits(), 0x8000_0000);
    assert_eq!(f32op("abs", &[-0.0]).to_bits(), 0);
    assert_eq!(f32op("fma", &[0.1, 10.0, -1.0]), 0.1f32.mul_add(10.0, -1.0));
    assert_ne!(f32op("fma", &[0.1, 10.0, -1.0]), 0.0);
    assert_eq!(f32op("copysign", &[2.0, -0.0]), -2.0);
}

#[test]
fn nan_aware_min_max_and_clamp() {
    assert_eq!(f32op("min", &[f32::NAN, 1.0]), 1.0);
    assert_eq!(f32op("min", &[1.0, f32::NAN]), 1.0);
    assert_eq!(f32op("max", &[f32::NAN, -1.0]), -1.0);
    assert_eq!(f32op("max", &[2.0, f32::NAN]), 2.0);
    assert_eq!(f32op("min", &[f32::NEG_INFINITY, 0.0]), f32::NEG_INFINITY);
    assert_eq!(f32op("clamp", &[5.0, 0.0, 1.0]), 1.0);
    assert_eq!(f32op("clamp", &[-5.0, 0.0, 1.0]), 0.0);
    assert_eq!(f32op("clamp", &[f32::NAN, 0.0, 1.0]), 0.0);
    assert_eq!(i32op("min", -1, 1), -1);
    assert_eq!(u32op("min", u32::MAX, 1), 1);
    let c = eval(
        "clamp",
        "i32",
        &[("i32", "-9"), ("i32", "-3"), ("i32", "3")],
    ) as u32 as i32;
    assert_eq!(c, -3);
}

#[test]
fn rounding_and_float_math() {
    assert_eq!(f32op("round", &[2.5]), 3.0);
    assert_eq!(f32op("round", &[-2.5]), -3.0);
    assert_eq!(f32op("round_even", &[2.5]), 2.0);
    assert_eq!(f32op("round_even", &[3.5]), 4.0);
    assert_eq!(f32op("floor", &[-0.5]), -1.0);
    assert_eq!(f32op("ceil", &[-0.5]).to_bits(), 0x8000_0000);
    assert_eq!(f32op("trunc", &[-1.7]), -1.0);
    assert_eq!(f32op("fract", &[-0.25]), 0.75);
    assert_eq!(f32op("saturate", &[1.5]), 1.0);
    assert_eq!(f32op("saturate", &[-1.5]), 0.0);
    assert_eq!(f32op("step", &[1.0, 0.5]), 0.0);
    assert_eq!(f32op("step", &[1.0, 1.0]), 1.0);
    assert_eq!(f32op("mix", &[2.0, 4.0, 0.25]), 2.5);
    assert_eq!(f32op("smoothstep", &[0.0, 1.0, 0.5]), 0.5);
    assert_eq!(f32op("sign", &[-3.0]), -1.0);
    assert_eq!(f32op("sign", &[-0.0]).to_bits(), 0x8000_0000);
    assert_eq!(f32op("exp2", &[10.0]), 1024.0);
    assert_eq!(f32op("log2", &[8.0]), 3.0);
    assert_eq!(f32op("log", &[0.0]), f32::NEG_INFINITY);
    assert!(f32op("log", &[-1.0]).is_nan());
    assert_eq!(f32op("inverse_sqrt", &[4.0]), 0.5);
    assert_eq!(f32op("pow", &[2.0, 10.0]), 1024.0);
    assert_eq!(f32op("degrees", &[std::f32::consts::PI]), 180.0);
    assert!((f32op("sin", &[1.0]) - 1.0f32.sin()).abs() < 1e-6);
    assert!((f32op("atan2", &[1.0, 1.0]) - std::f32::consts::FRAC_PI_4).abs() < 1e-6);
}

#[test]
fn conversions_saturate_and_map_nan_to_zero() {
    assert_eq!(conv("f32", "3000000000.0", "i32") as u32 as i32, i32::MAX);
    assert_eq!(conv("f32", "-3000000000.0", "i32") as u32 as i32, i32::MIN);
    assert_eq!(conv("f32", "nan(0x7fc00000)", "i32"), 0);
    assert_eq!(conv("f32", "inf", "u32") as u32, u32::MAX);
    assert_eq!(conv("f32", "-5.0", "u32"), 0);
    assert_eq!(conv("f32", "-1.5", "i32") as u32 as i32, -1);
    assert_eq!(conv("f32", "1.9", "u32"), 1);
    assert_eq!(
        f32::from_bits(conv("u32", "16777217", "f32") as u32),
        16777216.0
    );
    assert_eq!(f32::from_bits(conv("i32", "-7", "f32") as u32), -7.0);
    assert_eq!(conv("i32", "-1", "u32") as u32, u32::MAX);
    assert_eq!(conv("i32", "-1", "i64"), u64::MAX);
    assert_eq!(conv("u32", "4294967295", "u64"), 0xffff_ffff);
    assert_eq!(conv("u32", "300", "u8"), 44);
    assert_eq!(conv("i32", "0", "bool"), 0);
    assert_eq!(conv("i32", "-4", "bool"), 1);
    assert_eq!(conv("f32", "-0.0", "bool"), 0);
    assert_eq!(conv("f32", "nan(0x7fc00000)", "bool"), 1);
    assert_eq!(f32::from_bits(conv("bool", "true", "f32") as u32), 1.0);
    assert_eq!(conv("bool", "true", "u32"), 1);
    // f16 through `half`: 65504 is the largest finite f16; rounding to nearest even.
    assert_eq!(conv("f32", "65504.0", "f16") as u16, 0x7bff);
    assert_eq!(conv("f32", "100000.0", "f16") as u16, 0x7c00);
    assert_eq!(
        conv("f32", "0.33333334", "f16") as u16,
        half::f16::from_f32(1.0 / 3.0).to_bits()
    );
    assert_eq!(
        eval("add", "f16", &[("f16", "65504.0"), ("f16", "65504.0")]) as u16,
        0x7c00
    );
    assert_eq!(f64::from_bits(conv("f32", "0.1", "f64")), f64::from(0.1f32));
}

#[test]
fn bitcasts_reinterpret_bytes() {
    assert_eq!(eval("bitcast", "u32", &[("f32", "1.0")]), 0x3f80_0000);
    assert_eq!(eval("bitcast", "f32", &[("i32", "-1")]) as u32, u32::MAX);
    assert_eq!(
        eval("bitcast", "i32", &[("u32", "4294967295")]) as u32,
        u32::MAX
    );
}
