//! Overrides kept as specialization constants (`oxir compile --spec-constants`): instead
//! of being replaced by constants before lowering (`overrides.rs`), each override a
//! function reads becomes `spec_constant DEFAULT, ID` in the IR, which the SPIR-V back-end
//! writes as an `OpSpecConstant` decorated `SpecId ID`, so that a Vulkan pipeline can set
//! it when it is created.
//!
//! [`plan_spec_constants`] decides, for every override of the module:
//!
//! - its **specialization id**: its `@id(N)` when it has one; otherwise the lowest id that
//!   no `@id` of the module and no earlier override (in declaration order) takes
//!   ([`spec_ids`], which `reflect` reports too);
//! - its **default**, the value a pipeline that sets nothing gets: the value given with
//!   `--override` (checked as `overrides.rs` checks it: known name or id, no duplicate,
//!   a value of the override's type), else its initializer when that is one value.
//!
//! Refused, each a located [`OverrideError`] (the declaration is the location), rather than
//! written with a meaning the pipeline cannot change:
//!
//! - an override without a value: no initializer and none given
//!   ([`OverrideProblem::Missing`]);
//! - an override whose initializer reads other overrides and that is given no value: one
//!   SPIR-V specialization constant cannot both be set by the pipeline and follow the
//!   others ([`OverrideProblem::DerivedDefault`]);
//! - a workgroup size computed from overrides (`@workgroup_size(wg * 2)`): SPIR-V's
//!   `WorkgroupSize` takes one specialization constant per dimension
//!   ([`OverrideProblem::SpecWorkgroupSize`]). A dimension that is one override
//!   (`@workgroup_size(wg)`) is kept: the kernel's dimension takes the override's
//!   specialization id and default, written as a `BuiltIn WorkgroupSize` spec-constant
//!   composite.
//!
//! Arrays sized by an override are refused by the type lowering when overrides are kept.

use crate::override_values::OverrideValue;
use crate::overrides::{
    label, literal_value, match_settings, OverrideError, OverrideProblem, OverrideSetting,
};
use naga::{Handle, Module, Override, Span};

/// What the lowering writes for each override: its specialization id and default,
/// indexed by the override's handle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpecPlan {
    entries: Vec<(u32, OverrideValue)>,
}

impl SpecPlan {
    /// The specialization id and default of `handle`.
    pub(crate) fn get(&self, handle: Handle<Override>) -> Option<(u32, OverrideValue)> {
        self.entries.get(handle.index()).copied()
    }
}

/// The specialization id of every override of `module`, in declaration order (module
/// docs): the `@id` when there is one, else the lowest id nothing else takes.
pub fn spec_ids(module: &Module) -> Vec<u32> {
    let mut explicit: Vec<u32> = module
        .overrides
        .iter()
        .filter_map(|(_, o)| o.id.map(u32::from))
        .collect();
    explicit.sort_unstable();
    let mut next = 0u32;
    let mut at = 0usize;
    let mut take_free = || loop {
        while at < explicit.len() && explicit[at] < next {
            at += 1;
        }
        if at < explicit.len() && explicit[at] == next {
            next += 1;
            continue;
        }
        next += 1;
        return next - 1;
    };
    module
        .overrides
        .iter()
        .map(|(_, o)| match o.id {
            Some(id) => u32::from(id),
            None => take_free(),
        })
        .collect()
}

/// The plan of `module`'s overrides with `settings` applied as defaults (module docs).
pub fn plan_spec_constants(
    module: &Module,
    settings: &[OverrideSetting],
) -> Result<SpecPlan, OverrideError> {
    let chosen = match_settings(module, settings)?;
    let ids = spec_ids(module);
    let mut entries = Vec::with_capacity(module.overrides.len());
    for ((handle, o), id) in module.overrides.iter().zip(ids) {
        let span = module.overrides.get_span(handle);
        let given = chosen.iter().find(|c| c.handle == handle).map(|c| c.value);
        let value = match (given, o.init) {
            (Some(value), _) => value,
            (None, None) => return Err(problem(OverrideProblem::Missing { name: label(o) }, span)),
            (None, Some(init)) => literal_value(module, init)
                .ok_or_else(|| problem(OverrideProblem::DerivedDefault { name: label(o) }, span))?,
        };
        entries.push((id, value));
    }
    check_workgroup_sizes(module)?;
    Ok(SpecPlan { entries })
}

fn problem(problem: OverrideProblem, span: Span) -> OverrideError {
    OverrideError::new(problem, span)
}

/// Refuses an entry point whose workgroup size is computed from overrides rather than
/// being one override (the span is that of the size's expression); a size that is one
/// override becomes a specialisable dimension of the kernel (`entry_points.rs`).
fn check_workgroup_sizes(module: &Module) -> Result<(), OverrideError> {
    for entry in &module.entry_points {
        let sizes = entry.workgroup_size_overrides.iter().flatten();
        let derived = sizes.flatten().find(|&&size| {
            !matches!(
                module.global_expressions[size],
                naga::Expression::Override(_)
            )
        });
        if let Some(&size) = derived {
            let problem = OverrideProblem::SpecWorkgroupSize {
                entry: entry.name.clone(),
            };
            return Err(OverrideError::new(
                problem,
                module.global_expressions.get_span(size),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    fn ids(decls: &str) -> Vec<u32> {
        let source = format!("{decls}\n@compute @workgroup_size(1) fn main() {{}}");
        super::spec_ids(&crate::parse_wgsl(&source, "t.wgsl").unwrap().module)
    }

    #[test]
    fn implicit_ids_skip_explicit_ones_in_declaration_order() {
        assert_eq!(ids("override a = 1u; override b = 2u;"), [0, 1]);
        assert_eq!(
            ids("@id(1) override a = 1u; override b = 2u; override c = 3u;"),
            [1, 0, 2]
        );
        assert_eq!(
            ids(
                "override a = 1u; @id(0) override b = 2u; @id(2) override c = 3u; override d = 1u;"
            ),
            [1, 0, 2, 3]
        );
        assert_eq!(
            ids("@id(65535) override a = 1u; override b = 2u;"),
            [65535, 0]
        );
    }
}
