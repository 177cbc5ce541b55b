// Helper functions as people write them: the SPIR-V driver keeps the ones whose copies
// would be larger than one function (`hash`, `smooth_sum`, `tile_sum`, `shade`) and
// inlines the rest: `bump` takes a pointer, `twice` is called once, `lane` is tiny.
struct Shade {
    colour: vec4f,
    weight: f32,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32, 512>;
@group(0) @binding(1) var<storage, read> src: array<u32, 256>;
@group(0) @binding(2) var<storage, read_write> shades: array<vec4f, 128>;
var<workgroup> tile: array<u32, 64>;

fn hash(x: u32) -> u32 {
    var h = x ^ 0x9e3779b9u;
    h = (h ^ (h >> 16u)) * 0x85ebca6bu;
    h = (h ^ (h >> 13u)) * 0xc2b2ae35u;
    h = h ^ (h >> 16u);
    return h + src[x % 256u];
}

fn smooth_sum(n: u32, seed: u32) -> u32 {
    var acc = 0u;
    for (var k = 0u; k < n; k++) {
        acc = acc + ((seed >> (k % 32u)) & 0xffu) * (k + 1u);
        if (acc > 100000u) {
            acc = acc - 100000u;
        }
    }
    return acc;
}

fn tile_sum(i: u32, value: u32) -> u32 {
    tile[i] = value;
    workgroupBarrier();
    let total = tile[i] + tile[(i + 1u) % 64u] + tile[(i + 63u) % 64u];
    workgroupBarrier();
    return total;
}

fn shade(x: f32, y: f32) -> Shade {
    let c = vec4f(x * 0.5, y * 0.25, x * y, 1.0);
    let w = clamp(x - y, -4.0, 4.0) * 0.125;
    return Shade(c * w + vec4f(0.5), w);
}

fn bump(p: ptr<function, u32>, by: u32) {
    *p = *p + by;
}

fn twice(x: u32) -> u32 {
    return x * 2u + 1u;
}

fn lane(v: vec4f) -> f32 {
    return v.y;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32, @builtin(global_invocation_id) id: vec3u) {
    var count = 0u;
    bump(&count, hash(i));
    bump(&count, hash(i + 64u));
    let a = hash(id.x * 3u) ^ hash(count);
    let b = smooth_sum(i % 9u, a) + smooth_sum(5u, count);
    let t = tile_sum(i, a & 0xffu) + tile_sum(i, b & 0xffu);
    // One slot per invocation of up to two workgroups: no workgroup writes another's.
    let g = id.x % 128u;
    out[g * 4u] = a;
    out[g * 4u + 1u] = b;
    out[g * 4u + 2u] = t;
    out[g * 4u + 3u] = twice(count);
    let s0 = shade(f32(i), f32(i % 7u));
    let s1 = shade(f32(i % 5u), 2.0);
    shades[g] = s0.colour + s1.colour * s1.weight + vec4f(lane(s0.colour));
}
