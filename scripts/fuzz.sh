#!/usr/bin/env bash
# Runs one cargo-fuzz target of fuzz/ for a while on stable Rust (no sanitizer).
#
#   scripts/fuzz.sh TARGET SECONDS
#
# TARGET: text_verify, passes, wgsl, glsl, spirv, csi, differential (`cargo fuzz list` in fuzz/).
# Installs cargo-fuzz when it is missing, seeds fuzz/corpus/TARGET from the project's own
# files (and from the shader corpus named by OXIR_CORPUS_DIR, when set and present), runs
# with a 10 s per-input timeout and a 2 GiB memory limit, and prints the executions and
# executions per second at the end. Sets VK_DRIVER_FILES to lavapipe's ICD when it is
# installed and none is set (the differential target's Vulkan leg). Crashes land in
# fuzz/artifacts/TARGET/; panics inside naga are contained and saved once per location
# under fuzz/artifacts/naga-panics/TARGET/.
# Exit status: libFuzzer's (0 when nothing was found).
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS" >&2
    exit 2
fi
target=$1
seconds=$2
root=$(cd "$(dirname "$0")/.." && pwd)
fuzz="$root/fuzz"

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

corpus="$fuzz/corpus/$target"
mkdir -p "$corpus"
python3 "$root/scripts/fuzz_seeds.py" "$target" "$corpus"

# The differential target's Vulkan leg runs on Mesa's lavapipe when it is installed (the
# leg says on stderr when it is skipped for want of a device or of spirv-val).
lvp_icd=$(compgen -G "/usr/share/vulkan/icd.d/lvp_icd.*.json" | head -n 1 || true)
if [[ -n "$lvp_icd" && -z "${VK_DRIVER_FILES:-}" && -z "${VK_ICD_FILENAMES:-}" ]]; then
    export VK_DRIVER_FILES="$lvp_icd" VK_ICD_FILENAMES="$lvp_icd"
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg-runtime-$(id -u)}"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
cd "$fuzz"
status=0
cargo fuzz run -s none "$target" "$corpus" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 2>&1 | tee "$log" || status=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
echo "fuzz $target: ${runs:-?} executions, ${speed:-?} exec/s in ${seconds}s (status $status)"
exit "$status"
