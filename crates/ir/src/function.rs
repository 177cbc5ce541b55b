//! Functions: kind, signature with stage bindings, data-flow graph, layout and metadata.
//!
//! A definition's parameters are the parameters of its entry block (the first block in
//! layout), with the types the signature gives. An `external` function is a declaration:
//! it has a signature and no blocks.

use crate::dfg::DataFlowGraph;
use crate::entities::{Block, Inst, Type, Value};
use crate::layout::Layout;
use crate::metadata::Metadata;
use std::fmt;

/// What kind of function this is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// A compute entry point.
    Kernel {
        /// Invocations per workgroup along x, y and z; each at least 1. For a dimension
        /// with a specialization id, its default.
        workgroup_size: [u32; 3],
        /// Per dimension, the specialization id through which a pipeline may set it when
        /// it is created (SPIR-V `SpecId`); `None`: the size is fixed. Text form:
        /// `workgroup_size(64 spec_id 0, 1, 1)`. Nothing may assume a specialisable
        /// dimension is its default (the interpreter runs the default).
        workgroup_spec_ids: [Option<u32>; 3],
    },
    /// A vertex-stage entry point.
    Vertex,
    /// A fragment-stage entry point.
    Fragment,
    /// A function callable from others.
    Callable,
    /// A declaration of a function defined elsewhere.
    External,
}

impl FunctionKind {
    /// A kernel of a fixed workgroup size.
    pub fn kernel(workgroup_size: [u32; 3]) -> FunctionKind {
        FunctionKind::Kernel {
            workgroup_size,
            workgroup_spec_ids: [None; 3],
        }
    }

    /// Whether the function is a shader stage entry point (kernel, vertex or fragment).
    pub fn is_entry_point(self) -> bool {
        matches!(
            self,
            FunctionKind::Kernel { .. } | FunctionKind::Vertex | FunctionKind::Fragment
        )
    }

    /// The keyword that opens the function in the text form (`kernel`, `vertex`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            FunctionKind::Kernel { .. } => "kernel",
            FunctionKind::Vertex => "vertex",
            FunctionKind::Fragment => "fragment",
            FunctionKind::Callable => "callable",
            FunctionKind::External => "external",
        }
    }
}

/// Built-in stage inputs and outputs (the WGSL built-in values of the same names).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// Vertex output clip position; fragment input frag coord.
    Position,
    /// Vertex input: index of the current vertex.
    VertexIndex,
    /// Vertex input: index of the current instance.
    InstanceIndex,
    /// Vertex input: the first instance of the draw.
    BaseInstance,
    /// Vertex input: the vertex offset of the draw.
    BaseVertex,
    /// Fragment input: whether the primitive faces the viewer.
    FrontFacing,
    /// Fragment output: the fragment's depth.
    FragDepth,
    /// Fragment input: the sample being shaded.
    SampleIndex,
    /// Fragment input or output: the coverage mask of the samples.
    SampleMask,
    /// Fragment input: index of the current primitive.
    PrimitiveIndex,
    /// Compute input: the invocation's position within its workgroup.
    LocalInvocationId,
    /// Compute input: the invocation's linear index within its workgroup.
    LocalInvocationIndex,
    /// Compute input: the invocation's position within the whole dispatch.
    GlobalInvocationId,
    /// Compute input: the workgroup's position within the dispatch.
    WorkgroupId,
    /// Compute input: the dispatch size in workgroups.
    NumWorkgroups,
    /// The invocation's index within its subgroup.
    SubgroupInvocationId,
    /// The number of invocations in a subgroup.
    SubgroupSize,
    /// Compute input: the invocation's subgroup within its workgroup.
    SubgroupId,
    /// Compute input: the number of subgroups in a workgroup.
    NumSubgroups,
}

impl Builtin {
    /// Every built-in, in declaration order.
    pub const ALL: [Builtin; 19] = [
        Builtin::Position,
        Builtin::VertexIndex,
        Builtin::InstanceIndex,
        Builtin::BaseInstance,
        Builtin::BaseVertex,
        Builtin::FrontFacing,
        Builtin::FragDepth,
        Builtin::SampleIndex,
        Builtin::SampleMask,
        Builtin::PrimitiveIndex,
        Builtin::LocalInvocationId,
        Builtin::LocalInvocationIndex,
        Builtin::GlobalInvocationId,
        Builtin::WorkgroupId,
        Builtin::NumWorkgroups,
        Builtin::SubgroupInvocationId,
        Builtin::SubgroupSize,
        Builtin::SubgroupId,
        Builtin::NumSubgroups,
    ];

    /// The text-form spelling inside `builtin(..)`: the WGSL name (`vertex_index`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Position => "position",
            Builtin::VertexIndex => "vertex_index",
            Builtin::InstanceIndex => "instance_index",
            Builtin::BaseInstance => "base_instance",
            Builtin::BaseVertex => "base_vertex",
            Builtin::FrontFacing => "front_facing",
            Builtin::FragDepth => "frag_depth",
            Builtin::SampleIndex => "sample_index",
            Builtin::SampleMask => "sample_mask",
            Builtin::PrimitiveIndex => "primitive_index",
            Builtin::LocalInvocationId => "local_invocation_id",
            Builtin::LocalInvocationIndex => "local_invocation_index",
            Builtin::GlobalInvocationId => "global_invocation_id",
            Builtin::WorkgroupId => "workgroup_id",
            Builtin::NumWorkgroups => "num_workgroups",
            Builtin::SubgroupInvocationId => "subgroup_invocation_id",
            Builtin::SubgroupSize => "subgroup_size",
            Builtin::SubgroupId => "subgroup_id",
            Builtin::NumSubgroups => "num_subgroups",
        }
    }

    /// Parses the spelling produced by [`Builtin::name`]; `None` for any other string.
    pub fn from_name(name: &str) -> Option<Self> {
        Builtin::ALL.into_iter().find(|b| b.name() == name)
    }
}

/// Interpolation of a user-defined stage variable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum InterpolationKind {
    /// Perspective-correct interpolation.
    Perspective,
    /// Linear interpolation in screen space.
    Linear,
    /// No interpolation: every fragment gets the provoking vertex's value.
    Flat,
}

/// Where within a pixel an interpolated value is evaluated.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sampling {
    /// At the pixel centre.
    Center,
    /// At a point inside both the pixel and the primitive.
    Centroid,
    /// Per sample: the fragment shader runs once per covered sample.
    Sample,
}

/// How a user-defined stage variable is interpolated: spelled `kind, sampling` inside
/// `location(..)` in the text form.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Interpolation {
    /// Perspective, linear or flat.
    pub kind: InterpolationKind,
    /// Where within the pixel the value is evaluated.
    pub sampling: Sampling,
}

impl InterpolationKind {
    /// The text-form spelling: `perspective`, `linear` or `flat`.
    pub fn name(self) -> &'static str {
        match self {
            InterpolationKind::Perspective => "perspective",
            InterpolationKind::Linear => "linear",
            InterpolationKind::Flat => "flat",
        }
    }

    /// Parses the spelling produced by [`InterpolationKind::name`]; `None` for any other
    /// string.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "perspective" => InterpolationKind::Perspective,
            "linear" => InterpolationKind::Linear,
            "flat" => InterpolationKind::Flat,
            _ => return None,
        })
    }
}

impl Sampling {
    /// The text-form spelling: `center`, `centroid` or `sample`.
    pub fn name(self) -> &'static str {
        match self {
            Sampling::Center => "center",
            Sampling::Centroid => "centroid",
            Sampling::Sample => "sample",
        }
    }

    /// Parses the spelling produced by [`Sampling::name`]; `None` for any other string.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "center" => Sampling::Center,
            "centroid" => Sampling::Centroid,
            "sample" => Sampling::Sample,
            _ => return None,
        })
    }
}

/// The stage binding of an entry-point parameter or result.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StageBinding {
    /// A built-in value: `builtin(name)`.
    Builtin(Builtin),
    /// A user-defined stage variable: `location(n)` or `location(n, kind, sampling)`.
    Location {
        /// The location number, matching a vertex output to a fragment input.
        location: u32,
        /// How the value is interpolated; `None` means perspective at the pixel centre.
        /// Only vertex outputs and fragment inputs are interpolated.
        interpolation: Option<Interpolation>,
    },
}

impl fmt::Display for StageBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StageBinding::Builtin(b) => write!(f, "builtin({})", b.name()),
            StageBinding::Location {
                location,
                interpolation,
            } => {
                write!(f, "location({location}")?;
                if let Some(i) = interpolation {
                    write!(f, ", {}, {}", i.kind.name(), i.sampling.name())?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A parameter or result of a function signature.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AbiParam {
    /// The type of the value passed or returned.
    pub ty: Type,
    /// Required on entry-point parameters and results; absent elsewhere.
    pub binding: Option<StageBinding>,
    /// `invariant` (WGSL `@invariant`): the value is computed identically by every
    /// program computing it by the same expressions from the same inputs. Only on a
    /// vertex entry point's `builtin(position)` result (the verifier checks).
    pub invariant: bool,
}

impl AbiParam {
    /// A parameter or result without a stage binding (for callables and externals).
    pub fn new(ty: Type) -> Self {
        AbiParam {
            ty,
            binding: None,
            invariant: false,
        }
    }

    /// An entry-point parameter or result with its stage binding.
    pub fn bound(ty: Type, binding: StageBinding) -> Self {
        AbiParam {
            ty,
            binding: Some(binding),
            invariant: false,
        }
    }

    /// This parameter or result, marked `invariant`.
    pub fn invariant(self) -> Self {
        AbiParam {
            invariant: true,
            ..self
        }
    }
}

/// Parameters and results. Callables return at most one value; entry points may return
/// several, each with its stage binding.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Signature {
    /// The parameters, in order; a definition's entry block has one parameter per entry.
    pub params: Vec<AbiParam>,
    /// The results, in order; empty for a function that returns nothing.
    pub returns: Vec<AbiParam>,
}

/// A function of a module.
#[derive(Clone, Debug)]
pub struct Function {
    /// Unique within the module; the text form spells it `@name`.
    pub name: String,
    /// Entry point, callable or external declaration.
    pub kind: FunctionKind,
    /// Parameter and result types, with stage bindings on entry points.
    pub signature: Signature,
    /// The blocks, instructions and values of the body (empty for a declaration).
    pub dfg: DataFlowGraph,
    /// Which blocks are in the body, in which order, and which instructions each holds.
    pub layout: Layout,
    /// Function-level metadata: presentation items and the semantic flags `no_inline`
    /// and `signature_constraint`.
    pub metadata: Metadata,
}

impl Function {
    /// A function with no blocks: a declaration, or a definition whose body the caller
    /// builds next (see [`crate::builder`]).
    pub fn new(name: impl Into<String>, kind: FunctionKind, signature: Signature) -> Self {
        Function {
            name: name.into(),
            kind,
            signature,
            dfg: DataFlowGraph::new(),
            layout: Layout::new(),
            metadata: Metadata::default(),
        }
    }

    /// The first block in layout, whose parameters are the function's; `None` while the
    /// body is empty.
    pub fn entry_block(&self) -> Option<Block> {
        self.layout.entry_block()
    }

    /// Whether this function has a body (is not a declaration).
    pub fn is_definition(&self) -> bool {
        self.kind != FunctionKind::External
    }

    /// The terminator of `block`: its last instruction, when that is a terminator.
    pub fn terminator(&self, block: Block) -> Option<Inst> {
        let last = self.layout.last_inst(block)?;
        self.dfg.inst(last).opcode.is_terminator().then_some(last)
    }

    /// Executable successors of `block` (one per edge, duplicates kept), from its
    /// terminator. Structural roles are not successors.
    pub fn successors(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        self.terminator(block).into_iter().flat_map(move |t| {
            self.dfg
                .inst(t)
                .payload
                .edges()
                .into_iter()
                .map(|e| e.block)
        })
    }

    /// Appends a new empty block to the layout.
    pub fn append_new_block(&mut self) -> Block {
        let b = self.dfg.make_block();
        self.layout.append_block(b);
        b
    }

    /// Number of instructions placed in blocks of the layout.
    pub fn placed_inst_count(&self) -> usize {
        self.layout
            .blocks()
            .map(|b| self.layout.block_insts(b).count())
            .sum()
    }

    /// Removes `inst` from its block and detaches its result.
    pub fn remove_inst(&mut self, inst: Inst) {
        self.layout.remove_inst(inst);
        self.dfg.detach_result(inst);
    }

    /// The value `v` after alias resolution.
    pub fn resolve(&self, v: Value) -> Value {
        self.dfg.resolve(v)
    }
}
