#!/usr/bin/env python3
"""Finds SPIR-V inputs that make naga panic, for the containment tests.

Usage: scripts/naga_spv_sweep.py OXIR SPV...

Each SPV (a module oxir wrote, e.g. `oxir compile tests/shaders/histogram.wgsl --target
spirv --bounds-checks unchecked -o h.spv`, as the tests generate them) has each word after the header replaced, one at a time, by 0, 1, 2, 3,
0xffffffff and its neighbours; `OXIR compile` runs on every variant. Prints the naga panic
sites found (`naga failed on this input ... (panic at naga-V/src/FILE:LINE)`) with the first
few (file, word index, value) that reach each, and any exit other than 0, 1 or 2 (a crash
the containment missed). crates/cli/tests/naga_contained.rs takes its cases from here.
"""
import re
import struct
import subprocess
import sys
import tempfile

PANIC = re.compile(r"naga failed on this input: .* \(panic at naga-[^/]*/src/(\S+?):(\d+)\)")


def variants(words):
    for i in range(5, len(words)):
        old = words[i]
        for value in sorted({0, 1, 2, 3, 0xFFFFFFFF, (old + 1) & 0xFFFFFFFF, (old - 1) & 0xFFFFFFFF}):
            if value != old:
                yield i, value, words[:i] + [value] + words[i + 1:]


def main():
    oxir, files = sys.argv[1], sys.argv[2:]
    found, runs = {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        target = f"{tmp}/variant.spv"
        for name in files:
            data = open(name, "rb").read()
            words = list(struct.unpack(f"<{len(data) // 4}I", data[: len(data) // 4 * 4]))
            for i, value, mutated in variants(words):
                open(target, "wb").write(struct.pack(f"<{len(mutated)}I", *mutated))
                out = subprocess.run([oxir, "compile", target], capture_output=True, timeout=60)
                runs += 1
                err = out.stderr.decode("utf8", "replace")
                match = PANIC.search(err)
                if out.returncode not in (0, 1, 2):
                    key = f"exit {out.returncode}: {err[-160:]!r}"
                elif match:
                    key = f"{match.group(1)}:{match.group(2)}"
                else:
                    continue
                found.setdefault(key, []).append((name, i, value))
    print(f"{runs} variants, {len(found)} distinct outcomes")
    for key, hits in sorted(found.items()):
        print(f"{key}  {len(hits)} variants, e.g. {hits[:3]}")


if __name__ == "__main__":
    main()
