//! `PassPipeline`: explicit composition of passes — single passes, fixed points and
//! sequences — with per-entry statistics.
//!
//! Semantics:
//! - a **pass** runs once: one record, `invocations = 1`, `changed` as the pass reports;
//! - a **fixed point** repeats its children in order until a whole round changes nothing
//!   (converged) or `max_iterations` rounds ran; ending a round still changed at the limit
//!   sets `iteration_limit_reached` and `converged = false`; a limit of 0 runs nothing and
//!   does not converge. Records of later rounds merge into the first round's records
//!   (invocations and time summed, `changed` or-ed, reports summed);
//! - a **sequence** runs its children once and converges even when they changed things;
//! - a **verify** entry runs the verifier with the given options; failure stops the run
//!   (an *internal* one — a check of the passes before it, for a consumer that verifies
//!   its input itself — runs only in debug builds or under `OXIR_VERIFY_EACH`);
//! - a pass that refuses its input (for example `destructure-cfg` on an unterminated owned
//!   block) stops the run with its reason; the module is left as that pass found it.
//!
//! Environment (read once per `run`):
//! - `OXIR_TRACE_PASSES=1` logs every entry on stderr as it starts and ends;
//! - `OXIR_VERIFY_EACH=1` runs the verifier after every pass and stops with the pass's
//!   name on the first failure;
//! - `OXIR_DUMP_DIR=DIR` writes the module as text before and after every pass
//!   (`DIR/NNN-name.before.oxir`, `DIR/NNN-name.after.oxir`);
//! - `OXIR_CHECK_CHANGED=1` (the default in debug builds; `=0` turns it off) checks every
//!   pass's `changed` against whether the module's text changed; a mismatch stops the run.

use crate::report::{PassInfo, PassReport, Refusal};
use oxir_ir::printer::{print_module, View};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::Module;
use std::fmt::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What one pass invocation produced.
#[derive(Clone, Debug, Default)]
pub struct PassOutcome {
    pub changed: bool,
    pub report: PassReport,
    /// Why and where the pass refused its input; the module is unchanged when this is set.
    pub failure: Option<Refusal>,
}

impl PassOutcome {
    pub fn from_info(info: &impl PassInfo) -> Self {
        let mut report = PassReport::new();
        info.write_report(&mut report);
        PassOutcome {
            changed: info.changed(),
            report,
            failure: info.failure(),
        }
    }
}

/// A pass as the pipeline runs it.
pub type PassFn = Box<dyn Fn(&mut Module) -> PassOutcome>;

enum EntryKind {
    Pass(PassFn),
    FixedPoint {
        max_iterations: u32,
        group: PassPipeline,
    },
    Sequence(PassPipeline),
    /// A verifier run; `internal` ones are checks of the passes before them, skipped in
    /// release builds unless `OXIR_VERIFY_EACH` is set ([`PassPipeline::make_checks_internal`]).
    Verify {
        options: VerifierOptions,
        internal: bool,
    },
}

struct Entry {
    name: String,
    kind: EntryKind,
}

/// A composition of passes. Built with `add`, `add_fixed_point`, `add_sequence` and
/// `add_verify`; run with `run`.
#[derive(Default)]
pub struct PassPipeline {
    entries: Vec<Entry>,
}

/// The statistics of one entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub name: String,
    pub invocations: u32,
    pub elapsed: Duration,
    pub changed: bool,
    pub converged: bool,
    pub iteration_limit_reached: bool,
    pub report: PassReport,
    pub children: Vec<Record>,
    /// Whether this record is a group (fixed point or sequence).
    pub is_group: bool,
    /// The module's shape after this entry: recorded for groups and for the entries of
    /// the outermost pipeline (the stages), `None` for passes inside a group.
    pub shape: Option<ModuleShape>,
}

/// What the seed's debugging recipe counts after each stage, over every function body.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleShape {
    /// Blocks in function layouts.
    pub blocks: u64,
    /// Placed instructions, terminators included.
    pub instructions: u64,
    /// Structured terminators: `if`, `loop`, `simple_loop`, `switch`.
    pub structured_terminators: u64,
    /// `call` instructions.
    pub calls: u64,
    /// `alloca` instructions.
    pub allocas: u64,
    /// Block parameters of non-entry blocks (entry parameters are function parameters).
    pub block_params: u64,
}

impl ModuleShape {
    /// Counts `module`.
    pub fn of(module: &Module) -> ModuleShape {
        let mut shape = ModuleShape::default();
        for func in module.functions.values() {
            let entry = func.layout.entry_block();
            for block in func.layout.blocks() {
                shape.blocks += 1;
                if Some(block) != entry {
                    shape.block_params += func.dfg.block_params(block).len() as u64;
                }
                for inst in func.layout.block_insts(block) {
                    shape.instructions += 1;
                    let opcode = func.dfg.inst(inst).opcode;
                    shape.structured_terminators += u64::from(opcode.is_structured());
                    shape.calls += u64::from(opcode == oxir_ir::Opcode::Call);
                    shape.allocas += u64::from(opcode == oxir_ir::Opcode::Alloca);
                }
            }
        }
        shape
    }
}

impl fmt::Display for ModuleShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "blocks {}, instructions {}, structured terminators {}, calls {}, allocas {}, block parameters {}",
            self.blocks,
            self.instructions,
            self.structured_terminators,
            self.calls,
            self.allocas,
            self.block_params
        )
    }
}

impl Record {
    fn new(name: &str, is_group: bool) -> Self {
        Record {
            name: name.to_string(),
            invocations: 0,
            elapsed: Duration::ZERO,
            changed: false,
            converged: true,
            iteration_limit_reached: false,
            report: PassReport::new(),
            children: Vec::new(),
            is_group,
            shape: None,
        }
    }

    /// Whether this record and every child converged.
    pub fn succeeded(&self) -> bool {
        self.converged
            && !self.iteration_limit_reached
            && self.children.iter().all(Record::succeeded)
    }

    fn merge(&mut self, later: &Record) {
        self.invocations += later.invocations;
        self.elapsed += later.elapsed;
        self.changed |= later.changed;
        self.converged &= later.converged;
        self.iteration_limit_reached |= later.iteration_limit_reached;
        self.report.merge_sum(&later.report);
        for (mine, theirs) in self.children.iter_mut().zip(&later.children) {
            mine.merge(theirs);
        }
    }

    /// Finds the record named `name` at any depth.
    pub fn find(&self, name: &str) -> Option<&Record> {
        if self.name == name {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(name))
    }
}

/// Why a pipeline run stopped early. Prints as `entry: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pass}: {kind}")]
pub struct PipelineError {
    /// The entry that failed (as named in the pipeline).
    pub pass: String,
    pub kind: PipelineErrorKind,
}

/// What went wrong in a [`PipelineError`]; each prints as the error's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PipelineErrorKind {
    /// The pass refused its input and left the module unchanged.
    #[error("{0}")]
    Refused(Refusal),
    /// The pass refused its input, yet the module's text changed (a bug in the pass).
    #[error("{0} but modified the module")]
    RefusedButModified(Refusal),
    /// The pass's `changed` disagrees with whether the module's text changed.
    #[error(
        "reported changed = {reported} but the module text {}",
        if *.text_changed { "changed" } else { "did not change" }
    )]
    ChangedMismatch { reported: bool, text_changed: bool },
    /// A verify entry failed; `report` is the verifier's report as text.
    #[error("verification failed:\n{report}")]
    VerificationFailed { report: String },
    /// `OXIR_VERIFY_EACH`: the module fails verification after the pass.
    #[error("the module fails verification after this pass:\n{report}")]
    InvalidAfterPass { report: String },
}

impl PipelineError {
    /// The message part of the printed error (what follows `entry: `).
    pub fn message(&self) -> String {
        self.kind.to_string()
    }

    /// The refusal, when the error is one.
    pub fn refusal(&self) -> Option<&Refusal> {
        match &self.kind {
            PipelineErrorKind::Refused(refusal)
            | PipelineErrorKind::RefusedButModified(refusal) => Some(refusal),
            PipelineErrorKind::ChangedMismatch { .. }
            | PipelineErrorKind::VerificationFailed { .. }
            | PipelineErrorKind::InvalidAfterPass { .. } => None,
        }
    }
}

/// The result of running a pipeline.
#[derive(Clone, Debug)]
pub struct Stats {
    pub records: Vec<Record>,
    pub total: Duration,
    pub error: Option<PipelineError>,
}

impl Stats {
    /// No entry failed and every group converged.
    pub fn succeeded(&self) -> bool {
        self.error.is_none() && self.records.iter().all(Record::succeeded)
    }

    /// Finds the first record named `name` at any depth.
    pub fn find(&self, name: &str) -> Option<&Record> {
        self.records.iter().find_map(|r| r.find(name))
    }

    /// A human-readable table: one line per entry, indented by depth, with time,
    /// invocations, changed / converged flags and the non-zero counters.
    pub fn log(&self, pipeline_name: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "pipeline {pipeline_name}: {:.3} ms",
            self.total.as_secs_f64() * 1e3
        );
        fn line(out: &mut String, record: &Record, depth: usize) {
            let indent = "  ".repeat(depth + 1);
            let mut flags = Vec::new();
            if record.is_group {
                flags.push(format!("x{}", record.invocations));
            }
            if record.changed {
                flags.push("changed".to_string());
            }
            if record.is_group && record.converged {
                flags.push("converged".to_string());
            }
            if record.iteration_limit_reached {
                flags.push("iteration limit reached".to_string());
            }
            let _ = writeln!(
                out,
                "{indent}[{:>9.3} ms] {} ({})",
                record.elapsed.as_secs_f64() * 1e3,
                record.name,
                flags.join(", ")
            );
            for (key, value) in record.report.entries() {
                if *value != 0 {
                    let _ = writeln!(out, "{indent}    {key}: {value}");
                }
            }
            if let Some(shape) = &record.shape {
                let _ = writeln!(out, "{indent}    after: {shape}");
            }
            for child in &record.children {
                line(out, child, depth + 1);
            }
        }
        for record in &self.records {
            line(&mut out, record, 0);
        }
        if let Some(error) = &self.error {
            let _ = writeln!(out, "  error: {error}");
        }
        out
    }
}

/// Settings read from the environment once per run.
struct RunSettings {
    trace: bool,
    verify_each: bool,
    check_changed: bool,
    dump_dir: Option<PathBuf>,
}

impl RunSettings {
    fn from_env() -> Self {
        let on = |name: &str| std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0");
        RunSettings {
            trace: on("OXIR_TRACE_PASSES"),
            verify_each: on("OXIR_VERIFY_EACH"),
            // On in debug builds unless `OXIR_CHECK_CHANGED=0`; on in release when `=1`.
            check_changed: match std::env::var("OXIR_CHECK_CHANGED") {
                Ok(v) => !v.is_empty() && v != "0",
                Err(_) => cfg!(debug_assertions),
            },
            dump_dir: std::env::var_os("OXIR_DUMP_DIR").map(PathBuf::from),
        }
    }
}

struct Runner {
    settings: RunSettings,
    dump_counter: u32,
}

impl PassPipeline {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry names, in order (groups by their names).
    pub fn entry_names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// The names of every pass at any depth, in order.
    pub fn pass_names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for entry in &self.entries {
            match &entry.kind {
                EntryKind::Pass(_) => out.push(entry.name.as_str()),
                EntryKind::FixedPoint { group, .. } | EntryKind::Sequence(group) => {
                    out.extend(group.pass_names())
                }
                EntryKind::Verify { .. } => {}
            }
        }
        out
    }

    /// Adds one pass.
    pub fn add(
        &mut self,
        name: &str,
        pass: impl Fn(&mut Module) -> PassOutcome + 'static,
    ) -> &mut Self {
        self.entries.push(Entry {
            name: name.to_string(),
            kind: EntryKind::Pass(Box::new(pass)),
        });
        self
    }

    /// Adds a group repeated until no member changes, at most `max_iterations` rounds.
    pub fn add_fixed_point(
        &mut self,
        name: &str,
        group: PassPipeline,
        max_iterations: u32,
    ) -> &mut Self {
        self.entries.push(Entry {
            name: name.to_string(),
            kind: EntryKind::FixedPoint {
                max_iterations,
                group,
            },
        });
        self
    }

    /// Adds a named group that runs once.
    pub fn add_sequence(&mut self, name: &str, group: PassPipeline) -> &mut Self {
        self.entries.push(Entry {
            name: name.to_string(),
            kind: EntryKind::Sequence(group),
        });
        self
    }

    /// Adds a verifier run with `options`; a failure stops the pipeline.
    pub fn add_verify(&mut self, name: &str, options: VerifierOptions) -> &mut Self {
        self.entries.push(Entry {
            name: name.to_string(),
            kind: EntryKind::Verify {
                options,
                internal: false,
            },
        });
        self
    }

    /// Marks every verifier run of this pipeline and of its groups as internal, except
    /// those named in `keep`: for a driver whose consumer verifies the result itself (the
    /// SPIR-V writer does), the runs in between only check the passes, so release builds
    /// skip them unless `OXIR_VERIFY_EACH` is set; debug builds (every test) run them.
    pub fn make_checks_internal(&mut self, keep: &[&str]) {
        for entry in &mut self.entries {
            match &mut entry.kind {
                EntryKind::Verify { internal, .. } => {
                    *internal = !keep.contains(&entry.name.as_str());
                }
                EntryKind::Sequence(group) | EntryKind::FixedPoint { group, .. } => {
                    group.make_checks_internal(keep);
                }
                EntryKind::Pass(_) => {}
            }
        }
    }

    /// Runs the pipeline on `module`.
    pub fn run(&self, module: &mut Module) -> Stats {
        let start = Instant::now();
        let mut runner = Runner {
            settings: RunSettings::from_env(),
            dump_counter: 0,
        };
        let mut records = Vec::new();
        let error = runner
            .run_entries(&self.entries, module, &mut records, 0)
            .err();
        Stats {
            records,
            total: start.elapsed(),
            error,
        }
    }
}

impl Runner {
    fn run_entries(
        &mut self,
        entries: &[Entry],
        module: &mut Module,
        records: &mut Vec<Record>,
        depth: usize,
    ) -> Result<(), PipelineError> {
        for entry in entries {
            let record = self.run_entry(entry, module, depth)?;
            records.push(record);
        }
        Ok(())
    }

    fn run_entry(
        &mut self,
        entry: &Entry,
        module: &mut Module,
        depth: usize,
    ) -> Result<Record, PipelineError> {
        let indent = "  ".repeat(depth);
        if self.settings.trace {
            eprintln!("[oxir] {indent}> {}", entry.name);
        }
        let start = Instant::now();
        let record = match &entry.kind {
            EntryKind::Pass(pass) => self.run_pass(&entry.name, pass, module)?,
            EntryKind::Verify { internal: true, .. }
                if !(cfg!(debug_assertions) || self.settings.verify_each) =>
            {
                Record::new(&entry.name, false)
            }
            EntryKind::Verify { options, .. } => {
                let report = verify_module(module, options);
                if !report.succeeded() {
                    return Err(PipelineError {
                        pass: entry.name.clone(),
                        kind: PipelineErrorKind::VerificationFailed {
                            report: report.to_string(),
                        },
                    });
                }
                let mut record = Record::new(&entry.name, false);
                record.invocations = 1;
                record
            }
            EntryKind::Sequence(group) => {
                let mut record = Record::new(&entry.name, true);
                record.invocations = 1;
                self.run_entries(&group.entries, module, &mut record.children, depth + 1)?;
                record.changed = record.children.iter().any(|c| c.changed);
                record
            }
            EntryKind::FixedPoint {
                max_iterations,
                group,
            } => {
                let mut record = Record::new(&entry.name, true);
                if *max_iterations == 0 {
                    record.converged = false;
                }
                for iteration in 0..*max_iterations {
                    let mut round = Vec::new();
                    self.run_entries(&group.entries, module, &mut round, depth + 1)?;
                    let round_changed = round.iter().any(|c| c.changed);
                    if iteration == 0 {
                        record.children = round;
                    } else {
                        for (mine, theirs) in record.children.iter_mut().zip(&round) {
                            mine.merge(theirs);
                        }
                    }
                    record.invocations += 1;
                    if !round_changed {
                        break;
                    }
                    record.changed = true;
                    if iteration + 1 == *max_iterations {
                        record.converged = false;
                        record.iteration_limit_reached = true;
                    }
                }
                record
            }
        };
        let mut record = record;
        record.elapsed = start.elapsed();
        if depth == 0 || record.is_group {
            record.shape = Some(ModuleShape::of(module));
        }
        if self.settings.trace {
            let state = if record.changed {
                "changed"
            } else {
                "unchanged"
            };
            eprintln!(
                "[oxir] {indent}< {} ({state}, {:.3} ms)",
                entry.name,
                record.elapsed.as_secs_f64() * 1e3
            );
        }
        Ok(record)
    }

    fn run_pass(
        &mut self,
        name: &str,
        pass: &PassFn,
        module: &mut Module,
    ) -> Result<Record, PipelineError> {
        let need_text = self.settings.check_changed || self.settings.dump_dir.is_some();
        let before = need_text.then(|| print_module(module, View::Flat));
        self.dump_counter += 1;
        if let (Some(dir), Some(text)) = (&self.settings.dump_dir, &before) {
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(
                dir.join(format!("{:03}-{name}.before.oxir", self.dump_counter)),
                text,
            );
        }
        let outcome = pass(module);
        let fail = |kind: PipelineErrorKind| {
            Err(PipelineError {
                pass: name.to_string(),
                kind,
            })
        };
        let after = need_text.then(|| print_module(module, View::Flat));
        if let (Some(dir), Some(text)) = (&self.settings.dump_dir, &after) {
            let _ = std::fs::write(
                dir.join(format!("{:03}-{name}.after.oxir", self.dump_counter)),
                text,
            );
        }
        if let Some(refusal) = outcome.failure {
            if let (Some(before), Some(after)) = (&before, &after) {
                if before != after {
                    return fail(PipelineErrorKind::RefusedButModified(refusal));
                }
            }
            return fail(PipelineErrorKind::Refused(refusal));
        }
        if self.settings.check_changed {
            if let (Some(before), Some(after)) = (&before, &after) {
                let text_changed = before != after;
                if text_changed != outcome.changed {
                    return fail(PipelineErrorKind::ChangedMismatch {
                        reported: outcome.changed,
                        text_changed,
                    });
                }
            }
        }
        if self.settings.verify_each {
            let report = verify_module(module, &VerifierOptions::default());
            if !report.succeeded() {
                return fail(PipelineErrorKind::InvalidAfterPass {
                    report: report.to_string(),
                });
            }
        }
        let mut record = Record::new(name, false);
        record.invocations = 1;
        record.changed = outcome.changed;
        record.report = outcome.report;
        Ok(record)
    }
}
