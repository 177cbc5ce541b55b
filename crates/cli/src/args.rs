//! The closed sets of values the command line takes, as clap `ValueEnum`s: clap rejects any
//! other value with the list of possible ones (a usage error, exit 2), and each maps to the
//! library type it stands for.

use clap::ValueEnum;

/// `oxir compile --target`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum TargetArg {
    /// The oxir module as text.
    Oxir,
    /// A SPIR-V binary (compute, vertex and fragment entry points).
    Spirv,
    /// The SPIR-V binary's disassembly.
    SpirvAsm,
    /// LLVM IR text for NVIDIA GPUs (compute kernels).
    LlvmNvptx,
    /// PTX assembly through llc-22 (compute kernels).
    Ptx,
    /// The CSIR listing (one vertex or fragment entry point).
    Csir,
    /// TGSI text for VirGL (one vertex or fragment entry point, through CSIR).
    Tgsi,
    /// A CSI v2 binary (one vertex or fragment entry point).
    Csi,
}

impl From<TargetArg> for oxir_driver::Target {
    fn from(target: TargetArg) -> Self {
        match target {
            TargetArg::Oxir => oxir_driver::Target::Oxir,
            TargetArg::Spirv => oxir_driver::Target::Spirv,
            TargetArg::SpirvAsm => oxir_driver::Target::SpirvAsm,
            TargetArg::LlvmNvptx => oxir_driver::Target::LlvmNvptx,
            TargetArg::Ptx => oxir_driver::Target::Ptx,
            TargetArg::Csir => oxir_driver::Target::Csir,
            TargetArg::Tgsi => oxir_driver::Target::Tgsi,
            TargetArg::Csi => oxir_driver::Target::Csi,
        }
    }
}

/// `--target-env`: the Vulkan version the SPIR-V is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum TargetEnvArg {
    #[value(name = "vulkan1.0")]
    Vulkan1_0,
    #[value(name = "vulkan1.1")]
    Vulkan1_1,
    #[value(name = "vulkan1.2")]
    Vulkan1_2,
    #[value(name = "vulkan1.3")]
    Vulkan1_3,
}

impl From<TargetEnvArg> for oxir_driver::TargetEnv {
    fn from(env: TargetEnvArg) -> Self {
        match env {
            TargetEnvArg::Vulkan1_0 => oxir_driver::TargetEnv::Vulkan1_0,
            TargetEnvArg::Vulkan1_1 => oxir_driver::TargetEnv::Vulkan1_1,
            TargetEnvArg::Vulkan1_2 => oxir_driver::TargetEnv::Vulkan1_2,
            TargetEnvArg::Vulkan1_3 => oxir_driver::TargetEnv::Vulkan1_3,
        }
    }
}

/// `oxir compile -O`: `-O0`, or `-O` / `-O1`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OptLevelArg {
    #[value(name = "0")]
    O0,
    #[value(name = "1")]
    O1,
}

impl From<OptLevelArg> for oxir_driver::OptLevel {
    fn from(level: OptLevelArg) -> Self {
        match level {
            OptLevelArg::O0 => oxir_driver::OptLevel::O0,
            OptLevelArg::O1 => oxir_driver::OptLevel::O1,
        }
    }
}

/// `oxir run -O`: `-O0`, or `-O` / `-O1` (`-O2` and `-O3` mean `-O1` for the interpreter;
/// the Vulkan engine refuses them).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum RunOptLevelArg {
    #[value(name = "0")]
    O0,
    #[value(name = "1")]
    O1,
    #[value(name = "2")]
    O2,
    #[value(name = "3")]
    O3,
}

impl RunOptLevelArg {
    /// How `-O` was spelled (for messages).
    pub fn spelling(self) -> &'static str {
        match self {
            RunOptLevelArg::O0 => "0",
            RunOptLevelArg::O1 => "1",
            RunOptLevelArg::O2 => "2",
            RunOptLevelArg::O3 => "3",
        }
    }
}

/// `--stage`: the stage of a GLSL input.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum StageArg {
    #[value(alias = "vert")]
    Vertex,
    #[value(alias = "frag")]
    Fragment,
    #[value(alias = "comp")]
    Compute,
}

impl From<StageArg> for oxir_driver::GlslStage {
    fn from(stage: StageArg) -> Self {
        match stage {
            StageArg::Vertex => oxir_driver::GlslStage::Vertex,
            StageArg::Fragment => oxir_driver::GlslStage::Fragment,
            StageArg::Compute => oxir_driver::GlslStage::Compute,
        }
    }
}

/// `oxir run --engine`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// The reference interpreter.
    Interp,
    /// oxir's SPIR-V on a Vulkan device.
    Vulkan,
    /// The LLVM back-end's host target on this machine's CPU.
    Llvm,
    /// The CSIR interpreter: one vertex or fragment invocation (INPUT: a `.csi` file, or
    /// a shader compiled through CSIR).
    Csir,
}

/// Parses a `--bounds-checks` specification (clap reports a bad one as a usage error).
pub fn parse_bounds_checks(spec: &str) -> Result<oxir_driver::BoundsPolicy, String> {
    oxir_driver::BoundsPolicy::parse(spec).map_err(|e| e.to_string())
}

/// Parses an `--override NAME=VALUE` (clap reports a malformed one as a usage error; the
/// value is read by the override's type once the shader is parsed).
pub fn parse_override(spec: &str) -> Result<oxir_driver::OverrideSetting, String> {
    oxir_driver::OverrideSetting::parse(spec)
}

/// `--subgroup-size N`: a power of two from 1 to 128 (a usage error otherwise).
pub fn parse_subgroup_size(spec: &str) -> Result<u32, String> {
    let n: u32 = spec
        .parse()
        .map_err(|_| format!("`{spec}` is not a subgroup size (a power of two from 1 to 128)"))?;
    if oxir_interp::valid_subgroup_size(n) {
        Ok(n)
    } else {
        Err(format!(
            "subgroup size {n} is not a power of two from 1 to 128"
        ))
    }
}
