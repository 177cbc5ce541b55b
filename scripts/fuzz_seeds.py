#!/usr/bin/env python3
"""Seeds fuzz/corpus/TARGET with inputs made from the project's own files.

    scripts/fuzz_seeds.py TARGET CORPUS_DIR

Sources: tests/filetests and examples (oxir text; a pass fixture's input is the part
before `; output:`), tests/shaders and examples (WGSL and GLSL), generator seeds for the
module targets, CSI files compiled from the vertex and fragment shaders (csi), and, when OXIR_CORPUS_DIR names a directory, the shader corpus in it (read
at run time: nothing from it is ever added to the repository). Seeds are named by their
content hash, so running this again adds nothing new.
"""
import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GLSL_STAGE = {".comp": 0, ".vert": 1, ".frag": 2}  # the glsl target's first byte


def files(directory, suffixes):
    if directory is None or not directory.is_dir():
        return []
    return sorted(p for p in directory.rglob("*") if p.is_file() and p.suffix in suffixes)


def oxir_texts():
    for path in files(ROOT / "tests/filetests", {".oxir"}) + files(ROOT / "examples", {".oxir"}):
        yield path.read_bytes().split(b"\n; output:")[0]


def generator_seeds(count):
    # Mode byte 0 (generator), then the u64 seed and the GenConfig bytes that
    # oxir_fuzz::random_module reads.
    for seed in range(count):
        yield b"\x00" + struct.pack("<Q", seed * 0x9E3779B97F4A7C15 % 2**64) + bytes(
            [seed & 1, (seed >> 1) & 1, seed % 6, (seed * 37) % 256, 0, (seed >> 2) & 1]
        )


def shared_corpus():
    value = os.environ.get("OXIR_CORPUS_DIR")
    return Path(value) if value else None


def csi_files(corpus):
    """CSI files of every vertex and fragment entry point `oxir compile --target csi`
    takes, from tests/shaders and the shared corpus (built with the debug oxir binary)."""
    subprocess.run(["cargo", "build", "-q", "-p", "oxir"], cwd=ROOT, check=True)
    oxir = ROOT / "target/debug/oxir"
    shaders = [p for d in (ROOT / "tests/shaders", corpus)
               for p in files(d, {".wgsl", ".vert", ".frag"})]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "seed.csi"
        for path in shaders:
            text = path.read_text(errors="replace")
            entries = re.findall(r"@(?:vertex|fragment)\s+fn\s+(\w+)", text) or [None]
            for entry in entries:
                args = [str(oxir), "compile", str(path), "--target", "csi", "-o", str(out)]
                if entry:
                    args += ["--entry", entry]
                done = subprocess.run(args, capture_output=True)
                if done.returncode == 0 and out.exists():
                    yield out.read_bytes()
                    out.unlink()


def seeds(target):
    corpus = shared_corpus()
    if target == "text_verify":
        yield from oxir_texts()
    elif target in ("passes", "differential"):
        yield from (b"\x01" + text for text in oxir_texts())
        yield from generator_seeds(64)
    elif target == "wgsl":
        for directory in (ROOT / "tests/shaders", ROOT / "examples", corpus):
            yield from (p.read_bytes() for p in files(directory, {".wgsl"}))
    elif target == "glsl":
        for directory in (ROOT / "tests/shaders", corpus):
            for path in files(directory, set(GLSL_STAGE)):
                yield bytes([GLSL_STAGE[path.suffix]]) + path.read_bytes()
    elif target == "spirv":
        yield from (p.read_bytes() for p in files(corpus, {".spv"}))
    elif target == "csi":
        yield from csi_files(corpus)
    else:
        sys.exit(f"unknown fuzz target `{target}`")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/fuzz_seeds.py TARGET CORPUS_DIR")
    target, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    added = 0
    for data in seeds(target):
        path = out / ("seed-" + hashlib.sha1(data).hexdigest())
        if not path.exists():
            path.write_bytes(data)
            added += 1
    print(f"{target}: {added} new seeds in {out}")


if __name__ == "__main__":
    main()
