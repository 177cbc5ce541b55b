//! Structured constructs (point 10) and the options about them (point 11): roles,
//! loop-role distinctness, unique merges, and `break` / `continue` targets.
//!
//! "Nearest enclosing construct" of a block `x` is computed for every reachable block in one
//! top-down pass over the dominator tree: starting from `x`'s immediate dominator `p` (if
//! `p` ends in a candidate construct) or from `p`'s own nearest construct, skip constructs
//! whose merge dominates `x` (the block is after them) by jumping to *their* nearest
//! construct. Each skip passes a construct whose merge lies on `x`'s dominator path, so the
//! pass is linear in practice.

use super::function_body::BodyFacts;
use super::{ErrorKind, Location, Verifier};
use crate::dominance::NONE;
use crate::function::Function;
use crate::instructions::Payload;
use crate::ops::Opcode;

/// What a block's terminator opens, as dense block numbers.
#[derive(Copy, Clone, PartialEq, Eq)]
enum ConstructKind {
    None,
    If,
    Loop,
    SimpleLoop,
    Switch,
}

#[derive(Copy, Clone)]
struct Construct {
    kind: ConstructKind,
    /// Merge block, `NONE` when absent or outside the layout.
    merge: u32,
    /// Where `continue` goes: a loop's update block, a simple loop's body.
    continue_target: u32,
}

impl Construct {
    const NONE: Construct = Construct {
        kind: ConstructKind::None,
        merge: NONE,
        continue_target: NONE,
    };

    fn is_breakable(&self) -> bool {
        matches!(
            self.kind,
            ConstructKind::Loop | ConstructKind::SimpleLoop | ConstructKind::Switch
        )
    }

    fn is_loop(&self) -> bool {
        matches!(self.kind, ConstructKind::Loop | ConstructKind::SimpleLoop)
    }

    fn name(&self) -> &'static str {
        match self.kind {
            ConstructKind::None => "block",
            ConstructKind::If => "if",
            ConstructKind::Loop => "loop",
            ConstructKind::SimpleLoop => "simple_loop",
            ConstructKind::Switch => "switch",
        }
    }
}

impl Verifier<'_> {
    pub(crate) fn check_structure(&mut self, function: &Function, facts: &BodyFacts) {
        let count = facts.blocks.len();
        let dfg = &function.dfg;
        let mut constructs = vec![Construct::NONE; count];
        let mut merge_owner = vec![NONE; count];
        let mut is_break_target = vec![false; count];
        let mut is_continue_target = vec![false; count];
        let mut exits = Vec::new();
        for (header, &terminator) in facts.terminators.iter().enumerate() {
            let Some(terminator) = terminator else {
                continue;
            };
            let data = &dfg.insts[terminator];
            if data.payload.format() != data.opcode.info().format {
                continue; // reported as a wrong payload
            }
            if data.opcode.is_structured_exit() {
                exits.push(header);
            }
            if !data.opcode.is_structured() {
                continue;
            }
            let location = Location::Inst(facts.func, facts.blocks[header], terminator);
            for role in data.payload.roles() {
                match facts.dense(role) {
                    NONE => {
                        let message =
                            format!("the structural role {role} is not a block in the layout");
                        self.report(ErrorKind::MalformedStructure, location.clone(), message);
                    }
                    0 => {
                        let message = format!("the entry block {role} cannot be a structural role");
                        self.report(ErrorKind::MalformedStructure, location.clone(), message);
                    }
                    _ => {}
                }
            }
            let mut construct = Construct::NONE;
            match &data.payload {
                Payload::If { .. } => construct.kind = ConstructKind::If,
                Payload::Loop {
                    prepare,
                    body,
                    update,
                    merge,
                } => {
                    let roles = [
                        ("prepare", prepare.block),
                        ("body", *body),
                        ("update", *update),
                        ("merge", *merge),
                    ];
                    for (i, (first_name, first)) in roles.iter().enumerate() {
                        for (second_name, second) in &roles[i + 1..] {
                            if first == second {
                                let message = format!("the loop's {first_name} and {second_name} blocks are both {first}");
                                self.report(
                                    ErrorKind::MalformedStructure,
                                    location.clone(),
                                    message,
                                );
                            }
                        }
                    }
                    construct.kind = ConstructKind::Loop;
                    construct.continue_target = facts.dense(*update);
                }
                Payload::SimpleLoop { body, merge } => {
                    if body.block == *merge {
                        let message =
                            format!("the simple_loop's body and merge blocks are both {merge}");
                        self.report(ErrorKind::MalformedStructure, location.clone(), message);
                    }
                    construct.kind = ConstructKind::SimpleLoop;
                    construct.continue_target = facts.dense(body.block);
                }
                Payload::Switch { .. } => construct.kind = ConstructKind::Switch,
                // Not structured: excluded above.
                Payload::None
                | Payload::Indices(_)
                | Payload::Callee(_)
                | Payload::Message(_)
                | Payload::Jump(_)
                | Payload::CondBranch { .. }
                | Payload::SwitchBranch(_) => continue,
            }
            construct.merge = data.payload.merge().map_or(NONE, |m| facts.dense(m));
            if construct.merge != NONE {
                let merge = construct.merge as usize;
                let owner = merge_owner[merge];
                if owner == NONE {
                    merge_owner[merge] = header as u32;
                } else if self.options.require_unique_merge_blocks {
                    let (merge_block, owner_block) =
                        (facts.blocks[merge], facts.blocks[owner as usize]);
                    let message = format!("{merge_block} is already the merge block of the construct ending {owner_block}");
                    self.report(ErrorKind::DuplicateMerge, location.clone(), message);
                }
                if construct.is_breakable() {
                    is_break_target[merge] = true;
                }
            }
            if construct.continue_target != NONE {
                is_continue_target[construct.continue_target as usize] = true;
            }
            constructs[header] = construct;
        }
        if exits.is_empty() {
            return;
        }

        let canonical = self.options.require_canonical_break_continue_targets;
        let (nearest_breakable, nearest_loop) = if canonical {
            (
                nearest_open_constructs(facts, &constructs, Construct::is_breakable),
                nearest_open_constructs(facts, &constructs, Construct::is_loop),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        for block in exits {
            let Some(terminator) = facts.terminators[block] else {
                continue;
            };
            let data = &dfg.insts[terminator];
            let Payload::Jump(edge) = &data.payload else {
                continue;
            };
            let target = facts.dense(edge.block);
            if target == NONE {
                continue; // reported as a bad edge
            }
            let location = Location::Inst(facts.func, facts.blocks[block], terminator);
            let is_break = data.opcode == Opcode::Break;
            if canonical && facts.dominators.is_reachable(block as u32) {
                let nearest = if is_break {
                    nearest_breakable[block]
                } else {
                    nearest_loop[block]
                };
                if nearest == NONE {
                    let message = if is_break {
                        "`break` is not inside any loop, simple_loop or switch"
                    } else {
                        "`continue` is not inside any loop or simple_loop"
                    };
                    self.report(ErrorKind::BreakOutsideConstruct, location, message);
                    continue;
                }
                let construct = constructs[nearest as usize];
                let (expected, role) = if is_break {
                    (construct.merge, "merges at")
                } else {
                    (construct.continue_target, "continues at")
                };
                if expected != target {
                    let expected_name = if expected == NONE {
                        "no block in the layout".to_string()
                    } else {
                        facts.blocks[expected as usize].to_string()
                    };
                    let message = format!(
                        "`{}` targets {}, but the nearest enclosing {} (ending {}) {role} {expected_name}",
                        data.opcode,
                        edge.block,
                        construct.name(),
                        facts.blocks[nearest as usize],
                    );
                    self.report(ErrorKind::NonCanonicalBreakContinue, location, message);
                }
            } else {
                let allowed = if is_break {
                    is_break_target[target as usize]
                } else {
                    is_continue_target[target as usize]
                };
                if !allowed {
                    let message = if is_break {
                        format!("`break` targets {}, which is not the merge of any loop, simple_loop or switch", edge.block)
                    } else {
                        format!("`continue` targets {}, which is not the update block of any loop or the body of any simple_loop", edge.block)
                    };
                    self.report(ErrorKind::BreakOutsideConstruct, location, message);
                }
            }
        }
    }
}

/// For each reachable block, the nearest strict dominator whose construct passes
/// `is_candidate` and whose merge does not dominate the block; `NONE` when there is none.
fn nearest_open_constructs(
    facts: &BodyFacts,
    constructs: &[Construct],
    is_candidate: fn(&Construct) -> bool,
) -> Vec<u32> {
    let dominators = &facts.dominators;
    let mut nearest = vec![NONE; constructs.len()];
    for &block in dominators.preorder() {
        let Some(parent) = dominators.idom(block) else {
            continue;
        };
        let mut candidate = if is_candidate(&constructs[parent as usize]) {
            parent
        } else {
            nearest[parent as usize]
        };
        while candidate != NONE {
            let merge = constructs[candidate as usize].merge;
            if merge != NONE && dominators.dominates(merge, block) {
                candidate = nearest[candidate as usize];
            } else {
                break;
            }
        }
        nearest[block as usize] = candidate;
    }
    nearest
}
