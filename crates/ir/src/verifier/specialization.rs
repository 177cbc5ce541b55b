//! Point 12 of the verifier: one default per specialization id. Every `spec_constant`
//! of the module that names the same id has the same default constant (constants are
//! interned, so that is one type and one value), since a pipeline sets one value per id
//! ([`ErrorKind::ConflictingSpecConstant`]). A kernel's specialisable workgroup
//! dimensions (`workgroup_size(64 spec_id 0, ...)`) take ids that no other dimension of
//! the same kernel names (SPIR-V writes each dimension as its own constant) and that a
//! `spec_constant` names only with the same `u32` default (the body reading the size's
//! override: one `u32` the pipeline sets, one `OpSpecConstant` in SPIR-V); kernels
//! sharing an id give it the same default. Linear: one pass over each layout, the ids seen kept sorted in a
//! vector.

use super::{ErrorKind, Location, Verifier};
use crate::dfg::ValueDef;
use crate::entities::Const;
use crate::instructions::Payload;
use crate::ops::Opcode;

impl Verifier<'_> {
    pub(crate) fn check_spec_constants(&mut self) {
        let instructions = self.check_spec_constant_insts();
        self.check_workgroup_spec_ids(&instructions);
    }

    /// Workgroup-size ids against each other and against the `spec_constant` ids.
    fn check_workgroup_spec_ids(&mut self, instructions: &[(u32, Const)]) {
        use crate::function::FunctionKind;
        let module = self.module;
        let mut seen: Vec<(u32, u32)> = Vec::new();
        for (func, f) in module.functions.iter() {
            let FunctionKind::Kernel {
                workgroup_size,
                workgroup_spec_ids,
            } = f.kind
            else {
                continue;
            };
            for (dim, (&default, id)) in workgroup_size.iter().zip(workgroup_spec_ids).enumerate() {
                let Some(id) = id else { continue };
                let earlier_dim = workgroup_spec_ids[..dim].contains(&Some(id));
                let by_instruction = match instructions.binary_search_by_key(&id, |&(i, _)| i) {
                    Ok(at) => !self.is_u32_constant(instructions[at].1, default),
                    Err(_) => false,
                };
                let other_default = match seen.binary_search_by_key(&id, |&(i, _)| i) {
                    Ok(at) => (seen[at].1 != default).then_some(seen[at].1),
                    Err(at) => {
                        seen.insert(at, (id, default));
                        None
                    }
                };
                let why = if earlier_dim {
                    "names two workgroup dimensions of this kernel".to_string()
                } else if by_instruction {
                    "is also the id of a `spec_constant` whose default is not this u32".to_string()
                } else if let Some(other) = other_default {
                    format!("has default {default} here and {other} in another kernel")
                } else {
                    continue;
                };
                self.report(
                    ErrorKind::ConflictingSpecConstant,
                    Location::Function(func),
                    format!("workgroup size specialization id {id} {why}"),
                );
            }
        }
    }

    /// Whether `c` is the `u32` constant `value`.
    fn is_u32_constant(&self, c: Const, value: u32) -> bool {
        use crate::constants::ConstKind;
        use crate::types::{Scalar, TypeData};
        let data = self.module.consts.get(c);
        let bits = match data.kind {
            ConstKind::Scalar(bits) => bits,
            ConstKind::Zero => 0,
            ConstKind::Composite(_) | ConstKind::Undef => return false,
        };
        *self.module.types.get(data.ty) == TypeData::Scalar(Scalar::U32) && bits == u64::from(value)
    }

    /// `spec_constant` ids against each other; the ids and defaults, sorted by id.
    fn check_spec_constant_insts(&mut self) -> Vec<(u32, Const)> {
        let module = self.module;
        let mut seen: Vec<(u32, Const)> = Vec::new();
        for (func, f) in module.functions.iter() {
            for block in f.layout.blocks() {
                for inst in f.layout.block_insts(block) {
                    // A layout naming a missing instruction is the layout checks' report.
                    let Some(data) = f.dfg.insts.get(inst) else {
                        continue;
                    };
                    if data.opcode != Opcode::SpecConstant {
                        continue;
                    }
                    let (Payload::Indices(ids), [default]) = (&data.payload, &data.args[..]) else {
                        continue; // the instruction checks report the malformed shape
                    };
                    let def = f.dfg.values.get(f.dfg.resolve(*default)).map(|d| d.def);
                    let (Some(&id), Some(ValueDef::Const(default))) = (ids.first(), def) else {
                        continue;
                    };
                    match seen.binary_search_by_key(&id, |&(i, _)| i) {
                        Ok(at) if seen[at].1 != default => self.report(
                            ErrorKind::ConflictingSpecConstant,
                            Location::Inst(func, block, inst),
                            format!(
                                "specialization id {id} has default {default} here and {} \
                                 elsewhere in the module",
                                seen[at].1
                            ),
                        ),
                        Ok(_) => {}
                        Err(at) => seen.insert(at, (id, default)),
                    }
                }
            }
        }
        seen
    }
}
