// Regression shapes for the CSIR back-end, one per defect of the seed compiler: a
// matrix built from columns and used in a product (its columns must survive dead-code
// elimination), vector times matrix, a constant assigned in one branch only, and a
// fragment shader reading gl_FragCoord with eight varyings (the position input must not
// collide with a varying).
// Written for oxir's CSIR back-end tests.

struct Params {
    a: vec4<f32>,
    b: vec4<f32>,
    m: mat3x3<f32>,
    bias: f32,
}

@group(0) @binding(0) var<uniform> params: Params;

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) v0: vec4<f32>,
    @location(1) v1: vec3<f32>,
    @location(2) v2: vec2<f32>,
    @location(3) v3: f32,
    @location(4) v4: vec4<f32>,
    @location(5) v5: vec4<f32>,
    @location(6) v6: vec2<f32>,
    @location(7) v7: f32,
}

@vertex
fn vs_regress(@location(0) p: vec4<f32>, @location(1) q: vec3<f32>) -> Out {
    var out: Out;
    let local = mat4x4<f32>(params.a, params.b, p, vec4<f32>(q, 1.0));
    out.clip = local * vec4<f32>(0.5, -1.0, 2.0, 0.25);
    out.v0 = p * local;
    var x = 0.0;
    if p.x > params.bias {
        x = 1.0;
    }
    out.v1 = params.m * q + vec3<f32>(x);
    out.v2 = q.xy * x;
    out.v3 = dot(q, params.m[1]);
    out.v4 = vec4<f32>(transpose(params.m) * q, x);
    out.v5 = abs(p) - sign(p) + saturate(p) * step(vec4<f32>(0.0), p);
    out.v6 = fract(q.xy) + floor(q.yz) + ceil(q.zx);
    out.v7 = smoothstep(-1.0, 1.0, q.z) + exp2(q.x) + distance(p.xy, q.xy);
    return out;
}

@fragment
fn fs_regress(in: Out) -> @location(0) vec4<f32> {
    var c = in.v0 + in.v4 + in.v5 + vec4<f32>(in.v1, in.v3) + vec4<f32>(in.v2, in.v6) + vec4<f32>(in.v7);
    c = c + in.clip * 0.001;
    if in.v3 > 0.0 {
        c.x = 0.0;
    } else {
        if in.v7 < 1.0 {
            c = c * faceForward(vec4<f32>(1.0), in.v0, in.v4);
        }
    }
    return c;
}
