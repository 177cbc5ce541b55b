//! One draw through virglrenderer: a triangle of three vertices into `W` x `H` RGBA32F
//! render targets (one per colour slot), cleared to [`SENTINEL`] first, read back.

use super::renderer::{cmd, command, obj, shader_type, Virgl, RGBA32F};
use oxir_csir::exec::Texture;
use oxir_csir::Stage;
use std::collections::BTreeMap;

/// Render-target size.
pub const W: u32 = 32;
pub const H: u32 = 32;
/// The clear colour: what uncovered and discarded pixels keep.
pub const SENTINEL: [f32; 4] = [-1234.5, 4321.25, -0.125, 777.0];

/// What one draw needs: shader handles, per-vertex attributes (index = TGSI `IN`
/// register), constants per stage, textures by sampler slot.
pub struct Draw {
    pub vs: u32,
    pub fs: u32,
    pub vertices: [Vec<[f32; 4]>; 3],
    pub vs_consts: Vec<[f32; 4]>,
    pub fs_consts: Vec<[f32; 4]>,
    pub textures: BTreeMap<u16, Texture>,
    /// Render targets (colour slots `0..targets`).
    pub targets: usize,
}

/// The state shared by every draw: blend, rasterizer and DSA objects, one nearest /
/// clamp-to-edge sampler, and the render targets with their surfaces.
pub struct Renderer {
    sampler: u32,
    targets: Vec<(u32, u32)>,
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

/// No blending, every channel written, on all eight colour buffers.
fn blend(h: u32) -> Vec<u32> {
    let mut p = vec![h, 0, 0];
    p.extend([0xf << 27; 8]);
    command(cmd::CREATE_OBJECT, obj::BLEND, &p)
}

/// Fill both faces, no culling, depth clip on, GL's half-pixel centres.
fn rasterizer(h: u32) -> Vec<u32> {
    let s0 = (1 << 1) | (1 << 29);
    let one = 1f32.to_bits();
    command(
        cmd::CREATE_OBJECT,
        obj::RASTERIZER,
        &[h, s0, one, 0, 0, one, 0, 0, 0],
    )
}

/// Nearest filtering, clamp to edge, no mipmaps: `exec::Texture::sample`.
fn sampler_state(h: u32) -> Vec<u32> {
    let clamp = 2;
    let s0 = clamp | (clamp << 3) | (clamp << 6) | (2 << 11);
    command(
        cmd::CREATE_OBJECT,
        obj::SAMPLER_STATE,
        &[h, s0, 0, 0, 0, 0, 0, 0, 0],
    )
}

impl Renderer {
    pub fn new(v: &mut Virgl) -> Result<Renderer, String> {
        let (b, r, d, s) = (v.handle(), v.handle(), v.handle(), v.handle());
        let mut c = blend(b);
        c.extend(rasterizer(r));
        c.extend(command(cmd::CREATE_OBJECT, obj::DSA, &[d, 0, 0, 0, 0]));
        c.extend(sampler_state(s));
        c.extend(command(cmd::BIND_OBJECT, obj::BLEND, &[b]));
        c.extend(command(cmd::BIND_OBJECT, obj::RASTERIZER, &[r]));
        c.extend(command(cmd::BIND_OBJECT, obj::DSA, &[d]));
        let (sx, sy) = (W as f32 / 2.0, H as f32 / 2.0);
        let vp = [0, sx.to_bits(), sy.to_bits(), 0.5f32.to_bits()];
        let mut vp = vp.to_vec();
        vp.extend(bits(&[sx, sy, 0.5]));
        c.extend(command(cmd::SET_VIEWPORT_STATE, 0, &vp));
        v.submit(c).map_err(|e| format!("pipeline state: {e}"))?;
        Ok(Renderer {
            sampler: s,
            targets: Vec::new(),
        })
    }

    /// Render targets `0..n` (created on first use).
    fn targets(&mut self, v: &mut Virgl, n: usize) -> Result<Vec<u32>, String> {
        while self.targets.len() < n {
            let res = v.texture(W, H)?;
            let surf = v.handle();
            let c = command(
                cmd::CREATE_OBJECT,
                obj::SURFACE,
                &[surf, res, RGBA32F, 0, 0],
            );
            v.submit(c).map_err(|e| format!("surface: {e}"))?;
            self.targets.push((res, surf));
        }
        Ok(self.targets[..n].iter().map(|t| t.1).collect())
    }

    /// Vertex buffer and vertex elements: one RGBA32F element per attribute register.
    fn vertices(&self, v: &mut Virgl, d: &Draw) -> Result<Vec<u32>, String> {
        let n = d.vertices[0].len().max(1);
        let data: Vec<f32> = d
            .vertices
            .iter()
            .flat_map(|vx| (0..n).flat_map(|i| vx.get(i).copied().unwrap_or([0.0; 4])))
            .collect();
        let stride = 16 * n as u32;
        let vb = v.vertex_buffer(3 * stride)?;
        v.write(vb, 3 * stride, 1, 0, &data)?;
        let ve = v.handle();
        let mut p = vec![ve];
        for i in 0..n as u32 {
            p.extend([16 * i, 0, 0, RGBA32F]);
        }
        let mut c = command(cmd::CREATE_OBJECT, obj::VERTEX_ELEMENTS, &p);
        c.extend(command(cmd::BIND_OBJECT, obj::VERTEX_ELEMENTS, &[ve]));
        c.extend(command(cmd::SET_VERTEX_BUFFERS, 0, &[stride, 0, vb]));
        Ok(c)
    }

    /// Sampler views (one texture each) and samplers for the fragment stage.
    fn samplers(&self, v: &mut Virgl, d: &Draw) -> Result<Vec<u32>, String> {
        let Some(&last) = d.textures.keys().last() else {
            return Ok(Vec::new());
        };
        let mut c = Vec::new();
        let mut views = vec![shader_type(Stage::Fragment), 0];
        for slot in 0..=last {
            let t = d
                .textures
                .get(&slot)
                .or(d.textures.values().next())
                .unwrap();
            let res = v.texture(t.width, t.height)?;
            let data: Vec<f32> = t.texels.iter().flatten().copied().collect();
            v.write(res, t.width, t.height, t.width * 16, &data)?;
            let view = v.handle();
            let swizzle = 1 << 3 | 2 << 6 | 3 << 9;
            c.extend(command(
                cmd::CREATE_OBJECT,
                obj::SAMPLER_VIEW,
                &[view, res, RGBA32F, 0, 0, swizzle],
            ));
            views.push(view);
        }
        let mut states = vec![shader_type(Stage::Fragment), 0];
        states.extend(std::iter::repeat_n(self.sampler, views.len() - 2));
        c.extend(command(cmd::SET_SAMPLER_VIEWS, 0, &views));
        c.extend(command(cmd::BIND_SAMPLER_STATES, 0, &states));
        Ok(c)
    }

    /// Draws `d`; the read-back pixels of each render target, rows in memory order.
    pub fn draw(&mut self, v: &mut Virgl, d: &Draw) -> Result<Vec<Vec<[f32; 4]>>, String> {
        let surfaces = self.targets(v, d.targets.max(1))?;
        let mut fb = vec![surfaces.len() as u32, 0];
        fb.extend(&surfaces);
        let mut c = command(cmd::SET_FRAMEBUFFER_STATE, 0, &fb);
        let mut clear = vec![0x3fc];
        clear.extend(bits(&SENTINEL));
        clear.extend([0, 0, 0]);
        c.extend(command(cmd::CLEAR, 0, &clear));
        c.extend(self.vertices(v, d)?);
        for (stage, consts) in [
            (Stage::Vertex, &d.vs_consts),
            (Stage::Fragment, &d.fs_consts),
        ] {
            let mut p = vec![shader_type(stage), 0];
            p.extend(bits(&consts.iter().flatten().copied().collect::<Vec<_>>()));
            c.extend(command(cmd::SET_CONSTANT_BUFFER, 0, &p));
        }
        c.extend(self.samplers(v, d)?);
        c.extend(command(cmd::BIND_SHADER, 0, &[d.vs, 0]));
        c.extend(command(cmd::BIND_SHADER, 0, &[d.fs, 1]));
        c.extend(command(
            cmd::DRAW_VBO,
            0,
            &[0, 3, 4, 0, 1, 0, 0, 0, 0, 0, 2, 0],
        ));
        v.submit(c).map_err(|e| format!("draw: {e}"))?;
        let res: Vec<u32> = self.targets[..surfaces.len()].iter().map(|t| t.0).collect();
        res.iter().map(|&r| v.read(r, W, H)).collect()
    }
}
