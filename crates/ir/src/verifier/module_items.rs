//! Module-level items: types (point 2), constants (3), globals and names (4), and function
//! signatures (5). Also the per-type facts every other check consults, computed once.

use super::{ErrorKind, Location, Verifier, MAX_WORKGROUP_INVOCATIONS, MAX_WORKGROUP_SIZE};
use crate::constants::{canonical_scalar_bits, ConstKind};
use crate::entities::{Func, Type};
use crate::function::{Builtin, FunctionKind, StageBinding};
use crate::types::{AddressSpace, Scalar, TypeData, TypeStore, MAX_TYPE_NESTING};
use cranelift_entity::EntityRef;
use std::collections::HashMap;

/// Every referenced type index exists and no type refers to itself; only sound types are
/// printed or handed to the type rules.
const SOUND: u8 = 1 << 0;
/// Has a byte size (or is a logical pointer): may be a value stored in memory, an array
/// element, a struct member, a global, `zero` or `undef`.
const SIZED: u8 = 1 << 1;
/// A texture or sampler, or a fixed array of them.
const RESOURCE_LIKE: u8 = 1 << 2;
/// A runtime array, or a struct whose last member is one.
const RUNTIME_TAIL: u8 = 1 << 3;
const OPAQUE: u8 = 1 << 4;
const VOID: u8 = 1 << 5;

/// Facts about each type of the module, computed bottom-up in one pass.
pub(crate) struct TypeFacts {
    flags: Vec<u8>,
    /// How deep each type nests (see [`crate::types::MAX_TYPE_NESTING`]).
    nesting: Vec<u32>,
    /// Types found on a reference cycle, and types referring to a missing index (with it),
    /// reported by [`Verifier::check_types`].
    cycles: Vec<Type>,
}

/// The types `data` refers to, in order.
fn referenced_types(data: &TypeData) -> impl Iterator<Item = Type> + '_ {
    data.referenced_types()
}

impl TypeFacts {
    pub(crate) fn compute(store: &TypeStore) -> TypeFacts {
        const UNVISITED: u8 = 0;
        const ON_STACK: u8 = 1;
        const DONE: u8 = 2;
        let count = store.len();
        let mut state = vec![UNVISITED; count];
        let mut flags = vec![0u8; count];
        let mut nesting = vec![0u32; count];
        let mut on_cycle = vec![false; count];
        let mut cycles = Vec::new();
        // Iterative post-order DFS over type references: (type, next reference to visit).
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for root in 0..count {
            if state[root] != UNVISITED {
                continue;
            }
            state[root] = ON_STACK;
            stack.push((root, 0));
            while let Some(top) = stack.last_mut() {
                let (ty, next) = *top;
                let Some(data) = store.try_get(Type::new(ty)) else {
                    stack.pop();
                    continue;
                };
                if let Some(child) = data.referenced_type(next) {
                    top.1 += 1;
                    let c = child.index();
                    if c < count {
                        match state[c] {
                            UNVISITED => {
                                state[c] = ON_STACK;
                                stack.push((c, 0));
                            }
                            ON_STACK if !on_cycle[ty] => {
                                on_cycle[ty] = true;
                                cycles.push(Type::new(ty));
                            }
                            _ => {}
                        }
                    }
                    continue;
                }
                stack.pop();
                state[ty] = DONE;
                flags[ty] = Self::flags_of(data, &flags, on_cycle[ty]);
                nesting[ty] = referenced_types(data)
                    .map(|t| nesting.get(t.index()).map_or(0, |d| d.saturating_add(1)))
                    .max()
                    .unwrap_or(0);
            }
        }
        TypeFacts {
            flags,
            nesting,
            cycles,
        }
    }

    /// Flags of one type from its references' flags (all final, or on the current cycle).
    fn flags_of(data: &TypeData, flags: &[u8], on_cycle: bool) -> u8 {
        let get = |ty: Type| flags.get(ty.index()).copied().unwrap_or(0);
        let sound = !on_cycle && referenced_types(data).all(|t| get(t) & SOUND != 0);
        if !sound {
            return 0;
        }
        let own = match data {
            TypeData::Void => VOID,
            TypeData::Scalar(_)
            | TypeData::Vector { .. }
            | TypeData::Matrix { .. }
            | TypeData::Pointer { .. } => SIZED,
            TypeData::Array { elem, .. } => get(*elem) & (SIZED | RESOURCE_LIKE),
            TypeData::RuntimeArray { .. } => RUNTIME_TAIL,
            TypeData::Struct(st) => {
                let (last, init) = match st.members.split_last() {
                    Some((last, init)) => (Some(last), init),
                    None => (None, &[][..]),
                };
                let init_sized = init.iter().all(|m| get(m.ty) & SIZED != 0);
                match last {
                    None => SIZED,
                    Some(last) if init_sized && get(last.ty) & SIZED != 0 => SIZED,
                    Some(last) if init_sized && get(last.ty) & RUNTIME_TAIL != 0 => RUNTIME_TAIL,
                    Some(_) => 0,
                }
            }
            TypeData::Texture { .. }
            | TypeData::StorageTexture { .. }
            | TypeData::Sampler { .. } => RESOURCE_LIKE,
            TypeData::Opaque(_) => OPAQUE,
        };
        SOUND | own
    }

    fn has(&self, ty: Type, flag: u8) -> bool {
        self.flags.get(ty.index()).is_some_and(|f| f & flag != 0)
    }

    /// How many levels of element, pointee and member types `ty` holds (0 for a scalar).
    pub(crate) fn nesting(&self, ty: Type) -> u32 {
        self.nesting.get(ty.index()).copied().unwrap_or(0)
    }

    pub(crate) fn len(&self) -> usize {
        self.flags.len()
    }

    pub(crate) fn is_sound(&self, ty: Type) -> bool {
        self.has(ty, SOUND)
    }

    pub(crate) fn is_sized(&self, ty: Type) -> bool {
        self.has(ty, SIZED)
    }

    pub(crate) fn is_void(&self, ty: Type) -> bool {
        self.has(ty, VOID)
    }

    pub(crate) fn has_runtime_tail(&self, ty: Type) -> bool {
        self.has(ty, RUNTIME_TAIL)
    }

    fn is_resource_like(&self, ty: Type) -> bool {
        self.has(ty, RESOURCE_LIKE)
    }

    fn is_opaque(&self, ty: Type) -> bool {
        self.has(ty, OPAQUE)
    }

    /// What may be an SSA value: a sound type that is not `void` and not unsized.
    pub(crate) fn value_type_problem(&self, ty: Type) -> Option<&'static str> {
        if !self.is_sound(ty) {
            Some("a malformed type")
        } else if self.is_void(ty) {
            Some("type void")
        } else if self.has_runtime_tail(ty) {
            Some("a runtime-sized type")
        } else {
            None
        }
    }
}

fn scalar_is_valid(s: Scalar) -> bool {
    Scalar::ALL.contains(&s)
}

impl Verifier<'_> {
    /// Points 2–4: types, constants, globals and names.
    pub(crate) fn check_module_items(&mut self) {
        self.check_layouts();
        self.check_types();
        self.check_constants();
        self.check_globals();
        self.check_names();
    }

    /// Uniform buffers are laid out by std140 or std430 (what a front-end computes and
    /// every back-end can express); the other rule sets are refused.
    fn check_layouts(&mut self) {
        let rules = self.module.layouts.uniform;
        match rules {
            crate::data_layout::LayoutRules::Std140 | crate::data_layout::LayoutRules::Std430 => {}
            crate::data_layout::LayoutRules::Scalar
            | crate::data_layout::LayoutRules::Metal
            | crate::data_layout::LayoutRules::C => self.report(
                ErrorKind::MalformedType,
                Location::Module,
                format!("uniform buffers are laid out by std140 or std430, not {rules}"),
            ),
        }
    }

    fn check_types(&mut self) {
        let module = self.module;
        for ty in std::mem::take(&mut self.type_facts.cycles) {
            self.report(
                ErrorKind::MalformedType,
                Location::Type(ty),
                "the type contains itself",
            );
        }
        for (ty, data) in module.types.iter() {
            let mut missing = false;
            for child in referenced_types(data) {
                if module.types.try_get(child).is_none() {
                    missing = true;
                    self.report(
                        ErrorKind::InvalidEntity,
                        Location::Type(ty),
                        format!("refers to {child}, which does not exist"),
                    );
                }
            }
            if missing {
                continue;
            }
            let depth = self.type_facts.nesting(ty);
            if self.type_facts.is_sound(ty) && depth > MAX_TYPE_NESTING {
                self.report(
                    ErrorKind::MalformedType,
                    Location::Type(ty),
                    format!(
                        "nests types {depth} levels deep; oxir accepts at most {MAX_TYPE_NESTING}"
                    ),
                );
                continue;
            }
            let problem = self.type_problem(data);
            if let Some(message) = problem {
                self.report(ErrorKind::MalformedType, Location::Type(ty), message);
            }
        }
    }

    /// What is wrong with a type whose references all exist.
    fn type_problem(&self, data: &TypeData) -> Option<String> {
        let facts = &self.type_facts;
        let lanes_ok = |n: u8| (2..=4).contains(&n);
        match data {
            TypeData::Void | TypeData::Texture { .. } | TypeData::StorageTexture { .. } => None,
            TypeData::Sampler { .. } | TypeData::Opaque(_) => None,
            TypeData::Scalar(s) => (!scalar_is_valid(*s)).then(|| format!("invalid scalar {s:?}")),
            TypeData::Vector { elem, len } => {
                if !scalar_is_valid(*elem) {
                    Some(format!("invalid scalar {elem:?}"))
                } else {
                    (!lanes_ok(*len)).then(|| format!("a vector has 2 to 4 lanes, not {len}"))
                }
            }
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => {
                if !scalar_is_valid(*elem) || !elem.is_float() {
                    Some(format!(
                        "matrix elements must be floats, not {}",
                        elem.name()
                    ))
                } else {
                    (!lanes_ok(*columns) || !lanes_ok(*rows)).then(|| {
                        format!("a matrix has 2 to 4 columns and rows, not {columns}x{rows}")
                    })
                }
            }
            TypeData::Array { elem, len, .. } => {
                if *len == 0 {
                    Some("an array has at least one element".into())
                } else if facts.is_sound(*elem)
                    && !facts.is_sized(*elem)
                    && !facts.is_resource_like(*elem)
                {
                    Some(format!(
                        "array element type {} is not sized",
                        self.type_name(*elem)
                    ))
                } else {
                    None
                }
            }
            TypeData::RuntimeArray { elem, .. } => {
                (facts.is_sound(*elem) && !facts.is_sized(*elem) && !facts.is_resource_like(*elem))
                    .then(|| format!("array element type {} is not sized", self.type_name(*elem)))
            }
            TypeData::Struct(st) => {
                let last = st.members.len().saturating_sub(1);
                for (i, member) in st.members.iter().enumerate() {
                    if !facts.is_sound(member.ty)
                        || facts.is_sized(member.ty)
                        || facts.is_resource_like(member.ty)
                    {
                        continue;
                    }
                    let runtime_array_ok = i == last
                        && matches!(
                            self.module.types.try_get(member.ty),
                            Some(TypeData::RuntimeArray { .. })
                        );
                    if !runtime_array_ok {
                        return Some(format!(
                            "member `{}` has type {}, which is not sized{}",
                            member.name,
                            self.type_name(member.ty),
                            if facts.has_runtime_tail(member.ty) {
                                " (a runtime-sized array may only be the last member)"
                            } else {
                                ""
                            }
                        ));
                    }
                }
                let mut previous: Option<(u32, &str)> = None;
                for member in &st.members {
                    let Some(offset) = member.offset else {
                        continue;
                    };
                    if let Some((before, name)) = previous {
                        if offset <= before {
                            return Some(format!(
                                "member `{}` at offset {offset} does not come after `{name}` at offset {before}",
                                member.name
                            ));
                        }
                    }
                    previous = Some((offset, &member.name));
                }
                match st.align {
                    Some(align) if !align.is_power_of_two() => {
                        Some(format!("alignment {align} is not a power of two"))
                    }
                    _ => None,
                }
            }
            TypeData::Pointer { pointee, .. } => facts
                .is_void(*pointee)
                .then(|| "a pointer cannot point to void".to_string()),
        }
    }

    fn check_constants(&mut self) {
        let module = self.module;
        for (c, data) in module.consts.iter() {
            let location = Location::Const(c);
            let Some(ty_data) = module.types.try_get(data.ty) else {
                self.report(
                    ErrorKind::InvalidEntity,
                    location,
                    format!("type {} does not exist", data.ty),
                );
                continue;
            };
            if !self.type_facts.is_sound(data.ty) {
                continue; // reported with the type
            }
            let ty_name = self.type_name(data.ty);
            match &data.kind {
                ConstKind::Scalar(bits) => match ty_data {
                    TypeData::Scalar(s) if scalar_is_valid(*s) => {
                        if canonical_scalar_bits(*s, *bits) != *bits {
                            self.report(
                                ErrorKind::MalformedConstant,
                                location,
                                format!("bits {bits:#x} are not canonical for {}", s.name()),
                            );
                        }
                    }
                    _ => self.report(
                        ErrorKind::MalformedConstant,
                        location,
                        format!("a scalar constant of type {ty_name}"),
                    ),
                },
                ConstKind::Composite(elements) => {
                    let expected: Vec<ElementRule> = match ty_data {
                        TypeData::Vector { elem, len } => {
                            vec![ElementRule::Data(TypeData::Scalar(*elem)); usize::from(*len)]
                        }
                        TypeData::Matrix {
                            elem,
                            columns,
                            rows,
                        } => {
                            vec![
                                ElementRule::Data(TypeData::Vector {
                                    elem: *elem,
                                    len: *rows
                                });
                                usize::from(*columns)
                            ]
                        }
                        TypeData::Array { elem, len, .. } => {
                            // Compare the count first so a huge length allocates nothing.
                            if elements.len() as u64 != u64::from(*len) {
                                self.report(
                                    ErrorKind::MalformedConstant,
                                    location,
                                    format!(
                                        "{ty_name} needs {len} elements, found {}",
                                        elements.len()
                                    ),
                                );
                                continue;
                            }
                            vec![ElementRule::Index(*elem); elements.len()]
                        }
                        TypeData::Struct(st) => st
                            .members
                            .iter()
                            .map(|m| ElementRule::Index(m.ty))
                            .collect(),
                        _ => {
                            self.report(
                                ErrorKind::MalformedConstant,
                                location,
                                format!("a composite constant of type {ty_name}"),
                            );
                            continue;
                        }
                    };
                    if expected.len() != elements.len() {
                        self.report(
                            ErrorKind::MalformedConstant,
                            location,
                            format!(
                                "{ty_name} needs {} elements, found {}",
                                expected.len(),
                                elements.len()
                            ),
                        );
                        continue;
                    }
                    for (i, (&element, rule)) in elements.iter().zip(&expected).enumerate() {
                        let Some(element_data) = module.consts.try_get(element) else {
                            self.report(
                                ErrorKind::InvalidEntity,
                                location.clone(),
                                format!("element {i} is {element}, which does not exist"),
                            );
                            continue;
                        };
                        let fits = match rule {
                            ElementRule::Index(ty) => element_data.ty == *ty,
                            ElementRule::Data(data) => {
                                module.types.try_get(element_data.ty) == Some(data)
                            }
                        };
                        if !fits {
                            let element_ty = self.type_name(element_data.ty);
                            self.report(
                                ErrorKind::MalformedConstant,
                                location.clone(),
                                format!("element {i} ({element}) has type {element_ty}, which does not fit {ty_name}"),
                            );
                        }
                    }
                }
                ConstKind::Zero | ConstKind::Undef => {
                    if !self.type_facts.is_sized(data.ty) {
                        self.report(
                            ErrorKind::MalformedConstant,
                            location,
                            format!(
                                "zero and undef need a sized, non-resource type, not {ty_name}"
                            ),
                        );
                    }
                }
            }
        }
    }

    fn check_globals(&mut self) {
        let module = self.module;
        for (g, global) in module.globals.iter() {
            let location = Location::Global(g);
            let space = global.space;
            let has_binding_space = matches!(
                space,
                AddressSpace::Storage(_) | AddressSpace::Uniform | AddressSpace::Handle
            );
            if space == AddressSpace::Function {
                self.report(
                    ErrorKind::MalformedGlobal,
                    location.clone(),
                    "globals cannot live in the function space",
                );
            }
            if matches!(
                space,
                AddressSpace::Storage(_) | AddressSpace::Uniform | AddressSpace::PushConstant
            ) {
                let rules = module.layout_rules(space);
                let layout = crate::data_layout::layout_of(&module.types, global.ty, rules);
                if let Err(e @ crate::data_layout::LayoutError::BadExplicitStride { .. }) = layout {
                    self.report(
                        ErrorKind::MalformedGlobal,
                        location.clone(),
                        format!("in the {rules} layout of {space} space, {e}"),
                    );
                }
            }
            if has_binding_space != global.binding.is_some() {
                let message = if has_binding_space {
                    format!("a global in {space} space needs a resource binding")
                } else {
                    format!("a global in {space} space cannot have a resource binding")
                };
                self.report(ErrorKind::MalformedGlobal, location.clone(), message);
            }
            if let Some(init) = global.init {
                if !matches!(space, AddressSpace::Private | AddressSpace::Workgroup) {
                    self.report(
                        ErrorKind::MalformedGlobal,
                        location.clone(),
                        format!(
                            "only private and workgroup globals have initializers, not {space}"
                        ),
                    );
                }
                match module.consts.try_get(init) {
                    None => self.report(
                        ErrorKind::InvalidEntity,
                        location.clone(),
                        format!("initializer {init} does not exist"),
                    ),
                    Some(c) if c.ty != global.ty => {
                        let (found, expected) = (self.type_name(c.ty), self.type_name(global.ty));
                        self.report(
                            ErrorKind::MalformedGlobal,
                            location.clone(),
                            format!(
                                "initializer {init} has type {found}, the global is {expected}"
                            ),
                        );
                    }
                    Some(_) => {}
                }
            }
            if module.types.try_get(global.ty).is_none() {
                self.report(
                    ErrorKind::InvalidEntity,
                    location,
                    format!("type {} does not exist", global.ty),
                );
                continue;
            }
            let facts = &self.type_facts;
            if !facts.is_sound(global.ty) {
                continue; // reported with the type
            }
            let handle_like = facts.is_resource_like(global.ty) || facts.is_opaque(global.ty);
            let problem = match space {
                AddressSpace::Handle if !handle_like => Some("handle-space globals hold resources"),
                AddressSpace::Handle => None,
                _ if handle_like => Some("resources and opaque types live only in handle space"),
                AddressSpace::Storage(_) if facts.has_runtime_tail(global.ty) => None,
                _ if !facts.is_sized(global.ty) => Some("a global needs a sized type"),
                _ => None,
            };
            if let Some(problem) = problem {
                let ty_name = self.type_name(global.ty);
                self.report(
                    ErrorKind::MalformedGlobal,
                    location,
                    format!("{problem}; found {ty_name} in {space} space"),
                );
            }
        }
    }

    /// Globals and functions share one namespace.
    fn check_names(&mut self) {
        let module = self.module;
        let mut seen: HashMap<&str, Location> = HashMap::new();
        let globals = module
            .globals
            .iter()
            .map(|(g, data)| (data.name.as_str(), Location::Global(g)));
        let functions = module
            .functions
            .iter()
            .map(|(f, data)| (data.name.as_str(), Location::Function(f)));
        for (name, location) in globals.chain(functions) {
            if let Some(first) = seen.get(name) {
                let first = match first {
                    Location::Global(g) => format!("{g}"),
                    Location::Function(f) => format!("{f}"),
                    _ => String::new(),
                };
                self.report(
                    ErrorKind::DuplicateName,
                    location,
                    format!("the name @{name} is already taken by {first}"),
                );
            } else {
                seen.insert(name, location);
            }
        }
    }

    /// Point 5, the parts that do not need the body: signature types, kernel and entry-point
    /// rules, callable results, external declarations.
    /// A kernel's workgroup size within [`MAX_WORKGROUP_SIZE`] per dimension and
    /// [`MAX_WORKGROUP_INVOCATIONS`] in total (the product taken in saturating `u64`).
    fn check_workgroup_limits(&mut self, size: [u32; 3], location: &Location) {
        let [x, y, z] = size;
        for (axis, (given, max)) in ["x", "y", "z"]
            .iter()
            .zip(size.iter().zip(MAX_WORKGROUP_SIZE))
        {
            if *given > max {
                self.report(
                    ErrorKind::WorkgroupSizeLimit,
                    location.clone(),
                    format!(
                        "workgroup size ({x}, {y}, {z}): {axis} = {given} exceeds the maximum {max} \
                         (MAX_WORKGROUP_SIZE)"
                    ),
                );
            }
        }
        let invocations = size
            .iter()
            .fold(1u64, |n, &d| n.saturating_mul(u64::from(d)));
        if invocations > MAX_WORKGROUP_INVOCATIONS {
            self.report(
                ErrorKind::WorkgroupSizeLimit,
                location.clone(),
                format!(
                    "workgroup size ({x}, {y}, {z}) is {invocations} invocations, more than the \
                     maximum {MAX_WORKGROUP_INVOCATIONS} (MAX_WORKGROUP_INVOCATIONS)"
                ),
            );
        }
    }

    pub(crate) fn check_signature(&mut self, func: Func) {
        let Some(function) = self.module.functions.get(func) else {
            return;
        };
        let location = Location::Function(func);
        let signature = &function.signature;
        let entry_point = function.kind.is_entry_point();
        let lists = [
            ("parameter", &signature.params),
            ("result", &signature.returns),
        ];
        for (what, list) in lists {
            for (i, param) in list.iter().enumerate() {
                if self.module.types.try_get(param.ty).is_none() {
                    self.report(
                        ErrorKind::InvalidEntity,
                        location.clone(),
                        format!("{what} {i} has type {}, which does not exist", param.ty),
                    );
                } else if let Some(problem) = self.type_facts.value_type_problem(param.ty) {
                    self.report(
                        ErrorKind::MalformedSignature,
                        location.clone(),
                        format!("{what} {i} has {problem}"),
                    );
                }
                match (entry_point, &param.binding) {
                    (true, None) => self.report(
                        ErrorKind::MalformedSignature,
                        location.clone(),
                        format!("{what} {i} of an entry point needs a stage binding"),
                    ),
                    (false, Some(binding)) => self.report(
                        ErrorKind::MalformedSignature,
                        location.clone(),
                        format!("{what} {i} has stage binding {binding}, but only entry points have them"),
                    ),
                    _ => {}
                }
                let vertex_position = what == "result"
                    && function.kind == FunctionKind::Vertex
                    && param.binding == Some(StageBinding::Builtin(Builtin::Position));
                if param.invariant && !vertex_position {
                    self.report(
                        ErrorKind::MalformedSignature,
                        location.clone(),
                        format!(
                            "{what} {i} is `invariant`, which only a vertex entry point's \
                             builtin(position) result may be"
                        ),
                    );
                }
            }
        }
        match function.kind {
            FunctionKind::Kernel {
                workgroup_size,
                workgroup_spec_ids: _, // point 12 (`specialization.rs`)
            } => {
                if workgroup_size.contains(&0) {
                    let [x, y, z] = workgroup_size;
                    self.report(
                        ErrorKind::MalformedSignature,
                        location.clone(),
                        format!("workgroup size ({x}, {y}, {z}) has a zero dimension"),
                    );
                }
                self.check_workgroup_limits(workgroup_size, &location);
                if !signature.returns.is_empty() {
                    self.report(
                        ErrorKind::MalformedSignature,
                        location.clone(),
                        "a kernel returns nothing",
                    );
                }
            }
            FunctionKind::Callable if signature.returns.len() > 1 => {
                let count = signature.returns.len();
                self.report(
                    ErrorKind::MalformedSignature,
                    location.clone(),
                    format!("a callable returns at most one value, not {count}"),
                );
            }
            FunctionKind::External if function.layout.entry_block().is_some() => {
                self.report(
                    ErrorKind::MalformedFunction,
                    location,
                    "an external function has no blocks",
                );
            }
            FunctionKind::Vertex
            | FunctionKind::Fragment
            | FunctionKind::Callable
            | FunctionKind::External => {}
        }
    }
}

/// What a composite constant's element must be: a type by index (arrays, structs) or by
/// structure (vector lanes and matrix columns, whose types may be interned anywhere).
#[derive(Clone)]
enum ElementRule {
    Index(Type),
    Data(TypeData),
}
