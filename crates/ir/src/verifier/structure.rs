//! Structured constructs (point 10) and the options about them (point 11): roles,
//! loop-role distinctness, unique merges, and `break` / `continue` targets.
//!
//! "Nearest enclosing construct" of a block `x` is computed for every reachable block in one
//! top-down pass over the dominator tree: starting from `x`'s immediate dominator `p` (if
//! `p` ends in a candidate construct) or from `p`'s own nearest construct, skip constructs
//! whose merge dominates `x` (the block is after them) by jumping to *their* nearest
//! construct. Each skip passes a construct whose merge lies on `x`'s dominator path, so the
//! pass is linear in practice.

use super::function_body::{BlockNumber, BodyFacts};
use super::{ErrorKind, Location, Verifier};
use crate::function::Function;
use crate::instructions::Payload;
use crate::ops::Opcode;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

/// For each block, the nearest enclosing construct of some sort: the block whose terminator
/// opens it. None for blocks outside every such construct and for unreachable blocks.
type NearestConstructs = SecondaryMap<BlockNumber, PackedOption<BlockNumber>>;

/// What a block's terminator opens.
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
    /// Merge block, `None` when absent or outside the layout.
    merge: Option<BlockNumber>,
    /// Where `continue` goes: a loop's update block, a simple loop's body; `None` when
    /// there is none in the layout.
    continue_target: Option<BlockNumber>,
}

impl Default for Construct {
    /// A block whose terminator opens no construct.
    fn default() -> Construct {
        Construct {
            kind: ConstructKind::None,
            merge: None,
            continue_target: None,
        }
    }
}

impl Construct {
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
        let mut constructs: SecondaryMap<BlockNumber, Construct> =
            SecondaryMap::with_capacity(count);
        let mut merge_owner: SecondaryMap<BlockNumber, PackedOption<BlockNumber>> =
            SecondaryMap::with_capacity(count);
        let mut is_break_target: SecondaryMap<BlockNumber, bool> =
            SecondaryMap::with_capacity(count);
        let mut is_continue_target: SecondaryMap<BlockNumber, bool> =
            SecondaryMap::with_capacity(count);
        let mut exits = Vec::new();
        for (header, &terminator) in facts.terminators.iter() {
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
                match facts.number(role) {
                    None => {
                        let message =
                            format!("the structural role {role} is not a block in the layout");
                        self.report(ErrorKind::MalformedStructure, location.clone(), message);
                    }
                    Some(BlockNumber::ENTRY) => {
                        let message = format!("the entry block {role} cannot be a structural role");
                        self.report(ErrorKind::MalformedStructure, location.clone(), message);
                    }
                    Some(_) => {}
                }
            }
            let mut construct = Construct::default();
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
                    construct.continue_target = facts.number(*update);
                }
                Payload::SimpleLoop { body, merge } => {
                    if body.block == *merge {
                        let message =
                            format!("the simple_loop's body and merge blocks are both {merge}");
                        self.report(ErrorKind::MalformedStructure, location.clone(), message);
                    }
                    construct.kind = ConstructKind::SimpleLoop;
                    construct.continue_target = facts.number(body.block);
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
            construct.merge = data.payload.merge().and_then(|m| facts.number(m));
            if let Some(merge) = construct.merge {
                match merge_owner[merge].expand() {
                    None => merge_owner[merge] = header.into(),
                    Some(owner) if self.options.require_unique_merge_blocks => {
                        let (merge_block, owner_block) = (facts.blocks[merge], facts.blocks[owner]);
                        let message = format!("{merge_block} is already the merge block of the construct ending {owner_block}");
                        self.report(ErrorKind::DuplicateMerge, location.clone(), message);
                    }
                    Some(_) => {}
                }
                if construct.is_breakable() {
                    is_break_target[merge] = true;
                }
            }
            if let Some(continue_target) = construct.continue_target {
                is_continue_target[continue_target] = true;
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
            (SecondaryMap::new(), SecondaryMap::new())
        };
        for block in exits {
            let Some(terminator) = facts.terminators[block] else {
                continue;
            };
            let data = &dfg.insts[terminator];
            let Payload::Jump(edge) = &data.payload else {
                continue;
            };
            let Some(target) = facts.number(edge.block) else {
                continue; // reported as a bad edge
            };
            let location = Location::Inst(facts.func, facts.blocks[block], terminator);
            let is_break = data.opcode == Opcode::Break;
            if canonical && facts.dominators.is_reachable(block) {
                let nearest = if is_break {
                    nearest_breakable[block]
                } else {
                    nearest_loop[block]
                };
                let Some(nearest) = nearest.expand() else {
                    let message = if is_break {
                        "`break` is not inside any loop, simple_loop or switch"
                    } else {
                        "`continue` is not inside any loop or simple_loop"
                    };
                    self.report(ErrorKind::BreakOutsideConstruct, location, message);
                    continue;
                };
                let construct = constructs[nearest];
                let (expected, role) = if is_break {
                    (construct.merge, "merges at")
                } else {
                    (construct.continue_target, "continues at")
                };
                if expected != Some(target) {
                    let expected_name = match expected {
                        None => "no block in the layout".to_string(),
                        Some(expected) => facts.blocks[expected].to_string(),
                    };
                    let message = format!(
                        "`{}` targets {}, but the nearest enclosing {} (ending {}) {role} {expected_name}",
                        data.opcode,
                        edge.block,
                        construct.name(),
                        facts.blocks[nearest],
                    );
                    self.report(ErrorKind::NonCanonicalBreakContinue, location, message);
                }
            } else {
                let allowed = if is_break {
                    is_break_target[target]
                } else {
                    is_continue_target[target]
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
/// `is_candidate` and whose merge does not dominate the block; none when there is none.
fn nearest_open_constructs(
    facts: &BodyFacts,
    constructs: &SecondaryMap<BlockNumber, Construct>,
    is_candidate: fn(&Construct) -> bool,
) -> NearestConstructs {
    let dominators = &facts.dominators;
    let mut nearest = NearestConstructs::with_capacity(facts.blocks.len());
    for &block in dominators.preorder() {
        let Some(parent) = dominators.idom(block) else {
            continue;
        };
        let mut candidate = if is_candidate(&constructs[parent]) {
            Some(parent)
        } else {
            nearest[parent].expand()
        };
        while let Some(open) = candidate {
            match constructs[open].merge {
                Some(merge) if dominators.dominates(merge, block) => {
                    candidate = nearest[open].expand();
                }
                Some(_) | None => break,
            }
        }
        nearest[block] = candidate.into();
    }
    nearest
}
