//! The module-level driver: which naga items are lowered, their oxir names, globals, and
//! the order functions are built in.
//!
//! - **What is lowered**: the selected entry points (all, or the one
//!   [`LowerOptions::entry_point`] names), every naga function they reach through calls,
//!   and every global one of them uses (per naga's `FunctionInfo::global_uses`). Types and
//!   constants are lowered on first use, so an unused declaration of an unsupported type
//!   does not refuse the module.
//! - **Names**: entry points first, then globals, then functions, each sanitized to
//!   `[A-Za-z_][A-Za-z0-9_]*` and made unique (globals and functions share oxir's
//!   namespace) with a `.N` suffix; unnamed items are `globalN` / `functionN` (an unnamed
//!   global whose type has a name, such as a GLSL block, takes the type's name).
//! - **Globals**: `private` and `workgroup` globals without an initializer get `zero`
//!   (WGSL zero-initializes both; for GLSL and SPIR-V, where they are undefined, zero is
//!   one valid value). Buffer globals keep naga's layout, checked against the binding's
//!   rules ([`ModuleLowerer::check_buffer_layout`]).
//! - **Order**: callables in naga's arena order (callees before callers), then entry
//!   points; all signatures are declared before any body is built.
//! - In debug builds the result is verified (default options plus unique merge blocks and
//!   canonical break/continue targets) and a failure is a [`LowerError::Internal`].

use crate::constants::ConstCache;
use crate::entry_points::{entry_interface, EntryInterface};
use crate::error::{LowerError, Result};
use crate::function::FunctionLowerer;
use crate::types::{address_space, buffer_rules, sanitize};
use naga::valid::ModuleInfo;
use naga::{Handle, Span, Statement};
use oxir_ir::builder::FunctionBuilder;
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::{
    AbiParam, AddressSpace, Func, FunctionKind, Global, GlobalData, Module, ResourceBinding,
    Signature, Type,
};
use std::collections::HashSet;

/// What to lower.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// Lower only the entry point with this (naga) name; all of them when `None`.
    pub entry_point: Option<String>,
    /// Keep the module's overrides as specialization constants (`spec_constant`), with
    /// these ids and defaults, instead of refusing a module whose overrides were not
    /// applied ([`crate::plan_spec_constants`]).
    pub spec_constants: Option<crate::SpecPlan>,
}

/// The verifier options every lowered module satisfies: the defaults plus unique merge
/// blocks and canonical break/continue targets.
pub fn verifier_options() -> VerifierOptions {
    VerifierOptions {
        require_unique_merge_blocks: true,
        require_canonical_break_continue_targets: true,
        ..VerifierOptions::default()
    }
}

/// Lowers every entry point of a validated naga module (and everything they reach).
pub fn lower(module: &naga::Module, info: &ModuleInfo) -> Result<Module> {
    lower_with_options(module, info, &LowerOptions::default())
}

/// Lowers the entry points `options` selects ([`LowerError::NoSuchEntryPoint`] when it
/// names none).
pub fn lower_with_options(
    module: &naga::Module,
    info: &ModuleInfo,
    options: &LowerOptions,
) -> Result<Module> {
    let selected: Vec<usize> = (0..module.entry_points.len())
        .filter(|&i| {
            options
                .entry_point
                .as_ref()
                .is_none_or(|name| *name == module.entry_points[i].name)
        })
        .collect();
    if let (Some(name), true) = (&options.entry_point, selected.is_empty()) {
        return Err(LowerError::NoSuchEntryPoint {
            name: name.clone(),
            available: module.entry_points.iter().map(|e| e.name.clone()).collect(),
        });
    }
    let mut lowerer = ModuleLowerer::new(module, info)?;
    lowerer.spec_constants = options.spec_constants.clone();
    lowerer.run(&selected)?;
    let out = lowerer.out;
    if cfg!(debug_assertions) {
        let report = verify_module(&out, &verifier_options());
        if !report.succeeded() {
            let errors: Vec<String> = report
                .errors
                .iter()
                .take(5)
                .map(|e| e.to_string())
                .collect();
            return Err(LowerError::internal(
                format!("the lowered module does not verify: {}", errors.join("; ")),
                Span::UNDEFINED,
            ));
        }
    }
    Ok(out)
}

/// State shared by the lowering of one module.
pub(crate) struct ModuleLowerer<'n> {
    pub naga: &'n naga::Module,
    pub info: &'n ModuleInfo,
    pub out: Module,
    /// naga type -> oxir type, filled on first use.
    pub types: Vec<Option<Type>>,
    /// naga types reachable from buffer globals: their structs keep member offsets.
    pub host_shared: Vec<bool>,
    /// Per naga type, the layout rules of the buffers that contain it (std430 for storage
    /// and immediate buffers, the module's uniform rules for uniform ones), at most two.
    pub buffer_rules: Vec<Vec<oxir_ir::data_layout::LayoutRules>>,
    /// naga's own layout (WGSL rules, explicit offsets and strides).
    pub layouter: naga::proc::Layouter,
    /// Module-scope constant expressions.
    pub global_consts: ConstCache,
    pub globals: Vec<Option<Global>>,
    pub functions: Vec<Option<Func>>,
    /// Overrides kept as specialization constants, when they are.
    pub spec_constants: Option<crate::SpecPlan>,
    global_names: Vec<String>,
    function_names: Vec<String>,
    entry_names: Vec<String>,
}

/// Calls `visit` on every statement of `block`, nested ones included.
pub(crate) fn walk_statements<'n>(block: &'n naga::Block, visit: &mut impl FnMut(&'n Statement)) {
    for statement in block.iter() {
        visit(statement);
        match statement {
            Statement::Block(inner) => walk_statements(inner, visit),
            Statement::If { accept, reject, .. } => {
                walk_statements(accept, visit);
                walk_statements(reject, visit);
            }
            Statement::Switch { cases, .. } => {
                for case in cases {
                    walk_statements(&case.body, visit);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                walk_statements(body, visit);
                walk_statements(continuing, visit);
            }
            _ => {}
        }
    }
}

/// A function body to build.
enum Body {
    Callable(Handle<naga::Function>),
    Entry(usize),
}

/// Unique oxir names.
struct Namer {
    taken: HashSet<String>,
}

impl Namer {
    fn name(&mut self, wanted: Option<&str>, fallback: String) -> String {
        let base = wanted.map_or(fallback.clone(), |w| sanitize(w, &fallback));
        let mut candidate = base.clone();
        let mut n = 1;
        while !self.taken.insert(candidate.clone()) {
            candidate = format!("{base}.{n}");
            n += 1;
        }
        candidate
    }
}

impl<'n> ModuleLowerer<'n> {
    pub(crate) fn new(naga: &'n naga::Module, info: &'n ModuleInfo) -> Result<Self> {
        let mut layouter = naga::proc::Layouter::default();
        layouter
            .update(naga.to_ctx())
            .map_err(|e| LowerError::internal(format!("naga layout: {e}"), Span::UNDEFINED))?;
        let mut namer = Namer {
            taken: HashSet::new(),
        };
        let entry_names = naga
            .entry_points
            .iter()
            .enumerate()
            .map(|(i, ep)| namer.name(Some(&ep.name), format!("entry{i}")))
            .collect();
        let global_names = naga
            .global_variables
            .iter()
            .map(|(h, g)| {
                // GLSL's anonymous blocks have no variable name, only a block (type) name.
                let wanted = g.name.as_deref().or(naga.types[g.ty].name.as_deref());
                namer.name(wanted, format!("global{}", h.index()))
            })
            .collect();
        let function_names = naga
            .functions
            .iter()
            .map(|(h, f)| namer.name(f.name.as_deref(), format!("function{}", h.index())))
            .collect();
        let mut out = Module::new();
        out.layouts.uniform = crate::types::uniform_rules(naga, &layouter);
        Ok(ModuleLowerer {
            naga,
            info,
            out,
            types: vec![None; naga.types.len()],
            host_shared: vec![false; naga.types.len()],
            buffer_rules: vec![Vec::new(); naga.types.len()],
            layouter,
            global_consts: Vec::new(),
            globals: vec![None; naga.global_variables.len()],
            functions: vec![None; naga.functions.len()],
            spec_constants: None,
            global_names,
            function_names,
            entry_names,
        })
    }

    fn run(&mut self, selected: &[usize]) -> Result<()> {
        self.mark_host_shared();
        // Functions reached from the selected entry points.
        let mut reached = vec![false; self.naga.functions.len()];
        let mut stack: Vec<&'n naga::Block> = selected
            .iter()
            .map(|&i| &self.naga.entry_points[i].function.body)
            .collect();
        while let Some(block) = stack.pop() {
            walk_statements(block, &mut |statement| {
                if let Statement::Call { function, .. } = statement {
                    if !std::mem::replace(&mut reached[function.index()], true) {
                        stack.push(&self.naga.functions[*function].body);
                    }
                }
            });
        }
        // Globals used by them, in naga order.
        for (handle, _) in self.naga.global_variables.iter() {
            let used = selected
                .iter()
                .any(|&i| !self.info.get_entry_point(i)[handle].is_empty());
            if used {
                self.global(handle)?;
            }
        }
        // Declarations, then bodies.
        let mut bodies: Vec<(Func, Option<EntryInterface>, Body)> = Vec::new();
        for (handle, function) in self.naga.functions.iter() {
            if !reached[handle.index()] {
                continue;
            }
            let name = self.function_names[handle.index()].clone();
            let display = function.name.clone().unwrap_or_else(|| name.clone());
            let signature = self
                .callable_signature(function)
                .map_err(|e| e.in_function(&display))?;
            let func = FunctionBuilder::create_function(
                &mut self.out,
                name,
                FunctionKind::Callable,
                signature,
            );
            self.functions[handle.index()] = Some(func);
            bodies.push((func, None, Body::Callable(handle)));
        }
        for &i in selected {
            let entry = &self.naga.entry_points[i];
            let (kind, interface) =
                entry_interface(self, entry).map_err(|e| e.in_function(&entry.name))?;
            let name = self.entry_names[i].clone();
            let func = FunctionBuilder::create_function(
                &mut self.out,
                name,
                kind,
                interface.signature.clone(),
            );
            bodies.push((func, Some(interface), Body::Entry(i)));
        }
        for (func, interface, body) in bodies {
            let (function, function_info, display) = match body {
                Body::Entry(index) => {
                    let entry = &self.naga.entry_points[index];
                    (
                        &entry.function,
                        self.info.get_entry_point(index),
                        entry.name.clone(),
                    )
                }
                Body::Callable(handle) => {
                    let function = &self.naga.functions[handle];
                    let display = function
                        .name
                        .clone()
                        .unwrap_or_else(|| self.function_names[handle.index()].clone());
                    (function, &self.info[handle], display)
                }
            };
            FunctionLowerer::new(self, function, function_info, func, interface.as_ref())
                .lower_body()
                .map_err(|e| e.in_function(&display))?;
        }
        Ok(())
    }

    fn callable_signature(&mut self, function: &naga::Function) -> Result<Signature> {
        let mut signature = Signature::default();
        for argument in &function.arguments {
            let ty = self.lower_type(argument.ty)?;
            signature.params.push(AbiParam::new(ty));
        }
        if let Some(result) = &function.result {
            let ty = self.lower_type(result.ty)?;
            signature.returns.push(AbiParam::new(ty));
        }
        Ok(signature)
    }

    /// The oxir global of naga global `handle`, lowered on first use. (Globals the entry
    /// points use are lowered up front, in naga's order; a front-end may still reference
    /// others from dead code, which get lowered when that code is.)
    pub(crate) fn global(&mut self, handle: Handle<naga::GlobalVariable>) -> Result<Global> {
        if let Some(g) = self.globals[handle.index()] {
            return Ok(g);
        }
        let span = self.naga.global_variables.get_span(handle);
        let g = self
            .lower_global(handle, &self.naga.global_variables[handle])
            .map_err(|e| e.or_span(span))?;
        self.globals[handle.index()] = Some(g);
        Ok(g)
    }

    fn lower_global(
        &mut self,
        handle: Handle<naga::GlobalVariable>,
        global: &naga::GlobalVariable,
    ) -> Result<Global> {
        let span = self.naga.global_variables.get_span(handle);
        let space = address_space(global.space, span)?;
        let ty = self.lower_type(global.ty)?;
        if let Some(rules) = buffer_rules(global.space, self.out.layouts.uniform) {
            if let Err(difference) = self.check_buffer_layout(global.ty, ty, rules) {
                return Err(LowerError::unsupported(
                    format!("buffer layout that {rules} cannot express: {difference}"),
                    span,
                ));
            }
        }
        let needs_binding = matches!(
            space,
            AddressSpace::Storage(_) | AddressSpace::Uniform | AddressSpace::Handle
        );
        let binding = match (needs_binding, global.binding) {
            (true, Some(b)) => Some(ResourceBinding {
                group: b.group,
                binding: b.binding,
            }),
            (true, None) => {
                return Err(LowerError::unsupported("resource without a binding", span))
            }
            (false, _) => None,
        };
        let init = match space {
            AddressSpace::Private | AddressSpace::Workgroup => Some(match global.init {
                Some(init) => self.lower_global_expression(init)?,
                None => self.out.const_zero(ty),
            }),
            _ => None,
        };
        Ok(self.out.add_global(GlobalData {
            name: self.global_names[handle.index()].clone(),
            space,
            ty,
            init,
            binding,
        }))
    }
}
