//! Temporaries for virtual registers: linear scan over the emitted order.
//!
//! A virtual register lives from its first to its last mention in emission order. CSIR
//! has no loops, so that interval covers every point where its value can be needed: a
//! value defined before an `IF` and read in one arm is live across the arm; a merge
//! parameter written in both arms lives from the first write to its last read. A
//! register whose interval ended strictly before an instruction is free for that
//! instruction's new registers (never the same instruction: a source and its
//! destination never share a temporary). Multi-column registers get consecutive
//! temporaries.

use super::VRec;
use crate::record::{Record, NONE};
use crate::Limits;

/// The records with temporaries, and the number of temporaries used; `Err(pool)` when
/// the temporaries run out.
pub(super) fn allocate(
    recs: &[VRec],
    widths: &[u8],
    limits: &Limits,
) -> Result<(Vec<Record>, u16), &'static str> {
    let n = widths.len();
    let mut first = vec![usize::MAX; n];
    let mut last = vec![0usize; n];
    for (i, r) in recs.iter().enumerate() {
        for reg in r.dst.iter().chain(r.src.iter().flatten()) {
            let k = reg.reg as usize;
            first[k] = first[k].min(i);
            last[k] = last[k].max(i);
        }
    }
    // Registers by start, and which end where.
    let mut ends_at: Vec<Vec<usize>> = vec![Vec::new(); recs.len() + 1];
    let mut starts_at: Vec<Vec<usize>> = vec![Vec::new(); recs.len() + 1];
    for k in 0..n {
        if first[k] != usize::MAX {
            starts_at[first[k]].push(k);
            ends_at[last[k]].push(k);
        }
    }
    let cap = usize::from(limits.temporaries);
    let mut busy = vec![false; cap];
    let mut base = vec![0u16; n];
    let mut high = 0usize;
    for i in 0..recs.len() {
        if i > 0 {
            for &k in &ends_at[i - 1] {
                let b = usize::from(base[k]);
                busy[b..b + usize::from(widths[k].max(1))].fill(false);
            }
        }
        for &k in &starts_at[i] {
            let w = usize::from(widths[k].max(1));
            if w > cap {
                return Err("temporary");
            }
            let start = (0..=cap - w)
                .find(|&s| busy[s..s + w].iter().all(|b| !b))
                .ok_or("temporary")?;
            busy[start..start + w].fill(true);
            base[k] = start as u16;
            high = high.max(start + w);
        }
    }
    let temp = |r: Option<super::R>| match r {
        Some(r) => (base[r.reg as usize] + u16::from(r.col)) as i16,
        None => NONE,
    };
    let records = recs
        .iter()
        .map(|r| Record {
            op: r.op as u8,
            ty: r.ty as u8,
            ncomp: r.ncomp,
            pad: 0,
            dst: temp(r.dst),
            a: temp(r.src[0]),
            b: temp(r.src[1]),
            c: temp(r.src[2]),
            aux: r.aux,
            aux2: r.aux2,
        })
        .collect();
    Ok((records, high as u16))
}
