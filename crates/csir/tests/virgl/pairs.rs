//! Rendering a linked vertex + fragment pair and comparing every pixel centre with the
//! CSIR interpreter (see the test's module doc for the bound).

use super::common::Rng;
use super::expect::{close, Orientation, Triangle};
use super::render::{Draw, Renderer, H, SENTINEL, W};
use super::renderer::Virgl;
use oxir_csir::exec::{self, Inputs, Outputs, Texture};
use oxir_csir::{verify, Interp, Limits, Shader};
use std::collections::BTreeMap;

/// Pixels closer than this (in pixels) to an edge are not compared.
const EDGE_MARGIN: f64 = 0.05;
/// The neighbourhood of a pixel centre the rasteriser may in effect sample (llvmpipe
/// snaps vertices to 1/256 pixel).
const SUBPIXEL: f64 = 1.0 / 256.0;

/// A linked pair with its TGSI.
#[derive(Clone)]
pub struct Pair<'a> {
    pub label: String,
    pub vs: &'a Shader,
    pub fs: &'a Shader,
    pub vs_handle: u32,
    pub fs_handle: u32,
    /// The fragment shader's TGSI (remapped).
    pub fs_tgsi: String,
    pub remap: BTreeMap<u16, u16>,
}

/// Figures over all pairs.
#[derive(Default, Debug)]
pub struct Stats {
    pub pairs: usize,
    pub uncovered_pairs: Vec<String>,
    pub pixels: usize,
    pub discarded: usize,
    pub outside: usize,
    pub skipped: usize,
    pub max_abs: f32,
    pub max_rel: f32,
    /// Lanes outside the bound without the sub-pixel slack (inside with it).
    pub by_slack: usize,
}

/// The uniform slots of `s`, filled from std140 words that depend only on the seed,
/// the block and the word (so both stages see one block's same values).
fn uniforms(s: &Shader, seed: u64) -> Vec<[f32; 4]> {
    let mut out = vec![[0.0; 4]; s.interface.uniform_slots() as usize];
    for u in &s.interface.uniforms {
        for c in 0..u32::from(u.ty.cols) {
            for r in 0..u32::from(u.ty.rows) {
                let word = (u.offset + c * u.column_stride + 4 * r) / 4;
                let key = [
                    seed,
                    u64::from(u.group),
                    u64::from(u.binding),
                    u64::from(word),
                ];
                let v = Rng::new(&key).float();
                out[(u32::from(u.slot) + c) as usize][r as usize] = v;
            }
        }
    }
    out
}

fn textures(fs: &Shader, seed: u64) -> BTreeMap<u16, Texture> {
    let mut out = BTreeMap::new();
    for s in &fs.interface.samplers {
        let (g, b) = s.texture;
        let mut rng = Rng::new(&[seed, u64::from(g), u64::from(b), 1 << 40]);
        let texels = (0..16).map(|_| rng.lanes()).collect();
        out.insert(
            s.slot,
            Texture {
                width: 4,
                height: 4,
                texels,
            },
        );
    }
    out
}

/// The vertex shader's inputs for vertex `k`.
fn vertex(vs: &Shader, seed: u64, k: u64) -> Inputs {
    let mut rng = Rng::new(&[seed, k, 1 << 41]);
    Inputs {
        attributes: vs
            .interface
            .attributes
            .iter()
            .map(|a| (a.slot, rng.lanes()))
            .collect(),
        uniforms: uniforms(vs, seed),
        ..Inputs::default()
    }
}

/// Interior pixel centres of `t`.
fn interior(t: &Triangle, o: &Orientation) -> usize {
    let mut n = 0;
    for row in 0..H {
        for col in 0..W {
            let (l, d) = t.barycentric(o.centre(col, row));
            n += usize::from(d >= EDGE_MARGIN && t.ndc_z(l).abs() < 1.0 - 1e-3);
        }
    }
    n
}

/// The seed (of the first 256) whose triangle covers the most pixel centres.
fn pick(vs: &Shader, o: &Orientation) -> Option<(u64, [Inputs; 3], Triangle)> {
    let mut best: Option<(usize, u64, [Inputs; 3], Triangle)> = None;
    for seed in 0..256 {
        let inputs = [0, 1, 2].map(|k| vertex(vs, seed, k));
        let Some(t) = Triangle::new(vs, &inputs, o) else {
            continue;
        };
        let n = interior(&t, o);
        if n > best.as_ref().map_or(0, |b| b.0) {
            best = Some((n, seed, inputs, t));
        }
        if n as u32 >= W * H / 8 {
            break;
        }
    }
    best.map(|(_, s, i, t)| (s, i, t))
}

/// The TGSI `IN` registers of each vertex (register = attribute slot).
fn registers(inputs: &[Inputs; 3]) -> [Vec<[f32; 4]>; 3] {
    inputs.clone().map(|i| {
        let n = i
            .attributes
            .keys()
            .last()
            .map_or(0, |s| usize::from(*s) + 1);
        (0..n as u16)
            .map(|s| i.attributes.get(&s).copied().unwrap_or([0.0; 4]))
            .collect()
    })
}

/// Renders `p` and compares; `Err` lists the first mismatches.
pub fn check(
    v: &mut Virgl,
    r: &mut Renderer,
    o: &Orientation,
    p: &Pair,
    st: &mut Stats,
) -> Result<(), String> {
    let Some((seed, inputs, tri)) = pick(p.vs, o) else {
        st.uncovered_pairs.push(p.label.clone());
        return Ok(());
    };
    let targets =
        p.fs.interface
            .outputs
            .iter()
            .map(|s| usize::from(s.slot) + 1)
            .max()
            .unwrap_or(1);
    let draw = Draw {
        vs: p.vs_handle,
        fs: p.fs_handle,
        vertices: registers(&inputs),
        vs_consts: uniforms(p.vs, seed),
        fs_consts: uniforms(p.fs, seed),
        textures: textures(p.fs, seed),
        targets,
    };
    let image = r.draw(v, &draw)?;
    st.pairs += 1;
    let fs = Fragment::new(p, &draw);
    let before = (st.pixels, st.discarded);
    let mut errors = Vec::new();
    for row in 0..H {
        for col in 0..W {
            let idx = (row * W + col) as usize;
            let got: Vec<[f32; 4]> = image.iter().map(|t| t[idx]).collect();
            if let Err(why) = fs.pixel(&tri, o.centre(col, row), &got, st) {
                errors.push(format!("pixel ({col}, {row}): {why}"));
            }
        }
    }
    if std::env::var_os("OXIR_VIRGL_VERBOSE").is_some() {
        eprintln!(
            "  {}: seed {seed}, {} pixels compared, {} discarded",
            p.label,
            st.pixels - before.0,
            st.discarded - before.1
        );
    }
    if errors.is_empty() {
        return Ok(());
    }
    let n = errors.len();
    errors.truncate(3);
    Err(format!(
        "{}: seed {seed}, {n} pixels differ: {}",
        p.label,
        errors.join("; ")
    ))
}

/// The fragment side of one draw.
struct Fragment<'a> {
    fs: &'a Shader,
    interp: BTreeMap<u16, Interp>,
    base: Inputs,
}

impl<'a> Fragment<'a> {
    fn new(p: &Pair<'a>, d: &Draw) -> Fragment<'a> {
        let interp =
            p.fs.interface
                .varyings
                .iter()
                .map(|s| (p.remap[&s.slot], s.interp))
                .collect();
        let base = Inputs {
            uniforms: d.fs_consts.clone(),
            textures: d.textures.clone(),
            var_remap: Some(p.remap.clone()),
            ..Inputs::default()
        };
        Fragment {
            fs: p.fs,
            interp,
            base,
        }
    }

    fn run(&self, t: &Triangle, centre: [f64; 2], at: [f64; 2]) -> Outputs {
        let (l, _) = t.barycentric(at);
        let f = t.fragment(centre, l, &self.interp);
        let inputs = Inputs {
            varyings: f.varyings,
            frag_coord: f.frag_coord,
            ..self.base.clone()
        };
        let v = verify(self.fs, &Limits::default()).expect("verified before");
        exec::run(&v, &inputs).expect("remap covers every varying")
    }

    /// Checks one read-back pixel (`got`: one texel per render target).
    fn pixel(
        &self,
        t: &Triangle,
        c: [f64; 2],
        got: &[[f32; 4]],
        st: &mut Stats,
    ) -> Result<(), String> {
        let (l, dist) = t.barycentric(c);
        let untouched = got.iter().all(|g| g == &SENTINEL);
        if dist <= -EDGE_MARGIN {
            st.outside += 1;
            return if untouched {
                Ok(())
            } else {
                Err(format!("outside the triangle, written {got:?}"))
            };
        }
        if dist < EDGE_MARGIN || t.ndc_z(l).abs() >= 1.0 - 1e-3 {
            st.skipped += 1;
            return Ok(());
        }
        let s = SUBPIXEL;
        let centre = self.run(t, c, c);
        let near: Vec<Outputs> = [[s, 0.0], [-s, 0.0], [0.0, s], [0.0, -s]]
            .iter()
            .map(|d| self.run(t, c, [c[0] + d[0], c[1] + d[1]]))
            .collect();
        if near.iter().any(|n| n.discarded != centre.discarded) {
            st.skipped += 1;
            return Ok(());
        }
        if centre.discarded {
            st.discarded += 1;
            return if untouched {
                Ok(())
            } else {
                Err(format!("discarded, written {got:?}"))
            };
        }
        st.pixels += 1;
        for out in &self.fs.interface.outputs {
            let want = centre.colors.get(&out.slot).copied().unwrap_or([0.0; 4]);
            let have = got[usize::from(out.slot)];
            for k in 0..usize::from(out.ty.rows) {
                let slack = near
                    .iter()
                    .map(|n| (n.colors.get(&out.slot).map_or(0.0, |v| v[k]) - want[k]).abs())
                    .fold(
                        0f32,
                        |a, b| if b.is_nan() { f32::INFINITY } else { a.max(b) },
                    );
                if !close(have[k], want[k], slack) {
                    return Err(format!(
                        "colour {} lane {k}: rendered {}, CSIR {} (slack {slack})",
                        out.slot, have[k], want[k]
                    ));
                }
                st.by_slack += usize::from(!close(have[k], want[k], 0.0));
                let err = (have[k] - want[k]).abs();
                if err.is_finite() {
                    st.max_abs = st.max_abs.max(err);
                    if want[k].abs() > 1e-3 {
                        st.max_rel = st.max_rel.max(err / want[k].abs());
                    }
                }
            }
        }
        Ok(())
    }
}
