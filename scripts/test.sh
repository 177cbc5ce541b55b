#!/usr/bin/env bash
# Runs oxir's whole test suite. Installs the system tools the tests need, with apt-get and
# only when they are missing (none are needed by the IR crate yet; the back-end issues add
# spirv-tools, lavapipe, LLVM and virglrenderer here).
set -euo pipefail
cd "$(dirname "$0")/.."

# Packages as "command:package" pairs; a package is installed only if its command is missing.
required_tools=("spirv-val:spirv-tools")

missing=()
for pair in "${required_tools[@]+"${required_tools[@]}"}"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair##*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "scripts/test.sh: installing ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi

# The verifier runs after every pass in tests.
export OXIR_VERIFY_EACH=1
# Property tests: enough cases to matter, few enough for a 2-core machine.
export PROPTEST_CASES="${PROPTEST_CASES:-256}"

cargo fmt --all -- --check
cargo build --workspace --all-targets
cargo test --workspace
# The bundled example, exactly as the README runs it.
cargo run -q -p oxir -- verify examples/clamp_scale.oxir --require all --print structured >/dev/null
cargo run -q -p oxir -- compile examples/clamp_scale.wgsl --target oxir --structured >/dev/null
echo "scripts/test.sh: all tests passed"
