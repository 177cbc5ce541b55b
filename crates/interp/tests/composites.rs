//! Vectors, matrices, composites, struct layout in memory and single vertex / fragment
//! invocations, against values computed in Rust.

mod common;
use common::*;
use oxir_interp::{Buffers, StageInputs, Val};

const KERNEL: &str = "
struct Padded { a: f32, v: vec3<f32>, b: u32, m: mat2x2<f32> }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read_write> padded: Padded;
@group(0) @binding(2) var<storage, read_write> ints: array<i32>;

@compute @workgroup_size(1)
fn main() {
    let a = vec3<f32>(1.0, 2.0, 3.0);
    let b = vec3<f32>(-4.0, 0.5, 2.0);
    out[0] = dot(a, b);
    let c = cross(a, b);
    out[1] = c.x; out[2] = c.y; out[3] = c.z;
    out[4] = length(vec2<f32>(3.0, 4.0));
    out[5] = distance(a, b);
    let n = normalize(vec2<f32>(3.0, 4.0));
    out[6] = n.x; out[7] = n.y;
    let m = mat2x2<f32>(vec2<f32>(1.0, 2.0), vec2<f32>(3.0, 4.0));
    let mv = m * vec2<f32>(5.0, 6.0);
    out[8] = mv.x; out[9] = mv.y;
    let vm = vec2<f32>(5.0, 6.0) * m;
    out[10] = vm.x; out[11] = vm.y;
    let mm = m * m;
    out[12] = mm[0].x; out[13] = mm[0].y; out[14] = mm[1].x; out[15] = mm[1].y;
    out[16] = determinant(m);
    let t = transpose(m);
    out[17] = t[0].y;
    let r = reflect(vec2<f32>(1.0, -1.0), vec2<f32>(0.0, 1.0));
    out[18] = r.x; out[19] = r.y;
    let s = select(vec2<f32>(1.0, 2.0), vec2<f32>(3.0, 4.0), vec2<bool>(true, false));
    out[20] = s.x; out[21] = s.y;
    let sw = a.zyx;
    out[22] = sw.x;
    var arr = array<f32, 4>(1.0, 2.0, 3.0, 4.0);
    let i = u32(out[0]) % 4u;
    arr[i] = 10.0;
    out[23] = arr[0] + arr[1] + arr[2] + arr[3];
    out[24] = f32(any(vec2<bool>(false, true))) + 2.0 * f32(all(vec2<bool>(false, true)));
    padded.a = 1.0;
    padded.v = a;
    padded.b = 7u;
    padded.m = m;
    let bits = bitcast<vec2<u32>>(vec2<f32>(1.0, -2.0));
    ints[0] = i32(bits.x);
    ints[1] = i32(bits.y);
    ints[2] = dot(vec3<i32>(1, -2, 3), vec3<i32>(4, 5, 6));
    ints[3] = countOneBits(-1);
    ints[4] = i32(arrayLength(&ints));
}
";

#[test]
fn vector_and_matrix_operations() {
    let module = compile_wgsl(KERNEL);
    let a = [1.0f32, 2.0, 3.0];
    let b = [-4.0f32, 0.5, 2.0];
    let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    let dist = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
    // WGSL select(f, t, c) picks t where c. m columns (1,2), (3,4): m * (5,6) = (1*5+3*6, 2*5+4*6)
    let expected_prefix = [
        dot, cross[0], cross[1], cross[2], 5.0, dist, 0.6, 0.8, 23.0, 34.0, 17.0, 39.0,
        // m*m: columns m*(1,2) = (7,10), m*(3,4) = (15,22)
        7.0, 10.0, 15.0, 22.0, -2.0, 3.0, 1.0, 1.0, 3.0, 2.0, 3.0,
    ];
    let mut arr = [1.0f32, 2.0, 3.0, 4.0];
    arr[(dot as u32 % 4) as usize] = 10.0;
    let sum: f32 = arr.iter().sum();
    for m in [module.clone(), normalized(&module), structurized(&module)] {
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), vec![0; 4 * 32]);
        buffers.insert((0, 2), vec![0; 4 * 8]);
        run(&m, "main", [1, 1, 1], &mut buffers);
        let out = f32s(&buffers[&(0, 0)]);
        for (i, e) in expected_prefix.iter().enumerate() {
            assert!(
                (out[i] - e).abs() < 1e-6,
                "out[{i}] = {}, expected {e}",
                out[i]
            );
        }
        assert_eq!(out[23], sum);
        assert_eq!(out[24], 1.0);
        // Padded: a @0, v @16 (vec3 align 16), b @28, m @32 (columns 8 bytes apart).
        let p = u32s(&buffers[&(0, 1)]);
        assert_eq!(buffers[&(0, 1)].len(), 48);
        assert_eq!(f32::from_bits(p[0]), 1.0);
        assert_eq!(
            &p[4..7],
            &[1.0f32.to_bits(), 2.0f32.to_bits(), 3.0f32.to_bits()]
        );
        assert_eq!(p[7], 7);
        assert_eq!(&p[8..12], &[1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits));
        let ints = u32s(&buffers[&(0, 2)]);
        assert_eq!(ints[0], 0x3f80_0000);
        assert_eq!(ints[1], (-2.0f32).to_bits());
        assert_eq!(ints[2] as i32, 4 - 10 + 18);
        assert_eq!(ints[3], 32);
        assert_eq!(ints[4], 8);
    }
}

#[test]
fn fragment_and_vertex_single_invocations() {
    let module = compile_wgsl(
        "@vertex fn vs(@builtin(vertex_index) i: u32, @location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> {
             return vec4<f32>(p * f32(i), 0.0, 1.0);
         }
         @fragment fn fs(@builtin(position) c: vec4<f32>) -> @location(0) vec4<f32> {
             if c.x < 0.0 { discard; }
             return vec4<f32>(c.x * 0.5, c.y, 0.0, 1.0);
         }",
    );
    let mut buffers = Buffers::new();
    let inputs = StageInputs {
        vertex_index: 3,
        locations: vec![Val::V(
            [2.0f32, -1.0]
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect(),
        )],
        ..StageInputs::default()
    };
    let out = oxir_interp::run_single(&module, "vs", &inputs, &mut buffers, &Default::default())
        .unwrap()
        .unwrap();
    let lanes: Vec<f32> = out[0]
        .lanes()
        .iter()
        .map(|&b| f32::from_bits(b as u32))
        .collect();
    assert_eq!(lanes, [6.0, -3.0, 0.0, 1.0]);
    let inputs = StageInputs {
        frag_coord: [4.0, 2.0, 0.5, 1.0],
        ..StageInputs::default()
    };
    let out = oxir_interp::run_single(&module, "fs", &inputs, &mut buffers, &Default::default())
        .unwrap()
        .unwrap();
    let lanes: Vec<f32> = out[0]
        .lanes()
        .iter()
        .map(|&b| f32::from_bits(b as u32))
        .collect();
    assert_eq!(lanes, [2.0, 2.0, 0.0, 1.0]);
    let inputs = StageInputs {
        frag_coord: [-4.0, 2.0, 0.5, 1.0],
        ..StageInputs::default()
    };
    let out =
        oxir_interp::run_single(&module, "fs", &inputs, &mut buffers, &Default::default()).unwrap();
    assert!(out.is_none(), "discarded");
}

#[test]
fn every_atomic_operation() {
    let module = compile_wgsl(
        "@group(0) @binding(0) var<storage, read_write> a: array<atomic<i32>, 12>;
         @group(0) @binding(1) var<storage, read_write> old: array<i32, 12>;
         @compute @workgroup_size(1)
         fn main() {
             old[0] = atomicAdd(&a[0], 5);
             old[1] = atomicSub(&a[1], 5);
             old[2] = atomicAnd(&a[2], 6);
             old[3] = atomicOr(&a[3], 6);
             old[4] = atomicXor(&a[4], 6);
             old[5] = atomicMin(&a[5], -7);
             old[6] = atomicMax(&a[6], -7);
             old[7] = atomicExchange(&a[7], 99);
             let r = atomicCompareExchangeWeak(&a[8], 3, 30);
             old[8] = r.old_value + i32(r.exchanged) * 1000;
             let q = atomicCompareExchangeWeak(&a[9], 4, 40);
             old[9] = q.old_value + i32(q.exchanged) * 1000;
             atomicStore(&a[10], -1);
             old[10] = atomicLoad(&a[10]);
             old[11] = atomicAdd(&a[11], 1);
         }",
    );
    let init: [i32; 12] = [10, 10, 3, 3, 3, -3, -3, 1, 3, 3, 0, i32::MAX];
    let bytes: Vec<u8> = init.iter().flat_map(|x| x.to_le_bytes()).collect();
    for m in [module.clone(), normalized(&module), structurized(&module)] {
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), bytes.clone());
        run(&m, "main", [1, 1, 1], &mut buffers);
        let a: Vec<i32> = u32s(&buffers[&(0, 0)]).iter().map(|&x| x as i32).collect();
        let old: Vec<i32> = u32s(&buffers[&(0, 1)]).iter().map(|&x| x as i32).collect();
        assert_eq!(a, [15, 5, 2, 7, 5, -7, -3, 99, 30, 3, -1, i32::MIN]);
        assert_eq!(old, [10, 10, 3, 3, 3, -3, -3, 1, 1003, 3, -1, i32::MAX]);
    }
}

#[test]
fn dynamic_indexing_of_values() {
    let module = compile_wgsl(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(1)
         fn main() {
             let i = out[0];
             var v = vec4<u32>(10u, 11u, 12u, 13u);
             let arr = array<u32, 3>(7u, 8u, 9u);
             out[1] = v[i];
             out[2] = arr[i];
             v[i] = 99u;
             out[3] = v.x + v.y + v.z + v.w;
         }",
    );
    for (index, expected) in [
        (2u32, [12, 9, 10 + 11 + 99 + 13]),
        (1, [11, 8, 10 + 99 + 12 + 13]),
    ] {
        for m in [module.clone(), normalized(&module), structurized(&module)] {
            let mut buffers = Buffers::new();
            buffers.insert((0, 0), from_u32s(&[index, 0, 0, 0]));
            run(&m, "main", [1, 1, 1], &mut buffers);
            assert_eq!(&u32s(&buffers[&(0, 0)])[1..], &expected);
        }
    }
}

/// `insert_dynamic agg, elem, index` replaces element `index`; a 64-bit dynamic index
/// past the composite is out of range even when its low 32 bits are in range:
/// `extract_dynamic` reads zero, `insert_dynamic` changes nothing.
#[test]
fn insert_dynamic_operand_order_and_wide_indices() {
    let module = oxir_ir::parser::parse_module(
        "
global @out: storage(read_write) array<u32> binding(0, 0)
const c0: u32 = 0
const c1: u32 = 1
const c2: u32 = 7
const c3: u64 = 4294967297
const c4: vec2<u32> = [c0, c1]
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: vec2<u32> = insert_dynamic c4, c2, c3
    v5: vec2<u32> = insert_dynamic c4, c2, c1
    v6: u32 = extract v5, 1
    v7: ptr<storage(read_write), u32> = access @out, c2
    store v7, v6
    v1: u32 = extract v0, 1
    v2: ptr<storage(read_write), u32> = access @out, c0
    store v2, v1
    v3: u32 = extract_dynamic c4, c3
    v4: ptr<storage(read_write), u32> = access @out, c1
    store v4, v3
    return
}",
    )
    .unwrap();
    let mut buffers = Buffers::new();
    buffers.insert((0, 0), from_u32s(&[5; 8]));
    run(&module, "main", [1, 1, 1], &mut buffers);
    assert_eq!(u32s(&buffers[&(0, 0)]), [1, 0, 5, 5, 5, 5, 5, 7]);
}
