//! The general path of the executor: one instruction at a time, dispatched by an
//! exhaustive `match` over [`Opcode`] (a new opcode does not build until it is given a
//! meaning here). Lane-wise operations evaluate through the shared scalar semantics
//! ([`crate::scalar`]); an operation they refuse is a run-time error, never a made-up
//! value.

use super::{map1, relane, vec3, Frame, Group, Invocation, Machine, Status};
use crate::error::{ErrorKind, MemoryOp};
use crate::linalg::LinalgOp;
use crate::memory;
use crate::scalar::{self, ScalarError};
use crate::texture::TextureAccess;
use crate::value::{Lanes, Ptr, Region, Val, POISON};
use oxir_ir::data_layout::{runtime_array_tail, LayoutRules};
use oxir_ir::types::TypeStore;
use oxir_ir::{
    AddressSpace, BlockCall, Func, Function, Global, Inst, InstData, Opcode, Payload, Scalar, Type,
    TypeData, Value,
};
use smallvec::SmallVec;

/// The instruction `step` executes, with its operand values.
pub(super) struct Current<'m> {
    pub func: Func,
    pub f: &'m Function,
    pub inst: Inst,
    pub data: &'m InstData,
    pub args: SmallVec<[Val; 4]>,
    pub result: Option<Value>,
}

impl Current<'_> {
    pub fn arg(&self, i: usize) -> &Val {
        &self.args[i]
    }

    pub fn arg_ty(&self, i: usize) -> Type {
        self.f.dfg.value_type(self.f.dfg.resolve(self.data.args[i]))
    }

    pub fn res_ty(&self) -> Result<Type, ErrorKind> {
        self.result
            .map(|r| self.f.dfg.value_type(r))
            .ok_or(ErrorKind::Malformed("an instruction without its result"))
    }

    /// The string of a `print`, `assert` or `unreachable` (empty without one).
    fn message(&self) -> String {
        self.data.payload.message().unwrap_or_default().to_string()
    }
}

/// The element scalar of a scalar, vector or matrix type; any other type is a malformed
/// operand (the verifier's type rules exclude it), never a made-up scalar.
pub(super) fn elem_of(types: &TypeStore, ty: Type) -> Result<Scalar, ErrorKind> {
    match types.get(ty) {
        TypeData::Scalar(s) => Ok(*s),
        TypeData::Vector { elem, .. } | TypeData::Matrix { elem, .. } => Ok(*elem),
        _ => Err(ErrorKind::Malformed(
            "a scalar, vector or matrix operand of another type",
        )),
    }
}

/// What an atomic does with the old value.
#[derive(Copy, Clone, PartialEq, Eq)]
enum AtomicUpdate {
    Load,
    Store,
    Exchange,
    CompareExchange,
    /// Stores `old op operand` (an arithmetic or bitwise opcode).
    Apply(Opcode),
}

fn value_of(fr: &Frame, f: &Function, v: Value) -> Val {
    fr.vals[f.dfg.resolve(v).as_u32() as usize].clone()
}

/// The edge a branching terminator takes, from its payload and its condition or
/// selector; `None` for a payload that is not a branch.
fn branch_target<'a>(payload: &'a Payload, args: &[Val]) -> Option<&'a BlockCall> {
    match payload {
        Payload::Jump(dest) => Some(dest),
        Payload::CondBranch {
            then_dest,
            else_dest,
        }
        | Payload::If {
            then_dest,
            else_dest,
            ..
        } => Some(if args.first()?.bits() != 0 {
            then_dest
        } else {
            else_dest
        }),
        Payload::SwitchBranch(table) | Payload::Switch { table, .. } => {
            let sel = args.first()?.bits();
            Some(
                table
                    .cases
                    .iter()
                    .find(|(label, _)| *label == sel)
                    .map(|(_, d)| d)
                    .unwrap_or(&table.default),
            )
        }
        Payload::Loop { prepare, .. } => Some(prepare),
        Payload::SimpleLoop { body, .. } => Some(body),
        Payload::None | Payload::Indices(_) | Payload::Callee(_) | Payload::Message(_) => None,
    }
}

/// Lane-wise unary map that may fail. An undefined operand gives an undefined result (it
/// is never read on an executed path of a valid module); a pointer is malformed.
fn try_map1(a: &Val, f: &dyn Fn(u64) -> Result<u64, ScalarError>) -> Result<Val, ErrorKind> {
    Ok(match a {
        Val::S(x) => Val::S(f(*x)?),
        Val::V(l) => Val::V(l.iter().map(|&x| f(x)).collect::<Result<_, _>>()?),
        Val::C(cols) => Val::C(
            cols.iter()
                .map(|c| try_map1(c, f))
                .collect::<Result<_, _>>()?,
        ),
        Val::Undef => Val::Undef,
        Val::P(_) => return Err(ErrorKind::Malformed("a lane-wise operation on a pointer")),
    })
}

/// Lane-wise binary map that may fail. An undefined operand gives an undefined result;
/// operands of different shapes (or pointers) are malformed.
/// `frexp` / `modf`: each lane of the scalar or vector `a` split in two by `f`, as the
/// two-member struct `{ first lanes, second lanes }`.
fn decompose(
    a: &Val,
    f: &dyn Fn(u64) -> Result<(u64, u64), ScalarError>,
) -> Result<Val, ErrorKind> {
    Ok(match a {
        Val::S(x) => {
            let (first, second) = f(*x)?;
            Val::C(vec![Val::S(first), Val::S(second)])
        }
        Val::V(l) => {
            let parts: Vec<(u64, u64)> = l.iter().map(|&x| f(x)).collect::<Result<_, _>>()?;
            Val::C(vec![
                Val::V(parts.iter().map(|p| p.0).collect()),
                Val::V(parts.iter().map(|p| p.1).collect()),
            ])
        }
        Val::Undef => Val::Undef,
        Val::C(_) | Val::P(_) => {
            return Err(ErrorKind::Malformed("frexp or modf of a non-float value"))
        }
    })
}

pub(super) fn try_map2(
    a: &Val,
    b: &Val,
    f: &dyn Fn(u64, u64) -> Result<u64, ScalarError>,
) -> Result<Val, ErrorKind> {
    Ok(match (a, b) {
        (Val::S(x), Val::S(y)) => Val::S(f(*x, *y)?),
        (Val::V(l), Val::V(r)) => Val::V(
            l.iter()
                .zip(r)
                .map(|(&x, &y)| f(x, y))
                .collect::<Result<_, _>>()?,
        ),
        (Val::C(l), Val::C(r)) => Val::C(
            l.iter()
                .zip(r)
                .map(|(x, y)| try_map2(x, y, f))
                .collect::<Result<_, _>>()?,
        ),
        (Val::Undef, _) | (_, Val::Undef) => Val::Undef,
        _ => {
            return Err(ErrorKind::Malformed(
                "a lane-wise operation on operands of different shapes",
            ))
        }
    })
}

fn project(v: &Val, i: u64) -> Option<Val> {
    match v {
        Val::V(l) => l.get(i as usize).map(|&x| Val::S(x)),
        Val::C(e) => e.get(i as usize).cloned(),
        Val::Undef | Val::S(_) | Val::P(_) => None,
    }
}

fn replace(v: &mut Val, path: &[u32], new: Val) -> Option<()> {
    let Some((&first, rest)) = path.split_first() else {
        *v = new;
        return Some(());
    };
    match v {
        Val::V(l) => {
            *l.get_mut(first as usize)? = new.bits();
            Some(())
        }
        Val::C(e) => replace(e.get_mut(first as usize)?, rest, new),
        Val::Undef | Val::S(_) | Val::P(_) => None,
    }
}

impl<'m> Machine<'m> {
    /// The instruction at the current position of the top frame.
    pub(super) fn current(&self, inv: &Invocation) -> Result<Current<'m>, ErrorKind> {
        let module = self.module;
        let fr = inv.frames.last().ok_or(ErrorKind::Malformed("no frame"))?;
        let f: &'m Function = &module.functions[fr.func];
        let code = self.funcs[fr.func]
            .as_ref()
            .ok_or(ErrorKind::Malformed("a frame of an external function"))?;
        let inst = *code.blocks[fr.block]
            .get(fr.pos)
            .ok_or(ErrorKind::Malformed(
                "fell off the end of a block without a terminator",
            ))?;
        let data = f.dfg.inst(inst);
        Ok(Current {
            func: fr.func,
            f,
            inst,
            data,
            args: data.args.iter().map(|&v| value_of(fr, f, v)).collect(),
            result: f.dfg.inst_result(inst),
        })
    }

    /// Executes the instruction at the current position of the top frame.
    pub(super) fn step(
        &mut self,
        group: &mut Group,
        inv: &mut Invocation,
    ) -> Result<(), ErrorKind> {
        let cur = self.current(inv)?;
        let types: &'m TypeStore = &self.module.types;
        let op = cur.data.opcode;
        let elem = |i: usize| elem_of(types, cur.arg_ty(i));
        use Opcode::*;
        let value: Option<Val> = match op {
            // --- terminators ----------------------------------------------------------------
            Br | CondBr | SwitchBr | If | Loop | SimpleLoop | Switch | Break | Continue => {
                let dest = branch_target(&cur.data.payload, &cur.args)
                    .ok_or(ErrorKind::MalformedTerminator(op))?;
                take_edge(inv, cur.f, dest);
                return Ok(());
            }
            Return => {
                let freed = return_from(inv, cur.args.to_vec());
                self.release(freed);
                return Ok(());
            }
            Unreachable => return Err(ErrorKind::Unreachable(cur.message())),
            Discard => {
                inv.status = Status::Discarded;
                return Ok(());
            }
            // --- lane-wise arithmetic, bitwise and comparisons --------------------------------
            Add | Sub | Mul | Div | Rem | Min | Max | And | Or | Xor | Shl | Shr | Rotl | Rotr
            | Atan2 | Pow | CopySign | Step | Eq | Ne | Lt | Le | Gt | Ge => {
                let s = elem(0)?;
                Some(try_map2(cur.arg(0), cur.arg(1), &|a, b| {
                    scalar::binary(op, s, a, b)
                })?)
            }
            Clamp | Fma | Smoothstep | Mix => {
                let s = elem(0)?;
                let (a, b, c) = (cur.arg(0).lanes(), cur.arg(1).lanes(), cur.arg(2).lanes());
                let out: Lanes = (0..a.len())
                    .map(|i| scalar::ternary(op, s, a[i], b[i], c[i]))
                    .collect::<Result<_, _>>()?;
                Some(relane(cur.arg(0), out))
            }
            Neg | Abs | Sign | Not | CountOnes | CountLeadingZeros | CountTrailingZeros
            | ReverseBits | Sin | Cos | Tan | Asin | Acos | Atan | Sinh | Cosh | Tanh | Asinh
            | Acosh | Atanh | Exp | Exp2 | Exp10 | Log | Log2 | Log10 | Sqrt | InverseSqrt
            | Ceil | Floor | Fract | Trunc | Round | RoundEven | Saturate | Degrees | Radians
            | IsNan | IsInf => {
                let s = elem(0)?;
                Some(try_map1(cur.arg(0), &|a| scalar::unary(op, s, a))?)
            }
            Ldexp => {
                let s = elem(0)?;
                Some(try_map2(cur.arg(0), cur.arg(1), &|x, e| {
                    scalar::ldexp(s, x, e)
                })?)
            }
            Frexp => {
                let s = elem(0)?;
                Some(decompose(cur.arg(0), &|x| scalar::frexp(s, x))?)
            }
            Modf => {
                let s = elem(0)?;
                Some(decompose(cur.arg(0), &|x| scalar::modf(s, x))?)
            }
            // A single invocation has no neighbours: every derivative is +0.
            Dpdx | Dpdy | Fwidth | DpdxCoarse | DpdyCoarse | FwidthCoarse | DpdxFine | DpdyFine
            | FwidthFine => Some(map1(cur.arg(0), &|_| 0)),
            Select => Some(select(&cur)),
            Any => Some(Val::S(scalar::bool_reduce(true, &cur.arg(0).lanes()))),
            All => Some(Val::S(scalar::bool_reduce(false, &cur.arg(0).lanes()))),
            ExtractBits => {
                let s = elem(0)?;
                let (o, c) = (cur.arg(1).bits(), cur.arg(2).bits());
                Some(try_map1(cur.arg(0), &|e| scalar::extract_bits(s, e, o, c))?)
            }
            InsertBits => {
                let s = elem(0)?;
                let (o, c) = (cur.arg(2).bits(), cur.arg(3).bits());
                Some(try_map2(cur.arg(0), cur.arg(1), &|e, n| {
                    scalar::insert_bits(s, e, n, o, c)
                })?)
            }
            // --- vectors and matrices ---------------------------------------------------------
            Dot => Some(self.linalg(&cur, LinalgOp::Dot)?),
            Cross => Some(self.linalg(&cur, LinalgOp::Cross)?),
            Length => Some(self.linalg(&cur, LinalgOp::Length)?),
            Distance => Some(self.linalg(&cur, LinalgOp::Distance)?),
            Normalize => Some(self.linalg(&cur, LinalgOp::Normalize)?),
            Reflect => Some(self.linalg(&cur, LinalgOp::Reflect)?),
            FaceForward => Some(self.linalg(&cur, LinalgOp::FaceForward)?),
            ReduceAdd => Some(self.linalg(&cur, LinalgOp::ReduceAdd)?),
            ReduceMul => Some(self.linalg(&cur, LinalgOp::ReduceMul)?),
            ReduceMin => Some(self.linalg(&cur, LinalgOp::ReduceMin)?),
            ReduceMax => Some(self.linalg(&cur, LinalgOp::ReduceMax)?),
            OuterProduct => Some(self.linalg(&cur, LinalgOp::OuterProduct)?),
            MatrixTimesMatrix => Some(self.linalg(&cur, LinalgOp::MatrixTimesMatrix)?),
            MatrixTimesVector => Some(self.linalg(&cur, LinalgOp::MatrixTimesVector)?),
            VectorTimesMatrix => Some(self.linalg(&cur, LinalgOp::VectorTimesMatrix)?),
            MatrixTimesScalar => Some(self.linalg(&cur, LinalgOp::MatrixTimesScalar)?),
            Transpose => Some(self.linalg(&cur, LinalgOp::Transpose)?),
            Determinant => Some(self.linalg(&cur, LinalgOp::Determinant)?),
            Inverse => Some(self.linalg(&cur, LinalgOp::Inverse)?),
            // --- conversions and composites ---------------------------------------------------
            Convert => {
                let (from, to) = (elem(0)?, elem_of(types, cur.res_ty()?)?);
                Some(map1(cur.arg(0), &|a| scalar::convert(from, to, a)))
            }
            Bitcast => Some(bitcast(types, &cur)?),
            Construct => Some(construct(types, &cur)?),
            Splat => Some(splat(types, &cur)?),
            Extract => Some(extract(&cur)?),
            Insert => Some(insert(&cur)?),
            ExtractDynamic => Some(extract_dynamic(types, &cur)?),
            InsertDynamic => Some(insert_dynamic(&cur)),
            Shuffle => Some(shuffle(&cur)?),
            // A module run as it is: the pipeline sets no specialization constant.
            SpecConstant => Some(cur.arg(0).clone()),
            // --- memory -------------------------------------------------------------------
            Alloca => Some(self.alloca(group, inv, &cur)?),
            Load => {
                let p = cur
                    .arg(0)
                    .ptr()
                    .ok_or(ErrorKind::Malformed("load through a non-pointer"))?;
                let ty = cur.res_ty()?;
                if types.get(ty).is_resource() {
                    // A texture or sampler handle: the pointer names the resource.
                    Some(Val::P(p))
                } else {
                    Some(self.load_ptr(group, inv, p, ty)?)
                }
            }
            Store => {
                let p = cur
                    .arg(0)
                    .ptr()
                    .ok_or(ErrorKind::Malformed("store through a non-pointer"))?;
                self.store_ptr(group, inv, p, cur.arg_ty(1), cur.arg(1))?;
                None
            }
            Access => Some(self.access(&cur)?),
            ArrayLength => Some(self.array_length(group, inv, &cur)?),
            // --- atomics ------------------------------------------------------------------
            AtomicLoad => self.atomic(group, inv, &cur, AtomicUpdate::Load)?,
            AtomicStore => self.atomic(group, inv, &cur, AtomicUpdate::Store)?,
            AtomicExchange => self.atomic(group, inv, &cur, AtomicUpdate::Exchange)?,
            AtomicCompareExchange => {
                self.atomic(group, inv, &cur, AtomicUpdate::CompareExchange)?
            }
            AtomicAdd => self.atomic(group, inv, &cur, AtomicUpdate::Apply(Add))?,
            AtomicSub => self.atomic(group, inv, &cur, AtomicUpdate::Apply(Sub))?,
            AtomicAnd => self.atomic(group, inv, &cur, AtomicUpdate::Apply(And))?,
            AtomicOr => self.atomic(group, inv, &cur, AtomicUpdate::Apply(Or))?,
            AtomicXor => self.atomic(group, inv, &cur, AtomicUpdate::Apply(Xor))?,
            AtomicMin => self.atomic(group, inv, &cur, AtomicUpdate::Apply(Min))?,
            AtomicMax => self.atomic(group, inv, &cur, AtomicUpdate::Apply(Max))?,
            // --- barriers -----------------------------------------------------------------
            WorkgroupBarrier | StorageBarrier | WorkgroupUniformLoad => {
                if !inv.resume_barrier {
                    inv.resume_barrier = true;
                    inv.status = Status::Barrier(cur.func, cur.inst);
                    // Do not advance: the instruction completes when the group resumes.
                    self.executed -= 1;
                    return Ok(());
                }
                inv.resume_barrier = false;
                if op == WorkgroupUniformLoad {
                    let p = cur
                        .arg(0)
                        .ptr()
                        .ok_or(ErrorKind::Malformed("load through a non-pointer"))?;
                    Some(self.load_ptr(group, inv, p, cur.res_ty()?)?)
                } else {
                    None
                }
            }
            // --- subgroups: wait for the other active lanes (see `subgroup`) ---------------
            SubgroupBallot
            | SubgroupElect
            | SubgroupBroadcastFirst
            | SubgroupBroadcast
            | SubgroupShuffle
            | SubgroupShuffleXor
            | SubgroupShuffleUp
            | SubgroupShuffleDown
            | SubgroupAll
            | SubgroupAny
            | SubgroupAllEqual
            | SubgroupAdd
            | SubgroupMul
            | SubgroupMin
            | SubgroupMax
            | SubgroupAnd
            | SubgroupOr
            | SubgroupXor
            | SubgroupInclusiveAdd
            | SubgroupInclusiveMul
            | SubgroupInclusiveMin
            | SubgroupInclusiveMax
            | SubgroupInclusiveAnd
            | SubgroupInclusiveOr
            | SubgroupInclusiveXor
            | SubgroupExclusiveAdd
            | SubgroupExclusiveMul
            | SubgroupExclusiveMin
            | SubgroupExclusiveMax
            | SubgroupExclusiveAnd
            | SubgroupExclusiveOr
            | SubgroupExclusiveXor => match inv.subgroup_result.take() {
                Some(v) => Some(v),
                None => {
                    inv.status = Status::Subgroup;
                    // Do not advance: the op completes when its instance is resolved.
                    self.executed -= 1;
                    return Ok(());
                }
            },
            // --- special registers --------------------------------------------------------
            ThreadId => Some(vec3(inv.regs.local_id)),
            WorkgroupId => Some(vec3(inv.regs.group_id)),
            DispatchId => {
                let r = inv.regs;
                Some(vec3(
                    [0, 1, 2].map(|i| r.group_id[i] * r.wg_size[i] + r.local_id[i]),
                ))
            }
            LocalInvocationIndex => Some(Val::S(u64::from(inv.regs.local_index))),
            WorkgroupSize => Some(vec3(inv.regs.wg_size)),
            NumWorkgroups => Some(vec3(inv.regs.num_groups)),
            DispatchSize => {
                let r = inv.regs;
                Some(vec3([0, 1, 2].map(|i| r.num_groups[i] * r.wg_size[i])))
            }
            SubgroupInvocationId => Some(Val::S(u64::from(
                inv.regs.subgroup_lane(self.options.subgroup_size),
            ))),
            SubgroupId => Some(Val::S(u64::from(
                inv.regs.subgroup_id(self.options.subgroup_size),
            ))),
            NumSubgroups => Some(Val::S(u64::from(
                inv.regs.num_subgroups(self.options.subgroup_size),
            ))),
            SubgroupSize => Some(Val::S(u64::from(self.options.subgroup_size))),
            FragCoord => Some(Val::V(
                self.stage
                    .frag_coord
                    .iter()
                    .map(|x| u64::from(x.to_bits()))
                    .collect(),
            )),
            FrontFacing => Some(Val::S(u64::from(self.stage.front_facing))),
            VertexIndex => Some(Val::S(u64::from(self.stage.vertex_index))),
            InstanceIndex => Some(Val::S(u64::from(self.stage.instance_index))),
            BaseInstance | SampleIndex | PrimitiveId => Some(Val::S(0)),
            // --- textures -----------------------------------------------------------------
            TextureSample => self.texture(&cur, sample(false, 3))?,
            TextureSampleBias | TextureSampleLevel => self.texture(&cur, sample(false, 4))?,
            TextureSampleGrad => self.texture(&cur, sample(false, 5))?,
            TextureSampleCompare | TextureSampleCompareLevel => {
                self.texture(&cur, sample(true, 4))?
            }
            TextureGather => self.texture(&cur, TextureAccess::Gather { compare: false })?,
            TextureGatherCompare => self.texture(&cur, TextureAccess::Gather { compare: true })?,
            TextureLoad => self.texture(&cur, TextureAccess::Load)?,
            TextureStore => self.texture(&cur, TextureAccess::Store)?,
            TextureDimensions => self.texture(&cur, TextureAccess::Dimensions)?,
            TextureNumLevels => self.texture(&cur, TextureAccess::NumLevels)?,
            TextureNumLayers => self.texture(&cur, TextureAccess::NumLayers)?,
            TextureNumSamples => self.texture(&cur, TextureAccess::NumSamples)?,
            // --- calls and debugging --------------------------------------------------------
            Call => {
                let Payload::Callee(callee) = &cur.data.payload else {
                    return Err(ErrorKind::Malformed("call without callee"));
                };
                self.push_frame(inv, *callee, &cur.args, cur.result)?;
                return Ok(());
            }
            Print => {
                let vals: Vec<Val> = cur.args.to_vec();
                self.prints.push(format!("{} {vals:?}", cur.message()));
                None
            }
            Assert => {
                if cur.arg(0).bits() == 0 {
                    return Err(ErrorKind::AssertionFailed(cur.message()));
                }
                None
            }
            Clock => Some(Val::S(self.executed)),
        };
        let fr = inv
            .frames
            .last_mut()
            .ok_or(ErrorKind::Malformed("no frame"))?;
        if let (Some(r), Some(v)) = (cur.result, value) {
            fr.vals[r.as_u32() as usize] = v;
        }
        fr.pos += 1;
        Ok(())
    }

    fn linalg(&self, cur: &Current<'_>, lop: LinalgOp) -> Result<Val, ErrorKind> {
        let s = elem_of(&self.module.types, cur.arg_ty(0))?;
        crate::linalg::eval(lop, cur.data.opcode, s, &cur.args)
    }

    fn texture(&mut self, cur: &Current<'_>, top: TextureAccess) -> Result<Option<Val>, ErrorKind> {
        let types = &self.module.types;
        let res_ty = cur.result.map(|r| cur.f.dfg.value_type(r));
        self.texture_op(
            cur.data.opcode,
            top,
            types.get(cur.arg_ty(0)),
            &cur.args,
            res_ty,
            types,
        )
    }

    fn atomic(
        &mut self,
        group: &mut Group,
        inv: &mut Invocation,
        cur: &Current<'_>,
        update: AtomicUpdate,
    ) -> Result<Option<Val>, ErrorKind> {
        let types = &self.module.types;
        let p = cur
            .arg(0)
            .ptr()
            .ok_or(ErrorKind::Malformed("atomic through a non-pointer"))?;
        let TypeData::Pointer { pointee, .. } = types.get(cur.arg_ty(0)) else {
            return Err(ErrorKind::Malformed("atomic of a non-pointer"));
        };
        let ty = *pointee;
        let s = elem_of(types, ty)?;
        let old = self.load_ptr(group, inv, p, ty)?.bits();
        let new = match update {
            AtomicUpdate::Load => None,
            AtomicUpdate::Store | AtomicUpdate::Exchange => Some(cur.arg(1).bits()),
            AtomicUpdate::CompareExchange => (old == cur.arg(1).bits()).then(|| cur.arg(2).bits()),
            AtomicUpdate::Apply(op) => Some(scalar::binary(op, s, old, cur.arg(1).bits())?),
        };
        if let Some(n) = new {
            self.store_ptr(group, inv, p, ty, &Val::S(n))?;
        }
        Ok((update != AtomicUpdate::Store).then_some(Val::S(old)))
    }

    fn alloca(
        &mut self,
        group: &mut Group,
        inv: &mut Invocation,
        cur: &Current<'_>,
    ) -> Result<Val, ErrorKind> {
        let types = &self.module.types;
        let TypeData::Pointer { space, pointee } = types.get(cur.res_ty()?) else {
            return Err(ErrorKind::Malformed("alloca of a non-pointer type"));
        };
        let size = self
            .layouts
            .size(types, *pointee, LayoutRules::Std430)
            .map_err(ErrorKind::Layout)?;
        let what = || format!("alloca of {}", types.display(*pointee));
        let region = if *space == AddressSpace::Workgroup {
            let next = group.allocas.len() as u32;
            let id = *group.alloca_ids[cur.func][cur.inst].get_or_insert(next);
            if id == next {
                let size = self.reserve(size, what)?;
                group.allocas.push(vec![0u8; size]);
            }
            Region::WorkgroupAlloca(id)
        } else {
            let size = self.reserve(size, what)?;
            inv.allocas.push(vec![0u8; size]);
            Region::Function(inv.allocas.len() as u32 - 1)
        };
        Ok(Val::P(Ptr { region, offset: 0 }))
    }

    /// `access`: projects the pointer through each index; an index out of range makes
    /// the pointer out of bounds (or stops the run under `OutOfBounds::Error`). An index
    /// into a runtime-sized array at or past its `array_length` makes it out of bounds
    /// without stopping: the memory operation through it does.
    fn access(&mut self, cur: &Current<'_>) -> Result<Val, ErrorKind> {
        let types = &self.module.types;
        let mut p = cur
            .arg(0)
            .ptr()
            .ok_or(ErrorKind::Malformed("access through a non-pointer"))?;
        let rules = self.rules_of(p.region);
        let TypeData::Pointer { pointee, .. } = types.get(cur.arg_ty(0)) else {
            return Err(ErrorKind::Malformed("access of a non-pointer"));
        };
        let mut ty = *pointee;
        for i in 1..cur.args.len() {
            let raw = cur.arg(i).bits();
            let idx = if elem_of(types, cur.arg_ty(i))?.is_signed() && (raw as i64) < 0 {
                u64::MAX
            } else {
                raw
            };
            let (next, off, bound) = self.access_step(types, ty, rules, idx)?;
            if p.offset != POISON {
                if bound.is_some_and(|b| idx >= b) {
                    self.oob(MemoryOp::Access, p)?;
                    p.offset = POISON;
                } else {
                    let end = self.runtime_array_end(types, ty, rules, p, idx)?;
                    p.offset = p.offset.saturating_add(off);
                    if let Some(end) = end {
                        // Past `array_length`: moved to at least the buffer's end, so a
                        // load reads zero and a store is dropped; under
                        // `OutOfBounds::Error` the memory operation reports it (the
                        // bounds checks compute such an address and guard its use).
                        p.offset = p.offset.max(end);
                    }
                }
            }
            ty = next;
        }
        Ok(Val::P(p))
    }

    /// The byte length of the buffer when `ty` is a runtime-sized array that `base`
    /// points at and `idx` is at or past its `array_length` (the whole elements the
    /// buffer holds from `base` on), so that an element the buffer ends inside of is out
    /// of range, as the bounds checks and Vulkan count it; `None` otherwise (and for
    /// regions that are not buffers, which cannot hold one).
    fn runtime_array_end(
        &mut self,
        types: &TypeStore,
        ty: Type,
        rules: LayoutRules,
        base: Ptr,
        idx: u64,
    ) -> Result<Option<u64>, ErrorKind> {
        let (TypeData::RuntimeArray { .. }, Region::Buffer(g)) = (types.get(ty), base.region)
        else {
            return Ok(None);
        };
        let stride = self
            .layouts
            .get(types, ty, rules)
            .map_err(ErrorKind::Layout)?
            .stride
            .unwrap_or(0);
        let len = self.buffers[Global::from_u32(g)].len() as u64;
        let count = len.saturating_sub(base.offset) / u64::from(stride.max(1));
        Ok((idx >= count).then_some(len))
    }

    /// One index of an `access` into `ty`: the element type, its byte offset and the
    /// index bound (`None` for structs and runtime arrays).
    fn access_step(
        &mut self,
        types: &TypeStore,
        ty: Type,
        rules: LayoutRules,
        idx: u64,
    ) -> Result<(Type, u64, Option<u64>), ErrorKind> {
        let layout = self
            .layouts
            .get(types, ty, rules)
            .map_err(ErrorKind::Layout)?;
        let stride = u64::from(layout.stride.unwrap_or(0));
        let interned = |data: TypeData, what: &'static str| {
            types
                .iter()
                .find(|(_, d)| **d == data)
                .map(|(t, _)| t)
                .ok_or(ErrorKind::Malformed(what))
        };
        Ok(match types.get(ty) {
            TypeData::Struct(st) => {
                let k = idx as usize;
                let m = st
                    .members
                    .get(k)
                    .ok_or(ErrorKind::Malformed("struct member out of range"))?;
                (m.ty, u64::from(layout.offsets[k]), None)
            }
            TypeData::Array { elem, len, .. } => {
                (*elem, idx.saturating_mul(stride), Some(u64::from(*len)))
            }
            TypeData::RuntimeArray { elem, .. } => (*elem, idx.saturating_mul(stride), None),
            TypeData::Vector { elem, len } => {
                let n = if elem.is_bool() {
                    4
                } else {
                    u64::from(elem.bytes())
                };
                let et = interned(TypeData::Scalar(*elem), "vector element type not interned")?;
                (et, idx.saturating_mul(n), Some(u64::from(*len)))
            }
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => {
                let column = TypeData::Vector {
                    elem: *elem,
                    len: *rows,
                };
                let et = interned(column, "matrix column type not interned")?;
                (et, idx.saturating_mul(stride), Some(u64::from(*columns)))
            }
            _ => return Err(ErrorKind::Malformed("access into a non-composite")),
        })
    }

    fn array_length(
        &mut self,
        group: &mut Group,
        inv: &mut Invocation,
        cur: &Current<'_>,
    ) -> Result<Val, ErrorKind> {
        let types = &self.module.types;
        let p = cur
            .arg(0)
            .ptr()
            .ok_or(ErrorKind::Malformed("array_length of a non-pointer"))?;
        let rules = self.rules_of(p.region);
        let TypeData::Pointer { pointee, .. } = types.get(cur.arg_ty(0)) else {
            return Err(ErrorKind::Malformed("array_length of a non-pointer"));
        };
        let (off, stride) = runtime_array_tail(types, *pointee, rules)
            .map_err(|e| ErrorKind::Layout(e.to_string()))?
            .ok_or(ErrorKind::Malformed("array_length of a sized type"))?;
        let len = Self::region(&mut self.buffers, group, inv, p.region).len() as u64;
        let start = p.offset.saturating_add(u64::from(off));
        Ok(Val::S(len.saturating_sub(start) / u64::from(stride.max(1))))
    }
}

/// Moves to `dest`, passing its block arguments.
fn take_edge(inv: &mut Invocation, f: &Function, dest: &BlockCall) {
    let Some(fr) = inv.frames.last_mut() else {
        return;
    };
    if !dest.args.is_empty() {
        let args: SmallVec<[Val; 4]> = dest.args.iter().map(|&v| value_of(fr, f, v)).collect();
        for (p, a) in f.dfg.block_params(dest.block).iter().zip(args) {
            fr.vals[p.as_u32() as usize] = a;
        }
    }
    fr.block = dest.block;
    fr.pos = 0;
}

/// Pops the top frame, handing `rets` to the caller or finishing the invocation; returns
/// the bytes of the function variables it freed.
fn return_from(inv: &mut Invocation, rets: Vec<Val>) -> u64 {
    let Some(done) = inv.frames.pop() else {
        return 0;
    };
    let freed = inv
        .allocas
        .iter()
        .skip(done.alloca_mark)
        .map(|a| a.len() as u64)
        .sum();
    inv.allocas.truncate(done.alloca_mark);
    match inv.frames.last_mut() {
        Some(caller) => {
            if let (Some(to), Some(v)) = (done.ret_to, rets.into_iter().next()) {
                caller.vals[to.as_u32() as usize] = v;
            }
            caller.pos += 1;
        }
        None => inv.status = Status::Done(rets),
    }
    freed
}

/// `select`: a bool vector condition selects per lane, a scalar one the whole value.
fn select(cur: &Current<'_>) -> Val {
    match cur.arg(0) {
        Val::V(cl) => {
            let (a, b) = (cur.arg(1).lanes(), cur.arg(2).lanes());
            Val::V(
                (0..cl.len())
                    .map(|i| scalar::select(cl[i], a[i], b[i]))
                    .collect(),
            )
        }
        c => {
            if c.bits() != 0 {
                cur.arg(1).clone()
            } else {
                cur.arg(2).clone()
            }
        }
    }
}

/// `bitcast`: reinterprets the little-endian bytes of the lanes.
fn bitcast(types: &TypeStore, cur: &Current<'_>) -> Result<Val, ErrorKind> {
    let from = elem_of(types, cur.arg_ty(0))?;
    let rt = cur.res_ty()?;
    let to = elem_of(types, rt)?;
    let mut bytes = Vec::new();
    for lane in cur.arg(0).lanes() {
        bytes.extend_from_slice(&lane.to_le_bytes()[..from.bytes() as usize]);
    }
    let n = to.bytes() as usize;
    let lanes: Lanes = bytes
        .chunks(n)
        .map(|c| {
            let mut raw = [0u8; 8];
            raw[..n].copy_from_slice(c);
            scalar::canon(to, u64::from_le_bytes(raw))
        })
        .collect();
    match types.get(rt) {
        TypeData::Vector { .. } => Ok(Val::V(lanes)),
        TypeData::Scalar(_) => lanes
            .first()
            .map(|&lane| Val::S(lane))
            .ok_or(ErrorKind::Malformed("a bitcast of no lanes")),
        TypeData::Matrix { .. }
        | TypeData::Array { .. }
        | TypeData::Struct(_)
        | TypeData::Void
        | TypeData::RuntimeArray { .. }
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => Err(ErrorKind::Malformed(
            "a bitcast to a type other than a scalar or vector",
        )),
    }
}

fn construct(types: &TypeStore, cur: &Current<'_>) -> Result<Val, ErrorKind> {
    let parts = cur.args.to_vec();
    match types.get(cur.res_ty()?) {
        TypeData::Vector { .. } => Ok(Val::V(parts.iter().flat_map(|p| p.lanes()).collect())),
        TypeData::Matrix { .. } | TypeData::Array { .. } | TypeData::Struct(_) => Ok(Val::C(parts)),
        TypeData::Scalar(_)
        | TypeData::Void
        | TypeData::RuntimeArray { .. }
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => Err(ErrorKind::Malformed(
            "a construct of a type other than a composite",
        )),
    }
}

fn splat(types: &TypeStore, cur: &Current<'_>) -> Result<Val, ErrorKind> {
    let n = match types.get(cur.res_ty()?) {
        TypeData::Vector { len, .. } => usize::from(*len),
        TypeData::Scalar(_)
        | TypeData::Matrix { .. }
        | TypeData::Array { .. }
        | TypeData::Struct(_)
        | TypeData::Void
        | TypeData::RuntimeArray { .. }
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => {
            return Err(ErrorKind::Malformed(
                "a splat to a type other than a vector",
            ))
        }
    };
    Ok(Val::V(Lanes::from_elem(cur.arg(0).bits(), n)))
}

fn indices<'a>(cur: &Current<'a>, what: &'static str) -> Result<&'a [u32], ErrorKind> {
    match &cur.data.payload {
        Payload::Indices(path) => Ok(path),
        _ => Err(ErrorKind::Malformed(what)),
    }
}

fn extract(cur: &Current<'_>) -> Result<Val, ErrorKind> {
    let mut v = cur.arg(0).clone();
    for &i in indices(cur, "extract without indices")? {
        v = project(&v, u64::from(i)).ok_or(ErrorKind::Malformed("extract index out of range"))?;
    }
    Ok(v)
}

fn insert(cur: &Current<'_>) -> Result<Val, ErrorKind> {
    let path = indices(cur, "extract without indices")?;
    let mut v = cur.arg(0).clone();
    replace(&mut v, path, cur.arg(1).clone())
        .ok_or(ErrorKind::Malformed("insert index out of range"))?;
    Ok(v)
}

/// Out of range: the zero of the element type (WGSL allows any value).
fn extract_dynamic(types: &TypeStore, cur: &Current<'_>) -> Result<Val, ErrorKind> {
    Ok(match project(cur.arg(0), cur.arg(1).bits()) {
        Some(x) => x,
        None => memory::zero(types, cur.res_ty()?),
    })
}

/// `insert_dynamic agg, elem, index`; an index out of range leaves the composite
/// unchanged.
fn insert_dynamic(cur: &Current<'_>) -> Val {
    let idx = cur.arg(2).bits();
    let mut v = cur.arg(0).clone();
    if idx <= u64::from(u32::MAX) {
        let _ = replace(&mut v, &[idx as u32], cur.arg(1).clone());
    }
    v
}

fn shuffle(cur: &Current<'_>) -> Result<Val, ErrorKind> {
    let lanes = indices(cur, "shuffle without indices")?;
    let mut all = cur.arg(0).lanes();
    all.extend(cur.arg(1).lanes());
    lanes
        .iter()
        .map(|&i| all.get(i as usize).copied())
        .collect::<Option<Lanes>>()
        .map(Val::V)
        .ok_or(ErrorKind::Malformed("shuffle index out of range"))
}

/// The sampling access of an op with `operands` operands before its optional texel
/// offset (the array layer not counted).
fn sample(compare: bool, operands: usize) -> TextureAccess {
    TextureAccess::Sample { compare, operands }
}
