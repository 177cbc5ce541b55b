// Memory: storage and uniform buffers with struct and array access chains, runtime-sized
// arrays and arrayLength, workgroup and private variables, locals with and without
// initializers, pointers passed to functions, every atomic operation (compare-exchange
// included), workgroupUniformLoad and both barriers.
// Written for oxir's front-end tests.

struct Particle {
    position: vec3<f32>,
    mass: f32,
    velocity: vec3<f32>,
    flags: u32,
}

struct Particles {
    count: u32,
    items: array<Particle>,
}

struct Params {
    gravity: vec4<f32>,
    steps: array<vec4<u32>, 2>,
    transform: mat4x4<f32>,
}

struct Counters {
    hits: atomic<u32>,
    signed_total: atomic<i32>,
    histogram: array<atomic<u32>, 4>,
}

@group(0) @binding(0) var<storage, read_write> particles: Particles;
@group(0) @binding(1) var<uniform> params: Params;
@group(0) @binding(2) var<storage, read_write> counters: Counters;
@group(0) @binding(3) var<storage, read> weights: array<f32>;

var<workgroup> tile: array<f32, 64>;
var<workgroup> shared_count: atomic<u32>;
var<workgroup> leader_value: u32;
var<private> seed: u32 = 17u;
var<private> scratch: array<f32, 4>;

fn bump(counter: ptr<function, u32>, by: u32) {
    *counter = *counter + by;
}

fn advance(p: ptr<function, Particle>, dt: f32) {
    (*p).position += (*p).velocity * dt;
    (*p).velocity.y -= params.gravity.y * dt;
}

fn next_random() -> u32 {
    seed = seed * 1664525u + 1013904223u;
    return seed;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let n = arrayLength(&particles.items);
    let weight_count = arrayLength(&weights);
    var visits: u32;
    var local_particle = Particle(vec3<f32>(0.0), 1.0, vec3<f32>(0.0, 1.0, 0.0), 0u);
    if gid.x < n {
        local_particle = particles.items[gid.x];
        advance(&local_particle, 0.016);
        particles.items[gid.x] = local_particle;
        particles.items[gid.x].flags |= 1u;
        bump(&visits, 2u);
    }
    let step = params.steps[gid.x % 2u][gid.y % 4u];
    let moved = params.transform * vec4<f32>(local_particle.position, 1.0);
    scratch[lid % 4u] = moved.x + f32(step);
    tile[lid] = weights[gid.x % max(weight_count, 1u)] + scratch[0];

    workgroupBarrier();
    storageBarrier();

    let old = atomicAdd(&counters.hits, 1u);
    atomicSub(&counters.signed_total, 3);
    atomicMax(&counters.signed_total, -7);
    atomicMin(&counters.signed_total, 100);
    atomicAnd(&counters.histogram[0], 0xffu);
    atomicOr(&counters.histogram[1], 0x100u);
    atomicXor(&counters.histogram[2], old);
    let swapped = atomicExchange(&counters.histogram[3], visits);
    let exchange = atomicCompareExchangeWeak(&counters.hits, 5u, swapped);
    if exchange.exchanged {
        atomicStore(&counters.histogram[0], exchange.old_value);
    }
    let loaded = atomicLoad(&counters.hits);
    atomicAdd(&shared_count, loaded);
    if lid == 0u {
        leader_value = next_random();
    }
    let uniform_value = workgroupUniformLoad(&leader_value);
    particles.count = uniform_value + atomicLoad(&shared_count) + u32(tile[63u - lid]);
}
