#!/usr/bin/env python3
"""Lists every `match` over `Opcode` that has a wildcard arm (`_ =>` or a catch-all
binding) in the library code of the workspace, and exits 1 if there is one.

Every consumer of opcodes must match them exhaustively, so that adding a row to the op
table fails compilation wherever the new opcode needs a decision. The compiler cannot say
which wildcard arms stand for opcodes, but clippy's `wildcard_enum_match_arm` lint names
the variants a wildcard covers: an arm whose covered variants are all opcodes (the
variant names of `crates/ir/src/ops.rs`) is reported. Tests and benches are not consumers
and are listed apart without failing, as are arms marked with a `// wildcard-ok: REASON`
comment on the line above: queries about a few named opcodes (`Load` or `Store`, say)
where every other opcode answers "no" and a new one needs no decision.

    python3 scripts/opcode_wildcards.py          # run clippy and check
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def opcode_names():
    text = (ROOT / "crates/ir/src/ops.rs").read_text()
    return set(re.findall(r"^\s+(\w+) = \"[a-z0-9_]+\", family:", text, re.M))


def marked_ok(span):
    """Whether the line above the wildcard arm carries a `// wildcard-ok:` comment."""
    lines = (ROOT / span["file_name"]).read_text().splitlines()
    above = lines[span["line_start"] - 2] if span["line_start"] >= 2 else ""
    return "// wildcard-ok:" in above


def covered_variants(message):
    """The variant names of the suggestion clippy attaches to the wildcard arm."""
    names = []
    for child in message.get("children", []):
        for span in child.get("spans", []):
            replacement = span.get("suggested_replacement") or ""
            for alternative in replacement.split("|"):
                alternative = alternative.strip()
                alternative = re.sub(r"^\w+ @ ", "", alternative)
                alternative = re.sub(r"[({].*$", "", alternative).strip()
                if alternative:
                    names.append(alternative.rsplit("::", 1)[-1])
    return names


def opcode_set_tests():
    """`matches!(op, A | B)` in library code: a wildcard the lint cannot see. Allowed for
    properties of a few named ops; a family must be a predicate of the op table."""
    found = []
    pattern = re.compile(r"matches!\(\s*(?:op|opcode|[\w.()]*\.opcode)\s*,")
    for path in sorted(ROOT.glob("crates/*/src/**/*.rs")):
        if "/tests/" in str(path):
            continue
        text = path.read_text()
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(ROOT)}:{line}")
    return found


def main():
    opcodes = opcode_names()
    command = [
        "cargo", "clippy", "--workspace", "--all-targets", "--features", "oxir-ir/random",
        "--message-format=json", "-q", "--", "-A", "clippy::all",
        "-W", "clippy::wildcard_enum_match_arm",
    ]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        print("opcode_wildcards: clippy failed", file=sys.stderr)
        return 2
    consumers, tests, allowed = set(), set(), set()
    for line in run.stdout.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        message = record.get("message") or {}
        if (message.get("code") or {}).get("code") != "clippy::wildcard_enum_match_arm":
            continue
        names = covered_variants(message)
        if not names or not all(name in opcodes for name in names):
            continue
        span = next(s for s in message["spans"] if s.get("is_primary"))
        where = f"{span['file_name']}:{span['line_start']}"
        in_tests = "/tests/" in span["file_name"] or "/benches/" in span["file_name"]
        if marked_ok(span):
            allowed.add((where, len(names)))
            continue
        (tests if in_tests else consumers).add((where, len(names)))
    for where, count in sorted(tests):
        print(f"test code (allowed): {where}: wildcard over {count} opcodes")
    for where, count in sorted(allowed):
        print(f"marked wildcard-ok (allowed): {where}: wildcard over {count} opcodes")
    for where, count in sorted(consumers):
        print(f"consumer: {where}: wildcard arm over {count} opcodes")
    sets = opcode_set_tests()
    for where in sets:
        print(f"opcode set (matches!, allowed): {where}")
    print(f"opcode_wildcards: {len(consumers)} unmarked wildcard arms over Opcode in library "
          f"code, {len(allowed)} marked wildcard-ok, {len(tests)} in tests, {len(sets)} "
          f"`matches!` opcode-set tests in library code")
    return 1 if consumers else 0


if __name__ == "__main__":
    sys.exit(main())
