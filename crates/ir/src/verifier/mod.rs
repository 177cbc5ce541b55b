//! The verifier: the IR's specification in code.
//!
//! It checks exactly the list "What a valid module is" of the crate docs ([`crate`]),
//! point by point, collects *every* error with its location (it never stops at the first),
//! and never panics — not on out-of-range indices, alias cycles, cyclic types, corrupted
//! layouts, blocks outside the layout, instructions placed in no block, nor results attached
//! to the wrong instruction. It is read-only: the module is taken by shared reference, and
//! the one mutable thing, a scratch copy of the type store that the type rules may intern
//! result types into (`bool` vectors, for example), is cloned once per call.
//!
//! # What is checked
//!
//! 1. **Entities exist** — every type, constant, global, function, block, instruction and
//!    value index held by the module (type elements, constant elements and types, global
//!    types and initializers, signatures, value types and definitions, operands, callees,
//!    edge targets, structural roles, layout entries) is in range of its arena
//!    ([`ErrorKind::InvalidEntity`]). Type reference cycles are [`ErrorKind::MalformedType`].
//! 2. **Types** ([`ErrorKind::MalformedType`]): scalars are one of [`Scalar::ALL`]; vectors
//!    have 2–4 lanes; matrices 2–4 columns and rows of floats; arrays have at least one
//!    element; array elements and struct members are sized data or resources; a runtime
//!    array appears only as the last member of a struct (or as a storage global's type);
//!    explicit struct offsets strictly increase; explicit alignments are powers of two;
//!    pointers do not point to `void`.
//! 3. **Constants** ([`ErrorKind::MalformedConstant`]): scalar constants have a scalar type
//!    and canonical bits ([`canonical_scalar_bits`]); composites have one element of the
//!    right type per vector lane, matrix column, array element or struct member; `zero`
//!    and `undef` only of sized, non-resource, non-opaque types.
//! 4. **Globals** ([`ErrorKind::MalformedGlobal`]): no `function` space; a sized type (a
//!    runtime-sized type only in `storage`); a binding exactly in `storage`, `uniform` and
//!    `handle`; an initializer only in `private` / `workgroup`, of the global's type;
//!    `handle` globals hold resources (or arrays of them, or opaque types) and only they do;
//!    every explicit array stride in a buffer global's type fits its element under the
//!    module's layout rules for that space (the layout engine's `BadExplicitStride`).
//!    Global and function names are unique together ([`ErrorKind::DuplicateName`]).
//! 5. **Functions** ([`ErrorKind::MalformedSignature`], [`ErrorKind::MalformedFunction`]):
//!    signature types exist and are value types; kernels have a non-zero workgroup size and
//!    return nothing; a workgroup size is at most [`MAX_WORKGROUP_SIZE`] per dimension and
//!    [`MAX_WORKGROUP_INVOCATIONS`] invocations in total ([`ErrorKind::WorkgroupSizeLimit`]:
//!    the limits of common GPUs, so an accepted kernel runs on them and the interpreter
//!    never holds more invocations than that per workgroup); entry-point parameters and results carry stage bindings and nothing
//!    else does; callables return at most one value; an external function has no blocks; a
//!    definition has an entry block whose parameters match the signature in count and type.
//!    No parameter or result value has type `void` or an unsized type
//!    ([`ErrorKind::InvalidValueType`]).
//! 6. **Blocks**: with `require_terminated_blocks` the last instruction is a terminator and
//!    empty blocks are errors ([`ErrorKind::MissingTerminator`]); a terminator anywhere but
//!    last is always an error ([`ErrorKind::MisplacedTerminator`]); the layout lists every
//!    block and instruction once, and each instruction's block is the block that lists it
//!    ([`ErrorKind::LayoutCorruption`]); results and parameters point back at their
//!    definition ([`ErrorKind::DefinitionMismatch`]).
//! 7. **Instructions**: the payload has the opcode's format ([`ErrorKind::WrongPayload`]);
//!    the operand count is accepted by the opcode's arity ([`ErrorKind::WrongArity`]); the
//!    type rule ([`typing::check_instruction`]) accepts the operands and its result type is
//!    the result value's type ([`ErrorKind::TypeMismatch`]); a result exists exactly when the
//!    rule yields one ([`ErrorKind::WrongResultCount`]); a `call` names an existing function
//!    that is not an entry point ([`ErrorKind::BadCallee`]) with one argument per parameter;
//!    `cond_br` / `if` conditions are `bool`; `switch` / `switch_br` selectors are integer
//!    or `bool` scalars; `return` passes one value per signature result, of its type.
//! 8. **SSA**: every operand and edge argument resolves through aliases
//!    ([`ErrorKind::AliasCycle`]) to a defined value ([`ErrorKind::UndefinedValue`]): the
//!    result of an instruction placed in this function, a parameter of a block in its
//!    layout, a constant (of the constant's type) or a global's address (of type
//!    `ptr<space, T>`). The definition dominates the use ([`ErrorKind::DominanceViolation`]):
//!    in the same block it comes earlier (parameters come first), otherwise its block
//!    dominates the use's block. An edge argument is used at the end of its source block.
//!    Uses in blocks unreachable from the entry are not checked for dominance.
//! 9. **Edges** target blocks in the layout ([`ErrorKind::BadEdge`]), never the entry block
//!    ([`ErrorKind::EntryBlockTargeted`]), and pass one argument of the parameter's type per
//!    target parameter ([`ErrorKind::EdgeArgumentMismatch`]).
//! 10. **Structured constructs** ([`ErrorKind::MalformedStructure`]): merge, body and update
//!     roles name blocks in the layout other than the entry; a `loop`'s prepare, body, update
//!     and merge blocks are pairwise distinct, as are a `simple_loop`'s body and merge.
//!     Switch labels are canonical for the selector's width
//!     ([`ErrorKind::NonCanonicalSwitchLabel`]) and distinct
//!     ([`ErrorKind::DuplicateSwitchLabel`]), for `switch_br` too. `break` targets the merge
//!     of some `loop`, `simple_loop` or `switch`, and `continue` the update block of some
//!     `loop` or the body of some `simple_loop` ([`ErrorKind::BreakOutsideConstruct`]).
//! 11. **Options** ([`VerifierOptions`]):
//!     - `require_reachable_blocks`: every layout block is reachable from the entry through
//!       executable edges; structural roles are not edges ([`ErrorKind::UnreachableBlock`]);
//!     - `require_no_block_params`: only the entry block has parameters
//!       ([`ErrorKind::BlockParamsNotAllowed`]);
//!     - `require_no_unstructured_control_flow`: no `cond_br` or `switch_br`
//!       ([`ErrorKind::UnstructuredControlFlow`]);
//!     - `require_unique_merge_blocks`: no block is the merge of two constructs
//!       ([`ErrorKind::DuplicateMerge`]);
//!     - `require_canonical_break_continue_targets`: a `break` targets the merge of the
//!       nearest enclosing `loop` / `simple_loop` / `switch`, a `continue` the update block of
//!       the nearest enclosing `loop` (`simple_loop`: its body); otherwise
//!       [`ErrorKind::NonCanonicalBreakContinue`], or [`ErrorKind::BreakOutsideConstruct`]
//!       when there is none. "Nearest enclosing" is read off the dominator tree: the
//!       nearest strict dominator whose terminator is such a construct and whose merge does
//!       not dominate the `break` (switches are skipped for `continue`). Breaks in
//!       unreachable blocks get the weaker check of point 10.
//! 12. **Specialization constants**: every `spec_constant` naming one id has the same
//!     default ([`ErrorKind::ConflictingSpecConstant`]; `specialization.rs`).
//!
//! # What is not checked (yet)
//!
//! - Sizes and layouts: explicit struct offsets are only checked to increase (that members
//!   fit is the layout engine's business, `data_layout`), and uniform / push-constant layout
//!   rules are not applied.
//! - Stage-specific rules: builtins valid for the stage and direction, duplicate locations,
//!   `discard` and derivatives only in fragment shaders, barriers only in compute.
//! - Duplicate resource bindings, duplicate struct member names, pointers to pointers.
//! - Whether structured constructs are *shaped* as the lowering contract describes (for
//!   example that a `loop`'s prepare block branches to its body and merge, or that the arms
//!   of an `if` reach its merge); only roles, distinctness and break/continue targets are.
//! - Recursion in the call graph.
//! - "Values from another function" as such: values live in per-function arenas, so an
//!   index always names a value of this function; what can be wrong is its definition (an
//!   instruction placed in no block of this layout, a block outside the layout), which is
//!   reported as [`ErrorKind::UndefinedValue`].
//!
//! # Cost
//!
//! Linear in the size of the module, up to the near-linear dominator computation
//! (Cooper–Harvey–Kennedy over reverse post-order, in `dominance.rs`) and sorting each switch's
//! labels. Position comparisons use a per-instruction sequence number computed in one pass
//! over the layout; dominance queries are O(1) with DFS numbers on the dominator tree.

mod function_body;
mod module_items;
mod specialization;
mod structure;
#[cfg(test)]
mod tests;

use crate::entities::{Block, Const, Func, Global, Inst, Type};
use crate::function::Function;
use crate::module::Module;
use crate::types::TypeStore;
use cranelift_entity::EntityRef;
use std::fmt;

#[cfg(doc)]
use crate::{constants::canonical_scalar_bits, types::Scalar, typing};

/// Rules that drivers turn on at pipeline boundaries, on top of the always-checked ones.
#[derive(Clone, Debug)]
pub struct VerifierOptions {
    /// Every block ends with a terminator; empty blocks are errors. On by default.
    pub require_terminated_blocks: bool,
    /// Every block in the layout is reachable from the entry through executable edges.
    pub require_reachable_blocks: bool,
    /// No block other than the entry has parameters.
    pub require_no_block_params: bool,
    /// No `cond_br` and no `switch_br`.
    pub require_no_unstructured_control_flow: bool,
    /// No block is the merge block of two structured constructs.
    pub require_unique_merge_blocks: bool,
    /// `break` / `continue` target the nearest enclosing construct's merge / update block.
    pub require_canonical_break_continue_targets: bool,
}

impl Default for VerifierOptions {
    fn default() -> Self {
        VerifierOptions {
            require_terminated_blocks: true,
            require_reachable_blocks: false,
            require_no_block_params: false,
            require_no_unstructured_control_flow: false,
            require_unique_merge_blocks: false,
            require_canonical_break_continue_targets: false,
        }
    }
}

impl VerifierOptions {
    /// The kebab-case names [`VerifierOptions::enable`] accepts, in field order.
    pub const OPTION_NAMES: [&'static str; 6] = [
        "terminated-blocks",
        "reachable-blocks",
        "no-block-params",
        "no-unstructured-control-flow",
        "unique-merge-blocks",
        "canonical-break-continue-targets",
    ];

    /// Turns on the option spelled `name` (one of [`VerifierOptions::OPTION_NAMES`]).
    pub fn enable(&mut self, name: &str) -> Result<(), String> {
        let flag = match name {
            "terminated-blocks" => &mut self.require_terminated_blocks,
            "reachable-blocks" => &mut self.require_reachable_blocks,
            "no-block-params" => &mut self.require_no_block_params,
            "no-unstructured-control-flow" => &mut self.require_no_unstructured_control_flow,
            "unique-merge-blocks" => &mut self.require_unique_merge_blocks,
            "canonical-break-continue-targets" => {
                &mut self.require_canonical_break_continue_targets
            }
            _ => {
                return Err(format!(
                    "unknown verifier option `{name}`; expected one of: {}",
                    Self::OPTION_NAMES.join(", ")
                ))
            }
        };
        *flag = true;
        Ok(())
    }

    /// Every option on.
    pub fn all() -> Self {
        VerifierOptions {
            require_terminated_blocks: true,
            require_reachable_blocks: true,
            require_no_block_params: true,
            require_no_unstructured_control_flow: true,
            require_unique_merge_blocks: true,
            require_canonical_break_continue_targets: true,
        }
    }
}

/// The largest workgroup size the verifier accepts per dimension (x, y, z): the
/// `maxComputeWorkGroupSize` of common desktop GPUs. A device may allow less; the Vulkan
/// runner checks the device's own limits.
pub const MAX_WORKGROUP_SIZE: [u32; 3] = [1024, 1024, 64];

/// The most invocations per workgroup (the product of the workgroup size) the verifier
/// accepts: the `maxComputeWorkGroupInvocations` of common desktop GPUs.
pub const MAX_WORKGROUP_INVOCATIONS: u64 = 1024;

/// The rule family an error breaks; the module docs map each check to its kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// An index does not name an element of its arena.
    InvalidEntity,
    /// A type breaks the type rules (point 2), or types refer to each other in a cycle.
    MalformedType,
    /// A constant does not fit its type (point 3).
    MalformedConstant,
    /// A global's space, type, binding or initializer breaks point 4.
    MalformedGlobal,
    /// Kernel workgroup size or results, stage bindings, callable results, signature types.
    MalformedSignature,
    /// External with a body, definition without an entry block, entry parameters that do
    /// not match the signature.
    MalformedFunction,
    /// A kernel's workgroup size exceeds [`MAX_WORKGROUP_SIZE`] in some dimension or
    /// [`MAX_WORKGROUP_INVOCATIONS`] in total.
    WorkgroupSizeLimit,
    /// Two globals or functions share a name.
    DuplicateName,
    /// A block or instruction listed twice, or an instruction whose layout block differs
    /// from the block that lists it.
    LayoutCorruption,
    /// A result or parameter whose value does not name it as its definition.
    DefinitionMismatch,
    /// With `require_terminated_blocks`: a block that is empty or does not end in a
    /// terminator.
    MissingTerminator,
    /// A terminator that is not the last instruction of its block.
    MisplacedTerminator,
    /// The payload's format is not the opcode's.
    WrongPayload,
    /// Operand count, call argument count or returned value count.
    WrongArity,
    /// A type rule, condition, selector, return value or constant/global value type.
    TypeMismatch,
    /// A result where the rule yields none, or none where it yields one.
    WrongResultCount,
    /// A value of type `void` or of an unsized type.
    InvalidValueType,
    /// A call to a function that does not exist or is an entry point.
    BadCallee,
    /// A use of a detached value, or of a result / parameter not placed in this function.
    UndefinedValue,
    /// A use whose alias chain loops.
    AliasCycle,
    /// A use not dominated by its value's definition.
    DominanceViolation,
    /// An edge to a block outside the layout.
    BadEdge,
    /// An edge passing the wrong number or types of arguments.
    EdgeArgumentMismatch,
    /// An edge to the entry block, which has no predecessors.
    EntryBlockTargeted,
    /// A structural role outside the layout or on the entry, or loop roles that coincide.
    MalformedStructure,
    /// With `require_unique_merge_blocks`: a block that is the merge of two constructs.
    DuplicateMerge,
    /// `break` / `continue` with no construct to leave or continue.
    BreakOutsideConstruct,
    /// `break` / `continue` not to the nearest enclosing construct.
    NonCanonicalBreakContinue,
    /// A switch label whose bits are not canonical for the selector's width.
    NonCanonicalSwitchLabel,
    /// Two cases of one switch with the same label.
    DuplicateSwitchLabel,
    /// With `require_reachable_blocks`: a layout block no executable path reaches.
    UnreachableBlock,
    /// With `require_no_block_params`: a block other than the entry with parameters.
    BlockParamsNotAllowed,
    /// With `require_no_unstructured_control_flow`: a `cond_br` or `switch_br`.
    UnstructuredControlFlow,
    /// Two `spec_constant`s with one specialization id and different defaults.
    ConflictingSpecConstant,
}

impl ErrorKind {
    /// A short, stable kebab-case name for the kind (`dominance-violation`), as written in
    /// the annotations of verifier error fixtures (`docs/text-format.md`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidEntity => "invalid-entity",
            ErrorKind::MalformedType => "malformed-type",
            ErrorKind::MalformedConstant => "malformed-constant",
            ErrorKind::MalformedGlobal => "malformed-global",
            ErrorKind::MalformedSignature => "malformed-signature",
            ErrorKind::MalformedFunction => "malformed-function",
            ErrorKind::WorkgroupSizeLimit => "workgroup-size-limit",
            ErrorKind::DuplicateName => "duplicate-name",
            ErrorKind::LayoutCorruption => "layout-corruption",
            ErrorKind::DefinitionMismatch => "definition-mismatch",
            ErrorKind::MissingTerminator => "missing-terminator",
            ErrorKind::MisplacedTerminator => "misplaced-terminator",
            ErrorKind::WrongPayload => "wrong-payload",
            ErrorKind::WrongArity => "wrong-arity",
            ErrorKind::TypeMismatch => "type-mismatch",
            ErrorKind::WrongResultCount => "wrong-result-count",
            ErrorKind::InvalidValueType => "invalid-value-type",
            ErrorKind::BadCallee => "bad-callee",
            ErrorKind::UndefinedValue => "undefined-value",
            ErrorKind::AliasCycle => "alias-cycle",
            ErrorKind::DominanceViolation => "dominance-violation",
            ErrorKind::BadEdge => "bad-edge",
            ErrorKind::EdgeArgumentMismatch => "edge-argument-mismatch",
            ErrorKind::EntryBlockTargeted => "entry-block-targeted",
            ErrorKind::MalformedStructure => "malformed-structure",
            ErrorKind::DuplicateMerge => "duplicate-merge",
            ErrorKind::BreakOutsideConstruct => "break-outside-construct",
            ErrorKind::NonCanonicalBreakContinue => "non-canonical-break-continue",
            ErrorKind::NonCanonicalSwitchLabel => "non-canonical-switch-label",
            ErrorKind::DuplicateSwitchLabel => "duplicate-switch-label",
            ErrorKind::UnreachableBlock => "unreachable-block",
            ErrorKind::BlockParamsNotAllowed => "block-params-not-allowed",
            ErrorKind::UnstructuredControlFlow => "unstructured-control-flow",
            ErrorKind::ConflictingSpecConstant => "conflicting-spec-constant",
        }
    }
}

/// Where an error is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// The module as a whole (for example a function index passed to
    /// [`verify_function`] that does not exist).
    Module,
    /// A type of the module's store.
    Type(Type),
    /// A constant of the module's store.
    Const(Const),
    /// A global.
    Global(Global),
    /// A function as a whole: its signature, kind or entry block.
    Function(Func),
    /// A block of a function.
    Block(Func, Block),
    /// An instruction, with the block that lists it.
    Inst(Func, Block, Inst),
}

/// One violated rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifierError {
    /// The rule family broken.
    pub kind: ErrorKind,
    /// The entity the error is about, by index.
    pub location: Location,
    /// The location spelled with names, e.g. `function @main, block3, inst7 (v5 = add v1,
    /// v2)`; filled in by the verifier, as the entity indices alone cannot name a function.
    pub context: String,
    /// What is wrong, in words, without the location.
    pub message: String,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.context, self.message)
    }
}

impl std::error::Error for VerifierError {}

/// Counts that let tests pin down the verifier's cost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifierStats {
    /// Functions checked, declarations included.
    pub functions: usize,
    /// Blocks in the layouts of the definitions checked.
    pub blocks: usize,
    /// Instructions placed in those blocks.
    pub insts: usize,
    /// Executable edges walked.
    pub edges: usize,
    /// Dominance queries answered while checking uses and break/continue targets.
    pub dominance_queries: u64,
}

/// Every error found, and the counts.
#[derive(Clone, Debug, Default)]
pub struct VerifierReport {
    /// Every violation found, in the order the checks ran (module items first, then
    /// functions in index order).
    pub errors: Vec<VerifierError>,
    /// How much work the verifier did.
    pub stats: VerifierStats,
}

impl VerifierReport {
    /// Whether the module (or function) is valid: no error was found.
    pub fn succeeded(&self) -> bool {
        self.errors.is_empty()
    }
}

impl fmt::Display for VerifierReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for error in &self.errors {
            writeln!(f, "{error}")?;
        }
        Ok(())
    }
}

/// Verifies the whole module: types, constants, globals, names and every function.
pub fn verify_module(module: &Module, options: &VerifierOptions) -> VerifierReport {
    let mut verifier = Verifier::new(module, options);
    verifier.check_module_items();
    for func in module.functions.keys() {
        verifier.check_function(func);
    }
    verifier.check_spec_constants();
    verifier.finish()
}

/// Verifies one function (its signature and body). Module-level items are not reported,
/// though the function's checks rely on them being sound: a function that uses a malformed
/// type is checked as far as that type allows.
pub fn verify_function(module: &Module, func: Func, options: &VerifierOptions) -> VerifierReport {
    let mut verifier = Verifier::new(module, options);
    if module.functions.get(func).is_some() {
        verifier.check_function(func);
    } else {
        verifier.report(
            ErrorKind::InvalidEntity,
            Location::Module,
            format!(
                "{func} does not exist; the module has {} functions",
                module.functions.len()
            ),
        );
    }
    verifier.finish()
}

/// State shared by all checks of one verifier call.
pub(crate) struct Verifier<'m> {
    pub(crate) module: &'m Module,
    pub(crate) options: &'m VerifierOptions,
    /// A copy of the module's types for the type rules to intern into. Existing types keep
    /// their indices, so result types compare by index.
    pub(crate) scratch_types: TypeStore,
    pub(crate) type_facts: module_items::TypeFacts,
    /// `ptr<space, T>` of each global, in the scratch store; `None` for malformed globals.
    pub(crate) global_pointer_types: Vec<Option<Type>>,
    pub(crate) errors: Vec<VerifierError>,
    pub(crate) stats: VerifierStats,
}

impl<'m> Verifier<'m> {
    fn new(module: &'m Module, options: &'m VerifierOptions) -> Self {
        let mut scratch_types = module.types.clone();
        let type_facts = module_items::TypeFacts::compute(&module.types);
        let global_pointer_types = module
            .globals
            .values()
            .map(|g| {
                type_facts
                    .is_sound(g.ty)
                    .then(|| scratch_types.pointer(g.space, g.ty))
            })
            .collect();
        Verifier {
            module,
            options,
            scratch_types,
            type_facts,
            global_pointer_types,
            errors: Vec::new(),
            stats: VerifierStats::default(),
        }
    }

    pub(crate) fn report(
        &mut self,
        kind: ErrorKind,
        location: Location,
        message: impl Into<String>,
    ) {
        self.errors.push(VerifierError {
            kind,
            location,
            context: String::new(),
            message: message.into(),
        });
    }

    fn finish(mut self) -> VerifierReport {
        let mut errors = std::mem::take(&mut self.errors);
        for error in &mut errors {
            error.context = self.describe_location(&error.location);
        }
        VerifierReport {
            errors,
            stats: self.stats,
        }
    }

    /// The text-form spelling of `ty`, or its index when it cannot be printed safely (a
    /// missing index or a cyclic type would make the printer fail or recurse forever).
    pub(crate) fn type_name(&self, ty: Type) -> String {
        let original = self.type_facts.len();
        let made_by_rules = ty.index() >= original && ty.index() < self.scratch_types.len();
        if made_by_rules || self.type_facts.is_sound(ty) {
            self.scratch_types.display(ty).to_string()
        } else {
            ty.to_string()
        }
    }

    pub(crate) fn function_name(&self, func: Func) -> String {
        match self.module.functions.get(func) {
            Some(f) => format!("@{}", f.name),
            None => func.to_string(),
        }
    }

    fn describe_location(&self, location: &Location) -> String {
        match *location {
            Location::Module => "module".to_string(),
            Location::Type(ty) => {
                if self.type_facts.is_sound(ty) {
                    format!("{ty} ({})", self.type_name(ty))
                } else {
                    ty.to_string()
                }
            }
            Location::Const(c) => format!("constant {c}"),
            Location::Global(g) => match self.module.globals.get(g) {
                Some(data) => format!("global @{}", data.name),
                None => g.to_string(),
            },
            Location::Function(func) => format!("function {}", self.function_name(func)),
            Location::Block(func, block) => {
                format!("function {}, {block}", self.function_name(func))
            }
            Location::Inst(func, block, inst) => {
                let described = self
                    .module
                    .functions
                    .get(func)
                    .map(|f| describe_inst(self.module, f, inst))
                    .unwrap_or_default();
                format!(
                    "function {}, {block}, {inst}{described}",
                    self.function_name(func)
                )
            }
        }
    }
}

/// ` (v5 = add v1, v2)`: a short, printer-independent spelling of an instruction for error
/// contexts. Empty when the instruction does not exist.
fn describe_inst(module: &Module, func: &Function, inst: Inst) -> String {
    if func.dfg.insts.get(inst).is_none() {
        return String::new();
    }
    format!(" ({})", crate::printer::print_inst(module, func, inst))
}
