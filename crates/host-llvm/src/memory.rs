//! Memory the kernel's threads share: 16-byte-aligned words of atomics, so that many
//! threads may read and write it through the addresses the kernel receives.

use std::sync::atomic::{AtomicU64, Ordering};

/// 16 bytes, 16-byte aligned (the host ABI's `MEMORY_ALIGN`).
#[repr(C, align(16))]
#[derive(Default)]
struct Chunk([AtomicU64; 2]);

/// A block of shared, aligned memory.
pub(crate) struct AlignedMemory {
    chunks: Vec<Chunk>,
}

impl AlignedMemory {
    /// `len` zero bytes (rounded up to 16).
    pub(crate) fn zeroed(len: usize) -> Self {
        let mut chunks = Vec::new();
        chunks.resize_with(len.div_ceil(16), Chunk::default);
        AlignedMemory { chunks }
    }

    /// A copy of `bytes` (zero-padded to a multiple of 16).
    pub(crate) fn from_bytes(bytes: &[u8]) -> Self {
        let memory = Self::zeroed(bytes.len());
        for (word, data) in memory.words().zip(bytes.chunks(8)) {
            let mut le = [0u8; 8];
            le[..data.len()].copy_from_slice(data);
            word.store(u64::from_le_bytes(le), Ordering::Relaxed);
        }
        memory
    }

    fn words(&self) -> impl Iterator<Item = &AtomicU64> {
        self.chunks.iter().flat_map(|c| c.0.iter())
    }

    /// The block's address, as the kernel receives it.
    pub(crate) fn address(&self) -> u64 {
        self.chunks.as_ptr() as u64
    }

    /// Copies the block's first `bytes.len()` bytes into `bytes`.
    pub(crate) fn copy_to(&self, bytes: &mut [u8]) {
        for (word, data) in self.words().zip(bytes.chunks_mut(8)) {
            let le = word.load(Ordering::Relaxed).to_le_bytes();
            let n = data.len();
            data.copy_from_slice(&le[..n]);
        }
    }

    /// Sets every byte to zero.
    pub(crate) fn zero(&self) {
        for word in self.words() {
            word.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AlignedMemory;

    #[test]
    fn bytes_round_trip_aligned() {
        let bytes: Vec<u8> = (0..21).collect();
        let m = AlignedMemory::from_bytes(&bytes);
        assert_eq!(m.address() % 16, 0);
        let mut out = vec![0; 21];
        m.copy_to(&mut out);
        assert_eq!(out, bytes);
        m.zero();
        m.copy_to(&mut out);
        assert_eq!(out, vec![0; 21]);
    }
}
