//! Hash maps and sets for the compiler's own keys: interned types and constants, value
//! numbers, declaration keys.
//!
//! They hash with `foldhash`'s fixed-seed hasher: several times faster than the standard
//! library's SipHash on small keys (the interning and value-numbering tables were 12% of
//! an `-O` compile under SipHash), and deterministic, so two runs of the compiler iterate
//! a table in the same order. The price is no protection against keys chosen to collide:
//! maps keyed by names taken from the input text (struct names, parser symbol tables)
//! keep the standard library's randomly seeded SipHash.

/// The hasher of [`HashMap`] and [`HashSet`].
pub type BuildHasher = foldhash::fast::FixedState;

/// A `std` hash map with [`BuildHasher`]; make one with `HashMap::default()`.
pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasher>;

/// A `std` hash set with [`BuildHasher`]; make one with `HashSet::default()`.
pub type HashSet<K> = std::collections::HashSet<K, BuildHasher>;
