//! Known answers of the subgroup operations at subgroup sizes 4, 8 and 32, worked out by
//! hand (or by a plain Rust loop over the lanes, written independently of the
//! interpreter), on the front-end output and after the `normalize` pipeline.

mod common;
use common::*;
use oxir_interp::{Buffers, ErrorKind, Options};
use oxir_ir::Module;

fn run_sized(module: &Module, size: u32, groups: u32, words: usize) -> Vec<u32> {
    let mut buffers = Buffers::new();
    buffers.insert((0, 0), vec![0u8; 4 * words]);
    let options = Options {
        subgroup_size: size,
        ..Options::default()
    };
    oxir_interp::dispatch(module, "main", [groups, 1, 1], &mut buffers, &options)
        .unwrap_or_else(|e| panic!("subgroup size {size}: {e}"));
    u32s(&buffers[&(0, 0)])
}

/// Both the front-end output and the optimised module.
fn forms(wgsl: &str) -> Vec<Module> {
    let m = compile_wgsl(wgsl);
    vec![normalized(&m), m]
}

const ADD_AND_SCAN: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32, 192>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    out[li] = subgroupAdd(li);
    out[64u + li] = subgroupExclusiveAdd(li);
    out[128u + li] = subgroupInclusiveAdd(li);
}";

#[test]
fn add_and_scans_of_the_local_index() {
    for m in forms(ADD_AND_SCAN) {
        let out = run_sized(&m, 4, 1, 192);
        // Size 4: subgroup k holds 4k..4k+3, which add up to 16k + 6.
        assert_eq!(&out[..8], &[6, 6, 6, 6, 22, 22, 22, 22]);
        assert_eq!(out[63], 16 * 15 + 6);
        assert_eq!(&out[64..72], &[0, 0, 1, 3, 0, 4, 9, 15]);
        assert_eq!(&out[128..136], &[0, 1, 3, 6, 4, 9, 15, 22]);
        let out = run_sized(&m, 8, 1, 192);
        // Size 8: 8k..8k+7 add up to 64k + 28.
        assert_eq!(out[0], 28);
        assert_eq!(out[9], 64 + 28);
        assert_eq!(&out[64 + 8..64 + 11], &[0, 8, 17]);
        let out = run_sized(&m, 32, 1, 192);
        // Size 32: 0..=31 add up to 496, 32..=63 to 1520.
        assert_eq!(out[5], 496);
        assert_eq!(out[40], 1520);
        assert_eq!(out[64 + 31], 496 - 31);
        assert_eq!(out[64 + 33], 32);
        assert_eq!(out[128 + 63], 1520);
    }
}

const BALLOT_SHUFFLE: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32, 256>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
    let b = subgroupBallot(li % 3u == 0u);
    out[li] = b.x;
    out[64u + li] = subgroupShuffleXor(li, 1u);
    out[128u + li] = lane + size * 1000u;
    out[192u + li] = subgroupShuffleXor(li, 5u);
}";

#[test]
fn ballot_bits_and_shuffle_xor() {
    for m in forms(BALLOT_SHUFFLE) {
        let out = run_sized(&m, 8, 1, 256);
        // Lanes 0, 3, 6 of subgroup 0 (li 0, 3, 6): 0b0100_1001.
        assert_eq!(out[0], 0x49);
        // Subgroup 1 is li 8..16: 9, 12, 15 are lanes 1, 4, 7.
        assert_eq!(out[8], 0x92);
        assert_eq!(&out[64..72], &[1, 0, 3, 2, 5, 4, 7, 6]);
        assert_eq!(out[128 + 13], 5 + 8000);
        assert_eq!(&out[192..200], &[5, 4, 7, 6, 1, 0, 3, 2]);
        let out = run_sized(&m, 32, 1, 256);
        // li 0, 3, ..., 30 in subgroup 0: every third bit from bit 0.
        let expected: u32 = (0..32).filter(|i| i % 3 == 0).map(|i| 1u32 << i).sum();
        assert_eq!(out[0], expected);
        // Subgroup 1: li 33, 36, ..., 63 are lanes 1, 4, ..., 31.
        let expected: u32 = (0..32).filter(|i| i % 3 == 1).map(|i| 1u32 << i).sum();
        assert_eq!(out[40], expected);
        assert_eq!(out[128 + 40], 8 + 32000);
        let out = run_sized(&m, 4, 1, 256);
        // Lane 1 ^ 5 = 4 is outside a subgroup of 4: zero.
        assert_eq!(out[192 + 1], 0);
        assert_eq!(out[64 + 6], 7);
    }
}

const DIVERGENT: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32, 128>;
@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) li: u32) {
    if (li % 4u >= 2u) {
        out[li] = subgroupBroadcastFirst(li);
        out[16u + li] = subgroupAdd(1u);
    } else {
        out[li] = subgroupBroadcastFirst(li + 100u);
        out[16u + li] = subgroupExclusiveAdd(10u);
    }
    if (li == 5u) {
        return;
    }
    out[32u + li] = subgroupAdd(1u);
    out[48u + li] = subgroupMax(li);
}";

#[test]
fn broadcast_first_in_a_divergent_branch() {
    for m in forms(DIVERGENT) {
        let out = run_sized(&m, 8, 1, 128);
        // Subgroup 0 (li 0..8): li 2, 3, 6, 7 take the then branch, 0, 1, 4, 5 the else.
        assert_eq!(&out[..8], &[100, 100, 2, 2, 100, 100, 2, 2]);
        assert_eq!(&out[8..16], &[108, 108, 10, 10, 108, 108, 10, 10]);
        assert_eq!(&out[16..24], &[0, 10, 4, 4, 20, 30, 4, 4]);
        // li 5 returned: 7 lanes remain in subgroup 0, 8 in subgroup 1.
        assert_eq!(
            &out[32..48],
            &[7, 7, 7, 7, 7, 0, 7, 7, 8, 8, 8, 8, 8, 8, 8, 8]
        );
        assert_eq!(out[48], 7);
        assert_eq!(out[48 + 15], 15);
        let out = run_sized(&m, 4, 1, 128);
        assert_eq!(&out[..8], &[100, 100, 2, 2, 104, 104, 6, 6]);
        assert_eq!(&out[16..24], &[0, 10, 2, 2, 0, 10, 2, 2]);
        assert_eq!(&out[32..40], &[4, 4, 4, 4, 3, 0, 3, 3]);
    }
}

/// `subgroup_elect` has no WGSL spelling: the IR text.
const ELECT: &str = "
global @out: storage(read_write) array<u32> binding(0, 0)
const c0: u32 = 0
const c1: u32 = 1
const c3: u32 = 3
kernel @main() workgroup_size(16, 1, 1) {
block0:
    v0: u32 = local_invocation_index
    v1: u32 = and v0, c3
    v2: bool = ne v1, c0
    if v2, then block1, else block2, merge block3
block1:
    v3: bool = subgroup_elect
    v4: u32 = select v3, c1, c0
    v5: ptr<storage(read_write), u32> = access @out, v0
    store v5, v4
    br block3
block2:
    br block3
block3:
    return
}";

#[test]
fn elect_picks_the_lowest_active_lane() {
    let m = oxir_ir::parser::parse_module(ELECT).unwrap();
    let out = run_sized(&m, 8, 1, 16);
    // Lanes with li % 4 == 0 are inactive: lane 1 is the lowest active one.
    assert_eq!(out, [0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    let out = run_sized(&m, 4, 1, 16);
    assert_eq!(out, [0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0]);
}

const FLOATS: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<f32, 64>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) li: u32) {
    var v = array<f32, 4>(1.0, 16777216.0, 1.0, -16777216.0);
    out[li] = subgroupAdd(v[li]);
    out[4u + li] = subgroupInclusiveAdd(v[li]);
    out[8u + li] = subgroupExclusiveMul(f32(li) + 2.0);
    out[12u + li] = subgroupMin(select(1.0, -0.5, li == 2u));
}";

#[test]
fn float_reductions_add_in_lane_order() {
    let m = compile_wgsl(FLOATS);
    let mut buffers = Buffers::new();
    let options = Options {
        subgroup_size: 4,
        ..Options::default()
    };
    oxir_interp::dispatch(&m, "main", [1, 1, 1], &mut buffers, &options).unwrap();
    let out = f32s(&buffers[&(0, 0)]);
    // ((1 + 2^24) + 1) - 2^24: 1 + 2^24 rounds to 2^24 in f32, and so does 2^24 + 1.
    assert_eq!(out[0], 0.0);
    assert_eq!(&out[4..8], &[1.0, 16777216.0, 16777216.0, 0.0]);
    assert_eq!(&out[8..12], &[1.0, 2.0, 6.0, 24.0]);
    assert_eq!(out[12], -0.5);
}

#[test]
fn a_subgroup_size_that_is_not_a_power_of_two_is_refused() {
    let m = compile_wgsl(ADD_AND_SCAN);
    for size in [0, 3, 256] {
        let options = Options {
            subgroup_size: size,
            ..Options::default()
        };
        let e = oxir_interp::dispatch(&m, "main", [1, 1, 1], &mut Buffers::new(), &options)
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidSubgroupSize(size));
    }
}

const IDS_OF_A_PARTIAL_SUBGROUP: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32, 12>;
@compute @workgroup_size(6)
fn main(
    @builtin(local_invocation_index) li: u32,
    @builtin(subgroup_id) sid: u32,
    @builtin(num_subgroups) n: u32,
) {
    out[li] = sid;
    out[6u + li] = n * 10u + subgroupAdd(1u);
}";

#[test]
fn subgroup_id_and_num_subgroups_count_a_partial_last_subgroup() {
    for m in forms(IDS_OF_A_PARTIAL_SUBGROUP) {
        // Six invocations in subgroups of 4: lanes 0..=3 and a partial 4..=5.
        let out = run_sized(&m, 4, 1, 12);
        assert_eq!(&out[..6], &[0, 0, 0, 0, 1, 1]);
        assert_eq!(&out[6..], &[24, 24, 24, 24, 22, 22]);
        let out = run_sized(&m, 8, 1, 12);
        assert_eq!(&out[..6], &[0; 6]);
        assert_eq!(&out[6..], &[16; 6]);
    }
}
