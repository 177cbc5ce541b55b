//! # oxir-vulkan — run SPIR-V compute shaders on a Vulkan device
//!
//! `oxir run --engine vulkan` executes here: a SPIR-V binary (oxir's own, or any other
//! compiler's), an entry point, a workgroup count and the bytes of every buffer binding go
//! in; the bytes of every binding after the dispatch come out. In tests and CI the device
//! is Mesa's lavapipe CPU driver.
//!
//! - The Vulkan loader (`libvulkan.so.1`) is opened at run time ([`ash::Entry::load`]), so
//!   building oxir never needs Vulkan; `OXIR_VULKAN_LOADER=PATH` loads another library
//!   instead. A missing loader, no device, or a device name that matches none is an
//!   [`Error`] with a message saying what to install or which devices exist.
//! - Device choice ([`DeviceSelector`]): the first device in enumeration order, or the one
//!   whose index is given, or the first whose name contains the given text.
//! - [`run_compute`] creates everything it needs for one dispatch and frees all of it on
//!   every path (the `runner` guard's `Drop`): one host-visible, host-coherent buffer per
//!   binding (at least 4 bytes, so zero-sized bindings are legal), one descriptor set per
//!   set number up to the largest (empty layouts fill gaps), a compute pipeline, one
//!   command buffer with the dispatch and a compute-write → host-read barrier, and a fence
//!   waited on for at most `OXIR_VULKAN_TIMEOUT_MS` milliseconds (default 10 000). A
//!   timeout is an error; the objects the device may still be using are then leaked rather
//!   than destroyed while in use.
//! - Every feature the device supports is enabled (core, and the Vulkan 1.1–1.3 feature
//!   structures when both the loader and the device have that version), so any module the
//!   device can run is accepted: 64-bit integers and atomics, 16-bit types, and
//!   `robustBufferAccess`, which keeps out-of-bounds buffer accesses inside the buffer
//!   (Vulkan does not promise WGSL's "reads give zero").
//! - lavapipe (llvmpipe's gallivm) ends every loop after 65535 iterations without an
//!   error, so a kernel that loops longer gives different results there than on a GPU or
//!   in the interpreter; the timeout only catches dispatches that are slow overall.
//! - Images and samplers ([`images`]): sampled images, storage images, samplers and
//!   combined image-samplers are bound as `SAMPLED_IMAGE`, `STORAGE_IMAGE`, `SAMPLER` and
//!   `COMBINED_IMAGE_SAMPLER` descriptors. Each image is a device-local, optimal-tiling
//!   `VkImage` of the declared dimension and format and the extent the caller gives
//!   ([`BindingData::extent`]), one mip level; its texels are uploaded through a
//!   host-visible staging buffer (zeros when no bytes are given) and it is moved to
//!   `GENERAL` (storage) or `SHADER_READ_ONLY_OPTIMAL` (sampled) before the dispatch.
//!   After it, every storage image is copied back through its staging buffer and its
//!   texels returned; sampled images return their input bytes, samplers nothing. Shapes
//!   and formats the runner cannot make are [`Error::Unsupported`] before any Vulkan
//!   object exists (format support is checked against the device).
//! - Push constants are refused ([`Error::PushConstants`]).
//! - [`reflect()`] reads a SPIR-V binary's entry points and its buffer, image and sampler
//!   bindings (buffers with their minimum sizes from the layout decorations, images with
//!   dimension, arrayed / multisampled / depth flags, sampled type and format), so a
//!   `.spv` file can be run without any other description. Malformed input is an error
//!   naming the word, never a panic.

pub mod images;
pub mod reflect;
mod runner;
pub mod specialization;

pub use reflect::{
    reflect, words_from_bytes, ChannelKind, DescriptorKind, ImageInfo, Interface, ReflectError,
};
pub use rspirv::spirv::{Dim, ImageFormat};
pub use runner::{list_devices, run_compute, run_compute_specialized};
pub use specialization::{SpecType, Specialization};

/// One binding of a dispatch: where it goes, what kind, and its initial bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingData {
    pub set: u32,
    pub binding: u32,
    pub kind: DescriptorKind,
    /// A buffer's bytes, or an image's texels (tightly packed in the image's format, see
    /// [`images`]; empty means all zero). Unused for samplers.
    pub bytes: Vec<u8>,
    /// An image's `[width, height, depth-or-layers]`; `None` is [`images::default_extent`].
    /// Unused for buffers and samplers.
    pub extent: Option<[u32; 3]>,
    /// An image's samples per texel: 1, or 2..=64 (a power of two the device supports for
    /// the format) for a multisampled image, which takes no texels (zero) or exactly one
    /// texel that every sample holds (see [`images`]). Unused for buffers and samplers.
    pub samples: u32,
}

impl BindingData {
    /// A buffer binding.
    pub fn buffer(set: u32, binding: u32, kind: DescriptorKind, bytes: Vec<u8>) -> Self {
        BindingData {
            set,
            binding,
            kind,
            bytes,
            extent: None,
            samples: 1,
        }
    }
}

/// Which physical device to use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceSelector {
    /// The first one the loader lists.
    #[default]
    First,
    /// By position in the loader's list.
    Index(usize),
    /// The first whose name contains this text (case-insensitive).
    Name(String),
}

impl DeviceSelector {
    /// `--device` text: a number is an index, anything else a name substring.
    pub fn parse(text: &str) -> Self {
        match text.trim().parse::<usize>() {
            Ok(i) => DeviceSelector::Index(i),
            Err(_) => DeviceSelector::Name(text.to_string()),
        }
    }
}

/// A physical device as the loader lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub index: usize,
    pub name: String,
    /// `cpu`, `integrated-gpu`, `discrete-gpu`, `virtual-gpu` or `other`.
    pub kind: &'static str,
    /// `major.minor.patch` of the Vulkan API the device supports.
    pub api_version: String,
    /// The device's subgroup size (`VkPhysicalDeviceSubgroupProperties::subgroupSize`);
    /// `None` below Vulkan 1.1, which has no subgroups.
    pub subgroup_size: Option<u32>,
}

/// Why a dispatch could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "no Vulkan loader (libvulkan.so.1) found: install libvulkan1 and a driver such as \
         mesa-vulkan-drivers ({0})"
    )]
    NoLoader(String),
    #[error("no Vulkan device found (is a driver such as mesa-vulkan-drivers installed? VK_DRIVER_FILES={0})")]
    NoDevice(String),
    #[error("no Vulkan device matches `{wanted}`; devices: {available}")]
    DeviceNotFound { wanted: String, available: String },
    #[error("Vulkan device `{0}` has no compute queue")]
    NoComputeQueue(String),
    #[error("{what} failed: {result}")]
    Vulkan {
        what: &'static str,
        result: ash::vk::Result,
    },
    #[error("creating the compute pipeline for entry point `{entry}` failed: {result} (does the module pass spirv-val?)")]
    Pipeline {
        entry: String,
        result: ash::vk::Result,
    },
    #[error("no host-visible, host-coherent memory type for a {0}-byte buffer")]
    NoMemoryType(u64),
    #[error("the module uses push constants, which the Vulkan runner does not set")]
    PushConstants,
    #[error("{0}")]
    Reflect(#[from] ReflectError),
    #[error("{0}")]
    Interface(String),
    #[error(
        "workgroup count {given:?} exceeds the device's limit {limit:?} (maxComputeWorkGroupCount)"
    )]
    TooManyWorkgroups { given: [u32; 3], limit: [u32; 3] },
    /// The entry point's `LocalSize` exceeds the device's `maxComputeWorkGroupSize` in
    /// some dimension.
    #[error(
        "workgroup size {given:?} exceeds the device's limit {limit:?} (maxComputeWorkGroupSize)"
    )]
    WorkgroupTooLarge { given: [u32; 3], limit: [u32; 3] },
    /// The entry point's invocations per workgroup exceed the device's
    /// `maxComputeWorkGroupInvocations`.
    #[error(
        "workgroup size {given:?} is {invocations} invocations, more than the device's limit \
         {limit} (maxComputeWorkGroupInvocations)"
    )]
    TooManyInvocations {
        given: [u32; 3],
        invocations: u64,
        limit: u32,
    },
    #[error("the dispatch did not finish within {0} ms (OXIR_VULKAN_TIMEOUT_MS)")]
    Timeout(u64),
    #[error(
        "the module's private and function variables take at least {bytes} bytes per \
         invocation, more than the runner's limit of {limit} (OXIR_VULKAN_MAX_PRIVATE_BYTES): \
         drivers such as lavapipe hang or crash on large private arrays"
    )]
    PrivateMemory { bytes: u64, limit: u64 },
    #[error("the device was lost during the dispatch (a crash or hang in the shader?)")]
    DeviceLost,
    #[error("unsupported: {0}")]
    Unsupported(String),
}

impl Error {
    /// Whether the error means no Vulkan is available here at all (no loader or no device),
    /// as opposed to a problem with the module or the request.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Error::NoLoader(_) | Error::NoDevice(_))
    }
}
