//! The bounds-check policies and their command-line spelling.
//!
//! A [`BoundsPolicy`] holds one [`Policy`] per [`CheckClass`]. It parses from the text
//! `oxir compile --bounds-checks` takes: a policy name for every class
//! (`restrict`), `CLASS=POLICY` overrides (`buffers=restrict,memory=unchecked`), or both
//! (`restrict,values=read-zero-skip-write`: the bare name first sets every class).

use std::fmt;

/// What a bounds check does with an index that may be out of range.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Policy {
    /// The safe default, bit for bit the interpreter's `OutOfBounds::Robust` mode: an
    /// out-of-range load reads zero, an out-of-range store or atomic is skipped (an atomic
    /// returns zero), `extract_dynamic` gives zero and `insert_dynamic` leaves the
    /// composite unchanged.
    #[default]
    ReadZeroSkipWrite,
    /// Clamp every index to the last element (naga's `Restrict`): an out-of-range access
    /// reads or writes the last element. A runtime-sized array is clamped to
    /// `array_length - 1`; when it has no element at all the access is skipped (loads read
    /// zero), as under `read-zero-skip-write`. Memory-safe, but not the interpreter's
    /// result for out-of-range indices.
    Restrict,
    /// No check: an out-of-range index is undefined behaviour on the target (a GPU may
    /// read or write other memory, or crash). Only for code whose indices are known good.
    Unchecked,
}

impl Policy {
    /// Every policy, in documentation order.
    pub const ALL: [Policy; 3] = [
        Policy::ReadZeroSkipWrite,
        Policy::Restrict,
        Policy::Unchecked,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::ReadZeroSkipWrite => "read-zero-skip-write",
            Policy::Restrict => "restrict",
            Policy::Unchecked => "unchecked",
        }
    }

    /// The policy called `name`.
    pub fn from_name(name: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// Which indices a policy governs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CheckClass {
    /// `access` indices under storage, uniform, push-constant (and handle) pointers.
    Buffers,
    /// `access` indices under workgroup, private and function pointers.
    Memory,
    /// `extract_dynamic` / `insert_dynamic` indices into value arrays, vectors and
    /// matrices.
    Values,
    /// Coordinates, array layers, mip levels and sample indices of `texture_load` and
    /// `texture_store`, and the level of `texture_dimensions`.
    Textures,
}

impl CheckClass {
    /// Every class, in documentation order.
    pub const ALL: [CheckClass; 4] = [
        CheckClass::Buffers,
        CheckClass::Memory,
        CheckClass::Values,
        CheckClass::Textures,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            CheckClass::Buffers => "buffers",
            CheckClass::Memory => "memory",
            CheckClass::Values => "values",
            CheckClass::Textures => "textures",
        }
    }

    /// The class called `name`; `workgroup`, `private` and `function` name [`Self::Memory`].
    pub fn from_name(name: &str) -> Option<CheckClass> {
        match name {
            "workgroup" | "private" | "function" => Some(CheckClass::Memory),
            _ => CheckClass::ALL.into_iter().find(|c| c.name() == name),
        }
    }
}

/// One policy per check class. The default is [`Policy::ReadZeroSkipWrite`] everywhere.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BoundsPolicy {
    /// Storage, uniform and push-constant buffers.
    pub buffers: Policy,
    /// Workgroup, private and function memory.
    pub memory: Policy,
    /// Value arrays, vectors and matrices indexed dynamically.
    pub values: Policy,
    /// Texture coordinates, layers, levels and sample indices.
    pub textures: Policy,
}

/// Why a `--bounds-checks` specification was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolicyParseError {
    /// An item names no policy.
    #[error(
        "unknown bounds-check policy `{0}` (expected restrict, read-zero-skip-write or unchecked)"
    )]
    UnknownPolicy(String),
    /// An override names no class.
    #[error("unknown bounds-check class `{0}` (expected buffers, memory, workgroup, private, function, values or textures)")]
    UnknownClass(String),
    /// The specification is empty or has an empty item.
    #[error("empty bounds-check specification item in `{0}`")]
    Empty(String),
}

impl BoundsPolicy {
    /// `policy` for every class.
    pub fn uniform(policy: Policy) -> BoundsPolicy {
        BoundsPolicy {
            buffers: policy,
            memory: policy,
            values: policy,
            textures: policy,
        }
    }

    /// The policy of `class`.
    pub fn get(&self, class: CheckClass) -> Policy {
        match class {
            CheckClass::Buffers => self.buffers,
            CheckClass::Memory => self.memory,
            CheckClass::Values => self.values,
            CheckClass::Textures => self.textures,
        }
    }

    /// Sets the policy of `class`.
    pub fn set(&mut self, class: CheckClass, policy: Policy) {
        match class {
            CheckClass::Buffers => self.buffers = policy,
            CheckClass::Memory => self.memory = policy,
            CheckClass::Values => self.values = policy,
            CheckClass::Textures => self.textures = policy,
        }
    }

    /// Parses `POLICY`, `CLASS=POLICY` items separated by commas, applied left to right
    /// on top of the default.
    pub fn parse(spec: &str) -> Result<BoundsPolicy, PolicyParseError> {
        let mut out = BoundsPolicy::default();
        for item in spec.split(',').map(str::trim) {
            if item.is_empty() {
                return Err(PolicyParseError::Empty(spec.to_string()));
            }
            let policy_of = |name: &str| {
                Policy::from_name(name).ok_or_else(|| PolicyParseError::UnknownPolicy(name.into()))
            };
            match item.split_once('=') {
                Some((class, policy)) => {
                    let class = CheckClass::from_name(class.trim())
                        .ok_or_else(|| PolicyParseError::UnknownClass(class.trim().into()))?;
                    out.set(class, policy_of(policy.trim())?);
                }
                None => out = BoundsPolicy::uniform(policy_of(item)?),
            }
        }
        Ok(out)
    }
}

impl fmt::Display for BoundsPolicy {
    /// The canonical specification, `buffers=P,memory=P,values=P,textures=P`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = CheckClass::ALL
            .iter()
            .map(|&c| format!("{}={}", c.name(), self.get(c).name()))
            .collect();
        f.write_str(&items.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifications_parse_left_to_right() {
        assert_eq!(
            BoundsPolicy::parse("restrict"),
            Ok(BoundsPolicy::uniform(Policy::Restrict))
        );
        let mixed = BoundsPolicy::parse(
            "unchecked, buffers=restrict,workgroup=read-zero-skip-write,textures=restrict",
        )
        .expect("parses");
        assert_eq!(mixed.buffers, Policy::Restrict);
        assert_eq!(mixed.memory, Policy::ReadZeroSkipWrite);
        assert_eq!(mixed.values, Policy::Unchecked);
        assert_eq!(mixed.textures, Policy::Restrict);
        assert_eq!(
            BoundsPolicy::parse(&mixed.to_string()),
            Ok(mixed),
            "Display is a specification"
        );
    }

    #[test]
    fn bad_specifications_say_what_is_wrong() {
        assert!(
            matches!(BoundsPolicy::parse("safe"), Err(PolicyParseError::UnknownPolicy(p)) if p == "safe")
        );
        assert!(
            matches!(BoundsPolicy::parse("texels=restrict"), Err(PolicyParseError::UnknownClass(c)) if c == "texels")
        );
        assert!(matches!(
            BoundsPolicy::parse("restrict,"),
            Err(PolicyParseError::Empty(_))
        ));
    }
}
