//! What the CSIR interpreter says a rendered pixel holds: the vertex shader run on the
//! three vertices, the triangle in window coordinates, perspective-correct (or linear,
//! or flat: the last vertex) interpolation of the varyings at a pixel centre, and the
//! fragment shader run there.

use oxir_csir::exec::{self, Inputs, Outputs};
use oxir_csir::{verify, Interp, Limits, Shader};
use std::collections::BTreeMap;

/// How this renderer maps NDC to `gl_FragCoord` and `gl_FragCoord` to read-back rows
/// (measured by the probe draw).
#[derive(Copy, Clone, Debug)]
pub struct Orientation {
    /// `frag_coord.y = (1 + ndc.y) * H / 2` (else `(1 - ndc.y) * H / 2`).
    pub ndc_y_up: bool,
    /// Read-back row 0 holds `frag_coord.y == 0.5` (else `H - 0.5`).
    pub row0_low: bool,
    pub width: u32,
    pub height: u32,
}

impl Orientation {
    /// Window coordinates (`frag_coord.xy`) of an NDC point.
    pub fn window(&self, x: f64, y: f64) -> [f64; 2] {
        let y = if self.ndc_y_up { y } else { -y };
        [
            (1.0 + x) * f64::from(self.width) / 2.0,
            (1.0 + y) * f64::from(self.height) / 2.0,
        ]
    }

    /// The pixel centre stored at read-back (`col`, `row`).
    pub fn centre(&self, col: u32, row: u32) -> [f64; 2] {
        let y = if self.row0_low {
            row
        } else {
            self.height - 1 - row
        };
        [f64::from(col) + 0.5, f64::from(y) + 0.5]
    }
}

/// The three vertex-shader invocations, projected.
pub struct Triangle {
    pub outs: [Outputs; 3],
    /// Window xy, NDC z, 1 / clip w.
    win: [[f64; 2]; 3],
    z: [f64; 3],
    inv_w: [f64; 3],
}

/// Whether every lane is finite.
fn finite(v: &[f32; 4]) -> bool {
    v.iter().all(|x| x.is_finite())
}

impl Triangle {
    /// Runs `vs` on the vertices' `inputs`; `None` unless every position and varying is
    /// finite, every clip w is positive and the NDC coordinates are moderate (|x|, |y|
    /// <= 64, so the rasteriser's guard band keeps the triangle unclipped in xy).
    pub fn new(vs: &Shader, inputs: &[Inputs; 3], o: &Orientation) -> Option<Triangle> {
        let v = verify(vs, &Limits::default()).ok()?;
        let outs: Vec<Outputs> = inputs
            .iter()
            .map(|i| exec::run(&v, i).ok())
            .collect::<Option<_>>()?;
        let outs: [Outputs; 3] = outs.try_into().ok()?;
        let mut win = [[0.0; 2]; 3];
        let (mut z, mut inv_w) = ([0.0; 3], [0.0; 3]);
        for (i, out) in outs.iter().enumerate() {
            let p = out.position?;
            if !finite(&p) || p[3] < 1e-3 || !out.varyings.values().all(finite) {
                return None;
            }
            let w = f64::from(p[3]);
            let (x, y) = (f64::from(p[0]) / w, f64::from(p[1]) / w);
            if x.abs() > 64.0 || y.abs() > 64.0 {
                return None;
            }
            win[i] = o.window(x, y);
            z[i] = f64::from(p[2]) / w;
            inv_w[i] = 1.0 / w;
        }
        Some(Triangle {
            outs,
            win,
            z,
            inv_w,
        })
    }

    /// Screen-space barycentrics of window point `p`, and its least distance (pixels)
    /// to an edge (negative outside).
    pub fn barycentric(&self, p: [f64; 2]) -> ([f64; 3], f64) {
        let [a, b, c] = self.win;
        let edge = |u: [f64; 2], v: [f64; 2], q: [f64; 2]| {
            (v[0] - u[0]) * (q[1] - u[1]) - (v[1] - u[1]) * (q[0] - u[0])
        };
        let area = edge(a, b, c);
        if area.abs() < 1e-9 {
            return ([0.0; 3], -1.0);
        }
        let l = [
            edge(b, c, p) / area,
            edge(c, a, p) / area,
            edge(a, b, p) / area,
        ];
        let len = |u: [f64; 2], v: [f64; 2]| (v[0] - u[0]).hypot(v[1] - u[1]);
        let heights = [
            area.abs() / len(b, c),
            area.abs() / len(c, a),
            area.abs() / len(a, b),
        ];
        let dist = (0..3)
            .map(|i| l[i] * heights[i])
            .fold(f64::INFINITY, f64::min);
        (l, dist)
    }

    /// NDC z at screen barycentrics `l`.
    pub fn ndc_z(&self, l: [f64; 3]) -> f64 {
        (0..3).map(|i| l[i] * self.z[i]).sum()
    }

    /// The fragment inputs at window point `p` (screen barycentrics `l`); `interp` gives
    /// each vertex varying slot's interpolation.
    pub fn fragment(&self, p: [f64; 2], l: [f64; 3], interp: &BTreeMap<u16, Interp>) -> Inputs {
        let persp: Vec<f64> = (0..3).map(|i| l[i] * self.inv_w[i]).collect();
        let sum: f64 = persp.iter().sum();
        let mut varyings = BTreeMap::new();
        for (&slot, &mode) in interp {
            let weights = match mode {
                Interp::Perspective => [persp[0] / sum, persp[1] / sum, persp[2] / sum],
                Interp::Linear => l,
                Interp::Flat => [0.0, 0.0, 1.0],
            };
            let lane = |k: usize| {
                let at =
                    |i: usize| f64::from(self.outs[i].varyings.get(&slot).map_or(0.0, |v| v[k]));
                (weights[0] * at(0) + weights[1] * at(1) + weights[2] * at(2)) as f32
            };
            varyings.insert(slot, std::array::from_fn(lane));
        }
        let z = self.ndc_z(l) * 0.5 + 0.5;
        Inputs {
            varyings,
            frag_coord: [p[0] as f32, p[1] as f32, z as f32, sum as f32],
            ..Inputs::default()
        }
    }
}

/// The pixel bound: relative 1e-3 plus absolute 1e-4 plus `slack` (NaN equals NaN).
pub fn close(got: f32, want: f32, slack: f32) -> bool {
    (got.is_nan() && want.is_nan())
        || got == want
        || (got - want).abs() <= 1e-3 * got.abs().max(want.abs()) + 1e-4 + slack
}
