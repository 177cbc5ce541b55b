//! A generator of random well-formed modules for property tests (feature `random`).
//!
//! Programs are generated structurally so they are valid by construction: nested `if`,
//! counted `loop` (prepare / body / update / merge), `simple_loop` left by `break`,
//! `switch` with distinct labels, `break` / `continue` to the nearest construct, plain
//! diamonds and plain counted loops with block parameters, locals through `alloca` /
//! `load` / `store`, calls to generated callables, and random arithmetic over several
//! scalar and vector types. Every loop is counted, so programs terminate when run.

use crate::function::{AbiParam, Function, FunctionKind, Signature};
use crate::instructions::{BlockCall, InstData, Payload, SwitchTable};
use crate::module::{GlobalData, Module, ResourceBinding};
use crate::ops::Opcode;
use crate::types::{AddressSpace, Scalar, StorageAccess, TypeData};
use crate::{Block, Func, Type, Value};

/// A small deterministic generator (splitmix64).
pub struct Rng(u64);

impl Rng {
    /// A generator whose sequence is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0); slightly biased for large `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

/// Which constructs the generator may use.
#[derive(Copy, Clone, Debug)]
pub struct GenConfig {
    /// Whether to generate structured constructs (`if`, `loop`, `simple_loop`, `switch`)
    /// and `break` / `continue`.
    pub structured: bool,
    /// Whether to generate plain control flow: `cond_br` diamonds and counted loops with
    /// block parameters.
    pub plain: bool,
    /// The deepest nesting of constructs.
    pub max_depth: u32,
    /// A soft budget of instructions per function: once reached, no new construct is
    /// started, though the current ones are completed.
    pub max_insts: usize,
    /// Whether `if` merges may get block parameters (plain constructs always use them).
    pub merge_params: bool,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            structured: true,
            plain: true,
            max_depth: 4,
            max_insts: 400,
            merge_params: true,
        }
    }
}

struct Breakable {
    merge: Block,
    /// `Some` for loops: where `continue` goes.
    continue_target: Option<Block>,
}

struct FunctionGen<'a> {
    rng: &'a mut Rng,
    module: &'a mut Module,
    f: Function,
    config: GenConfig,
    types: Vec<Type>,
    bool_ty: Type,
    u32_ty: Type,
    avail: Vec<Value>,
    breakables: Vec<Breakable>,
    callees: Vec<Func>,
    insts: usize,
}

impl FunctionGen<'_> {
    fn ins(
        &mut self,
        block: Block,
        opcode: Opcode,
        args: &[Value],
        payload: Payload,
        result: Option<Type>,
    ) -> Option<Value> {
        let inst = self
            .f
            .dfg
            .make_inst(InstData::with_payload(opcode, args, payload));
        let value = result.map(|ty| self.f.dfg.make_result(inst, ty));
        self.f.layout.append_inst(inst, block);
        self.insts += 1;
        value
    }

    fn new_block(&mut self) -> Block {
        self.f.append_new_block()
    }

    fn constant(&mut self, ty: Type) -> Value {
        let data = self.module.types.get(ty).clone();
        let c = match data {
            TypeData::Scalar(s) => {
                let bits = match s {
                    Scalar::BOOL => self.rng.next_u64() & 1,
                    Scalar::F32 => {
                        u64::from(((self.rng.below(2001) as f32) / 8.0 - 125.0).to_bits())
                    }
                    _ => self.rng.below(200) as u64,
                };
                self.module.const_scalar(s, bits)
            }
            TypeData::Vector { elem, len } => {
                let scalar_ty = self.module.types.scalar(elem);
                let lanes: Vec<_> = (0..len)
                    .map(|_| {
                        let v = self.constant(scalar_ty);
                        match self.f.dfg.value_def(v) {
                            crate::ValueDef::Const(c) => c,
                            _ => unreachable!("constants are constant values"),
                        }
                    })
                    .collect();
                self.module.const_composite(ty, lanes)
            }
            _ => self.module.const_zero(ty),
        };
        self.f.dfg.const_value(c, ty)
    }

    /// A value of `ty` that dominates the current point, or a constant.
    fn pick(&mut self, ty: Type) -> Value {
        let candidates: Vec<Value> = self
            .avail
            .iter()
            .copied()
            .filter(|&v| self.f.dfg.value_type(v) == ty)
            .collect();
        if candidates.is_empty() || self.rng.chance(20) {
            self.constant(ty)
        } else {
            candidates[self.rng.below(candidates.len())]
        }
    }

    fn pick_type(&mut self) -> Type {
        self.types[self.rng.below(self.types.len())]
    }

    fn scalar_of(&self, ty: Type) -> Option<(Scalar, u8)> {
        self.module.types.get(ty).scalar_or_vector_elem()
    }

    /// One random non-control instruction appended to `block`.
    fn straight(&mut self, block: Block) {
        let ty = self.pick_type();
        let (scalar, lanes) = self.scalar_of(ty).unwrap_or((Scalar::I32, 1));
        let choice = self.rng.below(10);
        if scalar.is_bool() {
            let a = self.pick(ty);
            let b = self.pick(ty);
            let value = match choice {
                0..=2 => self.ins(block, Opcode::And, &[a, b], Payload::None, Some(ty)),
                3..=4 => self.ins(block, Opcode::Or, &[a, b], Payload::None, Some(ty)),
                5..=6 => self.ins(block, Opcode::Xor, &[a, b], Payload::None, Some(ty)),
                _ => self.ins(block, Opcode::Not, &[a], Payload::None, Some(ty)),
            };
            self.avail.extend(value);
            return;
        }
        let value = match choice {
            0..=3 => {
                let ops: &[Opcode] = if scalar.is_float() {
                    &[
                        Opcode::Add,
                        Opcode::Sub,
                        Opcode::Mul,
                        Opcode::Min,
                        Opcode::Max,
                    ]
                } else {
                    &[
                        Opcode::Add,
                        Opcode::Sub,
                        Opcode::Mul,
                        Opcode::And,
                        Opcode::Or,
                        Opcode::Xor,
                        Opcode::Min,
                        Opcode::Shl,
                    ]
                };
                let op = ops[self.rng.below(ops.len())];
                let a = self.pick(ty);
                let b = self.pick(ty);
                self.ins(block, op, &[a, b], Payload::None, Some(ty))
            }
            4 => {
                let a = self.pick(ty);
                let b = self.pick(ty);
                let result = if lanes == 1 {
                    self.bool_ty
                } else {
                    self.module.types.vector(Scalar::BOOL, lanes)
                };
                let cmp = self.ins(block, Opcode::Lt, &[a, b], Payload::None, Some(result));
                if lanes == 1 {
                    cmp
                } else {
                    let cmp = cmp.expect("compare has a result");
                    self.ins(
                        block,
                        Opcode::Any,
                        &[cmp],
                        Payload::None,
                        Some(self.bool_ty),
                    )
                }
            }
            5 => {
                let cond = self.pick(self.bool_ty);
                let a = self.pick(ty);
                let b = self.pick(ty);
                self.ins(
                    block,
                    Opcode::Select,
                    &[cond, a, b],
                    Payload::None,
                    Some(ty),
                )
            }
            6 if lanes > 1 => {
                let v = self.pick(ty);
                let lane = self.rng.below(usize::from(lanes)) as u32;
                let elem = self.module.types.scalar(scalar);
                self.ins(
                    block,
                    Opcode::Extract,
                    &[v],
                    Payload::Indices(vec![lane].into()),
                    Some(elem),
                )
            }
            6 => {
                let target = if scalar.is_float() {
                    Scalar::I32
                } else {
                    Scalar::F32
                };
                let to = self.module.types.scalar(target);
                let v = self.pick(ty);
                self.ins(block, Opcode::Convert, &[v], Payload::None, Some(to))
            }
            7 => {
                // A local: alloca, store, load.
                let ptr_ty = self.module.types.pointer(AddressSpace::Function, ty);
                let ptr = self
                    .ins(block, Opcode::Alloca, &[], Payload::None, Some(ptr_ty))
                    .expect("alloca result");
                let v = self.pick(ty);
                self.ins(block, Opcode::Store, &[ptr, v], Payload::None, None);
                self.ins(block, Opcode::Load, &[ptr], Payload::None, Some(ty))
            }
            8 if !self.callees.is_empty() => {
                let callee = self.callees[self.rng.below(self.callees.len())];
                let sig = self.module.functions[callee].signature.clone();
                let args: Vec<Value> = sig.params.iter().map(|p| self.pick(p.ty)).collect();
                let result = sig.returns.first().map(|r| r.ty);
                self.ins(block, Opcode::Call, &args, Payload::Callee(callee), result)
            }
            _ => {
                if lanes > 1 {
                    let elem = self.module.types.scalar(scalar);
                    let s = self.pick(elem);
                    self.ins(block, Opcode::Splat, &[s], Payload::None, Some(ty))
                } else {
                    let a = self.pick(ty);
                    self.ins(block, Opcode::Abs, &[a], Payload::None, Some(ty))
                }
            }
        };
        if let Some(v) = value {
            self.avail.push(v);
        }
    }

    fn straight_run(&mut self, block: Block) {
        for _ in 0..1 + self.rng.below(4) {
            self.straight(block);
        }
    }

    /// A counter local initialised to zero in `block`; returns its pointer.
    fn counter(&mut self, block: Block) -> Value {
        let ptr_ty = self
            .module
            .types
            .pointer(AddressSpace::Function, self.u32_ty);
        let ptr = self
            .ins(block, Opcode::Alloca, &[], Payload::None, Some(ptr_ty))
            .expect("alloca result");
        let zero = self
            .f
            .dfg
            .const_value(self.module.const_u32(0), self.u32_ty);
        self.ins(block, Opcode::Store, &[ptr, zero], Payload::None, None);
        ptr
    }

    fn u32_const(&mut self, value: u32) -> Value {
        let c = self.module.const_u32(value);
        self.f.dfg.const_value(c, self.u32_ty)
    }

    /// Increments the counter at `ptr` in `block`; returns the new value.
    fn bump_counter(&mut self, block: Block, ptr: Value) -> Value {
        let old = self
            .ins(
                block,
                Opcode::Load,
                &[ptr],
                Payload::None,
                Some(self.u32_ty),
            )
            .expect("load");
        let one = self.u32_const(1);
        let new = self
            .ins(
                block,
                Opcode::Add,
                &[old, one],
                Payload::None,
                Some(self.u32_ty),
            )
            .expect("add");
        self.ins(block, Opcode::Store, &[ptr, new], Payload::None, None);
        new
    }

    /// Fills a region starting at `block`; returns the block where control continues, or
    /// `None` when the region left by `break`, `continue` or `return`.
    fn region(&mut self, mut block: Block, depth: u32, may_leave: bool) -> Option<Block> {
        let steps = 1 + self.rng.below(3);
        for _ in 0..steps {
            self.straight_run(block);
            if depth >= self.config.max_depth || self.insts >= self.config.max_insts {
                continue;
            }
            let mut kinds: Vec<u8> = Vec::new();
            if self.config.structured {
                kinds.extend([0, 1, 2, 3]);
            }
            if self.config.plain {
                kinds.extend([4, 5]);
            }
            if kinds.is_empty() || self.rng.chance(35) {
                continue;
            }
            block = match kinds[self.rng.below(kinds.len())] {
                0 => self.if_construct(block, depth),
                1 => self.loop_construct(block, depth),
                2 => self.simple_loop_construct(block, depth),
                3 => self.switch_construct(block, depth),
                4 => self.plain_diamond(block),
                _ => self.plain_loop(block),
            };
        }
        // Sometimes leave early through the nearest construct.
        if may_leave
            && self.config.structured
            && !self.breakables.is_empty()
            && depth > 0
            && self.rng.chance(15)
        {
            let top = self.breakables.len() - 1;
            let use_continue = self.rng.chance(40);
            let continue_target = self.breakables.iter().rev().find_map(|b| b.continue_target);
            match (use_continue, continue_target) {
                (true, Some(target)) => {
                    self.ins(
                        block,
                        Opcode::Continue,
                        &[],
                        Payload::Jump(BlockCall::new(target)),
                        None,
                    );
                }
                _ => {
                    let merge = self.breakables[top].merge;
                    self.ins(
                        block,
                        Opcode::Break,
                        &[],
                        Payload::Jump(BlockCall::new(merge)),
                        None,
                    );
                }
            }
            return None;
        }
        Some(block)
    }

    /// Runs `region` for an arm and restores the scope afterwards.
    fn arm(&mut self, start: Block, depth: u32, may_leave: bool) -> (Option<Block>, Vec<Value>) {
        let saved = self.avail.len();
        let end = self.region(start, depth, may_leave);
        let arm_values = self.avail.split_off(saved);
        (end, arm_values)
    }

    fn if_construct(&mut self, block: Block, depth: u32) -> Block {
        let cond = self.pick(self.bool_ty);
        let (then_block, else_block, merge) =
            (self.new_block(), self.new_block(), self.new_block());
        let param_ty = (self.config.merge_params && self.rng.chance(50)).then(|| self.pick_type());
        let param = param_ty.map(|ty| self.f.dfg.append_block_param(merge, ty));
        self.ins(
            block,
            Opcode::If,
            &[cond],
            Payload::If {
                then_dest: BlockCall::new(then_block),
                else_dest: BlockCall::new(else_block),
                merge: Some(merge),
            },
            None,
        );
        for (arm_block, may_leave) in [(then_block, true), (else_block, false)] {
            let saved = self.avail.len();
            let end = self.region(arm_block, depth + 1, may_leave);
            if let Some(end) = end {
                let args: Vec<Value> = param_ty.map(|ty| vec![self.pick(ty)]).unwrap_or_default();
                self.ins(
                    end,
                    Opcode::Br,
                    &[],
                    Payload::Jump(BlockCall::with_args(merge, &args)),
                    None,
                );
            }
            self.avail.truncate(saved);
        }
        if let Some(p) = param {
            self.avail.push(p);
        }
        merge
    }

    fn loop_construct(&mut self, block: Block, depth: u32) -> Block {
        let counter = self.counter(block);
        let (prepare, body, update, merge) = (
            self.new_block(),
            self.new_block(),
            self.new_block(),
            self.new_block(),
        );
        self.ins(
            block,
            Opcode::Loop,
            &[],
            Payload::Loop {
                prepare: BlockCall::new(prepare),
                body,
                update,
                merge,
            },
            None,
        );
        // prepare: i < trip count
        let i = self
            .ins(
                prepare,
                Opcode::Load,
                &[counter],
                Payload::None,
                Some(self.u32_ty),
            )
            .expect("load");
        let trip_count = self.rng.below(4) as u32;
        let trips = self.u32_const(trip_count);
        let cond = self
            .ins(
                prepare,
                Opcode::Lt,
                &[i, trips],
                Payload::None,
                Some(self.bool_ty),
            )
            .expect("lt");
        self.ins(
            prepare,
            Opcode::CondBr,
            &[cond],
            Payload::CondBranch {
                then_dest: BlockCall::new(body),
                else_dest: BlockCall::new(merge),
            },
            None,
        );
        self.avail.push(i);
        self.breakables.push(Breakable {
            merge,
            continue_target: Some(update),
        });
        // The body's own end always reaches the update block, so it stays reachable.
        let (end, _) = self.arm(body, depth + 1, false);
        self.breakables.pop();
        if let Some(end) = end {
            self.ins(
                end,
                Opcode::Br,
                &[],
                Payload::Jump(BlockCall::new(update)),
                None,
            );
        }
        self.bump_counter(update, counter);
        self.ins(
            update,
            Opcode::Br,
            &[],
            Payload::Jump(BlockCall::new(prepare)),
            None,
        );
        merge
    }

    fn simple_loop_construct(&mut self, block: Block, depth: u32) -> Block {
        let counter = self.counter(block);
        let (body, merge) = (self.new_block(), self.new_block());
        self.ins(
            block,
            Opcode::SimpleLoop,
            &[],
            Payload::SimpleLoop {
                body: BlockCall::new(body),
                merge,
            },
            None,
        );
        let n = self.bump_counter(body, counter);
        let limit_count = 1 + self.rng.below(3) as u32;
        let limit = self.u32_const(limit_count);
        let done = self
            .ins(
                body,
                Opcode::Ge,
                &[n, limit],
                Payload::None,
                Some(self.bool_ty),
            )
            .expect("ge");
        let (exit, stay, inner_merge) = (self.new_block(), self.new_block(), self.new_block());
        self.ins(
            body,
            Opcode::If,
            &[done],
            Payload::If {
                then_dest: BlockCall::new(exit),
                else_dest: BlockCall::new(stay),
                merge: Some(inner_merge),
            },
            None,
        );
        self.ins(
            exit,
            Opcode::Break,
            &[],
            Payload::Jump(BlockCall::new(merge)),
            None,
        );
        self.ins(
            stay,
            Opcode::Br,
            &[],
            Payload::Jump(BlockCall::new(inner_merge)),
            None,
        );
        self.breakables.push(Breakable {
            merge,
            continue_target: Some(body),
        });
        let (end, _) = self.arm(inner_merge, depth + 1, true);
        self.breakables.pop();
        if let Some(end) = end {
            self.ins(
                end,
                Opcode::Continue,
                &[],
                Payload::Jump(BlockCall::new(body)),
                None,
            );
        }
        merge
    }

    fn switch_construct(&mut self, block: Block, depth: u32) -> Block {
        let selector_ty = if self.rng.chance(50) {
            self.u32_ty
        } else {
            self.module.types.i32()
        };
        let selector = self.pick(selector_ty);
        let case_count = 1 + self.rng.below(3);
        let mut labels: Vec<u64> = Vec::new();
        while labels.len() < case_count {
            let label = self.rng.below(6) as u64;
            if !labels.contains(&label) {
                labels.push(label);
            }
        }
        let merge = self.new_block();
        let cases: Vec<(u64, BlockCall)> = labels
            .iter()
            .map(|&l| (l, BlockCall::new(self.new_block())))
            .collect();
        let default = BlockCall::new(self.new_block());
        let arms: Vec<Block> = cases
            .iter()
            .map(|(_, c)| c.block)
            .chain([default.block])
            .collect();
        self.ins(
            block,
            Opcode::Switch,
            &[selector],
            Payload::Switch {
                table: Box::new(SwitchTable { cases, default }),
                merge,
            },
            None,
        );
        self.breakables.push(Breakable {
            merge,
            continue_target: None,
        });
        let last = arms.len() - 1;
        for (i, arm) in arms.into_iter().enumerate() {
            let saved = self.avail.len();
            // The default arm always reaches the merge, so the merge stays reachable.
            let end = self.region(arm, depth + 1, i != last);
            if let Some(end) = end {
                self.ins(
                    end,
                    Opcode::Br,
                    &[],
                    Payload::Jump(BlockCall::new(merge)),
                    None,
                );
            }
            self.avail.truncate(saved);
        }
        self.breakables.pop();
        merge
    }

    fn plain_diamond(&mut self, block: Block) -> Block {
        let cond = self.pick(self.bool_ty);
        let (left, right, join) = (self.new_block(), self.new_block(), self.new_block());
        let ty = self.pick_type();
        let param = self.f.dfg.append_block_param(join, ty);
        self.ins(
            block,
            Opcode::CondBr,
            &[cond],
            Payload::CondBranch {
                then_dest: BlockCall::new(left),
                else_dest: BlockCall::new(right),
            },
            None,
        );
        for arm in [left, right] {
            let saved = self.avail.len();
            self.straight_run(arm);
            let v = self.pick(ty);
            self.ins(
                arm,
                Opcode::Br,
                &[],
                Payload::Jump(BlockCall::with_args(join, &[v])),
                None,
            );
            self.avail.truncate(saved);
        }
        self.avail.push(param);
        join
    }

    fn plain_loop(&mut self, block: Block) -> Block {
        let (header, body, exit) = (self.new_block(), self.new_block(), self.new_block());
        let i = self.f.dfg.append_block_param(header, self.u32_ty);
        let zero = self.u32_const(0);
        self.ins(
            block,
            Opcode::Br,
            &[],
            Payload::Jump(BlockCall::with_args(header, &[zero])),
            None,
        );
        let trip_count = self.rng.below(4) as u32;
        let trips = self.u32_const(trip_count);
        let cond = self
            .ins(
                header,
                Opcode::Lt,
                &[i, trips],
                Payload::None,
                Some(self.bool_ty),
            )
            .expect("lt");
        self.ins(
            header,
            Opcode::CondBr,
            &[cond],
            Payload::CondBranch {
                then_dest: BlockCall::new(body),
                else_dest: BlockCall::new(exit),
            },
            None,
        );
        self.avail.push(i);
        let saved = self.avail.len();
        self.straight_run(body);
        self.avail.truncate(saved);
        let one = self.u32_const(1);
        let next = self
            .ins(
                body,
                Opcode::Add,
                &[i, one],
                Payload::None,
                Some(self.u32_ty),
            )
            .expect("add");
        self.ins(
            body,
            Opcode::Br,
            &[],
            Payload::Jump(BlockCall::with_args(header, &[next])),
            None,
        );
        exit
    }
}

/// Generates a module: a few callables, then a kernel that stores a result to a storage
/// buffer. Valid by construction for every verifier option except
/// `no-block-params` / `no-unstructured-control-flow` when plain constructs are on.
pub fn generate_module(seed: u64, config: GenConfig) -> Module {
    let mut rng = Rng::new(seed);
    let mut module = Module::new();
    let types = {
        let t = &mut module.types;
        vec![
            t.i32(),
            t.u32(),
            t.f32(),
            t.bool(),
            t.vector(Scalar::F32, 2),
            t.vector(Scalar::U32, 3),
        ]
    };
    let bool_ty = module.types.bool();
    let u32_ty = module.types.u32();
    let out_array = module.types.runtime_array(u32_ty);
    let out = module.add_global(GlobalData {
        name: "out".into(),
        space: AddressSpace::Storage(StorageAccess::ReadWrite),
        ty: out_array,
        init: None,
        binding: Some(ResourceBinding {
            group: 0,
            binding: 0,
        }),
    });
    let mut callees = Vec::new();
    let callable_count = rng.below(3);
    for index in 0..=callable_count {
        let is_kernel = index == callable_count;
        let (kind, signature) = if is_kernel {
            (
                FunctionKind::kernel([1 + rng.below(64) as u32, 1, 1]),
                Signature::default(),
            )
        } else {
            let params: Vec<AbiParam> = (0..rng.below(3))
                .map(|_| AbiParam::new(types[rng.below(types.len())]))
                .collect();
            let returns = vec![AbiParam::new(types[rng.below(types.len())])];
            (FunctionKind::Callable, Signature { params, returns })
        };
        let name = if is_kernel {
            "main".to_string()
        } else {
            format!("helper{index}")
        };
        let mut f = Function::new(name, kind, signature.clone());
        let entry = f.append_new_block();
        let params: Vec<Value> = signature
            .params
            .iter()
            .map(|p| f.dfg.append_block_param(entry, p.ty))
            .collect();
        let mut generator = FunctionGen {
            rng: &mut rng,
            module: &mut module,
            f,
            config,
            types: types.clone(),
            bool_ty,
            u32_ty,
            avail: params,
            breakables: Vec::new(),
            callees: callees.clone(),
            insts: 0,
        };
        let end = generator
            .region(entry, 0, false)
            .expect("top-level regions never leave early");
        if is_kernel {
            let id = generator
                .ins(
                    end,
                    Opcode::LocalInvocationIndex,
                    &[],
                    Payload::None,
                    Some(u32_ty),
                )
                .expect("register");
            let ptr_ty = generator
                .module
                .types
                .pointer(AddressSpace::Storage(StorageAccess::ReadWrite), u32_ty);
            let out_ptr = generator.module.global_pointer_type(out);
            let base = generator.f.dfg.global_value(out, out_ptr);
            let slot = generator
                .ins(
                    end,
                    Opcode::Access,
                    &[base, id],
                    Payload::None,
                    Some(ptr_ty),
                )
                .expect("access");
            let v = generator.pick(u32_ty);
            generator.ins(end, Opcode::Store, &[slot, v], Payload::None, None);
            generator.ins(end, Opcode::Return, &[], Payload::None, None);
        } else {
            let ret_ty = signature.returns[0].ty;
            let v = generator.pick(ret_ty);
            generator.ins(end, Opcode::Return, &[v], Payload::None, None);
        }
        let f = generator.f;
        let func = module.add_function(f);
        if !is_kernel {
            callees.push(func);
        }
    }
    module
}
