//! Values that a loop's `continuing` block uses from its body, when a `continue` can skip
//! their definition.
//!
//! naga puts the expressions emitted at the top level of a loop body in scope in its
//! `continuing` block and `break_if`. When a `continue` comes before such an `Emit`, the
//! body's definition does not dominate the `continuing` block (WGSL forbids the program,
//! but naga accepts it). The lowering then *spills* each such value: the body stores it
//! into a function-local slot right after evaluating it, and the `continuing` block loads
//! it (the previous iteration's value, or `zero`, when the `continue` skipped it).
//! `mem2reg` removes the slot again. Pointer values cannot be stored and are refused.
//!
//! [`continuing_uses`] lists the expressions the `continuing` block and `break_if` read
//! directly; [`continues_loop`] says whether a statement can `continue` the loop being
//! lowered.

use naga::{Expression, Handle, Statement};
use std::collections::HashSet;

/// Calls `visit` on each expression operand of `expression`.
pub(crate) fn for_each_operand(expression: &Expression, mut visit: impl FnMut(Handle<Expression>)) {
    use naga::SampleLevel;
    match *expression {
        Expression::Literal(_)
        | Expression::Constant(_)
        | Expression::Override(_)
        | Expression::ZeroValue(_)
        | Expression::FunctionArgument(_)
        | Expression::GlobalVariable(_)
        | Expression::LocalVariable(_)
        | Expression::CallResult(_)
        | Expression::AtomicResult { .. }
        | Expression::WorkGroupUniformLoadResult { .. }
        | Expression::RayQueryProceedResult
        | Expression::SubgroupBallotResult
        | Expression::SubgroupOperationResult { .. } => {}
        Expression::Compose { ref components, .. } => components.iter().copied().for_each(visit),
        Expression::Access { base, index } => {
            visit(base);
            visit(index);
        }
        Expression::AccessIndex { base, .. } => visit(base),
        Expression::Splat { value, .. } => visit(value),
        Expression::Swizzle { vector, .. } => visit(vector),
        Expression::Load { pointer } => visit(pointer),
        Expression::ImageSample {
            image,
            sampler,
            coordinate,
            array_index,
            offset,
            level,
            depth_ref,
            ..
        } => {
            [image, sampler, coordinate]
                .into_iter()
                .for_each(&mut visit);
            array_index
                .into_iter()
                .chain(offset)
                .chain(depth_ref)
                .for_each(&mut visit);
            match level {
                SampleLevel::Auto | SampleLevel::Zero => {}
                SampleLevel::Exact(h) | SampleLevel::Bias(h) => visit(h),
                SampleLevel::Gradient { x, y } => {
                    visit(x);
                    visit(y);
                }
            }
        }
        Expression::ImageLoad {
            image,
            coordinate,
            array_index,
            sample,
            level,
        } => {
            visit(image);
            visit(coordinate);
            array_index
                .into_iter()
                .chain(sample)
                .chain(level)
                .for_each(visit);
        }
        Expression::ImageQuery { image, query } => {
            visit(image);
            if let naga::ImageQuery::Size { level: Some(level) } = query {
                visit(level);
            }
        }
        Expression::Unary { expr, .. } => visit(expr),
        Expression::Binary { left, right, .. } => {
            visit(left);
            visit(right);
        }
        Expression::Select {
            condition,
            accept,
            reject,
        } => [condition, accept, reject].into_iter().for_each(visit),
        Expression::Derivative { expr, .. } => visit(expr),
        Expression::Relational { argument, .. } => visit(argument),
        Expression::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => std::iter::once(arg)
            .chain(arg1)
            .chain(arg2)
            .chain(arg3)
            .for_each(visit),
        Expression::As { expr, .. } => visit(expr),
        Expression::ArrayLength(pointer) => visit(pointer),
        Expression::RayQueryVertexPositions { query, .. }
        | Expression::RayQueryGetIntersection { query, .. } => visit(query),
        Expression::CooperativeLoad { ref data, .. } => {
            visit(data.pointer);
            visit(data.stride);
        }
        Expression::CooperativeMultiplyAdd { a, b, c } => [a, b, c].into_iter().for_each(visit),
    }
}

/// Calls `visit` on each expression a statement reads directly (not those of nested blocks).
fn for_each_statement_operand(statement: &Statement, mut visit: impl FnMut(Handle<Expression>)) {
    match *statement {
        Statement::If { condition, .. } => visit(condition),
        Statement::Switch { selector, .. } => visit(selector),
        Statement::Loop { break_if, .. } => break_if.into_iter().for_each(visit),
        Statement::Return { value } => value.into_iter().for_each(visit),
        Statement::Store { pointer, value } => {
            visit(pointer);
            visit(value);
        }
        Statement::ImageStore {
            image,
            coordinate,
            array_index,
            value,
        } => {
            [image, coordinate, value].into_iter().for_each(&mut visit);
            array_index.into_iter().for_each(visit);
        }
        Statement::Atomic {
            pointer,
            fun,
            value,
            ..
        } => {
            visit(pointer);
            visit(value);
            if let naga::AtomicFunction::Exchange { compare: Some(c) } = fun {
                visit(c);
            }
        }
        Statement::ImageAtomic {
            image,
            coordinate,
            array_index,
            value,
            ..
        } => {
            [image, coordinate, value].into_iter().for_each(&mut visit);
            array_index.into_iter().for_each(visit);
        }
        Statement::WorkGroupUniformLoad { pointer, .. } => visit(pointer),
        Statement::Call { ref arguments, .. } => arguments.iter().copied().for_each(visit),
        Statement::RayQuery { query, .. } => visit(query),
        Statement::SubgroupBallot { predicate, .. } => predicate.into_iter().for_each(visit),
        Statement::SubgroupGather { argument, .. }
        | Statement::SubgroupCollectiveOperation { argument, .. } => visit(argument),
        Statement::CooperativeStore { target, data } => {
            visit(target);
            visit(data.pointer);
            visit(data.stride);
        }
        // Reads no expression directly (nested blocks are walked separately), or is
        // refused before its operands matter.
        Statement::Emit(_)
        | Statement::Block(_)
        | Statement::Break
        | Statement::Continue
        | Statement::Kill
        | Statement::ControlBarrier(_)
        | Statement::MemoryBarrier(_)
        | Statement::RayPipelineFunction(_) => {}
    }
}

/// The expressions that `continuing` (with its nested blocks) and `break_if` read: the
/// operands of the expressions it emits and of its statements.
pub(crate) fn continuing_uses(
    function: &naga::Function,
    continuing: &naga::Block,
    break_if: Option<Handle<Expression>>,
) -> HashSet<Handle<Expression>> {
    let mut uses: HashSet<Handle<Expression>> = break_if.into_iter().collect();
    crate::module::walk_statements(continuing, &mut |statement| {
        if let Statement::Emit(range) = statement {
            for handle in range.clone() {
                for_each_operand(&function.expressions[handle], |h| {
                    uses.insert(h);
                });
            }
        }
        for_each_statement_operand(statement, |h| {
            uses.insert(h);
        });
    });
    uses
}

/// Whether `statement` contains a `Continue` of the loop it is in (nested loops have
/// their own).
pub(crate) fn continues_loop(statement: &Statement) -> bool {
    match statement {
        Statement::Continue => true,
        Statement::Block(block) => block.iter().any(continues_loop),
        Statement::If { accept, reject, .. } => {
            accept.iter().any(continues_loop) || reject.iter().any(continues_loop)
        }
        Statement::Switch { cases, .. } => cases
            .iter()
            .any(|case| case.body.iter().any(continues_loop)),
        _ => false,
    }
}
