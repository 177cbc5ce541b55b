//! Reflection: what a host needs to run a shader — its entry points and their stage
//! interfaces, and every resource binding with the size a buffer must have.
//!
//! Sizes come from oxir's layout engine (`oxir_ir::data_layout`) under the binding's
//! rules: std430 for storage buffers and push constants, std140 for uniform buffers. A
//! buffer whose type ends in a runtime-sized array reports the size with zero elements as
//! `min_binding_size` plus the array's `array_stride`; a struct whose naga size is larger
//! than the rules' size (WGSL `@size` on its last member) reports naga's size. Types are
//! spelled in oxir's text form. A resource of a type oxir cannot lower (a binding array,
//! say) is still listed, with `"unsupported"` saying why and no size.

use crate::entry_points::builtin_name;
use crate::module::ModuleLowerer;
use crate::types::buffer_rules;
use naga::valid::ModuleInfo;
use naga::{AddressSpace, Binding, ImageClass, ShaderStage, TypeInner};
use oxir_ir::data_layout::{layout_of, runtime_array_tail};
use oxir_ir::TypeData;
use std::fmt::Write;

/// One stage input or output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterfaceVariable {
    /// The argument or struct member name (empty when naga has none).
    pub name: String,
    /// oxir text-form type.
    pub ty: String,
    /// `location(N)` or the built-in's name.
    pub location: Option<u32>,
    pub builtin: Option<String>,
    /// `perspective`, `linear`, `flat` (locations only).
    pub interpolation: Option<String>,
    pub sampling: Option<String>,
}

/// One entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPointInfo {
    pub name: String,
    /// `vertex`, `fragment`, `compute`, or naga's name of another stage.
    pub stage: String,
    /// Compute entry points only.
    pub workgroup_size: Option<[u32; 3]>,
    pub inputs: Vec<InterfaceVariable>,
    pub outputs: Vec<InterfaceVariable>,
}

/// One member of a struct-typed buffer, placed by the binding's rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberInfo {
    pub name: String,
    pub ty: String,
    pub offset: u32,
    /// Size of the member (zero elements for a runtime-sized array).
    pub size: u32,
}

/// One resource binding (or the push-constant block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceInfo {
    pub name: String,
    /// `None` for push constants.
    pub group: Option<u32>,
    pub binding: Option<u32>,
    /// `uniform_buffer`, `storage_buffer`, `push_constant`, `sampled_texture`,
    /// `depth_texture`, `storage_texture`, `external_texture`, `sampler`,
    /// `comparison_sampler`, `acceleration_structure`, `binding_array`.
    pub kind: String,
    /// `uniform`, `storage`, `push_constant`, `handle`.
    pub address_space: String,
    /// `read`, `write` or `read_write` for storage buffers and textures.
    pub access: Option<String>,
    /// oxir text-form type.
    pub ty: String,
    /// `std430` or `std140` for buffers.
    pub layout: Option<String>,
    pub min_binding_size: Option<u32>,
    /// Element stride of a trailing runtime-sized array.
    pub array_stride: Option<u32>,
    /// Element type of a trailing runtime-sized array.
    pub element_type: Option<String>,
    /// Members of a struct-typed buffer.
    pub members: Vec<MemberInfo>,
    /// Entry points that use the resource.
    pub used_by: Vec<String>,
    /// Why oxir cannot lower the resource's type, when it cannot.
    pub unsupported: Option<String>,
}

/// The interface of a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reflection {
    pub entry_points: Vec<EntryPointInfo>,
    pub resources: Vec<ResourceInfo>,
}

fn stage_name(stage: ShaderStage) -> String {
    match stage {
        ShaderStage::Vertex => "vertex".into(),
        ShaderStage::Fragment => "fragment".into(),
        ShaderStage::Compute => "compute".into(),
        other => format!("{other:?}").to_lowercase(),
    }
}

fn access_name(access: naga::StorageAccess) -> String {
    crate::types::storage_access(access).name().to_string()
}

/// Reflects a validated naga module.
pub fn reflect(module: &naga::Module, info: &ModuleInfo) -> Reflection {
    let mut lowerer = match ModuleLowerer::new(module, info) {
        Ok(lowerer) => lowerer,
        Err(_) => {
            return Reflection {
                entry_points: Vec::new(),
                resources: Vec::new(),
            }
        }
    };
    lowerer.mark_host_shared();
    let mut entry_points = Vec::new();
    for entry in &module.entry_points {
        let mut inputs = Vec::new();
        // As in the lowering, interpolation is reported between vertex and fragment only.
        let interpolated_inputs = entry.stage == ShaderStage::Fragment;
        let interpolated_outputs = entry.stage == ShaderStage::Vertex;
        for argument in &entry.function.arguments {
            let name = argument.name.clone().unwrap_or_default();
            interface(
                interpolated_inputs,
                module,
                &mut lowerer,
                &name,
                argument.ty,
                argument.binding.as_ref(),
                &mut inputs,
            );
        }
        let mut outputs = Vec::new();
        if let Some(result) = &entry.function.result {
            interface(
                interpolated_outputs,
                module,
                &mut lowerer,
                "",
                result.ty,
                result.binding.as_ref(),
                &mut outputs,
            );
        }
        entry_points.push(EntryPointInfo {
            name: entry.name.clone(),
            stage: stage_name(entry.stage),
            workgroup_size: (entry.stage == ShaderStage::Compute).then_some(entry.workgroup_size),
            inputs,
            outputs,
        });
    }
    let mut resources = Vec::new();
    for (handle, global) in module.global_variables.iter() {
        let (kind, space, access) = match global.space {
            AddressSpace::Uniform => ("uniform_buffer", "uniform", None),
            AddressSpace::Storage { access } => {
                ("storage_buffer", "storage", Some(access_name(access)))
            }
            AddressSpace::Immediate => ("push_constant", "push_constant", None),
            AddressSpace::Handle => {
                let (kind, access) = handle_kind(&module.types[global.ty].inner);
                (kind, "handle", access)
            }
            _ => continue,
        };
        let used_by = module
            .entry_points
            .iter()
            .enumerate()
            .filter(|(i, _)| !info.get_entry_point(*i)[handle].is_empty())
            .map(|(_, e)| e.name.clone())
            .collect();
        let mut resource = ResourceInfo {
            name: global.name.clone().unwrap_or_default(),
            group: global.binding.map(|b| b.group),
            binding: global.binding.map(|b| b.binding),
            kind: kind.into(),
            address_space: space.into(),
            access,
            ty: String::new(),
            layout: None,
            min_binding_size: None,
            array_stride: None,
            element_type: None,
            members: Vec::new(),
            used_by,
            unsupported: None,
        };
        match type_name(&mut lowerer, global.ty) {
            Ok((name, ty)) => {
                resource.ty = name;
                if let Some(rules) = buffer_rules(global.space) {
                    resource.layout = Some(rules.name().into());
                    buffer_sizes(&lowerer, global.ty, ty, rules, &mut resource);
                }
            }
            Err(why) => resource.unsupported = Some(why),
        }
        resources.push(resource);
    }
    Reflection {
        entry_points,
        resources,
    }
}

fn handle_kind(inner: &TypeInner) -> (&'static str, Option<String>) {
    match inner {
        TypeInner::Image { class, .. } => match class {
            ImageClass::Sampled { .. } => ("sampled_texture", None),
            ImageClass::Depth { .. } => ("depth_texture", None),
            ImageClass::External => ("external_texture", None),
            ImageClass::Storage { access, .. } => ("storage_texture", Some(access_name(*access))),
        },
        TypeInner::Sampler { comparison: false } => ("sampler", None),
        TypeInner::Sampler { comparison: true } => ("comparison_sampler", None),
        TypeInner::AccelerationStructure { .. } => ("acceleration_structure", None),
        TypeInner::BindingArray { .. } => ("binding_array", None),
        _ => ("handle", None),
    }
}

fn buffer_sizes(
    lowerer: &ModuleLowerer<'_>,
    handle: naga::Handle<naga::Type>,
    ty: oxir_ir::Type,
    rules: oxir_ir::data_layout::LayoutRules,
    resource: &mut ResourceInfo,
) {
    let types = &lowerer.out.types;
    let layout = match layout_of(types, ty, rules) {
        Ok(layout) => layout,
        Err(e) => {
            resource.unsupported = Some(format!("no {rules} layout: {e}"));
            return;
        }
    };
    let mut size = layout.size;
    match runtime_array_tail(types, ty, rules) {
        Ok(Some((_, stride))) => {
            resource.array_stride = Some(stride);
            let mut element = ty;
            while let Some(next) = match types.get(element) {
                TypeData::Struct(st) => st.members.last().map(|m| m.ty),
                TypeData::RuntimeArray { elem } => {
                    resource.element_type = Some(types.display(*elem).to_string());
                    None
                }
                _ => None,
            } {
                element = next;
            }
        }
        _ => size = size.max(lowerer.layouter[handle].size),
    }
    resource.min_binding_size = Some(size);
    if let TypeData::Struct(st) = types.get(ty) {
        for (i, member) in st.members.iter().enumerate() {
            let member_size = layout_of(types, member.ty, rules).map_or(0, |l| l.size);
            resource.members.push(MemberInfo {
                name: member.name.clone(),
                ty: types.display(member.ty).to_string(),
                offset: layout.offsets.get(i).copied().unwrap_or(0),
                size: member_size,
            });
        }
    }
}

/// The oxir spelling and type of naga type `ty`, or why it has none.
fn type_name(
    lowerer: &mut ModuleLowerer<'_>,
    ty: naga::Handle<naga::Type>,
) -> Result<(String, oxir_ir::Type), String> {
    match lowerer.lower_type(ty) {
        Ok(t) => Ok((lowerer.out.types.display(t).to_string(), t)),
        Err(e) => Err(e.to_string()),
    }
}

fn interface(
    interpolated: bool,
    module: &naga::Module,
    lowerer: &mut ModuleLowerer<'_>,
    name: &str,
    ty: naga::Handle<naga::Type>,
    binding: Option<&Binding>,
    out: &mut Vec<InterfaceVariable>,
) {
    let spelled = |r: Result<(String, oxir_ir::Type), String>| match r {
        Ok((name, _)) => name,
        Err(why) => why,
    };
    match binding {
        Some(binding) => out.push(variable(
            name,
            spelled(type_name(lowerer, ty)),
            binding,
            interpolated,
        )),
        None => {
            if let TypeInner::Struct { members, .. } = &module.types[ty].inner {
                for member in members {
                    if let Some(binding) = &member.binding {
                        let member_name = member.name.clone().unwrap_or_default();
                        out.push(variable(
                            &member_name,
                            spelled(type_name(lowerer, member.ty)),
                            binding,
                            interpolated,
                        ));
                    }
                }
            }
        }
    }
}

fn variable(name: &str, ty: String, binding: &Binding, interpolated: bool) -> InterfaceVariable {
    let mut variable = InterfaceVariable {
        name: name.to_string(),
        ty,
        location: None,
        builtin: None,
        interpolation: None,
        sampling: None,
    };
    match *binding {
        Binding::BuiltIn(builtin) => variable.builtin = Some(builtin_name(builtin)),
        Binding::Location {
            location,
            interpolation,
            sampling,
            ..
        } => {
            variable.location = Some(location);
            if interpolated {
                variable.interpolation = interpolation.map(|i| format!("{i:?}").to_lowercase());
                variable.sampling = sampling.map(|s| format!("{s:?}").to_lowercase());
            }
        }
    }
    variable
}

// --- JSON ----------------------------------------------------------------------------------

/// A JSON string literal.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes `"key": value` pairs of one JSON object on one line.
struct Object {
    text: String,
}

impl Object {
    fn new() -> Self {
        Object {
            text: String::from("{"),
        }
    }

    fn raw(mut self, key: &str, value: impl AsRef<str>) -> Self {
        if self.text.len() > 1 {
            self.text.push_str(", ");
        }
        let _ = write!(self.text, "{}: {}", quote(key), value.as_ref());
        self
    }

    fn string(self, key: &str, value: &str) -> Self {
        self.raw(key, quote(value))
    }

    fn optional(self, key: &str, value: Option<impl ToString>) -> Self {
        match value {
            Some(v) => self.raw(key, v.to_string()),
            None => self.raw(key, "null"),
        }
    }

    fn optional_string(self, key: &str, value: Option<&str>) -> Self {
        match value {
            Some(v) => self.string(key, v),
            None => self.raw(key, "null"),
        }
    }

    fn finish(mut self) -> String {
        self.text.push('}');
        self.text
    }
}

/// `[a, b, ...]`, one item per line at `indent` when `multiline`.
fn array(items: Vec<String>, indent: &str) -> String {
    if items.is_empty() {
        return "[]".into();
    }
    let inner: Vec<String> = items.iter().map(|i| format!("{indent}  {i}")).collect();
    format!("[\n{}\n{indent}]", inner.join(",\n"))
}

impl InterfaceVariable {
    fn to_json(&self) -> String {
        Object::new()
            .string("name", &self.name)
            .string("type", &self.ty)
            .optional("location", self.location)
            .optional_string("builtin", self.builtin.as_deref())
            .optional_string("interpolation", self.interpolation.as_deref())
            .optional_string("sampling", self.sampling.as_deref())
            .finish()
    }
}

impl Reflection {
    /// The reflection as JSON (keys in a fixed order, one entry point or resource per
    /// block of lines).
    pub fn to_json(&self) -> String {
        let entries: Vec<String> = self
            .entry_points
            .iter()
            .map(|e| {
                let size = e
                    .workgroup_size
                    .map(|[x, y, z]| format!("[{x}, {y}, {z}]"));
                let inputs = array(e.inputs.iter().map(InterfaceVariable::to_json).collect(), "      ");
                let outputs = array(e.outputs.iter().map(InterfaceVariable::to_json).collect(), "      ");
                format!(
                    "{{\n      \"name\": {},\n      \"stage\": {},\n      \"workgroup_size\": {},\n      \"inputs\": {},\n      \"outputs\": {}\n    }}",
                    quote(&e.name),
                    quote(&e.stage),
                    size.unwrap_or_else(|| "null".into()),
                    inputs,
                    outputs
                )
            })
            .collect();
        let resources: Vec<String> = self
            .resources
            .iter()
            .map(|r| {
                let members: Vec<String> = r
                    .members
                    .iter()
                    .map(|m| {
                        Object::new()
                            .string("name", &m.name)
                            .string("type", &m.ty)
                            .raw("offset", m.offset.to_string())
                            .raw("size", m.size.to_string())
                            .finish()
                    })
                    .collect();
                let used_by: Vec<String> = r.used_by.iter().map(|n| quote(n)).collect();
                let head = Object::new()
                    .string("name", &r.name)
                    .optional("group", r.group)
                    .optional("binding", r.binding)
                    .string("kind", &r.kind)
                    .string("address_space", &r.address_space)
                    .optional_string("access", r.access.as_deref())
                    .string("type", &r.ty)
                    .optional_string("layout", r.layout.as_deref())
                    .optional("min_binding_size", r.min_binding_size)
                    .optional("array_stride", r.array_stride)
                    .optional_string("element_type", r.element_type.as_deref())
                    .raw("used_by", format!("[{}]", used_by.join(", ")))
                    .optional_string("unsupported", r.unsupported.as_deref())
                    .finish();
                // Members go on their own lines after the one-line head.
                let head = head.trim_end_matches('}').to_string();
                format!("{head}, \"members\": {}}}", array(members, "      "))
            })
            .collect();
        format!(
            "{{\n  \"entry_points\": {},\n  \"resources\": {}\n}}\n",
            array(entries, "  "),
            array(resources, "  ")
        )
    }
}
