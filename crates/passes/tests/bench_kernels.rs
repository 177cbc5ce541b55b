//! The benchmark kernels are valid structured input at every size.

#[path = "../benches/kernels.rs"]
mod kernels;

use oxir_ir::verifier::{verify_module, VerifierOptions};

#[test]
fn benchmark_kernels_verify_with_every_option() {
    for size in [1_000, 10_000] {
        let m = kernels::structured_kernel(size);
        let report = verify_module(&m, &VerifierOptions::all());
        assert!(report.succeeded(), "{report}");
        let count = m.inst_count();
        assert!(
            count >= size * 9 / 10 && count <= size + 100,
            "{count} instructions for target {size}"
        );
    }
}
