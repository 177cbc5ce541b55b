//! Point 12 of the verifier: one default per specialization id. Every `spec_constant`
//! of the module that names the same id has the same default constant (constants are
//! interned, so that is one type and one value), since a pipeline sets one value per id
//! ([`ErrorKind::ConflictingSpecConstant`]). Linear: one pass over each layout, the ids
//! seen kept sorted in a vector.

use super::{ErrorKind, Location, Verifier};
use crate::dfg::ValueDef;
use crate::entities::Const;
use crate::instructions::Payload;
use crate::ops::Opcode;

impl Verifier<'_> {
    pub(crate) fn check_spec_constants(&mut self) {
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
    }
}
