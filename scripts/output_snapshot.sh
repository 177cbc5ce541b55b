#!/usr/bin/env bash
# Writes everything `oxir` prints for a fixed set of inputs into one folder, so that two
# builds can be compared byte for byte (`diff -r BEFORE AFTER`): a refactoring that must not
# change output is checked with it.
#
#   scripts/output_snapshot.sh OUT_DIR [OXIR_BINARY]
#
# Inputs: tests/shaders, the IR fixtures under tests/filetests, examples/, and, when present,
# the shared shader corpus (OXIR_CORPUS_DIR, default ../shared/corpus). For each input it
# records, with the exit code and standard error of each command:
#   compile --target oxir, compile --target oxir --structured, compile --target spirv (-O0
#   and -O, vulkan1.1 and vulkan1.3), reflect, and for .oxir files verify --print structured.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/output_snapshot.sh OUT_DIR [OXIR_BINARY]}
oxir=${2:-target/release/oxir}
[ -x "$oxir" ] || { echo "no oxir binary at $oxir (cargo build --release -p oxir)" >&2; exit 2; }
corpus=${OXIR_CORPUS_DIR:-../shared/corpus}
mkdir -p "$out"

inputs=()
while IFS= read -r -d '' f; do inputs+=("$f"); done < <(
    find tests/shaders examples tests/filetests -type f \
        \( -name '*.wgsl' -o -name '*.vert' -o -name '*.frag' -o -name '*.comp' -o -name '*.spv' -o -name '*.oxir' \) \
        -print0 | sort -z)
if [ -d "$corpus" ]; then
    while IFS= read -r -d '' f; do inputs+=("$f"); done < <(
        find "$corpus" -type f \
            \( -name '*.wgsl' -o -name '*.vert' -o -name '*.frag' -o -name '*.comp' -o -name '*.spv' \) \
            -print0 | sort -z)
else
    echo "output_snapshot: no corpus at $corpus; only the project's own inputs" >&2
fi

# record NAME CMD...: stdout to NAME.out, stderr to NAME.err, exit code to NAME.rc.
record() {
    local name=$1
    shift
    "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
    echo $? >"$out/$name.rc"
}

count=0
for f in "${inputs[@]}"; do
    key=$(echo "$f" | sed 's|^\.\./||; s|/|__|g')
    case "$f" in
    *.oxir)
        record "$key.verify" "$oxir" verify "$f" --print structured
        record "$key.oxir" "$oxir" compile "$f" --target oxir
        ;;
    *)
        record "$key.oxir" "$oxir" compile "$f" --target oxir
        record "$key.structured" "$oxir" compile "$f" --target oxir --structured
        record "$key.reflect" "$oxir" reflect "$f"
        for env in vulkan1.1 vulkan1.3; do
            for level in 0 1; do
                record "$key.spirv-$env-O$level" "$oxir" compile "$f" --target spirv \
                    --target-env "$env" "-O$level" -o "$out/$key.$env-O$level.spv"
            done
        done
        ;;
    esac
    count=$((count + 1))
done
echo "output_snapshot: $count inputs, $(find "$out" -type f | wc -l) files in $out"
