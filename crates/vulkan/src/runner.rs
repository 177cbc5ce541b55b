//! The dispatch itself, with ash.
//!
//! Every Vulkan object is created into a [`Session`] whose `Drop` destroys whatever was
//! created, newest first, so an error at any step frees everything made before it. The
//! one exception is a fence timeout: the device may still be executing, so the objects it
//! uses are leaked (destroying them would be undefined behaviour) and only the error is
//! reported.

use crate::images;
use crate::reflect::{DescriptorKind, Interface};
use crate::{BindingData, DeviceInfo, DeviceSelector, Error, Specialization};
use ash::vk;
use std::ffi::CString;

fn vk_err(what: &'static str) -> impl Fn(vk::Result) -> Error {
    move |result| match result {
        vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost,
        result => Error::Vulkan { what, result },
    }
}

fn load_entry() -> Result<ash::Entry, Error> {
    // SAFETY: loading the Vulkan loader runs its initialisers; that is the loader's
    // contract and what every Vulkan program does.
    let loaded = match std::env::var_os("OXIR_VULKAN_LOADER") {
        Some(path) => unsafe { ash::Entry::load_from(&path) }.map_err(|e| {
            Error::NoLoader(format!(
                "OXIR_VULKAN_LOADER={}: {e}",
                path.to_string_lossy()
            ))
        }),
        None => unsafe { ash::Entry::load() }.map_err(|e| Error::NoLoader(e.to_string())),
    };
    loaded
}

fn driver_files() -> String {
    std::env::var("VK_DRIVER_FILES")
        .or_else(|_| std::env::var("VK_ICD_FILENAMES"))
        .unwrap_or_else(|_| "(unset)".into())
}

/// Everything one dispatch creates. `Drop` destroys it.
struct Session {
    instance: ash::Instance,
    /// The API version the instance was created for: the loader's, at most 1.3.
    api_version: u32,
    device: Option<ash::Device>,
    buffers: Vec<(vk::Buffer, vk::DeviceMemory)>,
    images: Vec<(vk::Image, vk::DeviceMemory)>,
    views: Vec<vk::ImageView>,
    samplers: Vec<vk::Sampler>,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    pipeline_layout: vk::PipelineLayout,
    shader: vk::ShaderModule,
    pipeline: vk::Pipeline,
    descriptor_pool: vk::DescriptorPool,
    command_pool: vk::CommandPool,
    fence: vk::Fence,
    /// Set when a submission may still be running: then nothing is destroyed.
    in_flight: bool,
}

impl Session {
    fn new(entry: &ash::Entry) -> Result<Self, Error> {
        // SAFETY: a plain query of the loader.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .ok()
            .flatten()
            .unwrap_or(vk::API_VERSION_1_0);
        let api_version = loader_version.min(vk::API_VERSION_1_3);
        let app = vk::ApplicationInfo::default()
            .application_name(c"oxir")
            .api_version(api_version);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: a valid create info; the instance is destroyed in `Drop`.
        let instance = unsafe { entry.create_instance(&info, None) }.map_err(|e| match e {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => Error::NoDevice(driver_files()),
            e => vk_err("vkCreateInstance")(e),
        })?;
        Ok(Session {
            instance,
            api_version,
            device: None,
            buffers: Vec::new(),
            images: Vec::new(),
            views: Vec::new(),
            samplers: Vec::new(),
            set_layouts: Vec::new(),
            pipeline_layout: vk::PipelineLayout::null(),
            shader: vk::ShaderModule::null(),
            pipeline: vk::Pipeline::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            command_pool: vk::CommandPool::null(),
            fence: vk::Fence::null(),
            in_flight: false,
        })
    }

    fn devices(&self) -> Result<Vec<(vk::PhysicalDevice, DeviceInfo)>, Error> {
        // SAFETY: the instance is alive.
        let physical = unsafe { self.instance.enumerate_physical_devices() }
            .map_err(vk_err("vkEnumeratePhysicalDevices"))?;
        Ok(physical
            .into_iter()
            .enumerate()
            .map(|(index, pd)| {
                // SAFETY: `pd` comes from this instance.
                let p = unsafe { self.instance.get_physical_device_properties(pd) };
                let name = p
                    .device_name_as_c_str()
                    .map(|c| c.to_string_lossy().into_owned())
                    .unwrap_or_else(|_| "(unnamed)".into());
                let kind = match p.device_type {
                    vk::PhysicalDeviceType::CPU => "cpu",
                    vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated-gpu",
                    vk::PhysicalDeviceType::DISCRETE_GPU => "discrete-gpu",
                    vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual-gpu",
                    _ => "other",
                };
                let v = p.api_version;
                let api_version = format!(
                    "{}.{}.{}",
                    vk::api_version_major(v),
                    vk::api_version_minor(v),
                    vk::api_version_patch(v)
                );
                (
                    pd,
                    DeviceInfo {
                        index,
                        name,
                        kind,
                        api_version,
                        subgroup_size: self.subgroup_size(pd, v),
                    },
                )
            })
            .collect())
    }

    /// `VkPhysicalDeviceSubgroupProperties::subgroupSize` of a device of API `api`.
    fn subgroup_size(&self, pd: vk::PhysicalDevice, api: u32) -> Option<u32> {
        if api.min(self.api_version) < vk::API_VERSION_1_1 {
            return None;
        }
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
        // SAFETY: `pd` comes from this instance, whose API version is at least 1.1.
        unsafe {
            self.instance
                .get_physical_device_properties2(pd, &mut props)
        };
        Some(subgroup.subgroup_size)
    }

    fn device(&self) -> &ash::Device {
        self.device.as_ref().expect("the device is created first")
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.in_flight {
            return;
        }
        // SAFETY: every handle was created from this device / instance, nothing is in flight
        // (the fence was waited on, or nothing was submitted), and each is destroyed once,
        // children before parents.
        unsafe {
            if let Some(d) = &self.device {
                if self.fence != vk::Fence::null() {
                    d.destroy_fence(self.fence, None);
                }
                if self.command_pool != vk::CommandPool::null() {
                    d.destroy_command_pool(self.command_pool, None);
                }
                if self.descriptor_pool != vk::DescriptorPool::null() {
                    d.destroy_descriptor_pool(self.descriptor_pool, None);
                }
                if self.pipeline != vk::Pipeline::null() {
                    d.destroy_pipeline(self.pipeline, None);
                }
                if self.shader != vk::ShaderModule::null() {
                    d.destroy_shader_module(self.shader, None);
                }
                if self.pipeline_layout != vk::PipelineLayout::null() {
                    d.destroy_pipeline_layout(self.pipeline_layout, None);
                }
                for l in self.set_layouts.drain(..) {
                    d.destroy_descriptor_set_layout(l, None);
                }
                for v in self.views.drain(..) {
                    d.destroy_image_view(v, None);
                }
                for sampler in self.samplers.drain(..) {
                    d.destroy_sampler(sampler, None);
                }
                for (i, m) in self.images.drain(..) {
                    if i != vk::Image::null() {
                        d.destroy_image(i, None);
                    }
                    if m != vk::DeviceMemory::null() {
                        d.free_memory(m, None);
                    }
                }
                for (b, m) in self.buffers.drain(..) {
                    if b != vk::Buffer::null() {
                        d.destroy_buffer(b, None);
                    }
                    if m != vk::DeviceMemory::null() {
                        d.free_memory(m, None);
                    }
                }
                d.destroy_device(None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// What one binding became on the device.
enum Bound {
    Buffer {
        buffer: vk::Buffer,
        mem: vk::DeviceMemory,
    },
    Image {
        image: vk::Image,
        view: vk::ImageView,
        staging: vk::Buffer,
        staging_mem: vk::DeviceMemory,
        plan: ImagePlan,
        sampler: Option<vk::Sampler>,
    },
    Sampler(vk::Sampler),
}

/// An image binding, checked before any Vulkan object exists.
#[derive(Copy, Clone)]
struct ImagePlan {
    format: vk::Format,
    shape: images::Shape,
    size: u64,
    storage: bool,
    /// `TYPE_1`, or the sample count of a multisampled image (cleared, never copied).
    samples: vk::SampleCountFlags,
    /// Bytes per texel.
    texel: u32,
}

impl ImagePlan {
    fn multisampled(&self) -> bool {
        self.samples != vk::SampleCountFlags::TYPE_1
    }
}

fn find_memory(
    memory: &vk::PhysicalDeviceMemoryProperties,
    bits: u32,
    wanted: vk::MemoryPropertyFlags,
) -> Option<u32> {
    (0..memory.memory_type_count).find(|&i| {
        bits & (1 << i) != 0
            && memory.memory_types[i as usize]
                .property_flags
                .contains(wanted)
    })
}

/// A host-visible, host-coherent buffer of at least `size` bytes (4 at least, a multiple of
/// 4), zeroed and then filled with `init`, recorded in `s`.
fn host_buffer(
    s: &mut Session,
    d: &ash::Device,
    memory: &vk::PhysicalDeviceMemoryProperties,
    size: u64,
    usage: vk::BufferUsageFlags,
    init: &[u8],
) -> Result<(vk::Buffer, vk::DeviceMemory), Error> {
    let size = size.max(4).next_multiple_of(4);
    let info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(usage)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: valid create info; the buffer is recorded in `s` at once.
    let buffer = unsafe { d.create_buffer(&info, None) }.map_err(vk_err("vkCreateBuffer"))?;
    s.buffers.push((buffer, vk::DeviceMemory::null()));
    // SAFETY: `buffer` was created from `d`.
    let req = unsafe { d.get_buffer_memory_requirements(buffer) };
    let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    let type_index =
        find_memory(memory, req.memory_type_bits, wanted).ok_or(Error::NoMemoryType(size))?;
    let alloc = vk::MemoryAllocateInfo::default()
        .allocation_size(req.size)
        .memory_type_index(type_index);
    // SAFETY: valid allocate info; recorded in `s` at once.
    let mem = unsafe { d.allocate_memory(&alloc, None) }.map_err(vk_err("vkAllocateMemory"))?;
    s.buffers.last_mut().expect("pushed above").1 = mem;
    // SAFETY: `mem` is a fresh, host-visible allocation of at least `req.size >= size`
    // bytes, mapped once here and unmapped before use by the device; `init.len() <= size`
    // (callers pass at most `size` bytes).
    unsafe {
        d.bind_buffer_memory(buffer, mem, 0)
            .map_err(vk_err("vkBindBufferMemory"))?;
        let ptr = d
            .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .map_err(vk_err("vkMapMemory"))? as *mut u8;
        std::ptr::write_bytes(ptr, 0, size as usize);
        std::ptr::copy_nonoverlapping(init.as_ptr(), ptr, init.len().min(size as usize));
        d.unmap_memory(mem);
    }
    Ok((buffer, mem))
}

/// Copies `len` bytes out of a host-visible, host-coherent allocation.
fn read_memory(d: &ash::Device, mem: vk::DeviceMemory, len: usize) -> Result<Vec<u8>, Error> {
    let mut bytes = vec![0u8; len];
    // SAFETY: the device finished (fence signalled, barrier to host reads); the memory is
    // host-coherent and at least `len` bytes long (its buffer was made that large).
    unsafe {
        let ptr = d
            .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .map_err(vk_err("vkMapMemory"))? as *const u8;
        std::ptr::copy_nonoverlapping(ptr, bytes.as_mut_ptr(), len);
        d.unmap_memory(mem);
    }
    Ok(bytes)
}

/// A device-local (where possible) image of `plan`'s format and shape with a view of its
/// whole range, both recorded in `s`.
fn make_image(
    s: &mut Session,
    d: &ash::Device,
    memory: &vk::PhysicalDeviceMemoryProperties,
    plan: &ImagePlan,
) -> Result<(vk::Image, vk::ImageView), Error> {
    let mut usage = vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC;
    usage |= if plan.storage {
        vk::ImageUsageFlags::STORAGE
    } else {
        vk::ImageUsageFlags::SAMPLED
    };
    let info = vk::ImageCreateInfo::default()
        .flags(plan.shape.flags)
        .image_type(plan.shape.image_type)
        .format(plan.format)
        .extent(plan.shape.extent)
        .mip_levels(1)
        .array_layers(plan.shape.layers)
        .samples(plan.samples)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage)
        .sharing_mode(vk::SharingMode::EXCLUSIVE)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    // SAFETY: valid create info (shape and format checked against the device); recorded in
    // `s` at once.
    let image = unsafe { d.create_image(&info, None) }.map_err(vk_err("vkCreateImage"))?;
    s.images.push((image, vk::DeviceMemory::null()));
    // SAFETY: `image` was created from `d`.
    let req = unsafe { d.get_image_memory_requirements(image) };
    let type_index = find_memory(
        memory,
        req.memory_type_bits,
        vk::MemoryPropertyFlags::DEVICE_LOCAL,
    )
    .or_else(|| {
        find_memory(
            memory,
            req.memory_type_bits,
            vk::MemoryPropertyFlags::empty(),
        )
    })
    .ok_or(Error::NoMemoryType(req.size))?;
    let alloc = vk::MemoryAllocateInfo::default()
        .allocation_size(req.size)
        .memory_type_index(type_index);
    // SAFETY: valid allocate info; recorded in `s` at once, then bound once.
    unsafe {
        let mem = d
            .allocate_memory(&alloc, None)
            .map_err(vk_err("vkAllocateMemory"))?;
        s.images.last_mut().expect("pushed above").1 = mem;
        d.bind_image_memory(image, mem, 0)
            .map_err(vk_err("vkBindImageMemory"))?;
    }
    let view_info = vk::ImageViewCreateInfo::default()
        .image(image)
        .view_type(plan.shape.view_type)
        .format(plan.format)
        .subresource_range(whole(plan));
    // SAFETY: the view covers the image's one level and all its layers.
    let view =
        unsafe { d.create_image_view(&view_info, None) }.map_err(vk_err("vkCreateImageView"))?;
    s.views.push(view);
    Ok((image, view))
}

fn whole(plan: &ImagePlan) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default()
        .aspect_mask(images::aspect(plan.format))
        .base_mip_level(0)
        .level_count(1)
        .base_array_layer(0)
        .layer_count(plan.shape.layers)
}

fn copy_region(plan: &ImagePlan) -> vk::BufferImageCopy {
    vk::BufferImageCopy::default()
        .buffer_offset(0)
        .buffer_row_length(0)
        .buffer_image_height(0)
        .image_subresource(
            vk::ImageSubresourceLayers::default()
                .aspect_mask(images::aspect(plan.format))
                .mip_level(0)
                .base_array_layer(0)
                .layer_count(plan.shape.layers),
        )
        .image_extent(plan.shape.extent)
}

fn image_barrier(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    plan: &ImagePlan,
    (old, new): (vk::ImageLayout, vk::ImageLayout),
    (src_access, dst_access): (vk::AccessFlags, vk::AccessFlags),
    (src_stage, dst_stage): (vk::PipelineStageFlags, vk::PipelineStageFlags),
) {
    let barrier = [vk::ImageMemoryBarrier::default()
        .old_layout(old)
        .new_layout(new)
        .src_access_mask(src_access)
        .dst_access_mask(dst_access)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(whole(plan))];
    // SAFETY: `cmd` is recording; `image` is alive and covered by the range.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &barrier,
        )
    };
}

/// The clear value of a multisampled image: its one texel's 32-bit words (zero when no
/// texel was given).
fn clear_words(bytes: &[u8]) -> [u32; 4] {
    let mut out = [0u32; 4];
    for (w, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
        *w = u32::from_le_bytes(c.try_into().expect("4 bytes"));
    }
    out
}

/// Checks every image binding's shape, format and data before anything is created.
fn plan_images(
    interface: &Interface,
    bindings: &[BindingData],
) -> Result<Vec<Option<ImagePlan>>, Error> {
    bindings
        .iter()
        .map(|b| {
            if !b.kind.is_image() {
                return Ok(None);
            }
            let label = format!("binding {}:{} ({})", b.set, b.binding, b.kind);
            let info = interface
                .bindings
                .get(&(b.set, b.binding))
                .and_then(|i| i.image)
                .ok_or_else(|| {
                    Error::Interface(format!("{label} is not an image in the module"))
                })?;
            let extent = b.extent.unwrap_or_else(|| images::default_extent(&info));
            let in_label = |e: Error| match e {
                Error::Unsupported(m) => Error::Unsupported(format!("{label}: {m}")),
                e => e,
            };
            let shape = images::shape(&info, extent).map_err(in_label)?;
            let (format, texel) = images::image_format(&info, b.kind).map_err(in_label)?;
            let size = images::data_size(extent, texel).map_err(in_label)?;
            let samples = images::sample_count(&info, b.samples).map_err(in_label)?;
            if info.multisampled && b.kind == DescriptorKind::StorageImage {
                return Err(Error::Unsupported(format!(
                    "{label}: multisampled storage images"
                )));
            }
            if info.multisampled && !b.bytes.is_empty() && b.bytes.len() as u64 != u64::from(texel)
            {
                return Err(Error::Unsupported(format!(
                    "{label}: {} bytes of texels for a multisampled image (it takes none, or \
                     one texel of {texel} bytes that every sample holds)",
                    b.bytes.len()
                )));
            }
            if !info.multisampled && !b.bytes.is_empty() && b.bytes.len() as u64 != size {
                return Err(Error::Interface(format!(
                    "{label}: {} bytes of texels given; a {}x{}x{} {format:?} image holds {size}",
                    b.bytes.len(),
                    extent[0],
                    extent[1],
                    extent[2]
                )));
            }
            Ok(Some(ImagePlan {
                format,
                shape,
                size,
                storage: b.kind == DescriptorKind::StorageImage,
                samples,
                texel,
            }))
        })
        .collect()
}

/// The devices the Vulkan loader lists, in its order.
pub fn list_devices() -> Result<Vec<DeviceInfo>, Error> {
    let entry = load_entry()?;
    let session = Session::new(&entry)?;
    Ok(session.devices()?.into_iter().map(|(_, i)| i).collect())
}

/// The most bytes of private and function variables per invocation the runner hands to a
/// driver: `OXIR_VULKAN_MAX_PRIVATE_BYTES`, default 64 KiB.
fn max_private_bytes() -> u64 {
    std::env::var("OXIR_VULKAN_MAX_PRIVATE_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64 * 1024)
}

fn timeout_ms() -> u64 {
    std::env::var("OXIR_VULKAN_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// Checks a `LocalSize` against the device's `maxComputeWorkGroupSize` and
/// `maxComputeWorkGroupInvocations` (a driver given more may crash: lavapipe does).
/// The workgroup size the pipeline will have: the reflected default with each dimension
/// that is itself a specialization constant set to its value. A value that sets a size
/// computed from specialization constants is refused: the runner could not check the
/// size against the device's limits.
fn specialised_size(
    entry_point: &crate::reflect::EntryPoint,
    entry: &str,
    specialization: &Specialization,
) -> Result<Option<[u32; 3]>, Error> {
    let mut size = entry_point.local_size;
    for (id, bytes) in &specialization.values {
        if !entry_point.size_spec_ids.contains(id) {
            continue;
        }
        let dim = entry_point
            .size_dim_spec_ids
            .iter()
            .position(|d| *d == Some(*id));
        let value = <[u8; 4]>::try_from(bytes.as_slice()).map(u32::from_le_bytes);
        match (dim, value, size.as_mut()) {
            (Some(_), Ok(0), Some(_)) => {
                return Err(Error::Interface(format!(
                    "SpecId {id} sets a workgroup dimension of `{entry}` to 0"
                )))
            }
            (Some(dim), Ok(value), Some(size)) => size[dim] = value,
            _ => {
                return Err(Error::Interface(format!(
                    "SpecId {id} sets a value the workgroup size of `{entry}` is computed \
                     from, which the runner cannot check against the device's limits"
                )))
            }
        }
    }
    Ok(size)
}

fn check_workgroup_size(size: [u32; 3], limits: &vk::PhysicalDeviceLimits) -> Result<(), Error> {
    let limit = limits.max_compute_work_group_size;
    if (0..3).any(|i| size[i] > limit[i]) {
        return Err(Error::WorkgroupTooLarge { given: size, limit });
    }
    let invocations = size.iter().map(|&x| u64::from(x)).product::<u64>();
    if invocations > u64::from(limits.max_compute_work_group_invocations) {
        return Err(Error::TooManyInvocations {
            given: size,
            invocations,
            limit: limits.max_compute_work_group_invocations,
        });
    }
    Ok(())
}

/// Runs `entry` of the SPIR-V `words` with `workgroups` workgroups on the selected device
/// and returns every binding's bytes after the dispatch, in the order of `bindings`: a
/// buffer's bytes, a storage image's texels, a sampled image's input texels (zeros when
/// none were given), nothing for a sampler.
///
/// `interface` is the module's reflection (see [`crate::reflect()`]); it is checked against
/// `bindings` and the entry point before anything is handed to the driver. The driver does
/// not validate SPIR-V: run `spirv-val` first on modules you do not trust.
pub fn run_compute(
    words: &[u32],
    interface: &Interface,
    entry: &str,
    workgroups: [u32; 3],
    bindings: &[BindingData],
    device: &DeviceSelector,
) -> Result<Vec<Vec<u8>>, Error> {
    let none = Specialization::default();
    run_compute_specialized(words, interface, entry, workgroups, bindings, device, &none)
}

/// [`run_compute`] with the pipeline's specialization constants set to `specialization`
/// (those not set keep their defaults). A constant the workgroup size reads cannot be
/// set: the size is checked against the device's limits before the pipeline exists.
pub fn run_compute_specialized(
    words: &[u32],
    interface: &Interface,
    entry: &str,
    workgroups: [u32; 3],
    bindings: &[BindingData],
    device: &DeviceSelector,
    specialization: &Specialization,
) -> Result<Vec<Vec<u8>>, Error> {
    let entry_point = interface
        .compute_entry(Some(entry))
        .map_err(Error::Interface)?;
    let local_size = specialised_size(entry_point, entry, specialization)?;
    if interface.push_constants {
        return Err(Error::PushConstants);
    }
    let limit = max_private_bytes();
    if interface.invocation_memory > limit {
        return Err(Error::PrivateMemory {
            bytes: interface.invocation_memory,
            limit,
        });
    }
    for (key, b) in &interface.bindings {
        match bindings.iter().find(|d| (d.set, d.binding) == *key) {
            None => {
                return Err(Error::Interface(format!(
                    "binding {}:{} ({}) has no data",
                    key.0, key.1, b.kind
                )))
            }
            Some(d) if d.kind != b.kind => {
                return Err(Error::Interface(format!(
                    "binding {}:{} is a {} in the module, given as a {}",
                    key.0, key.1, b.kind, d.kind
                )))
            }
            Some(_) => {}
        }
    }
    let plans = plan_images(interface, bindings)?;
    let cname = CString::new(entry)
        .map_err(|_| Error::Interface(format!("entry point name `{entry}` contains NUL")))?;

    let vk_entry = load_entry()?;
    let mut s = Session::new(&vk_entry)?;
    let devices = s.devices()?;
    if devices.is_empty() {
        return Err(Error::NoDevice(driver_files()));
    }
    let chosen = match device {
        DeviceSelector::First => devices.first(),
        DeviceSelector::Index(i) => devices.get(*i),
        DeviceSelector::Name(n) => {
            let n = n.to_lowercase();
            devices
                .iter()
                .find(|(_, d)| d.name.to_lowercase().contains(&n))
        }
    };
    let Some((pd, info)) = chosen.cloned() else {
        return Err(Error::DeviceNotFound {
            wanted: match device {
                DeviceSelector::Index(i) => format!("index {i}"),
                DeviceSelector::Name(n) => n.clone(),
                DeviceSelector::First => "the first".into(),
            },
            available: devices
                .iter()
                .map(|(_, d)| format!("{}: {} ({})", d.index, d.name, d.kind))
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let instance = &s.instance;
    // SAFETY: `pd` is a physical device of this instance.
    let (families, features, limits, memory) = unsafe {
        (
            instance.get_physical_device_queue_family_properties(pd),
            instance.get_physical_device_features(pd),
            instance.get_physical_device_properties(pd).limits,
            instance.get_physical_device_memory_properties(pd),
        )
    };
    let limit = limits.max_compute_work_group_count;
    if (0..3).any(|i| workgroups[i] > limit[i]) {
        return Err(Error::TooManyWorkgroups {
            given: workgroups,
            limit,
        });
    }
    let Some(size) = local_size else {
        return Err(Error::Unsupported(format!(
            "the workgroup size of entry point `{entry}` is not a constant the runner can read \
             (LocalSize, LocalSizeId or a WorkgroupSize built-in of constants), so it cannot \
             be checked against the device's maxComputeWorkGroupSize"
        )));
    };
    check_workgroup_size(size, &limits)?;
    let family = families
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .ok_or_else(|| Error::NoComputeQueue(info.name.clone()))? as u32;
    let priorities = [1.0f32];
    let queue_info = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priorities)];
    // Every feature the device supports is enabled (robustBufferAccess, 64-bit integers and
    // atomics, 16-bit types, ...), so any module the device can run is accepted.
    // SAFETY: `pd` is a physical device of this instance.
    let device_api = unsafe { instance.get_physical_device_properties(pd) }.api_version;
    let api = device_api.min(s.api_version);
    let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut features2 = vk::PhysicalDeviceFeatures2::default();
    if api >= vk::API_VERSION_1_2 {
        features2 = features2.push_next(&mut f11).push_next(&mut f12);
    }
    if api >= vk::API_VERSION_1_3 {
        features2 = features2.push_next(&mut f13);
    }
    let device_info = vk::DeviceCreateInfo::default().queue_create_infos(&queue_info);
    let device_info = if api >= vk::API_VERSION_1_1 {
        // SAFETY: the chain holds structures of the device's API version.
        unsafe { instance.get_physical_device_features2(pd, &mut features2) };
        device_info.push_next(&mut features2)
    } else {
        device_info.enabled_features(&features)
    };
    // SAFETY: valid create info for a device of this instance; destroyed in `Drop`.
    let device = unsafe { instance.create_device(pd, &device_info, None) }
        .map_err(vk_err("vkCreateDevice"))?;
    s.device = Some(device);
    let d = s.device().clone();
    // SAFETY: the queue family and index exist (created above).
    let queue = unsafe { d.get_device_queue(family, 0) };

    // The device must be able to use each image format as the binding needs.
    for (b, plan) in bindings.iter().zip(&plans) {
        let Some(plan) = plan else { continue };
        // SAFETY: `pd` is a physical device of this instance.
        let props = unsafe {
            s.instance
                .get_physical_device_format_properties(pd, plan.format)
        };
        let need = if plan.storage {
            vk::FormatFeatureFlags::STORAGE_IMAGE
        } else {
            vk::FormatFeatureFlags::SAMPLED_IMAGE
        };
        if !props.optimal_tiling_features.contains(need) {
            return Err(Error::Unsupported(format!(
                "binding {}:{} ({}): the device cannot use {:?} as a {} image",
                b.set,
                b.binding,
                b.kind,
                plan.format,
                if plan.storage { "storage" } else { "sampled" }
            )));
        }
        if plan.multisampled() {
            let counts = match plan.format {
                vk::Format::D32_SFLOAT => limits.sampled_image_depth_sample_counts,
                vk::Format::R32G32B32A32_SINT | vk::Format::R32G32B32A32_UINT => {
                    limits.sampled_image_integer_sample_counts
                }
                _ => limits.sampled_image_color_sample_counts,
            };
            if !counts.contains(plan.samples) {
                return Err(Error::Unsupported(format!(
                    "binding {}:{} ({}): the device cannot sample a {:?} image of {} samples \
                     (sampledImage*SampleCounts {:#x})",
                    b.set,
                    b.binding,
                    b.kind,
                    plan.format,
                    plan.samples.as_raw(),
                    counts.as_raw()
                )));
            }
        }
    }

    // Buffers, images and samplers.
    let mut bound = Vec::with_capacity(bindings.len());
    for (b, plan) in bindings.iter().zip(&plans) {
        let sampler = match b.kind {
            DescriptorKind::Sampler | DescriptorKind::CombinedImageSampler => {
                let comparison = interface
                    .bindings
                    .get(&(b.set, b.binding))
                    .is_some_and(|i| i.comparison);
                let info = images::sampler_info(comparison);
                // SAFETY: valid create info; recorded in `s` at once.
                let sampler =
                    unsafe { d.create_sampler(&info, None) }.map_err(vk_err("vkCreateSampler"))?;
                s.samplers.push(sampler);
                Some(sampler)
            }
            _ => None,
        };
        bound.push(match (b.kind, plan) {
            (DescriptorKind::StorageBuffer | DescriptorKind::UniformBuffer, _) => {
                let usage = if b.kind == DescriptorKind::StorageBuffer {
                    vk::BufferUsageFlags::STORAGE_BUFFER
                } else {
                    vk::BufferUsageFlags::UNIFORM_BUFFER
                };
                let (buffer, mem) =
                    host_buffer(&mut s, &d, &memory, b.bytes.len() as u64, usage, &b.bytes)?;
                Bound::Buffer { buffer, mem }
            }
            (DescriptorKind::Sampler, _) => Bound::Sampler(sampler.expect("made above")),
            (_, Some(plan)) => {
                // A multisampled image is cleared, not copied: no staging buffer.
                let (staging, staging_mem) = if plan.multisampled() {
                    (vk::Buffer::null(), vk::DeviceMemory::null())
                } else {
                    host_buffer(
                        &mut s,
                        &d,
                        &memory,
                        plan.size,
                        vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                        &b.bytes,
                    )?
                };
                let (image, view) = make_image(&mut s, &d, &memory, plan)?;
                Bound::Image {
                    image,
                    view,
                    staging,
                    staging_mem,
                    plan: *plan,
                    sampler,
                }
            }
            (_, None) => {
                return Err(Error::Interface(format!(
                    "binding {}:{} ({}) has no image plan",
                    b.set, b.binding, b.kind
                )))
            }
        });
    }

    // Descriptor set layouts: one per set number 0..=max, empty where unused.
    let max_set = bindings.iter().map(|b| b.set).max();
    let set_count = max_set.map_or(0, |m| m as usize + 1);
    let descriptor_type = |k: DescriptorKind| match k {
        DescriptorKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        DescriptorKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        DescriptorKind::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
        DescriptorKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        DescriptorKind::Sampler => vk::DescriptorType::SAMPLER,
        DescriptorKind::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
    };
    for set in 0..set_count as u32 {
        let layout_bindings: Vec<vk::DescriptorSetLayoutBinding> = bindings
            .iter()
            .filter(|b| b.set == set)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(descriptor_type(b.kind))
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings);
        // SAFETY: valid create info; recorded in `s` at once.
        let layout = unsafe { d.create_descriptor_set_layout(&info, None) }
            .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
        s.set_layouts.push(layout);
    }
    let layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&s.set_layouts);
    // SAFETY: valid create info.
    s.pipeline_layout = unsafe { d.create_pipeline_layout(&layout_info, None) }
        .map_err(vk_err("vkCreatePipelineLayout"))?;
    let shader_info = vk::ShaderModuleCreateInfo::default().code(words);
    // SAFETY: `words` is a SPIR-V binary that `reflect` parsed (framing checked).
    s.shader = unsafe { d.create_shader_module(&shader_info, None) }
        .map_err(vk_err("vkCreateShaderModule"))?;
    let (map_entries, spec_data) = specialization.layout();
    let spec_info = vk::SpecializationInfo::default()
        .map_entries(&map_entries)
        .data(&spec_data);
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(s.shader)
        .name(&cname)
        .specialization_info(&spec_info);
    let pipeline_info = [vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(s.pipeline_layout)];
    // SAFETY: valid create info; the result is recorded in `s`.
    s.pipeline = match unsafe {
        d.create_compute_pipelines(vk::PipelineCache::null(), &pipeline_info, None)
    } {
        Ok(p) => p[0],
        Err((p, result)) => {
            if let Some(p) = p.into_iter().find(|p| *p != vk::Pipeline::null()) {
                s.pipeline = p;
            }
            return Err(Error::Pipeline {
                entry: entry.to_string(),
                result,
            });
        }
    };

    // Descriptor sets.
    let mut sets = Vec::new();
    if set_count > 0 {
        let mut sizes = Vec::new();
        for kind in [
            DescriptorKind::StorageBuffer,
            DescriptorKind::UniformBuffer,
            DescriptorKind::SampledImage,
            DescriptorKind::StorageImage,
            DescriptorKind::Sampler,
            DescriptorKind::CombinedImageSampler,
        ] {
            let n = bindings.iter().filter(|b| b.kind == kind).count() as u32;
            if n > 0 {
                sizes.push(
                    vk::DescriptorPoolSize::default()
                        .ty(descriptor_type(kind))
                        .descriptor_count(n),
                );
            }
        }
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(set_count as u32)
            .pool_sizes(&sizes);
        // SAFETY: valid create info.
        s.descriptor_pool = unsafe { d.create_descriptor_pool(&pool_info, None) }
            .map_err(vk_err("vkCreateDescriptorPool"))?;
        let alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(s.descriptor_pool)
            .set_layouts(&s.set_layouts);
        // SAFETY: the pool has room for one set per layout.
        sets = unsafe { d.allocate_descriptor_sets(&alloc) }
            .map_err(vk_err("vkAllocateDescriptorSets"))?;
        let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = bound
            .iter()
            .map(|r| {
                let buffer = match r {
                    Bound::Buffer { buffer, .. } => *buffer,
                    _ => vk::Buffer::null(),
                };
                [vk::DescriptorBufferInfo::default()
                    .buffer(buffer)
                    .offset(0)
                    .range(vk::WHOLE_SIZE)]
            })
            .collect();
        let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = bound
            .iter()
            .map(|r| {
                let info = vk::DescriptorImageInfo::default();
                [match r {
                    Bound::Image {
                        view,
                        plan,
                        sampler,
                        ..
                    } => info
                        .image_view(*view)
                        .image_layout(if plan.storage {
                            vk::ImageLayout::GENERAL
                        } else {
                            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
                        })
                        .sampler(sampler.unwrap_or_default()),
                    Bound::Sampler(sampler) => info.sampler(*sampler),
                    Bound::Buffer { .. } => info,
                }]
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = bindings
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let write = vk::WriteDescriptorSet::default()
                    .dst_set(sets[b.set as usize])
                    .dst_binding(b.binding)
                    .descriptor_type(descriptor_type(b.kind));
                if b.kind.is_buffer() {
                    write.buffer_info(&buffer_infos[i])
                } else {
                    write.image_info(&image_infos[i])
                }
            })
            .collect();
        // SAFETY: every write names a set, binding and buffer, view or sampler created
        // above, of the descriptor type its layout declares.
        unsafe { d.update_descriptor_sets(&writes, &[]) };
    }

    // Command buffer: bind, dispatch, barrier.
    let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(family);
    // SAFETY: valid create info.
    s.command_pool = unsafe { d.create_command_pool(&pool_info, None) }
        .map_err(vk_err("vkCreateCommandPool"))?;
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(s.command_pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: the pool exists; the command buffer is freed with it.
    let cmd = unsafe { d.allocate_command_buffers(&alloc) }
        .map_err(vk_err("vkAllocateCommandBuffers"))?[0];
    let barrier = [vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ)];
    let stage = |storage: bool| {
        if storage {
            (
                vk::ImageLayout::GENERAL,
                vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
            )
        } else {
            (
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                vk::AccessFlags::SHADER_READ,
            )
        }
    };
    // SAFETY: recording into a fresh command buffer with objects created above.
    unsafe {
        d.begin_command_buffer(
            cmd,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )
        .map_err(vk_err("vkBeginCommandBuffer"))?;
        // Upload every image's texels (clear a multisampled one to its one texel, or zero)
        // and move it to the layout the shader uses.
        for (b, r) in bindings.iter().zip(&bound) {
            if let Bound::Image {
                image,
                staging,
                plan,
                ..
            } = r
            {
                image_barrier(
                    &d,
                    cmd,
                    *image,
                    plan,
                    (
                        vk::ImageLayout::UNDEFINED,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    ),
                    (vk::AccessFlags::empty(), vk::AccessFlags::TRANSFER_WRITE),
                    (
                        vk::PipelineStageFlags::TOP_OF_PIPE,
                        vk::PipelineStageFlags::TRANSFER,
                    ),
                );
                if !plan.multisampled() {
                    d.cmd_copy_buffer_to_image(
                        cmd,
                        *staging,
                        *image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &[copy_region(plan)],
                    );
                } else if images::aspect(plan.format) == vk::ImageAspectFlags::DEPTH {
                    d.cmd_clear_depth_stencil_image(
                        cmd,
                        *image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &vk::ClearDepthStencilValue {
                            depth: f32::from_bits(clear_words(&b.bytes)[0]),
                            stencil: 0,
                        },
                        &[whole(plan)],
                    );
                } else {
                    // The bits of the texel's four 32-bit channels, whatever their type.
                    d.cmd_clear_color_image(
                        cmd,
                        *image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &vk::ClearColorValue {
                            uint32: clear_words(&b.bytes),
                        },
                        &[whole(plan)],
                    );
                }
                let (layout, access) = stage(plan.storage);
                image_barrier(
                    &d,
                    cmd,
                    *image,
                    plan,
                    (vk::ImageLayout::TRANSFER_DST_OPTIMAL, layout),
                    (vk::AccessFlags::TRANSFER_WRITE, access),
                    (
                        vk::PipelineStageFlags::TRANSFER,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                    ),
                );
            }
        }
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, s.pipeline);
        if !sets.is_empty() {
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                s.pipeline_layout,
                0,
                &sets,
                &[],
            );
        }
        d.cmd_dispatch(cmd, workgroups[0], workgroups[1], workgroups[2]);
        // Copy every storage image back into its staging buffer.
        for r in &bound {
            if let Bound::Image {
                image,
                staging,
                plan,
                ..
            } = r
            {
                if !plan.storage {
                    continue;
                }
                image_barrier(
                    &d,
                    cmd,
                    *image,
                    plan,
                    (
                        vk::ImageLayout::GENERAL,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    ),
                    (
                        vk::AccessFlags::SHADER_WRITE,
                        vk::AccessFlags::TRANSFER_READ,
                    ),
                    (
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::PipelineStageFlags::TRANSFER,
                    ),
                );
                d.cmd_copy_image_to_buffer(
                    cmd,
                    *image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    *staging,
                    &[copy_region(plan)],
                );
            }
        }
        d.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &barrier,
            &[],
            &[],
        );
        d.end_command_buffer(cmd)
            .map_err(vk_err("vkEndCommandBuffer"))?;
    }
    // SAFETY: valid create info.
    s.fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
        .map_err(vk_err("vkCreateFence"))?;
    let cmds = [cmd];
    let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
    // SAFETY: the command buffer is fully recorded; the fence is unsignalled.
    unsafe { d.queue_submit(queue, &submit, s.fence) }.map_err(vk_err("vkQueueSubmit"))?;
    s.in_flight = true;
    let ms = timeout_ms();
    // SAFETY: the fence was submitted above.
    match unsafe { d.wait_for_fences(&[s.fence], true, ms.saturating_mul(1_000_000)) } {
        Ok(()) => s.in_flight = false,
        Err(vk::Result::TIMEOUT) => return Err(Error::Timeout(ms)),
        Err(e) => return Err(vk_err("vkWaitForFences")(e)),
    }

    // Read back.
    let mut out = Vec::with_capacity(bindings.len());
    for (b, r) in bindings.iter().zip(&bound) {
        out.push(match r {
            Bound::Buffer { mem, .. } => read_memory(&d, *mem, b.bytes.len())?,
            Bound::Image {
                staging_mem, plan, ..
            } => {
                if plan.storage {
                    read_memory(&d, *staging_mem, plan.size as usize)?
                } else if b.bytes.is_empty() {
                    vec![0; plan.size as usize]
                } else if plan.multisampled() {
                    b.bytes.repeat((plan.size / u64::from(plan.texel)) as usize)
                } else {
                    b.bytes.clone()
                }
            }
            Bound::Sampler(_) => Vec::new(),
        });
    }
    Ok(out)
}
