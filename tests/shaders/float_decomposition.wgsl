// WGSL's float decomposition built-ins on hand-picked inputs: `ldexp`, `frexp` and `modf`,
// scalar (workgroup 0) and vec2 (workgroup 1) forms. Each input pairs a value with an
// exponent that keeps every result a normal float (or zero), so no target may flush it:
// positive and negative values, zero, an integer (modf's fraction is -0 for -2), a value
// just above the smallest normal (1.5e-38) and one near the largest (-3e38).
// Run with `--dispatch 2`.

const XS = array<f32, 8>(1.5, -1.5, 0.0, -2.0, 1.5e-38, -3.0e38, 0.1, 1234.75);
const ES = array<i32, 8>(3, -2, 100, -5, 10, -100, 126, -126);

// Scalar forms: per invocation i < 8, out_f[8i..8i+4] = ldexp, frexp.fract, modf.fract,
// modf.whole, out_i[4i] = frexp.exp. Vector forms: per invocation i >= 8, out_f[8i..8i+8]
// = ldexp (2 lanes), frexp.fract, modf.fract, modf.whole; out_i[4i..4i+2] = frexp.exp.
@group(0) @binding(0) var<storage, read_write> out_f: array<f32, 128>;
@group(0) @binding(1) var<storage, read_write> out_i: array<i32, 64>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let k = i % 8u;
    var xs = XS;
    var es = ES;
    let f = i * 8u;
    let n = i * 4u;
    if (i < 8u) {
        let x = xs[k];
        out_f[f] = ldexp(x, es[k]);
        let fr = frexp(x);
        out_f[f + 1u] = fr.fract;
        out_i[n] = fr.exp;
        let m = modf(x);
        out_f[f + 2u] = m.fract;
        out_f[f + 3u] = m.whole;
    } else {
        let j = (k + 1u) % 8u;
        let v = vec2<f32>(xs[k], xs[j]);
        let l = ldexp(v, vec2<i32>(es[k], es[j]));
        out_f[f] = l.x;
        out_f[f + 1u] = l.y;
        let fr = frexp(v);
        out_f[f + 2u] = fr.fract.x;
        out_f[f + 3u] = fr.fract.y;
        out_i[n] = fr.exp.x;
        out_i[n + 1u] = fr.exp.y;
        let m = modf(v);
        out_f[f + 4u] = m.fract.x;
        out_f[f + 5u] = m.fract.y;
        out_f[f + 6u] = m.whole.x;
        out_f[f + 7u] = m.whole.y;
    }
}
