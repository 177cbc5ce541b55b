//! virglrenderer accepts and renders every emitted TGSI shader.
//!
//! Acceptance: each accepted vertex and fragment entry point of `tests/shaders` and the
//! corpus is submitted to libvirglrenderer (EGL, surfaceless, llvmpipe) as a shader
//! object with `TGSI_PRINT_SANITY=1`, which runs virglrenderer's TGSI parser, its strict
//! sanity checker and its TGSI-to-GLSL translation; then every vertex shader is linked
//! with every fragment shader of the same file that it links with in CSIR
//! (`LINK_SHADER` makes Mesa compile and link the GLSL). A shader is accepted when the
//! submission returns 0 and no debug message appears (GLSL errors only show as
//! messages).
//!
//! Rendering: every linked pair draws one triangle into 32 x 32 RGBA32F render targets
//! (one per colour slot, cleared to a sentinel colour) and the read-back pixels are
//! compared with the CSIR interpreter. Attributes are seeded per vertex (of 256 seeds,
//! the one whose triangle covers the most pixel centres); uniforms come from seeded
//! std140 words of their block, so both stages see the same values; textures are seeded
//! 4 x 4 RGBA32F, sampled nearest with clamp-to-edge as `exec::Texture::sample`. The
//! CSIR vertex shader runs on the three vertices (every clip w must be positive); at
//! each pixel centre the varyings are interpolated from its outputs (perspective-correct,
//! screen-linear or flat from the last vertex), `gl_FragCoord` is the centre with the
//! interpolated window z and 1/w, and the CSIR fragment shader runs there. So the
//! rendered colours check both shaders' TGSI numerically, through virglrenderer's GLSL
//! and llvmpipe. A probe draw (a full-screen triangle writing `gl_FragCoord` and NDC)
//! measures the orientation first: NDC y up, read-back row 0 at `gl_FragCoord.y = 0.5`.
//!
//! - Pixel centres within 0.05 pixel of an edge, or at NDC |z| >= 0.999, are skipped;
//!   centres outside the triangle and discarded fragments must keep the sentinel.
//! - A colour lane passes when it is within relative 1e-3 plus absolute 1e-4 of the
//!   interpreter's, plus the most the interpreter's output moves when the point moves
//!   1/256 pixel in x or y (llvmpipe snaps vertices to 1/256 pixel; near a
//!   discontinuity, such as a comparison or a texel boundary, that slack is large, and
//!   a centre whose discard decision changes within it is skipped). NaN equals NaN.
//! - A test of the test: a fragment shader whose first `MUL` becomes an `ADD` (or
//!   `ADD` a `MUL`) must be caught.
//!
//! The summary line gives the pairs rendered, pixels compared, discarded, outside and
//! skipped, the largest absolute and relative error and how many lanes passed only by
//! the sub-pixel slack; `OXIR_VIRGL_VERBOSE=1` adds a
//! line per pair.
//!
//! Without `libvirglrenderer.so.1` the test says so and passes, unless
//! `OXIR_REQUIRE_VIRGL=1` (then it fails). Debian packages: `libvirglrenderer1`,
//! `libegl-mesa0`, `libgl1-mesa-dri`, `libepoxy0`.

mod common;

#[path = "virgl/expect.rs"]
mod expect;
#[path = "virgl/pairs.rs"]
mod pairs;
#[path = "virgl/render.rs"]
mod render;
#[path = "virgl/renderer.rs"]
mod renderer;

use oxir_csir::tgsi::{emit, Tgsi};
use oxir_csir::{verify, Limits, Shader, Stage};
use renderer::Virgl;
use std::collections::BTreeMap;

fn tgsi_of(shader: &Shader, remap: Option<&BTreeMap<u16, u16>>) -> Tgsi {
    emit(&verify(shader, &Limits::default()).unwrap(), remap)
}

#[test]
fn virglrenderer_accepts_and_renders_every_emitted_shader() {
    let mut virgl = match Virgl::open() {
        Ok(v) => v,
        Err(why) if std::env::var_os("OXIR_REQUIRE_VIRGL").is_none() => {
            eprintln!("virglrenderer unavailable ({why}): TGSI not validated, nothing rendered");
            return;
        }
        Err(why) => panic!("virglrenderer unavailable under OXIR_REQUIRE_VIRGL: {why}"),
    };
    rejects_the_seeds_defects(&mut virgl);
    let entries = common::all_entries();
    let mut failures = Vec::new();
    let (mut shaders, mut tgsi_instructions) = (0, 0);
    let mut handles = Vec::new();
    for e in &entries {
        let Ok(shader) = &e.csir else { continue };
        let label = e.label();
        let shader = &common::optimized(shader).0;
        let tgsi = tgsi_of(shader, None);
        tgsi_instructions += tgsi.instructions;
        shaders += 1;
        match virgl.shader(shader.stage, &tgsi) {
            Ok(h) => handles.push((e.file.clone(), label, shader.clone(), h)),
            Err(why) => failures.push(format!("{label}: {why}\n{}", tgsi.text)),
        }
    }
    let pairs = link_pairs(&mut virgl, &handles, &mut failures);
    eprintln!(
        "virglrenderer: {shaders} shaders submitted ({tgsi_instructions} TGSI instructions), {} pairs linked, {} failures",
        pairs.len(),
        failures.len()
    );
    assert!(shaders >= common::expected_accepted(), "{shaders}");
    assert!(!pairs.is_empty(), "no pair linked");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    renders_every_pair(&mut virgl, &pairs);
}

type Handle = (std::path::PathBuf, String, Shader, u32);

/// Links every vertex shader with every fragment shader of its file that it links
/// with in CSIR (the fragment shader re-emitted with the remap).
fn link_pairs<'a>(
    virgl: &mut Virgl,
    handles: &'a [Handle],
    failures: &mut Vec<String>,
) -> Vec<pairs::Pair<'a>> {
    let mut out = Vec::new();
    for (file, vl, vs, vh) in handles.iter().filter(|h| h.2.stage == Stage::Vertex) {
        for (_, fl, fs, _) in handles
            .iter()
            .filter(|h| h.0 == *file && h.2.stage == Stage::Fragment)
        {
            let Ok(link) = oxir_csir::link::link(vs, fs) else {
                continue;
            };
            let remap = link.remap();
            let fs_tgsi = tgsi_of(fs, Some(&remap));
            let fh = match virgl.shader(Stage::Fragment, &fs_tgsi) {
                Ok(h) => h,
                Err(why) => {
                    failures.push(format!("{fl} (linked): {why}"));
                    continue;
                }
            };
            if let Err(why) = virgl.link(*vh, fh) {
                failures.push(format!("link {vl} + {fl}: {why}"));
                continue;
            }
            out.push(pairs::Pair {
                label: format!("{vl} + {}", fs.name),
                vs,
                fs,
                vs_handle: *vh,
                fs_handle: fh,
                fs_tgsi: fs_tgsi.text,
                remap,
            });
        }
    }
    out
}

/// Every linked pair drawn as one triangle and compared with the CSIR interpreter at
/// the pixel centres; then a mutated fragment shader must be caught.
fn renders_every_pair(virgl: &mut Virgl, pairs: &[pairs::Pair]) {
    let mut r = render::Renderer::new(virgl).expect("pipeline state");
    let o = probe(virgl, &mut r);
    let mut st = pairs::Stats::default();
    let failures: Vec<String> = pairs
        .iter()
        .filter_map(|p| pairs::check(virgl, &mut r, &o, p, &mut st).err())
        .collect();
    eprintln!(
        "virglrenderer rendering: {} pairs rendered ({} without a covering triangle: {:?}), {} pixels compared, {} discarded, {} outside, {} skipped; max error {:e} absolute, {:e} relative; {} lanes needed the sub-pixel slack",
        st.pairs,
        st.uncovered_pairs.len(),
        st.uncovered_pairs,
        st.pixels,
        st.discarded,
        st.outside,
        st.skipped,
        st.max_abs,
        st.max_rel,
        st.by_slack
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        st.pairs == pairs.len() && st.uncovered_pairs.is_empty() && st.pixels >= 64 * st.pairs,
        "not every pair was rendered over enough pixels: {st:?}"
    );
    a_mutated_fragment_shader_is_caught(virgl, &mut r, &o, pairs);
}

/// The oracle is real: the seed's `IF TEMP[n].x` and a missing `END` are rejected.
/// (virglrenderer is initialised once per process, so this runs inside the test above.)
/// It provokes context errors, so it runs in a context of its own.
fn rejects_the_seeds_defects(virgl: &mut Virgl) {
    let main = virgl.context(2).expect("second context");
    let good = "FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] FLT32 {0x3f800000, 0x00000000, 0x00000000, 0x00000000}\nMOV TEMP[0], IMM[0]\nIF TEMP[0].xxxx\nKILL\nENDIF\nMOV OUT[0], TEMP[0]\nEND\n";
    let tgsi = |text: &str| Tgsi {
        text: text.into(),
        instructions: 6,
        token_bound: 512,
    };
    assert!(virgl.shader(Stage::Fragment, &tgsi(good)).is_ok());
    let bad_if = good.replace("IF TEMP[0].xxxx", "IF TEMP[0].x");
    assert!(virgl.shader(Stage::Fragment, &tgsi(&bad_if)).is_err());
    let no_end = good.replace("END\n", "");
    assert!(virgl.shader(Stage::Fragment, &tgsi(&no_end)).is_err());
    virgl.use_context(main);
}

/// The first `MUL` of the text turned into `ADD` (or the first `ADD` into `MUL`).
fn mutate(text: &str) -> Option<String> {
    for (from, to) in [("MUL ", "ADD "), ("ADD ", "MUL ")] {
        if let Some(at) = text.find(&format!("\n{from}")) {
            let mut t = text.to_string();
            t.replace_range(at + 1..at + 1 + from.len(), to);
            return Some(t);
        }
    }
    None
}

/// A test of the test: one fragment shader's first `MUL` becomes an `ADD` (or its
/// first `ADD` a `MUL`), and the comparison must report differing pixels.
fn a_mutated_fragment_shader_is_caught(
    virgl: &mut Virgl,
    r: &mut render::Renderer,
    o: &expect::Orientation,
    pairs: &[pairs::Pair],
) {
    for p in pairs {
        let Some(text) = mutate(&p.fs_tgsi) else {
            continue;
        };
        let tgsi = Tgsi {
            text,
            instructions: 0,
            token_bound: 32 + 16 * p.fs_tgsi.lines().count() as u32,
        };
        let fh = virgl
            .shader(Stage::Fragment, &tgsi)
            .expect("mutated shader");
        virgl.link(p.vs_handle, fh).expect("mutated link");
        let mutated = pairs::Pair {
            fs_handle: fh,
            ..p.clone()
        };
        let mut st = pairs::Stats::default();
        if let Err(why) = pairs::check(virgl, r, o, &mutated, &mut st) {
            eprintln!(
                "mutated {}: caught ({})",
                p.label,
                &why[..why.len().min(160)]
            );
            return;
        }
    }
    panic!("no mutated fragment shader was caught");
}

/// The probe draw: a full-screen triangle whose fragment shader writes
/// `(frag_coord.xy, ndc.xy)`; says how NDC and read-back rows relate to `frag_coord`
/// (and fails unless `frag_coord.x` is the column centre everywhere).
fn probe(virgl: &mut Virgl, r: &mut render::Renderer) -> expect::Orientation {
    let vs = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nMOV OUT[0], IN[0]\nMOV OUT[1], IN[0]\nEND\n";
    let fs = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL IN[1], POSITION\nDCL OUT[0], COLOR[0]\nDCL TEMP[0]\nMOV TEMP[0].xy, IN[1].xyxy\nMOV TEMP[0].zw, IN[0].xxxy\nMOV OUT[0], TEMP[0]\nEND\n";
    let tgsi = |t: &str| Tgsi {
        text: t.into(),
        instructions: 0,
        token_bound: 512,
    };
    let vh = virgl.shader(Stage::Vertex, &tgsi(vs)).expect("probe VS");
    let fh = virgl.shader(Stage::Fragment, &tgsi(fs)).expect("probe FS");
    let vertices = [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]].map(|[x, y]| vec![[x, y, 0.0, 1.0]]);
    let draw = render::Draw {
        vs: vh,
        fs: fh,
        vertices,
        vs_consts: Vec::new(),
        fs_consts: Vec::new(),
        textures: BTreeMap::new(),
        targets: 1,
    };
    let image = r.draw(virgl, &draw).expect("probe draw").remove(0);
    let (w, h) = (render::W, render::H);
    let o = expect::Orientation {
        ndc_y_up: (image[0][1] < h as f32 / 2.0) == (image[0][3] < 0.0),
        row0_low: image[0][1] == 0.5,
        width: w,
        height: h,
    };
    for row in 0..h {
        for col in 0..w {
            let px = image[(row * w + col) as usize];
            let c = o.centre(col, row);
            let ndc = o.window(f64::from(px[2]), f64::from(px[3]));
            let ok = [px[0], px[1]] == [c[0] as f32, c[1] as f32]
                && (ndc[0] - c[0]).abs() < 1e-3
                && (ndc[1] - c[1]).abs() < 1e-3;
            assert!(ok, "probe pixel ({col}, {row}) is {px:?} under {o:?}");
        }
    }
    eprintln!("virglrenderer probe: {o:?}");
    o
}
