//! Reflection of a SPIR-V binary's interface: what `oxir run foo.spv --engine vulkan`
//! needs to bind before it can dispatch bytes it did not compile.
//!
//! - [`words_from_bytes`] checks the file is a whole number of words and starts with the
//!   SPIR-V magic number (either byte order; a big-endian file is swapped).
//! - [`reflect`] first walks the instruction stream itself (every instruction's word count
//!   is non-zero and inside the binary, every id below the header's bound), then parses it
//!   with `rspirv`, so malformed or truncated input is an [`ReflectError`] naming the word
//!   offset, never a panic.
//! - Entry points: name, execution model, workgroup size: a `WorkgroupSize` built-in
//!   composite of constants, else `LocalSize` (or `LocalSizeId` of constants);
//!   specialization constants count at their default values.
//! - Bindings: every `OpVariable` with `DescriptorSet` and `Binding` decorations.
//!   `StorageBuffer`, and `Uniform` whose pointee is decorated `BufferBlock`, are storage
//!   buffers; `Uniform` + `Block` is a uniform buffer. `UniformConstant` images are sampled
//!   (`Sampled = 1`) or storage (`Sampled = 2`) images, with their [`ImageInfo`] (dimension,
//!   depth / arrayed / multisampled flags, the sampled type's channel kind, the format);
//!   `OpTypeSampler` is a sampler and `OpTypeSampledImage` a combined image-sampler. Images
//!   whose `Sampled` is 0, arrays of resources (binding arrays), acceleration structures
//!   and other `UniformConstant` resources are refused as unsupported. Whether the runner
//!   can make an image of that shape is the runner's check, not reflection's. A sampler
//!   (or combined image-sampler) that an `OpImage*Dref*` instruction samples with is
//!   marked [`Binding::comparison`] (SPIR-V has no comparison-sampler type).
//!   `PushConstant` variables are reported in [`Interface::push_constants`].
//! - A binding's minimum size comes from the explicit layout decorations: `Offset` of each
//!   member, `ArrayStride` × length for arrays (a trailing runtime array counts 0
//!   elements), `MatrixStride` × columns (or rows, for `RowMajor`) for matrices; the size of
//!   a struct is the end of its last byte rounded up to its alignment (the largest scalar,
//!   vec2 or vec4-sized alignment among its members, as in std430), so a WGSL struct's size
//!   comes out as WGSL computes it.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{
    BuiltIn, Decoration, Dim, ExecutionMode, ExecutionModel, ImageFormat, Op, StorageClass,
};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// The SPIR-V magic number.
pub const MAGIC: u32 = 0x0723_0203;

/// Malformed or unsupported SPIR-V.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReflectError {
    /// The binary is not well-formed SPIR-V: what is wrong and where.
    #[error("malformed SPIR-V: {0}")]
    Malformed(String),
    /// Well-formed, but uses something the runner cannot bind.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

fn malformed(message: impl Into<String>) -> ReflectError {
    ReflectError::Malformed(message.into())
}

/// The kind of descriptor a binding needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    StorageBuffer,
    UniformBuffer,
    /// `OpTypeImage` with `Sampled = 1`.
    SampledImage,
    /// `OpTypeImage` with `Sampled = 2`.
    StorageImage,
    /// `OpTypeSampler`.
    Sampler,
    /// `OpTypeSampledImage`: an image and its sampler in one descriptor.
    CombinedImageSampler,
}

impl DescriptorKind {
    /// Whether the descriptor holds an image (and so has an [`ImageInfo`]).
    pub fn is_image(self) -> bool {
        matches!(
            self,
            DescriptorKind::SampledImage
                | DescriptorKind::StorageImage
                | DescriptorKind::CombinedImageSampler
        )
    }

    /// Whether the descriptor is a buffer.
    pub fn is_buffer(self) -> bool {
        matches!(
            self,
            DescriptorKind::StorageBuffer | DescriptorKind::UniformBuffer
        )
    }
}

impl fmt::Display for DescriptorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DescriptorKind::StorageBuffer => "storage buffer",
            DescriptorKind::UniformBuffer => "uniform buffer",
            DescriptorKind::SampledImage => "sampled image",
            DescriptorKind::StorageImage => "storage image",
            DescriptorKind::Sampler => "sampler",
            DescriptorKind::CombinedImageSampler => "combined image sampler",
        })
    }
}

/// An entry point of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    pub name: String,
    pub model: ExecutionModel,
    /// The workgroup size: the `WorkgroupSize` built-in constant when the module declares
    /// one (it overrides the execution mode), else `LocalSize` or `LocalSizeId`;
    /// specialization constants at their defaults. `None` when it is not a constant this
    /// reflection can read (or the entry point is not a compute one).
    pub local_size: Option<[u32; 3]>,
    /// The `SpecId`s of the specialization constants the workgroup size reads (through
    /// `LocalSizeId` or the `WorkgroupSize` built-in).
    pub size_spec_ids: Vec<u32>,
    /// Per dimension, the `SpecId` of the specialization constant that is that dimension
    /// itself (`None`: a plain constant, or a value computed from other constants).
    pub size_dim_spec_ids: [Option<u32>; 3],
}

/// What a texel's channels hold, from the image's sampled type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    Float,
    Sint,
    Uint,
}

/// The declared shape of an image binding (`OpTypeImage`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ImageInfo {
    /// `Dim1D`, `Dim2D`, `Dim3D`, `DimCube`, or another SPIR-V dimension (which the runner
    /// refuses).
    pub dim: Dim,
    pub arrayed: bool,
    pub multisampled: bool,
    /// `Depth = 1`.
    pub depth: bool,
    pub channel: ChannelKind,
    /// The declared format (`Unknown` for sampled images).
    pub format: ImageFormat,
}

/// A binding of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
    /// The variable's `OpName`, when there is one.
    pub name: Option<String>,
    pub kind: DescriptorKind,
    /// Bytes the block needs with its runtime array (if any) empty, up to the end of its
    /// last member (a `vec3<f32>` block needs 12, not its 16-byte aligned size).
    pub min_size: u64,
    /// Whether the block ends in a runtime-sized array.
    pub runtime_sized: bool,
    /// The image's shape, for image descriptors.
    pub image: Option<ImageInfo>,
    /// A sampler (or combined image-sampler) that a depth-comparison instruction
    /// (`OpImage*Dref*`) samples with: it needs a comparison sampler.
    pub comparison: bool,
}

/// A module's interface.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    pub entry_points: Vec<EntryPoint>,
    /// Buffer, image and sampler bindings by `(set, binding)`.
    pub bindings: BTreeMap<(u32, u32), Binding>,
    /// Whether the module declares a `PushConstant` variable.
    pub push_constants: bool,
    /// The settable specialization constants (scalars decorated `SpecId`), by id.
    pub spec_constants: BTreeMap<u32, crate::SpecType>,
    /// The bytes of the module's `Private` and `Function` variables: at least what one
    /// invocation holds (natural sizes, no padding; array lengths at their defaults), so
    /// the runner can refuse what a driver would choke on.
    pub invocation_memory: u64,
}

impl Interface {
    /// The compute entry point named `name`, or the only one when `name` is `None`.
    pub fn compute_entry(&self, name: Option<&str>) -> Result<&EntryPoint, String> {
        let compute: Vec<&EntryPoint> = self
            .entry_points
            .iter()
            .filter(|e| e.model == ExecutionModel::GLCompute)
            .collect();
        let names = || {
            compute
                .iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match name {
            Some(n) => compute
                .iter()
                .find(|e| e.name == n)
                .copied()
                .ok_or_else(|| format!("no compute entry point named `{n}`; have: {}", names())),
            None => match compute.as_slice() {
                [one] => Ok(one),
                [] => Err("no compute (GLCompute) entry point".into()),
                _ => Err(format!(
                    "several compute entry points ({}); choose one with --entry",
                    names()
                )),
            },
        }
    }
}

/// The words of a `.spv` file: a whole number of little- or big-endian words starting with
/// the magic number.
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, ReflectError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(malformed(format!(
            "{} bytes is not a whole number of 32-bit words",
            bytes.len()
        )));
    }
    if bytes.len() < 20 {
        return Err(malformed(format!(
            "{} bytes is shorter than the 5-word header",
            bytes.len()
        )));
    }
    let le: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if le[0] == MAGIC {
        Ok(le)
    } else if le[0].swap_bytes() == MAGIC {
        Ok(le.into_iter().map(u32::swap_bytes).collect())
    } else {
        Err(malformed(format!(
            "word 0 is {:#010x}, not the magic number {MAGIC:#010x}",
            le[0]
        )))
    }
}

/// Whether `bytes` start with the SPIR-V magic number (either byte order).
pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && {
        let w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        w == MAGIC || w.swap_bytes() == MAGIC
    }
}

/// Checks the framing of the instruction stream: header, word counts, id bound.
fn check_stream(words: &[u32]) -> Result<(), ReflectError> {
    if words.len() < 5 {
        return Err(malformed(format!(
            "{} words is shorter than the 5-word header",
            words.len()
        )));
    }
    if words[0] != MAGIC {
        return Err(malformed(format!(
            "word 0 is {:#010x}, not the magic number",
            words[0]
        )));
    }
    let bound = words[3];
    if bound == 0 || bound > 0x0040_0000 {
        return Err(malformed(format!(
            "id bound {bound} (word 3) is out of range"
        )));
    }
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if count == 0 {
            return Err(malformed(format!(
                "instruction at word {at} (opcode {opcode}) has a word count of 0"
            )));
        }
        if at + count > words.len() {
            return Err(malformed(format!(
                "instruction at word {at} (opcode {opcode}) needs {count} words but the binary \
                 ends after {}",
                words.len() - at
            )));
        }
        at += count;
    }
    Ok(())
}

/// A type, as far as reflection needs it.
#[derive(Clone, Debug)]
enum Ty {
    Scalar(u32),
    Vector(u32, u32),
    Matrix(u32, u32),
    Array(u32, u32),
    RuntimeArray(u32),
    Struct(Vec<u32>),
    Pointer(u32),
    Image(ImageInfo),
    Sampler,
    SampledImage(u32),
    Opaque(&'static str),
    Other,
}

/// The decorations of one id or member: each decoration with its literal operands.
type Decorations = Vec<(Decoration, Vec<u32>)>;

struct Reflector {
    types: HashMap<u32, Ty>,
    constants: HashMap<u32, u64>,
    decorations: HashMap<u32, Decorations>,
    member_decorations: HashMap<(u32, u32), Decorations>,
    names: HashMap<u32, String>,
    /// The `Sampled` operand of each `OpTypeImage`.
    sampled: HashMap<u32, u32>,
}

/// An `OpTypeImage`: its shape and its `Sampled` operand. `scalars` gives the channel kind
/// of every scalar type declared so far.
fn image_type(
    inst: &Instruction,
    scalars: &HashMap<u32, ChannelKind>,
) -> Result<(ImageInfo, u32), ReflectError> {
    let result = inst.result_id.unwrap_or(0);
    let what = |i: usize| format!("OpTypeImage %{result} operand {i}");
    let sampled_type = id(operand(inst, 0)?, &what(0))?;
    let channel = *scalars.get(&sampled_type).ok_or_else(|| {
        malformed(format!(
            "OpTypeImage %{result}: the sampled type %{sampled_type} is not a scalar type"
        ))
    })?;
    let dim = match operand(inst, 1)? {
        Operand::Dim(d) => *d,
        other => return Err(malformed(format!("{}: {other:?}", what(1)))),
    };
    let flag = |i: usize| -> Result<u32, ReflectError> { lit(operand(inst, i)?, &what(i)) };
    let format = match operand(inst, 6)? {
        Operand::ImageFormat(f) => *f,
        other => return Err(malformed(format!("{}: {other:?}", what(6)))),
    };
    let info = ImageInfo {
        dim,
        depth: flag(2)? == 1,
        arrayed: flag(3)? != 0,
        multisampled: flag(4)? != 0,
        channel,
        format,
    };
    Ok((info, flag(5)?))
}

fn id(op: &Operand, what: &str) -> Result<u32, ReflectError> {
    match op {
        Operand::IdRef(i) => Ok(*i),
        other => Err(malformed(format!(
            "{what}: expected an id, found {other:?}"
        ))),
    }
}

fn lit(op: &Operand, what: &str) -> Result<u32, ReflectError> {
    match op {
        Operand::LiteralBit32(v) => Ok(*v),
        other => Err(malformed(format!(
            "{what}: expected a literal, found {other:?}"
        ))),
    }
}

fn operand(inst: &Instruction, i: usize) -> Result<&Operand, ReflectError> {
    inst.operands.get(i).ok_or_else(|| {
        malformed(format!(
            "Op{:?} (result %{}) has no operand {i}",
            inst.class.opcode,
            inst.result_id.unwrap_or(0)
        ))
    })
}

/// The three values of a composite constant whose constituents are all scalar constants.
fn constant_vec3(constants: &HashMap<u32, u64>, parts: Option<&Vec<u32>>) -> Option<[u32; 3]> {
    let v = parts?
        .iter()
        .map(|i| constants.get(i).map(|&c| c as u32))
        .collect::<Option<Vec<u32>>>()?;
    <[u32; 3]>::try_from(v).ok()
}

fn literals(ops: &[Operand]) -> Vec<u32> {
    ops.iter()
        .filter_map(|o| match o {
            Operand::LiteralBit32(v) => Some(*v),
            Operand::IdRef(v) => Some(*v),
            _ => None,
        })
        .collect()
}

/// Size and alignment of a type in a block.
#[derive(Copy, Clone, Debug)]
struct Extent {
    size: u64,
    /// Trailing padding inside `size` (a struct's size rounded up to its alignment): a
    /// binding needs `size - padding` bytes.
    padding: u64,
    align: u64,
    runtime: bool,
}

impl Reflector {
    /// The natural size of type `id` in bytes (saturating; 0 for what has no size, such
    /// as an unknown id, a runtime array or a type that refers to itself in a malformed
    /// module). `memo` holds each type's size once computed (`None` while it is being
    /// computed), so every type is measured once.
    fn natural_size(&self, id: u32, memo: &mut HashMap<u32, Option<u64>>) -> u64 {
        match memo.get(&id) {
            Some(Some(known)) => return *known,
            Some(None) => return 0, // a cycle
            None => {}
        }
        memo.insert(id, None);
        let mut size = |t: u32| self.natural_size(t, memo);
        let bytes = match self.types.get(&id) {
            Some(Ty::Scalar(bits)) => u64::from(*bits / 8),
            Some(Ty::Vector(elem, n) | Ty::Matrix(elem, n)) => {
                size(*elem).saturating_mul(u64::from(*n))
            }
            Some(Ty::Array(elem, len)) => {
                let len = self.constants.get(len).copied().unwrap_or(0);
                size(*elem).saturating_mul(len)
            }
            Some(Ty::Struct(members)) => members
                .iter()
                .fold(0u64, |sum, m| sum.saturating_add(size(*m))),
            Some(
                Ty::RuntimeArray(_)
                | Ty::Pointer(_)
                | Ty::Image(_)
                | Ty::Sampler
                | Ty::SampledImage(_)
                | Ty::Opaque(_)
                | Ty::Other,
            )
            | None => 0,
        };
        memo.insert(id, Some(bytes));
        bytes
    }

    fn ty(&self, id: u32) -> Result<&Ty, ReflectError> {
        self.types
            .get(&id)
            .ok_or_else(|| malformed(format!("%{id} is used as a type but is not one")))
    }

    fn decoration(&self, id: u32, d: Decoration) -> Option<&[u32]> {
        self.decorations
            .get(&id)?
            .iter()
            .find(|(k, _)| *k == d)
            .map(|(_, v)| v.as_slice())
    }

    fn member_decoration(&self, id: u32, member: u32, d: Decoration) -> Option<&[u32]> {
        self.member_decorations
            .get(&(id, member))?
            .iter()
            .find(|(k, _)| *k == d)
            .map(|(_, v)| v.as_slice())
    }

    /// The extent of `ty` in a block; `stride` is the matrix stride / row-major flag
    /// decorated on the enclosing member.
    fn extent(
        &self,
        ty: u32,
        matrix: Option<(u64, bool)>,
        depth: u32,
    ) -> Result<Extent, ReflectError> {
        if depth > 64 {
            return Err(malformed(format!("type %{ty} nests more than 64 levels")));
        }
        let scalar = |bytes: u64| Extent {
            size: bytes,
            padding: 0,
            align: bytes.max(1),
            runtime: false,
        };
        Ok(match self.ty(ty)?.clone() {
            Ty::Scalar(width) => scalar(u64::from(width).div_ceil(8)),
            Ty::Vector(c, n) => {
                let e = self.extent(c, None, depth + 1)?;
                let n = u64::from(n);
                Extent {
                    size: e.size * n,
                    padding: 0,
                    align: e.align * if n == 2 { 2 } else { 4 },
                    runtime: false,
                }
            }
            Ty::Matrix(column, columns) => {
                // Row-major: one stride per row instead of per column.
                let vector_count = match (matrix, self.ty(column)?) {
                    (Some((_, true)), Ty::Vector(_, rows)) => u64::from(*rows),
                    _ => u64::from(columns),
                };
                let col = self.extent(column, None, depth + 1)?;
                let stride = matrix
                    .map(|(s, _)| s)
                    .unwrap_or(col.size.next_multiple_of(col.align));
                Extent {
                    size: stride * vector_count,
                    padding: 0,
                    align: col.align,
                    runtime: false,
                }
            }
            Ty::Array(elem, len) => {
                let e = self.extent(elem, matrix, depth + 1)?;
                let n = *self.constants.get(&len).ok_or_else(|| {
                    malformed(format!(
                        "array %{ty}: length %{len} is not an integer constant"
                    ))
                })?;
                let stride = match self.decoration(ty, Decoration::ArrayStride) {
                    Some([s, ..]) => u64::from(*s),
                    _ => e.size.next_multiple_of(e.align),
                };
                Extent {
                    size: stride.saturating_mul(n),
                    padding: 0,
                    align: e.align,
                    runtime: false,
                }
            }
            Ty::RuntimeArray(elem) => {
                let e = self.extent(elem, matrix, depth + 1)?;
                Extent {
                    size: 0,
                    padding: 0,
                    align: e.align,
                    runtime: true,
                }
            }
            Ty::Struct(members) => {
                let mut end = 0u64;
                let mut align = 1u64;
                let mut runtime = false;
                for (i, m) in members.iter().enumerate() {
                    let i = i as u32;
                    let offset = match self.member_decoration(ty, i, Decoration::Offset) {
                        Some([o, ..]) => u64::from(*o),
                        _ => end,
                    };
                    let stride = match self.member_decoration(ty, i, Decoration::MatrixStride) {
                        Some([s, ..]) => Some((
                            u64::from(*s),
                            self.member_decoration(ty, i, Decoration::RowMajor)
                                .is_some(),
                        )),
                        _ => None,
                    };
                    let e = self.extent(*m, stride, depth + 1)?;
                    end = end.max(offset.saturating_add(e.size));
                    align = align.max(e.align);
                    runtime |= e.runtime;
                }
                Extent {
                    size: end.next_multiple_of(align),
                    padding: end.next_multiple_of(align) - end,
                    align,
                    runtime,
                }
            }
            Ty::Image(_) | Ty::Sampler | Ty::SampledImage(_) => {
                return Err(ReflectError::Unsupported(format!(
                    "an image or sampler (type %{ty}) in a buffer block"
                )))
            }
            Ty::Pointer(_) | Ty::Other => {
                return Err(ReflectError::Unsupported(format!(
                    "type %{ty} in a buffer block"
                )))
            }
            Ty::Opaque(what) => {
                return Err(ReflectError::Unsupported(format!(
                    "{what} in a buffer block"
                )))
            }
        })
    }
}

/// The variables (samplers or combined image-samplers) that depth-comparison instructions
/// sample with: `OpImage*Dref*`'s sampled image is an `OpSampledImage` of a loaded
/// sampler, or a loaded combined image-sampler.
fn comparison_samplers(module: &rspirv::dr::Module) -> std::collections::HashSet<u32> {
    let mut loaded: HashMap<u32, u32> = HashMap::new();
    let mut sampler_of: HashMap<u32, u32> = HashMap::new();
    let mut out = std::collections::HashSet::new();
    let operand_id = |inst: &Instruction, i: usize| match inst.operands.get(i) {
        Some(Operand::IdRef(id)) => Some(*id),
        _ => None,
    };
    for f in &module.functions {
        for block in &f.blocks {
            for inst in &block.instructions {
                match inst.class.opcode {
                    Op::Load => {
                        if let (Some(r), Some(p)) = (inst.result_id, operand_id(inst, 0)) {
                            loaded.insert(r, p);
                        }
                    }
                    Op::SampledImage => {
                        if let (Some(r), Some(sampler)) = (inst.result_id, operand_id(inst, 1)) {
                            if let Some(var) = loaded.get(&sampler) {
                                sampler_of.insert(r, *var);
                            }
                        }
                    }
                    Op::ImageSampleDrefImplicitLod
                    | Op::ImageSampleDrefExplicitLod
                    | Op::ImageSampleProjDrefImplicitLod
                    | Op::ImageSampleProjDrefExplicitLod
                    | Op::ImageDrefGather
                    | Op::ImageSparseSampleDrefImplicitLod
                    | Op::ImageSparseSampleDrefExplicitLod
                    | Op::ImageSparseSampleProjDrefImplicitLod
                    | Op::ImageSparseSampleProjDrefExplicitLod
                    | Op::ImageSparseDrefGather => {
                        if let Some(si) = operand_id(inst, 0) {
                            if let Some(var) = sampler_of.get(&si).or_else(|| loaded.get(&si)) {
                                out.insert(*var);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// The interface of a SPIR-V module.
pub fn reflect(words: &[u32]) -> Result<Interface, ReflectError> {
    check_stream(words)?;
    let module = rspirv::dr::load_words(words).map_err(|e| malformed(e.to_string()))?;
    let bound = words[3];
    let mut r = Reflector {
        types: HashMap::new(),
        constants: HashMap::new(),
        decorations: HashMap::new(),
        member_decorations: HashMap::new(),
        names: HashMap::new(),
        sampled: HashMap::new(),
    };
    // Scalar signedness, for the channel kind of images.
    let mut scalar_kind: HashMap<u32, ChannelKind> = HashMap::new();
    let check_id = |i: u32, what: &str| {
        if i == 0 || i >= bound {
            Err(malformed(format!(
                "{what}: id %{i} is outside the bound {bound}"
            )))
        } else {
            Ok(i)
        }
    };
    for inst in &module.debug_names {
        if inst.class.opcode == Op::Name {
            if let (Some(Operand::IdRef(t)), Some(Operand::LiteralString(s))) =
                (inst.operands.first(), inst.operands.get(1))
            {
                r.names.insert(*t, s.clone());
            }
        }
    }
    // The id decorated `BuiltIn WorkgroupSize`, and the constituents of every composite
    // constant (one of them is its value).
    let mut workgroup_size_id = None;
    let mut composites: HashMap<u32, Vec<u32>> = HashMap::new();
    for inst in &module.annotations {
        match inst.class.opcode {
            Op::Decorate => {
                let target = check_id(id(operand(inst, 0)?, "OpDecorate")?, "OpDecorate")?;
                if let Operand::Decoration(d) = operand(inst, 1)? {
                    if inst.operands.get(2) == Some(&Operand::BuiltIn(BuiltIn::WorkgroupSize)) {
                        workgroup_size_id = Some(target);
                    }
                    r.decorations
                        .entry(target)
                        .or_default()
                        .push((*d, literals(&inst.operands[2..])));
                }
            }
            Op::MemberDecorate => {
                let target = check_id(
                    id(operand(inst, 0)?, "OpMemberDecorate")?,
                    "OpMemberDecorate",
                )?;
                let member = lit(operand(inst, 1)?, "OpMemberDecorate member")?;
                if let Operand::Decoration(d) = operand(inst, 2)? {
                    r.member_decorations
                        .entry((target, member))
                        .or_default()
                        .push((*d, literals(&inst.operands[3..])));
                }
            }
            _ => {}
        }
    }
    let mut variables = Vec::new();
    for inst in &module.types_global_values {
        let Some(result) = inst.result_id else {
            continue;
        };
        check_id(result, "result")?;
        let op = |i| operand(inst, i);
        let ty = match inst.class.opcode {
            Op::TypeBool => Ty::Scalar(32),
            Op::TypeInt => {
                let signed = lit(op(1)?, "type signedness")? != 0;
                scalar_kind.insert(
                    result,
                    if signed {
                        ChannelKind::Sint
                    } else {
                        ChannelKind::Uint
                    },
                );
                Ty::Scalar(lit(op(0)?, "type width")?)
            }
            Op::TypeFloat => {
                scalar_kind.insert(result, ChannelKind::Float);
                Ty::Scalar(lit(op(0)?, "type width")?)
            }
            Op::TypeVector => Ty::Vector(id(op(0)?, "vector")?, lit(op(1)?, "vector size")?),
            Op::TypeMatrix => Ty::Matrix(id(op(0)?, "matrix")?, lit(op(1)?, "matrix columns")?),
            Op::TypeArray => Ty::Array(id(op(0)?, "array")?, id(op(1)?, "array length")?),
            Op::TypeRuntimeArray => Ty::RuntimeArray(id(op(0)?, "runtime array")?),
            Op::TypeStruct => Ty::Struct(
                inst.operands
                    .iter()
                    .map(|o| id(o, "struct member"))
                    .collect::<Result<_, _>>()?,
            ),
            Op::TypePointer => match op(0)? {
                Operand::StorageClass(_) => Ty::Pointer(id(op(1)?, "pointer")?),
                other => return Err(malformed(format!("OpTypePointer %{result}: {other:?}"))),
            },
            Op::TypeImage => {
                let (info, sampled) = image_type(inst, &scalar_kind)?;
                r.sampled.insert(result, sampled);
                Ty::Image(info)
            }
            Op::TypeSampler => Ty::Sampler,
            Op::TypeSampledImage => Ty::SampledImage(id(op(0)?, "sampled image")?),
            Op::TypeAccelerationStructureKHR => Ty::Opaque("an acceleration structure"),
            Op::ConstantComposite | Op::SpecConstantComposite => {
                composites.insert(result, literals(&inst.operands));
                continue;
            }
            // A specialization constant's default: the runner sets none.
            Op::Constant | Op::SpecConstant => {
                if let Some(Operand::LiteralBit32(v)) = inst.operands.first() {
                    r.constants.insert(result, u64::from(*v));
                } else if let Some(Operand::LiteralBit64(v)) = inst.operands.first() {
                    r.constants.insert(result, *v);
                }
                continue;
            }
            Op::Variable => {
                variables.push(inst);
                continue;
            }
            op if format!("{op:?}").starts_with("Type") => Ty::Other,
            _ => continue,
        };
        r.types.insert(result, ty);
    }

    let mut interface = Interface {
        spec_constants: crate::specialization::spec_constants(&module)?,
        ..Interface::default()
    };
    for inst in &module.entry_points {
        let model = match operand(inst, 0)? {
            Operand::ExecutionModel(m) => *m,
            other => return Err(malformed(format!("OpEntryPoint: {other:?}"))),
        };
        let function = id(operand(inst, 1)?, "OpEntryPoint function")?;
        let name = match operand(inst, 2)? {
            Operand::LiteralString(s) => s.clone(),
            other => return Err(malformed(format!("OpEntryPoint name: {other:?}"))),
        };
        let mut local_size = None;
        let mut size_ids: Vec<u32> = Vec::new();
        // The ids that are the three dimensions (LocalSizeId operands or the built-in's
        // constituents).
        let mut dim_ids: Vec<u32> = Vec::new();
        for mode in &module.execution_modes {
            if mode.operands.first() != Some(&Operand::IdRef(function)) {
                continue;
            }
            match mode.operands.get(1) {
                Some(Operand::ExecutionMode(ExecutionMode::LocalSize)) => {
                    let v = literals(&mode.operands[2..]);
                    if v.len() == 3 {
                        local_size = Some([v[0], v[1], v[2]]);
                    }
                }
                Some(Operand::ExecutionMode(ExecutionMode::LocalSizeId)) => {
                    size_ids.extend(literals(&mode.operands[2..]));
                    dim_ids = literals(&mode.operands[2..]);
                    let v: Vec<u32> = literals(&mode.operands[2..])
                        .iter()
                        .filter_map(|i| r.constants.get(i).map(|c| *c as u32))
                        .collect();
                    if v.len() == 3 {
                        local_size = Some([v[0], v[1], v[2]]);
                    }
                }
                _ => {}
            }
        }
        if let Some(id) = workgroup_size_id {
            // The built-in takes precedence over `LocalSize` (SPIR-V 3.21, `WorkgroupSize`).
            local_size = constant_vec3(&r.constants, composites.get(&id));
            size_ids.push(id);
            size_ids.extend(composites.get(&id).into_iter().flatten());
            dim_ids = composites.get(&id).cloned().unwrap_or_default();
        }
        let mut size_dim_spec_ids = [None; 3];
        if dim_ids.len() == 3 {
            for (slot, &i) in size_dim_spec_ids.iter_mut().zip(&dim_ids) {
                *slot = r
                    .decoration(i, Decoration::SpecId)
                    .and_then(|d| d.first().copied());
            }
        }
        let size_spec_ids = size_ids
            .iter()
            .filter_map(|&i| r.decoration(i, Decoration::SpecId)?.first().copied())
            .collect();
        interface.entry_points.push(EntryPoint {
            name,
            model,
            local_size,
            size_spec_ids,
            size_dim_spec_ids,
        });
    }

    let function_variables = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::Variable);
    let mut sizes = HashMap::new();
    for var in variables.iter().copied().chain(function_variables) {
        let private = matches!(
            var.operands.first(),
            Some(Operand::StorageClass(
                StorageClass::Private | StorageClass::Function
            ))
        );
        if let (true, Some(Ty::Pointer(pointee))) =
            (private, var.result_type.and_then(|t| r.types.get(&t)))
        {
            let bytes = r.natural_size(*pointee, &mut sizes);
            interface.invocation_memory = interface.invocation_memory.saturating_add(bytes);
        }
    }
    let compared = comparison_samplers(&module);
    for var in variables {
        let result = var.result_id.unwrap_or(0);
        let class = match operand(var, 0)? {
            Operand::StorageClass(sc) => *sc,
            other => return Err(malformed(format!("OpVariable %{result}: {other:?}"))),
        };
        let ptr = var
            .result_type
            .ok_or_else(|| malformed(format!("OpVariable %{result} has no type")))?;
        let pointee = match r.ty(ptr)? {
            Ty::Pointer(p) => *p,
            _ => {
                return Err(malformed(format!(
                    "OpVariable %{result}: type %{ptr} is not a pointer"
                )))
            }
        };
        if class == StorageClass::PushConstant {
            interface.push_constants = true;
            continue;
        }
        let set = r.decoration(result, Decoration::DescriptorSet);
        let binding = r.decoration(result, Decoration::Binding);
        let (Some([set, ..]), Some([binding, ..])) = (set, binding) else {
            continue;
        };
        let (set, binding) = (*set, *binding);
        let name = r.names.get(&result).cloned();
        let label = format!(
            "binding {set}:{binding} (%{result}{})",
            name.as_deref()
                .map(|n| format!(" `{n}`"))
                .unwrap_or_default()
        );
        let block = r.decoration(pointee, Decoration::Block).is_some();
        let buffer_block = r.decoration(pointee, Decoration::BufferBlock).is_some();
        let kind = match class {
            StorageClass::StorageBuffer => DescriptorKind::StorageBuffer,
            StorageClass::Uniform if buffer_block => DescriptorKind::StorageBuffer,
            StorageClass::Uniform if block => DescriptorKind::UniformBuffer,
            StorageClass::Uniform => {
                return Err(malformed(format!(
                    "{label}: a Uniform variable whose type is neither Block nor BufferBlock"
                )))
            }
            StorageClass::UniformConstant => {
                let (kind, image) = match r.ty(pointee)? {
                    Ty::Image(info) => (
                        match r.sampled.get(&pointee) {
                            Some(1) => DescriptorKind::SampledImage,
                            Some(2) => DescriptorKind::StorageImage,
                            _ => {
                                return Err(ReflectError::Unsupported(format!(
                                    "{label} is an image whose `Sampled` operand is not 1 or 2 \
                                     (known only at run time)"
                                )))
                            }
                        },
                        Some(*info),
                    ),
                    Ty::Sampler => (DescriptorKind::Sampler, None),
                    Ty::SampledImage(image) => match r.ty(*image)? {
                        Ty::Image(info) => (DescriptorKind::CombinedImageSampler, Some(*info)),
                        _ => {
                            return Err(malformed(format!(
                                "{label}: OpTypeSampledImage of %{image}, which is not an image"
                            )))
                        }
                    },
                    Ty::Opaque(what) => {
                        return Err(ReflectError::Unsupported(format!(
                            "{label} is {what}; the Vulkan runner binds buffers, images and \
                             samplers only"
                        )))
                    }
                    Ty::Array(..) | Ty::RuntimeArray(_) => {
                        return Err(ReflectError::Unsupported(format!(
                            "{label} is an array of resources (a binding array)"
                        )))
                    }
                    _ => {
                        return Err(ReflectError::Unsupported(format!(
                            "{label} is a UniformConstant resource that is not an image or \
                             sampler"
                        )))
                    }
                };
                if interface.bindings.contains_key(&(set, binding)) {
                    return Err(ReflectError::Unsupported(format!(
                        "{label}: several variables share binding {set}:{binding}"
                    )));
                }
                interface.bindings.insert(
                    (set, binding),
                    Binding {
                        set,
                        binding,
                        name,
                        kind,
                        min_size: 0,
                        runtime_sized: false,
                        image,
                        comparison: compared.contains(&result),
                    },
                );
                continue;
            }
            other => {
                return Err(ReflectError::Unsupported(format!(
                    "{label} in storage class {other:?}"
                )))
            }
        };
        if !matches!(r.ty(pointee)?, Ty::Struct(_)) {
            return Err(ReflectError::Unsupported(format!(
                "{label}: an array of buffer blocks (a binding array)"
            )));
        }
        let extent = r.extent(pointee, None, 0).map_err(|e| match e {
            ReflectError::Unsupported(m) => ReflectError::Unsupported(format!("{label}: {m}")),
            ReflectError::Malformed(m) => malformed(format!("{label}: {m}")),
        })?;
        if interface.bindings.contains_key(&(set, binding)) {
            return Err(ReflectError::Unsupported(format!(
                "{label}: several variables share binding {set}:{binding}"
            )));
        }
        interface.bindings.insert(
            (set, binding),
            Binding {
                set,
                binding,
                name,
                kind,
                min_size: extent.size - extent.padding,
                runtime_sized: extent.runtime,
                image: None,
                comparison: false,
            },
        );
    }
    Ok(interface)
}
