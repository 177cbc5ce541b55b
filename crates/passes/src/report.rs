//! Pass reports (ordered counters), refusals, and the interface every pass's info struct
//! implements.
//!
//! A pass that refuses its input leaves the module unchanged and says why with a
//! [`Refusal`]: which pass, the non-zero refusal counters (or a message), and where the
//! first refused construct is — the function (by name) and, when one block is to blame,
//! that block. A refusal prints as `refused its input (counter = n, ...)`, the text the
//! pipeline has always printed; [`Refusal::location`] gives the place separately.

use oxir_ir::Block;
use std::fmt;

/// An ordered list of named counters. `set` overwrites an existing key in place; the merge
/// operations combine reports key by key, appending keys the receiver lacks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    entries: Vec<(&'static str, u64)>,
}

impl PassReport {
    pub fn new() -> Self {
        Self::default()
    }

    fn slot(&mut self, key: &'static str) -> &mut u64 {
        let index = match self.entries.iter().position(|&(k, _)| k == key) {
            Some(i) => i,
            None => {
                self.entries.push((key, 0));
                self.entries.len() - 1
            }
        };
        &mut self.entries[index].1
    }

    /// Sets `key` to `value`, keeping its position if it exists.
    pub fn set(&mut self, key: &'static str, value: u64) {
        *self.slot(key) = value;
    }

    pub fn get(&self, key: &str) -> Option<u64> {
        self.entries
            .iter()
            .find(|&&(k, _)| k == key)
            .map(|&(_, v)| v)
    }

    /// Adds every counter of `other` to this report.
    pub fn merge_sum(&mut self, other: &PassReport) {
        for (key, value) in &other.entries {
            let slot = self.slot(key);
            *slot = slot.saturating_add(*value);
        }
    }

    /// Keeps the larger value of every counter.
    pub fn merge_max(&mut self, other: &PassReport) {
        for (key, value) in &other.entries {
            let slot = self.slot(key);
            *slot = (*slot).max(*value);
        }
    }

    pub fn entries(&self) -> &[(&'static str, u64)] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

impl fmt::Display for PassReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (key, value)) in self.entries.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{key}: {value}")?;
        }
        Ok(())
    }
}

/// Where a pass first refused its input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefusalSite {
    /// The name of the refused function (without `@`); `None` when no one function is to
    /// blame (for example a function index that names no function).
    pub function: Option<String>,
    /// The block to blame, when there is one.
    pub block: Option<Block>,
}

/// Why a refusal happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefusalReason {
    /// The pass's refusal counters that are non-zero, `(name, value)` in the order the
    /// pass declares them (the names are those of its report).
    Counters(Vec<(&'static str, u64)>),
    /// A refusal explained in words.
    Message(String),
}

impl fmt::Display for RefusalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefusalReason::Counters(counters) => {
                f.write_str("refused its input (")?;
                for (i, (name, value)) in counters.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{name} = {value}")?;
                }
                f.write_str(")")
            }
            RefusalReason::Message(message) => f.write_str(message),
        }
    }
}

/// A pass's refusal of its input: the module is unchanged. Prints as its reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Refusal {
    /// The registered name of the pass that refused.
    pub pass: &'static str,
    /// The name of the first refused function (without `@`), when known.
    pub function: Option<String>,
    /// The block of that function to blame, when there is one.
    pub block: Option<Block>,
    pub reason: RefusalReason,
}

impl Refusal {
    /// `@function` or `@function, blockN`; `None` without a function.
    pub fn location(&self) -> Option<String> {
        let function = self.function.as_ref()?;
        Some(match self.block {
            Some(block) => format!("@{function}, {block}"),
            None => format!("@{function}"),
        })
    }
}

/// The counters a pass returns. Every pass has one info struct implementing this.
pub trait PassInfo {
    /// The counters, in a fixed order, named as in the pass's documentation.
    fn counters(&self) -> Vec<(&'static str, u64)>;

    /// Whether the pass changed the IR. Must agree with the module's text: the pipeline
    /// checks it in debug builds and tests.
    fn changed(&self) -> bool;

    /// Why and where the pass refused its input, when it did (the module is then
    /// unchanged).
    fn failure(&self) -> Option<Refusal> {
        None
    }

    /// Writes every counter into `report`.
    fn write_report(&self, report: &mut PassReport) {
        if report.is_empty() {
            // The counters are distinct names: nothing to merge.
            report.entries = self.counters();
            return;
        }
        for (key, value) in self.counters() {
            report.set(key, value);
        }
    }
}

/// Declares a pass's info struct: `u64` counters in declaration order, a `refused_at`
/// site, and a `PassInfo` implementation. `pass` is the registered name of the pass;
/// `changed_by` lists the counters whose being non-zero means the IR changed; the optional
/// `failed_by` lists those whose being non-zero means the pass refused its input (and left
/// it unchanged), and the pass records where with `note_refusal`. `accumulate` adds
/// per-function infos (keeping the first refusal site).
#[macro_export]
macro_rules! pass_info {
    (
        pass: $pass:literal,
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$field_meta:meta])* $field:ident, )*
        }
        changed_by: [$($changed:ident),* $(,)?]
        $( failed_by: [$($failed:ident),* $(,)?] )?
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        pub struct $name {
            $( $(#[$field_meta])* pub $field: u64, )*
            /// Where the first refusal happened (only passes that can refuse set it).
            pub refused_at: Option<$crate::report::RefusalSite>,
            /// A refusal explained in words (then the refusal's reason, instead of the
            /// counters).
            pub refusal_message: Option<String>,
        }

        impl $name {
            /// The registered name of the pass.
            pub const PASS: &'static str = $pass;

            /// Adds every counter of `other`; keeps this info's refusal site if it has one.
            pub fn accumulate(&mut self, other: &$name) {
                $( self.$field += other.$field; )*
                if self.refused_at.is_none() {
                    self.refused_at = other.refused_at.clone();
                }
                if self.refusal_message.is_none() {
                    self.refusal_message = other.refusal_message.clone();
                }
            }

            /// Records where the pass refused its input, unless a site is recorded already
            /// (the first refusal is the one reported).
            pub fn note_refusal(&mut self, function: Option<&str>, block: Option<oxir_ir::Block>) {
                if self.refused_at.is_none() {
                    self.refused_at = Some($crate::report::RefusalSite {
                        function: function.map(str::to_string),
                        block,
                    });
                }
            }
        }

        impl $crate::report::PassInfo for $name {
            fn counters(&self) -> Vec<(&'static str, u64)> {
                vec![$( (stringify!($field), self.$field), )*]
            }

            fn changed(&self) -> bool {
                false $( || self.$changed > 0 )*
            }

            fn failure(&self) -> Option<$crate::report::Refusal> {
                let failed: Vec<(&'static str, u64)> =
                    vec![$($( (stringify!($failed), self.$failed), )*)?]
                        .into_iter()
                        .filter(|&(_, v): &(&str, u64)| v > 0)
                        .collect();
                if failed.is_empty() {
                    return None;
                }
                let site = self.refused_at.clone().unwrap_or_default();
                Some($crate::report::Refusal {
                    pass: Self::PASS,
                    function: site.function,
                    block: site.block,
                    reason: match &self.refusal_message {
                        Some(message) => $crate::report::RefusalReason::Message(message.clone()),
                        None => $crate::report::RefusalReason::Counters(failed),
                    },
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_overwrites_in_place_and_merges_combine() {
        let mut a = PassReport::new();
        a.set("x", 1);
        a.set("y", 2);
        a.set("x", 5);
        assert_eq!(a.entries(), &[("x", 5), ("y", 2)]);
        let mut b = PassReport::new();
        b.set("y", 7);
        b.set("z", 1);
        let mut sum = a.clone();
        sum.merge_sum(&b);
        assert_eq!(sum.to_string(), "x: 5, y: 9, z: 1");
        let mut max = a.clone();
        max.merge_max(&b);
        assert_eq!(max.to_string(), "x: 5, y: 7, z: 1");
    }
}
