//! Textures and samplers: 1D, 2D and 2D-array textures with one mip level, and
//! multisampled 2D textures (colour and depth) of `samples` samples per texel; nearest and
//! linear filtering; clamp-to-edge, repeat and mirror-repeat addressing.
//!
//! Texels hold four 32-bit channels: f32 bits for float and depth textures, the integer
//! for sint / uint ones. `texture_store` quantizes to the storage format as a GPU does
//! (`oxir_ir::texel`: unorm / snorm rounding, f16 rounding, integer truncation). Mip levels, bias
//! and gradients are not modelled: every sample reads level 0 (documented limitation).
//! Out-of-range `texture_load` reads zero and out-of-range `texture_store` is dropped
//! (WGSL allows this): a coordinate, layer, mip level (anything but 0) or sample index
//! (`>= samples`) outside the texture reads zero, as naga's `ReadZeroSkipWrite` policy
//! does. A texture's samples of one texel are adjacent in `texels` (sample-major last). A depth-compare sample returns 1.0 when `reference <= texel`
//! under the default comparison (`less-equal`), else 0.0, without filtering.

use oxir_ir::types::TexelFormat;

/// A texture: `width × height × layers` texels of `samples` samples each, layer-major,
/// then row-major, then sample by sample (`texels.len() == width * height * layers *
/// samples`).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub layers: u32,
    /// Samples per texel: 1 unless multisampled.
    pub samples: u32,
    pub texels: Vec<[u32; 4]>,
}

impl Texture {
    /// A zero-filled single-sampled texture.
    pub fn new(width: u32, height: u32, layers: u32) -> Self {
        Texture::multisampled(width, height, layers, 1)
    }

    /// A zero-filled texture of `samples` samples per texel (sides and samples at least 1).
    pub fn multisampled(width: u32, height: u32, layers: u32, samples: u32) -> Self {
        let n = [width, height, layers, samples]
            .iter()
            .fold(1usize, |n, &x| n.saturating_mul(x.max(1) as usize));
        Texture {
            width: width.max(1),
            height: height.max(1),
            layers: layers.max(1),
            samples: samples.max(1),
            texels: vec![[0; 4]; n],
        }
    }

    /// The index in `texels` of sample `sample` of a texel (all in range).
    pub fn sample_index(&self, x: u32, y: u32, layer: u32, sample: u32) -> usize {
        self.index(x, y, layer) * self.samples as usize + sample as usize
    }

    /// Sample `sample` of the texel at integer coordinates, `None` out of range.
    pub fn texel_sample(&self, x: i64, y: i64, layer: i64, sample: i64) -> Option<[u32; 4]> {
        if sample < 0 || sample >= i64::from(self.samples) {
            return None;
        }
        self.texel(x, y, layer)?;
        Some(self.texels[self.sample_index(x as u32, y as u32, layer as u32, sample as u32)])
    }

    /// A one-layer float texture from RGBA values (row-major).
    pub fn from_f32(width: u32, height: u32, rgba: &[[f32; 4]]) -> Self {
        let mut t = Texture::new(width, height, 1);
        for (dst, src) in t.texels.iter_mut().zip(rgba) {
            *dst = src.map(f32::to_bits);
        }
        t
    }

    fn index(&self, x: u32, y: u32, layer: u32) -> usize {
        ((layer * self.height + y) * self.width + x) as usize
    }

    /// The texel at integer coordinates, `None` out of range.
    pub fn texel(&self, x: i64, y: i64, layer: i64) -> Option<[u32; 4]> {
        if x < 0
            || y < 0
            || layer < 0
            || x >= i64::from(self.width)
            || y >= i64::from(self.height)
            || layer >= i64::from(self.layers)
        {
            return None;
        }
        Some(self.texels[self.sample_index(x as u32, y as u32, layer as u32, 0)])
    }

    /// The RGBA float value of a texel.
    pub fn texel_f32(&self, x: u32, y: u32, layer: u32) -> [f32; 4] {
        self.texels[self.sample_index(x, y, layer, 0)].map(f32::from_bits)
    }

    pub(crate) fn store(&mut self, x: i64, y: i64, layer: i64, value: [u32; 4]) {
        if self.texel(x, y, layer).is_some() {
            let i = self.sample_index(x as u32, y as u32, layer as u32, 0);
            self.texels[i] = value;
        }
    }
}

/// Texture filtering.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Filter {
    #[default]
    Nearest,
    Linear,
}

/// Texture addressing outside [0, 1].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum AddressMode {
    #[default]
    ClampToEdge,
    Repeat,
    MirrorRepeat,
}

/// A sampler.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Sampler {
    pub filter: Filter,
    pub address: AddressMode,
}

fn address(mode: AddressMode, i: i64, n: u32) -> i64 {
    let n = i64::from(n);
    match mode {
        AddressMode::ClampToEdge => i.clamp(0, n - 1),
        AddressMode::Repeat => i.rem_euclid(n),
        AddressMode::MirrorRepeat => {
            let period = 2 * n;
            let m = i.rem_euclid(period);
            if m < n {
                m
            } else {
                period - 1 - m
            }
        }
    }
}

/// The texel fetch of a sampler: integer coordinates addressed by the sampler's mode.
fn fetcher<'t>(
    tex: &'t Texture,
    sampler: &'t Sampler,
    layer: i64,
) -> impl Fn(i64, i64) -> [u32; 4] + 't {
    let layer = layer.clamp(0, i64::from(tex.layers) - 1) as u32;
    move |x: i64, y: i64| {
        let x = address(sampler.address, x, tex.width) as u32;
        let y = address(sampler.address, y, tex.height) as u32;
        tex.texels[tex.sample_index(x, y, layer, 0)]
    }
}

/// The texels bilinear filtering reads at normalized `(u, v)` with a texel `offset`: the
/// top-left one's integer coordinates and the weights of the right and lower ones.
fn footprint(tex: &Texture, u: f32, v: f32, offset: [i64; 2]) -> (i64, i64, f64, f64) {
    let x = f64::from(u) * f64::from(tex.width) - 0.5;
    let y = f64::from(v) * f64::from(tex.height) - 0.5;
    let (x0, y0) = (x.floor(), y.floor());
    // Saturating: a huge or non-finite coordinate saturates the cast, and addressing
    // clamps or wraps whatever comes out.
    (
        (x0 as i64).saturating_add(offset[0]),
        (y0 as i64).saturating_add(offset[1]),
        x - x0,
        y - y0,
    )
}

/// Samples level 0 at normalized coordinates (`v` ignored for 1D textures), `offset`
/// texels away (WGSL's constant texel offset; zero without one).
pub fn sample(
    tex: &Texture,
    sampler: &Sampler,
    u: f32,
    v: f32,
    layer: i64,
    offset: [i64; 2],
) -> [f32; 4] {
    let fetch = fetcher(tex, sampler, layer);
    let fetch = |x, y| fetch(x, y).map(f32::from_bits);
    match sampler.filter {
        Filter::Nearest => {
            let x =
                ((f64::from(u) * f64::from(tex.width)).floor() as i64).saturating_add(offset[0]);
            let y =
                ((f64::from(v) * f64::from(tex.height)).floor() as i64).saturating_add(offset[1]);
            fetch(x, y)
        }
        Filter::Linear => {
            let (x0, y0, ax, ay) = footprint(tex, u, v, offset);
            let (x1, y1) = (x0.saturating_add(1), y0.saturating_add(1));
            let t = [fetch(x0, y0), fetch(x1, y0), fetch(x0, y1), fetch(x1, y1)];
            let mut out = [0f32; 4];
            for c in 0..4 {
                let top = f64::from(t[0][c]) * (1.0 - ax) + f64::from(t[1][c]) * ax;
                let bottom = f64::from(t[2][c]) * (1.0 - ax) + f64::from(t[3][c]) * ax;
                out[c] = (top * (1.0 - ay) + bottom * ay) as f32;
            }
            out
        }
    }
}

/// The four texels a gather at normalized `(u, v)` reads at level 0, in WGSL's order:
/// (left, bottom), (right, bottom), (right, top), (left, top), where bottom is the larger
/// row; the sampler's filter does not matter, its addressing does.
pub fn gather(
    tex: &Texture,
    sampler: &Sampler,
    u: f32,
    v: f32,
    layer: i64,
    offset: [i64; 2],
) -> [[u32; 4]; 4] {
    let fetch = fetcher(tex, sampler, layer);
    let (x0, y0, _, _) = footprint(tex, u, v, offset);
    let (x1, y1) = (x0.saturating_add(1), y0.saturating_add(1));
    [fetch(x0, y1), fetch(x1, y1), fetch(x1, y0), fetch(x0, y0)]
}

/// The bits a storage texture of `format` keeps of `value` (quantization): what a load
/// reads after the store, by the one description of the formats in [`oxir_ir::texel`].
pub fn quantize(format: TexelFormat, value: [u32; 4]) -> [u32; 4] {
    oxir_ir::texel::quantize(format, value)
}

/// The texture operations the executor performs; the executor maps each texture opcode
/// to one of them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum TextureAccess {
    /// `texture_sample*`; `compare` for the depth comparisons (a 0 or 1 depth test
    /// result instead of the texel); `operands` counts the operands before the texel
    /// offset, the array layer left out (the offset, when present, follows).
    Sample {
        compare: bool,
        operands: usize,
    },
    /// `texture_gather` (`compare: false`) and `texture_gather_compare`.
    Gather {
        compare: bool,
    },
    Load,
    Store,
    Dimensions,
    NumLevels,
    NumLayers,
    NumSamples,
}
