//! naga statements to structured oxir control flow and side effects.
//!
//! The lowering contract (`docs/ir.md`, "executable edges and structural roles") is kept
//! exactly, and so are the verifier's `require_unique_merge_blocks` and
//! `require_canonical_break_continue_targets`: every construct gets fresh blocks, and
//! `break` / `continue` always target the innermost enclosing construct.
//!
//! | naga | oxir |
//! |---|---|
//! | `Emit(range)` | evaluates the range now ([`crate::function`]) |
//! | `Block` | its statements, inline |
//! | `If` | `if c, then T, else E, merge M`; arms that fall off their end `br M`; when neither does, `merge none` and the rest of the naga block is unreachable |
//! | `Loop { body, continuing, break_if }` | `loop prepare P, body B, update U, merge M` (below) |
//! | `Switch` | `switch s, [labels: cases], default D, merge M` (below) |
//! | `Break` / `Continue` | `break` to the innermost loop or switch merge / `continue` to the innermost loop's update block |
//! | `Return` | `return` (entry points: one value per flattened result member) |
//! | `Kill` | `discard` |
//! | `ControlBarrier` | `workgroup_barrier` (workgroup memory or no memory flags) and/or `storage_barrier` (storage buffers and textures); a subgroup-only barrier is refused |
//! | `MemoryBarrier` | dropped when the next statement is a `ControlBarrier` covering its flags (GLSL's `memoryBarrierShared(); barrier();`); refused otherwise, since oxir has no memory-only barrier |
//! | `Store` | `store`, or `atomic_store` through a pointer to an atomic |
//! | `ImageStore` | `texture_store` |
//! | `Atomic` | `atomic_*`; compare-exchange builds naga's `{old_value, exchanged}` result from the old value (`atomic_compare_exchange`) and `eq old, expected` |
//! | `WorkGroupUniformLoad` | `workgroup_uniform_load` |
//! | `Call` | `call` |
//! | `SubgroupBallot`, `SubgroupGather`, `SubgroupCollectiveOperation` | subgroup ops ([`crate::subgroups`]; quad operations refused) |
//! | ray queries, ray-tracing pipeline functions, texture atomics, cooperative stores | refused |
//!
//! **Loops.** A naga loop is unconditional, and the contract's `loop` wants a prepare
//! block that decides whether to run the body. The mapping:
//!
//! ```text
//! loop prepare P, body B, update U, merge M      (the block before the loop)
//! P:  cond_br c, B, M                            c = true, or P's parameter (break_if)
//! B:  <body>; br U                               naga `continue` -> continue U,
//!                                                naga `break` -> break M
//! U:  <continuing>; br P                         with break_if: br P(not break_if)
//! ```
//!
//! Without `break_if`, `c` is the constant `true`. With it, `P` gets one `bool`
//! parameter, `true` on entry (the `loop` edge's argument) and `not break_if` on the back
//! edge, so the exit test stays in the prepare block where the contract puts it and no
//! unstructured branch is needed. `M` is always reachable through `P`'s false edge, even
//! for loops that only leave by `return`. A body value the `continuing` block reads is
//! spilled to a local slot when a `continue` may skip its definition ([`crate::loops`]).
//!
//! **Switches.** Each naga case gets a block, except an empty case that falls through,
//! whose labels go to the block of the next case (`case 1, 2:` in WGSL). A non-empty case
//! that falls through (GLSL, SPIR-V) is lowered with the bodies of the following cases
//! appended, up to and including the first that does not fall through; the `Emit`s in the
//! copies evaluate afresh, so each copy uses its own values. Cases end in `br M`; when no
//! case reaches `M` it holds `unreachable`.

use crate::error::{LowerError, Result};
use crate::function::{Construct, FunctionLowerer};
use crate::loops::{continues_loop, continuing_uses};
use naga::{AtomicFunction, Barrier, Block as NagaBlock, Handle, Statement, SwitchValue};
use oxir_ir::constants::canonical_scalar_bits;
use oxir_ir::{Block, BlockCall, Opcode, Payload, SwitchTable, TypeData, Value};
use std::collections::HashSet;

impl<'n> FunctionLowerer<'_, 'n> {
    /// Lowers the statements of `block` in order, stopping once control cannot continue.
    pub(crate) fn lower_block(&mut self, block: &'n NagaBlock) -> Result<()> {
        self.lower_statements(block, |_, _| Ok(()))
    }

    /// [`Self::lower_block`], calling `after` once each statement is lowered.
    fn lower_statements(
        &mut self,
        block: &'n NagaBlock,
        mut after: impl FnMut(&mut Self, &'n Statement) -> Result<()>,
    ) -> Result<()> {
        for (i, (statement, span)) in block.span_iter().enumerate() {
            if self.current.is_none() {
                break;
            }
            self.span = *span;
            let next = block.get(i + 1);
            self.lower_statement(statement, next)
                .and_then(|()| after(self, statement))
                .map_err(|e| e.or_span(*span))?;
        }
        Ok(())
    }

    fn lower_statement(
        &mut self,
        statement: &'n Statement,
        next: Option<&Statement>,
    ) -> Result<()> {
        match statement {
            Statement::Emit(range) => self.emit_range(range),
            Statement::Block(block) => self.lower_block(block),
            Statement::If {
                condition,
                accept,
                reject,
            } => self.lower_if(*condition, accept, reject),
            Statement::Switch { selector, cases } => self.lower_switch(*selector, cases),
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => self.lower_loop(body, continuing, *break_if),
            Statement::Break => {
                let target = match self.constructs.last_mut() {
                    Some(Construct::Loop { merge, .. }) => *merge,
                    Some(Construct::Switch { merge, broken }) => {
                        *broken = true;
                        *merge
                    }
                    None => {
                        return Err(LowerError::internal(
                            "`break` outside a loop or switch",
                            self.span,
                        ))
                    }
                };
                self.terminate(Opcode::Break, &[], Payload::Jump(BlockCall::new(target)))
            }
            Statement::Continue => {
                let target = self.constructs.iter().rev().find_map(|c| match *c {
                    Construct::Loop { update, .. } => Some(update),
                    Construct::Switch { .. } => None,
                });
                let target = target
                    .ok_or_else(|| LowerError::internal("`continue` outside a loop", self.span))?;
                self.terminate(Opcode::Continue, &[], Payload::Jump(BlockCall::new(target)))
            }
            Statement::Return { value } => self.lower_return(*value),
            Statement::Kill => self.terminate(Opcode::Discard, &[], Payload::None),
            Statement::ControlBarrier(flags) => self.lower_control_barrier(*flags),
            Statement::MemoryBarrier(flags) => match next {
                Some(Statement::ControlBarrier(control)) if control.contains(*flags) => Ok(()),
                _ => Err(LowerError::unsupported(
                    "memory barrier without an execution barrier",
                    self.span,
                )),
            },
            Statement::Store { pointer, value } => {
                let op = if self.points_to_atomic(*pointer) {
                    Opcode::AtomicStore
                } else {
                    Opcode::Store
                };
                let pointer = self.value_of(*pointer)?;
                let value = self.value_of(*value)?;
                self.ins(op, &[pointer, value], Payload::None, None)
                    .map(drop)
            }
            Statement::ImageStore {
                image,
                coordinate,
                array_index,
                value,
            } => self.lower_image_store(*image, *coordinate, *array_index, *value),
            Statement::Atomic {
                pointer,
                fun,
                value,
                result,
            } => self.lower_atomic(*pointer, fun, *value, *result),
            Statement::ImageAtomic { .. } => {
                Err(LowerError::unsupported("texture atomic", self.span))
            }
            Statement::WorkGroupUniformLoad { pointer, result } => {
                let pointer = self.value_of(*pointer)?;
                let value = self.op(Opcode::WorkgroupUniformLoad, &[pointer])?;
                self.values[result.index()] = Some(value);
                Ok(())
            }
            Statement::Call {
                function,
                arguments,
                result,
            } => {
                let Some(callee) = self.m.functions[function.index()] else {
                    return Err(LowerError::internal(
                        "call to a function that was not lowered",
                        self.span,
                    ));
                };
                let mut args = Vec::with_capacity(arguments.len());
                for &argument in arguments {
                    args.push(self.value_of(argument)?);
                }
                let (_, value) = self.ins(Opcode::Call, &args, Payload::Callee(callee), None)?;
                if let Some(result) = result {
                    let value = value.ok_or_else(|| {
                        LowerError::internal("call result of a function without one", self.span)
                    })?;
                    self.values[result.index()] = Some(value);
                }
                Ok(())
            }
            Statement::RayQuery { .. } => Err(LowerError::unsupported("ray query", self.span)),
            Statement::RayPipelineFunction(_) => Err(LowerError::unsupported(
                "ray tracing pipeline function",
                self.span,
            )),
            Statement::SubgroupBallot { result, predicate } => {
                self.lower_subgroup_ballot(*predicate, *result)
            }
            Statement::SubgroupGather {
                mode,
                argument,
                result,
            } => self.lower_subgroup_gather(mode, *argument, *result),
            Statement::SubgroupCollectiveOperation {
                op,
                collective_op,
                argument,
                result,
            } => self.lower_subgroup_collective(*op, *collective_op, *argument, *result),
            Statement::CooperativeStore { .. } => Err(LowerError::unsupported(
                "cooperative matrix store",
                self.span,
            )),
        }
    }

    /// Lowers `block` into the oxir block `start`; returns the open end, if any.
    fn lower_region(&mut self, start: Block, block: &'n NagaBlock) -> Result<Option<Block>> {
        self.current = Some(start);
        self.lower_block(block)?;
        Ok(self.current)
    }

    /// Ends `end` (if still open) with `br target`.
    fn branch(&mut self, end: Option<Block>, target: Block) -> Result<()> {
        if let Some(end) = end {
            self.current = Some(end);
            self.terminate(Opcode::Br, &[], Payload::Jump(BlockCall::new(target)))?;
        }
        Ok(())
    }

    fn lower_if(
        &mut self,
        condition: Handle<naga::Expression>,
        accept: &'n NagaBlock,
        reject: &'n NagaBlock,
    ) -> Result<()> {
        let condition = self.value_of(condition)?;
        let header = self.current;
        let span = self.span;
        let (then_block, else_block) = (self.new_block(), self.new_block());
        let then_end = self.lower_region(then_block, accept)?;
        let else_end = self.lower_region(else_block, reject)?;
        let merge = (then_end.is_some() || else_end.is_some()).then(|| self.new_block());
        if let Some(merge) = merge {
            self.branch(then_end, merge)?;
            self.branch(else_end, merge)?;
        }
        self.current = header;
        self.span = span;
        let payload = Payload::If {
            then_dest: BlockCall::new(then_block),
            else_dest: BlockCall::new(else_block),
            merge,
        };
        self.terminate(Opcode::If, &[condition], payload)?;
        self.current = merge;
        Ok(())
    }

    fn lower_loop(
        &mut self,
        body: &'n NagaBlock,
        continuing: &'n NagaBlock,
        break_if: Option<Handle<naga::Expression>>,
    ) -> Result<()> {
        let [prepare, body_block, update, merge] = [(); 4].map(|()| self.new_block());
        let true_value = self.scalar_const(oxir_ir::Scalar::BOOL, 1);
        let (entry_args, keep_going) = match break_if {
            Some(_) => {
                let ty = self.m.out.types.bool();
                let param = self.m.out.functions[self.func]
                    .dfg
                    .append_block_param(prepare, ty);
                (vec![true_value], param)
            }
            None => (Vec::new(), true_value),
        };
        let payload = Payload::Loop {
            prepare: BlockCall::with_args(prepare, &entry_args),
            body: body_block,
            update,
            merge,
        };
        self.terminate(Opcode::Loop, &[], payload)?;
        self.current = Some(prepare);
        let payload = Payload::CondBranch {
            then_dest: BlockCall::new(body_block),
            else_dest: BlockCall::new(merge),
        };
        self.terminate(Opcode::CondBr, &[keep_going], payload)?;

        // Body values `continuing` reads that a `continue` may skip are spilled (see
        // `crate::loops`).
        let uses = match continuing.is_empty() && break_if.is_none() {
            true => HashSet::new(),
            false => continuing_uses(self.function, continuing, break_if),
        };
        let mut reloads = oxir_ir::hash::HashMap::default();
        let mut continued = false;
        self.constructs.push(Construct::Loop { update, merge });
        self.current = Some(body_block);
        self.lower_statements(body, |this, statement| {
            if let (true, Statement::Emit(range)) = (continued, statement) {
                for handle in range.clone().filter(|h| uses.contains(h)) {
                    reloads.insert(handle, this.spill(handle)?);
                }
            }
            continued |= continues_loop(statement);
            Ok(())
        })?;
        let body_end = self.current;
        self.branch(body_end, update)?;
        self.constructs.pop();

        // `continuing` may not leave the loop, so no construct is pushed for it.
        let outer_reloads = std::mem::replace(&mut self.reloads, reloads);
        let update_end = self.lower_region(update, continuing)?;
        if let Some(end) = update_end {
            self.current = Some(end);
            let back_args = match break_if {
                Some(condition) => {
                    let exit = self.value_of(condition)?;
                    vec![self.op(Opcode::Not, &[exit])?]
                }
                None => Vec::new(),
            };
            let payload = Payload::Jump(BlockCall::with_args(prepare, &back_args));
            self.terminate(Opcode::Br, &[], payload)?;
        }
        self.reloads = outer_reloads;
        self.current = Some(merge);
        Ok(())
    }

    fn lower_switch(
        &mut self,
        selector: Handle<naga::Expression>,
        cases: &'n [naga::SwitchCase],
    ) -> Result<()> {
        let selector = self.value_of(selector)?;
        let selector_scalar = match self.type_data(self.value_type(selector)) {
            TypeData::Scalar(s) => *s,
            _ => {
                return Err(LowerError::internal(
                    "switch selector is not a scalar",
                    self.span,
                ))
            }
        };
        let header = self.current;
        let span = self.span;
        let merge = self.new_block();
        // Which case owns a block: every case but an empty one that falls through.
        let owns_block = |case: &naga::SwitchCase| !(case.fall_through && case.body.is_empty());
        let mut blocks: Vec<Option<Block>> = Vec::with_capacity(cases.len());
        for case in cases {
            blocks.push(owns_block(case).then(|| self.new_block()));
        }
        // Labels go to their case's block, or to the next owning case's block.
        let mut table_cases = Vec::new();
        let mut default = None;
        for (i, case) in cases.iter().enumerate() {
            let Some(target) = blocks[i..].iter().flatten().next().copied() else {
                return Err(LowerError::internal(
                    "the last switch case falls through",
                    span,
                ));
            };
            match case.value {
                SwitchValue::I32(v) => table_cases.push((v as i64 as u64, target)),
                SwitchValue::U32(v) => table_cases.push((u64::from(v), target)),
                SwitchValue::Default => default = Some(target),
            }
        }
        let default = match default {
            Some(block) => block,
            None => {
                // naga requires a default; keep the shape total anyway.
                let block = self.new_block();
                self.branch(Some(block), merge)?;
                block
            }
        };
        self.constructs.push(Construct::Switch {
            merge,
            broken: false,
        });
        let mut merge_reached = false;
        for (i, block) in blocks.iter().enumerate() {
            let Some(block) = *block else { continue };
            let mut end = Some(block);
            self.current = end;
            for case in &cases[i..] {
                end = self.lower_region_continue(end, &case.body)?;
                if !case.fall_through || end.is_none() {
                    break;
                }
            }
            merge_reached |= end.is_some();
            self.branch(end, merge)?;
        }
        if let Some(Construct::Switch { broken: true, .. }) = self.constructs.pop() {
            merge_reached = true;
        }
        self.current = header;
        self.span = span;
        let table = SwitchTable {
            cases: table_cases
                .into_iter()
                .map(|(label, block)| {
                    (
                        canonical_scalar_bits(selector_scalar, label),
                        BlockCall::new(block),
                    )
                })
                .collect(),
            default: BlockCall::new(default),
        };
        let payload = Payload::Switch {
            table: Box::new(table),
            merge,
        };
        self.terminate(Opcode::Switch, &[selector], payload)?;
        self.current = Some(merge);
        if !merge_reached {
            let message = Payload::Message("no switch case reaches the merge".into());
            self.terminate(Opcode::Unreachable, &[], message)?;
        }
        Ok(())
    }

    /// Lowers `block` continuing the open end `end` (nothing when it is closed).
    fn lower_region_continue(
        &mut self,
        end: Option<Block>,
        block: &'n NagaBlock,
    ) -> Result<Option<Block>> {
        match end {
            Some(end) => self.lower_region(end, block),
            None => Ok(None),
        }
    }

    fn lower_return(&mut self, value: Option<Handle<naga::Expression>>) -> Result<()> {
        let Some(value) = value else {
            return self.terminate(Opcode::Return, &[], Payload::None);
        };
        let value = self.value_of(value)?;
        let members = match self.interface.and_then(|i| i.result.as_ref()) {
            Some(crate::entry_points::ResultOutput::Struct { members }) => *members,
            _ => return self.terminate(Opcode::Return, &[value], Payload::None),
        };
        let mut values: Vec<Value> = Vec::with_capacity(members as usize);
        for i in 0..members {
            values.push(self.op_indices(Opcode::Extract, &[value], &[i])?);
        }
        self.terminate(Opcode::Return, &values, Payload::None)
    }

    /// `WORK_GROUP` (or no memory flag) is `workgroup_barrier`; `STORAGE` and `TEXTURE`
    /// are `storage_barrier` (oxir's storage memory covers storage textures); `SUB_GROUP`
    /// is subsumed by a workgroup execution barrier and refused on its own
    /// (`subgroupBarrier`). naga lowers GLSL's `barrier()` to all four flags.
    fn lower_control_barrier(&mut self, flags: Barrier) -> Result<()> {
        let storage = flags.intersects(Barrier::STORAGE | Barrier::TEXTURE);
        let workgroup = flags.contains(Barrier::WORK_GROUP);
        if flags.contains(Barrier::SUB_GROUP) && !workgroup && !storage {
            return Err(LowerError::unsupported("subgroup barrier", self.span));
        }
        if storage {
            self.ins(Opcode::StorageBarrier, &[], Payload::None, None)?;
        }
        if workgroup || !storage {
            self.ins(Opcode::WorkgroupBarrier, &[], Payload::None, None)?;
        }
        Ok(())
    }

    fn lower_atomic(
        &mut self,
        pointer: Handle<naga::Expression>,
        fun: &AtomicFunction,
        value: Handle<naga::Expression>,
        result: Option<Handle<naga::Expression>>,
    ) -> Result<()> {
        if let naga::TypeInner::Pointer { base, .. } = *self.naga_type(pointer) {
            if let naga::TypeInner::Atomic(s) = self.m.naga.types[base].inner {
                if s.kind == naga::ScalarKind::Float {
                    return Err(LowerError::unsupported("floating-point atomic", self.span));
                }
            }
        }
        let ptr = self.value_of(pointer)?;
        let operand = self.value_of(value)?;
        let op = match fun {
            AtomicFunction::Add => Opcode::AtomicAdd,
            AtomicFunction::Subtract => Opcode::AtomicSub,
            AtomicFunction::And => Opcode::AtomicAnd,
            AtomicFunction::ExclusiveOr => Opcode::AtomicXor,
            AtomicFunction::InclusiveOr => Opcode::AtomicOr,
            AtomicFunction::Min => Opcode::AtomicMin,
            AtomicFunction::Max => Opcode::AtomicMax,
            AtomicFunction::Exchange { compare: None } => Opcode::AtomicExchange,
            AtomicFunction::Exchange {
                compare: Some(compare),
            } => {
                let expected = self.value_of(*compare)?;
                let old = self.op(Opcode::AtomicCompareExchange, &[ptr, expected, operand])?;
                if let Some(result) = result {
                    let exchanged = self.op(Opcode::Eq, &[old, expected])?;
                    let ty = self.expression_type(result)?;
                    let value = self.op_typed(Opcode::Construct, &[old, exchanged], ty)?;
                    self.values[result.index()] = Some(value);
                }
                return Ok(());
            }
        };
        let old = self.op(op, &[ptr, operand])?;
        if let Some(result) = result {
            self.values[result.index()] = Some(old);
        }
        Ok(())
    }
}
