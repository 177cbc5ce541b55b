//! One function's body: layout integrity and blocks (point 6), instructions (7), SSA
//! definitions and dominance (8) and edges (9). Structured constructs and the
//! break/continue rules (10, 11) are in [`super::structure`].
//!
//! The layout is walked once, numbering blocks densely in layout order ([`BlockNumber`], the
//! entry is [`BlockNumber::ENTRY`]) and giving every placed instruction its position in one
//! function-wide sequence ([`InstPosition`]), so "defined earlier in the same block" is a
//! comparison of two positions. Both numberings are typed indices: neither mixes with the
//! other, with a `Block`, or with a plain integer; "not in the layout" is an empty option.

use super::{ErrorKind, Location, Verifier};
use crate::constants::canonical_scalar_bits;
use crate::dfg::ValueDef;
use crate::dominance::{DominatorTree, Graph};
use crate::entities::{Block, Func, Inst, Type, Value};
use crate::function::{Function, Signature};
use crate::instructions::{BlockCall, InstData, Payload};
use crate::ops::TerminatorOp;
use crate::types::{Scalar, TypeData};
use crate::typing::{check_instruction, Operand};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, EntityRef, PrimaryMap, SecondaryMap};
use std::fmt;
use std::ops::Range;

/// A block's dense number in one function's layout order; the entry block is
/// [`BlockNumber::ENTRY`]. The nodes of the verifier's CFG and dominator tree.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(crate) struct BlockNumber(u32);
entity_impl!(BlockNumber);
crate::impl_graph_node!(BlockNumber);

impl BlockNumber {
    /// The entry block's number (the root of the CFG).
    pub(crate) const ENTRY: BlockNumber = BlockNumber(0);
}

/// A placed instruction's position in one function-wide layout order (the instructions of
/// block 0, then of block 1, ...).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
struct InstPosition(u32);
entity_impl!(InstPosition);

/// Where the layout placed an instruction.
#[derive(Copy, Clone)]
struct Placement {
    block: BlockNumber,
    position: InstPosition,
}

/// What the layout walk learns about one function; read by every later check.
pub(crate) struct BodyFacts {
    pub(crate) func: Func,
    /// Layout order: number -> block.
    pub(crate) blocks: PrimaryMap<BlockNumber, Block>,
    /// Block -> number, none when the block is not in the layout.
    numbers: SecondaryMap<Block, PackedOption<BlockNumber>>,
    /// The positions of each block's instructions: block `b` holds `order[block_insts[b]]`.
    block_insts: PrimaryMap<BlockNumber, Range<InstPosition>>,
    /// Every placed instruction, in layout order.
    order: PrimaryMap<InstPosition, Inst>,
    /// Instruction -> where it is placed, `None` when not placed in this layout.
    placements: SecondaryMap<Inst, Option<Placement>>,
    /// Number -> the block's terminator (the last instruction, when that is a terminator).
    pub(crate) terminators: PrimaryMap<BlockNumber, Option<Inst>>,
    pub(crate) dominators: DominatorTree<BlockNumber>,
}

impl BodyFacts {
    /// The number of `block`, `None` when it is not in the layout (or does not exist).
    pub(crate) fn number(&self, block: Block) -> Option<BlockNumber> {
        self.numbers.get(block).and_then(|n| n.expand())
    }

    /// The instructions of `block`, in layout order.
    fn insts(&self, block: BlockNumber) -> &[Inst] {
        let range = self.block_insts[block].clone();
        // The ranges are built by the same layout walk as `order`; an empty slice would
        // only hide a verifier bug, never a property of the input.
        self.order.get_range(range).unwrap_or(&[])
    }

    /// Where `inst` is placed in this layout, `None` when it is not (or does not exist).
    fn placement(&self, inst: Inst) -> Option<Placement> {
        self.placements.get(inst).copied().flatten()
    }
}

/// Where a value is used, for messages.
#[derive(Copy, Clone)]
enum UseSite {
    Operand(usize),
    EdgeArgument { target: Block, index: usize },
}

impl fmt::Display for UseSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UseSite::Operand(i) => write!(f, "operand {i}"),
            UseSite::EdgeArgument { target, index } => {
                write!(f, "argument {index} of the edge to {target}")
            }
        }
    }
}

/// Outcome of following a value's alias chain.
#[derive(Copy, Clone)]
enum Resolution {
    Value(Value),
    Cycle,
    Missing,
}

/// What the memo knows about one alias value.
#[derive(Copy, Clone, Default)]
enum AliasState {
    /// Not followed yet.
    #[default]
    Unknown,
    /// On the chain being followed now: meeting it again is a cycle.
    InProgress,
    /// Followed to the end.
    Known(Resolution),
}

/// Memo of alias resolution, allocated only when a function has aliases; makes resolution
/// linear even for long chains used many times.
#[derive(Default)]
struct AliasMemo {
    memo: SecondaryMap<Value, AliasState>,
    chain: Vec<Value>,
}

impl AliasMemo {
    fn resolve(&mut self, function: &Function, v: Value) -> Resolution {
        let values = &function.dfg.values;
        match values.get(v).map(|d| d.def) {
            None => return Resolution::Missing,
            Some(ValueDef::Alias(_)) => {}
            Some(_) => return Resolution::Value(v),
        }
        let mut current = v;
        let resolution = loop {
            let Some(data) = values.get(current) else {
                break Resolution::Missing;
            };
            match self.memo[current] {
                AliasState::Unknown => {}
                AliasState::InProgress => break Resolution::Cycle,
                AliasState::Known(known) => break known,
            }
            match data.def {
                ValueDef::Alias(target) => {
                    self.memo[current] = AliasState::InProgress;
                    self.chain.push(current);
                    current = target;
                }
                ValueDef::Result(_)
                | ValueDef::Param(..)
                | ValueDef::Const(_)
                | ValueDef::Global(_)
                | ValueDef::Detached => break Resolution::Value(current),
            }
        };
        for link in self.chain.drain(..) {
            self.memo[link] = AliasState::Known(resolution);
        }
        resolution
    }
}

/// Per-function state of the instruction checks.
struct BodyChecker<'f> {
    function: &'f Function,
    facts: &'f BodyFacts,
    aliases: AliasMemo,
    operands: Vec<Operand>,
}

impl<'m> Verifier<'m> {
    /// Points 5 (signature and entry block) through 11 for one function.
    pub(crate) fn check_function(&mut self, func: Func) {
        let module = self.module;
        let Some(function) = module.functions.get(func) else {
            return;
        };
        self.stats.functions += 1;
        self.check_signature(func);
        if !function.is_definition() {
            return;
        }
        let Some(facts) = self.walk_layout(func, function) else {
            return;
        };
        self.stats.blocks += facts.blocks.len();
        self.stats.insts += facts.order.len();
        self.check_entry_params(function, &facts);
        self.check_blocks(function, &facts);
        let mut checker = BodyChecker {
            function,
            facts: &facts,
            aliases: AliasMemo::default(),
            operands: Vec::new(),
        };
        for number in facts.blocks.keys() {
            for &inst in facts.insts(number) {
                self.check_inst(&mut checker, inst);
            }
        }
        self.check_structure(function, &facts);
        if self.options.require_no_unstructured_control_flow {
            self.check_no_unstructured_branches(func, function, &facts);
        }
        self.stats.dominance_queries += facts.dominators.query_count();
    }

    /// `require_no_unstructured_control_flow`: no `cond_br` or `switch_br`, except the
    /// `cond_br c, body, merge` that ends a loop's prepare block by the lowering contract.
    fn check_no_unstructured_branches(
        &mut self,
        func: Func,
        function: &Function,
        facts: &BodyFacts,
    ) {
        let dfg = &function.dfg;
        let last_insts: Vec<(Block, Inst)> = facts
            .blocks
            .iter()
            .filter_map(|(number, &block)| facts.insts(number).last().map(|&inst| (block, inst)))
            .collect();
        // Prepare block -> (body, merge) of the loop that enters it.
        let mut loop_exits: SecondaryMap<Block, Option<(Block, Block)>> = SecondaryMap::new();
        for &(_, term) in &last_insts {
            if let Some(Payload::Loop {
                prepare,
                body,
                merge,
                ..
            }) = dfg.insts.get(term).map(|d| &d.payload)
            {
                if dfg.block_is_valid(prepare.block) {
                    loop_exits[prepare.block] = Some((*body, *merge));
                }
            }
        }
        for &(block, term) in &last_insts {
            let Some(data) = dfg.insts.get(term) else {
                continue;
            };
            if !data.opcode.is_unstructured_branch() {
                continue;
            }
            if let (
                Payload::CondBranch {
                    then_dest,
                    else_dest,
                },
                Some((body, merge)),
            ) = (&data.payload, loop_exits.get(block).copied().flatten())
            {
                if then_dest.block == body && else_dest.block == merge {
                    continue;
                }
            }
            let message = format!("`{}` is unstructured control flow", data.opcode);
            self.report(
                ErrorKind::UnstructuredControlFlow,
                Location::Inst(func, block, term),
                message,
            );
        }
    }

    /// Walks the layout once, numbering blocks and instructions and checking that each is
    /// listed once and in the block it claims. Builds the CFG and its dominator tree.
    /// `None` when the function has no entry block.
    fn walk_layout(&mut self, func: Func, function: &Function) -> Option<BodyFacts> {
        let (dfg, layout) = (&function.dfg, &function.layout);
        let mut facts = BodyFacts {
            func,
            blocks: PrimaryMap::new(),
            numbers: SecondaryMap::with_capacity(dfg.blocks.len()),
            block_insts: PrimaryMap::new(),
            order: PrimaryMap::new(),
            placements: SecondaryMap::with_capacity(dfg.insts.len()),
            terminators: PrimaryMap::new(),
            dominators: DominatorTree::compute(&Graph::from_edges(0, &[])),
        };
        let mut cursor = layout.entry_block();
        while let Some(block) = cursor {
            if !dfg.blocks.is_valid(block) {
                self.report(
                    ErrorKind::InvalidEntity,
                    Location::Function(func),
                    format!("the layout lists {block}, which does not exist"),
                );
                break;
            }
            if facts.number(block).is_some() {
                self.report(
                    ErrorKind::LayoutCorruption,
                    Location::Block(func, block),
                    "the layout lists this block twice",
                );
                break;
            }
            let number = facts.blocks.push(block);
            facts.numbers[block] = number.into();
            let start = facts.order.next_key();
            self.walk_block_insts(&mut facts, function, number);
            facts.block_insts.push(start..facts.order.next_key());
            cursor = layout.next_block(block);
        }
        if facts.blocks.is_empty() {
            self.report(
                ErrorKind::MalformedFunction,
                Location::Function(func),
                "a function definition needs an entry block",
            );
            return None;
        }
        let edges = self.collect_edges(&mut facts, function);
        facts.dominators = DominatorTree::compute(&Graph::from_edges(facts.blocks.len(), &edges));
        Some(facts)
    }

    /// Numbers the instructions the layout lists in block `number`, checking that each
    /// exists, is listed once, and claims this block.
    fn walk_block_insts(
        &mut self,
        facts: &mut BodyFacts,
        function: &Function,
        number: BlockNumber,
    ) {
        let (dfg, layout) = (&function.dfg, &function.layout);
        let (func, block) = (facts.func, facts.blocks[number]);
        let mut inst_cursor = layout.first_inst(block);
        while let Some(inst) = inst_cursor {
            let location = Location::Inst(func, block, inst);
            if !dfg.insts.is_valid(inst) {
                self.report(
                    ErrorKind::InvalidEntity,
                    Location::Block(func, block),
                    format!("the layout lists {inst}, which does not exist"),
                );
                break;
            }
            if facts.placement(inst).is_some() {
                self.report(
                    ErrorKind::LayoutCorruption,
                    location,
                    "the layout lists this instruction twice",
                );
                break;
            }
            let position = facts.order.push(inst);
            facts.placements[inst] = Some(Placement {
                block: number,
                position,
            });
            if layout.inst_block(inst) != Some(block) {
                let claimed = layout
                    .inst_block(inst)
                    .map_or("no block".to_string(), |b| b.to_string());
                self.report(
                    ErrorKind::LayoutCorruption,
                    location,
                    format!("listed in {block}, but its layout block is {claimed}"),
                );
            }
            inst_cursor = layout.next_inst(inst);
        }
    }

    /// Records every block's terminator and returns the CFG's edges between blocks in the
    /// layout, in block order and, within a block, in the terminator's edge order.
    fn collect_edges(
        &mut self,
        facts: &mut BodyFacts,
        function: &Function,
    ) -> Vec<(BlockNumber, BlockNumber)> {
        let dfg = &function.dfg;
        let mut edges = Vec::new();
        for number in facts.blocks.keys() {
            let terminator = facts
                .insts(number)
                .last()
                .copied()
                .filter(|&i| dfg.insts[i].opcode.is_terminator());
            facts.terminators.push(terminator);
            let Some(terminator) = terminator else {
                continue;
            };
            for edge in dfg.insts[terminator].payload.edges() {
                self.stats.edges += 1;
                if let Some(target) = facts.number(edge.block) {
                    edges.push((number, target));
                }
            }
        }
        edges
    }

    /// The entry block's parameters are the signature's parameters.
    fn check_entry_params(&mut self, function: &Function, facts: &BodyFacts) {
        let entry = facts.blocks[BlockNumber::ENTRY];
        let location = Location::Block(facts.func, entry);
        let params = &function.dfg.blocks[entry].params;
        let expected = &function.signature.params;
        if params.len() != expected.len() {
            let message = format!(
                "the entry block has {} parameters, the signature {}",
                params.len(),
                expected.len()
            );
            self.report(ErrorKind::MalformedFunction, location, message);
            return;
        }
        for (i, (&param, abi)) in params.iter().zip(expected).enumerate() {
            let Some(data) = function.dfg.values.get(param) else {
                continue;
            };
            if data.ty != abi.ty {
                let (found, wanted) = (self.type_name(data.ty), self.type_name(abi.ty));
                let message = format!(
                    "entry parameter {i} ({param}) has type {found}, the signature says {wanted}"
                );
                self.report(ErrorKind::MalformedFunction, location.clone(), message);
            }
        }
    }

    /// Point 6 and the block options: terminators, parameters, reachability.
    fn check_blocks(&mut self, function: &Function, facts: &BodyFacts) {
        let dfg = &function.dfg;
        for (number, &block) in facts.blocks.iter() {
            let location = Location::Block(facts.func, block);
            let params = &dfg.blocks[block].params;
            if self.options.require_no_block_params
                && number != BlockNumber::ENTRY
                && !params.is_empty()
            {
                let message = format!(
                    "only the entry block may have parameters; this one has {}",
                    params.len()
                );
                self.report(ErrorKind::BlockParamsNotAllowed, location.clone(), message);
            }
            for (index, &param) in params.iter().enumerate() {
                let Some(data) = dfg.values.get(param) else {
                    self.report(
                        ErrorKind::InvalidEntity,
                        location.clone(),
                        format!("parameter {index} is {param}, which does not exist"),
                    );
                    continue;
                };
                if data.def != ValueDef::Param(block, index as u32) {
                    let message = format!(
                        "parameter {index} is {param}, whose definition is {:?}",
                        data.def
                    );
                    self.report(ErrorKind::DefinitionMismatch, location.clone(), message);
                }
                self.check_value_type(location.clone(), param, data.ty);
            }
            let insts = facts.insts(number);
            for (i, &inst) in insts.iter().enumerate() {
                if i + 1 != insts.len() && dfg.insts[inst].opcode.is_terminator() {
                    let message = format!(
                        "terminator `{}` is not the last instruction of its block",
                        dfg.insts[inst].opcode
                    );
                    self.report(
                        ErrorKind::MisplacedTerminator,
                        Location::Inst(facts.func, block, inst),
                        message,
                    );
                }
            }
            if self.options.require_terminated_blocks && facts.terminators[number].is_none() {
                let message = match insts.last() {
                    None => "the block is empty; it needs a terminator".to_string(),
                    Some(&last) => format!(
                        "the block ends with `{}`, which is not a terminator",
                        dfg.insts[last].opcode
                    ),
                };
                self.report(ErrorKind::MissingTerminator, location.clone(), message);
            }
            if self.options.require_reachable_blocks && !facts.dominators.is_reachable(number) {
                self.report(
                    ErrorKind::UnreachableBlock,
                    location,
                    "the block is not reachable from the entry",
                );
            }
        }
    }

    /// A result or parameter value's type exists and may be a value.
    fn check_value_type(&mut self, location: Location, value: Value, ty: Type) {
        if self.module.types.try_get(ty).is_none() {
            self.report(
                ErrorKind::InvalidEntity,
                location,
                format!("{value} has type {ty}, which does not exist"),
            );
        } else if let Some(problem) = self.type_facts.value_type_problem(ty) {
            if self.type_facts.is_sound(ty) {
                self.report(
                    ErrorKind::InvalidValueType,
                    location,
                    format!("{value} has {problem}"),
                );
            }
        }
    }

    /// Point 7 for one instruction, with the SSA checks of its operands and edges.
    /// `inst` is placed in the layout.
    fn check_inst(&mut self, checker: &mut BodyChecker<'_>, inst: Inst) {
        let (function, facts) = (checker.function, checker.facts);
        let dfg = &function.dfg;
        let data = &dfg.insts[inst];
        // Only placed instructions are checked (the caller walks the layout).
        let Some(placement) = facts.placement(inst) else {
            return;
        };
        let block = facts.blocks[placement.block];
        let location = Location::Inst(facts.func, block, inst);
        let opcode = data.opcode;
        let info = opcode.info();

        let payload_ok = data.payload.format() == info.format;
        if !payload_ok {
            let message = format!(
                "`{opcode}` takes a {:?} payload, found {:?}",
                info.format,
                data.payload.format()
            );
            self.report(ErrorKind::WrongPayload, location.clone(), message);
        }
        let arity_ok = info.arity.accepts(data.args.len());
        if !arity_ok {
            let message = format!(
                "`{opcode}` takes {} operands, found {}",
                info.arity,
                data.args.len()
            );
            self.report(ErrorKind::WrongArity, location.clone(), message);
        }

        // The result: defined by this instruction, of a value type.
        let result = dfg.inst_result(inst);
        let mut result_type_ok = true;
        if let Some(result) = result {
            match dfg.values.get(result) {
                None => {
                    self.report(
                        ErrorKind::InvalidEntity,
                        location.clone(),
                        format!("the result {result} does not exist"),
                    );
                    result_type_ok = false;
                }
                Some(value) => {
                    if value.def != ValueDef::Result(inst) {
                        let message = format!(
                            "the result {result} has definition {:?}, not this instruction",
                            value.def
                        );
                        self.report(ErrorKind::DefinitionMismatch, location.clone(), message);
                    }
                    self.check_value_type(location.clone(), result, value.ty);
                    result_type_ok = self.type_facts.value_type_problem(value.ty).is_none();
                }
            }
        }

        // Operands and edge arguments: defined and dominating.
        checker.operands.clear();
        let mut operands_ok = true;
        for (index, &arg) in data.args.iter().enumerate() {
            match self.check_use(checker, &location, arg, placement, UseSite::Operand(index)) {
                Some(resolved) => {
                    let ty = dfg.values[resolved].ty;
                    let constant = self.integer_constant(function, resolved);
                    let is_constant = matches!(dfg.values[resolved].def, ValueDef::Const(_));
                    checker.operands.push(Operand {
                        ty,
                        constant,
                        is_constant,
                    });
                }
                None => operands_ok = false,
            }
        }
        for edge in data.payload.edges() {
            self.check_edge(checker, &location, edge, placement);
        }

        // The callee of a call.
        let mut callee_signature: Option<&'m Signature> = None;
        let mut callee_ok = true;
        if let Payload::Callee(callee) = data.payload {
            callee_ok = false;
            match self.module.functions.get(callee) {
                None => self.report(
                    ErrorKind::BadCallee,
                    location.clone(),
                    format!("the callee {callee} does not exist"),
                ),
                Some(target) if target.kind.is_entry_point() => {
                    let message = format!(
                        "@{} is an entry point ({}) and cannot be called",
                        target.name,
                        target.kind.keyword()
                    );
                    self.report(ErrorKind::BadCallee, location.clone(), message);
                }
                Some(target) => {
                    let signature = &target.signature;
                    if signature.params.len() != data.args.len() {
                        let message = format!(
                            "`call` passes {} arguments, @{} takes {}",
                            data.args.len(),
                            target.name,
                            signature.params.len()
                        );
                        self.report(ErrorKind::WrongArity, location.clone(), message);
                    } else {
                        let all_sound = signature
                            .params
                            .iter()
                            .chain(&signature.returns)
                            .all(|p| self.type_facts.is_sound(p.ty));
                        callee_ok = all_sound;
                    }
                    callee_signature = Some(signature);
                }
            }
        }

        if payload_ok && arity_ok && operands_ok && result_type_ok && callee_ok {
            let declared = result.map(|r| dfg.values[r].ty);
            self.check_type_rule(
                &location,
                data,
                &checker.operands,
                declared,
                callee_signature,
                result,
            );
        }
        if opcode.is_terminator() && payload_ok && arity_ok {
            let operand_types = operands_ok.then_some(&checker.operands[..]);
            self.check_terminator(function, &location, data, operand_types);
        }
    }

    /// The op's type rule, and that a result exists exactly when the rule yields one.
    fn check_type_rule(
        &mut self,
        location: &Location,
        data: &InstData,
        operands: &[Operand],
        declared: Option<Type>,
        callee: Option<&Signature>,
        result: Option<Value>,
    ) {
        let opcode = data.opcode;
        match check_instruction(&mut self.scratch_types, data, operands, declared, callee) {
            Err(message) => self.report(ErrorKind::TypeMismatch, location.clone(), message),
            Ok(Some(inferred)) => match (result, declared) {
                (Some(result), Some(declared)) if declared != inferred => {
                    let (found, wanted) = (self.type_name(declared), self.type_name(inferred));
                    let message = format!(
                        "the result {result} has type {found}, but `{opcode}` produces {wanted}"
                    );
                    self.report(ErrorKind::TypeMismatch, location.clone(), message);
                }
                (None, _) => {
                    let wanted = self.type_name(inferred);
                    let message =
                        format!("`{opcode}` produces a value of type {wanted} but has no result");
                    self.report(ErrorKind::WrongResultCount, location.clone(), message);
                }
                _ => {}
            },
            Ok(None) => {
                if let Some(result) = result {
                    let message =
                        format!("`{opcode}` produces no value but has the result {result}");
                    self.report(ErrorKind::WrongResultCount, location.clone(), message);
                }
            }
        }
    }

    /// The integer value of a scalar integer constant operand (canonical bits), for the
    /// type rules that need literal indices (struct member access).
    fn integer_constant(&self, function: &Function, value: Value) -> Option<u64> {
        let ValueDef::Const(c) = function.dfg.values.get(value)?.def else {
            return None;
        };
        let (scalar, bits) = self.module.const_scalar_value(c)?;
        scalar.is_integer().then_some(bits)
    }

    /// Point 8 for one use: the value resolves to a definition in this function that
    /// dominates the use. Returns the resolved value when its type can be used by the type
    /// rules.
    fn check_use(
        &mut self,
        checker: &mut BodyChecker<'_>,
        location: &Location,
        value: Value,
        use_site: Placement,
        site: UseSite,
    ) -> Option<Value> {
        let (function, facts) = (checker.function, checker.facts);
        let dfg = &function.dfg;
        let resolved = match checker.aliases.resolve(function, value) {
            Resolution::Value(resolved) => resolved,
            Resolution::Cycle => {
                let message = format!("{site} {value} is an alias on a cycle of aliases");
                self.report(ErrorKind::AliasCycle, location.clone(), message);
                return None;
            }
            Resolution::Missing => {
                let message = if dfg.values.get(value).is_none() {
                    format!("{site} {value} does not exist")
                } else {
                    format!("{site} {value} is an alias of a value that does not exist")
                };
                self.report(ErrorKind::InvalidEntity, location.clone(), message);
                return None;
            }
        };
        // Formatted only into an error message (this runs for every use).
        let named = NamedValue { value, resolved };
        let data = &dfg.values[resolved];
        // Where the definition is: its block, and its position there (`None` for block
        // parameters, defined before every instruction). `None` for constants and globals.
        let definition: Option<(BlockNumber, Option<InstPosition>)> = match data.def {
            ValueDef::Result(def_inst) => {
                let Some(placement) = facts.placement(def_inst) else {
                    let message = format!("{site} {named} is the result of {def_inst}, which is not placed in this function");
                    self.report(ErrorKind::UndefinedValue, location.clone(), message);
                    return None;
                };
                if dfg.inst_result(def_inst) != Some(resolved) {
                    let message = format!("{site} {named} names {def_inst} as its definition, but {def_inst} does not define it");
                    self.report(ErrorKind::UndefinedValue, location.clone(), message);
                    return None;
                }
                Some((placement.block, Some(placement.position)))
            }
            ValueDef::Param(block, index) => {
                let Some(number) = facts.number(block) else {
                    let message = format!(
                        "{site} {named} is a parameter of {block}, which is not in the layout"
                    );
                    self.report(ErrorKind::UndefinedValue, location.clone(), message);
                    return None;
                };
                if dfg.blocks[block].params.get(index as usize) != Some(&resolved) {
                    let message = format!(
                        "{site} {named} claims to be parameter {index} of {block}, but is not"
                    );
                    self.report(ErrorKind::UndefinedValue, location.clone(), message);
                    return None;
                }
                Some((number, None))
            }
            ValueDef::Const(c) => {
                match self.module.consts.try_get(c) {
                    None => {
                        self.report(
                            ErrorKind::InvalidEntity,
                            location.clone(),
                            format!("{site} {named} refers to {c}, which does not exist"),
                        );
                        return None;
                    }
                    Some(constant) if constant.ty != data.ty => {
                        let (found, wanted) =
                            (self.type_name(data.ty), self.type_name(constant.ty));
                        let message = format!(
                            "{site} {named} has type {found}, but constant {c} is {wanted}"
                        );
                        self.report(ErrorKind::TypeMismatch, location.clone(), message);
                        return None;
                    }
                    Some(_) => {}
                }
                None
            }
            ValueDef::Global(g) => {
                match self.global_pointer_types.get(g.index()) {
                    None => {
                        self.report(
                            ErrorKind::InvalidEntity,
                            location.clone(),
                            format!("{site} {named} refers to {g}, which does not exist"),
                        );
                        return None;
                    }
                    Some(&Some(pointer)) if pointer != data.ty => {
                        let (found, wanted) = (self.type_name(data.ty), self.type_name(pointer));
                        let message = format!(
                            "{site} {named} has type {found}, but the address of {g} is {wanted}"
                        );
                        self.report(ErrorKind::TypeMismatch, location.clone(), message);
                        return None;
                    }
                    Some(&Some(_)) => {}
                    Some(None) => return None, // the global's type is malformed; reported there
                }
                None
            }
            ValueDef::Detached => {
                let message = format!("{site} {named} is detached: it has no definition");
                self.report(ErrorKind::UndefinedValue, location.clone(), message);
                return None;
            }
            ValueDef::Alias(_) => return None, // resolution never stops at an alias
        };
        if let Some((def_block, def_position)) = definition {
            let dominators = &facts.dominators;
            let use_block = use_site.block;
            if dominators.is_reachable(use_block) {
                let dominates = if def_block == use_block {
                    def_position.is_none_or(|p| p < use_site.position)
                } else {
                    dominators.dominates(def_block, use_block)
                };
                if !dominates {
                    let def_block_name = facts.blocks[def_block];
                    let message = if def_block == use_block {
                        format!("{site} {named} is used before its definition in this block")
                    } else {
                        format!("{site} {named} is defined in {def_block_name}, which does not dominate this use")
                    };
                    self.report(ErrorKind::DominanceViolation, location.clone(), message);
                }
            }
        }
        self.type_facts.is_sound(data.ty).then_some(resolved)
    }

    /// Point 9 for one executable edge; its arguments are used at `terminator`, the end of
    /// its source block.
    fn check_edge(
        &mut self,
        checker: &mut BodyChecker<'_>,
        location: &Location,
        edge: &BlockCall,
        terminator: Placement,
    ) {
        let (function, facts) = (checker.function, checker.facts);
        let target = edge.block;
        let target_number = facts.number(target);
        if target_number.is_none() {
            let message = if function.dfg.blocks.get(target).is_none() {
                format!("edge to {target}, which does not exist")
            } else {
                format!("edge to {target}, which is not in the layout")
            };
            self.report(ErrorKind::BadEdge, location.clone(), message);
        } else if target_number == Some(BlockNumber::ENTRY) {
            self.report(
                ErrorKind::EntryBlockTargeted,
                location.clone(),
                format!("edge to the entry block {target}"),
            );
        }
        let params: &[Value] = function.dfg.blocks.get(target).map_or(&[], |b| &b.params);
        if target_number.is_some() && params.len() != edge.args.len() {
            let message = format!(
                "edge to {target} passes {} arguments, {target} takes {}",
                edge.args.len(),
                params.len()
            );
            self.report(ErrorKind::EdgeArgumentMismatch, location.clone(), message);
        }
        for (index, &arg) in edge.args.iter().enumerate() {
            let site = UseSite::EdgeArgument { target, index };
            let Some(resolved) = self.check_use(checker, location, arg, terminator, site) else {
                continue;
            };
            let param_type = params
                .get(index)
                .and_then(|&p| function.dfg.values.get(p))
                .map(|p| p.ty);
            let arg_type = function.dfg.values[resolved].ty;
            if let Some(param_type) = param_type.filter(|&t| t != arg_type) {
                let (found, wanted) = (self.type_name(arg_type), self.type_name(param_type));
                let message = format!("{site} has type {found}, the parameter is {wanted}");
                self.report(ErrorKind::EdgeArgumentMismatch, location.clone(), message);
            }
        }
    }

    /// Terminator rules of point 7 and the switch labels of point 10. `operands` are the
    /// operand types when every operand resolved.
    fn check_terminator(
        &mut self,
        function: &Function,
        location: &Location,
        data: &InstData,
        operands: Option<&[Operand]>,
    ) {
        let opcode = data.opcode;
        let first_operand = operands.and_then(|o| o.first()).map(|o| o.ty);
        // The scalar of the first operand's type: `Some(None)` for a non-scalar type.
        let first_scalar =
            first_operand.map(|ty| self.scratch_types.try_get(ty).and_then(TypeData::as_scalar));
        // Only terminators get here; the others have nothing beyond their edges to check.
        match opcode.terminator_op() {
            Some(TerminatorOp::CondBr | TerminatorOp::If) => {
                if let (Some(ty), Some(scalar)) = (first_operand, first_scalar) {
                    if scalar != Some(Scalar::BOOL) {
                        let message = format!(
                            "the condition of `{opcode}` must be bool, found {}",
                            self.type_name(ty)
                        );
                        self.report(ErrorKind::TypeMismatch, location.clone(), message);
                    }
                }
            }
            Some(TerminatorOp::SwitchBr | TerminatorOp::Switch) => {
                let selector = match (first_operand, first_scalar) {
                    (_, Some(Some(s))) if s.is_integer() || s.is_bool() => Some(s),
                    (Some(ty), Some(_)) => {
                        let message = format!(
                            "the selector of `{opcode}` must be an integer or bool scalar, found {}",
                            self.type_name(ty)
                        );
                        self.report(ErrorKind::TypeMismatch, location.clone(), message);
                        None
                    }
                    _ => None,
                };
                let table = match &data.payload {
                    Payload::SwitchBranch(table) | Payload::Switch { table, .. } => table,
                    _ => return,
                };
                self.check_switch_labels(
                    location,
                    table.cases.iter().map(|(label, _)| *label),
                    selector,
                );
            }
            Some(TerminatorOp::Return) => {
                let returns = &function.signature.returns;
                if data.args.len() != returns.len() {
                    let message = format!(
                        "`return` passes {} values, the function returns {}",
                        data.args.len(),
                        returns.len()
                    );
                    self.report(ErrorKind::WrongArity, location.clone(), message);
                } else if let Some(operands) = operands {
                    for (i, (operand, abi)) in operands.iter().zip(returns).enumerate() {
                        if operand.ty != abi.ty {
                            let (found, wanted) =
                                (self.type_name(operand.ty), self.type_name(abi.ty));
                            let message = format!(
                                "`return` value {i} has type {found}, the signature says {wanted}"
                            );
                            self.report(ErrorKind::TypeMismatch, location.clone(), message);
                        }
                    }
                }
            }
            Some(
                TerminatorOp::Br
                | TerminatorOp::Unreachable
                | TerminatorOp::Discard
                | TerminatorOp::Loop
                | TerminatorOp::SimpleLoop
                | TerminatorOp::Break
                | TerminatorOp::Continue,
            )
            | None => {}
        }
    }

    /// Labels are canonical for the selector's width (when known) and distinct.
    fn check_switch_labels(
        &mut self,
        location: &Location,
        labels: impl Iterator<Item = u64>,
        selector: Option<Scalar>,
    ) {
        let mut sorted: Vec<u64> = Vec::new();
        for label in labels {
            if let Some(selector) = selector {
                if canonical_scalar_bits(selector, label) != label {
                    let message = format!(
                        "case label {label:#x} is not canonical for {}",
                        selector.name()
                    );
                    self.report(
                        ErrorKind::NonCanonicalSwitchLabel,
                        location.clone(),
                        message,
                    );
                }
            }
            sorted.push(label);
        }
        sorted.sort_unstable();
        let mut last_reported = None;
        for pair in sorted.windows(2) {
            if pair[0] == pair[1] && last_reported != Some(pair[0]) {
                last_reported = Some(pair[0]);
                let message = format!("case label {:#x} appears more than once", pair[0]);
                self.report(ErrorKind::DuplicateSwitchLabel, location.clone(), message);
            }
        }
    }
}

/// How a message names a used value: itself, or the alias and what it resolves to.
struct NamedValue {
    value: Value,
    resolved: Value,
}

impl std::fmt::Display for NamedValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.resolved == self.value {
            write!(f, "{}", self.value)
        } else {
            write!(f, "{} (alias of {})", self.value, self.resolved)
        }
    }
}
