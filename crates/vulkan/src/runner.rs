//! The dispatch itself, with ash.
//!
//! Every Vulkan object is created into a [`Session`] whose `Drop` destroys whatever was
//! created, newest first, so an error at any step frees everything made before it. The
//! one exception is a fence timeout: the device may still be executing, so the objects it
//! uses are leaked (destroying them would be undefined behaviour) and only the error is
//! reported.

use crate::reflect::{DescriptorKind, Interface};
use crate::{BindingData, DeviceInfo, DeviceSelector, Error};
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
                    },
                )
            })
            .collect())
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

/// The devices the Vulkan loader lists, in its order.
pub fn list_devices() -> Result<Vec<DeviceInfo>, Error> {
    let entry = load_entry()?;
    let session = Session::new(&entry)?;
    Ok(session.devices()?.into_iter().map(|(_, i)| i).collect())
}

fn timeout_ms() -> u64 {
    std::env::var("OXIR_VULKAN_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// Runs `entry` of the SPIR-V `words` with `workgroups` workgroups on the selected device
/// and returns every binding's bytes after the dispatch, in the order of `bindings`.
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
    interface
        .compute_entry(Some(entry))
        .map_err(Error::Interface)?;
    if interface.push_constants {
        return Err(Error::PushConstants);
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

    // Buffers.
    for b in bindings {
        let size = (b.bytes.len() as u64).max(4).next_multiple_of(4);
        let usage = match b.kind {
            DescriptorKind::StorageBuffer => vk::BufferUsageFlags::STORAGE_BUFFER,
            DescriptorKind::UniformBuffer => vk::BufferUsageFlags::UNIFORM_BUFFER,
        };
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
        let type_index = (0..memory.memory_type_count)
            .find(|&i| {
                req.memory_type_bits & (1 << i) != 0
                    && memory.memory_types[i as usize]
                        .property_flags
                        .contains(wanted)
            })
            .ok_or(Error::NoMemoryType(size))?;
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index);
        // SAFETY: valid allocate info; recorded in `s` at once.
        let mem = unsafe { d.allocate_memory(&alloc, None) }.map_err(vk_err("vkAllocateMemory"))?;
        s.buffers.last_mut().expect("pushed above").1 = mem;
        // SAFETY: `mem` is a fresh, host-visible allocation of at least `req.size` bytes,
        // mapped once here and unmapped before use by the device; `bytes.len() <= size`.
        unsafe {
            d.bind_buffer_memory(buffer, mem, 0)
                .map_err(vk_err("vkBindBufferMemory"))?;
            let ptr = d
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vk_err("vkMapMemory"))? as *mut u8;
            std::ptr::write_bytes(ptr, 0, size as usize);
            std::ptr::copy_nonoverlapping(b.bytes.as_ptr(), ptr, b.bytes.len());
            d.unmap_memory(mem);
        }
    }

    // Descriptor set layouts: one per set number 0..=max, empty where unused.
    let max_set = bindings.iter().map(|b| b.set).max();
    let set_count = max_set.map_or(0, |m| m as usize + 1);
    let descriptor_type = |k: DescriptorKind| match k {
        DescriptorKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        DescriptorKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
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
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(s.shader)
        .name(&cname);
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
        for kind in [DescriptorKind::StorageBuffer, DescriptorKind::UniformBuffer] {
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
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = s
            .buffers
            .iter()
            .map(|(buffer, _)| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(*buffer)
                    .offset(0)
                    .range(vk::WHOLE_SIZE)]
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = bindings
            .iter()
            .zip(&infos)
            .map(|(b, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(sets[b.set as usize])
                    .dst_binding(b.binding)
                    .descriptor_type(descriptor_type(b.kind))
                    .buffer_info(info)
            })
            .collect();
        // SAFETY: every write names a set, binding and buffer created above.
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
        .src_access_mask(vk::AccessFlags::SHADER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ)];
    // SAFETY: recording into a fresh command buffer with objects created above.
    unsafe {
        d.begin_command_buffer(
            cmd,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )
        .map_err(vk_err("vkBeginCommandBuffer"))?;
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
        d.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER,
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
    for (b, (_, mem)) in bindings.iter().zip(&s.buffers) {
        let mut bytes = vec![0u8; b.bytes.len()];
        // SAFETY: the device finished (fence signalled, barrier to host reads); the memory
        // is host-coherent and at least `bytes.len()` long.
        unsafe {
            let ptr = d
                .map_memory(*mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vk_err("vkMapMemory"))? as *const u8;
            std::ptr::copy_nonoverlapping(ptr, bytes.as_mut_ptr(), bytes.len());
            d.unmap_memory(*mem);
        }
        out.push(bytes);
    }
    Ok(out)
}
