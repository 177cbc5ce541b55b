//! The `WorkgroupSize` built-in sets a compute entry point's workgroup size over its
//! `LocalSize` (SPIR-V 3.21). Reflection reads it, so the runner checks it against the
//! device's `maxComputeWorkGroupSize` / `maxComputeWorkGroupInvocations` like a
//! `LocalSize` (a driver given more may crash: lavapipe does). The modules are built here
//! with rspirv's builder: an empty kernel with `LocalSize 1 1 1` and a built-in constant.
//! The device part fails under OXIR_REQUIRE_VULKAN=1 without Vulkan and skips visibly
//! otherwise.

mod common;

use common::vulkan_available;
use oxir_vulkan::{reflect, run_compute, DeviceSelector, Error};
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, MemoryModel, Op,
};

/// How the built-in's constituents are made.
#[derive(Copy, Clone)]
enum Parts {
    /// `OpConstant`s in an `OpConstantComposite`.
    Constants([u32; 3]),
    /// `OpSpecConstant`s (their defaults count) in an `OpSpecConstantComposite`.
    SpecConstants([u32; 3]),
    /// The x part is an `OpSpecConstantOp` (its value is not known before
    /// specialisation).
    SpecOp,
}

fn module(parts: Parts) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 0);
    b.capability(Capability::Shader);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let void = b.type_void();
    let fn_ty = b.type_function(void, vec![]);
    let u32_ty = b.type_int(32, 0);
    let uvec3 = b.type_vector(u32_ty, 3);
    let size = match parts {
        Parts::Constants(v) => {
            let c: Vec<u32> = v.iter().map(|&x| b.constant_bit32(u32_ty, x)).collect();
            b.constant_composite(uvec3, c)
        }
        Parts::SpecConstants(v) => {
            let c: Vec<u32> = v
                .iter()
                .map(|&x| b.spec_constant_bit32(u32_ty, x))
                .collect();
            b.spec_constant_composite(uvec3, c)
        }
        Parts::SpecOp => {
            let one = b.spec_constant_bit32(u32_ty, 1);
            let two = b.id();
            b.module_mut()
                .types_global_values
                .push(rspirv::dr::Instruction::new(
                    Op::SpecConstantOp,
                    Some(u32_ty),
                    Some(two),
                    vec![
                        Operand::LiteralSpecConstantOpInteger(Op::IAdd),
                        Operand::IdRef(one),
                        Operand::IdRef(one),
                    ],
                ));
            b.spec_constant_composite(uvec3, vec![two, one, one])
        }
    };
    b.decorate(
        size,
        Decoration::BuiltIn,
        vec![Operand::BuiltIn(BuiltIn::WorkgroupSize)],
    );
    let main = b
        .begin_function(void, None, FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(ExecutionModel::GLCompute, main, "main", vec![]);
    b.execution_mode(main, ExecutionMode::LocalSize, vec![1, 1, 1]);
    b.module().assemble()
}

fn local_size(parts: Parts) -> Option<[u32; 3]> {
    reflect(&module(parts)).unwrap().entry_points[0].local_size
}

#[test]
fn the_builtin_overrides_local_size_in_reflection() {
    assert_eq!(
        local_size(Parts::Constants([1024, 1024, 64])),
        Some([1024, 1024, 64])
    );
    assert_eq!(local_size(Parts::SpecConstants([8, 4, 2])), Some([8, 4, 2]));
    assert_eq!(local_size(Parts::SpecOp), None);
}

#[test]
fn the_runner_checks_the_builtin_against_the_device_limits() {
    if !vulkan_available("the_runner_checks_the_builtin_against_the_device_limits") {
        return;
    }
    let run = |parts: Parts| {
        let words = module(parts);
        let interface = reflect(&words).unwrap();
        run_compute(
            &words,
            &interface,
            "main",
            [1, 1, 1],
            &[],
            &DeviceSelector::First,
        )
    };
    run(Parts::Constants([4, 2, 1])).unwrap();
    run(Parts::SpecConstants([4, 2, 1])).unwrap();
    match run(Parts::Constants([1024, 1024, 64])) {
        Err(Error::TooManyInvocations { given, .. } | Error::WorkgroupTooLarge { given, .. }) => {
            assert_eq!(given, [1024, 1024, 64])
        }
        other => panic!("1024x1024x64 through the built-in: {other:?}"),
    }
    match run(Parts::SpecConstants([u32::MAX, 1, 1])) {
        Err(Error::WorkgroupTooLarge { given, .. }) => assert_eq!(given, [u32::MAX, 1, 1]),
        other => panic!("u32::MAX through a spec constant: {other:?}"),
    }
    match run(Parts::SpecOp) {
        Err(e @ Error::Unsupported(_)) => {
            assert!(e.to_string().contains("maxComputeWorkGroupSize"), "{e}")
        }
        other => panic!("a size the runner cannot read: {other:?}"),
    }
}
