//! CSI v2, the binary form of a CSIR shader.
//!
//! Every field is written explicitly, little-endian, field by field (no memory images).
//! Layout, in this order with no gaps and nothing after it:
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `CSIR` |
//! | 4..6, 6..8 | format version major (2), minor (0) |
//! | 8..12 | header size (64) |
//! | 12..16 | total file length |
//! | 16 | stage (0 vertex, 1 fragment) |
//! | 17 | hash algorithm (1: FNV-1a 64) |
//! | 18..20 | flags (0) |
//! | 20..22 | temporaries |
//! | 22..24 | reserved (0) |
//! | 24..28, 28..32, 32..36 | instruction count, immediate count, metadata length |
//! | 36..40 | reserved (0) |
//! | 40..48 | hash of the whole file with these 8 bytes zeroed |
//! | 48..64 | reserved (0) |
//! | 64.. | records, 16 bytes each: `op ty ncomp pad` then `dst a b c aux aux2` as `i16` |
//! | .. | immediates, IEEE-754 `f32` bit patterns |
//! | .. | metadata: the entry name, then the interface table (below) |
//!
//! Metadata: a name is a `u8` length and UTF-8 bytes; then five `u16` counts (uniforms,
//! attributes, varyings, outputs, samplers) and the entries: a uniform is name, cols,
//! rows, slot `u16`, group, binding, offset, column stride (`u32` each); an attribute,
//! varying or output is name, cols, rows, slot `u16`, interpolation `u8`; a sampler is
//! name, slot `u16`, texture group and binding, sampler group and binding (`u32`).
//!
//! [`read`] checks, before allocating anything: the length against the header, the
//! magic, the version, the header size, reserved fields and flags, the hash algorithm,
//! every count against [`Limits`] and the section sizes (checked arithmetic) against the
//! length; then the hash; then decodes strictly (enums in range, valid UTF-8, every
//! metadata byte consumed) and runs the verifier. It never panics and never trusts a
//! blob. The hash detects accidental corruption (every single-byte change changes
//! FNV-1a); it is not authentication: the verifier is the safety boundary.
//! `write(read(b)) == b` for every accepted `b`.

use crate::interface::{IfaceType, Interface, Interp, Sampler, Slot, Uniform};
use crate::record::Record;
use crate::{verify, Limits, Shader, Stage, VerifyError};

/// The magic bytes.
pub const MAGIC: [u8; 4] = *b"CSIR";
/// The format's major version.
pub const MAJOR: u16 = 2;
/// The format's minor version.
pub const MINOR: u16 = 0;
/// The header's size.
pub const HEADER_SIZE: usize = 64;
/// The hash algorithm id of FNV-1a 64.
pub const HASH_FNV1A64: u8 = 1;
const HASH_AT: usize = 40;

/// Why a blob was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// Shorter than the header.
    #[error("{0} bytes is shorter than the {HEADER_SIZE}-byte header")]
    TooShort(usize),
    /// Not `CSIR`.
    #[error("bad magic (not a CSI file)")]
    BadMagic,
    /// A version this reader does not read.
    #[error("unsupported CSI version {0}.{1} (this reader reads {MAJOR}.{MINOR})")]
    Version(u16, u16),
    /// A header field with a wrong value.
    #[error("header field {field} is {value}")]
    Header {
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// The length in the header or the sections disagree with the blob.
    #[error("length: {what} ({expected} expected, {actual} found)")]
    Length {
        /// What disagrees.
        what: &'static str,
        /// What the header implies.
        expected: u64,
        /// What is there.
        actual: u64,
    },
    /// A count over its limit (checked before allocating).
    #[error("{what}: {count} exceeds the limit of {limit}")]
    Count {
        /// What is counted.
        what: &'static str,
        /// The count.
        count: u64,
        /// The limit.
        limit: u64,
    },
    /// The hash does not match the content.
    #[error("hash mismatch (stored {stored:016x}, computed {computed:016x})")]
    Hash {
        /// In the header.
        stored: u64,
        /// Over the content.
        computed: u64,
    },
    /// The metadata section is malformed.
    #[error("metadata at byte {offset}: {what}")]
    Metadata {
        /// The file offset.
        offset: usize,
        /// What is wrong.
        what: String,
    },
    /// The decoded shader fails the verifier.
    #[error("verifier: {0}")]
    Verify(#[from] VerifyError),
}

/// FNV-1a, 64 bits.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Writes the header hash of `blob` (the FNV-1a of the blob with the hash field as
/// zeros) into it, for tools that build or edit CSI bytes by hand. Does nothing to a blob
/// shorter than the header.
pub fn seal(blob: &mut [u8]) {
    if blob.len() >= HEADER_SIZE {
        let hash = hash_of(blob);
        blob[HASH_AT..HASH_AT + 8].copy_from_slice(&hash.to_le_bytes());
    }
}

fn hash_of(blob: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, &b) in blob.iter().enumerate() {
        let b = if (HASH_AT..HASH_AT + 8).contains(&i) {
            0
        } else {
            b
        };
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend(v.to_le_bytes());
    }
    fn i16(&mut self, v: i16) {
        self.0.extend(v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend(v.to_le_bytes());
    }
    /// Names longer than 255 bytes are cut (the verifier refuses them before a write).
    fn name(&mut self, s: &str) {
        let bytes = &s.as_bytes()[..s.len().min(255)];
        self.u8(bytes.len() as u8);
        self.0.extend(bytes);
    }
    fn ty(&mut self, t: IfaceType) {
        self.u8(t.cols);
        self.u8(t.rows);
    }
}

fn count16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

fn metadata(shader: &Shader) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    let i = &shader.interface;
    w.name(&shader.name);
    for n in [
        i.uniforms.len(),
        i.attributes.len(),
        i.varyings.len(),
        i.outputs.len(),
        i.samplers.len(),
    ] {
        w.u16(count16(n));
    }
    for u in &i.uniforms {
        w.name(&u.name);
        w.ty(u.ty);
        w.u16(u.slot);
        for v in [u.group, u.binding, u.offset, u.column_stride] {
            w.u32(v);
        }
    }
    for s in i.attributes.iter().chain(&i.varyings).chain(&i.outputs) {
        w.name(&s.name);
        w.ty(s.ty);
        w.u16(s.slot);
        w.u8(s.interp as u8);
    }
    for s in &i.samplers {
        w.name(&s.name);
        w.u16(s.slot);
        for v in [s.texture.0, s.texture.1, s.sampler.0, s.sampler.1] {
            w.u32(v);
        }
    }
    w.0
}

/// The CSI bytes of `shader` (verify it first: a shader over the limits of the format is
/// written with saturated counts, which [`read`] then rejects).
pub fn write(shader: &Shader) -> Vec<u8> {
    let meta = metadata(shader);
    let mut w = Writer(Vec::with_capacity(HEADER_SIZE + 16 * shader.records.len()));
    w.0.extend(MAGIC);
    w.u16(MAJOR);
    w.u16(MINOR);
    w.u32(HEADER_SIZE as u32);
    w.u32(0); // total length, patched below
    w.u8(shader.stage as u8);
    w.u8(HASH_FNV1A64);
    w.u16(0);
    w.u16(shader.ntmp);
    w.u16(0);
    let len32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    w.u32(len32(shader.records.len()));
    w.u32(len32(shader.immediates.len()));
    w.u32(len32(meta.len()));
    w.u32(0);
    w.0.extend([0u8; 8 + 16]);
    for r in &shader.records {
        w.0.extend([r.op, r.ty, r.ncomp, r.pad]);
        for v in [r.dst, r.a, r.b, r.c, r.aux, r.aux2] {
            w.i16(v);
        }
    }
    for f in &shader.immediates {
        w.u32(f.to_bits());
    }
    w.0.extend(meta);
    let total = len32(w.0.len()).to_le_bytes();
    w.0[12..16].copy_from_slice(&total);
    let hash = hash_of(&w.0).to_le_bytes();
    w.0[HASH_AT..HASH_AT + 8].copy_from_slice(&hash);
    w.0
}

/// A bounds-checked little-endian cursor over a section of the blob.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// File offset of `bytes[0]`, for messages.
    base: usize,
}

impl<'a> Cursor<'a> {
    fn fail<T>(&self, what: impl Into<String>) -> Result<T, ReadError> {
        Err(ReadError::Metadata {
            offset: self.base + self.pos,
            what: what.into(),
        })
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], ReadError> {
        match self.bytes.get(self.pos..self.pos.saturating_add(n)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => self.fail(format!("{n} bytes past the end of the section")),
        }
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], ReadError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, ReadError> {
        Ok(self.array::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, ReadError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    fn i16(&mut self) -> Result<i16, ReadError> {
        Ok(i16::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, ReadError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn name(&mut self) -> Result<String, ReadError> {
        let n = self.u8()?;
        let bytes = self.take(usize::from(n))?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => self.fail("a name is not UTF-8"),
        }
    }
    fn ty(&mut self) -> Result<IfaceType, ReadError> {
        let t = IfaceType {
            cols: self.u8()?,
            rows: self.u8()?,
        };
        if t.is_valid() {
            Ok(t)
        } else {
            self.fail(format!("invalid type {}x{}", t.cols, t.rows))
        }
    }
    fn slot(&mut self) -> Result<Slot, ReadError> {
        let name = self.name()?;
        let ty = self.ty()?;
        let slot = self.u16()?;
        let byte = self.u8()?;
        let Some(interp) = Interp::from_u8(byte) else {
            return self.fail(format!("interpolation {byte}"));
        };
        Ok(Slot {
            name,
            ty,
            slot,
            interp,
        })
    }
}

/// The header's fields that size the sections.
struct Header {
    stage: Stage,
    ntmp: u16,
    ninstr: usize,
    nimm: usize,
    meta_len: usize,
}

fn header_field(field: &'static str, value: u64) -> ReadError {
    ReadError::Header { field, value }
}

fn read_header(blob: &[u8], limits: &Limits) -> Result<Header, ReadError> {
    if blob.len() < HEADER_SIZE {
        return Err(ReadError::TooShort(blob.len()));
    }
    let mut c = Cursor {
        bytes: &blob[..HEADER_SIZE],
        pos: 0,
        base: 0,
    };
    if c.array::<4>()? != MAGIC {
        return Err(ReadError::BadMagic);
    }
    let (major, minor) = (c.u16()?, c.u16()?);
    if (major, minor) != (MAJOR, MINOR) {
        return Err(ReadError::Version(major, minor));
    }
    let header_size = c.u32()?;
    if header_size as usize != HEADER_SIZE {
        return Err(header_field("header size", header_size.into()));
    }
    let total = c.u32()?;
    if u64::from(total) != blob.len() as u64 {
        return Err(ReadError::Length {
            what: "total length",
            expected: total.into(),
            actual: blob.len() as u64,
        });
    }
    let stage_byte = c.u8()?;
    let stage = Stage::from_u8(stage_byte).ok_or(header_field("stage", stage_byte.into()))?;
    let alg = c.u8()?;
    if alg != HASH_FNV1A64 {
        return Err(header_field("hash algorithm", alg.into()));
    }
    let flags = c.u16()?;
    if flags != 0 {
        return Err(header_field("flags", flags.into()));
    }
    let ntmp = c.u16()?;
    let reserved = c.u16()?;
    let (ninstr, nimm, meta_len) = (c.u32()?, c.u32()?, c.u32()?);
    let reserved2 = c.u32()?;
    let _hash = c.array::<8>()?;
    let tail = c.array::<16>()?;
    if reserved != 0 || reserved2 != 0 || tail != [0; 16] {
        return Err(header_field("reserved", 1));
    }
    let counts = [
        ("temporaries", u32::from(ntmp), limits.temporaries),
        ("instructions", ninstr, limits.instructions),
        ("immediates", nimm, limits.immediates),
    ];
    for (what, count, limit) in counts {
        if count > u32::from(limit) {
            return Err(ReadError::Count {
                what,
                count: count.into(),
                limit: limit.into(),
            });
        }
    }
    let expected =
        (HEADER_SIZE as u64) + 16 * u64::from(ninstr) + 4 * u64::from(nimm) + u64::from(meta_len);
    if expected != blob.len() as u64 {
        return Err(ReadError::Length {
            what: "sections",
            expected,
            actual: blob.len() as u64,
        });
    }
    Ok(Header {
        stage,
        ntmp,
        ninstr: ninstr as usize,
        nimm: nimm as usize,
        meta_len: meta_len as usize,
    })
}

fn read_interface(c: &mut Cursor<'_>, limits: &Limits) -> Result<(String, Interface), ReadError> {
    let name = c.name()?;
    let mut counts = [0u16; 5];
    for n in &mut counts {
        *n = c.u16()?;
    }
    let caps = [
        limits.uniform_slots,
        limits.attributes,
        limits.varyings,
        limits.outputs,
        limits.samplers,
    ];
    let what = ["uniforms", "attributes", "varyings", "outputs", "samplers"];
    for ((n, cap), what) in counts.iter().zip(caps).zip(what) {
        if *n > cap {
            return Err(ReadError::Count {
                what,
                count: (*n).into(),
                limit: cap.into(),
            });
        }
    }
    let mut iface = Interface::default();
    for _ in 0..counts[0] {
        let name = c.name()?;
        let ty = c.ty()?;
        let slot = c.u16()?;
        let (group, binding, offset, column_stride) = (c.u32()?, c.u32()?, c.u32()?, c.u32()?);
        iface.uniforms.push(Uniform {
            name,
            ty,
            slot,
            group,
            binding,
            offset,
            column_stride,
        });
    }
    for (k, table) in [
        (1, &mut iface.attributes),
        (2, &mut iface.varyings),
        (3, &mut iface.outputs),
    ] {
        for _ in 0..counts[k] {
            table.push(c.slot()?);
        }
    }
    for _ in 0..counts[4] {
        let name = c.name()?;
        let slot = c.u16()?;
        let (tg, tb, sg, sb) = (c.u32()?, c.u32()?, c.u32()?, c.u32()?);
        iface.samplers.push(Sampler {
            name,
            slot,
            texture: (tg, tb),
            sampler: (sg, sb),
        });
    }
    if c.pos != c.bytes.len() {
        return c.fail(format!("{} trailing bytes", c.bytes.len() - c.pos));
    }
    Ok((name, iface))
}

/// Decodes and verifies a CSI blob (see the module docs for every check).
pub fn read(blob: &[u8], limits: &Limits) -> Result<Shader, ReadError> {
    let shader = decode(blob, limits)?;
    verify(&shader, limits)?;
    Ok(shader)
}

/// [`read`] without the verifier: every check of the format, none of the IR.
pub fn decode(blob: &[u8], limits: &Limits) -> Result<Shader, ReadError> {
    let h = read_header(blob, limits)?;
    let stored = u64::from_le_bytes(blob[HASH_AT..HASH_AT + 8].try_into().unwrap_or([0; 8]));
    let computed = hash_of(blob);
    if stored != computed {
        return Err(ReadError::Hash { stored, computed });
    }
    let body = &blob[HEADER_SIZE..];
    let mut c = Cursor {
        bytes: body,
        pos: 0,
        base: HEADER_SIZE,
    };
    let mut records = Vec::with_capacity(h.ninstr);
    for _ in 0..h.ninstr {
        let [op, ty, ncomp, pad] = c.array::<4>()?;
        let mut f = [0i16; 6];
        for v in &mut f {
            *v = c.i16()?;
        }
        let [dst, a, b, cc, aux, aux2] = f;
        records.push(Record {
            op,
            ty,
            ncomp,
            pad,
            dst,
            a,
            b,
            c: cc,
            aux,
            aux2,
        });
    }
    let mut immediates = Vec::with_capacity(h.nimm);
    for _ in 0..h.nimm {
        immediates.push(f32::from_bits(c.u32()?));
    }
    let meta_start = HEADER_SIZE + c.pos;
    let mut m = Cursor {
        bytes: c.take(h.meta_len)?,
        pos: 0,
        base: meta_start,
    };
    let (name, interface) = read_interface(&mut m, limits)?;
    Ok(Shader {
        stage: h.stage,
        name,
        ntmp: h.ntmp,
        records,
        immediates,
        interface,
    })
}

#[cfg(test)]
mod tests;
