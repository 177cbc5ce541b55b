//! Entry-point interfaces: built-in input variables.
//!
//! One `Input` variable per (built-in, type), shared by every entry point that reads it;
//! each entry point lists the variables it uses in its `OpEntryPoint` interface.

use super::*;

/// The SPIR-V built-in of a compute-stage oxir built-in.
pub(crate) fn compute_builtin(b: Builtin) -> Option<BuiltIn> {
    Some(match b {
        Builtin::LocalInvocationId => BuiltIn::LocalInvocationId,
        Builtin::LocalInvocationIndex => BuiltIn::LocalInvocationIndex,
        Builtin::GlobalInvocationId => BuiltIn::GlobalInvocationId,
        Builtin::WorkgroupId => BuiltIn::WorkgroupId,
        Builtin::NumWorkgroups => BuiltIn::NumWorkgroups,
        Builtin::SubgroupInvocationId => BuiltIn::SubgroupLocalInvocationId,
        Builtin::SubgroupSize => BuiltIn::SubgroupSize,
        _ => return None,
    })
}

impl Writer<'_> {
    pub(super) fn builtin_var(&mut self, builtin: BuiltIn, ty: Type) -> R<Word> {
        let id = if let Some(&id) = self.builtins.get(&(builtin, ty)) {
            id
        } else {
            if matches!(
                builtin,
                BuiltIn::SubgroupLocalInvocationId | BuiltIn::SubgroupSize
            ) {
                self.cap(Capability::GroupNonUniform);
            }
            let t = self.ty(ty)?;
            let pt = self.b.type_pointer(None, StorageClass::Input, t);
            let id = self.b.id();
            self.b
                .module_mut()
                .types_global_values
                .push(Instruction::new(
                    Op::Variable,
                    Some(pt),
                    Some(id),
                    vec![Operand::StorageClass(StorageClass::Input)],
                ));
            self.b
                .decorate(id, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
            self.builtins.insert((builtin, ty), id);
            id
        };
        if !self.interface.contains(&id) {
            self.interface.push(id);
        }
        Ok(id)
    }

    pub(super) fn load_builtin(
        &mut self,
        builtin: BuiltIn,
        ty: Type,
        result: Option<Word>,
    ) -> R<Word> {
        let var = self.builtin_var(builtin, ty)?;
        let t = self.ty(ty)?;
        self.op(Op::Load, Some(t), result, vec![Operand::IdRef(var)])
    }
}
