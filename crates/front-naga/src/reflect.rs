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
use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};
use std::io;

/// One stage input or output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InterfaceVariable {
    /// The argument or struct member name (empty when naga has none).
    pub name: String,
    /// oxir text-form type.
    #[serde(rename = "type")]
    pub ty: String,
    /// `location(N)` or the built-in's name.
    pub location: Option<u32>,
    pub builtin: Option<String>,
    /// `perspective`, `linear`, `flat` (locations only).
    pub interpolation: Option<String>,
    pub sampling: Option<String>,
}

/// One entry point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemberInfo {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub offset: u32,
    /// Size of the member (zero elements for a runtime-sized array).
    pub size: u32,
}

/// One resource binding (or the push-constant block).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
    #[serde(rename = "type")]
    pub ty: String,
    /// `std430` or `std140` for buffers.
    pub layout: Option<String>,
    pub min_binding_size: Option<u32>,
    /// Element stride of a trailing runtime-sized array.
    pub array_stride: Option<u32>,
    /// Element type of a trailing runtime-sized array.
    pub element_type: Option<String>,
    /// Entry points that use the resource.
    pub used_by: Vec<String>,
    /// Why oxir cannot lower the resource's type, when it cannot.
    pub unsupported: Option<String>,
    /// Members of a struct-typed buffer (last in the JSON, one per line).
    pub members: Vec<MemberInfo>,
}

/// The interface of a module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reflection {
    pub entry_points: Vec<EntryPointInfo>,
    pub resources: Vec<ResourceInfo>,
    /// The pipeline-overridable constants, with their defaults and the values used
    /// (filled in by whoever applied them, `crate::apply_overrides`; empty from
    /// [`reflect()`] alone). Left out of the JSON when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<crate::OverrideInfo>,
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
                overrides: Vec::new(),
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
                if let Some(rules) = buffer_rules(global.space, lowerer.out.layouts.uniform) {
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
        overrides: Vec::new(),
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
                TypeData::RuntimeArray { elem, .. } => {
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

impl Reflection {
    /// The reflection as JSON, keys in the order of the struct fields: the top-level
    /// object, each entry point and the arrays of objects one item per line (two spaces of
    /// indentation per level); every other object and array on one line (see
    /// [`ReflectionLayout`]). Ends in a newline.
    pub fn to_json(&self) -> String {
        let mut out = Vec::new();
        let mut serializer =
            serde_json::Serializer::with_formatter(&mut out, ReflectionLayout::default());
        self.serialize(&mut serializer)
            .expect("serializing plain data to memory cannot fail");
        // serde_json writes UTF-8.
        let mut text = String::from_utf8_lossy(&out).into_owned();
        text.push('\n');
        text
    }
}

/// The arrays whose items go on their own lines (when there are any): those of objects.
const ARRAYS_ONE_ITEM_PER_LINE: [&str; 6] = [
    "entry_points",
    "resources",
    "inputs",
    "outputs",
    "members",
    "overrides",
];

/// The array whose objects are themselves laid out one member per line.
const OBJECTS_ONE_MEMBER_PER_LINE: &str = "entry_points";

/// One open object or array.
struct Container {
    /// Items on their own lines, indented by the nesting depth.
    expanded: bool,
    /// The items are objects laid out one member per line.
    items_expanded: bool,
    has_items: bool,
}

/// A serde_json formatter for the layout `oxir reflect` prints: `": "` after keys, `", "`
/// between the items of a one-line object or array, `",\n"` and two spaces per nesting
/// level between those of an expanded one. Which containers are expanded is decided by
/// the key they are the value of ([`ARRAYS_ONE_ITEM_PER_LINE`],
/// [`OBJECTS_ONE_MEMBER_PER_LINE`]); the top-level object always is. Strings are escaped
/// as JSON requires, control characters other than `\n`, `\r` and `\t` as `\u00xx`.
#[derive(Default)]
struct ReflectionLayout {
    open: Vec<Container>,
    /// The key being written (between `begin_object_key` and `end_object_key`).
    key: Option<String>,
    /// The key of the value about to be written; `None` inside arrays.
    value_key: Option<String>,
}

/// serde_json closed a container the formatter never saw opened (a serde_json bug).
fn unbalanced() -> io::Error {
    io::Error::other("unbalanced JSON containers")
}

impl ReflectionLayout {
    fn open_container<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        bracket: &[u8],
        expanded: bool,
    ) -> io::Result<()> {
        let key = self.value_key.take();
        self.open.push(Container {
            expanded,
            items_expanded: key.as_deref() == Some(OBJECTS_ONE_MEMBER_PER_LINE),
            has_items: false,
        });
        writer.write_all(bracket)
    }

    fn close_container<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        bracket: &[u8],
    ) -> io::Result<()> {
        let container = self.open.pop().ok_or_else(unbalanced)?;
        if container.expanded && container.has_items {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        writer.write_all(bracket)
    }

    /// The separator before an item of the innermost container.
    fn separate<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        let container = self.open.last_mut().ok_or_else(unbalanced)?;
        container.has_items = true;
        match (container.expanded, first) {
            (true, true) => writer.write_all(b"\n")?,
            (true, false) => writer.write_all(b",\n")?,
            (false, true) => {}
            (false, false) => writer.write_all(b", ")?,
        }
        if container.expanded {
            self.indent(writer)?;
        }
        Ok(())
    }

    fn indent<W: ?Sized + io::Write>(&self, writer: &mut W) -> io::Result<()> {
        for _ in 0..self.open.len() {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl Formatter for ReflectionLayout {
    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        let expanded = self
            .value_key
            .as_deref()
            .is_some_and(|key| ARRAYS_ONE_ITEM_PER_LINE.contains(&key));
        self.open_container(writer, b"[", expanded)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close_container(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.value_key = None;
        self.separate(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        let expanded = match self.open.last() {
            None => true,
            Some(parent) => parent.items_expanded,
        };
        self.open_container(writer, b"{", expanded)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close_container(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.key = Some(String::new());
        self.separate(writer, first)
    }

    fn end_object_key<W: ?Sized + io::Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.value_key = self.key.take();
        Ok(())
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if let Some(key) = &mut self.key {
            key.push_str(fragment);
        }
        writer.write_all(fragment.as_bytes())
    }

    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        let control = |byte: u8| format!("\\u{byte:04x}");
        let text = match escape {
            CharEscape::Quote => "\\\"".to_string(),
            CharEscape::ReverseSolidus => "\\\\".to_string(),
            CharEscape::Solidus => "/".to_string(),
            CharEscape::LineFeed => "\\n".to_string(),
            CharEscape::CarriageReturn => "\\r".to_string(),
            CharEscape::Tab => "\\t".to_string(),
            CharEscape::Backspace => control(0x08),
            CharEscape::FormFeed => control(0x0c),
            CharEscape::AsciiControl(byte) => control(byte),
        };
        writer.write_all(text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variable(name: &str) -> InterfaceVariable {
        InterfaceVariable {
            name: name.into(),
            ty: "vec4<f32>".into(),
            location: Some(0),
            builtin: None,
            interpolation: Some("perspective".into()),
            sampling: None,
        }
    }

    /// The layout, written out by hand: expanded top level, entry points and arrays of
    /// objects; one-line variables, members, resources, `workgroup_size` and `used_by`.
    #[test]
    fn json_layout_and_escapes() {
        let reflection = Reflection {
            entry_points: vec![EntryPointInfo {
                name: "main".into(),
                stage: "fragment".into(),
                workgroup_size: None,
                inputs: vec![variable("a\"b\\c\n\u{8}\u{c}\u{1f}\t/")],
                outputs: Vec::new(),
            }],
            resources: vec![ResourceInfo {
                name: "buf".into(),
                group: Some(0),
                binding: Some(1),
                kind: "storage_buffer".into(),
                address_space: "storage".into(),
                access: Some("read".into()),
                ty: "Data".into(),
                layout: Some("std430".into()),
                min_binding_size: Some(4),
                array_stride: Some(4),
                element_type: Some("u32".into()),
                used_by: vec!["main".into(), "other".into()],
                unsupported: None,
                members: vec![MemberInfo {
                    name: "xs".into(),
                    ty: "array<u32>".into(),
                    offset: 0,
                    size: 0,
                }],
            }],
            overrides: Vec::new(),
        };
        let want = r#"{
  "entry_points": [
    {
      "name": "main",
      "stage": "fragment",
      "workgroup_size": null,
      "inputs": [
        {"name": "a\"b\\c\n\u0008\u000c\u001f\t/", "type": "vec4<f32>", "location": 0, "builtin": null, "interpolation": "perspective", "sampling": null}
      ],
      "outputs": []
    }
  ],
  "resources": [
    {"name": "buf", "group": 0, "binding": 1, "kind": "storage_buffer", "address_space": "storage", "access": "read", "type": "Data", "layout": "std430", "min_binding_size": 4, "array_stride": 4, "element_type": "u32", "used_by": ["main", "other"], "unsupported": null, "members": [
        {"name": "xs", "type": "array<u32>", "offset": 0, "size": 0}
      ]}
  ]
}
"#;
        assert_eq!(reflection.to_json(), want);
        let compute = EntryPointInfo {
            name: "k".into(),
            stage: "compute".into(),
            workgroup_size: Some([64, 1, 1]),
            inputs: Vec::new(),
            outputs: Vec::new(),
        };
        let empty = Reflection {
            entry_points: vec![compute],
            resources: Vec::new(),
            overrides: Vec::new(),
        };
        assert!(
            empty
                .to_json()
                .contains("\"workgroup_size\": [64, 1, 1],\n      \"inputs\": [],"),
            "{}",
            empty.to_json()
        );
        assert!(empty.to_json().ends_with("  ],\n  \"resources\": []\n}\n"));
    }
}
