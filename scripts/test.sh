#!/usr/bin/env bash
# Runs oxir's whole test suite. Installs the system tools the tests need, with apt-get and
# only when they are missing: spirv-tools, and the Vulkan loader with Mesa's lavapipe
# driver (libvulkan1, mesa-vulkan-drivers), LLVM 22 (llc-22, opt-22, llvm-link-22), and
# virglrenderer on EGL / llvmpipe (libvirglrenderer1, libegl-mesa0, libgl1-mesa-dri, libepoxy0).
# NVIDIA's PTX assembler and libdevice come from the nvidia-cuda-nvcc-cu12 wheel, unpacked
# into a cache folder outside the repository (never committed: NVIDIA's licence).
set -euo pipefail
cd "$(dirname "$0")/.."

# Packages as "command:package" pairs; a package is installed only if its command is missing.
required_tools=("spirv-val:spirv-tools" "llc-22:llvm-22")

missing=()
for pair in "${required_tools[@]+"${required_tools[@]}"}"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair##*:}")
done
# Vulkan: the loader and Mesa's lavapipe CPU driver have no command; look for their files.
compgen -G "/usr/lib*/libvulkan.so.1" >/dev/null || compgen -G "/usr/lib/*/libvulkan.so.1" >/dev/null \
    || missing+=("libvulkan1")
lvp_icd=$(compgen -G "/usr/share/vulkan/icd.d/lvp_icd.*.json" | head -n 1 || true)
[ -n "$lvp_icd" ] || missing+=("mesa-vulkan-drivers")
# virglrenderer with EGL on Mesa's llvmpipe: the CSIR TGSI oracle (crates/csir/tests/virgl.rs).
for pair in "libvirglrenderer.so.1:libvirglrenderer1" "libEGL_mesa.so.0:libegl-mesa0" \
    "dri/swrast_dri.so:libgl1-mesa-dri" "libepoxy.so.0:libepoxy0"; do
    compgen -G "/usr/lib/*/${pair%%:*}" >/dev/null || missing+=("${pair##*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "scripts/test.sh: installing ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi

# ptxas and libdevice: one 40 MB wheel download, only when the cache folder lacks them.
ptx_cache="${OXIR_PTX_CACHE:-$HOME/.cache/oxir/ptxas}"
if ! command -v ptxas >/dev/null 2>&1 && [ ! -x "$ptx_cache/ptxas" ]; then
    echo "scripts/test.sh: fetching ptxas and libdevice (nvidia-cuda-nvcc-cu12) into $ptx_cache"
    mkdir -p "$ptx_cache/whl"
    python3 -m pip download -q --no-deps -d "$ptx_cache/whl" nvidia-cuda-nvcc-cu12==12.9.86
    python3 - "$ptx_cache" <<'PY'
import glob, os, sys, zipfile
cache = sys.argv[1]
wheel = zipfile.ZipFile(sorted(glob.glob(os.path.join(cache, "whl", "*.whl")))[0])
for member, name in [("nvidia/cuda_nvcc/bin/ptxas", "ptxas"),
                     ("nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc", "libdevice.10.bc")]:
    with open(os.path.join(cache, name), "wb") as out:
        out.write(wheel.read(member))
os.chmod(os.path.join(cache, "ptxas"), 0o755)
PY
    rm -rf "$ptx_cache/whl"
fi
[ -x "$ptx_cache/ptxas" ] && export OXIR_PTXAS="${OXIR_PTXAS:-$ptx_cache/ptxas}"
[ -f "$ptx_cache/libdevice.10.bc" ] && export OXIR_LIBDEVICE="${OXIR_LIBDEVICE:-$ptx_cache/libdevice.10.bc}"
# LLVM tests fail (rather than skip) when llc, opt or ptxas is missing.
export OXIR_REQUIRE_LLVM=1

# Vulkan tests run on lavapipe, and fail (rather than skip) when Vulkan is unavailable.
lvp_icd=$(compgen -G "/usr/share/vulkan/icd.d/lvp_icd.*.json" | head -n 1 || true)
if [ -n "$lvp_icd" ] && [ -z "${VK_DRIVER_FILES:-}" ] && [ -z "${VK_ICD_FILENAMES:-}" ]; then
    export VK_DRIVER_FILES="$lvp_icd" VK_ICD_FILENAMES="$lvp_icd"
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg-runtime-$(id -u)}"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
export OXIR_REQUIRE_VULKAN=1
# The CSIR virglrenderer test fails (rather than skips) when virglrenderer is unavailable.
export OXIR_REQUIRE_VIRGL=1

# The verifier runs after every pass in tests.
export OXIR_VERIFY_EACH=1
# Property tests: enough cases to matter, few enough for a 2-core machine.
export PROPTEST_CASES="${PROPTEST_CASES:-256}"

cargo fmt --all -- --check
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
# Lints are part of the suite: every warning fails it (the lints are in Cargo.toml's
# [workspace.lints]; oxir-ir also requires doc comments on its public API).
cargo clippy --workspace --all-targets --features oxir-ir/random -- -D warnings
# No wildcard `_ =>` arm over Opcode in library code: a new opcode must fail to compile
# wherever it needs a decision (docs/adding-an-opcode.md).
python3 scripts/opcode_wildcards.py
cargo build --workspace --all-targets
# The fuzz targets live outside the workspace (cargo-fuzz's own); check they still build.
cargo check -q --manifest-path fuzz/Cargo.toml --bins --target-dir target/fuzz-check
cargo test --workspace
# The bundled example, exactly as the README runs it.
cargo run -q -p oxir -- verify examples/clamp_scale.oxir --require all --print structured >/dev/null
cargo run -q -p oxir -- compile examples/clamp_scale.wgsl --target oxir --structured >/dev/null
echo "scripts/test.sh: all tests passed"
