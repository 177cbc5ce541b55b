//! Pass reports (ordered counters) and the interface every pass's info struct implements.

use std::fmt;

/// An ordered list of named counters. `set` overwrites an existing key in place; the merge
/// operations combine reports key by key, appending keys the receiver lacks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    entries: Vec<(String, u64)>,
}

impl PassReport {
    pub fn new() -> Self {
        Self::default()
    }

    fn slot(&mut self, key: &str) -> &mut u64 {
        let index = match self.entries.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                self.entries.push((key.to_string(), 0));
                self.entries.len() - 1
            }
        };
        &mut self.entries[index].1
    }

    /// Sets `key` to `value`, keeping its position if it exists.
    pub fn set(&mut self, key: &str, value: u64) {
        *self.slot(key) = value;
    }

    pub fn get(&self, key: &str) -> Option<u64> {
        self.entries.iter().find(|(k, _)| k == key).map(|&(_, v)| v)
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

    pub fn entries(&self) -> &[(String, u64)] {
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

/// The counters a pass returns. Every pass has one info struct implementing this.
pub trait PassInfo {
    /// The counters, in a fixed order, named as in the pass's documentation.
    fn counters(&self) -> Vec<(&'static str, u64)>;

    /// Whether the pass changed the IR. Must agree with the module's text: the pipeline
    /// checks it in debug builds and tests.
    fn changed(&self) -> bool;

    /// Why the pass refused its input, when it did (the module is then unchanged).
    fn failure(&self) -> Option<String> {
        None
    }

    /// Writes every counter into `report`.
    fn write_report(&self, report: &mut PassReport) {
        for (key, value) in self.counters() {
            report.set(key, value);
        }
    }
}

/// Declares a pass's info struct: `u64` counters in declaration order and a `PassInfo`
/// implementation. `changed_by` lists the counters whose being non-zero means the IR
/// changed; the optional `failed_by` lists those whose being non-zero means the pass
/// refused its input (and left it unchanged). `accumulate` adds per-function infos.
#[macro_export]
macro_rules! pass_info {
    (
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
        }

        impl $name {
            /// Adds every counter of `other`.
            pub fn accumulate(&mut self, other: &$name) {
                $( self.$field += other.$field; )*
            }
        }

        impl $crate::report::PassInfo for $name {
            fn counters(&self) -> Vec<(&'static str, u64)> {
                vec![$( (stringify!($field), self.$field), )*]
            }

            fn changed(&self) -> bool {
                false $( || self.$changed > 0 )*
            }

            fn failure(&self) -> Option<String> {
                let failed: Vec<String> = vec![$($( (stringify!($failed), self.$failed), )*)?]
                    .into_iter()
                    .filter(|&(_, v): &(&str, u64)| v > 0)
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect();
                (!failed.is_empty()).then(|| format!("refused its input ({})", failed.join(", ")))
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
        assert_eq!(a.entries(), &[("x".to_string(), 5), ("y".to_string(), 2)]);
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
