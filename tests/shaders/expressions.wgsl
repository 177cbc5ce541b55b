// Expressions: composites (vectors, matrices, arrays, structs), swizzles, splats, value
// indexing, every unary and binary operator (matrix products included), select,
// relational built-ins, conversions and bitcasts, and the math, bit and packing built-ins.
// Written for oxir's front-end tests.

enable f16;

struct Pair {
    a: vec2<f32>,
    b: i32,
}

@group(0) @binding(0) var<storage, read_write> floats: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> ints: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> uints: array<vec4<u32>>;

const TABLE = array<f32, 3>(1.0, 2.0, 4.0);

fn composites(x: f32, i: u32) -> vec4<f32> {
    let v2 = vec2<f32>(x, 2.0 * x);
    let v3 = vec3<f32>(v2, x);
    let v4 = vec4<f32>(v3.zyx, 1.0);
    let splatted = vec3<f32>(x);
    let m = mat2x2<f32>(v2, v2.yx);
    let arr = array<f32, 3>(x, x + 1.0, x + 2.0);
    let pair = Pair(v2, i32(i));
    var table = TABLE;
    let dynamic = arr[i % 3u] + table[i % 3u] + v4[i % 4u];
    let column = m[1];
    let swizzled = v4.wzyx + vec4<f32>(splatted.xy, column);
    return swizzled * dynamic + vec4<f32>(pair.a, f32(pair.b), TABLE[2]);
}

fn arithmetic(a: vec4<f32>, b: vec4<f32>, s: f32) -> vec4<f32> {
    let m = mat4x4<f32>(a, b, a + b, a - b);
    let n = transpose(m);
    var r = a + b - a * b / (b + vec4<f32>(1.0));
    r = r % vec4<f32>(3.0);
    r += m * a;
    r += a * m;
    r += (m * n)[2];
    r += (m * s)[0] + s * a + a * s;
    r = -r;
    r += vec4<f32>((m + n)[1].x, (m - n)[3].w, determinant(m), 0.0);
    return r;
}

fn integer_ops(a: vec4<i32>, b: vec4<u32>) -> vec4<i32> {
    var r = a + vec4<i32>(b) * 3 - a / vec4<i32>(2) % vec4<i32>(5);
    r = r & vec4<i32>(0xff) | vec4<i32>(0x100) ^ (a << vec4<u32>(1u)) ;
    r += (a >> b % vec4<u32>(8u));
    r += ~a;
    r += vec4<i32>(b << vec4<u32>(2u) >> vec4<u32>(1u));
    return -r;
}

fn logic(a: vec4<f32>, b: vec4<f32>, flag: bool) -> vec4<f32> {
    let lt = a < b;
    let le = a <= b;
    let gt = a > b;
    let ge = a >= b;
    let eq = a == b;
    let ne = a != b;
    let mixed = (lt & le) | (gt != ge) | !(eq & ne);
    let both = flag && any(mixed);
    let either = flag || all(mixed);
    let chosen = select(a, b, mixed);
    let scalar_choice = select(1.0, 2.0, both != either);
    return chosen * scalar_choice;
}

fn conversions(f: f32, i: i32, u: u32) -> vec4<f32> {
    let fi = i32(f);
    let fu = u32(f);
    let iu = u32(i);
    let ui = i32(u);
    let bf = bool(f);
    let fb = f32(bf);
    let bits = bitcast<u32>(f);
    let back = bitcast<f32>(bits ^ 0x80000000u);
    let ibits = bitcast<vec2<i32>>(vec2<u32>(u, iu));
    let halves = vec2<f32>(vec2<f16>(f16(f)));
    let wide = vec3<f32>(vec3<i32>(fi, ui, ibits.x));
    return vec4<f32>(wide, fb + back + f32(fu) + halves.x);
}

fn math(x: vec3<f32>, y: vec3<f32>, t: f32) -> vec3<f32> {
    var r = abs(x) + min(x, y) + max(x, y) + clamp(x, vec3<f32>(0.0), vec3<f32>(1.0));
    r += saturate(x) + cos(x) + cosh(x) + sin(x) + sinh(x) + tan(x) + tanh(x);
    r += acos(saturate(x)) + asin(saturate(x)) + atan(x) + atan2(x, y);
    r += asinh(x) + acosh(x + 2.0) + atanh(saturate(x) * 0.5);
    r += radians(x) + degrees(x) + ceil(x) + floor(x) + round(x) + fract(x) + trunc(x);
    r += exp(x) + exp2(x) + log(abs(x) + 1.0) + log2(abs(x) + 1.0) + pow(abs(x), y);
    r += vec3<f32>(dot(x, y), distance(x, y), length(x));
    r += cross(x, y) + normalize(x + 1.0) + faceForward(x, y, x) + reflect(x, y);
    r += refract(normalize(x + 1.0), normalize(y + 1.0), 0.5);
    r += sign(x) + fma(x, y, x) + mix(x, y, t) + mix(x, y, x) + step(y, x);
    r += smoothstep(vec3<f32>(0.0), vec3<f32>(1.0), x) + sqrt(abs(x)) + inverseSqrt(abs(x) + 1.0);
    r += quantizeToF16(x);
    let split = modf(x);
    r += split.fract + split.whole;
    return r;
}

fn bits(a: vec2<u32>, b: i32) -> vec4<u32> {
    var r = countTrailingZeros(a) + countLeadingZeros(a) + countOneBits(a) + reverseBits(a);
    r += extractBits(a, 3u, 5u) + insertBits(a, a.yx, 4u, 8u);
    r += firstTrailingBit(a) + firstLeadingBit(a);
    let s = firstLeadingBit(b) + firstTrailingBit(b) + extractBits(b, 1u, 4u);
    let packed = pack4x8snorm(vec4<f32>(0.5)) + pack4x8unorm(vec4<f32>(0.25)) + pack2x16snorm(vec2<f32>(-0.5))
        + pack2x16unorm(vec2<f32>(0.75)) + pack2x16float(vec2<f32>(1.5)) + pack4xI8(vec4<i32>(b))
        + pack4xU8(a.xyxy) + pack4xI8Clamp(vec4<i32>(b)) + pack4xU8Clamp(a.xyxy);
    let unpacked = unpack4x8snorm(a.x) + unpack4x8unorm(a.y) + unpack2x16snorm(a.x).xyxy
        + unpack2x16unorm(a.y).xyxy + unpack2x16float(a.x).xyxy;
    let lanes = unpack4xI8(a.x) + vec4<i32>(unpack4xU8(a.y));
    let dots = dot4I8Packed(a.x, a.y) + i32(dot4U8Packed(a.y, a.x)) + dot(vec2<i32>(b), vec2<i32>(2, 3));
    return vec4<u32>(r, u32(s) + packed, u32(dots + lanes.x) + u32(unpacked.x));
}

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    let a = floats[i];
    let b = floats[i + 1u];
    floats[i] = composites(a.x, i) + arithmetic(a, b, b.w) + logic(a, b, i > 3u)
        + conversions(a.x, ints[i].x, uints[i].x) + vec4<f32>(math(a.xyz, b.xyz, a.w), 0.0);
    ints[i] = integer_ops(ints[i], uints[i]);
    uints[i] = bits(uints[i].xy, ints[i].z);
}
