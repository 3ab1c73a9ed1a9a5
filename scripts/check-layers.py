#!/usr/bin/env python3
"""Checks the x86-64 backend's layering: each file of
crates/gcmsiv/src/backend/x86_64/ may use only the files listed before it in
that folder's mod.rs (its module list is in layer order), by import or path,
and may call no method of `Schedule` or `Polyval` defined in a file after it.
Test modules are exempt. Exits 1 and names each violation."""
import pathlib
import re
import sys

DIR = pathlib.Path(__file__).resolve().parent.parent / "crates/gcmsiv/src/backend/x86_64"


def without_tests(text):
    """The file up to its `#[cfg(test)] mod tests`, if any."""
    m = re.search(r"^#\[cfg\(test\)\]\s*\nmod tests", text, re.M)
    return text[: m.start()] if m else text


def main():
    order = re.findall(r"^mod (\w+);", (DIR / "mod.rs").read_text(), re.M)
    rank = {name: i for i, name in enumerate(order)}
    code = {name: without_tests((DIR / f"{name}.rs").read_text()) for name in order}
    errors = []
    for name, text in code.items():
        for used in set(re.findall(r"\bsuper::(\w+)", text)):
            if used in rank and rank[used] >= rank[name]:
                errors.append(f"{name}.rs uses {used}.rs, which is not below it")
    # Methods of the backend's two state types, by the file defining them.
    defined = {}
    for name, text in code.items():
        for block in re.finditer(r"^impl(?:<[^>]*>)? (?:Schedule<\w+>|Polyval) \{(.*?)^\}", text, re.M | re.S):
            for method in re.findall(r"^    (?:pub\(\w+\) )?(?:unsafe )?fn (\w+)", block.group(1), re.M):
                defined.setdefault(method, set()).add(name)
    for name, text in code.items():
        for method, homes in defined.items():
            if name in homes:
                continue
            if re.search(rf"\.{method}(::<|\()", text) and all(rank[h] > rank[name] for h in homes):
                errors.append(f"{name}.rs calls {method}, defined above it in {', '.join(sorted(homes))}")
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f"layers: {' < '.join(order)}: no file uses one above it")


main()
